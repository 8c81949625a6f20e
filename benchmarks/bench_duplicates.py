"""Duplicate detection time against size: the indexed version vs comparing all pairs.

Generated propositions (``benchmarks/_generated.py``: generated, not real text) with
about 5 % repeated, at 500 / 2,000 / 10,000. For each size: ``merge_duplicates`` (the
pipeline's merge before grouping) and ``find_duplicates`` (the check), each from cold
memories (every language cache cleared first, so tokenising is counted), and, as the
baseline measured in the same run, the all-pairs definition of ``duplicate_pairs`` at
the sizes where it finishes in reasonable time (500 by default; about 100 s at 2,000).
Prints seconds, the growth ratio from the previous size (linear would be x4 then x5,
quadratic x16 then x25) and the indexed/all-pairs agreement where both ran.

Then, per size, the first call in a fresh process (``python -c``, a child): importing
``agentic_chunking.checks`` and the first ``find_duplicates``, lexicon load included,
whether spaCy got imported (it must not: the checks read lemminflect's data without
importing lemminflect, which imports spaCy), and as the baseline measured in the same
run, the same child with ``import lemminflect`` (what a first call paid before) timed
with the call.

    .venv/bin/python benchmarks/bench_duplicates.py [--sizes 500 2000 10000] [--quick]

``--quick``: sizes 200 and 400, the all-pairs baseline at 200.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _generated import propositions, with_copies
from _results import add_options, keep

from agentic_chunking.checks import (
    _cached,
    _duplicates,
    _language,
    certainly_same_fact,
    contains,
    same_fact,
)
from agentic_chunking.checks._duplicates import CERTAIN, CONTAINED, EXACT, REWORDED
from agentic_chunking.pipeline._partition import merge_duplicates


def cold() -> None:
    """Clear every remembered answer, so each measurement pays for tokenising its texts."""
    for module in (_language, _cached, _duplicates):
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


def all_pairs(texts: list[str]) -> list[tuple[int, int, str]]:
    """The definition of ``duplicate_pairs``, every pair compared (quadratic)."""
    reported: set[int] = set()
    out: list[tuple[int, int, str]] = []
    for i, text in enumerate(texts):
        live = [j for j in range(i) if j not in reported]
        sure = next((j for j in live if certainly_same_fact(texts[j], text)), None)
        if sure is not None:
            exact = _duplicates._exact(texts[sure], text)
            out.append((sure, i, EXACT if exact else CERTAIN))
            reported.add(i)
            continue
        reworded = next((j for j in live if same_fact(texts[j], text)), None)
        if reworded is not None:
            out.append((reworded, i, REWORDED))
            reported.add(i)
            continue
        held = next((j for j in live if contains(texts[j], text) or contains(text, texts[j])), None)
        if held is not None:
            out.append((held, i, CONTAINED))
    return out


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    cold()
    started = time.perf_counter()
    value = function()
    return time.perf_counter() - started, value


_FRESH = """
import json, sys, time
sys.path.insert(0, {benchmarks!r})
from _generated import propositions, with_copies
texts = with_copies(propositions(int({size} / 1.05) + 1, seed=3))[:{size}]
started = time.perf_counter()
if {with_lemminflect}:
    import lemminflect
from agentic_chunking.checks import find_duplicates
imported = time.perf_counter()
findings = find_duplicates([texts])
done = time.perf_counter()
print(json.dumps({{"import": imported - started, "call": done - imported,
                   "findings": len(findings), "spacy": "spacy" in sys.modules}}))
"""


def fresh(size: int, *, with_lemminflect: bool = False) -> dict[str, Any]:
    """The first ``find_duplicates`` on ``size`` propositions in a fresh process: seconds to
    import the checks and for the call, the findings, whether spaCy was imported; with
    ``with_lemminflect``, ``import lemminflect`` counted with the import (the old path)."""
    code = _FRESH.format(
        benchmarks=str(Path(__file__).parent), size=size, with_lemminflect=with_lemminflect
    )
    root = str(Path(__file__).resolve().parent.parent)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 10000])
    parser.add_argument(
        "--all-pairs-up-to", type=int, default=500, help="largest size for the all-pairs baseline"
    )
    add_options(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.all_pairs_up_to = [200, 400], 200
    figures: dict[str, float | bool] = {}
    print(f"{'size':>6} {'step':>22} {'seconds':>8} {'growth':>7}  notes")
    previous: dict[str, float] = {}
    last_size = 0
    for size in args.sizes:
        texts = with_copies(propositions(int(size / 1.05) + 1, seed=3))[:size]
        steps: dict[str, Callable[[], Any]] = {
            "merge_duplicates": lambda texts=texts: merge_duplicates((t, "C") for t in texts),
            "find_duplicates": lambda texts=texts: _duplicates.find_duplicates([texts]),
        }
        if size <= args.all_pairs_up_to:
            steps["all pairs (baseline)"] = lambda texts=texts: all_pairs(texts)
        results: dict[str, Any] = {}
        for name, step in steps.items():
            seconds, results[name] = timed(step)
            growth = f"x{seconds / previous[name]:.1f}" if name in previous else ""
            note = ""
            if name == "merge_duplicates":
                note = f"{size - len(results[name])} merged"
            elif name == "find_duplicates":
                note = f"{len(results[name])} findings"
            print(f"{size:6} {name:>22} {seconds:8.2f} {growth:>7}  {note}")
            figures[f"{name} s at {size}"] = round(seconds, 3)
            previous[name] = seconds
        if "all pairs (baseline)" in results:
            same = _duplicates.duplicate_pairs(texts) == results["all pairs (baseline)"]
            speedup = previous["all pairs (baseline)"] / previous["find_duplicates"]
            label = "index = all pairs"
            print(f"{'':6} {label:>22} {same!s:>8}  find_duplicates x{speedup:.1f} faster")
            figures[f"index = all pairs at {size}"] = same
            figures[f"all pairs / find_duplicates at {size}"] = round(speedup, 1)
        if last_size:
            print(f"{'':6} {'size growth':>22} {'':8} x{size / last_size:.1f}")
        last_size = size
    print(
        f"\n{'size':>6} {'fresh process, first call':>34} {'import':>7} {'call':>7}"
        f" {'total':>7}  spaCy"
    )
    for size in args.sizes:
        rows = {
            "checks (lexicon read directly)": fresh(size),
            "import lemminflect (baseline)": fresh(size, with_lemminflect=True),
        }
        for name, row in rows.items():
            total = row["import"] + row["call"]
            print(
                f"{size:6} {name:>34} {row['import']:7.2f} {row['call']:7.2f} {total:7.2f}"
                f"  {'imported' if row['spacy'] else 'not imported'}"
            )
        ours, old = rows.values()
        ratio = (old["import"] + old["call"]) / (ours["import"] + ours["call"])
        print(f"{'':6} {'baseline / checks':>34} {'':7} {'':7} x{ratio:.1f}")
        figures[f"fresh process: import + first find_duplicates s at {size}"] = round(
            ours["import"] + ours["call"], 3
        )
        figures[f"fresh process: spaCy imported at {size}"] = ours["spacy"]
        figures[f"fresh process: with import lemminflect / without at {size}"] = round(ratio, 2)
    keep(__file__, args, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
