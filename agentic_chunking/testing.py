"""A fake Anthropic Messages API on 127.0.0.1, for tests, benchmarks and recording cassettes,
its OpenAI-compatible twin ``FakeChatCompletionsServer`` (the same queue or handler, the
Chat Completions wire format, ``/v1/models``, an optional key), and ``ScriptedPipeline``,
a handler that answers the pipeline's prompts from data.

``FakeMessagesServer`` is a real HTTP server (stdlib ``ThreadingHTTPServer``, random port)
that speaks the Messages API wire format, so the official SDK, vcrpy and the pipeline
talk to it exactly as they would to the real API, without the network::

    with FakeMessagesServer(replies=['["A fact."]', FakeReply(status=529)]) as server:
        client = anthropic.Anthropic(api_key="test", base_url=server.base_url)
        ...
        assert server.requests[0].body["model"] == "reference"

Behaviour is scripted either by a queue of ``replies`` (served in arrival order; a
``str`` is shorthand for ``FakeReply(text=...)``) or by a ``handler`` callable that gets
each request's JSON body and returns a FakeReply (or a str). When the queue is empty the
server answers HTTP 500 with ``x-should-retry: false``, so a test fails loudly.

With ``enforce_max_tokens=True`` a reply longer than the request's ``max_tokens`` (by the
server's estimate, characters / 4) is cut there and ends with ``stop_reason`` max_tokens,
as the real API does; off by default, so scripted replies are served as written.

Every request is recorded in ``requests`` (method, path, headers, parsed body), in
arrival order, for assertions. An exception raised by the handler is kept in
``handler_errors`` and answered with a non-retried HTTP 500.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any, Self

__all__ = [
    "BATCH_FAULTS",
    "ERROR_TYPES",
    "BatchFault",
    "FakeBatch",
    "FakeBatchAPIServer",
    "FakeChatCompletionsServer",
    "FakeMessageBatchesServer",
    "FakeMessagesServer",
    "FakeReply",
    "PollFault",
    "RecordedRequest",
    "ScriptedPipeline",
    "VerbatimModel",
    "fake_server_for",
    "system_text",
    "user_text",
]

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


@dataclass(frozen=True, slots=True)
class FakeReply:
    """One scripted answer.

    With ``status`` 200 the body is a Message whose single text block is ``text``;
    otherwise it is Anthropic's error JSON with ``error_type`` (default from ERROR_TYPES)
    and ``text`` as the message. Error replies carry ``retry-after-ms: 10`` unless
    ``headers`` says otherwise, so the SDK's retries stay fast. ``delay_s`` is slept
    before answering (artificial latency). ``output_tokens`` defaults to len(text) // 4.
    """

    text: str = ""
    stop_reason: str | None = "end_turn"
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    error_type: str | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    raw_body: str | None = None
    """When set, served verbatim with this ``status`` (``text/html`` unless ``headers`` say
    otherwise): a web page or a proxy's cut body where the API's JSON belongs."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """A request as the server received it; ``body`` is the parsed JSON (or None),
    ``received_at`` the ``time.monotonic()`` of its arrival (its body read)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw_body: bytes
    received_at: float = 0.0


Handler = Callable[[Any], "FakeReply | str"]


def system_text(body: Mapping[str, Any]) -> str:
    """Return the system prompt of a Messages request body: the string, or the text of its
    blocks (a system prompt marked for the prompt cache is sent as a list of blocks)."""
    system = body.get("system", "")
    if isinstance(system, str):
        return system
    return "".join(b.get("text", "") for b in system if isinstance(b, Mapping))


def user_text(body: Mapping[str, Any]) -> str:
    """Return the text of the last user message of a Messages request body."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return "".join(b.get("text", "") for b in content if isinstance(b, Mapping))
    return ""


class _QuietServer(ThreadingHTTPServer):
    """A server that says nothing when a client hangs up before its reply (a client that
    timed out, or was killed, while a delayed reply waited): the default prints a traceback
    on stderr, which would land in whatever output a test is reading at that moment.

    Its listen backlog holds 128 connections, not socketserver's 5: dozens of client
    threads connecting at once (a benchmark's 16 documents with 64 calls in flight each)
    would otherwise overflow it on a busy machine, and a connection dropped there is a
    ``Connection reset by peer`` that no scripted reply asked for."""

    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):
            return
        super().handle_error(request, client_address)


class _LoopbackServer:
    """The plumbing the fake servers share: a ThreadingHTTPServer on a random port, the
    queue of replies or the handler, the recorded requests; ``_answer`` is the API's own."""

    def __init__(
        self,
        replies: Iterable[FakeReply | str] = (),
        *,
        handler: Handler | None = None,
        host: str = "127.0.0.1",
        enforce_max_tokens: bool = False,
    ) -> None:
        if handler is not None and replies:
            raise ValueError("give either a queue of replies or a handler, not both")
        self._queue: deque[FakeReply | str] = deque(replies)
        self._handler = handler
        self._enforce_max_tokens = enforce_max_tokens
        self._lock = threading.Lock()
        self._ids = count(1)
        self.requests: list[RecordedRequest] = []
        self.handler_errors: list[Exception] = []
        self._httpd = _QuietServer((host, 0), _make_request_handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:<port>``, without any path."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        return self.root_url

    def add_replies(self, *replies: FakeReply | str) -> None:
        """Append replies to the queue (thread-safe)."""
        with self._lock:
            self._queue.extend(replies)

    def start(self) -> Self:
        """Serve in a background thread; return self."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- called from the request threads ----------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_reply(self, body: Any) -> FakeReply:
        name = type(self).__name__
        if self._handler is not None:
            try:
                reply = self._handler(body)
            except Exception as exc:  # surfaced to the test as a non-retried HTTP 500
                with self._lock:
                    self.handler_errors.append(exc)
                return FakeReply(
                    status=500,
                    text=f"{name}: the handler raised {exc!r}",
                    headers={"x-should-retry": "false"},
                )
        else:
            with self._lock:
                queued = self._queue.popleft() if self._queue else None
            if queued is None:
                return FakeReply(
                    status=500,
                    text=f"{name}: no scripted reply left for this request",
                    headers={"x-should-retry": "false"},
                )
            reply = queued
        return FakeReply(text=reply) if isinstance(reply, str) else reply

    def _cut(self, reply: FakeReply, limit: object) -> FakeReply:
        """``reply`` cut at ``limit`` tokens (characters / 4) when enforcing max_tokens."""
        if self._enforce_max_tokens and isinstance(limit, int) and len(reply.text) // 4 > limit:
            return replace(reply, text=reply.text[: limit * 4], stop_reason="max_tokens")
        return reply

    def _scripted(self, body: Any, answer: Callable[[FakeReply], _Response]) -> _Response:
        """The next scripted reply, as ``answer`` renders a 200 or the API's error JSON."""
        reply = self._next_reply(body)
        if reply.raw_body is not None:
            headers = {"content-type": "text/html; charset=utf-8", **reply.headers}
            return _Response(reply.status, reply.raw_body.encode("utf-8"), headers, reply.delay_s)
        if reply.status == 200:
            return replace(answer(reply), delay_s=reply.delay_s)
        headers = {"retry-after-ms": "10", **reply.headers}
        return _Response(reply.status, self._error_json(reply), headers, reply.delay_s)

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> _Response:
        raise NotImplementedError

    def _error_json(self, reply: FakeReply) -> dict[str, Any]:
        raise NotImplementedError

    def _response_headers(self) -> dict[str, str]:
        return {"request-id": f"req_fake_{len(self.requests):06d}"}


class FakeMessagesServer(_LoopbackServer):
    """A scripted Messages API on ``base_url`` (``http://127.0.0.1:<port>``); a context manager."""

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> _Response:
        if method != "POST" or path.split("?")[0] != "/v1/messages":
            return _Response(404, self._error_json(FakeReply(status=404, text=f"no route {path}")))
        return self._scripted(body, lambda reply: _Response(200, self._message_json(reply, body)))

    def _error_json(self, reply: FakeReply) -> dict[str, Any]:
        return _error_json(reply)

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


class FakeChatCompletionsServer(_LoopbackServer):
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

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> _Response:
        route = path.split("?")[0]
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            return _Response(401, self._error_json(FakeReply(status=401, text=_NO_KEY)))
        if method == "GET" and route == "/v1/models" and self.models is not None:
            listed = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.models
            ]
            return _Response(200, {"object": "list", "data": listed})
        if method != "POST" or route != "/v1/chat/completions":
            return _Response(404, self._error_json(FakeReply(status=404, text=f"no route {path}")))
        request = body if isinstance(body, Mapping) else {}
        model = request.get("model")
        if self.models is not None and model not in self.models:
            unknown = f"The model `{model}` does not exist or you do not have access to it."
            error = self._error_json(FakeReply(status=404, text=unknown))
            error["error"]["code"] = "model_not_found"
            return _Response(404, error)
        return self._scripted(
            _as_messages_body(request),
            lambda reply: _Response(200, self._completion(reply, request)),
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


def fake_server_for(provider: str) -> type[FakeMessagesServer | FakeChatCompletionsServer]:
    """The loopback fake of ``provider``'s API (``anthropic`` or ``openai``)."""
    from .client import OPENAI

    return FakeChatCompletionsServer if provider == OPENAI else FakeMessagesServer


_NO_KEY = "Incorrect API key provided. You can find your API key at your account page."


def _as_messages_body(request: Mapping[str, Any]) -> dict[str, Any]:
    """A Chat Completions body in the Messages API's shape: the system message apart."""
    messages = [m for m in request.get("messages", []) if isinstance(m, Mapping)]
    system = "".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    return {
        **{k: v for k, v in request.items() if k != "messages"},
        "system": system,
        "messages": [dict(m) for m in messages if m.get("role") != "system"],
    }


@dataclass(frozen=True, slots=True)
class _Response:
    status: int
    payload: Mapping[str, Any] | bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def _error_json(reply: FakeReply) -> dict[str, Any]:
    error_type = reply.error_type or ERROR_TYPES.get(reply.status, "api_error")
    return {"type": "error", "error": {"type": error_type, "message": reply.text or error_type}}


def _make_request_handler(server: _LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class _RequestHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once: no 40 ms stalls

        def do_POST(self) -> None:
            self._handle("POST")

        def do_GET(self) -> None:
            self._handle("GET")

        def _handle(self, method: str) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = None
            headers = {k.lower(): v for k, v in self.headers.items()}
            server._record(
                RecordedRequest(
                    method=method,
                    path=self.path,
                    headers=headers,
                    body=body,
                    raw_body=raw,
                    received_at=time.monotonic(),
                )
            )
            response = server._answer(method, self.path, headers, body)
            if response.delay_s > 0:
                time.sleep(response.delay_s)
            self._send(response)

        def _send(self, response: _Response) -> None:
            payload = response.payload
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
            headers = {
                "content-type": "application/json",
                **server._response_headers(),
                **response.headers,
            }
            self.send_response(response.status)
            self.send_header("content-length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # quiet in tests
            return

    return _RequestHandler


_NUMBERED_LINE = re.compile(r"^(\d+)\. (.*)$")


class ScriptedPipeline:
    """A handler that answers the pipeline's prompts from data, for generated documents.

    Extraction: the reply for a batch is ``extraction[batch text]`` (a list of
    propositions); a batch that packs several texts of ``extraction`` (joined by blank
    lines) is answered with their lists, concatenated in order; any other batch (one that
    holds part of a text, cut to fill a batch) with the propositions of every text that
    occur verbatim in it, in the order they occur (generated facts are their sentences).
    Grouping (grouping-v2): the numbered propositions are grouped by
    ``theme(proposition)`` and answered with numbers, themes in order of first
    appearance; with ``copy_facts`` the reply copies the texts instead (the grouping-v1
    shape, for comparison). Merge of windows: categories with the same label are joined.
    Every reply waits ``delay_s``. ``calls`` counts the requests per stage.
    """

    def __init__(
        self,
        extraction: Mapping[str, Iterable[str]],
        theme: Callable[[str], str],
        *,
        delay_s: float = 0.0,
        copy_facts: bool = False,
    ) -> None:
        from .pipeline._prompts import extraction_user_message, load_prompt

        self._extraction = {text: list(props) for text, props in extraction.items()}
        self._wrap = extraction_user_message("\n").split("\n")
        self._systems = {
            load_prompt(stage).text: stage for stage in ("extraction", "grouping", "grouping_merge")
        }
        self._theme = theme
        self._delay_s = delay_s
        self._copy_facts = copy_facts
        self._lock = threading.Lock()
        self._said: set[str] = set()
        self.calls: dict[str, int] = {}

    def __call__(self, body: Mapping[str, Any]) -> FakeReply:
        stage = self._systems.get(system_text(body), "unknown")
        with self._lock:
            self.calls[stage] = self.calls.get(stage, 0) + 1
        first = body["messages"][0]["content"]
        if stage == "extraction":
            text = first.removeprefix(self._wrap[0] + "\n").removesuffix("\n" + self._wrap[-1])
            answer = self._extract(text)
            with self._lock:
                self._said.update(answer)
            return FakeReply(text=json.dumps(answer), delay_s=self._delay_s)
        listed = self._listed(first)
        if stage == "grouping":
            text = self._grouping(listed)
        elif stage == "grouping_merge":
            text = self._merge(listed)
        else:
            return FakeReply(status=400, text=f"ScriptedPipeline: unknown system prompt ({stage})")
        return FakeReply(text=text, delay_s=self._delay_s)

    def _listed(self, message: str) -> list[tuple[int, str]]:
        """The numbered items of a grouping or merge message. A proposition this model
        gave may span lines (a verbatim copy of wrapped text, whose lines may even open
        with "13. "): the list is read as ``1. <a proposition given>``, ``2. ...``, each
        on its own lines; a list that does not read so is read line by line."""
        body = message.split("\n", 1)[-1].rsplit("\n", 1)[0]
        by_first_line: dict[str, list[str]] = {}
        with self._lock:
            for said in self._said:
                by_first_line.setdefault(said.split("\n", 1)[0], []).append(said)
        listed: list[tuple[int, str]] = []
        at = 0  # where the next item starts in body
        while at < len(body):
            prefix = f"{len(listed) + 1}. "
            if not body.startswith(prefix, at):
                break
            at += len(prefix)
            line_end = body.find("\n", at)
            first_line = body[at : line_end if line_end >= 0 else len(body)]
            known = [
                p
                for p in by_first_line.get(first_line, [])
                if body.startswith(p, at)
                and (at + len(p) == len(body) or body[at + len(p)] == "\n")
            ]
            if not known:
                break
            item = max(known, key=len)
            listed.append((len(listed) + 1, item))
            at += len(item) + 1
        if listed and at >= len(body):
            return listed
        return [
            (int(match[1]), match[2])
            for line in message.splitlines()
            if (match := _NUMBERED_LINE.match(line))
        ]

    def _extract(self, batch: str) -> list[str]:
        """The propositions of ``batch``: its own, else those of the texts it packs."""
        if batch in self._extraction:
            return self._extraction[batch]
        found: list[str] = []
        pending: list[str] = []
        for paragraph in batch.split("\n\n"):
            pending.append(paragraph)
            if "\n\n".join(pending) in self._extraction:
                found.extend(self._extraction["\n\n".join(pending)])
                pending = []
        if not pending:
            return found
        verbatim = {p for props in self._extraction.values() for p in props if p in batch}
        return sorted(verbatim, key=batch.index)

    def _grouping(self, listed: list[tuple[int, str]]) -> str:
        groups: dict[str, list[tuple[int, str]]] = {}
        for number, text in listed:
            groups.setdefault(self._theme(text), []).append((number, text))
        key = "facts" if self._copy_facts else "fact_ids"
        return json.dumps(
            [
                {"category": label, key: [t if self._copy_facts else n for n, t in members]}
                for label, members in groups.items()
            ]
        )

    @staticmethod
    def _merge(listed: list[tuple[int, str]]) -> str:
        themes: dict[str, list[int]] = {}
        for number, label in listed:
            themes.setdefault(label, []).append(number)
        return json.dumps(
            [{"category": label, "category_ids": ids} for label, ids in themes.items()]
        )


class TableEmbedder:
    """An embedder (``semantic.Embedder``) that answers from a table of vectors, the zero
    vector for a text not in it, and records every text it is asked to embed: tests of
    what is embedded, how often, and which pairs come out close, without a model."""

    name = "table"

    def __init__(self, vectors: Mapping[str, Sequence[float]] | None = None) -> None:
        self.vectors = dict(MEANING_EXAMPLES if vectors is None else vectors)
        self.asked: list[str] = []

    def __call__(self, texts: list[str], /) -> list[list[float]]:
        self.asked += texts
        width = len(next(iter(self.vectors.values()), ()))
        return [list(self.vectors.get(text, [0.0] * width)) for text in texts]


MEANING_EXAMPLES: dict[str, tuple[float, ...]] = {
    "Insulin lowers blood sugar.": (1.0, 0.0, 0.0, 0.0),
    "Insulin reduces the level of glucose in the blood.": (0.96, 0.28, 0.0, 0.0),
    "The pancreas makes insulin in its beta cells.": (0.5, 0.0, 0.866, 0.0),
    "The bank opened a branch in Rome in 1402.": (0.0, 0.0, 0.0, 1.0),
}
"""``TableEmbedder``'s default table, in this order: one fact, the same fact reworded with
almost no content word in common (cosine 0.96: no lexical rule sees them), another fact
about the same subject, and an unrelated fact."""


# -- The batch APIs: Anthropic's Message Batches and OpenAI's Batch API ----------------
# (``FakeMessageBatchesServer``, ``FakeBatchAPIServer``; the client is ``client._batch``.)

BATCH_FAULTS = ("errored", "invalid", "expired", "canceled")
"""What a ``fault`` function may script for one request of a batch: ``errored`` (a server
error, worth retrying), ``invalid`` (the request refused, HTTP 400), ``expired`` (not
processed within the batch's window), ``canceled`` (the batch cancelled before it ran)."""
BatchFault = Callable[[str, int], "str | None"]
"""``fault(custom_id, submission)``: a kind of BATCH_FAULTS for the ``submission``-th
(1-based) submission of that request, or None to answer it with the scripted reply."""
PollFault = Callable[[str, int], "int | None"]
"""``poll_fault(batch_id, poll)``: the HTTP status to answer the ``poll``-th (1-based)
retrieval of that batch with instead of its state (a proxy that does not pass batch
retrievals through: 404; one that is overloaded: 503), or None to answer it."""
_EXPIRED_TEXT = "This request could not be executed before the completion window expired."
_CANCELLED_TEXT = "This request was not executed because the batch was cancelled."


@dataclass
class FakeBatch:
    """One batch as a fake batch server holds it: ``requests`` are ``(custom_id, body,
    submission)``; ``results`` (set when it ends) are ``(custom_id, kind, reply)`` with
    kind ``succeeded`` or one of BATCH_FAULTS (``errored`` and ``invalid`` with the error
    reply)."""

    id: str
    number: int
    requests: list[tuple[str, Any, int]]
    polls: int = 0
    status: str = "in_progress"  # then "canceling", "ended"
    cancelled: bool = False
    results: list[tuple[str, str, FakeReply | None]] | None = None


class _BatchBook:
    """The batches of a fake batch server and their life: created, polled, ended after
    ``polls_to_end`` retrievals (or cancelled), each request then answered by ``answer``
    unless ``fault`` scripts otherwise; ``submissions`` counts how often each custom_id
    was submitted (a client must never send a request twice)."""

    def __init__(
        self,
        *,
        polls_to_end: int,
        fault: BatchFault | None,
        cancel_batches: Iterable[int],
        poll_fault: PollFault | None = None,
    ) -> None:
        if polls_to_end < 1:
            raise ValueError("polls_to_end must be 1 or more")
        self.polls_to_end = polls_to_end
        self.fault = fault
        self.cancel_batches = frozenset(cancel_batches)
        self.poll_fault = poll_fault
        self.submissions: dict[str, int] = {}
        self.batches: dict[str, FakeBatch] = {}
        self.refused_polls: dict[str, int] = {}
        self.lock = threading.Lock()

    def create(self, prefix: str, requests: Sequence[tuple[str, Any]]) -> FakeBatch | str:
        """A new batch, or why it is refused (an empty batch, a custom_id given twice)."""
        ids = [custom_id for custom_id, _ in requests]
        if not ids:
            return "a batch needs at least one request"
        if len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})[0]
            return f"custom_id {twice!r} is given more than once in the batch"
        with self.lock:
            number = len(self.batches) + 1
            numbered = []
            for custom_id, body in requests:
                self.submissions[custom_id] = self.submissions.get(custom_id, 0) + 1
                numbered.append((custom_id, body, self.submissions[custom_id]))
            batch = FakeBatch(id=f"{prefix}{number:06d}", number=number, requests=numbered)
            self.batches[batch.id] = batch
        return batch

    def refused(self, batch_id: str) -> int | None:
        """The HTTP status ``poll_fault`` scripts for this retrieval of ``batch_id`` (counted
        in ``refused_polls``), or None: the retrieval is answered."""
        if self.poll_fault is None:
            return None
        with self.lock:
            seen = self.refused_polls.get(batch_id, 0)
            answered = self.batches[batch_id].polls if batch_id in self.batches else 0
            status = self.poll_fault(batch_id, seen + answered + 1)
            if status is not None:
                self.refused_polls[batch_id] = seen + 1
            return status

    def poll(self, batch_id: str, answer: Callable[[Any], FakeReply]) -> FakeBatch | None:
        """Count one retrieval of ``batch_id``; end it when due (None: no such batch)."""
        with self.lock:
            batch = self.batches.get(batch_id)
            if batch is None or batch.results is not None:
                return batch
            batch.polls += 1
            if batch.number in self.cancel_batches:
                batch.cancelled = True
            if batch.polls < self.polls_to_end and not batch.cancelled:
                return batch
        results = [self._result(batch, c, body, n, answer) for c, body, n in batch.requests]
        with self.lock:
            batch.results, batch.status = results, "ended"
        return batch

    def cancel(self, batch_id: str) -> FakeBatch | None:
        with self.lock:
            batch = self.batches.get(batch_id)
            if batch is not None and batch.results is None:
                batch.cancelled, batch.status = True, "canceling"
            return batch

    def _result(
        self,
        batch: FakeBatch,
        custom_id: str,
        body: Any,
        submission: int,
        answer: Callable[[Any], FakeReply],
    ) -> tuple[str, str, FakeReply | None]:
        kind = "canceled" if batch.cancelled else None
        if kind is None and self.fault is not None:
            kind = self.fault(custom_id, submission)
        if kind in ("expired", "canceled"):
            return custom_id, kind, None
        if kind == "errored":
            return custom_id, kind, FakeReply(status=500, text="scripted server error")
        if kind == "invalid":
            return custom_id, kind, FakeReply(status=400, text="scripted invalid request")
        if kind is not None:
            raise ValueError(f"fault returned {kind!r}; expected one of {BATCH_FAULTS} or None")
        reply = answer(body)
        return custom_id, ("succeeded" if reply.status == 200 else "errored"), reply

    def counts(self, batch: FakeBatch) -> dict[str, int]:
        kinds = [kind for _, kind, _ in batch.results or ()]
        return {
            "processing": len(batch.requests) if batch.results is None else 0,
            "succeeded": kinds.count("succeeded"),
            "errored": kinds.count("errored") + kinds.count("invalid"),
            "canceled": kinds.count("canceled"),
            "expired": kinds.count("expired"),
        }


_CREATED_AT = "2026-01-01T00:00:00Z"
_EXPIRES_AT = "2026-01-02T00:00:00Z"
_BATCH_ROUTE = re.compile(r"^/v1/(?:messages/)?batches/([^/?]+)(/results|/cancel)?$")


class FakeMessageBatchesServer(FakeMessagesServer):
    """FakeMessagesServer with Anthropic's Message Batches API as well: ``POST
    /v1/messages/batches``, ``GET /v1/messages/batches/{id}``, ``GET .../{id}/results``
    (JSONL), ``POST .../{id}/cancel``; ``POST /v1/messages`` is still answered (a client's
    synchronous fallback). Each batch request's ``params`` is answered by the same queue or
    handler as a synchronous request (a ``ScriptedPipeline`` answers both), when the batch
    ends: at its ``polls_to_end``-th retrieval, or at the first retrieval after a cancel
    (every request then ``canceled``); batches numbered in ``cancel_batches`` (1-based) are
    cancelled by the server itself; ``fault`` scripts requests that fail (BatchFault);
    ``poll_fault`` scripts retrievals answered with an HTTP error instead (PollFault: a
    proxy that does not pass them through), counted in ``book.refused_polls``.
    ``book.submissions`` counts the submissions of each custom_id, ``book.batches`` the
    batches. Bounded: it stops serving by itself after ``lifetime_s`` seconds.
    """

    def __init__(
        self,
        replies: Iterable[FakeReply | str] = (),
        *,
        handler: Handler | None = None,
        polls_to_end: int = 1,
        fault: BatchFault | None = None,
        cancel_batches: Iterable[int] = (),
        poll_fault: PollFault | None = None,
        lifetime_s: float = 300.0,
    ) -> None:
        super().__init__(replies, handler=handler)
        self.book = _BatchBook(
            polls_to_end=polls_to_end,
            fault=fault,
            cancel_batches=cancel_batches,
            poll_fault=poll_fault,
        )
        self._lifetime = _Lifetime(self, lifetime_s)

    def start(self) -> Self:
        super().start()
        self._lifetime.start()
        return self

    def stop(self) -> None:
        self._lifetime.cancel()
        super().stop()

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> _Response:
        route = path.split("?")[0]
        if method == "POST" and route == "/v1/messages/batches":
            requests = body.get("requests") if isinstance(body, Mapping) else None
            if not isinstance(requests, list) or not all(
                isinstance(r, Mapping) and isinstance(r.get("custom_id"), str) for r in requests
            ):
                return self._refuse("requests: expected a list of {custom_id, params}")
            made = self.book.create(
                "msgbatch_fake", [(r["custom_id"], r.get("params")) for r in requests]
            )
            if isinstance(made, str):
                return self._refuse(made)
            return _Response(200, self._batch_json(made))
        match = _BATCH_ROUTE.match(route)
        if match is None or not route.startswith("/v1/messages/batches/"):
            return super()._answer(method, path, headers, body)
        batch_id, action = match[1], match[2]
        if method == "POST" and action == "/cancel":
            batch = self.book.cancel(batch_id)
        elif method == "GET" and action == "/results":
            batch = self.book.batches.get(batch_id)
            if batch is not None and batch.results is not None:
                return _Response(
                    200, self._results_jsonl(batch), {"content-type": "application/binary"}
                )
            if batch is not None:
                return self._refuse(f"batch {batch_id} has not ended: no results yet")
        elif method == "GET" and action is None:
            refused = self.book.refused(batch_id)
            if refused is not None:
                text = f"scripted HTTP {refused} for a retrieval of {batch_id}"
                return _Response(refused, _error_json(FakeReply(status=refused, text=text)))
            batch = self.book.poll(batch_id, self._next_reply)
        else:
            return super()._answer(method, path, headers, body)
        if batch is None:
            return _Response(404, _error_json(FakeReply(status=404, text=f"no batch {batch_id}")))
        return _Response(200, self._batch_json(batch))

    def _refuse(self, why: str) -> _Response:
        return _Response(400, _error_json(FakeReply(status=400, text=why)))

    def _batch_json(self, batch: FakeBatch) -> dict[str, Any]:
        ended = batch.results is not None
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": batch.status,
            "request_counts": self.book.counts(batch),
            "created_at": _CREATED_AT,
            "expires_at": _EXPIRES_AT,
            "ended_at": _CREATED_AT if ended else None,
            "cancel_initiated_at": _CREATED_AT if batch.cancelled else None,
            "archived_at": None,
            "results_url": f"{self.root_url}/v1/messages/batches/{batch.id}/results"
            if ended
            else None,
        }

    def _results_jsonl(self, batch: FakeBatch) -> bytes:
        bodies = {custom_id: body for custom_id, body, _ in batch.requests}
        lines = []
        for custom_id, kind, reply in batch.results or ():
            result: dict[str, Any]
            if kind == "succeeded" and reply is not None:
                message = self._message_json(reply, bodies[custom_id])
                result = {"type": "succeeded", "message": message}
            elif reply is not None:  # errored, invalid
                result = {"type": "errored", "error": _error_json(reply)}
            else:
                result = {"type": kind}
            lines.append(json.dumps({"custom_id": custom_id, "result": result}))
        return ("\n".join(lines) + "\n").encode("utf-8")


class FakeBatchAPIServer(FakeChatCompletionsServer):
    """FakeChatCompletionsServer with OpenAI's Batch API as well: ``POST /v1/files``
    (multipart, ``purpose=batch``), ``GET /v1/files/{id}/content``, ``POST /v1/batches``,
    ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``; ``POST
    /v1/chat/completions`` is still answered. A batch's lines are answered as
    FakeMessageBatchesServer answers its requests (same arguments, same ``book``): the
    replies in the output file, failed requests in the error file (an HTTP error's body,
    or ``batch_expired`` / ``batch_cancelled``); a batch whose lines are malformed is
    refused with HTTP 400, as is a custom_id given twice.
    """

    def __init__(
        self,
        replies: Iterable[FakeReply | str] = (),
        *,
        handler: Handler | None = None,
        polls_to_end: int = 1,
        fault: BatchFault | None = None,
        cancel_batches: Iterable[int] = (),
        poll_fault: PollFault | None = None,
        lifetime_s: float = 300.0,
    ) -> None:
        super().__init__(replies, handler=handler)
        self.book = _BatchBook(
            polls_to_end=polls_to_end,
            fault=fault,
            cancel_batches=cancel_batches,
            poll_fault=poll_fault,
        )
        self.files: dict[str, bytes] = {}
        self._raw = threading.local()
        self._lifetime = _Lifetime(self, lifetime_s)
        self._outputs: dict[str, tuple[str | None, str | None]] = {}

    def start(self) -> Self:
        super().start()
        self._lifetime.start()
        return self

    def stop(self) -> None:
        self._lifetime.cancel()
        super().stop()

    def _record(self, request: RecordedRequest) -> None:
        super()._record(request)
        self._raw.body = request.raw_body  # the multipart upload, for ``_answer``

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> _Response:
        route = path.split("?")[0]
        if method == "POST" and route == "/v1/files":
            return self._upload(headers.get("content-type", ""), getattr(self._raw, "body", b""))
        content = re.match(r"^/v1/files/([^/]+)/content$", route)
        if method == "GET" and content is not None:
            if content[1] not in self.files:
                return self._refuse(f"No such File object: {content[1]}", status=404)
            return _Response(200, self.files[content[1]], {"content-type": "application/jsonl"})
        if method == "POST" and route == "/v1/batches":
            return self._create(body if isinstance(body, Mapping) else {})
        match = _BATCH_ROUTE.match(route)
        if match is None or not route.startswith("/v1/batches/"):
            return super()._answer(method, path, headers, body)
        batch_id, action = match[1], match[2]
        if method == "POST" and action == "/cancel":
            batch = self.book.cancel(batch_id)
        elif method == "GET" and action is None:
            refused = self.book.refused(batch_id)
            if refused is not None:
                return self._refuse(f"scripted HTTP {refused} for {batch_id}", status=refused)
            batch = self.book.poll(batch_id, self._reply_to)
        else:
            return super()._answer(method, path, headers, body)
        if batch is None:
            return self._refuse(f"No batch found with id '{batch_id}'.", status=404)
        return _Response(200, self._batch_json(batch))

    def _refuse(self, why: str, status: int = 400) -> _Response:
        return _Response(status, self._error_json(FakeReply(status=status, text=why)))

    def _reply_to(self, body: Any) -> FakeReply:
        return self._next_reply(_as_messages_body(body if isinstance(body, Mapping) else {}))

    def _upload(self, content_type: str, raw: bytes) -> _Response:
        from email.parser import BytesParser
        from email.policy import HTTP

        head = f"Content-Type: {content_type}\r\n\r\n".encode()
        form = BytesParser(policy=HTTP).parsebytes(head + raw)
        fields: dict[str, bytes] = {}
        for part in form.iter_parts() if form.is_multipart() else ():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = payload
        if fields.get("purpose") != b"batch" or "file" not in fields:
            return self._refuse("expected a multipart upload with file and purpose=batch")
        file_id = f"file-fake{len(self.files) + 1:06d}"
        self.files[file_id] = fields["file"]
        return _Response(
            200,
            {
                "id": file_id,
                "object": "file",
                "bytes": len(fields["file"]),
                "created_at": 0,
                "filename": "batch.jsonl",
                "purpose": "batch",
                "status": "processed",
            },
        )

    def _create(self, body: Mapping[str, Any]) -> _Response:
        endpoint = body.get("endpoint")
        data = self.files.get(str(body.get("input_file_id")))
        if data is None:
            return self._refuse(f"No such File object: {body.get('input_file_id')}", status=404)
        requests = []
        for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
            try:
                entry = json.loads(line)
            except ValueError:
                return self._refuse(f"line {number} of the input file is not JSON")
            if not (
                isinstance(entry, Mapping)
                and isinstance(entry.get("custom_id"), str)
                and entry.get("method") == "POST"
                and entry.get("url") == endpoint
                and isinstance(entry.get("body"), Mapping)
            ):
                return self._refuse(
                    f"line {number}: expected {{custom_id, method: POST, url: {endpoint}, body}}"
                )
            requests.append((entry["custom_id"], entry["body"]))
        made = self.book.create("batch_fake", requests)
        if isinstance(made, str):
            return self._refuse(made)
        return _Response(200, self._batch_json(made, input_file_id=str(body["input_file_id"])))

    def _batch_json(self, batch: FakeBatch, input_file_id: str = "") -> dict[str, Any]:
        counts = self.book.counts(batch)
        failed = counts["errored"] + counts["canceled"] + counts["expired"]
        output, errors = self._files_of(batch)
        if batch.results is None:
            status = "cancelling" if batch.status == "canceling" else "in_progress"
        elif batch.cancelled:
            status = "cancelled"
        elif counts["expired"] == len(batch.requests):
            status = "expired"
        else:
            status = "completed"
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": input_file_id or "file-unknown",
            "completion_window": "24h",
            "status": status,
            "output_file_id": output,
            "error_file_id": errors,
            "created_at": 0,
            "request_counts": {
                "total": len(batch.requests),
                "completed": counts["succeeded"],
                "failed": failed,
            },
        }

    def _files_of(self, batch: FakeBatch) -> tuple[str | None, str | None]:
        """The output and error files of an ended batch (written once), else None, None."""
        if batch.results is None:
            return None, None
        with self.book.lock:
            if batch.id not in self._outputs:
                self._outputs[batch.id] = self._write_results(batch)
            return self._outputs[batch.id]

    def _write_results(self, batch: FakeBatch) -> tuple[str | None, str | None]:
        bodies = {custom_id: body for custom_id, body, _ in batch.requests}
        good: list[str] = []
        bad: list[str] = []
        for number, (custom_id, kind, reply) in enumerate(batch.results or (), 1):
            line: dict[str, Any] = {"id": f"batch_req_{number:06d}", "custom_id": custom_id}
            request_id = f"req_fake_batch_{number:06d}"
            if kind == "succeeded" and reply is not None:
                body = self._completion(reply, bodies[custom_id])
                line |= {
                    "response": {"status_code": 200, "request_id": request_id, "body": body},
                    "error": None,
                }
                good.append(json.dumps(line))
                continue
            if reply is not None:
                response = {
                    "status_code": reply.status,
                    "request_id": request_id,
                    "body": self._error_json(reply),
                }
                line |= {"response": response, "error": None}
            else:
                code, text = (
                    ("batch_expired", _EXPIRED_TEXT)
                    if kind == "expired"
                    else ("batch_cancelled", _CANCELLED_TEXT)
                )
                line |= {"response": None, "error": {"code": code, "message": text}}
            bad.append(json.dumps(line))
        ids: list[str | None] = []
        for lines in (good, bad):
            if not lines:
                ids.append(None)
                continue
            file_id = f"file-fake{len(self.files) + 1:06d}"
            self.files[file_id] = ("\n".join(lines) + "\n").encode("utf-8")
            ids.append(file_id)
        return ids[0], ids[1]


class _Lifetime:
    """Stops a fake server's serving after ``seconds``, so a test that forgets to stop it
    (or hangs) leaves no server behind."""

    def __init__(self, server: _LoopbackServer, seconds: float) -> None:
        def end() -> None:
            server._httpd.shutdown()
            server._httpd.server_close()

        self._timer = threading.Timer(seconds, end)
        self._timer.daemon = True

    def start(self) -> None:
        if not self._timer.is_alive():
            self._timer.start()

    def cancel(self) -> None:
        self._timer.cancel()


class ParagraphModel(ScriptedPipeline):
    """A model for generated corpora: each paragraph of an extraction batch is one
    proposition; grouping puts propositions with the same first word in one theme.

    ``fail(user_text)`` true answers that request with HTTP 400 (a document's own
    failure). ``answered`` counts each distinct request (system prompt and messages) the
    model answered, i.e. was paid for, so a test can see that none was paid twice
    (``paid_twice``). With ``hold_after`` N, every request after the first N answered waits
    until ``release`` is set, then gets a 529 (overloaded: not answered, not paid): a run
    stuck half-way, to be killed."""

    def __init__(
        self,
        *,
        delay_s: float = 0.0,
        fail: Callable[[str], bool] | None = None,
        hold_after: int | None = None,
    ) -> None:
        super().__init__({}, theme=lambda text: text.split()[0], delay_s=delay_s)
        self._fail = fail
        self._hold_after = hold_after
        self.release = threading.Event()
        self.held = 0
        self.answered: dict[str, int] = {}

    def __call__(self, body: Mapping[str, Any]) -> FakeReply:
        key = json.dumps([system_text(body), body["messages"]], sort_keys=True)
        with self._lock:
            holds = self._hold_after is not None and sum(self.answered.values()) >= self._hold_after
            self.held += holds
        if holds:
            self.release.wait(60)
            return FakeReply(status=529, text="ParagraphModel: held, then overloaded (test)")
        if self._fail is not None and self._fail(user_text(body)):
            return FakeReply(status=400, text="ParagraphModel: this request fails (test)")
        reply = super().__call__(body)
        with self._lock:
            self.answered[key] = self.answered.get(key, 0) + 1
        return reply

    @property
    def paid_twice(self) -> int:
        """How many distinct requests were answered more than once."""
        with self._lock:
            return sum(1 for n in self.answered.values() if n > 1)

    def _extract(self, batch: str) -> list[str]:
        return [p.strip() for p in batch.split("\n\n") if p.strip()]


class VerbatimModel(ScriptedPipeline):
    """A model that gives the text back unchanged: each proposition of an extraction
    batch is one sentence of it (the package's segmenter, over each paragraph of the
    batch), or with ``run`` N a run of up to N consecutive sentences of one paragraph,
    copied with the whitespace between them (the exact slice of the batch's text).
    ``collapse`` gives each with its runs of whitespace collapsed to one space (what a
    model copying wrapped lines does). Grouping puts propositions with the same first
    word in one theme. For tests of provenance: every proposition is the text it was
    extracted from."""

    def __init__(self, *, run: int = 1, collapse: bool = False) -> None:
        super().__init__({}, theme=lambda text: text.split()[0])
        self._run = max(1, run)
        self._collapse = collapse

    def _extract(self, batch: str) -> list[str]:
        from ._text import sentence_spans

        out = []
        for paragraph in re.split(r"\n[ \t]*\n", batch):
            if paragraph.strip():
                spans = [(a, b) for a, b in sentence_spans(paragraph) if paragraph[a:b].strip()]
                for k in range(0, len(spans), self._run):
                    group = spans[k : k + self._run]
                    piece = paragraph[group[0][0] : group[-1][1]].strip()
                    out.append(" ".join(piece.split()) if self._collapse else piece)
        return out
