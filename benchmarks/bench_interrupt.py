"""How fast Ctrl-C stops ``agentic-chunking chunk`` with model calls in flight.

Starts ``python -m agentic_chunking chunk`` on a document of K paragraphs of generated
facts (``_generated.py``), each just under the batch limit, so that packing leaves one
extraction call per paragraph (K calls, more than the calls in flight), against a
loopback FakeMessagesServer answering from the data (``testing.ScriptedPipeline``) whose
every reply takes LATENCY seconds. It waits until the default number of calls
(``--max-concurrency``, 4) are in flight, sends SIGINT, and measures the time to exit.
The baseline, measured in the same run, is the same command left to finish (no SIGINT):
what waiting for the calls costs. Prints the stop time (median of REPEATS), its ratio to
the baseline, the exit status, the lines printed after the interrupt, and how many
requests reached the server (queued batches must not). No network.

    python benchmarks/bench_interrupt.py [--latency 5] [--paragraphs 8] [--repeats 3] [--quick]
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
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _generated import near_limit_texts
from _results import add_options, keep

from agentic_chunking._loopback import FakeMessagesServer, ScriptedPipeline
from agentic_chunking.pipeline._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH
from agentic_chunking.pipeline._run import DEFAULT_MAX_CONCURRENCY


@dataclass(frozen=True)
class Run:
    seconds: float
    """From SIGINT (or, left to finish, from the first calls in flight) to exit."""
    exit_status: int
    stderr_lines: list[str]
    requests: int
    """Requests that reached the server."""


def one_run(latency: float, paragraphs: int, limit: int, *, interrupt: bool = True) -> Run:
    texts = near_limit_texts(paragraphs, limit, seed=5)
    script = ScriptedPipeline(
        {" ".join(t): t for t in texts}, lambda fact: "Facts", delay_s=latency
    )
    with (
        tempfile.TemporaryDirectory() as folder,
        FakeMessagesServer(handler=script) as server,
    ):
        doc = Path(folder) / "doc.md"
        doc.write_text("\n\n".join(" ".join(t) for t in texts), encoding="utf-8")
        env = {**os.environ, "ANTHROPIC_API_KEY": "bench", "ANTHROPIC_BASE_URL": server.base_url}
        command = [sys.executable, "-m", "agentic_chunking", "chunk", str(doc)]
        command += ["-o", f"{folder}/o.json", "--max-tokens-per-batch", str(limit)]
        child = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        while len(server.requests) < DEFAULT_MAX_CONCURRENCY:
            if child.poll() is not None:
                raise SystemExit(f"chunk exited {child.returncode} before the calls were made")
            time.sleep(0.01)
        started = time.perf_counter()
        if interrupt:
            child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=latency * (paragraphs + 2) + 60)
        return Run(
            time.perf_counter() - started, child.returncode, err.splitlines(), len(server.requests)
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=5.0, help="seconds per reply")
    parser.add_argument("--paragraphs", type=int, default=8, help="paragraphs = extraction calls")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--batch-tokens", type=int, default=DEFAULT_MAX_TOKENS_PER_BATCH, help="batch limit"
    )
    add_options(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.latency, args.repeats, args.batch_tokens = 0.2, 1, 500
    if args.paragraphs <= DEFAULT_MAX_CONCURRENCY:
        parser.error(f"--paragraphs must be above {DEFAULT_MAX_CONCURRENCY}, the calls in flight")
    work = (args.latency, args.paragraphs, args.batch_tokens)
    baseline = one_run(*work, interrupt=False)
    if baseline.exit_status != 0:
        tail = "\n".join(baseline.stderr_lines[-5:])
        raise SystemExit(f"the run left to finish exited {baseline.exit_status}:\n{tail}")
    runs = [one_run(*work) for _ in range(args.repeats)]
    stop = statistics.median(r.seconds for r in runs)
    statuses = sorted({r.exit_status for r in runs})
    lines = max(len(r.stderr_lines) for r in runs)
    served = max(r.requests for r in runs)
    print(
        f"{args.paragraphs} paragraphs near the batch limit ({args.batch_tokens} tokens), "
        f"{args.latency:.2f} s per reply, {DEFAULT_MAX_CONCURRENCY} calls in flight"
    )
    print(
        f"left to finish (baseline, measured):    {baseline.seconds:.3f} s, "
        f"exit {baseline.exit_status}"
    )
    print(f"stop after SIGINT (median of {args.repeats}):     {stop:.3f} s")
    print(f"ratio stop / baseline:                  {stop / baseline.seconds:.4f}")
    print(f"exit statuses after SIGINT:             {statuses}")
    print(f"most stderr lines after SIGINT:         {lines}")
    print(f"most requests served (of {args.paragraphs} batches):  {served}")
    figures = {
        "left to finish s (baseline)": round(baseline.seconds, 3),
        "baseline requests served": baseline.requests,
        "stop after SIGINT s": round(stop, 3),
        "stop / baseline": round(stop / baseline.seconds, 4),
        "exit statuses after SIGINT": " ".join(map(str, statuses)),
        "most stderr lines after SIGINT": lines,
        f"most requests served of {args.paragraphs} batches": served,
    }
    keep(__file__, args, figures, latency_s=args.latency, repeats=args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
