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
- With ``join_wrapped_lines``, the period of a list item's number at the start of a line
  ("3. Neither the name ...") ends nothing: the item is one segment with its number.
- An indented block (four spaces or a tab, after a blank line) is code only when its lines
  look like code (``indented_block_is_code``): an indented paragraph of prose, such as a
  licence text in a third-party notices file, is prose, and its wrapped lines are joined.

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
# The number that opens a list item ("3. Neither the name ..."): its period ends nothing.
_ENUMERATOR = re.compile(r"[ \t]*\d{1,9}\.")

# What code has and prose does not: braces, operators, a call or an index glued to a name
# (not a plural's "holder(s)"), a keyword argument ("value=42"), a comment or prompt leader.
_CODE_MARK = re.compile(
    r"[{}]|==|!=|<=|>=|=>|->|::|&&|\|\||[-+*/%]=|\s=\s|\w=\w"
    r"|[A-Za-z_]\w*[(\[](?!(?:s|es|ies)\))"
    r"|^\s*(?:#|//|/\*|\*/|--\s|\$\s|>>>|<[/!A-Za-z])"
)
# A word of prose: letters (with inner apostrophes and hyphens) or a number, with the
# quotes, brackets and punctuation that may stand around it; or a dash on its own.
_PROSE_WORD = re.compile(
    r"[(\[\"'\u2018\u201c]*"
    r"(?:[A-Za-z][A-Za-z'\u2019-]*|\d+(?:[.,]\d+)*)"
    r"[)\]\"'\u2019\u201d.,;:!?]*"
    r"|[-\u2013\u2014&]"
)
PROSE_WORD_SHARE = 0.8
"""An indented block is prose when at least this share of its words are words of prose."""
PROSE_LINE_CHARACTERS = 30
"""... and, when it has several lines, those before its last average at least this many
characters (wrapped prose fills every line but its last; code, verse and lists of commands
have short ones)."""


def indented_block_is_code(lines: list[str]) -> bool:
    """Whether the consecutive indented ``lines`` of one block are code, by what they look like.

    Prose needs all three: no line with a mark of code (a brace, an operator such as
    ``==``, ``->``, ``+=`` or `` = ``, a call or an index glued to a name as in ``f(x)``
    or ``a[0]``, a keyword argument, a comment or prompt leader such as ``#``, ``//``,
    ``$`` or ``>>>``); at least ``PROSE_WORD_SHARE`` of the whitespace-separated words
    words of prose (letters or a number, with the punctuation around them; not
    ``snake_case``, ``a.b`` or a URL); and, over several lines, lines before the last of
    ``PROSE_LINE_CHARACTERS`` characters on average. Anything else stays code, as
    indentation alone made it before: a block of short commands, a listing, a URL.
    """
    bodies = [line.strip() for line in lines if line.strip()]
    if not bodies or any(_CODE_MARK.search(body) for body in bodies):
        return True
    words = [word for body in bodies for word in body.split()]
    prose = sum(1 for word in words if _PROSE_WORD.fullmatch(word))
    if prose < PROSE_WORD_SHARE * len(words):
        return True
    filled = bodies[:-1]
    return sum(map(len, filled)) < PROSE_LINE_CHARACTERS * len(filled)


def _indented_blocks(lines: list[str]) -> dict[int, tuple[int, bool]]:
    """For each line of an indented block, the block's first line and whether it is code.

    A block is a run of consecutive indented lines opened after a blank line (or at the
    start); it is judged as a whole (``indented_block_is_code``).
    """
    blocks: dict[int, tuple[int, bool]] = {}
    number = 0
    while number < len(lines):
        opens = number == 0 or not lines[number - 1].strip()
        if not (opens and _CODE_INDENT.match(lines[number]) and lines[number].strip()):
            number += 1
            continue
        end = number
        while end < len(lines) and lines[end].strip() and _CODE_INDENT.match(lines[end]):
            end += 1
        code = indented_block_is_code(lines[number:end])
        blocks.update(dict.fromkeys(range(number, end), (number, code)))
        number = end
    return blocks


def soft_line_breaks(text: str) -> frozenset[int]:
    """Return the offsets of the ``\\n`` characters that only wrap a paragraph's line.

    A line end is *soft* when the line it ends and the next line are both text of one
    paragraph (or one list item): neither blank, neither a heading (``# ...``, a setext
    ``===``/``---`` underline or the line above one), a table row (``| ...``), a code
    fence or a line inside a fenced block, or an indented code line (four spaces or a tab
    after a blank line or another code line, in a block whose lines look like code:
    ``indented_block_is_code``; an indented paragraph of prose is text, joined within its
    block only), and the next line does not open a list item. Every other line end is
    hard: it ends a segment, as in Solon's rule.
    """
    lines = text.split("\n")
    blocks = _indented_blocks([line.rstrip("\r") for line in lines])
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
        elif blocks.get(number, (0, False))[1]:
            kinds.append("code")
        elif _LIST_ITEM.match(body):
            kinds.append("item")
        else:
            kinds.append("text")
    soft: set[int] = set()
    offset = 0
    for number in range(len(lines) - 1):
        offset += len(lines[number])
        same_block = blocks.get(number, (-1,))[0] == blocks.get(number + 1, (-1,))[0]
        if kinds[number] in ("text", "item") and kinds[number + 1] == "text" and same_block:
            soft.add(offset)
        offset += 1
    return frozenset(soft)


HAND_WRAP_WIDTH = 120
"""A line longer than this many characters was not wrapped by hand: text is hard-wrapped
at 72 to 100 columns (e-mail, licences, Gutenberg books, code style guides)."""


def paragraph_breaks(text: str) -> frozenset[int]:
    """Return the offsets of the ``\\n`` characters that end a paragraph, not a wrapped line.

    A line end is a paragraph break when it is hard (``soft_line_breaks``: a blank line,
    a heading, a list item, a table row, code) or when the line it ends is longer than
    ``HAND_WRAP_WIDTH`` characters: one paragraph a line, as in text exported from a word
    processor, a wiki dump or JSONL, where a single newline separates paragraphs.
    """
    soft = soft_line_breaks(text)
    breaks: set[int] = set()
    line_start = 0
    for offset in (m.start() for m in re.finditer("\n", text)):
        if offset not in soft or offset - line_start > HAND_WRAP_WIDTH:
            breaks.add(offset)
        line_start = offset + 1
    return frozenset(breaks)


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
        line_start = text.rfind("\n", 0, match.start()) + 1
        if join_wrapped_lines and _ENUMERATOR.fullmatch(text, line_start, match.start() + 1):
            continue  # "3. Neither ...": a list item's number, not a sentence's end
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
