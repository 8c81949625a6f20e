"""The live pipeline: seed 000's five steps over the Anthropic Messages API.

``chunk_text_agentic`` packs the input chunks into batches within the limit
(``_batches``), extracts propositions batch by batch (concurrently, bounded), gives each
proposition the input chunk(s) it came from (``_provenance``), merges duplicates across
overlapping inputs, groups them in one call, and validates the grouping as a partition of the merged
propositions. Whatever the model does, nothing is lost quietly: a reply that is cut,
refused, unreadable after one repair turn, or a grouping that is not a partition gives
``is_success`` false and an ``error_detail`` naming the batch (``batch N``, 1-based, and
``chunk <id>``) or the propositions and the cause. Transport failures that survive the
SDK's retries raise ModelCallError (its ``response`` keeps what was extracted before the
failure); a missing key or unknown model, ConfigurationError (with the same ``response``
when it is met after some batches were extracted, e.g. a key rejected mid-run). An
interrupt (Ctrl-C) stops waiting at once: queued batches are cancelled, in-flight calls
abandoned, no progress line is printed after it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._errors import ConfigurationError, InputError, ModelCallError
from .._models import (
    UNKNOWN_DOCUMENT_ID,
    AgenticChunkInput,
    AgenticResponse,
    ExtractedBatch,
)
from .._warning import PipelineWarning
from ..client import (
    DEFAULT_MAX_RETRIES,
    ModelClient,
    check_max_tokens,
    parse_model,
    resolve_model,
)
from . import _notes as notes
from ._assemble import assemble, oversized_propositions
from ._batches import Batch, coerce_inputs, plan_batches
from ._cache import ReplyCache
from ._conversation import CallSettings, Progress, converse
from ._conversation import Outcome as _Outcome
from ._grouping import group
from ._parse import parse_propositions_strict
from ._partition import merge_duplicates
from ._plan import ProgressEvent, ProgressTally
from ._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH
from ._prompts import (
    EXTRACTION_SHAPE,
    extraction_user_message,
)
from ._provenance import locate
from ._threads import map_abandoning

if TYPE_CHECKING:
    from ..client._providers import AnyClient

DEFAULT_EXTRACTION_MAX_TOKENS = 8000
"""Room for the propositions of a full packed batch (2,000 tokens by default): the
reference replies give 1.26 output characters per input character (1.87 at most in one
batch), so 2,000 would cut a full batch. Output is billed as generated, not as allowed."""
DEFAULT_GROUPING_MAX_TOKENS = 4000
DEFAULT_MAX_CHUNK_TOKENS = 256
"""The size limit of an output chunk (``max_chunk_tokens``, ``--max-chunk-tokens``), in
``estimate_tokens`` (characters // 4): a chunk an embedder reads whole. all-MiniLM-L6-v2,
the embedder of ``evaluate`` and Level 4 (``semantic.MiniLMEmbedder.max_seq_length``), reads
256 word pieces; English prose runs 4.3 to 4.8 characters a word piece (Chroma's corpora
in ``evaluate/data``), so 256 tokens of 4 characters are 215 to 240 word pieces, read whole,
where the rest of a longer chunk is never embedded. The Level 4 splitter's limit is the
same (``semantic._splitter.ADAPTIVE_MAX_TOKENS``). It was the batch limit, 2,000, before."""
DEFAULT_MAX_CONCURRENCY = 4
DEFAULT_MAX_REPAIR_ATTEMPTS = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class _Settings(CallSettings):
    extraction_max_tokens: int
    grouping_max_tokens: int
    max_chunk_tokens: int


def chunk_text_agentic(
    inputs: Sequence[AgenticChunkInput | Mapping[str, Any]],
    document_id: str | None,
    *,
    client: AnyClient | None = None,
    model: str | None = None,
    max_tokens_per_batch: int = DEFAULT_MAX_TOKENS_PER_BATCH,
    extraction_max_tokens: int = DEFAULT_EXTRACTION_MAX_TOKENS,
    grouping_max_tokens: int = DEFAULT_GROUPING_MAX_TOKENS,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    max_repair_attempts: int = DEFAULT_MAX_REPAIR_ATTEMPTS,
    max_retries: int = DEFAULT_MAX_RETRIES,
    progress: Progress | None = None,
    timeout: float | None = None,
    max_chunk_tokens: int | None = None,
    on_event: Callable[[ProgressEvent], None] | None = None,
    cache: ReplyCache | None = None,
    base_url: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> AgenticResponse:
    """Chunk ``inputs`` (ordered ``{chunk_id, text}``) into thematic propositions (Level 5).

    Model: ``model``, else ``$AGENTIC_CHUNKING_MODEL``, else DEFAULT_MODEL
    (claude-sonnet-4-6); ``openai:<name>`` is a model of an OpenAI-compatible server.
    Without ``client`` a ModelClient is built from the model's provider's variables
    (``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``, or ``OPENAI_API_KEY`` /
    ``OPENAI_BASE_URL``) with ``max_retries``; ``base_url`` replaces the provider's base URL
    variable. Guarantees on success: every merged proposition is in exactly one chunk,
    verbatim; each chunk's ``source_chunk_ids`` lists, in input order, the input chunks its
    propositions came from (in a batch packing several input chunks, the ones whose
    sentences state the proposition, see ``_provenance``); ``calls`` holds one CallUsage
    per request; no chunk's token estimate is above ``max_chunk_tokens`` (default
    ``DEFAULT_MAX_CHUNK_TOKENS``, 256: what an embedder reads whole): a theme above it is
    written as consecutive parts (``part``,
    ``part_count``, the same category), and a proposition above it alone fails the run
    (``error_detail`` names it) rather than being cut. Each chunk carries the input chunk
    ids and the document spans of each proposition (``proposition_chunk_ids``,
    ``proposition_spans``: offsets shifted by each input's ``start``; see ``_assemble``),
    its neighbours' ids, and ``metadata``: ``metadata`` (the document's) overlaid by the
    ``metadata`` of the input chunks its propositions came from.
    ``progress`` receives one-line progress messages, including a notice while a call
    is in flight for long; with ``on_event``, each finished call is a ProgressEvent
    (stage, done of total, tokens so far) given to it instead of a line on ``progress``.
    With
    ``cache`` (a ReplyCache) every whole reply is stored; when it reads (resume), a
    request it already holds is not sent again (its CallUsage says ``cached``).
    ``timeout`` is the seconds per call attempt of a client built
    here (default ``$AGENTIC_CHUNKING_TIMEOUT``, else 120). A ``max_tokens`` the SDK only
    allows with streaming is refused with InputError before any call.
    """
    chunk_limit = DEFAULT_MAX_CHUNK_TOKENS if max_chunk_tokens is None else max_chunk_tokens
    _check_positive(
        max_chunk_tokens=chunk_limit,
        max_concurrency=max_concurrency,
        extraction_max_tokens=extraction_max_tokens,
        grouping_max_tokens=grouping_max_tokens,
    )
    if max_repair_attempts < 0:
        raise InputError(f"max_repair_attempts is {max_repair_attempts}; expected 0 or more")
    chunks = coerce_inputs(inputs)
    batches = plan_batches(chunks, max_tokens_per_batch)
    warnings = tuple(notes.empty_input(c.chunk_id) for c in chunks if not c.text.strip())
    if not batches:
        return AgenticResponse.failure(
            f"no input chunk has any text ({len(chunks)} given): nothing to extract; "
            "pass at least one chunk with text",
            warnings=warnings,
        )
    model_id = resolve_model(model)
    check_max_tokens(
        model_id,
        extraction_max_tokens=extraction_max_tokens,
        grouping_max_tokens=grouping_max_tokens,
    )
    built = None
    active: AnyClient
    if client is None:
        urls = {parse_model(model_id).provider: base_url} if base_url else None
        active = built = ModelClient(max_retries=max_retries, timeout=timeout, base_urls=urls)
        built.ready(model_id)  # no key or a bad setting: refused before any call
    else:
        active = client
    cancelled = threading.Event()
    settings = _Settings(
        client=active,
        model=model_id,
        extraction_max_tokens=extraction_max_tokens,
        grouping_max_tokens=grouping_max_tokens,
        max_chunk_tokens=chunk_limit,
        max_repair_attempts=max_repair_attempts,
        on_wait=None if progress is None else _unless(cancelled, progress),
        cancelled=cancelled,
        cache=cache,
    )
    try:
        tally = ProgressTally(progress, on_event) if progress or on_event else None
        document = _Document(
            inputs=chunks,
            document_id=document_id.strip()
            if document_id and document_id.strip()
            else UNKNOWN_DOCUMENT_ID,
            metadata=dict(metadata or {}),
        )
        return _run(document, batches, settings, max_concurrency, progress, tally, warnings)
    finally:
        if built is not None:  # built here, so closed here
            built.close()


@dataclass(frozen=True, slots=True)
class _Document:
    """What the output chunks are made from besides the replies."""

    inputs: Sequence[AgenticChunkInput]
    document_id: str
    metadata: Mapping[str, Any]


def _run(
    document: _Document,
    batches: Sequence[Batch],
    settings: _Settings,
    max_concurrency: int,
    progress: Progress | None,
    tally: ProgressTally | None,
    warnings: tuple[PipelineWarning, ...],
) -> AgenticResponse:
    """Extract, merge, group and validate (steps 2 to 5)."""
    outcomes = _extract_all(batches, settings, max_concurrency, tally)
    calls = [call for outcome in outcomes for call in outcome.calls]
    errors = [outcome.error for outcome in outcomes if outcome.error]
    extracted = _extracted(batches, outcomes)
    if errors:
        failed = [b.number for b, o in zip(batches, outcomes, strict=True) if o.error]
        response = AgenticResponse.failure(
            "; ".join(errors),
            calls=calls,
            warnings=warnings,
            extracted=extracted,
            failed_batches=failed,
        )
        failure = next((o.failure for o in outcomes if o.failure is not None), None)
        if failure is not None:
            failure.response = response
            raise failure
        return response
    warnings += tuple(
        notes.no_proposition(batch)
        for batch, outcome in zip(batches, outcomes, strict=True)
        if not outcome.value
    )
    merges: list[PipelineWarning] = []
    texts = {chunk.chunk_id: chunk.text for chunk in document.inputs}
    merged = merge_duplicates(
        (
            (text, found.chunk_ids, found.places)
            for batch, outcome in zip(batches, outcomes, strict=True)
            for text, found in zip(outcome.value, locate(outcome.value, batch, texts), strict=True)
        ),
        on_merge=lambda kept, dropped, chunk_ids: merges.append(
            notes.duplicate_merged(kept, dropped, chunk_ids)
        ),
    )
    warnings += (*merges, *notes.possible_duplicates(merged))
    if not merged:
        return AgenticResponse.failure(
            f"no batch gave any proposition ({len(batches)} batches): the model answered "
            "every extraction with an empty array; check that the input holds facts",
            calls=calls,
            warnings=warnings,
        )
    too_large = oversized_propositions(merged, settings.max_chunk_tokens)
    if too_large is not None:  # refused before the grouping call is paid for
        return AgenticResponse.failure(
            too_large, calls=calls, warnings=warnings, extracted=extracted
        )
    if progress is not None and len(batches) > 1:
        progress(f"grouping {len(merged)} propositions")
    try:
        grouped = group(
            [m.text for m in merged],
            lambda **ask: converse(
                where=_grouping_where(ask["stage"], ask["batch"]),
                max_tokens=settings.grouping_max_tokens,
                settings=settings,
                **ask,
            ),
            max_tokens=settings.grouping_max_tokens,
            max_concurrency=max_concurrency,
            on_done=None if tally is None else tally.done,
        )
    except (ModelCallError, ConfigurationError) as error:
        error.response = AgenticResponse.failure(
            str(error), calls=calls, warnings=warnings, extracted=extracted
        )
        raise
    calls.extend(grouped.calls)
    if grouped.error:
        return AgenticResponse.failure(
            grouped.error, calls=calls, warnings=warnings, extracted=extracted
        )
    chunks, made = assemble(
        grouped.value,
        merged,
        document.inputs,
        document_id=document.document_id,
        metadata=document.metadata,
        limit=settings.max_chunk_tokens,
    )
    return AgenticResponse(chunks=chunks, calls=tuple(calls), warnings=(*warnings, *made))


def _grouping_where(stage: str, window: int | None) -> str:
    """How messages name a grouping call: "grouping", "grouping window 2", "grouping merge"."""
    if stage == "grouping_merge":
        return "grouping merge"
    return "grouping" if window is None else f"grouping window {window}"


def _unless(cancelled: threading.Event, progress: Progress) -> Progress:
    """``progress``, silenced once ``cancelled`` is set (nothing is printed after Ctrl-C)."""

    def report(line: str) -> None:
        if not cancelled.is_set():
            progress(line)

    return report


def _extracted(batches: Sequence[Batch], outcomes: Sequence[_Outcome]) -> list[ExtractedBatch]:
    """The propositions of every batch that was extracted, in batch order."""
    return [
        ExtractedBatch(batch=b.number, chunk_ids=b.chunk_ids, propositions=tuple(o.value))
        for b, o in zip(batches, outcomes, strict=True)
        if o.error is None and o.value is not None
    ]


def _check_positive(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise InputError(f"{name} is {value}; expected a whole number of 1 or more")


def _extract_all(
    batches: Sequence[Batch],
    settings: _Settings,
    max_concurrency: int,
    tally: ProgressTally | None,
) -> list[_Outcome]:
    """Run the extraction of every batch, at most ``max_concurrency`` at once; input order kept."""
    stop = threading.Event()  # set by a call that failed outright: start no further batch

    def run(batch: Batch) -> _Outcome:
        if stop.is_set():
            return _Outcome(value=None, error=None, calls=())
        try:
            outcome = _extract(batch, settings)
        except (ModelCallError, ConfigurationError) as error:  # a 401 as a 500: keep the rest
            stop.set()
            outcome = _Outcome(value=None, error=str(error), calls=(), failure=error)
        if tally is not None and not settings.cancelled.is_set():
            status = "failed" if outcome.error else f"{len(outcome.value)} propositions"
            tally.done(  # one batch: its tokens counted, but no line of its own
                "extraction batch",
                len(batches),
                batch.label,
                status,
                outcome.calls,
                line=len(batches) > 1,
            )
        return outcome

    return map_abandoning(
        run,
        batches,
        max_workers=max_concurrency,
        name="extraction",
        on_interrupt=settings.cancelled.set,  # no progress line after Ctrl-C
    )


def _extract(batch: Batch, settings: _Settings) -> _Outcome:
    """Extract one batch, with at most ``max_repair_attempts`` repair turns."""
    messages = [{"role": "user", "content": extraction_user_message(batch.text)}]
    return converse(
        stage="extraction",
        where=batch.label,
        batch=batch.number,
        messages=messages,
        max_tokens=settings.extraction_max_tokens,
        settings=settings,
        parse=parse_propositions_strict,
        shape=EXTRACTION_SHAPE,
    )
