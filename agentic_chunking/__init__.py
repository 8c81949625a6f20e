"""Level 5 agentic chunking: atomic, self-contained propositions grouped by theme.

The public API is re-exported here; implementation modules are private. Each name is
imported on first use (``__getattr__``), so that importing the package, as the command
line does before it can catch Ctrl-C, loads nothing but the package itself.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
        ExtractedBatch,
        estimate_tokens,
    )
    from ._text import split_sentences
    from ._warning import PipelineWarning
    from .client import DEFAULT_JUDGE_MODEL, DEFAULT_MODEL
    from .pipeline import (
        DEFAULT_MAX_TOKENS_PER_BATCH,
        PROMPT_VERSIONS,
        Batch,
        GroupingReply,
        PipelineOptions,
        ThemeGroup,
        chunk_text_agentic,
        normalise_agentic_output,
        parse_grouping,
        parse_propositions,
        parse_propositions_strict,
        plan_batches,
        pre_chunk_for_extraction,
    )

_HOMES = {
    "._errors": (
        "AgenticChunkingError CaseError CassetteError ConfigurationError InputError "
        "ModelCallError ReplyParseError"
    ),
    "._models": (
        "UNKNOWN_DOCUMENT_ID AgenticChunk AgenticChunkInput AgenticResponse CallUsage "
        "ExtractedBatch estimate_tokens"
    ),
    "._text": "split_sentences",
    "._warning": "PipelineWarning",
    ".client": "DEFAULT_JUDGE_MODEL DEFAULT_MODEL",
    ".pipeline": (
        "DEFAULT_MAX_TOKENS_PER_BATCH PROMPT_VERSIONS Batch GroupingReply PipelineOptions "
        "ThemeGroup chunk_text_agentic normalise_agentic_output parse_grouping "
        "parse_propositions parse_propositions_strict plan_batches pre_chunk_for_extraction"
    ),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names.split()}
"""Each public name, and the module that defines it (the imports above, for type checkers)."""


def __getattr__(name: str) -> object:
    """A public name, imported on first use and kept (see the module)."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_JUDGE_MODEL",
    "DEFAULT_MAX_TOKENS_PER_BATCH",
    "DEFAULT_MODEL",
    "PROMPT_VERSIONS",
    "UNKNOWN_DOCUMENT_ID",
    "AgenticChunk",
    "AgenticChunkInput",
    "AgenticChunkingError",
    "AgenticResponse",
    "Batch",
    "CallUsage",
    "CaseError",
    "CassetteError",
    "ConfigurationError",
    "ExtractedBatch",
    "GroupingReply",
    "InputError",
    "ModelCallError",
    "PipelineOptions",
    "PipelineWarning",
    "ReplyParseError",
    "ThemeGroup",
    "chunk_text_agentic",
    "estimate_tokens",
    "normalise_agentic_output",
    "parse_grouping",
    "parse_propositions",
    "parse_propositions_strict",
    "plan_batches",
    "pre_chunk_for_extraction",
    "split_sentences",
]
