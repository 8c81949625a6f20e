"""The results file's shape, checked with pydantic before it is read (as the case files are).

``validate_results(data, path)`` raises one InputError listing every field of the wrong
type or value, one line each, named by its path in the file (``cases[3] ('TC-004').outcome``),
with what was expected and what was found; nothing else in the report then meets a
wrongly typed value. Unknown keys are allowed (a newer writer may add some); figures that
must agree with each other (totals, hashes) are checked by ``RunResults.from_dict`` after.

A case's ``response`` is what ``chunk`` writes: it is validated through the one reading
every reader of a response uses (``agentic_chunking._schema.ResponseReading``), and a
wrong field in it is listed with the line ``AgenticResponse.from_dict`` gives (a chunk's
as ``AgenticChunk.from_dict`` gives it), after its path. The file is validated as JSON,
as that reading is (a span is a JSON array).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)
from pydantic_core import ErrorDetails

from .._errors import InputError
from .._schema import ResponseReading, response_error_line
from ._records import SCHEMA

MAX_LISTED = 20
"""At most this many wrong fields are listed; the count of the rest follows."""


class _Record(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")


class _Finding(_Record):
    proposition: str = ""
    rule: str = ""
    reason: str = ""
    chunk_index: int | None = None
    severity: Literal["error", "warning"] | None = None
    kind: str | None = None
    source_sentence: str | None = None
    judge: str | None = None
    judge_reason: str | None = None


class _Check(_Record):
    applies: bool = True
    passed: bool | None = None
    findings: list[_Finding] = []


class _Input(_Record):
    chunk_id: str
    text: str = ""
    domains: list[str] = []


class _Seed(_Record):
    chunks: int | None = None
    propositions: int | None = None
    tokens: int | None = None
    note: str | None = None


class _Expected(_Record):
    chunks: list[int] | None = None
    propositions: list[int] | None = None
    tokens: list[int] | None = None
    themes: list[str] | None = None
    seed: _Seed | None = None


class _CaseUsage(_Record):
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0


class _Coverage(_Record):
    covered: int
    facts: int


class _Case(_Record):
    id: str
    name: str = ""
    category: str = ""
    description: str = ""
    outcome: Literal["passed", "failed", "error", "not_applicable"] = "passed"
    error: str | None = None
    expected_error: list[str] | None = None
    checks: dict[str, _Check] | None = None
    inputs: list[_Input] = []
    response: ResponseReading | None = None  # type: ignore[valid-type]
    expected: _Expected | None = None
    usage: _CaseUsage | None = None
    judged_at: str = ""
    cassette_set: str = ""
    judge_usage: _CaseUsage | None = None
    coverage: _Coverage | None = None

    _judged_at = field_validator("judged_at")(lambda value: _iso_time(value))


class _Results(_Record):
    schema_: str = Field(alias="schema")
    model: str
    replies: Literal["reference", "recorded"] = "reference"
    cassette_set: str = ""
    prompt_versions: dict[str, str] | None = None
    created_at: str = ""
    cases: list[_Case]
    judge_model: str | None = None
    judge_usage: _CaseUsage | None = None
    judge_calibration: dict[str, dict[str, float | int | None]] | None = None

    _created_at = field_validator("created_at")(lambda value: _iso_time(value))

    @field_validator("cases")
    @classmethod
    def _cases(cls, cases: list[_Case]) -> list[_Case]:
        """At least one case, and no case id twice (a report of it would be ambiguous)."""
        if not cases:
            raise ValueError("the file has no case: a results file holds at least one")
        counts = Counter(c.id for c in cases)
        twice = sorted(case_id for case_id, count in counts.items() if count > 1)
        if twice:
            raise ValueError(f"case id(s) {', '.join(twice)} appear more than once")
        return cases


def _iso_time(value: str) -> str:
    """``value`` when empty (files before the field) or an ISO 8601 time; else ValueError."""
    if value:
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"{value!r} is not an ISO 8601 date and time (e.g. 2026-11-29T13:00:00+00:00)"
            ) from None
    return value


def validate_results(data: Mapping[str, Any], path: Path | str) -> None:
    """Raise InputError naming every wrong field of the results ``data`` read from ``path``.

    A file of another schema version is left to ``RunResults.from_dict``, which says so.
    """
    if data.get("schema") != SCHEMA:
        return
    try:  # as JSON, as every reader of the response in it validates it (a span is an array)
        _Results.model_validate_json(json.dumps(data, ensure_ascii=False, default=str))
    except ValidationError as invalid:
        problems = [_describe(error, data) for error in invalid.errors(include_url=False)]
        shown = problems[:MAX_LISTED]
        if len(problems) > MAX_LISTED:
            shown.append(f"... and {len(problems) - MAX_LISTED} more")
        count = f"{len(problems)} field{'s' if len(problems) != 1 else ''}"
        listing = "".join(f"\n  {line}" for line in shown)
        raise InputError(
            f"results file {str(path)!r} does not match the schema {SCHEMA} ({count}):"
            f"{listing}\nFix these fields, or write the file again by running pytest."
        ) from None


def _describe(error: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """``cases[3] ('TC-004').outcome: expected 'passed', 'failed' or 'error', found 7``."""
    loc = tuple(error["loc"])
    location = _location(loc, data)
    if loc[2:3] == ("response",) and len(loc) > 3:  # the line every reader of a response gives
        response = data["cases"][loc[1]]["response"]
        inner = cast(ErrorDetails, {**error, "loc": loc[3:]})
        return f"{location}: {response_error_line(inner, response)}"
    message = str(error["msg"])
    if error["type"] == "missing":
        return f"{_location(loc[:-1], data)}: the field {loc[-1]!r} is missing"
    if error["type"] == "value_error":  # our own validators: a whole sentence
        return f"{location}: {message.removeprefix('Value error, ')}"
    message = message.removeprefix("Input should be ").removeprefix("input should be ")
    found = repr(error.get("input"))
    if len(found) > 60:
        found = found[:57] + "..."
    return f"{location}: expected {message}, found {found}"


def _location(loc: Sequence[Any], data: Mapping[str, Any]) -> str:
    text = ""
    for position, part in enumerate(loc):
        if isinstance(part, int):
            text += f"[{part}]"
            if position == 1 and loc[0] == "cases":
                case_id = _case_id(data, part)
                text += f" ({case_id!r})" if case_id else ""
        else:
            text += f".{part}" if text else str(part)
    return text or "(the file)"


def _case_id(data: Mapping[str, Any], index: int) -> str | None:
    cases = data.get("cases")
    if isinstance(cases, list) and index < len(cases) and isinstance(cases[index], dict):
        case_id = cases[index].get("id")
        return case_id if isinstance(case_id, str) else None
    return None
