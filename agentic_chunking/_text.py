"""Sentence segmentation shared by every step that needs sentences.

One segmenter for the whole package: nupunkt (Punkt, with a model trained on legal and
general English shipped inside the package; no download, linear time). Abbreviations
("Dr.", "e.g.", "U.S.") and decimals ("3.5 V") do not end a sentence.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import nupunkt


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    return nupunkt.load_default_model()


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Return ``(start, end)`` offsets of the sentences of ``text``.

    Guarantees: the spans are in order, do not overlap, and together cover every
    non-whitespace character of ``text`` (any text the segmenter passes over becomes a
    span of its own). Time is linear in the length of ``text``.
    """
    if not text.strip():
        return []
    spans: list[tuple[int, int]] = []
    position = 0
    for start, end in _tokenizer().span_tokenize(text):
        start = max(start, position)
        if end <= start:
            continue
        if text[position:start].strip():
            spans.append((position, start))
        spans.append((start, end))
        position = end
    if text[position:].strip():
        spans.append((position, len(text)))
    return spans


def split_sentences(text: str) -> list[str]:
    """Return the sentences of ``text``, stripped of surrounding whitespace, none empty."""
    return [s for a, b in sentence_spans(text) if (s := text[a:b].strip())]
