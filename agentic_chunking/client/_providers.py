"""The provider-neutral call: one client for every provider, one ``call_model``.

The pipeline, the judge and the suite hold a ``ModelClient`` (or a ready SDK client) and
call ``call_model(client, model=..., ...)``; which API answers is decided here, from the
model id alone (``parse_model``: ``openai:<name>`` goes to a Chat Completions server, a
bare id to the Anthropic Messages API). Either way the reply is a ``ModelReply`` with its
``CallUsage`` and a ``stop_reason`` in the Messages API's names, and the errors are the
same ConfigurationError / ModelCallError with the same plain messages.

Guarantees of ``ModelClient``: each provider's SDK client is built once, on first use
(thread-safe), from that provider's settings given here, else its environment variables,
so a run whose pipeline is on one provider and judge on another holds one client of each;
a missing key is a ConfigurationError at that first use (``ready`` lets a caller meet it
before any call); ``close`` closes every client it built, never one it was given.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self, TypeAlias

from .._errors import ConfigurationError
from ._calls import ModelReply, ModelRequest
from ._config import (
    ANTHROPIC,
    DEFAULT_MAX_RETRIES,
    OPENAI,
    REPLAY_API_KEY,
    ModelRef,
    parse_model,
)
from ._limits import RequestLimits
from ._registry import PROVIDERS, provider_module

if TYPE_CHECKING:
    import anthropic
    import openai

    AnyClient: TypeAlias = "ModelClient | anthropic.Anthropic | openai.OpenAI"
    """What ``call_model`` and every layer above accept as a client."""


class ModelClient:
    """The SDK clients of a run, one per provider used, built on first use.

    ``api_keys`` and ``base_urls`` map a provider (``anthropic``, ``openai``) to its key
    and base URL; a provider not named takes its environment variables. ``clients`` are
    ready SDK clients to use as they are (never closed here). ``offline`` clients have no
    network transport (``offline_http_client``): only a cassette can answer them. With
    ``limits`` (a RequestLimits) every request of the clients built here, retries
    included, passes that one shared gate (in flight, per minute, a 429's pause).
    """

    def __init__(
        self,
        *,
        api_keys: Mapping[str, str | None] | None = None,
        base_urls: Mapping[str, str | None] | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float | None = None,
        clients: Mapping[str, Any] | None = None,
        offline: bool = False,
        limits: RequestLimits | None = None,
    ) -> None:
        self._api_keys = dict(api_keys or {})
        self._base_urls = dict(base_urls or {})
        self._max_retries = max_retries
        self._timeout = timeout
        self._given = dict(clients or {})
        self._offline = offline
        self.limits = limits
        self._built: dict[str, Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def for_replay(cls) -> ModelClient:
        """A client for replaying cassettes: a dummy key for every provider, no retries, and
        no network transport (``offline``): a request no cassette answers fails at once."""
        return cls(
            api_keys=dict.fromkeys(PROVIDERS, REPLAY_API_KEY),
            max_retries=0,
            offline=True,
        )

    @classmethod
    def of(cls, client: AnyClient) -> ModelClient:
        """``client`` itself if it is a ModelClient, else one that uses the SDK client given."""
        if isinstance(client, ModelClient):
            return client
        return cls(clients={_provider_of(client): client})

    def sdk(self, provider: str) -> Any:
        """The SDK client of ``provider``, built on first use (ConfigurationError when it
        cannot be: no key, a malformed base URL or timeout)."""
        given = self._given.get(provider)
        if given is not None:
            return given
        with self._lock:
            if provider not in self._built:
                if self._given:  # a wrapped SDK client: never build another provider's
                    have = ", ".join(sorted(self._given))
                    raise ConfigurationError(
                        f"the client given is for {have}, but the model needs {provider}; "
                        "pass an agentic_chunking.client.ModelClient (it builds the client of "
                        "each provider a run uses)"
                    )
                self._built[provider] = self._build(provider)
            return self._built[provider]

    def ready(self, model: str) -> ModelRef:
        """Parse ``model`` and build its provider's client now, so that a missing key or a
        malformed setting is met before any call; returns the parsed model."""
        ref = parse_model(model)
        self.sdk(ref.provider)
        return ref

    def _build(self, name: str) -> Any:
        return provider_module(name).make_client(
            api_key=self._api_keys.get(name),
            base_url=self._base_urls.get(name),
            max_retries=self._max_retries,
            timeout=self._timeout,
            offline=self._offline,
            limits=self.limits,
        )

    def call(
        self,
        *,
        stage: str,
        batch: int | None,
        model: str,
        system: str,
        messages: Sequence[Mapping[str, str]],
        max_tokens: int,
        on_wait: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """One request to ``model``'s provider at temperature 0 (see ``call_model``)."""
        ref = parse_model(model)
        request = ModelRequest.of(
            model=ref.name, system=system, messages=messages, max_tokens=max_tokens
        )
        return provider_module(ref.provider).call(
            self.sdk(ref.provider), request, stage=stage, batch=batch, on_wait=on_wait
        )

    def close(self) -> None:
        """Close the SDK clients built here (those given are the caller's to close)."""
        with self._lock:
            built, self._built = list(self._built.values()), {}
        for client in built:
            client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def call_model(
    client: AnyClient,
    *,
    stage: str,
    batch: int | None,
    model: str,
    system: str,
    messages: Sequence[Mapping[str, str]],
    max_tokens: int,
    on_wait: Callable[[str], None] | None = None,
) -> ModelReply:
    """Send one request at temperature 0 to ``model``'s provider and return its reply.

    ``client`` is a ModelClient or a ready SDK client of the model's provider. ``batch``
    is the 1-based extraction batch number (None for grouping). The reply's
    ``stop_reason`` uses the Messages API's names whatever the provider (an OpenAI
    ``finish_reason`` of ``length`` is ``max_tokens``), for the caller to judge. Raises
    ConfigurationError or ModelCallError with the provider's plain messages. ``on_wait``
    gets a line every WAIT_NOTICE_S seconds while the call is in flight.
    """
    return ModelClient.of(client).call(
        stage=stage,
        batch=batch,
        model=model,
        system=system,
        messages=messages,
        max_tokens=max_tokens,
        on_wait=on_wait,
    )


def missing_credentials(model: str) -> str | None:
    """What to set before calling ``model`` live, read from the environment: None when its
    provider's key is set (or, for ``openai:``, a base URL names a server that may need
    none); else the variables to set, as a phrase ("set ANTHROPIC_API_KEY ..."). A key of
    the wrong shape (a line break pasted with it) is a ConfigurationError that never shows it
    (``check_api_key``)."""
    return provider_module(parse_model(model).provider).missing_credentials()


def _provider_of(client: object) -> str:
    """The provider of a ready SDK client (by its class's package)."""
    package = type(client).__module__.split(".", 1)[0]
    if package in PROVIDERS:
        return package
    raise ConfigurationError(
        f"a {type(client).__name__} is not a client of {ANTHROPIC} or {OPENAI}; pass an "
        "agentic_chunking.client.ModelClient, an anthropic.Anthropic or an openai.OpenAI"
    )
