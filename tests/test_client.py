"""The SDK wrapper: model resolution, client construction, error translation, request body."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import pytest

from agentic_chunking import ConfigurationError, ModelCallError
from agentic_chunking._client import DEFAULT_MODEL, call_model, make_client, resolve_model
from agentic_chunking.testing import FakeMessagesServer, FakeReply

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
    assert resolve_model(None) == DEFAULT_MODEL == "claude-3-7-sonnet-20250219"
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
        (404, ConfigurationError, "not found.*--model claude-sonnet-4-6"),
        (401, ConfigurationError, "rejected.*ANTHROPIC_API_KEY"),
        (403, ConfigurationError, "rejected"),
        (400, ModelCallError, "batch 3 failed with HTTP 400 \\(invalid_request_error\\)"),
        (529, ModelCallError, "HTTP 529 \\(overloaded_error\\)"),
    ],
)
def test_errors_are_translated_with_their_cause(
    server: FakeMessagesServer, status: int, error: type[Exception], match: str
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


def test_the_suggested_model_is_not_one_the_installed_sdk_calls_deprecated() -> None:
    # The "model not found" message offers SUGGESTED_MODEL; offering a retired id would
    # send the user from one 404 to the next. The SDK ships its own deprecation table.
    from agentic_chunking._client import SUGGESTED_MODEL

    table = pytest.importorskip("anthropic._data.deprecated_models").DEPRECATED_MODELS
    assert SUGGESTED_MODEL not in table
