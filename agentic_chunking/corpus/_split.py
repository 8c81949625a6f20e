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

``split_corpus_to(source, output, ...)`` is the whole run ``split -o OUT.jsonl`` makes: the
records into OUT (written atomically), the failures beside it, the ledger's lock held for
the run; it returns a ``SplitRun`` record of what it did, which the caller words.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._entry import Terminated
from .._errors import InputError
from .._files import remove_stale_temps
from .._shown import redact
from ._documents import UNREADABLE, CorpusSource, Scan, check_record, open_corpus
from ._ledger import Ledger, LedgerError, RunLock
from ._outputs import OutputWriter, publish_failures
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
        kept = _kept(ledger, text, digest, settings)
        if kept is not None:
            yield kept
            continue
        result = _split(active, text, chunk_prefix, on_split)
        if ledger is not None:
            _record(ledger, settings, result, digest)
        yield result


def _kept(ledger: Ledger | None, text: _Text, digest: str, settings: str) -> DocumentResult | None:
    """The document as skipped, with its record from the ledger, when the ledger holds it
    as done with the same text hash and settings hash; else None (split it)."""
    if ledger is None:
        return None
    entry = ledger.finished(text.document_id)
    if (
        entry is not None
        and entry.status == "done"
        and entry.document_sha256 == digest
        and entry.settings_sha256 == settings
        and len(entry.records) == 1
    ):
        return DocumentResult(text.document_id, text.position, "skipped", records=entry.records)
    return None


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


@dataclass(frozen=True, slots=True)
class SplitRun:
    """What ``split_corpus_to`` did: the documents split, skipped (done before) and failed,
    those set aside (files that are not text: listed in the failures file, not failed), the
    chunks written, the chunks whose requested overlap was not met, and the seconds the
    documents took."""

    done: int
    skipped: int
    failed: int
    set_aside: tuple[str, ...]
    chunks: int
    short_overlaps: int
    seconds: float

    @property
    def documents(self) -> int:
        """Every document of the run, set aside ones included."""
        return self.done + self.skipped + self.failed + len(self.set_aside)


def short_overlaps(
    splitter: SemanticSplitter, text: str, chunks: Sequence[SemanticChunk], requested: int
) -> int:
    """How many chunks after the first repeat fewer than ``requested`` segments."""
    if requested == 0:
        return 0
    return sum(
        len(splitter.segments(text[chunk.start : chunk.body_start])) < requested
        for chunk in chunks[1:]
    )


def split_corpus_to(
    source: CorpusSource,
    output: Path,
    *,
    splitter: SemanticSplitter,
    ledger_path: Path,
    failures_path: Path,
    chunk_prefix: str = DEFAULT_CHUNK_PREFIX,
    progress: Callable[[int], AbstractContextManager[Callable[[], None]]] | None = None,
    on_stopped: Callable[[Ledger], None] | None = None,
) -> SplitRun:
    """Split every document of ``source`` into ``output`` (Level 4 JSONL, written
    atomically), the failed ones into ``failures_path`` (kept only when one failed), each
    finished document kept in the ledger at ``ledger_path``; return what was done.

    Before any document is split: the corpus is scanned (a bad record or a duplicate id
    raises InputError), the ledger's RunLock taken (a second run on it raises InputError)
    and what a killed run left beside the outputs removed. ``progress(total)`` opens the
    caller's progress display, which yields the function called once a document.
    Interrupted (KeyboardInterrupt, Terminated), ``on_stopped(ledger)`` is called before the
    exception goes on, ``output`` left as it was. A write that fails raises InputError
    naming the file and the ledger that keeps the finished documents.
    """
    scan = source.scan()  # a bad record or a duplicate id: refused before any work
    lock = RunLock(ledger_path)
    try:
        lock.acquire()  # a second run on this OUT: refused before any work
        ledger = Ledger(ledger_path)
    except LedgerError as error:
        lock.release()
        raise InputError(str(error)) from None
    for target in (output, failures_path):  # what a run killed mid-write left beside OUT
        remove_stale_temps(target)
    tally = _SplitTally()
    started = time.monotonic()
    display = progress(len(scan.document_ids)) if progress else contextlib.nullcontext(_nothing)
    with display as bar:
        try:
            _write_split(
                source, scan, output, failures_path, splitter, ledger, chunk_prefix, bar, tally
            )
        except (KeyboardInterrupt, Terminated):
            if on_stopped is not None:
                on_stopped(ledger)
            raise
        except OSError as error:
            raise InputError(
                f"cannot write {error.filename or output} ({error.strerror or error}); the "
                f"finished documents are kept in the ledger {ledger_path}: free room and "
                "rerun the same command (no finished document is split again)"
            ) from None
        finally:
            ledger.close()
            lock.release()
    return tally.run(time.monotonic() - started)


def _nothing() -> None:
    """The progress callback when there is no display."""


@dataclass(slots=True)
class _SplitTally:
    """The counts of a ``split_corpus_to`` run as it goes."""

    counts: dict[str, int] = field(default_factory=lambda: {"done": 0, "skipped": 0, "failed": 0})
    set_aside: list[str] = field(default_factory=list)
    chunks: int = 0
    short: int = 0

    def add(self, result: DocumentResult) -> None:
        """Count one finished document."""
        if result.status == "failed" and not result.is_failure:
            self.set_aside.append(result.document_id)
        else:
            self.counts[result.status] += 1
        self.chunks += sum(len(record["chunks"]) for record in result.records)

    def run(self, seconds: float) -> SplitRun:
        """The finished run's record."""
        return SplitRun(
            done=self.counts["done"],
            skipped=self.counts["skipped"],
            failed=self.counts["failed"],
            set_aside=tuple(self.set_aside),
            chunks=self.chunks,
            short_overlaps=self.short,
            seconds=seconds,
        )


def _write_split(
    source: CorpusSource,
    scan: Scan,
    output: Path,
    failures_path: Path,
    splitter: SemanticSplitter,
    ledger: Ledger,
    chunk_prefix: str,
    bar: Callable[[], None],
    tally: _SplitTally,
) -> None:
    """Split the documents into ``output`` and the failures file, counted in ``tally``;
    both files are committed only when every document is through."""

    def overlaps(splitter: SemanticSplitter, text: str, made: list[SemanticChunk]) -> None:
        tally.short += short_overlaps(splitter, text, made, splitter.overlap_sentences)

    with OutputWriter(output) as out, OutputWriter(failures_path) as failures:
        for result in split_corpus(
            source, splitter, ledger=ledger, chunk_prefix=chunk_prefix, scan=scan, on_split=overlaps
        ):
            tally.add(result)
            for record in result.records:
                out.write(record)
            if result.status == "failed":
                failures.write(result.failure_record())
            bar()
        out.commit()
        publish_failures(failures, failures_path)
