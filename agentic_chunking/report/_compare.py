"""Run against run: what moved between a reference run and each other run, case by case.

The reference is the baseline when one is given, else the first run. Moves come in three
kinds, in the order a reader needs them: ``verdict`` (a case's outcome or a substance check
changed, or a case is missing), ``count`` (a count left or re-entered its soft range, or
moved while outside it), ``theme`` (ThematicCategory labels appeared or vanished, or an
expected theme was lost or regained). Only a ``verdict`` regression makes a change unsafe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._metrics import metric_status, missing_themes
from ._records import METRICS
from ._results import CaseResult, RunResults

KINDS = ("verdict", "count", "theme")
_GOOD = {"passed": 0, "failed": 1, "error": 2}


@dataclass(frozen=True, slots=True)
class Column:
    """One run as a column of the comparison, with a label unique among the columns."""

    label: str
    run: RunResults
    is_baseline: bool = False


@dataclass(frozen=True, slots=True)
class Move:
    """One thing that changed in ``case_id`` from the reference to the column ``label``.

    ``severity`` is ``regression``, ``improvement`` or ``change`` (neither better nor worse).
    """

    kind: str
    case_id: str
    label: str
    severity: str
    text: str


@dataclass(frozen=True, slots=True)
class Comparison:
    """The columns side by side and every move, verdicts first."""

    columns: tuple[Column, ...]
    moves: tuple[Move, ...]

    @property
    def reference(self) -> Column:
        return self.columns[0]

    @property
    def case_ids(self) -> list[str]:
        """Every case id of any column, in first-seen order."""
        seen: dict[str, None] = {}
        for column in self.columns:
            seen.update((c.id, None) for c in column.run.cases)
        return list(seen)

    def of_kind(self, kind: str) -> list[Move]:
        return [m for m in self.moves if m.kind == kind]

    @property
    def verdict_regressions(self) -> list[Move]:
        return [m for m in self.of_kind("verdict") if m.severity == "regression"]

    @property
    def safe(self) -> bool:
        """True when no substance verdict got worse in any column."""
        return not self.verdict_regressions


def column_labels(runs: Sequence[RunResults], baseline: RunResults | None) -> list[str]:
    """Labels for the baseline (if any) then the runs: the model id, made unique."""
    everything = ([baseline] if baseline is not None else []) + list(runs)
    labels: list[str] = []
    for index, run in enumerate(everything):
        label = run.model
        if sum(r.model == run.model for r in everything) > 1:
            label = f"{run.model} @ {run.created_at or index}"
        if baseline is not None and index == 0:
            label = f"baseline: {label}"
        while label in labels:
            label += "'"
        labels.append(label)
    return labels


def _verdict_move(ref: CaseResult, new: CaseResult, label: str) -> Move | None:
    flips = []
    for name, check in new.ordered_checks():
        before = ref.checks[name].verdict if name in ref.checks else "absent"
        if before != check.verdict:
            flips.append(f"{name}: {before} → {check.verdict}")
    if ref.outcome == new.outcome and not flips:
        return None
    worse = _GOOD[new.outcome] > _GOOD[ref.outcome] or any(f.endswith("→ fail") for f in flips)
    better = _GOOD[new.outcome] < _GOOD[ref.outcome]
    severity = "regression" if worse else "improvement" if better else "change"
    text = f"{ref.outcome} → {new.outcome}" if ref.outcome != new.outcome else new.outcome
    if flips:
        text += " (" + "; ".join(flips) + ")"
    if new.error and new.outcome == "error":
        text += f": {new.error}"
    return Move("verdict", new.id, label, severity, text)


def _count_moves(ref: CaseResult, new: CaseResult, label: str) -> list[Move]:
    moves = []
    for metric in METRICS:
        before, after = metric_status(ref, metric), metric_status(new, metric)
        if before.actual == after.actual:
            continue
        shift = f"{metric} {before.actual} → {after.actual}"
        if after.deviates:
            severity = "regression" if not before.deviates else "change"
            text = f"{shift}, {after.direction} the expected {after.expected_text}"
        elif before.deviates and after.direction == "in":
            severity, text = "improvement", f"{shift}, back within {after.expected_text}"
        else:
            continue
        moves.append(Move("count", new.id, label, severity, text))
    return moves


def _theme_moves(ref: CaseResult, new: CaseResult, label: str) -> list[Move]:
    moves = []
    lost = sorted(set(missing_themes(new)) - set(missing_themes(ref)))
    found = sorted(set(missing_themes(ref)) - set(missing_themes(new)))
    if lost:
        text = "expected theme lost: " + ", ".join(lost)
        moves.append(Move("theme", new.id, label, "regression", text))
    if found:
        text = "expected theme regained: " + ", ".join(found)
        moves.append(Move("theme", new.id, label, "improvement", text))
    before = {t.casefold(): t for t in ref.themes}
    after = {t.casefold(): t for t in new.themes}
    gone = [before[k] for k in before if k not in after]
    came = [after[k] for k in after if k not in before]
    if gone or came:
        parts = []
        if came:
            parts.append("new: " + ", ".join(came))
        if gone:
            parts.append("gone: " + ", ".join(gone))
        moves.append(Move("theme", new.id, label, "change", "; ".join(parts)))
    return moves


def compare_runs(runs: Sequence[RunResults], *, baseline: RunResults | None = None) -> Comparison:
    """Compare every run with the reference (the baseline, else the first run)."""
    everything = ([baseline] if baseline is not None else []) + list(runs)
    labels = column_labels(runs, baseline)
    columns = tuple(
        Column(label, run, is_baseline=baseline is not None and i == 0)
        for i, (label, run) in enumerate(zip(labels, everything, strict=True))
    )
    if not columns:
        return Comparison((), ())
    reference = columns[0]
    moves: list[Move] = []
    for column in columns[1:]:
        ids = [c.id for c in reference.run.cases]
        ids += [c.id for c in column.run.cases if c.id not in ids]
        for case_id in ids:
            ref, new = reference.run.case(case_id), column.run.case(case_id)
            if ref is None or new is None:
                where = column.label if new is None else reference.label
                severity = "regression" if new is None else "change"
                moves.append(
                    Move("verdict", case_id, column.label, severity, f"case missing from {where}")
                )
                continue
            verdict = _verdict_move(ref, new, column.label)
            moves += [verdict] if verdict else []
            moves += _count_moves(ref, new, column.label)
            moves += _theme_moves(ref, new, column.label)
    moves.sort(key=lambda m: KINDS.index(m.kind))
    return Comparison(columns, tuple(moves))
