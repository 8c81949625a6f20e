"""The client layer: everything that talks to a model API.

- ``_providers``: the provider-neutral call every layer above uses: ``ModelClient`` (one
  SDK client per provider a run uses) and ``call_model``, routed by the model id;
- ``_calls``: one call's records, whatever the provider: ``ModelRequest`` (the call
  signature), ``ModelReply``, and ``canonical_sha256``, the one function request hashes
  go through (the batch custom_id; the reply cache's key);
- ``_registry``: ``Provider``, what the provider-neutral code asks of a provider's
  module, and the one table from a provider's name to its module;
- ``_anthropic``: the one place that speaks the Anthropic Messages API and Message
  Batches through the official SDK (``make_client``), with its errors translated into
  ours (their ``kind`` too);
- ``_openai``: the same for an OpenAI-compatible Chat Completions API (``openai:<name>``)
  and its Batch API;
- ``_failures``: ``call_failure``, what a failed call means for a run (a ``CallFailure``
  record with its ``kind``), the one classification of the SDKs' errors;
- ``_config``: what a call is configured by (model ids parsed into ``ModelRef`` and their
  defaults, key and URL variables, timeout, ``max_tokens`` limits) and the installed
  SDK's own model table;
- ``_prices``: the one price table that cost estimates come from;
- ``_batch``: ``BatchClient``, a ModelClient that answers each call through the
  provider's batch API (half the price), for the pipeline to use unchanged; the engine's
  background thread is ``_batch_rounds``, its records ``_batch_records``, the units of
  work its rounds wait for ``_participants``.

A third provider is one more module here and one more entry in ``_registry.PROVIDERS``.
May import: the root's shared records and errors (``_errors``, ``_models``) and how
outside text is shown (``_shown``: redaction, quotes); nothing else of the package.
"""

from typing import TYPE_CHECKING

from ._anthropic import make_client
from ._anthropic import message_params as message_params
from ._batch import DEFAULT_HOLD_S as DEFAULT_HOLD_S
from ._batch import DEFAULT_MAX_ROUNDS as DEFAULT_MAX_ROUNDS
from ._batch import DEFAULT_POLL_INTERVAL_S as DEFAULT_POLL_INTERVAL_S
from ._batch import DEFAULT_QUIET_S as DEFAULT_QUIET_S
from ._batch import FALLBACKS as FALLBACKS
from ._batch import BatchClient
from ._batch import batch_custom_id as batch_custom_id
from ._batch import call_custom_id as call_custom_id
from ._batch_records import BatchProgress
from ._batch_records import BatchUnreachableError as BatchUnreachableError
from ._calls import ModelReply as ModelReply
from ._calls import ModelRequest as ModelRequest
from ._calls import canonical_sha256 as canonical_sha256
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
from ._failures import FAILURE_KINDS as FAILURE_KINDS
from ._failures import CallFailure as CallFailure
from ._failures import call_failure as call_failure
from ._failures import error_chain as error_chain
from ._limits import RequestLimits
from ._limits import retry_after_seconds as retry_after_seconds
from ._openai import chat_body as chat_body
from ._participants import BatchParticipant as BatchParticipant
from ._participants import CountedTasks as CountedTasks
from ._participants import idle as idle
from ._prices import BATCH_DISCOUNT, estimate_cost_usd
from ._prices import CACHE_READ_RATE as CACHE_READ_RATE
from ._prices import CACHE_WRITE_RATE as CACHE_WRITE_RATE
from ._prices import PRICES_PER_MILLION as PRICES_PER_MILLION
from ._prices import cache_min_tokens as cache_min_tokens
from ._prices import calls_cost_usd as calls_cost_usd
from ._providers import ModelClient, call_model
from ._providers import missing_credentials as missing_credentials
from ._registry import Provider as Provider
from ._registry import provider_module as provider_module

if TYPE_CHECKING:
    from ._providers import AnyClient as AnyClient


if TYPE_CHECKING:
    from ._providers import AnyClient as AnyClient

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
