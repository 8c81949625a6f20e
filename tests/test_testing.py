"""FakeMessagesServer: the wire format the SDK reads, scripting, and the request record."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from agentic_chunking._loopback import ERROR_TYPES, FakeMessagesServer, FakeReply, user_text


def post(
    server: FakeMessagesServer, body: Any, path: str = "/v1/messages"
) -> tuple[int, dict[str, Any], Any]:
    request = urllib.request.Request(
        server.base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-api-key": "k"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


BODY = {
    "model": "m1",
    "max_tokens": 5,
    "system": "S",
    "messages": [{"role": "user", "content": "hi"}],
}


def test_a_text_reply_has_the_messages_api_shape() -> None:
    with FakeMessagesServer(["hello world!"]) as server:
        status, _headers, payload = post(server, BODY)
    assert status == 200
    assert payload["id"].startswith("msg_") and payload["type"] == "message"
    assert payload["role"] == "assistant" and payload["model"] == "m1"
    assert payload["content"] == [{"type": "text", "text": "hello world!"}]
    assert payload["stop_reason"] == "end_turn" and payload["stop_sequence"] is None
    assert payload["usage"]["output_tokens"] == 3
    assert payload["usage"]["cache_creation_input_tokens"] == 0
    assert payload["usage"]["cache_read_input_tokens"] == 0
    assert payload["usage"]["input_tokens"] > 0


def test_queue_order_stop_reason_and_exhaustion() -> None:
    replies = [FakeReply(text="cut", stop_reason="max_tokens"), "second"]
    with FakeMessagesServer(replies) as server:
        first = post(server, BODY)[2]
        second = post(server, BODY)[2]
        status, headers, error = post(server, BODY)
    assert (first["stop_reason"], second["content"][0]["text"]) == ("max_tokens", "second")
    assert status == 500 and headers["x-should-retry"] == "false"
    assert "no scripted reply left" in error["error"]["message"]
    assert len(server.requests) == 3 and server.requests[0].body == BODY


@pytest.mark.parametrize("status", sorted(ERROR_TYPES))
def test_error_replies_use_anthropics_error_shape(status: int) -> None:
    with FakeMessagesServer([FakeReply(status=status, text="why")]) as server:
        code, headers, payload = post(server, BODY)
    assert code == status
    assert payload == {"type": "error", "error": {"type": ERROR_TYPES[status], "message": "why"}}
    assert headers["retry-after-ms"] == "10"


def test_handler_scripting_custom_headers_and_error_type() -> None:
    def handler(body: dict[str, Any]) -> FakeReply:
        if user_text(body) == "fail":
            return FakeReply(status=429, error_type="custom_error", headers={"retry-after": "1"})
        return FakeReply(text=user_text(body).upper())

    with FakeMessagesServer(handler=handler) as server:
        assert post(server, BODY)[2]["content"][0]["text"] == "HI"
        failing = {**BODY, "messages": [{"role": "user", "content": "fail"}]}
        code, headers, payload = post(server, failing)
    assert (code, payload["error"]["type"], headers["retry-after"]) == (429, "custom_error", "1")


def test_a_handler_exception_is_kept_and_answered_with_a_final_500() -> None:
    def handler(body: dict[str, Any]) -> str:
        raise KeyError("boom")

    with FakeMessagesServer(handler=handler) as server:
        code, headers, payload = post(server, BODY)
    assert code == 500 and headers["x-should-retry"] == "false"
    assert "KeyError" in payload["error"]["message"]
    assert isinstance(server.handler_errors[0], KeyError)


def test_other_paths_are_404_and_recorded() -> None:
    with FakeMessagesServer(["unused"]) as server:
        code, _headers, payload = post(server, BODY, path="/v1/complete")
    assert code == 404 and payload["error"]["type"] == "not_found_error"
    assert server.requests[0].path == "/v1/complete"


def test_delay_is_applied() -> None:
    with FakeMessagesServer([FakeReply(text="slow", delay_s=0.2)]) as server:
        started = time.perf_counter()
        post(server, BODY)
        assert time.perf_counter() - started >= 0.2


def test_queue_and_handler_are_exclusive() -> None:
    with pytest.raises(ValueError, match="not both"):
        FakeMessagesServer(["a"], handler=lambda body: "b")


def test_user_text_reads_string_and_block_content() -> None:
    blocks = {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            }
        ]
    }
    assert user_text(blocks) == "ab"
    assert user_text({"messages": []}) == ""


def test_enforce_max_tokens_cuts_a_long_reply_as_the_api_does() -> None:
    long = "x" * 40  # 10 estimated tokens, over BODY's max_tokens of 5
    with FakeMessagesServer([long, "y" * 20], enforce_max_tokens=True) as server:
        _status, _headers, cut = post(server, BODY)
        _status, _headers, whole = post(server, BODY)
    assert cut["content"][0]["text"] == "x" * 20 and cut["stop_reason"] == "max_tokens"
    assert cut["usage"]["output_tokens"] == 5
    assert whole["content"][0]["text"] == "y" * 20 and whole["stop_reason"] == "end_turn"
    with FakeMessagesServer([long]) as server:  # off by default: served as written
        _status, _headers, payload = post(server, BODY)
    assert payload["content"][0]["text"] == long and payload["stop_reason"] == "end_turn"


def test_the_testing_module_re_exports_every_loopback_name_unchanged() -> None:
    """``agentic_chunking.testing`` stays one release as a re-export of ``_loopback``: the
    docs name it, and tests written against it import it."""
    import agentic_chunking._loopback as loopback
    import agentic_chunking.testing as testing

    assert sorted(testing.__all__) == sorted(loopback.__all__)
    assert all(getattr(testing, name) is getattr(loopback, name) for name in loopback.__all__)
