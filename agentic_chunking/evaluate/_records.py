"""What an evaluation reads and returns: documents, questions, chunks and scores."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._errors import InputError

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Document:
    """One document of a corpus. ``sections`` are the offsets where a known section starts
    (a heading, an article), in increasing order; empty when the corpus marks none."""

    id: str
    text: str
    sections: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Question:
    """A question and its gold excerpts: character ranges ``[start, end)`` of one document.

    ``contents`` holds, per excerpt, the text its file says the range holds (Chroma's
    ``content``), or None where the file gives none; empty when no excerpt has one.
    ``check_questions`` refuses a range that does not hold its content.
    """

    text: str
    document_id: str
    excerpts: tuple[Span, ...]
    contents: tuple[str | None, ...] = ()


@dataclass(frozen=True, slots=True)
class EvalChunk:
    """One chunk as retrieval sees it: the text that is embedded, and the character spans of
    its document it is credited with (one span for a splitter's chunk; a Level 5 chunk's
    provenance spans, the source sentences its propositions state)."""

    document_id: str
    spans: tuple[Span, ...]
    text: str

    @property
    def length(self) -> int:
        """Characters of the document the chunk covers (its spans' union)."""
        return covered(self.spans)


@dataclass(frozen=True, slots=True)
class Scores:
    """Mean token-level recall, precision and IoU over the questions (Chroma's rule), the
    mean retrieved chunks and tokens per question, and the standard error of the mean
    recall (its spread over the questions, divided by the square root of their number)."""

    recall: float
    precision: float
    iou: float
    chunks: float
    tokens: float
    recall_se: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return {
            "recall": self.recall,
            "precision": self.precision,
            "iou": self.iou,
            "chunks": self.chunks,
            "tokens": self.tokens,
            "recall_se": self.recall_se,
        }


@dataclass(frozen=True, slots=True)
class ChunkerResult:
    """One chunker's figures on one corpus and question set.

    ``model_output`` says where a model's words came from: ``"none"`` (no model writes the
    chunks), ``"recorded"`` (a real model's recorded replies) or ``"reference"``
    (hand-written replies, never a model's). ``chunking_texts`` counts the texts the chunker
    asked its embedder for (cache hits included: its cost on a cold cache);
    ``embedder_calls`` the calls this run made to the embedder for chunking and indexing
    (cache misses only). ``curve`` holds (budget, mean recall, mean retrieved tokens).
    ``budget_recalls``: each question's recall at the budget, in the questions' order, so
    that two chunkers can be compared question by question (``paired_difference``); not
    written by ``to_dict``.
    """

    name: str
    kind: str
    settings: dict[str, Any]
    model_output: str
    chunks: int
    mean_tokens: float
    p95_tokens: float
    crossing_sections: int
    chunking_texts: int
    embedder_calls: int
    embedded_texts: int
    chunking_seconds: float
    embedding_seconds: float
    at_k: Scores
    at_budget: Scores
    curve: tuple[tuple[int, float, float], ...] = ()
    by_document: dict[str, dict[str, float]] = field(default_factory=dict)
    budget_recalls: tuple[float, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "settings": dict(self.settings),
            "model_output": self.model_output,
            "chunks": self.chunks,
            "mean_tokens": self.mean_tokens,
            "p95_tokens": self.p95_tokens,
            "crossing_sections": self.crossing_sections,
            "chunking_texts": self.chunking_texts,
            "embedder_calls": self.embedder_calls,
            "embedded_texts": self.embedded_texts,
            "chunking_seconds": self.chunking_seconds,
            "embedding_seconds": self.embedding_seconds,
            "at_k": self.at_k.to_dict(),
            "at_budget": self.at_budget.to_dict(),
            "curve": [list(point) for point in self.curve],
            "by_document": self.by_document,
        }


def paired_difference(first: ChunkerResult, second: ChunkerResult) -> tuple[float, float]:
    """Return the mean over the questions of ``first``'s recall at the budget minus
    ``second``'s, and its standard error (the spread of the per-question differences over
    the square root of their number): the comparison of two chunkers on the same questions,
    tighter than the two means' own errors. Raises InputError unless both hold the same
    number of per-question recalls (two or more)."""
    a, b = first.budget_recalls, second.budget_recalls
    if len(a) != len(b) or len(a) < 2:
        raise InputError(
            f"{first.name!r} and {second.name!r} hold {len(a)} and {len(b)} per-question "
            "recalls; a paired difference needs the same questions, at least two"
        )
    differences = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(differences) / len(differences)
    variance = sum((d - mean) ** 2 for d in differences) / (len(differences) - 1)
    return mean, (variance / len(differences)) ** 0.5


def union(spans: Any) -> list[Span]:
    """Return the union of ``[start, end)`` spans as sorted, disjoint, non-empty spans."""
    merged: list[Span] = []
    for start, end in sorted((int(a), int(b)) for a, b in spans):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def covered(spans: Any) -> int:
    """Return the number of characters the spans cover (overlaps counted once)."""
    return sum(end - start for start, end in union(spans))


def overlap(first: list[Span], second: list[Span]) -> int:
    """Return the characters two unions (as ``union`` returns them) have in common."""
    total, i, j = 0, 0, 0
    while i < len(first) and j < len(second):
        start = max(first[i][0], second[j][0])
        end = min(first[i][1], second[j][1])
        total += max(0, end - start)
        if first[i][1] <= second[j][1]:
            i += 1
        else:
            j += 1
    return total
