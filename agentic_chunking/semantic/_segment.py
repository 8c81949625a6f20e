"""Sentence-like segmentation on Solon AI's delimiters, with exact character offsets.

Solon's ``ALL_COMMON_DELIM``: ``.``, ``!``, ``?``, the ideographic full stop and the
fullwidth exclamation mark, question mark and semicolon (U+3002, U+FF01, U+FF1F, U+FF1B),
and newline; the delimiter stays attached to the segment it ends. Our decisions on top of that rule:

- An ASCII ``.``, ``!`` or ``?`` ends a segment only when followed by whitespace or the end
  of the text (after any run of further delimiters and closing quotes or brackets), so
  decimals ("3.5 V"), versions ("v1.2") and "e.g.x" stay whole. "Dr. Smith" still splits:
  this is a delimiter scanner, not a sentence parser.
- A run of delimiters ("?!", "...") and the closing quotes or brackets after it stay with
  the segment they end; so does the whitespace after it, newlines included.
- Chinese delimiters end a segment wherever they stand (Chinese text has no spaces).

Guarantee: the spans are contiguous and cover the text exactly, so
``"".join(text[a:b] for a, b in spans) == text``; every span holds a non-space character,
except for an all-whitespace text, which has no span at all.
"""

from __future__ import annotations

import re

_CJK = "\u3002\uff01\uff1f\uff1b"
DELIMITERS = (".", "!", "?", *_CJK, "\n")

_CLOSERS = "\"')\\]\u00bb\u2019\u201d\u300d\u300f"
_BOUNDARY = re.compile(
    rf"(?:[.!?]+[{_CLOSERS}]*(?=\s|\Z)|[{_CJK}]+[{_CLOSERS}]*|\n)\s*",
)


def segment_spans(text: str) -> list[tuple[int, int]]:
    """Return the ``(start, end)`` offsets of the segments of ``text`` (see module doc)."""
    if not text.strip():
        return []
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end()
        if text[start:end].strip():
            spans.append((start, end))
            start = end
        # A boundary on whitespace only (a blank line) stays with the segment before it.
    if start < len(text):
        if text[start:].strip() or not spans:
            spans.append((start, len(text)))
        else:
            spans[-1] = (spans[-1][0], len(text))
    return spans
