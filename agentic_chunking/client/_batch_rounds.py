"""The batch engine's background thread: rounds of requests submitted as batches, the
batches polled until they end, their results handed back to the waiting calls, and the
stop when a batch cannot be retrieved (BatchUnreachableError). ``BatchClient``
(``_batch``) is the callers' side of it; this is ``BatchRounds``, its base, which holds the
state both share under one condition (``_cond``). Provider-neutral: what a batch looks
like on the wire is the provider module's (``_registry.provider_module``); here the
engine decides only what each result kind means for the callers (see ``_batch``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .._errors import ConfigurationError, ModelCallError
from ._batch_records import (
    TRANSIENT_STATUSES,
    BatchProgress,
    BatchResult,
    BatchUnreachableError,
    InFlight,
)
from ._calls import ModelReply, where
from ._participants import BatchParticipant
from ._providers import ModelClient
from ._registry import provider_module

MAX_POLL_FAILURES = 5
"""Consecutive failed retrievals of a batch after which its callers are told (the batch
itself may still end: a rerun attaches to it)."""

OnSubmitted = Callable[[str, str, tuple[str, ...]], None]
"""``on_submitted(provider, batch_id, custom_ids)``."""


@dataclass(frozen=True, slots=True)
class RoundSettings:
    """How a BatchClient makes and watches its rounds (see BatchClient's arguments)."""

    poll_interval_s: float
    quiet_s: float
    hold_s: float
    max_rounds: int
    fallback: str
    on_submitted: OnSubmitted | None
    progress: Callable[[BatchProgress], None] | None
    limits: Mapping[str, tuple[int, int]]


@dataclass(eq=False)
class Ticket:
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
class QueuedRequest:
    """One request in the queue or waiting for its batch, with every call that asked it."""

    custom_id: str
    provider: str
    name: str  # the model's name at its provider
    line: dict[str, Any]  # the batch entry: Anthropic's {custom_id, params}, OpenAI's line
    size: int
    queued_at: float
    tickets: list[Ticket] = field(default_factory=list)
    rounds: int = 0


class BatchRounds(ModelClient):
    """The state of a batch client and its background thread (see the module)."""

    def __init__(self, settings: RoundSettings, **client: Any) -> None:
        super().__init__(**client)
        self._poll_interval_s = settings.poll_interval_s
        self._quiet_s = settings.quiet_s
        self._hold_s = settings.hold_s
        self._participants: set[BatchParticipant] = set()
        self._working = 0  # participants with a thread at work
        self._max_rounds = settings.max_rounds
        self._fallback = settings.fallback
        self._on_submitted = settings.on_submitted
        self._progress = settings.progress
        self._limits = dict(settings.limits)
        self._cond = threading.Condition()
        self._pending: dict[str, QueuedRequest] = {}
        self._load: dict[str, tuple[int, int]] = {}  # provider -> queued requests, bytes
        self._waiting: dict[str, QueuedRequest] = {}
        self._batches: dict[str, InFlight] = {}
        self._attached_ids: dict[str, str] = {}
        self._unclaimed: dict[str, ModelReply] = {}
        self._blind = 0
        self._last_arrival = 0.0
        self._round = 0
        self._closed = False
        self._unreachable: BatchUnreachableError | None = None
        self._thread: threading.Thread | None = None

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

    def _resume(self, ticket: Ticket, *, wake: bool = True) -> None:
        """Count ``ticket``'s participant at work again, once, then (``wake``) end its
        wait: counted when its answer is handed over, not when its thread next runs, so
        no round goes while answered documents have yet to ask again."""
        with self._cond:
            if not ticket.resumed:
                ticket.resumed = True
                self._activity(ticket.participant, +1)
        if wake:
            ticket.done.set()

    def _fail(
        self, requests: Iterable[QueuedRequest], why: str, cause: BaseException | None = None
    ) -> None:
        """End the wait of every call of ``requests`` with a ModelCallError naming its call,
        then ``why`` (``cause`` its ``__cause__``)."""
        for request in requests:
            for ticket in request.tickets:
                ticket.error = ModelCallError(
                    f"{where(ticket.stage, ticket.batch)}: {why}",
                    stage=ticket.stage,
                    batch=ticket.batch,
                )
                ticket.error.__cause__ = cause
                self._resume(ticket)

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

    def _take_round(self) -> list[QueuedRequest]:
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

    def _submit(self, requests: list[QueuedRequest]) -> None:
        """One round: a batch per provider (and per model where a batch names one model:
        BATCH_PER_MODEL), split at the limits."""
        groups: dict[tuple[str, str], list[QueuedRequest]] = {}
        for request in requests:
            per_model = provider_module(request.provider).BATCH_PER_MODEL
            model = request.name if per_model else ""
            groups.setdefault((request.provider, model), []).append(request)
        for (provider, _model), group in groups.items():
            count, size = self._limits[provider]
            for part in _split(group, count, size):
                self._create(provider, part)

    def _create(self, provider: str, requests: list[QueuedRequest]) -> None:
        """Submit ``requests`` as one batch of ``provider``; on a refusal, their callers get
        the error the synchronous call would have met."""
        sdk = self.sdk(provider)
        try:
            batch_id = provider_module(provider).create_batch(sdk, [r.line for r in requests])
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
            self._batches[batch_id] = InFlight(
                provider,
                batch_id,
                self._round,
                frozenset(ids),
                next_poll=time.monotonic() + self._poll_interval_s,
            )
        if self._on_submitted is not None:
            self._on_submitted(provider, batch_id, ids)
        self._report(
            BatchProgress(provider, batch_id, self._round, "submitted", len(ids), len(ids))
        )

    def _poll(self, batch: InFlight) -> None:
        """Retrieve ``batch``: report its progress, or hand its results out once it ended."""
        sdk = self.sdk(batch.provider)
        try:
            results = provider_module(batch.provider).poll_batch(sdk, batch)
        except Exception as exc:
            self._poll_failed(batch, exc)
            return
        if isinstance(results, BatchProgress):
            batch.failures = 0
            batch.next_poll = time.monotonic() + self._poll_interval_s
            self._report(results)
            return
        self._report(_ended(batch, results))
        self._dispatch(batch, results)

    def _poll_failed(self, batch: InFlight, exc: Exception) -> None:
        status = getattr(exc, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500 and status not in TRANSIENT_STATUSES:
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
        self._fail(
            mine,
            f"the {batch.provider} batch {batch.batch_id} could not be retrieved "
            f"{batch.failures} times in a row ({type(exc).__name__}: {exc}); it may still "
            "end: rerun to attach to it",
        )

    def _stop_unreachable(self, batch: InFlight, status: int, exc: Exception) -> None:
        """``batch`` cannot be retrieved, and will not be by asking again: stop (see
        BatchUnreachableError). Its requests are never submitted again, nor is any other
        round: whatever stands at the base URL would take the next batch as it took this
        one (116 paid batches of one request in 240 s, re-submitted silently, before)."""
        requests = len(batch.custom_ids) if batch.custom_ids is not None else None
        detail = " ".join(_server_said(exc).split())[:300]
        server = getattr(self.sdk(batch.provider), "base_url", None)
        counted = f" ({requests:,} requests)" if requests is not None else ""
        error = BatchUnreachableError(
            f"the {batch.provider} batch {batch.batch_id}{counted} could not be retrieved: "
            f"HTTP {status} ({detail}){f' from {server}' if server else ''}; it was accepted, "
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

    def _dispatch(self, batch: InFlight, results: Mapping[str, BatchResult]) -> None:
        """Answer the callers of each result; requeue, fail or hand back the others."""
        with self._cond:
            self._forget(batch)
            answered: list[tuple[QueuedRequest, BatchResult]] = []
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
                    answer(result.reply, ticket, request, paid=number == 0)
                elif self._fallback == "sync":
                    ticket.fallback = True
                else:
                    ticket.error = _failure(batch, request, result, ticket)
                self._resume(ticket)

    def _queue(self, request: QueuedRequest) -> None:
        """Queue ``request`` for the next round (under the lock)."""
        self._pending[request.custom_id] = request
        count, size = self._load.get(request.provider, (0, 0))
        self._load[request.provider] = (count + 1, size + request.size)
        self._last_arrival = time.monotonic()

    def _unqueue(self, custom_id: str) -> QueuedRequest:
        request = self._pending.pop(custom_id)
        count, size = self._load[request.provider]
        self._load[request.provider] = (count - 1, size - request.size)
        return request

    def _retries(self, request: QueuedRequest, result: BatchResult) -> bool:
        return (
            self._fallback != "sync"
            and result.kind != "invalid"
            and request.rounds < self._max_rounds
        )

    def _forget(self, batch: InFlight) -> None:
        """Drop an ended (or lost) batch from those in flight (under the lock)."""
        if self._batches.pop(batch.batch_id, None) is None:
            return
        if batch.custom_ids is None:
            self._blind -= 1
        for custom_id in batch.custom_ids or ():
            if self._attached_ids.get(custom_id) == batch.batch_id:
                del self._attached_ids[custom_id]

    def _report(self, record: BatchProgress) -> None:
        if self._progress is not None:
            self._progress(record)

    def _fail_everything(self, exc: BaseException) -> None:
        with self._cond:
            self._closed = True
            waiting = [*self._pending.values(), *self._waiting.values()]
            self._pending.clear()
            self._waiting.clear()
        if not isinstance(exc, BatchUnreachableError):
            self._fail(waiting, f"the batch client stopped ({type(exc).__name__}: {exc})", exc)
            return
        for request in waiting:
            for ticket in request.tickets:
                ticket.error = exc.copy()
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


def _split(requests: list[QueuedRequest], count: int, size: int) -> list[list[QueuedRequest]]:
    """``requests`` in order, cut into parts of at most ``count`` requests and ``size``
    bytes (a request larger than ``size`` goes alone: the provider says what is wrong)."""
    parts: list[list[QueuedRequest]] = []
    current: list[QueuedRequest] = []
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


def answer(reply: ModelReply, ticket: Ticket, request: QueuedRequest, *, paid: bool) -> ModelReply:
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


def _failure(
    batch: InFlight, request: QueuedRequest, result: BatchResult, ticket: Ticket
) -> Exception:
    """What a request's callers are told when no batch answered it."""
    here = where(ticket.stage, ticket.batch)
    what = {
        "expired": "expired: the batch ended before the request was processed",
        "canceled": "was cancelled: the batch was cancelled before the request was answered",
        "invalid": f"was refused ({result.detail}); the same request would be refused again",
    }.get(result.kind, f"errored ({result.detail})")
    rounds = f"{request.rounds} batch{'es' if request.rounds != 1 else ''}"
    return ModelCallError(
        f"{here}: no answer after {rounds}: in the {batch.provider} batch {batch.batch_id} "
        f"the request {what}. Rerun to try again, or send such requests synchronously "
        "(fallback sync).",
        stage=ticket.stage,
        batch=ticket.batch,
    )


def _translated(
    exc: Exception, provider: str, sdk: Any, name: str, ticket: Ticket
) -> ConfigurationError | ModelCallError:
    """A failed batch creation, as the synchronous call would report the same error."""
    wire = provider_module(provider)
    error: ConfigurationError | ModelCallError
    if wire.owns(exc):
        error = wire.translate_error(
            exc, stage=ticket.stage, batch=ticket.batch, model=name, client=sdk
        )
    else:
        error = ModelCallError(
            f"{where(ticket.stage, ticket.batch)}: the {provider} batch could not be created "
            f"({type(exc).__name__}: {exc})",
            stage=ticket.stage,
            batch=ticket.batch,
        )
    error.__cause__ = exc
    return error


def _ended(batch: InFlight, results: Mapping[str, BatchResult]) -> BatchProgress:
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
