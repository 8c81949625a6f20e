"""The SDK wrapper: model resolution, client construction, error translation, request body."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anthropic
import pytest

from agentic_chunking import ConfigurationError, ModelCallError
from agentic_chunking._loopback import FakeMessagesServer, FakeReply
from agentic_chunking.client import DEFAULT_MODEL, call_model, make_client, resolve_model
from agentic_chunking.client import _config as client_config

KEY = "sk-ant-client-test-key"


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "AGENTIC_CHUNKING_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeMessagesServer]:
    with FakeMessagesServer() as fake:
        yield fake


def call(client: anthropic.Anthropic, **overrides: object) -> object:
    options: dict[str, object] = {
        "stage": "extraction",
        "batch": 3,
        "model": "reference",
        "system": "SYSTEM",
        "messages": [{"role": "user", "content": "hello"}],
        "max_tokens": 77,
    }
    options.update(overrides)
    return call_model(client, **options)  # type: ignore[arg-type]


def test_model_resolution_order(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_model(None) == DEFAULT_MODEL
    monkeypatch.setenv("AGENTIC_CHUNKING_MODEL", " claude-env ")
    assert resolve_model(None) == "claude-env"
    assert resolve_model("reference") == "reference"
    assert resolve_model("  ") == "claude-env"


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY is not set"):
        make_client()


def test_environment_key_and_base_url_are_used(
    server: FakeMessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    server.add_replies('["A."]')
    with make_client(max_retries=0) as client:
        reply = call(client)
    assert reply.text == '["A."]'  # type: ignore[attr-defined]
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_the_body_has_temperature_zero_and_the_usage_is_recorded(
    server: FakeMessagesServer,
) -> None:
    server.add_replies(FakeReply(text="[]", input_tokens=11, output_tokens=5))
    with make_client(api_key=KEY, base_url=server.base_url) as client:
        reply = call(client)
    body = server.requests[0].body
    assert body == {
        "model": "reference",
        "max_tokens": 77,
        "system": "SYSTEM",
        "messages": [{"role": "user", "content": "hello"}],
        "temperature": 0,
    }
    usage = reply.usage  # type: ignore[attr-defined]
    assert (usage.stage, usage.batch, usage.model) == ("extraction", 3, "reference")
    assert (usage.input_tokens, usage.output_tokens, usage.stop_reason) == (11, 5, "end_turn")
    assert usage.latency_s > 0


@pytest.mark.parametrize(
    ("status", "error", "match"),
    [
        (404, ConfigurationError, "not found.*--model.*claude-fake-current"),
        (401, ConfigurationError, "rejected.*ANTHROPIC_API_KEY"),
        (403, ConfigurationError, "rejected"),
        (400, ModelCallError, "batch 3 failed with HTTP 400 \\(invalid_request_error\\)"),
        (529, ModelCallError, "HTTP 529 \\(overloaded_error\\)"),
    ],
)
def test_errors_are_translated_with_their_cause(
    server: FakeMessagesServer,
    status: int,
    error: type[Exception],
    match: str,
    fake_sdk_table: None,
) -> None:
    server.add_replies(FakeReply(status=status, text="scripted failure"))
    with (
        make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
        pytest.raises(error, match=match) as caught,
    ):
        call(client)
    assert isinstance(caught.value.__cause__, anthropic.APIStatusError)
    assert KEY not in str(caught.value)


def test_model_call_error_carries_stage_and_batch(server: FakeMessagesServer) -> None:
    server.add_replies(FakeReply(status=500))
    with (
        make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
        pytest.raises(ModelCallError) as caught,
    ):
        call(client, stage="grouping", batch=None)
    assert (caught.value.stage, caught.value.batch) == ("grouping", None)
    assert str(caught.value).startswith("grouping call failed")


@pytest.fixture
def fake_sdk_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's model table replaced by one of the test's: no test reads a release's data."""
    monkeypatch.setattr(
        client_config,
        "sdk_model_table",
        lambda: (
            ("claude-fake-current", "claude-fake-retiring", "claude-fake-other"),
            {"claude-fake-retiring": "June 1st, 2099", "claude-fake-gone": "May 1st, 2000"},
        ),
    )


def test_current_models_are_the_listed_ones_not_marked_deprecated(fake_sdk_table: None) -> None:
    assert client_config.current_models() == ("claude-fake-current", "claude-fake-other")
    phrase = client_config.models_to_choose_from(most=1)
    assert "claude-fake-current and 1 more" in phrase and "retiring" not in phrase


def test_a_deprecated_model_gets_a_notice_naming_its_end_of_life(fake_sdk_table: None) -> None:
    notice = client_config.deprecation_notice("claude-fake-retiring", role="default model")
    assert notice is not None
    assert "default model 'claude-fake-retiring' deprecated" in notice
    assert "June 1st, 2099" in notice and "claude-fake-current" in notice
    assert client_config.deprecation_notice("claude-fake-current") is None


def test_an_sdk_without_a_model_table_degrades_to_a_plain_pointer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import anthropic._data
    import anthropic.types

    monkeypatch.delattr(anthropic.types, "Model")
    monkeypatch.delattr(anthropic._data, "DEPRECATED_MODELS")
    assert client_config.sdk_model_table() == ((), {})
    assert "lists no models" in client_config.models_to_choose_from()
    assert client_config.deprecation_notice(DEFAULT_MODEL) is None


def test_the_installed_sdk_table_is_read_as_ids_and_dates() -> None:
    # Shape only: which ids a release lists or retires is the release's business.
    listed, deprecated = client_config.sdk_model_table()
    assert all(isinstance(m, str) and m for m in listed)
    assert all(isinstance(d, str) for d in deprecated.values())
    assert not set(client_config.current_models()) & set(deprecated)


@pytest.mark.parametrize("model", ["claude-sonnet-4-6", "openai:gpt-4o"])
def test_a_replaying_client_never_opens_a_connection(
    model: str, server: FakeMessagesServer
) -> None:
    """A request no cassette answers fails at once, and nothing reaches even a server that
    is listening: replay cannot call a model whatever state vcrpy was left in."""
    from agentic_chunking.client import ModelClient

    url = server.base_url
    client = ModelClient(
        api_keys={"anthropic": "sk-ant-replay-0000", "openai": "sk-replay-0000"},
        base_urls={"anthropic": url, "openai": url + "/v1"},
        max_retries=0,
        offline=True,
    )
    with client, pytest.raises(ModelCallError, match="replay never calls a model"):
        client.call(
            stage="grouping",
            batch=None,
            model=model,
            system="s",
            messages=[{"role": "user", "content": "x"}],
            max_tokens=10,
        )
    assert server.requests == []


def test_a_replaying_client_replays_a_cassette(tmp_path: Path) -> None:
    """The offline transport is still the one vcrpy answers for."""
    import vcr

    from agentic_chunking.client import ModelClient

    cassette = str(tmp_path / "c.yaml")
    with FakeMessagesServer(replies=[FakeReply(text="recorded")]) as fake:
        recorder = vcr.VCR(record_mode="all", match_on=("method", "path", "body"))
        with (
            recorder.use_cassette(cassette),
            make_client(
                api_key="sk-ant-replay-0000", base_url=fake.base_url, max_retries=0
            ) as live,
        ):
            call_model(
                live,
                stage="grouping",
                batch=None,
                model="reference",
                system="s",
                messages=[{"role": "user", "content": "x"}],
                max_tokens=10,
            )
        url = fake.base_url
    replayer = vcr.VCR(record_mode="none", match_on=("method", "path", "body"))
    client = ModelClient(
        api_keys={"anthropic": "sk-ant-replay-0000"},
        base_urls={"anthropic": url},
        max_retries=0,
        offline=True,
    )
    with replayer.use_cassette(cassette), client:
        reply = client.call(
            stage="grouping",
            batch=None,
            model="reference",
            system="s",
            messages=[{"role": "user", "content": "x"}],
            max_tokens=10,
        )
    assert reply.text == "recorded"
