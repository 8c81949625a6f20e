"""What a failed model call means for a run, decided once, here (``call_failure``).

Each provider module classifies its own SDK's errors (``failure_kind``) and puts the
kind on the error it raises (``AgenticChunkingError.kind``); ``call_failure`` reads an
error (and what it was raised from) and returns a ``CallFailure`` record: the ``kind``
(the kind the client layer put on the error, else the provider module's reading of the
SDK error), and what the SDK error says (status, URL, the server's words, the model the
failed request asked for), for a reader (the suite's systemic failures) to word its own
message without classifying the SDK's exception again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from .._errors import AgenticChunkingError
from ._calls import request_path
from ._registry import PROVIDERS

FAILURE_KINDS = (
    "no_key",
    "key_rejected",
    "base_url",
    "model_unknown",
    "unreachable",
    "overloaded",
)
"""What a failure no later call escapes is: a server that wants a key was sent none, the
key rejected, the base URL wrong, the model unknown, the server unreachable (or silent
past the timeout), the service overloaded or failing after the SDK's retries."""


@dataclass(frozen=True, slots=True)
class CallFailure:
    """A failed call that every later call would meet too.

    ``kind``: one of FAILURE_KINDS; ``provider``: whose SDK raised it;
    ``final_message``: the client layer's message for it is the one to show (the
    provider's FAILURE_MESSAGES_FINAL); ``status``: the HTTP status (None without one);
    ``timed_out``: connected, but no reply in time; ``url`` and ``path``: the failed
    request's ("" and None when it names none); ``detail``: what the server said;
    ``error_type``: the API's error type (Anthropic's ``overloaded_error``), if any;
    ``requested_model``: the ``model`` of the failed request's body, when it can be read;
    ``root_cause``: the last error of the chain, as ``Type: text``."""

    kind: str
    provider: str
    final_message: bool
    status: int | None
    timed_out: bool
    url: str
    path: str | None
    detail: str
    error_type: str | None
    requested_model: str | None
    root_cause: str


def call_failure(error: BaseException) -> CallFailure | None:
    """The run-level failure behind ``error``, or None when it concerns this call only
    (a 400 about one request, a stale cassette, no SDK error at all)."""
    chain = list(error_chain(error))
    for name, wire in PROVIDERS.items():
        sdk = next((e for e in chain if wire.owns(e)), None)
        if sdk is None:
            continue
        told = next((e.kind for e in chain if isinstance(e, AgenticChunkingError) and e.kind), None)
        kind = told or wire.failure_kind(sdk)
        if kind is None:
            return None
        return CallFailure(
            kind=kind,
            provider=name,
            final_message=wire.FAILURE_MESSAGES_FINAL,
            status=getattr(sdk, "status_code", None),
            timed_out=wire.timed_out(sdk),
            url=_url(sdk),
            path=request_path(sdk),
            detail=_detail(sdk),
            error_type=getattr(sdk, "type", None),
            requested_model=_requested_model(sdk),
            root_cause=_root_cause(sdk),
        )
    return None


def error_chain(error: BaseException) -> Iterator[BaseException]:
    """``error``, then what it was raised from (or during), each once."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _requested_model(sdk: BaseException) -> str | None:
    """The ``model`` of the request that failed, read from its JSON body; None unknown."""
    request = getattr(sdk, "request", None)
    try:
        body = json.loads(request.content) if request is not None else None
    except (ValueError, TypeError, AttributeError, RuntimeError):
        return None
    value = body.get("model") if isinstance(body, dict) else None
    return value if isinstance(value, str) else None


def _detail(sdk: BaseException) -> str:
    message = getattr(sdk, "api_message", None) or getattr(sdk, "message", None)
    return str(message or type(sdk).__name__)


def _url(sdk: BaseException) -> str:
    request = getattr(sdk, "request", None)
    return "" if request is None else str(request.url)


def _root_cause(sdk: BaseException) -> str:
    last = list(error_chain(sdk))[-1]
    return f"{type(last).__name__}: {last}" if last is not sdk else str(sdk)
