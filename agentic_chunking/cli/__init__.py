"""The ``agentic-chunking`` command line: one module per subcommand.

- ``_main``: the parser, the dispatch and the exit statuses (``main``, ``entry``);
- ``_chunk`` (``chunk``), ``_check`` (``check``), ``_split`` (``split``), ``_report``
  (``report``), ``_calibrate`` (``calibrate-judge``): each exposes ``register(subparsers)``;
- ``_io``: what the commands share (reading inputs, checking and writing outputs);
- ``_inputs``: what ``chunk`` and ``check --source`` read as the pipeline's input.

The top layer: it may import every other package; nothing imports it but ``__main__``.
"""

from .._entry import EXIT_INTERRUPTED as EXIT_INTERRUPTED
from .._entry import EXIT_SOFTWARE as EXIT_SOFTWARE
from .._entry import EXIT_TERMINATED as EXIT_TERMINATED
from ._main import EXIT_BROKEN_PIPE as EXIT_BROKEN_PIPE
from ._main import EXIT_FAILED as EXIT_FAILED
from ._main import EXIT_MODEL_CALL as EXIT_MODEL_CALL
from ._main import EXIT_OK as EXIT_OK
from ._main import EXIT_USAGE as EXIT_USAGE
from ._main import build_parser as build_parser
from ._main import entry, main

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "entry",
    "main",
]
