"""What the judge costs: judge tokens per proposition on the 32 cases, and the ratio to the
pipeline's own tokens, measured in the same run.

Run: python benchmarks/bench_judge_cost.py [--price-model M] [--quick]
(``--quick``: the first QUICK_CASES cases)

Besides tokens, it prints judge cost / pipeline cost at the price table's rates
(``agentic_chunking/client/_prices.py``; output tokens cost more than input), for the pipeline's
default model unless ``--price-model`` names another listed model. Both sides at the same
model's rates: the ratio is what judging adds to a run. Issue #22's goal is a ratio of at
most ``GOAL`` (0.3); the last line says whether this run meets it, and how much of the
judge's input is its system prompt (the same text in every judge call).

The cases run on the hand-written reference replies (pipeline and judge), served by a
loopback FakeMessagesServer: the token counts are THE FAKE SERVER'S ESTIMATE (request
characters / 4 in, reply characters / 4 out), not a provider's bill. A real model's
counts come from recording (pytest --record --judge-model M), which puts them in
reports/results-<model>.json as ``judge_usage``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, keep

from agentic_chunking._loopback import FakeMessagesServer
from agentic_chunking.client import (
    DEFAULT_MODEL,
    PRICES_PER_MILLION,
    estimate_cost_usd,
    make_client,
)
from agentic_chunking.pipeline._prompts import PROMPT_VERSIONS, load_prompt
from agentic_chunking.suite import REFERENCE_MODEL, ReferenceServer, load_cases, load_replies
from agentic_chunking.suite._runner import run_case

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"
QUICK_CASES = 4
GOAL = 0.3
"""Judge cost / pipeline cost at list rates that issue #22 asks for."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--price-model", default=DEFAULT_MODEL, choices=sorted(PRICES_PER_MILLION))
    add_options(parser)
    args = parser.parse_args()
    price_model = args.price_model
    reference = ReferenceServer()
    rows = []
    with FakeMessagesServer(handler=reference) as server:
        client = make_client(api_key="bench-no-key", base_url=server.base_url, max_retries=0)
        with client:
            for case in load_cases(CASES_DIR)[: QUICK_CASES if args.quick else None]:
                reference.use(case, load_replies(case, CASES_DIR / "reference_replies"))
                result = run_case(
                    case, client=client, model=REFERENCE_MODEL, judge_model=REFERENCE_MODEL
                )
                rows.append((case.id, result.counts["propositions"] or 0, result))
    print(
        f"{'case':<7} {'props':>5} {'calls':>5} {'judge in':>8} {'out':>6} "
        f"{'in/prop':>7} {'out/prop':>8} {'pipeline':>8} {'ratio':>6}"
    )
    for case_id, props, r in rows:
        j, p = r.judge_usage, r.usage
        if not j.calls:
            print(
                f"{case_id:<7} {props:>5} {'-':>5}  not judged (no output or an expected failure)"
            )
            continue
        pipeline = p.input_tokens + p.output_tokens
        judge = j.input_tokens + j.output_tokens
        print(
            f"{case_id:<7} {props:>5} {j.calls:>5} {j.input_tokens:>8} {j.output_tokens:>6} "
            f"{j.input_tokens / props:>7.1f} {j.output_tokens / props:>8.1f} {pipeline:>8} "
            f"{judge / pipeline:>6.2f}"
        )
    judged = [(props, r) for _, props, r in rows if r.judge_usage.calls]
    props = sum(p for p, _ in judged)
    j_in = sum(r.judge_usage.input_tokens for _, r in judged)
    j_out = sum(r.judge_usage.output_tokens for _, r in judged)
    p_all = sum(r.usage.input_tokens + r.usage.output_tokens for _, r in judged)
    calls = sum(r.judge_usage.calls for _, r in judged)
    print(
        f"total: {len(judged)} cases judged in {calls} calls, {props} propositions; judge "
        f"{j_in} in / {j_out} out = {j_in / props:.1f} in and {j_out / props:.1f} out per "
        f"proposition; judge / pipeline tokens = {(j_in + j_out) / p_all:.2f} "
        "(fake server's estimate, reference replies)"
    )
    p_in = sum(r.usage.input_tokens for _, r in judged)
    p_out = sum(r.usage.output_tokens for _, r in judged)
    judge_cost = estimate_cost_usd(price_model, j_in, j_out)
    pipeline_cost = estimate_cost_usd(price_model, p_in, p_out)
    input_only = estimate_cost_usd(price_model, j_in, 0)
    assert judge_cost is not None and pipeline_cost is not None and input_only is not None
    rates = PRICES_PER_MILLION[price_model]
    ratio = judge_cost / pipeline_cost
    print(
        f"at {price_model}'s rates (${rates[0]:g} in / ${rates[1]:g} out per million): judge "
        f"${judge_cost:.4f} / pipeline ${pipeline_cost:.4f} = {ratio:.3f} "
        f"(judge input alone: {input_only / pipeline_cost:.3f})"
    )
    system = len(json.dumps(load_prompt("judge").text)) // 4  # the fake server's estimate
    print(
        f"goal judge / pipeline cost <= {GOAL}: {'met' if ratio <= GOAL else 'NOT met'} "
        f"({PROMPT_VERSIONS['judge']}; its system prompt is about {system} of each call's "
        f"{j_in / calls:.0f} input tokens)"
    )
    figures = {
        "cases judged": len(judged),
        "judge calls": calls,
        "judge input tokens per proposition": round(j_in / props, 1),
        "judge output tokens per proposition": round(j_out / props, 1),
        "judge / pipeline tokens": round((j_in + j_out) / p_all, 2),
        f"judge / pipeline cost at {price_model}'s rates": round(ratio, 3),
        f"goal judge / pipeline cost <= {GOAL} met": ratio <= GOAL,
    }
    keep(__file__, args, figures, price_model=price_model)


if __name__ == "__main__":
    main()
