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
import resource
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

from agentic_chunking.cli import main
from agentic_chunking.client import _anthropic as _client
from agentic_chunking.pipeline._prompts import load_prompt
from agentic_chunking.testing import FakeMessagesServer, FakeReply, user_text

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


def leftovers(directory: Path, *expected: str) -> list[str]:
    """Files in ``directory`` other than ``expected`` (a temporary file left behind)."""
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
    assert 60 <= _client.DEFAULT_TIMEOUT_S <= 300
    client = _client.make_client(api_key="k", base_url="http://127.0.0.1:9")
    assert client.timeout.read == _client.DEFAULT_TIMEOUT_S  # type: ignore[union-attr]


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
    monkeypatch.setattr(_client, "WAIT_NOTICE_S", 0.2)
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
    monkeypatch.setattr(_client, "WAIT_NOTICE_S", 0.5)
    with FakeMessagesServer(handler=echo_model) as server:
        serve(monkeypatch, server)
        status, _, err = run("chunk", document(tmp_path, 1))
    assert status == 0 and "still waiting" not in err


@pytest.mark.parametrize(
    ("flag", "model", "limit"),
    [
        ("--grouping-max-tokens", "claude-haiku-4-5", _client.NONSTREAMING_MAX_TOKENS),
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
    assert all(p.suffix == ".json" for p in (tmp_path / "out.replies").iterdir())  # whole files
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


def test_the_readme_documents_every_exit_code() -> None:
    from agentic_chunking import cli as cli_module

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## When things go wrong", 1)[1].split("\n## ", 1)[0]
    for code in (
        cli_module.EXIT_OK,
        cli_module.EXIT_FAILED,
        cli_module.EXIT_USAGE,
        cli_module.EXIT_MODEL_CALL,
        cli_module.EXIT_INTERRUPTED,
        cli_module.EXIT_BROKEN_PIPE,
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
    ],
    ids=["empty", "truncated", "binary", "cut-reply", "no-interactions"],
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

    monkeypatch.setattr(_client, "WAIT_NOTICE_S", 0.1)
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


def test_a_model_call_failing_while_recording_is_an_error_in_the_results(
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
    results = json.loads((suite_copy.path / "reports" / "results-loopback-model.json").read_text())
    assert [(c["id"], c["outcome"]) for c in results["cases"]] == [("TC-001", "error")]
    assert "HTTP 500" in results["cases"][0]["error"]
    assert not (suite_copy.path / "cassettes" / "loopback-model" / "TC-001.yaml").exists()
