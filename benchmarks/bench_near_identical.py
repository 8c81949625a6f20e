"""Duplicate detection on near-identical strings: time and peak memory at 1,000 and 5,000.

The fault trial of issue 24: one extraction reply of thousands of near-identical strings
(one template, another number in each) made every pair a duplicate candidate (190 s and
8.4 GB for a 1 MB reply). Here the pipeline's own steps after extraction run on such
strings, generated (not real text): ``merge_duplicates`` (the certain duplicates, merged
before grouping) and ``possible_duplicates`` (the candidate search of ``checks._candidates``
then the rules of ``checks._duplicates``), from cold memories.

For each size it prints seconds (measured without tracing), the peak of memory allocated
during the step (``tracemalloc``, a second pass), the number of candidate pairs, and the
growth against the first size measured in the same run (linear: x5 from 1,000 to 5,000;
quadratic: x25). Goal at 5,000: under 5 s and 200 MB.

A second family, ``mutated`` (two random letters changed in one sentence), shows the
known limit: a change after a word's fourth letter is invisible to the 4-letter stem keys,
so most of those texts stay candidates of each other and the rules compare them pair by
pair; it is measured at smaller sizes.

    .venv/bin/python benchmarks/bench_near_identical.py [--sizes 1000 5000] [--mutated 500 1000]

``--quick``: sizes 200 and 400, mutated 100.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, keep
from bench_duplicates import cold

from agentic_chunking.checks._candidates import candidate_pairs
from agentic_chunking.pipeline._notes import possible_duplicates
from agentic_chunking.pipeline._partition import merge_duplicates

TEMPLATE = "The reactor cooling pump {n} moves water through the primary circuit."
SENTENCE = "The reactor cooling pump moves water through the primary circuit at high pressure"


def numbered(size: int) -> list[str]:
    """``size`` strings of one template, each with its own number: all different facts."""
    return [TEMPLATE.format(n=n) for n in range(1, size + 1)]


def mutated(size: int, seed: int = 7) -> list[str]:
    """``size`` copies of one sentence, each with two random letters changed."""
    rng = random.Random(seed)
    texts = []
    for _ in range(size):
        chars = list(SENTENCE)
        for _ in range(2):
            chars[rng.randrange(len(chars))] = rng.choice("abcdefghijklmnopqrstuvwxyz")
        texts.append("".join(chars) + ".")
    return texts


def after_extraction(texts: list[str]) -> int:
    """What the pipeline does after extraction: merge certain copies, report possible ones."""
    merged = merge_duplicates((t, "C") for t in texts)
    return len(possible_duplicates(merged))


def measure(step: Callable[[], Any]) -> tuple[float, float, Any]:
    """(seconds, peak MB allocated, result): timed untraced, then traced for memory."""
    cold()
    started = time.perf_counter()
    result = step()
    seconds = time.perf_counter() - started
    cold()
    tracemalloc.start()
    step()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return seconds, peak, result


def run_family(
    name: str, make: Callable[[int], list[str]], sizes: list[int], figures: dict[str, float]
) -> None:
    first: tuple[int, float, float] | None = None
    for size in sizes:
        texts = make(size)
        seconds, peak, warnings = measure(lambda texts=texts: after_extraction(texts))
        candidates = sum(len(js) for js in candidate_pairs(texts).values())
        growth = ""
        if first is not None:
            base_size, base_seconds, base_peak = first
            growth = (
                f"x{seconds / base_seconds:.1f} time, x{peak / base_peak:.1f} memory "
                f"for x{size / base_size:.0f} strings"
            )
        else:
            first = (size, seconds, peak)
        print(
            f"{name:>8} {size:6} {seconds:8.2f} {peak:9.1f} {candidates:11,} {warnings:9}  {growth}"
        )
        figures |= {
            f"{name} {size}: seconds": round(seconds, 3),
            f"{name} {size}: peak MB": round(peak, 1),
            f"{name} {size}: candidate pairs": candidates,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--mutated", type=int, nargs="*", default=[500, 1000])
    add_options(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.mutated = [200, 400], [100]
    figures: dict[str, float] = {}
    print(
        f"{'family':>8} {'size':>6} {'seconds':>8} {'peak MB':>9} {'candidates':>11} "
        f"{'warnings':>9}  growth against the first size"
    )
    run_family("numbered", numbered, args.sizes, figures)
    if args.mutated:
        run_family("mutated", mutated, args.mutated, figures)
    keep(__file__, args, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
