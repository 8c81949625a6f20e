"""The judge in the suite: when a case is judged, and what its judgement does to the checks.

A case is sent to the judge after its pipeline calls (so the judge's calls follow them in
the case's cassette) when the run succeeded with at least one proposition and the case
expects no failure. The judge model is fixed for the runs being compared: ``--judge-model``,
else ``$AGENTIC_CHUNKING_JUDGE_MODEL``, else the pipeline's default model; the hand-written
``reference`` set is judged by the hand-written ``reference`` judge (on the same
provider: ``openai:reference`` by ``openai:reference``) unless ``--judge-model`` names
another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .._models import AgenticResponse
from ..checks import WARNING, Finding
from ..judge import Judgement, combine, number_propositions, resolve_judge_model, run_judge
from ..report import CheckResult, FindingRecord, Usage
from ._cases import Case
from ._replies import is_reference

if TYPE_CHECKING:
    from ..client._providers import AnyClient

JUDGE_CHECK = "judge"
"""The check that reports a judge that gave no usable verdict (it never fails a case)."""


def suite_judge_model(judge_model: str | None, *, model: str) -> str:
    """The judge model of a suite run over ``model``'s cassettes (see the module)."""
    if judge_model is None and is_reference(model):
        return model
    return resolve_judge_model(judge_model)


def judge_case(
    case: Case, response: AgenticResponse, *, client: AnyClient, judge_model: str
) -> Judgement | None:
    """The judge's verdicts on ``response``, or None when there is nothing to judge."""
    if case.expect.error is not None or not response.is_success or not response.chunks:
        return None
    return run_judge(case.agentic_inputs(), response, client=client, model=judge_model)


def judged_findings(
    case: Case,
    chunks: Sequence[Sequence[str]],
    findings: Mapping[str, Sequence[Finding]],
    judgement: Judgement | None,
) -> Mapping[str, Sequence[Finding]]:
    """``findings`` per rule with ``judgement`` taken in; unchanged without a usable one."""
    if judgement is None or judgement.error is not None:
        return findings
    return combine(findings, judgement, number_propositions(chunks), rules=case.applicable_rules)


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
            kind="judge_failed",
        )
    )
    return CheckResult(applies=True, passed=None, findings=(record,))


def judge_usage(judgement: Judgement | None) -> Usage:
    """The judge's tokens on a case, apart from the pipeline's (zero when not judged)."""
    if judgement is None:
        return Usage()
    return Usage(judgement.input_tokens, judgement.output_tokens, len(judgement.calls))
