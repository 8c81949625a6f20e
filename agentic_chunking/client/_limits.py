"""One limit on the requests of a whole run, shared by every thread that calls a model.

``RequestLimits`` bounds what a run sends, whatever the number of documents and threads:
at most ``max_in_flight`` requests at once, and optionally ``requests_per_minute`` and
``tokens_per_minute``, each counted over a sliding window of RATE_WINDOW_S (60) seconds:
the requests sent in the last 60 s are remembered with their times and weights, and a
request goes as soon as it fits beside them, not before and not later. A 429 with
``retry-after`` (or ``retry-after-ms``) seen by any request pauses every request of the
run until that time, not only the one that got it: the SDK's own retry of that request
waits too, since it passes through the same gate.

It acts at the HTTP layer (``limited_http_client``: a transport around the SDKs' own), so
each attempt, retries included, is counted, and a request that fails in transit releases
its place. Guarantees:

- never more than ``max_in_flight`` requests between acquire and release;
- from the first request on, no window of 60 s (any start, half-open ``[t, t + 60)``)
  holds more than ``requests_per_minute`` requests, nor more than ``tokens_per_minute``
  tokens; a single request weighing more than ``tokens_per_minute`` is never refused: it
  goes when the last 60 s hold nothing, and nothing goes in the 60 s after it;
- no needless wait: a request waits only for the in-flight cap, a pause, or the moment
  the oldest requests leave the window far enough for it to fit;
- thread-safe; memory is the requests of the last 60 s.

Waiting requests are not served in arrival order: a small request may pass a large one
that does not fit yet.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from ._config import offline_http_client

RETRY_AFTER_LIMIT_S = 600.0
"""The longest pause a server's ``retry-after`` may impose on a run (a larger value, or a
date, is read as this)."""
RATE_WINDOW_S = 60.0
"""The window every per-minute limit is counted over, in seconds (a test may shorten it
to run in seconds of wall time; the limits then hold per this window)."""


class RequestLimits:
    """The run's shared gate (see the module). ``clock`` is for tests, and so is
    ``window_s`` (default RATE_WINDOW_S): the per-minute limits hold over any window of
    that many seconds."""

    def __init__(
        self,
        *,
        max_in_flight: int,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        window_s: float | None = None,
    ) -> None:
        for name, value in (
            ("max_in_flight", max_in_flight),
            ("requests_per_minute", requests_per_minute),
            ("tokens_per_minute", tokens_per_minute),
        ):
            if value is not None and value <= 0:
                raise ValueError(f"{name} is {value}; expected a positive number")
        self.max_in_flight = max_in_flight
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self._clock = clock
        self._condition = threading.Condition()
        self._in_flight = 0
        self._paused_until = 0.0
        window = RATE_WINDOW_S if window_s is None else window_s
        if window <= 0:
            raise ValueError(f"window_s is {window}; expected a positive number")
        self._requests = SlidingWindow(requests_per_minute, window)
        self._tokens = SlidingWindow(tokens_per_minute, window)
        self.peak_in_flight = 0
        """The most requests that were in flight at once (for tests and benchmarks)."""
        self.rate_limited = 0
        """How many answers were a 429 (each paused the whole run)."""

    def acquire(self, tokens: int = 0) -> None:
        """Wait until a request of about ``tokens`` tokens may be sent, and count it in flight."""
        with self._condition:
            while not self._try_acquire(tokens):
                now = self._clock()
                wait = self._ready_at(tokens, now) - now
                self._condition.wait(timeout=None if wait <= 0 else min(wait, 1.0))

    def try_acquire(self, tokens: int = 0) -> bool:
        """Count a request of about ``tokens`` tokens in flight if it may be sent now (True),
        else change nothing (False); never waits."""
        with self._condition:
            return self._try_acquire(tokens)

    def ready_at(self, tokens: int = 0) -> float:
        """The earliest time (by the clock) a request of ``tokens`` tokens may be sent as the
        windows and a pause stand now; the in-flight cap aside."""
        with self._condition:
            return self._ready_at(tokens, self._clock())

    def _ready_at(self, tokens: int, now: float) -> float:
        return max(
            now,
            self._paused_until,
            self._requests.ready_at(1, now),
            self._tokens.ready_at(tokens, now),
        )

    def _try_acquire(self, tokens: int) -> bool:
        now = self._clock()
        if self._in_flight >= self.max_in_flight or self._ready_at(tokens, now) > now:
            return False
        self._requests.take(1, now)
        self._tokens.take(tokens, now)
        self._in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        return True

    def release(self) -> None:
        """A request has its answer (or failed): its place is free."""
        with self._condition:
            self._in_flight -= 1
            self._condition.notify_all()

    def pause(self, seconds: float) -> None:
        """No request of the run is sent for ``seconds`` (a 429's ``retry-after``)."""
        with self._condition:
            self.rate_limited += 1
            until = self._clock() + min(max(seconds, 0.0), RETRY_AFTER_LIMIT_S)
            self._paused_until = max(self._paused_until, until)
            self._condition.notify_all()

    @property
    def in_flight(self) -> int:
        with self._condition:
            return self._in_flight


class SlidingWindow:
    """What was sent in the last ``window_s`` seconds, to keep any window of that length
    within ``limit`` (no limit when it is None).

    Each ``take(amount, now)`` is remembered as ``(now, amount)`` until ``window_s`` has
    passed; ``ready_at(amount, now)`` is the earliest time, ``now`` or later, at which
    ``amount`` fits beside what is still in the window (a window is half-open: what was
    sent at ``t`` has left it at ``t + window_s``). An amount larger than ``limit`` is
    weighed as the whole limit: it fits only in an empty window. Takes must come in time
    order. Not thread-safe (RequestLimits holds its lock)."""

    def __init__(self, limit: float | None, window_s: float) -> None:
        self.limit = limit
        self.window_s = window_s
        self._sent: deque[tuple[float, float]] = deque()
        self._total = 0.0

    def _forget(self, now: float) -> None:
        while self._sent and self._sent[0][0] + self.window_s <= now:
            self._total -= self._sent.popleft()[1]
        if not self._sent:
            self._total = 0.0  # no drift from the float sums

    def ready_at(self, amount: float, now: float) -> float:
        """The earliest time, not before ``now``, at which ``amount`` may be taken."""
        if self.limit is None:
            return now
        self._forget(now)
        excess = self._total + min(amount, self.limit) - self.limit
        if excess <= 0:
            return now
        freed = 0.0
        for at, sent in self._sent:  # the oldest leave first
            freed += sent
            if freed >= excess:
                return at + self.window_s
        return self._sent[-1][0] + self.window_s  # float sums short by a hair: all gone

    def take(self, amount: float, now: float) -> None:
        """Count ``amount`` as sent at ``now``."""
        if self.limit is not None and amount > 0:
            self._sent.append((now, amount))
            self._total += amount


def retry_after_seconds(headers: Any) -> float | None:
    """The pause a response asks for: ``retry-after-ms`` (milliseconds) or ``retry-after``
    (seconds), None when neither is a number."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) / scale
        except ValueError:  # an HTTP date: wait the longest we allow
            return RETRY_AFTER_LIMIT_S
    return None


def limited_http_client(limits: RequestLimits, *, estimate_tokens: Callable[[bytes], int]) -> Any:
    """An HTTP client (the SDKs' own library) whose every request passes ``limits``:
    ``estimate_tokens(body)`` is the request's weight for the tokens-per-minute bucket."""
    try:
        import httpx2 as http
    except ImportError:  # an SDK release still on httpx
        import httpx as http  # type: ignore[no-redef]

    class LimitedTransport(http.BaseTransport):
        def __init__(self) -> None:
            self._inner = http.HTTPTransport()

        def handle_request(self, request: Any) -> Any:
            limits.acquire(estimate_tokens(request.content))
            try:
                response = self._inner.handle_request(request)
                response.read()  # the whole answer, so the place is held until it is in
            finally:
                limits.release()
            if response.status_code == 429:
                limits.pause(retry_after_seconds(response.headers) or 1.0)
            return response

        def close(self) -> None:
            self._inner.close()

    return http.Client(transport=LimitedTransport(), follow_redirects=True)


def sdk_http_client(*, offline: bool, limits: RequestLimits | None) -> Any:
    """The HTTP client to build an SDK client with: None (the SDK's default), the replay's
    (``offline``: no network transport), or one whose every request passes ``limits``
    (weighed at one token per four bytes of the request body)."""
    if offline:
        return offline_http_client()
    if limits is not None:
        return limited_http_client(limits, estimate_tokens=lambda body: len(body) // 4)
    return None
