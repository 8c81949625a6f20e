"""One document of another library through the pipeline: the core both adapters share.

``chunk_document`` turns a document's text into paragraph inputs (with their offsets,
``pipeline._document.paragraph_inputs``) and runs ``chunk_text_agentic`` with the
document's id and metadata; ``record_metadata`` is what an adapter puts in its output's
metadata: the chunk's ``Metadata`` (the document's, overlaid by its inputs') and every
other field of the record except ``MergedContent`` (the output's text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import AgenticChunkingError
from .._models import AgenticChunk, AgenticResponse
from ..pipeline._document import paragraph_inputs
from ..pipeline._run import chunk_text_agentic

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


def chunk_document(
    text: str, document_id: str, metadata: Mapping[str, Any], options: Mapping[str, Any]
) -> tuple[AgenticChunk, ...]:
    """The chunks of one document (none for a text without any paragraph).

    ``options`` are ``chunk_text_agentic``'s keyword arguments (client, model, base_url,
    max_tokens_per_batch, max_chunk_tokens, ...). Raises ChunkingFailed when the run fails,
    and whatever ``chunk_text_agentic`` raises (ModelCallError, ConfigurationError).
    """
    inputs = paragraph_inputs(text)
    if not inputs:
        return ()
    response = chunk_text_agentic(inputs, document_id, metadata=metadata, **options)
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
