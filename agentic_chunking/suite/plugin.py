"""The pytest plugin of the suite (loaded by the repository's ``conftest.py``).

Replay is the default and the safe one: cassettes from ``cassettes/<model>/``, record
mode ``none``, the network blocked for the cases, a dummy key, no SDK retries. ``--record``
records again against the live model and stops at once without ``ANTHROPIC_API_KEY``.
Every run that executed cases writes ``results-<model>.json`` and the HTML report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .._client import API_KEY_ENV_VAR, DEFAULT_MODEL, MODEL_ENV_VAR, make_client
from .._errors import CaseError, CassetteError, ConfigurationError, ModelCallError
from .._prompts import PROMPT_VERSIONS
from ..report import CaseResult, RunResults, build_report, load_results, write_results
from ..report._results import model_slug, now_iso
from ._cases import load_case
from ._cassette_check import check_cassette
from ._cassettes import cassette_dir, cassette_path
from ._cassettes import vcr_config as suite_vcr_config
from ._persister import atomic_persister
from ._replies import REFERENCE_MODEL
from ._runner import failure_message, run_case

if TYPE_CHECKING:
    import anthropic

REPLAY_API_KEY = "replay-needs-no-key"


@dataclass
class SuiteSession:
    """What one pytest session of the suite needs and collects."""

    model: str
    record: bool
    cases_dir: Path
    cassette_root: Path
    reports_dir: Path
    baseline: Path | None
    results: dict[str, CaseResult] = field(default_factory=dict)
    report_path: Path | None = None
    report_error: str | None = None

    @property
    def replies(self) -> str:
        return "reference" if self.model == REFERENCE_MODEL else "recorded"


_SESSION = pytest.StashKey[SuiteSession]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentic-chunking", "agentic-chunking evaluation suite")
    group.addoption(
        "--record",
        action="store_true",
        default=False,
        help="record the cases' cassettes again against the live model (needs "
        f"{API_KEY_ENV_VAR}); without it the suite only replays, with the network blocked",
    )
    group.addoption(
        "--model",
        default=None,
        help="the model whose cassettes are replayed or recorded, in cassettes/<model>/ "
        f"(default: '{REFERENCE_MODEL}' to replay; ${MODEL_ENV_VAR} or {DEFAULT_MODEL} "
        "to record)",
    )
    group.addoption("--cases-dir", default="cases", help="the case files (default: cases)")
    group.addoption(
        "--cassette-root", default="cassettes", help="the cassette root (default: cassettes)"
    )
    group.addoption(
        "--reports-dir", default="reports", help="where results and reports go (default: reports)"
    )
    group.addoption(
        "--baseline",
        default=None,
        metavar="PATH",
        help="a results file of an earlier run to compare with in the report",
    )


def pytest_configure(config: pytest.Config) -> None:
    record = bool(config.getoption("--record"))
    model = config.getoption("--model")
    if record:
        if not os.environ.get(API_KEY_ENV_VAR, "").strip():
            raise pytest.UsageError(
                f"--record calls the live model and needs an API key: set {API_KEY_ENV_VAR} "
                "(and ANTHROPIC_BASE_URL for another Messages-API server). Plain `pytest` "
                "replays the recorded cassettes and needs no key."
            )
        model = model or os.environ.get(MODEL_ENV_VAR, "").strip() or DEFAULT_MODEL
        if model == REFERENCE_MODEL:
            raise pytest.UsageError(
                f"the '{REFERENCE_MODEL}' cassettes hold hand-written replies and are not "
                "recorded from a model: rebuild them with "
                "`python -m agentic_chunking.suite rebuild-reference`, or pass --model"
            )
    root = config.rootpath
    baseline = config.getoption("--baseline")
    config.stash[_SESSION] = SuiteSession(
        model=model or REFERENCE_MODEL,
        record=record,
        cases_dir=root / config.getoption("--cases-dir"),
        cassette_root=root / config.getoption("--cassette-root"),
        reports_dir=root / config.getoption("--reports-dir"),
        baseline=Path(baseline) if baseline else None,
    )


def pytest_recording_configure(config: pytest.Config, vcr: Any) -> None:
    """Cassettes recorded by the suite are written atomically (suite/_persister.py)."""
    vcr.register_persister(atomic_persister())


@pytest.fixture(scope="session")
def suite_session(pytestconfig: pytest.Config) -> SuiteSession:
    """The suite's settings for this session (model, record or replay, directories)."""
    return pytestconfig.stash[_SESSION]


@pytest.fixture(scope="session")
def record_mode(suite_session: SuiteSession) -> str:
    """``rewrite`` under --record (the cassette is recorded afresh), else ``none``."""
    return "rewrite" if suite_session.record else "none"


@pytest.fixture
def vcr_config(record_mode: str) -> dict[str, Any]:
    """The suite's vcrpy options: body matching, scrubbed headers, no error replies.

    The record mode is repeated here because pytest-recording's network blocking reads
    it from this dict, not from the ``record_mode`` fixture.
    """
    return {**suite_vcr_config(), "record_mode": record_mode}


@pytest.fixture
def vcr_cassette_dir(suite_session: SuiteSession) -> str:
    """``cassettes/<model>``."""
    return str(cassette_dir(suite_session.cassette_root, suite_session.model))


@pytest.fixture
def default_cassette_name(request: pytest.FixtureRequest) -> str:
    """The case id for a case test, else the test's name."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and "case_id" in callspec.params:
        return str(callspec.params["case_id"])
    return str(request.node.name)


@pytest.fixture(scope="session")
def suite_client(suite_session: SuiteSession) -> Iterator[anthropic.Anthropic]:
    """A live client under --record; in replay one with a dummy key and no retries."""
    if suite_session.record:
        client = make_client()
    else:
        client = make_client(api_key=REPLAY_API_KEY, max_retries=0)
    with client:
        yield client


@pytest.fixture
def run_suite_case(
    suite_session: SuiteSession, suite_client: anthropic.Anthropic
) -> Callable[[str], CaseResult]:
    """Run a case by id, keep its result for the report, and fail plainly on a bad cassette."""

    def run(case_id: str) -> CaseResult:
        path = cassette_path(suite_session.cassette_root, suite_session.model, case_id)
        try:
            case = load_case(suite_session.cases_dir / f"{case_id}.yaml")
            result = run_case(case, client=suite_client, model=suite_session.model, cassette=path)
        except (CaseError, CassetteError, ModelCallError) as error:
            cannot_run = str(error)  # failed below, outside the handler: no chained report
        except ConfigurationError as error:
            pytest.exit(f"{case_id}: {error}", returncode=2)
        else:
            suite_session.results[case_id] = result
            return result
        suite_session.results[case_id] = _error_result(case_id, cannot_run)
        pytest.fail(cannot_run, pytrace=False)

    return run


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before vcrpy loads a case's cassette: a corrupt one fails the case plainly.

    The case is kept in the results as ``error`` with the message (file and re-record
    command), so the report never counts it as passed.
    """
    suite = item.config.stash.get(_SESSION, None)
    callspec = getattr(item, "callspec", None)
    if suite is None or suite.record or callspec is None or "case_id" not in callspec.params:
        return
    case_id = str(callspec.params["case_id"])
    path = cassette_path(suite.cassette_root, suite.model, case_id)
    problem = check_cassette(path, case_id=case_id, model=suite.model)
    if problem is not None:
        suite.results[case_id] = _error_result(case_id, str(problem))
        pytest.fail(str(problem), pytrace=False)


def assert_case_passed(result: CaseResult) -> None:
    """Fail the test with every offending proposition and its reason."""
    if result.outcome != "passed":
        pytest.fail(failure_message(result), pytrace=False)


def _error_result(case_id: str, message: str) -> CaseResult:
    return CaseResult(id=case_id, outcome="error", error=message)


def pytest_sessionfinish(session: pytest.Session) -> None:
    suite = session.config.stash.get(_SESSION, None)
    if suite is None or not suite.results:
        return
    run = RunResults(
        model=suite.model,
        replies=suite.replies,
        cassette_set=_relative(cassette_dir(suite.cassette_root, suite.model), session),
        prompt_versions=dict(PROMPT_VERSIONS),
        created_at=now_iso(),
        cases=tuple(suite.results[k] for k in sorted(suite.results)),
    )
    try:
        write_results(run, suite.reports_dir)
        others = sorted(
            (
                load_results(path)
                for path in suite.reports_dir.glob("results-*.json")
                if path.name != f"results-{model_slug(suite.model)}.json"
            ),
            key=lambda other: other.created_at,
        )
        baseline = load_results(suite.baseline) if suite.baseline else None
        # Earlier runs first, this run last: deltas read from the older runs to this one.
        suite.report_path = build_report(
            [*others, run], reports_dir=suite.reports_dir, baseline=baseline
        )
    except Exception as error:  # a broken report must not hide the cases' verdicts
        suite.report_error = f"{type(error).__name__}: {error}"


def _relative(path: Path, session: pytest.Session) -> str:
    """``path`` relative to the rootdir when inside it (no machine's paths in results)."""
    try:
        return str(path.relative_to(session.config.rootpath))
    except ValueError:
        return str(path)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    suite = config.stash.get(_SESSION, None)
    if suite is None or not suite.results:
        return
    passed = sum(r.outcome == "passed" for r in suite.results.values())
    kind = "hand-written reference replies" if suite.replies == "reference" else "recorded replies"
    terminalreporter.section("agentic-chunking report")
    terminalreporter.write_line(
        f"{passed}/{len(suite.results)} cases passed, model {suite.model!r} ({kind})"
    )
    if suite.report_path is not None:
        terminalreporter.write_line(f"report: {suite.report_path}")
    if suite.report_error is not None:
        terminalreporter.write_line(f"report not written: {suite.report_error}", red=True)
