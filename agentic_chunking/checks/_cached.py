"""The language helpers duplicate detection calls per candidate pair, remembered longer.

``_language`` keeps 8,192 texts per helper, fewer than the propositions of a long
document; duplicate detection visits each text once per candidate pair, so without a
larger memory every text would be tokenised again and again. Same answers, same inputs.
"""

from __future__ import annotations

from functools import lru_cache

from ._language import Profile, Token
from ._language import profile as _profile
from ._language import tokens as _tokens
from ._verbs import subject_stems as _subject_stems

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
    """:func:`._verbs.subject_stems`, remembered for ``CACHE_SIZE`` texts."""
    return _subject_stems(text)


def clear_caches() -> int:
    """Forget every text and word the checks' helpers remember (each ``lru_cache`` of the
    checks' modules with room for more than one entry; the loaded lexicons and models,
    cached once, are kept); return how many caches were cleared.

    The helpers are pure, so answers stay the same; a caller that runs many independent
    documents (the corpus layer) calls it between them, so that memory follows the
    documents in flight, not the corpus. Safe while other threads run checks."""
    import sys

    cleared = 0
    for name, module in sys.modules.copy().items():  # a copy: other threads may import
        if not name.startswith(__package__ + ".") or module is None:
            continue
        for value in vars(module).copy().values():
            info = getattr(value, "cache_info", None)
            if info is None or getattr(value, "__module__", None) != name:
                continue
            if (info().maxsize or 2) > 1:
                value.cache_clear()
                cleared += 1
    return cleared
