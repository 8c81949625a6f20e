"""``agentic-chunking report``: build the HTML report (or a comparison) from results files.

The base of a comparison is explicit: ``--base FILE``, else the first results file. The
command prints the verdict line, writes the page and, with ``--json FILE``, the comparison
for machines; with ``--fail-on LEVEL`` it exits 1 when the verdict is at or above LEVEL
(``unsafe`` or ``review``), so CI can gate on it. Exit 2: a bad file or argument.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import InputError
from ._io import check_distinct_outputs, check_output_path, output_path, write_output_text

if TYPE_CHECKING:
    from ..report import RunResults

DEFAULT_REPORTS_DIR = Path("reports")
DEFAULT_CALIBRATION_DIR = Path("calibration")
FAIL_ON = ("unsafe", "review")
"""The levels ``--fail-on`` accepts (verdicts graver than ``same``)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``report`` subcommand."""
    parser = subparsers.add_parser(
        "report",
        help="build the HTML report from saved results files",
        description=(
            "Build the HTML report from one or more results files (reports/results-<model>.json, "
            "written by every pytest run). With two or more files, or --base, the report "
            "compares every run with the base and gives one verdict: unsafe (a new error), "
            "review (new warnings, dropped facts or flagged rewordings only) or same."
        ),
        epilog="exit status: 0 written (and the verdict below --fail-on), 1 the verdict is at "
        "or above --fail-on, 2 a bad file or argument",
    )
    parser.add_argument(
        "results",
        nargs="+",
        type=Path,
        metavar="RESULTS.json",
        help="results files, one per model; the FIRST is the base of the comparison unless "
        "--base is given (their times never choose it)",
    )
    parser.add_argument(
        "--base",
        "--baseline",
        dest="baseline",
        type=Path,
        metavar="PATH",
        help="a results file to compare every run against (e.g. one from reports/history/); "
        "then every RESULTS.json is compared with it",
    )
    _add_output_options(parser)
    parser.set_defaults(func=run)


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """What is written: the comparison's JSON, the verdict's exit status, the page and what
    it shows."""
    parser.add_argument(
        "--json",
        dest="json_out",
        type=Path,
        metavar="FILE",
        help="also write the comparison for machines: the verdict, the list of what changed "
        "and the per-case deltas (schema agentic-chunking-comparison/1)",
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default=None,
        help="exit 1 when the verdict is at or above this level (default: exit 0 whatever "
        "the verdict)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=output_path,
        metavar="OUT.html",
        help="write the page here; default: reports/latest.html and a timestamped copy beside it",
    )
    parser.add_argument(
        "--calibration-dir",
        type=Path,
        default=DEFAULT_CALIBRATION_DIR,
        metavar="DIR",
        help="where calibrate-judge wrote judge-<model>.json (default: calibration); the "
        "judge's figures shown are read from here, as pytest reads them",
    )
    parser.add_argument(
        "--no-plots",
        dest="plots",
        action="store_false",
        help="leave the plots out (faster; the tables stay)",
    )


def run(args: argparse.Namespace) -> int:
    """Load the files, write the page (and the JSON), print the paths and the verdict;
    1 when the verdict is at or above ``--fail-on``, else 0 (errors raise)."""
    from ..report import (
        at_or_above,
        build_report,
        compare_runs,
        load_results,
        render_report,
        write_comparison,
    )

    sources = [*args.results, *([args.baseline] if args.baseline else [])]
    if len(sources) < 2 and (args.fail_on is not None or args.json_out is not None):
        raise InputError(
            "--fail-on and --json need a comparison: give two results files (the base first) "
            "or --base FILE"
        )
    check_distinct_outputs((("-o", args.output), ("--json", args.json_out)))
    check_output_path(args.output, inputs=sources, make_directory=True)
    if args.json_out is not None:
        check_output_path(args.json_out, inputs=sources, make_directory=True, option="--json")
    runs = [load_results(path) for path in args.results]
    baseline = None if args.baseline is None else load_results(args.baseline)
    runs = [_with_calibration(run, args.calibration_dir) for run in runs]
    baseline = None if baseline is None else _with_calibration(baseline, args.calibration_dir)
    comparison = compare_runs(runs, baseline=baseline)  # the one verdict, shown everywhere
    if args.output is None:
        path = build_report(
            runs,
            reports_dir=DEFAULT_REPORTS_DIR,
            baseline=baseline,
            plots=args.plots,
            comparison=comparison,
        )
    else:
        path = args.output
        page = render_report(runs, baseline=baseline, plots=args.plots, comparison=comparison)
        write_output_text(page, path)
    print(f"report written to {path}")
    if args.json_out is not None:
        print(f"comparison written to {write_comparison(comparison, args.json_out)}")
    if len(comparison.columns) > 1 or comparison.one_run_twice:
        print(comparison.summary)
    if args.fail_on is not None and at_or_above(comparison.verdict, args.fail_on):
        return 1
    return 0


def _with_calibration(run: RunResults, directory: Path) -> RunResults:
    """``run`` with its judge's calibration as ``directory`` holds it now (calibrating after
    the run shows without rerunning pytest); as written in the file when there is none."""
    from ..judge import calibration_figures

    figures = calibration_figures(run.judge_model, directory)
    return run if figures is None else replace(run, judge_calibration=figures)
