"""Run against run: verdict flips first, then count shifts past the soft ranges, then themes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agentic_chunking.report import (
    CheckResult,
    Comparison,
    FindingRecord,
    RunResults,
    compare_runs,
)
from agentic_chunking.report._compare import column_labels
from agentic_chunking.report._themes import default_similarity


@pytest.fixture(scope="module")
def comparison(reference: RunResults, upgrade: RunResults) -> Comparison:
    return compare_runs([upgrade], baseline=reference)


def test_the_same_run_given_twice_is_one_column(reference: RunResults) -> None:
    result = compare_runs([reference, reference])
    assert result.moves == ()
    assert result.safe
    assert [c.label for c in result.columns] == ["reference"]
    again = compare_runs([reference], baseline=reference)
    assert [c.label for c in again.columns] == ["baseline: reference"]


def test_the_base_is_the_first_run_given_or_the_baseline_never_the_time(
    reference: RunResults, upgrade: RunResults
) -> None:
    later = replace(upgrade, model="later", created_at="2027-01-01T00:00:00+00:00")
    # the first run given is the base, the others follow in the order given, whatever
    # their times or reply kinds
    assert [c.run.model for c in compare_runs([later, upgrade, reference]).columns] == [
        "later",
        upgrade.model,
        "reference",
    ]
    assert [c.run.model for c in compare_runs([upgrade, later]).columns] == [upgrade.model, "later"]
    # with --baseline: that one, then the runs in the order given
    assert [c.run.model for c in compare_runs([upgrade, reference], baseline=later).columns] == [
        "later",
        upgrade.model,
        "reference",
    ]


def test_swapping_the_order_flips_the_verdict(reference: RunResults, upgrade: RunResults) -> None:
    # the upgrade is the later run: a base chosen by time would be the same both ways
    assert upgrade.created_at > reference.created_at
    forward = compare_runs([reference, upgrade])
    backward = compare_runs([upgrade, reference])
    assert forward.reference.run is reference and forward.verdict == "unsafe"
    assert backward.reference.run is upgrade and backward.verdict != "unsafe"
    assert {c.case_id for c in backward.resolved} >= {"TC-019", "TC-031"}


def test_verdict_flips_are_listed_first_and_make_it_unsafe(comparison: Comparison) -> None:
    kinds = [m.kind for m in comparison.moves]
    assert kinds == sorted(kinds, key=["verdict", "count", "theme"].index)
    verdicts = {m.case_id: m for m in comparison.of_kind("verdict")}
    assert set(verdicts) == {"TC-019", "TC-031"}
    assert verdicts["TC-019"].severity == "regression"
    assert verdicts["TC-019"].text == "passed → failed (no_invention: pass → fail)"
    assert "no_unresolved_pronouns: pass → fail" in verdicts["TC-031"].text
    assert not comparison.safe
    assert len(comparison.verdict_regressions) == 2
    assert comparison.reference.label == "baseline: reference"
    assert comparison.reference.is_baseline


def test_a_fix_is_an_improvement(reference: RunResults, upgrade: RunResults) -> None:
    result = compare_runs([reference], baseline=upgrade)
    verdicts = result.of_kind("verdict")
    assert {m.severity for m in verdicts} == {"improvement"}
    assert result.safe


def test_check_flip_without_outcome_change_counts(reference: RunResults) -> None:
    case = reference.cases[0]
    flipped = replace(case, checks={**case.checks, "no_duplication": CheckResult(passed=False)})
    other = replace(reference, model="m2", cases=(flipped, *reference.cases[1:]))
    (move,) = compare_runs([reference, other]).of_kind("verdict")
    assert move.case_id == case.id
    assert move.severity == "regression"
    assert move.text == "passed (no_duplication: pass → fail)"


def test_count_shift_out_of_and_back_into_range(reference: RunResults) -> None:
    case = reference.case("TC-001")
    assert case is not None and case.counts["chunks"] == 1
    narrow = replace(case, expected=replace(case.expected, chunks=(2, 3)))
    wide = replace(case, expected=replace(case.expected, chunks=(1, 3)))
    # same response, different ranges is not a shift: only changed values move
    assert (
        compare_runs(
            [replace(reference, cases=(narrow,)), replace(reference, model="x", cases=(wide,))]
        ).of_kind("count")
        == []
    )


def test_count_moves_in_the_fixture(comparison: Comparison) -> None:
    counts = comparison.of_kind("count")
    assert [(m.case_id, m.severity, m.text) for m in counts] == [
        ("TC-031", "change", "tokens 354 → 364, below the expected 400-650")
    ]


def test_count_leaving_the_range_is_a_regression(
    reference: RunResults, upgrade: RunResults
) -> None:
    tc001 = reference.case("TC-001")
    assert tc001 is not None
    tight = replace(tc001, expected=replace(tc001.expected, propositions=(3, 3)))
    new = upgrade.case("TC-001")
    assert new is not None and new.counts["propositions"] == 4
    before = replace(reference, cases=(tight,))
    after = replace(upgrade, cases=(replace(new, expected=tight.expected),))
    (move,) = compare_runs([after], baseline=before).of_kind("count")
    assert move.severity == "regression"
    assert move.text == "propositions 3 → 4, above the expected 3"
    (back,) = compare_runs([before], baseline=after).of_kind("count")
    assert back.severity == "improvement"
    assert back.text == "propositions 4 → 3, back within 3"


def test_theme_changes(comparison: Comparison) -> None:
    themes = comparison.of_kind("theme")
    change = themes[-1]
    assert (change.case_id, change.severity) == ("TC-031", "change")
    assert change.text.startswith("new: Battery Technology, Zoning")
    assert "gone: Lithium-ion Battery Fundamentals" in change.text
    # "Urban Planning" is carried by "Zoning" by meaning (semantic extra), not by words
    lost = [m.text for m in themes if m.severity == "regression"]
    by_meaning = default_similarity() is not None
    assert lost == ([] if by_meaning else ["expected theme lost: Urban Planning"])


def test_findings_are_compared_one_by_one(comparison: Comparison) -> None:
    diff = comparison.diff("TC-031", "claude-next-20261201")
    assert diff is not None
    assert [(f.rule, f.severity) for f in diff.new_findings] == [
        ("no_invention", "error"),
        ("no_unresolved_pronouns", "error"),
        ("self_contained", "error"),
    ]
    (headline,) = comparison.headlines
    # four error findings on two propositions: one line per fact
    assert (headline.new_errors, headline.resolved, headline.added) == (2, 0, 2)
    assert headline.verdict == "unsafe"
    (line,) = [c for c in comparison.changes if c.case_id == "TC-031"]
    assert line.category == "new error"
    assert line.rules == ("no_invention", "no_unresolved_pronouns", "self_contained")
    assert line.text == "It also controls which genes are expressed."


def test_a_new_mistake_inside_an_already_failing_case_is_new(comparison: Comparison) -> None:
    failing = comparison.columns[1].run
    case = failing.case("TC-019")
    assert case is not None and case.outcome == "failed"
    extra = FindingRecord("The tag is 42 cm long.", "no_invention", "'42 cm' is not in the source")
    check = case.checks["no_invention"]
    worse = replace(
        case,
        checks={**case.checks, "no_invention": replace(check, findings=(*check.findings, extra))},
    )
    later = replace(failing, created_at="2099-01-01T00:00:00+00:00", cases=(worse,))
    result = compare_runs([later], baseline=replace(failing, cases=(case,)))
    assert result.of_kind("verdict") == []  # the verdict did not move ...
    (headline,) = result.headlines
    assert headline.new_errors == 1 and headline.verdict == "unsafe"  # ... the finding did
    assert not result.safe


def test_missing_case_is_a_verdict_move(reference: RunResults) -> None:
    shorter = replace(reference, model="m2", cases=reference.cases[:-1])
    (move,) = compare_runs([shorter], baseline=reference).of_kind("verdict")
    assert move.case_id == "TC-031"
    assert move.severity == "regression"
    assert move.text == "case missing from m2"
    (added,) = compare_runs([reference], baseline=shorter).of_kind("verdict")
    assert added.severity == "change"


def test_column_labels_are_unique(reference: RunResults, upgrade: RunResults) -> None:
    assert column_labels([reference, upgrade], None) == ["reference", "claude-next-20261201"]
    assert column_labels([upgrade], reference) == ["baseline: reference", "claude-next-20261201"]
    labels = column_labels([reference], reference)
    assert len(set(labels)) == 2 and labels[0].startswith("baseline: reference @")


def _with_coverage(run: RunResults, covered: list[tuple[int, int] | None]) -> RunResults:
    cases = [
        replace(c, coverage=cov) for c, cov in zip(run.cases, covered + [None] * 99, strict=False)
    ]
    return replace(run, cases=tuple(cases) if isinstance(run.cases, tuple) else cases)


def test_headline_sums_coverage_over_the_cases_both_measured(
    reference: RunResults, upgrade: RunResults
) -> None:
    base = _with_coverage(reference, [(10, 10), (7, 8), (5, 5)])
    new = _with_coverage(upgrade, [(8, 10), (8, 8), None])  # the third: not measured here
    (headline,) = compare_runs([new], baseline=base).headlines
    assert headline.coverage == ((17, 18), (16, 18))
    (none,) = compare_runs([upgrade], baseline=reference).headlines
    assert none.coverage is None  # nothing measured in both: no figure, not a zero


def test_headline_cost_is_estimated_only_where_a_price_is_known(
    reference: RunResults, upgrade: RunResults
) -> None:
    priced = replace(upgrade, model="claude-haiku-4-5")
    (headline,) = compare_runs([priced], baseline=reference).headlines
    assert headline.cost_usd[0] is None  # "reference" has no price
    tokens_in, tokens_out = headline.tokens_in[1], headline.tokens_out[1]
    assert tokens_in and tokens_out
    assert headline.cost_usd[1] == pytest.approx((tokens_in * 1.0 + tokens_out * 5.0) / 1e6)
    (unpriced,) = compare_runs([upgrade], baseline=reference).headlines
    assert unpriced.cost_usd == (None, None)
