"""What one pytest session of the suite collects, and running one case into it.

``SuiteSession`` holds the frozen ``SuiteConfig`` and what the session learns as it runs:
the judge the replay reads from the cassettes, each case's result, and how the session
ended (stopped, saved, reported). ``run_and_keep`` runs one case for the plugin's fixture.

Guarantees:
- every case that ran, failed plainly or was stopped at is in ``results``, stamped with the
  session's start and its cassette set (``stamped``): the report never misses a case that
  ran nor counts an error as passed;
- a systemic failure (``_systemic``: key rejected, model unknown, base URL wrong, no
  connection, overloaded after the SDK's retries) stops the session at the case that met
  it, with one plain message and exit code ``SYSTEMIC_EXIT_CODE``;
- each case's findings (and, with a baseline, its lines against it) go to the test's
  ``user_properties``, so ``--junitxml`` carries them; under ``--fail-on-new`` a red case
  with nothing new against the baseline is an xfail.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from .._errors import CaseError, CassetteError, ConfigurationError, ModelCallError
from .._shown import redact
from ..report import CaseResult, Comparison, compare_case, verdict_of
from ._cases import load_case
from ._cassettes import StagedPersister, cassette_dir, cassette_path
from ._chunkers import NOT_APPLICABLE, run_chunker_case
from ._config import SuiteConfig
from ._runner import failure_message, run_case
from ._systemic import systemic_failure

if TYPE_CHECKING:
    from ..client import AnyClient

SYSTEMIC_EXIT_CODE = int(pytest.ExitCode.INTERRUPTED)
"""The exit code of a session stopped by a systemic failure (pytest's "interrupted")."""
UNSAVED_EXIT_CODE = int(pytest.ExitCode.INTERNAL_ERROR)
"""The exit code of a session whose results or report could not be written where asked."""


@dataclass
class SuiteSession:
    """The session's frozen options and what the session collects as it runs."""

    config: SuiteConfig
    judge_model: str | None = None
    """The judge this run uses: the one asked for, or the one the replayed cassettes hold."""
    judge_from_cassettes: bool = False
    """Whether the replay's judge model was read from the selected cassettes."""
    persister: StagedPersister = field(default_factory=lambda: StagedPersister(recording=False))
    results: dict[str, CaseResult] = field(default_factory=dict)
    stopped: str | None = None
    """The message of a systemic stop (see the module), None when the run was not stopped."""
    stopped_at: str | None = None
    results_path: Path | None = None
    results_error: str | None = None
    report_path: Path | None = None
    report_error: str | None = None
    baseline_error: str | None = None
    comparison: Comparison | None = None
    """This run against its base, computed once at the end; None without a base."""
    exit_status: int | None = None
    """The session's exit status when it is not pytest's own (a stop, an unsaved file)."""

    @classmethod
    def start(cls, config: SuiteConfig) -> SuiteSession:
        """A session of ``config``, nothing run yet."""
        return cls(
            config=config,
            judge_model=config.judge_model,
            persister=StagedPersister(recording=config.record),
        )

    @property
    def model(self) -> str:
        """The run's name in cassettes/ and reports/ (``SuiteConfig.model``)."""
        return self.config.model


def case_id_of(item: pytest.Item) -> str | None:
    """The case id of a case test (``test_case[TC-001]``), None for any other test."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or "case_id" not in callspec.params:
        return None
    return str(callspec.params["case_id"])


def the_cassette(suite: SuiteSession, case_id: str) -> Path:
    """The cassette of ``case_id`` in this run's cassette set."""
    return cassette_path(suite.config.cassette_root, suite.model, case_id)


def run_and_keep(
    suite: SuiteSession, client: AnyClient, case_id: str, node: pytest.Item
) -> CaseResult:
    """Run a case by id and keep its result; fail plainly on a bad cassette or a case's own
    call failure; stop the session on a systemic failure; under ``--fail-on-new``, xfail a
    red case whose findings the baseline had already."""
    result = _run(suite, client, case_id)
    _against_baseline(suite, result, node)
    return result


def _run(suite: SuiteSession, client: AnyClient, case_id: str) -> CaseResult:
    config = suite.config
    path = the_cassette(suite, case_id)
    try:
        case = load_case(config.cases_dir / f"{case_id}.yaml")
        if config.chunker is not None:
            return _chunker_case(suite, client, case, path)
        result = run_case(
            case,
            client=client,
            model=suite.model,
            cassette=path,
            max_concurrency=config.max_concurrency,
            judge_model=suite.judge_model,
        )
    except (CaseError, CassetteError) as error:
        problem = str(error)
    except (ConfigurationError, ModelCallError) as error:
        problem = _stop_if_systemic(suite, case_id, error)
    else:
        return _keep(suite, result, path)
    fail_case(suite, case_id, redact(problem))


def fail_case(suite: SuiteSession, case_id: str, problem: str) -> NoReturn:
    """Keep ``case_id`` as an ``error`` with ``problem`` and fail its test in one line."""
    suite.results[case_id] = stamped(suite, CaseResult(id=case_id, outcome="error", error=problem))
    pytest.fail(problem, pytrace=False)  # outside `except`: the message shows once


def _chunker_case(suite: SuiteSession, client: AnyClient, case: Any, path: Path) -> CaseResult:
    """``case`` through the run's chunker; a case it cannot do is kept as not applicable
    and skipped with the reason."""
    assert suite.config.chunker is not None
    result = run_chunker_case(
        case,
        suite.config.chunker,
        client=client,
        run_model=suite.model,
        cassette=path,
        judge_model=suite.judge_model,
    )
    if result.outcome == NOT_APPLICABLE:  # no call was made: no cassette is written
        suite.results[case.id] = stamped(suite, result)
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
    baseline_run = suite.config.baseline_run
    base = None if baseline_run is None else baseline_run.case(result.id)
    if base is None:
        return
    _, changes, resolved = compare_case(base, result, suite.model)
    verdict = verdict_of(changes)
    node.user_properties.append(("verdict_against_baseline", verdict))
    lines = [c.to_dict() for c in changes]
    node.user_properties.append(("changes_against_baseline", json.dumps(lines, ensure_ascii=False)))
    if suite.config.fail_on_new and result.outcome != "passed" and verdict != "unsafe":
        known = sum(len(check.errors) for _, check in result.ordered_checks())
        pytest.xfail(
            f"known in the baseline: {known} error finding(s), none new "
            f"({verdict} against --baseline; {len(resolved)} resolved)"
        )


def _keep(suite: SuiteSession, result: CaseResult, cassette: Path) -> CaseResult:
    """Keep a completed case's result; under --record, let its cassette be replaced."""
    suite.persister.approve(cassette)
    suite.results[result.id] = stamped(suite, result)
    return result


def stamped(suite: SuiteSession, result: CaseResult) -> CaseResult:
    """``result`` with the session's start and its cassette set."""
    cassettes = cassette_dir(suite.config.cassette_root, suite.model)
    return replace(
        result, judged_at=suite.config.started_at, cassette_set=relative(cassettes, suite.config)
    )


def relative(path: Path, config: SuiteConfig) -> str:
    """``path`` relative to the cases' project when inside it (no machine's paths)."""
    root = config.cases_dir.parent
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


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
        suite.results[case_id] = stamped(
            suite, CaseResult(id=case_id, outcome="error", error=reason)
        )
    suite.stopped_at = case_id
    suite.stopped = f"agentic-chunking stopped at {case_id}: {reason} No further case was run" + (
        f"; the {done} case(s) judged before it are kept in the results."
        if done
        else "; no case was judged, so no results file or report was written."
    )
    pytest.exit(redact(suite.stopped), returncode=SYSTEMIC_EXIT_CODE)


def assert_case_passed(result: CaseResult, suite: SuiteSession | None = None) -> None:
    """Fail the test with every offending proposition and its reason; with the ``suite``
    session, the message names the pipeline model and the judge model."""
    if result.outcome != "passed":
        names = {} if suite is None else {"model": suite.model, "judge_model": suite.judge_model}
        pytest.fail(redact(failure_message(result, **names)), pytrace=False)
