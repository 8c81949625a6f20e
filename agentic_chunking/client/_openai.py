"""The one place that talks to an OpenAI-compatible Chat Completions API (the official
``openai`` SDK): OpenAI itself, Azure OpenAI's v1 endpoint, vLLM, llama.cpp's server,
Ollama, LM Studio.

Guarantees, the same as ``_anthropic``'s for the same faults:
- every request carries ``temperature: 0`` and ``max_tokens``, the system prompt as the
  first message; the SDK retries 429, 5xx and connection errors (``max_retries``);
- a reply's ``finish_reason`` is given the Messages API's name (STOP_REASONS): ``length``
  is ``max_tokens`` (the same cut), ``stop`` is ``end_turn``, ``content_filter`` (or a
  ``refusal`` in the message) is ``refusal``; so the conversation loop judges both alike;
- what survives the retries becomes a ConfigurationError (no key when the server wants
  one, the key rejected, the model unknown, naming the models the server lists at
  ``/v1/models`` when it has that route, a base URL that is malformed or has the wrong
  path) or a ModelCallError naming the stage and batch, raised ``from`` the SDK error; so
  does an HTTP 200 whose body is not a chat completion (an HTML page, cut JSON);
- the key comes from the argument, else ``OPENAI_API_KEY``; it may be missing only when a
  base URL (argument, else ``OPENAI_BASE_URL``) names another server (a local one needs
  none): a placeholder is sent then, and a 401 says the server wants a key. The key is
  never logged, echoed or put in a message;
- the Batch API's wire format (``files`` + ``batches``) is here too, behind the batch
  engine's Provider interface (``_registry``): an input line's ``body`` is ``chat_body``,
  the body ``call`` sends; a batch names one model (BATCH_PER_MODEL); each line of the
  output and error files becomes a BatchResult of its kind.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from .._errors import ConfigurationError, ModelCallError
from .._models import CallUsage
from .._shown import remember_request
from ._batch_records import (
    TRANSIENT_STATUSES,
    BatchProgress,
    BatchResult,
    InFlight,
    check_whole,
)
from ._calls import (
    ModelReply,
    ModelRequest,
    env_value,
    notify_while_waiting,
    too_large_advice,
    where,
)
from ._config import (
    CONNECT_TIMEOUT_S,
    DEFAULT_MAX_RETRIES,
    MODEL_ENV_VAR,
    OPENAI,
    OPENAI_API_KEY_ENV_VAR,
    OPENAI_BASE_URL_ENV_VAR,
    OPENAI_DEFAULT_BASE_URL,
    TIMEOUT_ENV_VAR,
    check_api_key,
    check_base_url,
    note_url_source,
    pick_api_key,
    pick_base_url,
    resolve_timeout,
    shown_url,
    url_source,
)
from ._limits import RequestLimits, sdk_http_client

if TYPE_CHECKING:  # the SDK takes seconds to import: load it only when a call is made
    import openai

NAME = OPENAI
"""The provider this module speaks for (``_registry``)."""
KEY_ENV_VAR = OPENAI_API_KEY_ENV_VAR
"""The environment variable its API key is read from."""
URL_ENV_VAR = OPENAI_BASE_URL_ENV_VAR
"""The environment variable its base URL is read from."""
BATCH_LIMITS = (50_000, 200 * 1024 * 1024)
"""Requests and bytes one batch may hold: an input file of "up to 50,000 requests, and up
to 200 MB in size" (the Batch API guide; the SDK's docstring says the same)."""
BATCH_PER_MODEL = True
"""A batch's input file names one model: a round makes one batch per model."""
FAILURE_MESSAGES_FINAL = True
"""A run-level failure's message here is the run's (the models the server lists, the
variables to set): the suite shows it as it is."""
ENDPOINT: Final = "/v1/chat/completions"
"""The endpoint of every batch input line."""
NO_KEY = "no-key-given"
"""The placeholder key sent to a server named by a base URL when no key is set (the SDK
refuses to build a client without one); a 401 then means the server wants a key."""

STOP_REASONS: Mapping[str | None, str | None] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "content_filter": "refusal",
}
"""Chat Completions ``finish_reason`` -> the Messages API's ``stop_reason`` (others kept)."""

COMPLETIONS_PATH = "/chat/completions"
"""What the SDK appends to the base URL; the base URL must end where the API's routes start
(``https://api.openai.com/v1``, ``http://localhost:11434/v1``)."""
MODELS_LISTED = 12
"""How many of the models a server lists an unknown-model message names."""


def make_client(
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    timeout: float | None = None,
    offline: bool = False,
    limits: RequestLimits | None = None,
) -> openai.OpenAI:
    """Build an SDK client from the arguments, else ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``.

    Raises ConfigurationError when there is no key for OpenAI's own API, or the base URL
    or timeout is malformed.
    """
    import openai

    key, key_source = pick_api_key(api_key, OPENAI_API_KEY_ENV_VAR)
    if key:
        check_api_key(key, source=key_source)
    url, url_from = pick_base_url(base_url, OPENAI_BASE_URL_ENV_VAR)
    if url is not None:
        check_base_url(
            url,
            variable=url_from,
            example="http://localhost:11434/v1",
            api="OpenAI's API",
        )
    if not key and url is None:
        raise ConfigurationError(
            f"no OpenAI API key: the environment variable {OPENAI_API_KEY_ENV_VAR} is not "
            f"set. Export your key as {OPENAI_API_KEY_ENV_VAR}, or set "
            f"{OPENAI_BASE_URL_ENV_VAR} to an OpenAI-compatible server that needs none "
            "(e.g. http://localhost:11434/v1 for Ollama)."
        )
    seconds = resolve_timeout(timeout)
    client = openai.OpenAI(
        api_key=key or NO_KEY,
        base_url=url or OPENAI_DEFAULT_BASE_URL,
        max_retries=max_retries,
        timeout=openai.Timeout(seconds, connect=min(CONNECT_TIMEOUT_S, seconds)),
        http_client=sdk_http_client(offline=offline, limits=limits),
    )
    remember_request({**client.default_headers, **client.auth_headers}, client.base_url)
    note_url_source(client, url_from)
    return client


def call(
    client: openai.OpenAI,
    request: ModelRequest,
    *,
    stage: str,
    batch: int | None,
    on_wait: Callable[[str], None] | None = None,
) -> ModelReply:
    """Send one Chat Completions request at temperature 0 and return its reply.

    ``request.model`` is the name on the server (without ``openai:``); the usage records
    it with the prefix (``openai:<the model the server says answered>``), so prices and
    results name the provider. Raises ConfigurationError or ModelCallError (see the module).
    """
    import openai

    started = time.perf_counter()
    here = where(stage, batch)
    model = request.model
    body = request_body(request)
    try:
        with notify_while_waiting(on_wait, here, client.timeout):
            completion = client.chat.completions.create(**body)
    except openai.APIError as exc:
        raise translate_error(exc, stage=stage, batch=batch, model=model, client=client) from exc
    except json.JSONDecodeError as exc:  # a cut-off or invalid JSON body
        raise _not_a_completion(here, client, f"invalid JSON ({exc})", stage, batch) from exc
    except Exception as exc:  # what the transport raised and the SDK let through unwrapped
        # (the anthropic SDK wraps these as APIConnectionError; e.g. vcrpy's refusal to play)
        raise _no_reply(here, client, f"{type(exc).__name__}: {exc}", stage, batch) from exc
    if not isinstance(completion, openai.types.chat.ChatCompletion):  # e.g. an HTML page
        shown = " ".join(str(completion).split())[:80]
        raise _not_a_completion(here, client, f"not JSON: {shown!r}", stage, batch)
    latency = time.perf_counter() - started
    try:
        return completion_reply(
            completion, stage=stage, batch=batch, model=model, latency_s=latency
        )
    except (AttributeError, TypeError, IndexError) as exc:  # JSON, not a ChatCompletion
        what = f"JSON, but {type(exc).__name__}: {exc}"
        raise _not_a_completion(here, client, what, stage, batch) from exc


def request_body(request: ModelRequest) -> dict[str, Any]:
    """The body of ``request`` as sent (``chat_body``)."""
    return chat_body(
        model=request.model,
        system=request.system,
        messages=request.messages,
        max_tokens=request.max_tokens,
    )


def chat_body(
    *, model: str, system: str, messages: Sequence[Mapping[str, str]], max_tokens: int
) -> dict[str, Any]:
    """The body of one Chat Completions request at temperature 0, exactly as sent: by
    ``call_openai`` and as a batch input line's ``body`` (``_batch``)."""
    return {
        "model": model,
        "messages": [{"role": "system", "content": system}, *[dict(m) for m in messages]],
        "temperature": 0,
        "max_tokens": max_tokens,
    }


def completion_reply(
    completion: openai.types.chat.ChatCompletion,
    *,
    stage: str,
    batch: int | None,
    model: str,
    latency_s: float,
    batched: bool = False,
) -> ModelReply:
    """The ModelReply of a chat ``completion``: its first choice, the finish reason in the
    Messages API's names, the usage under ``openai:<model>``; AttributeError, TypeError or
    IndexError when it is not the shape of a ChatCompletion."""
    choice = completion.choices[0]
    refused = bool(getattr(choice.message, "refusal", None))
    stop_reason = (
        "refusal" if refused else STOP_REASONS.get(choice.finish_reason, choice.finish_reason)
    )
    usage = completion.usage
    record = CallUsage(
        stage=stage,
        batch=batch,
        model=f"{OPENAI}:{completion.model or model}",
        input_tokens=usage.prompt_tokens if usage is not None else 0,
        output_tokens=usage.completion_tokens if usage is not None else 0,
        stop_reason=stop_reason,
        latency_s=latency_s,
        batched=batched,
    )
    return ModelReply(text=choice.message.content or "", stop_reason=stop_reason, usage=record)


def _not_a_completion(
    where: str, client: openai.OpenAI, what: str, stage: str, batch: int | None
) -> ModelCallError:
    server = shown_url(client.base_url)
    return ModelCallError(
        f"{where}: the server at {server} answered HTTP 200 with a body that is not "
        f"a Chat Completions reply ({what}). Check {_source(client)}: it must point "
        "at an OpenAI-compatible API (ending in /v1), not a web page or a proxy that cuts "
        "replies.",
        stage=stage,
        batch=batch,
    )


def failure_kind(exc: BaseException, *, keyless: bool | None = None) -> str | None:
    """What an openai SDK error that survived the retries means for a run: ``no_key``,
    ``key_rejected``, ``model_unknown``, ``base_url``, ``unreachable`` or ``overloaded``
    (every later call would meet it too), or None (this request's own, e.g. a 400).

    ``keyless`` says whether the client that sent the request had no key (the placeholder
    went out); when None it is read from the request's Authorization header, which SDK
    releases that authenticate in a later hook (openai 3.60 and newer) no longer record.
    """
    import openai

    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        if keyless is None:
            headers = getattr(getattr(exc, "request", None), "headers", {})
            keyless = headers.get("authorization", "") == f"Bearer {NO_KEY}"
        return "no_key" if keyless else "key_rejected"
    if isinstance(exc, openai.NotFoundError):
        return "model_unknown" if _names_a_model(exc) else "base_url"
    if isinstance(exc, openai.APIConnectionError):
        return "unreachable"
    if isinstance(exc, openai.APIStatusError) and (
        exc.status_code == 429 or exc.status_code >= 500
    ):
        return "overloaded"
    return None


def owns(exc: BaseException) -> bool:
    """Whether ``exc`` is an error of this provider's SDK (one ``translate_error`` reads)."""
    import openai

    return isinstance(exc, openai.APIError)


def timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` is the SDK's timeout (connected, but no reply in time)."""
    import openai

    return isinstance(exc, openai.APITimeoutError)


def translate_error(
    exc: openai.APIError,
    *,
    stage: str,
    batch: int | None,
    model: str,
    client: openai.OpenAI,
) -> ConfigurationError | ModelCallError:
    """Turn an SDK error that survived the retries into one of ours: its message, and its
    ``kind`` (``failure_kind``: what it means for the run, None for this request's own)."""

    here = where(stage, batch)
    kind = failure_kind(exc, keyless=client.api_key == NO_KEY)
    error: ConfigurationError | ModelCallError | None = _configuration_error(
        exc, kind=kind, where=here, model=model, client=client
    )
    if error is None:
        error = _call_error(exc, here, stage, batch, client)
    error.kind = kind
    return error


def _configuration_error(
    exc: openai.APIError, *, kind: str | None, where: str, model: str, client: openai.OpenAI
) -> ConfigurationError | None:
    """The error of a failure ``kind`` no other call escapes (the key, the model, the base
    URL); None for the others."""
    detail = _detail(exc)
    server = shown_url(client.base_url)
    status = getattr(exc, "status_code", 401)
    if kind == "no_key":
        return ConfigurationError(
            f"{where}: no OpenAI API key, and the server at {server} wants one (HTTP "
            f"{status}: {detail}). Export your key as {OPENAI_API_KEY_ENV_VAR}."
        )
    if kind == "key_rejected":
        return ConfigurationError(
            f"{where}: the API key was rejected (HTTP {status}: "
            f"{detail}). Check {OPENAI_API_KEY_ENV_VAR} (and {_source(client)} if you "
            "use another server)."
        )
    if kind == "model_unknown":
        return ConfigurationError(
            f"{where}: the model {f'{OPENAI}:{model}'!r} was not found (HTTP 404: {detail}): "
            f"the id is unknown to the server at {server}. Choose another with --model or "
            f"{MODEL_ENV_VAR} ({models_the_server_lists(client)})."
        )
    if kind == "base_url":
        url = shown_url(exc.request.url)
        return ConfigurationError(
            f"{where}: HTTP 404 not found at {url}: check the base URL "
            f"({_source(client)}): it should be where the API's routes start, "
            f"usually ending in /v1 (e.g. {OPENAI_DEFAULT_BASE_URL} or "
            f"http://localhost:11434/v1), since {COMPLETIONS_PATH} is added to it."
        )
    return None


def _call_error(
    exc: openai.APIError, where: str, stage: str, batch: int | None, client: openai.OpenAI
) -> ModelCallError:
    """The error of a failed call the configuration does not explain: an HTTP error, the
    timeout on every attempt, no connection."""
    import openai

    if isinstance(exc, openai.APIStatusError) and exc.status_code == 413:
        return ModelCallError(
            f"{where}: the request is too large for the server (HTTP 413); "
            f"{too_large_advice(stage)}.",
            stage=stage,
            batch=batch,
        )
    if isinstance(exc, openai.APIStatusError):
        return ModelCallError(
            f"{where} failed with HTTP {exc.status_code} ({exc.type or exc.code or 'error'}): "
            f"{_detail(exc)}; the SDK's retries did not help. Try again later or lower "
            "--max-concurrency.",
            stage=stage,
            batch=batch,
        )
    if isinstance(exc, openai.APITimeoutError):
        limit = getattr(client.timeout, "read", client.timeout)
        seconds = f"{limit:g} s" if isinstance(limit, int | float) else "configured"
        return ModelCallError(
            f"{where}: no reply from {shown_url(client.base_url)} within the {seconds} "
            f"timeout, on each of {client.max_retries + 1} attempts. Try again later, or "
            f"give more time with --timeout SECONDS (or {TIMEOUT_ENV_VAR}).",
            stage=stage,
            batch=batch,
        )
    cause = exc.__cause__
    reason = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
    return _no_reply(where, client, reason, stage, batch)


def missing_credentials() -> str | None:
    """What to set before a live call (see ``_providers.missing_credentials``)."""
    if env_value(OPENAI_API_KEY_ENV_VAR):  # the key as set, whitespace and all: refused
        check_api_key(os.environ[OPENAI_API_KEY_ENV_VAR], source=OPENAI_API_KEY_ENV_VAR)
    if env_value(OPENAI_API_KEY_ENV_VAR) or env_value(OPENAI_BASE_URL_ENV_VAR):
        return None
    return (
        f"set {OPENAI_API_KEY_ENV_VAR} (or {OPENAI_BASE_URL_ENV_VAR} for a local "
        "OpenAI-compatible server that needs none)"
    )


def _no_reply(
    where: str, client: openai.OpenAI, reason: str, stage: str, batch: int | None
) -> ModelCallError:
    return ModelCallError(
        f"{where} failed before a reply arrived: could not reach {shown_url(client.base_url)} "
        f"({reason}); the SDK's retries did not help. Check the network and "
        f"{_source(client)} ({_how_to_drop(client)} to use OpenAI's API).",
        stage=stage,
        batch=batch,
    )


def _source(client: openai.OpenAI) -> str:
    """Where the client's base URL came from: ``--base-url`` or ``OPENAI_BASE_URL``."""
    return url_source(client, OPENAI_BASE_URL_ENV_VAR)


def _how_to_drop(client: openai.OpenAI) -> str:
    return "unset it" if _source(client) == OPENAI_BASE_URL_ENV_VAR else "leave it out"


def models_the_server_lists(client: openai.OpenAI) -> str:
    """A phrase naming the models the server lists at ``/v1/models`` (one quick request,
    no retries), or saying that it lists none."""
    try:
        page = client.with_options(max_retries=0, timeout=10.0).models.list()
        listed = [str(entry.id) for entry in page.data]
    except Exception:  # no such route, not JSON, no connection: the message says so
        return f"the server at {shown_url(client.base_url)} lists no models at /models"
    if not listed:
        return f"the server at {shown_url(client.base_url)} lists no models"
    shown = ", ".join(f"{OPENAI}:{m}" for m in listed[:MODELS_LISTED])
    more = f" and {len(listed) - MODELS_LISTED} more" if len(listed) > MODELS_LISTED else ""
    return f"models the server lists: {shown}{more}"


def _names_a_model(exc: Any) -> bool:
    """A 404 is about the model when the server says so (OpenAI's ``model_not_found``,
    vLLM's and Ollama's "model ... not found"), else it is about the path."""
    return exc.code == "model_not_found" or "model" in _detail(exc).lower()


def _detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping) and body.get("message"):
        return str(body["message"])
    if isinstance(body, str) and body.strip():
        return " ".join(body.split())[:120]
    return str(getattr(exc, "message", None) or type(exc).__name__)


# -- the Batch API's wire format (the batch engine's Provider interface) -----------------


def batch_line(custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """An input file's line for one request."""
    return {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}


def create_batch(client: openai.OpenAI, lines: Sequence[Mapping[str, Any]]) -> str:
    """Upload ``lines`` as a JSONL input file and submit its batch; the batch's id."""
    data = "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")
    upload = client.files.create(
        file=("agentic-chunking-batch.jsonl", data, "application/jsonl"),
        purpose="batch",
    )
    made = client.batches.create(
        input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h"
    )
    return str(made.id)


def input_ids(sdk: Callable[[], openai.OpenAI], batch_id: str) -> frozenset[str] | None:
    """The custom_ids of a batch, read from its input file (None when it cannot be read);
    ``sdk`` builds the client (a ConfigurationError from it is raised)."""
    try:
        client = sdk()
        state = client.batches.retrieve(batch_id)
        text = client.files.content(state.input_file_id).text
        return frozenset(json.loads(line)["custom_id"] for line in text.splitlines() if line)
    except (ConfigurationError, ModelCallError):
        raise
    except Exception:  # unreadable: treat it as a batch of unknown requests
        return None


def poll_batch(client: openai.OpenAI, batch: InFlight) -> BatchProgress | dict[str, BatchResult]:
    """Retrieve ``batch``: its progress while it runs, each request's result (from the
    output and error files) once it has ended (IncompleteResults when a completed batch's
    files lack some)."""
    state = client.batches.retrieve(batch.batch_id)
    if state.status in ("completed", "failed", "expired", "cancelled"):
        return _results(client, state, batch)
    counts = state.request_counts
    total = counts.total if counts is not None else 0
    done = counts.completed if counts is not None else 0
    failed = counts.failed if counts is not None else 0
    status = "canceling" if state.status == "cancelling" else "in_progress"
    return BatchProgress(
        batch.provider,
        batch.batch_id,
        batch.round,
        status,
        total,
        total - done - failed,
        succeeded=done,
        errored=failed,
    )


def _results(client: openai.OpenAI, state: Any, batch: InFlight) -> dict[str, BatchResult]:
    import openai

    results: dict[str, BatchResult] = {}
    for file_id in (state.output_file_id, state.error_file_id):
        if not file_id:
            continue
        for text in client.files.content(file_id).text.splitlines():
            if not text.strip():
                continue
            line = json.loads(text)
            results[str(line.get("custom_id"))] = _result(line, openai)
    missing = {
        "cancelled": BatchResult("canceled"),
        "expired": BatchResult("expired"),
        "failed": BatchResult("errored", detail=f"the batch failed: {_batch_errors(state)}"),
    }.get(state.status)
    if missing is None:  # completed: every request is in the output or the error file
        check_whole(batch, results)
    for custom_id in (batch.custom_ids or frozenset()) - results.keys():
        results[custom_id] = missing or BatchResult("errored", detail="not in the batch's output")
    return results


def _result(line: Mapping[str, Any], openai: Any) -> BatchResult:
    """One line of an output or error file, as the engine reads it."""
    error = line.get("error")
    if isinstance(error, Mapping):
        code = error.get("code")
        if code == "batch_expired":
            return BatchResult("expired")
        if code == "batch_cancelled":
            return BatchResult("canceled")
        return BatchResult("errored", detail=f"{code}: {error.get('message', '')}")
    response = line.get("response") or {}
    status = response.get("status_code")
    body = response.get("body") or {}
    if status == 200:
        try:
            completion = openai.types.chat.ChatCompletion.model_validate(body)
            reply = completion_reply(
                completion, stage="", batch=None, model="", latency_s=0.0, batched=True
            )
        except (ValueError, AttributeError, TypeError, IndexError) as exc:
            return BatchResult("errored", detail=f"not a chat completion: {exc}")
        return BatchResult("succeeded", reply)
    message = (body.get("error") or {}).get("message", "") if isinstance(body, Mapping) else ""
    retried = status in TRANSIENT_STATUSES or not isinstance(status, int) or status >= 500
    return BatchResult("errored" if retried else "invalid", detail=f"HTTP {status}: {message}")


def _batch_errors(state: Any) -> str:
    data = getattr(getattr(state, "errors", None), "data", None) or []
    return "; ".join(f"{e.code}: {e.message}" for e in data) or "no reason given"
