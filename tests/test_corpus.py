"""The corpus command and library: many documents, input order, resume by document, failures
listed, bad input refused before any call; against a loopback Messages server."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking._loopback import FakeMessagesServer, FakeReply, ParagraphModel, user_text
from agentic_chunking.checks._language import stem
from agentic_chunking.cli import main
from agentic_chunking.client import DEFAULT_MODEL, ModelClient
from agentic_chunking.corpus import (
    Ledger,
    chunk_corpus,
    open_corpus,
    read_records,
)
from agentic_chunking.pipeline import PipelineOptions
from agentic_chunking.pipeline._cache import ReplyCache

KEY = "sk-ant-corpus-test-key"


def _counts(path: Path) -> dict[str, int]:
    with Ledger(path) as ledger:
        return ledger.counts()


def _batches(path: Path) -> list[tuple[str, str, list[str]]]:
    with Ledger(path) as ledger:
        return list(ledger.batches())


def _document(number: int) -> str:
    return (
        f"Alpha {number} is the first fact of document {number}.\n\n"
        f"Beta {number} is the second fact of document {number}.\n\n"
        f"Alpha {number} also has a third fact.\n"
    )


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ParagraphModel, FakeMessagesServer]]:
    script = ParagraphModel(fail=lambda text: "poison" in text)
    server = FakeMessagesServer(handler=script).start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    yield script, server
    server.stop()


def _folder(root: Path, count: int) -> Path:
    folder = root / "docs"
    (folder / "sub").mkdir(parents=True)
    for number in range(1, count + 1):
        place = folder / "sub" if number % 2 else folder
        (place / f"d{number:02d}.txt").write_text(_document(number), encoding="utf-8")
    return folder


def _corpus(args: list[str]) -> int:
    return main(["corpus", *args, "--quiet"])


def _corpus_process(
    folder: Path, out: Path, server: FakeMessagesServer, *, max_concurrency: int
) -> subprocess.Popen[bytes]:
    """``corpus FOLDER -o OUT --quiet`` in a child process against ``server`` (stderr piped,
    to read its last line)."""
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
    command = [sys.executable, "-m", "agentic_chunking", "corpus", str(folder), "-o", str(out)]
    return subprocess.Popen(
        [*command, "--max-concurrency", str(max_concurrency), "--quiet"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_a_folder_becomes_one_record_per_chunk_in_input_order(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, 4)
    (folder / "LICENSE").write_text("Gamma is a licence fact.\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert _corpus([str(folder), "-o", str(out)]) == 0
    records = read_records(out)
    ids = [r["DocumentId"] for r in records]
    assert list(dict.fromkeys(ids)) == [
        "LICENSE",
        "d02.txt",
        "d04.txt",
        "sub/d01.txt",
        "sub/d03.txt",
    ]
    first = [r for r in records if r["DocumentId"] == "d02.txt"]
    assert [r["ThematicCategory"] for r in first] == ["Alpha", "Beta"]
    assert first[0]["ChunkId"] == "d02.txt-0001"
    assert first[0]["Propositions"] == [
        "Alpha 2 is the first fact of document 2.",
        "Alpha 2 also has a third fact.",
    ]
    assert all(r["Metadata"] == {"source_path": r["DocumentId"]} for r in records)
    summary = capsys.readouterr().err
    assert "5 done, 0 skipped (done before), 0 failed of 5 documents" in summary
    assert not (tmp_path / "out.failures.jsonl").exists()


def test_a_rerun_skips_every_finished_document_and_sends_nothing(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script, server = model
    folder = _folder(tmp_path, 3)
    out = tmp_path / "out.jsonl"
    assert _corpus([str(folder), "-o", str(out)]) == 0
    first = out.read_bytes()
    sent = len(server.requests)
    assert _corpus([str(folder), "-o", str(out)]) == 0
    assert len(server.requests) == sent
    assert out.read_bytes() == first
    assert "0 done, 3 skipped (done before)" in capsys.readouterr().err
    # a changed document is redone; the others stay skipped
    (folder / "d02.txt").write_text(_document(2) + "\nDelta 2 is new.\n", encoding="utf-8")
    assert _corpus([str(folder), "-o", str(out)]) == 0
    assert "1 done, 2 skipped" in capsys.readouterr().err
    assert any("Delta 2 is new." in r["Propositions"] for r in read_records(out))
    assert script.paid_twice == 0


def test_changed_settings_redo_every_document_from_the_reply_cache(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script, _ = model
    folder = _folder(tmp_path, 2)
    out = tmp_path / "out.jsonl"
    assert _corpus([str(folder), "-o", str(out)]) == 0
    assert _corpus([str(folder), "-o", str(out), "--max-chunk-tokens", "900"]) == 0
    err = capsys.readouterr().err
    assert "2 done, 0 skipped" in err.splitlines()[-1]
    assert "from the reply cache, not paid again" in err.splitlines()[-1]
    assert script.paid_twice == 0


def test_a_failed_document_is_listed_with_its_reason_and_the_run_goes_on(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, 2)
    (folder / "binary.bin").write_bytes(b"\x00\x01\x02 not text")
    (folder / "poisoned.txt").write_text("Epsilon is fine.\n\nThis poison fails.\n")
    out = tmp_path / "out.jsonl"
    assert _corpus([str(folder), "-o", str(out), "--max-tokens-per-batch", "5"]) == 1
    failures = read_records(tmp_path / "out.failures.jsonl")
    assert [f["document_id"] for f in failures] == ["binary.bin", "poisoned.txt"]
    assert failures[0]["error_kind"] == "not_text" and "NUL bytes" in failures[0]["error"]
    assert failures[1]["error_kind"] == "model_call"
    assert failures[1]["extracted_propositions"] == ["Epsilon is fine."]
    assert {r["DocumentId"] for r in read_records(out)} == {"d02.txt", "sub/d01.txt"}
    summary, failure, aside = capsys.readouterr().err.splitlines()[-3:]
    assert "2 done, 0 skipped (done before), 1 failed, 1 not text (set aside) of 4" in summary
    assert "out.failures.jsonl" in summary
    assert failure.startswith("agentic-chunking corpus: 1 failed: extraction call for batch 2 ")
    assert failure.endswith(" (first: poisoned.txt); see " + str(tmp_path / "out.failures.jsonl"))
    assert "1 file is not text" in aside and "binary.bin" in aside
    # the failed ones are tried again on a rerun; the done ones are not
    (folder / "poisoned.txt").write_text("Epsilon is fine.\n")
    (folder / "binary.bin").unlink()
    assert _corpus([str(folder), "-o", str(out)]) == 0
    assert not (tmp_path / "out.failures.jsonl").exists()


def test_files_that_are_not_text_are_listed_but_fail_no_run_and_globs_leave_them_out(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, 2)
    (folder / "sub" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (folder / "notes.txt.gz").write_bytes(gzip.compress(_document(9).encode()))
    (folder / "empty.md").write_bytes(b"")
    out = tmp_path / "out.jsonl"
    assert _corpus([str(folder), "-o", str(out), "--dry-run"]) == 0
    assert "documents: 5 (3 not text, to be set aside and listed)" in capsys.readouterr().out
    assert _corpus([str(folder), "-o", str(out)]) == 0  # set aside, not failed
    failures = read_records(tmp_path / "out.failures.jsonl")
    assert [(f["document_id"], f["error_kind"]) for f in failures] == [
        ("empty.md", "not_text"),
        ("notes.txt.gz", "not_text"),
        ("sub/logo.png", "not_text"),
    ]
    assert "compressed (gzip)" in failures[1]["error"] and "gunzip" in failures[1]["error"]
    summary, aside = capsys.readouterr().err.splitlines()[-2:]
    assert "2 done, 0 skipped (done before), 0 failed, 3 not text (set aside) of 5" in summary
    assert "3 files are not text" in aside and "empty.md, notes.txt.gz, sub/logo.png" in aside
    # the globs leave them out: a name glob at any depth, a path glob with '**'
    again = ["--exclude", "*.gz", "--exclude", "**/*.png", "--exclude", "empty.*"]
    assert _corpus([str(folder), "-o", str(out), *again]) == 0
    assert not (tmp_path / "out.failures.jsonl").exists()
    last = capsys.readouterr().err.splitlines()[-1]
    assert "0 done, 2 skipped (done before), 0 failed of 2 documents (3 left out" in last
    assert _corpus([str(folder), "-o", str(out), "--include", "sub/*.txt"]) == 0
    assert "of 1 document (4 left out by --include/--exclude)" in capsys.readouterr().err
    assert _corpus([str(folder), "-o", str(out), "--include", "*.rst"]) == 2
    assert "--include/--exclude leave out all 5" in capsys.readouterr().err


def test_jsonl_with_metadata_and_level4_chunks_to_parquet_and_jsonl_alike(
    model: Any, tmp_path: Path
) -> None:
    lines = [
        {"document_id": "report-7", "text": _document(7), "metadata": {"lang": "en", "year": 2024}},
        {
            "document_id": "l4-doc",
            "chunks": [
                {"chunk_id": "S1", "text": "Kappa is a Level 4 fact.", "start": 0, "end": 24},
                {"chunk_id": "S2", "text": "Lambda is another one.", "start": 25, "end": 47},
            ],
        },
        {},  # refused below when given alone; here replaced
    ]
    corpus = tmp_path / "in.jsonl"
    corpus.write_text("\n".join(json.dumps(x) for x in lines[:2]) + "\n\n", encoding="utf-8")
    as_jsonl, as_parquet = tmp_path / "out.jsonl", tmp_path / "out.parquet"
    assert _corpus([str(corpus), "-o", str(as_jsonl)]) == 0
    assert _corpus([str(corpus), "-o", str(as_parquet)]) == 0
    records = read_records(as_jsonl)
    assert read_records(as_parquet) == records
    assert records[0]["Metadata"] == {"lang": "en", "year": 2024}
    level4 = [r for r in records if r["DocumentId"] == "l4-doc"]
    assert [r["SourceChunkIds"] for r in level4] == [["S1"], ["S2"]]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ['{"document_id": "a", "text": "x"}', '{"document_id": "a", "text": "y"}'],
            "document id 'a' is given twice (line 1 and line 2)",
        ),
        (['{"document_id": "a", "text": "x"}', "[1, 2]"], "line 2 is a list, not an object"),
        (['{"document_id": "a", "text": "x"}', "{not json"], "line 2 is not JSON"),
        (['{"text": "x"}'], "line 1: document_id is missing"),
        (['{"document_id": "a", "text": "x", "chunks": []}'], "not both"),
        (['{"document_id": "a", "text": "x", "metadata": [1]}'], "metadata is a list"),
    ],
)
def test_a_bad_corpus_is_refused_in_one_line_before_any_call(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[str], message: str
) -> None:
    _, server = model
    corpus = tmp_path / "in.jsonl"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _corpus([str(corpus), "-o", str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert server.requests == []
    assert not (tmp_path / "out.jsonl").exists()


def test_an_output_of_another_kind_and_a_missing_key_are_refused_before_any_call(
    model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, server = model
    folder = _folder(tmp_path, 1)
    assert _corpus([str(folder), "-o", str(tmp_path / "out.csv")]) == 2
    assert "must end in .jsonl, .ndjson, .parquet" in capsys.readouterr().err
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    before = sorted(p.name for p in tmp_path.iterdir())
    for batch in ([], ["--batch"]):
        assert _corpus([str(folder), "-o", str(tmp_path / "out.jsonl"), *batch]) == 2
        err = capsys.readouterr().err
        assert "ANTHROPIC_API_KEY" in err and err.count("\n") == 1  # no progress bar first
        assert sorted(p.name for p in tmp_path.iterdir()) == before  # no ledger, no cache
    assert server.requests == []


def test_output_order_and_records_do_not_depend_on_concurrency(model: Any, tmp_path: Path) -> None:
    folder = _folder(tmp_path, 9)
    serial, concurrent = tmp_path / "serial.jsonl", tmp_path / "concurrent.jsonl"
    assert _corpus([str(folder), "-o", str(serial), "--max-concurrency", "1"]) == 0
    assert (
        _corpus(
            [
                str(folder),
                "-o",
                str(concurrent),
                "--max-concurrency",
                "8",
                "--cache-dir",
                str(tmp_path / "other-cache"),
            ]
        )
        == 0
    )
    assert concurrent.read_bytes() == serial.read_bytes()


def test_the_library_yields_results_in_input_order_with_the_shared_limit(tmp_path: Path) -> None:
    script = ParagraphModel(delay_s=0.05)
    with FakeMessagesServer(handler=script) as server:
        from agentic_chunking.client import RequestLimits

        limits = RequestLimits(max_in_flight=3)
        client = ModelClient(
            api_keys={"anthropic": KEY},
            base_urls={"anthropic": server.base_url},
            limits=limits,
            max_retries=0,
        )
        jsonl = tmp_path / "in.jsonl"
        jsonl.write_text(
            "".join(
                json.dumps({"document_id": f"doc{n}", "text": _document(n)}) + "\n"
                for n in range(12)
            ),
            encoding="utf-8",
        )
        ledger = Ledger(tmp_path / "ledger.sqlite")
        results = list(
            chunk_corpus(
                open_corpus(jsonl).documents(),
                PipelineOptions(model="claude-sonnet-4-6"),
                client=client,
                ledger=ledger,
                max_documents=8,
                cache=ReplyCache(tmp_path / "cache", read=True),
            )
        )
        client.close()
    assert [r.document_id for r in results] == [f"doc{n}" for n in range(12)]
    assert all(r.status == "done" for r in results)
    assert 1 < limits.peak_in_flight <= 3
    assert ledger.counts() == {"done": 12}
    ledger.close()


def test_the_checks_stem_alike_on_many_threads_as_on_one() -> None:
    words = [
        f"{w}{suffix}"
        for w in ("run", "connect", "generate", "happy", "argue", "nation")
        for suffix in ("", "s", "ing", "ed", "ness", "ally", "ization", "ational")
    ]
    unwrapped = stem.__wrapped__
    serial = [unwrapped(w) for w in words]
    failures: list[BaseException] = []
    results: list[list[str]] = []

    def work() -> None:
        try:
            for _ in range(8):
                results.append([unwrapped(w) for w in words])
        except BaseException as error:  # an IndexError inside the shared stemmer
            failures.append(error)

    threads = [threading.Thread(target=work) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert all(r == serial for r in results)


def test_killed_half_way_then_rerun_pays_for_no_request_twice_and_writes_the_same_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGKILL while requests are in flight: OUT is not written (or left as it was), the
    ledger holds the finished documents; the rerun skips them, takes every paid reply from
    the cache, and writes exactly what an uninterrupted run writes."""
    folder = _folder(tmp_path, 12)
    out = tmp_path / "out.jsonl"
    out.write_text("the previous output\n", encoding="utf-8")
    script = ParagraphModel(hold_after=12)
    with FakeMessagesServer(handler=script) as server:
        process = _corpus_process(folder, out, server, max_concurrency=4)
        deadline = time.monotonic() + 90
        while script.held < 4 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        if script.held < 4:
            process.kill()
            pytest.fail(f"the run did not reach its held requests: {process.communicate()[1]!r}")
        process.kill()
        process.communicate(timeout=30)
        script.release.set()
        assert out.read_text(encoding="utf-8") == "the previous output\n"
        # the half-written files beside OUT are named as temporary ones, by the dead process
        left = sorted(p.name.split(".tmp-")[0] for p in tmp_path.glob(".*.tmp-*"))
        assert left == [".out.failures.jsonl", ".out.jsonl"]
        assert all(f"tmp-{process.pid}-" in p.name for p in tmp_path.glob(".*.tmp-*"))
        finished = _counts(tmp_path / "out.ledger.sqlite").get("done", 0)
        assert 0 < finished < 12
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        script._hold_after = None
        assert _corpus([str(folder), "-o", str(out)]) == 0
    assert script.paid_twice == 0
    assert list(tmp_path.glob(".*.tmp-*")) == []  # the rerun removed them
    fresh = ParagraphModel()
    with FakeMessagesServer(handler=fresh) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        whole = tmp_path / "whole" / "out.jsonl"
        whole.parent.mkdir()
        assert _corpus([str(folder), "-o", str(whole)]) == 0
    assert out.read_bytes() == whole.read_bytes()


def test_sigterm_ends_a_run_whose_calls_hang_at_once_with_143_and_the_previous_output(
    tmp_path: Path,
) -> None:
    """SIGTERM while every call in flight hangs (a server that never answers): the run
    ends with one line and 143, without waiting for the calls, OUT as it was (as Ctrl-C
    does)."""
    folder = _folder(tmp_path, 8)
    out = tmp_path / "out.jsonl"
    out.write_text("the previous output\n", encoding="utf-8")
    script = ParagraphModel(hold_after=4)
    with FakeMessagesServer(handler=script) as server:
        process = _corpus_process(folder, out, server, max_concurrency=2)
        try:
            deadline = time.monotonic() + 90
            while script.held < 2 and time.monotonic() < deadline and process.poll() is None:
                time.sleep(0.05)
            assert script.held >= 2, "the run never reached its held calls"
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=60)  # the calls stay held throughout
        finally:
            if process.poll() is None:
                process.kill()
            script.release.set()
    assert process.returncode == 143
    assert err.decode().splitlines()[-1] == (
        "agentic-chunking corpus: stopped by SIGTERM; no file was left half-written"
    )
    assert out.read_text(encoding="utf-8") == "the previous output\n"


def test_an_output_that_cannot_be_written_keeps_every_result_in_the_named_ledger(
    model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, 3)
    out = tmp_path / "out.jsonl"
    from agentic_chunking.corpus import _outputs

    real_write = _outputs.OutputWriter.write

    def full_disk(self: Any, record: Any) -> None:
        raise OSError(28, "No space left on device", str(self.path))

    monkeypatch.setattr(_outputs.OutputWriter, "write", full_disk)
    assert _corpus([str(folder), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "out.ledger.sqlite" in err
    assert "rerun the same command" in err and "Traceback" not in err
    assert not out.exists()
    finished = _counts(tmp_path / "out.ledger.sqlite").get("done", 0)
    assert finished >= 1  # the run stops at the failed write; what finished is kept
    monkeypatch.setattr(_outputs.OutputWriter, "write", real_write)  # room again
    assert _corpus([str(folder), "-o", str(out)]) == 0
    assert f"{3 - finished} done, {finished} skipped" in capsys.readouterr().err
    assert model[0].paid_twice == 0 and len(read_records(out)) == 6


def test_the_checks_memory_of_finished_documents_is_cleared_but_not_the_lexicons() -> None:
    from agentic_chunking.checks import _cached, _lexicon, clear_caches, find_duplicates

    find_duplicates(["Alpha 1 is a fact.", "Alpha 1 is a fact indeed."])
    assert _cached.tokens.cache_info().currsize > 0
    _lexicon._groups()  # the lexicon, loaded once
    assert _lexicon._groups.cache_info().currsize == 1
    assert clear_caches() > 10
    assert _cached.tokens.cache_info().currsize == 0
    assert _lexicon._groups.cache_info().currsize == 1  # not loaded again
    assert find_duplicates(["Alpha 1 is a fact.", "Alpha 1 is a fact indeed."])  # same answer


def test_a_second_run_on_the_same_output_is_refused_while_the_first_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two runs on one OUT sent the same requests twice (52 of 112); the second is now
    refused at once with exit 2, before any call, and the first goes on."""
    folder = _folder(tmp_path, 4)
    out = tmp_path / "out.jsonl"
    script = ParagraphModel(hold_after=1)
    with FakeMessagesServer(handler=script) as server:
        first = _corpus_process(folder, out, server, max_concurrency=1)
        try:
            deadline = time.monotonic() + 90
            while script.held < 1 and time.monotonic() < deadline and first.poll() is None:
                time.sleep(0.05)
            assert script.held >= 1, "the first run never reached its held call"
            sent = len(server.requests)
            monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
            monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
            assert _corpus([str(folder), "-o", str(out)]) == 2
            assert len(server.requests) == sent  # the second run sent nothing
            said = capsys.readouterr().err
            assert "another run is using this ledger and its output" in said
            assert "give this run another -o" in said
        finally:
            script.release.set()  # the held calls get a 529: the first run fails them
            first.communicate(timeout=120)
    assert first.returncode == 1
    with FakeMessagesServer(handler=ParagraphModel()) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert _corpus([str(folder), "-o", str(out)]) == 0  # the lock went with the first run


@pytest.mark.parametrize("option", ["-o", "--cache-dir"])
def test_an_output_or_cache_inside_the_input_folder_is_refused_before_any_call(
    tmp_path: Path, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Inside the folder, the first run listed its own files as failed documents and the
    rerun chunked them and paid for them."""
    folder = _folder(tmp_path, 2)
    inside = folder / ("out.jsonl" if option == "-o" else "cache")
    args = [str(folder), "-o", str(tmp_path / "out.jsonl"), option, str(inside)]
    assert _corpus(args) == 2
    assert "is inside the input folder" in capsys.readouterr().err
    assert not inside.exists()


def test_a_disk_filling_under_out_mid_run_exits_2_and_the_rerun_pays_for_nothing_again(
    model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk under OUT filled mid-run: exit 70 ("please report"), the paid replies in an
    unnamed temporary folder, and the rerun paid for 41 of 44 of them again. Now: exit 2
    naming the problem, the folder and the way out; the rerun takes them back first."""
    import errno
    import tempfile

    from agentic_chunking.corpus import _ledger
    from agentic_chunking.pipeline import _cache

    folder = _folder(tmp_path, 4)
    out = tmp_path / "out.jsonl"
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    full = threading.Event()
    real_write, real_record = _cache.write_text_atomic, _ledger.Ledger.record

    def write(path: Path | str, text: str, **kwargs: Any) -> Path:
        if full.is_set() and Path(path).parent == tmp_path / "out.replies":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real_write(path, text, **kwargs)

    def record(self: _ledger.Ledger, **kwargs: Any) -> None:
        full.set()  # the disk fills after the first document's replies are kept
        if _counts_rows(self) >= 1:
            import sqlite3  # what SQLite raises on a full disk, through the ledger's wording

            raise self._problem(sqlite3.OperationalError("database or disk is full"))
        real_record(self, **kwargs)

    monkeypatch.setattr(_cache, "write_text_atomic", write)
    monkeypatch.setattr(_ledger.Ledger, "record", record)
    assert _corpus([str(folder), "-o", str(out), "--max-concurrency", "1"]) == 2
    err = capsys.readouterr().err
    assert "unexpected error" not in err and "Traceback" not in err
    assert "database or disk is full" in err and "rerun the same command" in err
    kept = list(temporary.glob("agentic-chunking-replies-*"))
    assert len(kept) == 1 and str(kept[0]) in err
    paid = sum(model[0].answered.values())
    assert paid > 2  # more than the first document's replies went to the folder

    full.clear()
    monkeypatch.setattr(_ledger.Ledger, "record", real_record)  # room again
    assert _corpus([str(folder), "-o", str(out)]) == 0
    assert model[0].paid_twice == 0, "a reply kept in the temporary folder was paid again"
    assert not kept[0].exists()  # put back in the cache, then removed
    assert len(read_records(out)) == 8


def _counts_rows(ledger: Ledger) -> int:
    return sum(ledger.counts().values())


@pytest.mark.parametrize("damage", ["row", "garbage", "truncated"])
def test_a_damaged_ledger_is_one_line_and_exit_2_naming_the_way_out(
    model: Any, tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ledger row corrupted gave exit 70 with a trace; a garbage or truncated file too."""
    import sqlite3

    folder = _folder(tmp_path, 3)
    out = tmp_path / "out.jsonl"
    ledger = tmp_path / "out.ledger.sqlite"
    assert _corpus([str(folder), "-o", str(out)]) == 0
    if damage == "row":
        with sqlite3.connect(ledger) as db:
            db.execute("UPDATE documents SET records = '{not json' WHERE document_id = 'd02.txt'")
        db.close()
    elif damage == "garbage":
        ledger.write_bytes(b"this is no database\n" * 300)
    else:
        with Ledger(ledger) as filled:  # many rows, so that half the file loses some
            for number in range(300):
                filled.record(
                    document_id=f"x{number}",
                    document_sha256="0" * 64,
                    settings_sha256="0" * 64,
                    status="done",
                    records=[{"text": "padding " * 40}],
                    failure=None,
                    calls=0,
                    input_tokens=0,
                    output_tokens=0,
                    cost_usd=0.0,
                )
        with ledger.open("r+b") as stream:
            stream.truncate(ledger.stat().st_size // 2)
    capsys.readouterr()
    sent = len(model[1].requests)
    assert _corpus([str(folder), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "unexpected error" not in err and "Traceback" not in err and err.count("\n") == 1
    assert f"the ledger {ledger} is damaged" in err and "move it away" in err
    if damage == "row":
        assert "the row of document 'd02.txt' cannot be read" in err
    assert len(model[1].requests) == sent  # refused before any call
    ledger.rename(tmp_path / "damaged.sqlite")  # the way out: nothing is paid again
    assert _corpus([str(folder), "-o", str(out)]) == 0
    assert model[0].paid_twice == 0


def test_a_ledger_another_program_holds_locked_is_refused_before_any_call(
    model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ledger locked by another process ("database is locked") gave exit 70 after a minute."""
    import sqlite3

    from agentic_chunking.corpus import _ledger

    folder = _folder(tmp_path, 2)
    out = tmp_path / "out.jsonl"
    Ledger(tmp_path / "out.ledger.sqlite").close()
    monkeypatch.setattr(_ledger, "OPEN_WAIT_S", 0.2)
    holder = sqlite3.connect(tmp_path / "out.ledger.sqlite", timeout=0)
    holder.execute("BEGIN EXCLUSIVE")  # an sqlite3 shell in the middle of a transaction
    try:
        assert _corpus([str(folder), "-o", str(out)]) == 2
    finally:
        holder.rollback()
        holder.close()
    err = capsys.readouterr().err
    assert "is locked by another program (database is locked)" in err
    assert "end the program that holds it open" in err and "Traceback" not in err
    assert not model[1].requests
    assert _corpus([str(folder), "-o", str(out)]) == 0  # released: the run goes on


def test_a_level4_record_with_a_repeated_chunk_id_fails_that_document_alone(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One Level 4 record with a repeated chunk_id stopped the whole corpus (exit 2, naming
    no document or line) and the failure before it was never written."""
    corpus = tmp_path / "in.jsonl"
    rows = [
        {"document_id": "first", "text": _document(1)},
        {"document_id": "poisoned", "text": "poison Alpha is a fact."},  # fails on the server
        {
            "document_id": "twice",
            "chunks": [
                {"chunk_id": "c1", "text": "Beta 2 holds."},
                {"chunk_id": "c1", "text": "X"},
            ],
        },
        {"document_id": "last", "text": _document(4)},
    ]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert _corpus([str(corpus), "-o", str(out)]) == 1
    assert "2 done, 0 skipped (done before), 2 failed" in capsys.readouterr().err
    assert {r["DocumentId"] for r in read_records(out)} == {"first", "last"}
    failures = read_records(tmp_path / "out.failures.jsonl")
    assert [(f["document_id"], f["error_kind"]) for f in failures] == [
        ("poisoned", "model_call"),
        ("twice", "input"),
    ]
    assert failures[1]["error"].startswith("line 3: chunk 2: chunk_id 'c1' is given twice")


def test_an_input_the_pipeline_refuses_fails_its_document_on_every_engine(model: Any) -> None:
    """process_document, the one function every engine calls, makes the pipeline's
    InputError the document's failure (it stopped the run on the local engine, and gave
    exit 70 with stack frames on Ray), as a record built by another reader would meet it."""
    from agentic_chunking._models import AgenticChunkInput
    from agentic_chunking.corpus import CorpusDocument, process_document

    chunks = [AgenticChunkInput("c1", "Alpha holds."), AgenticChunkInput("c1", "Beta holds.")]
    document = CorpusDocument.of("twice", 0, chunks, {})
    client = ModelClient()
    try:
        result = process_document(document, PipelineOptions(model=DEFAULT_MODEL), client=client)
    finally:
        client.close()
    assert result.status == "failed" and result.error_kind == "input"
    assert result.error is not None and result.error.startswith("twice: input chunk id 'c1'")
    assert not model[1].requests


# -- progress off a terminal -------------------------------------------------------------


def _progress_lines(err: str, prefix: str = "agentic-chunking corpus: ") -> list[str]:
    """The Heartbeat's lines: the figures so far, then the time elapsed."""
    return [line for line in err.splitlines() if line.startswith(prefix) and line.endswith(" in)")]


def test_off_a_terminal_a_slow_run_prints_progress_lines_while_it_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Off a terminal (a log, CI) a corpus run printed nothing until its summary (or tqdm's
    redraws, only when a document finished). Now a line with the figures so far comes at
    least every PROGRESS_EVERY_S (60 s; 0.05 s here), while a slow server answers."""
    import agentic_chunking.cli._progress as progress

    monkeypatch.setattr(progress, "PROGRESS_EVERY_S", 0.05)
    script = ParagraphModel(delay_s=0.3)
    with FakeMessagesServer(handler=script) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
        folder = _folder(tmp_path, 3)
        out = tmp_path / "out.jsonl"
        assert main(["corpus", str(folder), "-o", str(out), "--max-concurrency", "1"]) == 0
    err = capsys.readouterr().err
    lines = _progress_lines(err)
    assert lines, err
    assert lines[0].startswith("agentic-chunking corpus: 0 of 3 documents (0 done, 0 skipped")
    assert "\r" not in err  # no bar redrawn into the log
    assert err.splitlines()[-1].startswith("agentic-chunking corpus: 3 done, 0 skipped")


def test_quiet_prints_no_progress_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import agentic_chunking.cli._progress as progress

    monkeypatch.setattr(progress, "PROGRESS_EVERY_S", 0.01)
    with FakeMessagesServer(handler=ParagraphModel(delay_s=0.1)) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
        folder = _folder(tmp_path, 2)
        assert _corpus([str(folder), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert _progress_lines(capsys.readouterr().err) == []


def test_a_max_tokens_no_call_can_ask_for_is_refused_before_any_call_not_per_document(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--extraction-max-tokens above what a non-streaming call may ask for is the run's
    setting, not a document's fault: exit 2 in one line naming the option and the limit,
    before any file is made (it failed every document, exit 1, the reason only in the
    failures file; fault sweep trial limit_extraction_tokens_huge)."""
    folder = _folder(tmp_path, 2)
    out = tmp_path / "out.jsonl"
    for option in ("--extraction-max-tokens", "--grouping-max-tokens"):
        assert _corpus([str(folder), "-o", str(out), option, "1000000000000"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"{option} 1000000000000 is above" in err[0], err
        assert f"give {option}" in err[0]
    assert model[1].requests == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]
    assert (
        _corpus([str(folder), "-o", str(out), "--dry-run", "--extraction-max-tokens", "9" * 9]) == 2
    )


def test_a_model_refused_mid_run_keeps_the_finished_documents_and_names_the_fix_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 404 for the model after the first document: the stop is the run's configuration,
    so the line before the error never advises the same command unchanged."""
    folder = _folder(tmp_path, 3)
    script = ParagraphModel()

    def retired_after_one_document(body: dict[str, Any]) -> Any:
        if " 2 " not in user_text(body):  # d02.txt, the first in input order, is answered
            return FakeReply(status=404, text="model: claude-nope")
        return script(body)

    out = tmp_path / "out.jsonl"
    with FakeMessagesServer(handler=retired_after_one_document) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert _corpus([str(folder), "-o", str(out), "--max-concurrency", "1"]) == 2
    kept, error = capsys.readouterr().err.splitlines()
    assert kept == (
        f"agentic-chunking corpus: {out} was left as it was; the 1 finished document is in "
        f"the ledger {tmp_path / 'out.ledger.sqlite'}: once the model or key is fixed, a "
        "rerun resumes from there (no finished document is chunked again)"
    )
    assert "rerun the same command" not in kept
    assert error.startswith("agentic-chunking corpus: error: ") and "was not found" in error
    assert _counts(tmp_path / "out.ledger.sqlite") == {"done": 1}


def test_the_summary_counts_one_of_a_kind_in_the_singular(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "a.txt").write_text("Alpha is a single fact.\n", encoding="utf-8")
    assert _corpus([str(folder), "-o", str(tmp_path / "out.jsonl")]) == 0
    summary = capsys.readouterr().err.splitlines()[-1]
    assert "1 done, 0 skipped (done before), 0 failed of 1 document; 2 calls answered," in summary
    assert "; 1 chunk written to " in summary


def test_when_every_document_fails_the_common_error_is_said_with_its_first_document(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "poisoned"
    folder.mkdir()
    for number in range(1, 7):
        (folder / f"p{number}.txt").write_text(f"This poison {number} fails.\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert _corpus([str(folder), "-o", str(out)]) == 1
    summary, failure = capsys.readouterr().err.splitlines()
    # a refused request has no usage: the calls counted are the answered ones, and say so
    assert "0 done, 0 skipped (done before), 6 failed of 6 documents; 0 calls answered," in summary
    failures = tmp_path / "out.failures.jsonl"
    assert failure.startswith("agentic-chunking corpus: 6 failed: extraction call for batch 1 ")
    assert "HTTP 400" in failure and "ParagraphModel: this request fails (test)" in failure
    assert failure.endswith(f" (first: p1.txt); see {failures}")
    assert KEY not in failure and model[1].requests  # sent, and refused


def test_the_most_common_of_several_failures_is_said_with_its_count(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a-link.txt").symlink_to(folder / "nowhere.txt")  # unreadable: another error
    for name in ("b.txt", "c.txt"):
        (folder / name).write_text("This poison fails.\n", encoding="utf-8")
    (folder / "d.txt").write_text("Alpha is fine.\n", encoding="utf-8")
    assert _corpus([str(folder), "-o", str(tmp_path / "out.jsonl")]) == 1
    failure = capsys.readouterr().err.splitlines()[1]
    assert failure.startswith(
        "agentic-chunking corpus: 3 failed; the most common failure (2 of them): extraction "
    )
    assert failure.endswith(f" (first: b.txt); see {tmp_path / 'out.failures.jsonl'} for every one")


def test_no_failure_line_when_no_document_failed(
    model: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _corpus([str(_folder(tmp_path, 2)), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert len(capsys.readouterr().err.splitlines()) == 1  # the summary alone


def test_resume_given_to_corpus_says_a_rerun_resumes_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["corpus", str(tmp_path), "-o", str(tmp_path / "out.jsonl"), "--resume"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "agentic-chunking corpus: error: unrecognized arguments: --resume; a corpus rerun of "
        "the same command resumes (the ledger skips the finished documents, the reply cache "
        "serves the paid replies): no --resume needed (see agentic-chunking corpus --help)"
    ]
