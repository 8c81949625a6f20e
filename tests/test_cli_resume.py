"""Resume: every reply of a chunk run is kept in a content-addressed cache; ``--resume``
sends no request that already answered (after a kill, or a failed grouping)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking._loopback import FakeMessagesServer, FakeReply, user_text
from agentic_chunking._models import CallUsage
from agentic_chunking.cli import main
from agentic_chunking.client import ModelReply
from agentic_chunking.pipeline import _cache
from agentic_chunking.pipeline._cache import ReplyCache, request_key
from agentic_chunking.pipeline._prompts import load_prompt

KEY = "sk-ant-resume-test-key"
REPO = Path(__file__).resolve().parent.parent
PARAGRAPHS = [f"Fact number {i} is true." for i in range(1, 7)]
ONE_A_BATCH = ["--max-tokens-per-batch", "6"]
"""24 characters a batch: each paragraph is one extraction call (six in all)."""


class CountingModel:
    """Echoes each paragraph as a proposition, groups all in one theme; counts requests by
    stage and batch text. While ``hold`` is set, extraction requests after the first
    ``answer_first`` wait until it is cleared (a run stuck half-way)."""

    def __init__(self, grouping: FakeReply | None = None) -> None:
        self.extraction: list[str] = []
        self.grouping = 0
        self.hold = threading.Event()
        self.released = threading.Event()
        self.answer_first = 3
        self._grouping_reply = grouping
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> FakeReply | str:
        text = user_text(body)
        if body["system"] == load_prompt("grouping").text:
            with self._lock:
                self.grouping += 1
            if self._grouping_reply is not None:
                return self._grouping_reply
            facts = [line.split(". ", 1)[1] for line in text.splitlines()[1:-1]]
            return json.dumps([{"category": "Facts", "facts": facts}])
        batch = text.removeprefix("<text>\n").removesuffix("\n</text>")
        with self._lock:
            self.extraction.append(batch)
            waits = self.hold.is_set() and len(self.extraction) > self.answer_first
        if waits:
            self.released.wait(60)
        return json.dumps(batch.split("\n\n"))


def _environment(server: FakeMessagesServer) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "doc.md"
    path.write_text("\n\n".join(PARAGRAPHS), encoding="utf-8")
    return path


def _chunk_held_at_the_fourth_call(
    document: Path, out: Path, server: FakeMessagesServer, model: CountingModel
) -> subprocess.Popen[str]:
    """``chunk document -o out`` in a process of its own, one call at a time, once three
    extraction calls are answered and the fourth is held by ``model``."""
    argv = [sys.executable, "-m", "agentic_chunking", "chunk", str(document), "-o", str(out)]
    argv += [*ONE_A_BATCH, "--max-concurrency", "1"]
    server._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign,assignment]
    child = subprocess.Popen(
        argv,
        env={**os.environ, **_environment(server)},
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while len(model.extraction) < 4 and time.monotonic() < deadline:  # 3 answered, 1 held
        time.sleep(0.05)
    assert len(model.extraction) == 4
    return child


def test_a_run_killed_half_way_resumes_without_repeating_an_answered_call(
    document: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.json"
    model = CountingModel()
    model.hold.set()
    with FakeMessagesServer(handler=model) as server:
        child = _chunk_held_at_the_fourth_call(document, out, server, model)
        child.send_signal(signal.SIGKILL)  # no chance to clean up: the hardest stop
        child.communicate(timeout=60)
        model.released.set()
        assert not out.exists()
        kept = sorted((tmp_path / "out.replies").glob("*.json"))
        assert len(kept) == 3  # the three answered calls, whole files only
        first_run = list(model.extraction)

        model.hold.clear()
        model.extraction.clear()
        for name, value in _environment(server).items():
            monkeypatch.setenv(name, value)
        assert main(["chunk", str(document), "-o", str(out), *ONE_A_BATCH, "--resume"]) == 0
    assert sorted(model.extraction) == PARAGRAPHS[3:]  # only the calls that never answered
    assert set(first_run[:3]).isdisjoint(model.extraction)
    assert model.grouping == 1
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["IsSuccess"] and result["TotalPropositions"] == 6
    cached = [c for c in result["Usage"]["Calls"] if c.get("Cached")]
    assert [c["Batch"] for c in cached] == [1, 2, 3]
    assert all(c["InputTokens"] > 0 for c in cached)  # what they cost when paid for


@pytest.mark.parametrize(
    ("stop", "status", "said"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "stopped by SIGTERM")],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_run_stopped_half_way_names_resume_in_its_one_line(
    document: Path, tmp_path: Path, stop: signal.Signals, status: int, said: str
) -> None:
    """A plain rerun would pay for the kept replies again: the stop's one line says
    --resume, as a failure's does."""
    out = tmp_path / "out.json"
    model = CountingModel()
    model.hold.set()
    with FakeMessagesServer(handler=model) as server:
        child = _chunk_held_at_the_fourth_call(document, out, server, model)
        child.send_signal(stop)
        _, err = child.communicate(timeout=60)
        model.released.set()
    assert child.returncode == status
    replies = tmp_path / "out.replies"
    assert err.splitlines()[-1] == (
        f"agentic-chunking chunk: {said}; no file was left half-written; the 3 model replies "
        f"of this run are kept in {replies}: rerun the same command with --resume to send "
        "none of them again"
    )
    assert len(list(replies.glob("*.json"))) == 3


def test_without_resume_a_rerun_calls_the_model_again(
    document: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.json"
    model = CountingModel()
    with FakeMessagesServer(handler=model) as server:
        for name, value in _environment(server).items():
            monkeypatch.setenv(name, value)
        assert main(["chunk", str(document), "-o", str(out), *ONE_A_BATCH]) == 0
        assert main(["chunk", str(document), "-o", str(out), *ONE_A_BATCH]) == 0
        assert len(model.extraction) == 12 and model.grouping == 2
        assert main(["chunk", str(document), "-o", str(out), *ONE_A_BATCH, "--resume"]) == 0
    assert len(model.extraction) == 12 and model.grouping == 2  # all answered before
    calls = json.loads(out.read_text())["Usage"]["Calls"]
    assert len(calls) == 7 and all(c.get("Cached") is True for c in calls)


def test_a_failed_grouping_is_rerun_without_paying_for_extraction_again(
    document: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    out = tmp_path / "out.json"
    cut = CountingModel(grouping=FakeReply(text='[{"category": "Fa', stop_reason="max_tokens"))
    with FakeMessagesServer(handler=cut) as server:
        for name, value in _environment(server).items():
            monkeypatch.setenv(name, value)
        assert main(["chunk", str(document), "-o", str(out), *ONE_A_BATCH]) == 1
    err = capsys.readouterr().err
    assert "rerun the same command with --resume" in err and "out.replies" in err
    assert len(cut.extraction) == 6
    good = CountingModel()
    with FakeMessagesServer(handler=good) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        argv = ["chunk", str(document), "-o", str(out), *ONE_A_BATCH, "--resume"]
        assert main([*argv, "--grouping-max-tokens", "5000"]) == 0
    assert good.extraction == [] and good.grouping == 1  # extraction all from the cache
    summary = capsys.readouterr().err.splitlines()[-1]
    assert "7 calls (6 from the reply cache, not paid again)" in summary


def test_a_reply_that_could_not_be_parsed_is_set_aside_and_asked_again_on_resume(
    document: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """A grouping reply no repair turn made readable fails the run; --resume against a
    model that now answers asks for it again (and for nothing else), while the paid
    replies that could not be parsed stay on disk as *.unparsed.json."""
    out = tmp_path / "out.json"
    prose = CountingModel(grouping=FakeReply(text="Here are your themes: facts, mostly."))
    with FakeMessagesServer(handler=prose) as server:
        for name, value in _environment(server).items():
            monkeypatch.setenv(name, value)
        assert main(["chunk", str(document), "-o", str(out), *ONE_A_BATCH]) == 1
    err = capsys.readouterr().err
    assert "could not be parsed" in err and "set aside as *.unparsed.json" in err
    assert prose.grouping == 2  # the reply and one repair turn
    replies = tmp_path / "out.replies"
    assert len(list(replies.glob("*.unparsed.json"))) == 2
    good = CountingModel()
    with FakeMessagesServer(handler=good) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert main(["chunk", str(document), "-o", str(out), *ONE_A_BATCH, "--resume"]) == 0
    assert good.extraction == [] and good.grouping == 1  # only the set-aside request
    assert len(list(replies.glob("*.unparsed.json"))) == 2  # paid replies never deleted


def test_resume_without_a_cache_is_refused_before_any_call(
    document: Path, tmp_path: Path, capsys: Any
) -> None:
    status = main(["chunk", str(document), "-o", str(tmp_path / "new.json"), "--resume"])
    assert status == 2
    assert "--resume: there is no reply cache at" in capsys.readouterr().err


def test_a_run_stopped_before_any_reply_leaves_no_empty_cache(
    document: Path, tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    existing = tmp_path / "kept.replies"
    existing.mkdir()  # a cache the user already had stays, even empty
    assert main(["chunk", str(document), "-o", str(tmp_path / "out.json")]) == 2
    assert main(["chunk", str(document), "-o", str(tmp_path / "kept.json")]) == 2
    assert "no Anthropic API key" in capsys.readouterr().err
    assert not (tmp_path / "out.replies").exists()
    assert existing.is_dir()


def _reply(text: str) -> ModelReply:
    usage = CallUsage("extraction", "m", 10, 2, "end_turn", 0.5, batch=1)
    return ModelReply(text=text, stop_reason="end_turn", usage=usage)


def test_the_key_is_what_decides_a_reply() -> None:
    base = {"model": "m", "system": "s", "messages": [{"role": "user", "content": "x"}]}
    key = request_key(**base, max_tokens=100)  # type: ignore[arg-type]
    assert key == request_key(**base, max_tokens=100)  # type: ignore[arg-type]
    assert key != request_key(**base, max_tokens=101)  # type: ignore[arg-type]
    assert key != request_key(**{**base, "model": "n"}, max_tokens=100)  # type: ignore[arg-type]
    other = {**base, "messages": [{"role": "user", "content": "y"}]}
    assert key != request_key(**other, max_tokens=100)  # type: ignore[arg-type]


def test_the_cache_writes_atomically_and_reads_only_when_resuming(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[Path] = []
    real = _cache.write_text_atomic
    monkeypatch.setattr(
        _cache,
        "write_text_atomic",
        lambda path, text: written.append(Path(path)) or real(path, text),
    )
    ReplyCache(tmp_path, read=False).put("k1", _reply('["A."]'))
    assert written == [tmp_path / "k1.json"]
    assert ReplyCache(tmp_path, read=False).get("k1", stage="extraction", batch=1) is None
    hit = ReplyCache(tmp_path, read=True).get("k1", stage="extraction", batch=4)
    assert hit is not None and hit.text == '["A."]' and hit.usage.cached
    assert (hit.usage.batch, hit.usage.input_tokens, hit.usage.latency_s) == (4, 10, 0.0)
    (tmp_path / "k2.json").write_text("{ cut", encoding="utf-8")
    assert ReplyCache(tmp_path, read=True).get("k2", stage="extraction", batch=1) is None
