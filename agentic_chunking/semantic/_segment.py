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
- With ``join_wrapped_lines`` (the default), a line end inside a paragraph is a space, not
  a delimiter: hard-wrapped text (a licence file, a Gutenberg book, an e-mail) is
  segmented by its sentences, not its lines (``soft_line_breaks`` says which line ends
  those are). A blank line, a heading, a list item, a table row and a code block still
  end a segment. ``join_wrapped_lines=False`` is Solon's rule: every line end is one.

Guarantee: the spans are contiguous and cover the text exactly, so
``"".join(text[a:b] for a, b in spans) == text``; every span holds a non-space character,
except for an all-whitespace text, which has no span at all. The text is never changed:
joining decides where segments end, the offsets stay those of the source.
"""

from __future__ import annotations

import re

_CJK = "\u3002\uff01\uff1f\uff1b"
DELIMITERS = (".", "!", "?", *_CJK, "\n")

_CLOSERS = "\"')\\]\u00bb\u2019\u201d\u300d\u300f"
_BOUNDARY = re.compile(
    rf"(?:[.!?]+[{_CLOSERS}]*(?=\s|\Z)|[{_CJK}]+[{_CLOSERS}]*|\n)\s*",
)

# Lines that stand alone: an ATX heading, a setext underline, a table row, a fence.
_HEADING = re.compile(r" {0,3}(?:#{1,6}(?:\s|$)|(?:=+|-+)\s*$|\|)")
_FENCE = re.compile(r" {0,3}(?:```|~~~)")
# A list item: a bullet or a number, then a space.
_LIST_ITEM = re.compile(r"\s*(?:[-*+\u2022]|\d{1,9}[.)])\s")
_CODE_INDENT = re.compile(r"(?: {4}|\t)")


def soft_line_breaks(text: str) -> frozenset[int]:
    """Return the offsets of the ``\\n`` characters that only wrap a paragraph's line.

    A line end is *soft* when the line it ends and the next line are both text of one
    paragraph (or one list item): neither blank, neither a heading (``# ...``, a setext
    ``===``/``---`` underline or the line above one), a table row (``| ...``), a code
    fence or a line inside a fenced block, or an indented code line (four spaces or a tab
    after a blank line or another code line), and the next line does not open a list
    item. Every other line end is hard: it ends a segment, as in Solon's rule.
    """
    lines = text.split("\n")
    kinds: list[str] = []
    fenced = False
    for number, line in enumerate(lines):
        body = line.rstrip("\r")
        if _FENCE.match(body):
            fenced = not fenced
            kinds.append("alone")
        elif fenced:
            kinds.append("alone")
        elif not body.strip():
            kinds.append("blank")
        elif _HEADING.match(body):
            kinds.append("alone")
            if number and kinds[number - 1] == "text" and re.fullmatch(r" {0,3}(=+|-+)\s*", body):
                kinds[number - 1] = "alone"  # the title above a setext underline
        elif _CODE_INDENT.match(body) and (number == 0 or kinds[number - 1] in ("blank", "code")):
            kinds.append("code")
        elif _LIST_ITEM.match(body):
            kinds.append("item")
        else:
            kinds.append("text")
    soft: set[int] = set()
    offset = 0
    for number in range(len(lines) - 1):
        offset += len(lines[number])
        if kinds[number] in ("text", "item") and kinds[number + 1] == "text":
            soft.add(offset)
        offset += 1
    return frozenset(soft)


def segment_spans(text: str, *, join_wrapped_lines: bool = True) -> list[tuple[int, int]]:
    """Return the ``(start, end)`` offsets of the segments of ``text`` (see module doc)."""
    if not text.strip():
        return []
    soft = soft_line_breaks(text) if join_wrapped_lines else frozenset()
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        if match.start() in soft:
            continue  # a wrapped line: the paragraph goes on
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
