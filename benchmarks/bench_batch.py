"""The batch client against the synchronous calls, on generated documents, loopback only.

Chunks D generated documents (P paragraphs of three facts each) twice per provider:
first call by call through the synchronous fake (the baseline, measured in the same run),
then all documents at once through ``BatchClient`` against the batch fake
(``FakeMessageBatchesServer``, ``FakeBatchAPIServer``), both answered by the same
``ScriptedPipeline``. Prints per provider: whether the chunks are identical, the batch
run's cost as a ratio of the baseline's (at one listed price), the rounds (batches) it
took against the requests it answered, and how many requests were submitted more than
once (``retried``: must be 0 when nothing fails). A second pass lets a quarter of the
requests expire in their first batch: the same figures, those requests retried once.
No network; ``--quick`` is the same code on 12 documents.

    python benchmarks/bench_batch.py [--quick] [--documents 120] [--paragraphs 6]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from _generated import themed_propositions

from agentic_chunking import AgenticChunkInput, chunk_text_agentic
from agentic_chunking._models import AgenticResponse
from agentic_chunking.client import ANTHROPIC, OPENAI, BatchClient, ModelClient, calls_cost_usd
from agentic_chunking.testing import FakeBatchAPIServer, FakeMessageBatchesServer, ScriptedPipeline

PRICED = "claude-sonnet-4-6"
"""The listed price both runs are costed at (the fakes' model is ``reference``)."""


def corpus(documents: int, paragraphs: int) -> tuple[list[list[AgenticChunkInput]], Any]:
    facts = themed_propositions(documents * paragraphs * 3, seed=7, topics=12)
    theme = dict(facts)
    extraction: dict[str, list[str]] = {}
    inputs: list[list[AgenticChunkInput]] = []
    for d in range(documents):
        doc = []
        for p in range(paragraphs):
            start = (d * paragraphs + p) * 3
            sentences = [text for text, _ in facts[start : start + 3]]
            paragraph = " ".join(sentences)
            extraction[paragraph] = sentences
            doc.append(AgenticChunkInput(f"D{d}-P{p}", paragraph))
        inputs.append(doc)
    return inputs, ScriptedPipeline(extraction, theme.__getitem__)


def run(
    documents: Sequence[Sequence[AgenticChunkInput]], client: Any, model: str, threads: int
) -> list[AgenticResponse]:
    def one(numbered: tuple[int, Sequence[AgenticChunkInput]]) -> AgenticResponse:
        number, inputs = numbered
        return chunk_text_agentic(
            inputs,
            f"DOC{number}",
            client=client,
            model=model,
            max_tokens_per_batch=60,
            max_concurrency=64,
        )

    with ThreadPoolExecutor(threads) as pool:
        responses = list(pool.map(one, enumerate(documents)))
    for response in responses:
        assert response.is_success, response.error_detail
    return responses


def measure(provider: str, documents: int, paragraphs: int, expire_share: float) -> None:
    inputs, script = corpus(documents, paragraphs)
    kind = FakeBatchAPIServer if provider == OPENAI else FakeMessageBatchesServer
    model = "openai:reference" if provider == OPENAI else "reference"

    def fault(custom_id: str, submission: int) -> str | None:
        expire = submission == 1 and int(custom_id, 16) % 100 < expire_share * 100
        return "expired" if expire else None

    with kind(handler=script, fault=fault, polls_to_end=2) as server:
        keys, urls = {provider: "bench-key"}, {provider: server.base_url}
        with ModelClient(api_keys=keys, base_urls=urls, max_retries=0) as client:
            baseline = run(inputs, client, model, threads=16)
        options = {"poll_interval_s": 0.05, "quiet_s": 0.2, "max_retries": 0}
        with BatchClient(api_keys=keys, base_urls=urls, **options) as client:  # type: ignore[arg-type]
            batched = run(inputs, client, model, threads=len(inputs))
        submissions = server.book.submissions
        rounds = len(server.book.batches)
    same = [r.chunks for r in batched] == [r.chunks for r in baseline]
    cost = calls_cost_usd(PRICED, [c for r in batched for c in r.calls])
    listed = calls_cost_usd(PRICED, [c for r in baseline for c in r.calls])
    assert cost is not None and listed
    requests = sum(len(r.calls) for r in batched)
    twice = sum(n > 1 for n in submissions.values())
    print(
        f"{provider:>9} {expire_share:>7.0%} {'yes' if same else 'NO':>5} "
        f"{cost / listed:>10.3f} {rounds:>7} {requests:>9} {twice:>8}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="12 documents: a few seconds")
    parser.add_argument("--documents", type=int, default=120)
    parser.add_argument("--paragraphs", type=int, default=6)
    args = parser.parse_args()
    documents = 12 if args.quick else args.documents
    print(
        f"{documents} documents of {args.paragraphs} paragraphs; cost at {PRICED}'s "
        "listed price; 'retried' requests were sent in a second batch (expired in the first)"
    )
    print(
        f"{'provider':>9} {'expired':>7} {'same':>5} {'cost ratio':>10} {'batches':>7} "
        f"{'requests':>9} {'retried':>8}"
    )
    for provider in (ANTHROPIC, OPENAI):
        for share in (0.0, 0.25):
            measure(provider, documents, args.paragraphs, share)


if __name__ == "__main__":
    main()
