"""Solon AI's SemanticSplitter, with its gaps closed (size, identity, cost).

Algorithm (Solon AI v4.1.0, seed 004): segment the text on common delimiters; for each
segment ``i >= W`` compare the window of the ``W`` segments before it with segment ``i``
by cosine similarity; a similarity below the threshold is a boundary, accepted when at
least ``min_sentences_per_chunk`` segments follow the previous one; then a token-size
fallback packs any group over ``max_chunk_token_size`` into smaller ones.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from .._errors import InputError
from .._models import UNKNOWN_DOCUMENT_ID, estimate_tokens
from ._embedders import Embedder, MiniLMEmbedder
from ._segment import segment_spans

Span = tuple[int, int]
_CACHE_LIMIT = 8192


@dataclass(frozen=True, slots=True)
class SemanticChunk:
    """One Level 4 chunk and its identity.

    ``text == source[start:end]`` always. ``body_start`` is where the part not shared with
    the previous chunk begins (``== start`` without overlap); the bodies, joined in order,
    give back the source. ``metadata`` is a read-only copy of the caller's.
    """

    index: int
    start: int
    end: int
    text: str
    document_id: str
    body_start: int
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


class SemanticSplitter:
    """Split text where the meaning shifts, never over a token budget.

    Options (keyword-only; Solon's defaults): ``similarity_threshold`` 0.5 (a similarity
    below it is a boundary: higher means more chunks), ``similarity_window`` 3 (segments
    of context), ``min_sentences_per_chunk`` 1 (least distance between two semantic
    boundaries), ``max_chunk_token_size`` 512, plus ``overlap_sentences`` 0 (segments of
    the previous chunk repeated at the start of the next). Tokens are counted by
    ``token_counter`` (default: the package's ``estimate_tokens``, characters // 4, where
    Solon uses jtokkit); it must be monotone (a longer text never counts fewer tokens).
    ``embedder`` defaults to ``MiniLMEmbedder`` (the ``semantic`` extra).

    Guarantees: no chunk counts over ``max_chunk_token_size`` (an oversized segment is cut
    at whitespace, or hard-cut in a word with none; overlap is trimmed to fit); every
    chunk's ``text == source[start:end]``; without overlap the chunk texts joined give
    back the source exactly. Short documents (up to ``W`` segments) take the same path.
    Each distinct text is embedded once per splitter (memoised), in batches of
    ``batch_size``: at most ``2(N-W)`` inputs, fewer when windows or segments repeat
    (``W=1``: ``N``). The options are plain attributes: change one between calls (a
    threshold sweep) and the memo makes the new split cost no embedding.
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        similarity_threshold: float = 0.5,
        similarity_window: int = 3,
        min_sentences_per_chunk: int = 1,
        max_chunk_token_size: int = 512,
        overlap_sentences: int = 0,
        token_counter: Callable[[str], int] | None = None,
        batch_size: int = 64,
    ) -> None:
        for name, value, least in (
            ("similarity_window", similarity_window, 1),
            ("min_sentences_per_chunk", min_sentences_per_chunk, 1),
            ("max_chunk_token_size", max_chunk_token_size, 1),
            ("overlap_sentences", overlap_sentences, 0),
            ("batch_size", batch_size, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InputError(f"{name} is {value!r}; expected an integer >= {least}")
        if not -1.0 <= float(similarity_threshold) <= 1.0:
            raise InputError(
                f"similarity_threshold is {similarity_threshold!r}; expected a cosine "
                "similarity between -1 and 1 (Solon's default is 0.5)"
            )
        self.embedder: Embedder = embedder if embedder is not None else MiniLMEmbedder()
        self.similarity_threshold = float(similarity_threshold)
        self.similarity_window = similarity_window
        self.min_sentences_per_chunk = min_sentences_per_chunk
        self.max_chunk_token_size = max_chunk_token_size
        self.overlap_sentences = overlap_sentences
        self.token_counter = token_counter or estimate_tokens
        self.batch_size = batch_size
        self._cache: dict[str, np.ndarray] = {}

    # -- public ------------------------------------------------------------------------

    def split(
        self,
        text: str,
        *,
        document_id: str = UNKNOWN_DOCUMENT_ID,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[SemanticChunk]:
        """Return the chunks of ``text`` in order; an all-whitespace text gives none."""
        if not isinstance(text, str):
            raise InputError(f"text is a {type(text).__name__}; expected a str")
        spans = segment_spans(text)
        if not spans:
            return []
        groups = self._semantic_groups(text, spans)
        units: list[list[Span]] = []
        for group in groups:
            units.extend(self._fit(text, group))
        frozen = MappingProxyType(dict(metadata or {}))
        chunks: list[SemanticChunk] = []
        for index, body in enumerate(units):
            start = self._overlap_start(text, units[index - 1], body) if index else body[0][0]
            end = body[-1][1]
            chunks.append(
                SemanticChunk(index, start, end, text[start:end], document_id, body[0][0], frozen)
            )
        return chunks

    def similarities(self, text: str) -> list[float | None]:
        """Return, per segment, the window-to-segment cosine (None for the first ``W``)."""
        spans = segment_spans(text)
        return [None] * min(self.similarity_window, len(spans)) + self._scores(text, spans)

    # -- semantic boundaries -------------------------------------------------------------

    def _scores(self, text: str, spans: Sequence[Span]) -> list[float]:
        window = self.similarity_window
        if len(spans) <= window:
            return []
        pairs = [
            (text[spans[i - window][0] : spans[i - 1][1]].strip(), text[slice(*spans[i])].strip())
            for i in range(window, len(spans))
        ]
        vectors = self._embed([t for pair in pairs for t in pair])
        return [float(np.dot(vectors[a], vectors[b])) for a, b in pairs]

    def _semantic_groups(self, text: str, spans: list[Span]) -> list[list[Span]]:
        window = self.similarity_window
        cuts = [0]
        for offset, score in enumerate(self._scores(text, spans)):
            i = window + offset
            if score < self.similarity_threshold and i - cuts[-1] >= self.min_sentences_per_chunk:
                cuts.append(i)
        cuts.append(len(spans))
        return [spans[a:b] for a, b in itertools.pairwise(cuts)]

    def _embed(self, texts: list[str]) -> dict[str, np.ndarray]:
        """Return unit vectors for ``texts``, embedding each distinct unseen text once."""
        # Sorted by length so that each batch pads its texts to similar lengths.
        missing = sorted((t for t in dict.fromkeys(texts) if t not in self._cache), key=len)
        for first in range(0, len(missing), self.batch_size):
            batch = missing[first : first + self.batch_size]
            vectors = np.asarray(self.embedder(batch), dtype=np.float64)
            if vectors.ndim != 2 or vectors.shape[0] != len(batch):
                raise InputError(
                    f"the embedder returned an array of shape {vectors.shape} for "
                    f"{len(batch)} texts; expected one vector per text, in order"
                )
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            # A zero vector (nothing to embed) is orthogonal to everything: similarity 0.
            unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
            if len(self._cache) + len(batch) > _CACHE_LIMIT:
                self._cache.clear()
            self._cache.update(zip(batch, unit, strict=True))
        return {t: self._cache[t] for t in texts}

    # -- size guarantees ---------------------------------------------------------------

    def _fits(self, text: str, start: int, end: int) -> bool:
        return self.token_counter(text[start:end]) <= self.max_chunk_token_size

    def _fit(self, text: str, group: list[Span]) -> list[list[Span]]:
        """Pack a semantic group's segments into chunks within the budget (Solon's fallback)."""
        if self._fits(text, group[0][0], group[-1][1]):
            return [group]
        pieces = [p for span in group for p in self._cut(text, span)]
        chunks: list[list[Span]] = [[pieces[0]]]
        for piece in pieces[1:]:
            if self._fits(text, chunks[-1][0][0], piece[1]):
                chunks[-1].append(piece)
            else:
                chunks.append([piece])
        return chunks

    def _cut(self, text: str, span: Span) -> list[Span]:
        """Cut one segment into pieces within the budget, at whitespace where possible."""
        start, end = span
        pieces: list[Span] = []
        while not self._fits(text, start, end):
            if not self._fits(text, start, start + 1):
                raise InputError(
                    f"the character {text[start]!r} at offset {start} alone counts over "
                    f"max_chunk_token_size={self.max_chunk_token_size}; raise the limit "
                    "or use a token_counter that counts it lower"
                )
            low, high = start + 1, end - 1  # the longest prefix that fits: text[start:low]
            while low < high:
                middle = (low + high + 1) // 2
                low, high = (middle, high) if self._fits(text, start, middle) else (low, middle - 1)
            space = max(text.rfind(c, start, low) for c in (" ", "\t", "\n"))
            cut = space + 1 if space > start else low
            pieces.append((start, cut))
            start = cut
        pieces.append((start, end))
        return pieces

    def _overlap_start(self, text: str, previous: list[Span], body: list[Span]) -> int:
        """Start of a chunk: up to ``overlap_sentences`` units of the previous one, if they fit."""
        for count in range(min(self.overlap_sentences, len(previous)), 0, -1):
            start = previous[-count][0]
            if self._fits(text, start, body[-1][1]):
                return start
        return body[0][0]
