"""One document of another library through the pipeline: the core both adapters share.

``chunk_document`` turns a document's text into paragraph inputs (with their offsets,
``pipeline.paragraph_inputs``) and runs ``chunk_text_agentic`` with the document's id and
metadata and the adapter's ``PipelineOptions`` (``adapter_options`` reads them from an
adapter's arguments: a PipelineOptions, or the keyword form); ``record_metadata`` is what
an adapter puts in its output's metadata: the chunk's ``Metadata`` (the document's,
overlaid by its inputs') and every other field of the record except ``MergedContent``
(the output's text).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .._errors import AgenticChunkingError
from .._models import AgenticChunk, AgenticResponse
from ..pipeline import PipelineOptions, chunk_text_agentic, paragraph_inputs

RUN_KEYWORDS = frozenset({"client", "cache", "progress", "on_event"})
"""``chunk_text_agentic``'s keywords that are no setting: what a run is given to work with."""

PROVENANCE_KEYS = (
    "PropositionChunkIds",
    "PropositionSpans",
    "Spans",
    "SourceChunkIds",
    "Propositions",
    "Hash",
    "PreviousChunkId",
    "NextChunkId",
)
"""Record fields kept in an output's metadata but left out of what is embedded or shown
to a model (bulky, and no meaning to either)."""


class ChunkingFailed(AgenticChunkingError):
    """A document the pipeline could not chunk; ``response`` is the failed response
    (its ``error_detail`` is in the message; ``extracted`` keeps what was paid for)."""

    def __init__(self, message: str, response: AgenticResponse) -> None:
        super().__init__(message)
        self.response = response


def adapter_options(
    options: PipelineOptions | None, keywords: Mapping[str, Any]
) -> tuple[PipelineOptions, dict[str, Any]]:
    """The PipelineOptions an adapter runs with, and the run's own keywords (``client``,
    ``cache``, ``progress``, ``on_event``): ``options`` (default: every default) with the
    settings ``keywords`` name over it (``chunk_text_agentic``'s keyword form; a None is
    the default). TypeError for a keyword that is neither."""
    run = {name: value for name, value in keywords.items() if name in RUN_KEYWORDS}
    given = {
        name: value
        for name, value in keywords.items()
        if name not in RUN_KEYWORDS and value is not None
    }
    return replace(options or PipelineOptions(), **given), run


def chunk_document(
    text: str,
    document_id: str,
    metadata: Mapping[str, Any],
    options: PipelineOptions,
    run: Mapping[str, Any] | None = None,
) -> tuple[AgenticChunk, ...]:
    """The chunks of one document (none for a text without any paragraph), chunked with
    ``options`` (``run``: ``chunk_text_agentic``'s ``client``, ``cache``, ...). Raises
    ChunkingFailed when the run fails, and whatever ``chunk_text_agentic`` raises
    (ModelCallError, ConfigurationError).
    """
    inputs = paragraph_inputs(text)
    if not inputs:
        return ()
    response = chunk_text_agentic(inputs, document_id, options, metadata=metadata, **(run or {}))
    if not response.is_success:
        raise ChunkingFailed(f"document {document_id}: {response.error_detail}", response)
    return response.chunks


def record_metadata(chunk: AgenticChunk) -> dict[str, Any]:
    """The chunk's ``Metadata`` keys, then every record field but ``MergedContent`` and
    ``Metadata`` (a record field wins over a metadata key of the same name)."""
    record = chunk.to_dict()
    carried = dict(record.pop("Metadata", {}))
    record.pop("MergedContent")
    return {**carried, **record}
