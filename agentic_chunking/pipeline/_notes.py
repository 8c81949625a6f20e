"""The pipeline's warnings as records (:class:`PipelineWarning`): one builder per kind.

Each builder gives the kind, the readable message and the facts the message is made of,
so a reader (the report, a script) uses the kind and the data, never the wording. A
message quotes propositions through ``quote`` (one line, capped); the data keeps them whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._shown import quote
from .._warning import (
    DUPLICATE_MERGED,
    EMPTY_INPUT,
    NO_PROPOSITION,
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
        {"batch": batch.number, "chunk_id": batch.chunk_id},
    )


def duplicate_merged(kept: Merged, dropped: str, chunk_id: str) -> PipelineWarning:
    """A copy merged into an earlier proposition (certainly the same fact)."""
    how = "repeated" if normalise_space(kept.text) == normalise_space(dropped) else "certain"
    wording = "repeated" if how == "repeated" else "same words in another order"
    return PipelineWarning(
        DUPLICATE_MERGED,
        f"duplicate merged before grouping ({wording}): {quote(dropped)!r} from chunk {chunk_id} "
        f"kept once as {quote(kept.text)!r} (first from chunk {kept.sources[0]})",
        {
            "kept": kept.text,
            "dropped": dropped,
            "chunk_id": chunk_id,
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
