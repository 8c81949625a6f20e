"""A dropped fact is never counted as resolved (issue 32): the findings that went with a
dropped proposition are named on its dropped-fact line; a finding gone because the fact
was fixed, or an invented proposition gone, is resolved."""

from __future__ import annotations

from test_report_verdict import FACTS, _case, _error, _run

from agentic_chunking.report import compare_runs

PRONOUN = _error(FACTS[2], "no_unresolved_pronouns", "'it' has no referent", severity="warning")


def test_findings_that_went_with_a_dropped_fact_are_listed_as_dropped_not_resolved() -> None:
    before = _case(FACTS, PRONOUN)
    after = _case([FACTS[0], FACTS[1], FACTS[3]])  # the reactor's fact is gone
    comparison = compare_runs([_run("a", before), _run("b", after)])
    assert comparison.resolved == ()
    (line,) = comparison.changes
    assert (line.category, line.text) == ("dropped fact", FACTS[2])
    assert "(no_unresolved_pronouns) went with it: dropped, not resolved" in line.reason
    assert comparison.verdict == "review"
    assert "resolved" not in comparison.summary


def test_a_finding_fixed_in_a_fact_still_stated_is_resolved() -> None:
    before = _case(FACTS, PRONOUN)
    after = _case(FACTS)  # the same fact, its finding gone
    comparison = compare_runs([_run("a", before), _run("b", after)])
    assert [c.category for c in comparison.resolved] == ["resolved"]
    assert comparison.changes == () and comparison.verdict == "same"


def test_an_invented_proposition_dropped_is_resolved() -> None:
    invented = "The reactor was built in 1970."
    before = _case([*FACTS, invented], _error(invented, "no_invention", "1970 is not stated"))
    after = _case(FACTS)
    comparison = compare_runs([_run("a", before), _run("b", after)])
    assert [(c.category, c.text) for c in comparison.resolved] == [("resolved", invented)]
