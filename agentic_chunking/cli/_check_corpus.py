"""``check`` on a corpus output, and on a source ``corpus`` reads: the command's side.

The check itself, document by document, is ``findings.CorpusOutputCheck`` (the records
validated, the documents found in the source, before any check; then one findings line a
document). Here: the findings go to one JSON-lines file (``-o F.jsonl``, written
atomically; stdout without ``-o``), a line at a time, and the summary line is said. Exit
status: 1 when a document has an error, else 0.

A single chunked output (``.json``) may also take a corpus as ``--source``: the document
with the output's document id is its input. A ``--source`` file of any other extension
(``.log``, ``.rst``, none) is read as a document, the way ``corpus`` reads a folder's file.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._models import AgenticChunkInput
from .._shown import quote
from ..corpus import (
    JSONL_SUFFIXES,
    PARQUET_SUFFIXES,
    CorpusDocument,
    OutputWriter,
    file_document,
    open_corpus,
)
from ..findings import CorpusOutputCheck, Judge, SourceDocuments, listed
from ._inputs import JSON_SUFFIXES, TEXT_SUFFIXES, YAML_SUFFIXES
from ._io import check_output_path


def read_single_source(path: Path, document_id: str | None) -> list[AgenticChunkInput] | None:
    """The input of a single chunked output from a ``--source`` ``chunk`` does not read:
    a corpus (the document ``document_id``), or a file of another extension read as a
    document the way ``corpus`` reads a folder's file. None: ``chunk``'s reader reads it."""
    if path.is_dir() or path.suffix.lower() in (*JSONL_SUFFIXES, *PARQUET_SUFFIXES):
        documents = SourceDocuments(open_corpus(path))
        if document_id is None or document_id not in documents:
            shown = "none" if document_id is None else repr(quote(document_id))
            raise InputError(
                f"{path}: holds no document with the output's document id ({shown}); give "
                "as --source the corpus the output was made from, or the document itself"
            )
        return _inputs_of(documents.get(document_id), path)
    known = ("", *TEXT_SUFFIXES, *JSON_SUFFIXES, *YAML_SUFFIXES)
    if path.suffix.lower() in known or not path.is_file():
        return None
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror})") from None
    return _inputs_of(file_document(raw, path.name, 0), path)


def _inputs_of(document: CorpusDocument, path: Path) -> list[AgenticChunkInput]:
    if document.error is not None:
        raise InputError(f"{path}: {document.error}")
    return list(document.inputs)


def check_corpus_output(
    output: Path,
    source: Path | None,
    *,
    findings_path: Path | None,
    judge: Judge | None = None,
) -> int:
    """Check the corpus output ``output`` against the corpus ``source`` (see the module;
    ``findings.CorpusOutputCheck``); write the findings a line at a time; say the summary;
    return 1 when a document has an error, else 0."""
    if findings_path is not None and findings_path.suffix.lower() not in JSONL_SUFFIXES:
        raise InputError(
            f"-o {findings_path}: the findings of a corpus output are JSON lines, one "
            f"document a line: give -o F{JSONL_SUFFIXES[0]}"
        )
    sources = [output] + ([source] if source is not None else [])
    check_output_path(findings_path, inputs=sources, option="-o")  # nor inside the source folder
    check = CorpusOutputCheck(output, source)
    totals = _Totals()
    with ExitStack() as stack:
        writer = None if findings_path is None else stack.enter_context(OutputWriter(findings_path))
        write = _stdout_lines if writer is None else writer.write
        for line in check.lines(judge):
            if line["checked"]:
                totals.add(line)
            write(line)
        if writer is not None:
            writer.commit()
    _say(totals.summary(output, check.missing, with_source=source is not None))
    return 1 if totals.failed else 0


@dataclass
class _Totals:
    """What the summary line counts, document by document."""

    documents: int = 0
    propositions: int = 0
    errors: int = 0
    warnings: int = 0
    failed: list[str] = field(default_factory=list)
    not_run: set[str] = field(default_factory=set)

    def add(self, line: dict[str, Any]) -> None:
        self.documents += 1
        self.propositions += line["propositions"]
        self.errors += line["errors"]
        self.warnings += line["warnings"]
        self.not_run.update(line["not_run"])
        if line["errors"]:
            self.failed.append(line["document_id"])

    def summary(self, output: Path, missing: Sequence[str], *, with_source: bool) -> str:
        counts = ", ".join(
            f"{n:,} {word}{'s' if n != 1 else ''}"
            for n, word in ((self.errors, "error"), (self.warnings, "warning"))
        )
        line = (
            f"{counts} in {self.documents:,} document{'s' if self.documents != 1 else ''} "
            f"({self.propositions:,} proposition{'s' if self.propositions != 1 else ''}) of "
            f"{output}"
        )
        if self.failed:
            line += f"; with an error: {listed(self.failed)}"
        if self.not_run:
            hint = "" if with_source else " (give --source CORPUS to run them)"
            line += f"; not run: {', '.join(sorted(self.not_run))}{hint}"
        if missing:
            many = len(missing) != 1
            line += (
                f"; {len(missing):,} document{'s' if many else ''} of the source "
                f"{'have' if many else 'has'} no chunk in the output: {listed(missing)}"
            )
        return line


def _stdout_lines(line: dict[str, Any]) -> None:
    print(json.dumps(line, ensure_ascii=False), flush=True)


def _say(line: str) -> None:
    print(f"agentic-chunking check: {line}", file=sys.stderr)
