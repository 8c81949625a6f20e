"""``check`` on a corpus output, and on a source ``corpus`` reads: document by document.

A corpus output (the ``.jsonl``/``.ndjson`` or ``.parquet`` file ``agentic-chunking corpus``
writes: one chunk a record, a document's chunks together, in input order) is checked one
document at a time, its source being the corpus it was made from (``--source``: a folder,
JSONL or Parquet, read by the corpus layer's own reader, ``corpus.open_corpus``). Memory
holds one document's records and text (and the ids of all documents), never the corpus:
the output is read record by record (``corpus.output_records``; Parquet a row group of at
most 1,000 records at a time), the source document by document, and the findings are
written a line at a time.

Before any check: every record of the output is validated (its line or row named in the
message), a document whose chunks are not together is refused, and so is a document id
the source does not hold (named, with the way out). Then the findings go to one JSON-lines
file (``-o F.jsonl``, written atomically; stdout without ``-o``): one line a document,
``document_id`` first, the rest as ``check`` writes for one output (schema
``agentic-chunking-check/1``), ``checked`` true; then one line (``checked`` false, with
its ``reason``) for each document of the source with no chunk in the output (it failed,
or was not run). Exit status: 1 when a document has an error, else 0.

A single chunked output (``.json``) may also take a corpus as ``--source``: the document
with the output's document id is its input. A ``--source`` file of any other extension
(``.log``, ``.rst``, none) is read as a document, the way ``corpus`` reads a folder's file.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .._errors import InputError
from .._models import AgenticChunkInput, AgenticResponse
from .._shown import quote
from ..checks import clear_caches
from ..corpus import (
    JSONL_SUFFIXES,
    OUTPUT_SUFFIXES,
    PARQUET_SUFFIXES,
    CorpusDocument,
    CorpusSource,
    OutputWriter,
    file_document,
    open_corpus,
    output_records,
)
from ..judge import Judgement, assess, source_text
from ._check_input import validate_record
from ._findings import SCHEMA, findings_document
from ._io import check_output_path

CLEAR_EVERY = 32
"""Documents after which the checks' memo caches are cleared (``checks.clear_caches``):
they hold the texts of documents already checked, which no later document asks for."""
SHOWN_IDS = 5
"""The most document ids a summary line or a message names."""


def is_corpus_output(path: Path) -> bool:
    """Is ``path`` a corpus output (JSONL or Parquet, by its suffix)?"""
    return path.suffix.lower() in OUTPUT_SUFFIXES


def is_corpus_source(path: Path) -> bool:
    """Is ``path`` a corpus ``corpus`` reads: a folder, a JSONL or a Parquet file?"""
    return path.is_dir() or path.suffix.lower() in (*JSONL_SUFFIXES, *PARQUET_SUFFIXES)


@dataclass
class OutputDocument:
    """One document of a corpus output: its id, where its first record is, its records."""

    document_id: str
    place: str
    records: list[dict[str, Any]] = field(default_factory=list)


def output_documents(path: Path) -> Iterator[OutputDocument]:
    """The documents of the corpus output ``path``, one at a time (its records validated,
    grouped while consecutive). InputError naming the line or row for a bad record, or a
    document whose chunks are not together (a second run of its records)."""
    seen: dict[str, str] = {}
    current: OutputDocument | None = None
    for record, place in output_records(path):
        validate_record(record, place, path)
        document_id = str(record["DocumentId"])
        if current is not None and current.document_id == document_id:
            current.records.append(record)
            continue
        if document_id in seen:
            raise InputError(
                f"{path}: {place}: document {quote(document_id)!r} again, after other "
                f"documents (its chunks start at {seen[document_id]}); give the output "
                "'corpus' writes, a document's chunks together"
            )
        if current is not None:
            yield current
        seen[document_id] = place
        current = OutputDocument(document_id, place, [record])
    if current is not None:
        yield current


class SourceDocuments:
    """A corpus source's documents, found by id: read forward in input order (a corpus
    output is in that order, so the source is read once), from the start again only for a
    document before the last one read. Holds the ids, and one document at a time."""

    def __init__(self, source: CorpusSource) -> None:
        self.source = source
        self.ids = source.scan().document_ids
        self.positions = {document_id: k for k, document_id in enumerate(self.ids)}
        self._documents: Iterator[CorpusDocument] | None = None
        self._next = 0

    def __contains__(self, document_id: object) -> bool:
        return document_id in self.positions

    def get(self, document_id: str) -> CorpusDocument:
        """The document ``document_id`` (KeyError when the source does not hold it;
        InputError when the source changed since it was scanned)."""
        position = self.positions[document_id]
        if self._documents is None or position < self._next:
            self._documents, self._next = self.source.documents(), 0
        for document in self._documents:
            self._next = document.position + 1
            if document.position == position and document.document_id == document_id:
                return document
            if document.position >= position:
                break
        raise InputError(
            f"{self.source.path}: changed while it was read (document {quote(document_id)!r} "
            "is no longer where it was); check it again once nothing writes to it"
        )


def read_single_source(path: Path, document_id: str | None) -> list[AgenticChunkInput] | None:
    """The input of a single chunked output from a ``--source`` ``chunk`` does not read:
    a corpus (the document ``document_id``), or a file of another extension read as a
    document the way ``corpus`` reads a folder's file. None: ``chunk``'s reader reads it."""
    from ._chunk import JSON_SUFFIXES, TEXT_SUFFIXES, YAML_SUFFIXES

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


class Judge(Protocol):
    """Asks the judge about one document's output (``_check``'s judge, one client)."""

    def __call__(
        self, inputs: Sequence[AgenticChunkInput], response: AgenticResponse
    ) -> Judgement: ...


def check_corpus_output(
    output: Path,
    source: Path | None,
    *,
    findings_path: Path | None,
    judge: Judge | None = None,
) -> int:
    """Check the corpus output ``output`` against the corpus ``source`` (see the module);
    write the findings; return 1 when a document has an error, else 0."""
    if findings_path is not None and findings_path.suffix.lower() not in JSONL_SUFFIXES:
        raise InputError(
            f"-o {findings_path}: the findings of a corpus output are JSON lines, one "
            f"document a line: give -o F{JSONL_SUFFIXES[0]}"
        )
    sources = [output] + ([source] if source is not None else [])
    check_output_path(findings_path, inputs=sources, option="-o")  # nor inside the source folder
    documents = None if source is None else SourceDocuments(open_corpus(source))
    checked = _scan(output, documents, source)
    totals = _Totals()
    with ExitStack() as stack:
        writer = None if findings_path is None else stack.enter_context(OutputWriter(findings_path))
        write = _stdout_lines if writer is None else writer.write
        for number, document in enumerate(output_documents(output), start=1):
            line = _check_document(document, output, source, documents, judge=judge)
            totals.add(line)
            write(line)
            if number % CLEAR_EVERY == 0:  # memory follows the document being checked
                clear_caches()
        missing = [i for i in (documents.ids if documents else ()) if i not in checked]
        for document_id in missing:
            write(_not_in_output(document_id, output, source))
        if writer is not None:
            writer.commit()
    _say(totals.summary(output, missing, with_source=source is not None))
    return 1 if totals.failed else 0


def _scan(output: Path, documents: SourceDocuments | None, source: Path | None) -> set[str]:
    """Read the whole output once (ids kept, no text): every record valid, every document
    in the source; return the ids. InputError otherwise, before any check."""
    ids: dict[str, str] = {}
    for document in output_documents(output):
        ids[document.document_id] = document.place
    if not ids:
        raise InputError(f"{output}: holds no chunk; give the output 'corpus' writes")
    if documents is not None:
        absent = [(i, place) for i, place in ids.items() if i not in documents]
        if absent:
            first, place = absent[0]
            more = (
                f" ({len(absent):,} of its {len(ids):,} documents are not: "
                f"{_listed([i for i, _ in absent])})"
                if len(absent) > 1
                else ""
            )
            raise InputError(
                f"{output}: {place}: document {quote(first)!r} is not in the source {source}"
                f"{more}; give as --source the corpus (folder, JSONL or Parquet) the output "
                "was made from"
            )
    return set(ids)


def _check_document(
    document: OutputDocument,
    output: Path,
    source: Path | None,
    documents: SourceDocuments | None,
    *,
    judge: Judge | None,
) -> dict[str, Any]:
    try:
        response = AgenticResponse.from_dict({"Chunks": document.records, "IsSuccess": True})
    except (InputError, TypeError, ValueError, AttributeError) as error:
        raise InputError(
            f"{output}: {document.place} (document {quote(document.document_id)!r}): {error}"
        ) from None
    inputs: list[AgenticChunkInput] | None = None
    note: dict[str, Any] = {}
    if documents is not None:
        found = documents.get(document.document_id)
        if found.error is None:
            inputs = list(found.inputs)
        else:  # checked without it, and said so
            note = {"source_error": found.error}
    judgement = None
    if judge is not None and inputs is not None and response.chunks:
        judgement = judge(inputs, response)
    text = None if inputs is None else source_text(inputs)
    assessment = assess(response, source=text, judgement=judgement)
    findings = findings_document(
        assessment,
        response,
        str(output),
        None if source is None else str(source),
        judgement=judgement,
    )
    return {"document_id": document.document_id, "checked": True, **note, **findings}


def _not_in_output(document_id: str, output: Path, source: Path | None) -> dict[str, Any]:
    return {
        "document_id": document_id,
        "checked": False,
        "schema": SCHEMA,
        "output": str(output),
        "source": None if source is None else str(source),
        "reason": f"no chunk of this document in {output}: it failed (see the run's "
        "failures file) or was not run",
    }


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
            line += f"; with an error: {_listed(self.failed)}"
        if self.not_run:
            hint = "" if with_source else " (give --source CORPUS to run them)"
            line += f"; not run: {', '.join(sorted(self.not_run))}{hint}"
        if missing:
            many = len(missing) != 1
            line += (
                f"; {len(missing):,} document{'s' if many else ''} of the source "
                f"{'have' if many else 'has'} no chunk in the output: {_listed(missing)}"
            )
        return line


def _listed(ids: Sequence[str]) -> str:
    shown = ", ".join(repr(quote(i, limit=80)) for i in ids[:SHOWN_IDS])
    return shown + (f" and {len(ids) - SHOWN_IDS:,} more" if len(ids) > SHOWN_IDS else "")


def _stdout_lines(line: dict[str, Any]) -> None:
    print(json.dumps(line, ensure_ascii=False), flush=True)


def _say(line: str) -> None:
    print(f"agentic-chunking check: {line}", file=sys.stderr)
