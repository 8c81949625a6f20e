"""Issue 33's fault trials (the third round), each pinned: no secret in any encoding, no
paid reply lost, no input taken for what it is not, the first failure reported.

Every live path runs against a server on 127.0.0.1 started here.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from agentic_chunking import _shown
from agentic_chunking._errors import InputError
from agentic_chunking._loopback import FakeMessagesServer, FakeReply, user_text
from agentic_chunking._models import CallUsage
from agentic_chunking._shown import find_secrets, redact, redact_data
from agentic_chunking.cli import main
from agentic_chunking.client import ModelReply
from agentic_chunking.pipeline._cache import ReplyCache
from agentic_chunking.pipeline._prompts import load_prompt

KEY = "sk-ant-round3-test-key-0123456789"
PASSWORD = "hunter2-url-password"
USER = "someone"
Run = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "AGENTIC_CHUNKING_MODEL",
        "AGENTIC_CHUNKING_TIMEOUT",
        "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """``main([...])`` in-process: (exit status, stdout, stderr); never a traceback."""

    def invoke(*argv: str | Path) -> tuple[int, str, str]:
        status = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return status, out, err

    return invoke


def document(tmp_path: Path, paragraphs: int = 3, name: str = "doc.md") -> Path:
    path = tmp_path / name
    path.write_text("\n\n".join(f"Fact number {i} is true." for i in range(1, paragraphs + 1)))
    return path


# -- item 1: a secret in any encoding ---------------------------------------------------


def _encodings(secret: str) -> list[str]:
    raw = secret.encode()
    return [
        secret,
        quote(secret, safe=""),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        json.dumps(secret)[1:-1],
    ]


ECHOES: dict[str, Callable[[dict[str, str]], str]] = {
    "authorization": lambda sent: sent["authorization"],
    "basic-decoded": lambda sent: base64.b64decode(sent["authorization"][6:]).decode(),
    "key-header": lambda sent: sent.get("x-api-key") or sent.get("x-key-echo", KEY),
    **{
        f"{name}-{number}": (lambda sent, form=form: form)
        for name, secret in (("key", KEY), ("password", PASSWORD))
        for number, form in enumerate(_encodings(secret))
    },
}
"""What the server echoes: a header it was sent, or a planted secret in one encoding."""


class _EchoServer:
    """Answers every request with ``status`` and a body and a header that echo ``echo``
    of the request's headers (all of them in headers too)."""

    def __init__(self, status: int, echo: Callable[[dict[str, str]], str]) -> None:
        self.seen: list[dict[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                sent = {k.lower(): v for k, v in self.headers.items()}
                outer.seen.append(sent)
                echoed = echo(sent)
                body = json.dumps(
                    {"type": "error", "error": {"type": "api_error", "message": f"no: {echoed}"}}
                ).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("x-should-retry", "false")
                self.send_header("x-echo", echoed)
                for name, value in sent.items():
                    self.send_header(f"x-echo-{name}", value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET = _answer

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.host = f"127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> _EchoServer:
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _scan(text: str) -> None:
    assert find_secrets(text, also=[KEY, PASSWORD]) == [], text[:3000]
    for secret in (KEY, PASSWORD, f"{USER}:{PASSWORD}"):
        for form in _encodings(secret):
            assert form not in text, (form, text[:3000])


@pytest.mark.parametrize(
    ("status_code", "echo"), [(401, name) for name in ECHOES] + [(500, "authorization")]
)
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_key_and_url_password_echoed_in_any_encoding_reach_nothing_written(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    run: Run,
    status_code: int,
    echo: str,
    provider: str,
) -> None:
    out = tmp_path / "out.json"
    with _EchoServer(status_code, ECHOES[echo]) as server:
        url = f"http://{USER}:{PASSWORD}@{server.host}"
        if provider == "openai":
            monkeypatch.setenv("OPENAI_API_KEY", KEY)
            monkeypatch.setenv("OPENAI_BASE_URL", url + "/v1")
            model: tuple[str, ...] = ("--model", "openai:loopback-model")
        else:
            monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
            model = ()
        status, stdout, err = run("chunk", document(tmp_path, 1), "-o", out, *model)
    assert status in (2, 3), err
    assert server.seen[0]["authorization"].startswith("Basic ")  # the URL's credentials
    written = [p.read_text() for p in tmp_path.iterdir() if p.suffix == ".json"]
    assert written, "a failure document was written"
    assert "[redacted]" in err and all("[redacted]" in text for text in written)
    _scan(stdout + err)
    for text in written:
        _scan(text)


def test_redact_decodes_and_matches_basic_credentials_and_query_keys() -> None:
    _shown.remember_request({"X-Custom-Token": "custom-token-value-0123"}, None)
    basic = base64.b64encode(b"anyone:any-password").decode()
    samples = {
        f"Authorization: Basic {basic}": basic,
        f"they said {basic} twice": basic,  # Basic credentials without the word
        "GET /v1?api-key=abcdefgh123&token=zzzzzzzz9": "abcdefgh123",
        "echo custom-token-value-0123": "custom-token-value-0123",
        "percent " + quote("custom-token-value-0123/", safe=""): "custom-token",
    }
    for sample, secret in samples.items():
        shown = redact(sample)
        assert secret not in shown and "[redacted]" in shown, shown
        assert find_secrets(shown) == []
        assert find_secrets(sample) != []
    plain = [
        "the model 'claude-sonnet-4-6' was not found: check --model (HTTP 404)",
        "Anthropic/Python 2.15.0 at /tmp/pytest-of-root/test_x0/out.failed.json",
        "Propositions must be a list of strings; request_sha256 " + "0a" * 32,
    ]
    for text in plain:
        assert redact(text) == text
    assert redact_data({"k": [basic]}) == {"k": ["[redacted]"]}


# -- item 4: the reply cache verifies each entry ----------------------------------------


def echo_model(body: dict[str, Any]) -> FakeReply | str:
    """Each paragraph of a batch becomes one proposition; the grouping puts all in one chunk."""
    text = user_text(body)
    if body["system"] == load_prompt("grouping").text:
        facts = [line.split(". ", 1)[1] for line in text.splitlines()[1:-1]]
        return json.dumps([{"category": "Everything", "facts": facts}])
    return json.dumps(text.removeprefix("<text>\n").removesuffix("\n</text>").split("\n\n"))


def _stored_reply(text: str = '["A."]') -> ModelReply:
    usage = CallUsage("extraction", "m", 10, 2, "end_turn", 0.5, batch=1)
    return ModelReply(text=text, stop_reason="end_turn", usage=usage)


TAMPERINGS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "format": lambda entry: {**entry, "format": 99},
    "request-hash": lambda entry: {**entry, "request_sha256": "0" * 64},
    "reply-text": lambda entry: {**entry, "text": '["Forged."]'},
    "usage": lambda entry: {**entry, "usage": {**entry["usage"], "output_tokens": 1}},
    "no-checksum": lambda entry: {k: v for k, v in entry.items() if k != "reply_sha256"},
    "not-an-object": lambda entry: [entry],  # type: ignore[dict-item,return-value]
}


@pytest.mark.parametrize("tampering", TAMPERINGS)
def test_a_cache_entry_that_fails_verification_is_ignored_and_counted(
    tmp_path: Path, tampering: str
) -> None:
    ReplyCache(tmp_path, read=False).put("k1", _stored_reply())
    entry = json.loads((tmp_path / "k1.json").read_text())
    assert ReplyCache(tmp_path, read=True).get("k1", stage="extraction", batch=1) is not None
    (tmp_path / "k1.json").write_text(json.dumps(TAMPERINGS[tampering](entry)))
    cache = ReplyCache(tmp_path, read=True)
    assert cache.get("k1", stage="extraction", batch=1) is None
    assert (cache.hits, len(cache.rejected)) == (0, 1) and "k1.json" in cache.rejected[0]


def test_a_whole_entry_under_another_name_is_not_served(tmp_path: Path) -> None:
    ReplyCache(tmp_path, read=False).put("k1", _stored_reply())
    (tmp_path / "k2.json").write_text((tmp_path / "k1.json").read_text())
    cache = ReplyCache(tmp_path, read=True)
    assert cache.get("k2", stage="extraction", batch=1) is None
    assert cache.rejected == ["k2.json: its request hash does not match its name"]
    assert cache.get("k1", stage="extraction", batch=1) is not None and cache.hits == 1
    assert cache.get("k3", stage="extraction", batch=1) is None  # a miss is not a rejection
    assert len(cache.rejected) == 1


def test_resume_pays_again_for_a_forged_entry_and_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "out.json"
    source = document(tmp_path, 3)
    with FakeMessagesServer(handler=echo_model) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert run("chunk", source, "-o", out)[0] == 0
        paid = len(server.requests)
        entries = sorted((tmp_path / "out.replies").glob("*.json"))
        assert len(entries) == paid >= 2
        for path in entries:  # forge every reply: another text, the old checksum
            entry = json.loads(path.read_text())
            if entry["text"].startswith("["):
                entry["text"] = entry["text"].replace("Fact number", "Forged number")
            else:
                entry["format"] = 99
            path.write_text(json.dumps(entry))
        status, _, err = run("chunk", source, "-o", out, "--resume")
    assert status == 0, err
    assert len(server.requests) == 2 * paid  # each forged entry was sent again
    assert "Forged" not in out.read_text()
    assert f"warning: {paid} entries of the reply cache" in err
    assert "failed verification and were ignored" in err


# -- item 6: the gate judges only the cases this run ran ---------------------------------

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def suite_copy(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> pytest.Pytester:
    """The suite's wiring and three cases (TC-001 to TC-003) with their reference cassettes
    (as tests/test_faults.py builds it)."""
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
    for name in ("tests/test_cases.py", "conftest.py"):
        (pytester.path / name).write_bytes((REPO / name).read_bytes())
    return pytester


def run_suite(suite_copy: pytest.Pytester, *extra: str) -> pytest.RunResult:
    return suite_copy.runpytest(
        "--import-mode=importlib",
        "-p",
        "no:cacheprovider",
        "-p",
        "pytest_recording.plugin",
        "tests/test_cases.py::test_case",
        *extra,
    )


def test_a_stale_error_in_the_results_file_does_not_decide_the_gate(
    suite_copy: pytest.Pytester,
) -> None:
    assert run_suite(suite_copy, "-k", "TC-001 or TC-003").ret == 0
    results = suite_copy.path / "reports" / "results-reference.json"
    baseline = suite_copy.path / "baseline.json"
    baseline.write_text(results.read_text())
    # an earlier partial run left an error for TC-001 in the merged results file
    data = json.loads(results.read_text())
    for case in data["cases"]:
        if case["id"] == "TC-001":
            case.update(outcome="error", error="the server went away (an earlier run)")
    results.write_text(json.dumps(data))
    gated = run_suite(suite_copy, "-k", "TC-003", "--baseline", str(baseline), "--fail-on-new")
    output = gated.stdout.str()
    assert gated.ret == 0, output
    assert "1/1 cases passed" in output and "unsafe" not in output
    assert "(on the 1 case this run ran): same" in output
    merged = json.loads(results.read_text())
    assert {c["id"]: c["outcome"] for c in merged["cases"]}["TC-001"] == "error"  # kept


# -- item 7: exit codes and messages that say what is true --------------------------------

SPLIT_TEXT = (
    "Cats purr and cats sleep. Cats purr and cats eat. Cats purr and cats play.\n\n"
    "Battery cells store charge. Battery cells store heat. Battery cells store power.\n"
)


class _GonePipe:
    """stdout whose reader went away: writes are buffered, the flush fails (EPIPE), as a
    block-buffered pipe behaves under ``| head -c 100``."""

    def __init__(self) -> None:
        self.buffered: list[str] = []

    def write(self, text: str) -> int:
        self.buffered.append(text)
        return len(text)

    def flush(self) -> None:
        if self.buffered:
            raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        raise OSError("no file descriptor")

    def isatty(self) -> bool:
        return False


def _chunked_output(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    out = tmp_path / "out.json"
    with FakeMessagesServer(handler=echo_model) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert main(["chunk", str(document(tmp_path)), "-o", str(out), "--quiet"]) == 0
    return out


@pytest.mark.usefixtures("hashing")
@pytest.mark.parametrize("command", ["split", "check", "report"])
def test_a_reader_gone_from_stdout_is_141_and_no_word_of_success(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: str,
) -> None:
    if command == "split":
        doc = tmp_path / "pets.md"
        doc.write_text(SPLIT_TEXT)
        argv = ["split", str(doc)]
    elif command == "check":
        argv = ["check", str(_chunked_output(monkeypatch, tmp_path))]
    else:
        monkeypatch.chdir(tmp_path)  # the report goes to ./reports/
        argv = ["report", str(REPO / "tests/fixtures/report/results-reference.json"), "--no-plots"]
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdout", _GonePipe())
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 141, err
    for success in ("chunks from", "errors,", "written to"):
        assert success not in err


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize(
    ("key", "what"),
    [
        (f" {KEY}", "a space at character 1"),
        (f"{KEY}\n", "a line break"),
        (f"{KEY}\t", "a whitespace"),
    ],
    ids=["leading-space", "trailing-newline", "trailing-tab"],
)
def test_a_key_with_surrounding_whitespace_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, provider: str, key: str, what: str
) -> None:
    with FakeMessagesServer(handler=echo_model) as server:
        if provider == "openai":
            variable, model = "OPENAI_API_KEY", ("--model", "openai:loopback-model")
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url + "/v1")
        else:
            variable, model = "ANTHROPIC_API_KEY", ()
            monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv(variable, key)
        status, out, err = run("chunk", document(tmp_path, 1), *model)
    assert status == 2 and server.requests == [], err
    assert f"the API key in {variable} contains {what}" in err
    assert KEY not in out + err and len(err.splitlines()) == 1


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_base_url_message_names_where_the_url_came_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, provider: str, how: str
) -> None:
    variable = "OPENAI_BASE_URL" if provider == "openai" else "ANTHROPIC_BASE_URL"
    model = ("--model", "openai:loopback-model") if provider == "openai" else ()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    source = "--base-url" if how == "option" else variable
    other = variable if how == "option" else "--base-url"
    for url in ("localhost:8080", "http://127.0.0.1:9/v1"):  # malformed; unreachable
        given = ("--base-url", url) if how == "option" else ()
        if how == "environment":
            monkeypatch.setenv(variable, url)
        status, _, err = run("chunk", document(tmp_path, 1), *model, *given, "--timeout", "2")
        assert status in (2, 3) and source in err and other not in err, err


@pytest.mark.parametrize(
    "content",
    ["\x1c\x1d\x1e\x1f\x0b\x0c" * 1400, "\x01\x02\x7f\x1b" * 2000, "\u200b\x00"[:1] * 3000],
    ids=["whitespace-like", "control", "format"],
)
@pytest.mark.parametrize("command", ["chunk", "split"])
def test_a_file_of_control_characters_is_not_text(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, content: str, command: str
) -> None:
    path = tmp_path / "controls.md"
    path.write_text(content)
    with FakeMessagesServer(handler=echo_model) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        status, out, err = run(command, path)
    assert status == 2 and server.requests == [] and out == ""
    assert "not text" in err and "empty" not in err and len(err.splitlines()) == 1


def test_a_file_of_spaces_is_still_empty_and_text_with_a_control_character_is_text(
    tmp_path: Path,
) -> None:
    from agentic_chunking.cli._io import read_text_file

    blank = tmp_path / "blank.md"
    blank.write_text(" \n\t\r\n")
    with pytest.raises(InputError, match="the file is empty"):
        read_text_file(blank)
    text = tmp_path / "text.md"
    text.write_text("A page.\x0cThe next page.\x1b")
    assert read_text_file(text) == "A page.\x0cThe next page.\x1b"


# -- item 3: the first failure is the one reported ----------------------------------------


def _full_disk_for(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """The one atomic writer fails with ENOSPC for files whose name ends with ``names``."""
    import errno

    from agentic_chunking.cli import _io

    real = _io.write_text_atomic

    def writer(path: Path | str, text: str, **options: Any) -> Path:
        if str(path).endswith(names):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, text, **options)

    monkeypatch.setattr(_io, "write_text_atomic", writer)


def batch_two_fails(failure: FakeReply) -> Callable[[dict[str, Any]], FakeReply | str]:
    def answer(body: dict[str, Any]) -> FakeReply | str:
        return failure if "number 2" in user_text(body) else echo_model(body)

    return answer


@pytest.mark.parametrize("on_failure", ["keep", "write"])
@pytest.mark.parametrize(
    ("reply", "status_wanted", "first"),
    [
        (
            FakeReply(status=500, text="upstream broke", headers={"x-should-retry": "false"}),
            3,
            "HTTP 500",
        ),
        (FakeReply(status=401, text="bad key"), 2, "the API key was rejected"),
    ],
    ids=["500", "401"],
)
def test_a_model_error_is_reported_first_when_its_failure_document_cannot_be_written(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    run: Run,
    on_failure: str,
    reply: FakeReply,
    status_wanted: int,
    first: str,
) -> None:
    out = tmp_path / "out.json"
    _full_disk_for(monkeypatch, "out.json", "out.failed.json")
    with FakeMessagesServer(handler=batch_two_fails(reply)) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        status, _, err = run(
            "chunk",
            document(tmp_path),
            "-o",
            out,
            "--on-failure",
            on_failure,
            "--max-concurrency",
            "1",
            "--max-tokens-per-batch",
            "6",
        )
    assert status == status_wanted, err
    line = next(line for line in err.splitlines() if "error:" in line)
    assert first in line and "No space left on device" in line
    assert line.index(first) < line.index("could not be written either")
    assert not out.exists() and not (tmp_path / "out.failed.json").exists()


def test_a_failed_run_whose_document_cannot_be_written_says_its_own_failure_first(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    out = tmp_path / "out.json"
    _full_disk_for(monkeypatch, "out.failed.json")
    refused = FakeReply(text="I cannot help with that.", stop_reason="refusal")
    with FakeMessagesServer(handler=batch_two_fails(refused)) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        status, _, err = run(
            "chunk",
            document(tmp_path),
            "-o",
            out,
            "--max-concurrency",
            "1",
            "--max-tokens-per-batch",
            "6",
        )
    assert status in (1, 3), err
    assert "could not be written either" in err and "No space left on device" in err


# -- item 2: a paid reply is never lost ---------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A 256 KB tmpfs at ``tmp_path/disk`` (mounting needs root: skipped, with the reason,
    where it cannot be mounted); the system's temporary folder is moved beside it, so a
    fallback folder lands off the small disk."""
    import subprocess
    import tempfile

    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.strip()}")
    temporary = tmp_path / "temporary"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> None:
    """Write to ``disk`` until it is full."""
    import errno

    block = b"\0" * 4096
    with open(disk / "filler", "ab", buffering=0) as filler:
        try:
            while True:
                filler.write(block)
        except OSError as error:
            assert error.errno == errno.ENOSPC


def test_a_full_disk_is_refused_before_any_call_with_the_sizes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, small_disk: Path
) -> None:
    fill(small_disk)
    with FakeMessagesServer(handler=echo_model) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        status, out, err = run("chunk", document(tmp_path), "-o", small_disk / "out.json")
    assert status == 2 and server.requests == [] and out == "", err
    assert f"not enough room in {small_disk}" in err and "free, but the output" in err
    assert "nothing was sent" in err and len(err.splitlines()) == 1
    # the cache elsewhere, the output still on the full disk: refused, naming -o
    status, _, err = run(
        "chunk", document(tmp_path), "-o", small_disk / "out.json", "--cache-dir", tmp_path / "c"
    )
    assert status == 2 and "with -o" in err and server.requests == []


def test_the_room_check_passes_where_there_is_room(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, small_disk: Path
) -> None:
    with FakeMessagesServer(handler=echo_model) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        status, _, err = run("chunk", document(tmp_path), "-o", small_disk / "out.json")
    assert status == 0 and (small_disk / "out.json").is_file(), err


def test_replies_paid_after_the_disk_filled_survive_in_the_named_fallback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run, small_disk: Path
) -> None:
    def fill_then_answer(body: dict[str, Any]) -> FakeReply | str:
        if not (small_disk / "filler").exists():
            fill(small_disk)  # the disk fills while the first call is in flight
        return echo_model(body)

    source = document(tmp_path)
    out = small_disk / "out.json"
    with FakeMessagesServer(handler=fill_then_answer) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        one_at_a_time = ("--max-tokens-per-batch", "6", "--max-concurrency", "1")
        status, _, err = run("chunk", source, "-o", out, *one_at_a_time)
        paid = len(server.requests)
        assert status == 2 and paid >= 3, err
        errors = [line for line in err.splitlines() if "error:" in line]
        assert len(errors) == 1 and f"cannot write {out}" in errors[0]
        found = re.search(r"--cache-dir (\S+) to pay for none", errors[0])
        assert found is not None, errors[0]
        fallback = Path(found.group(1))
        assert fallback.parent == tmp_path / "temporary"
        assert len(list(fallback.glob("*.json"))) == paid + 1  # every reply, and the result
        result = json.loads((fallback / "out.json").read_text())
        assert result["IsSuccess"] is True and not out.exists()
        elsewhere = tmp_path / "elsewhere.json"
        status, _, err = run(
            "chunk",
            source,
            "-o",
            elsewhere,
            "--resume",
            "--cache-dir",
            fallback,
            *("--max-tokens-per-batch", "6"),
        )
    assert status == 0, err
    assert len(server.requests) == paid  # nothing paid again
    assert json.loads(elsewhere.read_text())["Chunks"] == result["Chunks"]


# -- item 5: check validates its input before any rule ------------------------------------


def _output_with(tmp_path: Path, propositions: tuple[str, ...] = (), **chunk_fields: Any) -> Path:
    """A chunked output of one chunk (a whole one of ``propositions``, then
    ``chunk_fields`` put over it)."""
    from agentic_chunking._models import AgenticChunk

    chunk = AgenticChunk.from_propositions(
        document_id="doc",
        seq=1,
        thematic_category="Facts",
        propositions=list(propositions or ("The sky is blue.", "Grass is green.")),
        source_chunk_ids=["doc-P0001"],
    ).to_dict()
    chunk.update(chunk_fields)
    path = tmp_path / "out.json"
    path.write_text(json.dumps({"Chunks": [chunk], "IsSuccess": True}))
    return path


@pytest.mark.parametrize(
    ("fields", "wanted"),
    [
        ({"Propositions": "a string"}, "Propositions must be a list of strings, not the string"),
        (
            {"Propositions": [1, None, {"x": 1}]},
            "Propositions must be a list of strings: item 1 is the number 1",
        ),
        (
            {"Propositions": ["Fine.", None]},
            "Propositions must be a list of strings: item 2 is null",
        ),
        ({"ChunkId": 7}, "chunk 1 (no ChunkId): ChunkId must be a string, not the number 7"),
        ({"DocumentId": ["doc"]}, "chunk 1 'doc-0001': DocumentId must be a string, not a list"),
        ({"SourceChunkIds": "doc-P0001"}, "SourceChunkIds must be a list of strings"),
        ({"PropositionCount": "2"}, "PropositionCount must be a whole number, not the string '2'"),
        # Fields of the published schema (agentic_chunking._schema) are checked with its types:
        ({"Metadata": "none"}, "Metadata must be an object, not the string 'none'"),
        (
            {"PropositionSpans": [[["0", 12]], []]},
            "PropositionSpans holds the string '0' where a whole number belongs",
        ),
        ({"Part": True}, "Part must be a whole number, not true/false"),
    ],
    ids=[
        "string",
        "mixed",
        "null",
        "id-number",
        "document-list",
        "sources-string",
        "count-string",
        "metadata-string",
        "span-offset-string",
        "part-bool",
    ],
)
def test_check_names_the_field_and_the_chunk_of_a_wrong_type(
    tmp_path: Path, run: Run, fields: dict[str, Any], wanted: str
) -> None:
    """Each field of a chunk is validated with the published schema's type for it."""
    status, out, err = run("check", _output_with(tmp_path, **fields))
    assert status == 2 and out == "", err
    assert wanted in err and len(err.splitlines()) == 1
    assert "MergedContent" not in err  # never reported as a mismatch


def test_check_takes_another_tools_output_with_only_the_fields_the_rules_read(
    tmp_path: Path, run: Run
) -> None:
    """The published schema's value constraints are not enforced on check's input (an id
    without the ``-0001`` form, no hash, fields the schema does not name); types are."""
    chunk = {
        "ChunkId": "a",
        "DocumentId": "d",
        "ThematicCategory": "Sky",
        "Propositions": ["The sky is blue."],
        "Score": 0.5,
    }
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"Chunks": [chunk]}))
    status, _, err = run("check", path)
    assert status == 0, err


def test_check_refuses_a_proposition_over_the_limit_at_once(tmp_path: Path, run: Run) -> None:
    from agentic_chunking.findings import MAX_PROPOSITION_CHARS

    huge = "He said it was his and he took it. " * 150_000  # 5 MB, pronoun-heavy
    status, _, err = run("check", _output_with(tmp_path, ("Fine.", huge)))
    assert status == 2 and len(err.splitlines()) == 1
    assert f"proposition 2 has {len(huge):,} characters, over the limit of" in err
    assert f"{MAX_PROPOSITION_CHARS:,}" in err and len(err) < 2000
    # at the limit it is checked
    ok = "The sky is blue. " * ((MAX_PROPOSITION_CHARS - 20) // 17)
    status, _, err = run("check", _output_with(tmp_path, (ok.strip(),)))
    assert status in (0, 1), err


def test_check_refuses_a_file_over_the_size_limit_before_reading_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, run: Run
) -> None:
    from agentic_chunking.findings import _input as _check_input

    path = _output_with(tmp_path)
    monkeypatch.setattr(_check_input, "MAX_FILE_BYTES", path.stat().st_size - 1)
    status, _, err = run("check", path)
    assert status == 2 and "over the limit of" in err and len(err.splitlines()) == 1
    monkeypatch.setattr(_check_input, "MAX_FILE_BYTES", path.stat().st_size)
    assert run("check", path)[0] in (0, 1)


def test_a_mismatch_quoting_a_huge_value_is_capped(tmp_path: Path, run: Run) -> None:
    merged = "x" * 5_000_000
    status, _, err = run("check", _output_with(tmp_path, MergedContent=merged))
    assert status == 2 and "MergedContent" in err
    assert max(len(line) for line in err.splitlines()) < 2_100


# -- item 8: SIGTERM (and a second Ctrl-C) ends any pytest session -----------------------

_HOLDING_CONFTEST = """
import os, time
import pytest

POINT, MARK = os.environ["STOP_POINT"], os.environ["STOP_MARK"]


def _hold():
    open(MARK, "w").close()
    if POINT == "swallowed":
        try:  # a library that swallows the interrupt (as vcrpy's cassette set-up did)
            time.sleep(120)
        except KeyboardInterrupt:
            pass
    else:
        time.sleep(120)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if "TC-002" in item.nodeid and POINT in ("setup", "swallowed"):
        _hold()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    if "TC-002" in item.nodeid and POINT == "call":
        _hold()
"""


def _stopped_session(
    suite_copy: pytest.Pytester, point: str, signals: tuple[int, ...]
) -> tuple[int, str]:
    import os
    import signal as _signal
    import subprocess
    import time

    (suite_copy.path / "tests" / "conftest.py").write_text(_HOLDING_CONFTEST)
    mark = suite_copy.path / "holding"
    env = {**os.environ, "STOP_POINT": point, "STOP_MARK": str(mark)}
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "--import-mode=importlib",
            "-p",
            "no:cacheprovider",
            "-p",
            "pytest_recording.plugin",
            "tests/test_cases.py::test_case",
        ],
        cwd=suite_copy.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not mark.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mark.exists(), child.communicate()[0]
        for signum in signals:
            child.send_signal(_signal.Signals(signum))
            time.sleep(0.3)
        output, _ = child.communicate(timeout=60)  # the hold is 120 s: ended by the signal
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, output


@pytest.mark.parametrize("point", ["call", "swallowed"])
def test_sigterm_ends_a_replay_session_at_once_keeping_the_finished_results(
    suite_copy: pytest.Pytester, point: str
) -> None:
    import signal as _signal

    status, output = _stopped_session(suite_copy, point, (_signal.SIGTERM,))
    assert status == 143, output
    assert "stopped by SIGTERM" in output and "Traceback" not in output
    assert "TC-003" not in output.split("stopped by SIGTERM")[-1]  # no case after it
    results = json.loads((suite_copy.path / "reports" / "results-reference.json").read_text())
    ran = {case["id"] for case in results["cases"]}
    assert "TC-001" in ran and "TC-003" not in ran  # the finished case kept, no later one
    leftovers = [p for p in (suite_copy.path / "cassettes").rglob("*") if p.suffix != ".yaml"]
    assert [p for p in leftovers if p.is_file()] == []  # no half-written cassette


def test_a_second_ctrl_c_ends_a_session_whose_first_was_swallowed(
    suite_copy: pytest.Pytester,
) -> None:
    import signal as _signal

    status, output = _stopped_session(suite_copy, "swallowed", (_signal.SIGINT, _signal.SIGINT))
    assert status == 130, output
    assert "Traceback" not in output


_INNER_RUN = "AGENTIC_CHUNKING_INNER_TEST_RUN"
"""Set, to a token of its own, in the environment of each test run started below (and so of
every process it starts); such a run skips the test that starts it."""


def _processes_with(token: str) -> dict[int, str]:
    """The live processes whose environment holds ``_INNER_RUN=token``: pid to command line."""
    marker = f"{_INNER_RUN}={token}".encode()
    found = {}
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if marker not in environ.read_bytes().split(b"\0"):
                continue
            state = (environ.parent / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (environ.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue  # ended meanwhile, or not ours to read
        if state != "Z":
            found[int(environ.parent.name)] = command.strip()
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for the processes left")
@pytest.mark.skipif(bool(__import__("os").environ.get(_INNER_RUN)), reason="the inner run")
@pytest.mark.parametrize(
    ("selection", "started"),
    [(["tests/"], "results"), (["tests/test_benchmarks_quick.py"], "subprocesses")],
    ids=["whole-run", "quick-benchmarks-under-way"],
)
def test_sigterm_ends_a_test_run_by_unwinding_and_leaves_no_process(
    selection: list[str], started: str
) -> None:
    """The project's own test run sent SIGTERM: the whole run once it has reported three
    results, and the quick benchmarks' run once its benchmark subprocesses (started by
    worker threads) are under way. It ends with 143 by unwinding, before the plugin's grace
    timer would end it, and no process it started, at any depth, is left running."""
    import contextlib
    import os
    import signal as _signal
    import subprocess
    import time
    import uuid

    from agentic_chunking.suite.plugin import STOP_GRACE_S

    token = uuid.uuid4().hex
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selection],
        cwd=REPO,
        env={**os.environ, _INNER_RUN: token},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output = bytearray()

    def read_output() -> None:
        assert child.stdout is not None
        for byte in iter(lambda: child.stdout.read(1), b""):  # type: ignore[union-attr]
            output.extend(byte)

    def ready() -> bool:
        if started == "results":
            return sum(output.count(c) for c in b".sFEx") >= 3
        return any("--quick" in command for command in _processes_with(token).values())

    reader = threading.Thread(target=read_output, daemon=True)
    reader.start()
    left: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 600
        while not ready():
            assert child.poll() is None and time.monotonic() < deadline, output.decode()
            time.sleep(0.05)
        child.send_signal(_signal.SIGTERM)
        signalled = time.monotonic()
        status = child.wait(timeout=STOP_GRACE_S + 60)
        unwound_in = time.monotonic() - signalled
        time.sleep(0.5)  # a process being killed as the run ended is gone by now
        left = _processes_with(token)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        for pid in _processes_with(token):  # clean up what a failing run left
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, _signal.SIGKILL)
        reader.join(timeout=10)
        child.stdout.close()  # type: ignore[union-attr]
    shown = output.decode(errors="replace")[-3000:]
    assert status == 143, shown
    assert "stopped by SIGTERM" in shown and "Traceback" not in shown, shown
    assert unwound_in < STOP_GRACE_S, f"ended by the grace timer, not by unwinding\n{shown}"
    assert left == {}, f"processes left running after the test run ended: {left}"
