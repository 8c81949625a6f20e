"""Mutation operators: each breaks a clean grouping so that its rule's check fires."""

from __future__ import annotations

import copy

import pytest

from agentic_chunking import InputError
from agentic_chunking.checks import (
    MIXED_DOMAINS,
    NO_DUPLICATION,
    NO_INVENTION,
    NO_UNRESOLVED_PRONOUNS,
    SELF_CONTAINED,
    find_duplicates,
    find_inventions,
    find_mixed_domains,
    find_not_self_contained,
    find_unresolved_pronouns,
)
from agentic_chunking.mutations import OPERATORS, Mutation, apply_to_propositions

LEXICAL = ("duplicate", "fragment", "invent_fact", "mix_domains", "unresolve_pronoun")
"""The first five operators: each verifies its own mutation with its rule's check (the
operators of issue 10 are in tests/test_mutations_facts.py)."""

LABELLED = [
    ("Lithium-ion batteries store energy in lithium ions.", "Battery Chemistry"),
    ("Solid-state batteries use a solid electrolyte.", "Battery Chemistry"),
    ("A typical cell delivers 3.7 volts.", "Battery Chemistry"),
    ("Zoning laws regulate how land in a city can be used.", "Urban Planning"),
    ("Floor area ratio measures building density.", "Urban Planning"),
    ("The city organises two planning reviews a year.", "Urban Planning"),
]
SOURCE = " ".join(sentence for sentence, _ in LABELLED)
GROUPS = [
    {"category": "Batteries", "facts": [s for s, d in LABELLED if d == "Battery Chemistry"]},
    {"category": "Planning", "facts": [s for s, d in LABELLED if d == "Urban Planning"]},
]


def _caught(mutation: Mutation) -> bool:
    chunks = [group["facts"] for group in mutation.groups]
    props = [p for chunk in chunks for p in chunk]
    check = {
        NO_INVENTION: lambda: find_inventions(props, SOURCE),
        NO_UNRESOLVED_PRONOUNS: lambda: find_unresolved_pronouns(props),
        NO_DUPLICATION: lambda: find_duplicates(chunks),
        SELF_CONTAINED: lambda: find_not_self_contained(props),
        MIXED_DOMAINS: lambda: find_mixed_domains(chunks, LABELLED),
    }[mutation.rule]
    return bool(check())


def test_the_clean_grouping_passes_every_check() -> None:
    chunks = [group["facts"] for group in GROUPS]
    props = [p for chunk in chunks for p in chunk]
    assert find_inventions(props, SOURCE) == []
    assert find_unresolved_pronouns(props) == []
    assert find_duplicates(chunks) == []
    assert find_not_self_contained(props) == []
    assert find_mixed_domains(chunks, LABELLED) == []


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", LEXICAL)
def test_each_operator_is_caught_by_its_rule(name: str, seed: int) -> None:
    before = copy.deepcopy(GROUPS)
    mutation = OPERATORS[name](GROUPS, SOURCE, seed=seed, labelled_sentences=LABELLED)
    assert before == GROUPS  # pure
    assert mutation.operator == name
    assert mutation.groups != GROUPS
    assert _caught(mutation)


@pytest.mark.parametrize("name", LEXICAL)
def test_operators_are_deterministic(name: str) -> None:
    first = OPERATORS[name](GROUPS, SOURCE, seed=3, labelled_sentences=LABELLED)
    second = OPERATORS[name](GROUPS, SOURCE, seed=3, labelled_sentences=LABELLED)
    assert first == second


def test_changes_can_be_applied_to_the_extraction_replies() -> None:
    props = [s for s, _ in LABELLED]
    invented = OPERATORS["invent_fact"](GROUPS, SOURCE, seed=0)
    ((old, new),) = invented.replaced.items()
    assert apply_to_propositions(invented, props) == [new if p == old else p for p in props]
    duplicated = OPERATORS["duplicate"](GROUPS, SOURCE, seed=0)
    assert apply_to_propositions(duplicated, props) == props + duplicated.added
    assert len(duplicated.added) == 1


def test_rule_of_each_operator() -> None:
    rules = {
        name: OPERATORS[name](GROUPS, SOURCE, labelled_sentences=LABELLED).rule for name in LEXICAL
    }
    assert rules == {
        "duplicate": NO_DUPLICATION,
        "fragment": SELF_CONTAINED,
        "invent_fact": NO_INVENTION,
        "mix_domains": MIXED_DOMAINS,
        "unresolve_pronoun": NO_UNRESOLVED_PRONOUNS,
    }


def test_unusable_input_raises_input_error() -> None:
    with pytest.raises(InputError, match="no facts"):
        OPERATORS["invent_fact"]([], SOURCE)
    with pytest.raises(InputError, match="labelled_sentences"):
        OPERATORS["mix_domains"](GROUPS, SOURCE)
    one_domain = [GROUPS[0], {"category": "More", "facts": ["A typical cell delivers 3.7 volts."]}]
    with pytest.raises(InputError, match="different labelled domains"):
        OPERATORS["mix_domains"](one_domain, SOURCE, labelled_sentences=LABELLED)


def test_malformed_group_entries_are_skipped() -> None:
    groups = [{"category": "Broken"}, *GROUPS, {"category": "Empty", "facts": []}]
    for name in LEXICAL:
        mutation = OPERATORS[name](groups, SOURCE, seed=1, labelled_sentences=LABELLED)
        assert mutation.groups[0] == {"category": "Broken"}, name
        assert _caught(
            Mutation(
                mutation.operator,
                mutation.rule,
                [g for g in mutation.groups if "facts" in g],
                mutation.description,
            )
        ), name
