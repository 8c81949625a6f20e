"""Possible duplicates found by meaning: the ``semantic`` extra's pairs for the judge.

``similar_meaning_pairs`` is the one place that decides which pairs of an output the
embedder adds: those of ``agentic_chunking.semantic``'s default finder (MiniLM, when the
extra is installed) that the lexical candidates (``known``) do not already hold and that
the lexical duplicate rules leave open (``checks._duplicates.open_similar_pairs``).
``candidate_pairs`` sends them to the judge with the lexical ones, and ``assess`` makes
each a ``similar_meaning`` warning; the judge's verdict on the pair then confirms it
(an error) or clears it (``combine``). Without the extra the list is empty and both stay
lexical only, exactly as before.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from ..checks import open_similar_pairs

if TYPE_CHECKING:
    from ..semantic import SimilarityFinder


def default_finder() -> SimilarityFinder | None:
    """``agentic_chunking.semantic``'s default finder, imported on first use (the judge
    layer loads without the Level 4 package and numpy's work behind it)."""
    from ..semantic import default_finder as shared

    return shared()


def similar_meaning_pairs(
    texts: Sequence[str],
    *,
    known: Collection[tuple[int, int]] = (),
    finder: SimilarityFinder | None = None,
) -> list[tuple[int, int]]:
    """Pairs ``(earlier, later)`` of indexes into ``texts``, sorted by later then earlier:
    close in meaning by ``finder`` (default: ``default_finder()``; none without the
    extra), not in ``known`` (the pairs already sent for lexical reasons), and open
    lexically (see the module)."""
    finder = finder if finder is not None else default_finder()
    if finder is None or len(texts) < 2:
        return []
    sent = set(known)
    close = [(p.first, p.later) for p in finder.pairs(texts)]
    return open_similar_pairs(texts, [pair for pair in close if pair not in sent])
