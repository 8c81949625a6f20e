"""The client layer: everything that talks to a model API.

- ``_providers``: the provider-neutral call every layer above uses: ``ModelClient`` (one
  SDK client per provider a run uses) and ``call_model``, routed by the model id;
- ``_anthropic``: the one place that calls the Anthropic Messages API through the official
  SDK (``make_client``), with its errors translated into ours;
- ``_openai``: the same for an OpenAI-compatible Chat Completions API (``openai:<name>``);
- ``_config``: what a call is configured by (model ids parsed into ``ModelRef`` and their
  defaults, key and URL variables, timeout, ``max_tokens`` limits) and the installed
  SDK's own model table;
- ``_prices``: the one price table that cost estimates come from;
- ``_batch``: ``BatchClient``, a ModelClient that answers each call through the
  provider's batch API (half the price), for the pipeline to use unchanged.

A second provider is one more module here (``_openai``; ``_providers`` routes a call by
the model's provider). May import: the root's shared records and errors (``_errors``,
``_models``) and how outside text is shown (``_shown``: redaction, quotes); nothing else
of the package.
"""

from ._anthropic import WAIT_NOTICE_S, ModelReply, make_client
from ._batch import (
    BATCH_LIMITS,
    BatchClient,
    BatchParticipant,
    BatchProgress,
    BatchUnreachableError,
    CountedTasks,
    batch_custom_id,
    idle,
)
from ._config import (
    ANTHROPIC,
    API_KEY_ENV_VAR,
    BASE_URL_ENV_VAR,
    DEFAULT_JUDGE_MODEL,
    DEFAULT_MAX_RETRIES,
    DEFAULT_MODEL,
    DEFAULT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    MODEL_ENV_VAR,
    NONSTREAMING_MAX_TOKENS,
    OPENAI,
    OPENAI_API_KEY_ENV_VAR,
    OPENAI_BASE_URL_ENV_VAR,
    PROVIDERS,
    REPLAY_API_KEY,
    SEED_MODEL,
    TIMEOUT_ENV_VAR,
    ModelRef,
    check_api_key,
    check_max_tokens,
    current_models,
    deprecation_notice,
    max_tokens_limit,
    model_folder,
    models_to_choose_from,
    parse_model,
    resolve_model,
    resolve_timeout,
    sdk_model_table,
    shown_url,
    unlisted_notice,
)
from ._limits import RequestLimits, retry_after_seconds
from ._openai import make_openai_client
from ._prices import (
    BATCH_DISCOUNT,
    CACHE_READ_RATE,
    CACHE_WRITE_RATE,
    PRICES_PER_MILLION,
    cache_min_tokens,
    calls_cost_usd,
    estimate_cost_usd,
)
from ._providers import ModelClient, call_model, missing_credentials

__all__ = [
    "ANTHROPIC",
    "API_KEY_ENV_VAR",
    "BASE_URL_ENV_VAR",
    "BATCH_DISCOUNT",
    "BATCH_LIMITS",
    "CACHE_READ_RATE",
    "CACHE_WRITE_RATE",
    "DEFAULT_JUDGE_MODEL",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MODEL",
    "DEFAULT_TIMEOUT_S",
    "MAX_TIMEOUT_S",
    "MODEL_ENV_VAR",
    "NONSTREAMING_MAX_TOKENS",
    "OPENAI",
    "OPENAI_API_KEY_ENV_VAR",
    "OPENAI_BASE_URL_ENV_VAR",
    "PRICES_PER_MILLION",
    "PROVIDERS",
    "REPLAY_API_KEY",
    "SEED_MODEL",
    "TIMEOUT_ENV_VAR",
    "WAIT_NOTICE_S",
    "BatchClient",
    "BatchParticipant",
    "BatchProgress",
    "BatchUnreachableError",
    "CountedTasks",
    "ModelClient",
    "ModelRef",
    "ModelReply",
    "RequestLimits",
    "batch_custom_id",
    "cache_min_tokens",
    "call_model",
    "calls_cost_usd",
    "check_api_key",
    "check_max_tokens",
    "current_models",
    "deprecation_notice",
    "estimate_cost_usd",
    "idle",
    "make_client",
    "make_openai_client",
    "max_tokens_limit",
    "missing_credentials",
    "model_folder",
    "models_to_choose_from",
    "parse_model",
    "resolve_model",
    "resolve_timeout",
    "retry_after_seconds",
    "sdk_model_table",
    "shown_url",
    "unlisted_notice",
]
