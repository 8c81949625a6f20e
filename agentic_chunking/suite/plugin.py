"""The pytest plugin of the suite (loaded by the repository's ``conftest.py``): its hooks
and fixtures only, split as pytest-recording's plugin is.

``_config`` reads the options once into a frozen ``SuiteConfig``; ``_session`` keeps what
the session collects and runs a case; ``_saving`` writes the results and the report;
``_summary`` gives the terminal summary's lines; the stop signals belong to
``agentic_chunking._entry``, which the command line uses too.

Replay is the default and the safe one: cassettes from ``cassettes/<model>/``, record
mode ``none``, the network blocked for the cases, a dummy key, no SDK retries. ``--record``
records again against the live model and stops at once without ``ANTHROPIC_API_KEY``.

Guarantees:
- recording is atomic per case (``StagedPersister``): a cassette is replaced only when its
  case's run completed (a success or a clean pipeline failure); a transport failure,
  SIGINT, SIGTERM or a kill leaves the previous cassette byte for byte;
- a systemic failure stops the session at the case that met it (``_session``), with one
  plain message and exit code ``SYSTEMIC_EXIT_CODE``;
- every run that judged cases merges them into its results file and writes the HTML
  report (``_saving``); one whose results cannot be saved never exits 0;
- ``--baseline F`` is read before the first case (a usage error otherwise); the verdict
  against it is the one the report and the terminal summary show; with ``--fail-on-new``
  a case fails only on what the baseline did not have (a red case the baseline knew is an
  xfail), and the session fails exactly when that verdict is ``unsafe``;
- replay reads the judge model each selected cassette was judged by: without
  ``--judge-model`` (or its variable) the cassettes' one judge is used; a judge other than
  the one asked for is a usage error naming the judge the cassettes hold and the command
  that replays them, before any case runs (no results file is touched);
- a model with no cassette at all is a usage error before any case, naming the recorded
  models; a corrupt cassette fails its case plainly, kept in the results as ``error``;
- under ``--record``, a cassette that cannot be written makes its case an ``error`` with
  one plain line (never a traceback, never a pass);
- Ctrl-C ends the session with one line and 130, SIGTERM at any moment with 143, after
  the finished cases' results are merged; no case starts after a stop signal, even one a
  library swallowed, and the process ends within ``STOP_GRACE_S`` seconds of a SIGTERM
  or at once on a second stop signal.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from .._entry import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    StopHandling,
    end_process,
    handle_stop_signals,
    stop_signal_seen,
    stop_status,
)
from .._shown import redact
from ..client import ModelClient, parse_model
from ..report import CaseResult
from ._cassette_check import check_cassette, recorded_judge_models
from ._cassettes import cassette_dir
from ._cassettes import vcr_config as suite_vcr_config
from ._config import add_options, suite_config
from ._judge_options import replay_judge
from ._saving import save_results_and_report, save_unsaved
from ._session import (
    SYSTEMIC_EXIT_CODE,
    UNSAVED_EXIT_CODE,
    SuiteSession,
    assert_case_passed,
    case_id_of,
    fail_case,
    run_and_keep,
    stamped,
    the_cassette,
)
from ._summary import summary_lines

if TYPE_CHECKING:
    from ..client import AnyClient

__all__ = [
    "STOP_GRACE_S",
    "SYSTEMIC_EXIT_CODE",
    "UNSAVED_EXIT_CODE",
    "SuiteSession",
    "assert_case_passed",
]

_SESSION = pytest.StashKey[SuiteSession]()
STOP_GRACE_S = 15.0
"""After SIGTERM, the session has this long to unwind (merge the finished cases' results,
write the report); then the process ends at once with 143, every file already whole."""


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Read the options once (a usage error in one line for a bad one), then make the stop
    signals end the session (``_stop_handling``) until it is unconfigured."""
    config.stash[_SESSION] = suite = SuiteSession.start(suite_config(config))
    config.add_cleanup(handle_stop_signals(_stop_handling(suite)))
    config.pluginmanager.register(_Interrupts(suite), "agentic-chunking-interrupts")


def _stop_handling(suite: SuiteSession) -> StopHandling:
    """SIGTERM unwinds the session as Ctrl-C does (a staged recording is dropped, results
    are merged atomically); the session then ends with one line and ``EXIT_TERMINATED``.

    Wherever the interrupt lands (a library may swallow it: vcrpy's cassette set-up did),
    no case starts after it (``pytest_runtest_protocol``), and the process ends within
    ``STOP_GRACE_S`` seconds; a second SIGTERM or a second Ctrl-C ends it at once, with
    the finished cases' results merged first. Every file is written atomically, so no
    cassette or results file is ever half-written."""

    def end_now(status: int) -> NoReturn:
        save_unsaved(suite)
        what = "SIGTERM" if status == EXIT_TERMINATED else "a second Ctrl-C"
        end_process(
            status,
            f"agentic-chunking: stopped by {what}; no cassette or results file was left "
            "half-written",
        )

    return StopHandling(
        sigterm_raises=KeyboardInterrupt,
        end_now=end_now,
        grace_s=STOP_GRACE_S,
        quiet_unraisable=True,
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """No case starts after a stop signal, even one a library swallowed."""
    if stop_signal_seen() is None:
        return
    status = stop_status()
    suite = item.config.stash.get(_SESSION, None)
    if suite is not None:
        suite.exit_status = status
    pytest.exit(
        "stopped by SIGTERM: no later case runs" if status == EXIT_TERMINATED else "interrupted",
        returncode=status,
    )


class _Interrupts:
    """The session's hook for Ctrl-C (pytest's ``pytest_keyboard_interrupt`` has no config)."""

    def __init__(self, suite: SuiteSession) -> None:
        self.suite = suite

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        """Ctrl-C ends the session with 130, SIGTERM with 143 (a systemic stop keeps 2)."""
        if isinstance(excinfo.value, KeyboardInterrupt):
            self.suite.exit_status = stop_status()


@pytest.hookimpl(optionalhook=True)
def pytest_recording_configure(config: pytest.Config, vcr: Any) -> None:
    """Record through the suite's StagedPersister (pytest-recording's hook)."""
    suite = config.stash.get(_SESSION, None)
    if suite is not None:
        vcr.register_persister(suite.persister)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Replay with the judge the selected cassettes were recorded with (see the module)."""
    suite = session.config.stash.get(_SESSION, None)
    if suite is None or suite.config.record:
        return
    selected = [case_id for item in session.items if (case_id := case_id_of(item)) is not None]
    _refuse_a_model_never_recorded(suite, selected)
    if suite.judge_model is None:
        return
    held: dict[str, list[str]] = {}
    for case_id in selected:
        for judge in sorted(recorded_judge_models(the_cassette(suite, case_id))):
            held.setdefault(judge, []).append(case_id)
    suite.judge_model = replay_judge(
        held,
        judge_model=suite.judge_model,
        given_by=suite.config.judge_given_by,
        model=suite.model,
        cassettes=cassette_dir(suite.config.cassette_root, suite.model),
    )
    suite.judge_from_cassettes = bool(held)


def _refuse_a_model_never_recorded(suite: SuiteSession, selected: list[str]) -> None:
    """Replaying a model with no cassette at all (a typo, or a model never recorded) is one
    usage error before any case, naming the recorded models, and writes no results: not
    one failure per case and a report of errors. A recorded model missing one case's
    cassette fails that case, with the command that records it."""
    root = suite.config.cassette_root
    folder = cassette_dir(root, suite.model)
    if suite.config.chunker is not None:
        return  # a chunker that calls no model needs no cassette: a missing one is per case
    if not selected or (folder.is_dir() and any(folder.glob("*.yaml"))):
        return  # a recorded model: a missing cassette is its case's own failure
    recorded = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    close = difflib.get_close_matches(folder.name, recorded, n=1)
    hint = f" Did you mean --model {close[0]}?" if close else ""
    have = ", ".join(recorded) or "none"
    raise pytest.UsageError(
        f"no cassette of model {suite.model!r}: {folder} holds none (recorded models: "
        f"{have}).{hint} Replay a "
        f"recorded model with --model, or record this one (paid, needs a key): pytest "
        f"tests/test_cases.py --record --model {suite.model}. No case was run and no "
        "results file was changed"
    )


@pytest.fixture(scope="session")
def suite_session(pytestconfig: pytest.Config) -> SuiteSession:
    """The suite's settings for this session (model, record or replay, directories)."""
    return pytestconfig.stash[_SESSION]


@pytest.fixture(scope="session")
def record_mode(suite_session: SuiteSession) -> str:
    """``all`` under --record (every call recorded afresh; the StagedPersister loads nothing
    and deletes nothing), else ``none``. Never ``rewrite``: it deletes the cassette first."""
    return "all" if suite_session.config.record else "none"


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
    return str(cassette_dir(suite_session.config.cassette_root, suite_session.model))


@pytest.fixture
def default_cassette_name(request: pytest.FixtureRequest) -> str:
    """The case id for a case test, else the test's name."""
    return case_id_of(request.node) or str(request.node.name)


@pytest.fixture(scope="session")
def suite_client(suite_session: SuiteSession) -> Iterator[AnyClient]:
    """A live client under --record (each provider's from its variables); in replay one
    with a dummy key for every provider and no retries."""
    config = suite_session.config
    if config.record:
        url = config.base_url
        client = ModelClient(base_urls={parse_model(config.model).provider: url} if url else None)
    else:
        client = ModelClient.for_replay()
    with client:
        yield client


@pytest.fixture
def run_suite_case(
    suite_session: SuiteSession, suite_client: AnyClient, request: pytest.FixtureRequest
) -> Callable[[str], CaseResult]:
    """Run a case by id and keep its result (``_session.run_and_keep``)."""

    def run(case_id: str) -> CaseResult:
        return run_and_keep(suite_session, suite_client, case_id, request.node)

    return run


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before vcrpy loads a case's cassette: a corrupt one fails the case plainly.

    The case is kept in the results as ``error`` with the message (file and re-record
    command), so the report never counts it as passed.
    """
    suite = item.config.stash.get(_SESSION, None)
    case_id = case_id_of(item)
    if suite is None or suite.config.record or case_id is None:
        return
    problem = check_cassette(the_cassette(suite, case_id), case_id=case_id, model=suite.model)
    if problem is not None:
        fail_case(suite, case_id, redact(str(problem)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A case whose recorded cassette could not be written (at teardown, when vcrpy saves
    it) is an ``error`` in the results, with one plain line instead of a traceback."""
    report = yield
    suite = item.config.stash.get(_SESSION, None)
    case_id = case_id_of(item)
    if call.when != "teardown" or suite is None or case_id is None:
        return report
    problem = suite.persister.unsaved.get(the_cassette(suite, case_id).resolve())
    if problem is not None:
        suite.results[case_id] = stamped(
            suite, CaseResult(id=case_id, outcome="error", error=problem)
        )
        report.outcome = "failed"
        report.longrepr = problem
    return report


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None]:
    """Write results and report first; after pytest's own summary, end on the stop line.

    A run whose results or report could not be written, or whose report phase met an
    unexpected error, Ctrl-C or SIGTERM, never ends with exit status 0.
    """
    suite = session.config.stash.get(_SESSION, None)
    if suite is not None and suite.results:
        save_results_and_report(suite)
    result = yield
    if suite is None:
        return result
    if stop_status() == EXIT_TERMINATED:
        suite.exit_status = EXIT_TERMINATED
        sys.stderr.write(
            "agentic-chunking: stopped by SIGTERM; no cassette or results file was left "
            "half-written\n"
        )
    comparison = suite.comparison
    if (
        suite.config.fail_on_new
        and comparison is not None
        and comparison.verdict == "unsafe"
        and session.exitstatus == pytest.ExitCode.OK
    ):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED  # e.g. a case missing from the run
    if suite.stopped is not None:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_sep("!", "agentic-chunking: the run STOPPED (see above)", red=True)
    overriding = suite.exit_status in (EXIT_INTERRUPTED, EXIT_TERMINATED)
    if suite.exit_status is not None and (overriding or session.exitstatus in (0, 1)):
        session.exitstatus = suite.exit_status  # a stopped run (2) keeps its own status
    return result


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The suite's section of the summary (``_summary.summary_lines``), each line redacted."""
    suite = config.stash.get(_SESSION, None)
    lines = [] if suite is None else summary_lines(suite)
    if not lines:
        return
    terminalreporter.section("agentic-chunking report")
    for line in lines:
        terminalreporter.write_line(redact(line.text), **line.markup)
