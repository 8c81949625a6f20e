"""The suite can fail: every mutation of the reference replies is caught by its check."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from agentic_chunking.mutations import OPERATORS
from agentic_chunking.suite import load_cases
from agentic_chunking.suite._mutation import MutationOutcome, kill_matrix

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"


@pytest.fixture(scope="module")
def outcomes() -> list[MutationOutcome]:
    return kill_matrix(cases_dir=CASES_DIR, replies_dir=CASES_DIR / "reference_replies")


def test_every_applied_mutation_is_killed(outcomes: list[MutationOutcome]) -> None:
    survivors = [o for o in outcomes if o.applied and not o.killed]
    assert survivors == [], "\n".join(
        f"{o.case_id} {o.operator}: {o.detail} (fired: {o.fired or 'nothing'})" for o in survivors
    )


def test_every_operator_applies_wherever_its_rule_can_be_broken(
    outcomes: list[MutationOutcome],
) -> None:
    cases = load_cases(CASES_DIR)
    with_output = [c.id for c in cases if c.expect.error is None]
    labelled = [c.id for c in cases if c.expect.error is None and c.has_domain_labels]
    applied = Counter(o.operator for o in outcomes if o.applied)
    for name in OPERATORS:
        expected = labelled if name == "mix_domains" else with_output
        assert applied[name] == len(expected), (name, applied[name], len(expected))
    assert len(labelled) >= 8


def test_each_mutation_fires_its_own_rule_or_the_partition_guard(
    outcomes: list[MutationOutcome],
) -> None:
    for outcome in (o for o in outcomes if o.applied):
        assert outcome.rule in outcome.fired or (
            outcome.operator == "duplicate" and outcome.fired == ("partition",)
        ), outcome
