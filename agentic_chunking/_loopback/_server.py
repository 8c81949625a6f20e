"""What every loopback server shares: the scripted reply (``FakeReply``), the recorded
request, the HTTP plumbing (``LoopbackServer``: a ThreadingHTTPServer on a random port
of 127.0.0.1, the queue of replies or the handler), each API's fake subclasses it.

Guarantees: every request is recorded in ``requests`` in arrival order before it is
answered; an empty queue, or a handler that raises, is answered with a non-retried HTTP
500 (the handler's exception kept in ``handler_errors``), so a test fails loudly; a client
that hangs up before its reply prints nothing.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any, Self


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


class LoopbackServer:
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

    def _scripted(self, body: Any, answer: Callable[[FakeReply], Response]) -> Response:
        """The next scripted reply, as ``answer`` renders a 200 or the API's error JSON."""
        reply = self._next_reply(body)
        if reply.raw_body is not None:
            headers = {"content-type": "text/html; charset=utf-8", **reply.headers}
            return Response(reply.status, reply.raw_body.encode("utf-8"), headers, reply.delay_s)
        if reply.status == 200:
            return replace(answer(reply), delay_s=reply.delay_s)
        headers = {"retry-after-ms": "10", **reply.headers}
        return Response(reply.status, self._error_json(reply), headers, reply.delay_s)

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Response:
        raise NotImplementedError

    def _error_json(self, reply: FakeReply) -> dict[str, Any]:
        raise NotImplementedError

    def _response_headers(self) -> dict[str, str]:
        return {"request-id": f"req_fake_{len(self.requests):06d}"}


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    payload: Mapping[str, Any] | bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def _make_request_handler(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
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

        def _send(self, response: Response) -> None:
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


class Lifetime:
    """Stops a fake server's serving after ``seconds``, so a test that forgets to stop it
    (or hangs) leaves no server behind."""

    def __init__(self, server: LoopbackServer, seconds: float) -> None:
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
