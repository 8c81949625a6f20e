"""The loopback model APIs for tests and benchmarks, kept here for one release: they now
live in ``agentic_chunking._loopback`` (split by API), which the suite and the project's
tests import. This module re-exports them unchanged, because the docs (docs/batch.md,
cassettes/reference/README.md) name it and tests written against it still import it.

``TableEmbedder`` and ``MEANING_EXAMPLES``, which only tests used, moved to
``tests/embedders.py``.
"""

from ._loopback import (
    BATCH_FAULTS,
    CHAT_ERROR_CODES,
    ERROR_TYPES,
    FINISH_REASONS,
    BatchFault,
    FakeBatch,
    FakeBatchAPIServer,
    FakeChatCompletionsServer,
    FakeMessageBatchesServer,
    FakeMessagesServer,
    FakeReply,
    Handler,
    ParagraphModel,
    PollFault,
    RecordedRequest,
    ScriptedPipeline,
    VerbatimModel,
    fake_server_for,
    system_text,
    user_text,
)

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
