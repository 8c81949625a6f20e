"""Saving a session's results and writing its report: plain functions the plugin calls at
the end of the session (and, stopping at once, ``save_unsaved``).

Guarantees:
- every run that judged cases merges them into ``results-<model>.json`` (``record_run``:
  a partial run updates only its cases; a ``--no-judge`` run into its own
  ``results-<model>-unjudged.json``) and writes the HTML report of this run, against
  ``--baseline``, else the reference results for a recorded model;
- the verdict against the base (``unsafe``, ``review``, ``same``: ``report.compare_runs``,
  computed once, on the cases this run ran) is the one the report and the terminal summary
  show;
- a run whose results cannot be saved there (a damaged or newer results file, a read-only
  or full ``reports/``) never exits 0: its results go to a fallback file in a new
  temporary folder, which the summary names, and the session exits ``UNSAVED_EXIT_CODE``;
- an unexpected exception is one line naming the cause and the file with the full trace,
  exit ``EXIT_SOFTWARE``; Ctrl-C or SIGTERM while writing is one line and 130 or 143, and
  every file is whole (each replaces the previous one atomically).
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from .._entry import EXIT_SOFTWARE, stop_status, unexpected_error_line
from .._errors import AgenticChunkingError
from .._shown import redact
from ..pipeline import PROMPT_VERSIONS
from ..report import (
    RunResults,
    build_report,
    compare_runs,
    load_results,
    model_slug,
    record_run,
    results_stem,
    write_results,
)
from ._cassettes import cassette_dir
from ._judge_options import calibration_for
from ._replies import REFERENCE_MODEL
from ._session import UNSAVED_EXIT_CODE, SuiteSession, relative

REPORT_PHASE = "pytest (agentic-chunking report phase)"


def save_results_and_report(suite: SuiteSession) -> None:
    """Merge this run's results and write the report, noting in ``suite`` what was written
    and what was not (with the session's exit status); raises nothing but a stop."""
    try:
        _write_results_and_report(suite)
    except KeyboardInterrupt:
        saved = (
            f"the results were saved to {suite.results_path}, the report was not"
            if suite.results_path is not None
            else "neither the results nor the report was saved"
        )
        suite.report_error = (
            f"interrupted while writing them: {saved}; every file is whole (each "
            "replaces the previous one atomically) and the previous report is unchanged"
        )
        suite.exit_status = stop_status()


def save_unsaved(suite: SuiteSession) -> None:
    """Merge the finished cases' results (atomically) if they were not yet: the process is
    about to end at once; on any failure the previous file stays whole."""
    if suite.results and suite.results_path is None and suite.results_error is None:
        with contextlib.suppress(BaseException):  # stopping: the previous file stays whole
            judged = suite.judge_model is not None
            record_run(this_run(suite), suite.config.reports_dir, judged=judged)


def _write_results_and_report(suite: SuiteSession) -> None:
    """Merge this run's results and write the report; on failure, say so and set the
    session's exit status (the fallback file for the results, the trace for a defect)."""
    run: RunResults | None = None
    try:
        run = this_run(suite)
        _write(suite, run)
    except Exception as error:  # a defect of ours: one line, the trace in a file
        suite.report_error = unexpected_error_line(REPORT_PHASE, error)
        suite.exit_status = EXIT_SOFTWARE
        if run is not None and suite.results_path is None and suite.results_error is None:
            suite.results_error = _saved_elsewhere(run, suite, error)


def this_run(suite: SuiteSession) -> RunResults:
    """The results of this session's cases, in case order."""
    config = suite.config
    return RunResults(
        model=suite.model,
        replies=config.replies,
        cassette_set=relative(cassette_dir(config.cassette_root, suite.model), config),
        prompt_versions=dict(PROMPT_VERSIONS),
        created_at=config.started_at,
        cases=tuple(suite.results[k] for k in sorted(suite.results)),
        judge_model=suite.judge_model,
        judge_calibration=calibration_for(suite.judge_model, config.root),
    )


def _write(suite: SuiteSession, run: RunResults) -> None:
    reports_dir = suite.config.reports_dir
    try:
        baseline = _baseline(suite)  # read before this run's results are written
    except (AgenticChunkingError, OSError) as error:
        baseline = None
        suite.baseline_error = f"the report compares with nothing: {_plain(error)}"
    try:
        judged = suite.judge_model is not None
        merged = record_run(run, reports_dir, judged=judged)
        suite.results_path = reports_dir / f"{results_stem(run.model, judged=judged)}.json"
    except (AgenticChunkingError, OSError) as error:
        merged = run
        suite.results_error = _saved_elsewhere(run, suite, error)
        suite.exit_status = UNSAVED_EXIT_CODE
    comparison = compare_runs([merged], baseline=baseline)  # the page: the whole file
    # The gate (summary, --fail-on-new) judges only the cases this run ran: a stale entry
    # the merged results file carries from an earlier run never decides it.
    ran = [case.id for case in run.cases]
    gate = compare_runs([run], baseline=None if baseline is None else baseline.only(ran))
    suite.comparison = gate if len(gate.columns) > 1 else None
    try:
        suite.report_path = build_report(
            [merged], reports_dir=reports_dir, baseline=baseline, comparison=comparison
        )
    except (AgenticChunkingError, OSError) as error:
        suite.report_error = f"{_plain(error)}; the previous report, if any, is unchanged"
        suite.exit_status = UNSAVED_EXIT_CODE


def _plain(error: Exception) -> str:
    """An expected failure in words: the file and the OS's reason, or our message
    (redacted: no key reaches a line of the summary)."""
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        return redact(f"{where}{error.strerror or error}")
    return redact(str(error))


def _saved_elsewhere(run: RunResults, suite: SuiteSession, error: Exception) -> str:
    """Write ``run`` to a fallback file in a new temporary folder (never deleted); the line
    that says why the results file was not written and where the results are."""
    judged = suite.judge_model is not None
    target = suite.config.reports_dir / f"{results_stem(run.model, judged=judged)}.json"
    line = f"this run's results could not be saved in {target} ({_plain(error)})"
    try:
        folder = Path(tempfile.mkdtemp(prefix="agentic-chunking-results-"))
        fallback = write_results(run, folder, judged=judged)
    except OSError as failure:
        return f"{line}, nor in a temporary folder ({_plain(failure)}): they are lost"
    return (
        f"{line}; they were saved to {fallback}: fix the cause, then copy them into place "
        "or run the cases again"
    )


def _baseline(suite: SuiteSession) -> RunResults | None:
    """``--baseline`` (read at start-up); else, for a recorded model, the reference results
    if written."""
    config = suite.config
    if config.baseline is not None:
        return config.baseline_run
    reference = config.reports_dir / f"results-{model_slug(REFERENCE_MODEL)}.json"
    if config.replies == "recorded" and reference.exists():
        return load_results(reference)
    return None
