"""What every entry point shares (the CLI, ``python -m agentic_chunking.suite``, the suite
plugin): the one owner of the stop signals, and one line for an unexpected exception.

Guarantees:
- ``handle_stop_signals()`` is the only code that installs SIGINT and SIGTERM handlers;
  the command line and the suite's pytest plugin both call it. By default SIGTERM raises
  ``Terminated`` in the main thread, so the command unwinds as it does for Ctrl-C (a
  staged recording is dropped, no file is left half-written) and ends with one line and
  ``EXIT_TERMINATED``. Every stop signal is noted in one process-wide record, so that an
  exception a library made of one (numpy turns a KeyboardInterrupt during its import into
  an ImportError) still ends as the signal does (``stop_signal_seen``), and a session run
  in-process by another (as pytester does) stops the outer one too;
- with ``StopHandling(end_now=...)`` (the suite), a second stop signal, or ``grace_s``
  after a SIGTERM, calls ``end_now`` with the first signal's exit status, which ends the
  process (``end_process``): a library that swallows the interrupt cannot keep it running;
- ``unexpected_error_line(command, error)`` writes the full trace of an exception nobody
  foresaw to a file of its own (never deleted) and returns the one line that names the
  command, the cause and that file; the entry point then exits ``EXIT_SOFTWARE``.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

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
"""The stop signals this process received since ``handle_stop_signals``, in order."""


@dataclass(frozen=True)
class StopHandling:
    """How the running command unwinds on a stop signal (``handle_stop_signals``)."""

    sigterm_raises: type[BaseException] = Terminated
    """What the first SIGTERM raises in the main thread (SIGINT raises KeyboardInterrupt):
    ``Terminated``, or KeyboardInterrupt where only that unwinds cleanly (a pytest session)."""
    end_now: Callable[[int], object] | None = None
    """Without it every stop signal raises. With it, a second stop signal, or ``grace_s``
    after a SIGTERM, calls it with the exit status of the first signal; it must end the
    process (``end_process``)."""
    grace_s: float | None = None
    """After a SIGTERM, how long the process has to unwind before ``end_now``."""
    quiet_unraisable: bool = False
    """Once stopping, say nothing of an exception raised where none can be (``__del__``)."""


def _quiet(unraisable: Any) -> None:
    """Say nothing of an exception raised where none can be (``__del__``) once stopping."""


def _stop(handling: StopHandling, signum: int) -> None:
    """Note ``signum``; under ``end_now`` a second signal ends the process now; else raise."""
    again = bool(_SEEN)
    _SEEN.append(signum)
    if again and handling.end_now is not None:
        handling.end_now(stop_status())
    if handling.quiet_unraisable:
        # Objects the interrupted code left half-built (an SDK's HTTP client whose
        # constructor the signal cut short) fail in __del__ as the run unwinds, and Python
        # prints each such failure as a traceback ("Exception ignored in ..."): noise.
        sys.unraisablehook = _quiet
    if signum == signal.SIGTERM and handling.end_now is not None and handling.grace_s:
        timer = threading.Timer(handling.grace_s, handling.end_now, args=(EXIT_TERMINATED,))
        timer.daemon = True
        timer.start()
    if signum == signal.SIGTERM:
        raise handling.sigterm_raises()
    raise KeyboardInterrupt


def handle_stop_signals(handling: StopHandling | None = None) -> Callable[[], None]:
    """Make SIGINT and SIGTERM unwind the main thread as ``handling`` says (by default:
    KeyboardInterrupt and ``Terminated``), each noted for ``stop_signal_seen``; the function
    that puts back the handlers from before (no-op outside the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    chosen = handling or StopHandling()

    def handler(signum: int, frame: FrameType | None) -> None:
        _stop(chosen, signum)

    before = {signum: signal.signal(signum, handler) for signum in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for signum, previous in before.items():
            if previous is not None:
                signal.signal(signum, previous)

    return restore


def stop_signal_seen() -> int | None:
    """The first stop signal received since ``handle_stop_signals``, or None."""
    return _SEEN[0] if _SEEN else None


def stop_status() -> int:
    """The exit status of the stop under way: ``EXIT_TERMINATED`` when the first stop
    signal was SIGTERM, else ``EXIT_INTERRUPTED`` (Ctrl-C, or a KeyboardInterrupt that no
    signal raised)."""
    return EXIT_TERMINATED if stop_signal_seen() == signal.SIGTERM else EXIT_INTERRUPTED


def end_process(status: int, line: str) -> NoReturn:
    """End the process at once (no thread waited for, no handler run) with ``status``,
    after ``line`` on stderr (written whole, even from a signal handler)."""
    os.write(2, f"{line}\n".encode())
    os._exit(status)


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
