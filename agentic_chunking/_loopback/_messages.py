"""``FakeMessagesServer``: a scripted Anthropic Messages API (``POST /v1/messages``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._server import FakeReply, LoopbackServer, Response

ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
"""The Anthropic error ``type`` sent for each HTTP status (``api_error`` for others)."""


class FakeMessagesServer(LoopbackServer):
    """A scripted Messages API on ``base_url`` (``http://127.0.0.1:<port>``); a context manager."""

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Response:
        if method != "POST" or path.split("?")[0] != "/v1/messages":
            return Response(404, self._error_json(FakeReply(status=404, text=f"no route {path}")))
        return self._scripted(body, lambda reply: Response(200, self._message_json(reply, body)))

    def _error_json(self, reply: FakeReply) -> dict[str, Any]:
        return anthropic_error_json(reply)

    def _message_json(self, reply: FakeReply, body: Any) -> dict[str, Any]:
        request = body if isinstance(body, Mapping) else {}
        reply = self._cut(reply, request.get("max_tokens"))
        prompt_chars = len(json.dumps(request.get("messages", ""))) + len(
            json.dumps(request.get("system", ""))
        )
        return {
            "id": f"msg_fake_{next(self._ids):06d}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or request.get("model", "fake-model"),
            "content": [{"type": "text", "text": reply.text}],
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": reply.input_tokens
                if reply.input_tokens is not None
                else prompt_chars // 4,
                "output_tokens": reply.output_tokens
                if reply.output_tokens is not None
                else len(reply.text) // 4,
                "cache_creation_input_tokens": reply.cache_creation_input_tokens,
                "cache_read_input_tokens": reply.cache_read_input_tokens,
            },
        }


def anthropic_error_json(reply: FakeReply) -> dict[str, Any]:
    error_type = reply.error_type or ERROR_TYPES.get(reply.status, "api_error")
    return {"type": "error", "error": {"type": error_type, "message": reply.text or error_type}}
