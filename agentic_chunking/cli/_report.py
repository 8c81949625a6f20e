"""``agentic-chunking report``: build the HTML report (or a comparison) from results files."""

from __future__ import annotations

import argparse
from pathlib import Path

from ._io import check_output_path, output_path, write_output_text

DEFAULT_REPORTS_DIR = Path("reports")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``report`` subcommand."""
    parser = subparsers.add_parser(
        "report",
        help="build the HTML report from saved results files",
        description=(
            "Build the HTML report from one or more results files (reports/results-<model>.json, "
            "written by every pytest run). With two or more files, or --baseline, the report "
            "compares the runs side by side per case, led by what moved."
        ),
    )
    parser.add_argument(
        "results",
        nargs="+",
        type=Path,
        metavar="RESULTS.json",
        help="results files, one per model; the first is the reference for "
        "deltas unless --baseline is given",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="PATH",
        help="an earlier results file to compare every run against "
        "(e.g. one from reports/history/)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=output_path,
        metavar="OUT.html",
        help="write the page here; default: reports/latest.html and a timestamped copy beside it",
    )
    parser.add_argument(
        "--no-plots",
        dest="plots",
        action="store_false",
        help="leave the plots out (faster; the tables stay)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load the files, write the page, print its path; 0 on success (errors raise)."""
    from ..report import build_report, load_results, render_report

    sources = [*args.results, *([args.baseline] if args.baseline else [])]
    check_output_path(args.output, inputs=sources, make_directory=True)
    runs = [load_results(path) for path in args.results]
    baseline = None if args.baseline is None else load_results(args.baseline)
    if args.output is None:
        path = build_report(
            runs, reports_dir=DEFAULT_REPORTS_DIR, baseline=baseline, plots=args.plots
        )
    else:
        path = args.output
        write_output_text(render_report(runs, baseline=baseline, plots=args.plots), path)
    print(f"report written to {path}")
    return 0
