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
  a partial run updates only its cases; a ``--no-judge`` run into its own
  ``results-<model>-unjudged.json``) and writes the HTML report of this run, against
  ``--baseline``, else the reference results for a recorded model;
- ``--baseline F`` is read before the first case; the verdict against it (``unsafe``,
  ``review``, ``same``: ``report.compare_runs``, computed once) is the one the report and
  the terminal summary show; with ``--fail-on-new`` a case fails only on what the
  baseline did not have (a red case the baseline knew is an xfail), and the session fails
  exactly when that verdict is ``unsafe``;
- each case's findings (and, with a baseline, its new lines) go to the test's
  ``user_properties``, so ``--junitxml`` carries them.
- a run whose results cannot be saved there (a damaged or newer results file, a read-only
  or full ``reports/``) never exits 0: its results go to a fallback file in a new
  temporary folder, which the summary names, and the session exits ``UNSAVED_EXIT_CODE``;
  ``--baseline`` is read and checked before the first case (a usage error otherwise);
- replay reads the judge model each selected cassette was judged by: without
  ``--judge-model`` (or its variable) the cassettes' one judge is used; a judge other than
  the one asked for is a usage error naming the judge the cassettes hold and the command
  that replays them, before any case runs (no results file is touched);
- under ``--record``, a cassette that cannot be written makes its case an ``error`` with
  one plain line (never a traceback, never a pass);
- the report phase has one catch-all: an unexpected exception is one line naming the
  cause and the file with the full trace, exit ``EXIT_SOFTWARE``; Ctrl-C there is one line
  and exit 130; SIGTERM at any moment ends the session like Ctrl-C, with one line and 143.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from .._entry import EXIT_INTERRUPTED, EXIT_SOFTWARE, EXIT_TERMINATED, unexpected_error_line
from .._errors import (
    AgenticChunkingError,
    CaseError,
    CassetteError,
    ConfigurationError,
    ModelCallError,
)
from .._shown import redact
from ..checks import parser_status
from ..client import (
    DEFAULT_JUDGE_MODEL,
    DEFAULT_MODEL,
    MODEL_ENV_VAR,
    OPENAI,
    ModelClient,
    deprecation_notice,
    missing_credentials,
    parse_model,
)
from ..pipeline._prompts import PROMPT_VERSIONS
from ..pipeline._run import DEFAULT_MAX_CONCURRENCY
from ..report import (
    CaseResult,
    Comparison,
    RunResults,
    build_report,
    compare_case,
    compare_runs,
    load_results,
    verdict_of,
)
from ..report._results import model_slug, now_iso, record_run, results_stem, write_results
from ._cases import load_case
from ._cassette_check import check_cassette, recorded_judge_models
from ._cassettes import StagedPersister, cassette_dir, cassette_path
from ._cassettes import vcr_config as suite_vcr_config
from ._chunkers import (
    NOT_APPLICABLE,
    Chunker,
    configured_chunker,
    load_chunker,
    replay_keys,
    run_chunker_case,
    run_id,
)
from ._judge_options import (
    add_judge_options,
    calibration_for,
    configured_judge_model,
    judge_given_by,
    replay_judge,
)
from ._replies import REFERENCE_MODEL, is_reference
from ._runner import failure_message, run_case
from ._systemic import systemic_failure

if TYPE_CHECKING:
    from ..client._providers import AnyClient

SYSTEMIC_EXIT_CODE = int(pytest.ExitCode.INTERRUPTED)
"""The exit code of a session stopped by a systemic failure (pytest's "interrupted")."""
UNSAVED_EXIT_CODE = int(pytest.ExitCode.INTERNAL_ERROR)
"""The exit code of a session whose results or report could not be written where asked."""
REPORT_PHASE = "pytest (agentic-chunking report phase)"


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
    baseline_run: RunResults | None = None
    """``--baseline``, read before the first case."""
    fail_on_new: bool = False
    comparison: Comparison | None = None
    """This run against its base, computed once at the end; None without a base."""
    results_error: str | None = None
    baseline_error: str | None = None
    results_path: Path | None = None
    exit_status: int | None = None
    terminated: bool = False
    sigterm_before: Any = None
    judge_from_cassettes: bool = False
    """Whether the replay's judge model was read from the selected cassettes."""
    base_url: str | None = None
    """``--base-url``: the API of the model's provider while recording."""
    chunker: Chunker | None = None
    """``--chunker``: the chunker run instead of our pipeline (``model`` is then its run id)."""
    sigint_before: Any = None

    @property
    def replies(self) -> str:
        return "reference" if is_reference(self.model) else "recorded"


_SESSION = pytest.StashKey[SuiteSession]()
MAX_SUMMARY_LINES = 20
"""At most this many lines of what changed are printed under the verdict; the report has all."""


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
        "--chunker",
        default=None,
        metavar="MODULE:CALLABLE",
        help="run the cases through this chunker instead of our pipeline (default: chunker "
        "under [tool.agentic-chunking] in pyproject.toml); its calls go in "
        "cassettes/<chunker-name>--<model>/, its results in results-<chunker-name>--<model>.json",
    )
    group.addoption(
        "--base-url",
        default=None,
        metavar="URL",
        help="with --record: the API of the model's provider (default $ANTHROPIC_BASE_URL, or "
        "$OPENAI_BASE_URL for an openai: model), also used by a judge of the same provider; "
        "a replay calls no API and ignores it",
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
        help="a results file to compare this run with (read before the first case); the "
        "terminal summary and the report give the verdict against it: unsafe, review or same "
        "(default base: the reference results for a recorded model)",
    )
    group.addoption(
        "--fail-on-new",
        action="store_true",
        default=False,
        help="with --baseline: fail only on findings the baseline did not have (a red case "
        "the baseline knew is xfailed); the session fails when the verdict is unsafe",
    )


def pytest_configure(config: pytest.Config) -> None:
    for option in ("--model", "--judge-model"):
        given = config.getoption(option)
        if given is not None and not given.strip():  # never the default, silently
            raise pytest.UsageError(
                f"{option} is empty; give a model id, or leave {option} out for its default"
            )
    record = bool(config.getoption("--record"))
    model = _canonical(config.getoption("--model"))
    chunker = _chunker(config)
    if chunker is not None:
        model = run_id(chunker, model)  # the run's name: <chunker-name>--<model>
    elif record:
        model = model or _canonical(os.environ.get(MODEL_ENV_VAR, "")) or DEFAULT_MODEL
    concurrency = int(config.getoption("--max-concurrency"))
    if concurrency < 1:
        raise pytest.UsageError(f"--max-concurrency is {concurrency}; give 1 or more")
    root = config.rootpath
    baseline = config.getoption("--baseline")
    fail_on_new = bool(config.getoption("--fail-on-new"))
    if fail_on_new and not baseline:
        raise pytest.UsageError(
            "--fail-on-new compares with a baseline: give --baseline PATH (a results file, "
            "e.g. reports/results-<model>.json of the release you trust)"
        )
    judge_model = configured_judge_model(config, model or REFERENCE_MODEL)
    base_url = (config.getoption("--base-url") or "").strip() or None
    if record:
        _check_record_settings(
            model or DEFAULT_MODEL, judge_model, base_url, chunker=chunker is not None
        )
    config.stash[_SESSION] = suite = SuiteSession(
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
        baseline_run=_read_baseline(baseline),
        fail_on_new=fail_on_new,
        base_url=base_url,
        chunker=chunker,
    )
    _terminate_like_ctrl_c(suite)
    config.pluginmanager.register(_Interrupts(suite), "agentic-chunking-interrupts")


def _chunker(config: pytest.Config) -> Chunker | None:
    """``--chunker`` (or pyproject's), imported before any case; a usage error in one line
    when it cannot be. In replay, a provider key that is not set is set to a dummy for the
    session first (``replay_keys``): a chunker builds its own clients, and replay needs no
    key."""
    try:
        spec = configured_chunker(config.getoption("--chunker"), config.rootpath)
        if spec is None:
            return None
        if not config.getoption("--record"):
            config.add_cleanup(replay_keys())
        return load_chunker(spec, config.rootpath)
    except ConfigurationError as error:
        raise pytest.UsageError(str(error)) from None


def _read_baseline(baseline: str | None) -> RunResults | None:
    """``--baseline``, read and checked before the first case (and anything paid for)."""
    if not baseline:
        return None
    try:
        return load_results(Path(baseline))
    except AgenticChunkingError as error:
        raise pytest.UsageError(
            f"--baseline: {error}. Give a results file the suite wrote (reports/history/ "
            "holds every earlier run), or leave --baseline out; no case was run"
        ) from None


STOP_GRACE_S = 15.0
"""After SIGTERM, the session has this long to unwind (merge the finished cases' results,
write the report); then the process ends at once with 143, every file already whole."""
_STOPS: list[int] = []
"""The stop signals this process received in a suite session (process-wide: a session run
in-process by another, as pytester does, stops the outer one too)."""


def _terminate_like_ctrl_c(suite: SuiteSession) -> None:
    """SIGTERM unwinds the session as Ctrl-C does (a staged recording is dropped, results
    are merged atomically); the session then ends with one line and ``EXIT_TERMINATED``.

    Wherever the interrupt lands (a library may swallow it: vcrpy's cassette set-up did),
    no case starts after it (``pytest_runtest_protocol``), and the process ends within
    ``STOP_GRACE_S`` seconds; a second SIGTERM or a second Ctrl-C ends it at once, with
    the finished cases' results merged first. Every file is written atomically, so no
    cassette or results file is ever half-written."""
    if threading.current_thread() is not threading.main_thread():
        return

    def terminated(signum: int, frame: FrameType | None) -> None:
        suite.terminated = True
        _stop_signal(suite, signum)

    def interrupted(signum: int, frame: FrameType | None) -> None:
        _stop_signal(suite, signum)

    suite.sigterm_before = signal.signal(signal.SIGTERM, terminated)
    suite.sigint_before = signal.signal(signal.SIGINT, interrupted)


def _stop_signal(suite: SuiteSession, signum: int) -> None:
    """Note the signal; the first raises KeyboardInterrupt (SIGTERM also starts the grace
    timer), a second ends the process now."""
    again = bool(_STOPS)
    _STOPS.append(signum)
    if again:
        _stop_now(suite)
    # Objects the interrupted code left half-built (an SDK's HTTP client whose constructor
    # the signal cut short) fail in __del__ as the run unwinds, and Python prints each
    # such failure as a traceback ("Exception ignored in ..."): stopping, they are noise.
    sys.unraisablehook = _ignore_unraisable
    if signum == signal.SIGTERM:
        timer = threading.Timer(STOP_GRACE_S, _stop_now, args=(suite,))
        timer.daemon = True
        timer.start()
    raise KeyboardInterrupt


def _ignore_unraisable(unraisable: Any) -> None:
    """Say nothing of an exception raised where none can be (``__del__``) once stopping."""


def _stop_now(suite: SuiteSession) -> None:
    """End the process at once: the finished cases' results merged (atomically) if they
    were not yet, one line, and the exit status of the first stop signal."""
    status = EXIT_TERMINATED if _STOPS and _STOPS[0] == signal.SIGTERM else EXIT_INTERRUPTED
    if suite.results and suite.results_path is None and suite.results_error is None:
        with contextlib.suppress(BaseException):  # stopping: the previous file stays whole
            record_run(_this_run(suite), suite.reports_dir, judged=suite.judge_model is not None)
    what = "SIGTERM" if status == EXIT_TERMINATED else "a second Ctrl-C"
    os.write(
        2,
        f"agentic-chunking: stopped by {what}; no cassette or results file was left "
        "half-written\n".encode(),
    )
    os._exit(status)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """No case starts after a stop signal, even one a library swallowed."""
    if not _STOPS:
        return
    suite = item.config.stash.get(_SESSION, None)
    terminated = _STOPS[0] == signal.SIGTERM
    if suite is not None:
        suite.terminated = suite.terminated or terminated
        suite.exit_status = EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    pytest.exit(
        "stopped by SIGTERM: no later case runs" if terminated else "interrupted",
        returncode=EXIT_TERMINATED if terminated else EXIT_INTERRUPTED,
    )


@dataclass
class _Interrupts:
    """The session's hook for Ctrl-C (pytest's ``pytest_keyboard_interrupt`` has no config)."""

    suite: SuiteSession

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        """Ctrl-C ends the session with 130, SIGTERM with 143 (a systemic stop keeps 2)."""
        if isinstance(excinfo.value, KeyboardInterrupt):
            terminated = self.suite.terminated
            self.suite.exit_status = EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


def pytest_unconfigure(config: pytest.Config) -> None:
    """Give SIGTERM back its handler from before the session (pytest may run in-process)."""
    suite = config.stash.get(_SESSION, None)
    if suite is not None and suite.sigterm_before is not None:
        signal.signal(signal.SIGTERM, suite.sigterm_before)
    if suite is not None and suite.sigint_before is not None:
        signal.signal(signal.SIGINT, suite.sigint_before)


def _canonical(model: str | None) -> str | None:
    """``model`` in its canonical form (``parse_model``), None when not given; an unknown
    provider is a usage error."""
    if model is None or not model.strip():
        return None
    try:
        return parse_model(model).id
    except ConfigurationError as error:
        raise pytest.UsageError(f"--model: {error}") from None


def _check_record_settings(
    model: str, judge_model: str | None, base_url: str | None, *, chunker: bool = False
) -> None:
    """Refuse --record, before any case, without the key (or base URL: ``base_url`` is the
    model's provider's) each provider of the run needs, or for the hand-written reference
    set. A ``chunker`` run's own calls go through its own clients: only its judge is
    checked."""
    if is_reference(model):
        raise pytest.UsageError(
            f"the '{REFERENCE_MODEL}' cassettes hold hand-written replies and are not "
            "recorded from a model: rebuild them with "
            "`python -m agentic_chunking.suite rebuild-reference`, or pass --model"
        )
    for name, role in ((model, "model"), (judge_model, "judge model")):
        if name is None or is_reference(name) or (chunker and role == "model"):
            continue
        if parse_model(name).provider == OPENAI and _base_url_of(name, model, base_url):
            continue  # --base-url names a server that may need no key, as OPENAI_BASE_URL
        try:  # a key of the wrong shape is refused before any call, never echoed
            missing = missing_credentials(name)
        except ConfigurationError as error:
            raise pytest.UsageError(str(error)) from None
        if missing is not None:
            other = "" if role == "model" else " (or choose it with --judge-model, or --no-judge)"
            raise pytest.UsageError(
                f"--record calls the live model and needs an API key: {missing}; the {role} "
                f"is {name!r}{other}. Plain `pytest` replays the recorded cassettes and needs "
                "no key."
            )


def _base_url_of(name: str, model: str, base_url: str | None) -> str | None:
    """``--base-url`` when ``name`` is on the provider of the run's ``model``, else None."""
    if base_url is None or parse_model(name).provider != parse_model(model).provider:
        return None
    return base_url


@pytest.hookimpl(optionalhook=True)
def pytest_recording_configure(config: pytest.Config, vcr: Any) -> None:
    """Record through the suite's StagedPersister (pytest-recording's hook)."""
    suite = config.stash.get(_SESSION, None)
    if suite is not None:
        vcr.register_persister(suite.persister)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Replay with the judge the selected cassettes were recorded with (see the module)."""
    suite = session.config.stash.get(_SESSION, None)
    if suite is None or suite.record:
        return
    selected = [case_id for item in session.items if (case_id := _case_id(item)) is not None]
    _refuse_a_model_never_recorded(suite, selected)
    if suite.judge_model is None:
        return
    held: dict[str, list[str]] = {}
    for case_id in selected:
        path = cassette_path(suite.cassette_root, suite.model, case_id)
        for judge in sorted(recorded_judge_models(path)):
            held.setdefault(judge, []).append(case_id)
    suite.judge_model = replay_judge(
        held,
        judge_model=suite.judge_model,
        given_by=judge_given_by(session.config, suite.model),
        model=suite.model,
        cassettes=cassette_dir(suite.cassette_root, suite.model),
    )
    suite.judge_from_cassettes = bool(held)


def _case_id(item: pytest.Item) -> str | None:
    """The case id of a case test (``test_case[TC-001]``), None for any other test."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or "case_id" not in callspec.params:
        return None
    return str(callspec.params["case_id"])


def _refuse_a_model_never_recorded(suite: SuiteSession, selected: list[str]) -> None:
    """Replaying a model with no cassette at all (a typo, or a model never recorded) is one
    usage error before any case, naming the recorded models, and writes no results: not
    one failure per case and a report of errors. A recorded model missing one case's
    cassette fails that case, with the command that records it."""
    root = suite.cassette_root
    folder = cassette_dir(root, suite.model)
    if suite.chunker is not None:
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
    return _case_id(request.node) or str(request.node.name)


@pytest.fixture(scope="session")
def suite_client(suite_session: SuiteSession) -> Iterator[AnyClient]:
    """A live client under --record (each provider's from its variables); in replay one
    with a dummy key for every provider and no retries."""
    if suite_session.record:
        model = suite_session.model
        url = suite_session.base_url
        client = ModelClient(base_urls={parse_model(model).provider: url} if url else None)
    else:
        client = ModelClient.for_replay()
    with client:
        yield client


@pytest.fixture
def run_suite_case(
    suite_session: SuiteSession, suite_client: AnyClient, request: pytest.FixtureRequest
) -> Callable[[str], CaseResult]:
    """Run a case by id and keep its result; fail plainly on a bad cassette or a case's own
    call failure; stop the session on a systemic failure; under ``--fail-on-new``, xfail a
    red case whose findings the baseline had already."""

    def run(case_id: str) -> CaseResult:
        result = _run(case_id)
        _against_baseline(suite_session, result, request.node)
        return result

    def _run(case_id: str) -> CaseResult:
        path = cassette_path(suite_session.cassette_root, suite_session.model, case_id)
        try:
            case = load_case(suite_session.cases_dir / f"{case_id}.yaml")
            if suite_session.chunker is not None:
                return _chunker_case(suite_session, suite_client, case, path)
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
        problem = redact(problem)
        suite_session.results[case_id] = _stamped(
            suite_session, CaseResult(id=case_id, outcome="error", error=problem)
        )
        pytest.fail(problem, pytrace=False)  # outside `except`: the message shows once

    return run


def _chunker_case(suite: SuiteSession, client: AnyClient, case: Any, path: Path) -> CaseResult:
    """``case`` through the run's chunker; a case it cannot do is kept as not applicable
    and skipped with the reason."""
    assert suite.chunker is not None
    result = run_chunker_case(
        case,
        suite.chunker,
        client=client,
        run_model=suite.model,
        cassette=path,
        judge_model=suite.judge_model,
    )
    if result.outcome == NOT_APPLICABLE:  # no call was made: no cassette is written
        suite.results[case.id] = _stamped(suite, result)
        pytest.skip(f"not applicable: {result.error}")
    return _keep(suite, result, path)


def _against_baseline(suite: SuiteSession, result: CaseResult, node: pytest.Item) -> None:
    """Put the case's findings (and its lines against the baseline) in the test's
    ``user_properties`` (``--junitxml``); under ``--fail-on-new``, xfail a red case that
    has no new error against the baseline."""
    findings = [
        {"check": name, **f.to_dict()}
        for name, check in result.ordered_checks()
        for f in check.findings
    ]
    node.user_properties.append(("outcome", result.outcome))
    node.user_properties.append(("findings", json.dumps(findings, ensure_ascii=False)))
    base = None if suite.baseline_run is None else suite.baseline_run.case(result.id)
    if base is None:
        return
    _, changes, resolved = compare_case(base, result, suite.model)
    verdict = verdict_of(changes)
    node.user_properties.append(("verdict_against_baseline", verdict))
    lines = [c.to_dict() for c in changes]
    node.user_properties.append(("changes_against_baseline", json.dumps(lines, ensure_ascii=False)))
    if suite.fail_on_new and result.outcome != "passed" and verdict != "unsafe":
        known = sum(len(check.errors) for _, check in result.ordered_checks())
        pytest.xfail(
            f"known in the baseline: {known} error finding(s), none new "
            f"({verdict} against --baseline; {len(resolved)} resolved)"
        )


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
    failure = systemic_failure(error, model=suite.model, judge_model=suite.judge_model)
    if failure is None and not isinstance(error, ConfigurationError):
        return str(error)
    reason = redact(failure.message if failure is not None else str(error))
    done = len(suite.results)
    if done:
        # The case it stopped at could not run: beside cases that did, it is an error in
        # the results, never missing. A stop before any case was judged measured nothing:
        # no results file or report is written (its cassettes are kept as they were).
        suite.results[case_id] = _stamped(
            suite, CaseResult(id=case_id, outcome="error", error=reason)
        )
    suite.stopped_at = case_id
    suite.stopped = f"agentic-chunking stopped at {case_id}: {reason} No further case was run" + (
        f"; the {done} case(s) judged before it are kept in the results."
        if done
        else "; no case was judged, so no results file or report was written."
    )
    _exit(suite.stopped)


def _exit(message: str) -> NoReturn:
    pytest.exit(redact(message), returncode=SYSTEMIC_EXIT_CODE)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before vcrpy loads a case's cassette: a corrupt one fails the case plainly.

    The case is kept in the results as ``error`` with the message (file and re-record
    command), so the report never counts it as passed.
    """
    suite = item.config.stash.get(_SESSION, None)
    case_id = _case_id(item)
    if suite is None or suite.record or case_id is None:
        return
    path = cassette_path(suite.cassette_root, suite.model, case_id)
    problem = check_cassette(path, case_id=case_id, model=suite.model)
    if problem is not None:
        suite.results[case_id] = _stamped(
            suite, CaseResult(id=case_id, outcome="error", error=redact(str(problem)))
        )
        pytest.fail(redact(str(problem)), pytrace=False)


def assert_case_passed(result: CaseResult, suite: SuiteSession | None = None) -> None:
    """Fail the test with every offending proposition and its reason; with the ``suite``
    session, the message names the pipeline model and the judge model."""
    if result.outcome != "passed":
        names = {} if suite is None else {"model": suite.model, "judge_model": suite.judge_model}
        pytest.fail(redact(failure_message(result, **names)), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A case whose recorded cassette could not be written (at teardown, when vcrpy saves
    it) is an ``error`` in the results, with one plain line instead of a traceback."""
    report = yield
    suite = item.config.stash.get(_SESSION, None)
    case_id = _case_id(item)
    if call.when != "teardown" or suite is None or case_id is None:
        return report
    path = cassette_path(suite.cassette_root, suite.model, case_id)
    problem = suite.persister.unsaved.get(path.resolve())
    if problem is not None:
        suite.results[case_id] = _stamped(
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
            suite.exit_status = EXIT_TERMINATED if suite.terminated else EXIT_INTERRUPTED
    result = yield
    if suite is None:
        return result
    if suite.terminated:
        suite.exit_status = EXIT_TERMINATED
        sys.stderr.write(
            "agentic-chunking: stopped by SIGTERM; no cassette or results file was left "
            "half-written\n"
        )
    if (
        suite.fail_on_new
        and suite.comparison is not None
        and suite.comparison.verdict == "unsafe"
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


def _write_results_and_report(suite: SuiteSession) -> None:
    """Merge this run's results and write the report; on failure, say so and set the
    session's exit status (the fallback file for the results, the trace for a defect)."""
    run: RunResults | None = None
    try:
        run = _this_run(suite)
        _write(suite, run)
    except Exception as error:  # a defect of ours: one line, the trace in a file
        suite.report_error = unexpected_error_line(REPORT_PHASE, error)
        suite.exit_status = EXIT_SOFTWARE
        if run is not None and suite.results_path is None and suite.results_error is None:
            suite.results_error = _saved_elsewhere(run, suite, error)


def _this_run(suite: SuiteSession) -> RunResults:
    return RunResults(
        model=suite.model,
        replies=suite.replies,
        cassette_set=_relative(cassette_dir(suite.cassette_root, suite.model), suite),
        prompt_versions=dict(PROMPT_VERSIONS),
        created_at=suite.started_at,
        cases=tuple(suite.results[k] for k in sorted(suite.results)),
        judge_model=suite.judge_model,
        judge_calibration=calibration_for(suite.judge_model, suite.root),
    )


def _write(suite: SuiteSession, run: RunResults) -> None:
    try:
        baseline = _baseline(suite)  # read before this run's results are written
    except (AgenticChunkingError, OSError) as error:
        baseline = None
        suite.baseline_error = f"the report compares with nothing: {_plain(error)}"
    try:
        judged = suite.judge_model is not None
        merged = record_run(run, suite.reports_dir, judged=judged)
        suite.results_path = suite.reports_dir / f"{results_stem(run.model, judged=judged)}.json"
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
            [merged], reports_dir=suite.reports_dir, baseline=baseline, comparison=comparison
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
    target = suite.reports_dir / f"{results_stem(run.model, judged=judged)}.json"
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
    if suite.baseline is not None:
        return suite.baseline_run
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

    def say(line: str, **markup: bool) -> None:  # every line redacted: no key in a summary
        terminalreporter.write_line(redact(line), **markup)

    if suite.stopped is not None:
        before = len(suite.results) - (suite.stopped_at in suite.results)
        failed = before - passed
        say(
            f"STOPPED at {suite.stopped_at}: {before} case(s) judged before it "
            f"({failed} not passing), model {suite.model!r} ({kind}); no later case ran",
            red=True,
        )
    else:
        say(f"{passed}/{len(suite.results)} cases passed, model {suite.model!r} ({kind})")
    grammar = parser_status()
    if not grammar.available:  # the lexicon rules ran alone: say so, never silently
        say(grammar.reason, yellow=True)
    for chunker_line in chunker_lines(suite):
        say(chunker_line)
    if suite.judge_model is not None:
        source = " (read from the cassettes)" if suite.judge_from_cassettes else ""
        say(f"judge model: {suite.judge_model!r}{source}")
    for path in suite.persister.kept:
        say(f"cassette kept as it was (its run did not complete): {path}")
    if suite.comparison is not None:
        verdict = suite.comparison.verdict
        ran = len(suite.results)
        say(
            suite.comparison.summary_over(
                f"on the {ran} case{'s' if ran != 1 else ''} this run ran"
            ),
            red=verdict == "unsafe",
            yellow=verdict == "review",
            green=verdict == "same",
            bold=True,
        )
        for line in suite.comparison.changes[:MAX_SUMMARY_LINES]:
            text = f": {line.text}" if line.text else ""
            say(f"  {line.category} {line.case_id} [{', '.join(line.rules)}]{text} — {line.reason}")
        if len(suite.comparison.changes) > MAX_SUMMARY_LINES:
            rest = len(suite.comparison.changes) - MAX_SUMMARY_LINES
            say(f"  ... and {rest} more in the report")
    if suite.results_error is not None:
        say(f"results NOT SAVED: {suite.results_error}", red=True)
    if suite.results_path is not None:
        unjudged = " (not judged: --no-judge)" if suite.judge_model is None else ""
        say(f"results: {suite.results_path}{unjudged}")
    if suite.report_path is not None:
        say(f"report: {suite.report_path}")
    if suite.baseline_error is not None:
        say(f"note: {suite.baseline_error}", yellow=True)
    if suite.report_error is not None:
        say(f"report not written: {suite.report_error}", red=True)
    for notice in sdk_notices(suite.model, suite.judge_model):
        say(f"note: {notice}", yellow=True)


def chunker_lines(suite: SuiteSession) -> list[str]:
    """The summary's lines on a chunker run: which chunker, and each case it cannot do."""
    if suite.chunker is None:
        return []
    lines = [f"chunker: {suite.chunker.spec} (run {suite.model!r}, instead of our pipeline)"]
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
