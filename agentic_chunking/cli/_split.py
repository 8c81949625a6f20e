"""``agentic-chunking split PATH``: Level 4 semantic splitting of a document.

Splits a UTF-8 document with ``agentic_chunking.semantic.SemanticSplitter`` and writes a
JSON list of ``{chunk_id, text, index, start, end, document_id, metadata}`` objects, which
``agentic-chunking chunk`` reads directly. Offsets are into the file's decoded text (a
UTF-8 BOM removed, line endings kept). Needs the ``semantic`` extra for its embedder.
The hard-wrapped lines of a paragraph are joined before segmenting (``--keep-lines``:
every line end ends a segment, as in Solon's splitter). On a terminal a progress bar
follows the embedding. ``--explain`` prints a summary and the places of least similarity
on stderr (``--explain=full``: the whole curve), so stdout stays JSON.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

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
    from ..semantic import SemanticChunk, SemanticSplitter
    from ..semantic._splitter import Progress

DEFAULT_CHUNK_PREFIX = "L4"
# --explain's summary: how many places of least similarity it shows.
EXPLAIN_LOWEST = 10


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
        default=None,
        metavar="N",
        help="no chunk over N tokens (characters // 4) (default 256; with --threshold, "
        "Solon's 512)",
    )
    options.add_argument(
        "--overlap",
        type=int_at_least(0),
        default=0,
        metavar="N",
        help="segments of the previous chunk repeated at the start of the next (default 0)",
    )
    options.add_argument(
        "--keep-lines",
        action="store_true",
        help="end a segment at every line end, as Solon's splitter does (default: join the "
        "hard-wrapped lines of a paragraph; a blank line, a heading, a list item or a code "
        "block still ends one)",
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
        nargs="?",
        const="summary",
        choices=("summary", "full"),
        default=None,
        help="print why the cuts were made on stderr: a summary and the "
        f"{EXPLAIN_LOWEST} places of least similarity, or with --explain=full the whole "
        "similarity curve, one row per segment",
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
        join_wrapped_lines=not args.keep_lines,
    )
    with progress_bar(sys.stderr) as progress:
        explanation = splitter.explain(
            text, document_id=document_id, metadata={"source": source}, progress=progress
        )
    chunks = explanation.chunks
    if args.explain:
        lowest = None if args.explain == "full" else EXPLAIN_LOWEST
        sys.stderr.write(render_explanation(explanation, text, lowest=lowest))
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
    short = _short_overlaps(splitter, text, chunks, args.overlap)
    if short:
        print(
            f"agentic-chunking split: warning: --overlap {args.overlap} was not met for "
            f"{short} of {len(chunks) - 1} chunks: the previous chunk had fewer segments, or "
            "the overlap did not fit under --max-tokens; each got what fits",
            file=sys.stderr,
        )
    return 0


@contextmanager
def progress_bar(stream: TextIO) -> Iterator[Progress | None]:
    """A tqdm bar of the texts embedded on ``stream`` when it is a terminal, else None.

    Off a terminal (a log, a pipe, CI) nothing is drawn: the command's closing line says
    what was done. The bar is removed when the block ends.
    """
    isatty = getattr(stream, "isatty", None)
    if not (callable(isatty) and isatty()):
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(total=0, desc="embedding", unit="text", file=stream, leave=False, dynamic_ncols=True)

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield update
    finally:
        bar.close()


def _short_overlaps(
    splitter: SemanticSplitter, text: str, chunks: Sequence[SemanticChunk], requested: int
) -> int:
    """How many chunks after the first repeat fewer than ``requested`` segments."""
    if requested == 0:
        return 0
    return sum(
        len(splitter.segments(text[chunk.start : chunk.body_start])) < requested
        for chunk in chunks[1:]
    )
