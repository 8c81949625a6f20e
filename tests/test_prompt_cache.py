"""Anthropic prompt caching: cache_control on a system prompt long enough to be cached,
the cache token counts carried in CallUsage and the results, the saving in the plan and
the cost figures at the cache rates (write 1.25x, read 0.1x the input price)."""

from __future__ import annotations

import io

import pytest

from agentic_chunking import AgenticChunkInput
from agentic_chunking._loopback import FakeMessagesServer, FakeReply
from agentic_chunking._models import AgenticResponse, CallUsage
from agentic_chunking.cli._progress import RunDisplay
from agentic_chunking.client import (
    PRICES_PER_MILLION,
    cache_min_tokens,
    call_model,
    estimate_cost_usd,
    make_client,
)
from agentic_chunking.pipeline import PipelineOptions, _plan
from agentic_chunking.pipeline._plan import plan_run
from agentic_chunking.pipeline._prompts import load_prompt

MODEL = "claude-sonnet-4-5"
LONG_SYSTEM = "Follow these instructions with care. " * 150  # 5,550 characters: ~1,387 tokens


def _call(system: str, reply: FakeReply) -> tuple[CallUsage, object]:
    with (
        FakeMessagesServer(replies=[reply]) as server,
        make_client(api_key="k", base_url=server.base_url, max_retries=0) as client,
    ):
        answer = call_model(
            client,
            stage="extraction",
            batch=1,
            model=MODEL,
            system=system,
            messages=[{"role": "user", "content": "<text>\nA.\n</text>"}],
            max_tokens=100,
        )
        return answer.usage, server.requests[0].body["system"]


def test_a_long_system_prompt_is_marked_for_the_cache_and_its_counts_are_kept() -> None:
    reply = FakeReply(text="[]", cache_creation_input_tokens=1387, cache_read_input_tokens=0)
    usage, system = _call(LONG_SYSTEM, reply)
    assert system == [{"type": "text", "text": LONG_SYSTEM, "cache_control": {"type": "ephemeral"}}]
    assert (usage.cache_write_tokens, usage.cache_read_tokens) == (1387, 0)
    read = FakeReply(text="[]", cache_read_input_tokens=1387)
    assert _call(LONG_SYSTEM, read)[0].cache_read_tokens == 1387


def test_a_system_prompt_under_the_minimum_is_sent_as_plain_text() -> None:
    prompt = load_prompt("extraction").text
    assert len(prompt) // 4 < cache_min_tokens(MODEL)  # 614 tokens: the API would not cache it
    usage, system = _call(prompt, FakeReply(text="[]"))
    assert system == prompt
    assert (usage.cache_write_tokens, usage.cache_read_tokens) == (0, 0)


def test_costs_use_the_cache_rates() -> None:
    price_in, price_out = PRICES_PER_MILLION[MODEL]
    cost = estimate_cost_usd(
        MODEL, 1_000_000, 1_000_000, cache_write_tokens=1_000_000, cache_read_tokens=1_000_000
    )
    assert cost == pytest.approx(price_in * (1 + 1.25 + 0.1) + price_out)
    assert estimate_cost_usd(MODEL, 10, 10) == estimate_cost_usd(
        MODEL, 10, 10, cache_write_tokens=0, cache_read_tokens=0
    )


def test_cache_counts_round_trip_and_appear_in_usage_only_when_there_are_any() -> None:
    call = CallUsage("extraction", MODEL, 100, 10, "end_turn", 0.1, 1, cache_write_tokens=7)
    assert CallUsage.from_dict(call.to_dict()) == call
    plain = CallUsage("extraction", MODEL, 100, 10, "end_turn", 0.1, 1)
    assert "CacheWriteTokens" not in plain.to_dict()
    usage = AgenticResponse(calls=(call, plain)).to_dict()["Usage"]
    assert (usage["CacheWriteTokens"], usage["CacheReadTokens"]) == (7, 0)
    assert "CacheWriteTokens" not in AgenticResponse(calls=(plain,)).to_dict()["Usage"]


INPUTS = [AgenticChunkInput(f"C{i}", "Glaciers carve deep valleys. " * 200) for i in range(6)]


def test_the_plan_says_the_prompts_are_too_short_to_cache() -> None:
    plan = plan_run(INPUTS, PipelineOptions(model=MODEL))
    assert (plan.cache_write_tokens, plan.cache_read_tokens) == (0, 0)
    assert plan.estimated_cost_usd == plan.cost_without_cache_usd
    [line] = [line for line in plan.lines() if line.startswith("prompt caching:")]
    assert "under the 1,024-token minimum claude-sonnet-4-5 caches (extraction 614" in line


def test_the_plan_shows_the_saving_when_the_prompts_are_cached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_plan, "cache_min_tokens", lambda model: 100)  # as for longer prompts
    plan = plan_run(INPUTS, PipelineOptions(model=MODEL))
    extraction = len(load_prompt("extraction").text) // 4
    grouping = len(load_prompt("grouping").text) // 4
    assert plan.batches > 1 and plan.grouping_windows > 1
    assert plan.cache_write_tokens == extraction + grouping  # each stage's first call
    reads = extraction * (plan.batches - 1) + grouping * (plan.grouping_windows - 1)
    assert plan.cache_read_tokens == reads
    assert plan.estimated_cost_usd is not None and plan.cost_without_cache_usd is not None
    saved = plan.cost_without_cache_usd - plan.estimated_cost_usd
    price_in = PRICES_PER_MILLION[MODEL][0]
    expected = (plan.cache_read_tokens * 0.9 - plan.cache_write_tokens * 0.25) * price_in / 1e6
    assert saved == pytest.approx(expected) and saved > 0
    assert f"${saved:.4f} saved" in plan.lines()[-1]


def test_the_summary_prices_prompt_cache_tokens_at_their_rates() -> None:
    call = CallUsage("extraction", MODEL, 1000, 100, "end_turn", 0.1, 1, cache_read_tokens=9000)
    stream = io.StringIO()
    line = RunDisplay(model=MODEL, prefix="", stream=stream).summary(
        AgenticResponse(calls=(call,)), "out.json", 1
    )
    cost = estimate_cost_usd(MODEL, 1000, 100, cache_read_tokens=9000)
    assert f"(prompt cache: 0 written, 9,000 read) (${cost:.4f})" in line


def test_the_fakes_read_a_system_prompt_sent_as_cached_blocks() -> None:
    from agentic_chunking._loopback import system_text

    blocks = [{"type": "text", "text": "abc", "cache_control": {"type": "ephemeral"}}]
    assert system_text({"system": blocks}) == "abc" == system_text({"system": "abc"})
