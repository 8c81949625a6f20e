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
as the pipeline model not found. What the failure is (its ``kind``) is never decided
here: the client layer's ``call_failure`` reads it (the kind the client put on the error,
``error.kind``); where the client's message is final (an ``openai`` SDK error: the
variables to set, the models the server lists) it is shown as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..client import (
    API_KEY_ENV_VAR,
    BASE_URL_ENV_VAR,
    FAILURE_KINDS,
    CallFailure,
    call_failure,
    models_to_choose_from,
)

MESSAGES_PATH = "/v1/messages"
#: Kinds of systemic failure (the client layer's FAILURE_KINDS).
SYSTEMIC_KINDS = FAILURE_KINDS


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
    failure = call_failure(error)
    if failure is None:
        return None
    if failure.final_message:
        return SystemicFailure(failure.kind, str(error))
    message = _message(failure, model, judge_model)
    if failure.kind == "model_unknown":
        return SystemicFailure(failure.kind, message)
    return SystemicFailure(failure.kind, f"{message} ({_whose(failure, model, judge_model)})")


def _is_judge(failure: CallFailure, model: str, judge_model: str | None) -> bool:
    asked = failure.requested_model
    return judge_model is not None and asked == judge_model and asked != model


def _whose(failure: CallFailure, model: str, judge_model: str | None) -> str:
    if _is_judge(failure, model, judge_model):
        return f"on a call to the judge model {judge_model!r}"
    return f"on a call to the pipeline model {failure.requested_model or model!r}"


def _message(failure: CallFailure, model: str, judge_model: str | None) -> str:
    """The suite's words for ``failure`` (a kind of SYSTEMIC_KINDS)."""
    url = failure.url or "the API"
    if failure.kind == "key_rejected":
        return (
            f"the API key was rejected (HTTP {failure.status}: {failure.detail}). Check "
            f"{API_KEY_ENV_VAR}, and {BASE_URL_ENV_VAR} if you use another server."
        )
    if failure.kind in ("base_url", "model_unknown"):
        return _not_found(failure, model, judge_model)
    if failure.kind == "unreachable" and failure.timed_out:  # connected, but no reply in time
        return (
            f"no reply from {url} within the timeout, on every attempt (the "
            "SDK's retries included). Try again later, or give each call more time with "
            "AGENTIC_CHUNKING_TIMEOUT=SECONDS."
        )
    if failure.kind == "unreachable":
        return (
            f"no connection to {url} ({failure.root_cause}), even after the SDK's "
            f"retries. Check the network, or {BASE_URL_ENV_VAR} if you set it."
        )
    return (
        f"the API answered HTTP {failure.status} ({failure.error_type or 'error'}: "
        f"{failure.detail}) even after the SDK's retries: the service is overloaded or "
        "failing. Try again later, or lower --max-concurrency."
    )


def _not_found(failure: CallFailure, model: str, judge_model: str | None) -> str:
    if failure.kind == "base_url":
        return (
            f"HTTP 404 at {failure.url}: no Messages API at that path, so the base URL is "
            f"wrong. The SDK adds {MESSAGES_PATH} itself: set {BASE_URL_ENV_VAR} to the "
            "server's root (e.g. https://api.anthropic.com, without /v1)."
        )
    if _is_judge(failure, model, judge_model):
        return (
            f"the judge model {judge_model!r} was not found (HTTP 404 not_found_error): the "
            f"id is unknown or retired; the pipeline model {model!r} answered. Choose the "
            f"judge with --judge-model ({models_to_choose_from()}), or skip it with "
            "--no-judge."
        )
    return (
        f"the model {failure.requested_model or model!r} was not found (HTTP 404 "
        "not_found_error): the id is unknown or retired. Choose another with --model "
        f"({models_to_choose_from()})."
    )
