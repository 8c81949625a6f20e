"""Converse relations: "A is the grandson of B" restated as "B is the grandfather of A".

A faithful proposition may state a source sentence's relation from its other side: the
relation word replaced by its converse (``data/converses.txt``, hand-written) and the two
sides of the relation swapped. :func:`converse_reading` tells, for a relation word of a
source clause, whether a proposition restates it so (``SWAPPED``: the same fact) or keeps
the sides in their places with the converse word (``SAME_ORDER``: the relation reversed,
"Tom is the grandfather of Bill" for "Tom is the grandson of Bill").

The sides are read from the words around the relation word within its clause (up to the
sentence's punctuation): the content stems before it and after it. A side counts as the
other's when they share a content stem; both sides must match for a reading.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Literal

from ._language import GLUE_WORDS, Token, stem, tokens

Reading = Literal["swapped", "same_order"]
SWAPPED: Reading = "swapped"
"""The proposition states the clause's relation from its other side: the same fact."""
SAME_ORDER: Reading = "same_order"
"""The proposition puts the converse between the clause's sides as they were: reversed."""

_BREAKS = frozenset(".,;:!?")


@lru_cache(maxsize=1)
def _converses() -> dict[str, frozenset[str]]:
    """Stem -> the stems of its converse words (both directions of every listed pair)."""
    text = (resources.files("agentic_chunking.checks") / "data" / "converses.txt").read_text(
        encoding="utf-8"
    )
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        left, right = (frozenset(stem(w) for w in side.split()) for side in line.split("<>"))
        for a in left:
            out.setdefault(a, set()).update(right)
        for b in right:
            out.setdefault(b, set()).update(left)
    return {k: frozenset(v) for k, v in out.items()}


def converses_of(word_stem: str) -> frozenset[str]:
    """The stems of the listed converses of ``word_stem`` (empty when none is listed)."""
    return _converses().get(word_stem, frozenset())


def _sides(toks: tuple[Token, ...], i: int) -> tuple[frozenset[str], frozenset[str]]:
    """The content stems (numbers too) before and after ``toks[i]`` within its clause."""
    start = i
    while start > 0 and toks[start - 1].text not in _BREAKS:
        start -= 1
    end = i + 1
    while end < len(toks) and toks[end].text not in _BREAKS:
        end += 1

    def content(part: tuple[Token, ...]) -> frozenset[str]:
        return frozenset(
            t.norm if t.number else stem(t.norm)
            for t in part
            if t.text not in _BREAKS and (t.number or t.norm not in GLUE_WORDS)
        )

    return content(toks[start:i]), content(toks[i + 1 : end])


def _own_sides(toks: tuple[Token, ...], i: int) -> tuple[frozenset[str], frozenset[str]]:
    """The sides without the stems both share ("Tom Hale ... of Bill Hale": "tom", "bill"),
    which tell neither side from the other."""
    left, right = _sides(toks, i)
    return left - right, right - left


@lru_cache(maxsize=8192)
def converse_reading(proposition: str, clause: str, word_stem: str) -> Reading | None:
    """How ``proposition`` restates the relation ``word_stem`` of ``clause`` by a converse
    word: ``SWAPPED`` when it uses a converse with the clause's two sides swapped (the same
    fact), ``SAME_ORDER`` when it uses a converse with the sides in their places (the
    relation reversed); None when it uses no converse of the word, keeps the word itself
    ("Violet's father ... her child"), the clause lacks the word, or a side of either is
    empty or matches neither side."""
    wanted = converses_of(word_stem)
    if not wanted:
        return None
    src = tokens(clause)
    here = next((k for k, t in enumerate(src) if not t.number and stem(t.norm) == word_stem), None)
    prop = tokens(proposition)
    there = next((k for k, t in enumerate(prop) if not t.number and stem(t.norm) in wanted), None)
    if here is None or there is None or any(stem(t.norm) == word_stem for t in prop):
        return None  # the proposition keeps the word itself: no converse reading
    left, right = _own_sides(src, here)
    p_left, p_right = _own_sides(prop, there)
    if p_left & right and p_right & left:
        return SWAPPED
    if p_left & left and p_right & right:
        return SAME_ORDER
    return None
