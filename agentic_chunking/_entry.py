"""What every entry point shares (the CLI, ``python -m agentic_chunking.suite``, the suite
plugin's report phase): SIGTERM as an exception, and one line for an unexpected one.

Guarantees:
- ``handle_stop_signals()`` makes SIGTERM raise ``Terminated`` in the main thread, so the
  command unwinds as it does for Ctrl-C (a staged recording is dropped, no file is left
  half-written) and ends with one line and ``EXIT_TERMINATED``; both signals are noted, so
  that an exception a library made of one (numpy turns a KeyboardInterrupt during its
  import into an ImportError) still ends as the signal does (``stop_signal_seen``);
- ``unexpected_error_line(command, error)`` writes the full trace of an exception nobody
  foresaw to a file of its own (never deleted) and returns the one line that names the
  command, the cause and that file; the entry point then exits ``EXIT_SOFTWARE``.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType

from ._shown import redact

# tempfile, traceback and the writer are imported when a trace is written: importing this
# module, which the command line does before it can catch Ctrl-C, stays next to free.

EXIT_SOFTWARE = 70
"""An unexpected internal error (sysexits' EX_SOFTWARE)."""
EXIT_INTERRUPTED = 130
"""Interrupted by Ctrl-C (128 + SIGINT)."""
EXIT_TERMINATED = 143
"""Stopped by SIGTERM (128 + SIGTERM)."""
TRACE_PREFIX = "agentic-chunking-trace-"


class Terminated(BaseException):
    """SIGTERM arrived (raised by the handler of ``handle_stop_signals``).

    A BaseException, like KeyboardInterrupt, so that no ``except Exception`` on the way up
    mistakes it for a failure of the work it interrupts.
    """


_SEEN: list[int] = []
"""The stop signals received since ``handle_stop_signals``, in order."""


def _stop(signum: int, frame: FrameType | None) -> None:
    _SEEN.append(signum)
    if signum == signal.SIGTERM:
        raise Terminated()
    raise KeyboardInterrupt


def handle_stop_signals() -> None:
    """SIGINT raises KeyboardInterrupt and SIGTERM ``Terminated`` in the main thread, each
    noted for ``stop_signal_seen`` (no-op outside the main thread)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _stop)
        signal.signal(signal.SIGTERM, _stop)


def stop_signal_seen() -> int | None:
    """The first stop signal received since ``handle_stop_signals``, or None."""
    return _SEEN[0] if _SEEN else None


def write_trace(error: BaseException, command: str) -> Path:
    """Write ``error``'s full trace to a new file in the temporary directory; its path.

    Raises OSError when no file can be written there.
    """
    import tempfile
    import traceback

    from ._files import write_text_atomic

    handle, name = tempfile.mkstemp(prefix=TRACE_PREFIX, suffix=".txt")
    with open(handle, "w", encoding="utf-8"):
        pass  # the name is reserved; the text goes in through the one writer
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return write_text_atomic(name, redact(f"{command}: unexpected error\n\n{trace}"))


def unexpected_error_line(command: str, error: BaseException) -> str:
    """The one line for an exception nobody foresaw: the command, the cause, the trace file."""
    cause = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    cause = redact(" ".join(cause.split()))[:300]
    try:
        where = f"the full trace is in {write_trace(error, command)}"
    except OSError as failure:
        where = f"no trace file could be written ({failure.strerror or failure})"
    return (
        f"{command}: unexpected error ({cause}); {where}. No file was left half-written; "
        "please report this with the trace"
    )
