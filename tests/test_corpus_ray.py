"""The Ray engine on a local Ray instance with 2 CPUs, against a loopback server: the same
records as the local engine, byte for byte after sorting, and resume through the ledger."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic_chunking._loopback import (
    FakeMessageBatchesServer,
    FakeMessagesServer,
    ParagraphModel,
)
from agentic_chunking.cli import main
from agentic_chunking.corpus import Ledger, read_records

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

KEY = "sk-ant-ray-test-key"


def _counts(path: Path) -> dict[str, int]:
    with Ledger(path) as ledger:
        return ledger.counts()


def _batches(path: Path) -> list[tuple[str, str, list[str]]]:
    with Ledger(path) as ledger:
        return list(ledger.batches())


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[ParagraphModel, FakeMessagesServer]]:
    """A loopback server, and a local Ray instance of 2 CPUs started with the server's URL
    and a key in its environment, as a user's shell gives them to the command."""
    script = ParagraphModel()
    with FakeMessagesServer(handler=script) as server, pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", KEY)
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            yield script, server
        finally:
            ray.shutdown()


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus.jsonl"
    lines = [
        {
            "document_id": f"doc-{n:02d}",
            "text": f"Alpha {n} is a fact.\n\nBeta {n} is another fact.\n\nAlpha {n} is more.",
            "metadata": {"n": n, "tags": ["a", "b"][: n % 3]},
        }
        for n in range(20)
    ]
    lines.append({"document_id": "l4", "chunks": [{"chunk_id": "S1", "text": "Gamma holds."}]})
    twice = [{"chunk_id": "S1", "text": "Gamma holds."}, {"chunk_id": "S1", "text": "Delta."}]
    lines.append({"document_id": "l4-twice", "chunks": twice})  # that document's failure
    lines.insert(7, {"document_id": "no-text", "text": " \n"})  # fails, on its line number
    text = "".join(json.dumps(x) + "\n" for x in lines).replace("\n", "\n\n", 3)  # blank lines
    corpus.write_text("\ufeff" + text, encoding="utf-8")  # with a BOM, as Windows tools write
    return corpus


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_ray_engine_writes_the_local_engines_records(
    tmp_path: Path,
    served: tuple[ParagraphModel, FakeMessagesServer],
    capsys: pytest.CaptureFixture[str],
) -> None:
    corpus = _corpus(tmp_path)
    _, server = served
    local, distributed = tmp_path / "local" / "out.jsonl", tmp_path / "ray" / "out.jsonl"
    local.parent.mkdir()
    distributed.parent.mkdir()
    before = len(server.requests)
    assert main(["corpus", str(corpus), "-o", str(local), "--quiet"]) == 1
    sent = len(server.requests) - before
    ray_run = ["corpus", str(corpus), "-o", str(distributed), "--quiet", "--engine", "ray"]
    assert main(ray_run) == 1
    assert len(server.requests) - before == 2 * sent  # a cache of its own: all done again
    assert sorted(distributed.read_text().splitlines()) == sorted(local.read_text().splitlines())
    assert distributed.read_bytes() == local.read_bytes()  # input order kept too
    failures = [path.parent / "out.failures.jsonl" for path in (local, distributed)]
    assert failures[1].read_bytes() == failures[0].read_bytes()
    assert "line 11: the text is empty" in failures[1].read_text()  # its line, blank ones too
    # a repeated chunk_id of Level 4 fails its document alone (it stopped the run, exit 70)
    assert "line 26: chunk 2: chunk_id 'S1' is given twice" in failures[1].read_text()
    assert _counts(tmp_path / "ray" / "out.ledger.sqlite") == {"done": 21, "failed": 2}
    # rerun on Ray: every document skipped through the ledger its workers wrote
    assert main(ray_run) == 1
    assert len(server.requests) - before == 2 * sent
    summary, failure = capsys.readouterr().err.splitlines()[-2:]
    assert "0 done, 21 skipped (done before), 2 failed" in summary
    assert "2 failed; the most common failure (1 of them): line 11: the text is empty" in failure


def _untidy_folder(root: Path) -> Path:
    """A folder as users have them: nested text files, a compressed one, a binary, an empty
    one, one with a byte that is not UTF-8, a hidden one, links to a file, to a folder and
    to nothing."""
    folder = root / "docs"
    (folder / "sub" / "deep").mkdir(parents=True)
    for n, name in enumerate(("a.txt", "sub/b.md", "sub/deep/c", "sub/d.txt")):
        (folder / name).write_text(f"Delta {n} holds.\n\nEpsilon {n} follows.\n")
    (folder / "notes.txt.gz").write_bytes(gzip.compress(b"Zeta holds.\n\nEta follows.\n"))
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (folder / "empty.txt").write_bytes(b"")
    (folder / "latin1.txt").write_bytes("Caf\xe9 Theta is open.\n".encode("latin-1"))
    (folder / ".hidden.txt").write_text("Iota is hidden.\n")
    (folder / "link.txt").symlink_to(folder / "a.txt")
    (folder / "linked-folder").symlink_to(folder / "sub", target_is_directory=True)
    (folder / "broken.txt").symlink_to(folder / "missing.txt")
    return folder


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.usefixtures("served")
def test_a_folder_gives_the_same_records_and_failures_on_every_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _untidy_folder(tmp_path)
    monkeypatch.chdir(tmp_path)  # relative paths: Ray's workers started in another folder
    outs = {engine: Path(engine, "out.jsonl") for engine in ("local", "batch", "ray")}
    for out in outs.values():
        out.parent.mkdir()
    command = ["corpus", "docs", "--quiet"]
    assert main([*command, "-o", str(outs["local"])]) == 1  # the broken link failed
    with FakeMessageBatchesServer(handler=ParagraphModel(), polls_to_end=1) as batches:
        batched = ["--batch", "--batch-poll", "0.05", "--base-url", batches.base_url]
        assert main([*command, "-o", str(outs["batch"]), *batched]) == 1
    assert main([*command, "-o", str(outs["ray"]), "--engine", "ray"]) == 1
    records = {engine: out.read_bytes() for engine, out in outs.items()}
    assert records["batch"] == records["local"] and records["ray"] == records["local"]
    chunked = {r["DocumentId"] for r in read_records(outs["local"])}
    assert chunked == {"a.txt", "link.txt", "sub/b.md", "sub/d.txt", "sub/deep/c"}
    failures = {e: (o.parent / "out.failures.jsonl").read_bytes() for e, o in outs.items()}
    assert failures["batch"] == failures["local"] and failures["ray"] == failures["local"]
    listed = read_records(outs["local"].parent / "out.failures.jsonl")
    assert [(f["document_id"], f["error_kind"]) for f in listed] == [
        ("broken.txt", "input"),
        ("empty.txt", "not_text"),
        ("latin1.txt", "not_text"),
        ("logo.png", "not_text"),
        ("notes.txt.gz", "not_text"),
    ]


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # a port just freed: nothing listens on it
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_a_ray_address_where_no_cluster_answers_is_refused_in_one_line(
    tmp_path: Path, scheme: str
) -> None:
    """RAY_ADDRESS naming a host with no cluster printed connection retries for ever (and
    the ray:// form gave exit 70): now one line, exit 2, within seconds."""
    import os
    import subprocess
    import sys

    corpus = tmp_path / "in.jsonl"
    corpus.write_text(json.dumps({"document_id": "a", "text": "Alpha holds."}) + "\n")
    address = f"{scheme}127.0.0.1:{_closed_port()}"
    env = {**os.environ, "RAY_ADDRESS": address, "ANTHROPIC_API_KEY": KEY}
    command = [sys.executable, "-m", "agentic_chunking", "corpus", str(corpus)]
    command += ["-o", str(tmp_path / "out.jsonl"), "--engine", "ray", "--quiet"]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"RAY_ADDRESS={address}: the run still waited after 120 s")
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"no Ray cluster answers at RAY_ADDRESS {address!r}" in done.stderr
    assert "unset RAY_ADDRESS" in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_the_ray_client_form_without_the_ray_client_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentic_chunking._errors import InputError
    from agentic_chunking.corpus import _ray

    _ray.check_address(None)  # a local instance: nothing to check
    _ray.check_address("auto")
    missing = {"grpc"}
    real = _ray.importlib.util.find_spec
    monkeypatch.setattr(
        _ray.importlib.util, "find_spec", lambda name: None if name in missing else real(name)
    )
    with pytest.raises(InputError, match=r"uses the Ray Client, which needs grpcio"):
        _ray.check_address("ray://head:10001")
    with pytest.raises(InputError, match=r"is not HOST:PORT"):
        _ray.check_address("head")


def test_sigterm_under_ray_ends_the_run_with_143_and_the_previous_output(tmp_path: Path) -> None:
    """SIGTERM under Ray aborted the command (SIGABRT, Ray's core printing stack frames):
    Ray's own handlers replaced the command's. Now one line and 143, OUT as it was."""
    import os
    import signal
    import subprocess
    import sys
    import time

    corpus = tmp_path / "in.jsonl"
    rows = [
        {"document_id": f"d{n}", "text": f"Alpha {n} holds.\n\nBeta {n} too."} for n in range(4)
    ]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    out.write_text("the previous output\n", encoding="utf-8")
    script = ParagraphModel(hold_after=0)  # every call waits: the run is stuck in Ray
    with FakeMessagesServer(handler=script) as server:
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        env.pop("RAY_ADDRESS", None)
        command = [sys.executable, "-m", "agentic_chunking", "corpus", str(corpus), "-o"]
        command += [str(out), "--engine", "ray", "--quiet"]
        run = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 180
            while script.held < 1 and time.monotonic() < deadline and run.poll() is None:
                time.sleep(0.2)
            assert script.held >= 1, "the run never reached a call"
            run.send_signal(signal.SIGTERM)
            _, err = run.communicate(timeout=90)
        finally:
            script.release.set()
            if run.poll() is None:
                run.kill()
                run.communicate()
    assert run.returncode == 143, err[-2000:]
    assert err.splitlines()[-1] == (
        "agentic-chunking corpus: stopped by SIGTERM; no file was left half-written"
    )
    assert "SIGTERM received" not in err  # no stack frames of Ray's core
    assert out.read_text(encoding="utf-8") == "the previous output\n"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_under_ray_documents_are_counted_as_each_finishes_not_when_its_task_ends(
    tmp_path: Path,
    served: tuple[ParagraphModel, FakeMessagesServer],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Under --engine ray the bar sat at 0/280 for five minutes then jumped to the end: a
    Ray task of 16 documents gave its results back only when all 16 were done. Now each
    document's result comes back as it finishes, so the progress lines off a terminal
    (PROGRESS_EVERY_S; 0.05 s here) count the documents of a task one by one."""
    import agentic_chunking.cli._progress as progress

    script, _ = served
    monkeypatch.setattr(progress, "PROGRESS_EVERY_S", 0.05)
    monkeypatch.setattr(script, "_delay_s", 0.2)  # each document about a second
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"document_id": f"d{n}", "text": f"Alpha {n} holds.\n\nBeta {n} too."})
            + "\n"
            for n in range(4)  # one Ray task (BATCH_SIZE 16)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    run = ["corpus", str(corpus), "-o", str(out), "--engine", "ray", "--max-concurrency", "1"]
    assert main(run) == 0
    err = capsys.readouterr().err
    counted = {
        line.split(": ", 1)[1].split(" of 4 documents")[0]
        for line in err.splitlines()
        if line.startswith("agentic-chunking corpus: ") and " of 4 documents (" in line
    }
    assert counted & {"1", "2", "3"}, err  # seen between none and all
    assert len(read_records(out)) == 8


def test_a_temporary_folder_too_deep_for_rays_sockets_is_named_with_the_way_out(
    tmp_path: Path,
) -> None:
    """Under a TMPDIR so deep that Ray's socket paths pass the 107 bytes Unix allows, a
    local Ray instance cannot start: one line naming TMPDIR and RAY_TMPDIR, exit 2, OUT as
    it was; it said 'cannot write OUT (validate_socket_filename failed ...) ... free room'
    (fault sweep trial ray_sigkill_then_rerun, run in a deep temporary folder)."""
    import os
    import subprocess
    import sys

    corpus = tmp_path / "in.jsonl"
    corpus.write_text(json.dumps({"document_id": "d", "text": "Alpha holds."}) + "\n", "utf-8")
    out = tmp_path / "out.jsonl"
    out.write_text("the previous output\n", encoding="utf-8")
    deep = tmp_path / ("t" * 60)
    deep.mkdir()
    script = ParagraphModel()
    with FakeMessagesServer(handler=script) as server:
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        env.pop("RAY_ADDRESS", None)
        env.pop("RAY_TMPDIR", None)
        env["TMPDIR"] = str(deep)
        command = [sys.executable, "-m", "agentic_chunking", "corpus", str(corpus), "-o"]
        command += [str(out), "--engine", "ray", "--quiet"]
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2, run.stderr[-2000:]
    assert "RAY_TMPDIR" in lines[-1] and "free room" not in lines[-1], lines
    assert out.read_text(encoding="utf-8") == "the previous output\n"
    assert script.answered == {}
