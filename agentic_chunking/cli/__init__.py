"""The ``agentic-chunking`` command line: one module per subcommand.

- ``_main``: the parser, the dispatch and the exit statuses (``main``, ``entry``);
- ``_chunk`` (``chunk``), ``_check`` (``check``), ``_split`` (``split``), ``_report``
  (``report``), ``_calibrate`` (``calibrate-judge``): each exposes ``register(subparsers)``;
- ``_io``: what the commands share (reading inputs, checking and writing outputs).

The top layer: it may import every other package; nothing imports it but ``__main__``.
"""

from .._entry import EXIT_INTERRUPTED, EXIT_SOFTWARE, EXIT_TERMINATED
from ._main import (
    COMMAND_MODULES,
    EXIT_BROKEN_PIPE,
    EXIT_FAILED,
    EXIT_MODEL_CALL,
    EXIT_OK,
    EXIT_USAGE,
    build_parser,
    entry,
    main,
)

__all__ = [
    "COMMAND_MODULES",
    "EXIT_BROKEN_PIPE",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_MODEL_CALL",
    "EXIT_OK",
    "EXIT_SOFTWARE",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "build_parser",
    "entry",
    "main",
]
