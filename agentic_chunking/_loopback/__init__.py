"""Loopback model APIs on 127.0.0.1 (private: the suite, the project's tests and benchmarks
import it; ``agentic_chunking.testing`` re-exports it for one release), one module per
API: a fake Anthropic Messages API (``_messages``), its OpenAI-compatible twin
``FakeChatCompletionsServer`` (``_chat``: the same queue or handler, the Chat Completions
wire format, ``/v1/models``, an optional key), their batch APIs (``_message_batches``,
``_batch_api``, sharing ``_book``), and scripted models (``_scripted``:
``ScriptedPipeline``, a handler that answers the pipeline's prompts from data).

Only the standard library at import time; the client and the pipeline's prompts are
imported where a function needs them.

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

from ._batch_api import FakeBatchAPIServer
from ._book import BATCH_FAULTS, BatchFault, FakeBatch, PollFault
from ._chat import CHAT_ERROR_CODES, FINISH_REASONS, FakeChatCompletionsServer
from ._message_batches import FakeMessageBatchesServer
from ._messages import ERROR_TYPES, FakeMessagesServer
from ._scripted import ParagraphModel, ScriptedPipeline, VerbatimModel
from ._server import FakeReply, Handler, RecordedRequest, system_text, user_text

__all__ = [
    "BATCH_FAULTS",
    "CHAT_ERROR_CODES",
    "ERROR_TYPES",
    "FINISH_REASONS",
    "BatchFault",
    "FakeBatch",
    "FakeBatchAPIServer",
    "FakeChatCompletionsServer",
    "FakeMessageBatchesServer",
    "FakeMessagesServer",
    "FakeReply",
    "Handler",
    "ParagraphModel",
    "PollFault",
    "RecordedRequest",
    "ScriptedPipeline",
    "VerbatimModel",
    "fake_server_for",
    "system_text",
    "user_text",
]


def fake_server_for(provider: str) -> type[FakeMessagesServer | FakeChatCompletionsServer]:
    """The loopback fake of ``provider``'s API (``anthropic`` or ``openai``)."""
    from ..client import ANTHROPIC, OPENAI

    fakes: dict[str, type[FakeMessagesServer | FakeChatCompletionsServer]] = {
        ANTHROPIC: FakeMessagesServer,
        OPENAI: FakeChatCompletionsServer,
    }
    return fakes[provider]
