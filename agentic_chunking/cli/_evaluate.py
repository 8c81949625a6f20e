"""``agentic-chunking evaluate``: does a chunker help retrieval? Chunkers side by side.

Chunks a corpus with each chunker, embeds chunks and questions (the offline MiniLM
embedder, the ``semantic`` extra), retrieves by exact cosine over every chunk and prints,
per chunker, Chroma's token-level recall, precision and IoU at k chunks and at a
retrieved-token budget, chunk counts and sizes, chunks crossing a known section,
embedding inputs and times. Without a corpus it runs the bundled benchmark (Chroma's
chunking evaluation: five corpora, 472 questions). ``--sweep`` runs a grid of settings
(seed 004's by default) sorted by recall at the budget. Embeddings are cached by content
hash under ``--cache-dir``, so a second run embeds nothing.
"""

from __future__ import annotations

import argparse
import importlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from ._io import check_distinct_outputs, check_output_path, int_at_least, output_path
from ._progress import Heartbeat

if TYPE_CHECKING:
    from ..evaluate import Document, Evaluation, Question

DEFAULT_CHUNKERS = ("level4", "level4-solon", "fixed,size=256", "recursive,size=256")
DEFAULT_SWEEP_BASE = "level4-solon"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/agentic-chunking/embeddings`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentic-chunking" / "embeddings"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``evaluate`` subcommand."""
    parser = subparsers.add_parser(
        "evaluate",
        help="compare chunkers by retrieval: token-level recall at k and at a token budget",
        description=__doc__.split("\n\n")[1].replace("``", "'"),
    )
    _add_corpus_options(parser)
    _add_chunker_options(parser)
    _add_retrieval_options(parser)
    parser.add_argument("--json", type=output_path, metavar="FILE", help="write the JSON here")
    parser.add_argument("--html", type=output_path, metavar="FILE", help="write the HTML page here")
    parser.set_defaults(func=run)


def _add_corpus_options(parser: argparse.ArgumentParser) -> None:
    """What is evaluated: a corpus and its questions, or (a part of) the bundled benchmark."""
    parser.add_argument(
        "corpus",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="documents: files, folders or JSONL ({id, text, sections?}); none: the bundled "
        "benchmark",
    )
    parser.add_argument(
        "--questions",
        type=Path,
        metavar="FILE",
        help="questions with gold character ranges: Chroma's CSV (question, references, "
        "corpus_id) or JSONL of the same keys; needed with a corpus",
    )
    parser.add_argument(
        "--benchmark-corpus",
        action="append",
        metavar="NAME",
        help="only this corpus of the bundled benchmark (repeatable): chatlogs, finance, "
        "pubmed, state_of_the_union, wikitexts",
    )
    parser.add_argument(
        "--questions-per-corpus",
        type=int_at_least(1),
        metavar="N",
        help="only the first N questions of each benchmark corpus (a quick run)",
    )


def _add_chunker_options(parser: argparse.ArgumentParser) -> None:
    """Which chunkers are compared: --chunker, --installed, --sweep."""
    parser.add_argument(
        "--chunker",
        action="append",
        metavar="SPEC",
        help="a chunker and its settings, repeatable: level4, level4-solon[,threshold=X], "
        "level5,replies=FILE, fixed,size=N,overlap=N, recursive,size=N, "
        "langchain-recursive,size=N, chonkie-recursive|chonkie-token|chonkie-sentence,size=N,"
        " or module:function (text -> [(start, end)]). Default: " + "; ".join(DEFAULT_CHUNKERS),
    )
    parser.add_argument(
        "--installed",
        action="store_true",
        help="also run every installed library splitter (semchunk, LangChain, chonkie) at "
        "256 tokens",
    )
    parser.add_argument(
        "--sweep",
        nargs="?",
        const="seed",
        metavar="GRID",
        help="run a grid of settings for the first --chunker (default level4-solon), sorted "
        "by recall at the budget; GRID like 'threshold=0.35,0.5 window=1,3' (default: seed "
        "004's threshold 0.35/0.50/0.65, window 1/3/5, max_tokens 256/512/1024)",
    )


def _add_retrieval_options(parser: argparse.ArgumentParser) -> None:
    """How retrieval is measured: k, the token budget, the embedder and its cache."""
    parser.add_argument("-k", type=int_at_least(1), default=5, help="chunks retrieved (default 5)")
    parser.add_argument(
        "--budget",
        type=int_at_least(1),
        default=1000,
        metavar="TOKENS",
        help="retrieved-token budget (characters // 4) (default 1000)",
    )
    parser.add_argument(
        "--embedder",
        default="minilm",
        metavar="NAME",
        help="minilm (default, offline), hashing (no model, for demos), or module:factory "
        "(a callable returning an embedder)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=f"embedding cache (default {default_cache_dir()})",
    )
    parser.add_argument("--no-cache", action="store_true", help="keep embeddings in memory only")


def _embedder(name: str) -> Any:
    from ..semantic import HashingEmbedder, MiniLMEmbedder

    if name == "minilm":
        return MiniLMEmbedder()
    if name == "hashing":
        return HashingEmbedder()
    module_name, sep, attribute = name.partition(":")
    if not sep:
        raise InputError(f"--embedder {name!r}: give minilm, hashing or module:factory")
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise InputError(f"--embedder {name!r} cannot be loaded: {error}") from None
    return factory()


def run(args: argparse.Namespace) -> int:
    """Run the evaluation and print the table; return the exit status."""
    from ..evaluate import chunker_specs, format_table, load_inputs, write_html, write_json

    check_distinct_outputs((("--json", args.json), ("--html", args.html)))
    for flag, path in (("--json", args.json), ("--html", args.html)):
        questions_file = [args.questions] if args.questions is not None else []
        check_output_path(path, inputs=[*args.corpus, *questions_file], option=flag)
    if args.corpus:
        if args.questions is None:
            raise InputError("a corpus needs --questions FILE (Chroma's CSV or JSONL)")
        if args.benchmark_corpus or args.questions_per_corpus:
            raise InputError(
                "--benchmark-corpus and --questions-per-corpus choose from the bundled "
                "benchmark; leave them out with a corpus of your own"
            )
    elif args.questions is not None:
        raise InputError("--questions needs a corpus (PATH ...); none runs the benchmark")
    documents, questions, corpus = load_inputs(
        args.corpus,
        args.questions,
        benchmark_corpora=args.benchmark_corpus,
        questions_per_corpus=args.questions_per_corpus,
    )
    chunkers = chunker_specs(
        args.chunker or (),
        default=DEFAULT_CHUNKERS,
        sweep=args.sweep,
        sweep_base=DEFAULT_SWEEP_BASE,
        installed=args.installed,
    )
    cache_dir = None if args.no_cache else (args.cache_dir or default_cache_dir())
    evaluation = _evaluate_telling(args, documents, questions, chunkers, cache_dir, corpus)
    print(format_table(evaluation))
    if args.json is not None:
        write_json(evaluation, args.json)
    if args.html is not None:
        write_html(evaluation, args.html)
    return 0


def _evaluate_telling(
    args: argparse.Namespace,
    documents: Sequence[Document],
    questions: Sequence[Question],
    chunkers: Sequence[str],
    cache_dir: Path | None,
    corpus: str,
) -> Evaluation:
    """``evaluate`` with a Heartbeat on stderr: each chunker as it starts, and the texts
    embedded so far while one runs long."""
    from ..evaluate import evaluate

    embedded = {"texts": 0}
    with Heartbeat("agentic-chunking evaluate: ") as heartbeat:
        current = {"name": "the questions"}

        def progress(name: str) -> None:
            current["name"] = name
            heartbeat.say(name)

        def on_embedded(count: int) -> None:
            embedded["texts"] += count
            heartbeat.status(
                f"still on {current['name']}: {embedded['texts']:,} texts embedded so far"
            )

        return evaluate(
            documents,
            questions,
            chunkers,
            embedder=_embedder(args.embedder),
            k=args.k,
            budget=args.budget,
            cache_dir=cache_dir,
            corpus=corpus,
            sort_by_recall=bool(args.sweep),
            progress=progress,
            on_embedded=on_embedded,
        )
