"""LlamaIndex: the pipeline as a node parser, and a finished output loaded back as nodes
(extra ``llamaindex``).

    from agentic_chunking.adapters.llamaindex import AgenticNodeParser, load_nodes
    parser = AgenticNodeParser(options=PipelineOptions(model="claude-sonnet-4-6"))
    nodes = parser.get_nodes_from_documents(documents)
    nodes = load_nodes("chunks.jsonl")  # what `corpus` wrote; no model call

Both give one TextNode per thematic chunk, in document then output order; ``text`` is the
chunk's ``MergedContent``, ``id_`` its ``ChunkId``, ``metadata`` the chunk's ``Metadata``
(the document's) overlaid by the record's fields (``record_metadata``) and
``start_index`` / ``end_index``; ``start_char_idx`` / ``end_char_idx`` the first and last
character of the chunk's sources in its document (``char_offsets``; None when no span is
known). Every record field but ``DocumentId`` and ``ThematicCategory`` (``HIDDEN_KEYS``:
PropositionCount, TokenEstimate, Part, the spans, ...) is excluded from the text embedded
and the text shown to an LLM; the document's own metadata is not. With
``flat_metadata`` every value is a string, number or boolean (``flatten_metadata``), what
a vector store takes; ``citations(node.metadata)`` reads the spans back from either form.
Relationships: SOURCE the document (its id the ``DocumentId``), PREVIOUS / NEXT the
neighbouring chunks of the same document.

``AgenticNodeParser``: the spans are offsets into the Document's text; a Document the
pipeline cannot chunk raises ChunkingFailed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import (
    BaseNode,
    Document,
    MetadataMode,
    NodeRelationship,
    ObjectType,
    RelatedNodeInfo,
    TextNode,
)
from pydantic import Field

from .._models import AgenticChunk
from ..pipeline import PipelineOptions
from ._documents import adapter_options, chunk_document
from ._loading import (
    HIDDEN_KEYS,
    Citation,
    char_offsets,
    chunk_metadata,
    citations,
    flatten_metadata,
    read_chunks,
)

__all__ = [
    "AgenticChunker",
    "AgenticNodeParser",
    "Citation",
    "citations",
    "flatten_metadata",
    "load_nodes",
]


class AgenticNodeParser(NodeParser):
    """Parse LlamaIndex Documents with ``chunk_text_agentic`` and ``options`` (a
    PipelineOptions); ``chunk_options`` are its other keyword arguments (``client``,
    ``cache``, and the keyword form of the settings over ``options``: ``adapter_options``)."""

    options: PipelineOptions | None = Field(
        default=None, description="the pipeline's settings (default: every default)"
    )
    chunk_options: dict[str, Any] = Field(
        default_factory=dict, description="keyword arguments of chunk_text_agentic"
    )
    flat_metadata: bool = Field(
        default=False, description="scalar metadata values only (lists and dicts as JSON text)"
    )

    def _parse_nodes(
        self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any
    ) -> list[BaseNode]:
        out: list[BaseNode] = []
        options, run = adapter_options(self.options, self.chunk_options)
        for node in nodes:
            text = node.get_content(metadata_mode=MetadataMode.NONE)
            for chunk in chunk_document(text, node.node_id, node.metadata, options, run):
                made = _node(chunk, flat=self.flat_metadata)
                made.relationships = {NodeRelationship.SOURCE: node.as_related_node_info()}
                out.append(made)
        return out

    def _postprocess_parsed_nodes(
        self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]
    ) -> list[BaseNode]:
        """LlamaIndex's own (PREVIOUS / NEXT in our output order), then our offsets and
        metadata back: it would put the first place ``MergedContent`` occurs verbatim
        (another occurrence, or none for a reworded chunk) and the document's metadata
        again (unflattened), where the record already says both."""
        ours = {
            n.node_id: (n.start_char_idx, n.end_char_idx, dict(n.metadata))
            for n in nodes
            if isinstance(n, TextNode)
        }
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node in nodes:
            if isinstance(node, TextNode) and node.node_id in ours:
                node.start_char_idx, node.end_char_idx, node.metadata = ours[node.node_id]
        return nodes


AgenticChunker = AgenticNodeParser
"""The same parser under the name the LangChain adapter uses."""


def load_nodes(path: Path | str, *, flat_metadata: bool = True) -> list[TextNode]:
    """The TextNodes of a finished output, in file order, without any model call: the JSONL
    or Parquet ``corpus`` writes, or the JSON ``chunk`` writes (``read_chunks``: InputError
    for another file or a record that does not hold). ``flat_metadata`` (the default): the
    metadata a vector store takes as it is (see the module); False: the record's lists."""
    nodes = []
    for chunk in read_chunks(path):
        node = _node(chunk, flat=flat_metadata)
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(
            node_id=chunk.document_id, node_type=ObjectType.DOCUMENT
        )
        for relation, neighbour in (
            (NodeRelationship.PREVIOUS, chunk.previous_chunk_id),
            (NodeRelationship.NEXT, chunk.next_chunk_id),
        ):
            if neighbour is not None:
                node.relationships[relation] = RelatedNodeInfo(
                    node_id=neighbour, node_type=ObjectType.TEXT
                )
        nodes.append(node)
    return nodes


def _node(chunk: AgenticChunk, *, flat: bool) -> TextNode:
    start, end = char_offsets(chunk) or (None, None)
    return TextNode(
        id_=chunk.chunk_id,
        text=chunk.merged_content,
        metadata=chunk_metadata(chunk, flat=flat),
        excluded_embed_metadata_keys=list(HIDDEN_KEYS),
        excluded_llm_metadata_keys=list(HIDDEN_KEYS),
        start_char_idx=start,
        end_char_idx=end,
    )
