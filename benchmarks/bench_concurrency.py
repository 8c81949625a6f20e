"""Concurrent extraction against its latency floor, on a loopback Messages API with fixed latency.

Runs ``chunk_text_agentic`` on K input chunks of generated facts (``_generated.py``), each
just under the batch limit, so that packing leaves one extraction call per input chunk
(K calls; the run checks it), against FakeMessagesServer answering from the data
(``testing.ScriptedPipeline``): each extraction reply takes LATENCY seconds, the grouping
replies are instant. First with ``max_concurrency=1`` (the baseline, measured in the same
run), then with the default and with 8 calls in flight. Prints wall times (median of
REPEATS), the speed-up over one call in flight, and each time's ratio to its latency
floor, ceil(K / c) x LATENCY with c calls in flight: above 1 is the pipeline's own time
(planning, threads, grouping, provenance). About 10 s; no network.

    python benchmarks/bench_concurrency.py [--batches 8] [--latency 0.2] [--repeats 3] [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _generated import near_limit_texts
from _results import add_options, keep

from agentic_chunking import AgenticChunkInput, chunk_text_agentic, plan_batches
from agentic_chunking._loopback import FakeMessagesServer, FakeReply, ScriptedPipeline, system_text
from agentic_chunking.client import make_client
from agentic_chunking.pipeline._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH
from agentic_chunking.pipeline._prompts import load_prompt
from agentic_chunking.pipeline._run import DEFAULT_MAX_CONCURRENCY

MOST_IN_FLIGHT = 8


def document(k: int, limit: int) -> tuple[list[AgenticChunkInput], ScriptedPipeline]:
    """K near-limit input chunks and a handler that extracts each one's facts."""
    paragraphs = near_limit_texts(k, limit, seed=11)
    inputs = [AgenticChunkInput(f"C{n:02d}", " ".join(p)) for n, p in enumerate(paragraphs)]
    extraction = {c.text: p for c, p in zip(inputs, paragraphs, strict=True)}
    script = ScriptedPipeline(extraction, lambda fact: "Facts")  # one theme: one grouping
    return inputs, script


def with_latency(script: ScriptedPipeline, latency: float) -> Any:
    """``script``'s answers, the extraction ones after ``latency`` seconds."""
    extraction = load_prompt("extraction").text

    def handler(body: dict[str, Any]) -> FakeReply:
        reply = script(body)
        slow = system_text(body) == extraction
        return dataclasses.replace(reply, delay_s=latency) if slow else reply

    return handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=8, help="input chunks = extraction calls")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per extraction call")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--batch-tokens", type=int, default=DEFAULT_MAX_TOKENS_PER_BATCH, help="batch limit"
    )
    add_options(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.latency, args.repeats, args.batch_tokens = 0.05, 1, 500
    k, latency, limit = args.batches, args.latency, args.batch_tokens
    inputs, script = document(k, limit)
    planned = len(plan_batches(inputs, limit))
    figures: dict[str, float | int] = {"extraction calls": planned}
    with FakeMessagesServer(handler=with_latency(script, latency)) as server:
        client = make_client(api_key="bench-key", base_url=server.base_url, max_retries=0)
        with client:
            chunk_text_agentic(inputs[:1], "WARM", client=client, max_tokens_per_batch=limit)
            print(
                f"{k} input chunks of about {len(inputs[0].text):,} characters (batch limit "
                f"{limit} tokens) -> {planned} extraction calls; {latency:.3f} s latency per "
                f"extraction call, median of {args.repeats} runs"
            )
            print(
                f"{'calls in flight':>15} {'wall s':>8} {'floor s':>8} "
                f"{'wall/floor':>10} {'speed-up':>9}"
            )
            baseline = None
            for concurrency in dict.fromkeys([1, DEFAULT_MAX_CONCURRENCY, MOST_IN_FLIGHT]):
                times = []
                for _ in range(args.repeats):
                    before = script.calls.get("extraction", 0)
                    started = time.perf_counter()
                    response = chunk_text_agentic(
                        inputs,
                        "BENCH",
                        client=client,
                        max_concurrency=concurrency,
                        max_tokens_per_batch=limit,
                    )
                    times.append(time.perf_counter() - started)
                    if not response.is_success:
                        raise SystemExit(f"the run failed: {response.error_detail}")
                    made = script.calls.get("extraction", 0) - before
                    if made != planned:
                        raise SystemExit(f"{made} extraction calls made, {planned} planned")
                wall = statistics.median(times)
                baseline = baseline or wall
                floor = math.ceil(planned / concurrency) * latency
                print(
                    f"{concurrency:>15} {wall:>8.3f} {floor:>8.3f} "
                    f"{wall / floor:>10.2f} {baseline / wall:>8.2f}x"
                )
                figures |= {
                    f"{concurrency} in flight: wall s": round(wall, 3),
                    f"{concurrency} in flight: wall / latency floor": round(wall / floor, 2),
                }
                if concurrency > 1:
                    figures[f"{concurrency} in flight: speed-up over 1"] = round(baseline / wall, 2)
    keep(__file__, args, figures, latency_s=latency, repeats=args.repeats, batch_tokens=limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
