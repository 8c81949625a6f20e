"""The pipeline's warnings as records (:class:`PipelineWarning`): one builder per kind.

Each builder gives the kind, the readable message and the facts the message is made of,
so a reader (the report, a script) uses the kind and the data, never the wording. A
message quotes propositions through ``quote`` (one line, capped); the data keeps them whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._models import AgenticChunk
from .._shown import quote
from .._warning import (
    DUPLICATE_MERGED,
    EMPTY_INPUT,
    NO_PROPOSITION,
    OVERSIZED_CHUNK,
    POSSIBLE_DUPLICATE,
    PipelineWarning,
)
from ..checks._duplicates import REWORDED, duplicate_pairs
from ._batches import Batch
from ._partition import Merged, normalise_space


def empty_input(chunk_id: str) -> PipelineWarning:
    return PipelineWarning(
        EMPTY_INPUT, f"input chunk {chunk_id} is empty: it gives no batch", {"chunk_id": chunk_id}
    )


def no_proposition(batch: Batch) -> PipelineWarning:
    return PipelineWarning(
        NO_PROPOSITION,
        f"{batch.label} gave no proposition (the model answered with an empty array)",
        {"batch": batch.number, "chunk_ids": list(batch.chunk_ids)},
    )


def duplicate_merged(kept: Merged, dropped: str, chunk_ids: tuple[str, ...]) -> PipelineWarning:
    """A copy merged into an earlier proposition (certainly the same fact)."""
    chunk_id = ", ".join(chunk_ids)
    how = "repeated" if normalise_space(kept.text) == normalise_space(dropped) else "certain"
    wording = "repeated" if how == "repeated" else "same words in another order"
    return PipelineWarning(
        DUPLICATE_MERGED,
        f"duplicate merged before grouping ({wording}): {quote(dropped)!r} from chunk {chunk_id} "
        f"kept once as {quote(kept.text)!r} (first from chunk {kept.sources[0]})",
        {
            "kept": kept.text,
            "dropped": dropped,
            "chunk_ids": list(chunk_ids),
            "kept_from": kept.sources[0],
            "how": how,
        },
    )


def possible_duplicates(merged: Sequence[Merged]) -> list[PipelineWarning]:
    """The possible duplicates left after merging (reworded, or one containing another):
    both are kept, since merging on a guess could drop a fact; each pair is reported."""
    texts = [m.text for m in merged]
    warnings = []
    for first, later, relation in duplicate_pairs(texts):
        how = "may restate, reworded," if relation == REWORDED else "overlaps with"
        warnings.append(
            PipelineWarning(
                POSSIBLE_DUPLICATE,
                f"possible duplicate kept (both go to grouping): {quote(texts[later])!r} {how} "
                f"{quote(texts[first])!r}",
                {"proposition": texts[later], "original": texts[first], "relation": relation},
            )
        )
    return warnings


def oversized_chunk(chunk: AgenticChunk, limit: int) -> PipelineWarning:
    """An output chunk whose token estimate is above ``limit`` (``max_chunk_tokens``)."""
    return PipelineWarning(
        OVERSIZED_CHUNK,
        f"output chunk {chunk.chunk_id} ({chunk.thematic_category!r}) is about "
        f"{chunk.token_estimate:,} tokens, above the limit of {limit:,} (max_chunk_tokens); "
        "a retriever may cut it: chunk the document in parts or raise the limit",
        {
            "chunk_id": chunk.chunk_id,
            "category": chunk.thematic_category,
            "tokens": chunk.token_estimate,
            "limit": limit,
        },
    )
