"""The findings of the substance checks on one chunked output, as records.

``output_findings`` runs ``judge.assess`` on one output (against its input when given) and
returns an ``OutputFindings`` record: the assessment, the findings document (JSON-ready,
schema ``agentic-chunking-check/1``, ``findings_document``) and the output as one case of
the report (``CaseResult``), which the report's case view draws. Nothing is written here:
the command line writes the JSON and the page and words the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._models import AgenticChunkInput, AgenticResponse
from ..checks import parser_status
from ..judge import Assessment, Judgement, assess, judge_usage, source_text
from ..report import CaseResult, InputRecord, Usage

SCHEMA = "agentic-chunking-check/1"


@dataclass(frozen=True, slots=True)
class OutputFindings:
    """What the checks found in one output: the assessment and the findings document
    (``findings_document``; its ``errors`` count decides the exit status), with what they
    were made from; ``case()`` is the output as one case of the report."""

    assessment: Assessment
    document: dict[str, Any]
    response: AgenticResponse
    inputs: Sequence[AgenticChunkInput] | None
    output_name: str
    judgement: Judgement | None = None

    @property
    def source_given(self) -> bool:
        """Whether the output was checked against its input (the checks comparing the two
        ran)."""
        return self.inputs is not None

    def case(self) -> CaseResult:
        """The output as one case of the report, so that the report's case view shows it."""
        return _case(self.assessment, self.response, self.inputs, self.output_name, self.judgement)


def output_findings(
    response: AgenticResponse,
    inputs: Sequence[AgenticChunkInput] | None,
    *,
    output_name: str,
    source_name: str | None,
    judgement: Judgement | None = None,
) -> OutputFindings:
    """Assess ``response`` (against ``inputs`` when given, with the judge's ``judgement``
    when given) and return the findings as records; see the module."""
    source = None if inputs is None else source_text(inputs)
    assessment = assess(response, source=source, judgement=judgement)
    document = findings_document(
        assessment, response, output_name, source_name, judgement=judgement
    )
    return OutputFindings(assessment, document, response, inputs, output_name, judgement)


def findings_document(
    assessment: Assessment,
    response: AgenticResponse,
    output_name: str,
    source_name: str | None,
    *,
    judgement: Judgement | None = None,
) -> dict[str, Any]:
    """The findings as JSON-ready data (schema ``agentic-chunking-check/1``).

    ``checks`` holds every check's verdict and findings (records with ``rule``, ``kind``
    and ``severity``); ``not_run`` each check that did not run with its reason, whose
    findings are not counted; ``errors`` and ``warnings`` count the findings of the checks
    that ran; ``passed`` is true exactly when ``errors`` is 0; ``parser`` says whether the
    checks read grammar with the parser (``available`` false: the lexicon rules ran alone,
    ``reason`` says why).
    """
    ran = {n: c for n, c in assessment.checks.items() if c.applies and c.passed is not None}
    not_run = {
        name: "; ".join(f.reason for f in check.findings)
        for name, check in assessment.checks.items()
        if check.applies and check.passed is None
    }
    errors = sum(len(c.errors) for c in ran.values())
    covered = assessment.coverage
    return {
        "schema": SCHEMA,
        "output": output_name,
        "source": source_name,
        "judge_model": None if judgement is None else judgement.model,
        "passed": errors == 0,
        "errors": errors,
        "warnings": sum(len(c.warnings) for c in ran.values()),
        "chunks": response.total_chunks,
        "propositions": response.total_propositions,
        "coverage": None if covered is None else {"covered": covered[0], "facts": covered[1]},
        "not_run": not_run,
        "parser": parser_status().to_dict(),
        "checks": {name: check.to_dict() for name, check in assessment.checks.items()},
        "judge_usage": judge_usage(judgement).to_dict(),
    }


def _case(
    assessment: Assessment,
    response: AgenticResponse,
    inputs: Sequence[AgenticChunkInput] | None,
    output_name: str,
    judgement: Judgement | None,
) -> CaseResult:
    """The output as one case of the report, so that the report's case view shows it."""
    failed = any(c.applies and c.passed is False for c in assessment.checks.values())
    document = response.chunks[0].document_id if response.chunks else Path(output_name).stem
    return CaseResult(
        id=document,
        name=output_name,
        category="check",
        outcome="failed" if failed else "passed",
        checks=assessment.checks,
        inputs=tuple(InputRecord(c.chunk_id, c.text) for c in inputs or ()),
        response=response,
        usage=Usage.of(response),
        judge_usage=judge_usage(judgement),
        coverage=assessment.coverage,
    )
