"""``check`` on a corpus output: document by document, as findings records.

A corpus output (the ``.jsonl``/``.ndjson`` or ``.parquet`` file ``agentic-chunking corpus``
writes: one chunk a record, a document's chunks together, in input order) is checked one
document at a time, its source being the corpus it was made from (a folder, JSONL or
Parquet, read by the corpus layer's own reader, ``corpus.open_corpus``). Memory holds one
document's records and text (and the ids of all documents), never the corpus: the output
is read record by record (``corpus.output_records``; Parquet a row group of at most 1,000
records at a time), the source document by document.

``CorpusOutputCheck(output, source)`` does, before any check: every record of the output
validated (its line or row named in the message), a document whose chunks are not
together refused, and so is a document id the source does not hold (named, with the way
out). Then ``lines()`` yields one findings line a document, ``document_id`` first, the
rest as ``findings_document`` makes for one output (schema ``agentic-chunking-check/1``),
``checked`` true; then one line (``checked`` false, with its ``reason``) for each document
of the source with no chunk in the output (it failed, or was not run). The caller writes
the lines and words the summary.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
    open_corpus,
    output_records,
)
from ..judge import Judgement, assess, source_text
from ._input import validate_record
from ._output import SCHEMA, findings_document

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


class Judge(Protocol):
    """Asks the judge about one document's output (``_check``'s judge, one client)."""

    def __call__(
        self, inputs: Sequence[AgenticChunkInput], response: AgenticResponse
    ) -> Judgement: ...


class CorpusOutputCheck:
    """The check of the corpus output ``output`` against the corpus ``source`` (None: the
    checks that compare an output with its input do not run); see the module. Made, it
    has read the whole output once and raised InputError for any bad record or unknown
    document, before any check."""

    def __init__(self, output: Path, source: Path | None) -> None:
        self.output = output
        self.source = source
        self.documents = None if source is None else SourceDocuments(open_corpus(source))
        self.checked = _scan(output, self.documents, source)

    @property
    def missing(self) -> list[str]:
        """The source's documents with no chunk in the output, in input order."""
        ids = self.documents.ids if self.documents is not None else ()
        return [i for i in ids if i not in self.checked]

    def lines(self, judge: Judge | None = None) -> Iterator[dict[str, Any]]:
        """One findings line a document of the output (``checked`` true), then one for
        each document of the source it misses (``checked`` false); ``judge`` asks the
        judge about each document checked against its input."""
        for number, document in enumerate(output_documents(self.output), start=1):
            yield _check_document(document, self.output, self.source, self.documents, judge=judge)
            if number % CLEAR_EVERY == 0:  # memory follows the document being checked
                clear_caches()
        for document_id in self.missing:
            yield _not_in_output(document_id, self.output, self.source)


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
                f"{listed([i for i, _ in absent])})"
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


def listed(ids: Sequence[str]) -> str:
    """At most ``SHOWN_IDS`` document ids, quoted, and how many more."""
    shown = ", ".join(repr(quote(i, limit=80)) for i in ids[:SHOWN_IDS])
    return shown + (f" and {len(ids) - SHOWN_IDS:,} more" if len(ids) > SHOWN_IDS else "")
