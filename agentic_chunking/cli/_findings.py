"""The findings of the substance checks on one chunked output: read, write, say.

Shared by ``agentic-chunking check`` (``_check``) and ``chunk --check`` (``_chunk``):
``read_output`` reads an output in the contract, ``report`` has the findings made
(``findings.output_findings``) and writes them as JSON (schema
``agentic-chunking-check/1``) and, when asked, as the report's case view (HTML), with a
one-line summary; its status is 1 when a finding is an error, else 0.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .._errors import InputError
from .._models import AgenticChunkInput, AgenticResponse
from ..adapters import convert
from ..findings import check_file_size, output_findings, validate_input
from ..judge import Judgement
from ..report import render_case_page
from ._io import is_stdin, read_text_file, write_json, write_output_text

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
    (``adapters.convert``: each chunk's sentences are its propositions; the document id
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
    """Assess ``response`` (``findings.output_findings``), write the findings (JSON, and
    HTML with ``html_path``), say a one-line summary through ``say``; return 1 when a
    finding is an error, else 0."""
    made = output_findings(
        response, inputs, output_name=output_name, source_name=source_name, judgement=judgement
    )
    findings = made.document
    write_json(findings, findings_path)
    if html_path is not None:
        notes = [f"Source: {source_name or 'not given'}."] + [
            f"{name}: {reason}" for name, reason in findings["not_run"].items()
        ]
        page = render_case_page(made.case(), title=f"Checks of {output_name}", notes=notes)
        write_output_text(page, html_path)
    not_run = f"; not run: {', '.join(findings['not_run'])}" if findings["not_run"] else ""
    hint = "" if made.source_given else " (give --source INPUT to run them)"
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
