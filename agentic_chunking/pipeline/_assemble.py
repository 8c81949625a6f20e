"""Step 5's output: the chunks of a checked grouping, bounded, located and linked.

Pure, no I/O. From the grouping (``[(category, 1-based numbers)]``) and the merged
propositions, ``assemble`` builds the output chunks with these guarantees:

- Size: no chunk's token estimate is above ``limit`` (``max_chunk_tokens``). A theme
  above it is cut into consecutive parts, each as full as the limit allows, each
  proposition whole and in the grouping's order; every part keeps the category and gets
  ``part`` (1-based) and ``part_count``. One proposition above the limit cannot be placed
  whole: ``oversized_propositions`` names it before any chunk is built, and the run fails.
- Provenance: ``proposition_chunk_ids`` (the input chunks each proposition came from, in
  input order) and ``proposition_spans``: its places (``Merged.places``, sentences of
  its input chunks located in the batch it was extracted from, ``_provenance``) shifted
  by each input chunk's ``start``, sorted, each once; an ``unaligned_proposition``
  warning for each proposition with no span although its inputs have offsets, one
  ``no_source_offsets`` warning when inputs of a document of several chunks have none.
  A single input chunk with text and no offsets is taken as the whole document (its
  spans are offsets into its text); a place in an input chunk without offsets, in a
  document of several, gives no span.
- Metadata: the document's, overlaid by that of the input chunks the chunk's
  propositions came from, in input order (a later chunk's value wins); nothing added.
- Order: ids ``{document_id}-{seq:04d}`` in output order, each chunk linked to its
  neighbours (``previous_chunk_id`` / ``next_chunk_id``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .._models import AgenticChunk, AgenticChunkInput, Span, estimate_tokens, tokens_for_length
from .._shown import quote
from .._warning import PipelineWarning
from . import _notes as notes
from ._partition import Merged


def oversized_propositions(merged: Sequence[Merged], limit: int) -> str | None:
    """Why some proposition cannot be placed whole within ``limit`` tokens, or None."""
    over = [(n, m) for n, m in enumerate(merged, start=1) if estimate_tokens(m.text) > limit]
    if not over:
        return None
    named = "; ".join(
        f"proposition {n} ({quote(m.text)!r}, from chunk {', '.join(m.sources)}) is about "
        f"{estimate_tokens(m.text):,} tokens"
        for n, m in over[:3]
    )
    more = f" (and {len(over) - 3} more)" if len(over) > 3 else ""
    largest = max(estimate_tokens(m.text) for _, m in over)
    return (
        f"{named}{more}, above max_chunk_tokens {limit:,}: an output chunk cannot hold it "
        f"whole and it is never cut; raise max_chunk_tokens (--max-chunk-tokens) to at "
        f"least {largest:,}"
    )


def parts_within(propositions: Sequence[str], limit: int) -> list[list[int]]:
    """Cut ``propositions`` (each within ``limit``) into consecutive runs of indices whose
    joined text (one space between) is within ``limit`` tokens; each run as long as fits."""
    parts: list[list[int]] = []
    size = 0  # characters of the last part's joined text
    for index, text in enumerate(propositions):
        if parts and tokens_for_length(size + 1 + len(text)) <= limit:
            parts[-1].append(index)
            size += 1 + len(text)
        else:
            parts.append([index])
            size = len(text)
    return parts


def assemble(
    groups: Sequence[tuple[str, Sequence[int]]],
    merged: Sequence[Merged],
    inputs: Sequence[AgenticChunkInput],
    *,
    document_id: str,
    metadata: Mapping[str, Any],
    limit: int,
) -> tuple[tuple[AgenticChunk, ...], tuple[PipelineWarning, ...]]:
    """The output chunks and the warnings of their making (see the module)."""
    by_id = {chunk.chunk_id: chunk for chunk in inputs}
    order = {chunk.chunk_id: position for position, chunk in enumerate(inputs)}
    with_text = [c for c in inputs if c.text.strip()]
    whole = len(with_text) == 1  # the one text given: offsets into it are into the document
    warnings: list[PipelineWarning] = []
    unplaced = [c.chunk_id for c in with_text if c.start is None]
    if not whole and unplaced:
        warnings.append(notes.no_source_offsets(unplaced))
    spans: dict[int, tuple[Span, ...]] = {}
    chunks: list[AgenticChunk] = []
    for category, numbers in groups:
        members = [merged[n - 1] for n in numbers]
        for n, member in zip(numbers, members, strict=True):
            located = [by_id[i] for i in sorted(member.sources, key=order.__getitem__)]
            spans[n] = _document_spans(member, by_id, whole=whole)
            if not spans[n] and all(s.start is not None or whole for s in located):
                warnings.append(notes.unaligned_proposition(member.text, member.sources))
        parts = parts_within([m.text for m in members], limit)
        first = len(chunks)
        for part_number, indices in enumerate(parts, start=1):
            chosen = [members[i] for i in indices]
            ids = [sorted(m.sources, key=order.__getitem__) for m in chosen]
            sources = sorted({s for m in chosen for s in m.sources}, key=order.__getitem__)
            chunks.append(
                AgenticChunk.from_propositions(
                    document_id=document_id,
                    seq=len(chunks) + 1,
                    thematic_category=category,
                    propositions=[m.text for m in chosen],
                    source_chunk_ids=sources,
                    proposition_chunk_ids=ids,
                    proposition_spans=[spans[numbers[i]] for i in indices],
                    part=part_number if len(parts) > 1 else None,
                    part_count=len(parts) if len(parts) > 1 else None,
                    metadata=_overlay(metadata, (by_id[s].metadata for s in sources)),
                )
            )
        if len(parts) > 1:
            tokens = estimate_tokens(" ".join(m.text for m in members))
            written = [c.chunk_id for c in chunks[first:]]
            warnings.append(notes.split_theme(category, tokens, limit, written))
    linked = tuple(
        replace(
            chunk,
            previous_chunk_id=chunks[k - 1].chunk_id if k else None,
            next_chunk_id=chunks[k + 1].chunk_id if k + 1 < len(chunks) else None,
        )
        for k, chunk in enumerate(chunks)
    )
    return linked, tuple(warnings)


def _document_spans(
    member: Merged, by_id: Mapping[str, AgenticChunkInput], *, whole: bool
) -> tuple[Span, ...]:
    """``member``'s places as offsets in the document (see the module)."""
    spans = set()
    for place in member.places:
        start = by_id[place.chunk_id].start
        if start is not None or whole:
            base = start or 0
            spans.add((base + place.start, base + place.end))
    return tuple(sorted(spans))


def _overlay(base: Mapping[str, Any], layers: Any) -> dict[str, Any]:
    combined = dict(base)
    for layer in layers:
        combined.update(layer)
    return combined
