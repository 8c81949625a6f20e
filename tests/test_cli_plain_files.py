"""A file without an extension (``LICENSE``, ``CHANGELOG``) is a text document for ``chunk``
and ``split``; an unknown extension is refused with the way out (``-`` reads stdin); and
``agentic-chunking --version`` prints the installed package's version."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import pytest

from agentic_chunking.cli import main
from agentic_chunking.cli._chunk import read_inputs
from agentic_chunking.cli._main import package_version

LICENCE = (
    "Copyright (c) 2020 The Foo authors.\n\n"
    "Permission is hereby granted, free of charge, to any person obtaining a copy\n"
    "of this software, to deal in the Software without restriction.\n"
)


@pytest.mark.parametrize("name", ["LICENSE", "CHANGELOG"])
def test_a_file_without_an_extension_is_a_document_of_paragraphs(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(LICENCE, encoding="utf-8")
    inputs, document_id, metadata = read_inputs(path)
    assert [chunk.chunk_id for chunk in inputs] == ["P0001", "P0002"]
    assert inputs[1].text.startswith("Permission is hereby granted")
    assert document_id is None and metadata == {}


def test_chunk_plans_a_licence_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "LICENSE"
    path.write_text(LICENCE, encoding="utf-8")
    assert main(["chunk", str(path), "--dry-run"]) == 0
    assert "from 2 input chunks" in capsys.readouterr().out


@pytest.mark.usefixtures("hashing")
def test_split_reads_a_licence_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "LICENSE"
    path.write_text(LICENCE, encoding="utf-8")
    assert main(["split", str(path)]) == 0
    chunks = json.loads(capsys.readouterr().out)
    assert chunks and {chunk["document_id"] for chunk in chunks} == {"LICENSE"}
    assert "".join(chunk["text"] for chunk in chunks).strip() == LICENCE.strip()


@pytest.mark.parametrize("name", ["notes.rst", "server.log", "Apache-2.0"])
def test_any_extension_is_read_as_a_document_as_split_and_corpus_read_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """`chunk` refused '.rst', '.log' and '.0' while `split` and `corpus` read them (a new
    user's finding): every suffix but JSON's and YAML's is a document now."""
    path = tmp_path / name
    path.write_text(LICENCE, encoding="utf-8")
    assert main(["chunk", str(path), "--dry-run"]) == 0
    assert "unknown file type" not in capsys.readouterr().err


def test_a_binary_file_is_named_binary_not_asked_to_be_saved_as_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "logo.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01")
    assert main(["chunk", str(path), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not UTF-8 text: binary or UTF-16" in err
    assert "save it as UTF-8" not in err


def test_version_prints_the_installed_packages_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    installed = importlib.metadata.version("agentic-chunking")
    assert capsys.readouterr().out == f"agentic-chunking {installed}\n"


def test_version_of_a_source_tree_never_installed_is_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_installed(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert package_version() == "unknown"
