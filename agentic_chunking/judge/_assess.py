"""The substance checks, and the judge's verdicts, on one chunked output: one verdict per check.

``assess`` is what the suite runs on each case and ``agentic-chunking check`` on any
output in the contract: the substance rules of the registry (``checks.rules()``: no
invention, no unresolved pronouns, no duplication, self-contained), each through its
record's ``run``, then the domain check where sentences are labelled and coverage of the
input, and the judge's verdicts combined in (``combine``) when there is a usable
judgement.

A check that needs the input text (no invention, coverage) does not run without it: its
verdict is "not run" (``passed`` None) with one finding of kind ``CHECK_NOT_RUN`` saying
why, never a pass. A judge that gave no usable verdict adds a ``judge`` check, not run,
whose finding (kind ``JUDGE_FAILED``) says why.

Layering: the judge layer, so that the suite and the command line above it share it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from .._models import AgenticChunkInput, AgenticResponse
from ..checks import (
    COVERAGE,
    MIXED_DOMAINS,
    WARNING,
    Finding,
    RuleInput,
    Severity,
    coverage,
    find_mixed_domains,
)
from ..checks import (
    rules as registered_rules,
)
from ..report import CheckResult, FindingRecord, Usage
from ._combine import combine
from ._request import lexical_candidate_pairs, number_propositions
from ._similar import default_finder, similar_meaning_pairs
from ._verdicts import Judgement

JUDGE_CHECK = "judge"
"""The check that reports a judge that gave no usable verdict (it never fails a case)."""
JUDGE_FAILED = "judge_failed"
"""Finding kind: the judge gave no usable verdict; the rules stand alone."""
CHECK_NOT_RUN = "check_not_run"
"""Finding kind: the check could not run (its reason says what it lacked)."""
NEEDS_SOURCE: tuple[str, ...] = (
    *(r.id for r in registered_rules() if r.needs_source),
    COVERAGE,
)
"""The checks that compare the output with the input text: they need it to run (the
rules of the registry whose ``needs_source`` is set, as it stands at import, and
coverage); ``assess`` reads the registry itself."""
NO_SOURCE_REASON = (
    "not run: this check compares the propositions with the input text they were made "
    "from, which was not given"
)


@dataclass(frozen=True)
class Assessment:
    """The verdict of every check on one output, and its coverage of the input.

    ``checks`` maps each check's name to its verdict (``applies`` False where the check
    does not apply: a rule not asked for, no domain labels); ``coverage`` is
    ``(covered, facts)`` when the input text was given, else None.
    """

    checks: Mapping[str, CheckResult]
    coverage: tuple[int, int] | None


SOURCE_JOINER = "\n\n"
"""What separates two input chunks in ``source_text``."""


def source_text(inputs: Sequence[AgenticChunkInput]) -> str:
    """All input text, chunk after chunk: what the propositions must be grounded in."""
    return SOURCE_JOINER.join(c.text for c in inputs if c.text.strip())


def judge_usage(judgement: Judgement | None) -> Usage:
    """The judge's tokens on an output, apart from the pipeline's (zero when not judged)."""
    if judgement is None:
        return Usage()
    return Usage(judgement.input_tokens, judgement.output_tokens, len(judgement.calls))


def not_run(rule: str, reason: str) -> CheckResult:
    """A check that did not run (``passed`` None), with one finding saying why."""
    finding = Finding("", rule, reason, severity=WARNING, kind=CHECK_NOT_RUN)
    return CheckResult(applies=True, passed=None, findings=(FindingRecord.of(finding),))


def assess(
    response: AgenticResponse,
    *,
    source: str | None,
    rules: Collection[str] | None = None,
    labelled_sentences: Sequence[tuple[str, str]] | None = None,
    coverage_severity: Severity = WARNING,
    judgement: Judgement | None = None,
) -> Assessment:
    """Run every check on ``response``'s chunks; see the module for what runs when.

    ``source`` is the input text the output was made from (None: the checks that need it
    are "not run"); ``rules`` the substance rules asked for (the others do not apply;
    None: every rule of the registry, ``agentic_chunking.checks.rules()``);
    ``labelled_sentences`` (sentence, domain) pairs of two domains or more, for the
    domain check (None: it does not apply); ``coverage_severity`` what a dropped fact
    sentence is (a warning unless a case says error). ``judgement``, when given and
    usable, is combined with the findings of ``rules``.
    """
    chunks = [list(chunk.propositions) for chunk in response.chunks]
    propositions = [p for chunk in chunks for p in chunk]
    registry = registered_rules()
    asked = {r.id for r in registry} if rules is None else set(rules)
    given = RuleInput(chunks, source, similar=lambda: _similar(chunks))
    runnable = [r for r in registry if r.id in asked and (source is not None or not r.needs_source)]
    found: Mapping[str, Sequence[Finding]] = {r.id: r.run(given) for r in runnable}
    if judgement is not None and judgement.error is None:
        found = combine(
            found, judgement, number_propositions(chunks), rules=[r.id for r in runnable]
        )
    checks: dict[str, CheckResult] = {}
    for rule in registry:
        if rule.id in found:
            checks[rule.id] = CheckResult.from_findings(found[rule.id], applies=True)
        elif rule.id in asked:
            checks[rule.id] = not_run(rule.id, NO_SOURCE_REASON)
        else:
            checks[rule.id] = CheckResult.from_findings((), applies=False)
    checks[MIXED_DOMAINS] = (
        CheckResult.from_findings(find_mixed_domains(chunks, list(labelled_sentences)))
        if labelled_sentences is not None
        else CheckResult.from_findings((), applies=False)
    )
    judge_failed = judge_check(judgement)
    if judge_failed is not None:
        checks[JUDGE_CHECK] = judge_failed
    covered: tuple[int, int] | None = None
    if source is None:
        checks[COVERAGE] = not_run(COVERAGE, NO_SOURCE_REASON)
    else:
        stated = coverage(propositions, source)
        checks[COVERAGE] = CheckResult.from_findings(stated.findings(coverage_severity))
        covered = (stated.covered, stated.facts)
    return Assessment(checks, covered)


def _similar(chunks: Sequence[Sequence[str]]) -> list[tuple[int, int]]:
    """The pairs close in meaning that the judge is also sent (``candidate_pairs``), as
    indexes into the propositions of all chunks in order; none without the extra."""
    finder = default_finder()
    if finder is None:
        return []
    numbered = number_propositions(chunks)
    lexical = {(a - 1, b - 1) for a, b in lexical_candidate_pairs(numbered)}
    return similar_meaning_pairs([p.text for p in numbered], known=lexical, finder=finder)


def judge_check(judgement: Judgement | None) -> CheckResult | None:
    """A ``judge`` check (not run, with a warning saying why) when the judge failed."""
    if judgement is None or judgement.error is None:
        return None
    record = FindingRecord.of(
        Finding(
            "",
            JUDGE_CHECK,
            f"no judgement from {judgement.model!r}: {judgement.error}; the deterministic "
            "verdicts stand alone and warnings stay warnings",
            severity=WARNING,
            kind=JUDGE_FAILED,
        )
    )
    return CheckResult(applies=True, passed=None, findings=(record,))
