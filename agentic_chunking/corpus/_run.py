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
import itertools
import threading
from collections import deque
from collections.abc import Collection, Generator, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from .._entry import Terminated
from .._errors import ConfigurationError, InputError
from .._models import AgenticResponse, CallUsage
from .._shown import redact, redact_data
from ..checks import clear_caches
from ..client import BatchClient, BatchParticipant, calls_cost_usd, parse_model
from ..pipeline import (
    PipelineOptions,
    ReplyCache,
    chunk_outcome,
    equivalent_sha256s,
    options_sha256,
)
from ._documents import NOT_TEXT, UNREADABLE, CorpusDocument
from ._ledger import Ledger

if TYPE_CHECKING:
    from ..client import AnyClient

FORGET_EVERY = 256
"""Documents after which the checks' memo caches are cleared (``checks.clear_caches``): they
hold the texts of finished documents, which no later document asks for."""

Status = Literal["done", "skipped", "failed"]


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
    options: PipelineOptions,
    *,
    client: AnyClient,
    cache: ReplyCache | None = None,
) -> DocumentResult:
    """Chunk one document with ``chunk_text_agentic`` and ``options`` (see the module).
    Raises ConfigurationError only (the run's fault); every other failure is in the result,
    an input the pipeline refuses (InputError) too: it is that document's fault."""
    if document.error is not None:
        return _failed(document, document.error, document.error_kind)
    try:
        outcome = chunk_outcome(
            document.inputs,
            document.document_id,
            options,
            client=client,
            cache=cache,
            metadata=document.metadata,
        )
    except InputError as error:  # the document's own input (never the run's configuration)
        return _failed(document, redact(f"{document.document_id}: {error}"), UNREADABLE)
    if isinstance(outcome.error, ConfigurationError):
        raise outcome.error  # the run's fault: it stops the run
    response = outcome.response or AgenticResponse.failure(str(outcome.error))
    kind = "model_call" if outcome.kind == "stopped" else "pipeline"
    cost = calls_cost_usd(parse_model(options.model_id).name, response.calls)
    if not response.is_success:
        return replace(
            _failed(document, redact(response.error_detail), kind),
            extracted=tuple(p for batch in response.extracted for p in batch.propositions),
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


def _failed(document: CorpusDocument, error: str, kind: str | None) -> DocumentResult:
    """``document`` failed with ``error`` of ``kind`` (nothing extracted, nothing paid)."""
    return DocumentResult(
        document.document_id, document.position, "failed", error=error, error_kind=kind
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
    ledger: Ledger | None, document: CorpusDocument, settings_sha256: str | Collection[str]
) -> DocumentResult | None:
    """The document as an earlier run finished it, when the ledger holds it as done with
    the same input and settings (``settings_sha256``, or any of the hashes given: see
    ``pipeline.equivalent_sha256s``); else None (it is to be done)."""
    if ledger is None or document.error is not None:
        return None
    entry = ledger.finished(document.document_id)
    if (
        entry is None
        or entry.status != "done"
        or entry.document_sha256 != document.document_sha256
        or entry.settings_sha256
        not in ({settings_sha256} if isinstance(settings_sha256, str) else settings_sha256)
    ):
        return None
    return DocumentResult(document.document_id, document.position, "skipped", records=entry.records)


def chunk_corpus(
    documents: Iterable[CorpusDocument],
    options: PipelineOptions,
    *,
    client: AnyClient,
    cache: ReplyCache | None = None,
    ledger: Ledger | None = None,
    max_documents: int = 16,
    window: int | None = None,
) -> Generator[DocumentResult]:
    """Chunk ``documents`` and yield one DocumentResult each, in input order (see the module).

    Every document runs with ``options`` (its model resolved once, for the run), and the
    ledger keeps ``options_sha256(options)``. ``max_documents`` documents run at once;
    ``options.max_concurrency`` bounds the calls within a document (the client's
    RequestLimits bounds the run's). At most ``window`` documents (default
    ``2 * max_documents``) are read ahead of the one being yielded. Raises InputError before
    any document when no call could be made (``options.check``), and ConfigurationError
    (after the documents already finished are recorded) when the run cannot go on. When
    the caller stops reading (``close()``, or an error of its own), no further document
    starts and those in flight finish first (recorded, their paid replies cached), so close
    the iterator before the client; a stop signal (Ctrl-C, SIGTERM) leaves them at once.
    """
    options = options.resolved()
    options.check()
    engine = _Engine(options, client, cache, ledger, max_documents)
    ahead = window or 2 * max_documents
    if isinstance(client, BatchClient):  # a thread for every document submitted: none
        ahead = min(ahead, max(1, max_documents) - 1)  # waits for one behind a round
    accepted = equivalent_sha256s(options)
    pending: deque[Future[DocumentResult] | DocumentResult] = deque()
    # reading the next document: no round goes without it; waiting for a result (or for
    # the caller, between two results) is idle
    reader = client.participant() if isinstance(client, BatchClient) else None
    resting = reader.idle if reader is not None else contextlib.nullcontext
    try:
        for document in documents:
            pending.append(skipped_result(ledger, document, accepted) or engine.start(document))
            while len(pending) > ahead or (pending and _ready(pending[0])):
                with resting():
                    yield engine.yielded(pending.popleft())
        if reader is not None:
            reader.leave()
        while pending:
            yield engine.yielded(pending.popleft())
    except BaseException as error:  # GeneratorExit too: the caller stopped reading
        engine.stop(stopping=isinstance(error, (KeyboardInterrupt, Terminated)))
        raise
    finally:
        engine.leave_all([reader] if reader else [])
    engine.pool.shutdown(wait=True)


class _Engine:
    """The documents of one ``chunk_corpus`` run on a thread pool: each processed, recorded
    in the ledger, and (with a BatchClient) a participant of the rounds while it works."""

    def __init__(
        self,
        options: PipelineOptions,
        client: AnyClient,
        cache: ReplyCache | None,
        ledger: Ledger | None,
        max_documents: int,
    ) -> None:
        self.options = options
        self.settings_sha256 = options_sha256(options)
        self.client = client
        self.cache = cache
        self.ledger = ledger
        self.pool = ThreadPoolExecutor(max(1, max_documents), thread_name_prefix="corpus")
        self.stopped = threading.Event()
        self.joined: set[BatchParticipant] = set()  # participants whose document has not ended
        self._idled = itertools.count(1)
        self._yielded = 0

    def start(self, document: CorpusDocument) -> Future[DocumentResult]:
        """Submit ``document``; with a batch client, it is a participant from now, before
        its thread starts."""
        if not isinstance(self.client, BatchClient):
            return self.pool.submit(self.run, document, None)
        participant = self.client.participant(self._forget)
        self.joined.add(participant)
        return self.pool.submit(self.run, document, participant)

    def run(self, document: CorpusDocument, participant: BatchParticipant | None) -> DocumentResult:
        """Process one document and record it in the ledger (the run's stop checked first)."""
        with participant or _NOT_BATCHED:
            self.joined.discard(participant)
            if self.stopped.is_set():
                raise _Stopped
            try:
                result = process_document(
                    document, self.options, client=self.client, cache=self.cache
                )
            except ConfigurationError:
                self.stopped.set()
                raise
            if self.ledger is not None:
                record_result(self.ledger, document, self.settings_sha256, result)
            return result

    def _forget(self) -> None:
        """With a batch client, every document in flight is worked on at once: the checks'
        caches are cleared every FORGET_EVERY times a document comes to wait on a round,
        not only as documents are yielded, so they hold the work of about that many."""
        if next(self._idled) % FORGET_EVERY == 0:
            clear_caches()

    def yielded(self, item: Future[DocumentResult] | DocumentResult) -> DocumentResult:
        """The result of ``item`` (waited for), the checks' caches cleared every
        FORGET_EVERY results: memory follows the documents in flight."""
        self._yielded += 1
        if self._yielded % FORGET_EVERY == 0:
            clear_caches()
        return _result(item)

    def stop(self, *, stopping: bool) -> None:
        """No document starts; those in flight finish, their replies kept, unless this is
        a stop signal (``stopping``: Ctrl-C, SIGTERM), which leaves them at once: a call
        that hangs or waits for the rate limit must not hold the stop."""
        self.stopped.set()
        self.pool.shutdown(wait=not stopping, cancel_futures=True)

    def leave_all(self, others: Iterable[BatchParticipant]) -> None:
        """End every participant never ended (the reader, documents never started)."""
        for participant in [*self.joined, *others]:
            participant.leave()


_NOT_BATCHED = contextlib.nullcontext()


class _Stopped(Exception):
    """A document not started because the run stopped (never reaches the caller)."""


def _ready(item: Future[DocumentResult] | DocumentResult) -> bool:
    return isinstance(item, DocumentResult) or item.done()


def _result(item: Future[DocumentResult] | DocumentResult) -> DocumentResult:
    if isinstance(item, DocumentResult):
        return item
    return item.result()
