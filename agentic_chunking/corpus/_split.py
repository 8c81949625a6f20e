"""Level 4 over a corpus: every document of a folder, JSONL or Parquet corpus split by meaning.

``split_corpus(source, splitter)`` reads the same inputs as ``chunk_corpus`` (the corpus
reader of ``_documents``: the same files of a folder in the same order, the same ids, the
same checks of every record before any work) and yields one ``DocumentResult`` per
document, in input order, whose one record is the Level 4 line that ``corpus`` reads:
``{document_id, chunks: [{chunk_id, text, index, start, end}], metadata}``, offsets into
the document's decoded text (``text == source[start:end]``). One splitter serves the run, so
its embedder is loaded once; documents are read and split one at a time, so memory follows
the largest document, not the corpus. A record that already holds ``chunks`` (Level 4
output) is passed on as it is.

With a ``Ledger``, each finished document is recorded as it finishes (its record, or its
failure) under the hash of its text and metadata and the hash of the splitter's settings;
a document the ledger holds as done with both hashes unchanged is not split again (its
record comes from the ledger). A document that cannot be split (not text, no text) fails
alone (``error_kind`` ``input``); a missing embedder (``ConfigurationError``) stops the run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from .._shown import redact
from ._documents import UNREADABLE, CorpusSource, Scan, check_record, open_corpus
from ._ledger import Ledger
from ._run import DocumentResult

if TYPE_CHECKING:
    from ..semantic import SemanticChunk, SemanticSplitter

DEFAULT_CHUNK_PREFIX = "L4"
SPLIT_FORMAT = 1
"""The version of a Level 4 record's layout, part of the settings hash."""


@dataclass(frozen=True, slots=True)
class _Text:
    """One document as the splitter takes it (or failed before it: ``error``)."""

    document_id: str
    position: int
    text: str = ""
    metadata: Mapping[str, Any] | None = None
    error: str | None = None
    chunks: list[Any] | None = None
    """The chunks of a record that is Level 4 output already."""
    error_kind: str = UNREADABLE
    """With ``error``: ``NOT_TEXT`` (a file that is not text: set aside, as ``corpus``
    does) or ``UNREADABLE``."""


def chunk_record(chunk: SemanticChunk, chunk_prefix: str = DEFAULT_CHUNK_PREFIX) -> dict[str, Any]:
    """One Level 4 chunk as ``split`` writes it: ``{chunk_id, text, index, start, end}``,
    its id ``PREFIX-0001`` for index 0."""
    return {
        "chunk_id": f"{chunk_prefix}-{chunk.index + 1:04d}",
        "text": chunk.text,
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
    }


def settings_sha256(splitter: SemanticSplitter, chunk_prefix: str = DEFAULT_CHUNK_PREFIX) -> str:
    """The hex SHA-256 of what decides a document's Level 4 record besides its text: the
    splitter's rule and sizes, its embedder's and token counter's names, the chunk prefix
    and the record layout."""
    payload = {
        "format": SPLIT_FORMAT,
        "chunk_prefix": chunk_prefix,
        "embedder": _name(splitter.embedder),
        "token_counter": _name(splitter.token_counter),
        "similarity_threshold": splitter.similarity_threshold,
        "similarity_window": splitter.similarity_window,
        "min_sentences_per_chunk": splitter.min_sentences_per_chunk,
        "min_chunk_tokens": splitter.min_chunk_tokens,
        "depth_cutoff": splitter.depth_cutoff,
        "max_chunk_token_size": splitter.max_chunk_token_size,
        "overlap_sentences": splitter.overlap_sentences,
        "join_wrapped_lines": splitter.join_wrapped_lines,
    }
    text = json.dumps(payload, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _name(thing: object) -> str:
    named = getattr(thing, "name", None)
    if isinstance(named, str):
        return named
    kind = thing if callable(thing) and hasattr(thing, "__qualname__") else type(thing)
    return f"{getattr(kind, '__module__', '')}.{getattr(kind, '__qualname__', repr(kind))}"


def _document_sha256(text: _Text) -> str:
    payload = json.dumps(
        {"text": text.text, "chunks": text.chunks, "metadata": text.metadata},
        ensure_ascii=False,
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _texts(source: CorpusSource) -> Iterator[_Text]:
    """The corpus's documents as whole texts, in input order: the corpus reader's files (a
    folder, read by the corpus reader's one reading of a file, ``read_file_text``) or
    checked records (JSONL, Parquet)."""
    if source.kind == "folder":
        for position, path in enumerate(source.files()):
            document_id = path.relative_to(source.path).as_posix()
            text = source.read_file_text(document_id, position)  # the one reading
            if isinstance(text, str):
                yield _Text(document_id, position, text, {"source_path": document_id})
            else:
                yield _Text(document_id, position, error=text.error, error_kind=text.error_kind)
        return
    records = source.records()
    for position, (record, place) in enumerate(records):
        check_record(record, place)
        document_id = str(record["document_id"])
        metadata = dict(record.get("metadata") or {})
        if "chunks" in record:
            yield _Text(document_id, position, metadata=metadata, chunks=list(record["chunks"]))
        elif not str(record["text"]).strip():
            yield _Text(document_id, position, error=f"{place}: the text is empty")
        else:
            yield _Text(document_id, position, str(record["text"]), metadata)


def split_corpus(
    source: CorpusSource | Path | str,
    splitter: SemanticSplitter | None = None,
    *,
    ledger: Ledger | None = None,
    chunk_prefix: str = DEFAULT_CHUNK_PREFIX,
    scan: Scan | None = None,
    on_split: Callable[[SemanticSplitter, str, list[SemanticChunk]], None] | None = None,
) -> Iterator[DocumentResult]:
    """Split every document of ``source`` with ``splitter`` (default: ``SemanticSplitter()``,
    MiniLM) and yield one DocumentResult each, in input order (see the module).

    ``scan`` is the source's ``scan()`` when the caller made it (to count the documents);
    else it is made here, so a bad record or a duplicate id raises InputError before any
    document is split. ``on_split(splitter, text, chunks)`` is called after each document
    split here (not for one skipped or passed on). Raises ConfigurationError when the
    embedder cannot be loaded.
    """
    from ..semantic import SemanticSplitter

    corpus = source if isinstance(source, CorpusSource) else open_corpus(source)
    if scan is None:
        corpus.scan()
    active = splitter if splitter is not None else SemanticSplitter()
    settings = settings_sha256(active, chunk_prefix)
    for text in _texts(corpus):
        if text.error is not None:
            result = DocumentResult(
                text.document_id,
                text.position,
                "failed",
                error=text.error,
                error_kind=text.error_kind,
            )
            if ledger is not None:
                _record(ledger, settings, result)
            yield result
            continue
        if text.chunks is not None:  # Level 4 output already: passed on as it is
            record = {
                "document_id": text.document_id,
                "chunks": text.chunks,
                "metadata": dict(text.metadata or {}),
            }
            yield DocumentResult(text.document_id, text.position, "done", records=(record,))
            continue
        digest = _document_sha256(text)
        if ledger is not None:
            entry = ledger.finished(text.document_id)
            if (
                entry is not None
                and entry.status == "done"
                and entry.document_sha256 == digest
                and entry.settings_sha256 == settings
                and len(entry.records) == 1
            ):
                yield DocumentResult(
                    text.document_id, text.position, "skipped", records=entry.records
                )
                continue
        result = _split(active, text, chunk_prefix, on_split)
        if ledger is not None:
            _record(ledger, settings, result, digest)
        yield result


def _split(
    splitter: SemanticSplitter,
    text: _Text,
    chunk_prefix: str,
    on_split: Callable[[SemanticSplitter, str, list[SemanticChunk]], None] | None,
) -> DocumentResult:
    try:
        chunks = splitter.split(text.text, document_id=text.document_id)
    except InputError as error:  # the document's own fault (a character over the limit)
        return DocumentResult(
            text.document_id,
            text.position,
            "failed",
            error=redact(f"{text.document_id}: {error}"),
            error_kind="input",
        )
    if not chunks:
        return DocumentResult(
            text.document_id,
            text.position,
            "failed",
            error=f"{text.document_id}: no chunk: the text is only whitespace",
            error_kind="input",
        )
    if on_split is not None:
        on_split(splitter, text.text, chunks)
    record = {
        "document_id": text.document_id,
        "chunks": [chunk_record(chunk, chunk_prefix) for chunk in chunks],
        "metadata": dict(text.metadata or {}),
    }
    return DocumentResult(text.document_id, text.position, "done", records=(record,))


def _record(ledger: Ledger, settings: str, result: DocumentResult, digest: str = "") -> None:
    """Keep a finished document (done or failed) in the ledger, in one transaction."""
    ledger.record(
        document_id=result.document_id,
        document_sha256=digest,
        settings_sha256=settings,
        status="done" if result.status == "done" else "failed",
        records=result.records,
        failure=None if result.status == "done" else result.failure_record(),
        calls=0,
        input_tokens=0,
        output_tokens=0,
        cost_usd=None,
    )
