"""The OpenAI-compatible provider beside Anthropic: model ids, the Chat Completions call,
the same plain messages for the same faults, the 32 cases recorded and replayed through
it, and a judge on one provider while the pipeline is on the other.

Every live path runs against a FakeChatCompletionsServer (or FakeMessagesServer) on
127.0.0.1; no cassette here carries a real model's name: the hand-written replies run as
``openai:reference``, into temporary directories.
"""

from __future__ import annotations

import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentic_chunking import AgenticChunkInput, chunk_text_agentic
from agentic_chunking._errors import CassetteError, ConfigurationError, ModelCallError
from agentic_chunking._loopback import FakeChatCompletionsServer, FakeMessagesServer, FakeReply
from agentic_chunking.client import (
    ANTHROPIC,
    OPENAI,
    ModelClient,
    ModelRef,
    call_model,
    estimate_cost_usd,
    missing_credentials,
    model_folder,
    parse_model,
    resolve_model,
)
from agentic_chunking.suite import (
    REFERENCE_MODEL,
    ReferenceServer,
    find_secrets,
    load_case,
    load_cases,
    load_replies,
    rebuild_reference_cassettes,
    run_case,
)
from agentic_chunking.suite._cassettes import cassette_dir, cassette_path, vcr_config
from agentic_chunking.suite._systemic import systemic_failure

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"
REPLIES = CASES / "reference_replies"
OPENAI_REFERENCE = "openai:reference"
KEY = "sk-proj-" + "k" * 40  # key-shaped, so a leak would be found by the secret scan


@pytest.fixture(autouse=True)
def _no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "AGENTIC_CHUNKING_MODEL",
        "AGENTIC_CHUNKING_JUDGE_MODEL",
    ):
        monkeypatch.delenv(name, raising=False)


# -- model ids -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "provider", "name", "folder"),
    [
        ("claude-sonnet-4-6", ANTHROPIC, "claude-sonnet-4-6", "claude-sonnet-4-6"),
        ("reference", ANTHROPIC, "reference", "reference"),
        ("anthropic:claude-haiku-4-5", ANTHROPIC, "claude-haiku-4-5", "claude-haiku-4-5"),
        ("openai:gpt-4.1-mini", OPENAI, "gpt-4.1-mini", "openai--gpt-4.1-mini"),
        ("openai:qwen2.5:7b", OPENAI, "qwen2.5:7b", "openai--qwen2.5_7b"),
        (
            "openai:Qwen/Qwen2.5-7B-Instruct",
            OPENAI,
            "Qwen/Qwen2.5-7B-Instruct",
            "openai--Qwen_Qwen2.5-7B-Instruct",
        ),
        ("OpenAI:gpt-4o", OPENAI, "gpt-4o", "openai--gpt-4o"),
    ],
)
def test_a_model_id_names_its_provider_and_a_folder_safe_on_every_os(
    model: str, provider: str, name: str, folder: str
) -> None:
    ref = parse_model(model)
    assert ref == ModelRef(provider, name)
    assert ref.folder == folder == model_folder(model)
    assert not set(":/\\") & set(ref.folder)
    assert resolve_model(model) == ref.id


def test_a_bare_id_keeps_meaning_anthropic_and_its_folder_is_unchanged(tmp_path: Path) -> None:
    assert resolve_model("claude-sonnet-4-6") == "claude-sonnet-4-6"
    assert cassette_dir(tmp_path, "claude-sonnet-4-6") == tmp_path / "claude-sonnet-4-6"
    assert cassette_dir(tmp_path, "reference") == tmp_path / "reference"
    assert cassette_path(tmp_path, "openai:gpt-4.1-mini", "TC-001") == (
        tmp_path / "openai--gpt-4.1-mini" / "TC-001.yaml"
    )


@pytest.mark.parametrize(
    ("model", "fragment"),
    [("opena:gpt-4o", "names the provider 'opena'"), ("openai:", "has no name")],
)
def test_an_unknown_provider_or_an_empty_name_is_refused_plainly(model: str, fragment: str) -> None:
    with pytest.raises(ConfigurationError, match=fragment) as caught:
        resolve_model(model)
    assert "anthropic, openai" in str(caught.value) or "has no name" in str(caught.value)


def test_the_price_table_keys_openai_models_by_their_prefixed_id() -> None:
    assert estimate_cost_usd("openai:gpt-4.1-mini", 1_000_000, 0) is not None
    assert estimate_cost_usd("gpt-4.1-mini", 1_000_000, 0) is None  # a bare id is Anthropic's
    assert estimate_cost_usd("openai:qwen2.5:7b", 1_000_000, 1_000_000) is None  # local


# -- the call ------------------------------------------------------------------------------


def _client(server: FakeChatCompletionsServer, key: str | None = KEY) -> ModelClient:
    return ModelClient(api_keys={OPENAI: key}, base_urls={OPENAI: server.base_url}, max_retries=0)


def _call(client: ModelClient, model: str = "openai:m1", max_tokens: int = 100) -> Any:
    return call_model(
        client,
        stage="extraction",
        batch=1,
        model=model,
        system="SYSTEM PROMPT",
        messages=[{"role": "user", "content": "a passage"}],
        max_tokens=max_tokens,
    )


def test_a_chat_completions_call_sends_temperature_0_max_tokens_and_the_system_prompt() -> None:
    with FakeChatCompletionsServer(['["A fact."]']) as server, _client(server) as client:
        reply = _call(client)
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert body["model"] == "m1"  # the name on the server, without the provider
    assert body["temperature"] == 0 and body["max_tokens"] == 100
    assert body["messages"] == [
        {"role": "system", "content": "SYSTEM PROMPT"},
        {"role": "user", "content": "a passage"},
    ]
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert reply.text == '["A fact."]' and reply.stop_reason == "end_turn"
    assert reply.usage.model == "openai:m1"
    assert reply.usage.output_tokens == len('["A fact."]') // 4 > 0
    assert reply.usage.input_tokens > 0


@pytest.mark.parametrize(
    ("served", "stop_reason"),
    [("max_tokens", "max_tokens"), ("end_turn", "end_turn"), ("refusal", "refusal")],
)
def test_finish_reasons_take_the_messages_apis_names(served: str, stop_reason: str) -> None:
    # The fake serves "length", "stop" and "content_filter" for these.
    with (
        FakeChatCompletionsServer([FakeReply(text="[]", stop_reason=served)]) as server,
        _client(server) as client,
    ):
        assert _call(client).stop_reason == stop_reason


def test_a_cut_reply_fails_the_run_as_max_tokens_does() -> None:
    long_reply = json.dumps([f"Fact number {n} is stated here." for n in range(40)])
    with (
        FakeChatCompletionsServer([long_reply], enforce_max_tokens=True) as server,
        _client(server) as client,
    ):
        response = chunk_text_agentic(
            [AgenticChunkInput("C1", "Some text.")],
            "DOC",
            client=client,
            model="openai:m1",
            extraction_max_tokens=50,
        )
    assert json.loads(json.dumps(server.requests[0].body))["max_tokens"] == 50
    assert not response.is_success
    assert "stopped at max_tokens (50) and is cut off" in response.error_detail
    assert response.calls[0].stop_reason == "max_tokens"
    assert len(server.requests) == 1  # a cut is never repaired


def test_the_pipeline_runs_whole_on_an_openai_model_without_a_client_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replies = ['["The sky is blue."]', '[{"category": "Sky", "fact_ids": [1]}]']
    with FakeChatCompletionsServer(replies, api_key=KEY) as server:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        response = chunk_text_agentic(
            [AgenticChunkInput("C1", "The sky is blue.")], "DOC", model="openai:m1"
        )
    assert response.is_success, response.error_detail
    assert [c.propositions for c in response.chunks] == [("The sky is blue.",)]
    assert {call.model for call in response.calls} == {"openai:m1"}


# -- the same plain messages for the same faults ----------------------------------------


def _refused_port() -> int:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_no_key_for_openais_own_api_is_refused_before_any_call() -> None:
    with pytest.raises(ConfigurationError) as caught:
        chunk_text_agentic([AgenticChunkInput("C1", "Text.")], "DOC", model="openai:gpt-4.1-mini")
    message = str(caught.value)
    assert message.startswith("no OpenAI API key")
    assert "OPENAI_API_KEY" in message and "OPENAI_BASE_URL" in message
    assert missing_credentials("openai:gpt-4.1-mini") is not None
    assert missing_credentials("claude-sonnet-4-6") is not None


def test_a_local_server_needs_no_key_and_gets_none(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeChatCompletionsServer(["[]"]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert missing_credentials("openai:m1") is None
        with ModelClient(max_retries=0) as client:
            _call(client)
    assert KEY not in server.requests[0].headers["authorization"]


def _expect(error_type: type[Exception], client: ModelClient, model: str = "openai:m1") -> str:
    with client, pytest.raises(error_type) as caught:
        _call(client, model=model)
    message = str(caught.value)
    assert KEY not in message and "Traceback" not in message
    return message


def test_no_key_when_the_server_wants_one_says_to_set_it() -> None:
    with FakeChatCompletionsServer(api_key=KEY) as server:
        message = _expect(ConfigurationError, _client(server, key=None))
    assert "no OpenAI API key, and the server at" in message
    assert "wants one (HTTP 401" in message and "OPENAI_API_KEY" in message


def test_a_rejected_key_names_the_variable() -> None:
    with FakeChatCompletionsServer(api_key=KEY) as server:
        message = _expect(ConfigurationError, _client(server, key="sk-wrong-" + "w" * 30))
    assert "the API key was rejected (HTTP 401: Incorrect API key provided" in message
    assert "Check OPENAI_API_KEY" in message
    assert "sk-wrong" not in message


def test_an_unknown_model_names_the_models_the_server_lists() -> None:
    with FakeChatCompletionsServer(models=["m1", "qwen2.5:7b"]) as server:
        message = _expect(ConfigurationError, _client(server), model="openai:gpt-9")
    assert "the model 'openai:gpt-9' was not found (HTTP 404" in message
    assert "models the server lists: openai:m1, openai:qwen2.5:7b" in message
    assert "--model" in message
    assert [r.path for r in server.requests] == ["/v1/chat/completions", "/v1/models"]


def test_an_unknown_model_on_a_server_without_a_model_list_says_so() -> None:
    model_404 = FakeReply(status=404, text="model 'gpt-9' not found, try pulling it first")
    with FakeChatCompletionsServer([model_404]) as server:
        message = _expect(ConfigurationError, _client(server), model="openai:gpt-9")
    assert "'openai:gpt-9' was not found" in message and "lists no models" in message


def test_a_base_url_without_the_api_path_is_a_wrong_base_url() -> None:
    with FakeChatCompletionsServer(["[]"]) as server:
        client = ModelClient(
            api_keys={OPENAI: KEY}, base_urls={OPENAI: server.root_url}, max_retries=0
        )
        message = _expect(ConfigurationError, client)
    assert f"HTTP 404 not found at {server.root_url}/chat/completions" in message
    assert "check the base URL (--base-url)" in message and "/v1" in message  # as given
    assert "was not found" not in message


def test_a_malformed_base_url_is_refused_before_any_call() -> None:
    with pytest.raises(ConfigurationError, match=r"give --base-url e\.g\."):
        ModelClient(base_urls={OPENAI: "localhost:11434/v1"}).ready("openai:m1")


def test_a_refused_connection_names_the_server() -> None:
    url = f"http://127.0.0.1:{_refused_port()}/v1"
    client = ModelClient(api_keys={OPENAI: KEY}, base_urls={OPENAI: url}, max_retries=0)
    message = _expect(ModelCallError, client)
    assert "could not reach http://127.0.0.1:" in message and "--base-url" in message


def test_429_after_the_sdks_retries_says_to_try_later() -> None:
    limited = FakeReply(status=429, text="Rate limit reached for requests")
    with FakeChatCompletionsServer(handler=lambda body: limited) as server:
        client = ModelClient(
            api_keys={OPENAI: KEY}, base_urls={OPENAI: server.base_url}, max_retries=2
        )
        message = _expect(ModelCallError, client)
    assert len(server.requests) == 3  # the call and the SDK's two retries
    assert "failed with HTTP 429 (requests): Rate limit reached" in message
    assert "the SDK's retries did not help" in message


@pytest.mark.parametrize(
    ("body", "content_type", "what"),
    [
        ("<html><body>Welcome to nginx!</body></html>", "text/html", "not JSON: '<html>"),
        ('{"choices": [', "application/json", "invalid JSON"),
        ('{"object": "list"}', "application/json", "JSON, but"),
    ],
)
def test_a_body_that_is_not_a_chat_completion_names_the_base_url(
    body: str, content_type: str, what: str
) -> None:
    page = FakeReply(raw_body=body, headers={"content-type": content_type})
    with FakeChatCompletionsServer([page]) as server:
        message = _expect(ModelCallError, _client(server))
    assert "answered HTTP 200 with a body that is not a Chat Completions reply" in message
    assert what in message and "--base-url" in message  # the URL was given, not set


def _error_of(
    reply: FakeReply | None = None, *, client_key: str | None = KEY, **server_options: Any
) -> Exception:
    with (
        FakeChatCompletionsServer([reply] if reply else [], **server_options) as server,
        _client(server, key=client_key) as client,
    ):
        try:
            _call(client)
        except (ConfigurationError, ModelCallError) as error:
            return error
    raise AssertionError("the call did not fail")


def test_systemic_faults_are_told_apart_from_a_cases_own() -> None:
    kinds = {
        "no_key": _error_of(api_key="server-key", client_key=None),
        "key_rejected": _error_of(api_key="server-key"),
        "model_unknown": _error_of(models=["other"]),
        "overloaded": _error_of(FakeReply(status=503, text="busy")),
        "own": _error_of(FakeReply(status=400, text="context length exceeded")),
        "html": _error_of(FakeReply(raw_body="<html></html>")),
    }
    url = f"http://127.0.0.1:{_refused_port()}/v1"
    with (
        ModelClient(api_keys={OPENAI: KEY}, base_urls={OPENAI: url}, max_retries=0) as client,
        pytest.raises(ModelCallError) as refused,
    ):
        _call(client)
    kinds["unreachable"] = refused.value
    found = {name: systemic_failure(error, model="openai:m1") for name, error in kinds.items()}
    assert {name: f.kind if f else None for name, f in found.items()} == {
        "no_key": "no_key",
        "key_rejected": "key_rejected",
        "model_unknown": "model_unknown",
        "overloaded": "overloaded",
        "own": None,
        "html": None,
        "unreachable": "unreachable",
    }
    for name, failure in found.items():
        if failure is not None:  # the message is the client layer's plain one
            assert failure.message == str(kinds[name])


def test_a_wrapped_sdk_client_never_builds_another_providers_client() -> None:
    import anthropic

    with (
        anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9") as sdk,
        pytest.raises(ConfigurationError, match=r"pass an agentic_chunking\.client\.ModelClient"),
    ):
        _call(ModelClient.of(sdk), model="openai:m1")


# -- the 32 cases, recorded and replayed through the second provider ----------------------


@pytest.fixture(scope="module")
def openai_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 32 reference cases recorded as ``openai:reference`` through a loopback
    Chat Completions server, into a temporary cassette root."""
    root = tmp_path_factory.mktemp("cassettes")
    written = rebuild_reference_cassettes(
        cases_dir=CASES, replies_dir=REPLIES, cassette_root=root, model=OPENAI_REFERENCE
    )
    assert len(written) == 32
    assert {p.parent for p in written} == {root / "openai--reference"}
    return root


def test_the_recorded_chat_completions_cassettes_hold_no_secret_or_account_header(
    openai_reference: Path,
) -> None:
    for cassette in sorted((openai_reference / "openai--reference").glob("*.yaml")):
        text = cassette.read_text("utf-8")
        assert find_secrets(text) == [], cassette
        lowered = text.lower()
        for header in ("authorization", "openai-organization", "openai-project", "request-id"):
            assert header not in lowered, (cassette, header)
        interactions = yaml.safe_load(text)["interactions"]
        for interaction in interactions:
            request = interaction["request"]
            assert request["uri"] == "http://reference-replies.invalid/v1/chat/completions"
            assert json.loads(request["body"])["model"] == "reference"
            reply = json.loads(interaction["response"]["body"]["string"])
            assert reply["object"] == "chat.completion"


def _replay(case_id: str, root: Path, model: str, judge_model: str | None) -> Any:
    import vcr

    path = cassette_path(root, model, case_id)
    recorder = vcr.VCR(record_mode="none", **vcr_config())
    with recorder.use_cassette(str(path)), ModelClient.for_replay() as client:
        return run_case(
            load_case(CASES / f"{case_id}.yaml"),
            client=client,
            model=model,
            cassette=path,
            judge_model=judge_model,
        )


def test_the_32_cases_replay_through_chat_completions_with_the_anthropic_verdicts(
    openai_reference: Path,
) -> None:
    shipped = REPO / "cassettes"
    outcomes: dict[str, tuple[str, str]] = {}
    for case in load_cases(CASES):
        openai = _replay(case.id, openai_reference, OPENAI_REFERENCE, OPENAI_REFERENCE)
        anthropic = _replay(case.id, shipped, REFERENCE_MODEL, REFERENCE_MODEL)
        outcomes[case.id] = (openai.outcome, anthropic.outcome)
        assert openai.response.to_dict()["Chunks"] == anthropic.response.to_dict()["Chunks"]
        assert openai.judge_usage.calls == anthropic.judge_usage.calls, case.id
        assert {c.model for c in openai.response.calls} <= {OPENAI_REFERENCE}
    assert len(outcomes) == 32
    assert all(o == a for o, a in outcomes.values()), outcomes
    assert sum(o == "passed" for o, _ in outcomes.values()) == 32


def test_a_stale_openai_cassette_names_the_re_record_command_with_the_prefix(
    openai_reference: Path, tmp_path: Path
) -> None:
    # The reference replies under another model's folder: every request now names
    # gpt-4.1-mini, which the cassette never answered (a temporary copy, never committed).
    shutil.copytree(openai_reference / "openai--reference", tmp_path / "openai--gpt-4.1-mini")
    with pytest.raises(CassetteError) as caught:
        _replay("TC-001", tmp_path, "openai:gpt-4.1-mini", None)
    message = str(caught.value)
    assert "openai--gpt-4.1-mini/TC-001.yaml" in message and "stale" in message
    assert message.endswith(
        "Re-record it with: pytest tests/test_cases.py -k TC-001 --record --model "
        "openai:gpt-4.1-mini"
    )


# -- a judge on the second provider while the pipeline is on the first -------------------


@pytest.fixture
def two_providers() -> Iterator[tuple[FakeMessagesServer, FakeChatCompletionsServer, Any]]:
    case = load_case(CASES / "TC-001.yaml")
    reference = ReferenceServer()
    reference.use(case, load_replies(case, REPLIES))
    with (
        FakeMessagesServer(handler=reference) as messages,
        FakeChatCompletionsServer(handler=reference) as chat,
    ):
        yield messages, chat, case


def test_the_judge_runs_on_openai_while_the_pipeline_runs_on_anthropic(
    two_providers: tuple[FakeMessagesServer, FakeChatCompletionsServer, Any], tmp_path: Path
) -> None:
    import vcr

    messages, chat, case = two_providers
    client = ModelClient(
        api_keys={ANTHROPIC: "k", OPENAI: KEY},
        base_urls={ANTHROPIC: messages.base_url, OPENAI: chat.base_url},
        max_retries=0,
    )
    path = tmp_path / "TC-001.yaml"
    recorder = vcr.VCR(record_mode="all", **vcr_config())
    with client, recorder.use_cassette(str(path)):
        result = run_case(case, client=client, model=REFERENCE_MODEL, judge_model=OPENAI_REFERENCE)
    assert result.outcome == "passed"
    assert messages.requests and chat.requests
    judge_prompt = chat.requests[0].body["messages"][0]["content"]
    assert all(r.body["messages"][0]["content"] == judge_prompt for r in chat.requests)
    assert all(r.body.get("system") != judge_prompt for r in messages.requests)
    assert result.judge_usage.calls == len(chat.requests) >= 1
    assert result.usage.calls == len(messages.requests)

    # Both providers' calls are in the one cassette and replay offline, in order.
    replay = vcr.VCR(record_mode="none", **vcr_config())
    with replay.use_cassette(str(path)), ModelClient.for_replay() as offline:
        again = run_case(
            case,
            client=offline,
            model=REFERENCE_MODEL,
            cassette=path,
            judge_model=OPENAI_REFERENCE,
        )
    assert again.outcome == "passed" and again.judge_usage == result.judge_usage
    assert find_secrets(path.read_text("utf-8")) == []


# -- tokens and cost per provider in the results and the report header --------------------


def test_usage_and_cost_per_provider_in_the_results_and_the_report_header(
    tmp_path: Path,
) -> None:
    from agentic_chunking.report import CaseResult, RunResults, Usage, build_report
    from agentic_chunking.report._results import model_slug

    cases = tuple(
        CaseResult(
            id=f"TC-00{n}",
            outcome="passed",
            usage=Usage(1_000_000, 100_000, 2),
            judge_usage=Usage(500_000, 50_000, 1),
        )
        for n in (1, 2)
    )
    hosted = RunResults(
        model="claude-sonnet-4-6",
        replies="recorded",
        cases=cases,
        judge_model="openai:qwen2.5:7b",
    )
    spent = {p.provider: p for p in hosted.usage_by_provider}
    assert list(spent) == [ANTHROPIC, OPENAI]
    assert spent[ANTHROPIC].usage == Usage(2_000_000, 200_000, 4)
    assert spent[ANTHROPIC].cost_usd == pytest.approx(2 * 3.0 + 0.2 * 15.0)
    assert spent[OPENAI].usage == Usage(1_000_000, 100_000, 2)
    assert spent[OPENAI].cost_usd is None
    assert spent[OPENAI].cost_text == "no price known for openai:qwen2.5:7b"
    written = hosted.to_dict()["usage_by_provider"]
    assert written[1] == {
        "provider": "openai",
        "models": ["openai:qwen2.5:7b"],
        "input_tokens": 1_000_000,
        "output_tokens": 100_000,
        "calls": 2,
        "cost_usd": None,
    }
    assert RunResults.from_dict(json.loads(json.dumps(hosted.to_dict()))) == hosted

    local = RunResults(model="openai:gpt-4.1-mini", replies="recorded", cases=cases)
    (only,) = local.usage_by_provider
    assert only.cost_usd == pytest.approx(2 * 0.4 + 0.2 * 1.6)
    assert model_slug("openai:gpt-4.1-mini") == "openai--gpt-4.1-mini"
    assert model_slug("claude-sonnet-4-6") == "claude-sonnet-4-6"

    page = build_report([hosted, local], reports_dir=tmp_path).read_text("utf-8")
    assert (
        "anthropic (<code>claude-sonnet-4-6</code>): 2000000 in / 200000 out tokens, $9.0000"
        in page
    )
    assert (
        "openai (<code>openai:qwen2.5:7b</code>): 1000000 in / 100000 out tokens, "
        "no price known for openai:qwen2.5:7b" in page
    )
    assert (
        "openai (<code>openai:gpt-4.1-mini</code>): 2000000 in / 200000 out tokens, $1.1200" in page
    )


# -- the command line ----------------------------------------------------------------------


def test_chunk_runs_a_local_openai_compatible_model_from_base_url_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentic_chunking.cli import main

    doc = tmp_path / "doc.md"
    doc.write_text("The sky is blue.\n", encoding="utf-8")
    out = tmp_path / "out.json"
    replies = ['["The sky is blue."]', '[{"category": "Sky", "fact_ids": [1]}]']
    with FakeChatCompletionsServer(replies, models=["qwen2.5:7b"]) as server:
        argv = ["chunk", str(doc), "--model", "openai:qwen2.5:7b", "--base-url", server.base_url]
        assert main([*argv, "-o", str(out)]) == 0
    written = json.loads(out.read_text("utf-8"))
    assert written["IsSuccess"] is True
    assert {call["Model"] for call in written["Usage"]["Calls"]} == {"openai:qwen2.5:7b"}
    assert server.requests[0].body["model"] == "qwen2.5:7b"


@pytest.mark.parametrize(
    ("options", "path", "wanted"),
    [
        ({"api_key": KEY}, "/v1", "no OpenAI API key, and the server at"),
        ({}, "", "check the base URL (--base-url)"),
        ({"models": ["m1"]}, "/v1", "models the server lists: openai:m1"),
    ],
)
def test_chunk_says_plainly_what_is_wrong_with_an_openai_server(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    options: dict[str, Any],
    path: str,
    wanted: str,
) -> None:
    from agentic_chunking.cli import main

    doc = tmp_path / "doc.md"
    doc.write_text("The sky is blue.\n", encoding="utf-8")
    with FakeChatCompletionsServer(["[]"], **options) as server:
        url = server.root_url + path
        assert main(["chunk", str(doc), "--model", "openai:gpt-9", "--base-url", url]) == 2
    err = capsys.readouterr().err
    assert wanted in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_rebuild_reference_writes_the_chat_completions_set_where_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentic_chunking.suite.__main__ import main as suite_main

    argv = ["rebuild-reference", "--cassettes", str(tmp_path), "--case", "TC-001"]
    assert suite_main([*argv, "--model", OPENAI_REFERENCE]) == 0
    assert [p.name for p in (tmp_path / "openai--reference").iterdir()] == ["TC-001.yaml"]
    assert "written under" in capsys.readouterr().out
    assert suite_main([*argv, "--model", "openai:gpt-4.1-mini"]) == 2  # never a real name
    assert "served as 'reference'" in capsys.readouterr().err
    assert not (tmp_path / "openai--gpt-4.1-mini").exists()


def test_no_reply_within_the_timeout_names_the_timeout_and_the_attempts() -> None:
    slow = FakeReply(text="[]", delay_s=5.0)
    with FakeChatCompletionsServer([slow]) as server:
        client = ModelClient(
            api_keys={OPENAI: KEY}, base_urls={OPENAI: server.base_url}, max_retries=0, timeout=0.5
        )
        message = _expect(ModelCallError, client)
    assert (
        "no reply from" in message and "within the 0.5 s timeout, on each of 1 attempts" in message
    )
    assert "--timeout SECONDS" in message


@pytest.mark.parametrize(
    ("model", "cost"),
    [
        ("openai:gpt-4.1-mini", "cost (estimate): $"),
        (
            "openai:qwen2.5:7b",
            "cost (estimate): unknown (no price known for model 'openai:qwen2.5:7b')",
        ),
    ],
)
def test_the_dry_run_prices_a_hosted_model_and_says_no_price_known_for_a_local_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str, cost: str
) -> None:
    from agentic_chunking.cli import main

    doc = tmp_path / "doc.md"
    doc.write_text("The sky is blue.\n\nGrass is green.\n", encoding="utf-8")
    assert main(["chunk", str(doc), "--model", model, "--dry-run"]) == 0  # no key needed
    out = capsys.readouterr().out
    assert f"model: {model}" in out and cost in out
