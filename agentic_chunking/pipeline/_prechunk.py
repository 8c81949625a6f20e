"""Step 1: cut source text into batches that fit the extraction prompt.

The token estimate is the seed's: one token per four characters, so a batch of at most
``4 * max_tokens_per_batch`` characters is within the limit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .._text import sentence_spans

DEFAULT_MAX_TOKENS_PER_BATCH = 2000
CHARS_PER_TOKEN = 4

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\f\v]*\n\s*")
_PARAGRAPH_JOINER = "\n\n"
_SENTENCE_JOINER = " "


def pre_chunk_for_extraction(
    source_text: str | None, max_tokens_per_batch: int = DEFAULT_MAX_TOKENS_PER_BATCH
) -> list[str]:
    """Split ``source_text`` into ordered batches for the extraction call.

    Guarantees, for any input:
    - every batch is within the limit: ``estimate_tokens(batch) <= max_tokens_per_batch``
      (a limit of 0 or less means the default, 2000);
    - no content is lost or reordered: the batches, concatenated, hold every
      non-whitespace character of the input in its original order (only whitespace
      between paragraphs, sentences and words is normalised: a run of it becomes one
      space or a blank line, and none is added between two sentences the text does not
      separate, so a verbatim copy of a batch differs from the input only in whitespace
      that is there);
    - no batch is empty; empty or whitespace-only input gives no batches.

    Paragraphs (blank-line separated; CRLF or LF) are packed greedily and kept whole when
    they fit; a paragraph over the limit is split at sentence boundaries (nupunkt, so
    "Dr.", "e.g.", "U.S." and "3.5" do not end a sentence); a sentence over the limit is
    split between words; a word over the limit is cut into pieces of the limit's size.
    """
    if not source_text or not source_text.strip():
        return []
    limit = max_tokens_per_batch if max_tokens_per_batch > 0 else DEFAULT_MAX_TOKENS_PER_BATCH
    max_chars = limit * CHARS_PER_TOKEN
    batches: list[str] = []
    current = ""
    for joiner, piece in _pieces(source_text.replace("\r\n", "\n").replace("\r", "\n"), max_chars):
        if current and len(current) + len(joiner) + len(piece) <= max_chars:
            current += joiner + piece
        else:
            if current:
                batches.append(current)
            current = piece
    if current:
        batches.append(current)
    return batches


def _pieces(text: str, max_chars: int) -> Iterator[tuple[str, str]]:
    """Yield ``(joiner, piece)`` pairs, each piece non-empty and at most ``max_chars`` long.

    The joiner is what goes before the piece when it shares a batch with the previous one:
    a blank line between paragraphs, a space inside a paragraph.
    """
    for paragraph in _PARAGRAPH_BREAK.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if len(paragraph) <= max_chars:
            yield _PARAGRAPH_JOINER, paragraph
            continue
        joiner = _PARAGRAPH_JOINER
        previous = None  # where the previous sentence's text ended
        for start, end in sentence_spans(paragraph):
            sentence = paragraph[start:end].strip()
            if not sentence:
                continue
            at = start + paragraph[start:end].index(sentence[0])
            if previous is not None:
                # a space only where the text has whitespace: "material?" + '",' stay joined
                joiner = _SENTENCE_JOINER if paragraph[previous:at] else ""
            for piece in _fit_sentence(sentence, max_chars):
                yield joiner, piece
                joiner = _SENTENCE_JOINER
            previous = at + len(sentence)


def _fit_sentence(sentence: str, max_chars: int) -> Iterator[str]:
    """Yield the sentence whole if it fits, else word-packed pieces, else hard cuts."""
    if len(sentence) <= max_chars:
        yield sentence
        return
    current = ""
    for word in sentence.split():
        while len(word) > max_chars:
            if current:
                yield current
                current = ""
            yield word[:max_chars]
            word = word[max_chars:]
        if not word:
            continue
        if current and len(current) + 1 + len(word) <= max_chars:
            current += " " + word
        else:
            if current:
                yield current
            current = word
    if current:
        yield current
