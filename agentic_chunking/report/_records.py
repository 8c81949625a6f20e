"""The small records of a results file: findings, check verdicts, inputs, expectations.

Every record is a frozen dataclass with ``to_dict``/``from_dict``;
``from_dict(to_dict(x)) == x`` holds for each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import InputError
from .._models import AgenticResponse
from ..checks import rule_ids

SCHEMA = "agentic-chunking-results/1"
#: Substance verdicts of a case: ``error`` means the case could not run at all;
#: ``not_applicable`` that the chunker run cannot do it (the reason in the case's ``error``).
OUTCOMES = ("passed", "failed", "error", "not_applicable")
#: Where the replies came from: hand-written (``reference``) or a live model (``recorded``).
REPLY_KINDS = ("reference", "recorded")
#: The checks that are not rules of the registry, in display order after the rules.
OTHER_CHECKS = ("partition", "mixed_domains")


def check_order() -> tuple[str, ...]:
    """Display order of the known checks: the substance rules of the registry
    (``agentic_chunking.checks.rule_ids()``, read at each call), then :data:`OTHER_CHECKS`;
    other check names follow in sorted order."""
    return (*rule_ids(), *OTHER_CHECKS)


METRICS = ("chunks", "propositions", "tokens")
#: A finding's severity: ``error`` fails its case, ``warning`` is shown and never fails.
SEVERITIES = ("error", "warning")
#: What the recorded judge did to a finding (as ``agentic_chunking.judge.JUDGE_STATUSES``).
JUDGE_STATUSES = ("confirmed", "cleared", "disagrees", "raised")
_JUDGE_WORDS = {
    "confirmed": "confirmed by judge",
    "cleared": "cleared by judge",
    "disagrees": "judge disagrees, the rule stands",
    "raised": "raised by judge",
}

Range = tuple[int, int]


def _need(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise InputError(f"{where}: the field {key!r} is missing; see the schema {SCHEMA}")
    return data[key]


def _range(value: Any, where: str) -> Range | None:
    if value is None:
        return None
    if (
        not isinstance(value, Sequence)
        or len(value) != 2
        or not all(isinstance(v, int) for v in value)
        or value[0] > value[1]
    ):
        raise InputError(f"{where}: {value!r} is not a range; expected [min, max] integers")
    return (int(value[0]), int(value[1]))


@dataclass(frozen=True, slots=True)
class FindingRecord:
    """One offending proposition: the rule it breaks and why, in plain words.

    ``severity`` is ``error`` (fails the case) or ``warning`` (shown, never failing); a
    results file written before severities existed reads as ``error``. ``kind`` and
    ``source_sentence`` are as in ``agentic_chunking.checks.Finding``. ``judge`` is what
    the recorded judge did to the finding (``confirmed``, ``cleared``, ``disagrees``,
    ``raised``; None when it said nothing on it or did not run) and ``judge_reason`` its
    one-line reason; files written before the judge existed read as None.
    """

    proposition: str
    rule: str
    reason: str
    chunk_index: int | None = None
    severity: str = "error"
    kind: str = ""
    source_sentence: str | None = None
    judge: str | None = None
    judge_reason: str = ""

    @property
    def is_error(self) -> bool:
        """True when this finding fails its case."""
        return self.severity == "error"

    @property
    def judge_text(self) -> str:
        """The judge's part in words (``cleared by judge: <reason>``); empty without one."""
        if self.judge is None:
            return ""
        words = _JUDGE_WORDS.get(self.judge, self.judge)
        return (
            f"{words}: {self.judge_reason}"
            if self.judge_reason and self.judge != "raised"
            else words
        )

    def to_dict(self) -> dict[str, Any]:
        """Every field; ``judge`` and ``judge_reason`` only when the judge had a word."""
        data: dict[str, Any] = {
            "proposition": self.proposition,
            "rule": self.rule,
            "reason": self.reason,
            "chunk_index": self.chunk_index,
            "severity": self.severity,
            "kind": self.kind,
            "source_sentence": self.source_sentence,
        }
        if self.judge is not None:
            data["judge"] = self.judge
            data["judge_reason"] = self.judge_reason
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FindingRecord:
        index = data.get("chunk_index")
        severity = str(data.get("severity") or "error")
        if severity not in SEVERITIES:
            raise InputError(
                f"finding: severity {severity!r} is not one of {list(SEVERITIES)}; "
                f"see the schema {SCHEMA}"
            )
        sentence = data.get("source_sentence")
        judge = data.get("judge")
        if judge is not None and judge not in JUDGE_STATUSES:
            raise InputError(
                f"finding: judge {judge!r} is not one of {list(JUDGE_STATUSES)} or null; "
                f"see the schema {SCHEMA}"
            )
        return cls(
            proposition=str(data.get("proposition", "")),
            rule=str(data.get("rule", "")),
            reason=str(data.get("reason", "")),
            chunk_index=None if index is None else int(index),
            severity=severity,
            kind=str(data.get("kind") or ""),
            source_sentence=None if sentence is None else str(sentence),
            judge=judge,
            judge_reason=str(data.get("judge_reason") or ""),
        )

    @classmethod
    def of(cls, finding: Any) -> FindingRecord:
        """The record of anything shaped like ``agentic_chunking.checks.Finding``."""
        sentence = getattr(finding, "source_sentence", None)
        judge = getattr(finding, "judge", None)
        return cls(
            proposition=str(finding.proposition),
            rule=str(finding.rule),
            reason=str(finding.reason),
            chunk_index=getattr(finding, "chunk_index", None),
            severity=str(getattr(finding, "severity", "error")),
            kind=str(getattr(finding, "kind", "") or ""),
            source_sentence=None if sentence is None else str(sentence),
            judge=None if judge is None else str(judge),
            judge_reason=str(getattr(finding, "judge_reason", "") or ""),
        )


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The verdict of one substance check on one case (``passed`` is None when it did not run).

    ``passed`` is False exactly when at least one finding is an error; warnings are kept in
    ``findings`` beside the errors and never change the verdict.
    """

    applies: bool = True
    passed: bool | None = True
    findings: tuple[FindingRecord, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "applies": self.applies,
            "passed": self.passed,
            "findings": [f.to_dict() for f in self.findings],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CheckResult:
        passed = data.get("passed")
        return cls(
            applies=bool(data.get("applies", True)),
            passed=None if passed is None else bool(passed),
            findings=tuple(FindingRecord.from_dict(f) for f in data.get("findings", [])),
        )

    @classmethod
    def from_findings(cls, findings: Iterable[Any], *, applies: bool = True) -> CheckResult:
        """The verdict of a check from what it returned: passed when no finding is an error.

        Each finding is anything with ``proposition``, ``rule``, ``reason`` and
        ``chunk_index`` attributes, and optionally ``severity``, ``kind`` and
        ``source_sentence`` (e.g. ``agentic_chunking.checks.Finding``).
        """
        if not applies:
            return cls(applies=False, passed=None, findings=())
        records = tuple(FindingRecord.of(f) for f in findings)
        return cls(applies=True, passed=not any(r.is_error for r in records), findings=records)

    @property
    def errors(self) -> tuple[FindingRecord, ...]:
        """The findings that fail the case."""
        return tuple(f for f in self.findings if f.is_error)

    @property
    def warnings(self) -> tuple[FindingRecord, ...]:
        """The findings that are shown but never fail the case."""
        return tuple(f for f in self.findings if not f.is_error)

    @property
    def verdict(self) -> str:
        """``pass``, ``fail``, ``n/a`` (does not apply) or ``not run``."""
        if not self.applies:
            return "n/a"
        if self.passed is None:
            return "not run"
        return "pass" if self.passed else "fail"


@dataclass(frozen=True, slots=True)
class InputRecord:
    """One input chunk of a case, with the domains its case file labels (may be none)."""

    chunk_id: str
    text: str
    domains: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": self.chunk_id, "text": self.text, "domains": list(self.domains)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> InputRecord:
        return cls(
            chunk_id=str(_need(data, "chunk_id", "input chunk")),
            text=str(data.get("text", "")),
            domains=tuple(str(d) for d in data.get("domains", [])),
        )


@dataclass(frozen=True, slots=True)
class SeedFigures:
    """The figures seed 000 reports for a case (Claude 3.7 Sonnet, temperature 0)."""

    chunks: int | None = None
    propositions: int | None = None
    tokens: int | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunks": self.chunks,
            "propositions": self.propositions,
            "tokens": self.tokens,
            "note": self.note,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeedFigures:
        def number(key: str) -> int | None:
            value = data.get(key)
            return None if value is None else int(value)

        return cls(
            chunks=number("chunks"),
            propositions=number("propositions"),
            tokens=number("tokens"),
            note=str(data.get("note") or ""),
        )

    def get(self, metric: str) -> int | None:
        value: int | None = getattr(self, metric)
        return value


@dataclass(frozen=True, slots=True)
class Expectation:
    """A case's soft expectations: inclusive ranges, themes, and the seed's figures."""

    chunks: Range | None = None
    propositions: Range | None = None
    tokens: Range | None = None
    themes: tuple[str, ...] = ()
    seed: SeedFigures | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunks": None if self.chunks is None else list(self.chunks),
            "propositions": None if self.propositions is None else list(self.propositions),
            "tokens": None if self.tokens is None else list(self.tokens),
            "themes": list(self.themes),
            "seed": None if self.seed is None else self.seed.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "expected") -> Expectation:
        seed = data.get("seed")
        return cls(
            chunks=_range(data.get("chunks"), f"{where}.chunks"),
            propositions=_range(data.get("propositions"), f"{where}.propositions"),
            tokens=_range(data.get("tokens"), f"{where}.tokens"),
            themes=tuple(str(t) for t in data.get("themes") or []),
            seed=None if not seed else SeedFigures.from_dict(seed),
        )

    def range_of(self, metric: str) -> Range | None:
        value: Range | None = getattr(self, metric)
        return value


@dataclass(frozen=True, slots=True)
class Usage:
    """Model tokens spent on a case, over all its calls (the pipeline's or the judge's)."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "calls": self.calls,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        return cls(
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            calls=int(data.get("calls", 0)),
        )

    @classmethod
    def of(cls, response: AgenticResponse | None) -> Usage:
        """The usage a response records in its calls (zero without a response)."""
        if response is None:
            return cls()
        return cls(response.input_tokens, response.output_tokens, len(response.calls))
