"""``agentic-chunking chunk PATH``: run the live pipeline on a document or a chunk list.

PATH is a ``.txt`` / ``.md`` document or a file without an extension, e.g. ``LICENSE``
(each blank-line separated paragraph is one input chunk, ids ``P0001``, ...) or a
``.json`` / ``.yaml`` list of
``{chunk_id, text}`` objects (extra keys allowed, e.g. a Level 4 splitter's index, offsets
and metadata; a mapping with an ``inputs`` or ``chunks`` list, such as a case file, works
too). Writes ``AgenticResponse.to_dict()`` as JSON to ``-o OUT`` or stdout. Exit status:
0 success, 1 when the response has IsSuccess false (or, with ``--check``, a finding of
the checks is an error), 2 for an input or configuration error,
3 when a model call failed, 130 when interrupted. ``-o OUT`` is checked before any model
call. On a failure, OUT is kept as it was and the failure document (with every
proposition extracted before the failure) goes beside it, to OUT without its suffix plus
``.failed.json`` (``chunks.json`` -> ``chunks.failed.json``), unless
``--on-failure write`` asks for it in OUT.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from .._entry import Terminated
from .._errors import ConfigurationError, InputError, ModelCallError
from .._models import AgenticChunkInput, AgenticResponse
from .._shown import counted, redact, redact_data
from ..client import (
    DEFAULT_MODEL,
    DEFAULT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    MODEL_ENV_VAR,
    TIMEOUT_ENV_VAR,
    deprecation_notice,
    unlisted_notice,
)
from ..pipeline import (
    DEFAULT_EXTRACTION_MAX_TOKENS,
    DEFAULT_GROUPING_MAX_TOKENS,
    DEFAULT_MAX_CHUNK_TOKENS,
    DEFAULT_MAX_CONCURRENCY,
    DEFAULT_MAX_TOKENS_PER_BATCH,
    UNPARSED_SUFFIX,
    PipelineOptions,
    ReplyCache,
    chunk_outcome,
    plan_run,
)
from ._findings import check_after_chunk, check_paths
from ._inputs import read_inputs
from ._io import (
    add_base_url_option,
    cannot_write_in,
    check_output_path,
    int_at_least,
    is_stdin,
    model_id,
    output_path,
    seconds_up_to,
    write_json,
)
from ._progress import RunDisplay
from ._room import Need, cache_bytes, check_room, output_bytes

ON_FAILURE_CHOICES = ("keep", "write")
FAILED_SUFFIX = ".failed.json"
CACHE_SUFFIX = ".replies"


def add_model_options(
    parser: argparse.ArgumentParser, *, concurrency: int, concurrency_help: str
) -> None:
    """The options of every command that calls the pipeline's model (``chunk``, ``corpus``):
    the model, batch and call limits, the provider's URL and the timeout."""
    parser.add_argument(
        "--model",
        type=model_id,
        help=f"model id (default: ${MODEL_ENV_VAR}, else {DEFAULT_MODEL}); openai:NAME for "
        "a model of an OpenAI-compatible server",
    )
    parser.add_argument(
        "--max-tokens-per-batch",
        type=int_at_least(1),
        default=DEFAULT_MAX_TOKENS_PER_BATCH,
        metavar="N",
        help=f"token limit of one extraction batch (default {DEFAULT_MAX_TOKENS_PER_BATCH})",
    )
    parser.add_argument(
        "--max-concurrency",
        type=int_at_least(1),
        default=concurrency,
        metavar="N",
        help=f"{concurrency_help} (default {concurrency})",
    )
    for stage, default in (
        ("extraction", DEFAULT_EXTRACTION_MAX_TOKENS),
        ("grouping", DEFAULT_GROUPING_MAX_TOKENS),
    ):
        parser.add_argument(
            f"--{stage}-max-tokens",
            type=int_at_least(1),
            default=default,
            metavar="N",
            help=f"max_tokens of the {stage} call(s) (default {default})",
        )
    add_base_url_option(parser, role="pipeline")
    parser.add_argument(
        "--timeout",
        type=seconds_up_to(MAX_TIMEOUT_S, named=" (a day)"),
        metavar="SECONDS",
        help=f"seconds one model call may take, per attempt (default ${TIMEOUT_ENV_VAR}, "
        f"else {DEFAULT_TIMEOUT_S:g})",
    )


def pipeline_options(args: argparse.Namespace) -> PipelineOptions:
    """The PipelineOptions the model options (``add_model_options``) and
    ``--max-chunk-tokens`` give: the one record ``chunk`` and ``corpus`` run with."""
    return PipelineOptions(
        model=args.model,
        max_tokens_per_batch=args.max_tokens_per_batch,
        extraction_max_tokens=args.extraction_max_tokens,
        grouping_max_tokens=args.grouping_max_tokens,
        max_chunk_tokens=args.max_chunk_tokens or DEFAULT_MAX_CHUNK_TOKENS,
        max_concurrency=args.max_concurrency,
        timeout=args.timeout,
        base_url=args.base_url,
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``chunk`` subcommand."""
    parser = subparsers.add_parser(
        "chunk",
        help="chunk a document into thematic propositions with a live model",
        description=__doc__.split("\n\n")[1].replace("``", "'"),
    )
    parser.add_argument(
        "path",
        metavar="PATH",
        type=Path,
        help=".txt/.md document (or a file without an extension, e.g. LICENSE) or .json/.yaml "
        "chunk list; - reads a document from stdin",
    )
    parser.add_argument(
        "--document-id",
        help="document id used in chunk ids (default: the file's document_id, or the one "
        "every item of a split output shares, else the file's stem)",
    )
    add_model_options(
        parser,
        concurrency=DEFAULT_MAX_CONCURRENCY,
        concurrency_help="extraction calls in flight at once",
    )
    _add_output_options(parser)
    _add_recovery_options(parser)
    parser.set_defaults(func=run)


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """What the run writes: -o, a plan only (--dry-run), the checks after it, the chunks'
    size limit."""
    parser.add_argument(
        "-o",
        "--output",
        type=output_path,
        metavar="OUT",
        help="write the JSON here (default: stdout)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (batches, grouping windows, estimated tokens and cost) and stop; "
        "no model call, no key needed",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="after a successful run, run the substance checks on the output against PATH "
        "(as 'check OUT --source PATH'): findings in OUT.check.json and OUT.check.html, "
        "exit 1 when one is an error; needs -o",
    )
    parser.add_argument(
        "--max-chunk-tokens",
        type=int_at_least(1),
        metavar="N",
        help="no output chunk above N tokens: a theme above it is written in parts, a single "
        f"proposition above it fails the run (default {DEFAULT_MAX_CHUNK_TOKENS}: what an "
        "embedder reads whole)",
    )


def _add_recovery_options(parser: argparse.ArgumentParser) -> None:
    """What keeps a run's paid work and says what went wrong: the reply cache, --resume,
    quiet, where a failure is written."""
    parser.add_argument(
        "--resume",
        action="store_true",
        help="send no request the reply cache already answered (after a failure or Ctrl-C: "
        "rerun the same command with --resume)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=f"where every model reply is kept, by request hash (default: OUT{CACHE_SUFFIX} "
        "beside -o OUT, else $XDG_CACHE_HOME/agentic-chunking/replies, ~/.cache by default)",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress and no warning list on stderr: only errors and the summary line",
    )
    parser.add_argument(
        "--on-failure",
        choices=ON_FAILURE_CHOICES,
        default="keep",
        help=f"on a failed run, keep OUT as it was and write the failure document beside it "
        f"(-o chunks.json: chunks{FAILED_SUFFIX}; keep, the default), or write it to OUT "
        "(write)",
    )


def run(args: argparse.Namespace) -> int:
    """Chunk ``args.path`` and write the response; return the exit status."""
    if args.document_id is not None and not args.document_id.strip():
        raise InputError(
            "--document-id is empty; give an id for the chunk ids, or leave it out to use "
            "the file's document_id, else its name"
        )
    inputs, file_document_id, metadata = read_inputs(args.path)
    _check_outputs(args)
    stem = "stdin" if is_stdin(args.path) else args.path.stem
    document_id = args.document_id or file_document_id or stem
    oversized = chunk_size_warning(args.max_chunk_tokens)
    if oversized:
        _say(oversized)
    options = pipeline_options(args)
    if args.dry_run:
        _print_plan(args.path, inputs, options)
        return 0
    cache, fresh_cache = _reply_cache(args)
    _check_room(args, inputs, cache, options)
    try:
        return _chunk_and_write(args, inputs, document_id, metadata, options, cache, fresh_cache)
    except (KeyboardInterrupt, Terminated) as stop:  # the stop's one line names --resume
        hint = resume_hint(cache)
        if hint is not None:
            stop.add_note(hint)
        raise


def _chunk_and_write(
    args: argparse.Namespace,
    inputs: list[AgenticChunkInput],
    document_id: str,
    metadata: dict[str, Any],
    options: PipelineOptions,
    cache: ReplyCache,
    fresh_cache: bool,
) -> int:
    """Run the pipeline with the reply cache and write what it gave (the response, or the
    failure document); the exit status. What the cache could not serve or keep is said
    however the run ended."""
    display = RunDisplay(model=options.model_id, prefix=PREFIX, quiet=args.quiet)
    try:
        outcome = chunk_outcome(
            inputs,
            document_id,
            options,
            progress=display.say,
            on_event=display.event,
            cache=cache,
            metadata=metadata,
        )
        if outcome.error is not None:
            raise _stopped(outcome.error, outcome.response, args, cache, display)
    finally:
        display.close()
        _say_rejected(cache)
        _say_unkept(cache)
        if fresh_cache and not cache.stored:
            _remove_if_empty(cache.directory)  # a run stopped before any reply: no litter
    assert outcome.response is not None, "a run that was not stopped has a response"
    if outcome.kind == "failed":
        return _failed(outcome.response, args, cache, display, len(inputs))
    return _done(outcome.response, args, cache, display, inputs)


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any call, an output (or a failure document, or the checks' files)
    that cannot be written or would overwrite the input."""
    check_output_path(args.output, inputs=[args.path])
    if args.output is not None and args.on_failure == "keep":  # where a failure would go
        check_output_path(failure_path(args.output), inputs=[args.path])
    if args.check:
        for target in check_paths(args.output):
            check_output_path(target, inputs=[args.path])


def _print_plan(path: Path, inputs: list[AgenticChunkInput], options: PipelineOptions) -> None:
    """``--dry-run``: the run's plan and the model's notices, on stdout."""
    plan = plan_run(inputs, options)
    model = options.model_id
    notices = [n for n in (unlisted_notice(model), deprecation_notice(model)) if n]
    print("\n".join([f"plan for {path} (no model called):", *plan.lines()]))
    for notice in notices:
        print(f"note: {notice}")


def _stopped(
    error: ModelCallError | ConfigurationError,
    response: AgenticResponse | None,
    args: argparse.Namespace,
    cache: ReplyCache,
    display: RunDisplay,
) -> ModelCallError | ConfigurationError:
    """The error that stops a run whose call failed outright (its exit status): what was
    paid for written as the failure document, and the way to resume said (a 401 keeps
    what a 500 keeps)."""
    display.close()
    if response is not None:
        try:
            _write_failure(response, args.output, args.on_failure)
        except InputError as second:  # the first failure is the one reported
            _say_resume(cache)
            return _then(error, second)
    _say_resume(cache)
    return error


def _failed(
    response: AgenticResponse,
    args: argparse.Namespace,
    cache: ReplyCache,
    display: RunDisplay,
    input_count: int,
) -> int:
    """A run whose output is not valid: the failure document written, exit status 1."""
    display.warnings(response.warnings, _failure_where(args.output, args.on_failure))
    try:
        _write_failure(response, args.output, args.on_failure)
    except InputError as second:  # the run's own failure first, then this one
        _say(f"failed: {response.error_detail}; then {_unwritten(second)}")
        _say_resume(cache)
        return 1
    _say(f"failed: {response.error_detail}")
    _say_resume(cache)
    display.summary(response, _failure_where(args.output, args.on_failure), input_count)
    return 1


def _done(
    response: AgenticResponse,
    args: argparse.Namespace,
    cache: ReplyCache,
    display: RunDisplay,
    inputs: list[AgenticChunkInput],
) -> int:
    """A successful run: the response written (elsewhere, when the disk filled), then the
    checks when ``--check`` asks for them."""
    where = str(args.output) if args.output is not None else "the output on stdout"
    display.warnings(response.warnings, where)
    try:
        write_json(response.to_dict(), args.output)
    except InputError as error:  # the disk filled during the run: the result goes elsewhere
        raise _kept_elsewhere(error, response, cache, args.output) from None
    display.summary(response, f"written to {where}", len(inputs))
    if args.check:
        return check_after_chunk(response, inputs, args.output, source_name=str(args.path))
    return 0


def _say_unkept(cache: ReplyCache) -> None:
    """Replies that could not be stored are never dropped without a word."""
    if cache.fallback is not None:
        _say(
            f"warning: the reply cache {cache.directory} could not be written "
            f"({cache.fallback_reason}); the {cache.replies_this_run} model replies of this "
            f"run are in {cache.fallback}: rerun with --resume --cache-dir {cache.fallback} "
            "to pay for none of them again"
        )
    if cache.failures:
        _say(
            f"warning: {len(cache.failures)} model replies could not be kept in "
            f"{cache.directory} ({cache.failures[0]}); --resume would send them again"
        )


def _check_room(
    args: argparse.Namespace,
    inputs: list[AgenticChunkInput],
    cache: ReplyCache,
    options: PipelineOptions,
) -> None:
    """Refuse, before any call, a run whose output or reply cache has no room (statvfs)."""
    plan = plan_run(inputs, options)
    needs = [Need("the reply cache", cache.directory, cache_bytes(plan), "--cache-dir")]
    if args.output is not None:
        needs.insert(0, Need("the output", args.output.parent, output_bytes(plan), "-o"))
    check_room(needs)


def _kept_elsewhere(
    error: InputError, response: AgenticResponse, cache: ReplyCache, output: Path | None
) -> InputError:
    """The one error line when the result could not be written: the result and every reply
    of the run saved in the reply cache's fallback folder, named with the way back."""
    name = output.name if output is not None else "output.json"
    text = json.dumps(response.to_dict(), indent=2, ensure_ascii=False) + "\n"
    try:
        saved = cache.keep_elsewhere(name, text, str(error))
    except OSError as failure:
        return InputError(
            f"{error}; nor could the result be saved in a temporary folder "
            f"({failure.strerror or failure}): rerun with --resume once there is room"
        )
    return InputError(
        f"{error}; the result and the {cache.replies_this_run} model replies of this run "
        f"were saved in {saved.parent}: copy {saved} into place, or rerun with --resume "
        f"--cache-dir {saved.parent} to pay for none of them again"
    )


def _unwritten(second: InputError) -> str:
    """The second failure, said after the first: the failure document was not written."""
    return f"the failure document could not be written either: {second}"


def _then(
    first: ModelCallError | ConfigurationError, second: InputError
) -> ModelCallError | ConfigurationError:
    """``first`` (its kind, so its exit status) with ``second`` named after it in one line."""
    message = f"{first}; then {_unwritten(second)}"
    if isinstance(first, ModelCallError):
        error: ModelCallError | ConfigurationError = ModelCallError(
            message, stage=first.stage, batch=first.batch
        )
    else:
        error = ConfigurationError(message)
    error.response = first.response
    return error


def _say_rejected(cache: ReplyCache) -> None:
    """Cache entries that failed verification were not served: say how many, and why."""
    if cache.rejected:
        _say(
            f"warning: {len(cache.rejected)} entries of the reply cache {cache.directory} "
            f"failed verification and were ignored (first: {cache.rejected[0]}); their "
            "requests were sent again"
        )


def resume_hint(cache: ReplyCache) -> str | None:
    """After a failure or a stop (Ctrl-C, SIGTERM): where the run's replies are kept and
    how to reuse them (``--resume``); None when the reply cache kept none of this run (then
    no cache is left for the output) or they went to a fallback folder (``_say_unkept``
    names it)."""
    kept = cache.stored + cache.hits
    if not kept or cache.fallback is not None:
        return None
    aside = cache.set_aside_count
    unparsed = (
        f" ({aside} that could not be parsed set aside as *{UNPARSED_SUFFIX}: "
        "--resume asks for them again)"
        if aside
        else ""
    )
    resent = "the others" if aside else "them"
    return (
        f"the {counted(kept, 'model reply', 'model replies')} of this run "
        f"{'is' if kept == 1 else 'are'} kept in {cache.directory}{unparsed}: rerun the same "
        f"command with --resume to send none of {resent} again"
    )


def _say_resume(cache: ReplyCache) -> None:
    """After a failure: where the replies went and how to reuse them (when there are any)."""
    hint = resume_hint(cache)
    if hint is not None:
        _say(hint)


def cache_dir(output: Path | None, given: Path | None) -> Path:
    """Where the replies are kept: ``--cache-dir``, else ``OUT.replies`` beside OUT, else
    the user cache directory (``$XDG_CACHE_HOME``, else ``~/.cache``) under
    ``agentic-chunking/replies``; the files are named by request hash, so runs may share it."""
    if given is not None:
        return given
    if output is None:
        root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(root) / "agentic-chunking" / "replies"
    return output.with_name(output.stem + CACHE_SUFFIX)


def _reply_cache(args: argparse.Namespace) -> tuple[ReplyCache, bool]:
    """The run's reply cache, its directory created and checked writable before any call,
    and whether this run created that directory."""
    directory = cache_dir(args.output, args.cache_dir)
    fresh = not directory.exists()
    return open_reply_cache(directory, read=args.resume, resume=args.resume), fresh


def open_reply_cache(directory: Path, *, read: bool, resume: bool = False) -> ReplyCache:
    """The reply cache in ``directory``, created and checked writable before any call
    (``chunk``, ``corpus``); InputError naming the way out when it is not a directory, is
    missing for ``resume`` (``--resume``), or cannot be written."""
    if directory.exists() and not directory.is_dir():
        raise InputError(
            f"the reply cache {directory} is not a directory; give another with --cache-dir"
        )
    if resume and not directory.is_dir():
        raise InputError(
            f"--resume: there is no reply cache at {directory} (nothing was kept from an "
            "earlier run with this output); run without --resume, or give --cache-dir"
        )
    reason = cannot_write_in(directory, make=True)
    if reason is not None:
        raise InputError(
            f"cannot write the reply cache in {directory} ({reason}); give a writable "
            "directory with --cache-dir"
        )
    return ReplyCache(directory, read=read)


def _remove_if_empty(directory: Path) -> None:
    """Remove ``directory`` if it holds nothing (never a file of anyone's)."""
    with contextlib.suppress(OSError):  # not empty, or already gone: leave it
        directory.rmdir()


def _failure_where(output: Path | None, on_failure: str) -> str:
    if output is None:
        return "the failure document on stdout"
    return str(output if on_failure == "write" else failure_path(output))


PREFIX = "agentic-chunking chunk: "


def _say(line: str) -> None:
    print(redact(f"{PREFIX}{line}"), file=sys.stderr)


def chunk_size_warning(limit: int | None) -> str | None:
    """The one line a command says when its output chunk limit (``--max-chunk-tokens``) is
    over what the evaluated embedder reads (all-MiniLM-L6-v2, ``evaluate``'s default and
    Level 4's); None when it is not (the default never is)."""
    if limit is None:
        return None
    from ..semantic import MiniLMEmbedder

    window = MiniLMEmbedder.max_seq_length
    if limit <= window:
        return None
    return (
        f"warning: --max-chunk-tokens {limit:,} is over {window}: all-MiniLM-L6-v2, the "
        f"embedder of 'evaluate' and 'split', reads the first {window} word pieces of a "
        f"chunk (about {window} tokens) and never embeds the rest; keep {limit:,} only for "
        "an embedder that reads it whole"
    )


def failure_path(output: Path) -> Path:
    """Where ``--on-failure keep`` puts the failure document: beside OUT, its name without
    the suffix plus ``.failed.json`` (``chunks.json`` -> ``chunks.failed.json``)."""
    return output.with_name(output.stem + FAILED_SUFFIX)


def _write_failure(response: AgenticResponse, output: Path | None, on_failure: str) -> None:
    """Write a failed run's document where ``--on-failure`` says, and say where it went.

    The document is redacted (``redact_data``): an error echoed by a server never carries
    a key into it."""
    kept = sum(len(batch.propositions) for batch in response.extracted)
    saved = f" (with the {kept} propositions extracted before the failure)" if kept else ""
    document = redact_data(response.to_dict())
    if output is None or on_failure == "write":
        write_json(document, output)
        if output is not None:
            _say(f"the failure document{saved} was written to {output}")
        return
    target = failure_path(output)
    write_json(document, target)
    before = "kept as it was" if output.exists() else "not written"
    _say(
        f"{output} was {before}; the failure document{saved} is in {target} "
        "(--on-failure write puts it in the output instead)"
    )
