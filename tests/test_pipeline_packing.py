"""Packed extraction: small input chunks share a batch; each proposition keeps the ids of
the input chunks it came from; the plan and the run agree; calls stay near the floor."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

from agentic_chunking import AgenticChunkInput, chunk_text_agentic, plan_batches
from agentic_chunking._loopback import FakeMessagesServer, FakeReply, ScriptedPipeline, user_text
from agentic_chunking._models import estimate_tokens
from agentic_chunking.client import make_client
from agentic_chunking.pipeline import PipelineOptions
from agentic_chunking.pipeline._batches import Batch, Segment
from agentic_chunking.pipeline._plan import plan_run
from agentic_chunking.pipeline._prompts import load_prompt
from agentic_chunking.pipeline._provenance import locate

LIVER = "The human liver filters blood. It also stores glycogen."
ZONING = "Zoning ordinances regulate land use in cities."
LIVER_FACTS = ["The human liver filters blood.", "The human liver stores glycogen."]
ZONING_FACTS = ["Zoning ordinances regulate land use in cities."]
PACKED = Batch(0, (Segment("C1", LIVER), Segment("C2", ZONING)))


def attribute(propositions: list[str], batch: Batch) -> list[tuple[str, ...]]:
    """The input chunk ids ``locate`` gives, each segment standing for its whole chunk."""
    texts = {s.chunk_id: s.text for s in batch.segments}
    return [found.chunk_ids for found in locate(propositions, batch, texts)]


def test_each_proposition_of_a_packed_batch_gets_the_chunk_that_states_it() -> None:
    assert attribute([*LIVER_FACTS, *ZONING_FACTS], PACKED) == [("C1",), ("C1",), ("C2",)]


def test_a_proposition_stating_both_chunks_gets_both_ids() -> None:
    # one proposition joining the liver and the zoning sentence: its window spans both
    both = "The human liver stores glycogen and zoning ordinances regulate land use in cities."
    assert attribute([both], PACKED) == [("C1", "C2")]


def test_a_proposition_nothing_in_the_batch_supports_falls_back_to_every_id() -> None:
    assert attribute(["Quasars emit 1000 times more light."], PACKED) == [("C1", "C2")]


def test_a_batch_of_one_chunk_gives_that_chunk_without_aligning() -> None:
    single = Batch(0, (Segment("C9", LIVER),))
    assert attribute(["Anything at all."], single) == [("C9",)]


@pytest.fixture
def scripted() -> Iterator[Any]:
    servers: list[FakeMessagesServer] = []

    def start(script: ScriptedPipeline) -> Any:
        server = FakeMessagesServer(handler=script).start()
        servers.append(server)
        return server, make_client(api_key="test-key", base_url=server.base_url, max_retries=0)

    yield start
    for server in servers:
        server.stop()


def test_two_small_chunks_are_one_call_and_keep_their_own_provenance(scripted: Any) -> None:
    theme = {**dict.fromkeys(LIVER_FACTS, "Liver"), **dict.fromkeys(ZONING_FACTS, "Zoning")}
    script = ScriptedPipeline({LIVER: LIVER_FACTS, ZONING: ZONING_FACTS}, theme.__getitem__)
    server, client = scripted(script)
    with client:
        response = chunk_text_agentic(
            [AgenticChunkInput("C1", LIVER), AgenticChunkInput("C2", ZONING)], "D", client=client
        )
    assert response.is_success, response.error_detail
    assert script.calls == {"extraction": 1, "grouping": 1}
    prompt = load_prompt("extraction").text
    [extraction] = [r for r in server.requests if r.body["system"] == prompt]
    assert user_text(extraction.body) == f"<text>\n{LIVER}\n\n{ZONING}\n</text>"
    sources = {c.thematic_category: c.source_chunk_ids for c in response.chunks}
    assert sources == {"Liver": ("C1",), "Zoning": ("C2",)}


def test_a_failed_run_keeps_the_packed_batch_with_all_its_ids() -> None:
    big = "Aqueducts carried water to Rome. " * 3  # 99 characters: a batch of its own
    inputs = [AgenticChunkInput("C1", LIVER), AgenticChunkInput("C2", ZONING)]
    inputs.append(AgenticChunkInput("C3", big))
    cut = FakeReply(text="[", stop_reason="max_tokens")
    replies = [json.dumps(LIVER_FACTS + ZONING_FACTS), cut]
    server = FakeMessagesServer(replies=replies).start()
    try:
        with make_client(api_key="k", base_url=server.base_url, max_retries=0) as client:
            response = chunk_text_agentic(
                inputs, "D", client=client, max_tokens_per_batch=30, max_concurrency=1
            )
    finally:
        server.stop()
    assert not response.is_success and response.failed_batches == (2,)
    [kept] = response.extracted
    assert kept.chunk_ids == ("C1", "C2") and len(kept.propositions) == 3
    assert response.to_dict()["Extracted"][0]["ChunkIds"] == ["C1", "C2"]


def _document(paragraphs: int) -> tuple[list[AgenticChunkInput], dict[str, list[str]]]:
    """Paragraph-sized input chunks of varied length, each with one generated fact a sentence."""
    inputs, extraction = [], {}
    for n in range(paragraphs):
        sentences = [f"Item {n}-{k} weighs {n + k} grams in total." for k in range(1 + n % 7)]
        text = " ".join(sentences)
        inputs.append(AgenticChunkInput(f"P{n:04d}", text))
        extraction[text] = sentences
    return inputs, extraction


@pytest.mark.parametrize("limit", [100, 500, 2000])
def test_calls_are_within_ten_percent_of_the_floor(limit: int) -> None:
    inputs, _ = _document(400)
    tokens = sum(estimate_tokens(c.text) for c in inputs)
    larger = sum(estimate_tokens(c.text) > limit for c in inputs)
    floor = math.ceil(tokens / limit) + larger
    batches = plan_batches(inputs, limit)
    assert floor <= len(batches) <= math.ceil(1.1 * floor)
    assert len(batches) < len(inputs)  # must pack: one call per paragraph is far above


def test_chunks_larger_than_the_limit_are_never_packed_beyond_it() -> None:
    big = "Word " * 400  # 2000 characters: 500 tokens
    batches = plan_batches([AgenticChunkInput("A", big), AgenticChunkInput("B", big)], 100)
    assert all(estimate_tokens(b.text) <= 100 for b in batches)
    assert len(batches) >= 10


def test_the_dry_run_plan_and_the_run_agree_on_the_batches(scripted: Any) -> None:
    inputs, extraction = _document(60)
    plan = plan_run(inputs, PipelineOptions(model="reference", max_tokens_per_batch=200))
    script = ScriptedPipeline(extraction, lambda _text: "Weights")
    _server, client = scripted(script)
    with client:
        response = chunk_text_agentic(
            inputs,
            "D",
            client=client,
            model="reference",
            max_tokens_per_batch=200,
            max_chunk_tokens=100_000,  # one theme, one chunk
        )
    assert response.is_success, response.error_detail
    assert script.calls["extraction"] == plan.batches == len(plan_batches(inputs, 200))
    assert plan.input_chunks == len(inputs)
    # every proposition's provenance is its own paragraph, though paragraphs were packed
    [chunk] = response.chunks
    assert chunk.source_chunk_ids == tuple(c.chunk_id for c in inputs)
    assert json.loads(json.dumps(response.to_dict()))["IsSuccess"] is True


def test_the_dry_run_refuses_the_max_tokens_the_run_refuses() -> None:
    from agentic_chunking import InputError

    inputs = [AgenticChunkInput("C1", LIVER)]
    with pytest.raises(InputError, match="--extraction-max-tokens 99999 is above"):
        plan_run(inputs, PipelineOptions(model="claude-sonnet-4-6", extraction_max_tokens=99999))
    with pytest.raises(InputError, match="--extraction-max-tokens 99999 is above"):
        chunk_text_agentic(inputs, "D", model="claude-sonnet-4-6", extraction_max_tokens=99999)
    plan = plan_run(inputs, PipelineOptions(model="claude-sonnet-4-6"))
    assert plan.batches == 1


def test_a_sentence_two_overlapping_chunks_share_gives_both_ids() -> None:
    shared = "Autoscaling adds nodes when demand rises."
    batch = Batch(
        0,
        (
            Segment("L1", f"Kubernetes schedules containers. {shared}"),
            Segment("L2", f"{shared} Storage buckets leak data."),
        ),
    )
    others = ["Kubernetes schedules containers.", "Storage buckets leak data."]
    got = attribute([shared, *others], batch)
    assert got == [("L1", "L2"), ("L1",), ("L2",)]
