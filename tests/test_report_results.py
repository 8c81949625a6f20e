"""The results file schema: round trips, writing, loading, and refusing bad files."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from agentic_chunking import InputError
from agentic_chunking.report import (
    SCHEMA,
    CaseResult,
    CheckResult,
    Expectation,
    FindingRecord,
    RunResults,
    Usage,
    load_results,
    merge_runs,
    record_run,
    write_results,
)
from agentic_chunking.report import __all__ as report_all
from agentic_chunking.report._results import model_slug

FIXTURES = Path(__file__).parent / "fixtures" / "report"


def test_public_names_are_sorted_and_exist() -> None:
    import agentic_chunking.report as report

    constants = [n for n in report_all if n.isupper()]
    others = [n for n in report_all if not n.isupper()]
    assert report_all == sorted(constants) + sorted(others, key=lambda n: (n[0].islower(), n))
    assert all(hasattr(report, n) for n in report_all)


@pytest.mark.parametrize("name", ["results-reference.json", "results-claude-next.json"])
def test_fixture_round_trips_through_dict_and_json(name: str) -> None:
    data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    run = RunResults.from_dict(data)
    assert run.to_dict() == data
    assert RunResults.from_dict(json.loads(json.dumps(run.to_dict()))) == run


def test_case_figures_come_from_the_response(reference: RunResults) -> None:
    case = reference.case("TC-031")
    assert case is not None
    assert case.counts == {"chunks": 6, "propositions": 20, "tokens": 354}
    assert case.themes[0] == "Lithium-ion Battery Fundamentals"
    assert case.expected.seed is not None and case.expected.seed.chunks == 6
    assert [name for name, _ in case.ordered_checks()][:2] == [
        "no_invention",
        "no_unresolved_pronouns",
    ]


def test_case_without_response_has_no_counts() -> None:
    case = CaseResult(id="TC-099", outcome="error", error="boom")
    assert case.counts == {"chunks": None, "propositions": None, "tokens": None}
    assert case.themes == ()
    assert CaseResult.from_dict(case.to_dict()) == case


def test_write_results_writes_latest_and_history(tmp_path: Path, reference: RunResults) -> None:
    run = replace(reference, model="claude/3.7 sonnet")
    path = write_results(run, tmp_path / "reports")
    assert path == tmp_path / "reports" / "results-claude_3.7_sonnet.json"
    history = list((tmp_path / "reports" / "history").glob("results-claude_3.7_sonnet-*.json"))
    assert len(history) == 1
    assert load_results(path) == run == load_results(history[0])
    assert json.loads(path.read_text(encoding="utf-8"))["schema"] == SCHEMA


@pytest.mark.parametrize(
    ("model", "slug"), [("reference", "reference"), ("a/b:c", "a_b_c"), ("...", "model")]
)
def test_model_slug(model: str, slug: str) -> None:
    assert model_slug(model) == slug


def _bad(tmp_path: Path, mutate: object) -> Path:
    data = json.loads((FIXTURES / "results-reference.json").read_text(encoding="utf-8"))
    mutate(data)  # type: ignore[operator]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda d: d.update(schema="agentic-chunking-results/0"), "schema"),
        (lambda d: d.update(replies="live"), "'live'"),
        (lambda d: d["cases"][0].update(outcome="ok"), "'TC-001'"),
        (lambda d: d["cases"][3]["response"].update(TotalChunks=99), "TotalChunks"),
        (lambda d: d["cases"][3]["expected"].update(chunks=[8, 5]), "chunks"),
        (lambda d: d["cases"][0].pop("id"), "'id'"),
    ],
)
def test_load_results_refuses_bad_files(tmp_path: Path, mutate: object, words: str) -> None:
    path = _bad(tmp_path, mutate)
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert str(path) in str(caught.value)
    assert words in str(caught.value)


def test_load_results_names_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_results(tmp_path / "nope.json")
    (tmp_path / "x.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"not readable JSON.*; give a results file the suite"):
        load_results(tmp_path / "x.json")
    (tmp_path / "y.json").write_text("[]", encoding="utf-8")
    with pytest.raises(InputError, match="list, not an object; give a results file the suite"):
        load_results(tmp_path / "y.json")


def test_records_round_trip() -> None:
    finding = FindingRecord("It is red.", "no_unresolved_pronouns", "'It' unresolved", 2)
    check = CheckResult(applies=True, passed=False, findings=(finding,))
    assert CheckResult.from_dict(check.to_dict()) == check
    assert check.verdict == "fail"
    assert CheckResult(applies=False).verdict == "n/a"
    assert CheckResult(passed=None).verdict == "not run"
    expectation = Expectation(chunks=(1, 2), themes=("A",))
    assert Expectation.from_dict(expectation.to_dict()) == expectation
    assert Usage.from_dict(Usage(1, 2, 3).to_dict()) == Usage(1, 2, 3)


def test_check_result_from_the_checks_findings() -> None:
    from agentic_chunking.checks import Finding

    found = [Finding("It is red.", "no_unresolved_pronouns", "'It' unresolved", 1)]
    check = CheckResult.from_findings(found)
    assert check.passed is False and check.verdict == "fail"
    assert check.findings == (
        FindingRecord("It is red.", "no_unresolved_pronouns", "'It' unresolved", 1),
    )
    assert CheckResult.from_findings([]).verdict == "pass"
    assert CheckResult.from_findings(found, applies=False).verdict == "n/a"


def test_warnings_are_kept_but_never_fail_a_check() -> None:
    from agentic_chunking.checks import WARNING, Finding

    warning = Finding(
        "People use it.",
        "no_invention",
        "'people' not in the source",
        severity=WARNING,
        kind="unsupported_word",
        source_sentence="Users do.",
    )
    error = Finding("It is 7 V.", "no_invention", "'7' not in the source", kind="number")
    only_warning = CheckResult.from_findings([warning])
    assert only_warning.passed is True and only_warning.verdict == "pass"
    assert only_warning.warnings == only_warning.findings and not only_warning.errors
    mixed = CheckResult.from_findings([warning, error])
    assert mixed.passed is False
    assert [f.severity for f in mixed.findings] == ["warning", "error"]
    assert mixed.findings[0].source_sentence == "Users do."
    assert CheckResult.from_dict(mixed.to_dict()) == mixed


def test_a_finding_from_an_older_results_file_reads_as_an_error() -> None:
    old = {"proposition": "p", "rule": "no_invention", "reason": "r", "chunk_index": None}
    assert FindingRecord.from_dict(old).severity == "error"
    with pytest.raises(InputError, match="severity 'fatal'"):
        FindingRecord.from_dict({**old, "severity": "fatal"})


def test_expectation_reads_a_case_files_expect_block() -> None:
    expect = {
        "chunks": [5, 8],
        "propositions": [16, 26],
        "tokens": [400, 650],
        "themes": ["Battery"],
        "error": None,
        "seed": {"chunks": 6, "propositions": 20, "tokens": 499, "note": "seed 000"},
    }
    expectation = Expectation.from_dict(expect)
    assert expectation.chunks == (5, 8)
    assert expectation.seed is not None and expectation.seed.tokens == 499


# -- merging per case: a partial run never shrinks a model's results ---------------------


def _run(created_at: str, *case_ids: str, outcome: str = "passed") -> RunResults:
    cases = tuple(CaseResult(id=i, outcome=outcome, judged_at=created_at) for i in case_ids)
    return RunResults(model="m", created_at=created_at, cassette_set="cassettes/m", cases=cases)


def test_a_merge_replaces_the_cases_run_again_and_keeps_the_others() -> None:
    earlier = _run("2026-01-01T00:00:00+00:00", "TC-001", "TC-002", "TC-003")
    later = _run("2026-02-01T00:00:00+00:00", "TC-002", outcome="failed")
    merged = merge_runs(earlier, later)
    assert [c.id for c in merged.cases] == ["TC-001", "TC-002", "TC-003"]
    assert [c.outcome for c in merged.cases] == ["passed", "failed", "passed"]
    assert [c.judged_at[:7] for c in merged.cases] == ["2026-01", "2026-02", "2026-01"]
    assert merged.created_at == later.created_at
    assert merged.judged_at_times == ("2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+00:00")


def test_a_case_without_its_own_time_keeps_the_time_of_the_run_it_came_from() -> None:
    earlier = replace(_run("2026-01-01T00:00:00+00:00", "TC-001"), cases=(CaseResult(id="TC-001"),))
    merged = merge_runs(earlier, _run("2026-02-01T00:00:00+00:00", "TC-002"))
    first = merged.case("TC-001")
    assert first is not None and first.judged_at == "2026-01-01T00:00:00+00:00"
    assert first.cassette_set == "cassettes/m"


def test_runs_of_two_models_are_never_merged() -> None:
    with pytest.raises(InputError, match="cannot merge results of model 'm' into 'other'"):
        merge_runs(_run("t", "TC-001"), replace(_run("t", "TC-001"), model="other"))


def test_record_run_merges_into_the_file_and_never_shrinks_it(tmp_path: Path) -> None:
    record_run(_run("2026-01-01T00:00:00+00:00", "TC-001", "TC-002"), tmp_path)
    merged = record_run(_run("2026-02-01T00:00:00+00:00", "TC-002"), tmp_path)
    on_disk = load_results(tmp_path / "results-m.json")
    assert on_disk == merged
    assert [c.id for c in on_disk.cases] == ["TC-001", "TC-002"]


def test_record_run_leaves_an_unreadable_results_file_as_it_is(tmp_path: Path) -> None:
    broken = tmp_path / "results-m.json"
    broken.write_text("{ not json")
    with pytest.raises(InputError, match=r"results-m\.json"):
        record_run(_run("t", "TC-001"), tmp_path)
    assert broken.read_text() == "{ not json"
