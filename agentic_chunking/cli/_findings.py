"""The findings of the substance checks on one chunked output: read, assess, write.

Shared by ``agentic-chunking check`` (``_check``) and ``chunk --check`` (``_chunk``):
``read_output`` reads an output in the contract, ``report`` runs ``judge.assess`` and
writes the findings as JSON (schema ``agentic-chunking-check/1``) and, when asked, as the
report's case view (HTML), with a one-line summary; its status is 1 when a finding is an
error, else 0.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._models import AgenticChunkInput, AgenticResponse
from ..adapters import convert
from ..checks import parser_status
from ..judge import Assessment, Judgement, assess, judge_usage, source_text
from ..report import CaseResult, InputRecord, Usage, render_case_page
from ._check_input import check_file_size, validate_input
from ._io import is_stdin, read_text_file, write_json, write_output_text

SCHEMA = "agentic-chunking-check/1"
CHECK_SUFFIX = ".check"
EXIT_CLEAN = 0
EXIT_ERRORS = 1


def check_paths(output: Path | None) -> tuple[Path, Path]:
    """Where ``chunk --check -o OUT`` writes the findings: ``OUT.check.json`` and ``.html``.

    Raises InputError without ``-o`` (stdout holds the output; the findings need a file).
    """
    if output is None:
        raise InputError(
            "--check needs -o OUT: the output goes to OUT and the findings beside it, to "
            "OUT.check.json and OUT.check.html"
        )
    return (
        output.with_name(output.stem + CHECK_SUFFIX + ".json"),
        output.with_name(output.stem + CHECK_SUFFIX + ".html"),
    )


def check_after_chunk(
    response: AgenticResponse,
    inputs: Sequence[AgenticChunkInput],
    output: Path | None,
    *,
    source_name: str,
) -> int:
    """``chunk --check``: the checks on the run's own output against its own input."""
    findings_path, html_path = check_paths(output)
    return report(
        response,
        inputs,
        output_name=str(output),
        source_name=source_name,
        findings_path=findings_path,
        html_path=html_path,
        say=lambda line: print(
            f"agentic-chunking chunk: checks: {line}; findings in {findings_path} and {html_path}",
            file=sys.stderr,
        ),
    )


def read_output(path: Path, source_format: str = "agentic") -> AgenticResponse:
    """The chunked output in ``path``; InputError naming the file and the problem (its
    shape, types and limits validated before any rule: ``validate_input``).

    ``source_format`` ``langchain`` or ``chonkie`` reads that tool's chunk list instead
    (``adapters._convert``: each chunk's sentences are its propositions; the document id
    is the file's stem)."""
    expected = (
        "the JSON 'chunk' writes"
        if source_format == "agentic"
        else f"{source_format}'s chunks as a JSON list (--from {source_format})"
    )
    check_file_size(path)
    text = read_text_file(path, give=expected)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"{path}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}; "
            f"give {expected}"
        ) from None
    except RecursionError:  # nested deeper than any chunked output: not one
        raise InputError(
            f"{path}: nested too deeply to be a chunked output; give {expected}"
        ) from None
    if source_format != "agentic":
        try:
            return convert(data, source_format, "stdin" if is_stdin(path) else path.stem)
        except InputError as error:
            raise InputError(f"{path} (--from {source_format}): {error}") from None
    if isinstance(data, list):
        raise InputError(
            f"{path}: a JSON list, not a chunked output (a JSON object with a 'Chunks' list, "
            "as 'chunk' writes); for LangChain's or chonkie's chunks give --from langchain "
            "or --from chonkie; a chunk list for 'chunk' is an input: give it as --source"
        )
    if not isinstance(data, dict) or not isinstance(data.get("Chunks"), list):
        raise InputError(
            f"{path}: not a chunked output: expected a JSON object with a 'Chunks' list "
            "(the JSON 'chunk' writes; a chunk list for 'chunk' is an input, give it as "
            "--source)"
        )
    validate_input(text, data, path)
    try:
        response = AgenticResponse.from_dict(data)
    except InputError as error:
        raise InputError(f"{path}: {error}") from None
    except (TypeError, ValueError, AttributeError) as error:
        raise InputError(
            f"{path}: a field has the wrong type ({error}); expected the JSON 'chunk' writes"
        ) from None
    if not response.is_success:
        raise InputError(
            f"{path}: a failed run's document (IsSuccess false: {response.error_detail}); "
            "there are no output chunks to check: rerun 'chunk'"
        )
    return response


def report(
    response: AgenticResponse,
    inputs: Sequence[AgenticChunkInput] | None,
    *,
    output_name: str,
    source_name: str | None,
    findings_path: Path | None,
    html_path: Path | None,
    say: Callable[[str], None],
    judgement: Judgement | None = None,
) -> int:
    """Assess ``response``, write the findings (JSON, and HTML with ``html_path``), say a
    one-line summary through ``say``; return 1 when a finding is an error, else 0."""
    source = None if inputs is None else source_text(inputs)
    assessment = assess(response, source=source, judgement=judgement)
    findings = findings_document(
        assessment, response, output_name, source_name, judgement=judgement
    )
    write_json(findings, findings_path)
    if html_path is not None:
        case = _case(assessment, response, inputs, output_name, judgement)
        notes = [f"Source: {source_name or 'not given'}."] + [
            f"{name}: {reason}" for name, reason in findings["not_run"].items()
        ]
        page = render_case_page(case, title=f"Checks of {output_name}", notes=notes)
        write_output_text(page, html_path)
    not_run = f"; not run: {', '.join(findings['not_run'])}" if findings["not_run"] else ""
    hint = " (give --source INPUT to run them)" if source is None else ""
    grammar = "" if findings["parser"]["available"] else f"; {findings['parser']['reason']}"
    counts = ", ".join(
        f"{n} {word}{'s' if n != 1 else ''}"
        for n, word in ((findings["errors"], "error"), (findings["warnings"], "warning"))
    )
    propositions = findings["propositions"]
    say(
        f"{counts} in {propositions} proposition{'s' if propositions != 1 else ''} of "
        f"{output_name}{not_run}{hint}{grammar}"
    )
    return EXIT_ERRORS if findings["errors"] else EXIT_CLEAN


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
