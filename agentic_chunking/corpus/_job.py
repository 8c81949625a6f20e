"""A corpus run end to end, as the ``corpus`` command asks for it: ``CorpusJob`` (what to
run besides the pipeline's options) and ``CorpusRun`` (the run itself).

``CorpusRun`` makes the run's one client (a ``BatchClient`` with ``job.batch``, else a
``HoldingClient`` with the run's request limits), then ``open()`` checks it ready (no key
or a bad URL is refused before any file is made), takes the ledger's lock (a second run on
the same OUT is refused before any call), opens the reply cache (taking back the replies
an earlier run kept elsewhere when its disk was full) and the ledger. ``settle_batches()``
resolves the batches an earlier run submitted and did not collect (``BatchNote`` records,
one per batch, for the caller to say), ``execute()`` runs every document on the chosen
engine (local threads or Ray) and writes OUT and OUT.failures.jsonl atomically, and
``close()`` ends it all, whatever happened, marking the replies kept elsewhere for the
next run. Nothing here prints: every outcome is a record or an exception (InputError,
ConfigurationError, LedgerError, BatchUnreachableError, a stop signal) the caller says.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from .._errors import ConfigurationError, InputError, ModelCallError
from .._files import remove_stale_temps
from ..client import (
    BatchClient,
    BatchProgress,
    ModelClient,
    ModelReply,
    RequestLimits,
    call_custom_id,
    parse_model,
)
from ..pipeline import PipelineOptions, ReplyCache, plan_run
from ._documents import NOT_TEXT, CorpusDocument, CorpusSource
from ._fallback import mark_fallback, take_back
from ._ledger import Ledger, LedgerError, RunLock
from ._outputs import OutputWriter, publish_failures
from ._run import DocumentResult, chunk_corpus

BATCH_CONCURRENCY = 1000
"""With a batch client, the requests of one document that may wait at once: all its
extraction batches go into the same round."""


@dataclass(frozen=True, slots=True)
class BatchSettings:
    """How a run goes through the providers' batch APIs (``corpus --batch``)."""

    poll_interval_s: float
    fallback: str
    """A request a batch did not answer: ``none`` (the next round) or ``sync`` (at once)."""
    documents: int
    """Documents worked on at once: their requests share the rounds."""


@dataclass(frozen=True, slots=True)
class CorpusJob:
    """What a corpus run is asked to do, besides the pipeline's options: the corpus, where
    its output, ledger and reply cache go, the engine, and how requests are sent."""

    source: CorpusSource
    output: Path
    ledger_path: Path
    failures_path: Path
    cache_dir: Path
    engine: Literal["local", "ray"] = "local"
    batch: BatchSettings | None = None
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    forget_batches: tuple[str, ...] = ()
    """Batches an earlier run submitted to give up: their requests are sent (and paid) again."""


@dataclass(frozen=True, slots=True)
class BatchNote:
    """A batch the ledger held at the start of a run, and what became of it: ``forgotten``
    (``forget_batches`` named it; removed from the ledger), ``unknown`` (named but not
    held), ``attached`` (this run collects it) or ``held`` (this run cannot reach its
    provider: none of its requests is sent again, their documents fail until a rerun)."""

    kind: Literal["forgotten", "unknown", "attached", "held"]
    provider: str
    batch_id: str
    requests: int


@dataclass(frozen=True, slots=True)
class CommonFailure:
    """The error most failed documents of a run share (``CorpusTotals.common_failure``):
    its text as the failures file has it, how many documents failed with it, and the
    first of them."""

    error: str
    documents: int
    first_document_id: str


MOST_FAILURE_REASONS = 1000
"""The distinct errors a run's totals count (each with its first document); an error first
met after that many others is counted among the failed documents only."""


class CorpusTotals:
    """What became of a run's documents so far, and what they cost: ``counts`` of done,
    skipped and failed documents, ``set_aside`` (the files of no text: listed, not
    failed), the calls answered (``cached``: served by the reply cache, not paid again; a
    request the server refused has no usage, so it is no call here), the paid tokens, the
    cost (None once a document's model has no price), and the failed documents' errors
    (``common_failure``)."""

    def __init__(self) -> None:
        self.counts = {"done": 0, "skipped": 0, "failed": 0}
        self.set_aside: list[str] = []
        self.calls = self.cached = self.tokens_in = self.tokens_out = 0
        self.cost: float | None = 0.0
        self._errors: dict[str, tuple[int, str]] = {}  # error -> (documents, the first)

    def add(self, result: DocumentResult) -> None:
        """Count one document's result."""
        if result.status == "failed" and not result.is_failure:
            self.set_aside.append(result.document_id)
        else:
            self.counts[result.status] += 1
        if result.is_failure and result.error is not None:
            count, first = self._errors.get(result.error, (0, result.document_id))
            if count or len(self._errors) < MOST_FAILURE_REASONS:
                self._errors[result.error] = (count + 1, first)
        self.calls += len(result.calls)
        self.cached += sum(1 for c in result.calls if c.cached)
        self.tokens_in += result.input_tokens
        self.tokens_out += result.output_tokens
        if self.cost is not None:
            self.cost = None if result.cost_usd is None else self.cost + result.cost_usd

    @property
    def finished(self) -> int:
        """Every document counted, set aside ones included."""
        return sum(self.counts.values()) + len(self.set_aside)

    @property
    def common_failure(self) -> CommonFailure | None:
        """The error most failed documents share (of two as common, the one met first);
        None when no document failed."""
        if not self._errors:
            return None
        error, (documents, first) = max(self._errors.items(), key=lambda item: item[1][0])
        return CommonFailure(error, documents, first)


@dataclass(frozen=True, slots=True)
class CorpusOutcome:
    """What a finished run wrote: ``written`` records to OUT; ``kept_elsewhere``, the folder
    the run's replies went to when the reply cache was full (None when it was not)."""

    written: int
    kept_elsewhere: Path | None


class CorpusRun:
    """One corpus run (see the module). ``open_cache(directory)`` opens the reply cache
    (the caller's checks and messages); ``on_batch`` hears every batch's state."""

    def __init__(
        self,
        job: CorpusJob,
        options: PipelineOptions,
        *,
        open_cache: Callable[[Path], ReplyCache],
        on_batch: Callable[[BatchProgress], None] | None = None,
    ) -> None:
        self.job = job
        self.options = options.resolved()
        self.ledger: Ledger | None = None
        self.cache: ReplyCache | None = None
        self._open_cache = open_cache
        self._on_batch = on_batch
        self._batches: dict[str, BatchProgress] = {}
        self.client = self._client()
        self.lock = RunLock(job.ledger_path)

    def _client(self) -> ModelClient:
        """The run's one client: every request of the run goes through it."""
        job, options = self.job, self.options
        provider = parse_model(options.model_id).provider
        base_urls = {provider: options.base_url} if options.base_url else None
        if job.batch is not None:
            return BatchClient(
                timeout=options.timeout,
                base_urls=base_urls,
                poll_interval_s=job.batch.poll_interval_s,
                fallback=job.batch.fallback,
                on_submitted=lambda *batch: self.opened_ledger.add_batch(*batch),
                progress=self._batch_progress,
            )
        limits = RequestLimits(
            max_in_flight=options.max_concurrency,
            requests_per_minute=job.requests_per_minute,
            tokens_per_minute=job.tokens_per_minute,
        )
        return HoldingClient(timeout=options.timeout, base_urls=base_urls, limits=limits)

    @property
    def opened_ledger(self) -> Ledger:
        """The ledger, open (``open()`` made it before any batch is submitted)."""
        if self.ledger is None:
            raise RuntimeError("the ledger is opened before any batch is submitted")
        return self.ledger

    def open(self) -> None:
        """Check the client ready, take the lock, open the reply cache and the ledger, in
        that order, each refusal an InputError (or ConfigurationError) before any call;
        what was opened is closed again when one fails."""
        try:
            self.client.ready(self.options.model_id)
            try:
                self.lock.acquire()
            except LedgerError as error:
                raise InputError(str(error)) from None
            self.cache = self._open_cache(self.job.cache_dir)  # nothing paid twice
            take_back(self.cache.directory)  # the replies a run kept elsewhere (disk full)
            try:
                self.ledger = Ledger(self.job.ledger_path)
            except LedgerError as error:
                raise InputError(str(error)) from None
        except BaseException:
            self.close()
            raise

    def settle_batches(self) -> list[BatchNote]:
        """Resolve every batch the ledger holds: those ``forget_batches`` names are removed
        (their requests sent and paid again); a batch this run's client can reach is
        collected; any other is held: its requests are never sent again by this run."""
        ledger = self.opened_ledger
        held = list(ledger.batches())
        notes = []
        for provider, batch_id, custom_ids in held:
            if batch_id in self.job.forget_batches:
                ledger.remove_batch(provider, batch_id)
                notes.append(BatchNote("forgotten", provider, batch_id, len(custom_ids)))
        named = {b for _, b, _ in held}
        notes += [
            BatchNote("unknown", "", batch_id, 0)
            for batch_id in sorted(set(self.job.forget_batches) - named)
        ]
        for provider, batch_id, custom_ids in held:
            if batch_id in self.job.forget_batches:
                continue
            if isinstance(self.client, BatchClient) and _configured(self.client, provider):
                self.client.attach(provider, {batch_id: custom_ids})
                notes.append(BatchNote("attached", provider, batch_id, len(custom_ids)))
                continue
            notes.append(BatchNote("held", provider, batch_id, len(custom_ids)))
            if isinstance(self.client, HoldingClient):
                self.client.held.update(dict.fromkeys(custom_ids, (provider, batch_id)))
        return notes

    def execute(
        self, positions: Mapping[str, int], on_result: Callable[[DocumentResult], None]
    ) -> CorpusOutcome:
        """Chunk every document and write OUT and OUT.failures.jsonl (each atomically, what a
        killed run left beside them removed first); ``on_result`` hears each result in input
        order (``positions``: each document id's place, for Ray). The batches that ended
        are removed from the ledger (every reply is in the cache now)."""
        job = self.job
        for target in (job.output, job.failures_path):
            remove_stale_temps(target)
        results = self._results(positions)
        try:
            written = write_results(
                results, job.output, job.failures_path, on_result, job.ledger_path
            )
        finally:  # the documents in flight finish (their replies kept) before the client closes
            results.close()
        for progress in list(self._batches.values()):
            if progress.status == "ended":  # an unreachable one stays: only forget gives it up
                self.opened_ledger.remove_batch(progress.provider, progress.batch_id)
        return CorpusOutcome(written, self.kept_elsewhere())

    def _results(self, positions: Mapping[str, int]) -> Generator[DocumentResult]:
        """The results of the engine the job names, in input order."""
        job, options = self.job, self.options
        assert self.cache is not None, "open() opens the cache"
        if job.engine == "ray":
            from ._ray import ray_results

            return ray_results(
                job.source,
                options,
                positions=positions,
                cache_dir=self.cache.directory,
                ledger_path=job.ledger_path,
            )
        batched = job.batch is not None
        return chunk_corpus(
            job.source.documents(),
            replace(options, max_concurrency=BATCH_CONCURRENCY) if batched else options,
            client=self.client,
            cache=self.cache,
            ledger=self.ledger,
            max_documents=job.batch.documents if job.batch else options.max_concurrency,
        )

    def _batch_progress(self, progress: BatchProgress) -> None:
        self._batches[progress.batch_id] = progress
        if self._on_batch is not None:
            self._on_batch(progress)

    def kept_elsewhere(self) -> Path | None:
        """The folder this run's replies went to when the reply cache was full, marked for
        the next run on the cache to take back (None when none was needed)."""
        return None if self.cache is None else mark_fallback(self.cache)

    def close(self) -> None:
        """End the run: the client closed, the ledger closed, the lock released, the
        replies kept elsewhere marked (a rerun finds them, however the run ended)."""
        self.client.close()
        if self.ledger is not None:
            self.ledger.close()
        self.lock.release()
        self.kept_elsewhere()


def write_results(
    results: Iterator[DocumentResult],
    output: Path,
    failures_path: Path,
    on_result: Callable[[DocumentResult], None],
    ledger_path: Path,
) -> int:
    """Write every result's records to ``output`` and every failure to ``failures_path``,
    each atomically; return the number of records written. InputError naming the way out
    when a file cannot be written (the finished documents are in the ledger)."""
    try:
        with OutputWriter(output) as chunks, OutputWriter(failures_path) as failures:
            for result in results:
                on_result(result)
                for record in result.records:
                    chunks.write(record)
                if result.status == "failed":
                    failures.write(result.failure_record())
            chunks.commit()
            publish_failures(failures, failures_path)
        return chunks.written
    except OSError as error:
        raise InputError(
            f"cannot write {error.filename or output} ({error.strerror or error}); the chunks "
            f"of every finished document are kept in the ledger {ledger_path}: free room "
            "and rerun the same command (no finished document is chunked again)"
        ) from None


class HoldingClient(ModelClient):
    """The synchronous client of a corpus run, which never sends a request that is in a
    batch an earlier run submitted and this run does not collect (``held``: custom_id ->
    (provider, batch id)): that call fails its document, naming the batch, instead of
    paying for the request a second time."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.held: dict[str, tuple[str, str]] = {}

    def call(self, **request: Any) -> ModelReply:
        if self.held:
            found = self.held.get(
                call_custom_id(
                    request["model"],
                    system=request["system"],
                    messages=request["messages"],
                    max_tokens=request["max_tokens"],
                )
            )
            if found is not None:
                raise ModelCallError(
                    f"this {request['stage']} request is in the {found[0]} batch {found[1]} an "
                    "earlier run submitted, not sent again: rerun with --batch (and that "
                    "provider's key) to collect its results",
                    stage=request["stage"],
                    batch=request["batch"],
                )
        reply: ModelReply = super().call(**request)
        return reply


def _configured(client: BatchClient, provider: str) -> bool:
    """Whether ``client`` can reach ``provider`` (its key and base URL are set)."""
    try:
        client.sdk(provider)
    except ConfigurationError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class CorpusPlan:
    """What a corpus run would do (``corpus --dry-run``), summed over its documents'
    ``plan_run`` plans: estimates, as they are (see ``pipeline._plan``)."""

    model: str
    unreadable: int
    """Documents to be listed as failed (unreadable, no text)."""
    not_text: int
    """Files that are not text, to be set aside and listed."""
    batches: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    """At the batch price when ``batched``; None when a document's model has no price."""
    unbatched_cost_usd: float | None
    """The same calls sent one by one, at the listed price."""


def plan_corpus(
    documents: Iterable[CorpusDocument], options: PipelineOptions, *, batched: bool = False
) -> CorpusPlan:
    """The plan of a run of ``documents`` with ``options`` (``batched``: through the batch
    APIs), without any call."""
    batches = calls = tokens_in = tokens_out = unreadable = not_text = 0
    cost: float | None = 0.0
    full: float | None = 0.0
    for document in documents:
        if document.error is not None:
            not_text += document.error_kind == NOT_TEXT
            unreadable += document.error_kind != NOT_TEXT
            continue
        plan = plan_run(document.inputs, options, batched=batched)
        unbatched = plan.listed_cost_usd if batched else plan.estimated_cost_usd
        full = None if full is None or unbatched is None else full + unbatched
        batches += plan.batches
        calls += plan.batches + plan.grouping_windows + (1 if plan.grouping_windows > 1 else 0)
        tokens_in += plan.estimated_input_tokens
        tokens_out += plan.estimated_output_tokens
        cost = (
            None
            if cost is None or plan.estimated_cost_usd is None
            else cost + plan.estimated_cost_usd
        )
    return CorpusPlan(
        model=options.model_id,
        unreadable=unreadable,
        not_text=not_text,
        batches=batches,
        calls=calls,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cost_usd=cost,
        unbatched_cost_usd=full,
    )
