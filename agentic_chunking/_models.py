"""Typed records of the output contract (seed 002), in snake_case, with the seed's JSON names.

``to_dict()`` writes exactly the seed's field names (ChunkId, MergedContent, ...), plus two
additions of ours: ``SourceChunkIds`` on a chunk and ``Usage`` on a response.
``from_dict()`` reads them back; it recomputes every derived field and refuses a dict whose
stored figures disagree with its propositions, so a tampered or hand-edited file is noticed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ._errors import InputError
from ._warning import PipelineWarning

UNKNOWN_DOCUMENT_ID = "DOC-UNKNOWN"


def estimate_tokens(text: str) -> int:
    """Return the seed's token estimate: one token per four characters, rounded down."""
    return len(text) // 4


def content_hash(text: str) -> str:
    """Return ``sha256-`` followed by the hex SHA-256 of ``text`` encoded as UTF-8."""
    return "sha256-" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id_for(document_id: str, seq: int) -> str:
    """Return the seed's chunk id ``{document_id}-{seq:04d}`` (``seq`` counts from 1)."""
    return f"{document_id}-{seq:04d}"


@dataclass(frozen=True, slots=True)
class AgenticChunkInput:
    """One input chunk handed from Level 4 (or any splitter) to Level 5."""

    chunk_id: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"ChunkId": self.chunk_id, "Text": self.text}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgenticChunkInput:
        """Accept the seed's names (ChunkId, Text) or snake_case (chunk_id, text)."""
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
        return cls(chunk_id=chunk_id, text=text)


@dataclass(frozen=True, slots=True)
class AgenticChunk:
    """One thematic output chunk. Derived fields always agree with ``propositions``."""

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

    @classmethod
    def from_propositions(
        cls,
        *,
        document_id: str,
        seq: int,
        thematic_category: str,
        propositions: Sequence[str],
        source_chunk_ids: Sequence[str] = (),
    ) -> AgenticChunk:
        """Build a chunk, computing MergedContent (joined by one space) and its figures."""
        merged = " ".join(propositions)
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
        )

    def to_dict(self) -> dict[str, Any]:
        return {
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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AgenticChunk:
        """Read a chunk written by ``to_dict`` (or by the seed's library).

        Raises InputError when a field is missing or a stored figure disagrees with the
        propositions (MergedContent, counts, Hash).
        """
        try:
            chunk_id = str(data["ChunkId"])
            document_id = str(data["DocumentId"])
            category = str(data["ThematicCategory"])
            propositions = [str(p) for p in data["Propositions"]]
        except KeyError as missing:
            raise InputError(
                f"chunk dict lacks the field {missing.args[0]!r}; expected the seed's names "
                "ChunkId, DocumentId, ThematicCategory, Propositions, MergedContent, ..."
            ) from None
        rebuilt = cls.from_propositions(
            document_id=document_id,
            seq=1,
            thematic_category=category,
            propositions=propositions,
            source_chunk_ids=[str(s) for s in data.get("SourceChunkIds", [])],
        )
        for name, expected in (
            ("MergedContent", rebuilt.merged_content),
            ("PropositionCount", rebuilt.proposition_count),
            ("CharacterCount", rebuilt.character_count),
            ("TokenEstimate", rebuilt.token_estimate),
            ("Hash", rebuilt.hash),
        ):
            if name in data and data[name] != expected:
                raise InputError(
                    f"chunk {chunk_id!r}: {name} is {data[name]!r} but its propositions give "
                    f"{expected!r}; the dict was edited or built with another rule"
                )
        return replace(rebuilt, chunk_id=chunk_id)


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
        """Read a response written by ``to_dict``; totals are recomputed and checked."""
        chunks = tuple(AgenticChunk.from_dict(c) for c in data.get("Chunks", []))
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
