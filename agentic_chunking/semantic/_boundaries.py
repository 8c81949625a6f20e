"""Where to cut: the three boundary rules of the Level 4 splitter, as pure functions.

Each returns the indices of the segments that start a new
semantic group (never 0), in increasing order.

- **Adaptive** (the default): TextTiling (Hearst 1997) on sentence embeddings. The
  similarity at gap ``i`` (between segments ``i - 1`` and ``i``) is the cosine of the mean
  vector of the ``W`` segments before it with that of the ``W`` segments after it (fewer at
  the ends). A gap's *depth* is how far the curve climbs on each side before it turns
  down: ``(left peak - s) + (right peak - s)``. A gap is a candidate when its depth is at
  least ``cutoff`` robust standard deviations over the median depth of the valleys (gaps
  of positive depth, float noise aside): a robust z-score, ``(depth - median) / (1.4826 *
  MAD)``. So the rule follows each document's and each embedder's own distribution, not
  an absolute cosine, and the true boundaries, the outliers it looks for, do not inflate
  the scale they are measured by (as they do a mean and standard deviation when topics
  are short).
  When the text has paragraph breaks, each candidate first moves to the nearest one
  (TextTiling's own last step): authors mark a shift of topic with a paragraph break, and
  a dip found between two sentences of a paragraph is the shift located to within the
  window, not a reason to cut the paragraph. Candidates are accepted deepest first, each
  only when both groups it would create keep ``min_sentences`` segments and
  ``min_tokens`` tokens.
- **Threshold** (Solon AI's rule): segment ``i`` starts a group when its similarity to the
  window before it is below the threshold and at least ``min_sentences`` segments (and
  ``min_tokens`` tokens) lie since the last boundary.
- **Coherence** (``coherence_boundaries``): decides from whole groups, not from a dip. The
  finest segmentation the group rule allows (every valley of the curve), then the two
  neighbouring groups most alike merged, again and again, while the sentences across them
  are at least ``COHERENCE_RATIO`` times as alike as the sentences within them. The
  document's own sentences of one topic set the scale, so one topic is one group at any
  length (``benchmarks/bench_topic_segmentation.py``).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Callable, Sequence

import numpy as np

# Fits the groups between two boundaries: (first segment, end segment) -> whether it may stand.
GroupFits = Callable[[int, int], bool]


def gap_similarities(vectors: np.ndarray, window: int) -> list[float]:
    """Return, for each gap ``i`` in ``1..N-1``, the cosine of the mean vectors either side.

    ``vectors`` holds one unit vector per segment (a zero vector for an empty one); the
    block before gap ``i`` is segments ``max(0, i - window)..i-1``, the block after it
    ``i..min(N, i + window)-1``. A zero mean (nothing to compare) gives similarity 0.
    """
    count = len(vectors)
    if count < 2:
        return []
    prefix = np.vstack([np.zeros((1, vectors.shape[1])), np.cumsum(vectors, axis=0)])
    scores: list[float] = []
    for gap in range(1, count):
        before = prefix[gap] - prefix[max(0, gap - window)]
        after = prefix[min(count, gap + window)] - prefix[gap]
        norm = float(np.linalg.norm(before) * np.linalg.norm(after))
        scores.append(float(before @ after) / norm if norm > 0 else 0.0)
    return scores


def depth_scores(similarities: Sequence[float]) -> list[float]:
    """Return TextTiling's depth of each point: the climb to the peak on each side, summed.

    From each point the curve is followed left (then right) while it does not go down; the
    depth is ``(left peak - s) + (right peak - s)``: always ``>= 0``, 0 where neither
    neighbour is higher, and positive on a slope (one side climbs) as well as in a valley.
    """
    values = list(similarities)
    count = len(values)
    # The peak reached climbing left (right) from i is the one reached from i - 1 (i + 1)
    # when that neighbour is not lower: one pass each way, linear in the curve's length.
    left = values[:]
    for i in range(1, count):
        if values[i - 1] >= values[i]:
            left[i] = left[i - 1]
    right = values[:]
    for i in range(count - 2, -1, -1):
        if values[i + 1] >= values[i]:
            right[i] = right[i + 1]
    return [(left[i] - values[i]) + (right[i] - values[i]) for i in range(count)]


# The window of the curve whose valleys are the coherence rule's first candidates, when
# the caller gives none.
COHERENCE_WINDOW = 3
# Depths below this are float noise (the same block compared twice), not valleys.
NOISE = 1e-9
# Scales the median absolute deviation to the standard deviation of a normal distribution.
MAD_TO_SIGMA = 1.4826


def depth_cutoff(depths: Sequence[float], cutoff: float) -> float:
    """Return the least depth a candidate needs: ``median + cutoff * 1.4826 * MAD``.

    Over the valleys (depths above float noise) only; infinite when there is none.
    """
    valleys = np.asarray([d for d in depths if d > NOISE], dtype=np.float64)
    if valleys.size == 0:
        return float("inf")
    median = float(np.median(valleys))
    spread = MAD_TO_SIGMA * float(np.median(np.abs(valleys - median)))
    return median + cutoff * spread


def snap_to_breaks(gap: int, breaks: Sequence[int]) -> int:
    """Return the gap of ``breaks`` (the gaps at paragraph breaks, increasing) nearest
    ``gap``: ``gap`` itself when it is one; of two equally near, the earlier; ``gap`` when
    there is none."""
    at = bisect.bisect_left(breaks, gap)  # breaks[:at] < gap <= breaks[at:]
    if at == len(breaks):
        return breaks[at - 1] if at else gap
    after = breaks[at]
    if after == gap or at == 0:
        return after
    before = breaks[at - 1]
    return before if gap - before <= after - gap else after


def adaptive_boundaries(
    similarities: Sequence[float], cutoff: float, fits: GroupFits, breaks: Sequence[int] = ()
) -> list[int]:
    """Return the segments starting a group, by depth z-score (see the module docstring).

    ``similarities[k]`` is the similarity at gap ``k + 1``; ``fits(a, b)`` says whether
    segments ``a..b-1`` may form a group. ``breaks`` are the gaps at paragraph breaks
    (increasing): when there are any, a candidate the group rule accepts where it was
    found then moves to the nearest of them (``snap_to_breaks``), where the group rule
    must hold again; one already taken there adds nothing. So a dip that would leave a
    group too small where it lies (a dip at a text's edge, where the windows are short)
    is not rescued by a break further in. The result is deterministic: equal depths are
    taken left to right.
    """
    depths = depth_scores(similarities)
    least = depth_cutoff(depths, cutoff)
    candidates = sorted(
        (k + 1 for k, depth in enumerate(depths) if depth > NOISE and depth >= least),
        key=lambda gap: (-depths[gap - 1], gap),
    )
    return accept_in_order(candidates, len(similarities) + 1, fits, breaks)


def accept_in_order(
    candidates: Sequence[int], count: int, fits: GroupFits, breaks: Sequence[int] = ()
) -> list[int]:
    """Return the ``candidates`` (gaps, in the order to try them) that the group rule
    accepts, each moved to the nearest paragraph break (``adaptive_boundaries``), sorted."""
    chosen: list[int] = []  # increasing

    def stands(gap: int) -> bool:
        left = bisect.bisect_left(chosen, gap)  # the chosen before gap: chosen[:left]
        right = bisect.bisect_right(chosen, gap)  # the chosen after gap: chosen[right:]
        before = chosen[left - 1] if left else 0
        after = chosen[right] if right < len(chosen) else count
        return fits(before, gap) and fits(gap, after)

    for found in candidates:
        placed = snap_to_breaks(found, breaks)
        at = bisect.bisect_left(chosen, placed)
        taken = at < len(chosen) and chosen[at] == placed
        if not taken and (placed == found or stands(found)) and stands(placed):
            bisect.insort(chosen, placed)
    return chosen


def threshold_boundaries(
    similarities: Sequence[float], first: int, threshold: float, fits: GroupFits
) -> list[int]:
    """Return Solon's boundaries: ``similarities[k]`` belongs to segment ``first + k``.

    A segment whose similarity is below ``threshold`` starts a group when the group it
    closes fits (``fits(last boundary, segment)``), scanning left to right.
    """
    cuts = [0]
    for offset, score in enumerate(similarities):
        segment = first + offset
        if score < threshold and fits(cuts[-1], segment):
            cuts.append(segment)
    return cuts[1:]


# -- the coherence rule: whole groups compared, merged while they read as one topic --------

COHERENCE_RATIO = 0.4
"""Two neighbouring groups stay apart only when a sentence of one is, on average, less
than this share as similar to a sentence of the other as sentences of one group are to
each other (see ``coherence_boundaries``)."""


def _first_true(low: int, high: int, test: Callable[[int], bool]) -> int:
    """The least ``x`` in ``low..high`` with ``test(x)``, ``test`` false then true;
    ``high + 1`` when there is none."""
    while low <= high:
        middle = (low + high) // 2
        if test(middle):
            high = middle - 1
        else:
            low = middle + 1
    return low


def _pair_sum(total: np.ndarray, selves: float) -> float:
    """The sum of the cosines of a group's distinct pairs, from its summed unit vectors
    (``total``) and its own squared norms (``selves``: 1 a segment, 0 an empty one)."""
    return (float(total @ total) - selves) / 2.0


def coherence_boundaries(
    vectors: np.ndarray,
    fits: GroupFits,
    breaks: Sequence[int] = (),
    ratio: float = COHERENCE_RATIO,
    curve: Sequence[float] | None = None,
) -> list[int]:
    """Return the segments starting a group: topics as whole groups, not dips in a curve.

    ``vectors`` holds one unit vector per segment (a zero vector for an empty one). First
    the finest segmentation the group rule allows: every valley of the gap-similarity
    curve (a gap no higher than either neighbour, of positive depth) is a candidate,
    deepest first, each kept when both groups it makes fit (``fits``), moved to the
    nearest paragraph break when the text has any (``accept_in_order``, as in
    ``adaptive_boundaries`` but with no depth bar). Then, repeatedly, the two neighbouring
    groups most alike are merged, while they are alike: groups ``A`` and ``B`` are alike
    when the mean cosine of a segment of ``A`` with a segment of ``B`` is at least
    ``ratio`` times the mean cosine of two segments of the same group (the pairs inside
    ``A`` and inside ``B`` together), or when that within-group mean is not positive
    (nothing coherent to keep apart). The scale is the document's own: how alike its
    sentences of one topic are, which sets no absolute cosine and does not change with
    the document's length (a longer stretch of one topic drifts, but the sentences across
    any cut in it stay about as alike as those on either side), so a single-topic
    document is merged whole at any length, and a cut stays where the sentences either
    side are strangers. Two groups of one segment each (no pair inside either) take the
    document's mean cosine of neighbouring segments as their within-group mean.
    Deterministic: of equal scores, the leftmost pair merges first. ``curve`` is the curve
    of candidates, ``gap_similarities(vectors, W)`` (default: computed with ``W`` 3; the
    splitter passes its own, at its ``similarity_window``). Cost: the curve, then one
    pass of merges, each ``O(log groups + dimension)``.
    """
    count = len(vectors)
    if count < 2:
        return []
    if curve is None:
        curve = gap_similarities(vectors, COHERENCE_WINDOW)
    cuts = _finest_cuts(curve, count, fits, breaks)
    if not cuts:
        return []
    return _merge_alike(vectors, cuts, ratio)


def _finest_cuts(
    curve: Sequence[float], count: int, fits: GroupFits, breaks: Sequence[int]
) -> list[int]:
    """The finest segmentation the group rule allows (``coherence_boundaries``' first
    step): every valley of ``curve``, deepest first, kept when both groups fit."""
    depths = depth_scores(curve)
    # Valleys of the curve over the gaps a cut may take at all (both groups fit), so that a
    # curve still falling where the group rule stops (a topic at a text's edge, shorter
    # than the window) has its valley at the last gap allowed.
    low = _first_true(1, count - 1, lambda gap: fits(0, gap)) - 1
    high = _first_true(1, count - 1, lambda gap: not fits(gap, count)) - 2
    # The gaps k + 1, k in low..high, with depths[k] > NOISE, no higher than the curve on
    # the left (or k == low) and on the right (or k == high): compared as arrays.
    valleys: list[int] = []
    if low <= high:
        values = np.asarray(curve[low : high + 1], dtype=np.float64)
        low_point = np.asarray(depths[low : high + 1]) > NOISE
        low_point[1:] &= values[:-1] >= values[1:]
        low_point[:-1] &= values[1:] >= values[:-1]
        valleys = (np.flatnonzero(low_point) + (low + 1)).tolist()
    valleys.sort(key=lambda gap: (-depths[gap - 1], gap))
    return accept_in_order(valleys, count, fits, breaks)


class _Groups:
    """The groups between ``cuts`` as they merge (``coherence_boundaries``' second step).

    Groups keep the position they had in ``edges`` (a merge keeps the left one), linked
    to their live neighbours; per group its vectors' sum (``totals``), its size, the sum of
    the cosines of its pairs (``inner``) and the dot product of its sum with the next live
    group's (``crossing``). The pairs wait in a heap (``queue``) keyed by score then
    position; an entry whose group has died or been rescored since it was pushed
    (``stamp``) is stale.
    """

    def __init__(self, vectors: np.ndarray, cuts: list[int], ratio: float) -> None:
        count = len(vectors)
        self.vectors, self.ratio = vectors, ratio
        selves = np.einsum("ij,ij->i", vectors, vectors)
        self.local: list[float] = []  # the mean cosine of neighbouring segments, once needed
        self.edges = edges = [0, *cuts, count]
        # ``np.add.reduce`` is what ``ndarray.sum`` calls (the same sums, bit for bit),
        # without its Python wrapper: one call per group.
        add = np.add.reduce
        totals = [add(vectors[a:b], axis=0) for a, b in itertools.pairwise(edges)]
        self.totals = totals
        self.sizes = [b - a for a, b in itertools.pairwise(edges)]
        self.inner = [
            _pair_sum(total, float(add(selves[a:b])))
            for total, (a, b) in zip(totals, itertools.pairwise(edges), strict=True)
        ]
        self.crossing = [float(totals[k] @ totals[k + 1]) for k in range(len(totals) - 1)]
        self.following = [*range(1, len(totals)), -1]  # the next live group, -1 after
        self.preceding = list(range(-1, len(totals) - 1))  # the previous, -1 before
        self.live = [True] * len(totals)
        self.stamp = [0] * len(totals)  # bumped whenever the pair a group starts is rescored
        self.queue: list[tuple[int, float, int, int]] = []

    def alike(self, a: int, b: int) -> float:
        """How alike group ``a`` and the next live group ``b`` are: across (``crossing[a]``)
        over ``ratio`` times within."""
        sizes, local = self.sizes, self.local
        pairs = sizes[a] * (sizes[a] - 1) / 2 + sizes[b] * (sizes[b] - 1) / 2
        if not pairs and not local:
            vectors = self.vectors
            local.append(float(np.mean(np.einsum("ij,ij->i", vectors[:-1], vectors[1:]))))
        within = (self.inner[a] + self.inner[b]) / pairs if pairs else local[0]
        if within <= 0:
            return float("inf")
        return self.crossing[a] / (sizes[a] * sizes[b]) / (self.ratio * within)

    def push(self, left: int, score: float) -> None:
        """Queue the pair group ``left`` starts, at ``score`` (a NaN sorts first)."""
        number = score == score  # False for a NaN
        entry = (int(number), -score if number else 0.0, left, self.stamp[left])
        heapq.heappush(self.queue, entry)

    def merge(self, best: int) -> None:
        """Merge group ``best`` with the next live one and rescore its two pairs."""
        totals, following, preceding = self.totals, self.following, self.preceding
        right = following[best]
        self.inner[best] += self.inner[right] + self.crossing[best]
        totals[best] = totals[best] + totals[right]
        self.sizes[best] += self.sizes[right]
        self.live[right] = False
        following[best] = following[right]
        if following[best] >= 0:
            preceding[following[best]] = best
        left = preceding[best]
        if left >= 0:
            self.crossing[left] = float(totals[left] @ totals[best])
            self.stamp[left] += 1
            self.push(left, self.alike(left, best))
        self.stamp[best] += 1
        if following[best] >= 0:
            self.crossing[best] = float(totals[best] @ totals[following[best]])
            self.push(best, self.alike(best, following[best]))


def _merge_alike(vectors: np.ndarray, cuts: list[int], ratio: float) -> list[int]:
    """Merge the neighbouring groups between ``cuts`` most alike, while they are alike
    (``coherence_boundaries``' second step); return the cuts left.

    Of equal scores the leftmost pair merges first, as ``np.argmax`` over the pairs in
    order would pick (a NaN first). Each merge costs O(log groups) besides its two
    rescorings, where a scan of every score costs O(groups).
    """
    groups = _Groups(vectors, cuts, ratio)
    for k in range(len(groups.totals) - 1):
        groups.push(k, groups.alike(k, k + 1))
    queue, live, stamp, following = groups.queue, groups.live, groups.stamp, groups.following
    while queue:
        number, negated, best, pushed = heapq.heappop(queue)
        if not live[best] or pushed != stamp[best] or following[best] < 0:
            continue
        if number and -negated < 1.0:  # a NaN (number 0) merges, as argmax takes it
            break
        groups.merge(best)
    return [groups.edges[k] for k in range(1, len(groups.totals)) if live[k]]
