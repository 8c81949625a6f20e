"""The pipeline's warnings, grouped by kind for the report ("8 duplicates merged").

A warning is a :class:`PipelineWarning` of ``AgenticResponse.warnings``: something
noticed that did not fail the run, with its kind. ``warning_groups`` sorts warnings by
their recorded kind (never by their wording) and keeps every one; an unknown kind is
shown under ``other``. A plain line (an old results file) is read by
``PipelineWarning.of``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .._warning import (
    DUPLICATE_MERGED,
    EMPTY_INPUT,
    NO_PROPOSITION,
    NO_SOURCE_OFFSETS,
    OTHER_WARNING,
    OVERSIZED_CHUNK,
    POSSIBLE_DUPLICATE,
    SKIPPED_ENTRY,
    SPLIT_THEME,
    UNALIGNED_PROPOSITION,
    WARNING_KINDS,
    PipelineWarning,
)

#: Kind -> the phrase for one and for several.
_PHRASES: dict[str, tuple[str, str]] = {
    DUPLICATE_MERGED: ("duplicate merged", "duplicates merged"),
    POSSIBLE_DUPLICATE: ("possible duplicate kept", "possible duplicates kept"),
    EMPTY_INPUT: ("empty input chunk", "empty input chunks"),
    NO_PROPOSITION: ("batch gave no proposition", "batches gave no proposition"),
    SKIPPED_ENTRY: ("reply entry skipped", "reply entries skipped"),
    OVERSIZED_CHUNK: ("output chunk above the size limit", "output chunks above the size limit"),
    SPLIT_THEME: ("theme split into parts", "themes split into parts"),
    UNALIGNED_PROPOSITION: (
        "proposition without a source sentence",
        "propositions without a source sentence",
    ),
    NO_SOURCE_OFFSETS: ("input without offsets", "inputs without offsets"),
    OTHER_WARNING: ("other warning", "other warnings"),
}


@dataclass(frozen=True, slots=True)
class WarningGroup:
    """The warnings of one kind, in their original order; ``label`` reads "8 duplicates merged".

    ``lines`` are the readable messages; ``records`` the warnings themselves.
    """

    kind: str
    records: tuple[PipelineWarning, ...]

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(record.message for record in self.records)

    @property
    def label(self) -> str:
        count = len(self.records)
        one, many = _PHRASES.get(self.kind, _PHRASES[OTHER_WARNING])
        return f"{count} {one if count == 1 else many}"


def warning_kind(warning: PipelineWarning | str) -> str:
    """The kind of one warning (one of ``WARNING_KINDS``; an unknown kind is ``other``)."""
    kind = PipelineWarning.of(warning).kind
    return kind if kind in WARNING_KINDS else OTHER_WARNING


def warning_groups(warnings: Iterable[PipelineWarning | str]) -> list[WarningGroup]:
    """The warnings grouped by kind, kinds in ``WARNING_KINDS`` order, empty kinds left out."""
    grouped: dict[str, list[PipelineWarning]] = {kind: [] for kind in WARNING_KINDS}
    for warning in warnings:
        grouped[warning_kind(warning)].append(PipelineWarning.of(warning))
    return [WarningGroup(kind, tuple(found)) for kind, found in grouped.items() if found]


def warning_summary(warnings: Iterable[PipelineWarning | str]) -> str:
    """One line for a badge or a tooltip: "8 duplicates merged · 2 empty input chunks"."""
    return " · ".join(group.label for group in warning_groups(warnings))
