"""``agentic-chunking split PATH``: Level 4 semantic splitting of a document.

Splits a UTF-8 document with ``agentic_chunking.semantic.SemanticSplitter`` and writes a
JSON list of ``{chunk_id, text, index, start, end, document_id, metadata}`` objects, which
``agentic-chunking chunk`` reads directly. Offsets are into the file's decoded text (a
UTF-8 BOM removed, line endings kept). Needs the ``semantic`` extra for its embedder.
``--explain`` draws the similarity curve and the cuts on stderr, so stdout stays JSON.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import InputError
from ._io import (
    check_output_path,
    int_at_least,
    is_stdin,
    output_path,
    read_text_file,
    write_json,
)

if TYPE_CHECKING:
    from ..semantic import SemanticChunk

DEFAULT_CHUNK_PREFIX = "L4"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``split`` subcommand."""
    parser = subparsers.add_parser(
        "split",
        help="split a document where its meaning shifts (Level 4), as JSON chunks",
        description=__doc__.split("\n\n")[1].replace("``", "'"),
    )
    parser.add_argument(
        "path", metavar="PATH", type=Path, help="UTF-8 text document; - reads stdin"
    )
    options = parser.add_argument_group(
        "splitter options",
        "By default a cut goes where the similarity curve dips deeply compared with the "
        "document's own dips (adaptive). --threshold selects Solon AI's fixed rule: "
        "'--threshold 0.5 --window 3' is Solon's splitter.",
    )
    options.add_argument(
        "--threshold",
        type=_cosine,
        default=None,
        metavar="X",
        help="Solon's rule: a similarity below X is a boundary (higher: more chunks)",
    )
    options.add_argument(
        "--cutoff",
        type=_finite,
        default=None,
        metavar="Z",
        help="adaptive rule: least dip depth, in robust standard deviations over the "
        "document's median dip; higher: fewer chunks (default 1.0)",
    )
    for flag, least, text in (
        ("--window", 1, "segments of context: each side of a gap, or before one (default 3)"),
        ("--min-sentences", 1, "least segments in a group (default 2; Solon's rule 1)"),
        ("--min-tokens", 0, "least tokens in a group (default 40; Solon's rule 0)"),
    ):
        options.add_argument(flag, type=int_at_least(least), default=None, metavar="N", help=text)
    options.add_argument(
        "--max-tokens",
        type=int_at_least(1),
        default=512,
        metavar="N",
        help="no chunk over N tokens (characters // 4) (default 512)",
    )
    options.add_argument(
        "--overlap",
        type=int_at_least(0),
        default=0,
        metavar="N",
        help="segments of the previous chunk repeated at the start of the next (default 0)",
    )
    parser.add_argument(
        "--document-id", help="document id recorded on every chunk (default: the file's stem)"
    )
    parser.add_argument(
        "--chunk-prefix",
        default=DEFAULT_CHUNK_PREFIX,
        metavar="P",
        help=f"chunk ids are P-0001, P-0002, ... (default {DEFAULT_CHUNK_PREFIX})",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="print the similarity curve and the cuts as a text plot on stderr",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=output_path,
        metavar="OUT",
        help="write the JSON here (default: stdout)",
    )
    parser.set_defaults(func=run)


def _cosine(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not -1.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a cosine similarity in [-1, 1]")
    return number


def _finite(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"{value!r} is not a finite number")
    return number


def run(args: argparse.Namespace) -> int:
    """Split ``args.path`` and write the chunks as JSON; return the exit status."""
    from ..semantic import SemanticSplitter, render_explanation

    if args.threshold is not None and args.cutoff is not None:
        raise InputError(
            f"--cutoff {args.cutoff:g} belongs to the adaptive rule, and --threshold "
            f"{args.threshold:g} selects Solon's fixed rule instead, which has no cutoff: "
            "give one of the two"
        )
    text = read_text_file(args.path)
    check_output_path(args.output, inputs=[args.path])
    source = "stdin" if is_stdin(args.path) else str(args.path)
    document_id = args.document_id or ("stdin" if is_stdin(args.path) else args.path.stem)
    splitter = SemanticSplitter(
        similarity_threshold=args.threshold,
        similarity_window=args.window,
        min_sentences_per_chunk=args.min_sentences,
        min_chunk_tokens=args.min_tokens,
        depth_cutoff=args.cutoff,
        max_chunk_token_size=args.max_tokens,
        overlap_sentences=args.overlap,
    )
    explanation = splitter.explain(text, document_id=document_id, metadata={"source": source})
    chunks = explanation.chunks
    if args.explain:
        sys.stderr.write(render_explanation(explanation, text))
    records = [
        {
            "chunk_id": f"{args.chunk_prefix}-{chunk.index + 1:04d}",
            "text": chunk.text,
            "index": chunk.index,
            "start": chunk.start,
            "end": chunk.end,
            "document_id": chunk.document_id,
            "metadata": dict(chunk.metadata),
        }
        for chunk in chunks
    ]
    write_json(records, args.output)
    print(f"agentic-chunking split: {len(records)} chunks from {source}", file=sys.stderr)
    short = _short_overlaps(text, chunks, args.overlap)
    if short:
        print(
            f"agentic-chunking split: warning: --overlap {args.overlap} was not met for "
            f"{short} of {len(chunks) - 1} chunks: the previous chunk had fewer segments, or "
            "the overlap did not fit under --max-tokens; each got what fits",
            file=sys.stderr,
        )
    return 0


def _short_overlaps(text: str, chunks: Sequence[SemanticChunk], requested: int) -> int:
    """How many chunks after the first repeat fewer than ``requested`` segments."""
    from ..semantic import segment_spans

    if requested == 0:
        return 0
    return sum(
        len(segment_spans(text[chunk.start : chunk.body_start])) < requested for chunk in chunks[1:]
    )
