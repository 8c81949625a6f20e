"""``agentic-chunking corpus IN -o OUT``: chunk every document of a corpus, with resume.

IN is a folder of text files (any extension or none; each file one document, its id the
path under IN), a JSONL file of ``{document_id, text, metadata}`` (or Level 4 output,
``{document_id, chunks: [{chunk_id, text, ...}]}``) or a Parquet file with those
columns. OUT is JSONL (one output chunk a line, with its document id and the document's
metadata) or Parquet, chosen by suffix, in input order, written atomically at the end.
Beside OUT: the ledger (``OUT.ledger.sqlite``: every finished document, so rerunning the
same command after a kill or a failure skips the finished ones), the reply cache
(``OUT.replies/``: a half-done document pays for no reply twice) and, when a document
failed, ``OUT.failures.jsonl`` (its error and the propositions extracted before it; a file
that is not text is listed there too, but set aside: it fails no run). ``--include`` and
``--exclude`` choose documents by glob. Exit status: 0 every document done (or set aside as
not text), 1 some failed (a model call that failed fails its document only), 2 an input
or configuration error (before any call, or a key or model refused during the run), 130
interrupted. With ``--level4`` each document is first split by meaning (``split``'s
defaults) into OUT.level4.jsonl, with its own ledger, and those records are chunked: Level 4
then Level 5 in one command, each resumable.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from .._entry import Terminated
from .._errors import ConfigurationError, InputError
from .._shown import redact
from ..client import (
    DEFAULT_POLL_INTERVAL_S,
    FALLBACKS,
    BatchUnreachableError,
    ModelClient,
    parse_model,
    provider_module,
    resolve_model,
)
from ..corpus import (
    BatchNote,
    BatchSettings,
    CorpusJob,
    CorpusOutcome,
    CorpusPlan,
    CorpusRun,
    Ledger,
    LedgerError,
    Scan,
    check_output_suffix,
    open_corpus,
    plan_corpus,
)
from ..pipeline import DEFAULT_MAX_CHUNK_TOKENS, PipelineOptions
from ._chunk import (
    CACHE_SUFFIX,
    add_model_options,
    chunk_size_warning,
    open_reply_cache,
    pipeline_options,
)
from ._corpus_display import PREFIX, CorpusDisplay
from ._io import (
    FAILURES_SUFFIX,
    LEDGER_SUFFIX,
    add_selection_options,
    beside,
    check_output_path,
    check_outside,
    finished_in_ledger,
    int_at_least,
    output_path,
    resume_line,
    seconds_up_to,
)

LEVEL4_SUFFIX = ".level4.jsonl"
"""With --level4: the Level 4 records beside OUT (its ledger beside them)."""
DEFAULT_CORPUS_CONCURRENCY = 16
ENGINES = ("local", "ray")
DEFAULT_BATCH_DOCUMENTS = 1000

MAX_POLL_S = 3600.0
"""The longest --batch-poll: an hour."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``corpus`` subcommand."""
    parser = subparsers.add_parser(
        "corpus",
        help="chunk every document of a folder, JSONL or Parquet corpus, with resume",
        description=__doc__.split("\n\n")[1].replace("``", "'"),
    )
    parser.add_argument(
        "corpus",
        metavar="IN",
        type=Path,
        help="a folder of text files, a .jsonl of {document_id, text, metadata} (or Level 4 "
        "chunks), or a .parquet with those columns",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=output_path,
        metavar="OUT",
        required=True,
        help="the chunks, one record each: OUT.jsonl (JSON lines) or OUT.parquet",
    )
    add_model_options(
        parser,
        concurrency=DEFAULT_CORPUS_CONCURRENCY,
        concurrency_help="model requests in flight at once, for the whole run",
    )
    _add_rate_options(parser)
    _add_run_files_options(parser)
    _add_batch_options(parser)
    add_selection_options(parser)
    _add_engine_options(parser)
    parser.set_defaults(func=run)


def _add_rate_options(parser: argparse.ArgumentParser) -> None:
    """The caps on the whole run's requests and tokens a minute."""
    parser.add_argument(
        "--requests-per-minute",
        type=int_at_least(1),
        metavar="N",
        help="at most N requests a minute for the whole run (default: no cap)",
    )
    parser.add_argument(
        "--tokens-per-minute",
        type=int_at_least(1),
        metavar="N",
        help="at most about N tokens a minute sent for the whole run (characters / 4; "
        "default: no cap)",
    )


def _add_run_files_options(parser: argparse.ArgumentParser) -> None:
    """The output chunks' size limit and the files a run keeps: the ledger, the replies."""
    parser.add_argument(
        "--max-chunk-tokens",
        type=int_at_least(1),
        metavar="N",
        help=f"the size limit of an output chunk (default {DEFAULT_MAX_CHUNK_TOKENS}: what an "
        "embedder reads whole)",
    )
    parser.add_argument(
        "--ledger",
        type=Path,
        metavar="FILE",
        help=f"the SQLite ledger of finished documents (default: OUT{LEDGER_SUFFIX} beside OUT)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=f"where every model reply is kept, by request hash (default: OUT{CACHE_SUFFIX})",
    )


def _add_batch_options(parser: argparse.ArgumentParser) -> None:
    """--batch and what goes with it: the fallback, the documents at once, the polling and
    the batches to give up."""
    parser.add_argument(
        "--batch",
        action="store_true",
        help="send every request through the provider's batch API, at half the price, "
        "answered within 24 hours (most within one); rounds of requests: all extractions, "
        "then all groupings, ...",
    )
    parser.add_argument(
        "--batch-fallback",
        choices=FALLBACKS,
        default="none",
        help="a request a batch did not answer (errored, expired, cancelled): into the next "
        "round (none, the default) or sent at once at the full price (sync)",
    )
    parser.add_argument(
        "--batch-documents",
        type=int_at_least(1),
        default=DEFAULT_BATCH_DOCUMENTS,
        metavar="N",
        help="with --batch, documents worked on at once: their requests share the rounds "
        f"(default {DEFAULT_BATCH_DOCUMENTS}; each waits on a thread)",
    )
    parser.add_argument(
        "--batch-poll",
        type=seconds_up_to(MAX_POLL_S, named=" (an hour)"),
        default=DEFAULT_POLL_INTERVAL_S,
        metavar="SECONDS",
        help=f"with --batch, seconds between two looks at a batch in flight "
        f"(default {DEFAULT_POLL_INTERVAL_S:g})",
    )
    parser.add_argument(
        "--forget-batch",
        action="append",
        default=[],
        metavar="BATCH_ID",
        help="give up a batch the ledger holds (one a run submitted, not yet collected): its "
        "requests are sent again and PAID AGAIN; for a batch the provider no longer has "
        "(deleted, another account). Repeatable",
    )


def _add_engine_options(parser: argparse.ArgumentParser) -> None:
    """How the run goes: the engine, Level 4 first, a dry run, quiet."""
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="local",
        help="local: threads in this process (default); ray: a Ray Data pipeline, on a local "
        "Ray instance or the cluster $RAY_ADDRESS names (needs the ray extra)",
    )
    parser.add_argument(
        "--level4",
        action="store_true",
        help="split each document by meaning first (Level 4, as 'split' does by default) "
        f"into OUT{LEVEL4_SUFFIX} beside OUT, then chunk those chunks (Level 5); a rerun "
        "splits no finished document again (needs the semantic extra)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="read the corpus and print the plan (documents, calls, tokens and cost "
        "estimated); no model call, no key needed",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bar: only errors and the summary line",
    )


def run(args: argparse.Namespace) -> int:
    """Chunk the corpus ``args.corpus`` into ``args.output``; return the exit status."""
    check_output_suffix(args.output)
    if args.cache_dir is not None:
        check_outside(args.cache_dir, args.corpus, option="--cache-dir")
    level4_status = _level4(args) if args.level4 else 0  # args.corpus: its Level 4 records
    if level4_status is None:
        return 1
    job = _job(args)
    inputs = [args.corpus]  # a file, or a folder OUT must lie outside of
    for target, option in ((job.output, "-o"), (job.failures_path, "-o")):
        check_output_path(target, inputs=inputs, option=option)
    check_output_path(job.ledger_path, inputs=inputs, option="--ledger")
    scan = job.source.scan()  # a bad record or a duplicate id: refused before any call
    options = pipeline_options(args).resolved()
    options.check()  # a max_tokens no call may ask for: the run's fault, before any file
    oversized = chunk_size_warning(args.max_chunk_tokens)
    if oversized:
        _say(oversized)
    if args.batch:
        _check_batch_options(args)
    if args.dry_run:
        plan = plan_corpus(job.source.documents(), options, batched=args.batch)
        print("\n".join(_plan_lines(plan, len(scan.document_ids), str(args.corpus), args.batch)))
        return level4_status
    failed = _run_job(job, options, scan, quiet=args.quiet)
    return 1 if failed or level4_status else 0


def _job(args: argparse.Namespace) -> CorpusJob:
    """The run the options ask for, besides the pipeline's options."""
    output: Path = args.output
    batch = (
        BatchSettings(args.batch_poll, args.batch_fallback, args.batch_documents)
        if args.batch
        else None
    )
    return CorpusJob(
        source=open_corpus(args.corpus, include=args.include, exclude=args.exclude),
        output=output,
        ledger_path=args.ledger or beside(output, LEDGER_SUFFIX),
        failures_path=beside(output, FAILURES_SUFFIX),
        cache_dir=args.cache_dir or beside(output, CACHE_SUFFIX),
        engine=args.engine,
        batch=batch,
        requests_per_minute=args.requests_per_minute,
        tokens_per_minute=args.tokens_per_minute,
        forget_batches=tuple(args.forget_batch),
    )


def _run_job(job: CorpusJob, options: PipelineOptions, scan: Scan, *, quiet: bool) -> bool:
    """Run ``job``, saying its progress, its stops and its summary; whether a document
    failed."""
    tally: CorpusDisplay | None = None
    run = CorpusRun(
        job,
        options,
        open_cache=lambda directory: open_reply_cache(directory, read=True),
        on_batch=lambda shown: _opened(tally).batch(shown),
    )
    try:
        run.open()
        tally = CorpusDisplay(
            total=len(scan.document_ids), quiet=quiet, batched=job.batch is not None
        )
        for note in run.settle_batches():
            if note.kind != "attached":
                _say(_batch_line(note))
    except BaseException:
        run.close()
        if tally is not None:
            tally.close()
        raise
    started = time.monotonic()
    with _saying_stops(run, tally):
        outcome = run.execute({d: n for n, d in enumerate(scan.document_ids)}, tally.add)
    tally.close()
    seconds = time.monotonic() - started
    _say(tally.summary(outcome.written, job.output, job.failures_path, seconds, scan.left_out))
    failure = tally.failure_line(job.failures_path)
    if failure is not None:
        _say(failure)
    if tally.totals.set_aside:
        _say(tally.set_aside_line(job.failures_path))
    _say_cache_warnings(run, outcome)
    return bool(tally.totals.counts["failed"])


@contextlib.contextmanager
def _saying_stops(run: CorpusRun, tally: CorpusDisplay) -> Iterator[None]:
    """Say how a run stopped half-way, and the way on (each stop kept as it is: a stop
    signal, a batch no proxy keeps, a full disk under OUT or the ledger); close the run
    however it ended."""
    job, ledger = run.job, run.opened_ledger
    try:
        yield
    except (KeyboardInterrupt, Terminated):
        tally.close()
        _say(resume_line(ledger, job.ledger_path, job.output))
        raise
    except BatchUnreachableError as error:  # a proxy that loses batches: nothing sent again
        tally.close()
        raise ConfigurationError(
            _unreachable_line(error, ledger, job.ledger_path, job.output)
        ) from None
    except (InputError, LedgerError) as error:  # a full disk under OUT or the ledger
        tally.close()
        raise InputError(_stopped_line(error, run.kept_elsewhere())) from None
    except ConfigurationError:  # a model or key refused: the same command would stop again
        tally.close()
        _say(resume_line(ledger, job.ledger_path, job.output, configuration=True))
        raise
    except Exception:
        tally.close()
        _say(resume_line(ledger, job.ledger_path, job.output))
        raise
    finally:
        run.close()


def _say_cache_warnings(run: CorpusRun, outcome: CorpusOutcome) -> None:
    """The replies this run could not keep in the reply cache: where they are instead."""
    cache = run.cache
    assert cache is not None, "an opened run has its cache"
    if outcome.kept_elsewhere is not None:
        _say(
            f"warning: the reply cache {cache.directory} could not be written "
            f"({cache.fallback_reason}); this run's model replies are kept in "
            f"{outcome.kept_elsewhere} and a rerun of the same command puts them back "
            "first (none is paid again)"
        )
    if cache.failures:
        _say(
            f"warning: {len(cache.failures)} model replies could not be kept in "
            f"{cache.directory} ({cache.failures[0]}); a rerun would send them again"
        )


def _level4(args: argparse.Namespace) -> int | None:
    """``--level4``: split the corpus into OUT.level4.jsonl and point ``args.corpus`` at it;
    the split's exit status, or None when no document could be split (one line said why).
    A missing key is refused first, before any document is split."""
    from ..semantic import SemanticSplitter
    from ._split import split_corpus_into

    if not args.dry_run:
        model = resolve_model(args.model)
        base_urls = {parse_model(model).provider: args.base_url} if args.base_url else None
        probe = ModelClient(timeout=args.timeout, base_urls=base_urls)
        try:
            probe.ready(model)
        finally:
            probe.close()
    level4 = beside(args.output, LEVEL4_SUFFIX)
    status = split_corpus_into(
        args.corpus,
        level4,
        splitter=SemanticSplitter(),
        quiet=args.quiet,
        prefix=f"{PREFIX}Level 4: ",
        include=args.include,
        exclude=args.exclude,
    )
    if not level4.stat().st_size:
        _say(
            f"no document of {args.corpus} could be split (see "
            f"{beside(level4, FAILURES_SUFFIX)}): nothing to chunk"
        )
        return None
    args.corpus = level4
    return status


_Made = TypeVar("_Made")


def _held_line(provider: str, batch_id: str, requests: int) -> str:
    key = provider_module(provider).KEY_ENV_VAR
    return (
        f"the {provider} batch {batch_id} ({requests:,} requests), submitted by an earlier run, "
        f"is not collected by this run: rerun the same command with --batch and {key} set "
        "to collect it; this run sends none "
        "of its requests again (their documents fail until then)"
    )


def _batch_line(note: BatchNote) -> str:
    """The line of a batch an earlier run left (``CorpusRun.settle_batches``)."""
    if note.kind == "forgotten":
        return (
            f"forgot the {note.provider} batch {note.batch_id} ({note.requests:,} requests), "
            "as --forget-batch asks: its requests are sent again and paid again (the batch "
            "is not cancelled: if it still runs at the provider, cancel it there)"
        )
    if note.kind == "unknown":
        return f"--forget-batch {note.batch_id}: the ledger holds no such batch; nothing to forget"
    return _held_line(note.provider, note.batch_id, note.requests)


def _unreachable_line(
    error: BatchUnreachableError, ledger: Ledger, ledger_path: Path, output: Path
) -> str:
    """The one line of a run stopped by a batch it cannot retrieve: the client's account
    (batch, status, what to check), where the work is kept, the way to collect the batch,
    the way to give it up."""
    variable = provider_module(error.provider).URL_ENV_VAR
    kept = f"{output} was left as it was"
    with contextlib.suppress(Exception):  # the ledger may be the thing that failed
        kept += f" and {finished_in_ledger(ledger, ledger_path)}"
    return (
        f"{error}. The base URL is --base-url or {variable}; once it is right, rerun the "
        f"same command to collect the batch ({kept}); to give the batch up and pay for its "
        f"requests again, rerun with --forget-batch {error.batch_id}"
    )


def _opened(thing: _Made | None) -> _Made:
    """``thing``, made before the batch client reports or sends anything (its hooks are
    given before the ledger and the progress bar exist, so that no key means no file)."""
    if thing is None:
        raise RuntimeError("the ledger and the progress bar are made before any batch")
    return thing


def _stopped_line(error: Exception, kept: Path | None) -> str:
    """The one line of a run stopped by its own files (a full disk under OUT, the ledger
    or the reply cache): the problem, where the paid replies are, the way out."""
    line = str(error)  # a LedgerError names its way out: locked, full or damaged
    if kept is not None:
        line += (
            f"; the reply cache was full too: every model reply of this run is kept in {kept}, "
            "and the rerun puts them back first (none is paid again)"
        )
    return line


def _check_batch_options(args: argparse.Namespace) -> None:
    """InputError for an option that does not go with --batch."""
    if args.engine != "local":
        raise InputError("--batch runs on the local engine; leave out --engine ray")
    for option, value in (
        ("--requests-per-minute", args.requests_per_minute),
        ("--tokens-per-minute", args.tokens_per_minute),
    ):
        if value is not None:
            raise InputError(
                f"{option} limits the synchronous requests; a batch is one request to the "
                f"provider: leave out {option} with --batch"
            )


def _plan_lines(plan: CorpusPlan, total: int, name: str, batched: bool) -> list[str]:
    """The dry run's plan, as the lines it prints."""
    aside = [f"{plan.unreadable:,} unreadable, to be listed as failed"] if plan.unreadable else []
    aside += [f"{plan.not_text:,} not text, to be set aside and listed"] if plan.not_text else []
    cost, full = plan.cost_usd, plan.unbatched_cost_usd
    lines = [
        f"plan for {name} (no model called):",
        f"  documents: {total:,}" + (f" ({'; '.join(aside)})" if aside else ""),
        f"  model: {plan.model}",
        f"  extraction batches: {plan.batches:,}; calls: about {plan.calls:,}",
        f"  estimated tokens: {plan.input_tokens:,} in / {plan.output_tokens:,} out",
        "  estimated cost: "
        + ("unknown (no listed price for this model)" if cost is None else f"${cost:.4f}"),
    ]
    if batched and cost is not None and full is not None:
        lines.append(
            f"  through the batch API (--batch): ${cost:.4f} instead of ${full:.4f} "
            f"synchronously, a saving of ${full - cost:.4f}"
        )
    return lines


def _say(line: str) -> None:
    print(redact(f"{PREFIX}{line}"), file=sys.stderr)
