"""Many documents through the one per-document pipeline, concurrently, with resume by document.

``process_document`` is the one function every engine calls for a document (the local
threads here, the batch path, Ray's workers): it runs the pipeline's own
``chunk_text_agentic`` and turns its answer, or its failure, into a ``DocumentResult``
(records ready to write, or the error with every proposition extracted before it).

``chunk_corpus`` runs a corpus: documents stream in (at most ``window`` read ahead of the
one being yielded), ``max_documents`` at once on threads, one shared client (so one
``RequestLimits`` gate for every request of the run) and one reply cache; results come out
in input order whatever the concurrency. Memory follows the documents in flight, not the
corpus: the checks' memo caches, which hold the texts of finished documents, are cleared
every FORGET_EVERY documents. With a ``BatchClient``, each document in flight is one of its
participants, and so is the reading of the next document: a round of batches is submitted
only when every document in flight waits on it and none is being read, so one round holds
one request kind of every document in flight (at most ``max_documents``, which also bounds
the documents read ahead). With a ``Ledger``, each finished document is
recorded as it finishes, and a document the ledger holds as done with the same input and
settings is skipped (its records come from the ledger, no call is made). A configuration
error (no key, a key rejected, an unknown model) stops the run at once: it is the run's
fault, not the document's; every other failure fails its document only.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import threading
from collections import deque
from collections.abc import Generator, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .._entry import Terminated
from .._errors import ConfigurationError, InputError, ModelCallError
from .._models import AgenticResponse, CallUsage
from .._shown import redact, redact_data
from ..checks import clear_caches
from ..client import (
    BatchClient,
    BatchParticipant,
    calls_cost_usd,
    check_max_tokens,
    parse_model,
)
from ..pipeline._cache import ReplyCache
from ..pipeline._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH
from ..pipeline._prompts import PROMPT_VERSIONS
from ..pipeline._run import (
    DEFAULT_EXTRACTION_MAX_TOKENS,
    DEFAULT_GROUPING_MAX_TOKENS,
    DEFAULT_MAX_REPAIR_ATTEMPTS,
    chunk_text_agentic,
)
from ._documents import NOT_TEXT, UNREADABLE, CorpusDocument
from ._ledger import Ledger

if TYPE_CHECKING:
    from ..client._providers import AnyClient

FORGET_EVERY = 256
"""Documents after which the checks' memo caches are cleared (``checks.clear_caches``): they
hold the texts of finished documents, which no later document asks for."""
RECORD_FORMAT = 1
"""The version of an output record's layout, part of the settings hash: a new layout redoes
every document (from the reply cache, at no cost)."""

Status = Literal["done", "skipped", "failed"]


@dataclass(frozen=True, slots=True)
class CorpusSettings:
    """What decides a document's chunks, besides its text: hashed for the ledger."""

    model: str
    max_tokens_per_batch: int = DEFAULT_MAX_TOKENS_PER_BATCH
    extraction_max_tokens: int = DEFAULT_EXTRACTION_MAX_TOKENS
    grouping_max_tokens: int = DEFAULT_GROUPING_MAX_TOKENS
    max_chunk_tokens: int | None = None
    max_repair_attempts: int = DEFAULT_MAX_REPAIR_ATTEMPTS

    def check(self) -> None:
        """Raise InputError when no call could be made with these settings (a max_tokens
        above what one non-streaming call to the model may ask for), naming the option:
        the run's fault, found before any document rather than failing each one."""
        check_max_tokens(
            self.model,
            extraction_max_tokens=self.extraction_max_tokens,
            grouping_max_tokens=self.grouping_max_tokens,
        )

    def sha256(self) -> str:
        """The hex SHA-256 of these settings, the prompts' versions and the record format."""
        payload = {
            **asdict(self),
            "prompts": dict(sorted(PROMPT_VERSIONS.items())),
            "record_format": RECORD_FORMAT,
        }
        text = json.dumps(payload, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class DocumentResult:
    """What became of one document: ``done`` (records written), ``skipped`` (done by an
    earlier run; records from the ledger) or ``failed`` (``error``, ``error_kind`` and the
    propositions extracted before the failure in ``extracted``)."""

    document_id: str
    position: int
    status: Status
    records: tuple[dict[str, Any], ...] = ()
    error: str | None = None
    error_kind: str | None = None
    """``input`` (unreadable, no text), ``not_text`` (a folder's file that is not text:
    binary, compressed, not UTF-8, empty; listed, not a failure of the run: ``is_failure``),
    ``model_call`` (the server failed), ``pipeline`` (a reply that was cut, refused or
    unreadable), ``ledger``."""
    extracted: tuple[str, ...] = ()
    calls: tuple[CallUsage, ...] = field(default=())
    cost_usd: float | None = 0.0

    @property
    def is_failure(self) -> bool:
        """Whether the document failed the run: failed, and not merely a file that is not
        text (``not_text``: set aside, listed in the failures all the same)."""
        return self.status == "failed" and self.error_kind != NOT_TEXT

    @property
    def paid_calls(self) -> int:
        return sum(1 for c in self.calls if not c.cached)

    @property
    def input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.calls if not c.cached)

    @property
    def output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.calls if not c.cached)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (to pass between processes: Ray's workers)."""
        return {
            "document_id": self.document_id,
            "position": self.position,
            "status": self.status,
            "records": list(self.records),
            "error": self.error,
            "error_kind": self.error_kind,
            "extracted": list(self.extracted),
            "calls": [c.to_dict() for c in self.calls],
            "cost_usd": self.cost_usd,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DocumentResult:
        """The result ``to_dict`` gave."""
        return cls(
            document_id=str(data["document_id"]),
            position=int(data["position"]),
            status=data["status"],
            records=tuple(data["records"]),
            error=data["error"],
            error_kind=data["error_kind"],
            extracted=tuple(data["extracted"]),
            calls=tuple(CallUsage.from_dict(c) for c in data["calls"]),
            cost_usd=data["cost_usd"],
        )

    def failure_record(self) -> dict[str, Any]:
        """The line of ``OUT.failures.jsonl`` for a failed document (redacted)."""
        record: dict[str, Any] = redact_data(
            {
                "document_id": self.document_id,
                "error_kind": self.error_kind,
                "error": self.error,
                "extracted_propositions": list(self.extracted),
            }
        )
        return record


def process_document(
    document: CorpusDocument,
    settings: CorpusSettings,
    *,
    client: AnyClient,
    cache: ReplyCache | None = None,
    max_concurrency: int = 4,
) -> DocumentResult:
    """Chunk one document with ``chunk_text_agentic`` (see the module). Raises
    ConfigurationError only (the run's fault); every other failure is in the result, an
    input the pipeline refuses (InputError) too: it is that document's fault."""
    if document.error is not None:
        return DocumentResult(
            document.document_id,
            document.position,
            "failed",
            error=document.error,
            error_kind=document.error_kind,
        )
    try:
        response = chunk_text_agentic(
            document.inputs,
            document.document_id,
            client=client,
            model=settings.model,
            max_tokens_per_batch=settings.max_tokens_per_batch,
            extraction_max_tokens=settings.extraction_max_tokens,
            grouping_max_tokens=settings.grouping_max_tokens,
            max_concurrency=max_concurrency,
            max_repair_attempts=settings.max_repair_attempts,
            max_chunk_tokens=settings.max_chunk_tokens,
            cache=cache,
            metadata=document.metadata,
        )
        kind = "pipeline"
    except ModelCallError as error:
        failed = error.response if isinstance(error.response, AgenticResponse) else None
        response = failed or AgenticResponse.failure(str(error))
        kind = "model_call"
    except InputError as error:  # the document's own input (never the run's configuration)
        return DocumentResult(
            document.document_id,
            document.position,
            "failed",
            error=redact(f"{document.document_id}: {error}"),
            error_kind=UNREADABLE,
        )
    cost = calls_cost_usd(parse_model(settings.model).name, response.calls)
    if not response.is_success:
        extracted = tuple(p for batch in response.extracted for p in batch.propositions)
        return DocumentResult(
            document.document_id,
            document.position,
            "failed",
            error=redact(response.error_detail),
            error_kind=kind,
            extracted=extracted,
            calls=response.calls,
            cost_usd=cost,
        )
    return DocumentResult(
        document.document_id,
        document.position,
        "done",
        records=tuple(chunk.to_dict() for chunk in response.chunks),
        calls=response.calls,
        cost_usd=cost,
    )


def record_result(
    ledger: Ledger, document: CorpusDocument, settings_sha256: str, result: DocumentResult
) -> None:
    """Keep a finished (done or failed) document in the ledger, in one transaction."""
    ledger.record(
        document_id=result.document_id,
        document_sha256=document.document_sha256,
        settings_sha256=settings_sha256,
        status="done" if result.status == "done" else "failed",
        records=result.records,
        failure=None if result.status == "done" else result.failure_record(),
        calls=result.paid_calls,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        cost_usd=result.cost_usd,
    )


def skipped_result(
    ledger: Ledger | None, document: CorpusDocument, settings_sha256: str
) -> DocumentResult | None:
    """The document as an earlier run finished it, when the ledger holds it as done with
    the same input and settings; else None (it is to be done)."""
    if ledger is None or document.error is not None:
        return None
    entry = ledger.finished(document.document_id)
    if (
        entry is None
        or entry.status != "done"
        or entry.document_sha256 != document.document_sha256
        or entry.settings_sha256 != settings_sha256
    ):
        return None
    return DocumentResult(document.document_id, document.position, "skipped", records=entry.records)


def chunk_corpus(
    documents: Iterable[CorpusDocument],
    settings: CorpusSettings,
    *,
    client: AnyClient,
    cache: ReplyCache | None = None,
    ledger: Ledger | None = None,
    max_documents: int = 16,
    max_concurrency: int = 4,
    window: int | None = None,
) -> Generator[DocumentResult]:
    """Chunk ``documents`` and yield one DocumentResult each, in input order (see the module).

    ``max_documents`` documents run at once; ``max_concurrency`` bounds the calls within a
    document (the client's RequestLimits bounds the run's). At most ``window`` documents
    (default ``2 * max_documents``) are read ahead of the one being yielded. Raises
    InputError before any document when no call could be made (``settings.check``), and
    ConfigurationError (after the documents already finished are recorded) when the run
    cannot go on. When the caller stops reading (``close()``, or an error of its own), no
    further document starts and those in flight finish first (recorded, their paid
    replies cached), so close the iterator before the client; a stop signal (Ctrl-C,
    SIGTERM) leaves them at once.
    """
    settings.check()
    settings_sha256 = settings.sha256()
    ahead = window or 2 * max_documents
    if isinstance(client, BatchClient):  # a thread for every document submitted: none
        ahead = min(ahead, max(1, max_documents) - 1)  # waits for one behind a round
    stop = threading.Event()
    joined: set[BatchParticipant] = set()  # participants whose document has not ended

    def run(document: CorpusDocument, participant: BatchParticipant | None) -> DocumentResult:
        with participant or _NOT_BATCHED:
            joined.discard(participant)
            if stop.is_set():
                raise _Stopped
            try:
                result = process_document(
                    document, settings, client=client, cache=cache, max_concurrency=max_concurrency
                )
            except ConfigurationError:
                stop.set()
                raise
            if ledger is not None:
                record_result(ledger, document, settings_sha256, result)
            return result

    idled = itertools.count(1)

    def forget() -> None:
        """With a batch client, every document in flight is worked on at once: the checks'
        caches are cleared every FORGET_EVERY times a document comes to wait on a round,
        not only as documents are yielded, so they hold the work of about that many."""
        if next(idled) % FORGET_EVERY == 0:
            clear_caches()

    def start(document: CorpusDocument) -> Future[DocumentResult]:
        if not isinstance(client, BatchClient):
            return pool.submit(run, document, None)
        participant = client.participant(forget)  # working from now, before its thread starts
        joined.add(participant)
        return pool.submit(run, document, participant)

    pending: deque[tuple[CorpusDocument, Future[DocumentResult] | DocumentResult]] = deque()
    pool = ThreadPoolExecutor(max(1, max_documents), thread_name_prefix="corpus")
    yielded = 0

    def next_result() -> DocumentResult:
        nonlocal yielded
        yielded += 1
        if yielded % FORGET_EVERY == 0:  # memory follows the documents in flight
            clear_caches()
        return _result(pending.popleft()[1])

    # reading the next document: no round goes without it; waiting for a result (or for
    # the caller, between two results) is idle
    reader = client.participant() if isinstance(client, BatchClient) else None
    resting = reader.idle if reader is not None else contextlib.nullcontext
    try:
        for document in documents:
            skipped = skipped_result(ledger, document, settings_sha256)
            pending.append((document, skipped if skipped else start(document)))
            while len(pending) > ahead or (pending and _ready(pending[0][1])):
                with resting():
                    yield next_result()
        if reader is not None:
            reader.leave()
        while pending:
            yield next_result()
    except BaseException as error:  # GeneratorExit too: the caller stopped reading
        stop.set()  # no document starts; those in flight finish, their replies kept,
        # unless this is a stop signal (Ctrl-C, SIGTERM), which leaves them at once: a
        # call that hangs or waits for the rate limit must not hold the stop
        stopping = isinstance(error, (KeyboardInterrupt, Terminated))
        pool.shutdown(wait=not stopping, cancel_futures=True)
        raise
    finally:
        for participant in [*joined, *([reader] if reader else [])]:  # those never ended
            participant.leave()
    pool.shutdown(wait=True)


_NOT_BATCHED = contextlib.nullcontext()


class _Stopped(Exception):
    """A document not started because the run stopped (never reaches the caller)."""


def _ready(item: Future[DocumentResult] | DocumentResult) -> bool:
    return isinstance(item, DocumentResult) or item.done()


def _result(item: Future[DocumentResult] | DocumentResult) -> DocumentResult:
    if isinstance(item, DocumentResult):
        return item
    return item.result()
