"""A corpus's documents, read one at a time: a folder of text files, a JSONL or a Parquet file.

``open_corpus(path)`` names the source; ``CorpusSource.scan()`` reads it once without
keeping any text (every id, its position, the shape of every line) so that a bad line or a
duplicate document id is refused before any model call; ``CorpusSource.documents()`` then
streams the documents in input order, so memory stays bounded by what the caller holds.

Shapes:
- a folder: every regular file under it (any extension or none; hidden files and folders
  skipped), in sorted path order; the id is the path relative to the folder (``a/b.txt``);
  the text is split into paragraph input chunks (``paragraph_inputs``); metadata
  ``{"source_path": ...}``. A link to a file is read as a file (under its own path); a link
  to a folder is not followed; a broken link is a document that fails (it cannot be read);
  a FIFO, socket or device is never opened. Every file is read as it is, byte for byte
  (``read_file_document``, the one reading every engine calls): a compressed file (``.gz``
  and the like) is not decompressed, since its spans would point into text the file does
  not hold. A file that is not text (binary, compressed, not UTF-8, empty) is a document
  that fails on its own with ``error_kind`` ``NOT_TEXT``, never the run.
- JSONL: one object a line, ``{document_id, text, metadata}`` or Level 4's output
  ``{document_id, chunks: [{chunk_id, text, ...}], metadata}``; blank lines skipped.
- Parquet (``.parquet``): the same columns; ``metadata`` a struct, a map or a JSON string.

``include``/``exclude`` globs (``Selection``) choose documents by id (a folder's: the path
under it): a glob without ``/`` matches a file's name at any depth, one with ``/`` the whole
path; ``*`` and ``?`` stay within a name, ``**`` crosses folders.

Every document carries ``document_sha256``: the SHA-256 of what decides its chunks and
records (its input chunks' ids and texts, and its metadata), for the ledger.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .._errors import InputError
from .._files import decode_text
from .._models import AgenticChunkInput
from .._shown import QUOTE_LIMIT, quote, redact
from ..pipeline import paragraph_inputs

JSONL_SUFFIXES = (".jsonl", ".ndjson")
PARQUET_SUFFIXES = (".parquet",)
NOT_TEXT = "not_text"
"""The ``error_kind`` of a folder's file that is not text (binary, compressed, not UTF-8,
empty): listed, but not a failure of the run."""
UNREADABLE = "input"
"""The ``error_kind`` of a document that cannot be read or holds no text of its own."""
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", "gunzip"),
    (b"BZh", "bzip2", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"PK\x03\x04", "zip", "unzip"),
)
"""Magic numbers of compressed files: (the start of the file, the format, the tool)."""


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
    error_kind: str = UNREADABLE
    """With ``error``: ``NOT_TEXT`` (a file that is not text) or ``UNREADABLE``."""

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
    def failed(
        cls, document_id: str, position: int, error: str, kind: str = UNREADABLE
    ) -> CorpusDocument:
        return cls(document_id, position, (), {}, error, "", kind)


@dataclass(frozen=True, slots=True)
class Selection:
    """Which documents a corpus gives, by id: those matching an ``include`` glob (all, when
    none is given) and no ``exclude`` glob (see the module for the glob's shape)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for option, globs in (("--include", self.include), ("--exclude", self.exclude)):
            for glob in globs:
                if not glob.strip("/"):
                    raise InputError(
                        f"{option} {glob!r}: an empty glob matches nothing; give a file name "
                        "or path glob such as '*.md' or 'notes/**/*.txt'"
                    )

    def admits(self, document_id: str) -> bool:
        """Whether the document ``document_id`` is in the selection."""
        if self.include and not any(_matches(g, document_id) for g in self.include):
            return False
        return not any(_matches(g, document_id) for g in self.exclude)


def _matches(glob: str, document_id: str) -> bool:
    if "/" not in glob:  # a name: at any depth
        return _glob_regex(glob).fullmatch(document_id.rsplit("/", 1)[-1]) is not None
    return _glob_regex(glob.lstrip("/")).fullmatch(document_id) is not None


@functools.lru_cache(maxsize=256)
def _glob_regex(glob: str) -> re.Pattern[str]:
    """``glob`` as a regular expression: ``**/`` any folders (or none), ``**`` anything,
    ``*`` and ``?`` within a name, ``[...]`` a class."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and (end := glob.find("]", i + 2)) != -1:
            inner = glob[i + 1 : end]
            negated = inner[0] in "!^"
            body = re.escape(inner[1:] if negated else inner).replace("\\-", "-")
            out.append(f"[^/{body}]" if negated else f"[{body}]")
            i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


@dataclass(frozen=True, slots=True)
class Start:
    """Where a run of a JSONL or Parquet corpus's documents starts (``CorpusSource.starts``)."""

    position: int
    """The first document's place in input order."""
    offset: int = 0
    """JSONL: the byte offset of its line; Parquet: its row's index (from 0)."""
    line: int = 0
    """JSONL: the number of lines before it; Parquet: the number of rows before it."""


@dataclass(frozen=True, slots=True)
class _Record:
    """A record as read: the object, where it is (``line 3``), its offset and line number."""

    record: Mapping[str, Any]
    place: str
    offset: int
    line: int

    @property
    def document_id(self) -> str:
        return str(self.record.get("document_id"))


@dataclass(frozen=True, slots=True)
class Scan:
    """What a first pass over the corpus found: the ids in input order."""

    document_ids: tuple[str, ...]
    left_out: int = 0
    """Documents (files, records) the selection left out."""


class CorpusSource:
    """A corpus on disk (see the module). Re-iterable: each ``documents()`` reads anew."""

    def __init__(self, path: Path, selection: Selection | None = None) -> None:
        self.path = path
        self.selection = selection if selection is not None else Selection()
        if not path.exists():
            raise InputError(f"{path}: no such file or folder; check the path")
        if path.is_dir():
            self.kind = "folder"
        elif not path.is_file():  # a FIFO, socket or device: opening it could block for ever
            raise InputError(
                f"{path}: not a regular file (a named pipe, socket or device): a corpus is "
                "read twice, once to check it before any call and once to chunk it; save it "
                "to a file first (cat PIPE > corpus.jsonl) and give that"
            )
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
        where: dict[str, tuple[str, str]] = {}  # by the id as the output writes it
        left_out = 0
        for document_id, place in self._ids():
            if not self.selection.admits(document_id):
                left_out += 1
                continue
            shown = document_id.strip()  # the output's DocumentId and ChunkIds: no spaces
            if shown in where:
                first, first_place = where[shown]
                if first == document_id:
                    raise InputError(
                        f"{self.path}: document id {quote(document_id)!r} is given twice "
                        f"({first_place} and {place}); give every document its own id"
                    )
                raise InputError(
                    f"{self.path}: document ids {_exact(first)} ({first_place}) and "
                    f"{_exact(document_id)} ({place}) are the same id in the output, which "
                    "drops the spaces at either end of an id; give every document an id of its "
                    "own"
                )
            where[shown] = (document_id, place)
            ids.append(document_id)
        if not ids and left_out:
            raise InputError(
                f"{self.path}: no document is left: --include/--exclude leave out all "
                f"{left_out:,}; check the globs (a glob without '/' matches a file's name, "
                "one with '/' its path under IN)"
            )
        if not ids:
            what = "file (hidden ones are skipped)" if self.kind == "folder" else "record"
            raise InputError(
                f"{self.path}: holds no document: not one {what}; check the path, or give a "
                "corpus with at least one document"
            )
        return Scan(tuple(ids), left_out)

    def documents(self, start: Start | None = None) -> Iterator[CorpusDocument]:
        """The documents in input order, read one at a time; from ``start`` (one of
        ``starts()``) on, for a JSONL or Parquet corpus, when given."""
        if self.kind == "folder":
            if start is not None:
                raise ValueError("a folder's documents are read by id: read_file_document")
            yield from self._folder_documents()
            return
        chosen = (r for r in self._records(start) if self.selection.admits(r.document_id))
        for position, record in enumerate(chosen, start=start.position if start else 0):
            yield record_document(record.record, position, record.place)

    def starts(self, every: int) -> Iterator[Start]:
        """Where each run of ``every`` chosen documents of a JSONL or Parquet corpus starts,
        in input order: so that a worker reads its own run through this reader
        (``islice(documents(start), every)``), the documents and failures every engine
        reads being the same."""
        if self.kind == "folder":
            raise ValueError("a folder's documents are read by id: read_file_document")
        chosen = (r for r in self._records() if self.selection.admits(r.document_id))
        for position, record in enumerate(chosen):
            if position % every == 0:
                yield Start(position, record.offset, record.line - 1)

    # -- folder --------------------------------------------------------------------------

    def _all_files(self) -> list[str]:
        """Every file's id (its path under the folder), in sorted order, before selection."""
        found: list[str] = []
        for top, folders, names in os.walk(self.path):  # links to folders: not followed
            folders[:] = [name for name in folders if not name.startswith(".")]
            for name in names:
                path = Path(top, name)
                # a regular file, a link to one, or a broken link (a failed document); never
                # a FIFO, socket or device, which reading could block on
                if not name.startswith(".") and (path.is_file() or not path.exists()):
                    found.append(path.relative_to(self.path).as_posix())
        return sorted(found)

    def _files(self) -> list[str]:
        return [d for d in self._all_files() if self.selection.admits(d)]

    def _folder_documents(self) -> Iterator[CorpusDocument]:
        for position, document_id in enumerate(self._files()):
            yield self.read_file_document(document_id, position)

    def read_file_document(self, document_id: str, position: int) -> CorpusDocument:
        """The document of the folder's file ``document_id`` (its path under the folder),
        read as it is: the one reading of a file, for every engine (see the module)."""
        text = self.read_file_text(document_id, position)
        if isinstance(text, CorpusDocument):
            return text
        return text_document(text, document_id, position)

    def read_file_text(self, document_id: str, position: int) -> str | CorpusDocument:
        """The whole text of the folder's file ``document_id``, or the failed document when
        it cannot be read or is not text: what ``read_file_document`` cuts into paragraphs,
        for a reader that takes the text whole (``split``)."""
        path = self.path / document_id
        try:
            raw = path.read_bytes()
        except OSError as error:
            broken = path.is_symlink() and not path.exists()
            reason = "a link to nothing (a broken symlink)" if broken else error.strerror
            return CorpusDocument.failed(
                document_id, position, f"{document_id}: cannot be read: {reason or error}"
            )
        return file_text(raw, document_id, position)

    def records(self) -> Iterator[tuple[Mapping[str, Any], str]]:
        """A JSONL or Parquet corpus's chosen records as read, each with its place
        (``line 3``), in input order: for a reader that needs the record itself (``split``
        takes a document's whole text). Empty for a folder."""
        if self.kind == "folder":
            return
        for record in self._records():
            if self.selection.admits(record.document_id):
                yield record.record, record.place

    def files(self) -> list[Path]:
        """A folder corpus's chosen files, in input order (empty for JSONL or Parquet)."""
        return [self.path / d for d in self._files()] if self.kind == "folder" else []

    # -- records -------------------------------------------------------------------------

    def _ids(self) -> Iterator[tuple[str, str]]:
        if self.kind == "folder":
            for document_id in self._all_files():
                yield document_id, f"the file {_exact(document_id)}"
            return
        for record in self._records():
            check_record(record.record, record.place)
            yield record.document_id, record.place

    def _records(self, start: Start | None = None) -> Iterator[_Record]:
        if self.kind == "jsonl":
            return self._jsonl_records(start or Start(0))
        return self._parquet_records(start or Start(0))

    def _jsonl_records(self, start: Start) -> Iterator[_Record]:
        return _json_lines(
            self.path, start, give="give one {document_id, text, metadata} object a line"
        )

    def _parquet_records(self, start: Start) -> Iterator[_Record]:
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
        groups, row = 0, 0  # the row groups before the one holding the start, their rows
        while groups < parquet.num_row_groups:
            rows = parquet.metadata.row_group(groups).num_rows
            if row + rows > start.offset:
                break
            groups, row = groups + 1, row + rows
        chosen = range(groups, parquet.num_row_groups)
        for batch in parquet.iter_batches(batch_size=256, row_groups=list(chosen)):
            for record in batch.to_pylist():
                row += 1
                if row > start.offset:
                    yield _Record(parquet_record(record), f"row {row}", row - 1, row)


def _lines(stream: IO[bytes], start: Start) -> Iterator[tuple[int, int, bytes]]:
    """(byte offset, line number, bytes) of each line from ``start`` on: a line ends at
    ``\n``, ``\r\n`` or ``\r``, as Python's text files read them."""
    offset, number = start.offset, start.line
    while block := stream.readline():  # to a "\n": a "\r\n" is never cut in two
        for line in block.splitlines(keepends=True):
            number += 1
            yield offset, number, line
            offset += len(line)


def json_objects(path: Path, *, give: str) -> Iterator[tuple[dict[str, Any], str]]:
    """The JSON objects of the JSON-lines file ``path``, one a line, read one at a time, each
    with its place (``line N``; blank lines skipped, a byte-order mark allowed). InputError
    naming the line, ending in ``give`` (the way out), for a line that is not JSON or not an
    object, and for a file that cannot be read or is not UTF-8. The one JSON-lines reading:
    a corpus's records and a corpus output's are read by it alike."""
    for found in _json_lines(path, Start(0), give=give):
        yield dict(found.record), found.place


def _json_lines(path: Path, start: Start, *, give: str) -> Iterator[_Record]:
    try:
        stream = path.open("rb")
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror})") from None
    with stream:
        stream.seek(start.offset)
        for offset, number, raw in _lines(stream, start):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise InputError(
                    f"{path}: line {number}: not UTF-8 text ({error.reason}); save the file "
                    "as UTF-8"
                ) from None
            if offset == 0:
                line = line.removeprefix("\ufeff")
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
            yield _Record(record, place, offset, number)


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
    """The document of a folder's file: its paragraphs, or failed (``NOT_TEXT``) when it
    is not text; a compressed file is named as such (it is never decompressed)."""
    text = file_text(raw, document_id, position)
    if isinstance(text, CorpusDocument):
        return text
    return text_document(text, document_id, position)


def text_document(text: str, document_id: str, position: int) -> CorpusDocument:
    """The document of a folder's file whose text was read: its paragraphs."""
    return CorpusDocument.of(
        document_id, position, paragraph_inputs(text), {"source_path": document_id}
    )


def file_text(raw: bytes, document_id: str, position: int) -> str | CorpusDocument:
    """A folder's file's bytes as text, or its failed document (``NOT_TEXT``) when it is
    not text; a compressed file is named as such (it is never decompressed)."""
    try:
        return decode_text(raw, document_id)
    except InputError as error:
        reason = str(error)
        for magic, kind, tool in _COMPRESSED:
            if raw.startswith(magic):
                reason = (
                    f"{document_id}: compressed ({kind}), not text: a corpus's files are read "
                    f"as they are; decompress it ({tool}) to chunk it, or leave it out with "
                    "--exclude"
                )
        return CorpusDocument.failed(document_id, position, reason, NOT_TEXT)


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
    numbers: dict[str, int] = {}  # each chunk_id's first chunk
    for number, item in enumerate(record["chunks"], start=1):
        if not isinstance(item, dict):
            return CorpusDocument.failed(
                document_id,
                position,
                f"{place}: chunk {number} is a {_json_type(item)}, not a {{chunk_id, text}} object",
            )
        try:
            chunk = AgenticChunkInput.from_dict(item)
        except InputError as error:
            return CorpusDocument.failed(document_id, position, f"{place}: chunk {number}: {error}")
        if chunk.chunk_id in numbers:  # provenance is by chunk id: the document's own fault
            return CorpusDocument.failed(
                document_id,
                position,
                f"{place}: chunk {number}: chunk_id {_exact(chunk.chunk_id)} is given twice "
                f"(chunk {numbers[chunk.chunk_id]} has it too); give every chunk of a document "
                "its own chunk_id",
            )
        numbers[chunk.chunk_id] = number
        chunks.append(chunk)
    if not any(c.text.strip() for c in chunks):
        return CorpusDocument.failed(document_id, position, f"{place}: every chunk is empty")
    return CorpusDocument.of(document_id, position, chunks, metadata)


def _exact(text: str) -> str:
    """``text`` quoted exactly (its spaces kept, as ``repr`` shows them), redacted and cut."""
    shown = repr(redact(text[:QUOTE_LIMIT]))
    return shown + (f" ({len(text):,} characters in all)" if len(text) > QUOTE_LIMIT else "")


def _json_type(value: object) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(
        type(value), "number" if isinstance(value, int | float) else type(value).__name__
    )


def _shown_value(value: object) -> str:
    return "missing" if value is None else f"{quote(str(value))!r} ({_json_type(value)})"


def open_corpus(
    path: Path | str, *, include: Iterable[str] = (), exclude: Iterable[str] = ()
) -> CorpusSource:
    """The corpus at ``path`` (InputError when it is none of the shapes of the module), its
    documents chosen by the ``include``/``exclude`` globs (``Selection``)."""
    return CorpusSource(Path(path), Selection(tuple(include), tuple(exclude)))
