"""``AgenticChunker``: the pipeline as a LangChain document transformer (extra ``langchain``).

    from agentic_chunking.adapters.langchain import AgenticChunker
    chunks = AgenticChunker(model="claude-sonnet-4-6").transform_documents(documents)

Documents in, Documents out: one output Document per thematic chunk, in document then
output order; ``page_content`` is the chunk's ``MergedContent``, ``id`` its ``ChunkId``,
``metadata`` the input Document's metadata overlaid by the record's fields
(``record_metadata``: ChunkId, DocumentId, ThematicCategory, PropositionSpans into the
Document's ``page_content``, Part, PreviousChunkId, ...). A Document's id is its ``id``,
else ``metadata["document_id"]``, else ``DOC-0001``, ``DOC-0002``, ... by its position.
A Document the pipeline cannot chunk raises ChunkingFailed (nothing is dropped quietly).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.documents import BaseDocumentTransformer, Document

from ._documents import chunk_document, record_metadata


class AgenticChunker(BaseDocumentTransformer):
    """Chunk LangChain Documents with ``chunk_text_agentic``; ``options`` are its keyword
    arguments (``client``, ``model``, ``base_url``, ``max_chunk_tokens``, ...)."""

    def __init__(self, **options: Any) -> None:
        self.options = options

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[Document]:
        """The thematic chunks of every Document, in order (see the module)."""
        options = {**self.options, **kwargs}
        out: list[Document] = []
        for position, document in enumerate(documents, start=1):
            document_id = (
                document.id or document.metadata.get("document_id") or f"DOC-{position:04d}"
            )
            for chunk in chunk_document(
                document.page_content, str(document_id), document.metadata, options
            ):
                out.append(
                    Document(
                        page_content=chunk.merged_content,
                        metadata=record_metadata(chunk),
                        id=chunk.chunk_id,
                    )
                )
        return out
