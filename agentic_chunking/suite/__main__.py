"""``python -m agentic_chunking.suite rebuild-reference [--case TC-0NN ...]``.

Exit status as the CLI's: 0 done; 2 a case, reply file or folder that is wrong (one line);
130 Ctrl-C and 143 SIGTERM (one line, every cassette whole: each is replaced atomically);
70 an unexpected error (one line naming the cause and the file holding the full trace).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from .._entry import (
    EXIT_INTERRUPTED,
    EXIT_SOFTWARE,
    EXIT_TERMINATED,
    Terminated,
    handle_stop_signals,
    stop_signal_seen,
    unexpected_error_line,
)
from .._errors import AgenticChunkingError
from .._shown import redact
from ._reference import rebuild_reference_cassettes

COMMAND = "python -m agentic_chunking.suite rebuild-reference"


def main(argv: list[str] | None = None) -> int:
    """Run the command; its exit status (see the module). Nothing escapes as a traceback."""
    try:
        return _rebuild(argv)
    except KeyboardInterrupt:
        print(f"{COMMAND}: interrupted; every cassette is whole", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated:
        print(f"{COMMAND}: stopped by SIGTERM; every cassette is whole", file=sys.stderr)
        return EXIT_TERMINATED
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(
            f"{COMMAND}: error: {where}{error.strerror or error}; check that the folder "
            "exists and is writable, or choose another with --cassettes",
            file=sys.stderr,
        )
        return 2
    except Exception as error:  # a defect of ours: one line, the trace in a file
        seen = stop_signal_seen()
        if seen is not None:  # a library turned the interrupt into an error of its own
            print(f"{COMMAND}: stopped by signal {seen}; every cassette is whole", file=sys.stderr)
            return EXIT_TERMINATED if seen == signal.SIGTERM else EXIT_INTERRUPTED
        print(unexpected_error_line(COMMAND, error), file=sys.stderr)
        return EXIT_SOFTWARE


def _rebuild(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentic_chunking.suite")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    rebuild = commands.add_parser(
        "rebuild-reference",
        help="record cassettes/reference/ from the hand-written replies (no network, no key)",
    )
    rebuild.add_argument("--cases", type=Path, default=Path("cases"), help="case directory")
    rebuild.add_argument(
        "--replies",
        type=Path,
        default=None,
        help="reply directory (default CASES/reference_replies)",
    )
    rebuild.add_argument("--cassettes", type=Path, default=Path("cassettes"), help="cassette root")
    rebuild.add_argument("--case", action="append", help="only this case id (repeatable)")
    rebuild.add_argument(
        "--model",
        default="reference",
        help="reference (the Messages API, the default) or openai:reference (the same replies "
        "in the Chat Completions wire format, in CASSETTES/openai--reference/)",
    )
    args = parser.parse_args(argv)
    try:
        written = rebuild_reference_cassettes(
            cases_dir=args.cases,
            replies_dir=args.replies or args.cases / "reference_replies",
            cassette_root=args.cassettes,
            only=set(args.case) if args.case else None,
            progress=lambda line: print(redact(line), file=sys.stderr),
            model=args.model,
        )
    except AgenticChunkingError as error:
        print(redact(f"rebuild-reference: error: {error}"), file=sys.stderr)
        return 2
    where = written[0].parent if written else args.cassettes
    print(f"{len(written)} reference cassettes written under {where}")
    return 0


if __name__ == "__main__":
    handle_stop_signals()
    sys.exit(main())
