"""LangChain: the pipeline as a document transformer, and a finished output loaded back
(extra ``langchain``).

    from agentic_chunking.adapters.langchain import AgenticChunker, load_documents
    options = PipelineOptions(model="claude-sonnet-4-6")
    chunks = AgenticChunker(options).transform_documents(documents)
    chunks = load_documents("chunks.jsonl")  # what `corpus` wrote; no model call

Both give one Document per thematic chunk, in document then output order;
``page_content`` is the chunk's ``MergedContent`` (what is embedded), ``id`` its
``ChunkId``, ``metadata`` the chunk's ``Metadata`` (the document's) overlaid by the
record's fields (``record_metadata``: ChunkId, DocumentId, ThematicCategory, Propositions,
PropositionSpans, Part, PreviousChunkId, ...) and ``start_index`` / ``end_index``, the
first and last character of the chunk's sources in its document (``char_offsets``; absent
when no span is known). With ``flat_metadata`` every value is a string, number or boolean
(lists and dicts as JSON text, None left out: ``flatten_metadata``), so a vector store
(Chroma, ...) takes the Documents as they are and LangChain's ``filter_complex_metadata``
drops nothing; ``citations(document.metadata)`` reads the spans back from either form.

``AgenticChunker``: a Document's id is its ``id``, else ``metadata["document_id"]``, else
``DOC-0001``, ``DOC-0002``, ... by its position; the spans are offsets into its
``page_content``. A Document the pipeline cannot chunk raises ChunkingFailed (nothing is
dropped quietly).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.documents import BaseDocumentTransformer, Document

from .._models import AgenticChunk
from ..pipeline import PipelineOptions
from ._documents import adapter_options, chunk_document
from ._loading import Citation, chunk_metadata, citations, flatten_metadata, read_chunks

__all__ = ["AgenticChunker", "Citation", "citations", "flatten_metadata", "load_documents"]


class AgenticChunker(BaseDocumentTransformer):
    """Chunk LangChain Documents with ``chunk_text_agentic`` and ``options`` (a
    PipelineOptions); keywords are ``chunk_text_agentic``'s own (``client``, ``cache``, and
    the keyword form of the settings, ``model=...``, over ``options``: ``adapter_options``);
    ``flat_metadata``: scalar metadata values only (see the module)."""

    def __init__(
        self,
        options: PipelineOptions | None = None,
        *,
        flat_metadata: bool = False,
        **keywords: Any,
    ) -> None:
        self.flat_metadata = flat_metadata
        self.options, self.run = adapter_options(options, keywords)

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[Document]:
        """The thematic chunks of every Document, in order (see the module); ``kwargs``
        as the constructor's keywords, for this call."""
        options, run = adapter_options(self.options, kwargs)
        run = {**self.run, **run}
        out: list[Document] = []
        for position, document in enumerate(documents, start=1):
            document_id = (
                document.id or document.metadata.get("document_id") or f"DOC-{position:04d}"
            )
            chunks = chunk_document(
                document.page_content, str(document_id), document.metadata, options, run
            )
            out.extend(_document(chunk, flat=self.flat_metadata) for chunk in chunks)
        return out


def load_documents(path: Path | str, *, flat_metadata: bool = True) -> list[Document]:
    """The Documents of a finished output, in file order, without any model call: the JSONL
    or Parquet ``corpus`` writes, or the JSON ``chunk`` writes (``read_chunks``: InputError
    for another file or a record that does not hold). ``flat_metadata`` (the default): the
    metadata a vector store takes as it is (see the module); False: the record's lists."""
    return [_document(chunk, flat=flat_metadata) for chunk in read_chunks(path)]


def _document(chunk: AgenticChunk, *, flat: bool) -> Document:
    return Document(
        page_content=chunk.merged_content,
        metadata=chunk_metadata(chunk, flat=flat),
        id=chunk.chunk_id,
    )
