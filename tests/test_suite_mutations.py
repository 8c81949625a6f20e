"""The suite can fail: the kill matrix of every mutation operator on the reference replies.

The lexical operators (invented fact, pronoun, duplicate, mixed domains) must each be
killed by an error on every case they apply to. The certain ones of issue 10 (a moved
number, a swapped person, a dropped negation, a verbless list, a dropped fact with a
number) must be killed by an error in their minimal-edit form (on the source sentences
taken verbatim: issue 19, an error needs evidence no rewording and no decontextualisation
can produce) and at least warned on the reference replies, which reword and carry context.
The others (dropped modality, swapped term, cut definite description, containment
duplicate, dropped fact without a number) are relational: warnings for the judge unless
minimal edits. Issue 19: every operator is flagged (an error or a warning of its rule) on
at least 95% of the cases it applies to; the shares are printed by
``benchmarks/mutation_kill_rate.py``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from agentic_chunking.checks import COVERAGE
from agentic_chunking.mutations import CERTAIN_OPERATORS, OPERATORS
from agentic_chunking.suite import load_cases
from agentic_chunking.suite._mutation import MutationOutcome, kill_matrix, minimal_edit_outcomes

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"
LEXICAL = ("duplicate", "fragment", "invent_fact", "mix_domains", "unresolve_pronoun")
MUST_KILL = tuple(n for n in LEXICAL if n != "fragment")


@pytest.fixture(scope="module")
def outcomes() -> list[MutationOutcome]:
    return kill_matrix(cases_dir=CASES_DIR, replies_dir=CASES_DIR / "reference_replies")


def test_every_lexical_mutation_is_killed_by_an_error(outcomes: list[MutationOutcome]) -> None:
    survivors = [o for o in outcomes if o.applied and o.operator in MUST_KILL and not o.killed]
    assert survivors == [], "\n".join(
        f"{o.case_id} {o.operator}: {o.detail} (fired: {o.fired or 'nothing'})" for o in survivors
    )


def test_every_certain_mutation_in_its_minimal_edit_form_is_killed_by_an_error() -> None:
    minimal = minimal_edit_outcomes(cases_dir=CASES_DIR)
    assert {o.operator for o in minimal} == set(CERTAIN_OPERATORS)
    survivors = [o for o in minimal if not o.killed]
    assert survivors == [], "\n".join(f"{o.case_id} {o.operator}: {o.detail}" for o in survivors)


def test_every_certain_mutation_of_the_reference_replies_is_at_least_warned(
    outcomes: list[MutationOutcome],
) -> None:
    certain = [o for o in outcomes if o.applied and o.operator in CERTAIN_OPERATORS]
    assert certain and all(o.warned or o.killed for o in certain)
    dropped = [o for o in certain if o.rule == COVERAGE]
    assert dropped and all(o.killed for o in dropped)  # a number no proposition states


FLAGGED = 0.95
"""The share of an operator's mutations its rule must flag (error or warning)."""


def test_every_operator_is_flagged_on_at_least_95_percent_of_its_cases(
    outcomes: list[MutationOutcome],
) -> None:
    applied: dict[str, list[MutationOutcome]] = {}
    for outcome in (o for o in outcomes if o.applied):
        applied.setdefault(outcome.operator, []).append(outcome)
    assert set(applied) == set(OPERATORS)
    low = {
        name: f"{sum(o.warned for o in rows)}/{len(rows)}: "
        + ", ".join(f"{o.case_id} {o.detail}" for o in rows if not o.warned)
        for name, rows in applied.items()
        if sum(o.warned for o in rows) < FLAGGED * len(rows)
    }
    assert low == {}


def test_a_fragment_is_at_least_warned_and_often_an_error(
    outcomes: list[MutationOutcome],
) -> None:
    # Since issue 40, a proposition closed by ". ! ?" is never a cut_off error (sources
    # write such sentences themselves): "Kubernetes automates the scaling of." is a
    # warning, and only the verbless and unclosed fragments stay errors (15 of 31 on the
    # reference replies today; half before that decision).
    fragments = [o for o in outcomes if o.applied and o.operator == "fragment"]
    assert all(o.warned or o.fired for o in fragments)  # visible, or the case fails
    assert sum(o.killed for o in fragments) >= len(fragments) / 3


def test_a_containment_duplicate_is_always_shown_as_a_possible_duplicate(
    outcomes: list[MutationOutcome],
) -> None:
    # one proposition stating all of another is a warning (possible duplicate), never
    # silently passed and never a hard failure on its own
    contained = [o for o in outcomes if o.applied and o.operator == "contain_duplicate"]
    assert contained and all(o.warned for o in contained)


def test_every_operator_applies_wherever_its_rule_can_be_broken(
    outcomes: list[MutationOutcome],
) -> None:
    cases = load_cases(CASES_DIR)
    with_output = [c.id for c in cases if c.expect.error is None]
    labelled = [c.id for c in cases if c.expect.error is None and c.has_domain_labels]
    applied = Counter(o.operator for o in outcomes if o.applied)
    for name in LEXICAL:
        expected = labelled if name == "mix_domains" else with_output
        assert applied[name] == len(expected), (name, applied[name], len(expected))
    for name in set(OPERATORS) - set(LEXICAL):  # need a negation, a name, a number...
        assert applied[name] >= 3, (name, applied[name])
    assert len(labelled) >= 8


def test_a_kill_fires_the_operators_own_rule_and_a_kill_is_also_warned(
    outcomes: list[MutationOutcome],
) -> None:
    for outcome in (o for o in outcomes if o.applied and o.killed):
        assert outcome.warned
        assert outcome.rule in outcome.fired or (
            outcome.operator == "duplicate" and "partition" in outcome.fired
        ), outcome
