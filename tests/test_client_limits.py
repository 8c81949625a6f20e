"""One shared limit for a run's requests: in flight, per minute, and a 429 that pauses every
worker (``RequestLimits``), unit-tested with a fake clock and end to end against a loopback
server through the SDK."""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking._loopback import FakeMessagesServer, FakeReply, ParagraphModel
from agentic_chunking.cli import main
from agentic_chunking.client import ModelClient, RequestLimits, _limits, retry_after_seconds


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


def test_requests_per_minute_count_the_last_sixty_seconds_from_the_first_request() -> None:
    """Three a minute: three at once, then the fourth only when the first three are a
    minute old (a bucket that starts full let a fourth through 20 s later: six in the
    first minute's window)."""
    clock = Clock()
    limits = RequestLimits(max_in_flight=100, requests_per_minute=3, clock=clock)
    for _ in range(3):
        assert limits.try_acquire()
        limits.release()
    assert not limits.try_acquire()
    assert limits.ready_at() == 1060.0
    clock.now = 1059.999
    assert not limits.try_acquire()
    assert not _acquired_within(limits, seconds=0.1)  # acquire waits too
    clock.now = 1060.0
    with limits._condition:
        limits._condition.notify_all()
    time.sleep(0.1)
    assert limits.in_flight == 1  # the waiting acquire went through


def test_tokens_per_minute_and_a_request_larger_than_the_window_is_never_refused() -> None:
    """A request of 5,000 tokens under 1,000 a minute goes into an empty window, and
    nothing goes until it is a minute old."""
    clock = Clock()
    limits = RequestLimits(max_in_flight=10, tokens_per_minute=1000, clock=clock)
    assert limits.try_acquire(600)
    assert not limits.try_acquire(5000)  # only into an empty window
    assert limits.ready_at(5000) == 1060.0
    clock.now = 1060.0
    assert limits.try_acquire(5000)
    assert not limits.try_acquire(10)
    assert limits.ready_at(10) == 1120.0


def test_the_requests_and_tokens_windows_are_both_kept() -> None:
    clock = Clock()
    limits = RequestLimits(
        max_in_flight=10, requests_per_minute=2, tokens_per_minute=100, clock=clock
    )
    assert limits.try_acquire(90)
    clock.now += 10.0
    assert limits.ready_at(20) == 1060.0  # the tokens wait for the first request
    assert limits.try_acquire(10)
    clock.now += 10.0
    assert limits.ready_at(0) == 1060.0  # the requests, too: two in the window
    clock.now = 1060.0
    assert limits.ready_at(0) == 1060.0 and limits.ready_at(91) == 1070.0


WINDOW = 60.0


def _fits(sent: list[tuple[float, int]], at: float, tokens: int, rpm: int, tpm: int | None) -> bool:
    """Whether a request of ``tokens`` sent at ``at`` keeps the windows (the oracle: what
    was sent in the 60 s before ``at``, counted by brute force)."""
    recent = [w for t, w in sent if t + WINDOW > at]
    if len(recent) + 1 > rpm:
        return False
    return tpm is None or not recent or sum(recent) + min(tokens, tpm) <= tpm


@settings(max_examples=300, deadline=None)
@given(
    rpm=st.integers(1, 6),
    tpm=st.none() | st.integers(1, 5000),
    requests=st.lists(
        st.tuples(
            st.one_of(st.just(0.0), st.floats(0.0, 90.0, allow_nan=False)),
            st.integers(0, 10_000),
        ),
        min_size=1,
        max_size=40,
    ),
)
def test_every_window_keeps_both_limits_and_no_request_waits_needlessly(
    rpm: int, tpm: int | None, requests: list[tuple[float, int]]
) -> None:
    """Requests arriving after any gaps, of any weight, one after the other: each goes at
    the first moment both windows allow it (a moment earlier the limiter refuses it, and
    so does a brute-force count of the last 60 s), and then every window of 60 s, from
    the first request on, holds at most ``rpm`` requests and ``tpm`` tokens; a request
    weighing more than ``tpm`` shares no window with another request's tokens."""
    clock = Clock()
    limits = RequestLimits(
        max_in_flight=1, requests_per_minute=rpm, tokens_per_minute=tpm, clock=clock
    )
    sent: list[tuple[float, int]] = []
    arrival = clock.now
    for gap, tokens in requests:
        arrival += gap
        start = max(arrival, sent[-1][0] if sent else arrival)
        clock.now = start
        at = limits.ready_at(tokens)
        assert at >= start
        if at > start:  # it waits: a moment earlier would break a window
            clock.now = max(start, math.nextafter(at, -math.inf))
            assert not _fits(sent, clock.now, tokens, rpm, tpm)
            assert not limits.try_acquire(tokens)
        else:
            assert _fits(sent, at, tokens, rpm, tpm)
        clock.now = at
        assert limits.try_acquire(tokens)
        limits.release()
        sent.append((at, tokens))
    for first, _ in sent:
        window = [w for t, w in sent if first <= t < first + WINDOW]
        assert len(window) <= rpm
        if tpm is not None and any(w > tpm for w in window):
            assert len([w for w in window if w]) == 1  # no other tokens beside it
        elif tpm is not None:
            assert sum(window) <= tpm


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


SHORT_WINDOW = 2.0
"""The window the end-to-end tests count over (RATE_WINDOW_S shortened: seconds of wall
time, not minutes)."""
IN_TRANSIT = 0.8
"""How much later than it was let through a request may reach the server: the server's
windows are counted SHORT_WINDOW - IN_TRANSIT long."""


@pytest.mark.parametrize(
    ("option", "limit"), [("--requests-per-minute", 2), ("--tokens-per-minute", 1400)]
)
def test_corpus_keeps_every_window_from_the_first_request_as_the_server_sees_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str, limit: int
) -> None:
    """``corpus`` with a limit, three documents (three extraction requests of about 677
    tokens, then three grouping requests of about 423), the window shortened to 2 s: in
    the server's own arrival times, no window from the first request on holds more than
    the limit (a bucket that started full let three requests through in the first 1.2 s,
    and 2,031 tokens)."""
    monkeypatch.setattr(_limits, "RATE_WINDOW_S", SHORT_WINDOW)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-limit-window")
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"document_id": f"doc-{n}", "text": f"Alpha {n} is a fact.\n\nBeta {n}."})
            + "\n"
            for n in range(3)
        ),
        encoding="utf-8",
    )
    with FakeMessagesServer(handler=ParagraphModel()) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        command = ["corpus", str(corpus), "-o", str(tmp_path / "out.jsonl"), "--quiet"]
        assert main([*command, option, str(limit), "--max-concurrency", "4"]) == 0
        arrivals = [(r.received_at, len(r.raw_body) // 4) for r in server.requests]
    assert len(arrivals) == 6
    weigh = (lambda _: 1) if option == "--requests-per-minute" else (lambda tokens: tokens)
    span = SHORT_WINDOW - IN_TRANSIT
    for first, _ in arrivals:
        window = [weigh(tokens) for at, tokens in arrivals if first <= at < first + span]
        assert sum(window) <= limit, (option, arrivals)
