"""The suite's command-line options and the frozen record built once from them.

``add_options`` declares the options (``pytest --help``, group agentic-chunking);
``suite_config`` reads and checks them once, at ``pytest_configure``, into a
``SuiteConfig`` that nothing changes afterwards.

Guarantees:
- every bad option is a ``pytest.UsageError`` in one line, before any case runs and before
  any results file is touched: an empty ``--model`` or ``--judge-model``, an unknown
  provider, ``--max-concurrency`` below 1, ``--fail-on-new`` without ``--baseline``, a
  ``--baseline`` that cannot be read, a ``--chunker`` that cannot be imported, and under
  ``--record`` the reference set or a missing key (never echoed);
- ``--baseline`` is read here, so a run never pays for a case it cannot compare.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .._errors import AgenticChunkingError, ConfigurationError
from ..client import DEFAULT_MODEL, MODEL_ENV_VAR, OPENAI, missing_credentials, parse_model
from ..pipeline import DEFAULT_MAX_CONCURRENCY
from ..report import RunResults, load_results, now_iso
from ._chunkers import Chunker, configured_chunker, load_chunker, replay_keys, run_id
from ._judge_options import add_judge_options, configured_judge_model, judge_given_by
from ._replies import REFERENCE_MODEL, is_reference


@dataclass(frozen=True)
class SuiteConfig:
    """What one pytest session of the suite was asked to do, read once from its options."""

    model: str
    """The run's name in cassettes/ and reports/ (a chunker run's is ``<chunker>--<model>``)."""
    record: bool
    cases_dir: Path
    cassette_root: Path
    reports_dir: Path
    baseline: Path | None
    """``--baseline``, as given."""
    baseline_run: RunResults | None = None
    """``--baseline``, read before the first case."""
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    started_at: str = field(default_factory=now_iso)
    judge_model: str | None = None
    """The judge asked for (None under ``--no-judge``); a replay may read another from the
    selected cassettes (``SuiteSession.judge_model``)."""
    judge_given_by: str | None = None
    """How the judge was asked for (``--judge-model`` or its variable), None by default."""
    root: Path = Path()
    fail_on_new: bool = False
    base_url: str | None = None
    """``--base-url``: the API of the model's provider while recording."""
    chunker: Chunker | None = None
    """``--chunker``: the chunker run instead of our pipeline (``model`` is then its run id)."""

    @property
    def replies(self) -> str:
        """``reference`` for the hand-written replies, else ``recorded``."""
        return "reference" if is_reference(self.model) else "recorded"


def add_options(parser: pytest.Parser) -> None:
    """Declare the suite's options in the agentic-chunking group."""
    group = parser.getgroup("agentic-chunking", "agentic-chunking evaluation suite")
    _add_run_options(group)
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


def _add_run_options(group: Any) -> None:
    """``--record``, ``--model``, ``--chunker``, ``--base-url``, ``--max-concurrency``."""
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


def suite_config(config: pytest.Config) -> SuiteConfig:
    """The session's options, read and checked once (see the module for what is refused)."""
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
        check_record_settings(
            model or DEFAULT_MODEL, judge_model, base_url, chunker=chunker is not None
        )
    root = config.rootpath
    return SuiteConfig(
        model=model or REFERENCE_MODEL,
        record=record,
        cases_dir=root / config.getoption("--cases-dir"),
        cassette_root=root / config.getoption("--cassette-root"),
        reports_dir=root / config.getoption("--reports-dir"),
        baseline=Path(baseline) if baseline else None,
        baseline_run=_read_baseline(baseline),
        max_concurrency=concurrency,
        judge_model=judge_model,
        judge_given_by=judge_given_by(config, model or REFERENCE_MODEL),
        root=root,
        fail_on_new=fail_on_new,
        base_url=base_url,
        chunker=chunker,
    )


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


def _canonical(model: str | None) -> str | None:
    """``model`` in its canonical form (``parse_model``), None when not given; an unknown
    provider is a usage error."""
    if model is None or not model.strip():
        return None
    try:
        return parse_model(model).id
    except ConfigurationError as error:
        raise pytest.UsageError(f"--model: {error}") from None


def check_record_settings(
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
