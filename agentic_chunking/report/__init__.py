"""The HTML report: granularity metrics per case and run-against-run comparison.

The suite writes one results file per model (``write_results``) and calls
``build_report``; ``agentic-chunking report`` rebuilds the same page from saved files.
The page is self-contained (inline CSS and SVG plots, no script, no network) and every
string that comes from a results file is escaped.
"""

from .._warning import WARNING_KINDS
from ._changes import VERDICTS, Change, at_or_above, verdict_of
from ._compare import (
    COMPARISON_SCHEMA,
    Column,
    Comparison,
    Move,
    compare_case,
    compare_runs,
    write_comparison,
)
from ._metrics import MetricStatus, deviation_notes, metric_status, missing_themes, theme_found
from ._records import (
    CHECK_ORDER,
    METRICS,
    OUTCOMES,
    REPLY_KINDS,
    SCHEMA,
    CheckResult,
    Expectation,
    FindingRecord,
    InputRecord,
    SeedFigures,
    Usage,
)
from ._render import build_report, render_case_page, render_report
from ._results import (
    CaseResult,
    RunResults,
    load_results,
    merge_runs,
    record_run,
    write_results,
)
from ._warnings import WarningGroup, warning_groups, warning_summary

__all__ = [
    "CHECK_ORDER",
    "COMPARISON_SCHEMA",
    "METRICS",
    "OUTCOMES",
    "REPLY_KINDS",
    "SCHEMA",
    "VERDICTS",
    "WARNING_KINDS",
    "CaseResult",
    "Change",
    "CheckResult",
    "Column",
    "Comparison",
    "Expectation",
    "FindingRecord",
    "InputRecord",
    "MetricStatus",
    "Move",
    "RunResults",
    "SeedFigures",
    "Usage",
    "WarningGroup",
    "at_or_above",
    "build_report",
    "compare_case",
    "compare_runs",
    "deviation_notes",
    "load_results",
    "merge_runs",
    "metric_status",
    "missing_themes",
    "record_run",
    "render_case_page",
    "render_report",
    "theme_found",
    "verdict_of",
    "warning_groups",
    "warning_summary",
    "write_comparison",
    "write_results",
]
