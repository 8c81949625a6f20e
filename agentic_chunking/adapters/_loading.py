"""Finished output read back without a model call, and its metadata in the shapes stores take.

The core ``load_documents`` (LangChain) and ``load_nodes`` (LlamaIndex) share, and the
metadata rules the pipeline-wrapping adapters use too:

- ``read_chunks(path)``: the chunks of a finished output, in file order: the JSONL or
  Parquet ``corpus`` writes (through the corpus layer's reader, ``read_records``) or the
  JSON ``chunk`` writes. Every record goes through ``AgenticChunk.from_dict``, so a record
  whose stored figures disagree with its propositions is refused, not loaded.
- ``chunk_metadata(chunk, flat=...)``: an output's metadata: the record's fields but
  ``MergedContent`` (``record_metadata``) plus ``start_index`` / ``end_index``, the first
  and last character of the chunk's provenance (``Spans``) in its document. With ``flat``
  every value is a scalar (``flatten_metadata``), what a vector store accepts.
- ``HIDDEN_KEYS``: the record's fields that are bookkeeping or provenance, kept in the
  metadata but left out of what is embedded and what an LLM is shown.
- ``citations(metadata)``: each proposition with its spans, read back from either form.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._models import AgenticChunk, AgenticResponse, Span
from .._shown import quote
from ..corpus import OUTPUT_SUFFIXES, read_records
from ._documents import PROVENANCE_KEYS, record_metadata

RESPONSE_SUFFIX = ".json"
LOADABLE_SUFFIXES = (*OUTPUT_SUFFIXES, RESPONSE_SUFFIX)
"""What ``read_chunks`` reads: ``corpus``'s JSONL or Parquet, ``chunk``'s JSON."""

OFFSET_KEYS = ("start_index", "end_index")
"""Metadata keys of a chunk's first and last character in its document (LangChain's
``start_index`` convention, as ``add_start_index=True`` writes it; ``end_index`` after)."""

BOOKKEEPING_KEYS = (
    "ChunkId",
    "PropositionCount",
    "CharacterCount",
    "TokenEstimate",
    "Part",
    "PartCount",
    *OFFSET_KEYS,
)

HIDDEN_KEYS = (*PROVENANCE_KEYS, *BOOKKEEPING_KEYS)
"""Metadata keys kept in an output's metadata but never embedded nor shown to an LLM
(LlamaIndex's ``excluded_embed_metadata_keys`` / ``excluded_llm_metadata_keys``): every
record field but ``DocumentId`` and ``ThematicCategory``, and the offsets. The document's
own metadata (``source_path``, a title, ...) stays visible."""

Scalar = str | int | float | bool
"""A metadata value every vector store takes (Chroma, LangChain's
``filter_complex_metadata``, LanceDB columns)."""


def read_chunks(path: Path | str) -> list[AgenticChunk]:
    """Every chunk of the finished output ``path``, in file order; no model call.

    ``.jsonl`` / ``.ndjson`` / ``.parquet``: one record a line or row, as ``corpus``
    writes; ``.json``: the response ``chunk`` writes (a failed run's is refused). Raises
    InputError naming the file (and the record) for a missing file, another suffix, a
    line that is not JSON, or a record ``AgenticChunk.from_dict`` refuses.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in LOADABLE_SUFFIXES:
        raise InputError(
            f"{path}: not a finished output: give the JSONL or Parquet 'corpus' writes "
            f"({', '.join(OUTPUT_SUFFIXES)}) or the JSON 'chunk' writes (.json)"
        )
    if not path.is_file():
        raise InputError(f"{path}: no such file; give the output 'corpus' or 'chunk' wrote")
    if suffix == RESPONSE_SUFFIX:
        return list(_response_chunks(path))
    records = _records(path)
    chunks = []
    for number, record in enumerate(records, start=1):
        place = f"{path}: {'row' if suffix == '.parquet' else 'record'} {number}"
        if not isinstance(record, Mapping):
            raise InputError(
                f"{place} is a {type(record).__name__}, not a chunk record (a JSON object); "
                "give the output 'corpus' writes"
            )
        chunks.append(_chunk(record, place))
    return chunks


def _records(path: Path) -> list[Any]:
    try:
        return read_records(path)
    except InputError:
        raise  # the reader's own line: the file, the line and the way out
    except ImportError as missing:
        raise InputError(
            f"{path}: reading Parquet needs pyarrow ({missing}); install it with "
            "pip install 'agentic-chunking[corpus]', or give the JSONL output"
        ) from None
    except UnicodeDecodeError as error:
        raise InputError(
            f"{path}: not UTF-8 text ({error.reason} at byte {error.start}); give the JSONL "
            "'corpus' writes"
        ) from None
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid: a ValueError
        raise InputError(f"{path}: cannot be read as {path.suffix} ({error})") from None


def _response_chunks(path: Path) -> tuple[AgenticChunk, ...]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{path}: not JSON ({error}); give the JSON 'chunk' writes") from None
    if not isinstance(data, dict) or not isinstance(data.get("Chunks"), list):
        raise InputError(
            f"{path}: not a chunked output: expected a JSON object with a 'Chunks' list "
            "(the JSON 'chunk' writes)"
        )
    try:
        response = AgenticResponse.from_dict(data)
    except InputError as error:
        raise InputError(f"{path}: {error}") from None
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise InputError(
            f"{path}: a field has the wrong type ({error}); expected the JSON 'chunk' writes"
        ) from None
    if not response.is_success:
        raise InputError(
            f"{path}: a failed run's output (IsSuccess false: {response.error_detail}); it has "
            "no chunks to load: rerun 'chunk'"
        )
    return response.chunks


def _chunk(record: Mapping[str, Any], place: str) -> AgenticChunk:
    try:
        return AgenticChunk.from_dict(record)
    except InputError as error:
        raise InputError(f"{place}: {error}") from None
    except (TypeError, ValueError, AttributeError) as error:
        raise InputError(
            f"{place}: a field has the wrong type ({error}); give the output 'corpus' writes"
        ) from None


def char_offsets(chunk: AgenticChunk) -> tuple[int, int] | None:
    """``(start, end)``: from the first character of the chunk's provenance in its document
    to the last (the spans' envelope: other text may lie between two propositions' sources);
    None when no proposition has a span."""
    if not chunk.spans:
        return None
    return chunk.spans[0][0], chunk.spans[-1][1]


def chunk_metadata(chunk: AgenticChunk, *, flat: bool) -> dict[str, Any]:
    """An output's metadata: ``record_metadata(chunk)`` with ``start_index`` /
    ``end_index`` (``char_offsets``) when known, a record field or offset winning over a
    carried metadata key of the same name. ``flat``: through ``flatten_metadata``."""
    metadata = record_metadata(chunk)
    for key in OFFSET_KEYS:
        metadata.pop(key, None)  # a carried input chunk's own offsets are not this chunk's
    offsets = char_offsets(chunk)
    if offsets is not None:
        metadata.update(zip(OFFSET_KEYS, offsets, strict=True))
    return flatten_metadata(metadata) if flat else metadata


def flatten_metadata(metadata: Mapping[str, Any]) -> dict[str, Scalar]:
    """``metadata`` with every value a scalar: a string, number or boolean is kept, None is
    left out (Chroma and ``filter_complex_metadata`` refuse it; a missing key reads as
    None), and any other value (a list, a dict: spans, ids, propositions, nested document
    metadata) becomes its JSON text (``json.loads`` gives it back). Keys become strings."""
    flat: dict[str, Scalar] = {}
    for key, value in metadata.items():
        if value is None:
            continue
        if isinstance(value, str | int | float | bool):
            flat[str(key)] = value
        else:
            flat[str(key)] = json.dumps(value, ensure_ascii=False, default=str)
    return flat


@dataclass(frozen=True, slots=True)
class Citation:
    """One proposition of an output and where its document states it: ``text[start:end]``
    of the document ``document_id`` for each ``(start, end)`` in ``spans`` (none when no
    source sentence aligned or the input had no offsets)."""

    document_id: str
    proposition: str
    spans: tuple[Span, ...]


def citations(metadata: Mapping[str, Any]) -> list[Citation]:
    """The citations of an output, one per proposition in order, read from its metadata in
    either form (``flat`` or not: a field as JSON text or as lists). InputError when the
    metadata lacks ``DocumentId`` or ``Propositions`` or holds them in another shape."""
    try:
        document_id = metadata["DocumentId"]
        propositions = _field(metadata, "Propositions")
    except KeyError as missing:
        raise InputError(
            f"the metadata has no {missing.args[0]!r}: not an output of agentic_chunking's "
            "loaders or adapters (its keys: "
            f"{quote(', '.join(sorted(map(str, metadata))))})"
        ) from None
    spans = _field(metadata, "PropositionSpans") if "PropositionSpans" in metadata else []
    if not spans:
        spans = [[] for _ in propositions]
    if (
        not isinstance(document_id, str)
        or not isinstance(propositions, list)
        or not isinstance(spans, list)
        or len(spans) != len(propositions)
    ):
        raise InputError(
            "the metadata's DocumentId, Propositions and PropositionSpans are not a string "
            "and two lists of one entry per proposition"
        )
    try:
        return [
            Citation(document_id, str(text), tuple((int(a), int(b)) for a, b in where))
            for text, where in zip(propositions, spans, strict=True)
        ]
    except (TypeError, ValueError):
        raise InputError(
            "the metadata's PropositionSpans are not one list of [start, end] pairs a proposition"
        ) from None


def _field(metadata: Mapping[str, Any], key: str) -> Any:
    value = metadata[key]
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            raise InputError(f"the metadata's {key} is text but not JSON: {quote(value)}") from None
    return value
