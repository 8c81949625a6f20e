"""The ``agentic-chunking`` command line: one subcommand per concern, each in its own module.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` to a callable taking the parsed arguments and returning the exit status.
Domain errors become one-line messages on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from ._errors import AgenticChunkingError

# Modules that register a subcommand; listed here so the help shows them in this order.
COMMAND_MODULES: tuple[str, ...] = (
    "agentic_chunking._cli_calibrate",
    "agentic_chunking._cli_chunk",
    "agentic_chunking._cli_report",
    "agentic_chunking._cli_split",
)


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="agentic-chunking",
        description="Level 5 agentic chunking: propositions grouped by theme, and its tools.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return its exit status (0 success, 1 failed result, 2 error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
    except AgenticChunkingError as error:
        print(f"agentic-chunking {args.command}: error: {error}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
