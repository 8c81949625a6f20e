"""What every command of the command line reads, writes and parses the same way."""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from .._files import decode_text, write_text_atomic
from .._shown import counted
from ..corpus import publish_failures as publish_failures

if TYPE_CHECKING:
    from ..corpus import Ledger

STDIN = Path("-")
LEDGER_SUFFIX = ".ledger.sqlite"
"""A run's ledger of finished documents beside OUT (``corpus``, ``split`` of a corpus)."""
FAILURES_SUFFIX = ".failures.jsonl"
"""The failed documents of a run beside OUT, when one failed."""
"""The path that names standard input, as for any shell tool (``chunk -``, ``split -``)."""


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    """``--include``/``--exclude GLOB`` (repeatable), for every command that reads a corpus:
    give ``args.include`` and ``args.exclude`` to ``open_corpus``."""
    parser.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="only the documents whose path under IN (or id) matches GLOB; a GLOB without '/' "
        "matches a file's name at any depth ('*.md'), one with '/' the path ('notes/**/*.txt'); "
        "repeat for more",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out the documents matching GLOB (as --include; e.g. '*.gz'); repeat for more",
    )


def beside(output: Path, suffix: str) -> Path:
    """A file beside OUT: its name without the suffix, plus ``suffix``."""
    return output.with_name(output.stem + suffix)


def resume_line(
    ledger: Ledger, ledger_path: Path, output: Path, *, configuration: bool = False
) -> str:
    """What a corpus run stopped half-way says: OUT as it was, and the finished documents
    kept in the ledger for the rerun. After a ``configuration`` error (a model or key the
    server refused) the same command would stop again: the rerun is named as the one after
    that is fixed (the error's own line says how)."""
    with contextlib.suppress(Exception):  # the ledger may be the thing that failed
        kept = finished_in_ledger(ledger, ledger_path)
        rerun = (
            "once the model or key is fixed, a rerun resumes from there (no finished "
            "document is chunked again)"
            if configuration
            else "rerun the same command to go on from there"
        )
        return f"{output} was left as it was; {kept}: {rerun}"
    return f"{output} was left as it was"


def finished_in_ledger(ledger: Ledger, ledger_path: Path) -> str:
    """The words "the N finished documents are in the ledger L" (singular for one);
    raises what the ledger raises when it cannot be read."""
    done = ledger.counts().get("done", 0)
    verb = "is" if done == 1 else "are"
    return f"the {counted(done, 'finished document')} {verb} in the ledger {ledger_path}"


def is_stdin(path: Path) -> bool:
    """True when ``path`` is ``-``: read standard input."""
    return str(path) == "-"


def read_text_file(path: Path, *, give: str | None = None) -> str:
    """Return the text of ``path`` (UTF-8, a BOM removed, line endings kept); ``-`` reads
    standard input.

    Raises InputError, naming the file and the way out, when it is missing, a directory,
    unreadable, not UTF-8, or empty; ``give`` names what the command takes ("the JSON
    'chunk' writes") in the way out of a directory or an empty file (default: a text
    document).
    """
    from_stdin = is_stdin(path)
    if from_stdin:
        path = Path("stdin")  # how messages name it
    try:
        raw = sys.stdin.buffer.read() if from_stdin else path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; check the path") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory; give {give or 'a text file'}") from None
    except OSError as error:
        raise InputError(f"{path}: cannot be read ({error.strerror})") from None
    return decode_text(raw, str(path), give=give)


def model_id(value: str) -> str:
    """argparse type of every model option: an id, never empty (an empty ``--model ''``
    used to become the default silently)."""
    if not value.strip():
        raise argparse.ArgumentTypeError(
            "an empty model id; give one (e.g. claude-sonnet-4-6 or openai:NAME), or leave "
            "the option out for its default"
        )
    return value.strip()


def check_output_path(
    output: Path | None,
    *,
    inputs: Sequence[Path],
    make_directory: bool = False,
    option: str = "-o",
) -> None:
    """Raise InputError unless ``output`` can be written and is none of ``inputs``.

    Called before any work (and any paid model call): the directory must exist (or is
    created, with ``make_directory``) and accept a new file (probed by creating and
    removing a temporary file, which catches a read-only file system and permissions
    alike); ``output`` must not be a directory, a device or pipe (the rename would replace
    it), nor the input, nor inside an input folder. None (stdout) is fine. Messages name
    the path by ``option``, the flag that gave it (``-o``, ``--json``, ``--html``).
    """
    if output is None:
        return
    _check_replaceable(output, option)
    for source in inputs:
        if output.exists() and source.exists() and output.samefile(source):
            raise InputError(
                f"{option} {output} is the input file {source}: writing would replace it; "
                "choose another output path"
            )
        check_outside(output, source, option=option)
    directory = output.parent
    if make_directory:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(
                f"{option} {output}: cannot create the directory {directory} ({error.strerror}); "
                "choose another path"
            ) from None
    if not directory.is_dir():
        raise InputError(
            f"{option} {output}: the directory {directory} does not exist; create it or choose "
            "another path"
        )
    reason = cannot_write_in(directory)
    if reason is not None:
        raise InputError(
            f"{option} {output}: cannot write in {directory} ({reason}); choose a writable "
            "directory"
        )


def _check_replaceable(output: Path, option: str) -> None:
    """Raise InputError unless ``output`` is a regular file or nothing yet: not a dangling
    symbolic link, a directory, a device or a pipe (which the atomic rename would replace)."""
    if output.is_symlink() and not output.exists():
        raise InputError(
            f"{option} {output} is a symbolic link to {os.readlink(output)}, which does not exist: "
            "the result could not be written through it. Remove the link or choose another "
            "output path"
        )
    if output.is_dir():
        example = "page.html" if option == "--html" else "out.json"
        raise InputError(
            f"{option} {output} is a directory; give a file path, e.g. {output}/{example}"
        )
    if output.exists() and not output.is_file():
        raise InputError(
            f"{option} {output} is not a regular file (a device or a pipe), which a file written "
            f"atomically would replace; leave out {option} (or give a file path)"
        )


def check_outside(path: Path, source: Path, *, option: str) -> None:
    """Raise InputError when ``path`` lies inside the input folder ``source`` (a file
    ``source`` contains nothing): what is written there would replace a document or be read
    as one by the next run, and paid for."""
    if source.is_dir() and path.resolve().is_relative_to(source.resolve()):
        raise InputError(
            f"{option} {path} is inside the input folder {source}: it would replace a "
            "document or be read as one by the next run; choose a path outside the folder"
        )


def check_distinct_outputs(outputs: Sequence[tuple[str, Path | None]]) -> None:
    """Raise InputError when two options (``(option, path)`` pairs; None is stdout or not
    given) name the same file: the second write would replace the first."""
    seen: dict[Path, str] = {}
    for option, path in outputs:
        if path is None:
            continue
        same = path.resolve()
        if same in seen:
            raise InputError(
                f"{seen[same]} and {option} both name {path}: the second would overwrite the "
                f"first; give {option} another file"
            )
        seen[same] = option


def cannot_write_in(directory: Path, *, make: bool = False) -> str | None:
    """Why no new file can be written in ``directory`` (the OS's reason), or None when one
    can: probed by creating and removing a temporary file there, which catches a read-only
    file system and permissions alike. With ``make`` the directory (and its parents) is
    created first."""
    try:
        if make:
            directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        return str(error.strerror or error)
    return None


def write_output_text(text: str, output: Path) -> None:
    """Write ``text`` to ``output`` atomically; InputError naming the path if that fails.

    On any failure (full disk, read-only file system) the previous file is kept whole.
    """
    try:
        write_text_atomic(output, text)
    except OSError as error:
        raise InputError(
            f"cannot write {output}: {error.strerror or error}; the previous file, if any, is "
            "unchanged. Free some space or choose a writable path with -o"
        ) from None


def write_json(data: Any, output: Path | None) -> None:
    """Write ``data`` as indented UTF-8 JSON to ``output``, or to stdout when it is None."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        write_stdout(text)  # a reader that went away fails here, before any word of success
        return
    write_output_text(text, output)


def write_stdout(text: str) -> None:
    """Write ``text`` whole to stdout and flush, or raise BrokenPipeError (``main`` makes it
    exit 141, silently) when stdout's reader went away before taking all of it.

    A pipe whose reader leaves during one large write takes part of it without an error,
    and Python's buffered writer then drops the rest without a word (``split DOC | head -1``
    exited 0): so the bytes are handed over until every one is taken, and the write after
    a partial one meets the closed pipe (EPIPE)."""
    sys.stdout.flush()
    below = getattr(sys.stdout, "buffer", None)
    if below is None:  # a text stream with no bytes below it (a StringIO)
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    data = memoryview(text.encode(encoding, getattr(sys.stdout, "errors", None) or "strict"))
    while data:
        taken = below.write(data)
        if not taken:  # a blocking pipe takes a byte or raises: nothing taken is a reader gone
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
        data = data[taken:]
    below.flush()


def output_path(value: str) -> Path:
    """An argparse type for ``-o``: a file path. A path ending in ``/`` names a directory
    (``Path`` would drop the slash and write a file of the directory's name): refused."""
    if not value.strip():
        raise argparse.ArgumentTypeError("an empty path; give a file path, e.g. out.json")
    if value.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(
            f"{value!r} names a directory (it ends with '/'); give a file path in it, e.g. "
            f"{value}out.json"
        )
    return Path(value)


def seconds_up_to(most: float, *, named: str = "") -> Callable[[str], float]:
    """An argparse type: a number of seconds above 0 and at most ``most`` (``named`` says
    what that bound is, e.g. " (a day)")."""

    def parse(value: str) -> float:
        try:
            seconds = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
        if not 0 < seconds <= most:
            raise argparse.ArgumentTypeError(
                f"{value!r} must be a positive number of seconds up to {most:g}{named}"
            )
        return seconds

    return parse


def int_at_least(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least``."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
        if number < least:
            raise argparse.ArgumentTypeError(f"{value!r} must be {least} or more")
        return number

    return parse


def add_base_url_option(parser: argparse.ArgumentParser, *, role: str) -> None:
    """Add ``--base-url URL``: the API of the provider of the ``role`` model (the option's
    default is that provider's variable)."""
    from ..client import BASE_URL_ENV_VAR, OPENAI_BASE_URL_ENV_VAR

    option = "--judge-model" if role == "judge" else "--model"
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help=f"the API of the {role} model's provider (default ${BASE_URL_ENV_VAR}, or "
        f"${OPENAI_BASE_URL_ENV_VAR} for an openai: model), e.g. http://localhost:11434/v1 "
        f"for Ollama with {option} openai:qwen2.5:7b",
    )
