"""The Level 4 splitter: where the meaning shifts, never over a token budget.

Three boundary rules (``_boundaries``); with ``boundary_rule="coherence"``, whole groups of
sentences merged while they read as one topic (``coherence_boundaries``), the size rule
as in adaptive mode. Otherwise: by default an **adaptive** one, TextTiling's depth
scores on sentence embeddings, which follows each document's own similarity curve, each
boundary moved to the nearest paragraph break when the text has any; with a
``similarity_threshold``, Solon AI's fixed rule (seed 004: the window of the ``W``
segments before segment ``i`` compared with segment ``i``; below the threshold is a
boundary). Then a group over ``max_chunk_token_size`` is cut into chunks that fit: in
adaptive mode into the fewest that fit, at line ends first and where the similarity curve
is lowest (``_fit_at_weakest_gaps``); in threshold mode by Solon's greedy packing.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from .._errors import InputError
from .._models import UNKNOWN_DOCUMENT_ID, estimate_tokens, tokens_for_length
from ._boundaries import (
    COHERENCE_RATIO,
    adaptive_boundaries,
    coherence_boundaries,
    depth_cutoff,
    depth_scores,
    gap_similarities,
    threshold_boundaries,
)
from ._embedders import Embedder, MiniLMEmbedder
from ._options import check_counts, check_numbers, check_rule
from ._packing import Option, cut_costs, least_option
from ._records import Mode, SemanticChunk, SplitExplanation
from ._segment import paragraph_breaks, segment_spans

Span = tuple[int, int]
Progress = Callable[[int, int], None]
_CACHE_LIMIT = 8192

# The adaptive rule's defaults: chosen on six_domains.md and four documents of
# benchmarks/data/segmentation (the middle of the range of cutoffs, 0.5-1.5, that gives
# F1 >= 0.86 on each), measured on two more held out (bench_semantic_boundaries.py).
ADAPTIVE_WINDOW = 3
ADAPTIVE_CUTOFF = 1.0
ADAPTIVE_MIN_SENTENCES = 2
ADAPTIVE_MIN_TOKENS = 40
# The adaptive rule's size limit: what the default embedder reads. all-MiniLM-L6-v2 reads
# 256 word pieces, about 256 tokens of 4 characters of English prose; the rest of a
# longer chunk is invisible to retrieval by that embedder. Measured on Chroma's chunking
# evaluation (issue 30; docs/evaluate.md): 512 gave 80.4% recall at a 1,000-token
# budget, 256 gave 84.1% (three corpora, 276 questions, MiniLM).
ADAPTIVE_MAX_TOKENS = 256
# A batch's padded tokens (count times the longest, by token_counter): MiniLM's memory
# grows with them (64 texts of 53 word pieces: +73 to +113 MB over the loaded model; 16
# of them: none measurable). Its speed is the embedder's own concern: MiniLMEmbedder
# runs any call in runs of RUN_WORD_PIECES padded word pieces.
DEFAULT_BATCH_TOKENS = 1024
# Solon AI's defaults (seed 004), used when a similarity_threshold is given.
SOLON_WINDOW = 3
SOLON_MIN_SENTENCES = 1
SOLON_MAX_TOKENS = 512


class SemanticSplitter:
    """Split text where the meaning shifts, never over a token budget.

    Options (keyword-only). ``boundary_rule="coherence"`` (with no threshold) selects the
    **coherence** rule: neighbouring groups of segments merged while a segment of one is
    on average at least ``coherence_ratio`` (0.4) times as similar to a segment of the
    other as segments of one group are to each other (``coherence_boundaries``); a
    document of one topic gets no semantic cut at any length, and the cuts the token
    limit then forces are told apart (``SplitExplanation.cut_kinds``). Its other options
    are the adaptive rule's. ``similarity_threshold`` None (the default) selects the
    **adaptive** rule: a boundary where the curve of window similarities dips well below
    its own neighbours (TextTiling depth at least ``depth_cutoff`` 1.0 robust standard
    deviations over the median valley depth; see ``_boundaries``), with
    ``similarity_window`` 3 segments on each side of a gap, and no group under
    ``min_sentences_per_chunk`` 2 segments or ``min_chunk_tokens`` 40 tokens; in a text
    with paragraph breaks (``paragraph_breaks``: a blank line, a heading, a list item, or
    the end of a line too long to be a hard wrap), a boundary falls at the one nearest
    its dip, so a paragraph is cut only by the size rule. A number
    selects **Solon AI's** fixed rule and its defaults: a similarity below it is a
    boundary (higher means more chunks), window 3, min sentences 1, min tokens 0;
    ``similarity_threshold=0.5, similarity_window=3`` reproduces Solon's splitter. Options
    left None take their mode's default at construction, ``max_chunk_token_size`` too:
    256 in adaptive mode (what the default embedder reads: a longer chunk's tail is
    invisible to retrieval by it), Solon's 512 in threshold mode. Also
    ``overlap_sentences`` 0 (segments of the previous chunk repeated at the start
    of the next). Tokens are counted by ``token_counter`` (default: the package's
    ``estimate_tokens``, characters // 4, where Solon uses jtokkit); it must be monotone
    (a longer text never counts fewer tokens). ``embedder`` defaults to ``MiniLMEmbedder``
    (the ``semantic`` extra).

    A group over ``max_chunk_token_size`` is cut, in adaptive mode, into the fewest chunks
    that fit (as many as greedy packing makes), placing the cuts first so that no chunk is
    under the minimum sizes, then at line ends (paragraph and line breaks), then where the
    gap similarity is lowest; greedy packing would fill each chunk to the limit and leave
    the topic's remainder as a fragment cut anywhere. Threshold mode keeps Solon's greedy
    packing. Measured on Chroma's chunking evaluation (docs/evaluate.md).

    Guarantees: no chunk counts over ``max_chunk_token_size`` (an oversized segment is cut
    at whitespace, or hard-cut in a word with none; overlap is trimmed to fit; the minimum
    sizes yield to this limit); every chunk's ``text == source[start:end]``; without
    overlap the chunk texts joined give back the source exactly. Short documents take the
    same path. Each distinct text is embedded once per splitter (memoised), in batches of
    ``batch_size``: adaptive mode embeds each distinct segment once (at most ``N``
    inputs); threshold mode at most ``2(N-W)``, fewer when windows or segments repeat
    (``W=1``: ``N``). The options are plain attributes: change one between calls (a
    threshold sweep) and the memo makes the new split cost no embedding.

    Segments are sentences, not lines: ``join_wrapped_lines`` (default True) joins the
    hard-wrapped lines of a paragraph before segmenting (a blank line, a heading, a list
    item, a table row or a code block still ends a segment; see ``segment_spans``);
    False is Solon's rule, where every line end ends a segment. Memory is bounded
    whatever the document's length: a batch sent to the embedder holds at most
    ``batch_size`` texts and at most ``batch_tokens`` tokens counted as padded (its
    count times its longest text), so one long document costs more batches, not bigger
    ones.
    """

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        similarity_threshold: float | None = None,
        similarity_window: int | None = None,
        min_sentences_per_chunk: int | None = None,
        min_chunk_tokens: int | None = None,
        depth_cutoff: float | None = None,
        max_chunk_token_size: int | None = None,
        overlap_sentences: int = 0,
        token_counter: Callable[[str], int] | None = None,
        batch_size: int = 64,
        batch_tokens: int = DEFAULT_BATCH_TOKENS,
        join_wrapped_lines: bool = True,
        boundary_rule: Literal["adaptive", "coherence"] = "adaptive",
        coherence_ratio: float = COHERENCE_RATIO,
    ) -> None:
        check_rule(boundary_rule, similarity_threshold)
        adaptive = similarity_threshold is None
        if similarity_window is None:
            similarity_window = ADAPTIVE_WINDOW if adaptive else SOLON_WINDOW
        if min_sentences_per_chunk is None:
            min_sentences_per_chunk = ADAPTIVE_MIN_SENTENCES if adaptive else SOLON_MIN_SENTENCES
        if min_chunk_tokens is None:
            min_chunk_tokens = ADAPTIVE_MIN_TOKENS if adaptive else 0
        if depth_cutoff is None:
            depth_cutoff = ADAPTIVE_CUTOFF
        if max_chunk_token_size is None:
            max_chunk_token_size = ADAPTIVE_MAX_TOKENS if adaptive else SOLON_MAX_TOKENS
        check_counts(
            similarity_window=(similarity_window, 1),
            min_sentences_per_chunk=(min_sentences_per_chunk, 1),
            min_chunk_tokens=(min_chunk_tokens, 0),
            max_chunk_token_size=(max_chunk_token_size, 1),
            overlap_sentences=(overlap_sentences, 0),
            batch_size=(batch_size, 1),
            batch_tokens=(batch_tokens, 1),
        )
        check_numbers(similarity_threshold, coherence_ratio, depth_cutoff)
        self.embedder: Embedder = embedder if embedder is not None else MiniLMEmbedder()
        self.similarity_threshold = (
            None if similarity_threshold is None else float(similarity_threshold)
        )
        self.similarity_window = similarity_window
        self.min_sentences_per_chunk = min_sentences_per_chunk
        self.min_chunk_tokens = min_chunk_tokens
        self.depth_cutoff = float(depth_cutoff)
        self.max_chunk_token_size = max_chunk_token_size
        self.overlap_sentences = overlap_sentences
        self.token_counter = token_counter or estimate_tokens
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.join_wrapped_lines = bool(join_wrapped_lines)
        self.boundary_rule = boundary_rule
        self.coherence_ratio = float(coherence_ratio)
        self._cache: dict[str, np.ndarray] = {}

    @property
    def mode(self) -> Mode:
        """``"threshold"`` (Solon's) with a similarity threshold, else the
        ``boundary_rule``: ``"adaptive"`` (the default) or ``"coherence"``."""
        if self.similarity_threshold is not None:
            return "threshold"
        return "coherence" if self.boundary_rule == "coherence" else "adaptive"

    # -- public ------------------------------------------------------------------------

    def split(
        self,
        text: str,
        *,
        document_id: str = UNKNOWN_DOCUMENT_ID,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[SemanticChunk]:
        """Return the chunks of ``text`` in order; an all-whitespace text gives none."""
        return list(self.explain(text, document_id=document_id, metadata=metadata).chunks)

    def explain(
        self,
        text: str,
        *,
        document_id: str = UNKNOWN_DOCUMENT_ID,
        metadata: Mapping[str, Any] | None = None,
        progress: Progress | None = None,
    ) -> SplitExplanation:
        """Split ``text`` as ``split`` does and return the curve and boundaries behind it.

        ``progress(done, total)``, when given, is called before the first embedding batch
        (``done == 0``) and after each one, with the texts embedded so far and the texts
        this call must embed (those already memoised are not counted).
        """
        if not isinstance(text, str):
            raise InputError(f"text is a {type(text).__name__}; expected a str")
        spans = self.segments(text)
        scores, depths, cutoff, boundaries = self._boundaries(text, spans, progress)
        cuts = [0, *boundaries, len(spans)]
        units: list[list[Span]] = []
        for a, b in itertools.pairwise(cuts):
            if a >= b:
                continue
            if self.similarity_threshold is None:  # adaptive and coherence
                units.extend(self._fit_at_weakest_gaps(text, spans[a:b], scores[a + 1 : b]))
            else:
                units.extend(self._fit(text, spans[a:b]))
        frozen = MappingProxyType(dict(metadata or {}))
        chunks: list[SemanticChunk] = []
        for index, body in enumerate(units):
            start = self._overlap_start(text, units[index - 1], body) if index else body[0][0]
            end = body[-1][1]
            chunks.append(
                SemanticChunk(index, start, end, text[start:end], document_id, body[0][0], frozen)
            )
        return SplitExplanation(
            self.mode,
            tuple(spans),
            tuple(scores),
            tuple(depths),
            cutoff,
            tuple(boundaries),
            tuple(chunks),
        )

    def similarities(self, text: str) -> list[float | None]:
        """Return, per segment, the score that decides a boundary before it (see explain).

        Threshold mode: the window-to-segment cosine, None for the first ``W`` segments;
        adaptive mode: the gap similarity, None for the first segment.
        """
        return list(self._boundaries(text, self.segments(text))[0])

    def segments(self, text: str) -> list[Span]:
        """The segments this splitter works on: ``segment_spans`` with its line option."""
        return segment_spans(text, join_wrapped_lines=self.join_wrapped_lines)

    # -- semantic boundaries -------------------------------------------------------------

    def _boundaries(
        self, text: str, spans: list[Span], progress: Progress | None = None
    ) -> tuple[list[float | None], list[float | None], float, list[int]]:
        """Return per-segment scores and depths, the cutoff and the boundary segments."""

        least_segments, least_tokens = self.min_sentences_per_chunk, self.min_chunk_tokens
        if least_tokens == 0 or self.token_counter is not estimate_tokens:

            def fits(first: int, end: int) -> bool:
                if end - first < least_segments:
                    return False
                return least_tokens == 0 or (
                    self._tokens(text, spans[first][0], spans[end - 1][1]) >= least_tokens
                )

        else:  # the default counter: from the offsets alone (``_tokens``)
            starts = [start for start, _ in spans]
            ends = [end for _, end in spans]

            def fits(first: int, end: int) -> bool:
                return end - first >= least_segments and (
                    tokens_for_length(ends[end - 1] - starts[first]) >= least_tokens
                )

        if self.similarity_threshold is not None:
            window = self.similarity_window
            scores = self._window_scores(text, spans, progress)
            cuts = threshold_boundaries(scores, window, self.similarity_threshold, fits)
            padding: list[float | None] = [None] * min(window, len(spans))
            return padding + list(scores), [None] * len(spans), self.similarity_threshold, cuts
        if len(spans) < 2:
            return [None] * len(spans), [None] * len(spans), float("inf"), []
        vectors = self._embed([text[a:b].strip() for a, b in spans], progress)
        matrix = np.vstack([vectors[text[a:b].strip()] for a, b in spans])
        gaps = gap_similarities(matrix, self.similarity_window)
        if self.boundary_rule == "coherence":
            breaks = self._break_gaps(text, spans)
            cuts = coherence_boundaries(matrix, fits, breaks, self.coherence_ratio, gaps)
            return [None, *gaps], [None] * len(spans), self.coherence_ratio, cuts
        cuts = adaptive_boundaries(gaps, self.depth_cutoff, fits, self._break_gaps(text, spans))
        depths = depth_scores(gaps)
        least = depth_cutoff(depths, self.depth_cutoff)
        return [None, *gaps], [None, *depths], least, cuts

    @staticmethod
    def _break_gaps(text: str, spans: Sequence[Span]) -> list[int]:
        """The gaps at a paragraph break, increasing: gap ``i`` (between segments ``i - 1``
        and ``i``) when the whitespace ending segment ``i - 1`` holds one
        (``paragraph_breaks``)."""
        ends = paragraph_breaks(text)
        found = []
        for gap in range(1, len(spans)):
            start, end = spans[gap - 1]
            content_end = start + len(text[start:end].rstrip())
            if any(offset in ends for offset in range(content_end, end)):
                found.append(gap)
        return found

    def _window_scores(
        self, text: str, spans: Sequence[Span], progress: Progress | None = None
    ) -> list[float]:
        window = self.similarity_window
        if len(spans) <= window:
            return []
        pairs = [
            (text[spans[i - window][0] : spans[i - 1][1]].strip(), text[slice(*spans[i])].strip())
            for i in range(window, len(spans))
        ]
        vectors = self._embed([t for pair in pairs for t in pair], progress)
        return [float(np.dot(vectors[a], vectors[b])) for a, b in pairs]

    def _batches(self, texts: list[str]) -> list[list[str]]:
        """Cut ``texts`` (sorted by length) into batches within both limits, in order.

        A batch's padded size is its count times its longest text's tokens; a text alone
        over ``batch_tokens`` is a batch of its own (the embedder truncates it).
        """
        batches: list[list[str]] = []
        for text in texts:
            tokens = max(1, self.token_counter(text))
            if (
                batches
                and len(batches[-1]) < self.batch_size
                and (len(batches[-1]) + 1) * tokens <= self.batch_tokens
            ):
                batches[-1].append(text)
            else:
                batches.append([text])
        return batches

    def _embed(self, texts: list[str], progress: Progress | None = None) -> dict[str, np.ndarray]:
        """Return unit vectors for ``texts``, embedding each distinct unseen text once."""
        # Sorted by length so that each batch pads its texts to similar lengths, and the
        # longest text of a batch is its last.
        missing = sorted((t for t in dict.fromkeys(texts) if t not in self._cache), key=len)
        found = {t: self._cache[t] for t in texts if t in self._cache}
        done = 0
        if progress is not None:
            progress(0, len(missing))
        for batch in self._batches(missing):
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
            found.update(zip(batch, unit, strict=True))
            done += len(batch)
            if progress is not None:
                progress(done, len(missing))
        return found

    # -- size guarantees ---------------------------------------------------------------

    def _tokens(self, text: str, start: int, end: int) -> int:
        """``token_counter(text[start:end])``; with the default counter, from the length
        alone (``estimate_tokens`` counts characters), so no slice is copied."""
        if self.token_counter is estimate_tokens:
            return tokens_for_length(end - start)
        return self.token_counter(text[start:end])

    def _fits(self, text: str, start: int, end: int) -> bool:
        return self._tokens(text, start, end) <= self.max_chunk_token_size

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

    def _fit_at_weakest_gaps(
        self, text: str, group: list[Span], gaps: Sequence[float | None]
    ) -> list[list[Span]]:
        """Cut a semantic group over the budget into the fewest chunks that fit, at its
        weakest gaps (the adaptive mode's size rule).

        ``gaps[k]`` is the similarity between segments ``k`` and ``k + 1`` of ``group``.
        Among the cuttings into the fewest chunks within ``max_chunk_token_size``, the one
        chosen has, in this order: the fewest chunks under ``min_chunk_tokens`` tokens or
        ``min_sentences_per_chunk`` segments; the fewest cuts that are not at a line end
        (the segment before the cut does not end with a newline: the author's paragraph
        and line breaks come first, as in a recursive splitter); then the lowest sum of the
        similarities at its cuts. So a long topic is not filled greedily up to the limit
        and its remainder left as a fragment: it is cut at its paragraph ends, where its
        own curve is lowest. A cut inside an oversized segment (``_cut``) scores as the
        highest similarity off a line end: it is made only where no gap between segments
        fits.
        Deterministic: of equal cuttings, the one whose last chunk starts earliest. Cost:
        per piece, two ``min`` over the starts that can win (a slice of at most the
        pieces a chunk holds, compared in C) and a few counter calls with the default
        counter, amortised; with another counter, also one call per earlier piece that
        still fits with it (the search for the first start that fits), so linear in the
        group's length times the pieces a chunk holds.
        """
        if self._fits(text, group[0][0], group[-1][1]):
            return [group]
        pieces, owner = self._pieces(text, group)
        off_line_at, similarity_at = cut_costs(text, pieces, owner, gaps)
        back = self._best_starts(text, pieces, owner, off_line_at, similarity_at)
        starts: list[int] = []
        end = len(pieces)
        while end > 0:  # the last chunk's start, then the start of the one before, ...
            start = back[end]
            starts.append(start)
            end = start
        bounds = [*reversed(starts), len(pieces)]
        return [pieces[a:b] for a, b in itertools.pairwise(bounds)]

    def _pieces(self, text: str, group: list[Span]) -> tuple[list[Span], list[int]]:
        """The pieces a chunk is made of: each segment of ``group``, an oversized one cut
        (``_cut``); and, per piece, the number of the segment it comes from."""
        pieces: list[Span] = []
        owner: list[int] = []
        limit = self.max_chunk_token_size
        default = self.token_counter is estimate_tokens
        for number, span in enumerate(group):
            # Most segments are one piece, nothing to cut (``_fits``, inlined).
            if (
                tokens_for_length(span[1] - span[0]) <= limit
                if default
                else self._fits(text, *span)
            ):
                pieces.append(span)
                owner.append(number)
                continue
            made = self._cut(text, span)
            pieces.extend(made)
            owner.extend([number] * len(made))
        return pieces, owner

    def _best_starts(
        self,
        text: str,
        pieces: list[Span],
        owner: list[int],
        off_line_at: list[int],
        similarity_at: list[float],
    ) -> list[int]:
        """Per ``end``, the start of the last chunk of the best cutting of pieces[:end].

        The best cutting of pieces[:end] is the least, over the starts a last chunk
        pieces[start:end] may take, of (chunks, small chunks, cuts off a line end, cut
        similarity, start). A start may be ``end - 1``, or any earlier one whose chunk
        fits: with a monotone counter, every start from ``first`` up. Three facts of a
        monotone counter keep each step to a few counter calls and two ``min`` over a
        slice: (1) ``first`` never moves left as ``end`` moves right (a chunk that does not
        fit does not fit longer); (2) the fewest chunks before a start never fall as the
        start moves right (the cutting of pieces[:s + 1] with its last piece dropped cuts
        pieces[:s]), so the starts with the fewest, the only ones that can win, run from
        ``first`` to ``fewest_end``; (3) whether the chunk from a start is undersized flips
        once, from no to yes, as the start moves right, and the start where it flips
        (``fitted``) never moves left. ``option[s]`` is the candidate of start ``s`` when
        its chunk is not undersized (one more small chunk otherwise).
        """
        count = len(pieces)
        least_tokens, least_segments = self.min_chunk_tokens, self.min_sentences_per_chunk
        offsets = [start for start, _ in pieces]
        fewest_before: list[int] = [0]  # chunks of the best cutting of pieces[:s]
        back: list[int] = [0]  # the start of its last chunk
        option: list[Option] = [(1, 0, 0 + off_line_at[0], 0.0 + similarity_at[0], 0)]
        first = fitted = 0
        for end in range(1, count + 1):
            stop, last = pieces[end - 1][1], owner[end - 1]
            first = self._first_start(text, offsets, first, end, stop)
            while fitted < end and (
                last - owner[fitted] + 1 >= least_segments
                and self._tokens(text, offsets[fitted], stop) >= least_tokens
            ):
                fitted += 1
            fewest_end = bisect.bisect_right(fewest_before, fewest_before[first], first, end)
            chunks, small, off_line, similarity, start = least_option(
                option, first, min(max(fitted, first), fewest_end), fewest_end
            )
            fewest_before.append(chunks)
            back.append(start)
            if end < count:
                option.append(
                    (
                        chunks + 1,
                        small,
                        off_line + off_line_at[end],
                        similarity + similarity_at[end],
                        end,
                    )
                )
        return back

    def _first_start(self, text: str, offsets: list[int], first: int, end: int, stop: int) -> int:
        """The first piece a chunk ending at ``stop`` (with piece ``end - 1``) may start
        at: with the default counter, moved right from the last ``first``; with another,
        looked for leftwards from ``end - 1``."""
        if self.token_counter is estimate_tokens:
            limit = self.max_chunk_token_size
            while first < end - 1 and self._tokens(text, offsets[first], stop) > limit:
                first += 1
            return first
        first = end - 1
        while first > 0 and self._fits(text, offsets[first - 1], stop):
            first -= 1
        return first

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
