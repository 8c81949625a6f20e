"""Run one case: the pipeline on the case's inputs, then every check that applies.

``run_case`` never hides a failure: a substance finding, a grouping that is not a
partition, an unexpected pipeline failure, or an expected error that did not come each
make the outcome ``failed``, with the reason kept. A call that no cassette answers
raises CassetteError (naming the cassette and the re-record command) instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import ModelCallError
from .._models import AgenticResponse
from ..judge import assess
from ..pipeline import DEFAULT_MAX_CONCURRENCY, chunk_text_agentic
from ..report import CaseResult, CheckResult, Expectation, FindingRecord, InputRecord, Usage
from ._cases import Case
from ._cassettes import cassette_error
from ._judging import judge_case, judge_usage

if TYPE_CHECKING:
    from ..client import AnyClient
    from ..judge import Judgement

PARTITION = "partition"
EXPECTED_ERROR = "expected_error"


def run_pipeline(
    case: Case,
    *,
    client: AnyClient,
    model: str,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
) -> AgenticResponse:
    """``chunk_text_agentic`` on the case's inputs with the case's options
    (``Case.pipeline_options``: its batch limit and its ``pipeline`` settings)."""
    return chunk_text_agentic(
        case.agentic_inputs(),
        case.document_id,
        case.pipeline_options(model, max_concurrency=max_concurrency),
        client=client,
    )


def run_case(
    case: Case,
    *,
    client: AnyClient,
    model: str,
    cassette: Path | None = None,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    judge_model: str | None = None,
) -> CaseResult:
    """Run ``case`` through the pipeline with ``client`` and judge the response.

    With ``judge_model``, the judge model's calls follow the pipeline's on the same
    client (and cassette) and its verdicts combine with the checks (see ``_judging``).
    With ``cassette`` (the path replayed or recorded), a request the cassette cannot
    answer, the judge's included, raises CassetteError rather than the SDK's
    connection error.
    """
    judgement = None
    try:
        response = run_pipeline(case, client=client, model=model, max_concurrency=max_concurrency)
        if judge_model is not None:
            judgement = judge_case(case, response, client=client, judge_model=judge_model)
    except ModelCallError as error:
        if cassette is not None:
            explained = cassette_error(error, path=cassette, case_id=case.id, model=model)
            if explained is not None:
                raise explained from None
        raise
    return judge(case, response, judgement)


def judge(case: Case, response: AgenticResponse, judgement: Judgement | None = None) -> CaseResult:
    """The case's verdict on ``response``: its checks, its expected error, its figures.

    With a ``judgement`` (the judge model's verdicts), the findings combine with it.
    """
    checks: dict[str, CheckResult] = {}
    covered: tuple[int, int] | None = None
    if case.expect.error is not None:
        checks[EXPECTED_ERROR] = _expected_error(case.expect.error, response)
    elif not response.is_success:
        checks[PARTITION] = CheckResult(
            applies=True,
            passed=False,
            findings=(FindingRecord("", PARTITION, response.error_detail, None),),
        )
    else:
        assessment = assess(
            response,
            source=case.source_text,
            rules=case.applicable_rules,
            labelled_sentences=case.labelled_sentences() if case.has_domain_labels else None,
            coverage_severity=case.coverage,
            judgement=judgement,
        )
        checks = {PARTITION: CheckResult(applies=True, passed=True), **assessment.checks}
        covered = assessment.coverage
    failed = any(c.applies and c.passed is False for c in checks.values())
    return CaseResult(
        id=case.id,
        name=case.name,
        category=case.category,
        description=case.description,
        outcome="failed" if failed else "passed",
        error=None if response.is_success or case.expect.error else response.error_detail,
        expected_error=case.expect.error,
        checks=checks,
        inputs=tuple(InputRecord(c.chunk_id, c.text, c.domains) for c in case.inputs),
        response=response,
        expected=Expectation.from_dict(case.expect.model_dump(mode="json")),
        usage=Usage.of(response),
        judge_usage=judge_usage(judgement),
        coverage=covered,
    )


def _expected_error(substrings: tuple[str, ...], response: AgenticResponse) -> CheckResult:
    if response.is_success:
        reason = f"the run succeeded, but the case expects a failure naming {list(substrings)}"
    else:
        missing = [s for s in substrings if s not in response.error_detail]
        if not missing:
            return CheckResult(applies=True, passed=True)
        reason = f"ErrorDetail lacks {missing}: {response.error_detail!r}"
    return CheckResult(
        applies=True, passed=False, findings=(FindingRecord("", EXPECTED_ERROR, reason, None),)
    )


def failure_message(
    result: CaseResult, *, model: str | None = None, judge_model: str | None = None
) -> str:
    """Every failed check of ``result`` with each offending proposition and its reason.

    With ``model`` the first line names the pipeline model whose output failed and the
    judge model (or "not judged"); a finding the judge raised or confirmed names it too."""
    who = ""
    if model is not None:
        judged = f"judge {judge_model!r}" if judge_model is not None else "not judged"
        who = f" with model {model!r} ({judged})"
    lines = [f"{result.id} ({result.name}) failed{who}:"]
    for name, check in result.ordered_checks():
        if check.applies and check.passed is False:
            lines.append(f"  {name}:")
            for finding in check.errors:
                where = "" if finding.chunk_index is None else f" [chunk {finding.chunk_index}]"
                subject = f"{finding.proposition!r}{where}: " if finding.proposition else ""
                by_judge = (
                    f" [{finding.judge} by the judge {judge_model!r}]"
                    if judge_model is not None and finding.judge in ("raised", "confirmed")
                    else ""
                )
                lines.append(f"    - {subject}{finding.reason}{by_judge}")
    return "\n".join(lines)
