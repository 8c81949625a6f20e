"""``agentic-chunking chunk`` through ``main([...])``, against FakeMessagesServer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking import DEFAULT_MODEL
from agentic_chunking._loopback import FakeMessagesServer, user_text
from agentic_chunking.cli import main
from agentic_chunking.pipeline._prompts import load_prompt

KEY = "sk-ant-cli-test-key"


def fake_model(body: dict[str, Any]) -> str:
    """Each paragraph of a batch becomes one proposition; the grouping puts all in one chunk."""
    text = user_text(body)
    if body["system"] == load_prompt("grouping").text:
        facts = [line.split(". ", 1)[1] for line in text.splitlines()[1:-1]]
        return json.dumps([{"category": "Everything", "facts": facts}])
    return json.dumps(text.removeprefix("<text>\n").removesuffix("\n</text>").split("\n\n"))


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesServer]:
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    with FakeMessagesServer(handler=fake_model) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        yield fake


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def test_a_markdown_document_becomes_paragraph_chunks(
    server: FakeMessagesServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = write(tmp_path, "notes.md", "First paragraph.\n\n\nSecond paragraph.\n  \nThird.\n")
    assert main(["chunk", str(doc), "--model", "reference"]) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["IsSuccess"] is True and result["ErrorDetail"] == ""
    chunk = result["Chunks"][0]
    assert chunk["ChunkId"] == "notes-0001" and chunk["DocumentId"] == "notes"
    assert chunk["Propositions"] == ["First paragraph.", "Second paragraph.", "Third."]
    assert chunk["SourceChunkIds"] == ["P0001", "P0002", "P0003"]
    assert result["Usage"]["Calls"][0]["Model"] == "reference"
    # the three paragraphs are packed into one batch: one call, no line per batch
    assert result["Usage"]["Calls"][0]["Batch"] == 1 and len(result["Usage"]["Calls"]) == 2
    assert KEY not in out + err


def test_output_file_document_id_and_options(
    server: FakeMessagesServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = write(tmp_path, "one.txt", "A single paragraph.")
    out_path = tmp_path / "out.json"
    status = main(
        [
            "chunk",
            str(doc),
            "--document-id",
            "DOC-9",
            "-o",
            str(out_path),
            "--max-tokens-per-batch",
            "50",
            "--max-concurrency",
            "2",
            "--extraction-max-tokens",
            "300",
            "--grouping-max-tokens",
            "600",
        ]
    )
    assert status == 0
    out, err = capsys.readouterr()
    [summary] = err.splitlines()  # one batch: no progress line, only the summary
    assert out == "" and summary.startswith("agentic-chunking chunk: done: 1 chunk, ")
    assert summary.endswith(f"; written to {out_path}")
    result = json.loads(out_path.read_text(encoding="utf-8"))
    assert result["Chunks"][0]["ChunkId"] == "DOC-9-0001"
    assert server.requests[0].body["model"] == DEFAULT_MODEL
    assert [r.body["max_tokens"] for r in server.requests] == [300, 600]


def test_json_chunk_list_with_extra_keys(
    server: FakeMessagesServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chunks = [
        {"chunk_id": "L4-0", "text": "Alpha.", "index": 0, "start": 0, "end": 6, "metadata": {}},
        {"chunk_id": "L4-1", "text": "", "index": 1},
        {"ChunkId": "L4-2", "Text": "Gamma."},
    ]
    path = write(tmp_path, "split.json", json.dumps(chunks))
    assert main(["chunk", str(path)]) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["Chunks"][0]["SourceChunkIds"] == ["L4-0", "L4-2"]
    assert "warning: 1 empty input chunk:\n" in err and "  - input chunk L4-1 is empty" in err
    assert [(w["Kind"], w["Data"]) for w in result["Warnings"]] == [
        ("empty_input", {"chunk_id": "L4-1"}),
        ("no_source_offsets", {"chunk_ids": ["L4-2"]}),  # Alpha. has offsets, Gamma. none
    ]


def test_yaml_case_file_gives_its_document_id(
    server: FakeMessagesServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = (
        "id: TC-999\ndocument_id: K8S-001\ninputs:\n"
        "  - chunk_id: K1\n    text: Kubernetes runs containers.\n    domain: Cloud\n"
    )
    path = write(tmp_path, "TC-999.yaml", case)
    assert main(["chunk", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["Chunks"][0]["ChunkId"] == "K8S-001-0001"


def test_a_failed_result_exits_1_and_still_writes_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def drop_everything(body: dict[str, Any]) -> str:
        if body["system"] == load_prompt("grouping").text:
            return json.dumps([{"category": "Partial", "facts": ["Alpha."]}])
        return json.dumps(
            user_text(body).removeprefix("<text>\n").removesuffix("\n</text>").split("\n\n")
        )

    with FakeMessagesServer(handler=drop_everything) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        path = write(tmp_path, "doc.txt", "Alpha.\n\nBeta.")
        assert main(["chunk", str(path)]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["IsSuccess"] is False
    assert "failed:" in err and "missing from the grouping" in err


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.txt", None, "no such file"),
        ("empty.md", "  \n\n ", "the file is empty"),
        ("bad.json", '[{"chunk_id": "A", "text": "x"', "invalid JSON at line 1"),
        ("bad.yaml", "inputs: [a, b\n", "invalid YAML"),
        ("shape.json", '{"chunk_id": "A"}', "expected a list of {chunk_id, text} objects"),
        ("list.json", "[]", "the chunk list is empty"),
        ("item.yaml", "- just text\n", "item 1 is a str"),
        ("noid.json", '[{"text": "x"}]', "item 1: input chunk"),
        ("blank.json", '[{"chunk_id": "A", "text": " "}]', "every input chunk has empty text"),
        ("doc.pdf", "%PDF-1.7\n\x00\x00\xff", "binary"),
    ],
)
def test_input_errors_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str | None, message: str
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["chunk", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agentic-chunking chunk: error: ") and message in err
    assert err.count("\n") == 1 and name in err


def test_non_utf8_file_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("caf\xe9".encode("latin-1"))
    assert main(["chunk", str(path)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_missing_key_is_a_precise_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    path = write(tmp_path, "doc.txt", "Alpha.")
    assert main(["chunk", str(path)]) == 2
    assert "ANTHROPIC_API_KEY is not set" in capsys.readouterr().err


def test_bad_numbers_are_refused_by_argparse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["chunk", "doc.txt", "--max-concurrency", "0"])
    assert caught.value.code == 2
    assert "'0' must be 1 or more" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("model", "note"),
    [
        (
            "claude-sonet-9",
            "does not list the model 'claude-sonet-9'; did you mean 'claude-sonnet-9'",
        ),
        ("claude-old-1", "marks the model 'claude-old-1' deprecated (end of life 2026-01-05)"),
        ("claude-sonnet-9", None),
        ("openai:gpt-x", None),  # another provider's table is not the SDK's
    ],
)
def test_a_dry_run_notes_a_model_the_sdk_does_not_list_or_retires(
    model: str,
    note: str | None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentic_chunking.client import _config

    table = (("claude-sonnet-9", "claude-old-1"), {"claude-old-1": "2026-01-05"})
    monkeypatch.setattr(_config, "sdk_model_table", lambda: table)
    document = tmp_path / "doc.txt"
    document.write_text("Lithium-ion batteries store energy. They power phones.\n")
    assert main(["chunk", str(document), "--dry-run", "--model", model]) == 0  # never fails
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")]
    if note is None:
        assert notes == []
    else:
        assert len(notes) == 1 and note in notes[0], notes


def test_an_empty_document_id_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "doc.txt"
    document.write_text("Lithium-ion batteries store energy.\n")
    assert main(["chunk", str(document), "--dry-run", "--document-id", " "]) == 2
    assert "--document-id is empty" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson", ".JSONL"])
def test_a_jsonl_corpus_is_refused_before_any_call_naming_the_corpus_command(
    server: FakeMessagesServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    lines = [{"document_id": f"d{n}", "text": f"Document {n} says one thing."} for n in (1, 2)]
    corpus = write(tmp_path, f"split{suffix}", "".join(json.dumps(x) + "\n" for x in lines))
    assert main(["chunk", str(corpus), "-o", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"agentic-chunking chunk: error: {corpus}: a JSONL corpus (one document a line, as "
        "'split DIR' and 'corpus' write it), not one document; chunk it with "
        f"'agentic-chunking corpus {corpus} -o OUT.jsonl'"
    ]
    assert server.requests == [] and not (tmp_path / "out.replies").exists()


def test_a_missing_jsonl_file_is_called_missing(
    server: FakeMessagesServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chunk", str(tmp_path / "gone.jsonl")]) == 2
    assert "gone.jsonl: no such file" in capsys.readouterr().err and server.requests == []


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (["--model", ""], "argument --model: an empty model id; give one"),
        (["--timeout", "0"], "argument --timeout: '0' must be a positive number of seconds"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        ([], None),  # PATH left out: argparse's own message
    ],
    ids=["empty-model", "zero-timeout", "unknown-option", "missing-path"],
)
def test_an_argument_error_is_one_line_naming_help_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: list[str], message: str | None
) -> None:
    doc = [str(write(tmp_path, "ok.md", "A fact."))] if message else []
    with pytest.raises(SystemExit) as stopped:
        main(["chunk", *doc, *given])
    assert stopped.value.code == 2
    [line] = capsys.readouterr().err.splitlines()  # no usage block before it
    assert line.startswith(f"agentic-chunking chunk: error: {message or ''}")
    assert line.endswith(" (see agentic-chunking chunk --help)")


def test_help_still_shows_the_usage_and_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["chunk", "--help"])
    out = capsys.readouterr().out
    assert stopped.value.code == 0 and out.startswith("usage: agentic-chunking chunk [-h]")
    assert "--max-chunk-tokens N" in out and "--resume" in out
