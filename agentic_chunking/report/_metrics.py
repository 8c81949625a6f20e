"""Granularity: how far a case's counts and themes are from its soft expectations.

Deviations are soft: they are shown and explained in the report, never failures. A count
deviates when it falls outside the case's inclusive range; an expected theme is missing
when no ThematicCategory carries it, by its words' stems or by meaning (``_themes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._records import METRICS, Range
from ._results import CaseResult
from ._themes import theme_matches

# What a count outside its range usually means, per metric and direction.
_HINTS = {
    ("chunks", "above"): "the grouper split themes more finely than expected "
    "(seed 000 saw broad domains subdivided into sub-themes)",
    ("chunks", "below"): "themes were merged more broadly than expected; "
    "check that no chunk mixes unrelated domains",
    ("propositions", "above"): "extraction split the text more finely than expected",
    ("propositions", "below"): "extraction was coarser than expected, or propositions "
    "were dropped; check the partition verdict",
    ("tokens", "above"): "propositions expanded more than expected "
    "(resolved pronouns repeat their subjects)",
    ("tokens", "below"): "less text came out than expected; check for dropped content",
}


@dataclass(frozen=True, slots=True)
class MetricStatus:
    """One count of one case against its expected range and the seed's figure."""

    metric: str
    actual: int | None
    expected: Range | None
    seed: int | None
    direction: str  # "in", "above", "below", "unknown" (no range or no response)
    explanation: str

    @property
    def deviates(self) -> bool:
        return self.direction in ("above", "below")

    @property
    def expected_text(self) -> str:
        if self.expected is None:
            return ""
        low, high = self.expected
        return str(low) if low == high else f"{low}-{high}"

    @property
    def seed_delta(self) -> int | None:
        if self.seed is None or self.actual is None:
            return None
        return self.actual - self.seed


def metric_status(case: CaseResult, metric: str) -> MetricStatus:
    """Compare one count of ``case`` with its range; explain a deviation in a sentence."""
    actual = case.counts[metric]
    expected = case.expected.range_of(metric)
    seed = None if case.expected.seed is None else case.expected.seed.get(metric)
    if actual is None:
        reason = case.error or "the pipeline gave no response"
        return MetricStatus(metric, None, expected, seed, "unknown", f"no count: {reason}")
    if expected is None:
        return MetricStatus(metric, actual, None, seed, "unknown", "no expected range")
    low, high = expected
    if low <= actual <= high:
        return MetricStatus(metric, actual, expected, seed, "in", "")
    direction = "above" if actual > high else "below"
    gap = actual - high if actual > high else low - actual
    text = f"{actual} {metric} is {gap} {direction} the expected {low}-{high}: "
    text += _hint(case, metric, direction)
    if seed is not None:
        text += f"; seed 000 reported {seed}"
    return MetricStatus(metric, actual, expected, seed, direction, text)


def _hint(case: CaseResult, metric: str, direction: str) -> str:
    """What the deviation usually means, only where that applies: a failed run or a case
    that expects a clean failure has no output to explain by granularity."""
    if case.expected_error is not None:
        if case.response is not None and case.response.is_success:
            return "the case expects a clean failure with no output, but the run succeeded"
        return "the case expects a clean failure with no output"
    if case.response is not None and not case.response.is_success:
        return "the run failed, so there is no output to count"
    return _HINTS[(metric, direction)]


def metric_statuses(case: CaseResult) -> list[MetricStatus]:
    """The status of every count of ``case``, in the order chunks, propositions, tokens."""
    return [metric_status(case, m) for m in METRICS]


def theme_found(expected: str, categories: Sequence[str]) -> bool:
    """True when some category carries ``expected`` by its words' stems ("batteries" in
    "Battery Technology") or by meaning ("Zoning" in "Land-Use Regulation", with the
    semantic extra): ``report._themes.theme_matches``."""
    return theme_matches(expected, categories)


def missing_themes(case: CaseResult) -> list[str]:
    """The expected themes that no ThematicCategory of the case's response carries."""
    if case.response is None:
        return []
    return [t for t in case.expected.themes if not theme_found(t, case.themes)]


def deviation_notes(case: CaseResult) -> list[str]:
    """Every soft deviation of the case, one short explanation each (empty when none)."""
    notes = [s.explanation for s in metric_statuses(case) if s.deviates]
    notes += [f"expected theme {t!r} is not among the categories" for t in missing_themes(case)]
    return notes
