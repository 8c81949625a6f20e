"""``check`` on what ``corpus`` writes (JSONL or Parquet), with the corpus as its source:
document by document, one findings file with the document ids, bad input named by its line
or id; and every source ``corpus`` reads (a folder's ``.log`` file too). End to end through
the command line, ``corpus`` against a loopback Messages server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking import AgenticChunk, AgenticResponse
from agentic_chunking._loopback import FakeMessagesServer, ParagraphModel, user_text
from agentic_chunking.cli import EXIT_USAGE, main
from agentic_chunking.corpus import read_records
from agentic_chunking.corpus._documents import CorpusSource
from agentic_chunking.findings import _corpus as _check_corpus  # the check of a corpus output
from agentic_chunking.judge import read_judge_request

KEY = "sk-ant-check-corpus-test-key"


def _document(number: int) -> str:
    return (
        f"Alpha {number} is the first fact of document {number}.\n\n"
        f"Beta {number} is the second fact of document {number}.\n\n"
        f"Alpha {number} also has a third fact.\n"
    )


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesServer]:
    server = FakeMessagesServer(handler=ParagraphModel(fail=lambda t: "poison" in t)).start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    yield server
    server.stop()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Four documents: nested, a ``.log`` and a file without extension among them."""
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text(_document(1), encoding="utf-8")
    (root / "sub" / "b.md").write_text(_document(2), encoding="utf-8")
    (root / "notes.log").write_text(_document(3), encoding="utf-8")
    (root / "README").write_text(_document(4), encoding="utf-8")
    return root


def _corpus(folder: Path, out: Path) -> None:
    assert main(["corpus", str(folder), "-o", str(out), "--quiet"]) == 0


def _check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()  # what ran before (corpus's summary) is not check's
    status = main(["check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _same_findings(line: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k != "output"}


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_a_corpus_output_is_checked_document_by_document_against_its_folder(
    model: FakeMessagesServer,
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    suffix: str,
) -> None:
    out = tmp_path / f"out{suffix}"
    _corpus(folder, out)
    ids = list(dict.fromkeys(r["DocumentId"] for r in read_records(out)))
    assert ids == ["README", "a.txt", "notes.log", "sub/b.md"]
    asked = len(model.requests)
    findings = tmp_path / "findings.jsonl"
    status, printed, err = _check([str(out), "--source", str(folder), "-o", str(findings)], capsys)
    assert status == 0, err
    assert printed == "" and len(model.requests) == asked  # no model call
    lines = _lines(findings)
    assert [line["document_id"] for line in lines] == ids
    for line in lines:
        assert line["checked"] is True and line["passed"] is True
        assert line["not_run"] == {} and line["coverage"]["covered"] == line["coverage"]["facts"]
        assert line["source"] == str(folder) and line["propositions"] == 3
    assert "0 errors, 0 warnings in 4 documents (12 propositions)" in err
    assert len(err.strip().splitlines()) == 1
    # Without -o, the same lines on stdout.
    status, printed, _ = _check([str(out), "--source", str(folder)], capsys)
    assert status == 0 and [json.loads(x) for x in printed.splitlines()] == lines


def test_jsonl_and_parquet_outputs_of_a_jsonl_corpus_give_the_same_findings(
    model: FakeMessagesServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "in.jsonl"
    records = [{"document_id": f"r{n}", "text": _document(n)} for n in (1, 2, 3)]
    corpus.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    found = []
    for suffix in (".jsonl", ".parquet"):
        out = tmp_path / f"out{suffix}"
        _corpus(corpus, out)
        findings = tmp_path / f"findings{suffix}.jsonl"
        status, _, err = _check([str(out), "--source", str(corpus), "-o", str(findings)], capsys)
        assert status == 0, err
        found.append([_same_findings(line) for line in _lines(findings)])
    assert found[0] == found[1]
    assert [line["document_id"] for line in found[0]] == ["r1", "r2", "r3"]


def test_an_error_in_one_document_is_named_by_its_id_and_exits_1(
    model: FakeMessagesServer, folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    _corpus(folder, out)
    records = read_records(out)
    for record in records:  # an invented number in one document
        if record["DocumentId"] == "notes.log" and record["Propositions"][0].startswith("Beta"):
            record["Propositions"][0] = "Beta 3 is the second fact of document 7707."
            for derived in ("MergedContent", "CharacterCount", "TokenEstimate", "Hash"):
                del record[derived]  # figures of the propositions, checked when present
    out.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    findings = tmp_path / "findings.jsonl"
    status, _, err = _check([str(out), "--source", str(folder), "-o", str(findings)], capsys)
    assert status == 1
    failed = [line["document_id"] for line in _lines(findings) if not line["passed"]]
    assert failed == ["notes.log"]
    assert "with an error: 'notes.log'" in err


def test_a_document_of_the_source_with_no_chunk_is_listed_not_checked(
    model: FakeMessagesServer, folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "z.txt").write_text("A poison paragraph fails its document.\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["corpus", str(folder), "-o", str(out), "--quiet"]) == 1  # z.txt failed
    findings = tmp_path / "findings.jsonl"
    status, _, err = _check([str(out), "--source", str(folder), "-o", str(findings)], capsys)
    assert status == 0
    lines = _lines(findings)
    assert [(x["document_id"], x["checked"]) for x in lines][-1] == ("z.txt", False)
    assert "no chunk of this document" in lines[-1]["reason"]
    assert "1 document of the source has no chunk in the output: 'z.txt'" in err


def test_a_document_id_the_source_does_not_hold_is_named_before_any_check(
    model: FakeMessagesServer, folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    _corpus(folder, out)
    records = read_records(out)
    ghost = dict(records[-1], DocumentId="ghost.txt", ChunkId="ghost.txt-0001")
    out.write_text("".join(json.dumps(r) + "\n" for r in [*records, ghost]), encoding="utf-8")
    findings = tmp_path / "findings.jsonl"
    status, _, err = _check([str(out), "--source", str(folder), "-o", str(findings)], capsys)
    assert status == EXIT_USAGE
    assert f"line {len(records) + 1}: document 'ghost.txt' is not in the source {folder}" in err
    assert "give as --source the corpus" in err and len(err.strip().splitlines()) == 1
    assert not findings.exists()


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", "line 3 is not JSON"),
        ("[1, 2]", "line 3 is a list, not an object"),
        (
            json.dumps({"ChunkId": "a.txt-9", "DocumentId": "a.txt", "ThematicCategory": "A"}),
            "line 3 (chunk 'a.txt-9'): lacks the field 'Propositions'",
        ),
    ],
)
def test_a_corrupt_line_is_named_by_its_number_before_any_check(
    model: FakeMessagesServer,
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    bad: str,
    message: str,
) -> None:
    out = tmp_path / "out.jsonl"
    _corpus(folder, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    out.write_text("\n".join([*lines[:2], bad, *lines[2:]]) + "\n", encoding="utf-8")
    checked: list[Any] = []
    monkeypatch.setattr(_check_corpus, "assess", lambda *a, **k: checked.append(a))
    findings = tmp_path / "findings.jsonl"
    status, _, err = _check([str(out), "--source", str(folder), "-o", str(findings)], capsys)
    assert status == EXIT_USAGE and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert checked == [] and not findings.exists()


def test_a_documents_chunks_apart_and_a_findings_file_that_is_not_jsonl_are_refused(
    model: FakeMessagesServer, folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    _corpus(folder, out)
    records = read_records(out)
    apart = tmp_path / "apart.jsonl"
    apart.write_text("".join(json.dumps(r) + "\n" for r in records[1:] + records[:1]))
    status, _, err = _check([str(apart), "--source", str(folder)], capsys)
    assert status == EXIT_USAGE and "document 'README' again, after other documents" in err
    status, _, err = _check([str(out), "-o", str(tmp_path / "f.json")], capsys)
    assert status == EXIT_USAGE and "give -o F.jsonl" in err
    status, _, err = _check([str(out), "--html", str(tmp_path / "f.html")], capsys)
    assert status == EXIT_USAGE and "the page shows one chunked output" in err
    inside = folder / "findings.jsonl"
    status, _, err = _check([str(out), "--source", str(folder), "-o", str(inside)], capsys)
    assert status == EXIT_USAGE and "is inside the input folder" in err
    assert not inside.exists()


def test_without_a_source_the_checks_that_need_it_say_so_for_every_document(
    model: FakeMessagesServer, folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.parquet"
    _corpus(folder, out)
    status, printed, err = _check([str(out)], capsys)
    lines = [json.loads(x) for x in printed.splitlines()]
    assert status == 0 and len(lines) == 4
    assert all(set(line["not_run"]) == {"coverage", "no_invention"} for line in lines)
    assert "(give --source CORPUS to run them)" in err


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_the_checking_streams_one_document_at_a_time(
    model: FakeMessagesServer,
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    suffix: str,
) -> None:
    """When a document is checked, the output has been read up to that document's records
    (and one record after them) and the source up to that document: neither is loaded
    whole, and each document's findings are written before the next is read."""
    out = tmp_path / f"out{suffix}"
    _corpus(folder, out)
    per_document = [len(list(g)) for g in _groups(read_records(out))]
    read = {"records": 0, "documents": 0}
    original_records = _check_corpus.output_records
    original_documents = CorpusSource.documents

    def counted_records(path: Path) -> Iterator[tuple[dict[str, Any], str]]:
        read["records"] = 0  # each pass over the output counts from its start
        for item in original_records(path):
            read["records"] += 1
            yield item

    def counted_documents(self: CorpusSource) -> Iterator[Any]:
        for document in original_documents(self):
            read["documents"] += 1
            yield document

    seen: list[tuple[int, int]] = []
    original_assess = _check_corpus.assess

    def recording_assess(*args: Any, **kwargs: Any) -> Any:
        seen.append((read["records"], read["documents"]))
        return original_assess(*args, **kwargs)

    monkeypatch.setattr(_check_corpus, "output_records", counted_records)
    monkeypatch.setattr(CorpusSource, "documents", counted_documents)
    monkeypatch.setattr(_check_corpus, "assess", recording_assess)
    findings = tmp_path / "findings.jsonl"
    assert _check([str(out), "--source", str(folder), "-o", str(findings)], capsys)[0] == 0
    assert len(seen) == 4
    for k, (records, documents) in enumerate(seen):
        assert records <= sum(per_document[: k + 1]) + 1  # this one's records, one more
        assert documents == k + 1
    assert seen[0][0] < sum(per_document)  # the first checked before the rest were read
    assert isinstance(_check_corpus.output_documents(out), Iterator)


def _groups(records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    groups: list[list[dict[str, Any]]] = []
    for record in records:
        if groups and groups[-1][0]["DocumentId"] == record["DocumentId"]:
            groups[-1].append(record)
        else:
            groups.append([record])
    return groups


def _single_output(document_id: str, propositions: list[str]) -> dict[str, Any]:
    chunk = AgenticChunk.from_propositions(
        document_id=document_id,
        seq=1,
        thematic_category="Alpha",
        propositions=propositions,
        source_chunk_ids=[f"{document_id}-P0001"],
    )
    return AgenticResponse(chunks=(chunk,)).to_dict()


def test_a_single_output_takes_any_source_corpus_reads(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``.log`` document (refused before: "unknown file type"), and the folder itself,
    whose document with the output's id is the source."""
    stated = [p.strip() for p in _document(3).split("\n\n")]
    out = tmp_path / "single.json"
    out.write_text(json.dumps(_single_output("notes.log", stated)), encoding="utf-8")
    for source in (folder / "notes.log", folder):
        findings = tmp_path / "f.json"
        status, _, err = _check([str(out), "--source", str(source), "-o", str(findings)], capsys)
        assert status == 0, err
        data = json.loads(findings.read_text(encoding="utf-8"))
        assert data["not_run"] == {} and data["coverage"] == {"covered": 3, "facts": 3}
    other = tmp_path / "other.json"
    other.write_text(json.dumps(_single_output("elsewhere", stated)), encoding="utf-8")
    status, _, err = _check([str(other), "--source", str(folder)], capsys)
    assert status == EXIT_USAGE and "holds no document with the output's document id" in err
    binary = folder / "data.bin"
    binary.write_bytes(b"\x00\xff\xfe binary")
    status, _, err = _check([str(out), "--source", str(binary)], capsys)
    assert status == EXIT_USAGE and "Traceback" not in err


def test_the_judge_is_asked_about_each_document_through_one_client(
    model: FakeMessagesServer,
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "out.jsonl"
    _corpus(folder, out)

    def judge(body: dict[str, Any]) -> str:
        asked = read_judge_request(user_text(body))
        return json.dumps(
            [{"n": n, "verdict": "supported", "reason": "stated"} for n in asked.propositions]
            + [{"pair": list(p), "same_fact": False, "reason": "apart"} for p in asked.pairs]
        )

    findings = tmp_path / "findings.jsonl"
    with FakeMessagesServer(handler=judge) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        argv = [str(out), "--source", str(folder), "-o", str(findings)]
        status, _, err = _check([*argv, "--judge-model", "loopback-judge"], capsys)
        assert status == 0, err
        assert len(server.requests) == 4  # one a document
    lines = _lines(findings)
    assert [line["judge_model"] for line in lines] == ["loopback-judge"] * 4
    assert all(line["judge_usage"]["calls"] == 1 for line in lines)
    assert KEY not in err


def test_a_source_document_that_is_no_text_is_checked_without_it_and_says_why(
    model: FakeMessagesServer, folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    _corpus(folder, out)
    (folder / "a.txt").write_bytes(b"\xff\xfe\x00 not text any more")
    status, printed, _ = _check([str(out), "--source", str(folder)], capsys)
    lines = {x["document_id"]: x for x in map(json.loads, printed.splitlines())}
    assert status == 0
    assert lines["a.txt"]["source_error"].startswith("a.txt: not UTF-8 text")
    assert set(lines["a.txt"]["not_run"]) == {"coverage", "no_invention"}
    assert lines["notes.log"]["not_run"] == {} and "source_error" not in lines["notes.log"]
