"""The one list of what changed and the one verdict (issue 22): lines per fact, the three
states, resolved findings, flags, the judge's quotes, the calibration's intervals, and the
bounded history."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from agentic_chunking._models import AgenticChunk, AgenticResponse
from agentic_chunking.cli import main
from agentic_chunking.judge import Calibration, calibration_path, write_calibration
from agentic_chunking.pipeline._prompts import PROMPT_VERSIONS
from agentic_chunking.report import (
    CaseResult,
    CheckResult,
    FindingRecord,
    InputRecord,
    RunResults,
    compare_runs,
    load_results,
    render_report,
    verdict_of,
    write_results,
)
from agentic_chunking.report._changes import unverified_quotes
from agentic_chunking.report._diff import align_propositions
from agentic_chunking.report._results import HISTORY_KEEP, prune_history
from agentic_chunking.report._stats import TRUST_MIN, CalibrationRow, wilson

SOURCE = (
    "Marie Curie won the Nobel Prize in 1903. Cells store energy as glycogen. "
    "The reactor does not need water cooling. Zoning divides a city into districts."
)
FACTS = [
    "Marie Curie won the Nobel Prize in 1903.",
    "Cells store energy as glycogen.",
    "The reactor does not need water cooling.",
    "Zoning divides a city into districts.",
]


def _case(
    propositions: Sequence[str], *findings: FindingRecord, case_id: str = "TC-001"
) -> CaseResult:
    chunk = AgenticChunk.from_propositions(
        document_id="D",
        seq=1,
        thematic_category="T",
        propositions=list(propositions),
        source_chunk_ids=["C1"],
    )
    by_rule: dict[str, list[FindingRecord]] = {}
    for finding in findings:
        by_rule.setdefault(finding.rule, []).append(finding)
    checks = {
        rule: CheckResult(passed=not any(f.is_error for f in fs), findings=tuple(fs))
        for rule, fs in by_rule.items()
    }
    red = any(f.is_error for f in findings)
    return CaseResult(
        id=case_id,
        outcome="failed" if red else "passed",
        checks=checks,
        inputs=(InputRecord("C1", SOURCE),),
        response=AgenticResponse(chunks=(chunk,)),
    )


def _run(model: str, *cases: CaseResult, judge: str | None = None) -> RunResults:
    return RunResults(model=model, replies="recorded", cases=cases, judge_model=judge)


def _error(proposition: str, rule: str, reason: str, **extra: str) -> FindingRecord:
    return FindingRecord(proposition, rule, reason, **extra)  # type: ignore[arg-type]


def test_a_fact_that_breaks_three_rules_is_one_line_and_the_verdict_is_unsafe() -> None:
    bad = "It also needs no water."
    after = _case(
        [*FACTS, bad],
        _error(bad, "no_invention", "'needs' is not in the source"),
        _error(bad, "no_unresolved_pronouns", "'It' has no referent"),
        _error(bad, "self_contained", "uses 'also'"),
    )
    comparison = compare_runs([_run("a", _case(FACTS)), _run("b", after)])
    (line,) = comparison.changes
    assert (line.category, line.text) == ("new error", bad)
    assert line.rules == ("no_invention", "no_unresolved_pronouns", "self_contained")
    assert comparison.verdict == "unsafe" and comparison.headlines[0].new_errors == 1


def test_a_dropped_fact_and_a_flagged_rewording_make_review_not_unsafe() -> None:
    dropped = _error(
        "",
        "coverage",
        "no proposition states this sentence",
        severity="warning",
        kind="uncovered_sentence",
        source_sentence=FACTS[3],
    )
    reworded = "The reactor does need water cooling."  # a lost "not", no rule fires here
    after = _case([FACTS[0], FACTS[1], reworded], dropped)
    comparison = compare_runs([_run("a", _case(FACTS)), _run("b", after)])
    assert [(c.category, c.text) for c in comparison.changes] == [
        ("dropped fact", FACTS[3]),
        ("flagged rewording", reworded),
    ]
    assert comparison.changes[1].notes == ("negation removed: not",)
    assert comparison.changes[1].was == FACTS[2]
    assert comparison.verdict == "review"
    assert verdict_of([]) == "same"


def test_a_finding_carried_over_a_rewording_is_not_new_and_a_gone_one_is_resolved() -> None:
    old = _error(FACTS[1], "no_invention", "'glycogen' is not in the source")
    gone = _error(FACTS[3], "self_contained", "no capital")
    moved = "Cells store their energy as glycogen."
    carried = _error(moved, "no_invention", "'glycogen' and 'their' are not in the source")
    before = _case(FACTS, old, gone)
    after = _case([FACTS[0], moved, FACTS[2], FACTS[3]], carried)
    comparison = compare_runs([_run("a", before), _run("b", after)])
    assert comparison.changes == ()
    (resolved,) = comparison.resolved
    assert (resolved.category, resolved.text, resolved.rules) == (
        "resolved",
        FACTS[3],
        ("self_contained",),
    )
    assert comparison.verdict == "same"


def test_a_sentence_opener_the_source_uses_in_lower_case_is_no_name() -> None:
    (pair,) = align_propositions(
        ["Each cell stores energy as glycogen."],
        ["Cells store energy as glycogen."],
        source=SOURCE + " All cells do.",
    )
    assert not any(n.startswith("name") for n in pair.notes)
    (swap,) = align_propositions(
        ["Marie Curie won the Nobel Prize in 1903."],
        ["Pierre Curie won the Nobel Prize in 1903."],
        source=SOURCE,
    )
    assert swap.notes == ("name removed: Marie", "name added: Pierre")


def test_a_judge_quote_the_source_lacks_is_marked_unverified() -> None:
    assert unverified_quotes('the source says "does not need water cooling"', SOURCE) == ()
    assert unverified_quotes('the source says "needs no water at all"', SOURCE) == (
        "needs no water at all",
    )
    bad = "The reactor needs no water."
    finding = _error(
        bad,
        "no_invention",
        "'needs' is not in the source",
        judge="confirmed",
        judge_reason='the source says "the reactor runs dry"',
    )
    after = _case([FACTS[0], FACTS[1], bad, FACTS[3]], finding)
    comparison = compare_runs([_run("a", _case(FACTS)), _run("b", after)])
    (line,) = comparison.changes
    assert line.unverified == ("the reactor runs dry",)
    assert "confirmed by judge" in line.judge
    html = render_report([], comparison=comparison, plots=False)
    assert html.count("quote unverified: the reactor runs dry") == 2  # the list and the case


def test_a_judged_run_against_an_unjudged_one_says_so() -> None:
    runs = [_run("m", _case(FACTS), judge="j"), _run("m2", _case(FACTS), judge=None)]
    comparison = compare_runs(runs)
    assert comparison.headlines[0].judging_differs
    html = render_report(runs, plots=False)
    assert "their findings differ by judging as well as by model" in html
    assert comparison.to_dict()["runs"][0]["judging_differs"] is True


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(9, 10)  # type: ignore[misc]
    assert (round(low, 4), round(high, 4)) == (0.5958, 0.9821)
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    assert wilson(10, 10) == (pytest.approx(0.7225, abs=1e-4), 1.0)
    assert wilson(0, 0) is None


def test_calibration_shows_n_an_interval_and_distrust_under_30() -> None:
    few = CalibrationRow.of(
        "no_invention", {"good_items": 10, "bad_items": 10, "recall": 0.9, "specificity": 0.8}
    )
    assert not few.trusted and few.n == 20
    assert few.text.startswith("no_invention: balanced accuracy 0.85 (95% CI ")
    assert "n=20 (recall 9/10, specificity 8/10); too few items to trust" in few.text
    many = CalibrationRow.of(
        "x", {"good_items": TRUST_MIN, "bad_items": TRUST_MIN, "recall": 1.0, "specificity": 1.0}
    )
    assert many.trusted and "too few" not in many.text


def test_report_reads_the_calibration_written_after_the_run(tmp_path: Path) -> None:
    results = tmp_path / "results-m.json"
    write_results(_run("m", _case(FACTS), judge="loopback-judge"), tmp_path)
    figures = {
        "no_invention": {"good_items": 4, "bad_items": 4, "recall": 1.0, "specificity": 0.75}
    }
    calibration = Calibration("loopback-judge", PROMPT_VERSIONS["judge"], 0, figures)
    write_calibration(calibration, calibration_path(tmp_path / "cal", "loopback-judge"))
    assert load_results(results).judge_calibration is None  # not in the file
    out = tmp_path / "page.html"
    argv = ["report", str(results), "--calibration-dir", str(tmp_path / "cal"), "-o", str(out)]
    assert main([*argv, "--no-plots"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "no_invention: balanced accuracy 0.88 (95% CI" in page
    assert "n=8 (recall 4/4, specificity 3/4); too few items to trust" in page


def test_history_keeps_the_newest_runs_of_each_results_file(tmp_path: Path) -> None:
    history = tmp_path / "history"
    history.mkdir()
    stamps = [f"20261201-{n:06d}" for n in range(HISTORY_KEEP + 3)]
    for stamp in stamps:
        (history / f"results-m-{stamp}.json").write_text("{}")
        (history / f"results-m-unjudged-{stamp}.json").write_text("{}")
    (history / "notes.txt").write_text("mine")
    deleted = prune_history(history, "results-m")
    assert sorted(p.name for p in deleted) == [f"results-m-{s}.json" for s in stamps[:3]]
    kept = sorted(p.name for p in history.glob("results-m-2*.json"))
    assert kept == [f"results-m-{s}.json" for s in stamps[3:]]
    assert len(list(history.glob("results-m-unjudged-*.json"))) == HISTORY_KEEP + 3
    assert (history / "notes.txt").read_text() == "mine"


def test_write_results_bounds_the_history(tmp_path: Path) -> None:
    history = tmp_path / "history"
    history.mkdir()
    for n in range(HISTORY_KEEP + 5):
        (history / f"results-m-20200101-{n:06d}.json").write_text("{}")
    write_results(_run("m", _case(FACTS)), tmp_path)
    names = sorted(p.name for p in history.iterdir())
    assert len(names) == HISTORY_KEEP and not names[-1].startswith("results-m-2020")


def test_the_comparison_json_round_trips_through_json(reference: RunResults) -> None:
    data = compare_runs([reference, replace(reference, model="same-model")]).to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["verdict"] == "same" and data["changes"] == []


def test_only_plain_identifiers_become_filter_css() -> None:
    odd = 'x"] { display: none } body:has('
    after = _case(
        [*FACTS, "A new fact."],
        _error("A new fact.", odd, "odd rule name"),
        _error("A new fact.", "no_invention", "'new' is not in the source"),
    )
    html = render_report([_run("a", _case(FACTS)), _run("b", after)], plots=False)
    style = html[html.index("<style>") : html.index("</style>")]
    assert 'option[value="no_invention"]:checked' in style
    assert 'option[value="TC-001"]:checked' in style
    assert "odd rule name" in html and odd not in style
