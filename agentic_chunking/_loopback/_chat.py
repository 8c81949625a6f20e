"""``FakeChatCompletionsServer``: a scripted OpenAI-compatible Chat Completions API
(``POST /v1/chat/completions``, ``GET /v1/models``, an optional key), answered from the
same queue or handlers as the Messages API's fake."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ._server import FakeReply, Handler, LoopbackServer, Response

FINISH_REASONS: dict[str | None, str | None] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "refusal": "content_filter",
}
"""The Chat Completions ``finish_reason`` a FakeReply's ``stop_reason`` is served as (any
other value is served as given)."""
CHAT_ERROR_CODES: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", None),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}
"""The OpenAI error ``type`` and ``code`` sent for each HTTP status (``server_error``)."""


class FakeChatCompletionsServer(LoopbackServer):
    """A scripted OpenAI-compatible Chat Completions API; a context manager.

    ``base_url`` is ``http://127.0.0.1:<port>/v1``, what an OpenAI client is given. It
    serves ``POST /v1/chat/completions`` from the same queue or handler as
    FakeMessagesServer; a handler gets the request as a Messages-API body (the system
    message as ``system``, the others as ``messages``), so the handlers written for the
    Messages API (``ScriptedPipeline``, the suite's ``ReferenceServer``) answer it
    unchanged, while ``requests`` keeps the body as sent. With ``models``, ``GET
    /v1/models`` lists them and a request for another model gets OpenAI's 404
    ``model_not_found``; without, ``/v1/models`` is a 404 (a server that lists none) and
    any model is served. With ``api_key``, a request without ``Authorization: Bearer
    <api_key>`` gets OpenAI's 401 ``invalid_api_key``. Every response carries the
    account-identifying headers of the real API (``openai-organization``,
    ``openai-project``, ``x-request-id``), so tests can show they are never recorded.
    """

    def __init__(
        self,
        replies: Iterable[FakeReply | str] = (),
        *,
        handler: Handler | None = None,
        host: str = "127.0.0.1",
        enforce_max_tokens: bool = False,
        models: Iterable[str] | None = None,
        api_key: str | None = None,
    ) -> None:
        super().__init__(replies, handler=handler, host=host, enforce_max_tokens=enforce_max_tokens)
        self.models = None if models is None else tuple(models)
        self.api_key = api_key

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Response:
        route = path.split("?")[0]
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            return Response(401, self._error_json(FakeReply(status=401, text=_NO_KEY)))
        if method == "GET" and route == "/v1/models" and self.models is not None:
            listed = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.models
            ]
            return Response(200, {"object": "list", "data": listed})
        if method != "POST" or route != "/v1/chat/completions":
            return Response(404, self._error_json(FakeReply(status=404, text=f"no route {path}")))
        request = body if isinstance(body, Mapping) else {}
        model = request.get("model")
        if self.models is not None and model not in self.models:
            unknown = f"The model `{model}` does not exist or you do not have access to it."
            error = self._error_json(FakeReply(status=404, text=unknown))
            error["error"]["code"] = "model_not_found"
            return Response(404, error)
        return self._scripted(
            as_messages_body(request),
            lambda reply: Response(200, self._completion(reply, request)),
        )

    def _error_json(self, reply: FakeReply) -> dict[str, Any]:
        kind, code = CHAT_ERROR_CODES.get(reply.status, ("server_error", None))
        error_type = reply.error_type or kind
        message = reply.text or error_type
        return {"error": {"message": message, "type": error_type, "param": None, "code": code}}

    def _response_headers(self) -> dict[str, str]:
        number = f"{len(self.requests):06d}"
        return {
            "x-request-id": f"req_fake_{number}",
            "openai-organization": "org-fakeorganisation",
            "openai-project": "proj_fakeprojectid01",
            "openai-processing-ms": "1",
        }

    def _completion(self, reply: FakeReply, request: Mapping[str, Any]) -> dict[str, Any]:
        reply = self._cut(reply, request.get("max_tokens"))
        prompt_chars = len(json.dumps(request.get("messages", "")))
        prompt = reply.input_tokens if reply.input_tokens is not None else prompt_chars // 4
        output = reply.output_tokens if reply.output_tokens is not None else len(reply.text) // 4
        return {
            "id": f"chatcmpl-fake{next(self._ids):06d}",
            "object": "chat.completion",
            "created": 0,
            "model": reply.model or request.get("model", "fake-model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text, "refusal": None},
                    "finish_reason": FINISH_REASONS.get(reply.stop_reason, reply.stop_reason),
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": output,
                "total_tokens": prompt + output,
            },
        }


_NO_KEY = "Incorrect API key provided. You can find your API key at your account page."


def as_messages_body(request: Mapping[str, Any]) -> dict[str, Any]:
    """A Chat Completions body in the Messages API's shape: the system message apart."""
    messages = [m for m in request.get("messages", []) if isinstance(m, Mapping)]
    system = "".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    return {
        **{k: v for k, v in request.items() if k != "messages"},
        "system": system,
        "messages": [dict(m) for m in messages if m.get("role") != "system"],
    }
