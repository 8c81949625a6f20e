"""Small statistics for the report: Wilson score intervals for the judge's calibration.

``wilson(k, n)`` is the 95% Wilson score interval of a proportion k/n (it stays inside
[0, 1] and is sensible for small n, unlike the normal approximation). ``CalibrationRow``
turns one rule's calibration figures into what the report shows: n, the balanced accuracy
with an interval, recall and specificity each with its own interval, and whether there are
enough items (``TRUST_MIN``) to read anything into it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""
TRUST_MIN = 30
"""Under this many labelled items for a rule, its figures are marked too few to trust."""


def wilson(k: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of ``k`` successes in ``n`` trials; None when n is 0.

    Guarantees: 0 <= low <= k/n <= high <= 1."""
    if n <= 0:
        return None
    p = k / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    low, high = (centre - spread) / scale, (centre + spread) / scale
    return (max(0.0, min(low, p)), min(1.0, max(high, p)))


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    """One rule's calibration as shown: counts, estimates and 95% Wilson intervals.

    The balanced accuracy's interval is the mean of the recall's and the specificity's
    Wilson bounds (a plain, slightly conservative summary; each side's own interval is
    given too)."""

    rule: str
    n: int
    caught: int
    bad: int
    passed: int
    good: int

    @property
    def recall(self) -> tuple[float, tuple[float, float]] | None:
        interval = wilson(self.caught, self.bad)
        return None if interval is None else (self.caught / self.bad, interval)

    @property
    def specificity(self) -> tuple[float, tuple[float, float]] | None:
        interval = wilson(self.passed, self.good)
        return None if interval is None else (self.passed / self.good, interval)

    @property
    def balanced_accuracy(self) -> tuple[float, tuple[float, float]] | None:
        recall, specificity = self.recall, self.specificity
        if recall is None or specificity is None:
            return None
        return (
            (recall[0] + specificity[0]) / 2,
            ((recall[1][0] + specificity[1][0]) / 2, (recall[1][1] + specificity[1][1]) / 2),
        )

    @property
    def trusted(self) -> bool:
        """True from ``TRUST_MIN`` labelled items on."""
        return self.n >= TRUST_MIN

    @property
    def text(self) -> str:
        """``no_invention: balanced accuracy 0.85 (95% CI 0.66-0.95), n=20 (recall 9/10,
        specificity 8/10); too few items to trust``."""
        accuracy = self.balanced_accuracy
        shown = (
            "balanced accuracy n/a"
            if accuracy is None
            else f"balanced accuracy {accuracy[0]:.2f} "
            f"(95% CI {accuracy[1][0]:.2f}-{accuracy[1][1]:.2f})"
        )
        sides = f"recall {self.caught}/{self.bad}, specificity {self.passed}/{self.good}"
        trust = "" if self.trusted else f"; too few items to trust (under {TRUST_MIN})"
        return f"{self.rule}: {shown}, n={self.n} ({sides}){trust}"

    @classmethod
    def of(cls, rule: str, figures: Mapping[str, float]) -> CalibrationRow:
        """The row of one rule's figures as ``calibrate-judge`` writes them."""
        good = int(figures.get("good_items", 0))
        bad = int(figures.get("bad_items", 0))
        return cls(
            rule=rule,
            n=good + bad,
            caught=round(figures.get("recall", 0.0) * bad),
            bad=bad,
            passed=round(figures.get("specificity", 0.0) * good),
            good=good,
        )
