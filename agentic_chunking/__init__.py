"""Level 5 agentic chunking: atomic, self-contained propositions grouped by theme.

The public API is re-exported here; implementation modules are private. The pipeline's
names are imported on first use (``__getattr__``), so that importing the package, as the
command line does before it can catch Ctrl-C, stays quick and loads no pipeline.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from .pipeline._batches import Batch, plan_batches
    from .pipeline._normalise import (
        GroupingReply,
        ThemeGroup,
        normalise_agentic_output,
        parse_grouping,
    )
    from .pipeline._parse import parse_propositions, parse_propositions_strict
    from .pipeline._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH, pre_chunk_for_extraction
    from .pipeline._prompts import PROMPT_VERSIONS
    from .pipeline._run import chunk_text_agentic

_PIPELINE_NAMES = {
    "Batch": "_batches",
    "plan_batches": "_batches",
    "GroupingReply": "_normalise",
    "ThemeGroup": "_normalise",
    "normalise_agentic_output": "_normalise",
    "parse_grouping": "_normalise",
    "parse_propositions": "_parse",
    "parse_propositions_strict": "_parse",
    "DEFAULT_MAX_TOKENS_PER_BATCH": "_prechunk",
    "pre_chunk_for_extraction": "_prechunk",
    "PROMPT_VERSIONS": "_prompts",
    "chunk_text_agentic": "_run",
}
"""Each public name of the pipeline, and the module of ``pipeline`` that defines it."""


def __getattr__(name: str) -> object:
    """A pipeline name, imported on first use and kept (see the module)."""
    module = _PIPELINE_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.pipeline.{module}"), name)
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
