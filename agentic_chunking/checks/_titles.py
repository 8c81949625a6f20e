"""Quoted text and titles, set aside before a pronoun is judged.

A quoted title ("Viciously Yours") is one word to the pronoun rule, never a name nor a
pronoun; so is a title that holds a pronoun or demonstrative ("My Indian Soldier", "Me
Before You", "This Christmas"): :func:`mask_quotes` and :func:`mask_titles` replace each
by one "Q" and spaces, keeping every other character where it was.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ._parser import Parse, parse
from ._words import (
    DEMONSTRATIVES,
    GROUP_PRONOUNS,
    PERSON_PRONOUNS,
    READER_PRONOUNS,
    SPEAKER_PRONOUNS,
    THING_PRONOUNS,
    word_set,
)

QUOTED = re.compile(
    r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019|\u00ab[^\u00bb]*\u00bb"
    r"|(?<![\w'])'(?=\S)[^']*(?<=\S)'(?![\w'])"
)
"""Quoted text, every kind of quote: straight and curly double and single, guillemets (a
single quote inside a word, "can't", "Jobs'", is an apostrophe)."""
_TITLE_WORDS = (
    PERSON_PRONOUNS
    | THING_PRONOUNS
    | GROUP_PRONOUNS
    | SPEAKER_PRONOUNS
    | DEMONSTRATIVES
    | READER_PRONOUNS
    | word_set("that")
)
"""Pronouns and demonstratives that open or sit inside titles ("My Tutor Friend", "What We
Do in the Shadows", "Me Before You", "This Christmas")."""
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_OBJECT_FORMS = word_set("me us him them")
"""Pronouns that never open a statement: capitalised first, they open a title."""
_WORD = re.compile(r"[^\W\d_][\w'\u2019]*")


def mask_quotes(text: str) -> str:
    """``text`` with each quoted passage (:data:`QUOTED`) replaced by one "Q" and spaces, the
    same length: a quoted title stays one word, never a name nor a pronoun."""
    return QUOTED.sub(lambda m: "Q" + " " * (len(m.group(0)) - 1), text)


def source_titles(source: str) -> frozenset[str]:
    """The titles of ``source`` that hold a pronoun or demonstrative, where it names them
    inside a sentence ("... including the award-winning My Indian Soldier (2003)"): the
    capitalised run from that word on. A proposition opening with one of them names the
    title, not a speaker ("My Indian Soldier is a documentary.")."""
    found: set[str] = set()
    masked = mask_titles(source)
    for match in _WORD.finditer(source):
        if masked[match.start()] == "Q" and source[match.start()] != "Q":
            end = len(masked[match.start() + 1 :]) - len(masked[match.start() + 1 :].lstrip(" "))
            found.add(source[match.start() : match.start() + 1 + end].rstrip(" ,"))
    return frozenset(found)


def mask_titles(text: str, titles: frozenset[str] = frozenset()) -> str:
    """``text`` with each title that holds a pronoun or demonstrative masked as one quoted
    title ("Q"): a capitalised such word inside a sentence (never "I" alone: "I, Robot"
    and "I Am Number Four" are titles, "Ann and I" is not) with the capitalised words
    after it; at the start of a sentence, one the parse reads as part of a name ("Our
    Town premiered": "Town" a proper noun), an object form ("Me Before You is ...") or
    one of ``titles`` (:func:`source_titles`)."""
    words = list(_WORD.finditer(text))
    spans: list[tuple[int, int]] = []
    for n, match in enumerate(words):
        word = match.group(0)
        if not word[0].isupper() or (len(word) > 1 and word.isupper()):
            continue  # "US", "IT": acronyms
        if word.lower() not in _TITLE_WORDS:
            continue
        after = words[n + 1] if n + 1 < len(words) else None
        next_capital = (
            after is not None
            and after.group(0)[0].isupper()
            and not text[match.end() : after.start()].strip(" ,")
        )
        before = text[: match.start()]
        opening = not before.strip(" \"'\u201c\u2018(") or re.search(r"[.!?:]\W*$", before)
        if word == "I":
            title = next_capital and not opening
        elif not opening:
            title = True
        elif word.lower() in _OBJECT_FORMS:
            title = next_capital
        elif any(text.startswith(t, match.start()) for t in titles if " " in t):
            title = True  # the source names this title inside a sentence
        elif next_capital:  # parse the sentence it opens, not the whole text
            stop = _SENTENCE_END.search(text, match.start())
            sentence = text[match.start() : stop.end() if stop else len(text)]
            parsed = parse(sentence)
            title = parsed is not None and _proper_after(parsed, match.end() - match.start())
        else:
            title = False
        if title:
            end = match.end()
            for later in words[n + 1 :]:
                gap = text[end : later.start()]
                if not later.group(0)[0].isupper() or gap.strip(" ,"):
                    break
                end = later.end()
            spans.append((match.start(), end))
    for start, end in reversed(spans):
        text = text[:start] + "Q" + " " * (end - start - 1) + text[end:]
    return text


def _proper_after(parsed: Parse, offset: int) -> bool:
    """Is the first word after character ``offset`` a proper noun in the parse?"""
    later = [w for w in parsed.words if w.idx >= offset]
    return bool(later) and later[0].tag in {"NNP", "NNPS"}


@lru_cache(maxsize=256)
def titles_of(source: str) -> frozenset[str]:
    """:func:`source_titles`, remembered for the last 256 sources."""
    return source_titles(source)
