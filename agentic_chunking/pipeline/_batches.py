"""Step 1 of the live pipeline: plan the extraction batches of a list of input chunks.

Small input chunks are packed: each input chunk is pre-chunked on its own into pieces
within the limit (``pre_chunk_for_extraction``), and consecutive pieces, of one input chunk
or of several, share a batch while the batch stays within the limit. When the next piece
does not fit and the batch is less than ``FILL`` full, the piece is cut at a sentence
boundary and its first sentences fill the batch (the rest starts the next one), so a batch
is never left mostly empty by a chunk of about the limit's size. A batch therefore holds
one or more :class:`Segment` (a piece and the id of its input chunk), joined by a blank
line, as a paragraph break inside one document is sent. The number of batches is
close to the floor ``ceil(input tokens / limit)`` plus one per input chunk larger than the
limit (``python benchmarks/bench_packing.py``). Which input chunk a proposition of a
packed batch came from is decided after extraction, by sentence alignment
(``_provenance``); the reply format does not change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import InputError
from .._models import AgenticChunkInput
from .._text import sentence_spans
from ._prechunk import (
    CHARS_PER_TOKEN,
    DEFAULT_MAX_TOKENS_PER_BATCH,
    pre_chunk_for_extraction,
)

SEGMENT_JOINER = "\n\n"
"""What separates two segments of one batch: a paragraph break."""
FILL = 0.9
"""A batch at least this full (of the limit's characters) is closed when the next piece
does not fit; a batch less full takes the next piece's first sentences that fit."""


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of one input chunk's text (the whole chunk when it fits the limit).

    ``skip``: how many non-whitespace characters of the input chunk's text come before the
    piece. Pre-chunking changes only whitespace (line ends, the space between sentences),
    so the piece's ``k``-th non-whitespace character is the chunk's ``skip + k``-th: what
    maps a place in the text the model was sent back to the chunk's own text
    (``_provenance``).
    """

    chunk_id: str
    text: str
    skip: int = 0


@dataclass(frozen=True, slots=True)
class Batch:
    """One extraction batch: its 0-based ``index`` and its segments, in input order.

    ``text`` (what is sent) is the segments' texts joined by a blank line; ``chunk_ids``
    the distinct input chunk ids of the segments, in order. ``number`` (``index + 1``) is
    what messages and CallUsage.batch show.
    """

    index: int
    segments: tuple[Segment, ...]

    @property
    def text(self) -> str:
        return SEGMENT_JOINER.join(s.text for s in self.segments)

    @property
    def chunk_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.chunk_id for s in self.segments))

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def label(self) -> str:
        """``batch 2 (chunk A)``, ``batch 2 (chunks A, B)``, or, for four or more,
        ``batch 2 (chunks A .. F, 6 chunks)``."""
        ids = self.chunk_ids
        if len(ids) == 1:
            return f"batch {self.number} (chunk {ids[0]})"
        if len(ids) <= 3:
            return f"batch {self.number} (chunks {', '.join(ids)})"
        return f"batch {self.number} (chunks {ids[0]} .. {ids[-1]}, {len(ids)} chunks)"


def coerce_inputs(
    inputs: Sequence[AgenticChunkInput | Mapping[str, Any]],
) -> list[AgenticChunkInput]:
    """Return the inputs as AgenticChunkInput; raise InputError on a bad item or a repeated id."""
    if isinstance(inputs, str | bytes) or not isinstance(inputs, Sequence):
        raise InputError(
            f"inputs must be a list of input chunks ({{chunk_id, text}} or AgenticChunkInput), "
            f"got {type(inputs).__name__}; wrap a single text as "
            "[AgenticChunkInput('C01', text)]"
        )
    chunks: list[AgenticChunkInput] = []
    seen: set[str] = set()
    for position, item in enumerate(inputs, start=1):
        if isinstance(item, AgenticChunkInput):
            chunk = item
        elif isinstance(item, Mapping):
            chunk = AgenticChunkInput.from_dict(item)
        else:
            raise InputError(
                f"input {position} is a {type(item).__name__}; expected an AgenticChunkInput "
                "or a mapping with chunk_id and text"
            )
        if chunk.chunk_id in seen:
            raise InputError(
                f"input chunk id {chunk.chunk_id!r} appears twice; give every input chunk a "
                "distinct chunk_id (provenance is recorded by id)"
            )
        seen.add(chunk.chunk_id)
        chunks.append(chunk)
    return chunks


def plan_batches(
    inputs: Sequence[AgenticChunkInput | Mapping[str, Any]],
    max_tokens_per_batch: int = DEFAULT_MAX_TOKENS_PER_BATCH,
) -> list[Batch]:
    """Return the extraction batches, in input order, small input chunks packed together.

    Guarantees: every batch's text is within the limit (``estimate_tokens(batch.text) <=
    max_tokens_per_batch``; a limit of 0 or less means the default); the segments of all
    batches, in order, are exactly the pieces ``pre_chunk_for_extraction`` gives for each
    input chunk, in input order, a piece cut at a sentence boundary only to fill a batch
    less than ``FILL`` full (no non-whitespace character lost or reordered); empty or blank
    chunks give no segment; a batch is closed only when the next piece (or its first
    sentence) would not fit. This is the one
    planning function: ``--dry-run`` (``_plan.plan_run``) and the run use it alike.
    """
    limit = max_tokens_per_batch if max_tokens_per_batch > 0 else DEFAULT_MAX_TOKENS_PER_BATCH
    max_chars = limit * CHARS_PER_TOKEN
    batches: list[Batch] = []
    current: list[Segment] = []
    size = 0
    for chunk in coerce_inputs(inputs):
        pieces = pre_chunk_for_extraction(chunk.text, limit)
        skip = 0  # non-whitespace characters of the chunk in its earlier segments
        while pieces:
            piece = pieces.pop(0)
            room = max_chars - size - (len(SEGMENT_JOINER) if current else 0)
            if current and len(piece) > room:
                head, tail = _split_to_fit(piece, room) if size < FILL * max_chars else ("", "")
                if head:
                    current.append(Segment(chunk_id=chunk.chunk_id, text=head, skip=skip))
                    skip += visible_length(head)
                    pieces.insert(0, tail)
                else:
                    pieces.insert(0, piece)
                batches.append(Batch(index=len(batches), segments=tuple(current)))
                current, size = [], 0
                continue
            size += (len(SEGMENT_JOINER) if current else 0) + len(piece)
            current.append(Segment(chunk_id=chunk.chunk_id, text=piece, skip=skip))
            skip += visible_length(piece)
    if current:
        batches.append(Batch(index=len(batches), segments=tuple(current)))
    return batches


def visible_length(text: str) -> int:
    """The number of non-whitespace characters of ``text``."""
    return len(text) - sum(c.isspace() for c in text)


def _split_to_fit(piece: str, room: int) -> tuple[str, str]:
    """``(head, tail)``: the longest run of ``piece``'s first whole sentences that fits in
    ``room`` characters, and the rest; ``("", piece)`` when not even one sentence fits."""
    end = 0
    for start, stop in sentence_spans(piece):
        if len(piece[:stop].rstrip()) > room:
            break
        if piece[start:stop].strip():
            end = stop
    head, tail = piece[:end].strip(), piece[end:].strip()
    return (head, tail) if head and tail else ("", piece)
