"""Fixtures shared by the report's tests: two saved results files (tests/fixtures/report)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentic_chunking.report import RunResults, load_results

REPORT_FIXTURES = Path(__file__).parent / "fixtures" / "report"


@pytest.fixture(scope="session")
def reference() -> RunResults:
    """The reference run of the report fixtures (hand-written replies)."""
    return load_results(REPORT_FIXTURES / "results-reference.json")


@pytest.fixture(scope="session")
def upgrade() -> RunResults:
    """A fictional later run (`claude-next`) with verdict, count and theme changes."""
    return load_results(REPORT_FIXTURES / "results-claude-next.json")
