"""How ``check``'s running time grows with the size of its input (issue 33, item 5).

Builds chunked outputs of growing size from ordinary propositions, every third one
pronoun-heavy (``He said it was his ...``, the text the pronoun rule works hardest on), 40
propositions a chunk, each under the 10,000-character limit, and times ``agentic-chunking
check OUT -o FINDINGS`` on each, in this process (the command's own code path). Reports the
seconds, the seconds per MB, and the growth against the smallest size measured in the same
run: ``growth = (time / smallest time) / (size / smallest size)``; near 1 is linear, 2 at
ten times the size would be n log n or worse.

    python benchmarks/bench_check_scaling.py [--quick]

``--quick``: sizes of 50, 100 and 200 KB (a few seconds); otherwise 0.5 to 10 MB. A first
check of 20 KB, not reported, loads what every check loads once (imports, tables).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tempfile
import time
from pathlib import Path

from agentic_chunking._models import AgenticChunk
from agentic_chunking.cli import main

PLAIN = "The {n}th station on the northern line opened in {year} with {n} platforms."
PRONOUNS = "He said it was his, and she told him they had given it to them in {year}."


def build_output(size_bytes: int, folder: Path) -> Path:
    """A chunked output of about ``size_bytes`` bytes (see the module)."""
    chunks: list[dict[str, object]] = []
    written = 0
    number = 0
    while written < size_bytes:
        propositions = []
        for _ in range(40):
            number += 1
            template = PRONOUNS if number % 3 == 0 else PLAIN
            propositions.append(template.format(n=number, year=1900 + number % 120))
        chunk = AgenticChunk.from_propositions(
            document_id="bench",
            seq=len(chunks) + 1,
            thematic_category=f"Theme {len(chunks) + 1}",
            propositions=propositions,
            source_chunk_ids=["bench-P0001"],
        ).to_dict()
        chunks.append(chunk)
        written += len(json.dumps(chunk))
    path = folder / f"out-{size_bytes}.json"
    path.write_text(json.dumps({"Chunks": chunks, "IsSuccess": True}), encoding="utf-8")
    return path


def time_check(path: Path, folder: Path, *, page: bool = False) -> float:
    """Seconds of ``check PATH`` (the findings on stdout; with ``page``, ``-o`` and the HTML
    page beside it too)."""
    findings = folder / f"findings-{path.stem}.json"
    argv = ["check", str(path), *(["-o", str(findings)] if page else [])]
    started = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    elapsed = time.perf_counter() - started
    if status not in (0, 1):
        raise SystemExit(f"check exited {status} on {path}")
    return elapsed


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    args = parser.parse_args()
    sizes_kb = [50, 100, 200] if args.quick else [500, 1000, 2500, 5000, 10000]
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        time_check(build_output(20 * 1024, folder), folder)  # warm-up: imports, tables
        rows = []
        for size_kb in sizes_kb:
            path = build_output(size_kb * 1024, folder)
            actual = path.stat().st_size
            rows.append((actual, time_check(path, folder), time_check(path, folder, page=True)))
    base_size, base_rules, base_page = rows[0]
    print(f"{'size':>10} {'rules s':>8} {'growth':>7} {'+page s':>8} {'growth':>7}")
    for size, rules, page in rows:
        scale = size / base_size
        print(
            f"{size / 1024:>8.0f}KB {rules:>8.2f} {rules / base_rules / scale:>7.2f} "
            f"{page:>8.2f} {page / base_page / scale:>7.2f}"
        )


if __name__ == "__main__":
    main_bench()
