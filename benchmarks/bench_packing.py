"""Packed extraction: calls and input tokens against the floor, before and after packing.

For each corpus and batch limit, prints the input chunks, the input tokens of their text
(characters / 4, the seed's estimate), the floor ``ceil(input tokens / limit) + one per
input chunk larger than the limit``, and for the planner before packing (one batch per
pre-chunked piece of each input chunk, as ``plan_batches`` did) and after (this code):
extraction calls, their ratio to the floor, and the input tokens of those calls with the
extraction system prompt included (what is billed). Both plans are computed in this run
from the same inputs; the packed plan is ``plan_batches``, which ``--dry-run`` and the run
share.

Corpora:
  cases     the inputs of the 32 YAML cases, each case planned on its own (totals summed);
  long      a generated document (``_generated.py``: generated, not real text) shaped like
            the issue's licence notices: about 338 KB, about 1,250 paragraphs, a fifth of
            them headings under 40 characters; each paragraph one input chunk, as ``chunk``
            reads a .txt file.
Then the long document is run through ``chunk_text_agentic`` against the loopback fake
server (``ScriptedPipeline``), which counts the extraction calls it receives: they equal
the plan's.

    .venv/bin/python benchmarks/bench_packing.py [--limits 2000 8000] [--no-run] [--quick]

``--quick``: a long document of QUICK_SIZE characters and the first QUICK_CASES cases.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _generated import themed_propositions
from _results import add_options, keep

from agentic_chunking import AgenticChunkInput, chunk_text_agentic, plan_batches
from agentic_chunking._loopback import FakeMessagesServer, ScriptedPipeline
from agentic_chunking._models import estimate_tokens
from agentic_chunking.client import make_client
from agentic_chunking.pipeline._prechunk import pre_chunk_for_extraction
from agentic_chunking.pipeline._prompts import extraction_user_message, load_prompt
from agentic_chunking.suite._cases import load_cases

ROOT = Path(__file__).resolve().parent.parent
LONG_SIZE, QUICK_SIZE, QUICK_CASES = 338_000, 20_000, 4


def long_document(
    seed: int = 3, size: int = LONG_SIZE
) -> tuple[list[AgenticChunkInput], dict[str, list[str]]]:
    """Paragraph input chunks (``P0001`` ...) and, for the fake server, each paragraph's
    propositions (its generated sentences; a heading has none)."""
    rng = random.Random(seed)
    facts = iter(themed_propositions(6000, seed=seed))
    inputs: list[AgenticChunkInput] = []
    extraction: dict[str, list[str]] = {}
    length = 0
    while length < size:
        if rng.random() < 0.2:
            text = f"Section {len(inputs) + 1}: notices"  # a heading under 40 characters
            props: list[str] = []
        else:
            props = [next(facts)[0] for _ in range(rng.randint(1, 7))]
            text = " ".join(props)
        inputs.append(AgenticChunkInput(f"P{len(inputs) + 1:04d}", text))
        extraction[text] = props
        length += len(text) + 2
    return inputs, extraction


def billed_tokens(texts: Sequence[str]) -> int:
    """Input tokens of extraction calls for ``texts``: system prompt plus user message."""
    system = len(load_prompt("extraction").text)
    return sum(system + len(extraction_user_message(t)) for t in texts) // 4


def figures(corpora: Sequence[list[AgenticChunkInput]], limit: int) -> dict[str, int]:
    out = {"chunks": 0, "tokens": 0, "floor": 0, "before": 0, "after": 0}
    out |= {"before_in": 0, "after_in": 0}
    for inputs in corpora:
        tokens = sum(estimate_tokens(c.text) for c in inputs)
        larger = sum(estimate_tokens(c.text) > limit for c in inputs)
        unpacked = [p for c in inputs for p in pre_chunk_for_extraction(c.text, limit)]
        packed = [b.text for b in plan_batches(inputs, limit)]
        out["chunks"] += len(inputs)
        out["tokens"] += tokens
        out["floor"] += math.ceil(tokens / limit) + larger
        out["before"] += len(unpacked)
        out["after"] += len(packed)
        out["before_in"] += billed_tokens(unpacked)
        out["after_in"] += billed_tokens(packed)
    return out


def row(name: str, limit: int, f: dict[str, int]) -> str:
    return (
        f"{name:<6} {limit:>6} {f['chunks']:>7} {f['tokens']:>9,} {f['floor']:>6} "
        f"{f['before']:>7} {f['before'] / f['floor']:>6.2f} {f['before_in']:>10,} "
        f"{f['after']:>6} {f['after'] / f['floor']:>6.3f} {f['after_in']:>10,} "
        f"{f['before_in'] / f['after_in']:>6.1f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limits", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--no-run", action="store_true", help="skip the loopback run")
    add_options(parser)
    args = parser.parse_args()
    loaded = load_cases(ROOT / "cases")[: QUICK_CASES if args.quick else None]
    cases = [c.agentic_inputs() for c in loaded]
    case_limits = {c.id: c.max_tokens_per_batch for c in loaded}
    long_inputs, extraction = long_document(size=QUICK_SIZE if args.quick else LONG_SIZE)
    kept: dict[str, float | str] = {}
    print(
        f"{'corpus':<6} {'limit':>6} {'chunks':>7} {'tokens':>9} {'floor':>6} "
        f"{'before':>7} {'/floor':>6} {'before in':>10} {'after':>6} {'/floor':>6} "
        f"{'after in':>10} {'saved':>7}"
    )
    # the cases at their own batch limits (TC-027 lowers it to 100), then at each limit
    own = [figures([c.agentic_inputs()], case_limits[c.id]) for c in loaded]
    total = {k: sum(f[k] for f in own) for k in own[0]}
    print(row("cases", 0, total) + "   (limit 0: each case's own)")
    runs = [("cases", 0, total)]
    for limit in args.limits:
        runs.append(("cases", limit, figures(cases, limit)))
        print(row(*runs[-1]))
    for limit in args.limits:
        runs.append(("long", limit, figures([long_inputs], limit)))
        print(row(*runs[-1]))
    for name, limit, f in runs:
        where = f"{name} at {limit or 'their own limits'}"
        kept |= {
            f"{where}: calls before / floor": round(f["before"] / f["floor"], 2),
            f"{where}: calls after / floor": round(f["after"] / f["floor"], 3),
            f"{where}: input tokens saved": f"{f['before_in'] / f['after_in']:.1f}x",
        }
    if args.no_run:
        keep(__file__, args, kept)
        return
    script = ScriptedPipeline(extraction, lambda text: "Notices")
    with (
        FakeMessagesServer(handler=script) as server,
        make_client(api_key="bench", base_url=server.base_url, max_retries=0) as client,
    ):
        response = chunk_text_agentic(long_inputs, "LONG", client=client, model="reference")
    planned = len(plan_batches(long_inputs))
    extraction_calls = [c for c in response.calls if c.stage == "extraction"]
    print(
        f"\nlong document through the pipeline (limit 2000, loopback fake server): "
        f"{'success' if response.is_success else response.error_detail}; extraction calls "
        f"received {script.calls.get('extraction', 0)}, planned {planned}; "
        f"{len(extraction_calls)} CallUsage records, "
        f"{sum(c.input_tokens for c in extraction_calls):,} input tokens (fake server's count)"
    )
    kept |= {
        "long document run: success": response.is_success,
        "long document run: extraction calls received": script.calls.get("extraction", 0),
        "long document run: extraction calls planned": planned,
    }
    keep(__file__, args, kept)


if __name__ == "__main__":
    main()
