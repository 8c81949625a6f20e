"""Pairs of propositions close in meaning: candidate duplicates that words alone miss.

The lexical duplicate rules (:mod:`agentic_chunking.checks._duplicates`) see a repeated
fact only when the two propositions share their words. ``SimilarityFinder.pairs`` embeds
the propositions of one output and returns every pair whose cosine similarity reaches
the finder's threshold, as ``SimilarPair`` records; the judge layer keeps those the
lexical rules left open and sends them to the judge. A pair found here proves nothing:
two facts about one subject often score as high as one fact said twice, which is why the
pairs are warnings for the judge to decide, never errors.

``default_finder()`` is the shared finder of the ``semantic`` extra (MiniLM at
``MINILM_DUPLICATE_THRESHOLD``, its vectors remembered per text) when it is switched on
with ``$AGENTIC_CHUNKING_SEMANTIC_DUPLICATES=on``, else None: the checks are then lexical
only. Off by default, by measurement: on 105 real runs it adds about one true candidate
pair per 50 runs, costs about 20 times the lexical check per proposition, and the pairs
it adds change the recorded judge requests, so a cassette recorded with it replays only
with it (and with scores that int8 arithmetic could move by a few thousandths).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ._cache import CachedEmbedder
from ._embedders import Embedder, MiniLMEmbedder

MINILM_DUPLICATE_THRESHOLD = 0.92
"""The cosine (all-MiniLM-L6-v2, int8 ONNX) from which two propositions are a candidate
duplicate. Measured, not chosen: ``python benchmarks/bench_semantic_duplicates.py`` fits
it on half of the labelled pairs (the lowest multiple of 0.005 at least 0.005 above every
distinct pair of the fit half and every pair of the 32 reference cases, which must stay
free of findings) and reports precision, recall and pairs per run on the other half. The
reference pair that sets it scores 0.914 ("Lithium-ion cells use a graphite anode." /
"The graphite anode of a lithium-ion cell stores lithium ions ..."): MiniLM scores two
facts about one subject as high as one fact reworded, so the bar is high and the extra
finds few pairs."""

SEMANTIC_DUPLICATES_ENV_VAR = "AGENTIC_CHUNKING_SEMANTIC_DUPLICATES"
"""Set to ``off`` (or ``0``, ``false``, ``no``) to keep the duplicate checks lexical only
with the extra installed (e.g. to replay judge calls recorded without it)."""
_ON = frozenset({"on", "1", "true", "yes"})

MAX_PARTNERS = 3
"""Earlier propositions one proposition is paired with at most (its closest): enough for
the judge to decide, and an output of many near-identical propositions gives a number of
pairs that grows linearly, not as its square."""

_BLOCK = 512
"""Rows of the similarity matrix computed at once: memory stays ``_BLOCK * n`` floats."""


@dataclass(frozen=True, slots=True)
class SimilarPair:
    """Two texts of one list, by index (``first < later``), and their cosine similarity."""

    first: int
    later: int
    cosine: float


@dataclass(frozen=True)
class SimilarityFinder:
    """An embedder, the cosine from which two of its texts are a candidate pair, and how
    many earlier partners one text may have at most (its closest ones)."""

    embedder: Embedder
    threshold: float
    max_partners: int = MAX_PARTNERS

    def pairs(self, texts: Sequence[str]) -> list[SimilarPair]:
        """The pairs ``(first, later)`` of ``texts`` whose cosine reaches the threshold,
        at most ``max_partners`` per later text (the highest cosines; ties to the
        earlier), in order of ``later`` then ``first``. Vectors are L2-normalised here (a
        text with no vector direction, e.g. no word, is similar to nothing)."""
        if len(texts) < 2:
            return []
        distinct = list(dict.fromkeys(texts))
        vectors = np.asarray(self.embedder(distinct), dtype=np.float64)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
        row = {text: i for i, text in enumerate(distinct)}
        matrix = unit[[row[t] for t in texts]]
        found: list[SimilarPair] = []
        for start in range(1, len(texts), _BLOCK):
            laters = matrix[start : start + _BLOCK]
            block = laters @ matrix[: start + len(laters)].T  # each later against the earlier
            for offset, scores in enumerate(block):
                later = start + offset
                firsts = np.flatnonzero(scores[:later] >= self.threshold)
                if len(firsts) > self.max_partners:
                    order = np.argsort(-scores[firsts], kind="stable")
                    firsts = np.sort(firsts[order[: self.max_partners]])
                found += [SimilarPair(int(i), later, float(scores[i])) for i in firsts]
        return found


_SHARED: list[SimilarityFinder] = []
# The shared finder remembers the vectors of the latest 20,000 propositions.
_REMEMBERED = 20_000
_SHARED_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _extra_installed() -> bool:
    return MiniLMEmbedder.available()


def default_finder() -> SimilarityFinder | None:
    """The ``semantic`` extra's finder (MiniLM, ``MINILM_DUPLICATE_THRESHOLD``, one shared
    vector memory) when ``$AGENTIC_CHUNKING_SEMANTIC_DUPLICATES=on``; None when it is not
    (the default) or the extra is not installed. The model loads on the first pair asked."""
    if os.environ.get(SEMANTIC_DUPLICATES_ENV_VAR, "").strip().lower() not in _ON:
        return None
    if not _extra_installed():
        return None
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(
                SimilarityFinder(
                    CachedEmbedder(MiniLMEmbedder(), max_texts=_REMEMBERED, batch_size=16),
                    MINILM_DUPLICATE_THRESHOLD,
                )
            )
        return _SHARED[0]
