"""A long generated document through the whole pipeline: grouping windows vs one call.

Generates N propositions (``benchmarks/_generated.py``: generated, not real text) in
themes, as input chunks of 25, and runs ``chunk_text_agentic`` against the loopback
FakeMessagesServer answering from the data (``testing.ScriptedPipeline``) with a fixed
LATENCY per call, cutting every reply at the request's ``max_tokens`` as the API does.
Token counts are the fake server's estimate (characters / 4), not a tokenizer's.

Three runs of the same document, default settings (grouping max_tokens 4000):
  windows    grouping-v2 in windows plus a merge call (this code);
  one call   grouping-v2 forced into a single call (plan_windows patched to one window);
  v1 copy    a single call answered in grouping-v1's shape (facts copied back), as before.
For each: success or the error, calls per stage, input and output tokens, wall time
against its latency floor (ceil(batches / c) + ceil(windows / c) + 1 merge) x LATENCY,
and, in a separate traced run of the windows path, peak Python memory (tracemalloc,
pipeline and fake server together).

    .venv/bin/python benchmarks/bench_long_document.py [--propositions 5000] [--latency 0.05]
    [--quick] (``--quick``: 300 propositions, 0.01 s latency)
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).parent))

from _generated import themed_propositions
from _results import add_options, keep

from agentic_chunking import AgenticChunkInput, AgenticResponse, chunk_text_agentic, plan_batches
from agentic_chunking._loopback import FakeMessagesServer, ScriptedPipeline
from agentic_chunking.client import make_client
from agentic_chunking.pipeline import _grouping
from agentic_chunking.pipeline._run import DEFAULT_GROUPING_MAX_TOKENS

PER_CHUNK = 25
CONCURRENCY = 4


def document(n: int) -> tuple[list[AgenticChunkInput], dict[str, list[str]], dict[str, str]]:
    pairs = themed_propositions(n, seed=7)
    theme = dict(pairs)
    inputs, extraction = [], {}
    for start in range(0, n, PER_CHUNK):
        props = [text for text, _ in pairs[start : start + PER_CHUNK]]
        text = " ".join(props)
        extraction[text] = props
        inputs.append(AgenticChunkInput(f"C{start // PER_CHUNK:04d}", text))
    return inputs, extraction, theme


def run(n: int, latency: float, mode: str) -> tuple[AgenticResponse, float, Counter[str]]:
    inputs, extraction, theme = document(n)
    script = ScriptedPipeline(
        extraction, theme.__getitem__, delay_s=latency, copy_facts=(mode == "v1 copy")
    )
    one_window = mock.patch.object(
        _grouping, "plan_windows", lambda texts, max_tokens: [range(len(texts))]
    )
    with FakeMessagesServer(handler=script, enforce_max_tokens=True) as server:
        client = make_client(api_key="bench", base_url=server.base_url, max_retries=0)
        with client:
            if mode != "windows":
                one_window.start()
            try:
                started = time.perf_counter()
                response = chunk_text_agentic(
                    inputs, "LONG", client=client, max_concurrency=CONCURRENCY
                )
                wall = time.perf_counter() - started
            finally:
                if mode != "windows":
                    one_window.stop()
    return response, wall, Counter(call.stage for call in response.calls)


def floor(n: int, latency: float, windows: int) -> float:
    batches = len(plan_batches(document(n)[0]))  # the run's own plan (small chunks packed)
    steps = math.ceil(batches / CONCURRENCY) + math.ceil(windows / CONCURRENCY)
    return (steps + (1 if windows > 1 else 0)) * latency


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--propositions", type=int, default=5000)
    parser.add_argument("--latency", type=float, default=0.05)
    add_options(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.propositions, args.latency = 300, 0.01
    figures: dict[str, float | str | bool] = {}
    n, latency = args.propositions, args.latency
    inputs, _, theme = document(n)
    texts = [p for p in theme]
    windows = len(_grouping.plan_windows(texts, DEFAULT_GROUPING_MAX_TOKENS))
    print(
        f"{n} generated propositions in {len(set(theme.values()))} themes, {len(inputs)} input "
        f"chunks; fixed latency {latency:.3f} s per call, {CONCURRENCY} calls in flight; "
        f"grouping max_tokens {DEFAULT_GROUPING_MAX_TOKENS} -> {windows} windows planned"
    )
    print("tokens are the fake server's estimate (characters / 4)")
    for mode in ("windows", "one call", "v1 copy"):
        response, wall, stages = run(n, latency, mode)
        verdict = (
            f"ok, {response.total_chunks} chunks, {response.total_propositions} propositions"
            if response.is_success
            else "FAILED: " + response.error_detail[:110]
        )
        grouping_out = sum(c.output_tokens for c in response.calls if c.stage != "extraction")
        planned = windows if mode == "windows" else 1
        print(f"\n[{mode}] {verdict}")
        print(f"  calls {dict(stages)}")
        print(
            f"  tokens in {response.input_tokens:,} / out {response.output_tokens:,} "
            f"(grouping and merge out {grouping_out:,})"
        )
        print(
            f"  wall {wall:.2f} s vs latency floor {floor(n, latency, planned):.2f} s "
            f"(x{wall / floor(n, latency, planned):.2f})"
        )
        figures |= {
            f"{mode}: success": response.is_success,
            f"{mode}: calls": sum(stages.values()),
            f"{mode}: input tokens": response.input_tokens,
            f"{mode}: output tokens": response.output_tokens,
            f"{mode}: wall / latency floor": round(wall / floor(n, latency, planned), 2),
        }
    tracemalloc.start()
    response, _wall, _stages = run(n, latency, "windows")
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"\npeak traced memory, windows path: {peak / 2**20:.1f} MiB "
        f"({peak / n / 1024:.1f} KiB per proposition; success {response.is_success})"
    )
    figures["peak traced memory MiB, windows path"] = round(peak / 2**20, 1)
    keep(__file__, args, figures, propositions=n, latency_s=latency)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
