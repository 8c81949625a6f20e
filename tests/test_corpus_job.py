"""The orchestration the commands call: a document's run as an outcome kind
(``pipeline.chunk_outcome``), a corpus run (``corpus.CorpusRun``: the batches an earlier
run left, the run's files) and its plan (``corpus.plan_corpus``), against a loopback
Messages server; nothing printed, every outcome a record."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic_chunking import AgenticChunkInput, ConfigurationError, ModelCallError
from agentic_chunking._loopback import FakeMessagesServer, ParagraphModel
from agentic_chunking.corpus import (
    CorpusJob,
    CorpusRun,
    DocumentResult,
    Ledger,
    open_corpus,
    plan_corpus,
    read_records,
)
from agentic_chunking.pipeline import PipelineOptions, ReplyCache, chunk_outcome

KEY = "sk-ant-job-test-key"
MODEL = "claude-sonnet-4-6"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesServer]:
    with FakeMessagesServer(handler=ParagraphModel(fail=lambda t: "poison" in t)) as running:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.base_url)
        monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
        yield running


INPUTS = [AgenticChunkInput("c1", "Alpha is a fact."), AgenticChunkInput("c2", "Beta holds.")]


def test_a_run_ends_done_failed_or_stopped_and_says_which_by_its_kind(
    server: FakeMessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = PipelineOptions(model=MODEL)
    done = chunk_outcome(INPUTS, "D", options)
    assert (done.kind, done.error) == ("done", None)
    assert done.response is not None and done.response.is_success
    # a proposition above the chunk limit: the model answered, the output is not valid
    failed = chunk_outcome(INPUTS, "D", PipelineOptions(model=MODEL, max_chunk_tokens=1))
    assert failed.kind == "failed" and failed.error is None
    assert failed.response is not None and not failed.response.is_success
    # a call the server refused: stopped, with what was paid for before it
    poisoned = [*INPUTS, AgenticChunkInput("c3", "poison here.")]
    stopped = chunk_outcome(poisoned, "D", PipelineOptions(model=MODEL, max_tokens_per_batch=5))
    assert stopped.kind == "stopped" and isinstance(stopped.error, ModelCallError)
    assert stopped.response is not None and stopped.response.extracted
    # no key: refused before any call, nothing to keep
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    refused = chunk_outcome(INPUTS, "D", options)
    assert refused.kind == "stopped" and isinstance(refused.error, ConfigurationError)
    assert refused.response is None


def _job(tmp_path: Path, **given: object) -> CorpusJob:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    for n in (1, 2):
        (folder / f"d{n}.txt").write_text(f"Alpha {n} holds.\n\nBeta {n} holds.\n")
    out = tmp_path / "out.jsonl"
    return CorpusJob(
        source=open_corpus(folder),
        output=out,
        ledger_path=tmp_path / "out.ledger.sqlite",
        failures_path=tmp_path / "out.failures.jsonl",
        cache_dir=tmp_path / "out.replies",
        **given,  # type: ignore[arg-type]
    )


def _cache(directory: Path) -> ReplyCache:
    return ReplyCache(directory, read=True)


def test_a_corpus_run_writes_out_and_reports_each_result_and_its_outcome(
    server: FakeMessagesServer, tmp_path: Path
) -> None:
    job = _job(tmp_path)
    run = CorpusRun(job, PipelineOptions(model=MODEL), open_cache=_cache)
    seen: list[DocumentResult] = []
    run.open()
    try:
        assert run.settle_batches() == []
        outcome = run.execute({"d1.txt": 0, "d2.txt": 1}, seen.append)
    finally:
        run.close()
    assert [r.document_id for r in seen] == ["d1.txt", "d2.txt"]
    assert outcome.written == len(read_records(job.output)) == 4
    assert outcome.kept_elsewhere is None
    assert not job.failures_path.exists()


def test_batches_an_earlier_run_left_are_forgotten_named_or_held_never_sent_again(
    server: FakeMessagesServer, tmp_path: Path
) -> None:
    job = _job(tmp_path, forget_batches=("msgbatch_old", "msgbatch_none"))
    with Ledger(job.ledger_path) as ledger:
        ledger.add_batch("anthropic", "msgbatch_old", ["a", "b"])
        ledger.add_batch("anthropic", "msgbatch_kept", ["c"])
    run = CorpusRun(job, PipelineOptions(model=MODEL), open_cache=_cache)
    run.open()
    try:
        notes = run.settle_batches()
        kept = list(run.opened_ledger.batches())
    finally:
        run.close()
    assert [(n.kind, n.batch_id, n.requests) for n in notes] == [
        ("forgotten", "msgbatch_old", 2),
        ("unknown", "msgbatch_none", 0),
        ("held", "msgbatch_kept", 1),  # no batch client in this run: not collected
    ]
    assert [b for _, b, _ in kept] == ["msgbatch_kept"]


def test_a_second_run_on_the_same_output_is_refused_when_it_opens(
    server: FakeMessagesServer, tmp_path: Path
) -> None:
    from agentic_chunking import InputError

    job = _job(tmp_path)
    first = CorpusRun(job, PipelineOptions(model=MODEL), open_cache=_cache)
    first.open()
    try:
        second = CorpusRun(job, PipelineOptions(model=MODEL), open_cache=_cache)
        with pytest.raises(InputError):
            second.open()
    finally:
        first.close()


def test_the_plan_sums_every_document_and_counts_what_cannot_be_read(tmp_path: Path) -> None:
    job = _job(tmp_path)
    (tmp_path / "docs" / "bin.dat").write_bytes(b"\x00\x01")
    plan = plan_corpus(open_corpus(tmp_path / "docs").documents(), PipelineOptions(model=MODEL))
    assert (plan.model, plan.not_text, plan.unreadable) == (MODEL, 1, 0)
    assert plan.batches == 2 and plan.calls == 4  # one extraction and one grouping each
    assert plan.cost_usd is not None and plan.unbatched_cost_usd == plan.cost_usd
    batched = plan_corpus(job.source.documents(), PipelineOptions(model=MODEL), batched=True)
    assert batched.cost_usd is not None and batched.unbatched_cost_usd is not None
    assert batched.cost_usd < batched.unbatched_cost_usd
