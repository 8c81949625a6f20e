"""What every benchmark shares: ``--quick``, ``--json PATH``, and its figures kept as JSON.

Every benchmark script (``benchmark_scripts``: each ``benchmarks/*.py`` except the helpers
named in ``HELPERS``) accepts ``--quick``: small sizes, a few seconds, the same code path,
so that ``tests/test_benchmarks_quick.py`` can run it on every change. A quick run's
figures are not kept unless ``--json PATH`` says where; a full run's figures go to
``benchmarks/results/<script name>.json`` (or ``--json PATH``), from which
``benchmarks/summarise.py`` renders ``docs/benchmarks.md``. Nothing here times anything.

A results file holds: the benchmark's name, whether the run was quick, the command that
made it, the UTC date, the machine (CPU, cores, system, Python, and the 1-minute load
average at the end of the run: a shared machine's figure says how busy it was), and
``figures``, a flat mapping of a label that names its unit to a number, a string or a
boolean, in the order the script printed them.

A benchmark that cannot run here (an optional extra or a data folder missing) calls
``cannot_run(reason)``: one line on stderr and exit status ``CANNOT_RUN_EXIT``, which
the quick test reports as a skip with that reason, never as a pass.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import NoReturn

BENCHMARKS = Path(__file__).resolve().parent
RESULTS = BENCHMARKS / "results"
HELPERS = ("summarise.py",)
"""Scripts in ``benchmarks/`` that are not benchmarks, besides ``_*.py`` (shared code)
and ``make_*.py`` (scripts that make data files)."""
CANNOT_RUN_EXIT = 75  # EX_TEMPFAIL: not a failure of the benchmark, a missing prerequisite

Figure = float | int | str | bool


def benchmark_scripts(folder: Path = BENCHMARKS) -> list[Path]:
    """Every benchmark script in ``folder``, by name: any ``*.py`` but ``_*.py``,
    ``make_*.py`` and ``HELPERS``, so a new benchmark is found without being listed."""
    return sorted(
        path
        for path in folder.glob("*.py")
        if not path.name.startswith(("_", "make_")) and path.name not in HELPERS
    )


def add_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--quick`` and ``--json PATH`` to a benchmark's parser."""
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small sizes, a few seconds, the same code path (figures not kept)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="PATH",
        help="write the figures here (default for a full run: benchmarks/results/NAME.json)",
    )


def machine() -> dict[str, Figure]:
    """The machine a figure was measured on, and how busy it was (the 1-minute load
    average, read at the end of the run)."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else -1.0
    return {
        "cpu": cpu,
        "cores": os.cpu_count() or 0,
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
        "load_average_1min": round(load, 2),
    }


def _command(script: str) -> str:
    """The command line that ran this benchmark, without ``--json PATH``."""
    args = sys.argv[1:]
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--json":
            skip = True
        elif not arg.startswith("--json="):
            kept.append(arg)
    relative = f"benchmarks/{Path(script).name}"
    return " ".join(["python", relative, *map(shlex.quote, kept)])


def keep(
    script: str, args: argparse.Namespace, figures: Mapping[str, Figure], **notes: Figure
) -> Path | None:
    """Write ``figures`` (and ``notes``, context such as sizes) as the results of the
    benchmark ``script`` (its ``__file__``), to ``args.json`` if given, else, for a full
    run, to ``benchmarks/results/<name>.json``; a quick run without ``--json`` keeps
    nothing. Returns the path written, if any. The write is atomic."""
    from agentic_chunking._files import write_text_atomic

    quick = bool(getattr(args, "quick", False))
    target: Path | None = getattr(args, "json", None)
    name = Path(script).stem
    if target is None and quick:
        return None
    if target is None:
        RESULTS.mkdir(exist_ok=True)
        target = RESULTS / f"{name}.json"
    record = {
        "benchmark": name,
        "quick": quick,
        "command": _command(script),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "figures": dict(figures),
        "notes": dict(notes),
    }
    write_text_atomic(target, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    print(f"figures written to {target}")
    return target


def cannot_run(reason: str) -> NoReturn:
    """Stop a benchmark that cannot run here: ``reason`` (what is missing and the way
    out) on one line of stderr, exit status ``CANNOT_RUN_EXIT``."""
    print(f"cannot run: {reason}", file=sys.stderr)
    raise SystemExit(CANNOT_RUN_EXIT)
