"""Step 1 of the live pipeline: plan the extraction batches of a list of input chunks.

Batches never span two input chunks: each non-empty input chunk is pre-chunked on its own,
so every batch has exactly one input chunk id, which is the provenance of its propositions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import InputError
from .._models import AgenticChunkInput
from ._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH, pre_chunk_for_extraction


@dataclass(frozen=True, slots=True)
class Batch:
    """One extraction batch: its 0-based ``index``, the input ``chunk_id`` it comes from, its text.

    ``number`` (``index + 1``) is what messages and CallUsage.batch show.
    """

    index: int
    chunk_id: str
    text: str

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def label(self) -> str:
        return f"batch {self.number} (chunk {self.chunk_id})"


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
    """Return the extraction batches, in input order; no batch spans two input chunks.

    Each non-empty input chunk is pre-chunked on its own with ``pre_chunk_for_extraction``
    (a chunk within the limit is one batch); empty or blank chunks give no batch.
    """
    batches: list[Batch] = []
    for chunk in coerce_inputs(inputs):
        for text in pre_chunk_for_extraction(chunk.text, max_tokens_per_batch):
            batches.append(Batch(index=len(batches), chunk_id=chunk.chunk_id, text=text))
    return batches
