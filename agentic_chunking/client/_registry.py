"""The providers, and what the provider-neutral code asks of each (``Provider``).

One module per provider speaks its wire format: ``_anthropic`` (the Messages API and
Message Batches), ``_openai`` (Chat Completions, the Batch API and its files). Each is a
``Provider``: the call, the request body, the batch line, the batch's creation, polling
and results, the translation of its SDK's errors and their ``kind``. ``provider(name)``
is the one place a provider's name is mapped to its module: ``ModelClient``, the batch
engine (``_batch``) and the failure records (``_failures``) never branch on the name.
A third provider is one more module here, and one more entry in PROVIDERS.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._errors import ConfigurationError, ModelCallError
from . import _anthropic, _openai
from ._config import ANTHROPIC, OPENAI

if TYPE_CHECKING:
    from ._batch_records import BatchProgress, BatchResult, InFlight
    from ._calls import ModelReply, ModelRequest
    from ._limits import RequestLimits


class Provider(Protocol):
    """What the provider-neutral code calls of a provider's module."""

    NAME: str
    """The provider's name in model ids (``openai`` in ``openai:gpt-4o``)."""
    KEY_ENV_VAR: str
    """The environment variable its API key is read from."""
    URL_ENV_VAR: str
    """The environment variable its base URL is read from."""
    BATCH_LIMITS: tuple[int, int]
    """Requests and bytes one batch may hold."""
    BATCH_PER_MODEL: bool
    """Whether a batch names one model (a round makes a batch per model)."""
    FAILURE_MESSAGES_FINAL: bool
    """Whether a run-level failure's message here is the one to show as it is."""

    def make_client(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = ...,
        timeout: float | None = None,
        offline: bool = False,
        limits: RequestLimits | None = None,
    ) -> Any:
        """The SDK client, from the arguments, else the provider's environment variables."""

    def call(
        self,
        client: Any,
        request: ModelRequest,
        *,
        stage: str,
        batch: int | None,
        on_wait: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """One synchronous request at temperature 0."""

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        """The request's body, exactly as ``call`` sends it."""

    def batch_line(self, custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """A batch's entry for one request of that body."""

    def create_batch(self, client: Any, lines: Sequence[Mapping[str, Any]]) -> str:
        """Submit one batch of ``lines``; its id."""

    def poll_batch(self, client: Any, batch: InFlight) -> BatchProgress | dict[str, BatchResult]:
        """The batch's progress while it runs, each request's result once it has ended."""

    def input_ids(self, sdk: Callable[[], Any], batch_id: str) -> frozenset[str] | None:
        """The custom_ids of an earlier batch, when the API can list them."""

    def owns(self, exc: BaseException) -> bool:
        """Whether ``exc`` is an error of this provider's SDK."""

    def translate_error(
        self, exc: Any, *, stage: str, batch: int | None, model: str, client: Any
    ) -> ConfigurationError | ModelCallError:
        """One of ours for an SDK error (``owns``) that survived the retries."""

    def failure_kind(self, exc: BaseException) -> str | None:
        """What an SDK error (``owns``) means for a run (FAILURE_KINDS), or None."""

    def timed_out(self, exc: BaseException) -> bool:
        """Whether an SDK error is its timeout."""

    def missing_credentials(self) -> str | None:
        """What to set before a live call, read from the environment; None: nothing."""


PROVIDERS: Mapping[str, Provider] = {ANTHROPIC: _anthropic, OPENAI: _openai}
"""Each provider's module, by its name (the order in which errors are looked for)."""


def provider_module(name: str) -> Provider:
    """The module of the provider ``name`` (``anthropic`` or ``openai``)."""
    return PROVIDERS[name]
