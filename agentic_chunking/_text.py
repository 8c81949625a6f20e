"""Sentence segmentation shared by every step that needs sentences.

One segmenter for the whole package (pysbd, rule-based, English): abbreviations ("Dr.",
"e.g.", "U.S.") and decimals ("3.5 V") do not end a sentence.
"""

from __future__ import annotations

from functools import lru_cache

import pysbd


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    return pysbd.Segmenter(language="en", clean=False, char_span=True)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Return ``(start, end)`` offsets of the sentences of ``text``.

    Guarantees: the spans are in order, do not overlap, and together cover every
    non-whitespace character of ``text``; ``text[start:end]`` keeps the sentence's
    trailing whitespace, as pysbd gives it.
    """
    if not text.strip():
        return []
    spans: list[tuple[int, int]] = []
    position = 0
    for piece in _segmenter().segment(text):
        start, end = piece.start, piece.end
        # pysbd's offsets can drift on repeated sentences; re-anchor on the text itself.
        found = text.find(piece.sent, position)
        if found != -1:
            start, end = found, found + len(piece.sent)
        start = max(start, position)
        if end <= start:
            continue
        if start > position and text[position:start].strip():
            spans.append((position, start))
        spans.append((start, end))
        position = end
    if text[position:].strip():
        spans.append((position, len(text)))
    return spans


def split_sentences(text: str) -> list[str]:
    """Return the sentences of ``text``, stripped of surrounding whitespace, none empty."""
    return [s for a, b in sentence_spans(text) if (s := text[a:b].strip())]
