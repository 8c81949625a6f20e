"""The one place that talks to the Anthropic Messages API (through the official SDK).

Guarantees:
- every request carries ``temperature: 0`` in its body (anthropic 2.x has no
  ``temperature`` keyword on ``messages.create``; it goes through ``extra_body``);
- 429, 529, other 5xx and connection errors are retried by the SDK itself
  (``max_retries``, default 2, honouring ``retry-after``);
- what survives those retries becomes a ConfigurationError (missing or rejected key,
  unknown model, a base URL that is malformed or points at the wrong path) or a
  ModelCallError naming the stage and batch, raised ``from`` the SDK error so callers can
  walk ``__cause__``; so does a reply that is not a Messages-API message (an HTML page,
  cut-off JSON), which the SDK would return as a string or raise as JSONDecodeError;
- each call waits at most ``timeout`` seconds (``--timeout``, ``$AGENTIC_CHUNKING_TIMEOUT``,
  default DEFAULT_TIMEOUT_S) per attempt, and ``on_wait`` hears about a call still in
  flight every WAIT_NOTICE_S seconds;
- a ``max_tokens`` that the SDK would only accept with streaming is refused by
  ``check_max_tokens`` before any call is made;
- the API key is never logged, echoed or put in a message.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._errors import ConfigurationError, ModelCallError
from .._models import CallUsage
from .._shown import quote, remember_request, remember_secret
from ._config import (
    API_KEY_ENV_VAR,
    BASE_URL_ENV_VAR,
    CONNECT_TIMEOUT_S,
    DEFAULT_MAX_RETRIES,
    MODEL_ENV_VAR,
    TIMEOUT_ENV_VAR,
    check_api_key,
    check_base_url,
    models_to_choose_from,
    note_url_source,
    pick_api_key,
    pick_base_url,
    resolve_timeout,
    shown_url,
    url_source,
)
from ._limits import RequestLimits, sdk_http_client
from ._prices import cache_min_tokens

if TYPE_CHECKING:  # the SDK takes seconds to import: load it only when a call is made
    import anthropic

__all__ = ["WAIT_NOTICE_S", "ModelReply", "call_model", "make_client"]

WAIT_NOTICE_S = 15.0
"""A call still in flight after this many seconds is reported through ``on_wait``."""


def make_client(
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    timeout: float | None = None,
    offline: bool = False,
    limits: RequestLimits | None = None,
) -> anthropic.Anthropic:
    """Build an SDK client from the arguments, else ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``.

    ``timeout`` (seconds per attempt) defaults to ``resolve_timeout()``. Raises
    ConfigurationError when no API key is available, the key is not of a key's shape
    (``check_api_key``: the message never shows it), or the base URL or timeout is
    malformed. The key is remembered as a secret for ``redact``.
    """
    import anthropic

    key, key_source = pick_api_key(api_key, API_KEY_ENV_VAR)
    if not key:
        raise ConfigurationError(
            f"no Anthropic API key: the environment variable {API_KEY_ENV_VAR} is not set. "
            f"Export your key as {API_KEY_ENV_VAR} (and {BASE_URL_ENV_VAR} to use another "
            "Messages-API server), or pass a ready client."
        )
    check_api_key(key, source=key_source)
    remember_secret(key)
    url, url_from = pick_base_url(base_url, BASE_URL_ENV_VAR)
    if url is not None:
        check_base_url(url, variable=url_from)
    seconds = resolve_timeout(timeout)
    client = anthropic.Anthropic(
        api_key=key,
        base_url=url,
        max_retries=max_retries,
        timeout=anthropic.Timeout(seconds, connect=min(CONNECT_TIMEOUT_S, seconds)),
        http_client=sdk_http_client(offline=offline, limits=limits),
    )
    remember_request({**client.default_headers, **client.auth_headers}, client.base_url)
    note_url_source(client, url_from)
    return client


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
    on_wait: Callable[[str], None] | None = None,
) -> ModelReply:
    """Send one Messages-API request at temperature 0 and return its reply.

    ``batch`` is the 1-based extraction batch number (None for grouping). Raises
    ConfigurationError or ModelCallError (see the module docstring); never returns a
    partial reply silently: ``stop_reason`` is returned for the caller to judge.
    ``on_wait`` gets a line every WAIT_NOTICE_S seconds while the call is in flight.
    """
    import anthropic

    started = time.perf_counter()
    where = _where(stage, batch)
    params = message_params(model=model, system=system, messages=messages, max_tokens=max_tokens)
    temperature = params.pop("temperature")
    try:
        with _notify_while_waiting(on_wait, where, client.timeout):
            message = client.messages.create(**params, extra_body={"temperature": temperature})
    except anthropic.APIError as exc:
        raise _translate(exc, stage=stage, batch=batch, model=model, client=client) from exc
    except json.JSONDecodeError as exc:  # a cut-off or invalid JSON body
        raise _not_a_message(
            where, client, f"invalid JSON ({quote(str(exc))})", stage, batch
        ) from exc
    if not isinstance(message, anthropic.types.Message):  # e.g. an HTML page with HTTP 200
        raise _not_a_message(
            where, client, f"not JSON: {quote(str(message), limit=80)!r}", stage, batch
        )
    latency = time.perf_counter() - started
    try:
        return message_reply(message, stage=stage, batch=batch, model=model, latency_s=latency)
    except (AttributeError, TypeError) as exc:  # JSON, but not the shape of a Message
        raise _not_a_message(where, client, f"JSON, but {exc}", stage, batch) from exc


def message_params(
    *, model: str, system: str, messages: Sequence[Mapping[str, str]], max_tokens: int
) -> dict[str, Any]:
    """The body of one Messages-API request at temperature 0, exactly as sent: by
    ``call_model`` (``temperature`` through ``extra_body``) and as a batch request's
    ``params`` (``_batch``), so a batched request is the synchronous one."""
    return {
        "model": model,
        "max_tokens": max_tokens,
        "system": _system(system, model),
        "messages": [dict(m) for m in messages],
        "temperature": 0,
    }


def message_reply(
    message: anthropic.types.Message,
    *,
    stage: str,
    batch: int | None,
    model: str,
    latency_s: float,
    batched: bool = False,
) -> ModelReply:
    """The ModelReply of a Messages-API ``message`` (its text blocks joined, its usage);
    AttributeError or TypeError when it is not the shape of a Message."""
    text = "".join(block.text for block in message.content if block.type == "text")
    usage = CallUsage(
        stage=stage,
        batch=batch,
        model=message.model or model,
        input_tokens=message.usage.input_tokens,
        output_tokens=message.usage.output_tokens,
        stop_reason=message.stop_reason,
        latency_s=latency_s,
        cache_write_tokens=message.usage.cache_creation_input_tokens or 0,
        cache_read_tokens=message.usage.cache_read_input_tokens or 0,
        batched=batched,
    )
    return ModelReply(text=text, stop_reason=message.stop_reason, usage=usage)


def _system(system: str, model: str) -> str | list[anthropic.types.TextBlockParam]:
    """The system prompt as sent: with ``cache_control`` (Anthropic's 5-minute prompt cache)
    when it is long enough for ``model`` to cache it (``cache_min_tokens``, by the
    characters / 4 estimate); a shorter one is sent as plain text, since the API would
    ignore the marker."""
    if len(system) // 4 < cache_min_tokens(model):
        return system
    return [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]


def _where(stage: str, batch: int | None) -> str:
    return f"{stage} call" if batch is None else f"{stage} call for batch {batch}"


@contextmanager
def _notify_while_waiting(
    on_wait: Callable[[str], None] | None, where: str, timeout: Any
) -> Iterator[None]:
    """Call ``on_wait`` every WAIT_NOTICE_S seconds until the block ends."""
    if on_wait is None:
        yield
        return
    done = threading.Event()
    started = time.monotonic()
    limit = getattr(timeout, "read", timeout)
    per_attempt = (
        f"; the timeout is {limit:g} s per attempt" if isinstance(limit, int | float) else ""
    )

    def notify() -> None:
        while not done.wait(WAIT_NOTICE_S):
            waited = time.monotonic() - started
            on_wait(f"{where}: still waiting for the model ({waited:.0f} s so far{per_attempt})")

    notifier = threading.Thread(target=notify, name="wait-notice", daemon=True)
    notifier.start()
    try:
        yield
    finally:
        done.set()


def _not_a_message(
    where: str, client: anthropic.Anthropic, what: str, stage: str, batch: int | None
) -> ModelCallError:
    server = shown_url(client.base_url)
    return ModelCallError(
        f"{where}: the server at {server} answered HTTP 200 with a body that is not "
        f"a Messages-API reply ({what}). Check {url_source(client, BASE_URL_ENV_VAR)}: it "
        "must point at an Anthropic Messages API, not a web page or a proxy that cuts replies.",
        stage=stage,
        batch=batch,
    )


def _translate(
    exc: anthropic.APIError,
    *,
    stage: str,
    batch: int | None,
    model: str,
    client: anthropic.Anthropic,
) -> ConfigurationError | ModelCallError:
    """Turn an SDK error that survived the retries into one of ours (message only)."""
    import anthropic

    where = _where(stage, batch)
    if isinstance(exc, anthropic.NotFoundError):
        return _not_found(
            exc, where=where, model=model, source=url_source(client, BASE_URL_ENV_VAR)
        )
    if isinstance(exc, anthropic.APIStatusError) and exc.status_code == 413:
        advice = (
            "lower --max-tokens-per-batch so each batch is smaller"
            if stage == "extraction"
            else "chunk the document in parts: the grouping call carries every proposition"
        )
        return ModelCallError(
            f"{where}: the request is too large for the server (HTTP 413 request_too_large); "
            f"{advice}.",
            stage=stage,
            batch=batch,
        )
    if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        return ConfigurationError(
            f"{where}: the API key was rejected (HTTP {exc.status_code}: "
            f"{quote(exc.api_message or exc.type or 'authentication failed')}). Check "
            f"{API_KEY_ENV_VAR} (and {url_source(client, BASE_URL_ENV_VAR)} if you use another "
            "server)."
        )
    if isinstance(exc, anthropic.APIStatusError):
        detail = quote(exc.api_message or str(exc))
        return ModelCallError(
            f"{where} failed with HTTP {exc.status_code} ({exc.type or 'error'}): {detail}; "
            + _status_advice(exc.status_code),
            stage=stage,
            batch=batch,
        )
    server = _failed_host(exc, client)
    if isinstance(exc, anthropic.APITimeoutError):
        return ModelCallError(
            f"{where}: no reply from {server} within the {_seconds(client)} timeout, "
            f"on each of {client.max_retries + 1} attempts. Try again later, or give more "
            f"time with {TIMEOUT_ENV_VAR}=SECONDS (or `chunk --timeout SECONDS`).",
            stage=stage,
            batch=batch,
        )
    cause = exc.__cause__
    detail = quote(f"{type(cause).__name__}: {cause}" if cause is not None else str(exc))
    return ModelCallError(
        f"{where} failed before a reply arrived: could not reach {server} "
        f"({detail}); the SDK's retries did not help. Check the network and "
        f"{_unset_it(client)}.",
        stage=stage,
        batch=batch,
    )


def _status_advice(status: int) -> str:
    """What to do after an HTTP error the SDK's retries did not cure: a 4xx is the
    request's own problem, which waiting or fewer calls in flight never fixes."""
    if status in (408, 409, 429) or status >= 500:
        return (
            "the SDK's retries did not help. The server is busy or failing: try again later "
            "or with fewer calls in flight at once (`chunk` and the suite: --max-concurrency)."
        )
    return (
        "the server refused this request, so retrying it unchanged gives the same answer. "
        "Check the model id and the settings this request was sent with."
    )


def _failed_host(exc: anthropic.APIError, client: anthropic.Anthropic) -> str:
    """The URL that could not be reached: after a redirect, the host redirected to (the
    transport error's own request), not the first one; shown without credentials."""
    for error in (exc.__cause__, exc):
        try:
            url = error.request.url  # type: ignore[union-attr]
        except (AttributeError, RuntimeError):  # httpx raises RuntimeError when unset
            continue
        parts = urlsplit(str(url))
        if parts.scheme and parts.netloc:
            return shown_url(f"{parts.scheme}://{parts.netloc}")
    return shown_url(client.base_url)


def _seconds(client: anthropic.Anthropic) -> str:
    limit = getattr(client.timeout, "read", client.timeout)
    return f"{limit:g} s" if isinstance(limit, int | float) else "configured"


def _unset_it(client: anthropic.Anthropic) -> str:
    """Where the base URL is set, and how to go back to the Anthropic API."""
    source = url_source(client, BASE_URL_ENV_VAR)
    if source == BASE_URL_ENV_VAR:
        return f"{source} (unset it to use the Anthropic API)"
    return f"{source} (leave it out to use the Anthropic API)"


def _not_found(
    exc: anthropic.NotFoundError, *, where: str, model: str, source: str = BASE_URL_ENV_VAR
) -> ConfigurationError:
    """A 404 names the model only when the server says so; else it may be the base URL."""
    url = shown_url(exc.request.url)
    message = quote(exc.api_message or "")
    if "model" in message.lower():
        return ConfigurationError(
            f"{where}: the model {model!r} was not found (HTTP 404: {message}): the id is "
            f"unknown or retired. Choose another with --model or {MODEL_ENV_VAR} "
            f"({models_to_choose_from()})."
        )
    path = urlsplit(url).path
    if path != "/v1/messages":
        return ConfigurationError(
            f"{where}: HTTP 404 not found at {url}: check the base URL ({source}): "
            "it should be the server's root (e.g. https://api.anthropic.com, without /v1), "
            "since /v1/messages is added to it."
        )
    return ConfigurationError(
        f"{where}: HTTP 404 not found at {url} ({message or 'no detail'}): either the model "
        f"{model!r} is unknown or retired (choose another with --model; "
        f"{models_to_choose_from()}), "
        f"or {source} points at a server without the Messages API."
    )
