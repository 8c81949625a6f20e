"""``agentic-chunking split PATH``: Level 4 semantic splitting of a document or a corpus.

Splits a UTF-8 document with ``agentic_chunking.semantic.SemanticSplitter`` and writes a
JSON list of ``{chunk_id, text, index, start, end, document_id, metadata}`` objects, which
``agentic-chunking chunk`` reads directly. Offsets are into the file's decoded text (a
UTF-8 BOM removed, line endings kept). Needs the ``semantic`` extra for its embedder.
A corpus (a folder, a .jsonl or a .parquet, as ``corpus`` reads them) is split document by
document with one embedder into OUT.jsonl, one ``{document_id, chunks, metadata}`` line a
document, the input of ``corpus``; a ledger beside OUT lets a rerun skip every finished
document. The hard-wrapped lines of a paragraph are joined before segmenting
(``--keep-lines``: every line end ends a segment, as in Solon's splitter). On a terminal a
progress bar follows the embedding. ``--explain`` prints a summary and the places of least
similarity on stderr (``--explain=full``: the whole curve), so stdout stays JSON.

A corpus run's exit status: 0 every document split, 1 some failed (not text, no text:
listed in OUT.failures.jsonl), 2 an input error (before any document is split), 130
interrupted (Ctrl-C) or 143 stopped by SIGTERM (OUT as it was, the finished documents kept
in the ledger).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .._errors import InputError
from .._shown import redact
from ..corpus import (
    DEFAULT_CHUNK_PREFIX,
    JSONL_SUFFIXES,
    PARQUET_SUFFIXES,
    SplitRun,
    chunk_record,
    open_corpus,
    short_overlaps,
    split_corpus_to,
)
from ._io import (
    FAILURES_SUFFIX,
    LEDGER_SUFFIX,
    add_selection_options,
    beside,
    check_output_path,
    int_at_least,
    is_stdin,
    output_path,
    read_text_file,
    resume_line,
    write_json,
)
from ._progress import Heartbeat, _is_terminal

if TYPE_CHECKING:
    from ..semantic import SemanticSplitter

PREFIX = "agentic-chunking split: "
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
        "path",
        metavar="PATH",
        type=Path,
        help="a UTF-8 text document (- reads stdin), or a corpus as 'corpus' reads it: a "
        "folder of text files, a .jsonl or a .parquet of {document_id, text, metadata}",
    )
    _add_splitter_options(parser)
    _add_output_options(parser)
    add_selection_options(parser)
    parser.set_defaults(func=run)


def _add_splitter_options(parser: argparse.ArgumentParser) -> None:
    """The "splitter options" group: the rule (adaptive or Solon's) and the sizes."""
    options = parser.add_argument_group(
        "splitter options",
        "By default a cut goes where the similarity curve dips deeply compared with the "
        "document's own dips (adaptive). --threshold selects Solon AI's fixed rule: "
        "'--threshold 0.5 --window 3' is Solon's splitter.",
    )
    options.add_argument(
        "--rule",
        choices=("adaptive", "coherence"),
        default="adaptive",
        help="adaptive (default): cut at the document's deep dips, the best for retrieval "
        "on our benchmarks; coherence: cuts chosen over the whole document, which follow "
        "topics (a one-topic document gets none, however long; only --max-tokens cuts it)",
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


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """What is written and where: ids, --explain, -o, the ledger, -q."""
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
        help="write the JSON here (default: stdout); a corpus needs OUT.jsonl: one "
        "{document_id, chunks, metadata} line a document, what 'corpus' reads",
    )
    parser.add_argument(
        "--ledger",
        type=Path,
        metavar="FILE",
        help=f"a corpus: the SQLite ledger of finished documents (default: OUT{LEDGER_SUFFIX} "
        "beside OUT)",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="a corpus: no progress bar, only errors and the summary line",
    )


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


def is_corpus(path: Path) -> bool:
    """Whether ``path`` names a corpus (a folder, JSONL or Parquet), not one document."""
    if is_stdin(path):
        return False
    return path.is_dir() or path.suffix.lower() in (*JSONL_SUFFIXES, *PARQUET_SUFFIXES)


def run(args: argparse.Namespace) -> int:
    """Split ``args.path`` and write the chunks as JSON; return the exit status."""
    splitter = _splitter(args)
    if is_corpus(args.path):
        for option, given in (("--document-id", args.document_id), ("--explain", args.explain)):
            if given:
                raise InputError(
                    f"{option} is for one document; {args.path} is a corpus, whose documents "
                    f"keep their own ids: leave out {option}, or split one file"
                )
        if args.output is None:
            raise InputError(
                f"{args.path} is a corpus: give -o OUT.jsonl for its Level 4 records (one "
                "{document_id, chunks, metadata} line a document, what 'corpus' reads)"
            )
        return split_corpus_into(
            args.path,
            args.output,
            splitter=splitter,
            chunk_prefix=args.chunk_prefix,
            ledger_path=args.ledger,
            quiet=args.quiet,
            include=args.include,
            exclude=args.exclude,
        )
    if args.ledger is not None:
        raise InputError(
            f"--ledger keeps the finished documents of a corpus; {args.path} is one document: "
            "leave out --ledger"
        )
    return _split_document(args, splitter)


def _splitter(args: argparse.Namespace) -> SemanticSplitter:
    """The splitter the options describe; InputError for --threshold with --cutoff, or
    either with --rule coherence."""
    from ..semantic import SemanticSplitter

    if args.threshold is not None and args.cutoff is not None:
        raise InputError(
            f"--cutoff {args.cutoff:g} belongs to the adaptive rule, and --threshold "
            f"{args.threshold:g} selects Solon's fixed rule instead, which has no cutoff: "
            "give one of the two"
        )
    if args.rule == "coherence" and (args.threshold is not None or args.cutoff is not None):
        given = "--threshold" if args.threshold is not None else "--cutoff"
        raise InputError(
            f"{given} belongs to another rule than --rule coherence (--threshold selects "
            "Solon's rule, --cutoff tunes the adaptive one): give one of the two"
        )
    return SemanticSplitter(
        boundary_rule=args.rule,
        similarity_threshold=args.threshold,
        similarity_window=args.window,
        min_sentences_per_chunk=args.min_sentences,
        min_chunk_tokens=args.min_tokens,
        depth_cutoff=args.cutoff,
        max_chunk_token_size=args.max_tokens,
        overlap_sentences=args.overlap,
        join_wrapped_lines=not args.keep_lines,
    )


def _split_document(args: argparse.Namespace, splitter: SemanticSplitter) -> int:
    """Split one document (a file or stdin) into a JSON list of chunks; print the count,
    the explanation with --explain, and the overlaps not met."""
    from ..semantic import render_explanation

    text = read_text_file(args.path)
    check_output_path(args.output, inputs=[args.path])
    source = "stdin" if is_stdin(args.path) else str(args.path)
    document_id = args.document_id or ("stdin" if is_stdin(args.path) else args.path.stem)
    with progress_bar(sys.stderr) as progress:
        explanation = splitter.explain(
            text, document_id=document_id, metadata={"source": source}, progress=progress
        )
    chunks = explanation.chunks
    if args.explain:
        lowest = None if args.explain == "full" else EXPLAIN_LOWEST
        sys.stderr.write(render_explanation(explanation, text, lowest=lowest))
    records: list[dict[str, Any]] = [
        {
            **chunk_record(chunk, args.chunk_prefix),
            "document_id": chunk.document_id,
            "metadata": dict(chunk.metadata),
        }
        for chunk in chunks
    ]
    write_json(records, args.output)
    print(f"agentic-chunking split: {len(records)} chunks from {source}", file=sys.stderr)
    short = short_overlaps(splitter, text, chunks, args.overlap)
    if short:
        print(
            f"agentic-chunking split: warning: --overlap {args.overlap} was not met for "
            f"{short} of {len(chunks) - 1} chunks: the previous chunk had fewer segments, or "
            "the overlap did not fit under --max-tokens; each got what fits",
            file=sys.stderr,
        )
    return 0


def split_corpus_into(
    corpus: Path,
    output: Path,
    *,
    splitter: SemanticSplitter,
    chunk_prefix: str = DEFAULT_CHUNK_PREFIX,
    ledger_path: Path | None = None,
    quiet: bool = False,
    prefix: str = PREFIX,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> int:
    """Split every document of ``corpus`` into ``output`` (Level 4 JSONL, written
    atomically), with the ledger and the failures file beside it (``split_corpus_to``); the
    exit status (0 every document split, 1 some failed). Lines on stderr start with
    ``prefix``."""
    if output.suffix.lower() not in JSONL_SUFFIXES:
        raise InputError(
            f"{output}: the Level 4 records of a corpus are JSON lines: give -o OUT.jsonl "
            "(one {document_id, chunks, metadata} line a document, what 'corpus' reads)"
        )
    source = open_corpus(corpus, include=include, exclude=exclude)
    ledger_path = ledger_path or beside(output, LEDGER_SUFFIX)
    failures_path = beside(output, FAILURES_SUFFIX)
    for target, option in ((output, "-o"), (failures_path, "-o"), (ledger_path, "--ledger")):
        check_output_path(target, inputs=[corpus], option=option)
    done = split_corpus_to(
        source,
        output,
        splitter=splitter,
        ledger_path=ledger_path,
        failures_path=failures_path,
        chunk_prefix=chunk_prefix,
        progress=lambda total: documents_bar(sys.stderr, total, quiet, prefix),
        on_stopped=lambda ledger: _say(prefix, resume_line(ledger, ledger_path, output)),
    )
    _say_split(prefix, done, output, failures_path, splitter.overlap_sentences)
    return 1 if done.failed else 0


def _say_split(
    prefix: str, done: SplitRun, output: Path, failures_path: Path, overlap: int
) -> None:
    """The closing lines of a corpus split: the counts, the files set aside, the overlaps
    not met."""
    failed = f"; failures in {failures_path}" if done.failed else ""
    _say(
        prefix,
        f"{done.done:,} split, {done.skipped:,} skipped (done before), "
        f"{done.failed:,} failed of {done.documents:,} documents; "
        f"{done.chunks:,} chunks written to {output} in {done.seconds:.1f} s{failed}",
    )
    set_aside = done.set_aside
    if set_aside:
        names = ", ".join(set_aside[:3]) + (", ..." if len(set_aside) > 3 else "")
        _say(
            prefix,
            f"{len(set_aside):,} {'file is' if len(set_aside) == 1 else 'files are'} not text "
            f"(binary, compressed, not UTF-8 or empty) and set aside, not failed: {names}; "
            f"listed in {failures_path} (error_kind not_text); leave them out with --exclude",
        )
    if done.short_overlaps:
        _say(
            prefix,
            f"warning: --overlap {overlap} was not met for {done.short_overlaps} "
            "chunks: the previous chunk had fewer segments, or the overlap did not fit "
            "under --max-tokens; each got what fits",
        )


def _say(prefix: str, line: str) -> None:
    print(redact(f"{prefix}{line}"), file=sys.stderr)


@contextmanager
def documents_bar(
    stream: TextIO, total: int, quiet: bool, prefix: str = PREFIX
) -> Iterator[Callable[[], None]]:
    """A tqdm bar of the documents done on ``stream`` when it is a terminal and not
    ``quiet``; off a terminal a Heartbeat line (``prefix``, the documents split so far) at
    least every PROGRESS_EVERY_S seconds. Yields the function to call once a document."""
    if quiet:
        yield lambda: None
        return
    if not _is_terminal(stream):
        done = 0
        with Heartbeat(prefix, stream=stream) as beat:

            def count() -> None:
                nonlocal done
                done += 1
                beat.status(f"{done:,} of {total:,} documents split")

            beat.status(f"0 of {total:,} documents split")
            yield count
        return
    from tqdm import tqdm

    bar = tqdm(total=total, desc="documents", unit="doc", file=stream, dynamic_ncols=True)
    try:
        yield lambda: bar.update(1)
    finally:
        bar.close()


@contextmanager
def progress_bar(stream: TextIO) -> Iterator[Callable[[int, int], None] | None]:
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
