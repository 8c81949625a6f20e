"""chunk_text_agentic end to end against FakeMessagesServer on 127.0.0.1 (never the network)."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

import anthropic
import pytest

from agentic_chunking import (
    DEFAULT_MODEL,
    AgenticChunkInput,
    ConfigurationError,
    ModelCallError,
)
from agentic_chunking import chunk_text_agentic as _chunk_text_agentic
from agentic_chunking._loopback import FakeMessagesServer, FakeReply, user_text
from agentic_chunking._warning import NO_SOURCE_OFFSETS
from agentic_chunking.client import make_client
from agentic_chunking.pipeline._prompts import load_prompt

KEY = "sk-ant-test-secret-0123456789"

LIVER = "The human liver filters blood. It also stores glycogen."
ZONING = "Zoning ordinances regulate land use in cities."
LIVER_FACTS = ["The human liver filters blood.", "The human liver stores glycogen."]
ZONING_FACTS = ["Zoning ordinances regulate land use in cities."]
GOOD_GROUPING = [
    {"category": "Liver Function", "facts": LIVER_FACTS},
    {"category": "Urban Zoning", "facts": ZONING_FACTS},
]
INPUTS = [AgenticChunkInput("C1", LIVER), AgenticChunkInput("C2", ZONING)]


SMALL_BATCHES = 19
"""A batch limit (76 characters) under which no two input chunks here share a batch."""


def chunk_text_agentic(*args: Any, **kwargs: Any) -> Any:
    """The pipeline with one batch per input chunk here (``SMALL_BATCHES`` unless a test
    gives its own limit): these tests are about per-batch behaviour (repairs, refusals,
    order); packing has its own tests in test_pipeline_packing.py."""
    kwargs.setdefault("max_tokens_per_batch", SMALL_BATCHES)
    return _chunk_text_agentic(*args, **kwargs)


class Script:
    """Routes requests by stage: extraction replies per batch text, grouping replies in order."""

    def __init__(
        self,
        extraction: dict[str, Sequence[FakeReply | str]],
        grouping: Sequence[FakeReply | str] = (),
    ) -> None:
        self.extraction = {text: deque(replies) for text, replies in extraction.items()}
        self.grouping = deque(grouping)

    def __call__(self, body: dict[str, Any]) -> FakeReply | str:
        first = body["messages"][0]["content"]
        if body["system"] == load_prompt("grouping").text:
            return self.grouping.popleft()
        batch = first.removeprefix("<text>\n").removesuffix("\n</text>")
        return self.extraction[batch].popleft()


def ok(value: Any) -> str:
    return json.dumps(value)


def default_script(grouping: Sequence[FakeReply | str] | None = None) -> Script:
    return Script(
        {LIVER: [ok(LIVER_FACTS)], ZONING: [ok(ZONING_FACTS)]},
        grouping if grouping is not None else [ok(GOOD_GROUPING)],
    )


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "AGENTIC_CHUNKING_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[FakeMessagesServer] = []
    clients: list[anthropic.Anthropic] = []

    def start(handler: Any) -> tuple[FakeMessagesServer, anthropic.Anthropic]:
        server = FakeMessagesServer(handler=handler).start()
        servers.append(server)
        clients.append(make_client(api_key=KEY, base_url=server.base_url, max_retries=2))
        return server, clients[-1]

    yield start
    for client in clients:
        client.close()
    for server in servers:
        server.stop()


def stages(server: FakeMessagesServer) -> list[str]:
    grouping = load_prompt("grouping").text
    return ["grouping" if r.body["system"] == grouping else "extraction" for r in server.requests]


def test_success_builds_chunks_with_provenance_and_usage(serve: Any) -> None:
    _server, client = serve(default_script())
    response = chunk_text_agentic(INPUTS, "DOC-1", client=client, model="reference")
    assert response.is_success, response.error_detail
    assert [c.thematic_category for c in response.chunks] == ["Liver Function", "Urban Zoning"]
    assert [c.chunk_id for c in response.chunks] == ["DOC-1-0001", "DOC-1-0002"]
    assert response.chunks[0].propositions == tuple(LIVER_FACTS)
    assert [c.source_chunk_ids for c in response.chunks] == [("C1",), ("C2",)]
    assert response.total_propositions == 3
    assert [(c.stage, c.batch) for c in response.calls] == [
        ("extraction", 1),
        ("extraction", 2),
        ("grouping", None),
    ]
    assert all(c.model == "reference" and c.stop_reason == "end_turn" for c in response.calls)
    assert response.input_tokens == sum(c.input_tokens for c in response.calls) > 0
    assert response.to_dict()["Usage"]["Calls"][2]["Stage"] == "grouping"
    assert response.to_dict()["Chunks"][0]["SourceChunkIds"] == ["C1"]


def test_request_bodies_carry_temperature_max_tokens_model_and_prompts(serve: Any) -> None:
    server, client = serve(default_script())
    chunk_text_agentic(INPUTS, "DOC-1", client=client, model="reference")
    bodies = {stage: r.body for stage, r in zip(stages(server), server.requests, strict=True)}
    for body in (r.body for r in server.requests):
        assert body["temperature"] == 0
        assert body["model"] == "reference"
    assert bodies["extraction"]["max_tokens"] == 8000
    assert bodies["grouping"]["max_tokens"] == 4000
    assert bodies["extraction"]["system"] == load_prompt("extraction").text
    assert not bodies["extraction"]["system"].startswith("# version")
    assert user_text(bodies["grouping"]) == (
        "<propositions>\n1. The human liver filters blood.\n2. The human liver stores glycogen."
        "\n3. Zoning ordinances regulate land use in cities.\n</propositions>"
    )


def test_max_tokens_arguments_reach_the_requests(serve: Any) -> None:
    server, client = serve(default_script())
    chunk_text_agentic(
        INPUTS, "D", client=client, extraction_max_tokens=123, grouping_max_tokens=456
    )
    assert sorted(r.body["max_tokens"] for r in server.requests) == [123, 123, 456]


def test_the_key_travels_only_in_the_authorization_header(serve: Any) -> None:
    server, client = serve(default_script())
    chunk_text_agentic(INPUTS, "DOC-1", client=client)
    for request in server.requests:
        assert request.headers["authorization"] == f"Bearer {KEY}"
        others = {k: v for k, v in request.headers.items() if k != "authorization"}
        assert KEY not in json.dumps(others)
        assert KEY.encode() not in request.raw_body


def test_429_then_success_is_retried_by_the_sdk(serve: Any) -> None:
    script = default_script()
    script.extraction[LIVER].appendleft(FakeReply(status=429))
    server, client = serve(script)
    response = chunk_text_agentic(INPUTS, "D", client=client, max_concurrency=1)
    assert response.is_success, response.error_detail
    assert stages(server) == ["extraction", "extraction", "extraction", "grouping"]
    assert server.requests[1].headers["x-stainless-retry-count"] == "1"


@pytest.mark.parametrize("status", [529, 500])
def test_a_server_error_that_outlasts_the_retries_raises_model_call_error(
    serve: Any, status: int
) -> None:
    script = default_script()
    script.extraction[ZONING] = deque([FakeReply(status=status)] * 3)
    server, client = serve(script)
    with pytest.raises(ModelCallError, match=f"batch 2 failed with HTTP {status}") as caught:
        chunk_text_agentic(INPUTS, "D", client=client, max_concurrency=1)
    assert caught.value.stage == "extraction"
    assert caught.value.batch == 2
    assert isinstance(caught.value.__cause__, anthropic.InternalServerError)
    assert stages(server).count("grouping") == 0
    assert len(server.requests) == 1 + 3  # batch 1, then batch 2 with two SDK retries


def test_529_then_success_recovers(serve: Any) -> None:
    script = default_script()
    script.extraction[LIVER].appendleft(FakeReply(status=529))
    _server, client = serve(script)
    assert chunk_text_agentic(INPUTS, "D", client=client).is_success


def test_a_connection_failure_raises_model_call_error_from_the_sdk_error() -> None:
    server = FakeMessagesServer().start()
    base_url = server.base_url
    server.stop()
    client = make_client(api_key=KEY, base_url=base_url, max_retries=0)
    with client, pytest.raises(ModelCallError, match="before a reply arrived") as caught:
        chunk_text_agentic(INPUTS[:1], "D", client=client)
    assert isinstance(caught.value.__cause__, anthropic.APIConnectionError)


def test_a_reply_cut_at_max_tokens_fails_naming_batch_and_chunk(serve: Any) -> None:
    script = default_script()
    script.extraction[ZONING] = deque([FakeReply(text='["Zoning ord', stop_reason="max_tokens")])
    server, client = serve(script)
    response = chunk_text_agentic(INPUTS, "D", client=client)
    assert not response.is_success and not response.chunks
    assert "max_tokens" in response.error_detail
    assert "batch 2" in response.error_detail and "chunk C2" in response.error_detail
    assert stages(server) == ["extraction", "extraction"]  # not repaired, no grouping
    assert len(response.calls) == 2


def test_a_refusal_fails_without_repair(serve: Any) -> None:
    script = default_script()
    script.extraction[LIVER] = deque([FakeReply(text="", stop_reason="refusal")])
    server, client = serve(script)
    response = chunk_text_agentic(INPUTS, "D", client=client)
    assert not response.is_success
    assert "refusal" in response.error_detail and "batch 1" in response.error_detail
    assert len(server.requests) == 2


def test_garbage_then_a_valid_reply_is_repaired(serve: Any) -> None:
    script = default_script()
    script.extraction[LIVER].appendleft("Sure! The liver filters blood and stores glycogen.")
    server, client = serve(script)
    response = chunk_text_agentic(INPUTS, "D", client=client, max_concurrency=1)
    assert response.is_success, response.error_detail
    repair = server.requests[1].body["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    assert repair[1]["content"].startswith("Sure!")
    assert "could not be parsed" in repair[2]["content"]
    assert [c.batch for c in response.calls] == [1, 1, 2, None]


def test_garbage_twice_fails_with_the_parser_reason(serve: Any) -> None:
    script = default_script()
    script.extraction[LIVER] = deque(["no json here", "still none"])
    server, client = serve(script)
    response = chunk_text_agentic(INPUTS, "D", client=client, max_concurrency=1)
    assert not response.is_success
    assert "could not be parsed" in response.error_detail
    assert "no JSON array" in response.error_detail and "batch 1" in response.error_detail
    assert stages(server) == ["extraction", "extraction", "extraction"]


def test_no_repair_when_max_repair_attempts_is_zero(serve: Any) -> None:
    script = default_script()
    script.extraction[LIVER] = deque(["no json here"])
    server, client = serve(script)
    response = chunk_text_agentic(INPUTS[:1], "D", client=client, max_repair_attempts=0)
    assert "could not be parsed" in response.error_detail
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("grouping", "expected"),
    [
        ([{"category": "Liver", "facts": LIVER_FACTS}], "missing from the grouping"),
        (
            [*GOOD_GROUPING, {"category": "Extra", "facts": ["The liver is large."]}],
            "not among the extracted propositions",
        ),
        (
            [*GOOD_GROUPING, {"category": "Again", "facts": LIVER_FACTS[:1]}],
            "more than one chunk",
        ),
    ],
    ids=["drops", "adds", "repeats"],
)
def test_a_grouping_that_is_not_a_partition_fails_after_one_repair(
    serve: Any, grouping: list[dict[str, Any]], expected: str
) -> None:
    _server, client = serve(default_script([ok(grouping), ok(grouping)]))
    response = chunk_text_agentic(INPUTS, "D", client=client)
    assert not response.is_success and not response.chunks
    assert expected in response.error_detail
    assert "after 1 repair attempt" in response.error_detail
    assert len(response.calls) == 4


def test_a_dropped_proposition_is_named(serve: Any) -> None:
    _server, client = serve(default_script([ok(GOOD_GROUPING[:1])] * 2))
    response = chunk_text_agentic(INPUTS, "D", client=client)
    assert ZONING_FACTS[0] in response.error_detail


@pytest.mark.parametrize(
    ("fact_ids", "named"),
    [
        ([[1], [3]], "number 2 is in no group"),
        ([[1, 2], [2, 3]], "number 2 is in groups 1, 2"),
        ([[1, 2], [3, 7, 0]], "numbers 7, 0 are not in the list 1..3"),
        ([[1], [3, 9]], "number 2 is in no group; number 9 is not in the list 1..3"),
    ],
    ids=["missing", "repeated", "out-of-range", "both"],
)
def test_a_non_partition_gets_one_repair_turn_naming_exactly_the_numbers(
    serve: Any, fact_ids: list[list[int]], named: str
) -> None:
    bad = [{"category": f"G{i}", "fact_ids": ids} for i, ids in enumerate(fact_ids)]
    good = [{"category": "Liver", "fact_ids": [1, 2]}, {"category": "Zoning", "fact_ids": [3]}]
    server, client = serve(default_script([ok(bad), ok(good)]))
    response = chunk_text_agentic(INPUTS, "D", client=client)
    assert response.is_success, response.error_detail
    assert [c.propositions for c in response.chunks] == [tuple(LIVER_FACTS), tuple(ZONING_FACTS)]
    repair = server.requests[-1].body["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    assert repair[1]["content"] == ok(bad)
    turn = repair[2]["content"]
    assert turn.startswith(f"Your grouping is not a partition: {named}. Reply again")
    assert '"fact_ids"' in turn


def test_a_partition_is_not_repaired(serve: Any) -> None:
    server, client = serve(default_script())
    assert chunk_text_agentic(INPUTS, "D", client=client).is_success
    assert stages(server).count("grouping") == 1


def test_a_grouping_cut_at_max_tokens_fails(serve: Any) -> None:
    cut = FakeReply(text='[{"category": "Liv', stop_reason="max_tokens")
    _server, client = serve(default_script([cut]))
    response = chunk_text_agentic(INPUTS, "D", client=client)
    assert "grouping" in response.error_detail and "max_tokens" in response.error_detail


def test_grouping_garbage_is_repaired_once_and_fact_ids_are_accepted(serve: Any) -> None:
    by_ids = [{"category": "Liver", "fact_ids": [1, 2]}, {"category": "Zoning", "fact_ids": [3]}]
    server, client = serve(default_script(["I grouped them for you.", ok(by_ids)]))
    response = chunk_text_agentic(INPUTS, "D", client=client)
    assert response.is_success, response.error_detail
    assert response.chunks[1].propositions == tuple(ZONING_FACTS)
    assert stages(server).count("grouping") == 2


def test_overlapping_inputs_are_merged_with_the_union_of_provenance(serve: Any) -> None:
    first = "The human liver filters blood. It stores glycogen."
    second = "The liver stores glycogen. Zoning ordinances regulate land use in cities."
    script = Script(
        {
            first: [ok(LIVER_FACTS)],
            second: [ok(["Glycogen is stored by the human liver.", *ZONING_FACTS])],
        },
        [ok(GOOD_GROUPING)],
    )
    server, client = serve(script)
    response = chunk_text_agentic(
        [AgenticChunkInput("C1", first), AgenticChunkInput("C2", second)], "D", client=client
    )
    assert response.is_success, response.error_detail
    grouping_request = server.requests[-1].body
    assert user_text(grouping_request).count("glycogen") == 1
    assert response.chunks[0].source_chunk_ids == ("C1", "C2")
    assert response.chunks[1].source_chunk_ids == ("C2",)
    assert response.total_propositions == 3


def test_an_empty_input_chunk_is_noted_and_skipped(serve: Any) -> None:
    server, client = serve(default_script())
    inputs = [INPUTS[0], AgenticChunkInput("EMPTY", "  \n "), INPUTS[1]]
    response = chunk_text_agentic(inputs, "D", client=client)
    assert response.is_success, response.error_detail
    assert [(w.kind, dict(w.data)) for w in response.warnings] == [
        ("empty_input", {"chunk_id": "EMPTY"}),
        ("no_source_offsets", {"chunk_ids": [INPUTS[0].chunk_id, INPUTS[1].chunk_id]}),
    ]  # the empty chunk has nothing to locate
    assert "input chunk EMPTY is empty" in str(response.warnings[0])
    assert len(server.requests) == 3
    assert [c.batch for c in response.calls] == [1, 2, None]


def test_only_empty_inputs_fail_without_any_call_or_key() -> None:
    response = chunk_text_agentic([AgenticChunkInput("E", "")], "D")
    assert not response.is_success
    assert "no input chunk has any text" in response.error_detail
    assert response.calls == ()


def test_batches_of_one_long_chunk_keep_its_provenance(serve: Any) -> None:
    long_text = "\n\n".join(f"Paragraph {n} states fact number {n}." for n in range(1, 4))

    def handler(body: dict[str, Any]) -> str:
        if body["system"] == load_prompt("grouping").text:
            facts = [line.split(". ", 1)[1] for line in user_text(body).splitlines()[1:-1]]
            return ok([{"category": "Facts", "facts": facts}])
        batch = user_text(body).removeprefix("<text>\n").removesuffix("\n</text>")
        return ok([batch])

    _server, client = serve(handler)
    response = chunk_text_agentic(
        [AgenticChunkInput("LONG", long_text)], "D", client=client, max_tokens_per_batch=10
    )
    assert response.is_success, response.error_detail
    assert [c.batch for c in response.calls] == [1, 2, 3, None]
    assert response.chunks[0].source_chunk_ids == ("LONG",)
    assert response.total_propositions == 3


def test_concurrent_extraction_is_bounded_and_keeps_input_order(serve: Any) -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}
    inputs = [AgenticChunkInput(f"C{n}", f"Fact {n} is true.") for n in range(1, 7)]

    def handler(body: dict[str, Any]) -> str:
        text = user_text(body)
        if body["system"] == load_prompt("grouping").text:
            facts = [line.split(". ", 1)[1] for line in text.splitlines()[1:-1]]
            return ok([{"category": "Facts", "facts": facts}])
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        number = int(text.split()[2])
        time.sleep(0.02 * (7 - number))  # later batches answer first
        with lock:
            state["now"] -= 1
        return ok([f"Fact {number} is true."])

    _server, client = serve(handler)
    response = chunk_text_agentic(
        inputs, "D", client=client, max_concurrency=3, max_tokens_per_batch=4, max_chunk_tokens=99
    )
    assert response.is_success, response.error_detail
    assert 2 <= state["peak"] <= 3
    assert response.chunks[0].propositions == tuple(f"Fact {n} is true." for n in range(1, 7))
    assert [c.batch for c in response.calls] == [1, 2, 3, 4, 5, 6, None]


def test_progress_lines_are_reported_for_several_batches(serve: Any) -> None:
    _server, client = serve(default_script())
    lines: list[str] = []
    chunk_text_agentic(INPUTS, "D", client=client, progress=lines.append)
    assert len(lines) == 3 and lines[-1] == "grouping 3 propositions"
    assert lines[1].startswith("extraction batch 2/2 done (batch ")
    assert any("(batch 2 (chunk C2)): 1 proposition; tokens so far " in line for line in lines)
    last = lines[1].split("tokens so far ")[1]
    assert last.endswith(" out") and " in / " in last


def test_model_comes_from_the_environment_then_the_default(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, client = serve(default_script())
    monkeypatch.setenv("AGENTIC_CHUNKING_MODEL", "claude-from-env")
    chunk_text_agentic(INPUTS, "D", client=client)
    assert {r.body["model"] for r in server.requests} == {"claude-from-env"}
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL")
    server2, client2 = serve(default_script())
    chunk_text_agentic(INPUTS, "D", client=client2)
    assert {r.body["model"] for r in server2.requests} == {DEFAULT_MODEL}


def test_the_client_is_built_from_the_environment(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _client = serve(default_script())
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    assert chunk_text_agentic(INPUTS, "D", max_retries=0).is_success
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_a_missing_key_is_a_configuration_error_naming_the_variable() -> None:
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        chunk_text_agentic(INPUTS, "D")


def test_an_unknown_model_suggests_another(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentic_chunking.client import _config as _client_config

    monkeypatch.setattr(_client_config, "sdk_model_table", lambda: (("claude-listed",), {}))
    _server, client = serve(lambda body: FakeReply(status=404, text="model: nope"))
    with pytest.raises(ConfigurationError, match=r"--model.*claude-listed") as caught:
        chunk_text_agentic(INPUTS[:1], "D", client=client, model="nope")
    assert "'nope'" in str(caught.value)
    assert isinstance(caught.value.__cause__, anthropic.NotFoundError)


def test_a_rejected_key_is_a_configuration_error_without_the_key(serve: Any) -> None:
    _server, client = serve(lambda body: FakeReply(status=401, text="invalid x-api-key"))
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY") as caught:
        chunk_text_agentic(INPUTS[:1], "D", client=client)
    assert KEY not in str(caught.value)


def test_possible_duplicates_both_survive_the_pipeline_and_are_reported(serve: Any) -> None:
    first = "In winter the pass lets no trucks through. In summer it lets trucks through."
    second = "Most residents own a car. Many residents own a car. Dogs chase cats."
    facts_1 = ["The pass lets no trucks through in winter.", "The pass lets trucks through."]
    facts_2 = ["Most residents own a car.", "Many residents own a car.", "Dogs chase cats."]
    again = ["Cats chase dogs.", "The pass lets trucks through in winter."]
    third = "Cats chase dogs. The pass lets trucks through in winter."
    grouping = [
        {"category": "Mountain Pass", "fact_ids": [1, 2, 7]},
        {"category": "Residents", "fact_ids": [3, 4]},
        {"category": "Animals", "fact_ids": [5, 6]},
    ]
    script = Script(
        {first: [ok(facts_1)], second: [ok(facts_2)], third: [ok(again)]}, [ok(grouping)]
    )
    server, client = serve(script)
    inputs = [AgenticChunkInput("C1", first), AgenticChunkInput("C2", second)]
    inputs.append(AgenticChunkInput("C3", third))
    response = chunk_text_agentic(inputs, "D", client=client)
    assert response.is_success, response.error_detail
    kept = [p for chunk in response.chunks for p in chunk.propositions]
    assert sorted(kept) == sorted([*facts_1, *facts_2, *again])  # nothing merged away
    assert "7. The pass lets trucks through in winter." in user_text(server.requests[-1].body)
    possible = [w for w in response.warnings if w.kind == "possible_duplicate"]
    assert {(w.data["original"], w.data["proposition"], w.data["relation"]) for w in possible} == {
        ("Dogs chase cats.", "Cats chase dogs.", "reworded_duplicate"),
        (
            "The pass lets trucks through.",
            "The pass lets trucks through in winter.",
            "contained_duplicate",
        ),
    }
    assert not any(w.kind == "duplicate_merged" for w in response.warnings)


def test_a_certain_duplicate_is_merged_with_a_record_of_both(serve: Any) -> None:
    first = "The human liver filters blood. It stores glycogen."
    second = "The liver stores glycogen. Zoning ordinances regulate land use in cities."
    script = Script(
        {
            first: [ok(LIVER_FACTS)],
            second: [ok(["Glycogen is stored by the human liver.", *ZONING_FACTS])],
        },
        [ok(GOOD_GROUPING)],
    )
    _server, client = serve(script)
    response = chunk_text_agentic(
        [AgenticChunkInput("C1", first), AgenticChunkInput("C2", second)], "D", client=client
    )
    [merged] = [w for w in response.warnings if w.kind != NO_SOURCE_OFFSETS]
    assert merged.kind == "duplicate_merged"
    assert merged.data == {
        "kept": LIVER_FACTS[1],
        "dropped": "Glycogen is stored by the human liver.",
        "chunk_ids": ["C2"],
        "kept_from": "C1",
        "how": "certain",
    }
