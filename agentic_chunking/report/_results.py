"""The results file: one JSON file per model and run, the report's only input.

Schema ``agentic-chunking-results/1``: a run header (model, reply kind, cassette set,
prompt versions, time) and one record per case (verdicts with findings, inputs, the full
response, expectations, usage). ``from_dict(to_dict(run)) == run`` holds; ``from_dict``
refuses an unknown schema, outcome or reply kind, and a response whose stored totals
disagree with its chunks, with a message that names the case and the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._errors import ConfigurationError, InputError
from .._files import write_text_atomic
from .._models import AgenticResponse
from .._shown import redact_data
from .._warning import PipelineWarning
from ..client import ANTHROPIC, estimate_cost_usd, model_folder, parse_model
from ._records import (
    OUTCOMES,
    REPLY_KINDS,
    SCHEMA,
    CheckResult,
    Expectation,
    InputRecord,
    Usage,
    _need,
    check_order,
)
from ._schema import validate_results
from ._stats import CalibrationRow


@dataclass(frozen=True, slots=True)
class CaseResult:
    """What one case of the suite gave: its substance verdict and everything behind it.

    ``outcome`` is ``passed``, ``failed`` (a substance check or an expected error failed)
    ``error`` (the case could not run; ``error`` says why) or ``not_applicable`` (the
    chunker under test cannot do this case; ``error`` says why). ``response`` is None when
    the pipeline raised instead of answering. ``judged_at`` (ISO time of the run that
    judged it) and ``cassette_set`` (the cassettes it was judged from) travel with the
    case, since a results file merges cases of several runs (``record_run``). ``usage``
    counts the pipeline's calls, ``judge_usage`` the recorded judge's, apart (zero when
    the case was not judged).
    """

    id: str
    name: str = ""
    category: str = ""
    description: str = ""
    outcome: str = "passed"
    error: str | None = None
    expected_error: tuple[str, ...] | None = None
    checks: Mapping[str, CheckResult] = field(default_factory=dict)
    inputs: tuple[InputRecord, ...] = ()
    response: AgenticResponse | None = None
    expected: Expectation = field(default_factory=Expectation)
    usage: Usage = field(default_factory=Usage)
    judged_at: str = ""
    cassette_set: str = ""
    judge_usage: Usage = field(default_factory=Usage)
    coverage: tuple[int, int] | None = None
    """(covered, facts): the input's fact sentences some proposition states, of all."""

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise InputError(
                f"case {self.id!r}: outcome {self.outcome!r} is not one of {list(OUTCOMES)}"
            )

    @property
    def counts(self) -> dict[str, int | None]:
        """Chunks, propositions and tokens of the response (None without a response)."""
        r = self.response
        if r is None:
            return dict.fromkeys(("chunks", "propositions", "tokens"))
        return {
            "chunks": r.total_chunks,
            "propositions": r.total_propositions,
            "tokens": r.total_token_estimate,
        }

    @property
    def themes(self) -> tuple[str, ...]:
        """The ThematicCategory of each output chunk, in order."""
        return (
            ()
            if self.response is None
            else tuple(c.thematic_category for c in self.response.chunks)
        )

    @property
    def warnings(self) -> tuple[PipelineWarning, ...]:
        """What the pipeline noticed without failing (empty without a response)."""
        return () if self.response is None else self.response.warnings

    @property
    def failed_as_expected(self) -> bool:
        """True for a case that expects a clean failure and got it (e.g. TC-030)."""
        return self.expected_error is not None and self.outcome == "passed"

    @property
    def verdict_text(self) -> str:
        """The outcome in words: ``failed cleanly as expected`` for an expected failure."""
        return "failed cleanly as expected" if self.failed_as_expected else self.outcome

    def ordered_checks(self) -> list[tuple[str, CheckResult]]:
        """The checks in display order: the known ones first, then the rest sorted."""
        order = check_order()
        known = [(n, self.checks[n]) for n in order if n in self.checks]
        rest = sorted((n, c) for n, c in self.checks.items() if n not in order)
        return known + rest

    def to_dict(self) -> dict[str, Any]:
        stated = (
            {}
            if self.coverage is None
            else {"coverage": {"covered": self.coverage[0], "facts": self.coverage[1]}}
        )  # absent when not measured (an expected failure, a file from before coverage)
        return {
            "id": self.id,
            "name": self.name,
            "category": self.category,
            "description": self.description,
            "outcome": self.outcome,
            "error": self.error,
            "expected_error": None if self.expected_error is None else list(self.expected_error),
            "checks": {name: check.to_dict() for name, check in self.checks.items()},
            "inputs": [i.to_dict() for i in self.inputs],
            "response": None if self.response is None else self.response.to_dict(),
            "expected": self.expected.to_dict(),
            "usage": self.usage.to_dict(),
            "judged_at": self.judged_at,
            "cassette_set": self.cassette_set,
            **({"judge_usage": self.judge_usage.to_dict()} if self.judge_usage.calls else {}),
            **stated,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseResult:
        case_id = str(_need(data, "id", "case"))
        where = f"case {case_id!r}"
        try:
            response_data = data.get("response")
            response = None if response_data is None else AgenticResponse.from_dict(response_data)
            expected_error = data.get("expected_error")
            usage = data.get("usage")
            stated = data.get("coverage")
            return cls(
                id=case_id,
                name=str(data.get("name", "")),
                category=str(data.get("category", "")),
                description=str(data.get("description", "")),
                outcome=str(data.get("outcome", "passed")),
                error=data.get("error"),
                expected_error=None if expected_error is None else tuple(expected_error),
                checks={
                    str(n): CheckResult.from_dict(c) for n, c in (data.get("checks") or {}).items()
                },
                inputs=tuple(InputRecord.from_dict(i) for i in data.get("inputs", [])),
                response=response,
                expected=Expectation.from_dict(data.get("expected") or {}, where=where),
                usage=Usage.of(response) if usage is None else Usage.from_dict(usage),
                judged_at=str(data.get("judged_at") or ""),
                cassette_set=str(data.get("cassette_set") or ""),
                judge_usage=Usage.from_dict(data.get("judge_usage") or {}),
                coverage=None
                if stated is None
                else (int(_need(stated, "covered", where)), int(_need(stated, "facts", where))),
            )
        except InputError as error:
            if str(error).startswith(where):
                raise
            raise InputError(f"{where}: {error}") from None


@dataclass(frozen=True, slots=True)
class RunResults:
    """One run of the suite against one model: the header and every case, in order.

    ``judge_model`` is the recorded judge's model (None: the run was not judged);
    ``judge_calibration`` its figures per rule (recall, specificity, balanced accuracy,
    items) from ``agentic-chunking calibrate-judge``, None when it is not calibrated.
    """

    model: str
    replies: str = "reference"
    cassette_set: str = ""
    prompt_versions: Mapping[str, str] = field(default_factory=dict)
    created_at: str = ""
    cases: tuple[CaseResult, ...] = ()
    judge_model: str | None = None
    judge_calibration: Mapping[str, Mapping[str, float]] | None = None

    def __post_init__(self) -> None:
        if self.replies not in REPLY_KINDS:
            raise InputError(
                f"run {self.model!r}: replies {self.replies!r} is not one of {list(REPLY_KINDS)}"
                " ('reference' = hand-written replies, 'recorded' = from a live model)"
            )

    @property
    def is_reference(self) -> bool:
        """True when the replies were written by hand, not returned by a live model."""
        return self.replies == "reference"

    def only(self, case_ids: Iterable[str]) -> RunResults:
        """This run with only the cases whose ids are in ``case_ids`` (in its own order):
        what a gate compares when a run ran some of the cases (``pytest -k``)."""
        wanted = set(case_ids)
        return replace(self, cases=tuple(c for c in self.cases if c.id in wanted))

    def case(self, case_id: str) -> CaseResult | None:
        """The case with this id, or None."""
        return next((c for c in self.cases if c.id == case_id), None)

    @property
    def judged_at_times(self) -> tuple[str, ...]:
        """The distinct times the cases were judged at, oldest first (one per merged run)."""
        return tuple(sorted({c.judged_at or self.created_at for c in self.cases}))

    @property
    def returned_models(self) -> tuple[str, ...]:
        """The model ids the API returned in its replies (a dated id behind an alias)."""
        seen = {
            call.model: None
            for case in self.cases
            if case.response is not None
            for call in case.response.calls
            if call.model
        }
        return tuple(seen)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "model": self.model,
            "replies": self.replies,
            "cassette_set": self.cassette_set,
            "prompt_versions": dict(self.prompt_versions),
            "created_at": self.created_at,
            "cases": [c.to_dict() for c in self.cases],
            **self._judge_dict(),
            # derived from the cases (read back from them, never from here)
            "usage_by_provider": [p.to_dict() for p in self.usage_by_provider],
        }

    def _judge_dict(self) -> dict[str, Any]:
        """The judge's header fields; absent from the file when the run was not judged."""
        if self.judge_model is None:
            return {}
        calibration = self.judge_calibration
        return {
            "judge_model": self.judge_model,
            "judge_usage": self.judge_usage.to_dict(),  # derived from the cases: a total
            "judge_calibration": None
            if calibration is None
            else {rule: dict(figures) for rule, figures in calibration.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: Path | str | None = None) -> RunResults:
        """Read a results file's ``data``, validated through the results schema first
        (``_schema.validate_results``: every wrong field listed); InputError, naming
        ``source`` (the file) when given, for another schema version or a wrong field."""
        named = "" if source is None else f"results file {str(source)!r}: "
        schema = data.get("schema")
        if schema is None:
            raise InputError(
                f"{named}holds no 'schema': not a results file (a chunked output is checked "
                "with 'agentic-chunking check'); give a results file the suite wrote "
                "(reports/results-<model>.json)"
            )
        if schema != SCHEMA:
            raise InputError(
                f"{named}results schema {schema!r} is not {SCHEMA!r} (another version of "
                "agentic-chunking wrote it); move the file away, then run pytest again to "
                "write it in this version's schema"
            )
        validate_results(data, "(not read from a file)" if source is None else source)
        try:
            return cls(
                model=str(_need(data, "model", "results")),
                replies=str(data.get("replies", "reference")),
                cassette_set=str(data.get("cassette_set", "")),
                prompt_versions={
                    str(k): str(v) for k, v in (data.get("prompt_versions") or {}).items()
                },
                created_at=str(data.get("created_at", "")),
                cases=tuple(CaseResult.from_dict(c) for c in data.get("cases", [])),
                judge_model=None if data.get("judge_model") is None else str(data["judge_model"]),
                judge_calibration=_calibration(data.get("judge_calibration")),
            )
        except InputError as error:  # a figure that disagrees (a total, a hash)
            raise InputError(f"{named}{error}") from None

    @property
    def calibration_rows(self) -> tuple[CalibrationRow, ...]:
        """The judge's calibration per rule, with n and 95% Wilson intervals (``_stats``)."""
        figures = self.judge_calibration or {}
        return tuple(CalibrationRow.of(rule, values) for rule, values in figures.items())

    @property
    def judge_calibration_text(self) -> str:
        """The judge's calibration in words: ``not calibrated``, or per rule the balanced
        accuracy with its 95% interval, n, and "too few items to trust" under 30 items."""
        if not self.judge_calibration:
            return "not calibrated"
        return "calibrated: " + "; ".join(row.text for row in self.calibration_rows)

    @property
    def usage(self) -> Usage:
        """The pipeline's tokens over every case of the run (the judge's apart)."""
        return total_usage(c.usage for c in self.cases)

    @property
    def usage_by_provider(self) -> tuple[ProviderUsage, ...]:
        """Tokens and estimated cost per provider (the pipeline's model and the judge's may
        be on two), in the order the run first uses them; derived from the cases."""
        spent: dict[str, dict[str, Usage]] = {}
        for model, usage in ((self.model, self.usage), (self.judge_model, self.judge_usage)):
            if model is not None and usage.calls:
                on = spent.setdefault(_provider(model), {})
                on[model] = total_usage((on.get(model, Usage()), usage))
        return tuple(ProviderUsage.of(provider, on) for provider, on in spent.items())

    @property
    def judge_usage(self) -> Usage:
        """The judge's tokens over every case of the run."""
        return total_usage(c.judge_usage for c in self.cases)


def total_usage(usages: Iterable[Usage]) -> Usage:
    """The sum of ``usages``: tokens in, tokens out and calls."""
    listed = list(usages)
    return Usage(
        sum(u.input_tokens for u in listed),
        sum(u.output_tokens for u in listed),
        sum(u.calls for u in listed),
    )


@dataclass(frozen=True, slots=True)
class ProviderUsage:
    """What a run spent on one provider: its models there, their tokens, and the estimated
    cost at list price (``client._prices``), None when a model there has no known price
    (a local model, the hand-written ``reference``)."""

    provider: str
    models: tuple[str, ...]
    usage: Usage
    cost_usd: float | None

    @classmethod
    def of(cls, provider: str, spent: Mapping[str, Usage]) -> ProviderUsage:
        costs = [estimate_cost_usd(m, u.input_tokens, u.output_tokens) for m, u in spent.items()]
        total = total_usage(spent.values())
        known = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
        return cls(provider, tuple(spent), total, known)

    @property
    def cost_text(self) -> str:
        """``$0.0123``, or ``no price known for M`` naming the models without one."""
        if self.cost_usd is not None:
            return f"${self.cost_usd:.4f}"
        unpriced = [m for m in self.models if estimate_cost_usd(m, 0, 0) is None]
        return f"no price known for {', '.join(unpriced)}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "models": list(self.models),
            **self.usage.to_dict(),
            "cost_usd": self.cost_usd,
        }


def _provider(model: str) -> str:
    """The provider a results file's model id names; an id that no longer parses (an
    unknown ``word:`` prefix) counts as a bare, Anthropic id, as it was recorded."""
    try:
        return parse_model(model).provider
    except ConfigurationError:
        return ANTHROPIC


def _calibration(value: Any) -> dict[str, dict[str, float]] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(
            f"results: judge_calibration is {value!r}; expected an object of figures per rule"
        )
    return {
        str(rule): {str(k): float(v) for k, v in dict(figures).items()}
        for rule, figures in value.items()
    }


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second (the ``created_at`` format)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def stamp(moment: datetime | None = None) -> str:
    """``YYYYmmdd-HHMMSS`` (UTC) for timestamped file names."""
    return (moment or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")


def model_slug(model: str) -> str:
    """A file-name-safe form of a model id (letters, digits, ``.``, ``_`` and ``-`` kept),
    after its folder name (``openai:gpt-4.1-mini`` -> ``openai--gpt-4.1-mini``, as its
    cassettes' folder; a bare id as before)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model_folder(model)).strip("._")
    return slug or "model"


HISTORY_KEEP = 20
"""``reports/history/`` keeps the newest this many results files per results file name
(model, judged or not); older ones are deleted when a run is written."""
UNJUDGED_SUFFIX = "-unjudged"


def results_stem(model: str, *, judged: bool = True) -> str:
    """``results-<model>``, or ``results-<model>-unjudged`` for a run the judge did not see:
    a ``--no-judge`` replay never overwrites (or merges into) the judged results."""
    return f"results-{model_slug(model)}{'' if judged else UNJUDGED_SUFFIX}"


_RESULTS_NAME = re.compile(r"results-(?P<model>.+?)(?P<unjudged>-unjudged)?\.json")


def by_model_name(path: Path) -> Path:
    """``path``, or, when it does not exist and names a model by its id, the results file
    the suite writes for that model (``results_stem``) if that one exists."""
    named = _RESULTS_NAME.fullmatch(path.name)
    if path.exists() or named is None:
        return path
    stem = results_stem(named["model"], judged=named["unjudged"] is None)
    written = path.with_name(f"{stem}.json")
    return written if written.exists() else path


def write_results(run: RunResults, reports_dir: Path, *, judged: bool = True) -> Path:
    """Write ``results-<model>.json`` (``results_stem``) in ``reports_dir``; return its path.

    A timestamped copy goes to ``reports_dir/history/<stem>-<stamp>.json``, so an earlier
    run can be named with ``--baseline`` later; the history keeps the newest
    ``HISTORY_KEEP`` copies per stem. Directories are created as needed; every file is
    written atomically.
    Every string is redacted (``redact_data``): no key reaches a results file.
    """
    reports_dir = Path(reports_dir)
    history = reports_dir / "history"
    history.mkdir(parents=True, exist_ok=True)
    text = json.dumps(redact_data(run.to_dict()), indent=2, ensure_ascii=False) + "\n"
    name = results_stem(run.model, judged=judged)
    latest = reports_dir / f"{name}.json"
    write_text_atomic(latest, text)
    write_text_atomic(history / f"{name}-{stamp()}.json", text)
    prune_history(history, name)
    return latest


def prune_history(
    history: Path, stem: str, *, keep: int = HISTORY_KEEP, suffix: str = ".json"
) -> list[Path]:
    """Delete all but the newest ``keep`` files ``<stem>-YYYYmmdd-HHMMSS<suffix>`` in
    ``history`` (by the stamp in the name); return the deleted paths. Other files (another
    model, an unjudged run, a file a person put there) are never touched."""
    pattern = re.compile(re.escape(stem) + r"-(\d{8}-\d{6})" + re.escape(suffix))
    stamped = sorted(
        (match.group(1), path)
        for path in history.iterdir()
        if (match := pattern.fullmatch(path.name))
    )
    old = [path for _, path in stamped[: max(0, len(stamped) - keep)]]
    for path in old:
        path.unlink(missing_ok=True)
    return old


def merge_runs(earlier: RunResults, later: RunResults) -> RunResults:
    """``later`` over ``earlier``: each case of ``later`` replaces the case with its id, every
    other case of ``earlier`` is kept (with the time and cassette set it was judged from), so
    the merge never has fewer cases than either. The header is ``later``'s. InputError when
    the two runs are of different models."""
    if earlier.model != later.model:
        raise InputError(
            f"cannot merge results of model {earlier.model!r} into {later.model!r}: a results "
            "file holds one model; write it as results-<model>.json of its own model"
        )
    fresh = {c.id for c in later.cases}
    kept = [
        replace(
            case,
            judged_at=case.judged_at or earlier.created_at,
            cassette_set=case.cassette_set or earlier.cassette_set,
        )
        for case in earlier.cases
        if case.id not in fresh
    ]
    cases = sorted([*kept, *later.cases], key=lambda c: c.id)
    return replace(later, cases=tuple(cases))


def record_run(run: RunResults, reports_dir: Path, *, judged: bool = True) -> RunResults:
    """Merge ``run`` into ``reports_dir/results-<model>.json`` (``results_stem``: an
    unjudged run into its own file), write it with ``write_results`` and return the merged
    run: a partial run updates only its cases.

    InputError when the existing file cannot be read: it is left as it is, never replaced.
    """
    existing = Path(reports_dir) / f"{results_stem(run.model, judged=judged)}.json"
    merged = merge_runs(load_results(existing), run) if existing.exists() else run
    write_results(merged, reports_dir, judged=judged)
    return merged


def load_results(path: Path | str) -> RunResults:
    """Read a results file; InputError (naming the file) when it is missing or invalid.

    A results file named by its model's id (``reports/results-openai:M.json``, as a script
    writes ``results-"$MODEL".json``) that does not exist is read from the name the suite
    gives it (``results_stem``: ``results-openai--M.json``) when that one exists.
    """
    path = by_model_name(Path(path))
    way_out = "give a results file the suite wrote (reports/results-<model>.json)"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(
            f"results file {str(path)!r} does not exist; run pytest to write reports/"
            "results-<model>.json, or give the path of a saved one"
        ) from None
    except IsADirectoryError:
        raise InputError(f"results file {str(path)!r} is a directory; {way_out}") from None
    except OSError as error:
        raise InputError(
            f"results file {str(path)!r} cannot be read ({error.strerror}); {way_out}"
        ) from None
    if not raw.strip():
        raise InputError(f"results file {str(path)!r} is empty; {way_out}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(
            f"results file {str(path)!r} is not readable JSON: {error}; {way_out}"
        ) from None
    except RecursionError:  # nested deeper than any results file: not one
        raise InputError(
            f"results file {str(path)!r} is nested too deeply to be a results file; {way_out}"
        ) from None
    if not isinstance(data, dict):
        raise InputError(
            f"results file {str(path)!r} holds a {type(data).__name__}, not an object; {way_out}"
        )
    return RunResults.from_dict(data, source=path)
