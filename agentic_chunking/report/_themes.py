"""Expected themes found by meaning, not spelling.

A theme is found in a ThematicCategory when the category holds every content word of
the theme, compared by English stem ("batteries" in "Battery Technology"), or, when the
``semantic`` extra is installed, when their all-MiniLM-L6-v2 vectors are at least
``THEME_SIMILARITY`` alike ("Zoning" in "Land-Use Regulation"), or when the checks'
paraphrase lexicon says every theme word ("Big Cities" in "Large Cities":
``checks.says_by_lexicon``). ``theme_matches`` is the one entry point.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from ..checks import says_by_lexicon

THEME_SIMILARITY = 0.4
"""Cosine similarity from which a category carries a theme. Measured with the default
embedder: Zoning / Land-Use Regulation 0.44, Zoning / Urban Planning 0.54, Batteries /
Energy Storage 0.46, against Genomics / Metabolism 0.24, Printing / Reformation 0.15,
Zoning / Battery Chemistry 0.02 (a soft signal: a miss is shown, never failed)."""

Similarity = Callable[[str, Sequence[str]], list[float]]


_STEMMERS = threading.local()


def _stemmer() -> Any:
    """This thread's English stemmer: a snowball stemmer is not safe to share by threads."""
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return stemmer


def content_stems(text: str) -> set[str]:
    """The English stems of the words of ``text``, lower-cased."""
    return set(_stemmer().stemWords(re.findall(r"[a-z0-9]+", text.lower())))


@lru_cache(maxsize=4096)
def _vector(text: str) -> Any:
    return _embedder()([text])[0]


@lru_cache(maxsize=1)
def _embedder() -> Any:
    from ..semantic import MiniLMEmbedder

    return MiniLMEmbedder()


def embedding_similarity(theme: str, categories: Sequence[str]) -> list[float]:
    """Cosine similarity of ``theme`` to each category with the default embedder."""
    import numpy as np

    wanted = np.asarray(_vector(theme), dtype=float)
    scores = []
    for category in categories:
        vector = np.asarray(_vector(category), dtype=float)
        norm = float(np.linalg.norm(wanted) * np.linalg.norm(vector)) or 1.0
        scores.append(float(np.dot(wanted, vector)) / norm)
    return scores


@lru_cache(maxsize=1)
def default_similarity() -> Similarity | None:
    """``embedding_similarity`` when the ``semantic`` extra is installed, else None."""
    from ..semantic import MiniLMEmbedder

    return embedding_similarity if MiniLMEmbedder.available() else None


def theme_matches(
    expected: str, categories: Sequence[str], *, similarity: Similarity | str | None = "default"
) -> bool:
    """True when some category carries ``expected``: by stems, else by a paraphrase the
    checks' lexicon lists, else by meaning.

    ``similarity`` scores the theme against the categories (0-1); ``"default"`` takes
    ``default_similarity()``, None compares stems only.
    """
    wanted = content_stems(expected)
    if not wanted or not categories:
        return False
    if any(wanted <= content_stems(c) for c in categories):
        return True
    if any(says_by_lexicon(expected, c) for c in categories):
        return True
    score = default_similarity() if similarity == "default" else similarity
    if score is None or isinstance(score, str):
        return False
    return max(score(expected, categories)) >= THEME_SIMILARITY
