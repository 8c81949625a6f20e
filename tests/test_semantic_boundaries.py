"""The boundary rules as pure functions: hand-computed values, and properties for any curve."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic_chunking.semantic._boundaries import (
    MAD_TO_SIGMA,
    adaptive_boundaries,
    depth_cutoff,
    depth_scores,
    gap_similarities,
    snap_to_breaks,
    threshold_boundaries,
)


def always(first: int, end: int) -> bool:
    return True


def test_gap_similarities_compare_the_mean_of_each_side() -> None:
    e1, e2 = [1.0, 0.0], [0.0, 1.0]
    vectors = np.array([e1, e1, e2, e2])
    assert gap_similarities(vectors, 1) == pytest.approx([1.0, 0.0, 1.0])
    # W=2: gap 1 compares e1 with mean(e1, e2), gap 2 e1 with e2, gap 3 mean(e1, e2) with e2.
    assert gap_similarities(vectors, 2) == pytest.approx([math.sqrt(0.5), 0.0, math.sqrt(0.5)])


def test_gap_similarities_of_a_zero_side_are_zero_and_short_input_has_no_gap() -> None:
    assert gap_similarities(np.array([[0.0, 0.0], [1.0, 0.0]]), 1) == [0.0]
    assert gap_similarities(np.array([[1.0, 0.0]]), 3) == []


def test_depth_is_the_climb_to_the_peak_on_each_side() -> None:
    # Index 1: up to 0.9 on the left (0.4), 0.8 on the right (0.3); index 3: 0.5 + 0.4.
    assert depth_scores([0.9, 0.5, 0.8, 0.3, 0.7]) == pytest.approx([0, 0.7, 0, 0.9, 0])
    assert depth_scores([0.5, 0.5, 0.5]) == [0, 0, 0]
    # The climb crosses a plateau: 0.2's left peak is 0.8, through the flat 0.4s.
    assert depth_scores([0.8, 0.4, 0.4, 0.2, 0.6]) == pytest.approx([0, 0.4, 0.4, 1.0, 0])


def test_the_cutoff_is_a_robust_z_score_over_the_valleys() -> None:
    # Valleys 0.7 and 0.9: median 0.8, MAD 0.1.
    assert depth_cutoff([0, 0.7, 0, 0.9, 0], 1.0) == pytest.approx(0.8 + MAD_TO_SIGMA * 0.1)
    assert depth_cutoff([0, 0.7, 0, 0.9, 0], 0.0) == pytest.approx(0.8)
    assert depth_cutoff([0.0, 0.0], 1.0) == math.inf
    assert depth_cutoff([], 1.0) == math.inf


DIP = [0.8, 0.78, 0.8, 0.79, 0.1, 0.8, 0.79, 0.8, 0.78, 0.8]  # gaps 1..10, the dip at gap 5


def test_a_deep_dip_is_a_boundary_and_the_wiggles_are_not() -> None:
    assert adaptive_boundaries(DIP, 1.0, always) == [5]


def test_a_curve_without_a_valley_has_no_boundary() -> None:
    assert adaptive_boundaries([0.9, 0.8, 0.7, 0.6], 1.0, always) == []
    assert adaptive_boundaries([0.5] * 6, -5.0, always) == []
    noise = [1.0, 1.0 - 1e-12, 1.0, 1.0 - 2e-12, 1.0, 1.0 - 1e-12, 1.0]  # one text twice
    assert adaptive_boundaries(noise, -5.0, always) == []


def test_a_boundary_that_would_leave_a_group_too_small_is_refused() -> None:
    assert adaptive_boundaries(DIP, 1.0, lambda first, end: end - first >= 6) == []
    assert adaptive_boundaries(DIP, 1.0, lambda first, end: end - first >= 5) == [5]


def test_the_deeper_of_two_neighbouring_candidates_wins() -> None:
    # Gaps 2 (depth 0.6) and 3 (depth 1.4) are one segment apart; groups need two.
    curve = [0.8, 0.2, 0.1, 0.8, 0.8, 0.79, 0.8, 0.8]
    assert adaptive_boundaries(curve, 0.0, lambda first, end: end - first >= 2) == [3]


def test_a_gap_snaps_to_the_nearest_paragraph_break() -> None:
    assert snap_to_breaks(5, [2, 6, 9]) == 6
    assert snap_to_breaks(5, [5, 9]) == 5  # already at a break: stays
    assert snap_to_breaks(5, [3, 7]) == 3  # equally near: the earlier
    assert snap_to_breaks(5, [1]) == 1 and snap_to_breaks(5, [20]) == 20  # any distance
    assert snap_to_breaks(5, []) == 5  # no paragraph break: the gap stays


def test_a_boundary_between_sentences_moves_to_the_nearest_paragraph_break() -> None:
    # The dip is at gap 5; the author's paragraphs end at gaps 4 and 8.
    assert adaptive_boundaries(DIP, 1.0, always, [4, 8]) == [4]
    assert adaptive_boundaries(DIP, 1.0, always, [5, 8]) == [5]
    # Without a paragraph break the dip decides alone.
    assert adaptive_boundaries(DIP, 1.0, always, []) == [5]
    # A moved boundary still obeys the group rule (five segments a group here).
    assert adaptive_boundaries(DIP, 1.0, lambda first, end: end - first >= 5, [4]) == []


def test_a_dip_the_group_rule_refuses_where_it_lies_is_not_rescued_by_a_break() -> None:
    edge = [0.1, 0.8, 0.79, 0.8, 0.78, 0.8, 0.8]  # a dip at gap 1: one segment before it
    two = lambda first, end: end - first >= 2  # noqa: E731
    assert adaptive_boundaries(edge, 1.0, always) == [1]
    assert adaptive_boundaries(edge, 1.0, two) == []
    assert adaptive_boundaries(edge, 1.0, two, [3]) == []  # not moved to 3 to pass
    assert adaptive_boundaries(edge, 1.0, always, [3]) == [3]


def test_two_candidates_that_land_on_one_break_are_one_boundary() -> None:
    curve = [0.8, 0.8, 0.1, 0.8, 0.15, 0.8, 0.8, 0.8]  # dips at gaps 3 and 5
    assert adaptive_boundaries(curve, -5.0, always) == [3, 5]
    assert adaptive_boundaries(curve, -5.0, always, [4]) == [4]


def test_threshold_boundaries_are_solons_left_to_right_scan() -> None:
    fits = lambda first, end: end - first >= 2  # noqa: E731
    assert threshold_boundaries([0.9, 0.2, 0.1, 0.9], 1, 0.5, fits) == [2]
    assert threshold_boundaries([0.9, 0.2, 0.1, 0.9], 1, 0.5, always) == [2, 3]
    assert threshold_boundaries([0.9, 0.2, 0.1, 0.9], 1, 0.05, always) == []


@given(
    curve=st.lists(st.floats(-1, 1), max_size=40),
    cutoff=st.floats(-3, 3),
    least=st.integers(1, 5),
)
def test_adaptive_boundaries_are_ordered_inside_and_respect_the_group_rule(
    curve: list[float], cutoff: float, least: int
) -> None:
    fits = lambda first, end: end - first >= least  # noqa: E731
    for breaks in ([], sorted(set(breaks_in(curve)))):
        found = adaptive_boundaries(curve, cutoff, fits, breaks)
        assert found == sorted(set(found))
        assert all(1 <= gap <= len(curve) for gap in found)
        if breaks:  # with paragraph breaks, every boundary is one of them
            assert set(found) <= set(breaks)
        if found:
            edges = [0, *found, len(curve) + 1]
            assert all(fits(a, b) for a, b in itertools.pairwise(edges))
    assert all(d >= 0 for d in depth_scores(curve))


def breaks_in(curve: list[float]) -> list[int]:
    """Some gaps of ``curve`` (every third), to stand for paragraph breaks."""
    return list(range(1, len(curve) + 1, 3))


def _naive_depths(values: list[float]) -> list[float]:
    """TextTiling's definition, climbing point by point (quadratic)."""
    depths = []
    for i, value in enumerate(values):
        left = i
        while left > 0 and values[left - 1] >= values[left]:
            left -= 1
        right = i
        while right < len(values) - 1 and values[right + 1] >= values[right]:
            right += 1
        depths.append((values[left] - value) + (values[right] - value))
    return depths


@given(st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.5, 0.9, -0.3]), max_size=30))
def test_the_linear_depths_equal_the_definition(curve: list[float]) -> None:
    assert depth_scores(curve) == pytest.approx(_naive_depths(curve))
