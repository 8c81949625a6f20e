"""Where to cut: the two boundary rules of the Level 4 splitter, as pure functions.

Both work on a similarity curve and return the indices of the segments that start a new
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
"""

from __future__ import annotations

import bisect
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
    at = bisect.bisect_left(breaks, gap)
    near = breaks[max(0, at - 1) : at + 1]
    return min(near, key=lambda b: (abs(b - gap), b), default=gap)


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
    count = len(similarities) + 1
    candidates = sorted(
        (k + 1 for k, depth in enumerate(depths) if depth > NOISE and depth >= least),
        key=lambda gap: (-depths[gap - 1], gap),
    )
    chosen: list[int] = []

    def stands(gap: int) -> bool:
        before = max((c for c in chosen if c < gap), default=0)
        after = min((c for c in chosen if c > gap), default=count)
        return fits(before, gap) and fits(gap, after)

    for found in candidates:
        placed = snap_to_breaks(found, breaks)
        if placed not in chosen and stands(found) and stands(placed):
            chosen.append(placed)
    return sorted(chosen)


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
