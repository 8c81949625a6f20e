"""The pipeline's warnings, grouped by kind for the report ("8 duplicates merged").

A warning is a line of ``AgenticResponse.warnings``: something noticed that did not fail
the run. ``warning_groups`` sorts each line into one known kind by its wording (the
pipeline's own phrases) and keeps every line; a line of no known kind is ``other``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

#: Kind, pattern on the line, and the phrase for one and for several.
_KINDS: tuple[tuple[str, re.Pattern[str], str, str], ...] = (
    (
        "duplicate",
        re.compile(r"^duplicate merged before grouping"),
        "duplicate merged",
        "duplicates merged",
    ),
    (
        "empty_input",
        re.compile(r"^input chunk .* is empty"),
        "empty input chunk",
        "empty input chunks",
    ),
    (
        "no_proposition",
        re.compile(r" gave no proposition"),
        "batch gave no proposition",
        "batches gave no proposition",
    ),
    (
        "skipped_entry",
        re.compile(r"^entry \d+ skipped"),
        "reply entry skipped",
        "reply entries skipped",
    ),
)
WARNING_KINDS = (*(kind for kind, *_ in _KINDS), "other")


@dataclass(frozen=True, slots=True)
class WarningGroup:
    """The warnings of one kind, in their original order; ``label`` reads "8 duplicates merged"."""

    kind: str
    lines: tuple[str, ...]

    @property
    def label(self) -> str:
        count = len(self.lines)
        for kind, _, one, many in _KINDS:
            if kind == self.kind:
                return f"{count} {one if count == 1 else many}"
        return f"{count} other warning{'' if count == 1 else 's'}"


def warning_kind(line: str) -> str:
    """The kind of one warning line (one of ``WARNING_KINDS``)."""
    return next((kind for kind, pattern, *_ in _KINDS if pattern.search(line)), "other")


def warning_groups(lines: Iterable[str]) -> list[WarningGroup]:
    """The warnings grouped by kind, kinds in ``WARNING_KINDS`` order, empty kinds left out."""
    grouped: dict[str, list[str]] = {kind: [] for kind in WARNING_KINDS}
    for line in lines:
        grouped[warning_kind(line)].append(line)
    return [WarningGroup(kind, tuple(found)) for kind, found in grouped.items() if found]


def warning_summary(lines: Iterable[str]) -> str:
    """One line for a badge or a tooltip: "8 duplicates merged · 2 empty input chunks"."""
    return " · ".join(group.label for group in warning_groups(lines))
