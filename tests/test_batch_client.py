"""The batch client (client._batch): the pipeline, unchanged, through the providers' batch
APIs, against loopback fakes of Anthropic's Message Batches and OpenAI's Batch API."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from agentic_chunking import AgenticChunkInput, CallUsage, ModelCallError, chunk_text_agentic
from agentic_chunking._loopback import (
    FakeBatchAPIServer,
    FakeMessageBatchesServer,
    FakeReply,
    ScriptedPipeline,
)
from agentic_chunking._models import AgenticResponse
from agentic_chunking.client import (
    ANTHROPIC,
    BATCH_DISCOUNT,
    OPENAI,
    BatchClient,
    BatchProgress,
    ModelClient,
    calls_cost_usd,
    estimate_cost_usd,
)

FAST = {"poll_interval_s": 0.02, "quiet_s": 0.1, "max_retries": 0}
PRICED = "claude-sonnet-4-6"  # the price the cost comparison is made at


@dataclass
class Fake:
    """One provider's batch fake, the model id that reaches it, and clients for it."""

    provider: str
    server: Any
    model: str

    def batch_client(self, **options: Any) -> BatchClient:
        settings = {**FAST, **options}
        return BatchClient(
            api_keys={self.provider: "test-key"},
            base_urls={self.provider: self.server.base_url},
            **settings,
        )

    def sync_client(self) -> ModelClient:
        return ModelClient(
            api_keys={self.provider: "test-key"},
            base_urls={self.provider: self.server.base_url},
            max_retries=0,
        )

    @property
    def sync_requests(self) -> int:
        path = "/v1/chat/completions" if self.provider == OPENAI else "/v1/messages"
        return sum(r.path == path for r in self.server.requests)


def _documents(count: int = 3) -> tuple[list[list[AgenticChunkInput]], dict[str, list[str]]]:
    """``count`` documents of four generated paragraphs each (a fact a sentence)."""
    documents, extraction = [], {}
    for d in range(count):
        inputs = []
        for n in range(4):
            sentences = [f"Part {d}-{n}-{k} weighs {d + n + k} grams." for k in range(2 + n % 3)]
            text = " ".join(sentences)
            inputs.append(AgenticChunkInput(f"D{d}-P{n}", text))
            extraction[text] = sentences
        documents.append(inputs)
    return documents, extraction


def _theme(proposition: str) -> str:
    return "Light parts" if int(proposition.split(" weighs ")[1].split()[0]) < 4 else "Heavy parts"


def _script() -> tuple[list[list[AgenticChunkInput]], ScriptedPipeline]:
    documents, extraction = _documents()
    return documents, ScriptedPipeline(extraction, _theme)


def _chunk_all(
    documents: Sequence[Sequence[AgenticChunkInput]], client: Any, model: str
) -> list[AgenticResponse]:
    """Every document chunked at once, one thread each (as a corpus run does)."""

    def one(numbered: tuple[int, Sequence[AgenticChunkInput]]) -> AgenticResponse:
        number, inputs = numbered
        return chunk_text_agentic(
            inputs,
            f"DOC{number}",
            client=client,
            model=model,
            max_tokens_per_batch=40,  # several extraction requests per document
            max_concurrency=16,
        )

    with ThreadPoolExecutor(len(documents)) as pool:
        return list(pool.map(one, enumerate(documents)))


def _chunks(responses: Sequence[AgenticResponse]) -> list[list[dict[str, Any]]]:
    for response in responses:
        assert response.is_success, response.error_detail
    return [[c.to_dict() for c in r.chunks] for r in responses]


def _fake(provider: str, handler: Any = None, **options: Any) -> Fake:
    """A started batch fake of ``provider`` answering with ``handler`` (default: "reply to
    <the user's text>"); the caller stops it."""
    kind = FakeBatchAPIServer if provider == OPENAI else FakeMessageBatchesServer
    model = "openai:reference" if provider == OPENAI else "reference"
    server = kind(handler=handler or _replying, **options).start()
    return Fake(provider, server, model)


def _replying(body: Any) -> FakeReply:
    return FakeReply(text=f"reply to {body['messages'][-1]['content']}")


@pytest.fixture(params=[ANTHROPIC, OPENAI])
def fake(request: pytest.FixtureRequest) -> Iterator[Fake]:
    """A batch fake answering the pipeline's prompts for the documents of ``_script``."""
    served = _fake(request.param, _script()[1])
    yield served
    served.server.stop()


def test_documents_through_the_batch_api_give_the_synchronous_chunks_at_half_the_cost(
    fake: Fake,
) -> None:
    documents, _ = _script()
    with fake.sync_client() as client:
        synchronous = _chunk_all(documents, client, fake.model)
    sync_requests = fake.sync_requests
    records: list[BatchProgress] = []
    # a quiet time that a loaded machine's slowest document thread stays within
    with fake.batch_client(progress=records.append, quiet_s=0.5) as client:
        batched = _chunk_all(documents, client, fake.model)
    assert _chunks(batched) == _chunks(synchronous)
    assert fake.sync_requests == sync_requests  # nothing was sent synchronously
    # one batch for the extraction round, one for the grouping round
    extraction = sum(len(r.calls) for r in synchronous) - len(documents)
    ended = [r for r in records if r.status == "ended"]
    assert [(r.round, r.requests, r.succeeded) for r in ended] == [
        (1, extraction, extraction),
        (2, len(documents), len(documents)),
    ]
    assert next(r.status for r in records if r.batch_id == ended[0].batch_id) == "submitted"
    assert len(fake.server.book.batches) == 2
    assert set(fake.server.book.submissions.values()) == {1}
    calls = [c for r in batched for c in r.calls]
    assert all(c.batched and not c.cached for c in calls)
    sync_calls = [c for r in synchronous for c in r.calls]
    ratio = calls_cost_usd(PRICED, calls) / calls_cost_usd(PRICED, sync_calls)  # type: ignore[operator]
    assert ratio == pytest.approx(BATCH_DISCOUNT)


@pytest.mark.parametrize("provider", [ANTHROPIC, OPENAI])
@pytest.mark.parametrize("fault", ["errored", "expired"])
def test_requests_that_errored_or_expired_go_into_the_next_round(provider: str, fault: str) -> None:
    failed: set[str] = set()

    def first_submission_of_every_other(custom_id: str, submission: int) -> str | None:
        if submission == 1 and int(custom_id, 16) % 2:
            failed.add(custom_id)
            return fault
        return None

    documents, script = _script()
    fake = _fake(provider, script, fault=first_submission_of_every_other)
    try:
        with fake.sync_client() as client:
            synchronous = _chunk_all(documents, client, fake.model)
        with fake.batch_client() as client:
            batched = _chunk_all(documents, client, fake.model)
    finally:
        fake.server.stop()
    assert _chunks(batched) == _chunks(synchronous)
    submissions = fake.server.book.submissions
    assert failed and {c for c, n in submissions.items() if n == 2} == failed
    assert max(submissions.values()) == 2


def _ask(client: ModelClient, model: str, text: str = "Say it.") -> Any:
    return client.call(
        stage="extraction",
        batch=1,
        model=model,
        system="Extract.",
        messages=[{"role": "user", "content": text}],
        max_tokens=100,
    )


@pytest.fixture(params=[ANTHROPIC, OPENAI])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_a_request_never_answered_fails_after_max_rounds_with_the_reason(provider: str) -> None:
    fake = _fake(provider, fault=lambda _id, _n: "expired")
    try:
        with (
            fake.batch_client(max_rounds=2) as client,
            pytest.raises(ModelCallError, match=r"no answer after 2 batches.*expired"),
        ):
            _ask(client, fake.model)
        assert list(fake.server.book.submissions.values()) == [2]
    finally:
        fake.server.stop()


def test_a_request_refused_as_invalid_is_not_sent_again(provider: str) -> None:
    fake = _fake(provider, fault=lambda _id, _n: "invalid")
    try:
        with (
            fake.batch_client(max_rounds=3) as client,
            pytest.raises(ModelCallError, match=r"after 1 batch: .*refused"),
        ):
            _ask(client, fake.model)
        assert list(fake.server.book.submissions.values()) == [1]
    finally:
        fake.server.stop()


def test_fallback_sync_sends_an_unanswered_request_synchronously_at_full_price(
    provider: str,
) -> None:
    fake = _fake(provider, fault=lambda _id, _n: "expired")
    try:
        with fake.batch_client(fallback="sync") as client:
            reply = _ask(client, fake.model)
        assert reply.text == "reply to Say it."
        assert not reply.usage.batched
        assert fake.sync_requests == 1
        assert list(fake.server.book.submissions.values()) == [1]
    finally:
        fake.server.stop()


def test_a_batch_the_provider_cancels_is_retried_and_the_message_says_so(provider: str) -> None:
    fake = _fake(provider, cancel_batches=[1, 3])  # the second client's batch is the 3rd
    try:
        records: list[BatchProgress] = []
        with fake.batch_client(progress=records.append) as client:
            assert _ask(client, fake.model).text == "reply to Say it."
        ended = [r for r in records if r.status == "ended"]
        assert [(r.round, r.canceled, r.succeeded) for r in ended] == [(1, 1, 0), (2, 0, 1)]
        with (
            fake.batch_client(max_rounds=1) as client,
            pytest.raises(ModelCallError, match="was cancelled"),
        ):
            _ask(client, fake.model, "Another.")
    finally:
        fake.server.stop()


def test_identical_requests_waiting_together_are_sent_once_and_paid_once(provider: str) -> None:
    fake = _fake(provider)
    try:
        with fake.batch_client() as client, ThreadPoolExecutor(3) as pool:
            replies = list(pool.map(lambda _n: _ask(client, fake.model), range(3)))
        assert list(fake.server.book.submissions.values()) == [1]
        assert {r.text for r in replies} == {"reply to Say it."}
        assert sorted(r.usage.cached for r in replies) == [False, True, True]
    finally:
        fake.server.stop()


def test_a_round_larger_than_a_batch_is_split_at_the_limits(provider: str) -> None:
    fake = _fake(provider)
    try:
        records: list[BatchProgress] = []
        limits = {provider: (2, 10**9)}
        with (
            fake.batch_client(batch_limits=limits, progress=records.append) as client,
            ThreadPoolExecutor(5) as pool,
        ):
            replies = list(pool.map(lambda n: _ask(client, fake.model, f"Q{n}"), range(5)))
        assert [r.text for r in replies] == [f"reply to Q{n}" for n in range(5)]
        # a round is submitted as soon as the queue fills a batch; none holds more than 2
        assert sorted(r.requests for r in records if r.status == "ended") == [1, 2, 2]
    finally:
        fake.server.stop()


def _submit_then_kill(fake: Fake, texts: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Submit ``texts`` in one batch, then drop the client before the batch ends (what a
    killed run leaves): the batches it reported as submitted."""
    submitted: dict[str, tuple[str, ...]] = {}
    reported = threading.Event()

    def record(_provider: str, batch_id: str, custom_ids: tuple[str, ...]) -> None:
        submitted[batch_id] = custom_ids
        reported.set()

    client = fake.batch_client(on_submitted=record)
    errors: list[BaseException] = []

    def ask(text: str) -> None:
        try:
            _ask(client, fake.model, text)
        except ModelCallError as error:
            errors.append(error)

    threads = [threading.Thread(target=ask, args=(t,)) for t in texts]
    for thread in threads:
        thread.start()
    assert reported.wait(10)
    client.close()
    for thread in threads:
        thread.join()
    assert len(errors) == len(texts) and "closed before the batch answered" in str(errors[0])
    return submitted


@pytest.mark.parametrize("known", [True, False], ids=["with-custom-ids", "bare-ids"])
def test_a_rerun_attaches_to_the_batch_in_flight_instead_of_submitting_again(
    provider: str, known: bool
) -> None:
    fake = _fake(provider, polls_to_end=25)  # still in flight when the client is dropped
    try:
        submitted = _submit_then_kill(fake, ["A", "B"])
        [batch_id] = submitted
        records: list[BatchProgress] = []
        with fake.batch_client(progress=records.append) as client:
            client.attach(provider, submitted if known else list(submitted))
            assert _ask(client, fake.model, "A").text == "reply to A"
            assert _ask(client, fake.model, "C").text == "reply to C"  # not in it: submitted
            assert _ask(client, fake.model, "B").text == "reply to B"  # kept for later
        assert set(fake.server.book.submissions.values()) == {1}
        assert len(fake.server.book.submissions) == 3
        assert records[0].status == "attached" and records[0].batch_id == batch_id
    finally:
        fake.server.stop()


def test_documents_resumed_after_a_kill_pay_for_no_request_twice(fake: Fake) -> None:
    documents, _ = _script()
    submitted: dict[str, tuple[str, ...]] = {}
    first = fake.batch_client(on_submitted=lambda _p, b, ids: submitted.update({b: ids}))
    fake.server.book.polls_to_end = 20  # the extraction batch is still in flight when killed

    def kill_once_submitted() -> None:
        while not submitted:
            threading.Event().wait(0.01)
        first.close()

    threading.Thread(target=kill_once_submitted, daemon=True).start()
    with pytest.raises(ModelCallError, match="closed before the batch answered"):
        _chunk_all(documents, first, fake.model)
    with fake.batch_client() as client:
        client.attach(fake.provider, submitted)
        resumed = _chunk_all(documents, client, fake.model)
    with fake.sync_client() as sync:
        synchronous = _chunk_all(documents, sync, fake.model)
    assert _chunks(resumed) == _chunks(synchronous)
    assert set(fake.server.book.submissions.values()) == {1}


def test_a_batched_call_costs_the_batch_discount_of_its_listed_price() -> None:
    listed = estimate_cost_usd(PRICED, 1000, 500, cache_write_tokens=100, cache_read_tokens=50)
    batched = estimate_cost_usd(
        PRICED, 1000, 500, cache_write_tokens=100, cache_read_tokens=50, batched=True
    )
    assert listed is not None and batched == pytest.approx(listed * BATCH_DISCOUNT)
    assert estimate_cost_usd("reference", 1000, 500, batched=True) is None


def test_the_batched_mark_is_written_only_when_true_and_read_back() -> None:
    usage = CallUsage("extraction", "m", 10, 5, "end_turn", 0.1, batch=1, batched=True)
    assert usage.to_dict()["Batched"] is True
    assert CallUsage.from_dict(usage.to_dict()) == usage
    plain = CallUsage("extraction", "m", 10, 5, "end_turn", 0.1, batch=1)
    assert "Batched" not in plain.to_dict() and not CallUsage.from_dict(plain.to_dict()).batched


def test_settings_out_of_range_are_refused_in_one_line() -> None:
    from agentic_chunking import InputError

    with pytest.raises(InputError, match="fallback is 'later'"):
        BatchClient(fallback="later")
    with pytest.raises(InputError, match="max_rounds is 0"):
        BatchClient(max_rounds=0)


def test_the_dry_run_of_a_batched_run_shows_the_batch_price_and_the_saving() -> None:
    from agentic_chunking.pipeline import PipelineOptions
    from agentic_chunking.pipeline._plan import plan_run

    [inputs, *_], _ = _documents(1)
    options = PipelineOptions(model=PRICED, max_tokens_per_batch=40)
    listed = plan_run(inputs, options)
    batched = plan_run(inputs, options, batched=True)
    assert listed.estimated_cost_usd is not None
    assert batched.estimated_cost_usd == pytest.approx(listed.estimated_cost_usd * BATCH_DISCOUNT)
    assert batched.listed_cost_usd == listed.estimated_cost_usd
    assert "at the batch price" in batched.lines()[-1]
    assert "batch price" not in listed.lines()[-1]


def test_the_run_summary_prices_batched_calls_at_the_batch_price() -> None:
    import io

    from agentic_chunking.cli._progress import RunDisplay

    def summary(batched: bool) -> str:
        call = CallUsage("extraction", PRICED, 100_000, 20_000, "end_turn", 1.0, batched=batched)
        display = RunDisplay(model=PRICED, prefix="", stream=io.StringIO(), bar=False)
        return display.summary(AgenticResponse(calls=(call,)), "out.json", 1)

    listed = estimate_cost_usd(PRICED, 100_000, 20_000)
    assert listed is not None
    assert f"${listed:.4f}" in summary(False)
    assert f"${listed * BATCH_DISCOUNT:.4f}" in summary(True)


def test_progress_is_a_record_per_poll_with_the_request_counts(provider: str) -> None:
    fake = _fake(provider, polls_to_end=3)
    try:
        records: list[BatchProgress] = []
        with fake.batch_client(progress=records.append) as client:
            _ask(client, fake.model)
        [batch_id] = fake.server.book.batches
        assert [(r.batch_id, r.round, r.status, r.processing) for r in records] == [
            (batch_id, 1, "submitted", 1),
            (batch_id, 1, "in_progress", 1),
            (batch_id, 1, "in_progress", 1),
            (batch_id, 1, "ended", 0),
        ]
        assert (records[-1].requests, records[-1].succeeded) == (1, 1)
    finally:
        fake.server.stop()


def test_an_attached_batch_the_provider_does_not_know_stops_the_client_and_sends_nothing(
    provider: str,
) -> None:
    """A batch the provider answers 404 for was dropped and its requests submitted again;
    behind a proxy that answers every poll 404 that made 116 paid batches of one request
    in 240 s. Now the client stops: the call fails naming the batch and the status, and
    nothing is submitted."""
    from agentic_chunking.client import BatchUnreachableError

    fake = _fake(provider)
    try:
        records: list[BatchProgress] = []
        with fake.batch_client(progress=records.append) as client:
            client.attach(provider, ["batch_from_another_account"])
            with pytest.raises(BatchUnreachableError) as raised:
                _ask(client, fake.model)
            with pytest.raises(BatchUnreachableError):  # a later call too: the client stopped
                _ask(client, fake.model, "Another.")
        assert (raised.value.batch_id, raised.value.status) == ("batch_from_another_account", 404)
        assert "could not be retrieved: HTTP 404" in str(raised.value)
        assert [r.status for r in records][:2] == ["attached", "unreachable"]
        assert fake.server.book.submissions == {}
    finally:
        fake.server.stop()


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_a_batch_whose_polls_are_refused_for_good_is_never_submitted_again(
    provider: str, status: int
) -> None:
    from agentic_chunking.client import BatchUnreachableError

    fake = _fake(provider, poll_fault=lambda batch_id, poll: status, lifetime_s=30)
    try:
        with fake.batch_client() as client:
            pool = ThreadPoolExecutor(3)
            asked = [pool.submit(_ask, client, fake.model, f"Say {n}.") for n in range(3)]
            for future in asked:
                with pytest.raises(BatchUnreachableError, match=f"HTTP {status}"):
                    future.result(timeout=60)
            pool.shutdown()
        assert len(fake.server.book.batches) == 1
        assert set(fake.server.book.submissions.values()) == {1}
        assert sum(fake.server.book.refused_polls.values()) == 1
    finally:
        fake.server.stop()


@pytest.mark.parametrize("status", [429, 500, 503])
def test_a_batch_whose_polls_fail_for_a_while_is_collected_without_a_second_submission(
    provider: str, status: int
) -> None:
    fake = _fake(provider, poll_fault=lambda batch_id, poll: status if poll <= 2 else None)
    try:
        with fake.batch_client() as client:  # max_retries 0: each failure is the client's
            assert _ask(client, fake.model).text == "reply to Say it."
        assert list(fake.server.book.submissions.values()) == [1]
        assert list(fake.server.book.refused_polls.values()) == [2]
    finally:
        fake.server.stop()


def test_the_fakes_refuse_a_custom_id_given_twice_in_one_batch() -> None:
    import anthropic
    import openai

    params = {
        "model": "reference",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "x"}],
    }
    with FakeMessageBatchesServer(handler=_replying) as server:
        client = anthropic.Anthropic(api_key="k", base_url=server.base_url, max_retries=0)
        with pytest.raises(anthropic.BadRequestError, match="given more than once"):
            client.messages.batches.create(
                requests=[{"custom_id": "same", "params": params}] * 2  # type: ignore[list-item]
            )
        assert server.book.submissions == {}
    line = '{"custom_id": "same", "method": "POST", "url": "/v1/chat/completions", "body": {}}\n'
    with FakeBatchAPIServer(handler=_replying) as server:
        sdk = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        upload = sdk.files.create(file=("b.jsonl", (line * 2).encode()), purpose="batch")
        with pytest.raises(openai.BadRequestError, match="given more than once"):
            sdk.batches.create(
                input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h"
            )


def test_a_batch_cancelled_through_the_api_ends_with_its_requests_cancelled() -> None:
    import anthropic

    params = {
        "model": "reference",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "x"}],
    }
    with FakeMessageBatchesServer(handler=_replying, polls_to_end=100) as server:
        client = anthropic.Anthropic(api_key="k", base_url=server.base_url, max_retries=0)
        made = client.messages.batches.create(requests=[{"custom_id": "a", "params": params}])  # type: ignore[list-item]
        assert client.messages.batches.cancel(made.id).processing_status == "canceling"
        ended = client.messages.batches.retrieve(made.id)
        assert ended.processing_status == "ended" and ended.request_counts.canceled == 1
        [line] = list(client.messages.batches.results(made.id))
        assert line.result.type == "canceled"


def test_a_fake_batch_server_stops_serving_by_itself_after_its_lifetime() -> None:
    import httpx2

    server = FakeMessageBatchesServer(handler=_replying, lifetime_s=0.05).start()
    try:
        url = f"{server.base_url}/v1/messages/batches/none"
        deadline = threading.Event()
        for _ in range(100):  # the shutdown happens on the server's timer thread
            try:
                httpx2.get(url, timeout=0.5)
            except httpx2.TransportError:
                break
            deadline.wait(0.05)
        else:
            pytest.fail("the fake was still serving 5 s after its 0.05 s lifetime")
    finally:
        server.stop()


def test_a_callback_that_raises_fails_the_waiting_calls_instead_of_leaving_them_waiting(
    provider: str,
) -> None:
    def broken(_provider: str, _batch_id: str, _ids: tuple[str, ...]) -> None:
        raise RuntimeError("the ledger is locked")

    fake = _fake(provider)
    try:
        with (
            fake.batch_client(on_submitted=broken) as client,
            pytest.raises(ModelCallError, match=r"stopped \(RuntimeError: the ledger is locked"),
        ):
            _ask(client, fake.model)
    finally:
        fake.server.stop()


class _CutResults:
    """A batch fake whose next ``cuts`` results downloads (Anthropic's results, OpenAI's
    output file) are cut short, as by a proxy that drops the connection."""

    cuts = 0
    at_a_line = True  # the cut falls between two lines (else inside the last one)

    def _answer(self, method: str, path: str, headers: Any, body: Any) -> Any:
        from dataclasses import replace

        response = super()._answer(method, path, headers, body)  # type: ignore[misc]
        payload = response.payload
        results = path.split("?")[0].endswith(("/results", "/content"))
        if self.cuts > 0 and results and isinstance(payload, bytes) and b"custom_id" in payload:
            self.cuts -= 1
            whole_lines = payload[: payload.rstrip(b"\n").rfind(b"\n") + 1]  # the last dropped
            response = replace(response, payload=whole_lines if self.at_a_line else payload[:-9])
        return response


class _CutMessageBatches(_CutResults, FakeMessageBatchesServer):
    pass


class _CutBatchAPI(_CutResults, FakeBatchAPIServer):
    pass


def test_results_cut_short_are_fetched_again_and_no_request_is_sent_twice(provider: str) -> None:
    """A results download cut short (at a line's end or inside one) is a failed look at
    the batch, fetched again at the next poll: the requests it misses were answered (paid)
    and are never submitted again (they went into the next round: fault sweep trial
    batch_results_cut_short); cut every time, the callers are told it could not be
    retrieved, to rerun and attach."""
    for cuts, answered, at_a_line in ((2, True, True), (2, True, False), (100, False, True)):
        kind = _CutBatchAPI if provider == OPENAI else _CutMessageBatches
        server = kind(handler=_replying).start()
        server.cuts, server.at_a_line = cuts, at_a_line
        fake = Fake(provider, server, "openai:reference" if provider == OPENAI else "reference")
        try:
            with fake.batch_client(max_rounds=3) as client, ThreadPoolExecutor(3) as pool:
                asked = [pool.submit(_ask, client, fake.model, f"Say {n}.") for n in range(3)]
                if answered:
                    assert sorted(f.result().text for f in asked) == [
                        f"reply to Say {n}." for n in range(3)
                    ]
                else:
                    for future in asked:
                        with pytest.raises(ModelCallError, match="could not be retrieved"):
                            future.result()
            assert sorted(server.book.submissions.values()) == [1, 1, 1]
            assert len(server.book.batches) == 1
        finally:
            server.stop()
