"""One shared limit for a run's requests: in flight, per minute, and a 429 that pauses every
worker (``RequestLimits``), unit-tested with a fake clock and end to end against a loopback
server through the SDK."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from agentic_chunking.client import ModelClient, RequestLimits, retry_after_seconds
from agentic_chunking.testing import FakeMessagesServer, FakeReply


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _acquired_within(limits: RequestLimits, tokens: int = 0, seconds: float = 0.3) -> bool:
    """Whether ``acquire`` returns within ``seconds`` (it keeps waiting in its thread)."""
    done = threading.Event()

    def take() -> None:
        limits.acquire(tokens)
        done.set()

    threading.Thread(target=take, daemon=True).start()
    return done.wait(seconds)


def test_no_more_than_max_in_flight_until_one_is_released() -> None:
    limits = RequestLimits(max_in_flight=2)
    limits.acquire()
    limits.acquire()
    assert not _acquired_within(limits, seconds=0.2)  # the third waits ...
    limits.release()
    time.sleep(0.2)  # ... and is let through by the release
    assert limits.in_flight == 2 and limits.peak_in_flight == 2


def test_requests_per_minute_are_a_bucket_that_refills_over_the_minute() -> None:
    clock = Clock()
    limits = RequestLimits(max_in_flight=100, requests_per_minute=3, clock=clock)
    for _ in range(3):
        limits.acquire()
        limits.release()
    assert not _acquired_within(limits, seconds=0.1)  # a fourth within the same instant waits
    clock.now += 20.0  # a third of a minute: one request's worth
    with limits._condition:
        limits._condition.notify_all()
    time.sleep(0.1)
    assert limits.in_flight == 1


def test_tokens_per_minute_and_a_request_larger_than_the_bucket_is_never_refused() -> None:
    clock = Clock()
    limits = RequestLimits(max_in_flight=10, tokens_per_minute=1000, clock=clock)
    limits.acquire(5000)  # larger than a minute's worth: taken from a full bucket, into debt
    limits.release()
    assert not _acquired_within(limits, tokens=10, seconds=0.1)
    clock.now += 300.0  # the debt is paid back after five minutes
    with limits._condition:
        limits._condition.notify_all()
    time.sleep(0.1)
    assert limits.in_flight == 1


def test_a_pause_holds_every_request_until_its_time() -> None:
    clock = Clock()
    limits = RequestLimits(max_in_flight=10, clock=clock)
    limits.pause(30.0)
    assert not _acquired_within(limits, seconds=0.1)
    clock.now += 31.0
    with limits._condition:
        limits._condition.notify_all()
    time.sleep(0.1)
    assert limits.in_flight == 1 and limits.rate_limited == 1


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after": "3"}, 3.0),
        ({}, None),
        ({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}, 600.0),
    ],
)
def test_retry_after_is_read_in_either_header(headers: dict[str, str], seconds: Any) -> None:
    assert retry_after_seconds(headers) == seconds


def test_bad_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="max_in_flight is 0"):
        RequestLimits(max_in_flight=0)


def test_a_429_seen_by_one_worker_pauses_the_others_through_the_sdk() -> None:
    """One request gets a 429 asking for 0.6 s; every request sent after it, by any thread,
    waits until the pause is over (the SDK's own retry of the first one too)."""
    sent: list[float] = []
    lock = threading.Lock()
    first = threading.Event()

    def handler(body: Any) -> FakeReply:
        with lock:
            sent.append(time.monotonic())
        if not first.is_set():
            first.set()
            return FakeReply(status=429, text="slow down", headers={"retry-after-ms": "600"})
        return FakeReply(text='["A fact."]')

    limits = RequestLimits(max_in_flight=4)
    with FakeMessagesServer(handler=handler) as server:
        client = ModelClient(
            api_keys={"anthropic": "sk-ant-limit-test"},
            base_urls={"anthropic": server.base_url},
            limits=limits,
            max_retries=2,
        )

        def call() -> None:
            client.call(
                stage="extraction",
                batch=1,
                model="claude-sonnet-4-6",
                system="s",
                messages=[{"role": "user", "content": "x"}],
                max_tokens=50,
            )

        client.ready("claude-sonnet-4-6")  # the SDK imported and built before any timing
        workers = [threading.Thread(target=call) for _ in range(4)]
        workers[0].start()  # gets the 429, then retries after the pause
        assert first.wait(60)
        time.sleep(0.15)  # its answer is in: the run is paused
        for worker in workers[1:]:  # the others start during the pause
            worker.start()
        for worker in workers:
            worker.join()
        paused_at = sent[0]
        client.close()
    assert limits.rate_limited == 1
    assert len(sent) == 5
    assert all(when - paused_at >= 0.55 for when in sent[1:])
