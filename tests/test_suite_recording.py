"""`pytest --record` as a separate process against a loopback Messages API: a run that does
not complete (SIGINT, SIGTERM, kill) leaves the previous cassette byte for byte, and a
run that completes replaces it. Never the network: FakeMessagesServer on 127.0.0.1.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking._loopback import FakeMessagesServer, FakeReply
from agentic_chunking.suite import ReferenceServer, load_case, load_replies

REPO = Path(__file__).resolve().parent.parent
CASE = "TC-001"  # one extraction call, then one grouping call
MODEL = "loopback-model"
OLD_CASSETTE = b"# a cassette recorded earlier: any bytes, kept as they are\ninteractions: []\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the suite's wiring with one case and an earlier cassette of MODEL."""
    (tmp_path / "cases" / "reference_replies").mkdir(parents=True)
    shutil.copy(REPO / "cases" / f"{CASE}.yaml", tmp_path / "cases")
    shutil.copy(
        REPO / "cases" / "reference_replies" / f"{CASE}.yaml",
        tmp_path / "cases" / "reference_replies",
    )
    (tmp_path / "tests").mkdir()
    shutil.copy(REPO / "tests" / "test_cases.py", tmp_path / "tests")
    shutil.copy(REPO / "conftest.py", tmp_path)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    cassette = tmp_path / "cassettes" / MODEL / f"{CASE}.yaml"
    cassette.parent.mkdir(parents=True)
    cassette.write_bytes(OLD_CASSETTE)
    return tmp_path


class _HoldGrouping:
    """Answer TC-001 with its reference replies, but hold the grouping call until released."""

    def __init__(self, project: Path) -> None:
        case = load_case(project / "cases" / f"{CASE}.yaml")
        self._reference = ReferenceServer()
        self._reference.use(case, load_replies(case, project / "cases" / "reference_replies"))
        self.grouping_asked = threading.Event()
        self.release = threading.Event()

    def __call__(self, body: Any) -> FakeReply:
        if "group" in str(body.get("system", "")).lower() and len(body["messages"]) == 1:
            self.grouping_asked.set()
            self.release.wait(60)
        return self._reference(body)


def _record(project: Path, base_url: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "sk-test-not-a-key",
        "ANTHROPIC_BASE_URL": base_url,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "pytest_recording.plugin",
        "-p",
        "no:cacheprovider",
        "tests/test_cases.py",
        "-k",
        CASE,
        "--record",
        "--model",
        MODEL,
    ]
    return subprocess.Popen(
        command, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


@pytest.fixture
def held(project: Path) -> Iterator[tuple[_HoldGrouping, FakeMessagesServer]]:
    handler = _HoldGrouping(project)
    with FakeMessagesServer(handler=handler) as server:
        try:
            yield handler, server
        finally:
            handler.release.set()


@pytest.mark.parametrize(
    ("stop", "status"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -signal.SIGKILL)],
)
def test_a_run_stopped_mid_case_leaves_the_previous_cassette_byte_for_byte(
    project: Path,
    held: tuple[_HoldGrouping, FakeMessagesServer],
    stop: signal.Signals,
    status: int,
) -> None:
    handler, server = held
    process = _record(project, server.base_url)
    try:
        assert handler.grouping_asked.wait(90), "the recording never reached the grouping call"
        process.send_signal(stop)
        output, _ = process.communicate(timeout=90)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == status, output.decode()  # issue 24: 130 and 143, as the CLI
    if stop == signal.SIGTERM:
        assert "agentic-chunking: stopped by SIGTERM" in output.decode()
    assert len(server.requests) == 2  # the extraction was answered, the grouping held
    folder = project / "cassettes" / MODEL
    assert (folder / f"{CASE}.yaml").read_bytes() == OLD_CASSETTE, output.decode()
    assert sorted(p.name for p in folder.iterdir()) == [f"{CASE}.yaml"]  # no stray file


def test_a_completed_recording_replaces_the_previous_cassette(
    project: Path, held: tuple[_HoldGrouping, FakeMessagesServer]
) -> None:
    handler, server = held
    handler.release.set()
    process = _record(project, server.base_url)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 0, output.decode()
    text = (project / "cassettes" / MODEL / f"{CASE}.yaml").read_text()
    assert text.encode() != OLD_CASSETTE
    assert text.count("uri: ") == 3  # extraction, grouping and the judge, all recorded


class _IgnoresMaxTokens:
    """TC-001's reference replies, each padded far past any max_tokens (whitespace the
    pipeline's parse skips): a server that is not the model's API."""

    def __init__(self, project: Path) -> None:
        case = load_case(project / "cases" / f"{CASE}.yaml")
        self._reference = ReferenceServer()
        self._reference.use(case, load_replies(case, project / "cases" / "reference_replies"))

    def __call__(self, body: Any) -> FakeReply:
        reply = self._reference(body)
        padding = " " * (body["max_tokens"] * 40)
        return FakeReply(text=reply.text + padding, output_tokens=10)


def test_a_recording_from_a_server_ignoring_max_tokens_keeps_the_previous_cassette(
    project: Path,
) -> None:
    with FakeMessagesServer(handler=_IgnoresMaxTokens(project)) as server:
        process = _record(project, server.base_url)
        output, _ = process.communicate(timeout=120)
    said = output.decode()
    assert process.returncode == 1, said
    assert "the server ignores max_tokens, so it is not the model's API" in said
    assert "Traceback" not in said
    folder = project / "cassettes" / MODEL
    assert (folder / f"{CASE}.yaml").read_bytes() == OLD_CASSETTE
    assert sorted(p.name for p in folder.iterdir()) == [f"{CASE}.yaml"]
