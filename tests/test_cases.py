"""The 32 cases: each replays its cassette and must keep every substance rule it asserts.

Options (see `pytest --help`, group agentic-chunking): --record, --model, --baseline.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentic_chunking.report import CaseResult
from agentic_chunking.suite import CASE_COUNT, case_files, load_case
from agentic_chunking.suite.plugin import SuiteSession, assert_case_passed

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"
CASE_IDS = [path.stem for path in case_files(CASES_DIR)]


def test_there_are_32_valid_cases() -> None:
    expected = [f"TC-{n:03d}" for n in range(1, CASE_COUNT + 1)]
    missing = [case_id for case_id in expected if case_id not in CASE_IDS]
    extra = [case_id for case_id in CASE_IDS if case_id not in expected]
    assert not missing, (
        f"case files missing from {CASES_DIR}: {', '.join(f'{m}.yaml' for m in missing)}; "
        "restore them (git checkout -- cases/)"
    )
    assert not extra, f"unexpected case files in {CASES_DIR}: {', '.join(extra)}"
    for case_id in CASE_IDS:
        load_case(CASES_DIR / f"{case_id}.yaml")


@pytest.mark.vcr
@pytest.mark.block_network
@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case(
    case_id: str, run_suite_case: Callable[[str], CaseResult], suite_session: SuiteSession
) -> None:
    assert_case_passed(run_suite_case(case_id), suite_session)
