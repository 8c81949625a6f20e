"""The batches of a fake batch server and their life (``BatchBook``): created, polled,
ended or cancelled, each request answered or failed as a ``fault`` function scripts
(``BATCH_FAULTS``). Shared by the Message Batches and the Batch API fakes."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Self

from ._server import FakeReply, Handler, Lifetime, LoopbackServer

BATCH_FAULTS = ("errored", "invalid", "expired", "canceled")
"""What a ``fault`` function may script for one request of a batch: ``errored`` (a server
error, worth retrying), ``invalid`` (the request refused, HTTP 400), ``expired`` (not
processed within the batch's window), ``canceled`` (the batch cancelled before it ran)."""
BatchFault = Callable[[str, int], "str | None"]
"""``fault(custom_id, submission)``: a kind of BATCH_FAULTS for the ``submission``-th
(1-based) submission of that request, or None to answer it with the scripted reply."""
PollFault = Callable[[str, int], "int | None"]
"""``poll_fault(batch_id, poll)``: the HTTP status to answer the ``poll``-th (1-based)
retrieval of that batch with instead of its state (a proxy that does not pass batch
retrievals through: 404; one that is overloaded: 503), or None to answer it."""


BATCH_ROUTE = re.compile(r"^/v1/(?:messages/)?batches/([^/?]+)(/results|/cancel)?$")


@dataclass
class FakeBatch:
    """One batch as a fake batch server holds it: ``requests`` are ``(custom_id, body,
    submission)``; ``results`` (set when it ends) are ``(custom_id, kind, reply)`` with
    kind ``succeeded`` or one of BATCH_FAULTS (``errored`` and ``invalid`` with the error
    reply)."""

    id: str
    number: int
    requests: list[tuple[str, Any, int]]
    polls: int = 0
    status: str = "in_progress"  # then "canceling", "ended"
    cancelled: bool = False
    results: list[tuple[str, str, FakeReply | None]] | None = None


class BatchBook:
    """The batches of a fake batch server and their life: created, polled, ended after
    ``polls_to_end`` retrievals (or cancelled), each request then answered by ``answer``
    unless ``fault`` scripts otherwise; ``submissions`` counts how often each custom_id
    was submitted (a client must never send a request twice)."""

    def __init__(
        self,
        *,
        polls_to_end: int,
        fault: BatchFault | None,
        cancel_batches: Iterable[int],
        poll_fault: PollFault | None = None,
    ) -> None:
        if polls_to_end < 1:
            raise ValueError("polls_to_end must be 1 or more")
        self.polls_to_end = polls_to_end
        self.fault = fault
        self.cancel_batches = frozenset(cancel_batches)
        self.poll_fault = poll_fault
        self.submissions: dict[str, int] = {}
        self.batches: dict[str, FakeBatch] = {}
        self.refused_polls: dict[str, int] = {}
        self.lock = threading.Lock()

    def create(self, prefix: str, requests: Sequence[tuple[str, Any]]) -> FakeBatch | str:
        """A new batch, or why it is refused (an empty batch, a custom_id given twice)."""
        ids = [custom_id for custom_id, _ in requests]
        if not ids:
            return "a batch needs at least one request"
        if len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})[0]
            return f"custom_id {twice!r} is given more than once in the batch"
        with self.lock:
            number = len(self.batches) + 1
            numbered = []
            for custom_id, body in requests:
                self.submissions[custom_id] = self.submissions.get(custom_id, 0) + 1
                numbered.append((custom_id, body, self.submissions[custom_id]))
            batch = FakeBatch(id=f"{prefix}{number:06d}", number=number, requests=numbered)
            self.batches[batch.id] = batch
        return batch

    def refused(self, batch_id: str) -> int | None:
        """The HTTP status ``poll_fault`` scripts for this retrieval of ``batch_id`` (counted
        in ``refused_polls``), or None: the retrieval is answered."""
        if self.poll_fault is None:
            return None
        with self.lock:
            seen = self.refused_polls.get(batch_id, 0)
            answered = self.batches[batch_id].polls if batch_id in self.batches else 0
            status = self.poll_fault(batch_id, seen + answered + 1)
            if status is not None:
                self.refused_polls[batch_id] = seen + 1
            return status

    def poll(self, batch_id: str, answer: Callable[[Any], FakeReply]) -> FakeBatch | None:
        """Count one retrieval of ``batch_id``; end it when due (None: no such batch)."""
        with self.lock:
            batch = self.batches.get(batch_id)
            if batch is None or batch.results is not None:
                return batch
            batch.polls += 1
            if batch.number in self.cancel_batches:
                batch.cancelled = True
            if batch.polls < self.polls_to_end and not batch.cancelled:
                return batch
        results = [self._result(batch, c, body, n, answer) for c, body, n in batch.requests]
        with self.lock:
            batch.results, batch.status = results, "ended"
        return batch

    def cancel(self, batch_id: str) -> FakeBatch | None:
        with self.lock:
            batch = self.batches.get(batch_id)
            if batch is not None and batch.results is None:
                batch.cancelled, batch.status = True, "canceling"
            return batch

    def _result(
        self,
        batch: FakeBatch,
        custom_id: str,
        body: Any,
        submission: int,
        answer: Callable[[Any], FakeReply],
    ) -> tuple[str, str, FakeReply | None]:
        kind = "canceled" if batch.cancelled else None
        if kind is None and self.fault is not None:
            kind = self.fault(custom_id, submission)
        if kind in ("expired", "canceled"):
            return custom_id, kind, None
        if kind == "errored":
            return custom_id, kind, FakeReply(status=500, text="scripted server error")
        if kind == "invalid":
            return custom_id, kind, FakeReply(status=400, text="scripted invalid request")
        if kind is not None:
            raise ValueError(f"fault returned {kind!r}; expected one of {BATCH_FAULTS} or None")
        reply = answer(body)
        return custom_id, ("succeeded" if reply.status == 200 else "errored"), reply

    def counts(self, batch: FakeBatch) -> dict[str, int]:
        kinds = [kind for _, kind, _ in batch.results or ()]
        return {
            "processing": len(batch.requests) if batch.results is None else 0,
            "succeeded": kinds.count("succeeded"),
            "errored": kinds.count("errored") + kinds.count("invalid"),
            "canceled": kinds.count("canceled"),
            "expired": kinds.count("expired"),
        }


class BatchServing(LoopbackServer):
    """What a fake batch server adds to its API's fake, the same for both: the ``book`` of
    its batches and a bounded life (it stops serving by itself after ``lifetime_s``
    seconds). Put first among the bases (``class X(BatchServing, FakeMessagesServer)``):
    its ``__init__`` gives the replies or handler to the API's fake, then opens the book;
    ``start`` and ``stop`` start and cancel the lifetime around the API's own. A subclass
    with state of its own sets it in ``_open_files``, called at the end of ``__init__``."""

    def __init__(
        self,
        replies: Iterable[FakeReply | str] = (),
        *,
        handler: Handler | None = None,
        polls_to_end: int = 1,
        fault: BatchFault | None = None,
        cancel_batches: Iterable[int] = (),
        poll_fault: PollFault | None = None,
        lifetime_s: float = 300.0,
    ) -> None:
        super().__init__(replies, handler=handler)
        self.book = BatchBook(
            polls_to_end=polls_to_end,
            fault=fault,
            cancel_batches=cancel_batches,
            poll_fault=poll_fault,
        )
        self._lifetime = Lifetime(self, lifetime_s)
        self._open_files()

    def _open_files(self) -> None:
        """Set the subclass's own state (nothing here)."""

    def start(self) -> Self:
        super().start()
        self._lifetime.start()
        return self

    def stop(self) -> None:
        self._lifetime.cancel()
        super().stop()
