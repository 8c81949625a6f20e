"""same_fact and find_duplicates: the same fact twice, exactly or reworded."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking.checks import NO_DUPLICATION, find_duplicates, same_fact

SAME = [
    ("The liver stores glycogen.", "The liver stores glycogen."),
    ("The city organises festivals.", "The city organizes festivals."),  # spelling
    ("The colour of the dome is red.", "The color of the dome is red."),
    (
        "A human cell has two copies of each chromosome.",
        "A human cell has 2 copies of each chromosome.",
    ),
    ("The liver stores glycogen.", "Glycogen is stored by the liver."),  # active vs passive
    ("Inflation rose 5.5% in 2022.", "In 2022 inflation rose by 5.5 percent."),
    ("Lithium-ion batteries power electric cars.", "Lithium ion batteries power electric cars."),
    ("The company employs three thousand people.", "The company employs 3,000 people."),
]
DIFFERENT = [
    ("Inflation rose 5.5 percent in 2022.", "Inflation rose 5.75 percent in 2022."),  # number
    ("Kubernetes is open-source software.", "Kubernetes is not open-source software."),  # negation
    (
        "Lithium-ion batteries have a high energy density.",
        "Sodium-ion batteries have a high energy density.",
    ),
    (
        "Michelangelo painted the Sistine Chapel ceiling.",
        "Raphael painted the Sistine Chapel ceiling.",
    ),
    ("The liver stores glycogen.", "The liver stores vitamin A."),
    ("The battery lasts 10 years.", "The battery lasts 10 months."),  # unit
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_rewordings_are_the_same_fact(a: str, b: str) -> None:
    assert same_fact(a, b) and same_fact(b, a)


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_near_identical_different_facts_are_not_the_same(a: str, b: str) -> None:
    assert not same_fact(a, b) and not same_fact(b, a)


def test_find_duplicates_reports_later_copies_with_their_chunk() -> None:
    chunks = [
        ["The liver stores glycogen.", "Insulin lowers blood sugar."],
        ["Glycogen is stored by the liver.", "Telomeres shorten with age."],
        ["Insulin lowers blood sugar."],
    ]
    findings = find_duplicates(chunks)
    assert [(f.proposition, f.chunk_index) for f in findings] == [
        ("Glycogen is stored by the liver.", 1),
        ("Insulin lowers blood sugar.", 2),
    ]
    assert all(f.rule == NO_DUPLICATION for f in findings)
    assert "in chunk 0" in findings[0].reason


def test_find_duplicates_within_one_chunk_and_clean_output() -> None:
    assert find_duplicates([["A pod runs containers.", "A pod runs containers."]])
    assert find_duplicates([[p for pair in DIFFERENT for p in pair[:1]]]) == []
    assert find_duplicates([]) == []


_WORD = st.sampled_from(
    [
        "liver",
        "stores",
        "glycogen",
        "battery",
        "cells",
        "not",
        "5.5",
        "5.75",
        "percent",
        "two",
        "2",
        "organises",
        "organizes",
        "Kubernetes",
        "pods",
        "nodes",
        "colour",
        "color",
        "lithium-ion",
        "the",
        "is",
        "by",
    ]
)
_PROP = st.lists(_WORD, min_size=1, max_size=10).map(lambda w: " ".join(w).capitalize() + ".")


@settings(max_examples=200, deadline=None)
@given(_PROP, _PROP)
def test_same_fact_is_symmetric_and_reflexive(a: str, b: str) -> None:
    assert same_fact(a, b) == same_fact(b, a)
    assert same_fact(a, a)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_PROP, min_size=1, max_size=4), min_size=1, max_size=4), st.data())
def test_one_duplicated_item_always_fires(chunks: list[list[str]], data: st.DataObject) -> None:
    flat = [p for chunk in chunks for p in chunk]
    copied = data.draw(st.sampled_from(flat))
    target = data.draw(st.integers(0, len(chunks) - 1))
    mutated = [list(c) for c in chunks]
    mutated[target].append(copied)
    assert find_duplicates(mutated)


def test_propositions_without_a_word_are_no_copies_of_each_other() -> None:
    """Verbatim copyright files hold rules of dashes and lone quote marks: they were
    'the same words in another order' as each other, a certain-duplicate error."""
    from agentic_chunking.checks import find_duplicates

    rules = [["----------", '"""'], ["====", "*" * 40, "-----\n  '''"]]
    assert find_duplicates(rules) == []
    again = [["Rules divide the file.", "----"], ["Rules divide the file.", "===="]]
    assert [f.kind for f in find_duplicates(again)] == ["exact_duplicate"]
