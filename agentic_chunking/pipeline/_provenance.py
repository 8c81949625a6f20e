"""Which input chunk(s) each proposition of a packed extraction batch came from.

A batch that holds one input chunk gives every proposition that chunk's id. A packed
batch (several input chunks) is attributed by the checks' sentence alignment
(``checks._align.align``, the window of one to three consecutive sentences a proposition
states): a proposition gets the ids of the input chunks the sentences of its window belong
to, and of every input chunk holding the same sentence word for word (overlapping input
chunks repeat a sentence: the fact is in both). When the window shares no content word,
name or number with the proposition (nothing in the batch supports it), it falls back to
every id of the batch, so provenance is never narrower than the evidence.

``proposition_spans`` gives the character spans, in the document, of the sentences that
state a proposition: the same alignment, against the text of each input chunk the
proposition came from, shifted by the chunk's ``start``. Pure, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._models import AgenticChunkInput, Span
from .._text import sentence_spans
from ..checks._align import Window, align, sentence_offsets, source_sentences
from ..checks._language import profile
from ._batches import SEGMENT_JOINER, Batch


def attribute(propositions: Sequence[str], batch: Batch) -> list[tuple[str, ...]]:
    """Return, for each proposition in order, the input chunk ids of ``batch`` it came from.

    Each tuple is non-empty, in input order, and a subset of ``batch.chunk_ids``.
    """
    if len(batch.chunk_ids) == 1:
        return [batch.chunk_ids] * len(propositions)
    text = batch.text
    owners = _sentence_owners(batch, text)
    sentences = [s.text for s in source_sentences(text)]
    same: dict[str, list[int]] = {}
    for k, sentence in enumerate(sentences):
        same.setdefault(sentence, []).append(k)
    attributed = []
    for proposition in propositions:
        window = align(proposition, text)
        if window is None or not _supports_something(proposition, window):
            attributed.append(batch.chunk_ids)
            continue
        members = (j for k in range(window.start, window.end) for j in same[sentences[k]])
        ids = dict.fromkeys(i for j in sorted(set(members)) for i in owners[j])
        attributed.append(tuple(ids) or batch.chunk_ids)
    return attributed


def _sentence_owners(batch: Batch, text: str) -> list[tuple[str, ...]]:
    """For each sentence of ``text`` (as ``checks._align`` numbers them: the non-blank
    spans), the ids of the segments it overlaps."""
    bounds = []
    start = 0
    for segment in batch.segments:
        bounds.append((start, start + len(segment.text), segment.chunk_id))
        start += len(segment.text) + len(SEGMENT_JOINER)
    owners = []
    for a, b in sentence_spans(text):
        if not text[a:b].strip():
            continue
        ids = dict.fromkeys(cid for lo, hi, cid in bounds if a < hi and b > lo)
        owners.append(tuple(ids))
    return owners


def _supports_something(proposition: str, window: Window) -> bool:
    """Does the aligned window hold any content word, name or number of the proposition?"""
    prop = profile(proposition)
    return any(window.supports(s) for s in prop.content | prop.names) or any(
        window.has_number(n) for n in prop.numbers
    )


def proposition_spans(
    proposition: str, sources: Sequence[AgenticChunkInput], *, whole_document: bool
) -> tuple[Span, ...]:
    """The ``(start, end)`` offsets in the document of the sentence(s) stating
    ``proposition``, sorted, one per sentence of its aligned window in each of ``sources``.

    A source with ``start`` is aligned and its sentence offsets shifted by ``start``; a
    source without offsets only when it is the whole document (``whole_document``), else
    it gives nothing. A window that shares no content word, name or number with the
    proposition gives nothing: an empty result means no sentence states it.
    """
    spans: set[Span] = set()
    for source in sources:
        if source.start is None and not whole_document:
            continue
        base = source.start or 0
        window = align(proposition, source.text)
        if window is None or not _supports_something(proposition, window):
            continue
        offsets = sentence_offsets(source.text)[window.start : window.end]
        spans.update((base + a, base + b) for a, b in offsets)
    return tuple(sorted(spans))
