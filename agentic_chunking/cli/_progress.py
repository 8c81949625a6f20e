"""What ``chunk`` shows on stderr while it runs, and after: progress, warnings, a summary.

- On a terminal, a progress bar per stage (tqdm: done / total, elapsed, ETA) with the
  tokens and the estimated cost so far; narrative lines (a call still in flight, the
  grouping starting) are printed above the bar.
- When stderr is not a terminal (a log file, a pipe, CI), one plain line per finished call
  instead, the same figures in words.
- ``quiet``: no progress and no warning listing.
- Warnings are grouped by kind (``report.warning_groups``: by the recorded kind, never by
  the wording), each with its count and its first ``EXAMPLES`` messages, shortened; the
  whole list is in the output (``Warnings``).
- ``summary`` is the one line printed at the end, quiet or not.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from types import TracebackType
from typing import IO, Any

from .._models import AgenticResponse
from .._shown import counted
from .._warning import PipelineWarning
from ..client import calls_cost_usd, estimate_cost_usd
from ..pipeline import ProgressEvent
from ..report import warning_groups, warning_summary

PROGRESS_EVERY_S = 60.0
"""Off a terminal, the longest a long command (corpus, ``--batch``, ``--engine ray``, split
over a corpus, evaluate) goes without a progress line (Heartbeat's default; a test sets
a short one)."""
EXAMPLES = 3
"""Messages shown per warning kind; the rest are counted, and all are in the output."""
EXAMPLE_CHARS = 160
"""An example message longer than this is shortened (the output keeps it whole)."""


class RunDisplay:
    """Progress of one ``chunk`` run on ``stream`` (stderr), each line prefixed ``prefix``.

    ``bar`` None: a bar exactly when ``stream`` is a terminal. Thread-safe enough for the
    pipeline's worker threads: tqdm locks its own writes, plain lines are single writes.
    """

    def __init__(
        self,
        *,
        model: str,
        prefix: str,
        quiet: bool = False,
        stream: IO[str] | None = None,
        bar: bool | None = None,
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._model = model
        self._prefix = prefix
        self._quiet = quiet
        self._bar_mode = (not quiet) and (_is_terminal(self._stream) if bar is None else bar)
        self._bar: Any = None
        self._stage = ""

    def say(self, text: str) -> None:
        """A narrative line (printed above a bar, if one is shown); nothing when quiet."""
        if self._quiet:
            return
        line = f"{self._prefix}{text}"
        if self._bar is not None:
            from tqdm import tqdm

            tqdm.write(line, file=self._stream)
        else:
            print(line, file=self._stream, flush=True)

    def event(self, event: ProgressEvent) -> None:
        """One finished call: advance the bar, or print its line with the cost so far."""
        if self._quiet:
            return
        cost = self._cost(event.input_tokens, event.output_tokens)
        if not self._bar_mode:
            print(
                f"{self._prefix}{event.line()}{cost and f'; cost so far {cost}'}",
                file=self._stream,
                flush=True,
            )
            return
        from tqdm import tqdm

        if self._bar is None or event.stage != self._stage:
            self.close()
            self._stage = event.stage
            self._bar = tqdm(
                total=event.total,
                desc=event.stage,
                unit="call",
                file=self._stream,
                dynamic_ncols=True,
                leave=True,
            )
        self._bar.update(1)
        tokens = f"{event.input_tokens:,} in / {event.output_tokens:,} out"
        self._bar.set_postfix_str(f"{tokens}{cost and f', {cost}'}", refresh=True)

    def close(self) -> None:
        """End the current bar, if any (before the warnings and the summary)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def warnings(self, warnings: Sequence[PipelineWarning], where: str) -> None:
        """The warnings grouped by kind: a count and the first examples of each."""
        self.close()
        if self._quiet or not warnings:
            return
        for group in warning_groups(warnings):
            self.say(f"warning: {group.label}:")
            for message in group.lines[:EXAMPLES]:
                self.say(f"  - {_shorten(message)}")
            if len(group.records) > EXAMPLES:
                more = len(group.records) - EXAMPLES
                self.say(f"  ... and {more} more ({group.kind}; all are in {where}, Warnings)")

    def summary(self, response: AgenticResponse, where: str, inputs: int) -> str:
        """The one line that ends a run (printed quiet or not); returned for tests."""
        self.close()
        paid = [c for c in response.calls if not c.cached]
        spent_in = sum(c.input_tokens for c in paid)
        spent_out = sum(c.output_tokens for c in paid)
        written = sum(c.cache_write_tokens for c in paid)
        read = sum(c.cache_read_tokens for c in paid)
        usd = calls_cost_usd(self._model, paid)  # a batched call at the batch price
        cost = "" if usd is None else f"${usd:.4f}"
        prompt_cache = (
            f" (prompt cache: {written:,} written, {read:,} read)" if written or read else ""
        )
        reused = len(response.calls) - len(paid)
        replayed = f" ({reused:,} from the reply cache, not paid again)" if reused else ""
        state = (
            f"done: {counted(response.total_chunks, 'chunk')}, "
            f"{counted(response.total_propositions, 'proposition')} from "
            f"{counted(inputs, 'input chunk')}"
            if response.is_success
            else "failed"
        )
        warned = warning_summary(response.warnings)
        warnings = f"{counted(len(response.warnings), 'warning')} ({warned})"
        line = (
            f"{self._prefix}{state}; {counted(len(response.calls), 'call')}{replayed}, "
            f"{spent_in:,} in / {spent_out:,} out tokens{prompt_cache}{cost and f' ({cost})'}; "
            f"{warnings if warned else 'no warnings'}; {where}"
        )
        print(line, file=self._stream, flush=True)
        return line

    def _cost(self, input_tokens: int, output_tokens: int) -> str:
        usd = estimate_cost_usd(self._model, input_tokens, output_tokens)
        return "" if usd is None else f"${usd:.4f}"


class Heartbeat:
    """A line on ``stream`` at least every ``every`` seconds (default PROGRESS_EVERY_S, read
    when made) while a long command works.

    ``say`` prints a line at once and restarts the count; ``status`` only records what is
    being done, and a background thread prints it (with the time elapsed) whenever
    ``every`` seconds pass with no line, so a log file or CI shows the run alive and where
    it is even when one step (embedding a corpus, waiting for a batch) takes many minutes.
    Use as a context manager; the thread stops on exit. Nothing is printed when ``quiet``,
    nor after a write failed (the reader of a pipe went away: the command's own next write
    meets it and ends with 141; the beat never prints a trace).
    """

    def __init__(
        self,
        prefix: str,
        *,
        every: float | None = None,
        stream: IO[str] | None = None,
        quiet: bool = False,
    ) -> None:
        self._prefix = prefix
        self._every = PROGRESS_EVERY_S if every is None else every
        self._stream = stream if stream is not None else sys.stderr
        self._quiet = quiet
        self._status = "starting"
        self._started = time.monotonic()
        self._last = self._started
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        if not self._quiet:
            self._thread = threading.Thread(target=self._beat, name="heartbeat", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def say(self, text: str) -> None:
        """Print ``text`` now (it also becomes the status a later beat repeats)."""
        with self._lock:
            self._status = text
            self._last = time.monotonic()
            if not self._quiet:
                self._print(text)

    def status(self, text: str) -> None:
        """Record what is being done; printed by the next beat, not now."""
        with self._lock:
            self._status = text

    def _beat(self) -> None:
        while not self._stop.wait(max(0.0, self._last + self._every - time.monotonic())):
            with self._lock:
                now = time.monotonic()
                if now - self._last < self._every:
                    continue
                self._last = now
                elapsed = _duration(now - self._started)
                if not self._print(f"{self._status} ({elapsed} in)"):
                    return

    def _print(self, text: str) -> bool:
        """Print one line (under the lock); False, and quiet from now, when it failed."""
        try:
            print(f"{self._prefix}{text}", file=self._stream, flush=True)
        except (OSError, ValueError):  # a pipe whose reader left, a stream closed
            self._quiet = True
            return False
        return True


def _duration(seconds: float) -> str:
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _shorten(message: str) -> str:
    flat = " ".join(message.split())
    return flat if len(flat) <= EXAMPLE_CHARS else flat[: EXAMPLE_CHARS - 1] + "…"
