"""The report's tables, built and aggregated with pandas (imported lazily).

Each function returns a DataFrame whose rows the templates render; the frames are plain
data (no HTML), so every string reaches the page through the template's autoescaping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._compare import Comparison
from ._metrics import deviation_notes, metric_statuses
from ._records import METRICS
from ._results import CaseResult, RunResults
from ._warnings import warning_summary

if TYPE_CHECKING:
    import pandas as pd


def check_names(runs: list[RunResults]) -> list[str]:
    """Every check name any case of ``runs`` reports, in display order."""
    names: dict[str, None] = {}
    for run in runs:
        for case in run.cases:
            names.update((n, None) for n, _ in case.ordered_checks())
    return list(names)


def _case_row(case: CaseResult, checks: list[str]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": case.id,
        "name": case.name,
        "category": case.category,
        "outcome": case.outcome,
        "verdict_text": case.verdict_text,
        "error": case.error or "",
        "warnings": len(case.warnings),
        "warning_summary": warning_summary(case.warnings),
    }
    for name in checks:
        check = case.checks.get(name)
        row[f"check:{name}"] = check.verdict if check is not None else "—"
        row[f"findings:{name}"] = 0 if check is None else len(check.findings)
    for status in metric_statuses(case):
        row[status.metric] = status.actual
        row[f"{status.metric}_expected"] = status.expected_text
        row[f"{status.metric}_seed"] = status.seed
        row[f"{status.metric}_direction"] = status.direction
    row["input_tokens"] = case.usage.input_tokens
    row["output_tokens"] = case.usage.output_tokens
    row["calls"] = case.usage.calls
    notes = deviation_notes(case)
    row["deviations"] = notes
    row["deviates"] = bool(notes)
    return row


def summary_frame(run: RunResults, checks: list[str]) -> pd.DataFrame:
    """One row per case: category, verdicts, counts against range and seed, usage, notes."""
    import pandas as pd

    return pd.DataFrame([_case_row(c, checks) for c in run.cases])


def totals(frame: pd.DataFrame) -> dict[str, Any]:
    """Totals of a summary frame: cases by outcome, deviations, counts and tokens."""
    if frame.empty:
        return {
            "cases": 0,
            "passed": 0,
            "failed": 0,
            "error": 0,
            "deviating": 0,
            "input_tokens": 0,
            "output_tokens": 0,
            "calls": 0,
            "chunks": 0,
            "propositions": 0,
            "tokens": 0,
        }
    outcomes = frame["outcome"].value_counts()
    result: dict[str, Any] = {
        "cases": len(frame),
        "passed": int(outcomes.get("passed", 0)),
        "failed": int(outcomes.get("failed", 0)),
        "error": int(outcomes.get("error", 0)),
        "not_applicable": int(outcomes.get("not_applicable", 0)),
        "deviating": int(frame["deviates"].sum()),
    }
    for key in ("input_tokens", "output_tokens", "calls", *METRICS):
        result[key] = int(frame[key].fillna(0).sum())
    return result


def by_category(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Per category: number of cases, how many passed, and how many deviate softly."""
    if frame.empty:
        return []
    grouped = frame.assign(ok=frame["outcome"].eq("passed")).groupby("category", sort=True)
    table = grouped.agg(cases=("id", "count"), passed=("ok", "sum"), deviating=("deviates", "sum"))
    return [
        {"category": str(name), **{k: int(v) for k, v in row.items()}}
        for name, row in table.iterrows()
    ]


def comparison_frame(comparison: Comparison) -> pd.DataFrame:
    """Long table, one row per (case, column), with deltas against the reference column."""
    import pandas as pd

    rows = []
    for column in comparison.columns:
        for case in column.run.cases:
            counts = case.counts
            rows.append(
                {
                    "id": case.id,
                    "label": column.label,
                    "outcome": case.outcome,
                    "verdict_text": case.verdict_text,
                    **counts,
                    "input_tokens": case.usage.input_tokens,
                    "output_tokens": case.usage.output_tokens,
                    "deviates": bool(deviation_notes(case)),
                }
            )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    reference = frame[frame["label"] == comparison.reference.label].set_index("id")
    for metric in (*METRICS, "input_tokens", "output_tokens"):
        base = frame["id"].map(reference[metric])
        frame[f"{metric}_delta"] = (frame[metric] - base).astype("Float64")
    return frame


def model_totals(comparison: Comparison) -> list[dict[str, Any]]:
    """Per column: outcomes, soft deviations and token totals, via ``totals``."""
    checks = check_names([c.run for c in comparison.columns])
    return [
        {"label": column.label, "run": column.run, **totals(summary_frame(column.run, checks))}
        for column in comparison.columns
    ]
