"""Failures no later case can escape, told apart from a case's own failure.

``systemic_failure`` looks through an error (and what it was raised from) for the SDK's
exception and returns a ``SystemicFailure`` when every later case would meet the same
wall: the key rejected (401/403), the model unknown (404 on ``/v1/messages``), the base
URL wrong (404 on any other path), the server unreachable (no connection), or the service
overloaded or failing after the SDK's own retries (429, 5xx, 529). Anything else (a 400
about one request, a stale cassette) is the case's own and gives None.

Every message names the cause, the value at fault and the way out, and only options and
variables that exist (``--model``, ``--judge-model``, ``--no-judge``,
``--max-concurrency``, ``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``). It names the model
whose call failed, read from the failed request itself: the pipeline's (``--model``) or
the judge's (``--judge-model``), so a 404 for the default judge model is never reported
as the pipeline model not found; for an
``openai`` SDK error, the client layer's ``failure_kind`` classifies it (the same kinds,
plus ``no_key``: a server that wants a key was sent none) and its message is the one the
client layer already gave (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, the models the server
lists).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .._errors import AgenticChunkingError
from ..client import API_KEY_ENV_VAR, BASE_URL_ENV_VAR, models_to_choose_from
from ..client._openai import failure_kind
from ._cassettes import error_chain

MESSAGES_PATH = "/v1/messages"
#: Kinds of systemic failure, in the order the checks below try them.
SYSTEMIC_KINDS = (
    "no_key",
    "key_rejected",
    "base_url",
    "model_unknown",
    "unreachable",
    "overloaded",
)


@dataclass(frozen=True, slots=True)
class SystemicFailure:
    """Why the session must stop: a ``kind`` of SYSTEMIC_KINDS and one plain message."""

    kind: str
    message: str


def systemic_failure(
    error: BaseException, *, model: str, judge_model: str | None = None
) -> SystemicFailure | None:
    """The systemic failure behind ``error``, or None when it concerns one case only.

    ``model`` is the pipeline's model, ``judge_model`` the judge's (None: not judged); the
    message names the one the failed request asked for."""
    import anthropic

    sdk = next((e for e in error_chain(error) if isinstance(e, anthropic.APIError)), None)
    if sdk is None:
        return _openai_failure(error)
    failure = _failure(sdk, model, judge_model)
    if failure is None or failure.kind == "model_unknown":
        return failure
    return SystemicFailure(failure.kind, f"{failure.message} ({_whose(sdk, model, judge_model)})")


def _requested_model(sdk: BaseException) -> str | None:
    """The ``model`` of the request that failed, read from its JSON body; None unknown."""
    request = getattr(sdk, "request", None)
    try:
        body = json.loads(request.content) if request is not None else None
    except (ValueError, TypeError, AttributeError, RuntimeError):
        return None
    value = body.get("model") if isinstance(body, dict) else None
    return value if isinstance(value, str) else None


def _is_judge(sdk: BaseException, model: str, judge_model: str | None) -> bool:
    asked = _requested_model(sdk)
    return judge_model is not None and asked == judge_model and asked != model


def _whose(sdk: BaseException, model: str, judge_model: str | None) -> str:
    if _is_judge(sdk, model, judge_model):
        return f"on a call to the judge model {judge_model!r}"
    return f"on a call to the pipeline model {_requested_model(sdk) or model!r}"


def _failure(sdk: BaseException, model: str, judge_model: str | None) -> SystemicFailure | None:
    import anthropic

    if isinstance(sdk, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        return SystemicFailure(
            "key_rejected",
            f"the API key was rejected (HTTP {sdk.status_code}: {_detail(sdk)}). Check "
            f"{API_KEY_ENV_VAR}, and {BASE_URL_ENV_VAR} if you use another server.",
        )
    if isinstance(sdk, anthropic.NotFoundError):
        return _not_found(sdk, model, judge_model)
    if isinstance(sdk, anthropic.APITimeoutError):  # connected, but no reply in time
        url = _url(sdk)
        return SystemicFailure(
            "unreachable",
            f"no reply from {url or 'the API'} within the timeout, on every attempt (the "
            "SDK's retries included). Try again later, or give each call more time with "
            "AGENTIC_CHUNKING_TIMEOUT=SECONDS.",
        )
    if isinstance(sdk, anthropic.APIConnectionError):
        url = _url(sdk)
        return SystemicFailure(
            "unreachable",
            f"no connection to {url or 'the API'} ({_root_cause(sdk)}), even after the SDK's "
            f"retries. Check the network, or {BASE_URL_ENV_VAR} if you set it.",
        )
    if isinstance(sdk, anthropic.APIStatusError) and (
        sdk.status_code == 429 or sdk.status_code >= 500
    ):
        return SystemicFailure(
            "overloaded",
            f"the API answered HTTP {sdk.status_code} ({sdk.type or 'error'}: {_detail(sdk)}) "
            "even after the SDK's retries: the service is overloaded or failing. Try again "
            "later, or lower --max-concurrency.",
        )
    return None


def _openai_failure(error: BaseException) -> SystemicFailure | None:
    """The systemic failure behind an openai SDK error, with the client layer's message."""
    import openai

    chain = list(error_chain(error))
    sdk = next((e for e in chain if isinstance(e, openai.APIError)), None)
    if sdk is None:
        return None
    told = next((e.kind for e in chain if isinstance(e, AgenticChunkingError) and e.kind), None)
    kind = told or failure_kind(sdk)
    if kind is None:
        return None
    return SystemicFailure(kind, str(error))


def _not_found(sdk: BaseException, model: str, judge_model: str | None) -> SystemicFailure:
    url = _url(sdk)
    path = _path(sdk)
    if path is not None and path.rstrip("/") != MESSAGES_PATH:
        return SystemicFailure(
            "base_url",
            f"HTTP 404 at {url}: no Messages API at that path, so the base URL is wrong. "
            f"The SDK adds {MESSAGES_PATH} itself: set {BASE_URL_ENV_VAR} to the server's "
            "root (e.g. https://api.anthropic.com, without /v1).",
        )
    if _is_judge(sdk, model, judge_model):
        return SystemicFailure(
            "model_unknown",
            f"the judge model {judge_model!r} was not found (HTTP 404 not_found_error): the "
            f"id is unknown or retired; the pipeline model {model!r} answered. Choose the "
            f"judge with --judge-model ({models_to_choose_from()}), or skip it with "
            "--no-judge.",
        )
    return SystemicFailure(
        "model_unknown",
        f"the model {_requested_model(sdk) or model!r} was not found (HTTP 404 "
        "not_found_error): the id is unknown or retired. Choose another with --model "
        f"({models_to_choose_from()}).",
    )


def _detail(sdk: BaseException) -> str:
    message = getattr(sdk, "api_message", None) or getattr(sdk, "message", None)
    return str(message or type(sdk).__name__)


def _url(sdk: BaseException) -> str:
    request = getattr(sdk, "request", None)
    return "" if request is None else str(request.url)


def _path(sdk: BaseException) -> str | None:
    request = getattr(sdk, "request", None)
    return None if request is None else str(request.url.path)


def _root_cause(sdk: BaseException) -> str:
    last = list(error_chain(sdk))[-1]
    return f"{type(last).__name__}: {last}" if last is not sdk else str(sdk)
