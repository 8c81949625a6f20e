"""A corpus run's output: one record per output chunk, as JSONL or Parquet, written atomically.

``open_output(path)`` chooses the format by suffix (``.jsonl``/``.ndjson``: one JSON
object a line; ``.parquet``: pyarrow, in row groups). Records are written as they come
(memory holds one row group at most) into a temporary file beside the target
(``_files.open_atomic``, the package's one atomic writer: ``.OUT.tmp-PID-X``), renamed
over the target only by ``commit()``: a run killed or failed before it leaves the previous
file byte for byte, never half of one.

Parquet columns are the record's fields with fixed types (``PARQUET_COLUMNS``); a field not
listed there, and ``Metadata`` (any JSON object), is stored as a JSON string, so every
row group has one schema whatever the documents hold.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from .._errors import InputError
from .._files import open_atomic
from ._documents import JSONL_SUFFIXES, json_objects

OUTPUT_SUFFIXES = (*JSONL_SUFFIXES, ".parquet")
ROW_GROUP = 1000
"""Records per Parquet row group."""


def _parquet_types() -> dict[str, Any]:
    import pyarrow as pa

    strings = pa.list_(pa.string())
    spans = pa.list_(pa.list_(pa.int64()))
    return {
        "ChunkId": pa.string(),
        "DocumentId": pa.string(),
        "ThematicCategory": pa.string(),
        "Propositions": strings,
        "MergedContent": pa.string(),
        "PropositionCount": pa.int64(),
        "CharacterCount": pa.int64(),
        "TokenEstimate": pa.int64(),
        "Hash": pa.string(),
        "SourceChunkIds": strings,
        "PropositionChunkIds": pa.list_(strings),
        "PropositionSpans": pa.list_(spans),
        "Spans": spans,
        "PreviousChunkId": pa.string(),
        "NextChunkId": pa.string(),
        "Part": pa.int64(),
        "PartCount": pa.int64(),
    }


class OutputWriter:
    """Writes records to ``path`` atomically (see the module). Use as a context manager:
    leaving it by an exception discards what was written; ``commit()`` publishes it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.format = "parquet" if path.suffix.lower() == ".parquet" else "jsonl"
        self.written = 0
        self._stream: IO[Any] | None = None
        self._rows: list[Mapping[str, Any]] = []
        self._parquet: Any = None
        self._extra: list[str] | None = None

    def __enter__(self) -> Self:
        self._context: AbstractContextManager[IO[Any]] = open_atomic(
            self.path, binary=self.format == "parquet"
        )
        self._stream = self._context.__enter__()
        return self

    def write(self, record: Mapping[str, Any]) -> None:
        """Add one record (after the ones before it)."""
        assert self._stream is not None, "use OutputWriter as a context manager"
        if self.format == "jsonl":
            self._stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            self._rows.append(record)
            if len(self._rows) >= ROW_GROUP:
                self._flush()
        self.written += 1

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        types = _parquet_types()
        if self._extra is None:  # fixed by the first rows: every later group has this schema
            seen = {k for row in self._rows for k in row}
            self._extra = sorted(k for k in seen if k not in types)
        fields = [pa.field(name, kind) for name, kind in types.items()]
        fields += [pa.field(name, pa.string()) for name in self._extra]
        schema = pa.schema(fields)
        columns: dict[str, list[Any]] = {name: [] for name in schema.names}
        for row in self._rows:
            for name in types:
                columns[name].append(row.get(name))
            for name in self._extra:
                value = row.get(name)
                columns[name].append(
                    None if value is None else json.dumps(value, ensure_ascii=False)
                )
        table = pa.table(columns, schema=schema)
        if self._parquet is None:
            self._parquet = pq.ParquetWriter(self._stream, schema)
        self._parquet.write_table(table)
        self._rows = []

    def commit(self) -> None:
        """Publish the file: every record written is in it, and nothing else."""
        if self.format == "parquet":
            if self._rows or self._parquet is None:
                self._flush()
            self._parquet.close()
        self._context.__exit__(None, None, None)
        self._stream = None

    def discard(self) -> None:
        """Drop what was written: the target stays as it was (or absent)."""
        if self._stream is not None:
            discarded = RuntimeError("discarded")
            self._context.__exit__(RuntimeError, discarded, None)
            self._stream = None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._stream is not None:  # not committed: discard the temporary file
            if kind is None:
                raise RuntimeError("OutputWriter left without commit()")
            self._context.__exit__(kind, error, trace)
            self._stream = None


def publish_failures(failures: OutputWriter, path: Path) -> None:
    """Commit a run's failures file when a document failed; else discard it and remove one
    an earlier run left (nothing failed: no failures file)."""
    if failures.written:
        failures.commit()
        return
    failures.discard()
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def check_output_suffix(path: Path) -> None:
    """InputError unless ``path`` names a JSONL or Parquet file."""
    if path.suffix.lower() not in OUTPUT_SUFFIXES:
        raise InputError(
            f"{path}: the output must end in {', '.join(OUTPUT_SUFFIXES)} (JSONL: one chunk a "
            "line; Parquet: one row a chunk)"
        )


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every record of an output file written here (for tests and tools), in file order;
    Parquet's JSON-string columns are read back as JSON."""
    return [record for record, _ in output_records(path)]


def output_records(path: Path) -> Iterator[tuple[dict[str, Any], str]]:
    """The records of an output file written here, one at a time, in file order, each with
    its place (``line N`` of JSONL, blank lines skipped; ``row N`` of Parquet, read a row
    group at a time, its JSON-string columns read back as JSON): memory holds one row group
    at most. InputError, naming the place, for a line that is not a JSON object, a file
    that is not UTF-8 or not Parquet."""
    if path.suffix.lower() == ".parquet":
        yield from _parquet_output_records(path)
        return
    yield from json_objects(path, give="give the JSONL 'corpus' writes, one chunk a line")


def _parquet_output_records(path: Path) -> Iterator[tuple[dict[str, Any], str]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            f"{path}: reading Parquet needs pyarrow: pip install 'agentic-chunking[corpus]'"
        ) from None
    try:
        parquet = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises its own ArrowInvalid and OSError
        raise InputError(f"{path}: not a readable Parquet file ({error})") from None
    fixed = set(_parquet_types())
    row = 0
    for batch in parquet.iter_batches(batch_size=ROW_GROUP):
        for values in batch.to_pylist():
            row += 1
            record: dict[str, Any] = {}
            for key, value in values.items():
                if key in fixed or value is None:
                    record[key] = value
                    continue
                try:
                    record[key] = json.loads(value)
                except (TypeError, json.JSONDecodeError):
                    raise InputError(
                        f"{path}: row {row}: the column {key!r} is not JSON text; give the "
                        "Parquet 'corpus' writes"
                    ) from None
            yield record, f"row {row}"
