"""The units of work a BatchClient's rounds wait for: ``BatchParticipant`` (one per
document, say), ``CountedTasks`` (threads it starts and waits for) and ``idle`` (a
thread of it waiting for something only a round can bring). While any thread of a
participant is working, the queue waits for it, so requests that documents make seconds
of work apart still go in one batch (see ``_batch``)."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from types import TracebackType
from typing import Any, Protocol, TypeVar


class Rounds(Protocol):
    """What a participant tells the client whose rounds wait for it (a BatchClient)."""

    def _activity(self, participant: BatchParticipant | None, change: int) -> None:
        """One more (``+1``) or one fewer (``-1``) thread of ``participant`` at work."""

    def _leave(self, participant: BatchParticipant) -> None:
        """``participant`` no longer takes part: the rounds stop waiting for it."""


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

    def __init__(self, client: Rounds, on_idle: Callable[[], None] | None = None) -> None:
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


def current_participant() -> BatchParticipant | None:
    """The participant the current thread (or context) works for, if any."""
    return _PARTICIPANT.get()
