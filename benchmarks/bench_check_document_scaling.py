"""How ``check --source``'s time grows with the size of one document (issue 41, item 2).

``bench_check_scaling`` grows the output without a source; this grows one document with its
source, where the checks that compare the two (no invention, coverage) align every
proposition to the source's sentences: a step over the whole source for each proposition
made the time grow with the square of the document (87 CPU s at 80 KB, 181 s wall on a
75 KB essay). Documents of 5 to 80 KB are cut from real text the project ships (Chroma's
``wikitexts.md``, Wikipedia articles, at a line end); the output's propositions are its
sentences, every third one cut to its second half (a proposition that is not a whole
sentence), ten a chunk. Each is checked with ``agentic-chunking check OUT --source DOC -o
FINDINGS`` in this process (the command's own code path), from cold caches, after a first
check of 5 KB that loads what every check loads once (imports, tables, the parser).

Reports CPU seconds (all threads of this process: a busy machine changes them little) per
size, ``ratio``: time(2n) / time(n) against the size measured before (2 is linear, 4
quadratic), ``growth`` against the smallest size ((time / its time) / (size / its size):
near 1 is linear), and the exponent ``k`` of time ~ size^k fitted by least squares on the
logarithms (1 is linear, 2 quadratic).

    python benchmarks/bench_check_document_scaling.py [--quick]

``--quick``: 5, 10 and 20 KB (a few seconds); otherwise 5 to 80 KB. Figures go to
``benchmarks/results/bench_check_document_scaling.json`` (a full run) or ``--json PATH``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import sys
import tempfile
import time
from pathlib import Path

from agentic_chunking._models import AgenticChunk
from agentic_chunking._text import split_sentences
from agentic_chunking.checks import clear_caches
from agentic_chunking.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import add_options, cannot_run, keep

TEXT = Path(__file__).resolve().parent.parent / "agentic_chunking/evaluate/data/wikitexts.md"
PER_CHUNK = 10


def build(size_bytes: int, folder: Path) -> tuple[Path, Path, int]:
    """The document of about ``size_bytes`` (cut at a line end) and its chunked output (see
    the module); return their paths and the number of propositions."""
    whole = TEXT.read_text(encoding="utf-8")
    text = whole[:size_bytes]
    text = text[: text.rfind("\n")]
    document = folder / f"doc-{size_bytes}.md"
    document.write_text(text, encoding="utf-8")
    propositions = []
    for number, sentence in enumerate(s for s in split_sentences(text) if len(s.split()) > 3):
        words = sentence.split()
        cut = number % 3 == 2 and len(words) > 8
        propositions.append(" ".join(words[len(words) // 2 :]) if cut else sentence)
    chunks = [
        AgenticChunk.from_propositions(
            document_id="doc",
            seq=k // PER_CHUNK + 1,
            thematic_category=f"Theme {k // PER_CHUNK + 1}",
            propositions=propositions[k : k + PER_CHUNK],
            source_chunk_ids=["doc-P0001"],
        ).to_dict()
        for k in range(0, len(propositions), PER_CHUNK)
    ]
    output = folder / f"out-{size_bytes}.json"
    output.write_text(json.dumps({"Chunks": chunks, "IsSuccess": True}), encoding="utf-8")
    return document, output, len(propositions)


def time_check(document: Path, output: Path, folder: Path) -> float:
    """CPU seconds of ``check OUTPUT --source DOCUMENT -o FINDINGS``."""
    findings = folder / f"findings-{output.stem}.json"
    argv = ["check", str(output), "--source", str(document), "-o", str(findings)]
    clear_caches()  # each run from cold caches: the same work for the same input
    started = time.process_time()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    elapsed = time.process_time() - started
    if status not in (0, 1):
        raise SystemExit(f"check exited {status} on {output}")
    return elapsed


def fitted_exponent(sizes: list[float], times: list[float]) -> float:
    """The slope of log(time) on log(size), by least squares."""
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
    args = parser.parse_args()
    if not TEXT.exists():
        cannot_run(f"{TEXT} is absent")
    sizes_kb = [5, 10, 20] if args.quick else [5, 10, 20, 40, 80]
    rows: list[tuple[int, int, float]] = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        document, output, _ = build(5 * 1024, folder)
        time_check(document, output, folder)  # warm-up: imports, tables, the parser
        for size_kb in sizes_kb:
            document, output, propositions = build(size_kb * 1024, folder)
            size = document.stat().st_size
            rows.append((size, propositions, time_check(document, output, folder)))
    figures: dict[str, float] = {}
    print(f"{'size':>8} {'props':>6} {'CPU s':>7} {'ratio':>6} {'growth':>7}")
    base_size, _, base_time = rows[0]
    before: tuple[int, int, float] | None = None
    for size, propositions, seconds in rows:
        label = f"{size / 1024:.0f} KB"
        growth = seconds / base_time / (size / base_size)
        ratio = seconds / before[2] / (size / before[0]) * 2 if before else float("nan")
        figures[f"{label}: propositions"] = propositions
        figures[f"{label}: CPU s"] = round(seconds, 2)
        figures[f"{label}: growth against the smallest"] = round(growth, 2)
        if before:
            figures[f"{label}: time(2n) / time(n) against the size before"] = round(ratio, 2)
        print(f"{label:>8} {propositions:>6} {seconds:>7.2f} {ratio:>6.2f} {growth:>7.2f}")
        before = (size, propositions, seconds)
    exponent = fitted_exponent([r[0] for r in rows], [r[2] for r in rows])
    figures["fitted exponent k of time ~ size^k"] = round(exponent, 2)
    print(f"fitted exponent k of time ~ size^k: {exponent:.2f} (1 linear, 2 quadratic)")
    keep(__file__, args, figures, text=TEXT.name, propositions_per_chunk=PER_CHUNK)


if __name__ == "__main__":
    main_bench()
