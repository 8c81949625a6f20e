"""``agentic-chunking check OUTPUT``: the substance checks on any chunked output, or a corpus's.

OUTPUT is a chunked output in the output contract (``AgenticResponse.to_dict()``: ours,
or another tool's with the same JSON names, at least ``Chunks`` of ``ChunkId``,
``DocumentId``, ``ThematicCategory`` and ``Propositions``), or with ``--from langchain``
a LangChain Document list, with ``--from chonkie`` chonkie chunks (each chunk's sentences
are its propositions). Runs the checks the suite runs
on each case (no invention, no unresolved pronouns, no duplication, self-contained,
coverage of the input) and, with ``--judge-model``, the judge. Without ``--source`` the
checks that compare the output with its input (no invention, coverage) do not run, and
say so. Writes the findings as JSON to ``-o F.json`` (and the report's view of the output
to ``F.html`` beside it) or to stdout (the page then only with ``--html PAGE``). Exit
status: 0 when no finding is an error, 1 when one is, 2 for bad input (one message), 3
when a judge call failed. ``chunk --check -o OUT`` runs the same checks on its own output
against its own input, in the same run. OUTPUT may also be the JSONL or Parquet output
of ``corpus``, with the corpus it was made from as ``--source`` (a folder, JSONL or
Parquet): checked document by document, the findings one JSON line a document, with its
id (``-o F.jsonl`` or stdout).

The corpus path is ``_check_corpus`` (the check itself: ``findings``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import InputError
from .._models import AgenticChunkInput, AgenticResponse
from ..adapters import FROM_FORMATS
from ..findings import is_corpus_output
from ..judge import Judgement
from ._check_corpus import check_corpus_output, read_single_source
from ._findings import read_output, report
from ._inputs import read_inputs
from ._io import add_base_url_option, check_distinct_outputs, check_output_path, model_id

if TYPE_CHECKING:
    from ..client import ModelClient


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``check`` subcommand."""
    parser = subparsers.add_parser(
        "check",
        help="run the substance checks (and the judge) on a chunked output",
        description=__doc__.split("\n\n")[1].replace("``", "'"),
    )
    parser.add_argument(
        "output_file",
        metavar="OUTPUT",
        type=Path,
        help="chunked output (JSON, the contract), or the .jsonl/.parquet output of 'corpus' "
        "(checked document by document)",
    )
    parser.add_argument(
        "--from",
        dest="source_format",
        choices=FROM_FORMATS,
        default="agentic",
        help="what OUTPUT is: agentic (the contract, default), langchain (a JSON list of "
        "LangChain Documents, Document.model_dump() or dumpd()), or chonkie (a JSON list of "
        "chonkie Chunk.to_dict()); a langchain or chonkie chunk's sentences are its "
        "propositions",
    )
    parser.add_argument(
        "--source",
        type=Path,
        metavar="INPUT",
        help="the input OUTPUT was made from: a document (any text file) or a .json/.yaml "
        "chunk list, as 'chunk' reads it, or the corpus 'corpus' read (a folder, .jsonl or "
        ".parquet: the document with OUTPUT's id); without it, no invention and coverage do "
        "not run",
    )
    parser.add_argument(
        "--judge-model",
        metavar="M",
        type=model_id,
        help="also ask the judge model M, of any provider (openai:NAME with --base-url or "
        "OPENAI_BASE_URL); needs --source, and the provider's key (ANTHROPIC_API_KEY, "
        "OPENAI_API_KEY; a local OpenAI-compatible server may need none)",
    )
    add_base_url_option(parser, role="judge")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FINDINGS",
        help="write the findings JSON here (for a corpus output: JSON lines, F.jsonl, one "
        "document a line)",
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="PAGE",
        help="write the report's view of OUTPUT here (default with -o F.json: F.html; not "
        "for a corpus output)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check ``args.output_file``; write the findings; return the exit status."""
    if args.judge_model is not None and args.source is None:
        raise InputError(
            "--judge-model needs --source INPUT: the judge reads each proposition against "
            "the input it was made from"
        )
    if is_corpus_output(args.output_file) and args.source_format == "agentic":
        return _run_corpus(args)
    sources = [args.output_file] + ([args.source] if args.source else [])
    response = read_output(args.output_file, args.source_format)
    inputs = None
    if args.source is not None:
        ids = {c.document_id for c in response.chunks}
        inputs = read_single_source(args.source, ids.pop() if len(ids) == 1 else None)
        if inputs is None:
            inputs = read_inputs(args.source)[0]
    html = args.html if args.html is not None else page_beside(args.output)
    check_distinct_outputs((("-o", args.output), ("--html", html)))
    for target, option in ((args.output, "-o"), (html, "--html")):
        check_output_path(target, inputs=sources, option=option)
    judgement = None
    if args.judge_model is not None and inputs is not None and response.chunks:
        judgement = _judge(inputs, response, args.judge_model, base_url=args.base_url)
    return report(
        response,
        inputs,
        output_name=str(args.output_file),
        source_name=None if args.source is None else str(args.source),
        findings_path=args.output,
        html_path=html,
        judgement=judgement,
        say=lambda line: print(f"agentic-chunking check: {line}", file=sys.stderr),
    )


def _run_corpus(args: argparse.Namespace) -> int:
    """``check`` on a corpus output (``_check_corpus``): no page; the judge, when asked,
    through one client for every document."""
    if args.html is not None:
        raise InputError(
            f"--html {args.html}: the page shows one chunked output, not a corpus's; give "
            "-o F.jsonl for the findings of every document"
        )
    if args.judge_model is None:
        return check_corpus_output(args.output_file, args.source, findings_path=args.output)
    from ..judge import run_judge

    model = args.judge_model
    with _judge_client(model, args.base_url) as client:
        return check_corpus_output(
            args.output_file,
            args.source,
            findings_path=args.output,
            judge=lambda inputs, response: run_judge(inputs, response, client=client, model=model),
        )


def page_beside(findings: Path | None) -> Path | None:
    """The default page for ``-o F.json``: ``F.html`` beside it (None without ``-o``)."""
    if findings is None or findings.suffix.lower() in (".html", ".htm"):
        return None
    return findings.with_suffix(".html")


def _judge(
    inputs: Sequence[AgenticChunkInput],
    response: AgenticResponse,
    model: str,
    *,
    base_url: str | None,
) -> Judgement:
    """The judge ``model``'s verdicts, through its provider's client (``_judge_client``)."""
    from ..judge import run_judge

    with _judge_client(model, base_url) as client:
        return run_judge(inputs, response, client=client, model=model)


@contextmanager
def _judge_client(model: str, base_url: str | None) -> Iterator[ModelClient]:
    """The client of the judge ``model``'s provider (``base_url`` replaces that provider's
    base URL), closed after the block; a missing key or bad setting is refused before any
    call."""
    from ..client import ModelClient, parse_model

    urls = {parse_model(model).provider: base_url} if base_url else None
    with ModelClient(base_urls=urls) as client:
        client.ready(model)
        yield client
