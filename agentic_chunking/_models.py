"""Typed records of the output contract (seed 002), in snake_case, with the seed's JSON names.

``to_dict()`` writes exactly the seed's field names (ChunkId, MergedContent, ...), plus
additions of ours: ``Usage`` on a response; on a chunk ``SourceChunkIds`` and the record of
issue 29 (``PropositionChunkIds``, ``PropositionSpans``, ``Spans``, ``PreviousChunkId``,
``NextChunkId``, ``Part``, ``PartCount``, ``Metadata``; published as the JSON Schema
``schemas/agentic-chunk.v1.json``). ``from_dict()`` reads them back (the additions are
optional, so older files read); it recomputes every derived field and refuses a dict whose
stored figures disagree with its propositions, so a tampered or hand-edited file is noticed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ._errors import InputError
from ._schema import chunk_name, chunk_problem, response_problem
from ._warning import PipelineWarning

UNKNOWN_DOCUMENT_ID = "DOC-UNKNOWN"


def estimate_tokens(text: str) -> int:
    """Return the seed's token estimate: one token per four characters, rounded down."""
    return tokens_for_length(len(text))


def tokens_for_length(characters: int) -> int:
    """The token estimate of a text of ``characters`` characters (``estimate_tokens``)."""
    return characters // 4


def content_hash(text: str) -> str:
    """Return ``sha256-`` followed by the hex SHA-256 of ``text`` encoded as UTF-8."""
    return "sha256-" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id_for(document_id: str, seq: int) -> str:
    """Return the seed's chunk id ``{document_id}-{seq:04d}`` (``seq`` counts from 1)."""
    return f"{document_id}-{seq:04d}"


@dataclass(frozen=True, slots=True)
class AgenticChunkInput:
    """One input chunk handed from Level 4 (or any splitter) to Level 5.

    ``start`` / ``end``: where ``text`` is in its document (``document[start:end] ==
    text``), None when not known; with them every span of the output is an offset into
    the document. ``metadata``: the chunk's own metadata (e.g. Level 4's), carried to the
    output chunks its propositions go to; a read-only copy.
    """

    chunk_id: str
    text: str
    start: int | None = None
    end: int | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.metadata, MappingProxyType):
            object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))
        if self.start is not None and self.end is None:
            object.__setattr__(self, "end", self.start + len(self.text))
        if self.start is None and self.end is not None:
            object.__setattr__(self, "start", self.end - len(self.text))
        if self.start is not None and (
            self.start < 0 or self.end is None or self.end - self.start != len(self.text)
        ):
            raise InputError(
                f"input chunk {self.chunk_id!r}: start {self.start} and end {self.end} do not "
                f"hold its text of {len(self.text)} characters; give the offsets of the text "
                "in its document (document[start:end] == text), or neither"
            )

    def to_dict(self) -> dict[str, Any]:
        """``ChunkId`` and ``Text``, then ``Start``/``End`` and ``Metadata`` when known."""
        data: dict[str, Any] = {"ChunkId": self.chunk_id, "Text": self.text}
        if self.start is not None:
            data.update(Start=self.start, End=self.end)
        if self.metadata:
            data["Metadata"] = dict(self.metadata)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgenticChunkInput:
        """Accept the seed's names (ChunkId, Text, Start, End, Metadata) or snake_case
        (chunk_id, text, start, end, metadata); other keys (a splitter's index) are ignored."""
        chunk_id = data.get("ChunkId", data.get("chunk_id"))
        text = data.get("Text", data.get("text"))
        if chunk_id is None or (isinstance(chunk_id, str) and not chunk_id.strip()):
            raise InputError(
                f"input chunk {dict(data)!r} has no chunk_id: give each chunk a non-empty "
                "'chunk_id' (or 'ChunkId') string"
            )
        if not isinstance(chunk_id, str):
            raise InputError(
                f"input chunk chunk_id {chunk_id!r} is a {type(chunk_id).__name__}, not a "
                'string: quote it (e.g. "chunk_id": "C01")'
            )
        if text is None:
            raise InputError(
                f"input chunk {chunk_id!r} has no text: give it a 'text' (or 'Text') string"
            )
        if not isinstance(text, str):
            raise InputError(
                f"input chunk {chunk_id!r}: text is a {type(text).__name__}, not a string; "
                "give the chunk's text as one string"
            )
        offsets = [_offset(chunk_id, data, name) for name in ("start", "end")]
        metadata = data.get("Metadata", data.get("metadata"))
        if metadata is None:
            metadata = {}
        if not isinstance(metadata, Mapping):
            raise InputError(
                f"input chunk {chunk_id!r}: metadata is a {type(metadata).__name__}, not an "
                'object; give it as {"key": value, ...} or leave it out'
            )
        return cls(
            chunk_id=chunk_id, text=text, start=offsets[0], end=offsets[1], metadata=metadata
        )


def _offset(chunk_id: str, data: Mapping[str, Any], name: str) -> int | None:
    value = data.get(name.capitalize(), data.get(name))
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            f"input chunk {chunk_id!r}: {name} is {value!r}, not a whole number; give the "
            "character offset of the chunk's text in its document, or leave it out"
        )
    return value


Span = tuple[int, int]
"""``(start, end)``: the characters ``text[start:end]`` of a document (Python str indices)."""


def merge_spans(spans: Iterable[Span]) -> tuple[Span, ...]:
    """The union of ``spans``: sorted by start, overlapping (or touching) spans joined."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return tuple(merged)


@dataclass(frozen=True, slots=True)
class AgenticChunk:
    """One thematic output chunk. Derived fields always agree with ``propositions``.

    Provenance (empty in a chunk read from a file written before it existed):
    ``proposition_chunk_ids[i]`` the input chunk ids proposition ``i`` came from;
    ``proposition_spans[i]`` the ``(start, end)`` offsets, in the document's text, of the
    source sentence(s) that state it (``()`` when none aligns or the input gave no
    offsets); ``spans`` their union (derived). ``previous_chunk_id`` / ``next_chunk_id``:
    the neighbours in output order. ``part`` / ``part_count``: set when a theme above the
    size limit was split into consecutive parts. ``metadata``: the document's metadata
    overlaid by that of the input chunks the propositions came from (read-only).
    """

    chunk_id: str
    document_id: str
    thematic_category: str
    propositions: tuple[str, ...]
    merged_content: str
    proposition_count: int
    character_count: int
    token_estimate: int
    hash: str
    source_chunk_ids: tuple[str, ...] = ()
    proposition_chunk_ids: tuple[tuple[str, ...], ...] = ()
    proposition_spans: tuple[tuple[Span, ...], ...] = ()
    spans: tuple[Span, ...] = ()
    previous_chunk_id: str | None = None
    next_chunk_id: str | None = None
    part: int | None = None
    part_count: int | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.metadata, MappingProxyType):
            object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    @classmethod
    def from_propositions(
        cls,
        *,
        document_id: str,
        seq: int,
        thematic_category: str,
        propositions: Sequence[str],
        source_chunk_ids: Sequence[str] = (),
        proposition_chunk_ids: Sequence[Sequence[str]] = (),
        proposition_spans: Sequence[Sequence[Span]] = (),
        part: int | None = None,
        part_count: int | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> AgenticChunk:
        """Build a chunk, computing MergedContent (joined by one space), its figures and
        ``spans``. ``proposition_chunk_ids`` / ``proposition_spans`` are empty or one entry
        per proposition (ValueError otherwise)."""
        for name, parallel in (
            ("proposition_chunk_ids", proposition_chunk_ids),
            ("proposition_spans", proposition_spans),
        ):
            if parallel and len(parallel) != len(propositions):
                raise ValueError(
                    f"{name} has {len(parallel)} entries for {len(propositions)} propositions"
                )
        merged = " ".join(propositions)
        prop_spans = tuple(tuple((int(a), int(b)) for a, b in s) for s in proposition_spans)
        return cls(
            chunk_id=chunk_id_for(document_id, seq),
            document_id=document_id,
            thematic_category=thematic_category,
            propositions=tuple(propositions),
            merged_content=merged,
            proposition_count=len(propositions),
            character_count=len(merged),
            token_estimate=estimate_tokens(merged),
            hash=content_hash(merged),
            source_chunk_ids=tuple(source_chunk_ids),
            proposition_chunk_ids=tuple(tuple(ids) for ids in proposition_chunk_ids),
            proposition_spans=prop_spans,
            spans=merge_spans(s for spans in prop_spans for s in spans),
            part=part,
            part_count=part_count,
            metadata=MappingProxyType(dict(metadata or {})),
        )

    def to_dict(self) -> dict[str, Any]:
        """The record (RECORD.md). A chunk without provenance (read from a file written
        before it, or built without it) writes the former fields only, so such a file
        reads and writes back unchanged; the pipeline's chunks always have it."""
        record = {
            "ChunkId": self.chunk_id,
            "DocumentId": self.document_id,
            "ThematicCategory": self.thematic_category,
            "Propositions": list(self.propositions),
            "MergedContent": self.merged_content,
            "PropositionCount": self.proposition_count,
            "CharacterCount": self.character_count,
            "TokenEstimate": self.token_estimate,
            "Hash": self.hash,
            "SourceChunkIds": list(self.source_chunk_ids),
        }
        if not self.proposition_chunk_ids:
            return record
        return {
            **record,
            "PropositionChunkIds": [list(ids) for ids in self.proposition_chunk_ids],
            "PropositionSpans": [[list(s) for s in spans] for spans in self.proposition_spans],
            "Spans": [list(s) for s in self.spans],
            "PreviousChunkId": self.previous_chunk_id,
            "NextChunkId": self.next_chunk_id,
            "Part": self.part,
            "PartCount": self.part_count,
            "Metadata": dict(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgenticChunk:
        """Read a chunk written by ``to_dict`` (or by the seed's library).

        Validated through the published schema's record first (``_schema.chunk_problem``,
        as every reader of a chunk record): InputError, with the line every reader gives,
        when a field it needs is missing or a field has another type than the schema's
        (``DocumentId: 7`` is refused, not made a string); then when a stored figure
        disagrees with the propositions (MergedContent, counts, Hash, Spans). The fields
        added for provenance, parts and metadata are optional (a file written before them
        still reads).
        """
        problem = chunk_problem(data)
        if problem is not None:
            raise InputError(f"chunk {chunk_name(data)}: {problem}")
        chunk_id: str = data["ChunkId"]
        document_id: str = data["DocumentId"]
        category: str = data["ThematicCategory"]
        propositions: list[str] = list(data["Propositions"])
        metadata = data.get("Metadata") or {}
        try:
            if not isinstance(metadata, Mapping):
                raise ValueError(f"Metadata is a {type(metadata).__name__}, not an object")
            rebuilt = cls.from_propositions(
                document_id=document_id,
                seq=1,
                thematic_category=category,
                propositions=propositions,
                source_chunk_ids=data.get("SourceChunkIds") or [],
                proposition_chunk_ids=data.get("PropositionChunkIds") or [],
                proposition_spans=[
                    [_read_span(s) for s in spans] for spans in data.get("PropositionSpans") or []
                ],
                part=_optional_int(data.get("Part")),
                part_count=_optional_int(data.get("PartCount")),
                metadata=metadata,
            )
        except (TypeError, ValueError) as error:
            raise InputError(f"chunk {chunk_id!r}: {error}") from None
        _check_stored_figures(chunk_id, data, rebuilt)
        return replace(
            rebuilt,
            chunk_id=chunk_id,
            previous_chunk_id=_optional_str(data.get("PreviousChunkId")),
            next_chunk_id=_optional_str(data.get("NextChunkId")),
        )


def _check_stored_figures(chunk_id: str, data: Mapping[str, Any], rebuilt: AgenticChunk) -> None:
    """InputError when a derived field ``data`` states (MergedContent, the counts, Hash,
    Spans) disagrees with ``rebuilt``, the chunk recomputed from its propositions; a field
    ``data`` leaves out is not checked (an older file)."""
    stored_spans = data.get("Spans")
    for name, expected, stored in (
        ("MergedContent", rebuilt.merged_content, data.get("MergedContent")),
        ("PropositionCount", rebuilt.proposition_count, data.get("PropositionCount")),
        ("CharacterCount", rebuilt.character_count, data.get("CharacterCount")),
        ("TokenEstimate", rebuilt.token_estimate, data.get("TokenEstimate")),
        ("Hash", rebuilt.hash, data.get("Hash")),
        (
            "Spans",
            [list(s) for s in rebuilt.spans],
            None if stored_spans is None else [list(s) for s in stored_spans],
        ),
    ):
        if name in data and stored != expected:
            raise InputError(
                f"chunk {chunk_id!r}: {name} is {data[name]!r} but its propositions give "
                f"{expected!r}; the dict was edited or built with another rule"
            )


def _read_span(value: Any) -> Span:
    if (
        not isinstance(value, Sequence)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        or not 0 <= value[0] <= value[1]
    ):
        raise ValueError(f"a span is {value!r}; expected [start, end] with 0 <= start <= end")
    return int(value[0]), int(value[1])


def _optional_int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"a part number is {value!r}; expected a whole number of 1 or more")
    return value


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class CallUsage:
    """What one model call cost and how it ended."""

    stage: str  # "extraction" or "grouping"
    model: str
    input_tokens: int
    output_tokens: int
    stop_reason: str | None
    latency_s: float
    batch: int | None = None
    cached: bool = False
    """Served from a resumed run's reply cache: paid for by an earlier run, not this one."""
    cache_write_tokens: int = 0
    """Input tokens written to the provider's prompt cache (not in ``input_tokens``)."""
    cache_read_tokens: int = 0
    """Input tokens read from the provider's prompt cache (not in ``input_tokens``)."""
    batched: bool = False
    """Answered through the provider's batch API (Message Batches, OpenAI's Batch API),
    billed at the batch price (``client._prices.BATCH_DISCOUNT``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "Stage": self.stage,
            "Batch": self.batch,
            "Model": self.model,
            "InputTokens": self.input_tokens,
            "OutputTokens": self.output_tokens,
            "StopReason": self.stop_reason,
            "LatencySeconds": round(self.latency_s, 6),
            **({"Cached": True} if self.cached else {}),
            **({"CacheWriteTokens": self.cache_write_tokens} if self.cache_write_tokens else {}),
            **({"CacheReadTokens": self.cache_read_tokens} if self.cache_read_tokens else {}),
            **({"Batched": True} if self.batched else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CallUsage:
        return cls(
            stage=str(data["Stage"]),
            batch=data.get("Batch"),
            model=str(data["Model"]),
            input_tokens=int(data["InputTokens"]),
            output_tokens=int(data["OutputTokens"]),
            stop_reason=data.get("StopReason"),
            latency_s=float(data.get("LatencySeconds", 0.0)),
            cached=bool(data.get("Cached", False)),
            cache_write_tokens=int(data.get("CacheWriteTokens", 0)),
            cache_read_tokens=int(data.get("CacheReadTokens", 0)),
            batched=bool(data.get("Batched", False)),
        )


@dataclass(frozen=True, slots=True)
class ExtractedBatch:
    """The propositions one extraction batch gave (kept on a failed response).

    ``chunk_ids``: the input chunks the batch holds (several when small chunks were
    packed into one batch). Written as ``ChunkIds``; a file's older ``ChunkId`` is read.
    """

    batch: int  # 1-based, as in messages and CallUsage.batch
    chunk_ids: tuple[str, ...]
    propositions: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "Batch": self.batch,
            "ChunkIds": list(self.chunk_ids),
            "Propositions": list(self.propositions),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExtractedBatch:
        ids = data["ChunkIds"] if "ChunkIds" in data else [data["ChunkId"]]
        return cls(
            batch=int(data["Batch"]),
            chunk_ids=tuple(str(i) for i in ids),
            propositions=tuple(str(p) for p in data.get("Propositions", [])),
        )


def _cache_totals(calls: Sequence[CallUsage]) -> dict[str, int]:
    """Prompt-cache token totals of ``calls`` for ``Usage``, only when there are any."""
    written = sum(c.cache_write_tokens for c in calls)
    read = sum(c.cache_read_tokens for c in calls)
    return {"CacheWriteTokens": written, "CacheReadTokens": read} if written or read else {}


@dataclass(frozen=True, slots=True)
class AgenticResponse:
    """The pipeline's answer. Totals are derived from ``chunks``; check ``is_success`` first.

    A failed response has no chunks and a non-empty ``error_detail``. ``warnings`` lists
    what was noticed but did not fail the run (a skipped reply entry, an empty input chunk)
    as :class:`PipelineWarning` records; a plain string given is kept as kind ``other``
    (or the kind its old wording names).
    On a failure, ``extracted`` keeps every batch's propositions extracted before it
    (nothing paid for is lost) and ``failed_batches`` the 1-based numbers of the extraction
    batches that failed (empty when the grouping failed); both are written to the dict
    form (``Extracted``, ``FailedBatches``) only when non-empty.
    """

    chunks: tuple[AgenticChunk, ...] = ()
    is_success: bool = True
    error_detail: str = ""
    calls: tuple[CallUsage, ...] = field(default=())
    warnings: tuple[PipelineWarning, ...] = ()
    extracted: tuple[ExtractedBatch, ...] = ()
    failed_batches: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if any(not isinstance(w, PipelineWarning) for w in self.warnings):
            records = tuple(PipelineWarning.of(w) for w in self.warnings)
            object.__setattr__(self, "warnings", records)

    @classmethod
    def failure(
        cls,
        error_detail: str,
        *,
        calls: Sequence[CallUsage] = (),
        warnings: Sequence[PipelineWarning | str] = (),
        extracted: Sequence[ExtractedBatch] = (),
        failed_batches: Sequence[int] = (),
    ) -> AgenticResponse:
        """A failed response: no chunks, ``is_success`` false, the reason in ``error_detail``."""
        if not error_detail:
            raise ValueError("a failed response needs a non-empty error_detail")
        return cls(
            chunks=(),
            is_success=False,
            error_detail=error_detail,
            calls=tuple(calls),
            warnings=tuple(PipelineWarning.of(w) for w in warnings),
            extracted=tuple(extracted),
            failed_batches=tuple(failed_batches),
        )

    @property
    def total_chunks(self) -> int:
        return len(self.chunks)

    @property
    def total_propositions(self) -> int:
        return sum(c.proposition_count for c in self.chunks)

    @property
    def total_token_estimate(self) -> int:
        return sum(c.token_estimate for c in self.chunks)

    @property
    def input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.calls)

    def to_dict(self) -> dict[str, Any]:
        partial: dict[str, Any] = {}
        if self.extracted:
            partial["Extracted"] = [e.to_dict() for e in self.extracted]
        if self.failed_batches:
            partial["FailedBatches"] = list(self.failed_batches)
        return {
            "Chunks": [c.to_dict() for c in self.chunks],
            "TotalChunks": self.total_chunks,
            "TotalPropositions": self.total_propositions,
            "TotalTokenEstimate": self.total_token_estimate,
            "IsSuccess": self.is_success,
            "ErrorDetail": self.error_detail,
            "Warnings": [w.to_dict() for w in self.warnings],
            "Usage": {
                "InputTokens": self.input_tokens,
                "OutputTokens": self.output_tokens,
                **_cache_totals(self.calls),
                "Calls": [c.to_dict() for c in self.calls],
            },
            **partial,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgenticResponse:
        """Read a response written by ``to_dict``, validated through the published schema's
        record first (``_schema.response_problem``, as every reader of a response): InputError
        with the line every reader gives (a chunk's as ``AgenticChunk.from_dict`` gives it);
        then when a stored total disagrees with the chunks. An older file's forms read
        (warnings as plain lines, a kept batch's ``ChunkId``)."""
        problem = response_problem(data, chunks=False)  # each chunk: AgenticChunk.from_dict
        if problem is not None:
            raise InputError(problem)
        chunks = tuple(AgenticChunk.from_dict(c) for c in data.get("Chunks") or ())
        usage = data.get("Usage") or {}
        response = cls(
            chunks=chunks,
            is_success=bool(data.get("IsSuccess", True)),
            error_detail=str(data.get("ErrorDetail") or ""),
            calls=tuple(CallUsage.from_dict(c) for c in usage.get("Calls", [])),
            warnings=tuple(PipelineWarning.of(w) for w in data.get("Warnings", [])),
            extracted=tuple(ExtractedBatch.from_dict(e) for e in data.get("Extracted", [])),
            failed_batches=tuple(int(b) for b in data.get("FailedBatches", [])),
        )
        for name, expected in (
            ("TotalChunks", response.total_chunks),
            ("TotalPropositions", response.total_propositions),
            ("TotalTokenEstimate", response.total_token_estimate),
        ):
            if name in data and data[name] != expected:
                raise InputError(
                    f"response: {name} is {data[name]!r} but its chunks give {expected!r}"
                )
        return response
