"""The client's provider modules behind one interface (issue 42, item 3): one registry from a
provider's name to its module, no branch on the name elsewhere in the client, one request
hash, and one reading of a failed call (``call_failure``, ``error.kind``)."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking._errors import ConfigurationError, ModelCallError
from agentic_chunking._loopback import (
    FakeBatchAPIServer,
    FakeChatCompletionsServer,
    FakeMessageBatchesServer,
    FakeMessagesServer,
    FakeReply,
)
from agentic_chunking.client import (
    ANTHROPIC,
    FAILURE_KINDS,
    OPENAI,
    BatchClient,
    ModelClient,
    ModelRequest,
    call_custom_id,
    call_failure,
    canonical_sha256,
    provider_module,
)

CLIENT = Path(__file__).resolve().parent.parent / "agentic_chunking" / "client"
PROVIDER_MODULES = {"_anthropic.py", "_openai.py", "_registry.py"}


def _names_a_provider(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in {"ANTHROPIC", "OPENAI"}
    return isinstance(node, ast.Constant) and node.value in {ANTHROPIC, OPENAI}


def _provider_branches(source: str) -> list[int]:
    """Lines comparing something with a provider's name (``x == OPENAI``, ``"anthropic"
    != y``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        equality = any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops)
        if equality and any(_names_a_provider(s) for s in [node.left, *node.comparators]):
            found.append(node.lineno)
    return found


def test_no_client_module_but_the_providers_and_the_registry_branches_on_a_provider() -> None:
    branches = {
        path.name: _provider_branches(path.read_text("utf-8"))
        for path in CLIENT.glob("*.py")
        if path.name not in PROVIDER_MODULES
    }
    assert {name: lines for name, lines in branches.items() if lines} == {}


def test_the_branch_finder_finds_a_branch() -> None:  # the control of the test above
    assert _provider_branches("if provider == OPENAI:\n    pass\n") == [1]
    assert _provider_branches("x = 'anthropic' != name\n") == [1]
    assert _provider_branches("if provider in PROVIDERS:\n    pass\n") == []


def test_the_registry_maps_each_provider_to_its_module() -> None:
    for name in (ANTHROPIC, OPENAI):
        module = provider_module(name)
        assert name == module.NAME
        assert module.__name__ == f"agentic_chunking.client._{name}"  # type: ignore[attr-defined]
    with pytest.raises(KeyError):
        provider_module("mistral")


def test_the_batch_custom_id_is_the_hash_of_the_provider_and_the_body_it_always_was() -> None:
    messages = [{"role": "user", "content": "naïve “quotes” 日本"}]
    for model, provider in (("claude-x", ANTHROPIC), ("openai:qwen2.5:7b", OPENAI)):
        ref_name = model.split(":", 1)[1] if provider == OPENAI else model
        body = provider_module(provider).request_body(
            ModelRequest.of(model=ref_name, system="s", messages=messages, max_tokens=9)
        )
        canonical = json.dumps([provider, body], sort_keys=True, separators=(",", ":"))
        expected = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
        got = call_custom_id(model, system="s", messages=messages, max_tokens=9)
        assert got == expected
    assert canonical_sha256({"a": "é"}) != canonical_sha256({"a": "é"}, compact=False)


def test_the_reply_cache_key_is_the_one_request_hash_of_the_same_payload() -> None:
    from agentic_chunking.pipeline._cache import FORMAT, request_key

    messages = [{"role": "user", "content": "naïve — “quotes”"}]
    payload = {
        "format": FORMAT,
        "model": "openai:m",
        "system": "sys é",
        "messages": messages,
        "max_tokens": 7,
        "temperature": 0,
    }
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()
    key = request_key(model="openai:m", system="sys é", messages=messages, max_tokens=7)
    assert key == expected


@pytest.mark.parametrize(
    ("server_type", "model"),
    [(FakeMessageBatchesServer, "loopback-model"), (FakeBatchAPIServer, "openai:loopback")],
)
def test_a_batched_call_is_sent_under_the_custom_id_call_custom_id_gives(
    server_type: Any, model: str
) -> None:
    messages = [{"role": "user", "content": "one fact"}]
    with server_type(['["A fact."]'], polls_to_end=1) as server:
        urls = {ANTHROPIC: server.base_url, OPENAI: server.base_url}
        with BatchClient(
            api_keys={ANTHROPIC: "k", OPENAI: "k"},
            base_urls=urls,
            poll_interval_s=0.05,
            quiet_s=0.0,
            hold_s=0.0,
        ) as client:
            reply = client.call(
                stage="grouping",
                batch=None,
                model=model,
                system="s",
                messages=messages,
                max_tokens=50,
            )
        submitted = set(server.book.submissions)
    assert reply.text == '["A fact."]' and reply.usage.batched
    assert submitted == {call_custom_id(model, system="s", messages=messages, max_tokens=50)}


def _http_error(provider: str, status: int, path: str, body: Any = None) -> Exception:
    import httpx2

    sdk = __import__(provider)
    request = httpx2.Request("POST", f"http://127.0.0.1:9{path}", json={"model": "m-asked"})
    response = httpx2.Response(status, request=request, json=body or {"type": "error"})
    kind = {
        401: sdk.AuthenticationError,
        404: sdk.NotFoundError,
        400: sdk.BadRequestError,
        429: sdk.RateLimitError,
    }.get(status, sdk.InternalServerError)
    return kind("failed", response=response, body=body)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("status", "path", "kind"),
    [
        (401, "/v1/messages", "key_rejected"),
        (404, "/v1/messages", "model_unknown"),
        (404, "/api/v1/messages", "base_url"),
        (429, "/v1/messages", "overloaded"),
        (529, "/v1/messages", "overloaded"),
        (400, "/v1/messages", None),  # the request's own: no later call meets it
    ],
)
def test_an_anthropic_error_is_read_once_into_its_kind(
    status: int, path: str, kind: str | None
) -> None:
    failure = call_failure(_http_error(ANTHROPIC, status, path))
    if kind is None:
        assert failure is None
        return
    assert failure is not None and failure.kind == kind and kind in FAILURE_KINDS
    assert failure.provider == ANTHROPIC and not failure.final_message
    assert failure.status == status and failure.requested_model == "m-asked"
    assert failure.path == path and not failure.timed_out


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, None, "key_rejected"),
        (404, {"message": "model 'x' not found", "code": "model_not_found"}, "model_unknown"),
        (404, {"message": "no route"}, "base_url"),
        (503, None, "overloaded"),
        (400, None, None),
    ],
)
def test_an_openai_error_is_read_once_into_its_kind(
    status: int, body: Any, kind: str | None
) -> None:
    failure = call_failure(_http_error(OPENAI, status, "/v1/chat/completions", body))
    if kind is None:
        assert failure is None
        return
    assert failure is not None and failure.kind == kind
    assert failure.provider == OPENAI and failure.final_message


def test_a_timeout_and_no_connection_are_both_unreachable_and_told_apart() -> None:
    import anthropic
    import httpx2

    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/messages", json={"model": "m"})
    late = call_failure(anthropic.APITimeoutError(request))
    down = call_failure(anthropic.APIConnectionError(request=request))
    assert late is not None and late.kind == "unreachable" and late.timed_out
    assert down is not None and down.kind == "unreachable" and not down.timed_out


def test_an_error_without_an_sdk_error_behind_it_is_no_call_failure() -> None:
    assert call_failure(ValueError("x")) is None
    assert call_failure(ModelCallError("extraction call: cut", stage="extraction")) is None


def test_the_kind_is_put_on_the_error_the_client_raises_and_read_from_it() -> None:
    refused = FakeReply(status=401, text="invalid x-api-key")
    with FakeMessagesServer(handler=lambda body: refused) as server:
        client = ModelClient(api_keys={ANTHROPIC: "k"}, base_urls={ANTHROPIC: server.base_url})
        with client, pytest.raises(ConfigurationError) as caught:
            client.call(
                stage="grouping",
                batch=None,
                model="m",
                system="s",
                messages=[{"role": "user", "content": "x"}],
                max_tokens=5,
            )
    assert caught.value.kind == "key_rejected"
    failure = call_failure(caught.value)
    assert failure is not None and failure.kind == "key_rejected"


def test_a_request_s_own_failure_carries_no_kind() -> None:
    bad = FakeReply(status=400, text="max_tokens: too large")
    with FakeChatCompletionsServer(handler=lambda body: bad) as server:
        client = ModelClient(api_keys={OPENAI: "k"}, base_urls={OPENAI: server.base_url})
        with client, pytest.raises(ModelCallError) as caught:
            client.call(
                stage="grouping",
                batch=None,
                model="openai:m",
                system="s",
                messages=[{"role": "user", "content": "x"}],
                max_tokens=5,
            )
    assert caught.value.kind is None and call_failure(caught.value) is None
