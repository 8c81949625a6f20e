"""What a model call is configured by: model id, key and URL variables, timeout, limits.

Every value comes from an argument, else an environment variable, else a documented
default; a malformed one is refused with a ConfigurationError (or InputError for an
option) naming it, before any call; ``check_api_key`` refuses a key of the wrong shape
without ever echoing it. ``shown_url`` is how a URL appears in a message: never with the
credentials or query string it may carry (through the one redaction function,
``agentic_chunking._shown.redact``).
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import typing
import unicodedata
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from .._errors import ConfigurationError, InputError
from .._shown import redact

DEFAULT_MODEL = "claude-sonnet-4-6"
"""The pipeline's default model: Claude Sonnet 4.6, the newest model that the installed SDK
lists, does not mark deprecated, and still accepts ``temperature: 0`` (Sonnet 5 and later
reject a non-default temperature with HTTP 400, and the suite's replay needs the
reproducibility temperature 0 gives). Its tier is the seed's (SEED_MODEL, a Sonnet)."""

DEFAULT_JUDGE_MODEL = "claude-sonnet-4-6"
"""The judge's default model: the same current Sonnet, at the same temperature 0, so that
judging costs what the pipeline's Sonnet tier costs per token."""

SEED_MODEL = "claude-3-7-sonnet-20250219"
"""The model seed 000 tested (Claude 3.7 Sonnet); retired, so no longer a default."""

MODEL_ENV_VAR = "AGENTIC_CHUNKING_MODEL"
API_KEY_ENV_VAR = "ANTHROPIC_API_KEY"
BASE_URL_ENV_VAR = "ANTHROPIC_BASE_URL"
REPLAY_API_KEY = "replay-needs-no-key"
"""The dummy key a replay client carries: the SDK refuses to build a request without one."""

OPENAI = "openai"
ANTHROPIC = "anthropic"
PROVIDERS = (ANTHROPIC, OPENAI)
"""The providers a model id may name (``openai:gpt-4.1-mini``); a bare id is Anthropic's."""
BARE_ID_PROVIDER = ANTHROPIC
"""The provider a model id without a ``provider:`` prefix names (its id and folder are the
bare name)."""
OPENAI_API_KEY_ENV_VAR = "OPENAI_API_KEY"
OPENAI_BASE_URL_ENV_VAR = "OPENAI_BASE_URL"
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
_PROVIDER_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")

DEFAULT_MAX_RETRIES = 2
TIMEOUT_ENV_VAR = "AGENTIC_CHUNKING_TIMEOUT"
DEFAULT_TIMEOUT_S = 120.0
"""Seconds one attempt of a model call may take (the SDK's own default is 600)."""
CONNECT_TIMEOUT_S = 5.0
MAX_TIMEOUT_S = 86_400.0
"""The longest timeout accepted: a day. Beyond it a clock addition overflows in the HTTP
library (``--timeout 1e308`` ended in an OverflowError blamed on the network)."""

NONSTREAMING_MAX_TOKENS = 21_333
"""The largest max_tokens the SDK sends without streaming: it refuses a call whose expected
time, 3600 s * max_tokens / 128000, exceeds 600 s (anthropic ``_calculate_nonstreaming_timeout``).
Some models have a lower limit (``anthropic._constants.MODEL_NONSTREAMING_TOKENS``)."""


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A model id parsed once: its ``provider`` (one of PROVIDERS) and its ``name`` there.

    ``id`` is the canonical form: the bare name for Anthropic (so every id of before
    providers existed is unchanged), ``provider:name`` otherwise; ``folder`` is a name for
    files and directories that is safe on every OS (no colon or slash): the id itself for
    Anthropic, ``openai--<name with each run of other characters as _>`` otherwise.
    """

    provider: str
    name: str

    @property
    def id(self) -> str:
        return self.name if self.provider == BARE_ID_PROVIDER else f"{self.provider}:{self.name}"

    @property
    def folder(self) -> str:
        if self.provider == BARE_ID_PROVIDER:
            return self.name
        return f"{self.provider}--{_file_safe(self.name)}"


def parse_model(model: str) -> ModelRef:
    """Parse ``provider:name`` (``openai:gpt-4.1-mini``, ``openai:qwen2.5:7b``: the first
    colon splits) or a bare Anthropic id into a ModelRef.

    Raises ConfigurationError for an empty name or a ``word:`` prefix that names no known
    provider (``opena:gpt-4o``); a prefix that is not a plain word is part of a bare id.
    """
    text = model.strip()
    prefix, colon, rest = text.partition(":")
    if colon and _PROVIDER_WORD.fullmatch(prefix):
        provider = prefix.lower()
        if provider not in PROVIDERS:
            raise ConfigurationError(
                f"the model {text!r} names the provider {prefix!r}, which is not one of "
                f"{', '.join(PROVIDERS)}; write e.g. openai:{rest or 'gpt-4.1-mini'} for an "
                "OpenAI-compatible server, or a bare id for Anthropic"
            )
        text = rest.strip()
    else:
        provider = BARE_ID_PROVIDER
    if not text:
        raise ConfigurationError(
            f"the model {model!r} has no name; give e.g. openai:gpt-4.1-mini or {DEFAULT_MODEL}"
        )
    return ModelRef(provider, text)


def model_folder(model: str) -> str:
    """The file-safe folder name of ``model`` (``ModelRef.folder``); never raises: an id
    that does not parse (an old results file's) falls back to its file-safe form."""
    try:
        return parse_model(model).folder
    except ConfigurationError:
        return _file_safe(model)


def _file_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "model"


def resolve_model(model: str | None = None) -> str:
    """Return the model id: ``model`` if given, else ``$AGENTIC_CHUNKING_MODEL``, else the default.

    The id is checked (``parse_model``: ConfigurationError for an unknown provider) and
    returned in its canonical form (``ModelRef.id``): ``reference``, used by the suite,
    and every bare id are returned unchanged.
    """
    if model is not None and model.strip():
        return parse_model(model).id
    from_env = os.environ.get(MODEL_ENV_VAR, "").strip()
    return parse_model(from_env).id if from_env else DEFAULT_MODEL


def sdk_model_table() -> tuple[tuple[str, ...], Mapping[str, str]]:
    """The installed anthropic SDK's own model table: the ids its ``Model`` type lists, and
    the ids it marks deprecated with their end-of-life dates.

    Read from the SDK at call time (``anthropic.types.Model``, ``anthropic._data``), never
    from a list of ours; a release that moves or drops either gives an empty part, and
    callers degrade to a plain message.
    """
    listed: tuple[str, ...] = ()
    deprecated: Mapping[str, str] = {}
    try:
        from anthropic.types import Model
    except ImportError:
        pass
    else:
        for part in typing.get_args(Model):
            if typing.get_origin(part) is typing.Literal:
                listed = tuple(str(model) for model in typing.get_args(part))
    try:
        from anthropic._data import DEPRECATED_MODELS
    except ImportError:
        pass
    else:
        deprecated = {str(k): str(v) for k, v in dict(DEPRECATED_MODELS).items()}
    return listed, deprecated


def current_models() -> tuple[str, ...]:
    """The model ids the installed SDK lists and does not mark deprecated, in its order."""
    listed, deprecated = sdk_model_table()
    return tuple(model for model in listed if model not in deprecated)


def models_to_choose_from(*, most: int = 6) -> str:
    """A phrase naming current models to pick from, read from the installed SDK; a plain
    pointer to the documentation when the SDK lists none."""
    models = current_models()
    if not models:
        return (
            "the installed anthropic SDK lists no models; see "
            "https://docs.anthropic.com/en/docs/about-claude/models for current ids"
        )
    shown = ", ".join(models[:most])
    more = f" and {len(models) - most} more" if len(models) > most else ""
    return f"current models the installed anthropic SDK lists: {shown}{more}"


def deprecation_notice(model: str, *, role: str = "model") -> str | None:
    """One line saying that the installed SDK marks ``model`` deprecated (with its end of
    life), or None when it does not; a notice, never a failure."""
    _, deprecated = sdk_model_table()
    end_of_life = deprecated.get(model)
    if end_of_life is None:
        return None
    return (
        f"the installed anthropic SDK marks the {role} {model!r} deprecated (end of life "
        f"{end_of_life}); choose another before then ({models_to_choose_from(most=3)})"
    )


def unlisted_notice(model: str) -> str | None:
    """One line when the installed anthropic SDK's model table does not list ``model`` (a
    bare Anthropic id; a typo such as "claude-sonet-4-6", or an id of a proxy), with the
    closest listed ids; None when it lists it, or lists none. A notice before anything is
    paid for, never a failure: the API decides."""
    listed, _ = sdk_model_table()
    if not listed or model in listed or ":" in model:
        return None
    close = difflib.get_close_matches(model, listed, n=2, cutoff=0.8)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return (
        f"the installed anthropic SDK does not list the model {model!r}; {hint}a call fails "
        f"if the API does not know it ({models_to_choose_from(most=3)})"
    )


def resolve_timeout(timeout: float | None = None) -> float:
    """Seconds per call attempt: ``timeout``, else ``$AGENTIC_CHUNKING_TIMEOUT``, else 120.

    Raises ConfigurationError for a value that is not a positive number of seconds up to
    MAX_TIMEOUT_S (a day).
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
    if not 0 < seconds <= MAX_TIMEOUT_S:
        raise ConfigurationError(
            f"{source} is {raw!r}; expected a positive number of seconds up to "
            f"{MAX_TIMEOUT_S:g} (a day), e.g. 120"
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


BASE_URL_OPTION = "--base-url"
"""How a base URL given as an argument is named in a message (the command-line option)."""
_URL_SOURCES: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()


def pick_base_url(given: str | None, variable: str) -> tuple[str | None, str]:
    """The base URL to use (``given``, else the environment ``variable``, else None) and
    where it came from, as a message names it: ``--base-url`` or the variable."""
    if given:
        return given, BASE_URL_OPTION
    return os.environ.get(variable, "").strip() or None, variable


def note_url_source(client: object, source: str) -> None:
    """Remember where ``client``'s base URL came from, for ``url_source``."""
    with contextlib.suppress(TypeError):  # an object that takes no weak reference
        _URL_SOURCES[client] = source


def url_source(client: object, default: str) -> str:
    """Where ``client``'s base URL came from (``--base-url`` or the variable), else
    ``default`` (the variable that would set it)."""
    try:
        return _URL_SOURCES.get(client, default)
    except TypeError:  # pragma: no cover
        return default


def pick_api_key(given: str | None, variable: str) -> tuple[str, str]:
    """The API key to use (``given``, else the environment ``variable``; "" when neither)
    and where it came from. Never stripped: a key with whitespace around it is refused by
    ``check_api_key`` (a copy-paste accident), only a blank one counts as missing."""
    if given:
        return given, "the api_key argument"
    value = os.environ.get(variable, "")
    return (value if value.strip() else ""), variable


def shown_url(url: object) -> str:
    """``url`` fit for a message: credentials (``user:key@``) and the query string removed."""
    return redact(str(url)).split("?", 1)[0]


def check_api_key(key: str, *, source: str = API_KEY_ENV_VAR) -> None:
    """Raise ConfigurationError, before any call, when ``key`` cannot be an API key.

    An API key is one non-empty run of printable ASCII characters: no control character
    (a line break or tab pasted with it), no space, nothing outside ASCII (an HTTP header
    cannot carry it). The message names the problem and where it is, never the key.
    """
    if not key.strip():
        raise ConfigurationError(
            f"the API key in {source} is empty; export your key as {source} "
            f"(and {BASE_URL_ENV_VAR} to use another Messages-API server)"
        )
    for position, char in enumerate(key, start=1):
        if char.isascii() and char.isprintable() and not char.isspace():
            continue
        if char in "\r\n":
            what = "a line break"
        elif char.isspace():
            what = "a space" if char == " " else "a whitespace character"
        elif unicodedata.category(char).startswith("C"):
            what = f"a control character (U+{ord(char):04X})"
        else:
            what = f"a non-ASCII character (U+{ord(char):04X})"
        raise ConfigurationError(
            f"the API key in {source} contains {what} at character {position} of "
            f"{len(key)}, so it cannot be a key (a copy-paste accident?); set {source} to "
            "the key alone, on one line with no spaces (the key is not shown here)"
        )


def check_base_url(
    url: str,
    *,
    variable: str = BASE_URL_ENV_VAR,
    example: str = "https://api.anthropic.com",
    api: str = "the Anthropic API",
) -> None:
    """ConfigurationError naming ``variable`` (where the URL came from: the environment
    variable or ``--base-url``; the URL shown without credentials) unless
    ``url`` is an http(s) URL with a host; a malformed one (an unclosed IPv6 bracket) included."""
    try:
        parts = urlsplit(url)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # urlsplit's "Invalid IPv6 URL", a bad port
        usable = False
    if not usable:
        shown = shown_url(url)
        fix = (
            f"give {variable} e.g. {example} (or leave it out to use {api})"
            if variable.startswith("--")
            else f"set {variable} to e.g. {example} (or unset it to use {api})"
        )
        raise ConfigurationError(f"the base URL {shown!r} is not an http(s) URL with a host; {fix}")


def offline_http_client() -> typing.Any:
    """An HTTP client that never opens a connection: the transport of a replaying client.

    Under an active cassette vcrpy answers every request before it reaches the transport
    (vcrpy patches the ``MockTransport`` of httpx2 and httpx); a request made with no
    cassette active fails at once with a ConnectError naming the cause, so a replay can
    never reach a model's API, whatever state another session left vcrpy in. Built on the
    HTTP library the SDKs use (``httpx2`` in the anthropic and openai releases this
    project pins; ``httpx`` in older ones)."""
    try:
        import httpx2 as http
    except ImportError:  # an SDK release still on httpx
        import httpx as http  # type: ignore[no-redef]

    def refuse(request: typing.Any) -> typing.Any:
        raise http.ConnectError(
            f"replay never calls a model: no cassette answered {request.method} "
            f"{request.url.path} (a replaying client has no network transport)",
            request=request,
        )

    return http.Client(transport=http.MockTransport(refuse))
