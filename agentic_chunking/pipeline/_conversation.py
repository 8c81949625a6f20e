"""One model conversation: call, parse, check, and at most a bounded number of repairs.

``converse`` is the loop every stage that asks the model for JSON shares (extraction,
grouping windows and their merge, the judge): it sends the request at temperature 0,
reads the reply with the stage's parser, lets the stage's ``check`` refuse a parsed
value (a grouping that is not a partition), and on an unreadable or refused reply appends
one repair turn naming the problem, up to ``max_repair_attempts``. A reply cut at
max_tokens or refused is never repaired (at temperature 0 the same request gives the
same cut) and becomes the Outcome's ``error`` with advice naming the stage's setting.
Guarantee: an Outcome has either a value or an error, never a partial value.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import ModelCallError, ReplyParseError
from .._models import CallUsage
from ..client import ModelReply, call_model, max_tokens_limit
from ._prompts import load_prompt, partition_repair_message, repair_user_message

if TYPE_CHECKING:
    from ..client._providers import AnyClient

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class CallSettings:
    """What every call of a run shares: the client, the model, how many repair turns,
    who hears "still waiting" notices, and the event set when the run is interrupted."""

    client: AnyClient
    model: str
    max_repair_attempts: int
    on_wait: Progress | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a stage gave: the parsed value or an error, and every call made for it."""

    value: Any
    error: str | None
    calls: tuple[CallUsage, ...]
    failure: ModelCallError | None = None
    """A call that failed outright (transport, HTTP): re-raised with what was extracted."""


@dataclass(frozen=True, slots=True)
class Breach:
    """Why a parsed reply is refused: ``reason`` for the repair turn, ``detail`` for the user."""

    reason: str
    detail: str


def converse(
    *,
    stage: str,
    where: str,
    batch: int | None,
    messages: list[dict[str, str]],
    max_tokens: int,
    settings: CallSettings,
    parse: Callable[[str], Any],
    shape: str,
    check: Callable[[Any], Breach | None] | None = None,
) -> Outcome:
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
            return Outcome(value=None, error=incomplete, calls=tuple(calls))
        try:
            value = parse(reply.text)
        except ReplyParseError as error:
            reason, breach = error.reason, None
            turn = repair_user_message(reason, shape=shape)
        else:
            breach = check(value) if check is not None else None
            if breach is None:
                return Outcome(value=value, error=None, calls=tuple(calls))
            turn = partition_repair_message(breach.reason, shape=shape)
        messages = [
            *messages,
            {"role": "assistant", "content": reply.text.strip() or "(empty reply)"},
            {"role": "user", "content": turn},
        ]
    repairs = settings.max_repair_attempts
    after = f"(after {repairs} repair attempt{'s' if repairs != 1 else ''})"
    if breach is not None:
        return Outcome(value=None, error=f"{breach.detail} {after}", calls=tuple(calls))
    subject = _subject(stage, where)
    return Outcome(
        value=None, error=f"{subject} could not be parsed: {reason} {after}", calls=tuple(calls)
    )


def _subject(stage: str, where: str) -> str:
    """How messages name a reply: "the extraction reply for batch 2 (chunk X)", "the
    grouping window 3 reply", or the judge's own label ("judge call 1 of 2")."""
    if stage == "extraction":
        return f"the {stage} reply for {where}"
    if stage == "judge":
        return where
    return f"the {where} reply"


def _incomplete(
    reply: ModelReply, *, stage: str, where: str, max_tokens: int, model: str
) -> str | None:
    """Return why a reply is not whole (cut at max_tokens, refused, ...), or None."""
    subject = _subject(stage, where)
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
