"""Run against run: what moved between a base run and each other run, case by case.

The base is explicit, never inferred from times: the baseline when one is given, else the
first run given (``agentic-chunking report BASE.json OTHER.json``); the other runs follow
in the order given, and a run given twice (same model, time and cases) appears once.

Per case and column, ``diffs`` holds the findings that are new or resolved and the
propositions aligned across the runs (``_diff``); ``changes`` is the one list of what
changed (``_changes``: one line per fact) and ``verdict`` the one verdict it gives
(``unsafe``, ``review``, ``same``), per column in ``headlines`` and overall. Moves come
in three kinds, in the order a reader needs them: ``verdict`` (a case's outcome or a
substance check changed, or a case is missing), ``count`` (a count left or re-entered its
soft range, or moved while outside it), ``theme`` (ThematicCategory labels appeared or
vanished, or an expected theme, matched by meaning, was lost or regained).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import write_text_atomic
from ..client import estimate_cost_usd
from ._changes import (
    CASE_RULE,
    Change,
    case_changes,
    missing_case,
    ordered,
    verdict_of,
    worst,
)
from ._diff import CaseDiff, diff_case
from ._metrics import metric_status, missing_themes
from ._records import METRICS
from ._results import CaseResult, RunResults

KINDS = ("verdict", "count", "theme")
COMPARISON_SCHEMA = "agentic-chunking-comparison/1"
_CATEGORY_KEYS = {
    "new_errors": "new error",
    "new_warnings": "new warning",
    "dropped_facts": "dropped fact",
    "flagged_rewordings": "flagged rewording",
}
_GOOD = {"passed": 0, "failed": 1, "error": 2}
NOT_APPLICABLE = "not_applicable"


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
class Headline:
    """One run against the base: its verdict and figures, summed over the cases of both.

    ``verdict`` is ``verdict_of`` this run's lines of the list of what changed; the line
    counts (``new_errors``, ``new_warnings``, ``dropped_facts``, ``flagged``, ``resolved``)
    count each fact once. ``dropped``, ``reworded``, ``notable`` and ``added`` count
    propositions as aligned across the runs.
    """

    label: str
    verdict: str
    new_errors: int
    new_warnings: int
    dropped_facts: int
    flagged: int
    resolved: int
    dropped: int
    reworded: int
    notable: int
    added: int
    verdict_regressions: int
    changed_cases: tuple[str, ...]
    passed: tuple[int, int]
    tokens_in: tuple[int, int]
    tokens_out: tuple[int, int]
    coverage: tuple[tuple[int, int], tuple[int, int]] | None = None
    """(base, run) as (facts covered, facts), summed over the cases both measured; None
    when no case was measured in both."""
    model: str = ""
    """The run's model id (the label may carry a time or a ``baseline:`` prefix)."""
    cost_usd: tuple[float | None, float | None] = (None, None)
    """(base, run) estimated cost at each model's list price (``_prices``); None for a
    model with no known price. An estimate, never a bill."""
    judge: tuple[str | None, str | None] = (None, None)
    """(base, run) judge model; None for a run that was not judged."""

    @property
    def judging_differs(self) -> bool:
        """True when one run was judged and the other not, or by another judge model: its
        findings then differ by judging as well as by model, and the page says so."""
        return self.judge[0] != self.judge[1]


@dataclass(frozen=True, slots=True)
class Comparison:
    """The columns side by side, every move (verdicts first) and every case diff."""

    columns: tuple[Column, ...]
    moves: tuple[Move, ...]
    diffs: tuple[CaseDiff, ...] = ()
    headlines: tuple[Headline, ...] = ()
    changes: tuple[Change, ...] = ()
    """The one list of what changed, every run against the base (``_changes``), in
    display order: new errors, new warnings, dropped facts, flagged rewordings."""
    resolved: tuple[Change, ...] = ()
    """Base findings gone in a run, one line per proposition or sentence."""
    one_run_twice: bool = False
    """Two runs were given and they are one run (the same results file twice, or a copy):
    the verdict is ``same``, stated as such, never "nothing to compare"."""

    @property
    def verdict(self) -> str:
        """The gravest verdict of the runs against the base: ``unsafe``, ``review`` or
        ``same`` (``same`` with nothing to compare)."""
        return worst(h.verdict for h in self.headlines)

    @property
    def summary(self) -> str:
        """The verdict in one line, as the terminal and the CI log show it:
        ``verdict against BASE: unsafe (2 new errors, 1 dropped fact)``."""
        return self.summary_over("")

    def summary_over(self, scope: str) -> str:
        """``summary`` saying what was compared after the base's label (``verdict against
        BASE (on the 3 cases this run ran): same``); ``scope`` empty for none."""
        over = f" ({scope})" if scope else ""
        if self.one_run_twice and self.columns:
            return (
                f"verdict against {self.reference.label}{over}: same (both files hold this one run)"
            )
        if len(self.columns) < 2:
            return "nothing to compare: one run"
        detail = f" ({self.detail})" if self.detail else ""
        return f"verdict against {self.reference.label}{over}: {self.verdict}{detail}"

    @property
    def detail(self) -> str:
        """The counts behind the verdict, summed over the runs: ``9 new errors, 2 dropped
        facts (1 with its number lost: an error), 3 resolved``; empty when nothing changed."""
        counts = [
            (sum(h.new_errors for h in self.headlines), "new error"),
            (sum(h.new_warnings for h in self.headlines), "new warning"),
            (sum(h.dropped_facts for h in self.headlines), "dropped fact"),
            (sum(h.flagged for h in self.headlines), "flagged rewording"),
        ]
        parts = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in counts if n]
        lost = sum(c.is_error for c in self.changes if c.category == "dropped fact")
        if lost:
            index = next(i for i, part in enumerate(parts) if "dropped fact" in part)
            parts[index] += f" ({lost} with its number lost: an error)"
        if self.resolved:
            parts.append(f"{len(self.resolved)} resolved")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The comparison for machines (``report --json``, schema ``COMPARISON_SCHEMA``):
        the verdict, the base, each run's verdict and counts, the list of what changed,
        the resolved lines and the per-case deltas."""
        base = self.reference if self.columns else None
        return {
            "schema": COMPARISON_SCHEMA,
            "verdict": self.verdict,
            "summary": self.summary,
            "base": None if base is None else _run_dict(base),
            "runs": [
                {**_run_dict(column), **_headline_dict(headline)}
                for column, headline in zip(self.columns[1:], self.headlines, strict=True)
            ],
            "changes": [c.to_dict() for c in self.changes],
            "resolved": [c.to_dict() for c in self.resolved],
            "cases": [self._case_dict(d) for d in self.diffs],
        }

    def _case_dict(self, diff: CaseDiff) -> dict[str, Any]:
        base = self.reference.run.case(diff.case_id)
        column = next(c for c in self.columns if c.label == diff.label)
        run = column.run.case(diff.case_id)
        lines = [c for c in self.changes if c.case_id == diff.case_id and c.label == diff.label]
        gone = [c for c in self.resolved if c.case_id == diff.case_id and c.label == diff.label]
        return {
            "case": diff.case_id,
            "run": diff.label,
            "outcome": [
                None if base is None else base.outcome,
                None if run is None else run.outcome,
            ],
            "verdict": verdict_of(lines),
            **{
                key: sum(c.category == category for c in lines)
                for key, category in _CATEGORY_KEYS.items()
            },
            "resolved": len(gone),
            "propositions": {
                status: diff.count(status) for status in ("dropped", "reworded", "added")
            },
        }

    @property
    def rules(self) -> list[str]:
        """The rules named by the lines of ``changes`` and ``resolved``, sorted."""
        return sorted({r for c in (*self.changes, *self.resolved) for r in c.rules})

    def diff(self, case_id: str, label: str) -> CaseDiff | None:
        """What changed in ``case_id`` from the base to the column ``label``, if both have it."""
        return next((d for d in self.diffs if d.case_id == case_id and d.label == label), None)

    @property
    def changed_case_ids(self) -> list[str]:
        """Case ids with a move or a changed finding or proposition, in case order."""
        moved = {m.case_id for m in self.moves} | {d.case_id for d in self.diffs if d.changed}
        return [i for i in self.case_ids if i in moved]

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
        """True when no run is ``unsafe`` against the base."""
        return self.verdict != "unsafe"


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


def _not_applicable_move(ref: CaseResult, new: CaseResult, column: Column) -> Move:
    """The move of a case one of the runs cannot do: shown with the reason, never a line of
    the list of what changed (the verdict compares what both runs did)."""
    which = new if new.outcome == NOT_APPLICABLE else ref
    run = column.label if which is new else "the base"
    text = f"not applicable to {run}: {which.error}"
    return Move("verdict", new.id, column.label, "change", text)


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


def _same_run(a: RunResults, b: RunResults) -> bool:
    return a.model == b.model and a.created_at == b.created_at and a.cases == b.cases


def order_runs(
    runs: Sequence[RunResults], baseline: RunResults | None
) -> tuple[RunResults | None, list[RunResults]]:
    """(base, others): the explicit ``baseline``, else the first of ``runs``; the others in
    the order given, each run once. Times never choose the base."""
    unique: list[RunResults] = []
    for run in runs:
        if not any(_same_run(run, seen) for seen in unique):
            unique.append(run)
    if baseline is not None:
        return baseline, [r for r in unique if not _same_run(r, baseline)]
    if not unique:
        return None, []
    return unique[0], unique[1:]


def compare_case(
    before: CaseResult, after: CaseResult, label: str, verdict: Move | None = None
) -> tuple[CaseDiff, list[Change], list[Change]]:
    """(diff, changes, resolved) of one case from the base ``before`` to ``after``: the lines
    of the list of what changed (``_changes``), plus a ``case`` error line when the substance
    verdict got worse with no new error line to show for it. ``verdict`` is the case's
    verdict move when the caller has it (computed here otherwise)."""
    diff = diff_case(before, after, label)
    found, gone = case_changes(diff, before, after)
    move = verdict if verdict is not None else _verdict_move(before, after, label)
    if move is not None and move.severity == "regression" and not any(c.is_error for c in found):
        found.append(Change("new error", "error", after.id, label, (CASE_RULE,), "", move.text))
    return diff, found, gone


def compare_runs(runs: Sequence[RunResults], *, baseline: RunResults | None = None) -> Comparison:
    """Compare every run with the base (``order_runs``), case by case and finding by finding."""
    base, others = order_runs(runs, baseline)
    if base is None:
        return Comparison((), ())
    if not others and len(runs) + (baseline is not None) >= 2:
        label = (column_labels([], base) if baseline is not None else column_labels([base], None))[
            0
        ]
        return Comparison(
            (Column(label, base, is_baseline=baseline is not None),), (), one_run_twice=True
        )
    if baseline is not None:
        labels = column_labels(others, base)
    else:
        labels = column_labels([base, *others], None)
    columns = tuple(
        Column(label, run, is_baseline=baseline is not None and i == 0)
        for i, (label, run) in enumerate(zip(labels, [base, *others], strict=True))
    )
    reference = columns[0]
    moves: list[Move] = []
    diffs: list[CaseDiff] = []
    changes: list[Change] = []
    resolved: list[Change] = []
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
                if new is None:
                    changes.append(missing_case(case_id, column.label, where))
                continue
            if NOT_APPLICABLE in (ref.outcome, new.outcome):
                moves.append(_not_applicable_move(ref, new, column))
                continue  # neither side's lines: what one run cannot do is no change
            verdict = _verdict_move(ref, new, column.label)
            moves += [verdict] if verdict else []
            moves += _count_moves(ref, new, column.label)
            moves += _theme_moves(ref, new, column.label)
            diff, found, gone = compare_case(ref, new, column.label, verdict)
            diffs.append(diff)
            changes += found
            resolved += gone
    moves.sort(key=lambda m: KINDS.index(m.kind))
    case_ids = [c.id for c in reference.run.cases]
    changes = ordered(changes, case_ids)
    resolved = ordered(resolved, case_ids)
    headlines = tuple(
        _headline(reference, column, moves, diffs, changes, resolved) for column in columns[1:]
    )
    return Comparison(
        columns, tuple(moves), tuple(diffs), headlines, tuple(changes), tuple(resolved)
    )


def _headline(
    base: Column,
    column: Column,
    moves: list[Move],
    diffs: list[CaseDiff],
    changes: list[Change],
    resolved: list[Change],
) -> Headline:
    mine = [d for d in diffs if d.label == column.label]
    lines = [c for c in changes if c.label == column.label]
    regressions = [
        m
        for m in moves
        if m.label == column.label and m.kind == "verdict" and m.severity == "regression"
    ]
    changed = (
        {d.case_id for d in mine if d.changed}
        | {m.case_id for m in moves if m.label == column.label}
        | {c.case_id for c in lines}
    )

    def total(run: RunResults, attribute: str) -> int:
        return sum(int(getattr(c.usage, attribute)) for c in run.cases)

    tokens_in = (total(base.run, "input_tokens"), total(column.run, "input_tokens"))
    tokens_out = (total(base.run, "output_tokens"), total(column.run, "output_tokens"))
    return Headline(
        label=column.label,
        verdict=verdict_of(lines),
        new_errors=sum(c.category == "new error" for c in lines),
        new_warnings=sum(c.category == "new warning" for c in lines),
        dropped_facts=sum(c.category == "dropped fact" for c in lines),
        flagged=sum(c.category == "flagged rewording" for c in lines),
        resolved=sum(c.label == column.label for c in resolved),
        dropped=sum(d.count("dropped") for d in mine),
        reworded=sum(d.count("reworded") for d in mine),
        notable=sum(len(d.notable) for d in mine),
        added=sum(d.count("added") for d in mine),
        verdict_regressions=len(regressions),
        changed_cases=tuple(sorted(changed)),
        passed=(
            sum(c.outcome == "passed" for c in base.run.cases),
            sum(c.outcome == "passed" for c in column.run.cases),
        ),
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        coverage=_coverage(base.run, column.run),
        model=column.run.model,
        cost_usd=(
            estimate_cost_usd(base.run.model, tokens_in[0], tokens_out[0]),
            estimate_cost_usd(column.run.model, tokens_in[1], tokens_out[1]),
        ),
        judge=(base.run.judge_model, column.run.judge_model),
    )


def _coverage(base: RunResults, run: RunResults) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(base, run) facts covered and facts, over the cases whose coverage both measured."""
    pairs = [
        (b.coverage, c.coverage)
        for c in run.cases
        if c.coverage is not None and (b := base.case(c.id)) is not None and b.coverage is not None
    ]
    if not pairs:
        return None
    return (
        (sum(b[0] for b, _ in pairs), sum(b[1] for b, _ in pairs)),
        (sum(c[0] for _, c in pairs), sum(c[1] for _, c in pairs)),
    )


def _run_dict(column: Column) -> dict[str, Any]:
    run = column.run
    return {
        "label": column.label,
        "model": run.model,
        "replies": run.replies,
        "judge_model": run.judge_model,
        "created_at": run.created_at,
        "cases": len(run.cases),
    }


def _headline_dict(headline: Headline) -> dict[str, Any]:
    return {
        "verdict": headline.verdict,
        "new_errors": headline.new_errors,
        "new_warnings": headline.new_warnings,
        "dropped_facts": headline.dropped_facts,
        "flagged_rewordings": headline.flagged,
        "resolved": headline.resolved,
        "cases_passed": list(headline.passed),
        "judging_differs": headline.judging_differs,
        "changed_cases": list(headline.changed_cases),
    }


def write_comparison(comparison: Comparison, path: Path) -> Path:
    """Write ``comparison.to_dict()`` as JSON to ``path`` (atomically) and return it."""
    text = json.dumps(comparison.to_dict(), indent=2, ensure_ascii=False) + "\n"
    write_text_atomic(Path(path), text)
    return Path(path)
