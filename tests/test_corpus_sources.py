"""The corpus's readers, its ledger and its writer, each on its own."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import sqlite3
from pathlib import Path

import pytest

from agentic_chunking._errors import InputError
from agentic_chunking.corpus import Ledger, LedgerError, OutputWriter, open_corpus, read_records
from agentic_chunking.corpus._documents import NOT_TEXT, Selection

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def test_a_folder_reads_every_file_in_path_order_and_skips_hidden_ones(tmp_path: Path) -> None:
    for name in ("b.md", "a/CHANGELOG", "a/z.txt", ".git/config", "c/.hidden"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("One fact.\n\nAnother fact.\n", encoding="utf-8")
    (tmp_path / "utf16.txt").write_text("Text", encoding="utf-16")
    source = open_corpus(tmp_path)
    assert source.scan().document_ids == ("a/CHANGELOG", "a/z.txt", "b.md", "utf16.txt")
    documents = list(source.documents())
    assert [len(d.inputs) for d in documents] == [2, 2, 2, 0]
    assert documents[0].inputs[1].text == "Another fact."
    assert documents[3].error is not None and "not UTF-8 text" in documents[3].error
    assert documents[0].document_sha256 != documents[1].document_sha256  # source_path differs
    assert [d.position for d in documents] == [0, 1, 2, 3]


def test_the_document_hash_follows_text_and_metadata(tmp_path: Path) -> None:
    corpus = tmp_path / "in.jsonl"
    rows = [
        {"document_id": "a", "text": "Same text.", "metadata": {"v": 1}},
        {"document_id": "b", "text": "Same text.", "metadata": {"v": 2}},
        {"document_id": "c", "text": "Same text.", "metadata": {"v": 1}},
    ]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    a, b, c = (d.document_sha256 for d in open_corpus(corpus).documents())
    assert a == c and a != b


def test_parquet_reads_metadata_as_struct_map_or_json_text(tmp_path: Path) -> None:
    table = pa.table(
        {
            "document_id": ["s", "m", "j", "n"],
            "text": ["A fact.", "B fact.", "C fact.", "D fact."],
            "metadata": ['{"k": 1}', '{"k": 2}', '{"k": 3}', None],
        }
    )
    path = tmp_path / "in.parquet"
    pq.write_table(table, path)
    documents = list(open_corpus(path).documents())
    assert [d.metadata for d in documents] == [{"k": 1}, {"k": 2}, {"k": 3}, {}]
    mapped = pa.table(
        {
            "document_id": ["x"],
            "chunks": [[{"chunk_id": "S1", "text": "E fact."}]],
            "metadata": pa.array([[("lang", "en")]], pa.map_(pa.string(), pa.string())),
        }
    )
    pq.write_table(mapped, path)
    (document,) = open_corpus(path).documents()
    assert document.metadata == {"lang": "en"} and document.inputs[0].chunk_id == "S1"


def test_a_parquet_file_without_document_ids_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "in.parquet"
    pq.write_table(pa.table({"text": ["A fact."]}), path)
    with pytest.raises(InputError, match="no document_id column"):
        open_corpus(path).scan()


def test_an_unknown_corpus_shape_is_refused(tmp_path: Path) -> None:
    (tmp_path / "in.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a corpus"):
        open_corpus(tmp_path / "in.csv")
    with pytest.raises(InputError, match="no such file or folder"):
        open_corpus(tmp_path / "missing.jsonl")


def test_the_ledger_keeps_documents_and_batches_across_connections(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    first = Ledger(path)
    first.record(
        document_id="d1",
        document_sha256="h1",
        settings_sha256="s1",
        status="done",
        records=[{"ChunkId": "d1-0001"}],
        failure=None,
        calls=2,
        input_tokens=10,
        output_tokens=5,
        cost_usd=0.01,
    )
    first.add_batch("anthropic", "msgbatch_1", ["c1", "c2"])
    first.close()
    second = Ledger(path)
    entry = second.finished("d1")
    assert entry is not None and entry.records == ({"ChunkId": "d1-0001"},)
    assert second.finished("d2") is None
    assert list(second.batches()) == [("anthropic", "msgbatch_1", ["c1", "c2"])]
    second.remove_batch("anthropic", "msgbatch_1")
    assert list(second.batches()) == []
    assert second.counts() == {"done": 1}


def test_a_ledger_of_another_format_or_not_a_database_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    Ledger(other).close()
    with sqlite3.connect(other) as db:
        db.execute("UPDATE meta SET value='99' WHERE key='format'")
    with pytest.raises(LedgerError, match="format 99"):
        Ledger(other)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(LedgerError, match=r"is damaged .*move it away"):
        Ledger(garbage)


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_the_writer_publishes_only_on_commit(tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"out{suffix}"
    target.write_text("previous", encoding="utf-8")
    with pytest.raises(RuntimeError, match="stopped"), OutputWriter(target) as writer:
        writer.write({"ChunkId": "a-0001", "Metadata": {"x": 1}})
        raise RuntimeError("stopped half-way")
    assert target.read_text(encoding="utf-8") == "previous"
    assert list(tmp_path.iterdir()) == [target]  # no temporary file left
    records = [
        {"ChunkId": f"a-{n:04d}", "Propositions": ["P."], "Metadata": {"n": n}} for n in range(2500)
    ]  # three Parquet row groups
    with OutputWriter(target) as writer:
        for record in records:
            writer.write(record)
        writer.commit()
    read = read_records(target)
    assert [r["ChunkId"] for r in read] == [r["ChunkId"] for r in records]
    assert read[7]["Metadata"] == {"n": 7}


@pytest.mark.parametrize("name", ["empty-folder", "empty.jsonl"])
def test_a_corpus_without_a_document_is_refused_before_any_call(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("", encoding="utf-8")
    else:
        path.mkdir()
        (path / ".hidden.md").write_text("A hidden file is no document.", encoding="utf-8")
    with pytest.raises(InputError, match="holds no document"):
        open_corpus(path).scan()


def test_a_folder_reads_links_to_files_not_to_folders_and_never_opens_a_fifo(
    tmp_path: Path,
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("One fact.\n", encoding="utf-8")
    (tmp_path / "link.txt").symlink_to(tmp_path / "sub" / "a.txt")
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)  # never walked
    (tmp_path / "broken.txt").symlink_to(tmp_path / "gone.txt")
    os.mkfifo(tmp_path / "pipe")  # reading it would block the run
    source = open_corpus(tmp_path)
    assert source.scan().document_ids == ("broken.txt", "link.txt", "sub/a.txt")
    broken, link, real = source.documents()
    assert broken.error is not None and "broken symlink" in broken.error
    assert broken.error_kind == "input"  # unreadable: a failure, not a file of no text
    assert link.inputs == real.inputs and link.metadata == {"source_path": "link.txt"}


def test_a_compressed_file_is_read_as_it_is_and_named_as_compressed(tmp_path: Path) -> None:
    (tmp_path / "a.gz").write_bytes(gzip.compress(b"One fact.\n"))
    (tmp_path / "BZh.txt").write_text("BZh is how this text starts.\n", encoding="utf-8")
    text, compressed = open_corpus(tmp_path).documents()  # "B" sorts before "a"
    assert compressed.error_kind == NOT_TEXT
    assert compressed.error is not None and "compressed (gzip)" in compressed.error
    assert text.error is None  # a magic number alone makes no file compressed


@pytest.mark.parametrize(
    ("glob", "admitted", "refused"),
    [
        ("*.md", ["a.md", "x/y/a.md"], ["a.mdx", "a.txt"]),
        ("notes/*.txt", ["notes/a.txt"], ["notes/x/a.txt", "a/notes/a.txt", "a.txt"]),
        ("/notes/*", ["notes/a"], ["x/notes/a"]),
        ("notes/**/*.txt", ["notes/a.txt", "notes/x/y/a.txt"], ["other/a.txt"]),
        ("**/CHANGELOG", ["CHANGELOG", "pkg/doc/CHANGELOG"], ["CHANGELOG.md"]),
        ("d?[0-9].txt", ["d01.txt", "da9.txt"], ["d1.txt", "dab.txt"]),
        ("[!a]*", ["b", "x/c"], ["a", "x/ab"]),
    ],
)
def test_a_glob_matches_a_name_at_any_depth_or_a_whole_path(
    glob: str, admitted: list[str], refused: list[str]
) -> None:
    include, exclude = Selection(include=(glob,)), Selection(exclude=(glob,))
    assert [d for d in admitted + refused if include.admits(d)] == admitted
    assert [d for d in admitted + refused if exclude.admits(d)] == refused


def test_globs_choose_records_of_jsonl_by_id_and_an_empty_glob_is_refused(tmp_path: Path) -> None:
    corpus = tmp_path / "in.jsonl"
    rows = [{"document_id": f"{kind}/{n}", "text": "A fact."} for kind in "ab" for n in (1, 2)]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    source = open_corpus(corpus, include=["a/*"], exclude=["*2"])
    scan = source.scan()
    assert (scan.document_ids, scan.left_out) == (("a/1",), 3)
    assert [(d.document_id, d.position) for d in source.documents()] == [("a/1", 0)]
    with pytest.raises(InputError, match="an empty glob matches nothing"):
        open_corpus(corpus, exclude=[""])


@pytest.mark.parametrize("every", [1, 2, 3, 7])
def test_runs_read_from_their_starts_are_the_whole_corpus_read_at_once(
    tmp_path: Path, every: int
) -> None:
    """What a Ray task reads of a JSONL or Parquet corpus from its start (its documents, their
    positions, the failure of a record on its own line or row) is what one reading gives."""
    rows = [
        {"document_id": f"d{n}", "text": "" if n == 4 else f"Fact {n}.", "metadata": {"n": n}}
        for n in range(11)
    ]
    jsonl = tmp_path / "in.jsonl"
    lines = [json.dumps(r) for r in rows]
    lines[3:3] = ["", "  "]  # blank lines count as lines
    ends = ["\r\n", "\r", "\n"]  # Windows', old Macs' and Unix's line ends, mixed
    text = "".join(line + ends[n % 3] for n, line in enumerate(lines))
    jsonl.write_bytes(("\ufeff" + text).encode("utf-8"))
    parquet = tmp_path / "in.parquet"
    table = pa.table({k: [r[k] for r in rows] for k in ("document_id", "text")})
    pq.write_table(table, parquet, row_group_size=3)  # starts fall inside row groups
    for path in (jsonl, parquet):
        source = open_corpus(path, exclude=["d1"])
        whole = list(source.documents())
        runs = [
            d
            for start in source.starts(every)
            for d in itertools.islice(source.documents(start), every)
        ]
        assert runs == whole and len(whole) == 10
        assert [d.position for d in runs] == list(range(10))
        failed = [d.error for d in whole if d.error]
        assert failed == [
            "line 7: the text is empty" if path == jsonl else "row 5: the text is empty"
        ]


def test_a_named_pipe_given_as_the_corpus_is_refused_at_once(tmp_path: Path) -> None:
    """A FIFO as IN hung: reading it blocked until a writer came, and it cannot be read twice."""
    import threading

    fifo = tmp_path / "in.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            open_corpus(fifo).scan()
            outcome.append(None)
        except BaseException as error:  # kept for the assertion below
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock the reader, then fail
        with fifo.open("w"):
            pass
        reader.join(10)
        pytest.fail("reading a named pipe as the corpus hung")
    assert isinstance(outcome[0], InputError)
    assert "not a regular file (a named pipe" in str(outcome[0])
    assert "save it to a file first" in str(outcome[0])


@pytest.mark.parametrize("shape", ["jsonl", "folder"])
def test_ids_the_output_would_merge_are_refused_naming_both_places(
    tmp_path: Path, shape: str
) -> None:
    """Ids "a" and " a" collided in OUT (the output drops the spaces at either end)."""
    if shape == "jsonl":
        corpus = tmp_path / "in.jsonl"
        rows = [{"document_id": "a", "text": "One."}, {"document_id": " a", "text": "Two."}]
        corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        places = ("(line 1)", "(line 2)")
    else:
        corpus = tmp_path / "docs"
        corpus.mkdir()
        (corpus / "a").write_text("One.\n", encoding="utf-8")
        (corpus / "a ").write_text("Two.\n", encoding="utf-8")
        places = ("(the file 'a')", "(the file 'a ')")
    with pytest.raises(InputError) as raised:
        open_corpus(corpus).scan()
    said = str(raised.value)
    assert all(place in said for place in places), said
    assert "are the same id in the output" in said and "an id of its own" in said
    distinct = tmp_path / "ok.jsonl"  # must not fire: ids distinct once stripped
    rows = [{"document_id": "a b", "text": "One."}, {"document_id": "a  b", "text": "Two."}]
    distinct.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert open_corpus(distinct).scan().document_ids == ("a b", "a  b")


def test_only_the_fallback_folders_marked_for_this_cache_are_taken_back(tmp_path: Path) -> None:
    from agentic_chunking.corpus._fallback import FOR_CACHE, take_back

    cache, other = tmp_path / "out.replies", tmp_path / "other.replies"
    temporary = tmp_path / "tmp"
    entry = "a" * 64 + ".json"
    for name, marked in (("mine", cache), ("theirs", other), ("chunk", None)):
        folder = temporary / f"agentic-chunking-replies-{name}"
        folder.mkdir(parents=True)
        (folder / entry).write_text(f'{{"from": "{name}"}}\n', encoding="utf-8")
        if marked is not None:
            (folder / FOR_CACHE).write_text(f"{marked.resolve()}\n", encoding="utf-8")
    assert take_back(cache, temporary) == 1
    assert (cache / entry).read_text(encoding="utf-8") == '{"from": "mine"}\n'
    assert sorted(p.name for p in temporary.iterdir()) == [
        "agentic-chunking-replies-chunk",  # another command's folder: left alone
        "agentic-chunking-replies-theirs",  # another cache's: left for its own run
    ]
    assert take_back(cache, temporary) == 0  # nothing more to take
