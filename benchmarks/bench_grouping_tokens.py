"""Grouping output tokens per proposition: grouping-v1 (facts copied) vs grouping-v2 (numbers).

Runs each of the 32 cases through the real pipeline against the reference replies
(served on a loopback FakeMessagesServer, as ``rebuild-reference`` does), then writes
the same grouping in both reply shapes: v1, ``{"category", "facts": [the texts]}`` as the
grouping-v1 prompt asked, and v2, ``{"category", "fact_ids": [numbers]}`` as grouping-v2
asks (the v2 text is the one the server actually sent). Output tokens are the fake
server's estimate, characters / 4 (a real tokenizer differs, in both shapes alike).
Prints per case and in total: propositions, v1 and v2 tokens, and the ratio v1 / v2.

    .venv/bin/python benchmarks/bench_grouping_tokens.py [--quick]

``--quick``: the first QUICK_CASES cases.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, keep

from agentic_chunking import AgenticResponse
from agentic_chunking._loopback import FakeMessagesServer
from agentic_chunking.client import make_client
from agentic_chunking.suite._cases import load_cases
from agentic_chunking.suite._replies import REFERENCE_MODEL, ReferenceServer, load_replies
from agentic_chunking.suite._runner import run_pipeline

ROOT = Path(__file__).resolve().parent.parent
QUICK_CASES = 4


def shapes(response: AgenticResponse) -> tuple[str, str]:
    """The grouping of ``response`` as a v1 reply and as a v2 reply."""
    v1, v2, number = [], [], 0
    listed = {p: i for i, p in enumerate((p for c in response.chunks for p in c.propositions), 1)}
    for chunk in response.chunks:
        v1.append({"category": chunk.thematic_category, "facts": list(chunk.propositions)})
        v2.append(
            {
                "category": chunk.thematic_category,
                "fact_ids": [listed[p] for p in chunk.propositions],
            }
        )
        number += len(chunk.propositions)
    return json.dumps(v1, ensure_ascii=False), json.dumps(v2, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(parser)
    args = parser.parse_args(argv)
    reference = ReferenceServer()
    totals = [0, 0, 0]
    print(f"{'case':8} {'props':>5} {'v1 out':>7} {'v2 out':>7} {'v1/v2':>6}  (tokens = chars / 4)")
    with FakeMessagesServer(handler=reference) as server:
        client = make_client(api_key="bench", base_url=server.base_url, max_retries=0)
        with client:
            for case in load_cases(ROOT / "cases")[: QUICK_CASES if args.quick else None]:
                reference.use(case, load_replies(case, ROOT / "cases/reference_replies"))
                response = run_pipeline(case, client=client, model=REFERENCE_MODEL)
                if not response.is_success:
                    print(f"{case.id:8} (fails as the case expects: no grouping)")
                    continue
                served = [c for c in response.calls if c.stage == "grouping"][-1].output_tokens
                v1_text, _v2_text = shapes(response)
                v1, v2 = len(v1_text) // 4, served
                props = response.total_propositions
                totals = [totals[0] + props, totals[1] + v1, totals[2] + v2]
                print(f"{case.id:8} {props:5} {v1:7} {v2:7} {v1 / v2:6.1f}")
    props, v1, v2 = totals
    print(
        f"\ntotal    {props:5} {v1:7} {v2:7} {v1 / v2:6.1f}\n"
        f"per proposition: v1 {v1 / props:.1f} tokens, v2 {v2 / props:.1f} tokens "
        f"({v1 / v2:.1f}x fewer with v2)"
    )
    figures = {
        "propositions": props,
        "v1 grouping output tokens per proposition": round(v1 / props, 1),
        "v2 grouping output tokens per proposition": round(v2 / props, 1),
        "v1 / v2": round(v1 / v2, 1),
    }
    keep(__file__, args, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
