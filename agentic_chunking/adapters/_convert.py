"""Other tools' chunk lists as our output contract, so ``check --from`` can read them.

A chunk of a plain splitter is a text, not a list of propositions: each converted chunk's
propositions are the sentences of its text (the package's sentence splitter, as the
checks read a source), so the checks judge every sentence as a statement. Read from
their JSON, no import of the tools needed:

- ``langchain``: a list of LangChain ``Document`` as ``Document.model_dump()``
  (``{"page_content", "metadata", "id", "type"}``) or as ``langchain_core.load.dumpd``
  (``{"lc": 1, "type": "constructor", "kwargs": {...}}``);
- ``chonkie``: a list of chonkie ``Chunk`` as ``Chunk.to_dict()`` (``{"text",
  "start_index", "end_index", "token_count", ...}``), or a mapping with a ``chunks`` list.

Guarantees: chunks in the given order, ids ``{document_id}-{seq:04d}``, a chunk without
any sentence skipped; ``ThematicCategory`` is "" (a plain splitter names no theme);
``Metadata`` the chunk's own metadata; when the chunk says where it starts in the
document (chonkie's ``start_index``, LangChain's ``metadata["start_index"]`` from
``add_start_index=True``) each sentence's ``[start, end)`` is in ``PropositionSpans``.
A list of another shape is an InputError naming the item and what was expected.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import InputError
from .._models import AgenticChunk, AgenticResponse, Span
from ..checks import sentence_offsets

FROM_FORMATS = ("agentic", "langchain", "chonkie")
"""What ``check --from`` reads: our contract (the default), LangChain Documents, chonkie."""


@dataclass(frozen=True, slots=True)
class PlainChunk:
    """A chunk of text from another tool: its text, where it starts (if known), metadata."""

    text: str
    start: int | None
    metadata: Mapping[str, Any]


def langchain_chunks(data: Any) -> list[PlainChunk]:
    """The chunks of a LangChain Document list (``model_dump()`` or ``dumpd`` form)."""
    chunks = []
    for position, item in enumerate(_items(data, "LangChain Document"), start=1):
        if item.get("lc") == 1 and isinstance(item.get("kwargs"), Mapping):
            item = item["kwargs"]
        text = item.get("page_content")
        metadata = item.get("metadata") or {}
        if not isinstance(text, str) or not isinstance(metadata, Mapping):
            raise InputError(
                f"item {position} is not a LangChain Document: expected page_content (a "
                "string) and metadata (an object), as Document.model_dump() or dumpd() write"
            )
        start = metadata.get("start_index")
        chunks.append(PlainChunk(text, start if _is_offset(start) else None, metadata))
    return chunks


def chonkie_chunks(data: Any) -> list[PlainChunk]:
    """The chunks of a chonkie Chunk list (``Chunk.to_dict()``; or ``{"chunks": [...]}``)."""
    if isinstance(data, Mapping) and isinstance(data.get("chunks"), list):
        data = data["chunks"]
    chunks = []
    for position, item in enumerate(_items(data, "chonkie Chunk"), start=1):
        text = item.get("text")
        start = item.get("start_index")
        if not isinstance(text, str) or not _is_offset(start):
            raise InputError(
                f"item {position} is not a chonkie Chunk: expected text (a string) and "
                "start_index (a whole number), as Chunk.to_dict() writes"
            )
        metadata = item.get("metadata")
        chunks.append(PlainChunk(text, start, metadata if isinstance(metadata, Mapping) else {}))
    return chunks


READERS: dict[str, Callable[[Any], list[PlainChunk]]] = {
    "langchain": langchain_chunks,
    "chonkie": chonkie_chunks,
}


def response_from(chunks: Sequence[PlainChunk], document_id: str) -> AgenticResponse:
    """The chunks as an output whose propositions are each chunk's sentences."""
    records: list[AgenticChunk] = []
    for chunk in chunks:
        offsets = sentence_offsets(chunk.text)
        if not offsets:
            continue
        sentences = [chunk.text[a:b] for a, b in offsets]
        base = chunk.start
        spans: list[list[Span]] = [
            [] if base is None else [(base + a, base + b)] for a, b in offsets
        ]
        records.append(
            AgenticChunk.from_propositions(
                document_id=document_id,
                seq=len(records) + 1,
                thematic_category="",
                propositions=sentences,
                proposition_chunk_ids=[[]] * len(sentences),
                proposition_spans=spans,
                metadata=chunk.metadata,
            )
        )
    return AgenticResponse(chunks=tuple(records))


def convert(data: Any, source_format: str, document_id: str) -> AgenticResponse:
    """``data`` (parsed JSON) of ``source_format`` (``langchain`` or ``chonkie``) as an
    output; InputError for an unknown format or a list of another shape."""
    reader = READERS.get(source_format)
    if reader is None:
        raise InputError(
            f"unknown format {source_format!r}; expected one of {', '.join(FROM_FORMATS)}"
        )
    chunks = reader(data)
    if not chunks:
        raise InputError(f"the {source_format} chunk list is empty; nothing to check")
    return response_from(chunks, document_id)


def _items(data: Any, what: str) -> list[Mapping[str, Any]]:
    if not isinstance(data, list):
        raise InputError(f"expected a JSON list of {what} objects, found {_json_kind(data)}")
    for number, item in enumerate(data, 1):
        if not isinstance(item, Mapping):
            raise InputError(
                f"expected a JSON list of {what} objects, but item {number} is {_json_kind(item)}"
            )
    return data


def _json_kind(value: Any) -> str:
    """What a JSON value is, in words (``an object``, ``a number``)."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true/false"
    if value is None:
        return "null"
    return "a number"


def _is_offset(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
