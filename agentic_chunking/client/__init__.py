"""The client layer: everything that talks to a model API.

- ``_anthropic``: the one place that calls the Anthropic Messages API through the official
  SDK (``make_client``, ``call_model``), with its errors translated into ours;
- ``_config``: what a call is configured by (model ids and their defaults, key and URL
  variables, timeout, ``max_tokens`` limits) and the installed SDK's own model table;
- ``_prices``: the one price table that cost estimates come from.

A second provider is one more module here. May import: the root's shared records and
errors (``_errors``, ``_models``) and how outside text is shown (``_shown``: redaction,
quotes); nothing else of the package.
"""

from ._anthropic import (
    API_KEY_ENV_VAR,
    BASE_URL_ENV_VAR,
    DEFAULT_JUDGE_MODEL,
    DEFAULT_MAX_RETRIES,
    DEFAULT_MODEL,
    DEFAULT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    MODEL_ENV_VAR,
    NONSTREAMING_MAX_TOKENS,
    REPLAY_API_KEY,
    TIMEOUT_ENV_VAR,
    WAIT_NOTICE_S,
    ModelReply,
    call_model,
    check_api_key,
    check_max_tokens,
    deprecation_notice,
    make_client,
    max_tokens_limit,
    models_to_choose_from,
    resolve_model,
    resolve_timeout,
)
from ._config import SEED_MODEL, current_models, sdk_model_table, shown_url
from ._prices import (
    CACHE_READ_RATE,
    CACHE_WRITE_RATE,
    PRICES_PER_MILLION,
    cache_min_tokens,
    estimate_cost_usd,
)

__all__ = [
    "API_KEY_ENV_VAR",
    "BASE_URL_ENV_VAR",
    "CACHE_READ_RATE",
    "CACHE_WRITE_RATE",
    "DEFAULT_JUDGE_MODEL",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MODEL",
    "DEFAULT_TIMEOUT_S",
    "MAX_TIMEOUT_S",
    "MODEL_ENV_VAR",
    "NONSTREAMING_MAX_TOKENS",
    "PRICES_PER_MILLION",
    "REPLAY_API_KEY",
    "SEED_MODEL",
    "TIMEOUT_ENV_VAR",
    "WAIT_NOTICE_S",
    "ModelReply",
    "cache_min_tokens",
    "call_model",
    "check_api_key",
    "check_max_tokens",
    "current_models",
    "deprecation_notice",
    "estimate_cost_usd",
    "make_client",
    "max_tokens_limit",
    "models_to_choose_from",
    "resolve_model",
    "resolve_timeout",
    "sdk_model_table",
    "shown_url",
]
