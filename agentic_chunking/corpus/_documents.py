"""A corpus's documents, read one at a time: a folder of text files, a JSONL or a Parquet file.

``open_corpus(path)`` names the source; ``CorpusSource.scan()`` reads it once without
keeping any text (every id, its position, the shape of every line) so that a bad line or a
duplicate document id is refused before any model call; ``CorpusSource.documents()`` then
streams the documents in input order, so memory stays bounded by what the caller holds.

Shapes:
- a folder: every regular file under it (any extension or none; hidden files and folders
  skipped), in sorted path order; the id is the path relative to the folder (``a/b.txt``);
  the text is split into paragraph input chunks (``paragraph_inputs``); metadata
  ``{"source_path": ...}``. A file that is not UTF-8 text is a document that fails on its
  own (``CorpusDocument.error``), never the run.
- JSONL: one object a line, ``{document_id, text, metadata}`` or Level 4's output
  ``{document_id, chunks: [{chunk_id, text, ...}], metadata}``; blank lines skipped.
- Parquet (``.parquet``): the same columns; ``metadata`` a struct, a map or a JSON string.

Every document carries ``document_sha256``: the SHA-256 of what decides its chunks and
records (its input chunks' ids and texts, and its metadata), for the ledger.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._files import decode_text
from .._models import AgenticChunkInput
from .._shown import quote
from ..pipeline._document import paragraph_inputs

JSONL_SUFFIXES = (".jsonl", ".ndjson")
PARQUET_SUFFIXES = (".parquet",)


@dataclass(frozen=True, slots=True)
class CorpusDocument:
    """One document of a corpus, ready for the pipeline (or failed before it: ``error``)."""

    document_id: str
    position: int
    """0-based place in the corpus's input order."""
    inputs: tuple[AgenticChunkInput, ...]
    metadata: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
    """Why the document cannot be chunked (not text, no text), when it cannot."""
    document_sha256: str = ""

    @classmethod
    def of(
        cls,
        document_id: str,
        position: int,
        inputs: list[AgenticChunkInput],
        metadata: Mapping[str, Any],
    ) -> CorpusDocument:
        """A document with its hash computed from its inputs and metadata."""
        payload = json.dumps(
            {"inputs": [[c.chunk_id, c.text] for c in inputs], "metadata": metadata},
            ensure_ascii=False,
            sort_keys=True,
            default=str,
        )
        digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()
        return cls(document_id, position, tuple(inputs), dict(metadata), None, digest)

    @classmethod
    def failed(cls, document_id: str, position: int, error: str) -> CorpusDocument:
        return cls(document_id, position, (), {}, error, "")


@dataclass(frozen=True, slots=True)
class Scan:
    """What a first pass over the corpus found: the ids in input order."""

    document_ids: tuple[str, ...]


class CorpusSource:
    """A corpus on disk (see the module). Re-iterable: each ``documents()`` reads anew."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.exists():
            raise InputError(f"{path}: no such file or folder; check the path")
        if path.is_dir():
            self.kind = "folder"
        elif path.suffix.lower() in JSONL_SUFFIXES:
            self.kind = "jsonl"
        elif path.suffix.lower() in PARQUET_SUFFIXES:
            self.kind = "parquet"
        else:
            raise InputError(
                f"{path}: not a corpus: give a folder of text files, a JSONL file "
                f"({', '.join(JSONL_SUFFIXES)}) or a Parquet file (.parquet) of "
                "{document_id, text, metadata} records"
            )

    def scan(self) -> Scan:
        """Read every id once; InputError for a bad record, a duplicate id or no document at
        all (a mistyped or empty folder), before any call."""
        ids: list[str] = []
        where: dict[str, str] = {}
        for document_id, place in self._ids():
            if document_id in where:
                raise InputError(
                    f"{self.path}: document id {quote(document_id)!r} is given twice "
                    f"({where[document_id]} and {place}); give every document its own id"
                )
            where[document_id] = place
            ids.append(document_id)
        if not ids:
            what = "file (hidden ones are skipped)" if self.kind == "folder" else "record"
            raise InputError(
                f"{self.path}: holds no document: not one {what}; check the path, or give a "
                "corpus with at least one document"
            )
        return Scan(tuple(ids))

    def documents(self) -> Iterator[CorpusDocument]:
        """The documents in input order, read one at a time."""
        if self.kind == "folder":
            yield from self._folder_documents()
        elif self.kind == "jsonl":
            for position, (record, place) in enumerate(self._jsonl_records()):
                yield record_document(record, position, place)
        else:
            for position, (record, place) in enumerate(self._parquet_records()):
                yield record_document(record, position, place)

    # -- folder --------------------------------------------------------------------------

    def _files(self) -> list[Path]:
        found = [
            p
            for p in self.path.rglob("*")
            if p.is_file()
            and not any(part.startswith(".") for part in p.relative_to(self.path).parts)
        ]
        return sorted(found, key=lambda p: p.relative_to(self.path).as_posix())

    def _folder_documents(self) -> Iterator[CorpusDocument]:
        for position, path in enumerate(self._files()):
            document_id = path.relative_to(self.path).as_posix()
            try:
                raw = path.read_bytes()
            except OSError as error:
                reason = error.strerror or str(error)
                yield CorpusDocument.failed(document_id, position, f"{document_id}: {reason}")
                continue
            yield file_document(raw, document_id, position)

    def files(self) -> list[Path]:
        """A folder corpus's files, in input order (empty for a JSONL or Parquet corpus)."""
        return self._files() if self.kind == "folder" else []

    # -- records -------------------------------------------------------------------------

    def _ids(self) -> Iterator[tuple[str, str]]:
        if self.kind == "folder":
            for path in self._files():
                yield path.relative_to(self.path).as_posix(), "the folder"
            return
        records = self._jsonl_records() if self.kind == "jsonl" else self._parquet_records()
        for record, place in records:
            check_record(record, place)
            yield record["document_id"], place

    def _jsonl_records(self) -> Iterator[tuple[Mapping[str, Any], str]]:
        return json_objects(self.path, give="give one {document_id, text, metadata} object a line")

    def _parquet_records(self) -> Iterator[tuple[Mapping[str, Any], str]]:
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise InputError(
                f"{self.path}: reading Parquet needs pyarrow: pip install "
                "'agentic-chunking[corpus]'"
            ) from None
        try:
            parquet = pq.ParquetFile(self.path)
        except Exception as error:  # pyarrow raises its own ArrowInvalid and OSError
            raise InputError(f"{self.path}: not a readable Parquet file ({error})") from None
        names = set(parquet.schema_arrow.names)
        if "document_id" not in names:
            raise InputError(
                f"{self.path}: the Parquet file has no document_id column (it has "
                f"{', '.join(sorted(names))}); give document_id, text (or chunks), metadata"
            )
        row = 0
        for batch in parquet.iter_batches(batch_size=256):
            for record in batch.to_pylist():
                row += 1
                yield parquet_record(record), f"row {row}"


def json_objects(path: Path, *, give: str) -> Iterator[tuple[dict[str, Any], str]]:
    """The JSON objects of the JSON-lines file ``path``, one a line, read one at a time, each
    with its place (``line N``; blank lines skipped). InputError naming the line, ending in
    ``give`` (the way out), for a line that is not JSON or not an object, and for a file
    that cannot be read or is not UTF-8."""
    try:
        stream = path.open(encoding="utf-8-sig")
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror})") from None
    with stream:
        number = 0
        while True:
            try:
                line = stream.readline()
            except UnicodeDecodeError as error:
                raise InputError(
                    f"{path}: after line {number}: not UTF-8 text ({error.reason}); "
                    "save the file as UTF-8"
                ) from None
            if not line:
                return
            number += 1
            if not line.strip():
                continue
            place = f"line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(
                    f"{path}: {place} is not JSON ({error.msg} at column {error.colno}); {give}"
                ) from None
            except RecursionError:
                raise InputError(f"{path}: {place} is nested too deeply; {give}") from None
            if not isinstance(record, dict):
                raise InputError(
                    f"{path}: {place} is a {_json_type(record)}, not an object; {give}"
                )
            yield record, place


def parquet_record(row: dict[str, Any]) -> dict[str, Any]:
    """A Parquet row as a JSONL record: ``metadata`` read from JSON text or key-value pairs
    (a Parquet map), null columns left out (``check_record`` then names what is missing)."""
    record = {k: v for k, v in row.items() if v is not None}
    metadata = record.get("metadata")
    if isinstance(metadata, str):
        with contextlib.suppress(json.JSONDecodeError):  # check_record names it
            record["metadata"] = json.loads(metadata)
    elif isinstance(metadata, list):  # a Parquet map reads as key-value pairs
        record["metadata"] = dict(metadata)
    return record


def file_document(raw: bytes, document_id: str, position: int) -> CorpusDocument:
    """The document of a folder's file: its paragraphs, or failed when it is not text."""
    try:
        text = decode_text(raw, document_id)
    except InputError as error:
        return CorpusDocument.failed(document_id, position, str(error))
    return CorpusDocument.of(
        document_id, position, paragraph_inputs(text), {"source_path": document_id}
    )


def check_record(record: Mapping[str, Any], place: str) -> None:
    """InputError, naming ``place``, unless ``record`` is a document record (see the module)."""
    document_id = record.get("document_id")
    if not isinstance(document_id, str) or not document_id.strip():
        raise InputError(
            f"{place}: document_id is {_shown_value(document_id)}; give every record a "
            "non-empty document_id string"
        )
    has_text, has_chunks = "text" in record, "chunks" in record
    if has_text == has_chunks:
        raise InputError(
            f"{place} (document {quote(document_id)!r}): give either text (a document) or "
            "chunks (Level 4 output), not " + ("both" if has_text else "neither")
        )
    if has_text and not isinstance(record["text"], str):
        raise InputError(
            f"{place} (document {quote(document_id)!r}): text is a "
            f"{_json_type(record['text'])}, not a string"
        )
    if has_chunks and not isinstance(record["chunks"], list):
        raise InputError(
            f"{place} (document {quote(document_id)!r}): chunks is a "
            f"{_json_type(record['chunks'])}, not a list of {{chunk_id, text}} objects"
        )
    metadata = record.get("metadata", {})
    if not isinstance(metadata, dict):
        raise InputError(
            f"{place} (document {quote(document_id)!r}): metadata is a {_json_type(metadata)}, "
            "not an object"
        )


def record_document(record: Mapping[str, Any], position: int, place: str) -> CorpusDocument:
    """The document of a checked record; its own fault (no text) fails it alone."""
    document_id = str(record["document_id"])
    metadata = dict(record.get("metadata") or {})
    if "text" in record:
        inputs = paragraph_inputs(str(record["text"]))
        if not inputs:
            return CorpusDocument.failed(document_id, position, f"{place}: the text is empty")
        return CorpusDocument.of(document_id, position, inputs, metadata)
    chunks: list[AgenticChunkInput] = []
    for number, item in enumerate(record["chunks"], start=1):
        if not isinstance(item, dict):
            return CorpusDocument.failed(
                document_id,
                position,
                f"{place}: chunk {number} is a {_json_type(item)}, not a {{chunk_id, text}} object",
            )
        try:
            chunks.append(AgenticChunkInput.from_dict(item))
        except InputError as error:
            return CorpusDocument.failed(document_id, position, f"{place}: chunk {number}: {error}")
    if not any(c.text.strip() for c in chunks):
        return CorpusDocument.failed(document_id, position, f"{place}: every chunk is empty")
    return CorpusDocument.of(document_id, position, chunks, metadata)


def _json_type(value: object) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(
        type(value), "number" if isinstance(value, int | float) else type(value).__name__
    )


def _shown_value(value: object) -> str:
    return "missing" if value is None else f"{quote(str(value))!r} ({_json_type(value)})"


def open_corpus(path: Path | str) -> CorpusSource:
    """The corpus at ``path`` (InputError when it is none of the shapes of the module)."""
    return CorpusSource(Path(path))
