"""Build the HTML report: one self-contained page (CSS and SVG inline, no script, no network).

Templates live in ``report/templates`` and are rendered with autoescaping on and undefined
names refused, so every string from a results file (model text included) is escaped; only
the SVG that ``_plots`` makes is inserted as markup.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from .._files import write_text_atomic
from .._shown import redact
from ..checks import rule_of
from ._changes import unverified_quotes
from ._compare import Comparison, compare_runs
from ._metrics import metric_statuses, missing_themes
from ._plots import CAPTIONS, all_plots
from ._records import FindingRecord
from ._results import CaseResult, RunResults, prune_history, stamp
from ._tables import by_category, check_names, comparison_frame, model_totals, summary_frame
from ._warnings import warning_groups

if TYPE_CHECKING:
    import jinja2

OTHER_CHECK_TITLES = {
    "partition": "Partition",
    "mixed_domains": "Domains kept apart",
}
"""The titles of the checks that are not rules of the registry (a rule's is its ``title``)."""


def check_title(name: str) -> str:
    """A check's heading: its rule's ``title`` in the registry of ``agentic_chunking.checks``
    (read at each call), else :data:`OTHER_CHECK_TITLES`, else its name in words."""
    rule = rule_of(name)
    if rule is not None:
        return rule.title
    return OTHER_CHECK_TITLES.get(name, name.replace("_", " ").capitalize())


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("agentic_chunking.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["check_title"] = check_title
    environment.filters["signed"] = _signed
    environment.filters["unverified"] = unverified_quotes
    return environment


def _signed(value: Any) -> str:
    """``+3``, ``-2`` or ``0``; empty for a missing value."""
    if value is None or value != value:  # None or NaN / pandas NA
        return ""
    try:
        number = int(value)
    except (TypeError, ValueError):
        return ""
    return f"+{number}" if number > 0 else f"-{-number}" if number < 0 else "0"


def _marked_chunks(case: CaseResult) -> tuple[list[dict[str, Any]], list[FindingRecord]]:
    """Output chunks with each proposition's findings; findings tied to none apart.

    A finding with a ``chunk_index`` is shown on its proposition in that chunk. One without
    is about the text alone: it is shown on every occurrence of the text, once (a text that
    occurs several times, each occurrence found by the same rule for the same reason, shows
    that finding once on each, not once per occurrence). Time and page size grow with the
    output and its findings, no more.
    """
    findings = [f for _, check in case.ordered_checks() for f in check.findings]
    by_place: dict[tuple[int, str], list[FindingRecord]] = {}
    by_text: dict[str, dict[FindingRecord, None]] = {}
    for f in findings:
        if f.chunk_index is None:
            by_text.setdefault(f.proposition, {})[f] = None  # distinct, in first order
        else:
            by_place.setdefault((f.chunk_index, f.proposition), []).append(f)
    placed_texts: set[str] = set()
    placed_places: set[tuple[int, str]] = set()
    chunks = []
    for index, chunk in enumerate(() if case.response is None else case.response.chunks):
        propositions = []
        for text in chunk.propositions:
            mine = [*by_text.get(text, ()), *by_place.get((index, text), ())]
            placed_texts.add(text)
            placed_places.add((index, text))
            propositions.append({"text": text, "findings": mine})
        chunks.append({"chunk": chunk, "propositions": propositions})
    loose = [
        f
        for f in findings
        if (
            f.proposition not in placed_texts
            if f.chunk_index is None
            else (f.chunk_index, f.proposition) not in placed_places
        )
    ]
    return chunks, loose


def _case_view(case: CaseResult) -> dict[str, Any]:
    chunks, loose = _marked_chunks(case)
    failing = [(n, c) for n, c in case.ordered_checks() if c.applies and c.passed is False]
    return {
        "case": case,
        "checks": case.ordered_checks(),
        "failing": failing,
        "warnings": warning_groups(case.warnings),
        "metrics": metric_statuses(case),
        "missing_themes": missing_themes(case),
        "chunks": chunks,
        "loose_findings": loose,
        "source": "\n".join(i.text for i in case.inputs),
    }


def render_case_page(
    case: CaseResult,
    *,
    title: str,
    notes: Sequence[str] = (),
    generated_at: datetime | None = None,
) -> str:
    """Return one case alone as a self-contained page, in the report's case view.

    The same template as each case of the report (verdicts, findings marked on their
    propositions, uncovered input sentences, coverage), opened, with ``title`` and
    ``notes`` (plain lines, escaped) above it; no comparison, no plots.
    """
    detail = {
        "id": case.id,
        "case": case,
        "views": [{"column": {"label": case.id}, "view": _case_view(case), "diff": None}],
        "open": True,
        "changed": False,
    }
    moment = generated_at or datetime.now(UTC)
    return (
        _environment()
        .get_template("case_page.html.j2")
        .render(
            title=title,
            notes=list(notes),
            detail=detail,
            comparison_base="",
            generated_at=moment.strftime("%Y-%m-%d %H:%M:%S UTC"),
        )
    )


def _details(comparison: Comparison) -> list[dict[str, Any]]:
    """Per case id: the inputs (from the first column that has the case), each column with
    its changes against the base; changed cases first, all collapsed when comparing (a
    single run opens the cases that did not pass)."""
    comparing = len(comparison.columns) > 1
    changed = comparison.changed_case_ids if comparing else []
    ordered = changed + [i for i in comparison.case_ids if i not in changed]
    details = []
    for case_id in ordered:
        per_column = [(col, col.run.case(case_id)) for col in comparison.columns]
        first = next(case for _, case in per_column if case is not None)
        views = [
            {
                "column": col,
                "view": None if case is None else _case_view(case),
                "diff": comparison.diff(case_id, col.label),
            }
            for col, case in per_column
        ]
        attention = not comparing and any(
            case is not None and case.outcome != "passed" for _, case in per_column
        )
        details.append(
            {
                "id": case_id,
                "case": first,
                "views": views,
                "open": attention,
                "changed": case_id in changed,
            }
        )
    return details


def _side_by_side(comparison: Comparison) -> list[dict[str, Any]]:
    frame = comparison_frame(comparison)
    if frame.empty:
        return []
    cells: dict[tuple[str, str], dict[str, Any]] = {
        (str(r["id"]), str(r["label"])): r for r in frame.to_dict("records")
    }
    rank = {"change": 0, "improvement": 1, "regression": 2}
    moved: dict[tuple[str, str], str] = {}
    for m in comparison.moves:  # the worst move of a cell marks it
        key = (m.case_id, m.label)
        if rank[m.severity] >= rank.get(moved.get(key, ""), -1):
            moved[key] = m.severity
    return [
        {
            "id": case_id,
            "cells": [
                {
                    "label": col.label,
                    "row": cells.get((case_id, col.label)),
                    "moved": moved.get((case_id, col.label)),
                }
                for col in comparison.columns
            ],
        }
        for case_id in comparison.case_ids
    ]


_FILTERABLE = re.compile(r"[A-Za-z0-9_-]+")


def _filter_values(values: Sequence[str]) -> list[str]:
    """The values a filter offers: only plain identifiers, since each becomes a CSS rule."""
    return [v for v in dict.fromkeys(values) if _FILTERABLE.fullmatch(v)]


def render_report(
    runs: Sequence[RunResults],
    *,
    baseline: RunResults | None = None,
    generated_at: datetime | None = None,
    plots: bool = True,
    comparison: Comparison | None = None,
) -> str:
    """Return the report page for ``runs`` (compared with ``baseline`` and each other).

    ``comparison`` is ``compare_runs(runs, baseline=baseline)`` when the caller already
    has it (the page then shows exactly the verdict the caller acts on); it is computed
    here otherwise. ``plots=False`` leaves the SVG plots out (they take most of the
    rendering time).
    The page is redacted (``redact``): no key reaches a report, whatever the files hold.
    """
    if not runs and comparison is None:
        raise InputError("no results to report: give at least one results file (results-*.json)")
    if comparison is None:
        comparison = compare_runs(runs, baseline=baseline)
    all_runs = [c.run for c in comparison.columns]
    checks = check_names(all_runs)
    summaries = []
    for column in comparison.columns:
        frame = summary_frame(column.run, checks)
        summaries.append(
            {
                "column": column,
                "rows": frame.to_dict("records") if not frame.empty else [],
                "categories": by_category(frame),
            }
        )
    moment = generated_at or datetime.now(UTC)
    return redact(
        _environment()
        .get_template("report.html.j2")
        .render(
            generated_at=moment.strftime("%Y-%m-%d %H:%M:%S UTC"),
            comparison=comparison,
            comparing=len(comparison.columns) > 1,
            moves={kind: comparison.of_kind(kind) for kind in ("verdict", "count", "theme")},
            side_by_side=_side_by_side(comparison) if len(comparison.columns) > 1 else [],
            model_totals=model_totals(comparison),
            summaries=summaries,
            checks=checks,
            details=_details(comparison),
            comparison_base=comparison.reference.label if comparison.columns else "",
            filter_rules=_filter_values(comparison.rules),
            filter_cases=_filter_values([c.case_id for c in comparison.changes]),
            plots=list(zip(CAPTIONS, _markup(all_plots(comparison.columns)), strict=False))
            if plots
            else [],
        )
    )


def _markup(svgs: list[str]) -> list[Any]:
    from markupsafe import Markup

    return [Markup(svg) for svg in svgs]  # SVG made by matplotlib: its text is escaped


def build_report(
    runs: Sequence[RunResults],
    *,
    reports_dir: Path,
    baseline: RunResults | None = None,
    plots: bool = True,
    comparison: Comparison | None = None,
) -> Path:
    """Write ``reports_dir/latest.html`` and ``report-YYYYmmdd-HHMMSS.html`` (the newest
    ``HISTORY_KEEP`` of those are kept); return latest.

    The two files are identical (and redacted, as every page); the directory is created
    when missing. ``comparison`` as in ``render_report``.
    """
    moment = datetime.now(UTC)
    html = render_report(
        runs, baseline=baseline, generated_at=moment, plots=plots, comparison=comparison
    )
    reports_dir = Path(reports_dir)
    reports_dir.mkdir(parents=True, exist_ok=True)
    latest = reports_dir / "latest.html"
    write_text_atomic(latest, html)
    write_text_atomic(reports_dir / f"report-{stamp(moment)}.html", html)
    prune_history(reports_dir, "report", suffix=".html")
    return latest
