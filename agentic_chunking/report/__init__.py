"""The HTML report: granularity metrics per case and run-against-run comparison.

The suite writes one results file per model (``write_results``) and calls
``build_report``; ``agentic-chunking report`` rebuilds the same page from saved files.
The page is self-contained (inline CSS and SVG plots, no script, no network) and every
string that comes from a results file is escaped.
"""

from ._changes import CHANGE_VERDICTS
from ._changes import at_or_above as at_or_above
from ._changes import verdict_of as verdict_of
from ._compare import Comparison, compare_runs
from ._compare import compare_case as compare_case
from ._compare import write_comparison as write_comparison
from ._metrics import deviation_notes as deviation_notes
from ._metrics import metric_status as metric_status
from ._metrics import missing_themes as missing_themes
from ._metrics import theme_found as theme_found
from ._records import SCHEMA as SCHEMA
from ._records import CheckResult as CheckResult
from ._records import Expectation as Expectation
from ._records import FindingRecord as FindingRecord
from ._records import InputRecord as InputRecord
from ._records import SeedFigures as SeedFigures
from ._records import Usage
from ._render import build_report, render_report
from ._render import render_case_page as render_case_page
from ._results import CaseResult, RunResults, load_results, write_results
from ._results import merge_runs as merge_runs
from ._results import model_slug as model_slug
from ._results import record_run as record_run
from ._warnings import warning_groups as warning_groups
from ._warnings import warning_summary as warning_summary

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "CHANGE_VERDICTS",
    "CaseResult",
    "Comparison",
    "RunResults",
    "Usage",
    "build_report",
    "compare_runs",
    "load_results",
    "render_report",
    "write_results",
]
