"""The live pipeline: seed 000's five steps over the Anthropic Messages API.

``chunk_text_agentic`` pre-chunks each input chunk on its own, extracts propositions
batch by batch (concurrently, bounded), merges duplicates across overlapping inputs,
groups them in one call, and validates the grouping as a partition of the merged
propositions. Whatever the model does, nothing is lost quietly: a reply that is cut,
refused, unreadable after one repair turn, or a grouping that is not a partition gives
``is_success`` false and an ``error_detail`` naming the batch (``batch N``, 1-based, and
``chunk <id>``) or the propositions and the cause. Transport failures that survive the
SDK's retries raise ModelCallError (its ``response`` keeps what was extracted before the
failure); a missing key or unknown model, ConfigurationError. An interrupt (Ctrl-C) stops
waiting at once: queued batches are cancelled, in-flight calls abandoned, no progress
line is printed after it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import _notes as notes
from ._batches import Batch, coerce_inputs, plan_batches
from ._client import (
    DEFAULT_MAX_RETRIES,
    ModelReply,
    call_model,
    check_max_tokens,
    make_client,
    max_tokens_limit,
    resolve_model,
)
from ._errors import InputError, ModelCallError, ReplyParseError
from ._grouping import Breach, group
from ._grouping import Outcome as _Outcome
from ._models import (
    UNKNOWN_DOCUMENT_ID,
    AgenticChunk,
    AgenticChunkInput,
    AgenticResponse,
    CallUsage,
    ExtractedBatch,
)
from ._parse import parse_propositions_strict
from ._partition import Merged, merge_duplicates
from ._plan import ProgressTally
from ._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH
from ._prompts import (
    EXTRACTION_SHAPE,
    extraction_user_message,
    load_prompt,
    partition_repair_message,
    repair_user_message,
)
from ._threads import map_abandoning
from ._warning import PipelineWarning

if TYPE_CHECKING:
    import anthropic

DEFAULT_EXTRACTION_MAX_TOKENS = 2000
DEFAULT_GROUPING_MAX_TOKENS = 4000
DEFAULT_MAX_CONCURRENCY = 4
DEFAULT_MAX_REPAIR_ATTEMPTS = 1

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class _Settings:
    client: anthropic.Anthropic
    model: str
    extraction_max_tokens: int
    grouping_max_tokens: int
    max_repair_attempts: int
    on_wait: Progress | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)


def chunk_text_agentic(
    inputs: Sequence[AgenticChunkInput | Mapping[str, Any]],
    document_id: str | None,
    *,
    client: anthropic.Anthropic | None = None,
    model: str | None = None,
    max_tokens_per_batch: int = DEFAULT_MAX_TOKENS_PER_BATCH,
    extraction_max_tokens: int = DEFAULT_EXTRACTION_MAX_TOKENS,
    grouping_max_tokens: int = DEFAULT_GROUPING_MAX_TOKENS,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    max_repair_attempts: int = DEFAULT_MAX_REPAIR_ATTEMPTS,
    max_retries: int = DEFAULT_MAX_RETRIES,
    progress: Progress | None = None,
    timeout: float | None = None,
) -> AgenticResponse:
    """Chunk ``inputs`` (ordered ``{chunk_id, text}``) into thematic propositions (Level 5).

    Model: ``model``, else ``$AGENTIC_CHUNKING_MODEL``, else claude-3-7-sonnet-20250219.
    Without ``client`` one is built from ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``
    with ``max_retries``. Guarantees on success: every merged proposition is in exactly
    one chunk, verbatim; each chunk's ``source_chunk_ids`` lists, in input order, the input
    chunks its propositions came from; ``calls`` holds one CallUsage per request.
    ``progress`` receives one-line progress messages, including a notice while a call
    is in flight for long. ``timeout`` is the seconds per call attempt of a client built
    here (default ``$AGENTIC_CHUNKING_TIMEOUT``, else 120). A ``max_tokens`` the SDK only
    allows with streaming is refused with InputError before any call.
    """
    _check_positive(
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
    active = client if client is not None else make_client(max_retries=max_retries, timeout=timeout)
    cancelled = threading.Event()
    settings = _Settings(
        client=active,
        model=model_id,
        extraction_max_tokens=extraction_max_tokens,
        grouping_max_tokens=grouping_max_tokens,
        max_repair_attempts=max_repair_attempts,
        on_wait=None if progress is None else _unless(cancelled, progress),
        cancelled=cancelled,
    )
    try:
        return _run(chunks, batches, document_id, settings, max_concurrency, progress, warnings)
    finally:
        if client is None:  # built here, so closed here
            active.close()


def _run(
    chunks: Sequence[AgenticChunkInput],
    batches: Sequence[Batch],
    document_id: str | None,
    settings: _Settings,
    max_concurrency: int,
    progress: Progress | None,
    warnings: tuple[PipelineWarning, ...],
) -> AgenticResponse:
    """Extract, merge, group and validate (steps 2 to 5)."""
    tally = ProgressTally(progress) if progress is not None else None
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
    merged = merge_duplicates(
        (
            (text, batch.chunk_id)
            for batch, outcome in zip(batches, outcomes, strict=True)
            for text in outcome.value
        ),
        on_merge=lambda kept, dropped, chunk_id: merges.append(
            notes.duplicate_merged(kept, dropped, chunk_id)
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
    order = {chunk.chunk_id: position for position, chunk in enumerate(chunks)}
    if progress is not None and len(batches) > 1:
        progress(f"grouping {len(merged)} propositions")
    try:
        grouped = group(
            [m.text for m in merged],
            lambda **ask: _converse(
                where=_grouping_where(ask["stage"], ask["batch"]),
                max_tokens=settings.grouping_max_tokens,
                settings=settings,
                **ask,
            ),
            max_tokens=settings.grouping_max_tokens,
            max_concurrency=max_concurrency,
            on_done=None if tally is None else tally.done,
        )
    except ModelCallError as error:
        error.response = AgenticResponse.failure(
            str(error), calls=calls, warnings=warnings, extracted=extracted
        )
        raise
    calls.extend(grouped.calls)
    if grouped.error:
        return AgenticResponse.failure(
            grouped.error, calls=calls, warnings=warnings, extracted=extracted
        )
    return _build_response(grouped.value, merged, document_id, order, calls, warnings)


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
        ExtractedBatch(batch=b.number, chunk_id=b.chunk_id, propositions=tuple(o.value))
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
        except ModelCallError as error:
            stop.set()
            outcome = _Outcome(value=None, error=str(error), calls=(), failure=error)
        if tally is not None and len(batches) > 1 and not settings.cancelled.is_set():
            status = "failed" if outcome.error else f"{len(outcome.value)} propositions"
            tally.done("extraction batch", len(batches), batch.label, status, outcome.calls)
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
    return _converse(
        stage="extraction",
        where=batch.label,
        batch=batch.number,
        messages=messages,
        max_tokens=settings.extraction_max_tokens,
        settings=settings,
        parse=parse_propositions_strict,
        shape=EXTRACTION_SHAPE,
    )


def _converse(
    *,
    stage: str,
    where: str,
    batch: int | None,
    messages: list[dict[str, str]],
    max_tokens: int,
    settings: _Settings,
    parse: Callable[[str], Any],
    shape: str,
    check: Callable[[Any], Breach | None] | None = None,
) -> _Outcome:
    """Call, parse, check; on an unreadable reply, or one ``check`` refuses (a grouping
    that is not a partition), append one repair turn naming the problem, up to the bound;
    after the last attempt the parser's reason or the check's detail is the error."""
    calls: list[CallUsage] = []
    reason = ""
    breach: Breach | None = None
    for _attempt in range(settings.max_repair_attempts + 1):
        reply = call_model(
            settings.client,
            stage=stage,
            batch=batch,
            model=settings.model,
            system=load_prompt(stage).text,
            messages=messages,
            max_tokens=max_tokens,
            on_wait=settings.on_wait,
        )
        calls.append(reply.usage)
        # A cut or refused reply is not repaired: at temperature 0 the same request
        # gives the same cut (or the same refusal), so a retry would only add cost.
        incomplete = _incomplete(
            reply, stage=stage, where=where, max_tokens=max_tokens, model=settings.model
        )
        if incomplete:
            return _Outcome(value=None, error=incomplete, calls=tuple(calls))
        try:
            value = parse(reply.text)
        except ReplyParseError as error:
            reason, breach = error.reason, None
            turn = repair_user_message(reason, shape=shape)
        else:
            breach = check(value) if check is not None else None
            if breach is None:
                return _Outcome(value=value, error=None, calls=tuple(calls))
            turn = partition_repair_message(breach.reason, shape=shape)
        messages = [
            *messages,
            {"role": "assistant", "content": reply.text.strip() or "(empty reply)"},
            {"role": "user", "content": turn},
        ]
    repairs = settings.max_repair_attempts
    after = f"(after {repairs} repair attempt{'s' if repairs != 1 else ''})"
    if breach is not None:
        return _Outcome(value=None, error=f"{breach.detail} {after}", calls=tuple(calls))
    if stage == "extraction":
        subject = f"the {stage} reply for {where}"
    elif stage == "judge":
        subject = where  # "judge call 1 of 2"
    else:
        subject = f"the {where} reply"
    return _Outcome(
        value=None, error=f"{subject} could not be parsed: {reason} {after}", calls=tuple(calls)
    )


def _incomplete(
    reply: ModelReply, *, stage: str, where: str, max_tokens: int, model: str
) -> str | None:
    """Return why a reply is not whole (cut at max_tokens, refused, ...), or None."""
    if stage == "extraction":
        subject = f"the {stage} reply for {where}"
    elif stage == "judge":
        subject = where  # "judge call 1 of 2"
    else:
        subject = f"the {where} reply"
    if reply.stop_reason == "max_tokens":
        return f"{subject} stopped at max_tokens ({max_tokens}) and is cut off; " + _cut_advice(
            stage, max_tokens, max_tokens_limit(model)
        )
    if reply.stop_reason == "refusal":
        return f"the model gave a refusal (stop_reason refusal) for {where}; nothing was extracted"
    if reply.stop_reason not in (None, "end_turn", "stop_sequence"):
        return (
            f"{subject} ended with stop_reason {reply.stop_reason!r}, so it is not whole; "
            "expected end_turn"
        )
    return None


def _cut_advice(stage: str, max_tokens: int, limit: int) -> str:
    """What to do about a cut reply: never to raise max_tokens past what a call allows."""
    if stage == "judge":
        return f"raise the judge's max_tokens (up to {limit})"
    setting = "grouping" if stage.startswith("grouping") else stage
    smaller = (
        "lower max_tokens_per_batch (--max-tokens-per-batch) for smaller batches"
        if stage == "extraction"
        else "chunk the document in parts"
    )
    if max_tokens >= limit:
        return f"{setting}_max_tokens is already the most one call allows ({limit}); {smaller}"
    return f"raise {setting}_max_tokens (--{setting}-max-tokens, up to {limit}) or {smaller}"


def _build_response(
    groups: Sequence[tuple[str, Sequence[int]]],
    merged: Sequence[Merged],
    document_id: str | None,
    order: Mapping[str, int],
    calls: Sequence[CallUsage],
    warnings: tuple[PipelineWarning, ...],
) -> AgenticResponse:
    """Build the chunks of a checked partition (``[(category, 1-based numbers)]``)."""
    doc = document_id.strip() if document_id and document_id.strip() else None
    chunks: list[AgenticChunk] = []
    for seq, (category, numbers) in enumerate(groups, start=1):
        members = [merged[n - 1] for n in numbers]
        sources = sorted({s for m in members for s in m.sources}, key=order.__getitem__)
        chunks.append(
            AgenticChunk.from_propositions(
                document_id=doc or UNKNOWN_DOCUMENT_ID,
                seq=seq,
                thematic_category=category,
                propositions=[m.text for m in members],
                source_chunk_ids=sources,
            )
        )
    return AgenticResponse(chunks=tuple(chunks), calls=tuple(calls), warnings=warnings)
