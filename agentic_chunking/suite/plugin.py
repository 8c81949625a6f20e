"""The pytest plugin of the suite (loaded by the repository's ``conftest.py``).

Replay is the default and the safe one: cassettes from ``cassettes/<model>/``, record
mode ``none``, the network blocked for the cases, a dummy key, no SDK retries. ``--record``
records again against the live model and stops at once without ``ANTHROPIC_API_KEY``.

Guarantees:
- recording is atomic per case (``StagedPersister``): a cassette is replaced only when its
  case's run completed (a success or a clean pipeline failure); a transport failure,
  SIGINT, SIGTERM or a kill leaves the previous cassette byte for byte;
- a systemic failure (``_systemic``: key rejected, model unknown, base URL wrong, no
  connection, overloaded after the SDK's retries) stops the session at the case that met
  it, with one plain message and exit code ``SYSTEMIC_EXIT_CODE``;
- every run that judged cases merges them into ``results-<model>.json`` (``record_run``:
  a partial run updates only its cases) and writes the HTML report of this run, against
  ``--baseline``, else the reference results for a recorded model.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from .._errors import CaseError, CassetteError, ConfigurationError, ModelCallError
from ..client import (
    DEFAULT_JUDGE_MODEL,
    DEFAULT_MODEL,
    MODEL_ENV_VAR,
    ModelClient,
    deprecation_notice,
    missing_credentials,
    parse_model,
)
from ..pipeline._prompts import PROMPT_VERSIONS
from ..pipeline._run import DEFAULT_MAX_CONCURRENCY
from ..report import CaseResult, RunResults, build_report, load_results
from ..report._results import model_slug, now_iso, record_run
from ._cases import load_case
from ._cassette_check import check_cassette
from ._cassettes import StagedPersister, cassette_dir, cassette_path
from ._cassettes import vcr_config as suite_vcr_config
from ._judge_options import add_judge_options, calibration_for, configured_judge_model
from ._replies import REFERENCE_MODEL, is_reference
from ._runner import failure_message, run_case
from ._systemic import systemic_failure

if TYPE_CHECKING:
    from ..client._providers import AnyClient

SYSTEMIC_EXIT_CODE = int(pytest.ExitCode.INTERRUPTED)
"""The exit code of a session stopped by a systemic failure (pytest's "interrupted")."""


@dataclass
class SuiteSession:
    """What one pytest session of the suite needs and collects."""

    model: str
    record: bool
    cases_dir: Path
    cassette_root: Path
    reports_dir: Path
    baseline: Path | None
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    started_at: str = field(default_factory=now_iso)
    judge_model: str | None = None
    root: Path = Path()
    results: dict[str, CaseResult] = field(default_factory=dict)
    persister: StagedPersister = field(default_factory=lambda: StagedPersister(recording=False))
    stopped: str | None = None
    stopped_at: str | None = None
    report_path: Path | None = None
    report_error: str | None = None

    @property
    def replies(self) -> str:
        return "reference" if is_reference(self.model) else "recorded"


_SESSION = pytest.StashKey[SuiteSession]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentic-chunking", "agentic-chunking evaluation suite")
    group.addoption(
        "--record",
        action="store_true",
        default=False,
        help="record the cases' cassettes again against the live model (needs "
        "ANTHROPIC_API_KEY, or OPENAI_API_KEY or OPENAI_BASE_URL for an openai: model); "
        "without it the suite only replays, with the network blocked",
    )
    group.addoption(
        "--model",
        default=None,
        help="the model whose cassettes are replayed or recorded, in cassettes/<model>/ "
        "(openai:M in cassettes/openai--M/) "
        f"(default: '{REFERENCE_MODEL}' to replay; ${MODEL_ENV_VAR} or {DEFAULT_MODEL} "
        "to record)",
    )
    group.addoption(
        "--max-concurrency",
        type=int,
        default=DEFAULT_MAX_CONCURRENCY,
        metavar="N",
        help=f"extraction calls in flight at once per case (default {DEFAULT_MAX_CONCURRENCY})",
    )
    group.addoption("--cases-dir", default="cases", help="the case files (default: cases)")
    group.addoption(
        "--cassette-root", default="cassettes", help="the cassette root (default: cassettes)"
    )
    group.addoption(
        "--reports-dir", default="reports", help="where results and reports go (default: reports)"
    )
    add_judge_options(group)
    group.addoption(
        "--baseline",
        default=None,
        metavar="PATH",
        help="a results file to compare this run with in the report (default: the reference "
        "results for a recorded model)",
    )


def pytest_configure(config: pytest.Config) -> None:
    record = bool(config.getoption("--record"))
    model = _canonical(config.getoption("--model"))
    if record:
        model = model or _canonical(os.environ.get(MODEL_ENV_VAR, "")) or DEFAULT_MODEL
    concurrency = int(config.getoption("--max-concurrency"))
    if concurrency < 1:
        raise pytest.UsageError(f"--max-concurrency is {concurrency}; give 1 or more")
    root = config.rootpath
    baseline = config.getoption("--baseline")
    judge_model = configured_judge_model(config, model or REFERENCE_MODEL)
    if record:
        _check_record_settings(model or DEFAULT_MODEL, judge_model)
    config.stash[_SESSION] = SuiteSession(
        model=model or REFERENCE_MODEL,
        record=record,
        cases_dir=root / config.getoption("--cases-dir"),
        cassette_root=root / config.getoption("--cassette-root"),
        reports_dir=root / config.getoption("--reports-dir"),
        baseline=Path(baseline) if baseline else None,
        max_concurrency=concurrency,
        persister=StagedPersister(recording=record),
        judge_model=judge_model,
        root=root,
    )


def _canonical(model: str | None) -> str | None:
    """``model`` in its canonical form (``parse_model``), None when not given; an unknown
    provider is a usage error."""
    if model is None or not model.strip():
        return None
    try:
        return parse_model(model).id
    except ConfigurationError as error:
        raise pytest.UsageError(f"--model: {error}") from None


def _check_record_settings(model: str, judge_model: str | None) -> None:
    """Refuse --record, before any case, without the key (or base URL) each provider of
    the run needs, or for the hand-written reference set."""
    if is_reference(model):
        raise pytest.UsageError(
            f"the '{REFERENCE_MODEL}' cassettes hold hand-written replies and are not "
            "recorded from a model: rebuild them with "
            "`python -m agentic_chunking.suite rebuild-reference`, or pass --model"
        )
    for name, role in ((model, "model"), (judge_model, "judge model")):
        if name is None or is_reference(name):
            continue
        missing = missing_credentials(name)
        if missing is not None:
            other = "" if role == "model" else " (or choose it with --judge-model, or --no-judge)"
            raise pytest.UsageError(
                f"--record calls the live model and needs an API key: {missing}; the {role} "
                f"is {name!r}{other}. Plain `pytest` replays the recorded cassettes and needs "
                "no key."
            )


@pytest.hookimpl(optionalhook=True)
def pytest_recording_configure(config: pytest.Config, vcr: Any) -> None:
    """Record through the suite's StagedPersister (pytest-recording's hook)."""
    suite = config.stash.get(_SESSION, None)
    if suite is not None:
        vcr.register_persister(suite.persister)


@pytest.fixture(scope="session")
def suite_session(pytestconfig: pytest.Config) -> SuiteSession:
    """The suite's settings for this session (model, record or replay, directories)."""
    return pytestconfig.stash[_SESSION]


@pytest.fixture(scope="session")
def record_mode(suite_session: SuiteSession) -> str:
    """``all`` under --record (every call recorded afresh; the StagedPersister loads nothing
    and deletes nothing), else ``none``. Never ``rewrite``: it deletes the cassette first."""
    return "all" if suite_session.record else "none"


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
def suite_client(suite_session: SuiteSession) -> Iterator[AnyClient]:
    """A live client under --record (each provider's from its variables); in replay one
    with a dummy key for every provider and no retries."""
    client = ModelClient() if suite_session.record else ModelClient.for_replay()
    with client:
        yield client


@pytest.fixture
def run_suite_case(
    suite_session: SuiteSession, suite_client: AnyClient
) -> Callable[[str], CaseResult]:
    """Run a case by id and keep its result; fail plainly on a bad cassette or a case's own
    call failure; stop the session on a systemic failure."""

    def run(case_id: str) -> CaseResult:
        path = cassette_path(suite_session.cassette_root, suite_session.model, case_id)
        try:
            case = load_case(suite_session.cases_dir / f"{case_id}.yaml")
            result = run_case(
                case,
                client=suite_client,
                model=suite_session.model,
                cassette=path,
                max_concurrency=suite_session.max_concurrency,
                judge_model=suite_session.judge_model,
            )
        except (CaseError, CassetteError) as error:
            problem = str(error)
        except (ConfigurationError, ModelCallError) as error:
            problem = _stop_if_systemic(suite_session, case_id, error)
        else:
            return _keep(suite_session, result, path)
        suite_session.results[case_id] = _stamped(
            suite_session, CaseResult(id=case_id, outcome="error", error=problem)
        )
        pytest.fail(problem, pytrace=False)  # outside `except`: the message shows once

    return run


def _keep(suite: SuiteSession, result: CaseResult, cassette: Path) -> CaseResult:
    """Keep a completed case's result; under --record, let its cassette be replaced."""
    suite.persister.approve(cassette)
    suite.results[result.id] = _stamped(suite, result)
    return result


def _stamped(suite: SuiteSession, result: CaseResult) -> CaseResult:
    cassettes = cassette_dir(suite.cassette_root, suite.model)
    return replace(result, judged_at=suite.started_at, cassette_set=_relative(cassettes, suite))


def _stop_if_systemic(suite: SuiteSession, case_id: str, error: Exception) -> str:
    """Stop the session (pytest.exit) when ``error`` will meet every case; else its message."""
    failure = systemic_failure(error, model=suite.model)
    if failure is None and not isinstance(error, ConfigurationError):
        return str(error)
    reason = failure.message if failure is not None else str(error)
    done = len(suite.results)
    # The case it stopped at could not run: it is an error in the results, never missing.
    suite.results[case_id] = _stamped(suite, CaseResult(id=case_id, outcome="error", error=reason))
    suite.stopped_at = case_id
    suite.stopped = f"agentic-chunking stopped at {case_id}: {reason} No further case was run" + (
        f"; the {done} case(s) judged before it are kept in the results." if done else "."
    )
    _exit(suite.stopped)


def _exit(message: str) -> NoReturn:
    pytest.exit(message, returncode=SYSTEMIC_EXIT_CODE)


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
        suite.results[case_id] = _stamped(
            suite, CaseResult(id=case_id, outcome="error", error=str(problem))
        )
        pytest.fail(str(problem), pytrace=False)


def assert_case_passed(result: CaseResult) -> None:
    """Fail the test with every offending proposition and its reason."""
    if result.outcome != "passed":
        pytest.fail(failure_message(result), pytrace=False)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None]:
    """Write results and report first; after pytest's own summary, end on the stop line."""
    suite = session.config.stash.get(_SESSION, None)
    if suite is not None and suite.results:
        _write_results_and_report(suite)
    result = yield
    if suite is not None and suite.stopped is not None:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_sep("!", "agentic-chunking: the run STOPPED (see above)", red=True)
    return result


def _write_results_and_report(suite: SuiteSession) -> None:
    run = RunResults(
        model=suite.model,
        replies=suite.replies,
        cassette_set=_relative(cassette_dir(suite.cassette_root, suite.model), suite),
        prompt_versions=dict(PROMPT_VERSIONS),
        created_at=suite.started_at,
        cases=tuple(suite.results[k] for k in sorted(suite.results)),
        judge_model=suite.judge_model,
        judge_calibration=calibration_for(suite.judge_model, suite.root),
    )
    try:
        baseline = _baseline(suite)  # read before this run's results are written
        merged = record_run(run, suite.reports_dir)
        suite.report_path = build_report([merged], reports_dir=suite.reports_dir, baseline=baseline)
    except Exception as error:  # a broken report must not hide the cases' verdicts
        suite.report_error = f"{type(error).__name__}: {error}"


def _baseline(suite: SuiteSession) -> RunResults | None:
    """``--baseline``; else, for a recorded model, the reference results if written."""
    if suite.baseline is not None:
        return load_results(suite.baseline)
    reference = suite.reports_dir / f"results-{model_slug(REFERENCE_MODEL)}.json"
    if suite.replies == "recorded" and reference.exists():
        return load_results(reference)
    return None


def _relative(path: Path, suite: SuiteSession) -> str:
    """``path`` relative to the cases' project when inside it (no machine's paths)."""
    root = suite.cases_dir.parent
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    suite = config.stash.get(_SESSION, None)
    if suite is None or not (suite.results or suite.stopped):
        return
    passed = sum(r.outcome == "passed" for r in suite.results.values())
    kind = "hand-written reference replies" if suite.replies == "reference" else "recorded replies"
    terminalreporter.section("agentic-chunking report")
    if suite.stopped is not None:
        before = len(suite.results) - (suite.stopped_at in suite.results)
        failed = before - passed
        terminalreporter.write_line(
            f"STOPPED at {suite.stopped_at}: {before} case(s) judged before it "
            f"({failed} not passing), model {suite.model!r} ({kind}); no later case ran",
            red=True,
        )
    else:
        terminalreporter.write_line(
            f"{passed}/{len(suite.results)} cases passed, model {suite.model!r} ({kind})"
        )
    for path in suite.persister.kept:
        terminalreporter.write_line(f"cassette kept as it was (its run did not complete): {path}")
    if suite.report_path is not None:
        terminalreporter.write_line(f"report: {suite.report_path}")
    if suite.report_error is not None:
        terminalreporter.write_line(f"report not written: {suite.report_error}", red=True)
    for notice in sdk_notices(suite.model, suite.judge_model):
        terminalreporter.write_line(f"note: {notice}", yellow=True)


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
