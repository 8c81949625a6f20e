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
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from .._entry import Terminated
from .._errors import ConfigurationError, InputError, ModelCallError
from .._files import remove_stale_temps
from .._shown import redact
from ..client import (
    API_KEY_ENV_VAR,
    BASE_URL_ENV_VAR,
    DEFAULT_POLL_INTERVAL_S,
    FALLBACKS,
    OPENAI,
    OPENAI_API_KEY_ENV_VAR,
    OPENAI_BASE_URL_ENV_VAR,
    BatchClient,
    BatchProgress,
    BatchUnreachableError,
    ModelClient,
    ModelReply,
    RequestLimits,
    batch_custom_id,
    chat_body,
    message_params,
    parse_model,
    resolve_model,
)
from ..corpus import (
    NOT_TEXT,
    CorpusSettings,
    DocumentResult,
    Ledger,
    LedgerError,
    OutputWriter,
    RunLock,
    check_output_suffix,
    chunk_corpus,
    mark_fallback,
    open_corpus,
    take_back,
)
from ..pipeline import DEFAULT_MAX_CHUNK_TOKENS, plan_run
from ._chunk import CACHE_SUFFIX, add_model_options, chunk_size_warning, open_reply_cache
from ._io import (
    FAILURES_SUFFIX,
    LEDGER_SUFFIX,
    add_selection_options,
    beside,
    check_output_path,
    check_outside,
    int_at_least,
    output_path,
    publish_failures,
    resume_line,
    seconds_up_to,
)
from ._progress import Heartbeat, _is_terminal

PREFIX = "agentic-chunking corpus: "
LEVEL4_SUFFIX = ".level4.jsonl"
"""With --level4: the Level 4 records beside OUT (its ledger beside them)."""
DEFAULT_CORPUS_CONCURRENCY = 16
ENGINES = ("local", "ray")
DEFAULT_BATCH_DOCUMENTS = 1000
BATCH_CONCURRENCY = 1000
"""With --batch, the requests of one document that may wait at once: all its extraction
batches go into the same round."""

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
    output: Path = args.output
    check_output_suffix(output)
    if args.cache_dir is not None:
        check_outside(args.cache_dir, args.corpus, option="--cache-dir")
    level4_status = _level4(args) if args.level4 else 0  # args.corpus: its Level 4 records
    if level4_status is None:
        return 1
    source = open_corpus(args.corpus, include=args.include, exclude=args.exclude)
    ledger_path = args.ledger or beside(output, LEDGER_SUFFIX)
    failures_path = beside(output, FAILURES_SUFFIX)
    inputs = [args.corpus]  # a file, or a folder OUT must lie outside of
    for target, option in ((output, "-o"), (failures_path, "-o"), (ledger_path, "--ledger")):
        check_output_path(target, inputs=inputs, option=option)
    scan = source.scan()  # a bad record or a duplicate id: refused before any call
    model = resolve_model(args.model)
    settings = CorpusSettings(
        model=model,
        max_tokens_per_batch=args.max_tokens_per_batch,
        extraction_max_tokens=args.extraction_max_tokens,
        grouping_max_tokens=args.grouping_max_tokens,
        max_chunk_tokens=args.max_chunk_tokens or DEFAULT_MAX_CHUNK_TOKENS,
    )
    settings.check()  # a max_tokens no call may ask for: the run's fault, before any file
    oversized = chunk_size_warning(args.max_chunk_tokens)
    if oversized:
        _say(oversized)
    if args.batch:
        _check_batch_options(args)
    if args.dry_run:
        _print_plan(
            source.documents(), settings, len(scan.document_ids), str(args.corpus), args.batch
        )
        return level4_status
    base_urls = {parse_model(model).provider: args.base_url} if args.base_url else None
    ledger: Ledger | None = None
    tally: _Tally | None = None
    client: ModelClient
    if args.batch:
        client = BatchClient(
            timeout=args.timeout,
            base_urls=base_urls,
            poll_interval_s=args.batch_poll,
            fallback=args.batch_fallback,
            on_submitted=lambda *batch: _opened(ledger).add_batch(*batch),
            progress=lambda shown: _opened(tally).batch(shown),
        )
    else:
        limits = RequestLimits(
            max_in_flight=args.max_concurrency,
            requests_per_minute=args.requests_per_minute,
            tokens_per_minute=args.tokens_per_minute,
        )
        client = _SyncClient(timeout=args.timeout, base_urls=base_urls, limits=limits)
    lock = RunLock(ledger_path)
    try:
        client.ready(model)  # no key or a bad URL: refused before any file or bar is made
        try:
            lock.acquire()  # a second run on this OUT: refused before any call
        except LedgerError as error:
            raise InputError(str(error)) from None
        cache_path = args.cache_dir or beside(output, CACHE_SUFFIX)
        cache = open_reply_cache(cache_path, read=True)  # content-addressed: nothing paid twice
        take_back(cache.directory)  # the replies a run kept elsewhere when this disk was full
        try:
            ledger = Ledger(ledger_path)
        except LedgerError as error:
            raise InputError(str(error)) from None
        tally = _Tally(total=len(scan.document_ids), quiet=args.quiet, batched=args.batch)
        for provider, batch_id, custom_ids in _forget(ledger, args.forget_batch):
            if isinstance(client, BatchClient) and _configured(client, provider):
                client.attach(provider, {batch_id: custom_ids})
            else:  # not collected by this run: named, and its requests never sent again
                _say(_held_line(provider, batch_id, len(custom_ids)))
                if isinstance(client, _SyncClient):
                    client.held.update(dict.fromkeys(custom_ids, (provider, batch_id)))
    except BaseException:
        client.close()
        lock.release()
        if ledger is not None:
            ledger.close()
        if tally is not None:
            tally.close()
        raise
    for target in (output, failures_path):  # what a run killed mid-write left beside OUT
        remove_stale_temps(target)
    started = time.monotonic()
    try:
        results: Generator[DocumentResult]
        if args.engine == "ray":
            from ..corpus._ray import ray_results

            results = ray_results(
                source,
                settings,
                positions={d: n for n, d in enumerate(scan.document_ids)},
                cache_dir=cache.directory,
                ledger_path=ledger_path,
                max_concurrency=args.max_concurrency,
                base_url=args.base_url,
                timeout=args.timeout,
            )
        else:
            results = chunk_corpus(
                source.documents(),
                settings,
                client=client,
                cache=cache,
                ledger=ledger,
                max_documents=args.batch_documents if args.batch else args.max_concurrency,
                max_concurrency=BATCH_CONCURRENCY if args.batch else args.max_concurrency,
            )
        try:
            written = _write(results, output, failures_path, tally, ledger_path)
        finally:  # the documents in flight finish (their replies kept) before the client closes
            results.close()
        for provider, batch_id in tally.ended_batches:  # every reply is in the cache now
            ledger.remove_batch(provider, batch_id)
    except (KeyboardInterrupt, Terminated):
        tally.close()
        _say(resume_line(ledger, ledger_path, output))
        raise
    except BatchUnreachableError as error:  # a proxy that loses batches: nothing sent again
        tally.close()
        raise ConfigurationError(_unreachable_line(error, ledger, ledger_path, output)) from None
    except (InputError, LedgerError) as error:  # a full disk under OUT or the ledger
        tally.close()
        raise InputError(_stopped_line(error, mark_fallback(cache))) from None
    except Exception:
        tally.close()
        _say(resume_line(ledger, ledger_path, output))
        raise
    finally:
        client.close()
        ledger.close()
        lock.release()
        mark_fallback(cache)  # a rerun finds the replies kept elsewhere, however this ends
    tally.close()
    kept_elsewhere = mark_fallback(cache)
    _say(tally.summary(written, output, failures_path, time.monotonic() - started, scan.left_out))
    if tally.set_aside:
        _say(tally.set_aside_line(failures_path))
    if kept_elsewhere is not None:
        _say(
            f"warning: the reply cache {cache.directory} could not be written "
            f"({cache.fallback_reason}); this run's model replies are kept in {kept_elsewhere} "
            "and a rerun of the same command puts them back first (none is paid again)"
        )
    if cache.failures:
        _say(
            f"warning: {len(cache.failures)} model replies could not be kept in "
            f"{cache.directory} ({cache.failures[0]}); a rerun would send them again"
        )
    return 1 if tally.counts["failed"] or level4_status else 0


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


class _SyncClient(ModelClient):
    """The synchronous client of a corpus run, which never sends a request that is in a
    batch an earlier run submitted and this run does not collect (``held``: custom_id ->
    (provider, batch id)): that call fails its document, naming the batch, instead of
    paying for the request a second time."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.held: dict[str, tuple[str, str]] = {}

    def call(self, **request: Any) -> ModelReply:
        if self.held:
            ref = parse_model(request["model"])
            shape = chat_body if ref.provider == OPENAI else message_params
            body = shape(
                model=ref.name,
                system=request["system"],
                messages=request["messages"],
                max_tokens=request["max_tokens"],
            )
            found = self.held.get(batch_custom_id(ref.provider, body))
            if found is not None:
                raise ModelCallError(
                    f"this {request['stage']} request is in the {found[0]} batch {found[1]} an "
                    "earlier run submitted, not sent again: rerun with --batch (and that "
                    "provider's key) to collect its results",
                    stage=request["stage"],
                    batch=request["batch"],
                )
        reply: ModelReply = super().call(**request)
        return reply


def _configured(client: BatchClient, provider: str) -> bool:
    """Whether ``client`` can reach ``provider`` (its key and base URL are set)."""
    try:
        client.sdk(provider)
    except ConfigurationError:
        return False
    return True


def _held_line(provider: str, batch_id: str, requests: int) -> str:
    key = OPENAI_API_KEY_ENV_VAR if provider == OPENAI else API_KEY_ENV_VAR
    return (
        f"the {provider} batch {batch_id} ({requests:,} requests), submitted by an earlier run, "
        f"is not collected by this run: rerun the same command with --batch and {key} set "
        "to collect it; this run sends none "
        "of its requests again (their documents fail until then)"
    )


def _forget(ledger: Ledger, forget: list[str]) -> list[tuple[str, str, list[str]]]:
    """The batches the ledger holds, less those ``--forget-batch`` names, which are removed
    from it (each said in one line: its requests are sent and paid again). An id the
    ledger does not hold is said too (a rerun of the same command forgot it already)."""
    kept = []
    held = list(ledger.batches())
    for provider, batch_id, custom_ids in held:
        if batch_id not in forget:
            kept.append((provider, batch_id, custom_ids))
            continue
        ledger.remove_batch(provider, batch_id)
        _say(
            f"forgot the {provider} batch {batch_id} ({len(custom_ids):,} requests), as "
            "--forget-batch asks: its requests are sent again and paid again (the batch is "
            "not cancelled: if it still runs at the provider, cancel it there)"
        )
    for batch_id in sorted(set(forget) - {b for _, b, _ in held}):
        _say(f"--forget-batch {batch_id}: the ledger holds no such batch; nothing to forget")
    return kept


def _unreachable_line(
    error: BatchUnreachableError, ledger: Ledger, ledger_path: Path, output: Path
) -> str:
    """The one line of a run stopped by a batch it cannot retrieve: the client's account
    (batch, status, what to check), where the work is kept, the way to collect the batch,
    the way to give it up."""
    variable = OPENAI_BASE_URL_ENV_VAR if error.provider == OPENAI else BASE_URL_ENV_VAR
    kept = f"{output} was left as it was"
    with contextlib.suppress(Exception):  # the ledger may be the thing that failed
        done = ledger.counts().get("done", 0)
        kept += f" and the {done} finished documents are in the ledger {ledger_path}"
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


def _write(
    results: Iterator[DocumentResult],
    output: Path,
    failures_path: Path,
    tally: _Tally,
    ledger_path: Path,
) -> int:
    """Write every result's records to OUT and every failure to OUT.failures.jsonl, each
    atomically; return the number of records written."""
    try:
        with OutputWriter(output) as chunks, OutputWriter(failures_path) as failures:
            for result in results:
                tally.add(result)
                for record in result.records:
                    chunks.write(record)
                if result.status == "failed":
                    failures.write(result.failure_record())
            chunks.commit()
            publish_failures(failures, failures_path)
        return chunks.written
    except OSError as error:
        raise InputError(
            f"cannot write {error.filename or output} ({error.strerror or error}); the chunks "
            f"of every finished document are kept in the ledger {ledger_path}: free room "
            "and rerun the same command (no finished document is chunked again)"
        ) from None


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


def _print_plan(
    documents: Any, settings: CorpusSettings, total: int, name: str, batched: bool
) -> None:
    batches = calls = tokens_in = tokens_out = 0
    cost: float | None = 0.0
    full: float | None = 0.0
    failed = not_text = 0
    for document in documents:
        if document.error is not None:
            not_text += document.error_kind == NOT_TEXT
            failed += document.error_kind != NOT_TEXT
            continue
        plan = plan_run(
            document.inputs,
            model=settings.model,
            max_tokens_per_batch=settings.max_tokens_per_batch,
            grouping_max_tokens=settings.grouping_max_tokens,
            extraction_max_tokens=settings.extraction_max_tokens,
            batched=batched,
        )
        unbatched = plan.listed_cost_usd if batched else plan.estimated_cost_usd
        full = None if full is None or unbatched is None else full + unbatched
        batches += plan.batches
        calls += plan.batches + plan.grouping_windows + (1 if plan.grouping_windows > 1 else 0)
        tokens_in += plan.estimated_input_tokens
        tokens_out += plan.estimated_output_tokens
        cost = (
            None
            if cost is None or plan.estimated_cost_usd is None
            else cost + plan.estimated_cost_usd
        )
    aside = [f"{failed:,} unreadable, to be listed as failed"] if failed else []
    aside += [f"{not_text:,} not text, to be set aside and listed"] if not_text else []
    lines = [
        f"plan for {name} (no model called):",
        f"  documents: {total:,}" + (f" ({'; '.join(aside)})" if aside else ""),
        f"  model: {settings.model}",
        f"  extraction batches: {batches:,}; calls: about {calls:,}",
        f"  estimated tokens: {tokens_in:,} in / {tokens_out:,} out",
        "  estimated cost: "
        + ("unknown (no listed price for this model)" if cost is None else f"${cost:.4f}"),
    ]
    if batched and cost is not None and full is not None:
        lines.append(
            f"  through the batch API (--batch): ${cost:.4f} instead of ${full:.4f} "
            f"synchronously, a saving of ${full - cost:.4f}"
        )
    print("\n".join(lines))


class _Tally:
    """Documents done of total, tokens and cost so far, and the run's summary line.

    On a terminal, a tqdm bar on stderr, with an ETA except under ``--batch`` (``batched``:
    the documents end in bursts, when a round's batch does, so their rate says nothing of
    the hours a batch may take). Off a terminal (a log, a pipe, CI), a Heartbeat: a plain
    line with the same figures at least every PROGRESS_EVERY_S seconds, whether or not a
    document finished meanwhile. Nothing when ``quiet``."""

    def __init__(
        self,
        *,
        total: int,
        quiet: bool,
        batched: bool = False,
        stream: IO[str] | None = None,
    ) -> None:
        from tqdm import tqdm

        self.counts = {"done": 0, "skipped": 0, "failed": 0}
        self.set_aside: list[str] = []
        """The documents that are files of no text (``not_text``): listed, not failed."""
        self.calls = self.cached = self.tokens_in = self.tokens_out = 0
        self.cost: float | None = 0.0
        self._total = total
        self._batches: dict[str, BatchProgress] = {}
        self._lock = threading.Lock()
        stream = stream if stream is not None else sys.stderr
        terminal = _is_terminal(stream)
        self._bar = tqdm(
            total=total,
            unit="doc",
            disable=quiet or not terminal,
            file=stream,
            dynamic_ncols=True,
            desc="documents",
            bar_format=NO_ETA_BAR if batched else None,
        )
        self._beat = Heartbeat(PREFIX, stream=stream, quiet=quiet or terminal).__enter__()
        self._beat.status(self._status())

    def _status(self) -> str:
        """The figures so far, in words (the Heartbeat's line)."""
        finished = sum(self.counts.values()) + len(self.set_aside)
        c = self.counts
        with self._lock:
            states = list(self._batches.values())
        batches = ""
        if states:
            answered = sum(p.succeeded + p.errored + p.canceled + p.expired for p in states)
            waiting = sum(p.status not in ("ended", "unreachable") for p in states)
            batches = (
                f"; batches: {answered:,} of {sum(p.requests for p in states):,} requests "
                f"answered, {waiting:,} in flight"
            )
        return (
            f"{finished:,} of {self._total:,} documents ({c['done']:,} done, {c['skipped']:,} "
            f"skipped, {c['failed']:,} failed); {self.tokens_in:,} in / {self.tokens_out:,} "
            f"out tokens{self._cost_text()}{batches}"
        )

    def add(self, result: DocumentResult) -> None:
        if result.status == "failed" and not result.is_failure:
            self.set_aside.append(result.document_id)
        else:
            self.counts[result.status] += 1
        self.calls += len(result.calls)
        self.cached += sum(1 for c in result.calls if c.cached)
        self.tokens_in += result.input_tokens
        self.tokens_out += result.output_tokens
        if self.cost is not None:
            self.cost = None if result.cost_usd is None else self.cost + result.cost_usd
        self._bar.set_postfix_str(
            f"{self.tokens_in:,} in / {self.tokens_out:,} out tokens{self._cost_text()}",
            refresh=False,
        )
        self._bar.update(1)
        self._beat.status(self._status())

    def batch(self, progress: BatchProgress) -> None:
        """A batch's state (from the batch client's thread): the bar shows the requests
        answered of those in batches."""
        with self._lock:
            self._batches[progress.batch_id] = progress
            states = list(self._batches.values())
        answered = sum(p.succeeded + p.errored + p.canceled + p.expired for p in states)
        self._bar.set_postfix_str(
            f"batches: {answered:,} of {sum(p.requests for p in states):,} requests answered"
        )
        self._beat.status(self._status())

    @property
    def ended_batches(self) -> list[tuple[str, str]]:
        """(provider, batch id) of each batch that ended (an unreachable one stays in the
        ledger: only ``--forget-batch`` gives it up)."""
        with self._lock:
            return [(p.provider, p.batch_id) for p in self._batches.values() if p.status == "ended"]

    def _cost_text(self) -> str:
        return "" if self.cost is None else f", ${self.cost:.4f}"

    def close(self) -> None:
        self._bar.close()
        self._beat.__exit__(None, None, None)

    def summary(
        self, written: int, output: Path, failures: Path, seconds: float, left_out: int = 0
    ) -> str:
        c = self.counts
        reused = f" ({self.cached:,} from the reply cache, not paid again)" if self.cached else ""
        failed = f"; failures in {failures}" if c["failed"] else ""
        aside = f", {len(self.set_aside):,} not text (set aside)" if self.set_aside else ""
        total = sum(c.values()) + len(self.set_aside)
        left = f" ({left_out:,} left out by --include/--exclude)" if left_out else ""
        return (
            f"{c['done']:,} done, {c['skipped']:,} skipped (done before), {c['failed']:,} failed"
            f"{aside} of {total:,} documents{left}; {self.calls:,} calls{reused}, "
            f"{self.tokens_in:,} in / {self.tokens_out:,} out tokens{self._cost_text()}; "
            f"{written:,} chunks written to {output} in {seconds:.1f} s{failed}"
        )

    def set_aside_line(self, failures: Path) -> str:
        """The summary's own line for the files that are not text (they fail no run)."""
        names = ", ".join(self.set_aside[:3]) + (", ..." if len(self.set_aside) > 3 else "")
        count = len(self.set_aside)
        return (
            f"{count:,} {'file is' if count == 1 else 'files are'} not text (binary, compressed, "
            f"not UTF-8 or empty) and set aside, not failed: {names}; listed in {failures} "
            f"(error_kind not_text); leave {'it' if count == 1 else 'them'} out with --exclude"
        )


NO_ETA_BAR = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
"""The ``--batch`` bar: tqdm's own, less the ETA and the rate (see _Tally)."""


def _say(line: str) -> None:
    print(redact(f"{PREFIX}{line}"), file=sys.stderr)
