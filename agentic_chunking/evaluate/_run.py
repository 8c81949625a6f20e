"""Run an evaluation: chunk, embed, retrieve by exact cosine, score (Chroma's rule).

Retrieval is over every chunk of the corpus (all documents), as in Chroma's evaluation: a
chunk of another document can be retrieved and costs precision. Each question is scored
twice: at ``k`` chunks (Chroma's rule; their ``run`` default is 5) and at a retrieved-token
``budget`` (chunks taken in rank order while they fit, ``within_budget``), the comparison
that is fair to small and large chunks. The recall curve repeats the budget rule at
``CURVE_BUDGETS``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._errors import InputError
from .._models import estimate_tokens
from ..semantic import CachedEmbedder, Embedder, MiniLMEmbedder
from ._chunkers import Chunker, build_chunker, installed_splitters
from ._data import check_questions
from ._records import ChunkerResult, Document, EvalChunk, Question, Scores
from ._scoring import crossing_chunks, score, within_budget

DEFAULT_K = 5
DEFAULT_BUDGET = 1000
CURVE_BUDGETS = (100, 250, 500, 1000, 2000, 4000)
# Seed 004's sweep: Solon's three settings (a threshold selects Solon's rule).
SEED_GRID: dict[str, tuple[str, ...]] = {
    "threshold": ("0.35", "0.5", "0.65"),
    "window": ("1", "3", "5"),
    "max_tokens": ("256", "512", "1024"),
}
TOKEN_RULE = "estimate_tokens: characters // 4 (the package's count; cl100k is not used)"
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Evaluation:
    """One evaluation: what was measured, how, and each chunker's figures.

    ``results`` are in the order given, or by recall at the budget (best first) for a
    sweep, whose best is ``chosen``.
    """

    corpus: str
    documents: int
    characters: int
    questions: int
    embedder: str
    k: int
    budget: int
    results: tuple[ChunkerResult, ...]
    question_seconds: float = 0.0
    chosen: str | None = None
    token_rule: str = TOKEN_RULE
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "agentic-chunking-evaluation/1",
            "corpus": self.corpus,
            "documents": self.documents,
            "characters": self.characters,
            "questions": self.questions,
            "embedder": self.embedder,
            "retrieval": "exact cosine over every chunk of the corpus",
            "k": self.k,
            "budget_tokens": self.budget,
            "token_rule": self.token_rule,
            "scoring": "Chroma's token-level recall, precision, IoU over character ranges",
            "question_seconds": self.question_seconds,
            "chosen": self.chosen,
            "notes": list(self.notes),
            "results": [r.to_dict() for r in self.results],
        }


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else 0.0


def _recalls(
    questions: Sequence[Question], chunks: Sequence[EvalChunk], ranked: list[list[int]]
) -> tuple[float, ...]:
    """Each question's recall (Chroma's rule) of its ranked chunks, in the questions' order."""
    return tuple(
        score(question, [chunks[i] for i in order])[0]
        for question, order in zip(questions, ranked, strict=True)
    )


def _score_many(
    questions: Sequence[Question], chunks: Sequence[EvalChunk], ranked: list[list[int]]
) -> Scores:
    recalls, precisions, ious, counts, tokens = [], [], [], [], []
    for question, order in zip(questions, ranked, strict=True):
        taken = [chunks[i] for i in order]
        recall, precision, iou = score(question, taken)
        recalls.append(recall)
        precisions.append(precision)
        ious.append(iou)
        counts.append(len(taken))
        tokens.append(sum(estimate_tokens(c.text) for c in taken))
    spread = float(np.std(recalls, ddof=1) / np.sqrt(len(recalls))) if len(recalls) > 1 else 0.0
    return Scores(
        _mean(recalls), _mean(precisions), _mean(ious), _mean(counts), _mean(tokens), spread
    )


def _rank(question_vectors: np.ndarray, chunk_vectors: np.ndarray, depth: int) -> np.ndarray:
    """Return, per question, the indices of its ``depth`` best chunks, best first (ties by
    index, so the ranking is the same on every run)."""
    similarities = question_vectors @ chunk_vectors.T
    order = np.argsort(-similarities, axis=1, kind="stable")
    return order[:, :depth]


@dataclass(frozen=True, slots=True)
class _Chunked:
    """One chunker's chunks of a corpus and what making them took."""

    chunks: list[EvalChunk]
    crossing: int
    seconds: float
    texts: int
    """The texts the chunker asked the embedder for (a Level 4 splitter's segments)."""


def _chunk_corpus(
    chunker: Chunker, documents: Sequence[Document], embedder: CachedEmbedder
) -> _Chunked:
    """Chunk every document with ``chunker``, counting the chunks that cross a known
    section; InputError when it makes no chunk."""
    requested = embedder.requested
    started = time.perf_counter()
    chunks: list[EvalChunk] = []
    crossing = 0
    for document in documents:
        made = chunker.split(document)
        crossing += crossing_chunks(made, document.text, document.sections)
        chunks.extend(made)
    seconds = time.perf_counter() - started
    if not chunks:
        raise InputError(f"chunker {chunker.name!r} made no chunk of the corpus")
    return _Chunked(chunks, crossing, seconds, embedder.requested - requested)


def _by_document(
    documents: Sequence[Document],
    questions: Sequence[Question],
    chunks: Sequence[EvalChunk],
    ranked: list[list[int]],
) -> dict[str, dict[str, float]]:
    """The scores of each document's own questions (documents without one left out)."""
    by_document: dict[str, dict[str, float]] = {}
    for document in documents:
        picked = [
            (q, r) for q, r in zip(questions, ranked, strict=True) if q.document_id == document.id
        ]
        if picked:
            mine = _score_many([q for q, _ in picked], chunks, [r for _, r in picked])
            by_document[document.id] = {"questions": len(picked), **mine.to_dict()}
    return by_document


def run_chunker(
    chunker: Chunker,
    documents: Sequence[Document],
    questions: Sequence[Question],
    question_vectors: np.ndarray,
    embedder: CachedEmbedder,
    *,
    k: int = DEFAULT_K,
    budget: int = DEFAULT_BUDGET,
) -> ChunkerResult:
    """Evaluate one chunker (see the module docstring); raise InputError when it makes no
    chunk."""
    calls = embedder.calls
    made = _chunk_corpus(chunker, documents, embedder)
    chunks = made.chunks
    computed = embedder.computed
    started = time.perf_counter()
    chunk_vectors = embedder([c.text for c in chunks])
    embedding_seconds = time.perf_counter() - started
    tokens = np.array([estimate_tokens(c.text) for c in chunks], dtype=np.int64)
    depth = min(len(chunks), max(k, max(CURVE_BUDGETS, default=budget), budget))
    order = _rank(question_vectors, chunk_vectors, depth)
    at_k = _score_many(questions, chunks, [list(row[:k]) for row in order])

    def by_budget(limit: int) -> list[list[int]]:
        return [list(row[: within_budget(tokens[row], limit)]) for row in order]

    budget_ranks = by_budget(budget)
    at_budget = _score_many(questions, chunks, budget_ranks)
    curve = []
    for limit in CURVE_BUDGETS:
        scores = at_budget if limit == budget else _score_many(questions, chunks, by_budget(limit))
        curve.append((limit, scores.recall, scores.tokens))
    return ChunkerResult(
        name=chunker.name,
        kind=chunker.kind,
        settings=dict(chunker.settings),
        model_output=chunker.model_output,
        chunks=len(chunks),
        mean_tokens=float(tokens.mean()),
        p95_tokens=float(np.percentile(tokens, 95)),
        crossing_sections=made.crossing,
        chunking_texts=made.texts,
        embedder_calls=embedder.calls - calls,
        embedded_texts=embedder.computed - computed,
        chunking_seconds=made.seconds,
        embedding_seconds=embedding_seconds,
        at_k=at_k,
        at_budget=at_budget,
        curve=tuple(curve),
        by_document=_by_document(documents, questions, chunks, budget_ranks),
        budget_recalls=_recalls(questions, chunks, budget_ranks),
    )


def evaluate(
    documents: Sequence[Document],
    questions: Sequence[Question],
    chunkers: Sequence[Chunker | str],
    *,
    embedder: Embedder | None = None,
    k: int = DEFAULT_K,
    budget: int = DEFAULT_BUDGET,
    cache_dir: Path | str | None = None,
    corpus: str = "custom",
    sort_by_recall: bool = False,
    progress: Progress | None = None,
    on_embedded: Callable[[int], None] | None = None,
) -> Evaluation:
    """Evaluate each chunker on ``documents`` and ``questions``; see the module docstring.

    Chunkers are ``Chunker`` records or spec strings (``build_chunker``); a spec's Level 4
    splitter embeds through the same cache as chunks and questions. ``embedder`` defaults
    to the offline ``MiniLMEmbedder``. Embeddings are cached by content hash (and on disk
    under ``cache_dir``, written at the end of each chunker's run). Raises InputError on
    bad input: an unknown document, a range outside it, a chunker that makes no chunk.
    ``progress`` is called with each chunker's name as it starts, ``on_embedded`` with the
    number of texts each embedding batch computed (cache misses only).
    """
    if k < 1 or budget < 1:
        raise InputError(f"k={k} and budget={budget} must be at least 1")
    if not chunkers:
        raise InputError("no chunker to evaluate; name at least one (e.g. level4)")
    check_questions(documents, questions)
    cached = CachedEmbedder(
        embedder if embedder is not None else MiniLMEmbedder(), cache_dir=cache_dir
    )
    cached.on_embedded = on_embedded
    started = time.perf_counter()
    question_vectors = cached([q.text for q in questions])
    question_seconds = time.perf_counter() - started
    cached.flush()
    results = [
        _run_one(item, documents, questions, question_vectors, cached, k, budget, progress)
        for item in chunkers
    ]
    if sort_by_recall:
        results.sort(key=lambda r: -r.at_budget.recall)
    return Evaluation(
        corpus=corpus,
        documents=len(documents),
        characters=sum(len(d.text) for d in documents),
        questions=len(questions),
        embedder=cached.name,
        k=k,
        budget=budget,
        results=tuple(results),
        question_seconds=question_seconds,
        chosen=results[0].name if sort_by_recall else None,
    )


def _run_one(
    item: Chunker | str,
    documents: Sequence[Document],
    questions: Sequence[Question],
    question_vectors: np.ndarray,
    cached: CachedEmbedder,
    k: int,
    budget: int,
    progress: Progress | None,
) -> ChunkerResult:
    """Build (a spec) and run one chunker, announced to ``progress``; the embedding cache
    is written to disk after its run, whatever happened."""
    chunker = build_chunker(item, cached) if isinstance(item, str) else item
    if progress is not None:
        progress(chunker.name)
    try:
        return run_chunker(
            chunker, documents, questions, question_vectors, cached, k=k, budget=budget
        )
    finally:
        cached.flush()


def parse_grid(text: str) -> dict[str, tuple[str, ...]]:
    """Parse ``name=v1,v2 name=v1,...`` (spaces or semicolons between settings)."""
    grid: dict[str, tuple[str, ...]] = {}
    for part in text.replace(";", " ").split():
        name, sep, values = part.partition("=")
        options = tuple(v for v in values.split(",") if v)
        if not sep or not name or not options:
            raise InputError(
                f"sweep grid {text!r}: {part!r} is not name=v1,v2; "
                "e.g. threshold=0.35,0.5 window=1,3"
            )
        grid[name] = options
    if not grid:
        raise InputError("the sweep grid is empty; e.g. threshold=0.35,0.5 window=1,3")
    return grid


def sweep_specs(base: str, grid: Mapping[str, Sequence[str]]) -> list[str]:
    """Return one spec per combination of the grid's values, added to ``base``'s settings."""
    names = list(grid)
    return [
        ",".join([base, *(f"{n}={v}" for n, v in zip(names, values, strict=True))])
        for values in itertools.product(*(grid[n] for n in names))
    ]


def chunker_specs(
    named: Sequence[str],
    *,
    default: Sequence[str],
    sweep: str | None = None,
    sweep_base: str = "level4-solon",
    installed: bool = False,
) -> list[str]:
    """The chunker specs a run compares: ``named`` (none: ``default``); with ``sweep`` (a
    grid, ``parse_grid``, or ``"seed"``: ``SEED_GRID``) the grid's combinations on the first
    named (none: ``sweep_base``) instead; with ``installed`` every installed library
    splitter at 256 tokens after them (once)."""
    chunkers = list(named or ([] if sweep else default))
    if sweep:
        grid = SEED_GRID if sweep == "seed" else parse_grid(sweep)
        base = chunkers[0] if chunkers else sweep_base
        chunkers = sweep_specs(base, grid)
    if installed:
        chunkers += [
            f"{n},size=256" for n in installed_splitters() if f"{n},size=256" not in chunkers
        ]
    return chunkers
