"""Duplicate merging and partition validation (pure functions), and batch planning."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic_chunking import AgenticChunkInput, InputError, plan_batches
from agentic_chunking.pipeline._partition import (
    Merged,
    check_numbered_partition,
    check_partition,
    merge_duplicates,
)

FACTS = [f"Fact number {n} concerns topic {chr(65 + n)}." for n in range(12)]


def test_merge_keeps_the_first_text_and_unions_provenance_in_first_seen_order() -> None:
    merged = merge_duplicates(
        [
            ("The human liver stores glycogen.", ("C2",)),
            ("Zoning ordinances regulate land use.", ("C2",)),
            ("Glycogen is stored by the human liver.", ("C1",)),
            ("The  human liver stores glycogen. ", ("C3",)),
            ("The human liver stores glycogen.", ("C2",)),
        ]
    )
    assert merged == [
        Merged("The human liver stores glycogen.", ("C2", "C1", "C3")),
        Merged("Zoning ordinances regulate land use.", ("C2",)),
    ]


def test_merge_keeps_different_facts_apart() -> None:
    pairs = [
        ("The human liver filters blood.", ("C1",)),
        ("The human liver stores glycogen.", ("C1",)),
    ]
    assert [m.text for m in merge_duplicates(pairs)] == [p for p, _ in pairs]


@given(st.lists(st.sampled_from(FACTS), max_size=30), st.randoms(use_true_random=False))
def test_merge_is_deterministic_and_leaves_each_fact_once(picks: list[str], rnd) -> None:  # type: ignore[no-untyped-def]
    pairs = [(fact, (f"C{rnd.randint(1, 3)}",)) for fact in picks]
    merged = merge_duplicates(pairs)
    assert merged == merge_duplicates(pairs)
    assert [m.text for m in merged] == list(dict.fromkeys(picks))
    for m in merged:
        assert set(m.sources) == {c for f, ids in pairs if f == m.text for c in ids}


@given(st.lists(st.integers(0, 3), min_size=len(FACTS), max_size=len(FACTS)))
def test_every_partition_passes_and_every_breach_is_named(labels: list[int]) -> None:
    groups = [
        (f"G{g}", [f for f, label in zip(FACTS, labels, strict=True) if label == g])
        for g in sorted(set(labels))
    ]
    assert check_partition(groups, FACTS) is None
    dropped = [(c, facts[1:]) for c, facts in groups]
    assert "missing from the grouping" in (check_partition(dropped, FACTS) or "")
    added = [*groups, ("New", ["An invented fact."])]
    assert "not among the extracted propositions" in (check_partition(added, FACTS) or "")
    repeated = [*groups, ("Again", [groups[0][1][0]])]
    assert "more than one chunk" in (check_partition(repeated, FACTS) or "")


def test_partition_ignores_whitespace_but_not_wording() -> None:
    assert check_partition([("A", ["  Fact number 0 concerns\ntopic A. "])], FACTS[:1]) is None
    problem = check_partition([("A", ["Fact number 0 concerns topic A"])], FACTS[:1])
    assert problem is not None and "not among the extracted propositions" in problem
    assert "missing from the grouping" in problem and repr(FACTS[0]) in problem


def test_plan_batches_packs_small_chunks_splits_large_ones_and_skips_empty_ones() -> None:
    # B (5 paragraphs of 39 characters) is over the limit of 20 tokens (80 characters):
    # pre-chunked into pieces of 80, 80 and 39 characters. A's batch, far from full, takes
    # B's first paragraph (a piece cut at a sentence boundary to fill it), and so on.
    long_text = "\n\n".join(f"Paragraph {n} holds one sentence of text." for n in range(5))
    inputs = [
        AgenticChunkInput("A", "Short chunk."),
        AgenticChunkInput("E", "   "),
        AgenticChunkInput("B", long_text),
        AgenticChunkInput("C", "Tail chunk."),
    ]
    batches = plan_batches(inputs, 20)
    assert [b.index for b in batches] == list(range(len(batches)))
    assert [b.number for b in batches] == [b.index + 1 for b in batches]
    assert [b.chunk_ids for b in batches] == [("A", "B"), ("B",), ("B",), ("C",)]
    assert batches[0].text == "Short chunk.\n\nParagraph 0 holds one sentence of text."
    assert batches[0].label == "batch 1 (chunks A, B)"
    assert batches[1].label == "batch 2 (chunk B)"
    assert batches[3].text == "Tail chunk."  # batch 3 is full (80 characters): C starts one
    assert all(len(b.text) // 4 <= 20 for b in batches)
    # nothing lost or reordered: the segments are each chunk's pieces, in input order
    joined = "".join(s.text for b in batches for s in b.segments)
    assert "".join(joined.split()) == "".join(("Short chunk." + long_text + "Tail chunk.").split())


def test_plan_batches_keeps_a_chunk_alone_when_the_next_one_does_not_fit() -> None:
    first, second = "a" * 40, "b" * 40  # 40 + 2 + 40 characters > 20 tokens (80 characters)
    batches = plan_batches([AgenticChunkInput("A", first), AgenticChunkInput("B", second)], 20)
    assert [(b.chunk_ids, b.text) for b in batches] == [(("A",), first), (("B",), second)]
    together = plan_batches([AgenticChunkInput("A", first), AgenticChunkInput("B", second)], 21)
    assert [b.chunk_ids for b in together] == [("A", "B")]
    assert together[0].text == first + "\n\n" + second


def test_plan_batches_names_many_packed_chunks_briefly() -> None:
    batches = plan_batches([AgenticChunkInput(f"P{n}", "A fact.") for n in range(1, 8)])
    assert [b.label for b in batches] == ["batch 1 (chunks P1 .. P7, 7 chunks)"]


def test_plan_batches_accepts_mappings_and_a_chunk_under_the_limit_is_one_batch() -> None:
    batches = plan_batches([{"chunk_id": "X", "text": "One. Two.\n\nThree.", "index": 0}])
    assert [(b.chunk_ids, b.text) for b in batches] == [(("X",), "One. Two.\n\nThree.")]


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ([AgenticChunkInput("A", "x"), AgenticChunkInput("A", "y")], "appears twice"),
        ("just a string", "must be a list"),
        ([42], "input 1 is a int"),
        ([{"text": "no id"}], "chunk_id"),
    ],
)
def test_bad_inputs_are_input_errors(inputs: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        plan_batches(inputs)  # type: ignore[arg-type]


@given(st.lists(st.integers(0, 3), min_size=1, max_size=20), st.data())
def test_numbered_partition_names_exactly_what_breaks_it(labels: list[int], data) -> None:  # type: ignore[no-untyped-def]
    count = len(labels)
    groups = [
        ([n for n, label in enumerate(labels, 1) if label == g], []) for g in sorted(set(labels))
    ]
    assert check_numbered_partition(groups, count).ok
    dropped = data.draw(st.integers(1, count))
    without = [([n for n in ids if n != dropped], t) for ids, t in groups]
    result = check_numbered_partition(without, count)
    assert result.missing == (dropped,) and not result.repeated and not result.out_of_range
    assert result.repair_reason() == f"number {dropped} is in no group"
    twice = [*groups, ([dropped], [])]
    result = check_numbered_partition(twice, count)
    assert [n for n, _ in result.repeated] == [dropped] and not result.missing
    assert result.repeated[0][1][-1] == len(twice)
    beyond = [*groups, ([count + 1, 0], ["An invented fact."])]
    result = check_numbered_partition(beyond, count)
    assert result.out_of_range == ((count + 1, len(beyond)), (0, len(beyond)))
    assert result.unknown == (("An invented fact.", len(beyond)),)
    facts = [f"Fact {n}." for n in range(1, count + 1)]
    assert "3 not among the extracted propositions" in result.describe(facts)


def test_only_certain_duplicates_are_merged_possible_ones_are_kept() -> None:
    pairs = [
        ("The liver converts glucose into glycogen.", ("C1",)),
        ("The liver converts glycogen into glucose.", ("C2",)),  # same words, reversed roles
        ("All birds in the park can fly.", ("C1",)),
        ("Some birds in the park can fly.", ("C2",)),  # another quantifier
        ("The Romans were defeated by the Gauls.", ("C1",)),
        ("The Gauls defeated the Romans.", ("C2",)),  # the passive turned active: certain
    ]
    notes: list[tuple[str, str]] = []
    merged = merge_duplicates(
        pairs, on_merge=lambda kept, dropped, _c: notes.append((kept.text, dropped))
    )
    assert [m.text for m in merged] == [p for p, _ in pairs[:5]]
    assert merged[4].sources == ("C1", "C2")
    assert notes == [(pairs[4][0], pairs[5][0])]
