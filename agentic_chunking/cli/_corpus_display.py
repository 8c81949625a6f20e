"""What ``corpus`` shows while it runs: the documents done of total, the tokens and cost so
far (a ``corpus.CorpusTotals``), and the run's summary lines.

On a terminal, a tqdm bar on stderr; off a terminal, a Heartbeat line (see
``CorpusDisplay``); nothing when quiet. The figures are the corpus layer's; this module
only words them.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import IO

from .._shown import counted, quote
from ..client import BatchProgress
from ..corpus import CorpusTotals, DocumentResult
from ._progress import Heartbeat, _is_terminal

PREFIX = "agentic-chunking corpus: "


class CorpusDisplay:
    """Documents done of total, tokens and cost so far, and the run's summary line.

    On a terminal, a tqdm bar on stderr, with an ETA except under ``--batch`` (``batched``:
    the documents end in bursts, when a round's batch does, so their rate says nothing of
    the hours a batch may take). Off a terminal (a log, a pipe, CI), a Heartbeat: a plain
    line with the same figures at least every PROGRESS_EVERY_S seconds, whether or not a
    document finished meanwhile. Nothing when ``quiet``."""

    def __init__(
        self,
        *,
        total: int,
        quiet: bool,
        batched: bool = False,
        stream: IO[str] | None = None,
    ) -> None:
        from tqdm import tqdm

        self.totals = CorpusTotals()
        self._total = total
        self._batches: dict[str, BatchProgress] = {}
        self._lock = threading.Lock()
        stream = stream if stream is not None else sys.stderr
        terminal = _is_terminal(stream)
        self._bar = tqdm(
            total=total,
            unit="doc",
            disable=quiet or not terminal,
            file=stream,
            dynamic_ncols=True,
            desc="documents",
            bar_format=NO_ETA_BAR if batched else None,
        )
        self._beat = Heartbeat(PREFIX, stream=stream, quiet=quiet or terminal).__enter__()
        self._beat.status(self._status())

    def _status(self) -> str:
        """The figures so far, in words (the Heartbeat's line)."""
        t = self.totals
        c = t.counts
        with self._lock:
            states = list(self._batches.values())
        batches = ""
        if states:
            answered = sum(p.succeeded + p.errored + p.canceled + p.expired for p in states)
            waiting = sum(p.status not in ("ended", "unreachable") for p in states)
            batches = (
                f"; batches: {answered:,} of {sum(p.requests for p in states):,} requests "
                f"answered, {waiting:,} in flight"
            )
        return (
            f"{t.finished:,} of {self._total:,} documents ({c['done']:,} done, "
            f"{c['skipped']:,} skipped, {c['failed']:,} failed); {t.tokens_in:,} in / "
            f"{t.tokens_out:,} out tokens{self._cost_text()}{batches}"
        )

    def add(self, result: DocumentResult) -> None:
        """Count ``result`` and show the figures so far."""
        self.totals.add(result)
        self._bar.set_postfix_str(
            f"{self.totals.tokens_in:,} in / {self.totals.tokens_out:,} out tokens"
            f"{self._cost_text()}",
            refresh=False,
        )
        self._bar.update(1)
        self._beat.status(self._status())

    def batch(self, progress: BatchProgress) -> None:
        """A batch's state (from the batch client's thread): the bar shows the requests
        answered of those in batches."""
        with self._lock:
            self._batches[progress.batch_id] = progress
            states = list(self._batches.values())
        answered = sum(p.succeeded + p.errored + p.canceled + p.expired for p in states)
        self._bar.set_postfix_str(
            f"batches: {answered:,} of {sum(p.requests for p in states):,} requests answered"
        )
        self._beat.status(self._status())

    def _cost_text(self) -> str:
        cost = self.totals.cost
        return "" if cost is None else f", ${cost:.4f}"

    def close(self) -> None:
        self._bar.close()
        self._beat.__exit__(None, None, None)

    def summary(
        self, written: int, output: Path, failures: Path, seconds: float, left_out: int = 0
    ) -> str:
        t = self.totals
        c = t.counts
        reused = f" ({t.cached:,} from the reply cache, not paid again)" if t.cached else ""
        failed = f"; failures in {failures}" if c["failed"] else ""
        aside = f", {len(t.set_aside):,} not text (set aside)" if t.set_aside else ""
        left = f" ({left_out:,} left out by --include/--exclude)" if left_out else ""
        return (
            f"{c['done']:,} done, {c['skipped']:,} skipped (done before), {c['failed']:,} failed"
            f"{aside} of {counted(t.finished, 'document')}{left}; "
            f"{counted(t.calls, 'call')} answered{reused}, {t.tokens_in:,} in / "
            f"{t.tokens_out:,} out tokens{self._cost_text()}; "
            f"{counted(written, 'chunk')} written to {output} in {seconds:.1f} s{failed}"
        )

    def failure_line(self, failures: Path) -> str | None:
        """The summary's own line for the failed documents: the error most of them share
        (quoted: one line, redacted, capped) and the first document that met it; None when
        none failed."""
        failed = self.totals.counts["failed"]
        common = self.totals.common_failure
        if not failed or common is None:
            return None
        error = quote(common.error, limit=FAILURE_QUOTE_LIMIT)
        first = f"first: {quote(common.first_document_id)}"
        if common.documents == failed:
            return f"{failed:,} failed: {error} ({first}); see {failures}"
        return (
            f"{failed:,} failed; the most common failure ({common.documents:,} of them): "
            f"{error} ({first}); see {failures} for every one"
        )

    def set_aside_line(self, failures: Path) -> str:
        """The summary's own line for the files that are not text (they fail no run)."""
        aside = self.totals.set_aside
        names = ", ".join(aside[:3]) + (", ..." if len(aside) > 3 else "")
        count = len(aside)
        return (
            f"{count:,} {'file is' if count == 1 else 'files are'} not text (binary, compressed, "
            f"not UTF-8 or empty) and set aside, not failed: {names}; listed in {failures} "
            f"(error_kind not_text); leave {'it' if count == 1 else 'them'} out with --exclude"
        )


FAILURE_QUOTE_LIMIT = 400
"""The longest failure the summary quotes: a client's error with its advice, whole."""

NO_ETA_BAR = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
"""The ``--batch`` bar: tqdm's own, less the ETA and the rate (see CorpusDisplay)."""
