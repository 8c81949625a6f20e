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
    NO_SOURCE_OFFSETS,
    POSSIBLE_DUPLICATE,
    SPLIT_THEME,
    UNALIGNED_PROPOSITION,
    PipelineWarning,
)
from ..checks import REWORDED, duplicate_pairs
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


def split_theme(
    category: str, tokens: int, limit: int, chunk_ids: Sequence[str]
) -> PipelineWarning:
    """A theme above ``limit`` tokens written as consecutive parts ``chunk_ids``."""
    return PipelineWarning(
        SPLIT_THEME,
        f"theme {quote(category)!r} is about {tokens:,} tokens, above the limit of {limit:,} "
        f"(max_chunk_tokens): written as {len(chunk_ids)} parts, {chunk_ids[0]} .. "
        f"{chunk_ids[-1]}",
        {"category": category, "tokens": tokens, "limit": limit, "chunk_ids": list(chunk_ids)},
    )


def unaligned_proposition(proposition: str, chunk_ids: Sequence[str]) -> PipelineWarning:
    """A proposition no sentence of its input chunk(s) states: it has no span."""
    return PipelineWarning(
        UNALIGNED_PROPOSITION,
        f"no sentence of chunk {', '.join(chunk_ids)} states {quote(proposition)!r}: it has "
        "no source span (PropositionSpans [])",
        {"proposition": proposition, "chunk_ids": list(chunk_ids)},
    )


def no_source_offsets(chunk_ids: Sequence[str]) -> PipelineWarning:
    """Input chunks of a document of several chunks that do not say where they are in it."""
    named = ", ".join(chunk_ids[:3]) + (
        f" .. ({len(chunk_ids)} chunks)" if len(chunk_ids) > 3 else ""
    )
    return PipelineWarning(
        NO_SOURCE_OFFSETS,
        f"input chunk(s) {named} have no start offset in the document: their propositions "
        "have no source span; give each input chunk its start and end (split writes them)",
        {"chunk_ids": list(chunk_ids)},
    )
