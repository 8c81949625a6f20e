"""What every entry point shares (the CLI, ``python -m agentic_chunking.suite``, the suite
plugin's report phase): SIGTERM as an exception, and one line for an unexpected one.

Guarantees:
- ``terminate_on_sigterm()`` makes SIGTERM raise ``Terminated`` in the main thread, so the
  command unwinds as it does for Ctrl-C (a staged recording is dropped, no file is left
  half-written) and ends with one line and ``EXIT_TERMINATED``;
- ``unexpected_error_line(command, error)`` writes the full trace of an exception nobody
  foresaw to a file of its own (never deleted) and returns the one line that names the
  command, the cause and that file; the entry point then exits ``EXIT_SOFTWARE``.
"""

from __future__ import annotations

import signal
import tempfile
import threading
import traceback
from pathlib import Path
from types import FrameType

from ._files import write_text_atomic

EXIT_SOFTWARE = 70
"""An unexpected internal error (sysexits' EX_SOFTWARE)."""
EXIT_INTERRUPTED = 130
"""Interrupted by Ctrl-C (128 + SIGINT)."""
EXIT_TERMINATED = 143
"""Stopped by SIGTERM (128 + SIGTERM)."""
TRACE_PREFIX = "agentic-chunking-trace-"


class Terminated(BaseException):
    """SIGTERM arrived (raised by the handler of ``terminate_on_sigterm``).

    A BaseException, like KeyboardInterrupt, so that no ``except Exception`` on the way up
    mistakes it for a failure of the work it interrupts.
    """


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def terminate_on_sigterm() -> None:
    """Make SIGTERM raise ``Terminated`` in the main thread (no-op elsewhere)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


def write_trace(error: BaseException, command: str) -> Path:
    """Write ``error``'s full trace to a new file in the temporary directory; its path.

    Raises OSError when no file can be written there.
    """
    handle, name = tempfile.mkstemp(prefix=TRACE_PREFIX, suffix=".txt")
    with open(handle, "w", encoding="utf-8"):
        pass  # the name is reserved; the text goes in through the one writer
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return write_text_atomic(name, f"{command}: unexpected error\n\n{trace}")


def unexpected_error_line(command: str, error: BaseException) -> str:
    """The one line for an exception nobody foresaw: the command, the cause, the trace file."""
    cause = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    cause = " ".join(cause.split())[:300]
    try:
        where = f"the full trace is in {write_trace(error, command)}"
    except OSError as failure:
        where = f"no trace file could be written ({failure.strerror or failure})"
    return (
        f"{command}: unexpected error ({cause}); {where}. No file was left half-written; "
        "please report this with the trace"
    )
