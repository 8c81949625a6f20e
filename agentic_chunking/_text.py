"""Sentence segmentation shared by every step that needs sentences.

One segmenter for the whole package: nupunkt (Punkt, with a model trained on legal and
general English shipped inside the package; no download, linear time). Abbreviations
("Dr.", "e.g.", "U.S.") and decimals ("3.5 V") do not end a sentence.

Punkt ends a sentence only at its punctuation, so the layout of a document ends one too
(``layout_breaks``): a blank line (a paragraph, a heading or a lead-in line without a
full stop never runs into the next block), an ATX heading line (``# ...``, which in
Markdown is one line and may sit on the lines next to text, as in NEWS files and
changelogs: "## [0.3.3] - 2019-07-24" above "### Added" above "- new helper"), and the
line under a setext or reStructuredText title ("Breaking Changes" over "^^^^^^^^").
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import nupunkt


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    return nupunkt.load_default_model()


_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
"""A line break, optional spaces (any whitespace but a line break), a line break."""
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[^\S\n]+\S[^\n]*$", re.MULTILINE)
"""A Markdown ATX heading line: up to 3 spaces, 1 to 6 "#", a space, a title ("#16" and
"#include" are no heading; a line of "#" alone is a title underline)."""
_TITLE_UNDERLINE = re.compile(r"^[^\S\n]*([=\-~^*+#_])\1{2,}[^\S\n]*$", re.MULTILINE)
"""A line of one character of ``= - ~ ^ * + # _`` repeated, three or more: a setext or
reStructuredText title's underline (or a rule), which ends the title above it."""


def layout_breaks(text: str) -> list[int]:
    """The offsets, sorted, at which the layout of ``text`` ends a sentence whatever its
    punctuation: the start of each blank line's whitespace, the start and the end of
    each ATX heading line, the end of each title underline. Each offset is at a line
    break or the text's start or end, never inside a word."""
    breaks = {m.start() for m in _BLANK_LINE.finditer(text)}
    for m in _ATX_HEADING.finditer(text):
        breaks.update((m.start(), m.end()))
    breaks.update(m.end() for m in _TITLE_UNDERLINE.finditer(text))
    return sorted(breaks)


def is_heading(sentence: str) -> bool:
    """Is ``sentence`` (one of ``split_sentences``) a heading by its layout: an ATX
    heading line ("## Overview"), or a title with its underline on the next line?"""
    lines = sentence.strip().split("\n")
    return bool(
        (len(lines) == 1 and _ATX_HEADING.fullmatch(lines[0]))
        or (len(lines) == 2 and _TITLE_UNDERLINE.fullmatch(lines[1]))
    )


def _punkt_spans(text: str) -> list[tuple[int, int]]:
    """Punkt's sentences of ``text``, with any text it passes over as a span of its own:
    in order, not overlapping, covering every non-whitespace character."""
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


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Return ``(start, end)`` offsets of the sentences of ``text``.

    Punkt's sentences, each cut again at every ``layout_breaks`` offset inside it, so no
    sentence holds a blank line, a heading line and the text after it, or a title
    underline and the text after it. Guarantees: the spans are in order, do not overlap,
    each holds a non-whitespace character, and together cover every non-whitespace
    character of ``text`` (any text the segmenter passes over becomes a span of its
    own). Time is linear in the length of ``text``.
    """
    if not text.strip():
        return []
    breaks = layout_breaks(text)
    spans: list[tuple[int, int]] = []
    k = 0
    for start, end in _punkt_spans(text):
        while k < len(breaks) and breaks[k] <= start:
            k += 1
        piece_start = start
        while k < len(breaks) and breaks[k] < end:
            if text[piece_start : breaks[k]].strip():
                spans.append((piece_start, breaks[k]))
            piece_start = breaks[k]
            k += 1
        if text[piece_start:end].strip():
            spans.append((piece_start, end))
    return spans


def split_sentences(text: str) -> list[str]:
    """Return the sentences of ``text``, stripped of surrounding whitespace, none empty."""
    return [s for a, b in sentence_spans(text) if (s := text[a:b].strip())]
