"""``AgenticNodeParser``: the pipeline as a LlamaIndex node parser (extra ``llamaindex``).

    from agentic_chunking.adapters.llamaindex import AgenticNodeParser
    parser = AgenticNodeParser(chunk_options={"model": "claude-sonnet-4-6"})
    nodes = parser.get_nodes_from_documents(documents)

Documents in, TextNodes out: one node per thematic chunk, in document then output order;
``text`` is the chunk's ``MergedContent``, ``id_`` its ``ChunkId``, ``metadata`` the
Document's metadata overlaid by the record's fields (``record_metadata``), the bulky
provenance fields (``PROVENANCE_KEYS``) excluded from the text embedded and shown to an
LLM; relationships: SOURCE the Document, PREVIOUS / NEXT the neighbouring chunks of the
same Document (LlamaIndex's own post-processing, which follows our output order). The
Document's ``id_`` is the DocumentId. A Document the pipeline cannot chunk raises
ChunkingFailed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import BaseNode, MetadataMode, NodeRelationship, TextNode
from pydantic import Field

from ._documents import PROVENANCE_KEYS, chunk_document, record_metadata


class AgenticNodeParser(NodeParser):
    """Parse LlamaIndex Documents with ``chunk_text_agentic``; ``chunk_options`` are its
    keyword arguments (``client``, ``model``, ``base_url``, ``max_chunk_tokens``, ...)."""

    chunk_options: dict[str, Any] = Field(
        default_factory=dict, description="keyword arguments of chunk_text_agentic"
    )

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        for node in nodes:
            text = node.get_content(metadata_mode=MetadataMode.NONE)
            for chunk in chunk_document(text, node.node_id, node.metadata, self.chunk_options):
                out.append(
                    TextNode(
                        id_=chunk.chunk_id,
                        text=chunk.merged_content,
                        metadata=record_metadata(chunk),
                        excluded_embed_metadata_keys=list(PROVENANCE_KEYS),
                        excluded_llm_metadata_keys=list(PROVENANCE_KEYS),
                        relationships={NodeRelationship.SOURCE: node.as_related_node_info()},
                    )
                )
        return out


AgenticChunker = AgenticNodeParser
"""The same parser under the name the LangChain adapter uses."""
