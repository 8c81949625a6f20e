"""How ``check``'s running time grows with the size of its input (issue 33, item 5).

Builds chunked outputs of growing size from ordinary propositions, every third one
pronoun-heavy (``He said it was his ...``, the text the pronoun rule works hardest on), 40
propositions a chunk, each under the 10,000-character limit, and times ``agentic-chunking
check OUT -o FINDINGS`` on each, in this process (the command's own code path). Reports the
seconds, the seconds per MB, and the growth against the smallest size measured in the same
run: ``growth = (time / smallest time) / (size / smallest size)``; near 1 is linear, 2 at
ten times the size would be n log n or worse. ``step`` is the same against the size measured
before: the checks' caches hold about 8,000 texts, so the time per proposition rises once
(up to about 2 MB), then stays; a quadratic part would make ``step`` grow with every size.
Times are CPU seconds of this process (all its threads), so a busy machine changes them
little. Last, one proposition of 5 MB: the
seconds until ``check`` refuses it (the limit is 10,000 characters a proposition).

    python benchmarks/bench_check_scaling.py [--quick]

``--quick``: sizes of 50, 100 and 200 KB (a few seconds); otherwise 0.5 to 10 MB. Figures
go to ``benchmarks/results/bench_check_scaling.json`` (a full run) or ``--json PATH``. A first
check of 20 KB, not reported, loads what every check loads once (imports, tables).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

from agentic_chunking._models import AgenticChunk
from agentic_chunking.checks import clear_caches
from agentic_chunking.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import add_options, keep

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


def time_check(path: Path, folder: Path, *, page: bool = False, refused: bool = False) -> float:
    """CPU seconds of ``check PATH`` (the findings on stdout; with ``page``, ``-o`` and the
    HTML page beside it too)."""
    findings = folder / f"findings-{path.stem}.json"
    argv = ["check", str(path), *(["-o", str(findings)] if page else [])]
    clear_caches()  # each run from cold caches: the same work for the same input
    started = time.process_time()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    elapsed = time.process_time() - started
    if status not in (0, 1, *((2,) if refused else ())):
        raise SystemExit(f"check exited {status} on {path}")
    if refused and status != 2:
        raise SystemExit(f"check took {path} (exit {status}); it must refuse it")
    return elapsed


def one_long_proposition(size_bytes: int, folder: Path) -> Path:
    """An output of one chunk whose one proposition is ``size_bytes`` of pronoun-heavy text."""
    text = (PRONOUNS.format(year=1950) + " ") * (size_bytes // (len(PRONOUNS) + 1) + 1)
    chunk = AgenticChunk.from_propositions(
        document_id="bench",
        seq=1,
        thematic_category="One long proposition",
        propositions=[text[:size_bytes]],
        source_chunk_ids=["bench-P0001"],
    ).to_dict()
    path = folder / "one-long-proposition.json"
    path.write_text(json.dumps({"Chunks": [chunk], "IsSuccess": True}), encoding="utf-8")
    return path


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
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
        long_size = (200 if args.quick else 5000) * 1024
        refusal = time_check(one_long_proposition(long_size, folder), folder, refused=True)
    base_size, base_rules, base_page = rows[0]
    figures: dict[str, float] = {}
    print(
        f"{'size':>10} {'rules s':>8} {'growth':>7} {'step':>5} {'+page s':>8} {'growth':>7} "
        f"{'step':>5}"
    )
    before = rows[0]
    for size, rules, page in rows:
        scale, step = size / base_size, size / before[0]
        label = f"{size / 1024 / 1024:.1f} MB"
        rules_growth, rules_step = rules / base_rules / scale, rules / before[1] / step
        page_growth, page_step = page / base_page / scale, page / before[2] / step
        figures[f"{label}: rules, CPU s"] = round(rules, 2)
        figures[f"{label}: rules, growth against the smallest"] = round(rules_growth, 2)
        figures[f"{label}: rules, growth against the size before"] = round(rules_step, 2)
        figures[f"{label}: rules and page, CPU s"] = round(page, 2)
        figures[f"{label}: rules and page, growth against the smallest"] = round(page_growth, 2)
        figures[f"{label}: rules and page, growth against the size before"] = round(page_step, 2)
        print(
            f"{size / 1024:>8.0f}KB {rules:>8.2f} {rules_growth:>7.2f} {rules_step:>5.2f} "
            f"{page:>8.2f} {page_growth:>7.2f} {page_step:>5.2f}"
        )
        before = (size, rules, page)
    figures[f"one proposition of {long_size // 1024} KB: CPU s to refuse"] = round(refusal, 3)
    print(f"one proposition of {long_size // 1024} KB: refused in {refusal:.3f} CPU s")
    keep(__file__, args, figures, proposition_limit_chars=10_000)


if __name__ == "__main__":
    main_bench()
