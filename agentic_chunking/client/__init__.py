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

from typing import TYPE_CHECKING

from ._anthropic import ModelReply as ModelReply
from ._anthropic import make_client
from ._batch import BatchClient, BatchProgress
from ._batch import BatchParticipant as BatchParticipant
from ._batch import BatchUnreachableError as BatchUnreachableError
from ._batch import CountedTasks as CountedTasks
from ._batch import batch_custom_id as batch_custom_id
from ._batch import idle as idle
from ._config import ANTHROPIC as ANTHROPIC
from ._config import API_KEY_ENV_VAR as API_KEY_ENV_VAR
from ._config import BASE_URL_ENV_VAR as BASE_URL_ENV_VAR
from ._config import DEFAULT_JUDGE_MODEL as DEFAULT_JUDGE_MODEL
from ._config import DEFAULT_MAX_RETRIES as DEFAULT_MAX_RETRIES
from ._config import DEFAULT_MODEL as DEFAULT_MODEL
from ._config import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S
from ._config import MAX_TIMEOUT_S as MAX_TIMEOUT_S
from ._config import MODEL_ENV_VAR as MODEL_ENV_VAR
from ._config import NONSTREAMING_MAX_TOKENS as NONSTREAMING_MAX_TOKENS
from ._config import OPENAI as OPENAI
from ._config import OPENAI_API_KEY_ENV_VAR as OPENAI_API_KEY_ENV_VAR
from ._config import OPENAI_BASE_URL_ENV_VAR as OPENAI_BASE_URL_ENV_VAR
from ._config import REPLAY_API_KEY as REPLAY_API_KEY
from ._config import TIMEOUT_ENV_VAR as TIMEOUT_ENV_VAR
from ._config import ModelRef, parse_model
from ._config import check_max_tokens as check_max_tokens
from ._config import deprecation_notice as deprecation_notice
from ._config import max_tokens_limit as max_tokens_limit
from ._config import model_folder as model_folder
from ._config import models_to_choose_from as models_to_choose_from
from ._config import resolve_model as resolve_model
from ._config import unlisted_notice as unlisted_notice
from ._limits import RequestLimits
from ._limits import retry_after_seconds as retry_after_seconds
from ._prices import BATCH_DISCOUNT, estimate_cost_usd
from ._prices import CACHE_READ_RATE as CACHE_READ_RATE
from ._prices import CACHE_WRITE_RATE as CACHE_WRITE_RATE
from ._prices import PRICES_PER_MILLION as PRICES_PER_MILLION
from ._prices import cache_min_tokens as cache_min_tokens
from ._prices import calls_cost_usd as calls_cost_usd
from ._providers import ModelClient, call_model
from ._providers import missing_credentials as missing_credentials

if TYPE_CHECKING:
    from ._providers import AnyClient as AnyClient

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "BATCH_DISCOUNT",
    "BatchClient",
    "BatchProgress",
    "ModelClient",
    "ModelRef",
    "RequestLimits",
    "call_model",
    "estimate_cost_usd",
    "make_client",
    "parse_model",
]
