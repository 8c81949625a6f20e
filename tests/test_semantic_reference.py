"""The fast coherence rule and size rule against their straightforward versions.

``coherence_boundaries`` merges from a heap and the size rule's DP tries only the starts
that can win (issue 43 item 5: the rule's cost). Both must give exactly what the plain
versions they replaced give: a scan of every score for the pair to merge, and every
start that fits tried for each chunk. The plain versions are kept here, word for word
but for names, and compared on generated shapes where ties, equal vectors, empty
segments, paragraph breaks and oversized segments occur, and on real text.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking import estimate_tokens
from agentic_chunking.semantic import HashingEmbedder, SemanticSplitter
from agentic_chunking.semantic import _splitter as splitter_module
from agentic_chunking.semantic._boundaries import (
    COHERENCE_RATIO,
    NOISE,
    _first_true,
    _pair_sum,
    accept_in_order,
    coherence_boundaries,
    depth_scores,
    gap_similarities,
    snap_to_breaks,
)

Fits = Callable[[int, int], bool]
Span = tuple[int, int]


def plain_snap(gap: int, breaks: Sequence[int]) -> int:
    at = bisect.bisect_left(breaks, gap)
    near = breaks[max(0, at - 1) : at + 1]
    return min(near, key=lambda b: (abs(b - gap), b), default=gap)


def plain_coherence(
    vectors: np.ndarray,
    fits: Fits,
    breaks: Sequence[int] = (),
    ratio: float = COHERENCE_RATIO,
    curve: Sequence[float] | None = None,
) -> list[int]:
    """The coherence rule as it was: each merge scans every score (``np.argmax``)."""
    count = len(vectors)
    if count < 2:
        return []
    if curve is None:
        curve = gap_similarities(vectors, 3)
    depths = depth_scores(curve)
    low = _first_true(1, count - 1, lambda gap: fits(0, gap)) - 1
    high = _first_true(1, count - 1, lambda gap: not fits(gap, count)) - 2
    valleys = [
        k + 1
        for k in range(low, high + 1)
        if depths[k] > NOISE
        and (k == low or curve[k - 1] >= curve[k])
        and (k == high or curve[k + 1] >= curve[k])
    ]
    valleys.sort(key=lambda gap: (-depths[gap - 1], gap))
    cuts = accept_in_order(valleys, count, fits, breaks)
    if not cuts:
        return []
    selves = np.einsum("ij,ij->i", vectors, vectors)
    local = float(np.mean(np.einsum("ij,ij->i", vectors[:-1], vectors[1:])))
    edges = [0, *cuts, count]
    totals = [vectors[a:b].sum(axis=0) for a, b in itertools.pairwise(edges)]
    sizes = [b - a for a, b in itertools.pairwise(edges)]
    inner = [
        _pair_sum(total, float(selves[a:b].sum()))
        for total, (a, b) in zip(totals, itertools.pairwise(edges), strict=True)
    ]
    crossing = [float(totals[k] @ totals[k + 1]) for k in range(len(totals) - 1)]

    def alike(left: int) -> float:
        a, b = left, left + 1
        pairs = sizes[a] * (sizes[a] - 1) / 2 + sizes[b] * (sizes[b] - 1) / 2
        within = (inner[a] + inner[b]) / pairs if pairs else local
        if within <= 0:
            return float("inf")
        return crossing[a] / (sizes[a] * sizes[b]) / (ratio * within)

    scores = [alike(k) for k in range(len(totals) - 1)]
    while scores:
        best = int(np.argmax(scores))
        if scores[best] < 1.0:
            break
        inner[best] += inner[best + 1] + crossing[best]
        totals[best] = totals[best] + totals[best + 1]
        sizes[best] += sizes[best + 1]
        del totals[best + 1], sizes[best + 1], inner[best + 1], edges[best + 1]
        del scores[best], crossing[best]
        if best > 0:
            crossing[best - 1] = float(totals[best - 1] @ totals[best])
            scores[best - 1] = alike(best - 1)
        if best < len(scores):
            crossing[best] = float(totals[best] @ totals[best + 1])
            scores[best] = alike(best)
    return edges[1:-1]


def plain_fit(
    self: SemanticSplitter, text: str, group: list[Span], gaps: Sequence[float | None]
) -> list[list[Span]]:
    """The size rule as it was: every start that fits tried for each chunk."""
    if self._fits(text, group[0][0], group[-1][1]):
        return [group]
    pieces: list[Span] = []
    owner: list[int] = []
    for number, span in enumerate(group):
        made = self._cut(text, span)
        pieces.extend(made)
        owner.extend([number] * len(made))
    cost: list[tuple[int, float]] = []
    for first, (start, _) in enumerate(pieces):
        if first == 0:
            cost.append((0, 0.0))
        elif owner[first] == owner[first - 1]:
            cost.append((1, 2.0))
        else:
            similarity = gaps[owner[first] - 1]
            before = text[pieces[first - 1][0] : start]
            line_end = "\n" in before[len(before.rstrip()) :]
            cost.append((0 if line_end else 1, 1.0 if similarity is None else float(similarity)))
    best: list[tuple[int, int, int, float, int]] = [(0, 0, 0, 0.0, 0)]
    for end in range(1, len(pieces) + 1):
        options: list[tuple[int, int, int, float, int]] = []
        for start in range(end - 1, -1, -1):
            tokens = self.token_counter(text[pieces[start][0] : pieces[end - 1][1]])
            if start < end - 1 and tokens > self.max_chunk_token_size:
                break
            chunks, small, off_line, similarity, _ = best[start]
            segments = owner[end - 1] - owner[start] + 1
            under = segments < self.min_sentences_per_chunk or tokens < self.min_chunk_tokens
            options.append(
                (
                    chunks + 1,
                    small + under,
                    off_line + cost[start][0],
                    similarity + cost[start][1],
                    start,
                )
            )
        best.append(min(options))
    starts: list[int] = []
    end = len(pieces)
    while end > 0:
        start = best[end][4]
        starts.append(start)
        end = start
    bounds = [*reversed(starts), len(pieces)]
    return [pieces[a:b] for a, b in itertools.pairwise(bounds)]


# -- generated vectors: topics, repeats (ties), empty segments ------------------------------


@st.composite
def documents(draw: st.DrawFn) -> tuple[np.ndarray, list[int], int, bool]:
    """Unit vectors of topics of random length (a zero vector now and then, whole
    repeated runs for exact ties), paragraph breaks, a least group size, and whether to
    pass the splitter's curve (window 1) or let the rule make its own."""
    dimension = draw(st.sampled_from([4, 16]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows: list[np.ndarray] = []
    for _ in range(draw(st.integers(1, 8))):
        direction = rng.normal(size=dimension)
        length = draw(st.integers(1, 40))
        noise = draw(st.sampled_from([0.0, 0.05, 0.3, 1.0]))
        block = direction + noise * rng.normal(size=(length, dimension))
        rows.extend(block)
    if draw(st.booleans()):  # a repeated run: equal groups, equal scores
        rows = rows + rows[: draw(st.integers(1, len(rows)))]
    vectors = np.asarray(rows, dtype=np.float64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for row in draw(st.lists(st.integers(0, len(vectors) - 1), max_size=3)):
        vectors[row] = 0.0
    breaks = sorted(draw(st.sets(st.integers(1, max(1, len(vectors) - 1)), max_size=10)))
    breaks = [b for b in breaks if b < len(vectors)]
    return vectors, breaks, draw(st.integers(1, 4)), draw(st.booleans())


@given(documents(), st.sampled_from([0.2, COHERENCE_RATIO, 0.7, 1.0]))
@settings(deadline=None, max_examples=300)
def test_the_coherence_rule_cuts_where_the_plain_scan_does(
    document: tuple[np.ndarray, list[int], int, bool], ratio: float
) -> None:
    vectors, breaks, least, own_curve = document

    def fits(first: int, end: int) -> bool:
        return end - first >= least

    curve = None if own_curve else gap_similarities(vectors, 1)
    expected = plain_coherence(vectors, fits, breaks, ratio, curve)
    assert coherence_boundaries(vectors, fits, breaks, ratio, curve) == expected


@given(st.lists(st.integers(1, 60), max_size=12, unique=True), st.integers(0, 62))
def test_snap_to_breaks_is_the_nearest_break_the_earlier_of_two(
    breaks: list[int], gap: int
) -> None:
    breaks.sort()
    assert snap_to_breaks(gap, breaks) == plain_snap(gap, breaks)


# -- the size rule on generated and real text ------------------------------------------------

WORDS = ["a", "word", "longer", "sentences", "x" * 23, "of", "topic"]


@st.composite
def texts(draw: st.DrawFn) -> str:
    """Sentences of 1-12 words, or now and then 1-40 (over a small limit), ending in a
    space, a line end or a blank line."""
    parts: list[str] = []
    for _ in range(draw(st.integers(2, 40))):
        most = draw(st.sampled_from([12, 12, 12, 40]))
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=most))
        ending = draw(st.sampled_from([" ", " ", "\n", "\n\n"]))
        parts.append(" ".join(words).capitalize() + "." + ending)
    return "".join(parts)


def words(text: str) -> int:
    """A monotone counter that is not the default one (the general path)."""
    return len(text.split()) + len(text) // 50


def both_ways(
    monkeypatch: pytest.MonkeyPatch, text: str, **options: object
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The chunks of ``text`` with the fast size rule, then with the plain one."""
    splitter = SemanticSplitter(HashingEmbedder(), **options)  # type: ignore[arg-type]
    fast = [(c.start, c.end) for c in splitter.split(text)]
    with monkeypatch.context() as patch:
        patch.setattr(splitter_module.SemanticSplitter, "_fit_at_weakest_gaps", plain_fit)
        plain = [(c.start, c.end) for c in splitter.split(text)]
    return fast, plain


@given(
    texts(),
    st.sampled_from(["adaptive", "coherence"]),
    st.sampled_from([12, 30, 64]),
    st.integers(0, 40),
    st.integers(1, 3),
    st.booleans(),
)
@settings(deadline=None, max_examples=200)
def test_the_size_rule_cuts_where_trying_every_start_does(
    text: str, rule: str, limit: int, least_tokens: int, least_segments: int, default: bool
) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, plain = both_ways(
            monkeypatch,
            text,
            boundary_rule=rule,
            max_chunk_token_size=limit,
            min_chunk_tokens=least_tokens,
            min_sentences_per_chunk=least_segments,
            token_counter=None if default else words,
        )
    assert fast == plain


LICENCES = Path("/usr/share/common-licenses")


@pytest.mark.parametrize("name", ["GPL-3", "Apache-2.0", "MPL-2.0"])
@pytest.mark.parametrize("rule", ["adaptive", "coherence"])
def test_real_licences_get_the_same_chunks_as_the_plain_versions(
    monkeypatch: pytest.MonkeyPatch, name: str, rule: str
) -> None:
    path = LICENCES / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    text = path.read_text(encoding="utf-8", errors="replace")
    fast, plain = both_ways(monkeypatch, text, boundary_rule=rule)
    assert fast == plain
    # The default counter's shortcut (tokens from offsets) against the counter called on
    # the text itself: the same chunks.
    called = SemanticSplitter(
        HashingEmbedder(), boundary_rule=rule, token_counter=lambda t: estimate_tokens(t)
    )
    assert [(c.start, c.end) for c in called.split(text)] == fast
    if rule == "coherence":
        monkeypatch.setattr(splitter_module, "coherence_boundaries", plain_coherence)
        splitter = SemanticSplitter(HashingEmbedder(), boundary_rule=rule)
        assert [(c.start, c.end) for c in splitter.split(text)] == fast
