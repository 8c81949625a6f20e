"""Long documents: grouping in windows, then one merge call over the category labels."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic_chunking import AgenticChunkInput, chunk_text_agentic
from agentic_chunking._loopback import FakeMessagesServer, FakeReply, ScriptedPipeline
from agentic_chunking.client import make_client
from agentic_chunking.pipeline._grouping import (
    MAX_WINDOW_INPUT_TOKENS,
    OUTPUT_SHARE,
    estimate_output_tokens,
    plan_windows,
)

THEMES = {"Glacier": "Glaciers", "Lithium": "Batteries", "Zoning": "Zoning"}


def fact(theme: str, n: int) -> str:
    return f"{theme} fact number {n} holds in the record {n * 7}."


def document(
    chunks: int = 6, per_chunk: int = 5
) -> tuple[list[AgenticChunkInput], dict[str, list[str]]]:
    names = list(THEMES)
    extraction: dict[str, list[str]] = {}
    inputs = []
    for c in range(chunks):
        props = [fact(names[(c * per_chunk + k) % 3], c * per_chunk + k) for k in range(per_chunk)]
        text = " ".join(props)
        extraction[text] = props
        inputs.append(AgenticChunkInput(f"C{c}", text))
    return inputs, extraction


def theme_of(text: str) -> str:
    return THEMES[text.split()[0]]


@pytest.fixture
def run() -> Iterator[Any]:
    opened: list[Any] = []

    def start(handler: Any, **options: Any) -> tuple[Any, FakeMessagesServer]:
        server = FakeMessagesServer(handler=handler, enforce_max_tokens=True).start()
        client = make_client(api_key="k", base_url=server.base_url, max_retries=0)
        opened.append((server, client))
        inputs = options.pop("inputs")
        return chunk_text_agentic(inputs, "DOC", client=client, **options), server

    yield start
    for server, client in opened:
        client.close()
        server.stop()


def test_windows_then_a_merge_give_global_themes_and_a_whole_partition(run: Any) -> None:
    inputs, extraction = document()
    script = ScriptedPipeline(extraction, theme_of)
    lines: list[str] = []
    response, _server = run(
        script, inputs=inputs, grouping_max_tokens=102, progress=lines.append, max_concurrency=2
    )
    assert response.is_success, response.error_detail
    assert script.calls == {"extraction": 1, "grouping": 3, "grouping_merge": 1}  # packed
    assert [c.thematic_category for c in response.chunks] == ["Glaciers", "Batteries", "Zoning"]
    everything = [p for props in extraction.values() for p in props]
    for chunk in response.chunks:
        expected = [p for p in everything if theme_of(p) == chunk.thematic_category]
        assert list(chunk.propositions) == expected  # document order, across windows
    assert sorted(p for c in response.chunks for p in c.propositions) == sorted(everything)
    assert [(c.stage, c.batch) for c in response.calls if c.stage != "extraction"] == [
        ("grouping", 1),
        ("grouping", 2),
        ("grouping", 3),
        ("grouping_merge", None),
    ]
    windows = [line for line in lines if line.startswith("grouping window ")]
    assert [line.split(" done ")[0] for line in windows] == [
        f"grouping window {k}/3" for k in (1, 2, 3)
    ]
    assert all("10 propositions): 3 categories; tokens so far " in line for line in windows)
    assert lines[-1].startswith("grouping merge 1/1 done (9 categories): 3 themes; tokens so far")
    tally = lines[-1].split("tokens so far ")[1]
    total_in = sum(c.input_tokens for c in response.calls)
    total_out = sum(c.output_tokens for c in response.calls)
    assert tally == f"{total_in:,} in / {total_out:,} out"


def test_one_call_when_everything_fits(run: Any) -> None:
    inputs, extraction = document()
    script = ScriptedPipeline(extraction, theme_of)
    response, _server = run(script, inputs=inputs)
    assert response.is_success and script.calls == {"extraction": 1, "grouping": 1}


def test_copied_facts_overflow_max_tokens_where_numbers_fit(run: Any) -> None:
    inputs, extraction = document()
    copying = ScriptedPipeline(extraction, theme_of, copy_facts=True)  # grouping-v1's reply
    response, _server = run(copying, inputs=inputs, grouping_max_tokens=102)
    assert not response.is_success
    assert response.error_detail.startswith(
        "the grouping window 1 reply stopped at max_tokens (102) and is cut off; raise "
        "grouping_max_tokens (--grouping-max-tokens, up to 21333)"
    )


def test_a_merge_that_is_not_a_partition_is_repaired_once_then_fails(run: Any) -> None:
    inputs, extraction = document()
    script = ScriptedPipeline(extraction, theme_of)

    def dropping(body: dict[str, Any]) -> FakeReply:
        reply = script(body)
        if "category_ids" not in reply.text:
            return reply
        merged = json.loads(reply.text)
        merged[0]["category_ids"] = merged[0]["category_ids"][1:]
        return FakeReply(text=json.dumps(merged))

    response, server = run(dropping, inputs=inputs, grouping_max_tokens=102)
    assert not response.is_success
    assert response.error_detail.startswith(
        "the grouping merge reply is not a partition of the 9 categories: 1 missing"
    )
    assert "after 1 repair attempt" in response.error_detail
    repair = server.requests[-1].body["messages"][-1]["content"]
    assert repair.startswith("Your grouping is not a partition: number 1 is in no group.")
    assert '"category_ids"' in repair


@given(st.lists(st.integers(1, 400), max_size=300), st.integers(40, 5000))
def test_windows_cover_every_proposition_once_within_the_budget(
    sizes: list[int], max_tokens: int
) -> None:
    texts = ["x" * size for size in sizes]
    windows = plan_windows(texts, max_tokens)
    assert [i for w in windows for i in w] == list(range(len(texts)))
    for window in windows:
        assert len(window) >= 1
        if len(window) > 1:
            assert estimate_output_tokens(len(window)) <= int(max_tokens * OUTPUT_SHARE)
            assert sum(len(texts[i]) // 4 + 3 for i in window) <= MAX_WINDOW_INPUT_TOKENS
    if texts and estimate_output_tokens(len(texts)) <= int(max_tokens * OUTPUT_SHARE):
        assert len(windows) == 1


def test_more_categories_than_one_merge_call_can_answer_fail_plainly(run: Any) -> None:
    inputs, extraction = document()
    script = ScriptedPipeline(extraction, lambda text: f"T{text.split()[3]}")  # one per fact
    response, _server = run(script, inputs=inputs, grouping_max_tokens=102)
    assert not response.is_success
    assert response.error_detail == (
        "the 3 grouping windows gave 30 categories, more than one merge call can answer "
        "within the grouping max_tokens (102, room for 10); raise the grouping max_tokens"
    )
    assert "grouping_merge" not in script.calls
