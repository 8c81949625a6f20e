"""How fast Ctrl-C stops ``agentic-chunking chunk`` with model calls in flight.

Starts ``python -m agentic_chunking chunk`` on a K-paragraph document against a loopback
FakeMessagesServer whose every reply takes LATENCY seconds, waits until the first
``--max-concurrency`` calls are in flight, sends SIGINT, and measures the time to exit.
The baseline, measured in the same run, is the same command left to finish (no SIGINT):
what waiting for the calls costs. Prints the stop time (median of REPEATS), its ratio to
the baseline, the exit status, the lines printed after the interrupt, and how many
requests reached the server (queued batches must not). No network.

    .venv/bin/python benchmarks/bench_interrupt.py [--latency 5] [--paragraphs 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agentic_chunking.pipeline._prompts import load_prompt
from agentic_chunking.testing import FakeMessagesServer, FakeReply

CONCURRENCY = 4


def one_run(
    latency: float, paragraphs: int, *, interrupt: bool = True
) -> tuple[float, int, list[str], int]:
    """(seconds from SIGINT, or from the first calls in flight, to exit; exit status;
    stderr lines; requests served)."""
    grouping = load_prompt("grouping").text

    def answer(body: dict[str, Any]) -> FakeReply:
        if body["system"] == grouping:
            return FakeReply(text='[{"category": "Facts", "fact_ids": [1]}]', delay_s=latency)
        return FakeReply(text='["A fact."]', delay_s=latency)

    with (
        tempfile.TemporaryDirectory() as folder,
        FakeMessagesServer(handler=answer) as server,
    ):
        server._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
        doc = Path(folder) / "doc.md"
        doc.write_text("\n\n".join(f"Fact number {i} is true." for i in range(paragraphs)))
        env = {**os.environ, "ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": server.base_url}
        child = subprocess.Popen(
            [sys.executable, "-m", "agentic_chunking", "chunk", str(doc), "-o", f"{folder}/o.json"],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        while len(server.requests) < CONCURRENCY:
            time.sleep(0.01)
        started = time.perf_counter()
        if interrupt:
            child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=latency * paragraphs + 60)
        return (
            time.perf_counter() - started,
            child.returncode,
            err.splitlines(),
            len(server.requests),
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=5.0)
    parser.add_argument("--paragraphs", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    baseline = one_run(args.latency, args.paragraphs, interrupt=False)
    runs = [one_run(args.latency, args.paragraphs) for _ in range(args.repeats)]
    stop = statistics.median(r[0] for r in runs)
    print(f"left to finish (baseline, measured):    {baseline[0]:.3f} s, exit {baseline[1]}")
    print(f"stop after SIGINT (median of {args.repeats}):     {stop:.3f} s")
    print(f"ratio stop / baseline:                  {stop / baseline[0]:.4f}")
    print(f"exit statuses after SIGINT:             {sorted({r[1] for r in runs})}")
    print(f"most stderr lines after SIGINT:         {max(len(r[2]) for r in runs)}")
    print(f"most requests served (of {args.paragraphs} batches):  {max(r[3] for r in runs)}")


if __name__ == "__main__":
    main()
