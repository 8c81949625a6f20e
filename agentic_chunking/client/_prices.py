"""Model prices: the one table the run plan and the comparison page estimate costs from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .._models import CallUsage

PRICES_PER_MILLION: Mapping[str, tuple[float, float]] = {
    "claude-opus-5-5": (4.0, 20.0),
    "claude-sonnet-5-5": (2.0, 10.0),
    "claude-opus-5": (5.0, 25.0),
    "claude-sonnet-5": (2.0, 10.0),
    "claude-sonnet-4-6": (3.0, 15.0),
    "claude-3-7-sonnet-20250219": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4-20250514": (3.0, 15.0),
    "claude-3-5-haiku-20241022": (0.8, 4.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-opus-4-1": (15.0, 75.0),
    # OpenAI, keyed by the provider-prefixed id: standard tier, no batch or cached-input
    # discount (OpenAI's pricing page as of 2025-06, still the list price in 2026-05).
    "openai:gpt-4.1": (2.0, 8.0),
    "openai:gpt-4.1-mini": (0.4, 1.6),
    "openai:gpt-4.1-nano": (0.1, 0.4),
    "openai:gpt-4o": (2.5, 10.0),
    "openai:gpt-4o-mini": (0.15, 0.6),
}
"""USD per million input and output tokens, as the providers list them (update when they
change); keys are model ids as written on the command line (a bare id is Anthropic's,
``openai:<name>`` OpenAI's). A model not here, a local one included, gets no cost
estimate ("no price known")."""


CACHE_WRITE_RATE = 1.25
"""A prompt-cache write (5-minute cache) costs this many times the input price."""
CACHE_READ_RATE = 0.1
"""A prompt-cache read costs this many times the input price."""
# Both rates are Anthropic's, from the prompt-caching pricing page that the installed SDK's
# ``CacheControlEphemeralParam`` docstring links
# (https://platform.claude.com/docs/en/build-with-claude/prompt-caching); the SDK itself
# carries no rates.

CACHE_MIN_TOKENS: Mapping[str, int] = {
    "claude-opus-4-1": 1024,
    "claude-sonnet-4-5": 1024,
    "claude-sonnet-4-20250514": 1024,
    "claude-3-7-sonnet-20250219": 1024,
    "claude-3-5-haiku-20241022": 2048,
    "claude-haiku-4-5": 4096,
}
"""The shortest prompt prefix (tokens) each model caches, from the same page; a shorter
one is not cached (the API ignores its ``cache_control``). A model not listed is taken at
DEFAULT_CACHE_MIN_TOKENS, the smallest the page lists; the plan names the figure it used."""
DEFAULT_CACHE_MIN_TOKENS = 1024

BATCH_DISCOUNT = 0.5
"""A request answered through a batch API costs this many times its listed price, on every
kind of token (input, output, prompt-cache writes and reads). Anthropic: "all usage is
charged at 50% of the standard API prices" (Message Batches pricing,
https://platform.claude.com/docs/en/build-with-claude/batch-processing#pricing); OpenAI:
the Batch API's 50% discount on input and output (https://platform.openai.com/docs/guides/batch).
"""


def cache_min_tokens(model: str) -> int:
    """The shortest prompt prefix ``model`` caches (CACHE_MIN_TOKENS, else the default)."""
    return CACHE_MIN_TOKENS.get(model, DEFAULT_CACHE_MIN_TOKENS)


def estimate_cost_usd(
    model: str,
    input_tokens: int,
    output_tokens: int,
    *,
    cache_write_tokens: int = 0,
    cache_read_tokens: int = 0,
    batched: bool = False,
) -> float | None:
    """The cost in USD of ``input_tokens`` in (not cached) and ``output_tokens`` out at
    ``model``'s listed price, plus prompt-cache writes and reads at CACHE_WRITE_RATE and
    CACHE_READ_RATE times the input price, all times BATCH_DISCOUNT when ``batched`` (an
    estimate: list prices, no other discounts), or None when no price is known."""
    price = PRICES_PER_MILLION.get(model)
    if price is None:
        return None
    cached = cache_write_tokens * CACHE_WRITE_RATE + cache_read_tokens * CACHE_READ_RATE
    listed = ((input_tokens + cached) * price[0] + output_tokens * price[1]) / 1e6
    return listed * BATCH_DISCOUNT if batched else listed


def calls_cost_usd(model: str, calls: Iterable[CallUsage]) -> float | None:
    """What ``calls`` cost at ``model``'s price (``estimate_cost_usd``), each at the batch
    price when it was ``batched``; a call served from the reply cache (``cached``) was paid
    for before and costs nothing here. None when no price is known for ``model``."""
    if model not in PRICES_PER_MILLION:
        return None
    total = 0.0
    for call in calls:
        if call.cached:
            continue
        total += (
            estimate_cost_usd(
                model,
                call.input_tokens,
                call.output_tokens,
                cache_write_tokens=call.cache_write_tokens,
                cache_read_tokens=call.cache_read_tokens,
                batched=call.batched,
            )
            or 0.0
        )
    return total
