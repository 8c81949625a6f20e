"""Level 5 agentic chunking: atomic, self-contained propositions grouped by theme.

The public API is re-exported here; implementation modules are private.
"""

from ._errors import (
    AgenticChunkingError,
    CaseError,
    CassetteError,
    ConfigurationError,
    InputError,
    ModelCallError,
    ReplyParseError,
)
from ._models import (
    UNKNOWN_DOCUMENT_ID,
    AgenticChunk,
    AgenticChunkInput,
    AgenticResponse,
    CallUsage,
    estimate_tokens,
)
from ._text import split_sentences

__all__ = [
    "UNKNOWN_DOCUMENT_ID",
    "AgenticChunk",
    "AgenticChunkInput",
    "AgenticChunkingError",
    "AgenticResponse",
    "CallUsage",
    "CaseError",
    "CassetteError",
    "ConfigurationError",
    "InputError",
    "ModelCallError",
    "ReplyParseError",
    "estimate_tokens",
    "split_sentences",
]
