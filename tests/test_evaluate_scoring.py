"""Chroma's token-level scores and the budget rule, on hand-computed examples."""

from __future__ import annotations

import pytest

from agentic_chunking.evaluate import EvalChunk, Question, crossing_chunks, score, within_budget


def chunk(*spans: tuple[int, int], document: str = "d") -> EvalChunk:
    return EvalChunk(document, spans, "x")


def question(*excerpts: tuple[int, int]) -> Question:
    return Question("q?", "d", excerpts)


def test_one_chunk_half_over_the_excerpt() -> None:
    # excerpt 10..20, chunk 0..15: 5 characters in common
    recall, precision, iou = score(question((10, 20)), [chunk((0, 15))])
    assert recall == pytest.approx(5 / 10)
    assert precision == pytest.approx(5 / 15)
    assert iou == pytest.approx(5 / (15 + 5))  # chunk + the 5 excerpt characters missed


def test_overlapping_chunks_count_twice_and_another_document_costs_precision() -> None:
    retrieved = [chunk((0, 15)), chunk((12, 30)), chunk((0, 10), document="other")]
    recall, precision, iou = score(question((10, 20), (25, 27)), retrieved)
    assert recall == 1.0
    assert precision == pytest.approx(12 / (15 + 18 + 10))
    assert iou == pytest.approx(12 / 43)


def test_overlapping_excerpts_are_summed_in_the_recall_denominator() -> None:
    # Chroma divides by the sum of the excerpts' lengths, not their union.
    recall, precision, iou = score(question((0, 10), (5, 15)), [chunk((0, 15))])
    assert recall == pytest.approx(15 / 20)
    assert precision == 1.0
    assert iou == 1.0


def test_a_chunk_touching_the_excerpt_scores_nothing() -> None:
    assert score(question((10, 20)), [chunk((0, 10))]) == (0.0, 0.0, 0.0)
    assert score(question((10, 20)), []) == (0.0, 0.0, 0.0)


def test_a_level5_chunk_is_credited_through_its_provenance_spans() -> None:
    recall, precision, iou = score(question((32, 36)), [chunk((0, 5), (30, 40))])
    assert (recall, precision, iou) == (1.0, pytest.approx(4 / 15), pytest.approx(4 / 15))


def test_an_excerpt_missed_entirely_enters_the_iou_denominator() -> None:
    recall, precision, iou = score(question((0, 10), (50, 60)), [chunk((0, 20))])
    assert recall == pytest.approx(10 / 20)
    assert precision == pytest.approx(10 / 20)
    assert iou == pytest.approx(10 / (20 + 10))


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        ([300, 400, 500], 2),  # 700 fits, 1,200 does not
        ([500, 500, 1], 2),  # exactly the budget fits
        ([300, 800, 100], 1),  # the first that passes ends the list, even if a later fits
        ([1200, 10], 1),  # the best chunk is always taken
        ([], 0),
    ],
)
def test_the_budget_takes_chunks_in_rank_order_while_they_fit(
    tokens: list[int], expected: int
) -> None:
    assert within_budget(tokens, 1000) == expected


def test_a_chunk_crosses_a_section_only_with_text_on_both_sides() -> None:
    text = "Alpha text.\n = B = \nBeta text."
    boundary = text.index(" = B")
    chunks = [
        EvalChunk("d", ((0, len(text)),), text),  # crosses
        EvalChunk("d", ((0, boundary),), text[:boundary]),  # ends at it
        EvalChunk("d", ((boundary - 1, len(text)),), text[boundary - 1 :]),  # only "\n" before
    ]
    assert crossing_chunks(chunks, text, [boundary]) == 1
    assert crossing_chunks(chunks, text, []) == 0
