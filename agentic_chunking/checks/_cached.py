"""The language helpers duplicate detection calls per candidate pair, remembered longer.

``_language`` keeps 8,192 texts per helper, fewer than the propositions of a long
document; duplicate detection visits each text once per candidate pair, so without a
larger memory every text would be tokenised again and again. Same answers, same inputs.
"""

from __future__ import annotations

from functools import lru_cache

from ._language import Profile, Token
from ._language import profile as _profile
from ._language import subject_stems as _subject_stems
from ._language import tokens as _tokens

CACHE_SIZE = 1 << 17
"""Texts remembered per helper (about 130,000)."""


@lru_cache(maxsize=CACHE_SIZE)
def tokens(text: str) -> tuple[Token, ...]:
    """:func:`._language.tokens`, remembered for ``CACHE_SIZE`` texts."""
    return _tokens(text)


@lru_cache(maxsize=CACHE_SIZE)
def profile(text: str) -> Profile:
    """:func:`._language.profile`, remembered for ``CACHE_SIZE`` texts."""
    return _profile(text)


@lru_cache(maxsize=CACHE_SIZE)
def subject_stems(text: str) -> frozenset[str]:
    """:func:`._language.subject_stems`, remembered for ``CACHE_SIZE`` texts."""
    return _subject_stems(text)
