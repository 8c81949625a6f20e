"""Chroma's token-level scores, and the retrieved-token budget, as pure functions.

Chroma's evaluation (``chunking_evaluation/evaluation_framework/base_evaluation.py``,
``_scores_from_dataset_and_retrievals``) scores the retrieved chunks of one question
against its gold excerpts by character ranges ("token-level": the text, not the chunk
count). With ``R`` the excerpts, ``C`` the retrieved chunks and ``C_d`` those of the
question's document:

- numerator ``n`` = characters in both (the union of ``C_d``'s spans) and (the union of
  ``R``);
- **recall** = ``n / sum(|r| for r in R)``;
- **precision** = ``n / sum(|c| for c in C)``: every retrieved chunk counts, one of
  another document too, and overlapping chunks count twice;
- **IoU** = ``n / (sum(|c| for c in C) + sum(|r minus C_d| for r in R))``.

These are their rules, reproduced here (not their code): ``tests/test_evaluate_scoring.py``
holds hand-computed examples.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._records import EvalChunk, Question, covered, overlap, union


def score(question: Question, retrieved: Sequence[EvalChunk]) -> tuple[float, float, float]:
    """Return (recall, precision, IoU) of ``retrieved`` for ``question``, Chroma's rule.

    No chunk retrieved gives (0, 0, 0); an empty excerpt list gives recall 0.
    """
    hits = union(s for c in retrieved if c.document_id == question.document_id for s in c.spans)
    numerator = overlap(union(question.excerpts), hits)
    gold = sum(end - start for start, end in question.excerpts)
    retrieved_length = sum(c.length for c in retrieved)
    unused = sum(end - start - overlap([(start, end)], hits) for start, end in question.excerpts)
    recall = numerator / gold if gold else 0.0
    precision = numerator / retrieved_length if retrieved_length else 0.0
    denominator = retrieved_length + unused
    iou = numerator / denominator if denominator else 0.0
    return recall, precision, iou


def within_budget(tokens: Sequence[int], budget: int) -> int:
    """Return how many of the ranked chunks (their token counts, best first) fit ``budget``.

    Chunks are taken in rank order while the running total stays within the budget; the
    first that would pass it ends the list. The best chunk is always taken, even alone over
    the budget, so every question retrieves something (the mean retrieved tokens show it).
    """
    total, count = 0, 0
    for size in tokens:
        if count and total + size > budget:
            break
        total += size
        count += 1
    return count


def crossing_chunks(chunks: Sequence[EvalChunk], text: str, sections: Sequence[int]) -> int:
    """Return how many chunks cross a known section boundary.

    A chunk crosses the boundary at offset ``b`` when one of its spans holds text other than
    whitespace on both sides of ``b``.
    """
    count = 0
    for chunk in chunks:
        for start, end in chunk.spans:
            if any(
                start < b < end and text[start:b].strip() and text[b:end].strip() for b in sections
            ):
                count += 1
                break
    return count


__all__ = ["covered", "crossing_chunks", "score", "within_budget"]
