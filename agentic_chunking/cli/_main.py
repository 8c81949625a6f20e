"""The ``agentic-chunking`` command line: one subcommand per concern, each in its own module.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` to a callable taking the parsed arguments and returning the exit status.
No traceback reaches the user: every failure is one line on stderr and an exit status,

- 0 success; 1 the result says IsSuccess false (``check``: a finding is an error);
  2 a usage, input or configuration error;
- 3 a model call failed (the server, the network, a timeout); 130 interrupted (Ctrl-C),
  after one line and nothing else; 141 the reader of stdout went away (``| head``),
  silently, as a shell tool does; 143 stopped by SIGTERM, after one line;
- 70 an unexpected error (a defect of ours): one line naming the command and the cause,
  and the full trace in a file whose path the line gives (``_entry``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.metadata
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from .._entry import (
    EXIT_INTERRUPTED,
    EXIT_SOFTWARE,
    EXIT_TERMINATED,
    Terminated,
    handle_stop_signals,
    stop_signal_seen,
    unexpected_error_line,
)
from .._errors import AgenticChunkingError, ModelCallError
from .._shown import redact

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_MODEL_CALL = 3
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool killed by it

# Modules that register a subcommand; listed here so the help shows them in this order.
COMMAND_MODULES: tuple[str, ...] = (
    "agentic_chunking.cli._calibrate",
    "agentic_chunking.cli._check",
    "agentic_chunking.cli._chunk",
    "agentic_chunking.cli._corpus",
    "agentic_chunking.cli._evaluate",
    "agentic_chunking.cli._report",
    "agentic_chunking.cli._split",
)


def package_version() -> str:
    """The installed package's version (its metadata), or ``unknown`` when the package is
    imported from a source tree that was never installed."""
    try:
        return importlib.metadata.version("agentic-chunking")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


UNKNOWN_OPTION_HINTS: dict[tuple[str, str], str] = {
    ("corpus", "--resume"): (
        "a corpus rerun of the same command resumes (the ledger skips the finished "
        "documents, the reply cache serves the paid replies): no --resume needed"
    ),
}
"""(command, option) -> what to say when ``command`` is given ``option``, which it does
not take, because another command does (``chunk --resume``)."""


class _CommandParser(argparse.ArgumentParser):
    """A subcommand's parser that rejects what it does not know itself, so the message
    names the subcommand (argparse otherwise leaves unknown options to the top-level
    parser: "usage: agentic-chunking [-h] ... COMMAND"), and says a usage error on one line
    (``error``): the usage block is for ``--help``."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            command = self.prog.rsplit(" ", 1)[-1]
            hints = [
                UNKNOWN_OPTION_HINTS[command, option]
                for option in dict.fromkeys(extra.split("=", 1)[0] for extra in extras)
                if (command, option) in UNKNOWN_OPTION_HINTS
            ]
            self.error("; ".join([f"unrecognized arguments: {' '.join(extras)}", *hints]))
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        """``PROG: error: MESSAGE (see PROG --help)`` on one line of stderr (redacted: an
        argument may be a pasted key), then exit 2."""
        say_error(self.prog, f"{message} (see {self.prog} --help)")
        self.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="agentic-chunking",
        description="Level 5 agentic chunking: propositions grouped by theme, and its tools.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {package_version()}",
        help="print the installed version and exit",
    )
    subparsers = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_CommandParser
    )
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return its exit status (see the module docstring)."""
    prog = "agentic-chunking"
    args = argparse.Namespace()
    try:
        args = build_parser().parse_args(argv)
        prog = f"agentic-chunking {args.command}"
        status: int = args.func(args)
        sys.stdout.flush()  # what is still buffered: a reader gone is 141, not success
    except KeyboardInterrupt as stop:
        return _stopped(prog, signal.SIGINT, stop)
    except Terminated as stop:
        return _stopped(prog, signal.SIGTERM, stop)
    except BrokenPipeError:  # stdout's reader closed it (e.g. `| head`): nothing to say
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except ModelCallError as error:
        say_error(prog, str(error))
        return EXIT_MODEL_CALL
    except AgenticChunkingError as error:
        say_error(prog, str(error))
        return EXIT_USAGE
    except OSError as error:  # a file the command reads or writes besides -o (e.g. reports/)
        where = f"{error.filename}: " if error.filename else ""
        elsewhere = ", or choose another place with -o" if hasattr(args, "output") else ""
        say_error(
            prog, f"{where}{error.strerror or error}; check the path and its permissions{elsewhere}"
        )
        return EXIT_USAGE
    except Exception as error:  # a defect of ours: one line, the trace in a file
        seen = stop_signal_seen()
        if seen is not None:  # a library turned the interrupt into an error of its own
            return _stopped(prog, seen, error)
        print(unexpected_error_line(prog, error), file=sys.stderr)
        return EXIT_SOFTWARE
    return status


def _stopped(prog: str, signum: int, stop: BaseException) -> int:
    """One line for Ctrl-C or SIGTERM, with the way on a command put on the stop (its
    notes: ``chunk`` names ``--resume`` when its reply cache kept replies); the exit status
    of that signal."""
    way_on = "".join(f"; {note}" for note in getattr(stop, "__notes__", ()))
    if signum == signal.SIGTERM:
        line, status = "stopped by SIGTERM", EXIT_TERMINATED
    else:
        line, status = "interrupted", EXIT_INTERRUPTED
    print(redact(f"{prog}: {line}; no file was left half-written{way_on}"), file=sys.stderr)
    return status


MESSAGE_LIMIT = 2000
"""The longest line an error message may be: a value quoted whole (a 5 MB proposition in a
mismatch) is cut here, with how much was left out."""


def say_error(prog: str, message: str) -> None:
    """Print ``prog: error: message`` on stderr, redacted (no key ever reaches a message),
    each line at most ``MESSAGE_LIMIT`` characters plus a short tail."""
    lines = redact(f"{prog}: error: {message}").splitlines()
    for index, line in enumerate(lines):
        if len(line) > MESSAGE_LIMIT:
            lines[index] = f"{line[:MESSAGE_LIMIT]}... ({len(line):,} characters in all)"
    print("\n".join(lines), file=sys.stderr)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush raises nothing."""
    with contextlib.suppress(OSError, ValueError):  # no file descriptor: nothing to flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def entry() -> None:  # pragma: no cover - exercised by the subprocess tests
    """The console script: ``main()`` with SIGTERM raising ``Terminated``, then exit at
    once after an interrupt.

    After Ctrl-C or SIGTERM, abandoned model calls may still be in flight in worker
    threads, which Python would wait for at exit; the process ends without waiting for
    them (every file is written atomically, so there is nothing to finish).
    """
    handle_stop_signals()
    status = main()
    if status in (EXIT_INTERRUPTED, EXIT_TERMINATED) and threading.active_count() > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":  # pragma: no cover
    entry()
