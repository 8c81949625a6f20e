"""What a model call is configured by: model id, key and URL variables, timeout, limits.

Every value comes from an argument, else an environment variable, else a documented
default; a malformed one is refused with a ConfigurationError (or InputError for an
option) naming it, before any call. ``shown_url`` is how a URL appears in a message:
never with the credentials or query string it may carry.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from ._errors import ConfigurationError, InputError

DEFAULT_MODEL = "claude-3-7-sonnet-20250219"
"""The model seed 000 tested (Claude 3.7 Sonnet)."""

MODEL_ENV_VAR = "AGENTIC_CHUNKING_MODEL"
API_KEY_ENV_VAR = "ANTHROPIC_API_KEY"
BASE_URL_ENV_VAR = "ANTHROPIC_BASE_URL"
REPLAY_API_KEY = "replay-needs-no-key"
"""The dummy key a replay client carries: the SDK refuses to build a request without one."""
SUGGESTED_MODEL = "claude-sonnet-4-6"
"""A current model id offered when the requested one is unknown or retired."""

DEFAULT_MAX_RETRIES = 2
TIMEOUT_ENV_VAR = "AGENTIC_CHUNKING_TIMEOUT"
DEFAULT_TIMEOUT_S = 120.0
"""Seconds one attempt of a model call may take (the SDK's own default is 600)."""
CONNECT_TIMEOUT_S = 5.0

NONSTREAMING_MAX_TOKENS = 21_333
"""The largest max_tokens the SDK sends without streaming: it refuses a call whose expected
time, 3600 s * max_tokens / 128000, exceeds 600 s (anthropic ``_calculate_nonstreaming_timeout``).
Some models have a lower limit (``anthropic._constants.MODEL_NONSTREAMING_TOKENS``)."""


def resolve_model(model: str | None = None) -> str:
    """Return the model id: ``model`` if given, else ``$AGENTIC_CHUNKING_MODEL``, else the default.

    The id is passed through untouched (``reference``, used by the suite, included).
    """
    if model is not None and model.strip():
        return model.strip()
    from_env = os.environ.get(MODEL_ENV_VAR, "").strip()
    return from_env or DEFAULT_MODEL


def resolve_timeout(timeout: float | None = None) -> float:
    """Seconds per call attempt: ``timeout``, else ``$AGENTIC_CHUNKING_TIMEOUT``, else 120.

    Raises ConfigurationError for a value that is not a positive number of seconds.
    """
    if timeout is not None:
        source, raw = "the timeout", str(timeout)
    else:
        raw = os.environ.get(TIMEOUT_ENV_VAR, "").strip()
        source = TIMEOUT_ENV_VAR
        if not raw:
            return DEFAULT_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise ConfigurationError(
            f"{source} is {raw!r}; expected a positive number of seconds, e.g. 120"
        )
    return seconds


def max_tokens_limit(model: str) -> int:
    """The largest ``max_tokens`` one non-streaming call to ``model`` may ask for."""
    try:
        from anthropic._constants import MODEL_NONSTREAMING_TOKENS
    except ImportError:  # pragma: no cover - a future SDK may move it
        return NONSTREAMING_MAX_TOKENS
    return min(
        NONSTREAMING_MAX_TOKENS, MODEL_NONSTREAMING_TOKENS.get(model, NONSTREAMING_MAX_TOKENS)
    )


def check_max_tokens(model: str, **max_tokens: int) -> None:
    """Raise InputError, before any call, when a max_tokens would need streaming.

    Keywords name the option (``extraction_max_tokens=...``); the message names it as a
    command-line flag and gives the limit.
    """
    limit = max_tokens_limit(model)
    for name, value in max_tokens.items():
        if value > limit:
            flag = "--" + name.replace("_", "-")
            raise InputError(
                f"{flag} {value} is above {limit}, the most one call to {model!r} may ask "
                f"for without streaming (the SDK refuses it); give {flag} {limit} or less"
            )


def shown_url(url: object) -> str:
    """``url`` fit for a message: credentials (``user:key@``) and the query string removed."""
    return re.sub(r"//[^/@]*@", "//***@", str(url)).split("?", 1)[0]


def check_base_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = shown_url(url)
        raise ConfigurationError(
            f"the base URL {shown!r} is not an http(s) URL with a host; set "
            f"{BASE_URL_ENV_VAR} to e.g. https://api.anthropic.com (or unset it to use the "
            "Anthropic API)"
        )
