"""One limit on the requests of a whole run, shared by every thread that calls a model.

``RequestLimits`` bounds what a run sends, whatever the number of documents and threads:
at most ``max_in_flight`` requests at once, and optionally ``requests_per_minute`` and
``tokens_per_minute`` (token buckets that refill continuously, so a burst never exceeds
one minute's allowance). A 429 with ``retry-after`` (or ``retry-after-ms``) seen by any
request pauses every request of the run until that time, not only the one that got it:
the SDK's own retry of that request waits too, since it passes through the same gate.

It acts at the HTTP layer (``limited_http_client``: a transport around the SDKs' own), so
each attempt, retries included, is counted, and a request that fails in transit releases
its place. Guarantees: never more than ``max_in_flight`` requests between acquire and
release; over any window of 60 s, at most one minute's requests and tokens plus the
bucket's capacity; thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from ._config import offline_http_client

RETRY_AFTER_LIMIT_S = 600.0
"""The longest pause a server's ``retry-after`` may impose on a run (a larger value, or a
date, is read as this)."""


class RequestLimits:
    """The run's shared gate (see the module). ``clock`` is for tests."""

    def __init__(
        self,
        *,
        max_in_flight: int,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        clock: Callable[[], float] = time.monotonic,
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
        now = clock()
        self._requests = _Bucket(requests_per_minute, now)
        self._tokens = _Bucket(tokens_per_minute, now)
        self.peak_in_flight = 0
        """The most requests that were in flight at once (for tests and benchmarks)."""
        self.rate_limited = 0
        """How many answers were a 429 (each paused the whole run)."""

    def acquire(self, tokens: int = 0) -> None:
        """Wait until a request of about ``tokens`` tokens may be sent, and count it in flight."""
        with self._condition:
            while True:
                now = self._clock()
                wait = max(
                    self._paused_until - now,
                    self._requests.wait(1, now),
                    self._tokens.wait(tokens, now),
                )
                if self._in_flight < self.max_in_flight and wait <= 0:
                    self._requests.take(1, now)
                    self._tokens.take(tokens, now)
                    self._in_flight += 1
                    self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
                    return
                self._condition.wait(timeout=None if wait <= 0 else min(wait, 1.0))

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


class _Bucket:
    """A token bucket of one minute's ``per_minute`` capacity, refilled continuously; no
    limit when ``per_minute`` is None. A request larger than the capacity waits for a full
    bucket and takes it into debt, so it is never refused."""

    def __init__(self, per_minute: float | None, now: float) -> None:
        self._rate = None if per_minute is None else per_minute / 60.0
        self._capacity = per_minute or 0.0
        self._level = self._capacity
        self._at = now

    def _refill(self, now: float) -> None:
        if self._rate is not None:
            self._level = min(self._capacity, self._level + (now - self._at) * self._rate)
            self._at = now

    def wait(self, amount: float, now: float) -> float:
        """Seconds until ``amount`` may be taken (0 when it may now)."""
        if self._rate is None:
            return 0.0
        self._refill(now)
        needed = min(amount, self._capacity) - self._level
        return 0.0 if needed <= 0 else needed / self._rate

    def take(self, amount: float, now: float) -> None:
        if self._rate is not None:
            self._refill(now)
            self._level -= amount


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
