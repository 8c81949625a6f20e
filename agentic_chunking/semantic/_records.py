"""What the Level 4 splitter returns: its chunks, and the explanation of its cuts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

Span = tuple[int, int]
Mode = Literal["adaptive", "threshold", "coherence"]
CutKind = Literal["semantic", "size"]


@dataclass(frozen=True, slots=True)
class SemanticChunk:
    """One Level 4 chunk and its identity.

    ``text == source[start:end]`` always. ``body_start`` is where the part not shared with
    the previous chunk begins (``== start`` without overlap); the bodies, joined in order,
    give back the source. ``metadata`` is a read-only copy of the caller's.
    """

    index: int
    start: int
    end: int
    text: str
    document_id: str
    body_start: int
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class SplitExplanation:
    """Why the splitter cut where it did: its curve, its bar, its boundaries.

    Per segment ``i`` (``segments[i]`` are offsets into the text): ``similarities[i]``
    is the score that decides whether ``i`` starts a group (adaptive: the gap before ``i``;
    threshold: window before ``i`` against ``i``), None where there is none (segment 0,
    or the first ``W`` in threshold mode); ``depths[i]`` the gap's depth (adaptive only,
    else None). ``cutoff`` is the least depth a candidate needs (adaptive: a
    candidate then moves to the nearest paragraph break, whose own depth may be lower) or
    the threshold (coherence: the ratio, ``coherence_ratio``). ``boundaries`` are the
    segments that start a semantic group; ``chunks`` the final output, where the token
    limit may add cuts (a chunk start that is not a boundary: ``cut_kinds`` says which).
    """

    mode: Mode
    segments: tuple[Span, ...]
    similarities: tuple[float | None, ...]
    depths: tuple[float | None, ...]
    cutoff: float
    boundaries: tuple[int, ...]
    chunks: tuple[SemanticChunk, ...]

    @property
    def cut_kinds(self) -> tuple[CutKind, ...]:
        """Why each chunk after the first starts where it does, in order: ``"semantic"``
        when it starts a boundary's segment, ``"size"`` when the token limit forced the
        cut (a topic over the limit, or an oversized segment, cut to fit)."""
        starts = {self.segments[b][0] for b in self.boundaries}
        return tuple(
            "semantic" if chunk.body_start in starts else "size" for chunk in self.chunks[1:]
        )

    @property
    def size_cuts(self) -> int:
        """How many cuts the token limit forced (``cut_kinds`` ``"size"``), apart from the
        semantic ones (``len(boundaries)``)."""
        return self.cut_kinds.count("size")
