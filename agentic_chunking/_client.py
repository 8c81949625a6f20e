"""The one place that talks to the Anthropic Messages API (through the official SDK).

Guarantees:
- every request carries ``temperature: 0`` in its body (anthropic 2.x has no
  ``temperature`` keyword on ``messages.create``; it goes through ``extra_body``);
- 429, 529, other 5xx and connection errors are retried by the SDK itself
  (``max_retries``, default 2, honouring ``retry-after``);
- what survives those retries becomes a ConfigurationError (missing or rejected key,
  unknown model) or a ModelCallError naming the stage and batch, raised ``from`` the SDK
  error so callers can walk ``__cause__``;
- the API key is never logged, echoed or put in a message.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._errors import ConfigurationError, ModelCallError
from ._models import CallUsage

if TYPE_CHECKING:  # the SDK takes seconds to import: load it only when a call is made
    import anthropic

DEFAULT_MODEL = "claude-3-7-sonnet-20250219"
"""The model seed 000 tested (Claude 3.7 Sonnet)."""

MODEL_ENV_VAR = "AGENTIC_CHUNKING_MODEL"
API_KEY_ENV_VAR = "ANTHROPIC_API_KEY"
BASE_URL_ENV_VAR = "ANTHROPIC_BASE_URL"
SUGGESTED_MODEL = "claude-sonnet-4-5"
"""A current model id offered when the requested one is unknown or retired."""

DEFAULT_MAX_RETRIES = 2


def resolve_model(model: str | None = None) -> str:
    """Return the model id: ``model`` if given, else ``$AGENTIC_CHUNKING_MODEL``, else the default.

    The id is passed through untouched (``reference``, used by the suite, included).
    """
    if model is not None and model.strip():
        return model.strip()
    from_env = os.environ.get(MODEL_ENV_VAR, "").strip()
    return from_env or DEFAULT_MODEL


def make_client(
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    timeout: float | None = None,
) -> anthropic.Anthropic:
    """Build an SDK client from the arguments, else ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``.

    Raises ConfigurationError when no API key is available.
    """
    import anthropic

    key = api_key or os.environ.get(API_KEY_ENV_VAR, "").strip()
    if not key:
        raise ConfigurationError(
            f"no Anthropic API key: the environment variable {API_KEY_ENV_VAR} is not set. "
            f"Export your key as {API_KEY_ENV_VAR} (and {BASE_URL_ENV_VAR} to use another "
            "Messages-API server), or pass a ready client."
        )
    url = base_url or os.environ.get(BASE_URL_ENV_VAR, "").strip() or None
    options: dict[str, Any] = {"api_key": key, "base_url": url, "max_retries": max_retries}
    if timeout is not None:
        options["timeout"] = timeout
    return anthropic.Anthropic(**options)


@dataclass(frozen=True, slots=True)
class ModelReply:
    """The text of one reply, how it ended, and what it cost."""

    text: str
    stop_reason: str | None
    usage: CallUsage


def call_model(
    client: anthropic.Anthropic,
    *,
    stage: str,
    batch: int | None,
    model: str,
    system: str,
    messages: Sequence[Mapping[str, str]],
    max_tokens: int,
) -> ModelReply:
    """Send one Messages-API request at temperature 0 and return its reply.

    ``batch`` is the 1-based extraction batch number (None for grouping). Raises
    ConfigurationError or ModelCallError (see the module docstring); never returns a
    partial reply silently: ``stop_reason`` is returned for the caller to judge.
    """
    import anthropic

    started = time.perf_counter()
    try:
        message = client.messages.create(
            model=model,
            max_tokens=max_tokens,
            system=system,
            messages=[dict(m) for m in messages],  # type: ignore[misc]
            extra_body={"temperature": 0},
        )
    except anthropic.APIError as exc:
        raise _translate(exc, stage=stage, batch=batch, model=model) from exc
    latency = time.perf_counter() - started
    text = "".join(block.text for block in message.content if block.type == "text")
    usage = CallUsage(
        stage=stage,
        batch=batch,
        model=message.model or model,
        input_tokens=message.usage.input_tokens,
        output_tokens=message.usage.output_tokens,
        stop_reason=message.stop_reason,
        latency_s=latency,
    )
    return ModelReply(text=text, stop_reason=message.stop_reason, usage=usage)


def _where(stage: str, batch: int | None) -> str:
    return f"{stage} call" if batch is None else f"{stage} call for batch {batch}"


def _translate(
    exc: anthropic.APIError, *, stage: str, batch: int | None, model: str
) -> ConfigurationError | ModelCallError:
    """Turn an SDK error that survived the retries into one of ours (message only)."""
    import anthropic

    where = _where(stage, batch)
    if isinstance(exc, anthropic.NotFoundError):
        return ConfigurationError(
            f"{where}: the model {model!r} was not found (HTTP 404 not_found_error): the "
            f"id is unknown or retired. Choose another model, e.g. --model {SUGGESTED_MODEL} "
            f"or {MODEL_ENV_VAR}={SUGGESTED_MODEL}."
        )
    if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        return ConfigurationError(
            f"{where}: the API key was rejected (HTTP {exc.status_code}: "
            f"{exc.api_message or exc.type or 'authentication failed'}). Check "
            f"{API_KEY_ENV_VAR} (and {BASE_URL_ENV_VAR} if you use another server)."
        )
    if isinstance(exc, anthropic.APIStatusError):
        detail = exc.api_message or str(exc)
        return ModelCallError(
            f"{where} failed with HTTP {exc.status_code} ({exc.type or 'error'}): {detail}; "
            "the SDK's retries did not help. Try again later or lower --max-concurrency.",
            stage=stage,
            batch=batch,
        )
    return ModelCallError(
        f"{where} failed before a reply arrived ({type(exc).__name__}: {exc}); the SDK's "
        f"retries did not help. Check the network or {BASE_URL_ENV_VAR}.",
        stage=stage,
        batch=batch,
    )
