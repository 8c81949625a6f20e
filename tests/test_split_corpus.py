"""``split`` over a corpus and ``corpus --level4``: the same inputs as ``corpus``, the Level 4
records ``corpus`` reads, resume by document after a kill, and Level 4 then Level 5 in one
command against a loopback model."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking._loopback import FakeMessagesServer, ParagraphModel
from agentic_chunking.cli import main
from agentic_chunking.corpus import (
    Ledger,
    SplitRun,
    open_corpus,
    read_records,
    split_corpus,
    split_corpus_to,
)
from agentic_chunking.semantic import HashingEmbedder, MiniLMEmbedder, SemanticSplitter

KEY = "sk-ant-split-corpus-test-key"


def _document(number: int) -> str:
    return (
        f"Cats purr and cats sleep in house {number}. Cats eat fish in house {number}.\n\n"
        f"Battery cells store charge in plant {number}. Battery cells lose power in plant "
        f"{number}.\n"
    )


def _folder(root: Path, count: int) -> Path:
    """``count`` documents (every other one in ``sub/``), a binary file and an empty one."""
    folder = root / "docs"
    (folder / "sub").mkdir(parents=True)
    for number in range(1, count + 1):
        place = folder / "sub" if number % 2 else folder
        (place / f"d{number:02d}.txt").write_text(_document(number), encoding="utf-8")
    (folder / "sub" / "image.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    (folder / "empty.txt").write_text("", encoding="utf-8")
    return folder


def _source_text(folder: Path, document_id: str) -> str:
    return (folder / document_id).read_text(encoding="utf-8")


@pytest.mark.usefixtures("hashing")
def test_a_folder_is_split_into_the_level4_records_that_corpus_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, 4)
    out = tmp_path / "level4.jsonl"
    assert main(["split", str(folder), "-o", str(out), "--max-tokens", "20", "-q"]) == 0
    err = capsys.readouterr().err  # files that are not text are set aside, as corpus does
    assert "4 split, 0 skipped (done before), 0 failed of 6 documents" in err
    assert "2 files are not text (binary, compressed, not UTF-8 or empty) and set aside" in err
    records = read_records(out)
    # the corpus reader's documents, in its order; those it cannot read fail here too
    read = list(open_corpus(folder).documents())
    assert [r["document_id"] for r in records] == [d.document_id for d in read if not d.error]
    failures = read_records(tmp_path / "level4.failures.jsonl")
    assert [f["document_id"] for f in failures] == [d.document_id for d in read if d.error]
    assert {f["error_kind"] for f in failures} == {"not_text"}
    for record in records:
        source = _source_text(folder, record["document_id"])
        assert record["metadata"] == {"source_path": record["document_id"]}
        assert len(record["chunks"]) > 1  # 20 tokens: the two topics are cut
        assert "".join(c["text"] for c in record["chunks"]) == source
        for number, chunk in enumerate(record["chunks"]):
            assert chunk["text"] == source[chunk["start"] : chunk["end"]]
            assert chunk["chunk_id"] == f"L4-{number + 1:04d}" and chunk["index"] == number
    # what corpus reads: every line a document of Level 4 chunks, none failed
    documents = list(open_corpus(out).documents())
    assert [d.error for d in documents] == [None] * 4
    assert [c.chunk_id for c in documents[0].inputs] == ["L4-0001", "L4-0002"]


@pytest.mark.usefixtures("hashing")
def test_jsonl_and_parquet_corpora_give_the_same_records(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    given = [{"chunk_id": "S1", "text": "Kappa is a Level 4 fact.", "start": 0, "end": 24}]
    rows: list[dict[str, Any]] = [
        {"document_id": "report-7", "text": _document(7), "metadata": {"lang": "en"}},
        {"document_id": "already", "chunks": given, "metadata": {}},
        {"document_id": "blank", "text": "  \n", "metadata": {}},
    ]
    as_jsonl = tmp_path / "in.jsonl"
    as_jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    as_parquet = tmp_path / "in.parquet"
    table = pa.Table.from_pylist(
        [{**r, "metadata": json.dumps(r["metadata"])} for r in rows if "text" in r]
    )
    pq.write_table(table, as_parquet)
    out_jsonl, out_parquet = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["split", str(as_jsonl), "-o", str(out_jsonl), "-q"]) == 1  # "blank" fails
    assert main(["split", str(as_parquet), "-o", str(out_parquet), "-q"]) == 1
    records = read_records(out_jsonl)
    assert [r["document_id"] for r in records] == ["report-7", "already"]
    assert records[0]["metadata"] == {"lang": "en"}
    assert records[1] == {"document_id": "already", "chunks": given, "metadata": {}}
    assert read_records(out_parquet) == records[:1]
    failed = read_records(tmp_path / "a.failures.jsonl")
    assert [(f["document_id"], f["error"]) for f in failed] == [
        ("blank", "line 3: the text is empty")
    ]


def test_the_library_splits_with_one_embedder_and_skips_what_the_ledger_holds(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path, 3)
    seen: list[list[str]] = []

    class Counting(HashingEmbedder):
        def __call__(self, texts: list[str], /) -> Any:
            seen.append(list(texts))
            return super().__call__(texts)

    with Ledger(tmp_path / "l4.ledger.sqlite") as ledger:
        splitter = SemanticSplitter(Counting(), max_chunk_token_size=20)
        first = list(split_corpus(folder, splitter, ledger=ledger))
        # d02.txt, empty.txt, sub/d01.txt, sub/d03.txt, sub/image.bin
        assert [r.status for r in first] == ["done", "failed", "done", "done", "failed"]
        assert seen
        seen.clear()
        (folder / "d02.txt").write_text(_document(22), encoding="utf-8")  # one changed
        fresh = SemanticSplitter(Counting(), max_chunk_token_size=20)  # nothing memoised
        second = list(split_corpus(folder, fresh, ledger=ledger))
    assert [r.status for r in second] == ["done", "failed", "skipped", "skipped", "failed"]
    assert [r.records for r in second if r.status == "skipped"] == [
        r.records for r in first if r.document_id in ("sub/d01.txt", "sub/d03.txt")
    ]
    embedded = {t for texts in seen for t in texts}
    assert any("22" in t for t in embedded) and not any(" 1." in t for t in embedded)
    other = SemanticSplitter(HashingEmbedder(), max_chunk_token_size=30)  # new settings
    with Ledger(tmp_path / "l4.ledger.sqlite") as ledger:
        third = list(split_corpus(folder, other, ledger=ledger))
    assert "skipped" not in {r.status for r in third}


@pytest.mark.usefixtures("hashing")
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "is a corpus: give -o OUT.jsonl"),
        (["-o", "out.json"], "the Level 4 records of a corpus are JSON lines"),
        (["-o", "out.jsonl", "--document-id", "X"], "--document-id is for one document"),
        (["-o", "out.jsonl", "--explain"], "--explain is for one document"),
    ],
)
def test_a_corpus_run_refuses_what_belongs_to_one_document_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    folder = _folder(tmp_path, 1)
    extra = [str(tmp_path / e) if e.startswith("out.") else e for e in extra]
    assert main(["split", str(folder), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.glob("out*"))


_HOLDING_CHILD = textwrap.dedent(
    """
    import sys, time
    import agentic_chunking.semantic._splitter as splitter_module
    from agentic_chunking.semantic import HashingEmbedder

    class Holding(HashingEmbedder):
        def __call__(self, texts):
            if any("HOLD" in text for text in texts):
                time.sleep(600)  # stopped here
            return super().__call__(texts)

    splitter_module.MiniLMEmbedder = Holding
    from agentic_chunking.cli import entry
    sys.argv[0] = "agentic-chunking"
    entry()
    """
)


def _held_split(tmp_path: Path) -> tuple[Path, Path, subprocess.Popen[bytes]]:
    """``split FOLDER -o OUT`` in a child process, held on the fifth of six documents (its
    embedder sleeps), once the ledger holds the four before it; OUT held "the previous
    output" before. Returns (folder, OUT, the process)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for number in range(1, 7):
        text = _document(number) + ("HOLD on.\n" if number == 5 else "")
        (folder / f"d{number:02d}.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    out.write_text("the previous output\n", encoding="utf-8")
    ledger = tmp_path / "out.ledger.sqlite"
    command = [sys.executable, "-c", _HOLDING_CHILD, "split", str(folder), "-o", str(out), "-q"]
    process = subprocess.Popen(command, env=dict(os.environ), stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        done = 0
        while done < 4 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
            if ledger.exists():
                with Ledger(ledger) as held:
                    done = held.counts().get("done", 0)
        assert done == 4, f"the run never reached the held document: {process.poll()}"
        assert process.poll() is None
    except BaseException:
        process.kill()
        process.communicate(timeout=30)
        raise
    return folder, out, process


@pytest.mark.usefixtures("hashing")
def test_split_killed_half_way_then_rerun_skips_the_finished_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL while a document is being split: OUT is left as it was, the ledger holds the
    documents before it; the rerun splits only the others and writes what an
    uninterrupted run writes."""
    folder, out, process = _held_split(tmp_path)
    process.kill()
    process.communicate(timeout=30)
    assert out.read_text(encoding="utf-8") == "the previous output\n"
    with Ledger(tmp_path / "out.ledger.sqlite") as held:
        assert held.counts() == {"done": 4}
    capsys.readouterr()
    assert main(["split", str(folder), "-o", str(out), "-q"]) == 0
    assert "2 split, 4 skipped (done before), 0 failed of 6 documents" in capsys.readouterr().err
    whole = tmp_path / "whole.jsonl"
    assert main(["split", str(folder), "-o", str(whole), "-q"]) == 0
    assert out.read_bytes() == whole.read_bytes()


def test_sigterm_ends_a_split_at_once_with_143_the_resume_line_and_no_temporary_file(
    tmp_path: Path,
) -> None:
    _, out, process = _held_split(tmp_path)
    try:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 143
    assert err.decode().splitlines()[-2:] == [
        f"agentic-chunking split: {out} was left as it was; the 4 finished documents are in "
        f"the ledger {tmp_path / 'out.ledger.sqlite'}: rerun the same command to go on from "
        "there",
        "agentic-chunking split: stopped by SIGTERM; no file was left half-written",
    ]
    assert out.read_text(encoding="utf-8") == "the previous output\n"
    left = sorted(p.name for p in tmp_path.iterdir())  # the run lock's file stays, unheld
    assert left == ["docs", "out.jsonl", "out.ledger.sqlite", "out.ledger.sqlite.lock"]


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[ParagraphModel]:
    script = ParagraphModel()
    server = FakeMessagesServer(handler=script).start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    yield script
    server.stop()


@pytest.mark.skipif(not MiniLMEmbedder.available(), reason="needs the semantic extra")
def test_corpus_level4_runs_level4_then_level5_in_one_command_and_resumes_both(
    model: ParagraphModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real embedder (MiniLM) on two small documents and a binary file, a loopback
    model: the chunks cite the Level 4 chunks and the source file's offsets; a rerun
    splits nothing and pays for nothing."""
    folder = tmp_path / "docs"
    folder.mkdir()
    texts = {
        "cats.md": "Cats purr when they are content.\n\nDogs bark at strangers at night.\n",
        "grid.txt": "Solar panels turn light into power.\n\nBatteries keep that power.\n",
    }
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "logo.png").write_bytes(b"\x89PNG\x00\x00")
    out = tmp_path / "chunks.jsonl"
    assert main(["corpus", str(folder), "-o", str(out), "--level4", "--quiet"]) == 0
    err = capsys.readouterr().err  # the PNG is set aside, not failed, as corpus alone does
    assert "corpus: Level 4: 2 split, 0 skipped (done before), 0 failed of 3" in err
    assert "2 done, 0 skipped (done before), 0 failed of 2 documents" in err
    level4 = read_records(tmp_path / "chunks.level4.jsonl")
    assert [r["document_id"] for r in level4] == ["cats.md", "grid.txt"]
    records = read_records(out)
    assert {r["DocumentId"] for r in records} == set(texts)
    level4_ids = {r["document_id"]: {c["chunk_id"] for c in r["chunks"]} for r in level4}
    for record in records:
        source = texts[record["DocumentId"]]
        assert set(record["SourceChunkIds"]) <= level4_ids[record["DocumentId"]]
        for proposition, spans in zip(
            record["Propositions"], record["PropositionSpans"], strict=True
        ):
            assert any(proposition in source[a:b] for a, b in spans)
    paid = sum(model.answered.values())
    assert main(["corpus", str(folder), "-o", str(out), "--level4", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "Level 4: 0 split, 2 skipped (done before), 0 failed of 3" in err
    assert "0 done, 2 skipped (done before)" in err
    assert sum(model.answered.values()) == paid


def test_corpus_level4_refuses_a_missing_key_before_any_document_is_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    folder = _folder(tmp_path, 1)
    out = tmp_path / "chunks.jsonl"
    assert main(["corpus", str(folder), "-o", str(out), "--level4", "--quiet"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err
    assert not (tmp_path / "chunks.level4.jsonl").exists()


@pytest.mark.usefixtures("hashing")
def test_corpus_level4_dry_run_splits_without_a_key_and_plans_the_level5_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    folder = _folder(tmp_path, 2)
    out = tmp_path / "chunks.jsonl"
    assert main(["corpus", str(folder), "-o", str(out), "--level4", "--dry-run", "-q"]) == 0
    captured = capsys.readouterr()
    assert f"plan for {tmp_path / 'chunks.level4.jsonl'} (no model called):" in captured.out
    assert "documents: 2\n" in captured.out  # the two split; the two unreadable are not
    assert len(read_records(tmp_path / "chunks.level4.jsonl")) == 2
    assert not out.exists()


def test_documents_stream_one_at_a_time(tmp_path: Path) -> None:
    """The first result comes before any later document is read or embedded."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for number in range(1, 5):
        (folder / f"d{number}.txt").write_text(_document(number), encoding="utf-8")
    seen: list[str] = []

    class Counting(HashingEmbedder):
        def __call__(self, texts: list[str], /) -> Any:
            seen.extend(texts)
            return super().__call__(texts)

    results = split_corpus(folder, SemanticSplitter(Counting(), max_chunk_token_size=20))
    first = next(results)
    assert first.document_id == "d1.txt"
    assert seen and all("house 1." in t or "plant 1." in t for t in seen)
    rest = list(results)
    assert [r.document_id for r in rest] == ["d2.txt", "d3.txt", "d4.txt"]
    assert any("house 4." in t for t in seen)


def test_the_command_makes_one_embedder_for_every_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentic_chunking.semantic._splitter as splitter_module

    made: list[int] = []

    class Once(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__()
            made.append(1)

    monkeypatch.setattr(splitter_module, "MiniLMEmbedder", Once)
    folder = _folder(tmp_path, 3)
    assert main(["split", str(folder), "-o", str(tmp_path / "l4.jsonl"), "-q"]) == 0
    assert len(read_records(tmp_path / "l4.jsonl")) == 3 and len(made) == 1


def test_off_a_terminal_a_slow_split_of_a_corpus_prints_progress_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Off a terminal a corpus split printed nothing until its summary; now a line with
    the documents split so far comes at least every PROGRESS_EVERY_S (0.05 s here)."""
    import agentic_chunking.cli._progress as progress
    import agentic_chunking.semantic._splitter as splitter_module

    class Slow(HashingEmbedder):
        def __call__(self, texts: list[str], /) -> list[list[float]]:
            time.sleep(0.2)
            return super().__call__(texts)

    monkeypatch.setattr(splitter_module, "MiniLMEmbedder", Slow)
    monkeypatch.setattr(progress, "PROGRESS_EVERY_S", 0.05)
    folder = _folder(tmp_path, 3)
    assert main(["split", str(folder), "-o", str(tmp_path / "out.jsonl")]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.endswith(" in)")]
    assert lines and lines[0].startswith("agentic-chunking split: 0 of 5 documents split ("), err
    assert "\r" not in err


def test_split_of_a_folder_whose_stderr_reader_left_exits_141(tmp_path: Path) -> None:
    """`split FOLDER -o OUT 2>&1 | head -1`: the reader leaves; the run ends with 141 like
    any command whose output went away, with no trace and OUT written whole or not at
    all."""
    folder = _folder(tmp_path, 3)
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-c", _HOLDING_CHILD, "split", str(folder), "-o", str(out)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert child.stdout is not None
    child.stdout.close()  # gone before the first line
    try:
        child.wait(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 141
    assert not out.exists() or len(read_records(out)) == 3


def test_a_rerun_removes_the_temporary_files_a_killed_split_left_beside_out(
    tmp_path: Path,
) -> None:
    """A split killed mid-write leaves its temporary files beside OUT (and its failures
    file); the next successful run removes them, as corpus does: they stayed for good
    (fault sweep trial split_sigkill_then_rerun). A live process's are kept."""
    from agentic_chunking._files import TEMP_MARK

    folder = _folder(tmp_path, 2)
    out = tmp_path / "out.jsonl"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(dead.stdout)
    stale = [
        tmp_path / f".{name}{TEMP_MARK}{pid}-0a1b2c3d"
        for name in ("out.jsonl", "out.failures.jsonl")
    ]
    live = tmp_path / f".out.jsonl{TEMP_MARK}{os.getpid()}-0a1b2c3d"
    for path in [*stale, live]:
        path.write_text('{"half": ', encoding="utf-8")
    assert main(["split", str(folder), "-o", str(out), "-q"]) == 0
    assert [p for p in stale if p.exists()] == []
    assert live.exists()


def test_split_corpus_to_returns_what_it_did_and_a_rerun_skips_every_finished_document(
    tmp_path: Path,
) -> None:
    """The layer's run (what ``split -o OUT.jsonl`` calls): a record of counts, no words;
    the progress display is opened once with the number of documents and called once a
    document; a rerun finds every document in the ledger and writes the same bytes."""
    folder = _folder(tmp_path, 3)
    out, ledger, failures = (tmp_path / n for n in ("o.jsonl", "o.ledger", "o.failures.jsonl"))
    opened: list[int] = []
    ticks: list[None] = []

    @contextlib.contextmanager
    def progress(total: int) -> Iterator[Callable[[], None]]:
        opened.append(total)
        yield lambda: ticks.append(None)

    def run() -> SplitRun:
        return split_corpus_to(
            open_corpus(folder),
            out,
            splitter=SemanticSplitter(HashingEmbedder(), max_chunk_token_size=20),
            ledger_path=ledger,
            failures_path=failures,
            progress=progress,
        )

    first = run()
    assert (first.done, first.skipped, first.failed) == (3, 0, 0)
    assert sorted(first.set_aside) == ["empty.txt", "sub/image.bin"]  # not text: set aside
    assert first.documents == 5
    assert first.chunks == sum(len(r["chunks"]) for r in read_records(out)) > 0
    assert opened == [5] and len(ticks) == 5
    written = out.read_bytes()
    again = run()
    assert (again.done, again.skipped, again.failed, again.chunks) == (0, 3, 0, first.chunks)
    assert out.read_bytes() == written and failures.is_file()
