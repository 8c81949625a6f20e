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
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from .._errors import ConfigurationError, ModelCallError
from .._models import (
    UNKNOWN_DOCUMENT_ID,
    AgenticChunkInput,
    AgenticResponse,
    ExtractedBatch,
)
from .._shown import counted
from .._warning import PipelineWarning
from ..client import ModelClient, parse_model
from . import _notes as notes
from ._assemble import assemble, oversized_propositions
from ._batches import Batch, coerce_inputs, plan_batches
from ._cache import ReplyCache
from ._conversation import CallSettings, Progress, converse
from ._conversation import Outcome as _Outcome
from ._grouping import group
from ._options import (
    DEFAULT_EXTRACTION_MAX_TOKENS as DEFAULT_EXTRACTION_MAX_TOKENS,
)
from ._options import (
    DEFAULT_GROUPING_MAX_TOKENS as DEFAULT_GROUPING_MAX_TOKENS,
)
from ._options import (
    DEFAULT_MAX_CHUNK_TOKENS as DEFAULT_MAX_CHUNK_TOKENS,
)
from ._options import (
    DEFAULT_MAX_CONCURRENCY as DEFAULT_MAX_CONCURRENCY,
)
from ._options import (
    DEFAULT_MAX_REPAIR_ATTEMPTS as DEFAULT_MAX_REPAIR_ATTEMPTS,
)
from ._options import PipelineOptions
from ._parse import parse_propositions_strict
from ._partition import Merged, merge_duplicates
from ._plan import ProgressEvent, ProgressTally
from ._prompts import (
    EXTRACTION_SHAPE,
    extraction_user_message,
)
from ._provenance import locate
from ._threads import map_abandoning

if TYPE_CHECKING:
    from ..client import AnyClient


@dataclass(frozen=True, slots=True, kw_only=True)
class _Settings(CallSettings):
    extraction_max_tokens: int
    grouping_max_tokens: int
    max_chunk_tokens: int
    max_concurrency: int


def chunk_text_agentic(
    inputs: Sequence[AgenticChunkInput | Mapping[str, Any]],
    document_id: str | None,
    options: PipelineOptions | None = None,
    *,
    client: AnyClient | None = None,
    progress: Progress | None = None,
    on_event: Callable[[ProgressEvent], None] | None = None,
    cache: ReplyCache | None = None,
    metadata: Mapping[str, Any] | None = None,
    **keywords: Any,
) -> AgenticResponse:
    """Chunk ``inputs`` (ordered ``{chunk_id, text}``) into thematic propositions (Level 5).

    ``options`` (a PipelineOptions; default: every default) holds every setting of the
    run: the model, the limits, and how a client built here calls (without ``client``, a
    ModelClient from the model's provider's variables, ``ANTHROPIC_API_KEY`` /
    ``ANTHROPIC_BASE_URL`` or ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``, with the options'
    ``max_retries``, ``timeout`` and ``base_url``). The keyword form (``model=...,
    max_tokens_per_batch=...``, every field of PipelineOptions) is kept for one release
    and builds the same record; it cannot be mixed with ``options``. Guarantees on success
    (see the module): every merged proposition in exactly one chunk, verbatim; each
    chunk's ``source_chunk_ids``, ``proposition_chunk_ids`` and ``proposition_spans`` name
    where its propositions came from, in input order (``_provenance``, ``_assemble``);
    ``calls`` holds one CallUsage per request; no chunk above ``max_chunk_tokens`` (a theme
    above it is written as consecutive parts, a proposition above it alone fails the run);
    ``metadata`` (the document's) overlaid by its input chunks' own. ``progress`` receives
    one-line progress messages (a notice while a call is long in flight); with
    ``on_event`` each finished call is a ProgressEvent given to it instead. With ``cache``
    (a ReplyCache) every whole reply is stored, and when it reads (resume) a request it
    holds is not sent again (``cached``). A ``max_tokens`` the SDK only allows with
    streaming is refused with InputError before any call.
    """
    options = _with_keywords(options, keywords)
    options.check_values()
    chunks = coerce_inputs(inputs)
    batches = plan_batches(chunks, options.max_tokens_per_batch)
    warnings = tuple(notes.empty_input(c.chunk_id) for c in chunks if not c.text.strip())
    if not batches:
        return AgenticResponse.failure(
            f"no input chunk has any text ({len(chunks)} given): nothing to extract; "
            "pass at least one chunk with text",
            warnings=warnings,
        )
    options = options.resolved()
    options.check()
    with _client_for(options, client) as active:
        settings = _call_settings(options, active, progress, cache)
        tally = ProgressTally(progress, on_event) if progress or on_event else None
        document = _Document(
            inputs=chunks,
            document_id=document_id.strip()
            if document_id and document_id.strip()
            else UNKNOWN_DOCUMENT_ID,
            metadata=dict(metadata or {}),
        )
        return _run(document, batches, settings, progress, tally, warnings)


def _call_settings(
    options: PipelineOptions,
    client: AnyClient,
    progress: Progress | None,
    cache: ReplyCache | None,
) -> _Settings:
    """What every call of the run shares: ``options``' limits, the client, the cache, and
    the "still waiting" notices, silenced once the run is interrupted."""
    cancelled = threading.Event()
    return _Settings(
        client=client,
        model=options.model_id,
        extraction_max_tokens=options.extraction_max_tokens,
        grouping_max_tokens=options.grouping_max_tokens,
        max_chunk_tokens=options.max_chunk_tokens,
        max_concurrency=options.max_concurrency,
        max_repair_attempts=options.max_repair_attempts,
        on_wait=None if progress is None else _unless(cancelled, progress),
        cancelled=cancelled,
        cache=cache,
    )


_OPTION_NAMES = frozenset(field.name for field in fields(PipelineOptions))


def _with_keywords(options: PipelineOptions | None, keywords: Mapping[str, Any]) -> PipelineOptions:
    """``options``, or the PipelineOptions the keyword form names (a ``None`` keyword is its
    default, as it always was); TypeError for a keyword that is no option, or for both."""
    unknown = sorted(set(keywords) - _OPTION_NAMES)
    if unknown:
        raise TypeError(f"chunk_text_agentic() got an unexpected keyword argument {unknown[0]!r}")
    if options is not None and keywords:
        raise TypeError(
            "chunk_text_agentic(): give the settings as a PipelineOptions or as keywords, not "
            f"both ({', '.join(sorted(keywords))})"
        )
    given = {name: value for name, value in keywords.items() if value is not None}
    return options if options is not None else PipelineOptions(**given)


@contextmanager
def _client_for(options: PipelineOptions, client: AnyClient | None) -> Iterator[AnyClient]:
    """``client``, else a ModelClient built from ``options`` (its model resolved), checked
    ready before any call (no key or a bad setting is refused first) and closed at the end."""
    if client is not None:
        yield client
        return
    model = options.model_id
    urls = {parse_model(model).provider: options.base_url} if options.base_url else None
    built = ModelClient(max_retries=options.max_retries, timeout=options.timeout, base_urls=urls)
    try:
        built.ready(model)
        yield built
    finally:  # built here, so closed here
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
    progress: Progress | None,
    tally: ProgressTally | None,
    warnings: tuple[PipelineWarning, ...],
) -> AgenticResponse:
    """Extract, merge, group and validate (steps 2 to 5)."""
    outcomes = _extract_all(batches, settings, tally)
    calls = [call for outcome in outcomes for call in outcome.calls]
    extracted = _extracted(batches, outcomes)
    if any(outcome.error for outcome in outcomes):
        return _extraction_failed(batches, outcomes, calls, warnings, extracted)
    warnings += tuple(
        notes.no_proposition(batch)
        for batch, outcome in zip(batches, outcomes, strict=True)
        if not outcome.value
    )
    merged, merges = _merged(document, batches, outcomes)
    warnings += merges
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
        progress(f"grouping {counted(len(merged), 'proposition')}")
    grouped = _grouped(
        merged,
        settings,
        tally,
        lambda detail: AgenticResponse.failure(
            detail, calls=calls, warnings=warnings, extracted=extracted
        ),
    )
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


def _extraction_failed(
    batches: Sequence[Batch],
    outcomes: Sequence[_Outcome],
    calls: Sequence[Any],
    warnings: tuple[PipelineWarning, ...],
    extracted: list[ExtractedBatch],
) -> AgenticResponse:
    """The failed response of a run whose extraction failed in some batch (every error
    named, every batch extracted kept); a call that failed outright is raised with it."""
    errors = [outcome.error for outcome in outcomes if outcome.error]
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


def _merged(
    document: _Document, batches: Sequence[Batch], outcomes: Sequence[_Outcome]
) -> tuple[list[Merged], tuple[PipelineWarning, ...]]:
    """Every batch's propositions, located in their input chunks, with certain duplicates
    across batches merged; and the warnings of the merge (each merge, each possible
    duplicate left)."""
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
    return merged, (*merges, *notes.possible_duplicates(merged))


def _grouped(
    merged: Sequence[Merged],
    settings: _Settings,
    tally: ProgressTally | None,
    failed: Callable[[str], AgenticResponse],
) -> _Outcome:
    """The grouping of ``merged`` (one call, or windows and a merge). A call that failed
    outright is raised with ``failed(its message)`` (what was paid for before it) as its
    response."""
    try:
        return group(
            [m.text for m in merged],
            lambda **ask: converse(
                where=_grouping_where(ask["stage"], ask["batch"]),
                max_tokens=settings.grouping_max_tokens,
                settings=settings,
                **ask,
            ),
            max_tokens=settings.grouping_max_tokens,
            max_concurrency=settings.max_concurrency,
            on_done=None if tally is None else tally.done,
        )
    except (ModelCallError, ConfigurationError) as error:
        error.response = failed(str(error))
        raise


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


def _extract_all(
    batches: Sequence[Batch], settings: _Settings, tally: ProgressTally | None
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
            status = "failed" if outcome.error else counted(len(outcome.value), "proposition")
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
        max_workers=settings.max_concurrency,
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
