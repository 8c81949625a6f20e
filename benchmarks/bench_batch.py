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

Then memory and rounds through the ``corpus`` command: DOCS real documents (the sections
of Chroma's wikitexts and PubMed corpora shipped in ``evaluate/data``, cycled, each copy
made distinct) chunked in a child process, synchronously against a loopback Messages
server, then with ``--batch`` against a loopback Message Batches server, both in this
run: each run's peak RSS (the child's ``ru_maxrss``), their ratio (goal: at most 1.5),
and the batches the batch server received, each with its requests (one a round).
No network; ``--quick`` is the same code on 12 and 60 documents.

    python benchmarks/bench_batch.py [--quick] [--documents 120] [--paragraphs 6]
        [--corpus-documents 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from _generated import themed_propositions
from _results import add_options, keep

from agentic_chunking import AgenticChunkInput, chunk_text_agentic
from agentic_chunking._loopback import (
    FakeBatchAPIServer,
    FakeMessageBatchesServer,
    FakeMessagesServer,
    ParagraphModel,
    ScriptedPipeline,
)
from agentic_chunking._models import AgenticResponse
from agentic_chunking.client import ANTHROPIC, OPENAI, BatchClient, ModelClient, calls_cost_usd

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


def measure(
    provider: str, documents: int, paragraphs: int, expire_share: float
) -> dict[str, float | int | bool]:
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
    where = f"{provider}, {expire_share:.0%} expired"
    return {
        f"{where}: same chunks": same,
        f"{where}: cost ratio": round(cost / listed, 3),
        f"{where}: batches": rounds,
        f"{where}: requests": requests,
        f"{where}: retried": twice,
    }


DATA = Path(__file__).resolve().parent.parent / "agentic_chunking" / "evaluate" / "data"


def write_real_corpus(path: Path, documents: int) -> None:
    """``documents`` records of real text as JSONL: the sections of Chroma's wikitexts
    and PubMed corpora (split where ``sections.json`` says), cycled; a copy after the
    first ends with a line naming it, so no two documents are the same."""
    patterns = json.loads((DATA / "sections.json").read_text(encoding="utf-8"))
    sections: list[str] = []
    for name, pattern in patterns.items():
        text = (DATA / f"{name}.md").read_text(encoding="utf-8")
        parts = re.split(f"(?m)(?={pattern.removeprefix('^')})", text)
        sections += [part.strip() for part in parts if part.strip()]
    with path.open("w", encoding="utf-8") as stream:
        for n in range(documents):
            text = sections[n % len(sections)]
            if n >= len(sections):
                text += f"\n\nThis is copy {n // len(sections)} of the section."
            stream.write(json.dumps({"document_id": f"doc-{n:05d}", "text": text}) + "\n")


def corpus_run(corpus: Path, out: Path, base_url: str, *extra: str) -> int:
    """Run ``corpus`` in a child process against ``base_url``; its peak RSS in KiB."""
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-bench-batch", "ANTHROPIC_BASE_URL": base_url}
    env.pop("AGENTIC_CHUNKING_MODEL", None)
    command = [sys.executable, "-m", "agentic_chunking", "corpus", str(corpus), "-o", str(out)]
    child = subprocess.Popen([*command, "--quiet", *extra], env=env, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    assert child.stderr is not None
    said = child.stderr.read().decode("utf-8", "replace")
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # 1: some document failed
        raise SystemExit(f"the corpus run failed: {said[-2000:]}")
    return int(usage.ru_maxrss)


def measure_corpus(documents: int) -> dict[str, float | int | bool]:
    """Peak RSS of ``corpus`` synchronous and ``--batch`` on the same documents, and the
    batches the batch server received."""
    with tempfile.TemporaryDirectory() as work:
        corpus = Path(work) / "corpus.jsonl"
        write_real_corpus(corpus, documents)
        with FakeMessagesServer(handler=ParagraphModel()) as server:
            sync = corpus_run(corpus, Path(work) / "sync.jsonl", server.base_url)
        options = ("--batch", "--batch-poll", "0.5")
        with FakeMessageBatchesServer(
            handler=ParagraphModel(), polls_to_end=2, lifetime_s=7200
        ) as server:
            batch = corpus_run(corpus, Path(work) / "batch.jsonl", server.base_url, *options)
            sizes = [len(b.requests) for b in server.book.batches.values()]
        same = (Path(work) / "sync.jsonl").read_bytes() == (Path(work) / "batch.jsonl").read_bytes()
    ratio = batch / sync
    print(
        f"corpus of {documents} documents: peak RSS {sync / 1024:.0f} MB synchronous, "
        f"{batch / 1024:.0f} MB with --batch ({ratio:.2f}x); {len(sizes)} batches of "
        f"{', '.join(map(str, sizes))} requests; same output: {'yes' if same else 'NO'}"
    )
    return {
        f"corpus {documents} documents: synchronous peak RSS (MB)": round(sync / 1024),
        f"corpus {documents} documents: --batch peak RSS (MB)": round(batch / 1024),
        f"corpus {documents} documents: --batch over synchronous peak RSS": round(ratio, 2),
        f"corpus {documents} documents: batches": len(sizes),
        f"corpus {documents} documents: requests per batch": " ".join(map(str, sizes)),
        f"corpus {documents} documents: same output": same,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=120)
    parser.add_argument("--paragraphs", type=int, default=6)
    parser.add_argument("--corpus-documents", type=int, default=1000)
    add_options(parser)
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
    figures: dict[str, float | int | bool] = {}
    for provider in (ANTHROPIC, OPENAI):
        for share in (0.0, 0.25):
            figures |= measure(provider, documents, args.paragraphs, share)
    corpus_documents = 60 if args.quick else args.corpus_documents
    figures |= measure_corpus(corpus_documents)
    keep(
        __file__,
        args,
        figures,
        documents=documents,
        paragraphs=args.paragraphs,
        corpus_documents=corpus_documents,
    )


if __name__ == "__main__":
    main()
