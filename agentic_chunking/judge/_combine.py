"""Deterministic findings first, the judge for the rest: how the two tiers combine.

Rules of ``combine`` (one Judgement on one case, findings per rule):
- a deterministic error stays an error whatever the judge says; the judge's word is kept
  on it as ``judge="confirmed"`` or ``judge="disagrees"`` (shown in the report); except a
  relational error (a minimal edit: its kind is in ``RELATIONAL_KINDS``, a moved number or
  name, a negation or quantifier of the restated clause), whose evidence is a reading of
  the sentence: one the judge finds supported becomes a warning with ``judge="cleared"``
  ("the smallest of all planets" read as an added "all"; a relation restated from its
  other side); a relational warning the judge finds supported stays a warning;
- a deterministic warning the judge confirms becomes an error whose reason names the
  judge's reason (``judge="confirmed"``); one the judge clears stays a visible warning
  with ``judge="cleared"``;
- "not_supported" or "needs_context" on a proposition with no finding of that rule, and
  whose verdict confirmed nothing else, is a new error (kinds ``judge_not_supported``,
  ``judge_needs_context``, ``judge="raised"``); "not_atomic" and a pair the judge calls
  the same fact, with no deterministic finding, are warnings (``judge_not_atomic``,
  ``judge_same_fact``): the issue makes only the first two hard;
- a verdict about another rule neither confirms nor clears (``judge=None``), and judge
  findings are only added to the rules the case asserts.
Without a judgement (``None``) or with a failed one, callers do not combine: warnings
stay warnings.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..checks import (
    ERROR,
    NO_DUPLICATION,
    NO_INVENTION,
    NO_UNRESOLVED_PRONOUNS,
    RELATIONAL_KINDS,
    SELF_CONTAINED,
    WARNING,
    Finding,
    rule_of,
)
from ._request import Numbered
from ._verdicts import (
    NEEDS_CONTEXT,
    NOT_ATOMIC,
    NOT_SUPPORTED,
    SUPPORTED,
    Judgement,
    PairVerdict,
    Verdict,
)

JudgeStatus = Literal["confirmed", "cleared", "disagrees", "raised"]
JUDGE_STATUSES: tuple[JudgeStatus, ...] = ("confirmed", "cleared", "disagrees", "raised")
"""What the judge did to a finding: agreed with it, cleared a warning, disagreed with an
error (which stays an error), or raised it alone."""


def _confirms(rule: str) -> frozenset[str]:
    """The verdicts that confirm a finding of a per-proposition rule (its ``flagged_by`` in
    the registry of ``agentic_chunking.checks``; none for a rule it does not hold);
    SUPPORTED clears."""
    record = rule_of(rule)
    return frozenset() if record is None else record.flagged_by


_RAISES: dict[Verdict, tuple[str, str, Literal["error", "warning"]]] = {
    NOT_SUPPORTED: (NO_INVENTION, "judge_not_supported", ERROR),
    NEEDS_CONTEXT: (NO_UNRESOLVED_PRONOUNS, "judge_needs_context", ERROR),
    NOT_ATOMIC: (SELF_CONTAINED, "judge_not_atomic", WARNING),
}


@dataclass(frozen=True)
class JudgedFinding(Finding):
    """A Finding with the judge's part in it: ``judge`` (see JUDGE_STATUSES, None when the
    judge said nothing on its rule) and the judge's one-line ``judge_reason``."""

    judge: JudgeStatus | None = None
    judge_reason: str = ""


def combine(
    findings: Mapping[str, Sequence[Finding]],
    judgement: Judgement,
    propositions: Sequence[Numbered],
    *,
    rules: Collection[str],
) -> dict[str, list[Finding]]:
    """The findings per rule once the judge's verdicts are taken in (see the module)."""
    used: set[int] = set()
    combined: dict[str, list[Finding]] = {}
    for rule, found in findings.items():
        combined[rule] = [_judged(f, judgement, propositions, used) for f in found]
    for verdict in judgement.propositions:
        if verdict.verdict == SUPPORTED or verdict.number in used:
            continue
        rule, kind, severity = _RAISES[verdict.verdict]
        if rule not in rules or _numbers_of(combined.get(rule, ()), propositions) & {
            verdict.number
        }:
            continue
        text = propositions[verdict.number - 1].text
        combined.setdefault(rule, []).append(
            JudgedFinding(
                text,
                rule,
                f"the judge finds it {verdict.verdict.replace('_', ' ')}: {verdict.reason}",
                severity=severity,
                kind=kind,
                judge="raised",
                judge_reason=verdict.reason,
            )
        )
    if NO_DUPLICATION in rules:
        combined.setdefault(NO_DUPLICATION, []).extend(
            _raised_duplicates(judgement, propositions, combined.get(NO_DUPLICATION, ()))
        )
    return combined


def _judged(
    finding: Finding, judgement: Judgement, propositions: Sequence[Numbered], used: set[int]
) -> Finding:
    numbers = _numbers_of([finding], propositions)
    if finding.rule == NO_DUPLICATION:
        pairs = [p for n in sorted(numbers) for p in judgement.pairs_with(n)]
        same = [p for p in pairs if p.same_fact]
        if same:
            return _with(finding, "confirmed", same[0].reason)
        return _with(finding, "cleared", pairs[0].reason) if pairs else finding
    confirms = _confirms(finding.rule)
    if not confirms:
        return finding
    for number in sorted(numbers):
        verdict = judgement.verdict_of(number)
        if verdict is None:
            continue
        if verdict.verdict in confirms:
            used.add(number)
            return _with(finding, "confirmed", verdict.reason)
        if verdict.verdict == SUPPORTED:
            return _with(finding, "cleared", verdict.reason)
    return finding


def _with(finding: Finding, word: Literal["confirmed", "cleared"], reason: str) -> Finding:
    """The finding with the judge's word: an error softens only when it is relational and
    the judge clears it; a warning may harden."""
    base = {
        k: getattr(finding, k)
        for k in ("proposition", "rule", "reason", "chunk_index", "severity", "kind")
    }
    base["source_sentence"] = finding.source_sentence
    if finding.is_error and word == "cleared" and finding.kind in RELATIONAL_KINDS:
        base["severity"] = WARNING  # a relational reading the judge contradicts
        base["reason"] = f"{finding.reason}; the judge finds it supported: {reason}"
        return JudgedFinding(**base, judge="cleared", judge_reason=reason)
    if finding.is_error:
        status: JudgeStatus = "confirmed" if word == "confirmed" else "disagrees"
        return JudgedFinding(**base, judge=status, judge_reason=reason)
    if word == "confirmed":
        base["severity"] = ERROR
        base["reason"] = f"{finding.reason}; the judge confirms: {reason}"
    return JudgedFinding(**base, judge=word, judge_reason=reason)


def _numbers_of(findings: Sequence[Finding], propositions: Sequence[Numbered]) -> set[int]:
    """The judge numbers of the propositions the findings are about."""
    return {
        p.number
        for f in findings
        for p in propositions
        if p.text == f.proposition and f.chunk_index in (None, p.chunk_index)
    }


def _raised_duplicates(
    judgement: Judgement, propositions: Sequence[Numbered], found: Sequence[Finding]
) -> list[Finding]:
    flagged = _numbers_of(found, propositions)
    raised: list[Finding] = []
    for pair in judgement.pairs:
        if not pair.same_fact or {pair.first, pair.second} & flagged:
            continue
        later = propositions[pair.second - 1]
        raised.append(_duplicate(pair, later, propositions[pair.first - 1].text))
        flagged.add(pair.second)
    return raised


def _duplicate(pair: PairVerdict, later: Numbered, earlier: str) -> Finding:
    return JudgedFinding(
        later.text,
        NO_DUPLICATION,
        f"the judge finds it the same fact as {earlier!r}: {pair.reason}",
        chunk_index=later.chunk_index,
        severity=WARNING,
        kind="judge_same_fact",
        judge="raised",
        judge_reason=pair.reason,
    )
