"""A batch run of many documents at once: what it holds (one copy of the checks' lexicons,
however many documents' threads meet them together) and what it sends (one batch per
round and provider limit), against the loopback batch servers."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking._loopback import (
    FakeBatchAPIServer,
    FakeMessageBatchesServer,
    FakeReply,
    ParagraphModel,
    system_text,
)
from agentic_chunking.client import ANTHROPIC, OPENAI, BatchClient
from agentic_chunking.corpus import _run as corpus_run
from agentic_chunking.corpus import chunk_corpus, open_corpus
from agentic_chunking.pipeline import PipelineOptions


def test_threads_meeting_the_lexicon_together_load_it_once() -> None:
    """lemminflect loads its lexicons on first use without a lock: 32 threads stemming at
    once used to load up to 32 copies (a --batch run of 280 documents peaked at 4 GB). The
    checks read its data through ``_english``, each table loaded once under a lock.
    Counted in a fresh interpreter, where nothing has loaded them yet."""
    script = textwrap.dedent(
        """
        import threading
        from agentic_chunking.checks import _english
        from agentic_chunking.checks._language import all_inflections, stem

        loads = {"lemmas": 0, "inflections": 0}
        lemma_load, inflection_load = _english._load_lemmas, _english._load_inflections

        def counted(name, load):
            def wrapper(*args, **kwargs):
                loads[name] += 1
                return load(*args, **kwargs)
            return wrapper

        _english._load_lemmas = counted("lemmas", lemma_load)
        _english._load_inflections = counted("inflections", inflection_load)
        start = threading.Barrier(32)

        def work():
            start.wait()
            stem("studies")
            all_inflections("study", upos="VERB")

        threads = [threading.Thread(target=work) for _ in range(32)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(loads["lemmas"], loads["inflections"])
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stdout.split() == ["1", "1"], done.stderr


def _client(fake: Any, provider: str, **options: Any) -> BatchClient:
    settings = {"poll_interval_s": 0.02, "quiet_s": 0.02, "max_retries": 0, **options}
    return BatchClient(
        api_keys={provider: "test-key"}, base_urls={provider: fake.base_url}, **settings
    )


def _ask(client: BatchClient, model: str, text: str) -> str:
    reply = client.call(
        stage="grouping",
        batch=None,
        model=model,
        system="Answer.",
        messages=[{"role": "user", "content": text}],
        max_tokens=50,
    )
    return reply.text


def _replying(body: Any) -> FakeReply:
    return FakeReply(text=f"reply to {body['messages'][-1]['content']}")


def _fake(provider: str) -> tuple[Any, str]:
    kind = FakeBatchAPIServer if provider == OPENAI else FakeMessageBatchesServer
    model = "openai:reference" if provider == OPENAI else "reference"
    return kind(handler=_replying), model


def _two_asks_apart(client: BatchClient, model: str, *, participate: bool) -> list[str]:
    """Six workers ask once, then work 0 to 0.75 s (each a different time, far longer than
    the quiet time), then ask again: what each got."""

    def work(n: int) -> list[str]:
        with client.participant() if participate else contextlib.nullcontext():
            first = _ask(client, model, f"first {n}")
            time.sleep(0.15 * n)
            return [first, _ask(client, model, f"second {n}")]

    with ThreadPoolExecutor(6) as pool:
        return [reply for replies in pool.map(work, range(6)) for reply in replies]


@pytest.mark.parametrize("provider", [ANTHROPIC, OPENAI])
def test_a_round_waits_for_every_participant_still_working(provider: str) -> None:
    """With participants, the second requests go in one batch however far apart they
    come; without, the quiet time alone cuts them into several (the eight batches of one
    corpus round)."""
    server, model = _fake(provider)
    with server, _client(server, provider) as client:
        replies = _two_asks_apart(client, model, participate=True)
        sizes = [len(batch.requests) for batch in server.book.batches.values()]
    assert replies == [f"reply to {w} {n}" for n in range(6) for w in ("first", "second")]
    assert sizes == [6, 6]
    server, model = _fake(provider)
    with server, _client(server, provider) as client:
        _two_asks_apart(client, model, participate=False)
        assert len(server.book.batches) > 2  # what the participants prevent


def test_a_round_waits_no_longer_than_hold_s_for_a_participant_that_never_asks() -> None:
    server, model = _fake(ANTHROPIC)
    with server, _client(server, ANTHROPIC, hold_s=0.3) as client:
        idle = client.participant()  # working, and never asking
        started = time.monotonic()
        assert _ask(client, model, "alone") == "reply to alone"
        assert time.monotonic() - started >= 0.3  # held for the idle one, then sent
        idle.leave()
        with client.participant():  # alone now: its round goes after the quiet time
            assert _ask(client, model, "next") == "reply to next"
    assert [len(b.requests) for b in server.book.batches.values()] == [1, 1]


def test_a_corpus_round_is_one_batch_whatever_each_document_takes(tmp_path: Path) -> None:
    """Twenty-four documents of 1 to 12 paragraphs (extraction requests of several
    sizes, checks of several lengths between a document's reply and its next request),
    through ``chunk_corpus`` with a batch client without a quiet time: one batch of
    extraction requests, then one of grouping requests, every document done."""
    lines = []
    for n in range(24):
        paragraphs = [f"Topic{p % 3} {n}-{p} is a fact about part {p}." for p in range(1 + n % 12)]
        lines.append({"document_id": f"doc-{n}", "text": "\n\n".join(paragraphs)})
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with FakeMessageBatchesServer(handler=ParagraphModel()) as server:
        client = _client(server, ANTHROPIC, quiet_s=0.0)
        with client:
            results = list(
                chunk_corpus(
                    open_corpus(corpus).documents(),
                    PipelineOptions(
                        model="reference", max_tokens_per_batch=60, max_concurrency=100
                    ),
                    client=client,
                    max_documents=100,
                )
            )
        kinds = [
            {system_text(body).split("\n")[0][:40] for _id, body, _n in batch.requests}
            for batch in server.book.batches.values()
        ]
    assert [r.status for r in results] == ["done"] * 24
    assert len(kinds) == 2, kinds


def test_a_batch_corpus_clears_the_checks_caches_as_documents_wait_not_only_as_they_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every document in flight is worked on in the same rounds, so clearing the checks'
    caches only as results are yielded let them hold the work of all of them (1,000
    documents: hundreds of MB); they are cleared every FORGET_EVERY times a document comes
    to wait on a round, before any result is out."""
    cleared: list[int] = []
    yielded: list[str] = []
    monkeypatch.setattr(corpus_run, "FORGET_EVERY", 4)
    monkeypatch.setattr(corpus_run, "clear_caches", lambda: cleared.append(len(yielded)) or 0)
    corpus = tmp_path / "corpus.jsonl"
    lines = [{"document_id": f"d{n}", "text": f"Alpha {n}.\n\nBeta {n}."} for n in range(8)]
    corpus.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    server = FakeMessageBatchesServer(handler=ParagraphModel())
    with server, _client(server, ANTHROPIC) as client:
        for result in chunk_corpus(
            open_corpus(corpus).documents(),
            PipelineOptions(model="reference"),
            client=client,
            max_documents=100,
        ):
            yielded.append(result.document_id)
    assert len(yielded) == 8
    assert cleared.count(0) >= 3  # 8 documents waiting twice: 16 idle, a clear every 4
