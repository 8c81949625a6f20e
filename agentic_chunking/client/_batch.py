"""The providers' batch APIs (half the price) behind the ordinary call: ``BatchClient``.

``BatchClient`` is a ModelClient whose ``call`` does not send its request: it queues it
and blocks until the batch that carries it has ended, then returns the same ModelReply
the synchronous call would (its CallUsage marked ``batched``, priced at BATCH_DISCOUNT).
So the unchanged pipeline, run on many documents in threads with
``chunk_text_agentic(..., client=batch_client)``, sends all its extraction requests as
one batch, then all its grouping requests as the next, and so on.

Guarantees:
- one request body, whether sent alone or in a batch: Anthropic's ``params`` are
  ``message_params`` (what ``_anthropic.call_model`` sends), OpenAI's line ``body`` is
  ``chat_body`` (what ``call_openai`` sends); through the official SDKs only
  (``messages.batches`` for Anthropic; ``files`` + ``batches`` for OpenAI-compatible);
- a background thread submits the queue as one round when no new request has come for
  ``quiet_s`` seconds and no participant is still working (see below), or at once when
  the queue reaches a batch's limits (BATCH_LIMITS); a round is one batch per provider
  (and, for OpenAI, per model: a batch names one model), split across batches only at
  those limits;
- participants (``participant()``: one per document, say) make a round whole: while any
  thread of a participant is working (not waiting for a batch, nor for threads of its own
  started through ``CountedTasks`` and waited for in ``idle``, as the pipeline's are), the
  queue waits for it, so requests that documents make seconds of work apart still go in
  one batch. A round waits at most ``hold_s`` after its last request for participants
  that never ask (a safety valve, not a schedule). Without participants, the quiet time
  alone decides;
- a request's ``custom_id`` is the hex SHA-256 of its provider and body
  (``batch_custom_id``): the same request gets the same id in every run, and identical
  requests waiting together are sent once (the first caller's usage is the paid one, the
  others are marked ``cached``: paid for by another call of this run);
- every batch is polled every ``poll_interval_s`` seconds until it ends; its results are
  mapped back by custom_id; a request that errored (a server error), expired, or was
  cancelled with its batch goes into the next round, up to ``max_rounds`` batches, after
  which its callers get a ModelCallError saying what happened (and that the batch was
  cancelled, when it was); a request the provider refuses as invalid is not retried.
  With ``fallback="sync"`` every such request is sent synchronously instead (the parent
  ModelClient.call, in the caller's thread, at the full price);
- ``on_submitted(provider, batch_id, custom_ids)`` hears of each batch as soon as the
  provider has accepted it, so a caller can record it; ``attach(provider, batch_ids)``
  (before the run) makes the requests of those batches wait for their results instead of
  being submitted again; results nobody has asked for yet are kept for later calls;
- ``progress`` receives a BatchProgress record for each batch submitted, attached, polled
  and ended (request counts by state), never a sentence;
- a batch whose retrieval is refused with a status the same retrieval meets again (a
  4xx but 408, 409 and 429: a proxy that does not pass it through, another key, a batch
  deleted) is never submitted again: the client stops, every waiting call (and every
  later one) fails with a BatchUnreachableError naming the batch and the status, and no
  further round goes; a transient failure (429, 5xx, the network) is retried at the next
  poll, and after MAX_POLL_FAILURES in a row its callers get a ModelCallError (the batch
  may still end: a rerun attaches to it);
- ``close`` never cancels a batch (a rerun can attach to it): the calls still waiting fail
  with a ModelCallError naming the batches in flight.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any, TypeVar

from .._errors import ConfigurationError, InputError, ModelCallError
from ._anthropic import ModelReply, _translate, _where, message_params, message_reply
from ._config import ANTHROPIC, DEFAULT_MAX_RETRIES, OPENAI, parse_model
from ._openai import chat_body, completion_reply, translate_openai_error
from ._providers import ModelClient

__all__ = [
    "BATCH_LIMITS",
    "DEFAULT_HOLD_S",
    "DEFAULT_MAX_ROUNDS",
    "DEFAULT_POLL_INTERVAL_S",
    "DEFAULT_QUIET_S",
    "FALLBACKS",
    "BatchClient",
    "BatchParticipant",
    "BatchProgress",
    "BatchUnreachableError",
    "CountedTasks",
    "batch_custom_id",
    "idle",
]

BATCH_LIMITS: Mapping[str, tuple[int, int]] = {
    ANTHROPIC: (100_000, 256 * 1024 * 1024),
    OPENAI: (50_000, 200 * 1024 * 1024),
}
"""Requests and bytes one batch may hold: Anthropic's Message Batches, "100,000 Message
requests or 256 MB in size, whichever is reached first"; OpenAI's Batch API, an input
file of "up to 50,000 requests, and up to 200 MB in size" (both providers' batch guides;
the SDKs' docstrings say the same)."""
DEFAULT_POLL_INTERVAL_S = 30.0
"""How often a batch in flight is retrieved (most batches end within the hour)."""
DEFAULT_QUIET_S = 1.0
"""A round is submitted when no new request has come for this long (and no participant is
working)."""
DEFAULT_HOLD_S = 120.0
"""The longest a round waits, after its last request, for participants still working."""
DEFAULT_MAX_ROUNDS = 3
"""Batches a request may be in before its callers are told it failed."""
FALLBACKS = ("none", "sync")
"""What happens to a request a batch did not answer: the next round (``none``), or a
synchronous call at once (``sync``)."""
OPENAI_ENDPOINT = "/v1/chat/completions"
MAX_POLL_FAILURES = 5
"""Consecutive failed retrievals of a batch after which its callers are told (the batch
itself may still end: a rerun attaches to it)."""
_TRANSIENT_STATUSES = frozenset({408, 409, 429})
"""The 4xx statuses a later retrieval may not meet (as the SDKs retry them); every other
4xx of a retrieval makes the batch unreachable (BatchUnreachableError)."""
_NOT_RETRIED = frozenset(
    {
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "not_found_error",
        "request_too_large",
        "billing_error",
    }
)
"""Anthropic error types that the same request meets again: not worth another round."""


@dataclass(frozen=True, slots=True)
class BatchProgress:
    """The state of one batch, as the provider counts its requests.

    ``status``: ``submitted`` (accepted by the provider), ``attached`` (an earlier run's
    batch, given to ``attach``), ``in_progress``, ``canceling``, ``ended``, or
    ``unreachable`` (its retrieval refused for good: the client stopped, the batch may
    still end; see BatchUnreachableError). ``round`` is
    the client's submission round that made it (1-based; 0 for an attached batch). Until
    a batch ends, OpenAI counts only succeeded and failed requests (``errored`` here);
    the ``ended`` record counts each request by its result.
    """

    provider: str
    batch_id: str
    round: int
    status: str
    requests: int
    processing: int
    succeeded: int = 0
    errored: int = 0
    canceled: int = 0
    expired: int = 0


class BatchUnreachableError(ConfigurationError):
    """A batch in flight whose retrieval the provider (or what stands in its place at the
    base URL) refused with ``status``, a status the same retrieval meets again: a 404 from
    a proxy that does not pass batch retrievals through, a 401 or 403 for another key, a
    batch deleted. The batch was accepted (and is paid for); none of its ``requests``
    (their number; None when unknown) is submitted again, and the client has stopped.
    ``provider`` and ``batch_id`` name it; ``detail`` is what the server said."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        batch_id: str,
        status: int,
        requests: int | None,
        detail: str,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.batch_id = batch_id
        self.status = status
        self.requests = requests
        self.detail = detail

    def copy(self) -> BatchUnreachableError:
        """The same error, a new instance (one for each caller: each gets its own trace)."""
        return BatchUnreachableError(
            str(self),
            provider=self.provider,
            batch_id=self.batch_id,
            status=self.status,
            requests=self.requests,
            detail=self.detail,
        )


OnSubmitted = Callable[[str, str, tuple[str, ...]], None]
"""``on_submitted(provider, batch_id, custom_ids)``."""


class BatchParticipant:
    """One unit of work (a document) whose requests a BatchClient's rounds wait for, made
    by ``BatchClient.participant()``: it counts its threads at work, one from the start
    (the thread that will run it), and is working while that count is above 0.

    ``with participant:`` runs a block as it: the block's calls (and those of threads
    started through ``CountedTasks``) are its, and it leaves at the end. A thread of it stops
    counting while one of its calls waits for a batch, and in ``idle()`` (waiting for
    something only a round can bring: its own started threads, the results of others).
    ``leave()`` ends it without running anything; leaving twice is harmless.
    ``on_idle()``, if given, is called (on the thread that went idle, outside any lock)
    each time all its threads have come to wait."""

    def __init__(self, client: BatchClient, on_idle: Callable[[], None] | None = None) -> None:
        self._client = client
        self.on_idle = on_idle
        self.active = 1
        """Its threads at work (under the client's lock)."""
        self._token: Any = None

    def __enter__(self) -> BatchParticipant:
        self._token = _PARTICIPANT.set(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._token is not None:
            _PARTICIPANT.reset(self._token)
            self._token = None
        self.leave()

    @contextlib.contextmanager
    def idle(self) -> Iterator[None]:
        """This thread of the participant waits (not for a call of its own: those count
        themselves) until the block ends."""
        self._client._activity(self, -1)
        try:
            yield
        finally:
            self._client._activity(self, +1)

    def leave(self) -> None:
        """No longer a participant: the rounds stop waiting for it."""
        self._client._leave(self)


_PARTICIPANT: ContextVar[BatchParticipant | None] = ContextVar(
    "agentic_chunking_batch_participant", default=None
)

Task = TypeVar("Task")


class CountedTasks:
    """``count`` tasks that other threads run for the current participant (if any), while
    the thread that makes them waits for them all in ``idle()``: each counts as at work
    from now until it returns, and runs in a copy of the current context (its calls are
    the participant's). The last to return leaves its count to the waiting thread, which
    gives it back with ``done()`` once out of ``idle()``: so the participant never looks
    idle between its last task's end and the waiting thread's going on (a round would go
    without the request it is about to make)."""

    def __init__(self, count: int) -> None:
        self._participant = _PARTICIPANT.get()
        self._left = count
        self._held = False
        self._lock = threading.Lock()
        if self._participant is not None:
            self._participant._client._activity(self._participant, +count)

    def wrap(self, task: Callable[[], Task]) -> Callable[[], Task]:
        """``task``, counted (call in the thread that waits, once per task)."""
        context = contextvars.copy_context()

        def run() -> Task:
            try:
                return context.run(task)
            finally:
                self._finished()

        return run

    def _finished(self) -> None:
        with self._lock:
            self._left -= 1
            self._held = self._left == 0
        if not self._held and self._participant is not None:
            self._participant._client._activity(self._participant, -1)

    def done(self) -> None:
        """The waiting thread goes on: the last task's count is given back."""
        with self._lock:
            held, self._held = self._held, False
        if held and self._participant is not None:
            self._participant._client._activity(self._participant, -1)


@contextlib.contextmanager
def idle() -> Iterator[None]:
    """The current thread waits for threads of its participant (if any) until the block
    ends: it is not at work meanwhile (see BatchParticipant.idle)."""
    participant = _PARTICIPANT.get()
    if participant is None:
        yield
        return
    with participant.idle():
        yield


def batch_custom_id(provider: str, body: Mapping[str, Any]) -> str:
    """The custom_id of a request: the hex SHA-256 (64 characters, as both APIs allow) of
    its provider and body in canonical JSON, so the same request has the same id in every
    run."""
    canonical = json.dumps([provider, body], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(eq=False)
class _Ticket:
    """One waiting call: its stage and batch, and what ends its wait."""

    stage: str
    batch: int | None
    done: threading.Event = field(default_factory=threading.Event)
    reply: ModelReply | None = None
    error: BaseException | None = None
    fallback: bool = False
    participant: BatchParticipant | None = None
    resumed: bool = False  # its participant counted at work again


@dataclass(eq=False)
class _Request:
    custom_id: str
    provider: str
    name: str  # the model's name at its provider
    line: dict[str, Any]  # the batch entry: Anthropic's {custom_id, params}, OpenAI's line
    size: int
    queued_at: float
    tickets: list[_Ticket] = field(default_factory=list)
    rounds: int = 0


@dataclass(frozen=True, slots=True)
class _Result:
    kind: str  # "succeeded", "errored", "invalid", "expired", "canceled"
    reply: ModelReply | None = None
    detail: str = ""


@dataclass(eq=False)
class _InFlight:
    provider: str
    batch_id: str
    round: int
    custom_ids: frozenset[str] | None  # None: attached, its requests unknown until it ends
    next_poll: float
    failures: int = 0


class BatchClient(ModelClient):
    """A ModelClient that answers ``call`` through the provider's batch API (see the
    module docstring for what it guarantees). The keyword arguments of ModelClient are
    its own; the others:

    - ``poll_interval_s``: seconds between two retrievals of a batch in flight;
    - ``quiet_s``: a round is submitted when no request has come for this long (and no
      participant is working);
    - ``hold_s``: the longest a round waits for working participants after its last
      request;
    - ``max_rounds``: batches a request may be in before its callers get the error;
    - ``fallback``: ``none`` (the next round) or ``sync`` (a synchronous call at once)
      for a request a batch did not answer;
    - ``on_submitted(provider, batch_id, custom_ids)``: each batch, once accepted;
    - ``progress(BatchProgress)``: each batch's state, on every change of poll;
    - ``batch_limits``: requests and bytes per batch, per provider (BATCH_LIMITS).

    Callbacks run on the client's background thread; an exception from one fails every
    waiting call with it (nothing hangs).
    """

    def __init__(
        self,
        *,
        api_keys: Mapping[str, str | None] | None = None,
        base_urls: Mapping[str, str | None] | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = None,
        clients: Mapping[str, Any] | None = None,
        poll_interval_s: float = DEFAULT_POLL_INTERVAL_S,
        quiet_s: float = DEFAULT_QUIET_S,
        hold_s: float = DEFAULT_HOLD_S,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        fallback: str = "none",
        on_submitted: OnSubmitted | None = None,
        progress: Callable[[BatchProgress], None] | None = None,
        batch_limits: Mapping[str, tuple[int, int]] | None = None,
    ) -> None:
        if poll_interval_s <= 0 or quiet_s < 0 or hold_s < quiet_s:
            raise InputError(
                f"poll_interval_s is {poll_interval_s}, quiet_s {quiet_s} and hold_s "
                f"{hold_s}: expected a positive poll interval, a quiet time of 0 or more "
                "seconds and a hold at least as long"
            )
        if max_rounds < 1:
            raise InputError(f"max_rounds is {max_rounds}; expected 1 or more")
        if fallback not in FALLBACKS:
            raise InputError(f"fallback is {fallback!r}; expected one of {', '.join(FALLBACKS)}")
        super().__init__(
            api_keys=api_keys,
            base_urls=base_urls,
            max_retries=max_retries,
            timeout=timeout,
            clients=clients,
        )
        self._poll_interval_s = poll_interval_s
        self._quiet_s = quiet_s
        self._hold_s = hold_s
        self._participants: set[BatchParticipant] = set()
        self._working = 0  # participants with a thread at work
        self._max_rounds = max_rounds
        self._fallback = fallback
        self._on_submitted = on_submitted
        self._progress = progress
        self._limits = {**BATCH_LIMITS, **(batch_limits or {})}
        self._cond = threading.Condition()
        self._pending: dict[str, _Request] = {}
        self._load: dict[str, tuple[int, int]] = {}  # provider -> queued requests, bytes
        self._waiting: dict[str, _Request] = {}
        self._batches: dict[str, _InFlight] = {}
        self._attached_ids: dict[str, str] = {}
        self._unclaimed: dict[str, ModelReply] = {}
        self._blind = 0
        self._last_arrival = 0.0
        self._round = 0
        self._closed = False
        self._unreachable: BatchUnreachableError | None = None
        self._thread: threading.Thread | None = None

    # -- the caller's side -------------------------------------------------------------

    def call(
        self,
        *,
        stage: str,
        batch: int | None,
        model: str,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int,
        on_wait: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """Queue one request at temperature 0 and wait for its batch's answer (see the
        module docstring); ``on_wait`` is not used: ``progress`` reports the batches."""
        ref = parse_model(model)
        self.sdk(ref.provider)  # no key, a bad setting: refused now, before any wait
        ticket = _Ticket(stage=stage, batch=batch, participant=_PARTICIPANT.get())
        request = self._request(ref.provider, ref.name, system, messages, max_tokens)
        with self._cond:
            if self._unreachable is not None:
                raise self._unreachable.copy()
            if self._closed:
                raise ModelCallError(
                    f"{_where(stage, batch)}: the batch client is closed", stage=stage, batch=batch
                )
            unclaimed = self._unclaimed.pop(request.custom_id, None)
            if unclaimed is not None:
                return _answer(unclaimed, ticket, request, paid=True)
            known = self._pending.get(request.custom_id) or self._waiting.get(request.custom_id)
            if known is not None:
                request = known
            elif request.custom_id in self._attached_ids:
                self._waiting[request.custom_id] = request
            else:
                self._queue(request)
            request.tickets.append(ticket)
            self._start()
            self._cond.notify_all()
        self._activity(ticket.participant, -1)  # this thread waits for a batch
        try:
            ticket.done.wait()
        finally:
            self._resume(ticket, wake=False)
        if ticket.fallback:
            return super().call(
                stage=stage,
                batch=batch,
                model=model,
                system=system,
                messages=messages,
                max_tokens=max_tokens,
                on_wait=on_wait,
            )
        if ticket.error is not None:
            raise ticket.error
        assert ticket.reply is not None
        return ticket.reply

    def attach(self, provider: str, batch_ids: Iterable[str] | Mapping[str, Iterable[str]]) -> None:
        """Wait for the results of batches an earlier run submitted (call before the run):
        a request whose custom_id is in one of them is not submitted again. With a mapping
        of batch id to its custom_ids (what ``on_submitted`` reported), the others are
        submitted as usual; with bare ids, an OpenAI batch's ids are read from its input
        file, and while an Anthropic batch of unknown requests is in flight no round is
        submitted (any request may be in it)."""
        given: dict[str, frozenset[str] | None] = (
            {b: frozenset(ids) for b, ids in batch_ids.items()}
            if isinstance(batch_ids, Mapping)
            else dict.fromkeys(batch_ids)
        )
        for batch_id, ids in given.items():
            custom_ids = ids if ids is not None else self._input_ids(provider, batch_id)
            with self._cond:
                if batch_id in self._batches:
                    continue
                self._batches[batch_id] = _InFlight(
                    provider, batch_id, 0, custom_ids, next_poll=time.monotonic()
                )
                if custom_ids is None:
                    self._blind += 1
                else:
                    self._attached_ids.update(dict.fromkeys(custom_ids, batch_id))
            count = len(custom_ids) if custom_ids is not None else 0
            self._report(BatchProgress(provider, batch_id, 0, "attached", count, count))
        with self._cond:
            self._start()
            self._cond.notify_all()

    def participant(self, on_idle: Callable[[], None] | None = None) -> BatchParticipant:
        """A new participant of the rounds, working from now until it leaves (see
        BatchParticipant and the module)."""
        made = BatchParticipant(self, on_idle)
        with self._cond:
            self._participants.add(made)
            self._working += 1
        return made

    def _leave(self, participant: BatchParticipant) -> None:
        with self._cond:
            if participant not in self._participants:
                return
            self._participants.discard(participant)
            if participant.active > 0:
                self._working -= 1
            self._cond.notify_all()

    def _activity(self, participant: BatchParticipant | None, change: int) -> None:
        """One more (``+1``) or one fewer (``-1``) thread of ``participant`` at work."""
        if participant is None:
            return
        with self._cond:
            if participant not in self._participants:
                return
            before = participant.active
            participant.active += change
            idle = before > 0 and participant.active <= 0
            if idle:
                self._working -= 1
                self._cond.notify_all()  # perhaps the last one the round waited for
            elif before <= 0 and participant.active > 0:
                self._working += 1
        if idle and participant.on_idle is not None:
            participant.on_idle()

    def _resume(self, ticket: _Ticket, *, wake: bool = True) -> None:
        """Count ``ticket``'s participant at work again, once, then (``wake``) end its
        wait: counted when its answer is handed over, not when its thread next runs, so
        no round goes while answered documents have yet to ask again."""
        with self._cond:
            if not ticket.resumed:
                ticket.resumed = True
                self._activity(ticket.participant, +1)
        if wake:
            ticket.done.set()

    def in_flight(self) -> dict[str, str]:
        """The batches submitted or attached that have not ended: id -> provider."""
        with self._cond:
            return {b.batch_id: b.provider for b in self._batches.values()}

    def close(self) -> None:
        """Stop the background thread and close the SDK clients built here. Batches in
        flight are left to end (attach to them in a rerun); calls still waiting fail."""
        with self._cond:
            self._closed = True
            waiting = [*self._pending.values(), *self._waiting.values()]
            self._pending.clear()
            self._waiting.clear()
            left = ", ".join(sorted(self._batches)) or "none"
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        for request in waiting:
            for ticket in request.tickets:
                ticket.error = ModelCallError(
                    f"{_where(ticket.stage, ticket.batch)}: the batch client was closed before "
                    f"the batch answered (batches in flight: {left}; attach to them in a "
                    "rerun to keep their results)",
                    stage=ticket.stage,
                    batch=ticket.batch,
                )
                self._resume(ticket)
        super().close()

    def _request(
        self,
        provider: str,
        name: str,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int,
    ) -> _Request:
        if provider == OPENAI:
            body = chat_body(model=name, system=system, messages=messages, max_tokens=max_tokens)
            custom_id = batch_custom_id(provider, body)
            line = {"custom_id": custom_id, "method": "POST", "url": OPENAI_ENDPOINT, "body": body}
        else:
            params = message_params(
                model=name, system=system, messages=messages, max_tokens=max_tokens
            )
            custom_id = batch_custom_id(provider, params)
            line = {"custom_id": custom_id, "params": params}
        size = len(json.dumps(line).encode("utf-8")) + 1
        return _Request(custom_id, provider, name, line, size, time.monotonic())

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="batch-client", daemon=True)
            self._thread.start()

    # -- the background thread -----------------------------------------------------------

    def _loop(self) -> None:
        try:
            while True:
                with self._cond:
                    while not self._closed:
                        now = time.monotonic()
                        flush = self._flush_due(now)
                        polls = [b for b in self._batches.values() if b.next_poll <= now]
                        if flush or polls:
                            break
                        self._cond.wait(self._next_wake(now))
                    if self._closed:
                        return
                    round_ = self._take_round() if flush else []
                if round_:
                    self._submit(round_)
                for batch in polls:
                    if self._closed:  # a batch found unreachable: no other is polled
                        break
                    self._poll(batch)
        except BaseException as exc:  # a callback's or the SDK's surprise: fail, never hang
            self._fail_everything(exc)

    def _flush_due(self, now: float) -> bool:
        if not self._pending or self._blind:
            return False
        if any(
            count >= self._limits[provider][0] or size >= self._limits[provider][1]
            for provider, (count, size) in self._load.items()
        ):
            return True
        quiet = now - self._last_arrival
        return quiet >= self._hold_s or (quiet >= self._quiet_s and self._working == 0)

    def _next_wake(self, now: float) -> float | None:
        times = [b.next_poll - now for b in self._batches.values()]
        if self._pending and not self._blind:
            wait = self._hold_s if self._working else self._quiet_s
            times.append(self._last_arrival + wait - now)
        return max(0.0, min(times)) if times else None

    def _take_round(self) -> list[_Request]:
        """The queue, moved to the waiting requests (callers of the same request join
        them there while the batch is being created)."""
        taken = list(self._pending.values())
        self._pending.clear()
        self._load.clear()
        self._round += 1
        for request in taken:
            request.rounds += 1
            self._waiting[request.custom_id] = request
        return taken

    def _submit(self, requests: list[_Request]) -> None:
        """One round: a batch per provider (and per model for OpenAI), split at the limits."""
        groups: dict[tuple[str, str], list[_Request]] = {}
        for request in requests:
            model = request.name if request.provider == OPENAI else ""
            groups.setdefault((request.provider, model), []).append(request)
        for (provider, _model), group in groups.items():
            count, size = self._limits[provider]
            for part in _split(group, count, size):
                self._create(provider, part)

    def _create(self, provider: str, requests: list[_Request]) -> None:
        sdk = self.sdk(provider)
        try:
            if provider == OPENAI:
                data = "".join(json.dumps(r.line) + "\n" for r in requests).encode("utf-8")
                upload = sdk.files.create(
                    file=("agentic-chunking-batch.jsonl", data, "application/jsonl"),
                    purpose="batch",
                )
                made = sdk.batches.create(
                    input_file_id=upload.id, endpoint=OPENAI_ENDPOINT, completion_window="24h"
                )
            else:
                made = sdk.messages.batches.create(requests=[r.line for r in requests])
        except Exception as exc:
            with self._cond:
                for request in requests:
                    self._waiting.pop(request.custom_id, None)
            for request in requests:
                for ticket in request.tickets:
                    ticket.error = _translated(exc, provider, sdk, request.name, ticket)
                    self._resume(ticket)
            return
        ids = tuple(r.custom_id for r in requests)
        with self._cond:
            self._batches[made.id] = _InFlight(
                provider,
                made.id,
                self._round,
                frozenset(ids),
                next_poll=time.monotonic() + self._poll_interval_s,
            )
        if self._on_submitted is not None:
            self._on_submitted(provider, made.id, ids)
        self._report(BatchProgress(provider, made.id, self._round, "submitted", len(ids), len(ids)))

    def _poll(self, batch: _InFlight) -> None:
        sdk = self.sdk(batch.provider)
        try:
            if batch.provider == OPENAI:
                state = sdk.batches.retrieve(batch.batch_id)
                ended = state.status in ("completed", "failed", "expired", "cancelled")
                results = _openai_results(sdk, state, batch) if ended else None
            else:
                state = sdk.messages.batches.retrieve(batch.batch_id)
                ended = state.processing_status == "ended"
                results = _anthropic_results(sdk, batch) if ended else None
        except Exception as exc:
            self._poll_failed(batch, exc)
            return
        if results is None:
            batch.failures = 0
            batch.next_poll = time.monotonic() + self._poll_interval_s
            self._report(_progress_of(batch, state))
            return
        self._report(_ended(batch, results))
        self._dispatch(batch, results)

    def _poll_failed(self, batch: _InFlight, exc: Exception) -> None:
        status = getattr(exc, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500 and status not in _TRANSIENT_STATUSES:
            self._stop_unreachable(batch, status, exc)
            return
        batch.failures += 1
        if batch.failures < MAX_POLL_FAILURES:
            batch.next_poll = time.monotonic() + self._poll_interval_s
            return
        with self._cond:
            self._forget(batch)
            mine = [r for c, r in self._waiting.items() if c in (batch.custom_ids or ())]
            for request in mine:
                del self._waiting[request.custom_id]
            self._cond.notify_all()
        for request in mine:
            for ticket in request.tickets:
                ticket.error = ModelCallError(
                    f"{_where(ticket.stage, ticket.batch)}: the {batch.provider} batch "
                    f"{batch.batch_id} could not be retrieved {batch.failures} times in a row "
                    f"({type(exc).__name__}: {exc}); it may still end: rerun to attach to it",
                    stage=ticket.stage,
                    batch=ticket.batch,
                )
                self._resume(ticket)

    def _stop_unreachable(self, batch: _InFlight, status: int, exc: Exception) -> None:
        """``batch`` cannot be retrieved, and will not be by asking again: stop (see
        BatchUnreachableError). Its requests are never submitted again, nor is any other
        round: whatever stands at the base URL would take the next batch as it took this
        one (116 paid batches of one request in 240 s, re-submitted silently, before)."""
        requests = len(batch.custom_ids) if batch.custom_ids is not None else None
        detail = " ".join(_server_said(exc).split())[:300]
        where = getattr(self.sdk(batch.provider), "base_url", None)
        counted = f" ({requests:,} requests)" if requests is not None else ""
        error = BatchUnreachableError(
            f"the {batch.provider} batch {batch.batch_id}{counted} could not be retrieved: "
            f"HTTP {status} ({detail}){f' from {where}' if where else ''}; it was accepted, "
            "so it is paid for and may still end: check the base URL, any proxy in between "
            "(it must pass the retrieval of a batch through) and the key; none of its "
            "requests is submitted again",
            provider=batch.provider,
            batch_id=batch.batch_id,
            status=status,
            requests=requests,
            detail=detail,
        )
        self._report(
            BatchProgress(
                batch.provider, batch.batch_id, batch.round, "unreachable", requests or 0, 0
            )
        )
        with self._cond:
            self._unreachable = error
        self._fail_everything(error)

    def _dispatch(self, batch: _InFlight, results: Mapping[str, _Result]) -> None:
        """Answer the callers of each result; requeue, fail or hand back the others."""
        with self._cond:
            self._forget(batch)
            answered: list[tuple[_Request, _Result]] = []
            for custom_id, result in results.items():
                request = self._waiting.pop(custom_id, None)
                if request is None and custom_id in self._pending:  # queued while blind
                    request = self._unqueue(custom_id)
                if request is None:
                    if result.reply is not None:
                        self._unclaimed[custom_id] = result.reply
                    continue
                if result.reply is None and self._retries(request, result):
                    self._queue(request)
                    continue
                answered.append((request, result))
            self._cond.notify_all()
        for request, result in answered:
            for number, ticket in enumerate(request.tickets):
                if result.reply is not None:
                    _answer(result.reply, ticket, request, paid=number == 0)
                elif self._fallback == "sync":
                    ticket.fallback = True
                else:
                    ticket.error = _failure(batch, request, result, ticket)
                self._resume(ticket)

    def _queue(self, request: _Request) -> None:
        """Queue ``request`` for the next round (under the lock)."""
        self._pending[request.custom_id] = request
        count, size = self._load.get(request.provider, (0, 0))
        self._load[request.provider] = (count + 1, size + request.size)
        self._last_arrival = time.monotonic()

    def _unqueue(self, custom_id: str) -> _Request:
        request = self._pending.pop(custom_id)
        count, size = self._load[request.provider]
        self._load[request.provider] = (count - 1, size - request.size)
        return request

    def _retries(self, request: _Request, result: _Result) -> bool:
        return (
            self._fallback != "sync"
            and result.kind != "invalid"
            and request.rounds < self._max_rounds
        )

    def _forget(self, batch: _InFlight) -> None:
        """Drop an ended (or lost) batch from those in flight (under the lock)."""
        if self._batches.pop(batch.batch_id, None) is None:
            return
        if batch.custom_ids is None:
            self._blind -= 1
        for custom_id in batch.custom_ids or ():
            if self._attached_ids.get(custom_id) == batch.batch_id:
                del self._attached_ids[custom_id]

    def _input_ids(self, provider: str, batch_id: str) -> frozenset[str] | None:
        """The custom_ids of an OpenAI batch, from its input file (None for Anthropic,
        whose API does not list a batch's requests, or when the file cannot be read)."""
        if provider != OPENAI:
            return None
        try:
            sdk = self.sdk(provider)
            state = sdk.batches.retrieve(batch_id)
            text = sdk.files.content(state.input_file_id).text
            return frozenset(json.loads(line)["custom_id"] for line in text.splitlines() if line)
        except (ConfigurationError, ModelCallError):
            raise
        except Exception:  # unreadable: treat it as a batch of unknown requests
            return None

    def _report(self, record: BatchProgress) -> None:
        if self._progress is not None:
            self._progress(record)

    def _fail_everything(self, exc: BaseException) -> None:
        with self._cond:
            self._closed = True
            waiting = [*self._pending.values(), *self._waiting.values()]
            self._pending.clear()
            self._waiting.clear()
        for request in waiting:
            for ticket in request.tickets:
                if isinstance(exc, BatchUnreachableError):
                    ticket.error = exc.copy()
                else:
                    ticket.error = ModelCallError(
                        f"{_where(ticket.stage, ticket.batch)}: the batch client stopped "
                        f"({type(exc).__name__}: {exc})",
                        stage=ticket.stage,
                        batch=ticket.batch,
                    )
                    ticket.error.__cause__ = exc
                self._resume(ticket)


def _server_said(exc: Exception) -> str:
    """The message of an SDK's HTTP error as the server gave it (the ``message`` of its
    JSON body, Anthropic's ``{"error": {...}}`` or OpenAI's), else the exception's text."""
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        said = inner.get("message") if isinstance(inner, Mapping) else None
        if isinstance(said, str) and said.strip():
            return said
    return str(getattr(exc, "message", None) or exc)


def _split(requests: list[_Request], count: int, size: int) -> list[list[_Request]]:
    """``requests`` in order, cut into parts of at most ``count`` requests and ``size``
    bytes (a request larger than ``size`` goes alone: the provider says what is wrong)."""
    parts: list[list[_Request]] = []
    current: list[_Request] = []
    used = 0
    for request in requests:
        if current and (len(current) >= count or used + request.size > size):
            parts.append(current)
            current, used = [], 0
        current.append(request)
        used += request.size
    if current:
        parts.append(current)
    return parts


def _answer(reply: ModelReply, ticket: _Ticket, request: _Request, *, paid: bool) -> ModelReply:
    """``reply`` as ``ticket``'s caller gets it: its stage and batch, the time it waited;
    ``cached`` when another call of this run paid for the same request."""
    usage = replace(
        reply.usage,
        stage=ticket.stage,
        batch=ticket.batch,
        latency_s=time.monotonic() - request.queued_at,
        cached=not paid,
    )
    ticket.reply = replace(reply, usage=usage)
    return ticket.reply


def _failure(batch: _InFlight, request: _Request, result: _Result, ticket: _Ticket) -> Exception:
    where = _where(ticket.stage, ticket.batch)
    what = {
        "expired": "expired: the batch ended before the request was processed",
        "canceled": "was cancelled: the batch was cancelled before the request was answered",
        "invalid": f"was refused ({result.detail}); the same request would be refused again",
    }.get(result.kind, f"errored ({result.detail})")
    rounds = f"{request.rounds} batch{'es' if request.rounds != 1 else ''}"
    return ModelCallError(
        f"{where}: no answer after {rounds}: in the {batch.provider} batch {batch.batch_id} "
        f"the request {what}. Rerun to try again, or send such requests synchronously "
        "(fallback sync).",
        stage=ticket.stage,
        batch=ticket.batch,
    )


def _translated(
    exc: Exception, provider: str, sdk: Any, name: str, ticket: _Ticket
) -> ConfigurationError | ModelCallError:
    """A failed batch creation, as the synchronous call would report the same error."""
    import anthropic
    import openai

    if provider == OPENAI and isinstance(exc, openai.APIError):
        error = translate_openai_error(
            exc, stage=ticket.stage, batch=ticket.batch, model=name, client=sdk
        )
    elif provider == ANTHROPIC and isinstance(exc, anthropic.APIError):
        error = _translate(exc, stage=ticket.stage, batch=ticket.batch, model=name, client=sdk)
    else:
        error = ModelCallError(
            f"{_where(ticket.stage, ticket.batch)}: the {provider} batch could not be created "
            f"({type(exc).__name__}: {exc})",
            stage=ticket.stage,
            batch=ticket.batch,
        )
    error.__cause__ = exc
    return error


def _anthropic_results(sdk: Any, batch: _InFlight) -> dict[str, _Result]:
    results: dict[str, _Result] = {}
    for line in sdk.messages.batches.results(batch.batch_id):
        outcome = line.result
        if outcome.type == "succeeded":
            try:
                reply = message_reply(
                    outcome.message, stage="", batch=None, model="", latency_s=0.0, batched=True
                )
            except (AttributeError, TypeError) as exc:
                results[line.custom_id] = _Result("errored", detail=f"not a message: {exc}")
                continue
            results[line.custom_id] = _Result("succeeded", reply)
        elif outcome.type == "errored":
            error = getattr(getattr(outcome, "error", None), "error", None)
            kind = getattr(error, "type", "api_error")
            detail = f"{kind}: {getattr(error, 'message', '')}"
            results[line.custom_id] = _Result(
                "invalid" if kind in _NOT_RETRIED else "errored", detail=detail
            )
        else:  # canceled, expired
            results[line.custom_id] = _Result(str(outcome.type))
    _check_whole(batch, results)  # the API gives a result for every request of a batch
    return results


class IncompleteResults(Exception):
    """A batch's results, as downloaded, lack some of its requests: the download was cut
    short (a proxy, a dropped connection). A failed look at the batch, fetched again at the
    next poll; never a reason to submit the missing requests again (they were answered,
    and paid for)."""


def _check_whole(batch: _InFlight, results: Mapping[str, _Result]) -> None:
    """Raise IncompleteResults when ``results`` lack a request this run put in ``batch``
    (an attached batch's requests are not known: nothing to check)."""
    missing = (batch.custom_ids or frozenset()) - results.keys()
    if missing:
        count = len(batch.custom_ids or ())
        raise IncompleteResults(
            f"its results hold {count - len(missing)} of its {count} requests (cut short)"
        )


def _openai_results(sdk: Any, state: Any, batch: _InFlight) -> dict[str, _Result]:
    import openai

    results: dict[str, _Result] = {}
    for file_id in (state.output_file_id, state.error_file_id):
        if not file_id:
            continue
        for text in sdk.files.content(file_id).text.splitlines():
            if not text.strip():
                continue
            line = json.loads(text)
            results[str(line.get("custom_id"))] = _openai_result(line, openai)
    missing = {
        "cancelled": _Result("canceled"),
        "expired": _Result("expired"),
        "failed": _Result("errored", detail=f"the batch failed: {_batch_errors(state)}"),
    }.get(state.status)
    if missing is None:  # completed: every request is in the output or the error file
        _check_whole(batch, results)
    for custom_id in (batch.custom_ids or frozenset()) - results.keys():
        results[custom_id] = missing or _Result("errored", detail="not in the batch's output")
    return results


def _openai_result(line: Mapping[str, Any], openai: Any) -> _Result:
    error = line.get("error")
    if isinstance(error, Mapping):
        code = error.get("code")
        if code == "batch_expired":
            return _Result("expired")
        if code == "batch_cancelled":
            return _Result("canceled")
        return _Result("errored", detail=f"{code}: {error.get('message', '')}")
    response = line.get("response") or {}
    status = response.get("status_code")
    body = response.get("body") or {}
    if status == 200:
        try:
            completion = openai.types.chat.ChatCompletion.model_validate(body)
            reply = completion_reply(
                completion, stage="", batch=None, model="", latency_s=0.0, batched=True
            )
        except (ValueError, AttributeError, TypeError, IndexError) as exc:
            return _Result("errored", detail=f"not a chat completion: {exc}")
        return _Result("succeeded", reply)
    message = (body.get("error") or {}).get("message", "") if isinstance(body, Mapping) else ""
    retried = status in (408, 409, 429) or not isinstance(status, int) or status >= 500
    return _Result("errored" if retried else "invalid", detail=f"HTTP {status}: {message}")


def _batch_errors(state: Any) -> str:
    data = getattr(getattr(state, "errors", None), "data", None) or []
    return "; ".join(f"{e.code}: {e.message}" for e in data) or "no reason given"


def _progress_of(batch: _InFlight, state: Any) -> BatchProgress:
    """A batch still in flight, as the provider counts it."""
    if batch.provider == OPENAI:
        counts = state.request_counts
        total = counts.total if counts is not None else 0
        done = counts.completed if counts is not None else 0
        failed = counts.failed if counts is not None else 0
        status = "canceling" if state.status == "cancelling" else "in_progress"
        return BatchProgress(
            batch.provider,
            batch.batch_id,
            batch.round,
            status,
            total,
            total - done - failed,
            succeeded=done,
            errored=failed,
        )
    c = state.request_counts
    return BatchProgress(
        batch.provider,
        batch.batch_id,
        batch.round,
        str(state.processing_status),
        c.processing + c.succeeded + c.errored + c.canceled + c.expired,
        c.processing,
        succeeded=c.succeeded,
        errored=c.errored,
        canceled=c.canceled,
        expired=c.expired,
    )


def _ended(batch: _InFlight, results: Mapping[str, _Result]) -> BatchProgress:
    """An ended batch, each request counted by its result."""
    kinds = [r.kind for r in results.values()]
    return BatchProgress(
        batch.provider,
        batch.batch_id,
        batch.round,
        "ended",
        len(kinds),
        0,
        succeeded=kinds.count("succeeded"),
        errored=kinds.count("errored") + kinds.count("invalid"),
        canceled=kinds.count("canceled"),
        expired=kinds.count("expired"),
    )
