"""Issue 15's fault trials, each pinned: no traceback, no lost or half-written file.

Every live path runs against a server on 127.0.0.1 started here (FakeMessagesServer or a
tiny http.server for replies no Messages API would give). A full disk is simulated with
RLIMIT_FSIZE in a subprocess (writes past the limit fail with EFBIG, as ENOSPC would),
Ctrl-C with SIGINT to a subprocess.
"""

from __future__ import annotations

import io
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking import client as client_api
from agentic_chunking._loopback import FakeMessagesServer, FakeReply, user_text
from agentic_chunking.cli import main
from agentic_chunking.client import _anthropic as _client
from agentic_chunking.client import _calls
from agentic_chunking.pipeline._prompts import load_prompt

KEY = "sk-ant-faults-test-key"
REPO = Path(__file__).resolve().parent.parent
REPORT_FIXTURES = Path(__file__).parent / "fixtures" / "report"
Run = Callable[..., tuple[int, str, str]]


def echo_model(body: dict[str, Any]) -> FakeReply | str:
    """Each paragraph of a batch becomes one proposition; the grouping puts all in one chunk."""
    text = user_text(body)
    if body["system"] == load_prompt("grouping").text:
        facts = [line.split(". ", 1)[1] for line in text.splitlines()[1:-1]]
        return json.dumps([{"category": "Everything", "facts": facts}])
    return json.dumps(text.removeprefix("<text>\n").removesuffix("\n</text>").split("\n\n"))


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AGENTIC_CHUNKING_MODEL", "AGENTIC_CHUNKING_TIMEOUT", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """``main([...])`` in-process: (exit status, stdout, stderr); never a traceback."""

    def invoke(*argv: str | Path) -> tuple[int, str, str]:
        status = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert "Traceback" not in err and KEY not in out + err
        return status, out, err

    return invoke


def serve(monkeypatch: pytest.MonkeyPatch, server: FakeMessagesServer, path: str = "") -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url + path)
    # A reply sent after the client gave up (timeout, Ctrl-C) is a broken pipe in the
    # server's thread; keep socketserver's report of it out of the CLI's stderr.
    server._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]


ONE_PARAGRAPH_A_BATCH = ("--max-tokens-per-batch", "6")
"""24 characters: each "Fact number N is true." (22) is a batch of its own, never packed."""
ONE_A_BATCH = 6


def document(tmp_path: Path, paragraphs: int = 3, name: str = "doc.md") -> Path:
    path = tmp_path / name
    path.write_text("\n\n".join(f"Fact number {i} is true." for i in range(1, paragraphs + 1)))
    return path


ONE_PER_BATCH = ("--max-tokens-per-batch", "6")
"""A batch limit that one paragraph of ``document`` fills: tests that script "batch 2" keep
one paragraph per batch now that small input chunks are packed together."""


def leftovers(directory: Path, *expected: str) -> list[str]:
    """Files in ``directory`` other than ``expected`` (a temporary file left behind); none
    when it does not exist (a reply cache that kept nothing is removed)."""
    if not directory.exists():
        return []
    return sorted(p.name for p in directory.iterdir() if p.name not in expected)


# -- item 1: the output path, atomic writes, the failure document ----------------------


def test_output_equal_to_the_input_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    doc = document(tmp_path)
    before = doc.read_bytes()
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", doc, "-o", doc)
    assert status == 2 and "is the input file" in err
    assert server.requests == [] and doc.read_bytes() == before


def test_the_failure_document_may_not_replace_the_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    chunks = tmp_path / "out.failed.json"  # where a failed run with -o out.json would write
    chunks.write_text(json.dumps([{"chunk_id": "C1", "text": "Fact number 1 is true."}]))
    before = chunks.read_bytes()
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", chunks, "-o", tmp_path / "out.json")
        assert status == 2 and "out.failed.json is the input file" in err
        assert server.requests == [] and chunks.read_bytes() == before
        status, _, err = run("chunk", chunks, "-o", tmp_path / "out.json", "--on-failure", "write")
    assert status == 0, err


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing/out.json", "does not exist"),
        (".", "is a directory"),
        ("/dev/null", "is not a regular file"),
    ],
)
def test_a_bad_output_path_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, target: str, message: str
) -> None:
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path), "-o", tmp_path / target)
    assert status == 2 and message in err and server.requests == []


def test_a_read_only_output_directory_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    # The probe creates a temporary file in the directory; a read-only file system
    # refuses it with EROFS (simulated: the tests run as root, for whom chmod is no bar).
    def read_only(*args: object, **kwargs: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr("agentic_chunking.cli._io.tempfile.TemporaryFile", read_only)
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path), "-o", tmp_path / "out.json")
    assert status == 2 and "cannot write in" in err and "Read-only file system" in err
    assert server.requests == []


def _limited_file_size() -> None:  # runs in the child before exec
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))


def cli(
    *argv: str | Path, env: dict[str, str] | None = None, full_disk: bool = False
) -> subprocess.Popen[str]:
    """The command line in a subprocess (``python -m agentic_chunking``)."""
    return subprocess.Popen(
        [sys.executable, "-m", "agentic_chunking", *map(str, argv)],
        env={**os.environ, **(env or {})},
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_limited_file_size if full_disk else None,
    )


def test_full_disk_keeps_the_previous_report(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_text("<p>the previous report</p>\n")
    child = cli(
        "report",
        REPORT_FIXTURES / "results-reference.json",
        "-o",
        out,
        "--no-plots",
        full_disk=True,
    )
    _, err = child.communicate(timeout=120)
    assert child.returncode == 2, err
    assert "Traceback" not in err and f"cannot write {out}" in err
    assert out.read_text() == "<p>the previous report</p>\n"
    assert leftovers(tmp_path, "report.html") == []


def test_full_disk_keeps_the_previous_chunk_output(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_text('{"previous": true}\n')
    long_fact = "The fact is long. " * 1200  # the response JSON is well over 16 KiB
    with FakeMessagesServer(
        handler=lambda body: (
            echo_model(body)
            if body["system"] == load_prompt("grouping").text
            else json.dumps([long_fact])
        )
    ) as server:
        child = cli(
            "chunk",
            document(tmp_path, 1),
            "-o",
            out,
            "--max-chunk-tokens",  # one proposition of 5,400 tokens: allowed here
            "10000",
            env={"ANTHROPIC_BASE_URL": server.base_url},
            full_disk=True,
        )
        _, err = child.communicate(timeout=120)
    assert child.returncode == 2, err
    assert "Traceback" not in err and f"cannot write {out}" in err
    assert "model replies could not be kept in" in err  # the reply cache was full too
    assert out.read_text() == '{"previous": true}\n'
    assert leftovers(tmp_path, "out.json", "doc.md", "out.replies") == []
    assert leftovers(tmp_path / "out.replies") == []


def grouping_answers(reply: FakeReply) -> Callable[[dict[str, Any]], FakeReply | str]:
    """The grouping call gets ``reply``; the extraction calls echo."""

    def handler(body: dict[str, Any]) -> FakeReply | str:
        return reply if body["system"] == load_prompt("grouping").text else echo_model(body)

    return handler


def batch_two_fails(failure: FakeReply | str) -> Callable[[dict[str, Any]], FakeReply | str]:
    """Batch 2 (the paragraph with "number 2") gets ``failure``, repair turns too; the rest echo."""

    def handler(body: dict[str, Any]) -> FakeReply | str:
        grouping = body["system"] == load_prompt("grouping").text
        asks_batch_two = "number 2" in json.dumps(body["messages"])
        return failure if asks_batch_two and not grouping else echo_model(body)

    return handler


def test_a_failed_run_keeps_the_previous_output_and_saves_what_was_extracted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "out.json"
    out.write_text('{"previous": true}\n')
    with FakeMessagesServer(handler=batch_two_fails("no JSON here at all")) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path), "-o", out, *ONE_PARAGRAPH_A_BATCH)
    assert status == 1
    assert out.read_text() == '{"previous": true}\n'
    failed = json.loads((tmp_path / "out.failed.json").read_text())
    assert failed["IsSuccess"] is False and failed["FailedBatches"] == [2]
    assert [e["Batch"] for e in failed["Extracted"]] == [1, 3]
    assert failed["Extracted"][0]["Propositions"] == ["Fact number 1 is true."]
    assert "out.json was kept as it was" in err and "out.failed.json" in err
    assert "2 propositions extracted before the failure" in err


def test_on_failure_write_puts_the_failure_document_in_the_output(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "out.json"
    out.write_text('{"previous": true}\n')
    with FakeMessagesServer(handler=batch_two_fails("no JSON here at all")) as server:
        serve(monkeypatch, server)
        status, _, err = run(
            "chunk", document(tmp_path), "-o", out, "--on-failure", "write", *ONE_PARAGRAPH_A_BATCH
        )
    assert status == 1 and f"written to {out}" in err
    assert json.loads(out.read_text())["FailedBatches"] == [2]
    assert not (tmp_path / "out.failed.json").exists()


def test_a_failed_model_call_exits_3_and_keeps_the_propositions_before_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "out.json"
    broken = FakeReply(status=500, text="boom", headers={"x-should-retry": "false"})
    with FakeMessagesServer(handler=batch_two_fails(broken)) as server:
        serve(monkeypatch, server)
        status, _, err = run(
            "chunk", document(tmp_path), "-o", out, "--max-concurrency", "1", *ONE_PARAGRAPH_A_BATCH
        )
    assert status == 3 and "call for batch 2 failed with HTTP 500" in err
    assert not out.exists()
    failed = json.loads((tmp_path / "out.failed.json").read_text())
    assert failed["FailedBatches"] == [2]
    assert failed["Extracted"] == [
        {"Batch": 1, "ChunkIds": ["P0001"], "Propositions": ["Fact number 1 is true."]}
    ]
    # batch 3 was not started after batch 2 failed outright: no money spent on a lost run
    assert not any("number 3" in user_text(r.body) for r in server.requests)


# -- item 2 and 5: replies no Messages API gives, and messages that say what is true ---


class _RawServer:
    """A loopback HTTP server answering every POST with one fixed status, type and body."""

    def __init__(self, status: int, content_type: str, body: bytes) -> None:
        reply = (status, content_type, body)

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                code, kind, data = reply
                self.send_response(code)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> _RawServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize(
    ("content_type", "body", "what"),
    [
        ("text/html", b"<html><body><h1>Welcome to nginx!</h1></body></html>", "not JSON"),
        ("application/json", b'{"id": "msg_1", "type": "mess', "invalid JSON"),
        ("application/json", b'{"hello": "world"}', "JSON, but"),
    ],
    ids=["html", "cut-json", "other-json"],
)
def test_a_200_reply_that_is_not_a_message_is_one_plain_line(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    run: Run,
    content_type: str,
    body: bytes,
    what: str,
) -> None:
    with _RawServer(200, content_type, body) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 3
    assert "answered HTTP 200 with a body that is not a Messages-API reply" in err
    assert what in err and "ANTHROPIC_BASE_URL" in err and len(err.splitlines()) == 1


def test_a_404_on_a_base_url_with_a_path_says_check_the_base_url(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server, "/v1")  # requests go to /v1/v1/messages
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 2 and "check the base URL" in err and "/v1/v1/messages" in err
    assert "model" not in err.split("check the base URL")[0].split(":", 2)[-1]


def test_a_404_naming_the_model_says_the_model_is_unknown(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    reply = FakeReply(status=404, text="model: claude-nope")
    with FakeMessagesServer([reply]) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 1), "--model", "claude-nope")
    assert status == 2 and "'claude-nope' was not found" in err and "--model" in err


@pytest.mark.parametrize(
    ("stage", "advice"),
    [("extraction", "lower --max-tokens-per-batch"), ("grouping", "chunk the document in parts")],
)
def test_a_413_says_the_request_is_too_large_not_lower_concurrency(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, stage: str, advice: str
) -> None:
    too_large = FakeReply(status=413, text="request too large")

    def handler(body: dict[str, Any]) -> FakeReply | str:
        grouping = body["system"] == load_prompt("grouping").text
        return too_large if grouping == (stage == "grouping") else echo_model(body)

    with FakeMessagesServer(handler=handler) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 2))
    assert status == 3 and "HTTP 413" in err and advice in err
    assert "concurrency" not in err


@pytest.mark.parametrize("url", ["localhost:8080", "http//127.0.0.1:9", "ftp://127.0.0.1"])
def test_a_malformed_base_url_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, url: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 2 and repr(url) in err and "ANTHROPIC_BASE_URL" in err


def test_an_unreachable_server_names_the_url(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    with _RawServer(200, "text/plain", b"") as server:
        url = server.base_url  # closed on exit: nothing listens there any more
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 3 and f"could not reach {url}" in err and "Connection error." not in err


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("http://user:{secret}@{host}/v1", 2),  # 404: check the base URL
        ("{host}/?key={secret}", 2),  # malformed: no scheme
        ("http://user:{secret}@{host}", 3),  # the server is gone: could not reach
    ],
)
def test_no_secret_in_a_base_url_reaches_a_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, template: str, expected: int
) -> None:
    secret = "sk-ant-api03-" + "s" * 24
    server = FakeMessagesServer(handler=echo_model).start()
    host = server.base_url.removeprefix("http://")
    if expected == 3:
        server.stop()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", template.format(secret=secret, host=host))
    try:
        status, out, err = run("chunk", document(tmp_path, 1))
    finally:
        server.stop()
    assert status == expected and "ANTHROPIC_BASE_URL" in err
    assert secret not in out + err


# -- item 4: timeouts, wait notices, max_tokens that need streaming --------------------


@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_hung_server_times_out_with_a_plain_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, how: str
) -> None:
    hung = FakeReply(text='["Never in time."]', delay_s=3.0)
    option: list[str] = []
    if how == "option":
        option = ["--timeout", "0.3"]
    else:
        monkeypatch.setenv("AGENTIC_CHUNKING_TIMEOUT", "0.3")
    with FakeMessagesServer(handler=lambda body: hung) as server:
        serve(monkeypatch, server)
        started = time.monotonic()
        status, _, err = run("chunk", document(tmp_path, 1), *option)
    assert status == 3 and "no reply from" in err and "0.3 s timeout" in err
    assert "--timeout SECONDS" in err and time.monotonic() - started < 10


def test_the_default_timeout_is_minutes_not_half_an_hour() -> None:
    assert 60 <= client_api.DEFAULT_TIMEOUT_S <= 300
    client = _client.make_client(api_key="k", base_url="http://127.0.0.1:9")
    assert client.timeout.read == client_api.DEFAULT_TIMEOUT_S  # type: ignore[union-attr]


@pytest.mark.parametrize("value", ["soon", "0", "-5", "inf"])
def test_a_bad_timeout_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, value: str
) -> None:
    monkeypatch.setenv("AGENTIC_CHUNKING_TIMEOUT", value)
    status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 2 and "AGENTIC_CHUNKING_TIMEOUT" in err and repr(value) in err


def test_a_long_call_prints_a_progress_line_while_in_flight(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    monkeypatch.setattr(_calls, "WAIT_NOTICE_S", 0.2)
    slow = FakeReply(text='["Fact number 1 is true."]', delay_s=0.9)
    with FakeMessagesServer(
        handler=lambda body: (
            echo_model(body) if body["system"] == load_prompt("grouping").text else slow
        )
    ) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 0
    assert "extraction call for batch 1: still waiting for the model" in err
    assert "s so far; the timeout is 120 s per attempt)" in err


def test_no_progress_line_for_a_quick_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    monkeypatch.setattr(_calls, "WAIT_NOTICE_S", 0.5)
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 0 and "still waiting" not in err


@pytest.mark.parametrize(
    ("flag", "model", "limit"),
    [
        ("--grouping-max-tokens", "claude-haiku-4-5", client_api.NONSTREAMING_MAX_TOKENS),
        ("--extraction-max-tokens", "claude-opus-4-20250514", 8192),
    ],
)
def test_max_tokens_that_need_streaming_are_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, flag: str, model: str, limit: int
) -> None:
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path), flag, str(limit + 1), "--model", model)
        assert status == 2 and f"{flag} {limit + 1} is above {limit}" in err
        assert f"give {flag} {limit} or less" in err and server.requests == []
        status, _, err = run("chunk", document(tmp_path), flag, str(limit), "--model", model)
    assert status == 0, err


@pytest.mark.parametrize(
    ("max_tokens", "advice"),
    [
        ("4000", "raise grouping_max_tokens (--grouping-max-tokens, up to 21333)"),
        ("21333", "grouping_max_tokens is already the most one call allows (21333)"),
    ],
)
def test_a_cut_grouping_never_blames_the_batch_size_or_advises_past_the_limit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, max_tokens: str, advice: str
) -> None:
    cut = FakeReply(text='[{"category": "A", "facts": ["Fact', stop_reason="max_tokens")
    with FakeMessagesServer(handler=grouping_answers(cut)) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 2), "--grouping-max-tokens", max_tokens)
    assert status == 1 and advice in err and "chunk the document in parts" in err
    assert "max_tokens_per_batch" not in err and "--max-tokens-per-batch" not in err


# -- item 2: input files --------------------------------------------------------------


def test_a_directory_is_called_a_directory(tmp_path: Path, run: Run) -> None:
    status, _, err = run("chunk", tmp_path)
    assert status == 2 and "is a directory" in err and "unknown file type" not in err


def test_a_nul_only_file_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    doc = tmp_path / "zeros.txt"
    doc.write_bytes(b"\x00" * 64)
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", doc)
    assert status == 2 and "NUL bytes" in err and server.requests == []


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"chunk_id": 7, "text": "A fact."}, "chunk_id 7 is a int, not a string"),
        ({"chunk_id": "C1", "text": ["A fact."]}, "text is a list, not a string"),
        ({"text": "A fact."}, "has no chunk_id"),
        ({"chunk_id": "C1"}, "has no text"),
    ],
)
def test_a_wrongly_typed_field_is_not_called_missing(
    tmp_path: Path, run: Run, item: dict[str, Any], message: str
) -> None:
    path = tmp_path / "chunks.json"
    path.write_text(json.dumps([item]))
    status, _, err = run("chunk", path)
    assert status == 2 and message in err


def test_a_chunk_list_of_nul_text_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    path = tmp_path / "chunks.json"
    path.write_text(json.dumps([{"chunk_id": "C1", "text": "\u0000\u0000"}]))
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", path)
    assert status == 2 and "only NUL characters" in err and server.requests == []


# -- item 3: Ctrl-C -------------------------------------------------------------------


def test_ctrl_c_stops_at_once_with_one_line_and_no_half_written_file(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_text('{"previous": true}\n')
    slow = FakeReply(text='["A fact."]', delay_s=8.0)
    with FakeMessagesServer(handler=lambda body: slow) as server:
        child = cli(
            "chunk",
            document(tmp_path, 6),
            "-o",
            out,
            *ONE_PARAGRAPH_A_BATCH,
            env={"ANTHROPIC_BASE_URL": server.base_url},
        )
        deadline = time.monotonic() + 60
        while len(server.requests) < 4 and time.monotonic() < deadline:  # 4 calls in flight
            time.sleep(0.05)
        assert len(server.requests) == 4
        interrupted = time.monotonic()
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=30)
        took = time.monotonic() - interrupted
    assert child.returncode == 130 and took < 2.0
    assert err.splitlines() == [
        "agentic-chunking chunk: interrupted; no file was left half-written"
    ]
    assert out.read_text() == '{"previous": true}\n'
    assert leftovers(tmp_path, "out.json", "doc.md", "out.replies") == []
    replies = tmp_path / "out.replies"  # gone when no reply was kept before the Ctrl-C
    assert not replies.exists() or all(p.suffix == ".json" for p in replies.iterdir())
    assert len(server.requests) == 4  # the queued batches were cancelled, not sent


def test_a_closed_stdout_ends_quietly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # As `| head -c 10` closes the pipe: the write fails with EPIPE (simulated: the pipes
    # of this sandbox never report EPIPE, so a real pipe cannot show it here).
    class ClosedPipe:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self) -> int:
            raise io.UnsupportedOperation("fileno")

    monkeypatch.chdir(tmp_path)  # the report goes to ./reports/
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    status = main(["report", str(REPORT_FIXTURES / "results-reference.json"), "--no-plots"])
    assert status == 141 and capsys.readouterr().err == ""


# -- exit codes, documented ------------------------------------------------------------


def test_the_docs_document_every_exit_code() -> None:
    from agentic_chunking import cli as cli_module

    page = (REPO / "docs" / "failures.md").read_text(encoding="utf-8")
    section = page.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for code in (
        cli_module.EXIT_OK,
        cli_module.EXIT_FAILED,
        cli_module.EXIT_USAGE,
        cli_module.EXIT_MODEL_CALL,
        cli_module.EXIT_INTERRUPTED,
        cli_module.EXIT_BROKEN_PIPE,
        cli_module.EXIT_SOFTWARE,
        cli_module.EXIT_TERMINATED,
    ):
        assert f"| {code} |" in section


# -- item 2: a results file given to `report`, validated by schema --------------------


def test_six_wrongly_typed_fields_give_six_plain_lines(tmp_path: Path, run: Run) -> None:
    data = json.loads((REPORT_FIXTURES / "results-reference.json").read_text())
    data["prompt_versions"] = ["extraction.v1"]
    data["cases"][0]["checks"] = []
    data["cases"][1]["inputs"] = "one chunk"
    data["cases"][2]["response"]["Chunks"] = {"ChunkId": "X"}
    data["cases"][3]["expected"] = [1, 2]
    data["cases"][0]["usage"] = "lots"
    bad = tmp_path / "results-bad.json"
    bad.write_text(json.dumps(data))
    status, _, err = run("report", bad, "-o", tmp_path / "out.html")
    assert status == 2 and "(6 fields)" in err and str(bad) in err
    listed = [line.strip() for line in err.splitlines() if line.startswith("  ")]
    ids = [case["id"] for case in data["cases"]]
    assert [line.split(":")[0] for line in listed] == [
        "prompt_versions",
        f"cases[0] ({ids[0]!r}).checks",
        f"cases[0] ({ids[0]!r}).usage",
        f"cases[1] ({ids[1]!r}).inputs",
        f"cases[2] ({ids[2]!r}).response.Chunks",
        f"cases[3] ({ids[3]!r}).expected",
    ]
    assert "found 'lots'" in err and not (tmp_path / "out.html").exists()


def test_a_valid_results_file_passes_the_schema(tmp_path: Path, run: Run) -> None:
    status, _, err = run(
        "report",
        REPORT_FIXTURES / "results-reference.json",
        "-o",
        tmp_path / "out.html",
        "--no-plots",
    )
    assert status == 0, err


def test_report_output_on_a_read_only_file_system_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "out.html"
    out.write_text("previous")

    def read_only(path: object, text: str, **options: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr("agentic_chunking.cli._io.write_text_atomic", read_only)
    status, _, err = run("report", REPORT_FIXTURES / "results-reference.json", "-o", out)
    assert status == 2 and f"cannot write {out}: Read-only file system" in err
    assert out.read_text() == "previous"


def test_report_into_an_unwritable_reports_folder_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports").write_text("a file where the reports folder should be")
    status, _, err = run("report", REPORT_FIXTURES / "results-reference.json", "--no-plots")
    assert status == 2 and "reports" in err and "choose another place with -o" in err
    assert len(err.splitlines()) == 1


def test_report_output_equal_to_a_results_file_is_refused(tmp_path: Path, run: Run) -> None:
    results = tmp_path / "results.json"
    results.write_text((REPORT_FIXTURES / "results-reference.json").read_text())
    before = results.read_bytes()
    status, _, err = run("report", results, "-o", results)
    assert status == 2 and "is the input file" in err and results.read_bytes() == before


# -- item 2 and 5: a broken cassette or case file in the suite ------------------------


@pytest.mark.parametrize(
    ("corrupt", "problem"),
    [
        (lambda text: "", "is empty"),
        (lambda text: text[:200], "is not valid YAML at line"),
        (lambda text: "\x00\x01\x02 binary", "holds binary data"),
        (lambda text: text.replace('"stop_reason":', '"stop_reas', 1)[:-1], "cut off"),
        (lambda text: "version: 1\n", "lacks the field 'interactions'"),
        (lambda text: text.replace("version: 1", "version: 99"), "has format version 99, not 1"),
    ],
    ids=["empty", "truncated", "binary", "cut-reply", "no-interactions", "version"],
)
def test_a_corrupt_cassette_is_named_with_the_rerecord_command(
    tmp_path: Path, corrupt: Callable[[str], str], problem: str
) -> None:
    from agentic_chunking.suite._cassette_check import check_cassette

    path = tmp_path / "TC-001.yaml"
    path.write_text(corrupt((REPO / "cassettes" / "reference" / "TC-001.yaml").read_text()))
    error = check_cassette(path, case_id="TC-001", model="claude-x")
    assert error is not None and problem in str(error) and str(path) in str(error)
    assert "pytest tests/test_cases.py -k TC-001 --record --model claude-x" in str(error)


def test_a_directory_at_a_cassette_path_is_named_as_such(tmp_path: Path) -> None:
    from agentic_chunking.suite._cassette_check import check_cassette

    (tmp_path / "TC-001.yaml").mkdir()
    error = check_cassette(tmp_path / "TC-001.yaml", case_id="TC-001", model="claude-x")
    assert error is not None and "is a directory" in str(error) and "stale" not in str(error)


def test_every_shipped_cassette_passes_the_check() -> None:
    from agentic_chunking.suite._cassette_check import check_cassette

    cassettes = sorted((REPO / "cassettes").rglob("*.yaml"))
    assert len(cassettes) >= 32
    for path in cassettes:
        assert check_cassette(path, case_id=path.stem, model=path.parent.name) is None


def test_a_missing_cassette_is_left_to_the_replay_message(tmp_path: Path) -> None:
    from agentic_chunking.suite._cassette_check import check_cassette

    assert check_cassette(tmp_path / "TC-001.yaml", case_id="TC-001", model="m") is None


@pytest.fixture
def suite_copy(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> pytest.Pytester:
    """The suite's wiring and three cases (TC-001 to TC-003) with their reference cassettes.

    Run in-process as tests/test_suite_plugin.py does: what the inner run imports that
    cannot be imported twice (numpy, matplotlib) is loaded here first; no plugin autoload.
    """
    from agentic_chunking.report import RunResults, build_report

    build_report([RunResults(model="warm-up")], reports_dir=tmp_path_factory.mktemp("warm"))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    for folder in ("cases", "cassettes/reference", "tests"):
        (pytester.path / folder).mkdir(parents=True)
    for case_id in ("TC-001", "TC-002", "TC-003"):
        for folder in ("cases", "cassettes/reference"):
            (pytester.path / folder / f"{case_id}.yaml").write_bytes(
                (REPO / folder / f"{case_id}.yaml").read_bytes()
            )
    (pytester.path / "tests" / "test_cases.py").write_bytes(
        (REPO / "tests" / "test_cases.py").read_bytes()
    )
    (pytester.path / "conftest.py").write_bytes((REPO / "conftest.py").read_bytes())
    return pytester


def test_a_case_that_cannot_run_is_an_error_in_the_results_not_a_pass(
    suite_copy: pytest.Pytester,
) -> None:
    broken = {"TC-002": "cassettes/reference/TC-002.yaml", "TC-003": "cases/TC-003.yaml"}
    for path in broken.values():
        (suite_copy.path / path).write_bytes(b"\x00\xff binary garbage")
    result = suite_copy.runpytest(
        "--import-mode=importlib",
        "-p",
        "no:cacheprovider",
        "-p",
        "pytest_recording.plugin",
        "tests/test_cases.py::test_case",
    )
    output = result.stdout.str()
    assert "Traceback" not in output and "site-packages" not in output  # no library frames
    result.stdout.fnmatch_lines(["*1/3 cases passed*"])
    results = json.loads((suite_copy.path / "reports" / "results-reference.json").read_text())
    outcomes = {case["id"]: case["outcome"] for case in results["cases"]}
    assert outcomes == {"TC-001": "passed", "TC-002": "error", "TC-003": "error"}
    for case in results["cases"][1:]:
        assert str(suite_copy.path / broken[case["id"]]) in case["error"]
        assert str(suite_copy.path / broken[case["id"]]) in output


# -- split: -o and --overlap ------------------------------------------------------------

SPLIT_TEXT = (
    "Cats purr and cats sleep. Cats purr and cats eat. Cats purr and cats play.\n\n"
    "Battery cells store charge. Battery cells store heat. Battery cells store power.\n"
)


@pytest.mark.usefixtures("hashing")
def test_split_output_equal_to_the_input_is_refused(tmp_path: Path, run: Run) -> None:
    doc = tmp_path / "pets.md"
    doc.write_text(SPLIT_TEXT)
    status, _, err = run("split", doc, "-o", doc)
    assert status == 2 and "is the input file" in err and doc.read_text() == SPLIT_TEXT


@pytest.mark.usefixtures("hashing")
@pytest.mark.parametrize(("overlap", "warned"), [(5, True), (1, False), (0, False)])
def test_split_says_when_the_overlap_is_larger_than_a_chunk(
    tmp_path: Path, run: Run, overlap: int, warned: bool
) -> None:
    doc = tmp_path / "pets.md"
    doc.write_text(SPLIT_TEXT)
    status, out, err = run(
        "split", doc, "--threshold", "0.5", "--window", "1", "--overlap", str(overlap)
    )
    assert status == 0 and len(json.loads(out)) == 2
    assert (f"--overlap {overlap} was not met for 1 of 1 chunks" in err) is warned


@pytest.mark.usefixtures("hashing")
def test_split_on_a_full_disk_keeps_the_previous_output(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    doc = tmp_path / "pets.md"
    doc.write_text(SPLIT_TEXT)
    out = tmp_path / "out.json"
    out.write_text("[]\n")

    def full(path: object, text: str, **options: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("agentic_chunking.cli._io.write_text_atomic", full)
    status, _, err = run("split", doc, "-o", out)
    assert status == 2 and "No space left on device" in err and out.read_text() == "[]\n"


# -- the library: what a failure keeps, what an interrupt abandons ---------------------


def test_a_failed_call_keeps_the_extracted_propositions_on_the_error() -> None:
    from agentic_chunking import AgenticChunkInput, AgenticResponse, ModelCallError
    from agentic_chunking import chunk_text_agentic as chunk

    broken = FakeReply(status=529, headers={"x-should-retry": "false"})
    inputs = [AgenticChunkInput(f"C{i}", f"Fact number {i} is true.") for i in (1, 2, 3)]
    with (
        FakeMessagesServer(handler=batch_two_fails(broken)) as server,
        _client.make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
        pytest.raises(ModelCallError) as caught,
    ):
        chunk(
            inputs,
            "DOC",
            client=client,
            model="reference",
            max_concurrency=1,
            max_tokens_per_batch=ONE_A_BATCH,
        )
    response = caught.value.response
    assert isinstance(response, AgenticResponse) and not response.is_success
    assert response.failed_batches == (2,)
    assert [(e.batch, e.chunk_ids, e.propositions) for e in response.extracted] == [
        (1, ("C1",), ("Fact number 1 is true.",))
    ]
    assert AgenticResponse.from_dict(response.to_dict()).to_dict() == response.to_dict()


def test_a_failed_grouping_keeps_every_extracted_proposition() -> None:
    from agentic_chunking import AgenticChunkInput
    from agentic_chunking import chunk_text_agentic as chunk

    inputs = [AgenticChunkInput(f"C{i}", f"Fact number {i} is true.") for i in (1, 2)]
    cut = FakeReply(text="[{", stop_reason="max_tokens")
    with (
        FakeMessagesServer(handler=grouping_answers(cut)) as server,
        _client.make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
    ):
        response = chunk(
            inputs, "DOC", client=client, model="reference", max_tokens_per_batch=ONE_A_BATCH
        )
    assert not response.is_success and response.failed_batches == ()
    assert [e.propositions for e in response.extracted] == [
        ("Fact number 1 is true.",),
        ("Fact number 2 is true.",),
    ]
    assert "Extracted" in response.to_dict() and "FailedBatches" not in response.to_dict()


def test_a_successful_response_has_no_partial_fields() -> None:
    from agentic_chunking import AgenticChunkInput
    from agentic_chunking import chunk_text_agentic as chunk

    with (
        FakeMessagesServer(handler=echo_model) as server,
        _client.make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
    ):
        response = chunk([AgenticChunkInput("C1", "One fact.")], "DOC", client=client)
    assert response.is_success and response.extracted == ()
    assert not {"Extracted", "FailedBatches"} & set(response.to_dict())


def test_an_interrupt_abandons_in_flight_calls_and_prints_nothing_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentic_chunking import AgenticChunkInput
    from agentic_chunking import chunk_text_agentic as chunk

    monkeypatch.setattr(_calls, "WAIT_NOTICE_S", 0.1)
    lines: list[tuple[float, str]] = []
    slow = FakeReply(text='["A fact."]', delay_s=2.0)
    inputs = [AgenticChunkInput(f"C{i}", f"Fact number {i} is true.") for i in range(1, 7)]

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    with FakeMessagesServer(handler=lambda body: slow) as server:
        server._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
        client = _client.make_client(api_key=KEY, base_url=server.base_url, max_retries=0)
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        started = time.monotonic()
        try:
            with pytest.raises(KeyboardInterrupt):
                chunk(
                    inputs,
                    "DOC",
                    client=client,
                    max_tokens_per_batch=ONE_A_BATCH,
                    progress=lambda line: lines.append((time.monotonic(), line)),
                )
            interrupted = time.monotonic()
            time.sleep(2.5)  # the abandoned calls end meanwhile: nothing may be printed
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            client.close()
    assert interrupted - started < 1.5  # not the 2 s of the in-flight calls
    assert len(server.requests) == 4  # the two queued batches were cancelled
    assert any("still waiting" in line for _, line in lines)  # notices before it
    assert [line for at, line in lines if at > interrupted] == []


_SAVE_BIG_CASSETTE = """
import sys
from vcr.persisters.filesystem import FilesystemPersister
from vcr.request import Request
from vcr.serializers import yamlserializer
from agentic_chunking.suite._cassettes import StagedPersister

persister = StagedPersister(recording=False) if sys.argv[2] == "atomic" else FilesystemPersister
request = Request("POST", "http://127.0.0.1/v1/messages", "{}", {})
response = {
    "status": {"code": 200, "message": "OK"},
    "headers": {"content-type": ["application/json"]},
    "body": {"string": '"' + "x" * 40000 + '"'},
}
try:
    persister.save_cassette(sys.argv[1], {"requests": [request], "responses": [response]},
                            yamlserializer)
except OSError as error:
    print(error.strerror)
"""


@pytest.mark.parametrize(("persister", "kept"), [("atomic", True), ("vcrpy", False)])
def test_a_cassette_written_on_a_full_disk_keeps_the_previous_one(
    tmp_path: Path, persister: str, kept: bool
) -> None:
    # vcrpy's own persister is the control: the same full disk cuts its cassette.
    cassette = tmp_path / "TC-001.yaml"
    previous = (REPO / "cassettes" / "reference" / "TC-001.yaml").read_text()
    cassette.write_text(previous)
    child = subprocess.run(
        [sys.executable, "-c", _SAVE_BIG_CASSETTE, str(cassette), persister],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limited_file_size,
        check=False,
    )
    assert child.stderr == "" and child.stdout.strip() == "File too large"
    assert (cassette.read_text() == previous) is kept
    assert leftovers(tmp_path, "TC-001.yaml") == []


def test_a_model_call_failing_at_the_first_case_writes_no_results(
    suite_copy: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = FakeReply(status=500, text="boom", headers={"x-should-retry": "false"})
    with FakeMessagesServer(handler=lambda body: broken) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = suite_copy.runpytest(
            "--import-mode=importlib",
            "-p",
            "no:cacheprovider",
            "-p",
            "pytest_recording.plugin",
            "tests/test_cases.py::test_case[TC-001]",
            "--record",
            "--model",
            "loopback-model",
        )
    output = result.stdout.str()
    assert "Traceback" not in output and "site-packages" not in output
    # A server error that survives the retries meets every case: the run stops at once.
    assert "STOPPED at TC-001" in output and "HTTP 500" in output
    # stopped before any case was judged: nothing was measured, so nothing is written (a
    # results file holding only this error would read as the model's result)
    assert "no case was judged, so no results file or report was written" in output
    assert not (suite_copy.path / "reports" / "results-loopback-model.json").exists()
    assert not (suite_copy.path / "reports" / "latest.html").exists()
    assert not (suite_copy.path / "cassettes" / "loopback-model" / "TC-001.yaml").exists()


# == issue 24, items 1, 3, 4 and 6 (the second fault round) ===========================
# 1: calibrate-judge records through the suite's StagedPersister and the one writer;
# 3: a suite run that cannot save its results never exits 0; 4: replay reads the judge
# model of the cassettes; 6: one catch-all at each entry point, 130 and 143 with a line.

CALIBRATION_MODEL = "loopback-judge"
OLD_CALIBRATION_CASSETTE = b"# the good calibration cassette recorded earlier\ninteractions: []\n"
OLD_CALIBRATION = b'{"schema": "the good calibration written earlier"}\n'


def fair_judge(body: dict[str, Any]) -> str:
    """Every proposition supported, every pair two facts: a judge that always answers."""
    from agentic_chunking.judge import read_judge_request

    asked = read_judge_request(user_text(body))
    verdicts: list[dict[str, Any]] = [
        {"n": n, "verdict": "supported", "reason": "scripted"} for n in asked.propositions
    ]
    verdicts += [{"pair": list(p), "same_fact": False, "reason": "scripted"} for p in asked.pairs]
    return json.dumps(verdicts)


class _Calibration:
    """A calibration folder holding a good cassette and a good calibration file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cassette = root / "cassettes" / CALIBRATION_MODEL / "judge-calibration.yaml"
        self.figures = root / "calibration" / f"judge-{CALIBRATION_MODEL}.json"
        previous = ((self.cassette, OLD_CALIBRATION_CASSETTE), (self.figures, OLD_CALIBRATION))
        for path, data in previous:
            path.parent.mkdir(parents=True)
            path.write_bytes(data)

    def argv(self, *extra: str) -> list[str]:
        return [
            "calibrate-judge",
            "--judge-model",
            CALIBRATION_MODEL,
            "--per-class",
            "1",
            "--items",
            str(REPO / "benchmarks" / "data" / "judge_calibration.jsonl"),
            "--cassette-root",
            str(self.root / "cassettes"),
            "--calibration-dir",
            str(self.root / "calibration"),
            *extra,
        ]

    def unchanged(self) -> bool:
        """Both files byte for byte, and nothing else beside them."""
        return (
            self.cassette.read_bytes() == OLD_CALIBRATION_CASSETTE
            and self.figures.read_bytes() == OLD_CALIBRATION
            and leftovers(self.cassette.parent, self.cassette.name) == []
            and leftovers(self.figures.parent, self.figures.name) == []
        )


@pytest.fixture
def calibration(tmp_path: Path) -> _Calibration:
    return _Calibration(tmp_path)


def fails_after(answered: int, failure: FakeReply | str) -> Callable[[dict[str, Any]], Any]:
    """The fair judge for the first ``answered`` requests, then ``failure`` for every one."""
    seen: list[int] = []

    def handler(body: dict[str, Any]) -> FakeReply | str:
        seen.append(1)
        return fair_judge(body) if len(seen) <= answered else failure

    return handler


@pytest.mark.parametrize(
    ("failure", "status", "said"),
    [
        (FakeReply(status=529, text="Overloaded"), 3, "529"),
        (FakeReply(status=401, text="invalid x-api-key"), 2, "rejected"),
        (FakeReply(text="[]", delay_s=6.0), 3, "timeout"),
    ],
    ids=["overloaded-529", "key-rejected-401", "timeout"],
)
def test_calibrate_record_failing_midway_keeps_both_previous_files(
    calibration: _Calibration,
    monkeypatch: pytest.MonkeyPatch,
    run: Run,
    failure: FakeReply,
    status: int,
    said: str,
) -> None:
    monkeypatch.setenv("AGENTIC_CHUNKING_TIMEOUT", "1")
    with FakeMessagesServer(handler=fails_after(3, failure)) as server:
        serve(monkeypatch, server)
        code, out, err = run(*calibration.argv("--record"))
    assert len(server.requests) > 3  # three items were answered before the fault
    assert code == status and said in err.lower() and len(err.splitlines()) == 1, err
    assert calibration.unchanged() and out == ""


def test_calibrate_record_with_the_server_down_keeps_both_previous_files(
    calibration: _Calibration, monkeypatch: pytest.MonkeyPatch, run: Run
) -> None:
    with FakeMessagesServer(handler=fair_judge) as server:
        closed = server.base_url
    monkeypatch.setenv("ANTHROPIC_BASE_URL", closed)
    code, _, err = run(*calibration.argv("--record"))
    assert code == 3 and "could not reach" in err and calibration.unchanged()


def test_calibrate_record_that_completes_replaces_both_files(
    calibration: _Calibration, monkeypatch: pytest.MonkeyPatch, run: Run
) -> None:
    # The control of the tests above: the same command, no fault, both files replaced.
    with FakeMessagesServer(handler=fair_judge) as server:
        serve(monkeypatch, server)
        code, out, _ = run(*calibration.argv("--record"))
    assert code == 0 and "written to" in out
    assert calibration.cassette.read_bytes().count(b"uri: ") == len(server.requests) > 3
    assert json.loads(calibration.figures.read_text())["judge_model"] == CALIBRATION_MODEL


@pytest.mark.parametrize("per_class", ["0", "-3"])
def test_calibrate_refuses_a_per_class_below_one_before_any_call(
    calibration: _Calibration,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    per_class: str,
) -> None:
    with FakeMessagesServer(handler=fair_judge) as server:
        serve(monkeypatch, server)
        argv = calibration.argv("--record")
        argv[argv.index("--per-class") + 1] = per_class
        with pytest.raises(SystemExit) as usage:  # argparse's own usage error
            main(argv)
    err = capsys.readouterr().err
    assert usage.value.code == 2 and "Traceback" not in err
    assert f"argument --per-class: '{per_class}' must be 1 or more" in err
    assert server.requests == [] and calibration.unchanged()


def test_calibrate_record_into_a_folder_it_cannot_write_is_refused_before_any_call(
    calibration: _Calibration, monkeypatch: pytest.MonkeyPatch, run: Run
) -> None:
    blocked = calibration.root / "blocked"
    blocked.write_text("a file where the calibration folder should be")
    with FakeMessagesServer(handler=fair_judge) as server:
        serve(monkeypatch, server)
        argv = calibration.argv("--record")
        argv[argv.index("--calibration-dir") + 1] = str(blocked / "calibration")
        code, _, err = run(*argv)
    assert code == 2 and "--calibration-dir" in err and "Nothing was called" in err
    assert server.requests == [] and calibration.unchanged()


def test_calibrate_replay_of_a_truncated_cassette_is_one_plain_line(
    calibration: _Calibration, run: Run
) -> None:
    whole = (REPO / "cassettes" / "reference" / "TC-001.yaml").read_text()
    calibration.cassette.write_text(whole[:300])
    code, _, err = run(*calibration.argv())
    assert code == 2 and len(err.splitlines()) == 1
    assert str(calibration.cassette) in err and "is not valid YAML" in err
    assert f"calibrate-judge --judge-model {CALIBRATION_MODEL} --record" in err
    assert calibration.figures.read_bytes() == OLD_CALIBRATION


class _HoldThird:
    """The fair judge, holding the third request until released (a run caught midway)."""

    def __init__(self) -> None:
        self.third_asked = threading.Event()
        self.release = threading.Event()
        self.count = 0

    def __call__(self, body: dict[str, Any]) -> str:
        self.count += 1
        if self.count == 3:
            self.third_asked.set()
            self.release.wait(60)
        return fair_judge(body)


@pytest.mark.parametrize(
    ("stop", "status", "line"),
    [
        (signal.SIGINT, 130, "interrupted; no file was left half-written"),
        (signal.SIGTERM, 143, "stopped by SIGTERM; no file was left half-written"),
        (signal.SIGKILL, -signal.SIGKILL, None),
    ],
    ids=["SIGINT", "SIGTERM", "SIGKILL"],
)
def test_calibrate_record_stopped_by_a_signal_keeps_both_previous_files(
    calibration: _Calibration, stop: signal.Signals, status: int, line: str | None
) -> None:
    handler = _HoldThird()
    with FakeMessagesServer(handler=handler) as server:
        server._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
        child = cli(
            *calibration.argv("--record"),
            env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url},
        )
        try:
            assert handler.third_asked.wait(120), "the recording never reached the third item"
            child.send_signal(stop)
            _, err = child.communicate(timeout=60)
        finally:
            handler.release.set()
            if child.poll() is None:
                child.kill()
                child.wait()
    assert child.returncode == status, err
    if line is not None:
        assert err.splitlines() == [f"agentic-chunking calibrate-judge: {line}"]
    assert calibration.unchanged()


def _trace_file(err: str) -> Path:
    """The trace file a catch-all line names."""
    return Path(err.split("the full trace is in ", 1)[1].split(". No file", 1)[0])


def test_an_unexpected_error_in_a_command_is_one_line_exit_70_and_a_trace_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "report.html"
    out.write_text("the previous report")

    def defect(args: object) -> int:
        raise ZeroDivisionError("a defect of ours")

    monkeypatch.setattr("agentic_chunking.cli._report.run", defect)
    code, _, err = run("report", REPORT_FIXTURES / "results-reference.json", "-o", out)
    assert code == 70 and len(err.splitlines()) == 1
    assert err.startswith("agentic-chunking report: unexpected error (ZeroDivisionError: a defect")
    trace = _trace_file(err)
    assert "Traceback" in trace.read_text() and "a defect of ours" in trace.read_text()
    assert out.read_text() == "the previous report"
    trace.unlink()


def test_ctrl_c_while_the_command_line_starts_is_130_and_one_line(
    monkeypatch: pytest.MonkeyPatch, run: Run
) -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("agentic_chunking.cli._main.build_parser", interrupted)
    code, _, err = run("report", REPORT_FIXTURES / "results-reference.json")
    assert code == 130 and err == "agentic-chunking: interrupted; no file was left half-written\n"


def test_a_malformed_ipv6_base_url_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://[::1")
    code, _, err = run("chunk", document(tmp_path))
    assert code == 2 and "the base URL 'http://[::1' is not an http(s) URL" in err


def test_a_results_file_nested_100000_deep_is_a_plain_input_error(tmp_path: Path, run: Run) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run("report", deep, "-o", tmp_path / "r.html")
    assert code == 2 and "nested too deeply" in err and not (tmp_path / "r.html").exists()


def test_sigterm_ends_chunk_with_143_one_line_and_the_previous_output(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_text('{"previous": true}\n')
    asked = threading.Event()

    def slow(body: dict[str, Any]) -> FakeReply:
        asked.set()
        return FakeReply(text='["A fact."]', delay_s=30.0)

    with FakeMessagesServer(handler=slow) as server:
        server._httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]
        child = cli(
            "chunk", document(tmp_path, 2), "-o", out, env={"ANTHROPIC_BASE_URL": server.base_url}
        )
        assert asked.wait(60), "the command never called the model"
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    assert child.returncode == 143
    assert err.splitlines() == [
        "agentic-chunking chunk: stopped by SIGTERM; no file was left half-written"
    ]
    assert out.read_text() == '{"previous": true}\n'
    # Only the reply cache (for --resume) stays beside OUT; no half-written file does.
    assert leftovers(tmp_path, "out.json", "doc.md", "out.replies") == []


def test_rebuild_reference_onto_a_folder_it_cannot_write_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentic_chunking.suite.__main__ import main as suite_main

    not_a_folder = tmp_path / "cassettes"
    not_a_folder.write_text("a file where the cassette folder should be")
    code = suite_main(
        [
            "rebuild-reference",
            "--cases",
            str(REPO / "cases"),
            "--case",
            "TC-001",
            "--cassettes",
            str(not_a_folder),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.splitlines()[-1].startswith("python -m agentic_chunking.suite rebuild-reference: ")
    assert "Not a directory" in err and "--cassettes" in err
    assert not_a_folder.read_text() == "a file where the cassette folder should be"


def test_an_unexpected_error_in_rebuild_reference_is_one_line_and_exit_70(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentic_chunking.suite import __main__ as suite_entry

    def defect(**options: object) -> list[Path]:
        raise KeyError("a defect of ours")

    monkeypatch.setattr(suite_entry, "rebuild_reference_cassettes", defect)
    code = suite_entry.main(["rebuild-reference"])
    err = capsys.readouterr().err
    assert code == 70 and len(err.splitlines()) == 1 and "KeyError: 'a defect of ours'" in err
    _trace_file(err).unlink()


def run_suite(
    suite_copy: pytest.Pytester, *extra: str, in_process: bool = True
) -> pytest.RunResult:
    """The three copied cases, in-process (for a test that monkeypatches the plugin) or in
    a process of their own: a fresh process is what a user runs, and nothing an earlier
    in-process session left behind (vcrpy's patches of the HTTP transport) can reach it."""
    run = suite_copy.runpytest if in_process else suite_copy.runpytest_subprocess
    return run(
        "--import-mode=importlib",
        "-p",
        "no:cacheprovider",
        "-p",
        "pytest_recording.plugin",
        "tests/test_cases.py::test_case",
        *extra,
    )


def _fallback(output: str) -> dict[str, Any]:
    """The results in the fallback file the summary names (its folder then removed)."""
    found = re.search(r"they were saved to (\S+\.json)", output)
    assert found is not None, output
    path = Path(found.group(1))
    saved: dict[str, Any] = json.loads(path.read_text())
    shutil.rmtree(path.parent)
    return saved


@pytest.mark.parametrize(
    "existing",
    [
        '{"schema": "agentic-chunking-results/1", "cases": [',
        '{"schema": "agentic-chunking-results/9"}',
    ],
    ids=["damaged", "newer-schema"],
)
def test_results_that_cannot_be_merged_go_to_a_named_fallback_and_the_run_fails(
    suite_copy: pytest.Pytester, existing: str
) -> None:
    target = suite_copy.path / "reports" / "results-reference.json"
    target.parent.mkdir()
    target.write_text(existing)
    result = run_suite(suite_copy, in_process=False)
    output = result.stdout.str()
    assert result.ret not in (0, 1) and "Traceback" not in output
    assert f"results NOT SAVED: this run's results could not be saved in {target}" in output
    saved = _fallback(output)
    assert [case["id"] for case in saved["cases"]] == ["TC-001", "TC-002", "TC-003"]
    assert target.read_text() == existing  # never replaced by a file that lost its cases


def test_results_into_a_reports_folder_that_cannot_be_written_go_to_the_fallback(
    suite_copy: pytest.Pytester,
) -> None:
    (suite_copy.path / "reports").write_text("a file where the reports folder should be")
    result = run_suite(suite_copy, in_process=False)
    output = result.stdout.str()
    assert result.ret not in (0, 1) and "Traceback" not in output
    assert "Not a directory" in output and "report not written" in output
    assert len(_fallback(output)["cases"]) == 3


def test_results_saved_where_asked_name_no_fallback_and_exit_0(
    suite_copy: pytest.Pytester,
) -> None:
    # The control: the same run with a writable reports/ exits 0 and says nothing of it.
    result = run_suite(suite_copy, in_process=False)
    assert result.ret == 0 and "NOT SAVED" not in result.stdout.str()
    assert (suite_copy.path / "reports" / "results-reference.json").is_file()


@pytest.mark.parametrize("baseline", ["missing.json", "damaged.json"])
def test_a_bad_baseline_is_refused_before_the_first_case(
    suite_copy: pytest.Pytester, baseline: str
) -> None:
    (suite_copy.path / "damaged.json").write_text('{"cut')
    result = run_suite(suite_copy, "--baseline", baseline, in_process=False)
    err = result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "Traceback" not in err
    assert "--baseline: results file" in err and baseline in err
    assert not (suite_copy.path / "reports").exists()


def test_a_cassette_that_cannot_be_written_makes_its_case_an_error(
    suite_copy: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentic_chunking.suite import ReferenceServer, load_case, load_replies

    case = load_case(REPO / "cases" / "TC-001.yaml")
    reference = ReferenceServer()
    reference.use(case, load_replies(case, REPO / "cases" / "reference_replies"))

    # The full disk is a plugin of the suite's own process: in-process, an HTTP transport
    # patch an earlier in-process session left behind could take the recording elsewhere.
    suite_copy.makepyfile(
        full_disk_plugin="""
            import agentic_chunking.suite._cassettes as cassettes

            def _full_disk(path, text, **options):
                raise OSError(28, "No space left on device")

            cassettes.write_text_atomic = _full_disk
        """
    )
    with FakeMessagesServer(handler=reference) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = run_suite(
            suite_copy,
            "-p",
            "full_disk_plugin",
            "-k",
            "TC-001",
            "--record",
            "--model",
            "loopback-model",
            in_process=False,
        )
    output = result.stdout.str()
    assert "Traceback" not in output and "site-packages" not in output
    assert "0/1 cases passed" in output and "1/1 cases passed" not in output
    assert "could not be saved to" in output and "No space left on device" in output
    results = json.loads((suite_copy.path / "reports" / "results-loopback-model.json").read_text())
    assert [(c["id"], c["outcome"]) for c in results["cases"]] == [("TC-001", "error")]
    assert result.ret != 0


def _judged_by(suite_copy: pytest.Pytester, model: str, judge: str) -> None:
    """Cassettes of ``model`` for the three cases: the reference replies, their pipeline
    requests asking ``model`` and their judge requests asking ``judge``."""
    from vcr.serialize import deserialize, serialize
    from vcr.serializers import yamlserializer

    folder = suite_copy.path / "cassettes" / model
    folder.mkdir()
    for source in sorted((suite_copy.path / "cassettes" / "reference").glob("*.yaml")):
        requests, responses = deserialize(source.read_text(), yamlserializer)
        for request in requests:
            body = json.loads(request.body)
            is_judge = str(body["messages"][0]["content"]).startswith("<source>")
            body["model"] = judge if is_judge else model
            request.body = json.dumps(body).encode()
        cassette = {"requests": requests, "responses": responses}
        (folder / source.name).write_text(serialize(cassette, yamlserializer))


def test_replay_uses_the_judge_model_the_cassettes_were_recorded_with(
    suite_copy: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTIC_CHUNKING_JUDGE_MODEL", raising=False)
    _judged_by(suite_copy, "recorded-model", "judge-x")
    result = run_suite(suite_copy, "--model", "recorded-model", in_process=False)
    assert result.ret == 0, result.stdout.str()
    results = json.loads((suite_copy.path / "reports" / "results-recorded-model.json").read_text())
    assert results["judge_model"] == "judge-x"
    assert all(case["outcome"] == "passed" for case in results["cases"])


def test_replay_with_another_judge_model_says_which_and_rewrites_no_results(
    suite_copy: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTIC_CHUNKING_JUDGE_MODEL", raising=False)
    _judged_by(suite_copy, "recorded-model", "judge-x")
    previous = suite_copy.path / "reports" / "results-recorded-model.json"
    previous.parent.mkdir()
    previous.write_text('{"the previous results": true}\n')
    result = run_suite(
        suite_copy, "--model", "recorded-model", "--judge-model", "judge-y", in_process=False
    )
    err = result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "Traceback" not in err
    assert "'judge-x' judged TC-001, TC-002, TC-003" in err and "'judge-y'" in err
    assert "pytest tests/test_cases.py --model recorded-model --judge-model judge-x" in err
    assert previous.read_text() == '{"the previous results": true}\n'
    assert sorted(p.name for p in previous.parent.iterdir()) == [previous.name]


def test_an_unexpected_error_in_the_report_phase_is_one_line_and_exit_70(
    suite_copy: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    def defect(*args: object, **options: object) -> Path:
        raise ZeroDivisionError("a defect of ours")

    monkeypatch.setattr("agentic_chunking.suite._saving.build_report", defect)
    result = run_suite(suite_copy)
    output = result.stdout.str()
    assert result.ret == 70 and "Traceback" not in output
    line = next(line for line in output.splitlines() if "report not written" in line)
    assert "pytest (agentic-chunking report phase): unexpected error (ZeroDivisionError" in line
    assert "a defect of ours" in _trace_file(line).read_text()
    results = json.loads((suite_copy.path / "reports" / "results-reference.json").read_text())
    assert len(results["cases"]) == 3  # saved before the report failed
    _trace_file(line).unlink()


def test_ctrl_c_in_the_report_phase_is_130_and_one_line(
    suite_copy: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **options: object) -> Path:
        raise KeyboardInterrupt

    monkeypatch.setattr("agentic_chunking.suite._saving.build_report", interrupted)
    result = run_suite(suite_copy)
    output = result.stdout.str()
    assert result.ret == 130 and "Traceback" not in output + result.stderr.str()
    line = next(line for line in output.splitlines() if "report not written" in line)
    # the results were written before the report: the line says which file was saved
    assert "interrupted while writing them: the results were saved to" in line
    assert "results-reference.json, the report was not" in line


def test_the_command_line_does_its_start_up_work_inside_its_ctrl_c_catch() -> None:
    # Ctrl-C while the console script imports its entry point would be a traceback: that
    # import loads no pipeline and no numpy; they load in main(), where 130 is caught.
    probe = (
        "import sys, agentic_chunking.cli._main as m; "
        "print(sorted(n for n in ('agentic_chunking.pipeline', 'numpy', 'anthropic') "
        "if n in sys.modules))"
    )
    child = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert child.stdout.strip() == "[]"
    import agentic_chunking

    assert agentic_chunking.chunk_text_agentic.__module__ == "agentic_chunking.pipeline._run"
    for name in agentic_chunking.__all__:  # every public name still imports on first use
        assert getattr(agentic_chunking, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = agentic_chunking.no_such_name  # type: ignore[attr-defined]


def test_an_unexpected_error_while_merging_results_still_saves_them_elsewhere(
    suite_copy: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    def defect(*args: object, **options: object) -> None:
        raise TypeError("a defect of ours")

    monkeypatch.setattr("agentic_chunking.suite._saving.record_run", defect)
    result = run_suite(suite_copy)
    output = result.stdout.str()
    assert result.ret == 70 and "Traceback" not in output
    assert len(_fallback(output)["cases"]) == 3
    line = next(line for line in output.splitlines() if "report not written" in line)
    _trace_file(line).unlink()


def test_an_error_a_library_made_of_a_ctrl_c_still_ends_as_the_interrupt(
    monkeypatch: pytest.MonkeyPatch, run: Run
) -> None:
    # numpy turns a KeyboardInterrupt during its import into an ImportError; the signal
    # handler noted the SIGINT, so the catch-all says "interrupted" and exits 130, not 70.
    def numpy_import(args: object) -> int:
        raise ImportError("Importing the numpy C-extensions failed")

    monkeypatch.setattr("agentic_chunking._entry._SEEN", [signal.SIGINT])
    monkeypatch.setattr("agentic_chunking.cli._report.run", numpy_import)
    code, _, err = run("report", REPORT_FIXTURES / "results-reference.json")
    assert code == 130
    assert err == "agentic-chunking report: interrupted; no file was left half-written\n"


def test_the_stop_signal_handlers_raise_and_note_each_signal() -> None:
    probe = """
import os, signal
from agentic_chunking._entry import handle_stop_signals, stop_signal_seen
handle_stop_signals()
for signum in (signal.SIGTERM, signal.SIGINT):
    try:
        os.kill(os.getpid(), signum)
        signal.pause()
    except BaseException as error:
        print(type(error).__name__, stop_signal_seen())
"""
    child = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert child.stdout.split() == ["Terminated", "15", "KeyboardInterrupt", "15"]


# ======================================================================================
# Issue 24, items 2, 5 and 7 (engineer 24b): secrets, bounded replies, smaller untruths.
# ======================================================================================

from agentic_chunking._shown import find_secrets, redact, redact_data  # noqa: E402
from agentic_chunking.report import CaseResult, RunResults, build_report  # noqa: E402
from agentic_chunking.report._results import write_results  # noqa: E402

OTHER_KEY = "sk-proj-" + "Q" * 40  # another provider's key shape, planted in a server error


def _no_secret(text: str, *also: str) -> None:
    assert find_secrets(text, also=[KEY, OTHER_KEY, *also]) == [], text[:2000]


@pytest.mark.parametrize(
    ("key", "what"),
    [
        ("sk-ant-api03-first\nsk-ant-api03-second", "a line break"),
        ("sk-ant-api03 with-a-space", "a space"),
        ("sk-ant-api03-\x07bell", "a control character (U+0007)"),
        ("sk-ant-api03-caf\u00e9", "a non-ASCII character"),
    ],
    ids=["newline", "space", "control", "non-ascii"],
)
def test_a_key_of_the_wrong_shape_is_refused_before_any_call_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, key: str, what: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, out, err = run("chunk", document(tmp_path), "-o", tmp_path / "out.json")
    assert status == 2 and server.requests == []
    assert f"the API key in ANTHROPIC_API_KEY contains {what}" in err
    assert "could not reach" not in err and "network" not in err
    for piece in key.split():
        assert piece not in out + err
    assert len(err.splitlines()) == 1 and not (tmp_path / "out.json").exists()


def test_a_well_shaped_key_is_accepted_and_a_blank_one_is_called_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        assert run("chunk", document(tmp_path, 1))[0] == 0  # KEY: printable, no space
        monkeypatch.setenv("ANTHROPIC_API_KEY", "  \n ")
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 2 and "no Anthropic API key" in err and len(server.requests) == 2


def test_the_suite_refuses_a_key_of_the_wrong_shape_before_recording(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentic_chunking.suite._config import check_record_settings

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-one\ttwo")
    with pytest.raises(pytest.UsageError, match="contains a whitespace character") as caught:
        check_record_settings("claude-sonnet-4-6", None, None)
    assert "sk-ant-one" not in str(caught.value)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    check_record_settings("claude-sonnet-4-6", None, None)  # a well-shaped key passes


def _echoing_error(status: int) -> FakeReply:
    """A server error whose message echoes the key it was sent, and another key."""
    return FakeReply(
        status=status,
        text=f"invalid request from key {KEY} (x-api-key: {KEY}); also tried {OTHER_KEY}",
        headers={"x-should-retry": "false"},
    )


@pytest.mark.parametrize("status_code", [500, 400, 401])
def test_a_key_echoed_by_the_server_reaches_no_message_nor_failure_document(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, status_code: int
) -> None:
    out = tmp_path / "out.json"
    with FakeMessagesServer(handler=batch_two_fails(_echoing_error(status_code))) as server:
        serve(monkeypatch, server)
        status, stdout, err = run(
            "chunk", document(tmp_path), "-o", out, "--max-concurrency", "1", *ONE_PER_BATCH
        )
    assert status in (2, 3) and f"HTTP {status_code}" in err and "[redacted]" in err
    _no_secret(stdout + err)
    failed = (tmp_path / "out.failed.json").read_text()
    assert json.loads(failed)["Extracted"]  # the document was written, then scanned
    _no_secret(failed)


def test_a_key_in_a_case_error_reaches_no_results_file_history_or_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    from agentic_chunking._errors import ModelCallError
    from agentic_chunking.client import call_model, make_client

    with FakeMessagesServer([_echoing_error(500)]) as server:
        client = make_client(base_url=server.base_url, max_retries=0)
        with pytest.raises(ModelCallError) as caught:
            call_model(
                client,
                stage="extraction",
                batch=1,
                model="m",
                system="s",
                messages=[{"role": "user", "content": "x"}],
                max_tokens=10,
            )
    message = str(caught.value)
    _no_secret(message)  # redacted where the SDK's text enters our message
    # A message from elsewhere that carries the key raw is redacted at every sink too.
    raw = f"{message} / {KEY} / {OTHER_KEY}"
    results = RunResults(
        model="loopback-model",
        replies="recorded",
        cases=(CaseResult(id="TC-001", outcome="error", error=raw),),
    )
    reports = tmp_path / "reports"
    latest = write_results(results, reports)
    page = build_report([results], reports_dir=reports)
    status, _, err = run("report", latest, "-o", tmp_path / "compare.html")
    assert status == 0, err
    # a results file written by another tool, the key in it raw: the page still hides it
    raw_file = tmp_path / "raw-results.json"
    raw_file.write_text(json.dumps(results.to_dict()))
    assert KEY in raw_file.read_text()
    status, _, err = run("report", raw_file, "-o", tmp_path / "raw.html", "--no-plots")
    assert status == 0, err
    written = [
        latest,
        page,
        tmp_path / "compare.html",
        tmp_path / "raw.html",
        *reports.rglob("*.json"),
        *reports.glob("*.html"),
    ]
    assert len(written) >= 5
    for path in written:
        text = path.read_text()
        assert "TC-001" in text
        _no_secret(text)


def test_redact_is_provider_neutral_and_leaves_plain_text_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "plain-looking-openai-value-123")
    pasted = "sk-ant-api03-" + "a" * 20 + "\n" + "b" * 20
    monkeypatch.setenv("ANTHROPIC_API_KEY", pasted)
    monkeypatch.setenv("OTHER_API_KEY", "loopback")  # too short to be a key: left alone
    samples = [
        f"header {pasted!r} was illegal",  # repr: the line break shown as \n
        "pieces: " + "b" * 20,
        "call failed with key plain-looking-openai-value-123",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
        "https://user:hunter2secret@example.test/v1?key=abcdefgh",
        OTHER_KEY,
        '{"api_key": "xyzxyzxyzxyz"}',
    ]
    for sample in samples:
        shown = redact(sample)
        assert "[redacted]" in shown or "***@" in shown, shown
        _no_secret(shown, "plain-looking-openai-value-123", "b" * 20, "hunter2secret")
    plain = "the model 'claude-sonnet-4-6' was not found: check --model (HTTP 404)"
    assert redact(plain) == plain
    assert redact("model 'loopback-model'") == "model 'loopback-model'"
    assert redact_data({"a": [plain, 3, None, {"b": OTHER_KEY}]}) == {
        "a": [plain, 3, None, {"b": "[redacted]"}]
    }


# -- item 5: replies are bounded ---------------------------------------------------------


def test_a_reply_longer_than_its_max_tokens_allows_is_an_error_before_parsing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    from agentic_chunking.pipeline import _conversation

    huge = json.dumps([f"The reactor pump {n} moves water." for n in range(40_000)])
    assert len(huge) > 2000 * _conversation.MAX_CHARS_PER_TOKEN  # 1.3 MB for 2000 tokens

    def handler(body: dict[str, Any]) -> FakeReply | str:
        return huge if "number 2" in user_text(body) else echo_model(body)

    out = tmp_path / "out.json"
    with FakeMessagesServer(handler=handler) as server:
        serve(monkeypatch, server)
        status, _, err = run(
            "chunk",
            document(tmp_path),
            "-o",
            out,
            "--max-concurrency",
            "1",
            "--extraction-max-tokens",
            "2000",
            *ONE_PER_BATCH,
        )
    assert status == 1
    assert f"is {len(huge):,} characters long, more than max_tokens (2000) can hold" in err
    assert "at most 32,000, at a generous 16 characters a token" in err
    assert len(err) < 2_000  # the reply is never quoted whole
    failed = json.loads((tmp_path / "out.failed.json").read_text())
    assert failed["FailedBatches"] == [2] and len(failed["Extracted"]) == 2
    assert len(json.dumps(failed)) < 5_000
    # one call for batch 2: an oversized reply is not "repaired" at a second cost
    assert sum("number 2" in user_text(r.body) for r in server.requests) == 1


def test_a_reply_within_its_bound_is_parsed_as_before(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    from agentic_chunking.pipeline._conversation import MAX_CHARS_PER_TOKEN

    facts = [f"The reactor pump {n} moves water." for n in range(200)]
    reply = json.dumps(facts)
    assert len(reply) < 2000 * MAX_CHARS_PER_TOKEN
    with FakeMessagesServer(
        handler=lambda body: reply if "<text>" in user_text(body) else echo_model(body)
    ) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 0, err
    # the extraction reply was parsed (its 200 facts reached the grouping call)
    assert any("200. The reactor pump 199" in user_text(r.body) for r in server.requests)
    assert "characters long" not in err


def test_a_junk_grouping_reply_gives_a_bounded_message_and_failure_document(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    junk = json.dumps([{"category": "x" * 20, "facts": ["y" * 250 + str(n)]} for n in range(200)])
    assert len(junk) < 4000 * 16  # within the grouping reply's bound: it is parsed
    out = tmp_path / "out.json"
    with FakeMessagesServer(handler=grouping_answers(junk)) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 2), "-o", out)
    assert status == 1 and "not a partition" in err
    assert len(err) < 4_000 and "... and " in err and "characters in all" in err
    failed = (tmp_path / "out.failed.json").read_text()
    assert len(failed) < 8_000 and "Extracted" in failed


def test_quote_caps_and_flattens_what_it_quotes() -> None:
    from agentic_chunking._shown import QUOTE_LIMIT, quote, quote_list

    assert quote("short\nreply") == "short reply"
    long = quote("z" * 1_000_000)
    assert len(long) < QUOTE_LIMIT + 40 and long.endswith("(1,000,000 characters in all)")
    assert quote_list(range(25)) == "0; 1; 2; 3; 4; 5; 6; 7; 8; 9; ... and 15 more"
    assert quote_list(["a", "b"]) == "a; b"


def test_a_warning_quotes_a_long_proposition_capped_and_keeps_it_whole_in_its_data() -> None:
    from agentic_chunking.pipeline._notes import duplicate_merged
    from agentic_chunking.pipeline._partition import Merged

    long = "The pump moves water " + "and more water " * 5_000 + "in the circuit."
    warning = duplicate_merged(Merged(text=long, sources=("C1",)), long, "C2")
    assert len(warning.message) < 600 and "characters in all" in warning.message
    assert long in warning.data.values()


def test_near_identical_strings_make_no_candidate_pairs_but_real_duplicates_are_found() -> None:
    from agentic_chunking.checks._candidates import candidate_pairs
    from agentic_chunking.checks._duplicates import duplicate_pairs

    texts = [f"The reactor cooling pump {n} moves water through the circuit." for n in range(3000)]
    pairs = candidate_pairs(texts)
    assert sum(len(js) for js in pairs.values()) == 0  # 4.5 million before: every pair
    # the real duplicates among them are still candidates, and found
    texts += [
        "The reactor cooling pump 17 moves water through the circuit.",  # exact repeat
        "Water is moved through the circuit by the reactor cooling pump 42.",  # reworded
        "The reactor cooling pump 99 moves water.",  # contained in pump 99's
    ]
    found = {(first, later) for first, later, _ in duplicate_pairs(texts)}
    assert {(17, 3000), (42, 3001), (99, 3002)} <= found
    assert len(found) == 3


# -- item 7: smaller untruths and gaps --------------------------------------------------


def test_chunk_dash_reads_a_document_from_stdin(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Fact one.\n\nFact two.\n")))
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", "-", "-o", tmp_path / "out.json")
    assert status == 0, err
    response = json.loads((tmp_path / "out.json").read_text())
    assert response["Chunks"][0]["ChunkId"].startswith("stdin-")
    assert sorted(response["Chunks"][0]["Propositions"]) == ["Fact one.", "Fact two."]


def test_chunk_dash_with_empty_stdin_says_stdin_is_empty(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"  \n")))
    status, _, err = run("chunk", "-")
    assert status == 2 and "stdin: the file is empty" in err


def test_split_dash_reads_stdin_and_refuses_cutoff_with_threshold(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    status, _, err = run("split", "-", "--threshold", "0.5", "--cutoff", "2")
    assert status == 2 and "--cutoff 2 belongs to the adaptive rule" in err
    assert "give one of the two" in err
    pytest.importorskip("onnxruntime")
    text = (REPO / "cases" / "sources" / "six_domains.md").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    status, _, err = run("split", "-", "-o", tmp_path / "level4.json")
    assert status == 0, err
    chunks = json.loads((tmp_path / "level4.json").read_text())
    assert len(chunks) > 1 and chunks[0]["document_id"] == "stdin"
    assert chunks[0]["metadata"]["source"] == "stdin" and "chunks from stdin" in err


@pytest.mark.parametrize("model", ["", "  "])
def test_an_empty_model_is_refused_not_replaced_by_the_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["chunk", str(document(tmp_path)), "--model", model])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "an empty model id" in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["1e308", "86401", "inf"])
def test_a_huge_timeout_is_refused_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["chunk", str(document(tmp_path)), "--timeout", value])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "up to 86400 (a day)" in err
    assert "Overflow" not in err and "network" not in err


def test_a_huge_timeout_in_the_environment_is_refused_plainly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    monkeypatch.setenv("AGENTIC_CHUNKING_TIMEOUT", "1e308")
    status, _, err = run("chunk", document(tmp_path))
    assert status == 2 and "AGENTIC_CHUNKING_TIMEOUT is '1e308'" in err and "a day" in err


def test_a_timeout_of_a_day_is_accepted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 1), "--timeout", "86400")
    assert status == 0, err


@pytest.mark.parametrize("command", ["chunk", "split", "report"])
def test_an_output_ending_in_a_slash_is_refused_and_no_file_named_like_the_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    source = (
        REPORT_FIXTURES / "results-reference.json" if command == "report" else document(tmp_path)
    )
    with pytest.raises(SystemExit) as stopped:
        main([command, str(source), "-o", f"{tmp_path}/newdir/"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "names a directory (it ends with '/')" in err
    assert not (tmp_path / "newdir").exists()


def test_a_dangling_symlink_output_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "gone" / "target.json")
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path), "-o", link)
        assert status == 2 and "is a symbolic link to" in err and "which does not exist" in err
        assert server.requests == []
        # a symlink to a file that exists is an ordinary output
        (tmp_path / "real.json").write_text("{}")
        good = tmp_path / "good.json"
        good.symlink_to(tmp_path / "real.json")
        status, _, err = run("chunk", document(tmp_path, 1), "-o", good)
    assert status == 0, err


def test_a_400_does_not_advise_fewer_calls_in_flight_but_a_529_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    bad = FakeReply(status=400, text="temperature: bad value", headers={"x-should-retry": "false"})
    with FakeMessagesServer(handler=lambda body: bad) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 3 and "HTTP 400" in err and "concurrency" not in err
    assert "in flight" not in err and "retrying it unchanged gives the same answer" in err
    busy = FakeReply(status=529, text="overloaded", headers={"x-should-retry": "false"})
    with FakeMessagesServer(handler=lambda body: busy) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 3 and "HTTP 529" in err and "fewer calls in flight" in err


def test_a_redirect_to_a_closed_port_names_the_host_that_failed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    with _RawServer(200, "text/plain", b"") as gone:
        closed = gone.base_url  # nothing listens there any more
    redirect = _RawServer(307, "text/plain", b"")
    location = f"{closed}/v1/messages"

    class Handler(redirect.httpd.RequestHandlerClass):  # type: ignore[name-defined,misc]
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(307)
            self.send_header("location", location)
            self.send_header("content-length", "0")
            self.end_headers()

    redirect.httpd.RequestHandlerClass = Handler
    with redirect:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", redirect.base_url)
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 3 and f"could not reach {closed}" in err, err
    assert redirect.base_url not in err


def test_a_refusal_never_says_nothing_was_extracted_when_propositions_were_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    refusal = FakeReply(text="", stop_reason="refusal")
    out = tmp_path / "out.json"
    with FakeMessagesServer(handler=batch_two_fails(refusal)) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path), "-o", out, *ONE_PER_BATCH)
    assert status == 1 and "refusal" in err
    assert "with the 2 propositions extracted before the failure" in err
    assert "nothing was extracted;" not in err and "nothing was extracted from it" in err


def test_a_401_after_extraction_keeps_the_extracted_propositions_as_a_500_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "out.json"
    rejected = FakeReply(status=401, text="invalid x-api-key", headers={"x-should-retry": "false"})
    with FakeMessagesServer(handler=grouping_answers(rejected)) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path), "-o", out, *ONE_PER_BATCH)
    assert status == 2 and "the API key was rejected" in err
    failed = json.loads((tmp_path / "out.failed.json").read_text())
    assert [b["Batch"] for b in failed["Extracted"]] == [1, 2, 3]
    assert "with the 3 propositions extracted before the failure" in err


def test_messages_name_only_options_the_command_has(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    from agentic_chunking.cli import _calibrate, _report
    from agentic_chunking.judge import _call

    def unwritable(args: Any) -> int:
        raise PermissionError(13, "Permission denied", "calibration/judge-m.json")

    # an unwritable file: "-o" only for a command that has it
    monkeypatch.setattr(_calibrate, "run", unwritable)
    status, _, err = run("calibrate-judge", "--judge-model", "m")
    assert status == 2 and "calibration/judge-m.json: Permission denied" in err
    assert "-o" not in err.replace("--judge-model", "")
    monkeypatch.setattr(_report, "run", unwritable)
    status, _, err = run("report", tmp_path / "r.json")
    assert status == 2 and "choose another place with -o" in err
    # the judge's advice is read by calibrate-judge too, which has no --no-judge
    assert "--no-judge" not in Path(_call.__file__).read_text()


def test_report_refuses_results_without_cases_with_duplicate_ids_or_invalid_dates(
    tmp_path: Path, run: Run
) -> None:
    good = json.loads((REPORT_FIXTURES / "results-reference.json").read_text())
    broken = {
        "no-cases": {**good, "cases": []},
        "missing-cases": {k: v for k, v in good.items() if k != "cases"},
        "duplicate-ids": {**good, "cases": [good["cases"][0], good["cases"][0]]},
        "bad-created": {**good, "created_at": "yesterday"},
        "bad-judged": {**good, "cases": [{**good["cases"][0], "judged_at": "2026-13-45"}]},
    }
    expected = {
        "no-cases": "the file has no case",
        "missing-cases": "the field 'cases' is missing",
        "duplicate-ids": f"case id(s) {good['cases'][0]['id']} appear more than once",
        "bad-created": "created_at: 'yesterday' is not an ISO 8601 date and time",
        "bad-judged": "judged_at: '2026-13-45' is not an ISO 8601 date and time",
    }
    for name, data in broken.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        status, _, err = run("report", path, "-o", tmp_path / "out.html", "--no-plots")
        assert status == 2 and expected[name] in err, (name, err)
        assert not (tmp_path / "out.html").exists()


def test_rebuild_reference_with_an_unknown_case_fails_plainly_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentic_chunking.suite.__main__ import main as suite_main

    status = suite_main(
        [
            "rebuild-reference",
            "--cases",
            str(REPO / "cases"),
            "--cassettes",
            str(tmp_path),
            "--case",
            "TC-999",
        ]
    )
    err = capsys.readouterr().err
    assert status == 2 and "no case TC-999 in" in err and "nothing was written" in err
    assert list(tmp_path.iterdir()) == []


def test_the_docs_name_the_failure_document_as_the_tool_writes_it(tmp_path: Path) -> None:
    from agentic_chunking.cli._chunk import failure_path

    chunking = (REPO / "docs" / "chunking.md").read_text(encoding="utf-8")
    everywhere = "\n".join(
        path.read_text(encoding="utf-8") for path in [REPO / "README.md", *REPO.glob("docs/*.md")]
    )
    assert failure_path(Path("chunks.json")).name == "chunks.failed.json"
    assert "chunks.failed.json" in chunking and "OUT.failed.json" not in everywhere


@pytest.mark.parametrize("status_code", [400, 401])
def test_a_key_echoed_while_recording_reaches_no_suite_output_results_or_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, status_code: int
) -> None:
    """The suite under --record, against a server whose 400 (the case's own failure) or
    401 (systemic: the run stops) echoes the key: the case's message, the terminal summary
    with its lines against the reference results, results, history and report are all
    scanned."""
    import shutil

    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    (pytester.path / "cases").mkdir()
    shutil.copy(REPO / "cases" / "TC-001.yaml", pytester.path / "cases")
    (pytester.path / "tests").mkdir()
    shutil.copy(REPO / "tests" / "test_cases.py", pytester.path / "tests")
    shutil.copy(REPO / "conftest.py", pytester.path)
    (pytester.path / "reports").mkdir()  # the base the summary's "new error" lines compare to
    reference = RunResults(
        model="reference", replies="reference", cases=(CaseResult(id="TC-001", outcome="passed"),)
    )
    write_results(reference, pytester.path / "reports")
    before = sorted((pytester.path / "reports").rglob("*.*"))
    with FakeMessagesServer(handler=lambda body: _echoing_error(status_code)) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = pytester.runpytest_subprocess(
            "-p",
            "no:cacheprovider",
            "-p",
            "pytest_recording.plugin",
            "tests/test_cases.py::test_case",
            "--record",
            "--model",
            "loopback-model",
            "--no-judge",
        )
    output = result.stdout.str() + result.stderr.str()
    assert f"HTTP {status_code}" in output and "[redacted]" in output, output[-3000:]
    _no_secret(output)
    written = sorted((pytester.path / "reports").rglob("*.*"))
    if status_code == 401:  # stopped before any case was judged: nothing more is written
        assert "no results file or report was written" in output
        assert written == before
        return
    assert "new error TC-001" in output  # the summary's line against the reference results
    assert {p.suffix for p in written} == {".json", ".html"} and len(written) >= 4
    for path in written:
        text = path.read_text()
        assert "TC-001" in text
        _no_secret(text)


# -- found by the closing sweep ----------------------------------------------------------


@pytest.mark.parametrize("command", ["chunk", "check"])
def test_a_json_input_nested_100000_deep_is_a_plain_input_error(
    tmp_path: Path, run: Run, command: str
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    argv = ["chunk", deep, "--dry-run"] if command == "chunk" else ["check", deep]
    code, out, err = run(*argv)
    assert code == 2 and "nested too deeply" in err and len(err.splitlines()) == 1
    assert out == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["calibrate-judge", "--judge-model", ""],
        ["check", "out.json", "--judge-model", " "],
        ["chunk", "doc.md", "--model", ""],
    ],
)
def test_an_empty_model_id_is_refused_by_every_command(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "an empty model id" in err and "Traceback" not in err


def test_an_output_path_problem_names_the_option_that_gave_the_path(
    tmp_path: Path, run: Run
) -> None:
    results = REPORT_FIXTURES / "results-reference.json"
    other = REPORT_FIXTURES / "results-claude-next.json"
    folder = tmp_path / "adir"
    folder.mkdir()
    code, _, err = run("report", results, other, "--json", folder, "-o", tmp_path / "r.html")
    assert code == 2 and f"--json {folder} is a directory" in err and "-o " not in err


def test_a_results_file_of_another_schema_says_to_move_it_away(tmp_path: Path, run: Run) -> None:
    newer = tmp_path / "newer.json"
    newer.write_text('{"schema": "agentic-chunking-results/9"}')
    code, _, err = run("report", newer, "-o", tmp_path / "r.html")
    assert code == 2 and "move the file away" in err and "write the file with this" not in err
