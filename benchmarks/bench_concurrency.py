"""Concurrent extraction vs sequential, against a loopback Messages API with fixed latency.

Runs ``chunk_text_agentic`` on K one-batch input chunks against FakeMessagesServer, whose
extraction replies each take LATENCY seconds (the grouping reply is instant), first with
``max_concurrency=1`` (the baseline, measured in the same run), then with the default and
with K. Prints wall times (median of REPEATS), the speed-up over sequential, and each
time's ratio to its latency floor: K x LATENCY sequential, ceil(K / c) x LATENCY with
c calls in flight. Finishes in about 10 s; no network.

    /work/venv/bin/python benchmarks/bench_concurrency.py [--batches 8] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from typing import Any

from agentic_chunking import AgenticChunkInput, chunk_text_agentic
from agentic_chunking.client import make_client
from agentic_chunking.pipeline._prompts import load_prompt
from agentic_chunking.pipeline._run import DEFAULT_MAX_CONCURRENCY
from agentic_chunking.testing import FakeMessagesServer, FakeReply, user_text


def handler_for(latency: float) -> Any:
    grouping = load_prompt("grouping").text

    def handler(body: dict[str, Any]) -> FakeReply:
        text = user_text(body)
        if body["system"] == grouping:
            facts = [line.split(". ", 1)[1] for line in text.splitlines()[1:-1]]
            return FakeReply(text=json.dumps([{"category": "Facts", "facts": facts}]))
        fact = text.removeprefix("<text>\n").removesuffix("\n</text>")
        return FakeReply(text=json.dumps([fact]), delay_s=latency)

    return handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    k, latency = args.batches, args.latency
    inputs = [AgenticChunkInput(f"C{n:02d}", f"Fact number {n} is true.") for n in range(k)]
    with FakeMessagesServer(handler=handler_for(latency)) as server:
        client = make_client(api_key="bench-key", base_url=server.base_url, max_retries=0)
        with client:
            chunk_text_agentic(inputs[:1], "WARM", client=client)  # connection + imports
            print(
                f"{k} batches, {latency:.3f} s latency per extraction call, "
                f"median of {args.repeats} runs"
            )
            print(
                f"{'max_concurrency':>15} {'wall s':>8} {'floor s':>8} "
                f"{'wall/floor':>10} {'speed-up':>9}"
            )
            baseline = None
            for concurrency in dict.fromkeys([1, DEFAULT_MAX_CONCURRENCY, k]):
                times = []
                for _ in range(args.repeats):
                    started = time.perf_counter()
                    response = chunk_text_agentic(
                        inputs, "BENCH", client=client, max_concurrency=concurrency
                    )
                    times.append(time.perf_counter() - started)
                    assert response.is_success, response.error_detail
                wall = statistics.median(times)
                baseline = baseline or wall
                floor = math.ceil(k / concurrency) * latency
                print(
                    f"{concurrency:>15} {wall:>8.3f} {floor:>8.3f} "
                    f"{wall / floor:>10.2f} {baseline / wall:>8.2f}x"
                )


if __name__ == "__main__":
    main()
