"""One model conversation: call, parse, check, and at most a bounded number of repairs.

``converse`` is the loop every stage that asks the model for JSON shares (extraction,
grouping windows and their merge, the judge): it sends the request at temperature 0,
reads the reply with the stage's parser, lets the stage's ``check`` refuse a parsed
value (a grouping that is not a partition), and on an unreadable or refused reply appends
one repair turn naming the problem, up to ``max_repair_attempts``; when the last is still
unreadable or refused, the conversation's replies are set aside in the reply cache
(:meth:`ReplyCache.set_aside`), so that a resumed run asks again. A reply cut at
max_tokens or refused is never repaired (at temperature 0 the same request gives the
same cut) and becomes the Outcome's ``error`` with advice naming the stage's setting.
A reply longer than its ``max_tokens`` can hold (``MAX_CHARS_PER_TOKEN`` characters a
token, a generous bound) is an error before it is parsed, so no parser or check ever
works on an unbounded reply. Guarantee: an Outcome has either a value or an error, never
a partial value; its error quotes nothing unbounded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import ConfigurationError, ModelCallError, ReplyParseError
from .._models import CallUsage
from .._shown import quote
from ..client import ModelReply, call_model, max_tokens_limit
from ._cache import ReplyCache, request_key
from ._prompts import load_prompt, partition_repair_message, repair_user_message

if TYPE_CHECKING:
    from ..client import AnyClient

Progress = Callable[[str], None]

MAX_CHARS_PER_TOKEN = 16
"""The most characters a reply may hold per token of its ``max_tokens``: about four times
what English text averages (about 4 characters a token), so a reply the model could
really have written is never refused, while a server that ignores ``max_tokens`` (a
megabyte for 2000 tokens) is stopped before parsing."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CallSettings:
    """What every call of a run shares: the client, the model, how many repair turns,
    who hears "still waiting" notices, and the event set when the run is interrupted."""

    client: AnyClient
    model: str
    max_repair_attempts: int
    on_wait: Progress | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    cache: ReplyCache | None = None
    """Every whole reply is stored here; with ``cache.read``, served from it (resume)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a stage gave: the parsed value or an error, and every call made for it."""

    value: Any
    error: str | None
    calls: tuple[CallUsage, ...]
    failure: ModelCallError | ConfigurationError | None = None
    """A call that failed outright (transport, HTTP, a key rejected mid-run): re-raised
    with what was extracted."""


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
    keys: list[str] = []
    reason = ""
    breach: Breach | None = None
    for _attempt in range(settings.max_repair_attempts + 1):
        reply, key = _call(
            settings, stage=stage, batch=batch, messages=messages, max_tokens=max_tokens
        )
        calls.append(reply.usage)
        keys.append(key)
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
    if settings.cache is not None:  # served again they would fail again: ask anew on resume
        for key in keys:
            settings.cache.set_aside(key)
    repairs = settings.max_repair_attempts
    after = f"(after {repairs} repair attempt{'s' if repairs != 1 else ''})"
    if breach is not None:
        return Outcome(value=None, error=f"{breach.detail} {after}", calls=tuple(calls))
    subject = _subject(stage, where)
    return Outcome(
        value=None, error=f"{subject} could not be parsed: {reason} {after}", calls=tuple(calls)
    )


def _call(
    settings: CallSettings,
    *,
    stage: str,
    batch: int | None,
    messages: list[dict[str, str]],
    max_tokens: int,
) -> tuple[ModelReply, str]:
    """One request and its cache key ("" without a cache): from the reply cache when
    resuming and answered before, else the model (and the whole reply stored in the
    cache, if there is one)."""
    system = load_prompt(stage).text
    cache = settings.cache
    key = ""
    if cache is not None:
        key = request_key(
            model=settings.model, system=system, messages=messages, max_tokens=max_tokens
        )
        stored = cache.get(key, stage=stage, batch=batch)
        if stored is not None:
            return stored, key
    reply = call_model(
        settings.client,
        stage=stage,
        batch=batch,
        model=settings.model,
        system=system,
        messages=messages,
        max_tokens=max_tokens,
        on_wait=settings.on_wait,
    )
    if cache is not None:
        cache.put(key, reply)
    return reply, key


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
        lost = "nothing was extracted from it" if stage == "extraction" else "no answer was given"
        return f"the model gave a refusal (stop_reason refusal) for {where}; {lost}"
    if reply.stop_reason not in (None, "end_turn", "stop_sequence"):
        return (
            f"{subject} ended with stop_reason {quote(str(reply.stop_reason), limit=40)!r}, "
            "so it is not whole; expected end_turn"
        )
    most = max_tokens * MAX_CHARS_PER_TOKEN
    if len(reply.text) > most:
        return (
            f"{subject} is {len(reply.text):,} characters long, more than max_tokens "
            f"({max_tokens}) can hold (at most {most:,}, at a generous {MAX_CHARS_PER_TOKEN} "
            "characters a token), so it was not parsed: the server does not honour "
            "max_tokens; check that the base URL points at the model's API"
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
