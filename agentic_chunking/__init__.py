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
    ExtractedBatch,
    estimate_tokens,
)
from ._text import split_sentences
from ._warning import PipelineWarning
from .client import DEFAULT_JUDGE_MODEL, DEFAULT_MODEL
from .pipeline._batches import Batch, plan_batches
from .pipeline._normalise import GroupingReply, ThemeGroup, normalise_agentic_output, parse_grouping
from .pipeline._parse import parse_propositions, parse_propositions_strict
from .pipeline._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH, pre_chunk_for_extraction
from .pipeline._prompts import PROMPT_VERSIONS
from .pipeline._run import chunk_text_agentic

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
