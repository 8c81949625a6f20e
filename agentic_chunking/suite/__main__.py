"""``python -m agentic_chunking.suite rebuild-reference [--case TC-0NN ...]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._errors import AgenticChunkingError
from ._reference import rebuild_reference_cassettes


def main(argv: list[str] | None = None) -> int:
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
            progress=lambda line: print(line, file=sys.stderr),
            model=args.model,
        )
    except AgenticChunkingError as error:
        print(f"rebuild-reference: error: {error}", file=sys.stderr)
        return 2
    where = written[0].parent if written else args.cassettes
    print(f"{len(written)} reference cassettes written under {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
