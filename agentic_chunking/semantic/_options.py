"""The checks of ``SemanticSplitter``'s options: each bad option raises ``InputError``
with one message naming it and the values it takes."""

from __future__ import annotations

import numpy as np

from .._errors import InputError
from ._boundaries import COHERENCE_RATIO


def check_rule(boundary_rule: str, similarity_threshold: float | None) -> None:
    """Raise ``InputError`` for an unknown boundary rule, or the coherence rule given a
    threshold (which selects Solon's)."""
    if boundary_rule not in ("adaptive", "coherence"):
        raise InputError(
            f"boundary_rule is {boundary_rule!r}; expected 'adaptive' (TextTiling "
            "depths, the default) or 'coherence' (a permutation test on whole groups)"
        )
    if boundary_rule == "coherence" and similarity_threshold is not None:
        raise InputError(
            "boundary_rule='coherence' takes no similarity_threshold (that selects "
            "Solon's rule); give one or the other"
        )


def check_counts(**counts: tuple[object, int]) -> None:
    """Raise ``InputError`` naming the first option (``name=(value, least)``) that is not
    an integer (a bool is not) of at least ``least``."""
    for name, (value, least) in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise InputError(f"{name} is {value!r}; expected an integer >= {least}")


def check_numbers(
    similarity_threshold: float | None, coherence_ratio: float, depth_cutoff: float
) -> None:
    """Raise ``InputError`` for a threshold outside [-1, 1], a coherence ratio not above
    0, or a depth cutoff that is not finite."""
    if similarity_threshold is not None and not -1.0 <= float(similarity_threshold) <= 1.0:
        raise InputError(
            f"similarity_threshold is {similarity_threshold!r}; expected a cosine "
            "similarity between -1 and 1 (Solon's default is 0.5), or None for the "
            "adaptive rule"
        )
    if not (np.isfinite(float(coherence_ratio)) and float(coherence_ratio) > 0):
        raise InputError(
            f"coherence_ratio is {coherence_ratio!r}; expected a number above 0 (the "
            f"default, {COHERENCE_RATIO}, keeps two groups apart when their sentences "
            "are less than 0.4 times as alike across as within)"
        )
    if not np.isfinite(float(depth_cutoff)):
        raise InputError(f"depth_cutoff is {depth_cutoff!r}; expected a finite number")
