"""The suite's lines in pytest's terminal summary, as plain functions of the session.

``summary_lines`` gives each line with its markup (red, yellow, green, bold); the plugin's
``pytest_terminal_summary`` only writes them, each redacted: no key reaches a summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..checks import parser_status
from ..client import DEFAULT_JUDGE_MODEL, DEFAULT_MODEL, deprecation_notice
from ..report import Comparison
from ._chunkers import NOT_APPLICABLE
from ._replies import is_reference
from ._session import SuiteSession

MAX_SUMMARY_LINES = 20
"""At most this many lines of what changed are printed under the verdict; the report has all."""


@dataclass(frozen=True)
class SummaryLine:
    """One line of the summary and its terminal markup (``red=True`` ...)."""

    text: str
    markup: dict[str, bool] = field(default_factory=dict)


def summary_lines(suite: SuiteSession) -> list[SummaryLine]:
    """The summary of a session that ran or stopped; empty for one that did neither."""
    if not (suite.results or suite.stopped):
        return []
    lines = [_outcome_line(suite)]
    grammar = parser_status()
    if not grammar.available:  # the lexicon rules ran alone: say so, never silently
        lines.append(SummaryLine(grammar.reason, {"yellow": True}))
    lines += [SummaryLine(line) for line in chunker_lines(suite)]
    if suite.judge_model is not None:
        source = " (read from the cassettes)" if suite.judge_from_cassettes else ""
        lines.append(SummaryLine(f"judge model: {suite.judge_model!r}{source}"))
    lines += [
        SummaryLine(f"cassette kept as it was (its run did not complete): {path}")
        for path in suite.persister.kept
    ]
    if suite.comparison is not None:
        lines += _verdict_lines(suite.comparison, ran=len(suite.results))
    lines += _files_lines(suite)
    lines += [
        SummaryLine(f"note: {notice}", {"yellow": True})
        for notice in sdk_notices(suite.model, suite.judge_model)
    ]
    return lines


def _outcome_line(suite: SuiteSession) -> SummaryLine:
    """How many cases passed, or where the run stopped."""
    passed = sum(r.outcome == "passed" for r in suite.results.values())
    replies = suite.config.replies
    kind = "hand-written reference replies" if replies == "reference" else "recorded replies"
    if suite.stopped is None:
        return SummaryLine(
            f"{passed}/{len(suite.results)} cases passed, model {suite.model!r} ({kind})"
        )
    before = len(suite.results) - (suite.stopped_at in suite.results)
    failed = before - passed
    return SummaryLine(
        f"STOPPED at {suite.stopped_at}: {before} case(s) judged before it "
        f"({failed} not passing), model {suite.model!r} ({kind}); no later case ran",
        {"red": True},
    )


def _verdict_lines(comparison: Comparison, *, ran: int) -> list[SummaryLine]:
    """The verdict against the base, and at most ``MAX_SUMMARY_LINES`` of what changed."""
    verdict = comparison.verdict
    lines = [
        SummaryLine(
            comparison.summary_over(f"on the {ran} case{'s' if ran != 1 else ''} this run ran"),
            {
                "red": verdict == "unsafe",
                "yellow": verdict == "review",
                "green": verdict == "same",
                "bold": True,
            },
        )
    ]
    for line in comparison.changes[:MAX_SUMMARY_LINES]:
        text = f": {line.text}" if line.text else ""
        lines.append(
            SummaryLine(
                f"  {line.category} {line.case_id} [{', '.join(line.rules)}]{text} — {line.reason}"
            )
        )
    if len(comparison.changes) > MAX_SUMMARY_LINES:
        rest = len(comparison.changes) - MAX_SUMMARY_LINES
        lines.append(SummaryLine(f"  ... and {rest} more in the report"))
    return lines


def _files_lines(suite: SuiteSession) -> list[SummaryLine]:
    """Where the results and the report went, or why they did not."""
    lines = []
    if suite.results_error is not None:
        lines.append(SummaryLine(f"results NOT SAVED: {suite.results_error}", {"red": True}))
    if suite.results_path is not None:
        unjudged = " (not judged: --no-judge)" if suite.judge_model is None else ""
        lines.append(SummaryLine(f"results: {suite.results_path}{unjudged}"))
    if suite.report_path is not None:
        lines.append(SummaryLine(f"report: {suite.report_path}"))
    if suite.baseline_error is not None:
        lines.append(SummaryLine(f"note: {suite.baseline_error}", {"yellow": True}))
    if suite.report_error is not None:
        lines.append(SummaryLine(f"report not written: {suite.report_error}", {"red": True}))
    return lines


def chunker_lines(suite: SuiteSession) -> list[str]:
    """The summary's lines on a chunker run: which chunker, and each case it cannot do."""
    chunker = suite.config.chunker
    if chunker is None:
        return []
    lines = [f"chunker: {chunker.spec} (run {suite.model!r}, instead of our pipeline)"]
    lines += [
        f"  {case_id} not applicable: {result.error}"
        for case_id, result in sorted(suite.results.items())
        if result.outcome == NOT_APPLICABLE
    ]
    return lines


def sdk_notices(model: str, judge_model: str | None) -> list[str]:
    """Notices, never failures, for the defaults and this run's models that the installed
    SDK marks deprecated: a new SDK release may retire one without turning the run red."""
    roles: dict[str, list[str]] = {}
    for name, role in (
        (model, "model"),
        (judge_model, "judge model"),
        (DEFAULT_MODEL, "default model"),
        (DEFAULT_JUDGE_MODEL, "default judge model"),
    ):
        if name is not None and not is_reference(name):
            roles.setdefault(name, []).append(role)
    notices = (deprecation_notice(name, role=" and ".join(r)) for name, r in roles.items())
    return [notice for notice in notices if notice is not None]
