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
- the API key is never logged, echoed or put in a message;
- the Message Batches wire format (``messages.batches``) is here too, behind the batch
  engine's Provider interface (``_registry``): a batch request's ``params`` are
  ``message_params``, the body ``call`` sends; each result becomes a BatchResult of its
  kind (an error the same request meets again, NOT_RETRIED, is ``invalid``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._errors import ConfigurationError, ModelCallError
from .._models import CallUsage
from .._shown import quote, remember_request, remember_secret
from ._batch_records import BatchProgress, BatchResult, InFlight, check_whole
from ._calls import (
    ModelReply,
    ModelRequest,
    env_value,
    notify_while_waiting,
    request_path,
    too_large_advice,
    where,
)
from ._config import (
    ANTHROPIC,
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


NAME = ANTHROPIC
"""The provider this module speaks for (``_registry``)."""
KEY_ENV_VAR = API_KEY_ENV_VAR
"""The environment variable its API key is read from."""
URL_ENV_VAR = BASE_URL_ENV_VAR
"""The environment variable its base URL is read from."""
BATCH_LIMITS = (100_000, 256 * 1024 * 1024)
"""Requests and bytes one Message Batch may hold: "100,000 Message requests or 256 MB in
size, whichever is reached first" (the batch guide; the SDK's docstring says the same)."""
BATCH_PER_MODEL = False
"""A Message Batch may mix models."""
FAILURE_MESSAGES_FINAL = False
"""A run-level failure (the key rejected, ...) is told in the suite's own words, naming
the pipeline's or the judge's model (``suite._systemic``), not in this module's."""
MESSAGES_PATH = "/v1/messages"
_NOT_RETRIED = frozenset(
    {
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "not_found_error",
        "request_too_large",
        "billing_error",
    }
)
"""Error types of a batch request that the same request meets again: not worth another
round."""


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


def call(
    client: anthropic.Anthropic,
    request: ModelRequest,
    *,
    stage: str,
    batch: int | None,
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
    here = where(stage, batch)
    model = request.model
    params = request_body(request)
    temperature = params.pop("temperature")
    try:
        with notify_while_waiting(on_wait, here, client.timeout):
            message = client.messages.create(**params, extra_body={"temperature": temperature})
    except anthropic.APIError as exc:
        raise translate_error(exc, stage=stage, batch=batch, model=model, client=client) from exc
    except json.JSONDecodeError as exc:  # a cut-off or invalid JSON body
        raise _not_a_message(
            here, client, f"invalid JSON ({quote(str(exc))})", stage, batch
        ) from exc
    if not isinstance(message, anthropic.types.Message):  # e.g. an HTML page with HTTP 200
        raise _not_a_message(
            here, client, f"not JSON: {quote(str(message), limit=80)!r}", stage, batch
        )
    latency = time.perf_counter() - started
    try:
        return message_reply(message, stage=stage, batch=batch, model=model, latency_s=latency)
    except (AttributeError, TypeError) as exc:  # JSON, but not the shape of a Message
        raise _not_a_message(here, client, f"JSON, but {exc}", stage, batch) from exc


def request_body(request: ModelRequest) -> dict[str, Any]:
    """The body of ``request`` as sent (``message_params``)."""
    return message_params(
        model=request.model,
        system=request.system,
        messages=request.messages,
        max_tokens=request.max_tokens,
    )


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


def owns(exc: BaseException) -> bool:
    """Whether ``exc`` is an error of this provider's SDK (one ``translate_error`` reads)."""
    import anthropic

    return isinstance(exc, anthropic.APIError)


def translate_error(
    exc: anthropic.APIError,
    *,
    stage: str,
    batch: int | None,
    model: str,
    client: anthropic.Anthropic,
) -> ConfigurationError | ModelCallError:
    """Turn an SDK error that survived the retries into one of ours: its message, and its
    ``kind`` (``failure_kind``: what it means for the run, None for this request's own)."""
    import anthropic

    here = where(stage, batch)
    error: ConfigurationError | ModelCallError
    if isinstance(exc, anthropic.NotFoundError):
        error = _not_found(
            exc, where=here, model=model, source=url_source(client, BASE_URL_ENV_VAR)
        )
    elif isinstance(exc, anthropic.APIStatusError):
        error = _status_error(exc, here, stage, batch, client)
    else:
        error = _transport_error(exc, here, stage, batch, client)
    error.kind = failure_kind(exc)
    return error


def _status_error(
    exc: anthropic.APIStatusError,
    here: str,
    stage: str,
    batch: int | None,
    client: anthropic.Anthropic,
) -> ConfigurationError | ModelCallError:
    """An HTTP error but a 404: the request too large, the key rejected, or another."""
    import anthropic

    if exc.status_code == 413:
        return ModelCallError(
            f"{here}: the request is too large for the server (HTTP 413 request_too_large); "
            f"{too_large_advice(stage)}.",
            stage=stage,
            batch=batch,
        )
    if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        return ConfigurationError(
            f"{here}: the API key was rejected (HTTP {exc.status_code}: "
            f"{quote(exc.api_message or exc.type or 'authentication failed')}). Check "
            f"{API_KEY_ENV_VAR} (and {url_source(client, BASE_URL_ENV_VAR)} if you use another "
            "server)."
        )
    detail = quote(exc.api_message or str(exc))
    return ModelCallError(
        f"{here} failed with HTTP {exc.status_code} ({exc.type or 'error'}): {detail}; "
        + _status_advice(exc.status_code),
        stage=stage,
        batch=batch,
    )


def _transport_error(
    exc: anthropic.APIError, here: str, stage: str, batch: int | None, client: anthropic.Anthropic
) -> ModelCallError:
    """No HTTP answer: the timeout on every attempt, or no connection."""
    import anthropic

    server = _failed_host(exc, client)
    if isinstance(exc, anthropic.APITimeoutError):
        return ModelCallError(
            f"{here}: no reply from {server} within the {_seconds(client)} timeout, "
            f"on each of {client.max_retries + 1} attempts. Try again later, or give more "
            f"time with {TIMEOUT_ENV_VAR}=SECONDS (or `chunk --timeout SECONDS`).",
            stage=stage,
            batch=batch,
        )
    cause = exc.__cause__
    detail = quote(f"{type(cause).__name__}: {cause}" if cause is not None else str(exc))
    return ModelCallError(
        f"{here} failed before a reply arrived: could not reach {server} "
        f"({detail}); the SDK's retries did not help. Check the network and "
        f"{_unset_it(client)}.",
        stage=stage,
        batch=batch,
    )


def failure_kind(exc: BaseException) -> str | None:
    """What an anthropic SDK error that survived the retries means for a run (a kind of
    FAILURE_KINDS): ``key_rejected`` (401, 403), ``base_url`` (a 404 at a path other than
    /v1/messages), ``model_unknown`` (a 404 at /v1/messages), ``unreachable`` (no
    connection, or no reply in time), ``overloaded`` (429, 5xx); None for this request's
    own failure (a 400, a 413)."""
    import anthropic

    if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        return "key_rejected"
    if isinstance(exc, anthropic.NotFoundError):
        path = request_path(exc)
        wrong_path = path is not None and path.rstrip("/") != MESSAGES_PATH
        return "base_url" if wrong_path else "model_unknown"
    if isinstance(exc, anthropic.APIConnectionError):
        return "unreachable"
    if isinstance(exc, anthropic.APIStatusError) and (
        exc.status_code == 429 or exc.status_code >= 500
    ):
        return "overloaded"
    return None


def timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` is the SDK's timeout (connected, but no reply in time)."""
    import anthropic

    return isinstance(exc, anthropic.APITimeoutError)


def missing_credentials() -> str | None:
    """What to set before a live call (see ``_providers.missing_credentials``)."""
    if env_value(API_KEY_ENV_VAR):
        check_api_key(os.environ[API_KEY_ENV_VAR])
        return None
    return f"set {API_KEY_ENV_VAR} (and {BASE_URL_ENV_VAR} for another Messages-API server)"


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


# -- the Message Batches wire format (the batch engine's Provider interface) -------------


def batch_line(custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """A batch's entry for one request: ``{custom_id, params}``."""
    return {"custom_id": custom_id, "params": body}


def create_batch(client: anthropic.Anthropic, lines: Sequence[Mapping[str, Any]]) -> str:
    """Submit one Message Batch of ``lines``; its id."""
    made = client.messages.batches.create(requests=list(lines))  # type: ignore[arg-type]
    return str(made.id)


def input_ids(sdk: Callable[[], anthropic.Anthropic], batch_id: str) -> frozenset[str] | None:
    """None: the API does not list a batch's requests (the engine waits for its end);
    ``sdk`` is not called."""
    return None


def poll_batch(
    client: anthropic.Anthropic, batch: InFlight
) -> BatchProgress | dict[str, BatchResult]:
    """Retrieve ``batch``: its progress while it runs, each request's result once it has
    ended (IncompleteResults when the download lacks some)."""
    state = client.messages.batches.retrieve(batch.batch_id)
    if state.processing_status == "ended":
        return _results(client, batch)
    c = state.request_counts
    return BatchProgress(
        batch.provider,
        batch.batch_id,
        batch.round,
        str(state.processing_status),
        c.processing + c.succeeded + c.errored + c.canceled + c.expired,
        c.processing,
        succeeded=c.succeeded,
        errored=c.errored,
        canceled=c.canceled,
        expired=c.expired,
    )


def _results(client: anthropic.Anthropic, batch: InFlight) -> dict[str, BatchResult]:
    results: dict[str, BatchResult] = {}
    for line in client.messages.batches.results(batch.batch_id):
        results[line.custom_id] = _result(line.result)
    check_whole(batch, results)  # the API gives a result for every request of a batch
    return results


def _result(outcome: Any) -> BatchResult:
    """One request's outcome, as the engine reads it."""
    if outcome.type == "succeeded":
        try:
            reply = message_reply(
                outcome.message, stage="", batch=None, model="", latency_s=0.0, batched=True
            )
        except (AttributeError, TypeError) as exc:
            return BatchResult("errored", detail=f"not a message: {exc}")
        return BatchResult("succeeded", reply)
    if outcome.type == "errored":
        error = getattr(getattr(outcome, "error", None), "error", None)
        kind = getattr(error, "type", "api_error")
        detail = f"{kind}: {getattr(error, 'message', '')}"
        return BatchResult("invalid" if kind in _NOT_RETRIED else "errored", detail=detail)
    return BatchResult(str(outcome.type))  # canceled, expired
