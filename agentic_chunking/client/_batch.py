"""The providers' batch APIs (half the price) behind the ordinary call: ``BatchClient``.

``BatchClient`` is a ModelClient whose ``call`` does not send its request: it queues it
and blocks until the batch that carries it has ended, then returns the same ModelReply
the synchronous call would (its CallUsage marked ``batched``, priced at BATCH_DISCOUNT).
So the unchanged pipeline, run on many documents in threads with
``chunk_text_agentic(..., client=batch_client)``, sends all its extraction requests as
one batch, then all its grouping requests as the next, and so on.

Guarantees:
- one request body, whether sent alone or in a batch: a batch line carries the provider
  module's ``request_body``, what its ``call`` sends (Anthropic's ``params``, OpenAI's
  line ``body``); through the official SDKs only (``messages.batches`` for Anthropic;
  ``files`` + ``batches`` for OpenAI-compatible), in the provider modules: this engine
  never branches on the provider (``_registry``);
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
  (``batch_custom_id``, through ``canonical_sha256``): the same request gets the same id
  in every run, and identical requests waiting together are sent once (the first
  caller's usage is the paid one, the others are marked ``cached``: paid for by another
  call of this run);
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

import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .._errors import InputError, ModelCallError
from ._batch_records import BatchProgress, BatchUnreachableError, InFlight
from ._batch_rounds import BatchRounds, OnSubmitted, QueuedRequest, RoundSettings, Ticket, answer
from ._calls import ModelReply, ModelRequest, canonical_sha256, where
from ._config import DEFAULT_MAX_RETRIES, ModelRef, parse_model
from ._participants import BatchParticipant, current_participant
from ._registry import PROVIDERS, provider_module

__all__ = [
    "BATCH_LIMITS",
    "DEFAULT_HOLD_S",
    "DEFAULT_MAX_ROUNDS",
    "DEFAULT_POLL_INTERVAL_S",
    "DEFAULT_QUIET_S",
    "FALLBACKS",
    "BatchClient",
    "BatchProgress",
    "BatchUnreachableError",
    "batch_custom_id",
    "call_custom_id",
]

BATCH_LIMITS: Mapping[str, tuple[int, int]] = {
    name: wire.BATCH_LIMITS for name, wire in PROVIDERS.items()
}
"""Requests and bytes one batch may hold, per provider (each provider module's
BATCH_LIMITS, from its batch guide)."""
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


def batch_custom_id(provider: str, body: Mapping[str, Any]) -> str:
    """The custom_id of a request: the hex SHA-256 (64 characters, as both APIs allow) of
    its provider and body in canonical JSON, so the same request has the same id in every
    run."""
    return canonical_sha256([provider, body])


def call_custom_id(
    model: str, *, system: str, messages: Sequence[Mapping[str, str]], max_tokens: int
) -> str:
    """The custom_id a BatchClient gives the call ``call(model=model, system=..., ...)``:
    its provider's request body (``request_body``), hashed by ``batch_custom_id``."""
    ref = parse_model(model)
    request = ModelRequest.of(
        model=ref.name, system=system, messages=messages, max_tokens=max_tokens
    )
    return batch_custom_id(ref.provider, provider_module(ref.provider).request_body(request))


class BatchClient(BatchRounds):
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
        settings = RoundSettings(
            poll_interval_s=poll_interval_s,
            quiet_s=quiet_s,
            hold_s=hold_s,
            max_rounds=max_rounds,
            fallback=fallback,
            on_submitted=on_submitted,
            progress=progress,
            limits={**BATCH_LIMITS, **(batch_limits or {})},
        )
        super().__init__(
            settings,
            api_keys=api_keys,
            base_urls=base_urls,
            max_retries=max_retries,
            timeout=timeout,
            clients=clients,
        )

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
        ticket = Ticket(stage=stage, batch=batch, participant=current_participant())
        request = self._request(ref, system, messages, max_tokens)
        with self._cond:
            if self._unreachable is not None:
                raise self._unreachable.copy()
            if self._closed:
                raise ModelCallError(
                    f"{where(stage, batch)}: the batch client is closed", stage=stage, batch=batch
                )
            unclaimed = self._unclaimed.pop(request.custom_id, None)
            if unclaimed is not None:
                return answer(unclaimed, ticket, request, paid=True)
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
                self._batches[batch_id] = InFlight(
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
        self._fail(
            waiting,
            f"the batch client was closed before the batch answered (batches in flight: "
            f"{left}; attach to them in a rerun to keep their results)",
        )
        super().close()

    def _request(
        self,
        ref: ModelRef,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int,
    ) -> QueuedRequest:
        """The queue's record of one call: its provider's body, custom_id and batch line."""
        wire = provider_module(ref.provider)
        body = wire.request_body(
            ModelRequest.of(model=ref.name, system=system, messages=messages, max_tokens=max_tokens)
        )
        custom_id = batch_custom_id(ref.provider, body)
        line = wire.batch_line(custom_id, body)
        size = len(json.dumps(line).encode("utf-8")) + 1
        return QueuedRequest(custom_id, ref.provider, ref.name, line, size, time.monotonic())

    def _input_ids(self, provider: str, batch_id: str) -> frozenset[str] | None:
        """The custom_ids of an earlier batch, when its provider's API can list them (an
        OpenAI batch's input file); None otherwise, or when they cannot be read."""
        return provider_module(provider).input_ids(lambda: self.sdk(provider), batch_id)
