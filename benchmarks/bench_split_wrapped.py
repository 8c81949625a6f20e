"""``split`` on a long hard-wrapped plain text: line segments (before) against sentences (after).

Run: python benchmarks/bench_split_wrapped.py [--quick] [--size 338000] [--embedder minilm|hashing]

``--quick``: 20,000 characters, the same code path.

The document is generated (``_generated.wrapped_document``: headings, paragraphs of
sentences that run across line ends at 72 columns, bullet lists, indented code; the shape
of a licence-notices file or a Gutenberg text), about ``--size`` characters. It is split
twice with the default (adaptive) splitter and the same embedder, each run in a fresh
process so that each peak memory is its own:

- **before**: the splitter as it was: every line end ends a segment (Solon's rule,
  ``join_wrapped_lines=False``) and batches bounded by count only (64 texts);
- **after**: the defaults: a paragraph's wrapped lines joined, batches bounded by count
  and padded tokens.

Per run: segments, chunks, chunks that start mid-sentence, seconds to split (the embedder
loaded and warmed first, so its load is not counted) and the process's peak resident
memory, with the rise over the memory once the embedder is loaded. Then after / before
ratios. A chunk starts mid-sentence when its body does not begin where a sentence, a
heading, a list item or a code line begins; in this generated text a period followed by
whitespace ends a sentence and nothing else does, so those places are known exactly.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _generated import wrapped_document  # noqa: E402

# Where a sentence or a block begins in wrapped_document's text (see the module docstring).
_START = re.compile(r"\.\s+|\n[ \t]*\n\s*|\n(?=- |    )")


def sentence_starts(text: str) -> set[int]:
    """Offsets (of the first non-space character) where a sentence or a block begins."""
    starts = {len(text) - len(text.lstrip())}
    for match in _START.finditer(text):
        rest = text[match.end() :]
        starts.add(match.end() + len(rest) - len(rest.lstrip()))
    return starts


def measure(variant: str, size: int, embedder_name: str) -> dict[str, float]:
    """Split the document with ``variant`` in this process; return its figures."""
    from agentic_chunking.semantic import HashingEmbedder, MiniLMEmbedder, SemanticSplitter

    text = wrapped_document(size)
    embedder = MiniLMEmbedder() if embedder_name == "minilm" else HashingEmbedder()
    if variant == "before":  # every line end a segment; batches bounded by count only
        splitter = SemanticSplitter(embedder, join_wrapped_lines=False, batch_tokens=10**9)
    else:
        splitter = SemanticSplitter(embedder)
    embedder(["warm up the model"])
    loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    began = time.perf_counter()
    explanation = splitter.explain(text)
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    starts = sentence_starts(text)
    mid = 0
    for chunk in explanation.chunks:
        body = text[chunk.body_start :]
        if chunk.body_start + len(body) - len(body.lstrip()) not in starts:
            mid += 1
    return {
        "characters": len(text),
        "segments": len(explanation.segments),
        "chunks": len(explanation.chunks),
        "mid_sentence": mid,
        "seconds": seconds,
        "peak_mb": peak / 1024,
        "rise_mb": (peak - loaded) / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=338_000, help="characters (default 338000)")
    parser.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    parser.add_argument("--quick", action="store_true", help="20,000 characters, a few seconds")
    parser.add_argument("--variant", choices=("before", "after"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.size = 20_000
    if args.variant:  # a child process: one measurement, as JSON on stdout
        print(json.dumps(measure(args.variant, args.size, args.embedder)))
        return
    figures = {}
    for variant in ("before", "after"):
        command = [sys.executable, __file__, "--variant", variant, "--size", str(args.size)]
        command += ["--embedder", args.embedder]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        figures[variant] = json.loads(done.stdout)
    before, after = figures["before"], figures["after"]
    print(
        f"split on a generated hard-wrapped text of {before['characters']:,} characters "
        f"({args.embedder} embedder, adaptive rule)"
    )
    print(f"{'':14}{'segments':>9}{'chunks':>8}{'mid-sentence':>14}{'seconds':>9}{'peak MB':>9}")
    for name, row in figures.items():
        share = row["mid_sentence"] / row["chunks"] if row["chunks"] else 0.0
        print(
            f"{name:14}{row['segments']:>9}{row['chunks']:>8}"
            f"{row['mid_sentence']:>7} ({share:>4.0%}){row['seconds']:>9.1f}"
            f"{row['peak_mb']:>9.0f}  (+{row['rise_mb']:.0f} over the loaded embedder)"
        )

    def ratio(key: str) -> str:
        return f"{after[key] / before[key]:.2f}" if before[key] else "n/a"

    print(
        f"after / before: segments {ratio('segments')}, chunks starting mid-sentence "
        f"{after['mid_sentence']} vs {before['mid_sentence']}, seconds {ratio('seconds')}, "
        f"peak memory {ratio('peak_mb')}, rise over the loaded embedder {ratio('rise_mb')}"
    )


if __name__ == "__main__":
    main()
