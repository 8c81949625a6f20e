"""The ledger of a corpus run: which documents are finished, with their records, in SQLite.

An embedded SQLite database beside the output (``OUT.ledger.sqlite`` by default). Each
finished document is one transaction: its id, the hash of its input and metadata
(``document_sha256``), the hash of the settings that decide its chunks
(``settings_sha256``), its status (``done`` or ``failed``), its output records (JSONL text)
or its failure, and what it cost. Rerunning a command reads it: a document ``done`` with
both hashes unchanged is skipped and its records are taken from here, so the output can be
written anew without any call; any other is redone (its paid replies come from the reply
cache). The output file is written from what the run yields, atomically, so a killed run
leaves the previous output or a complete one, and the ledger says exactly which documents
are finished.

Batches submitted to a provider's batch API are kept too (``batches``), so a run killed
while a batch is in flight re-attaches to it instead of paying for it again.

Safe for concurrent use: one connection per ledger object, guarded by a lock, in WAL mode
(``synchronous=NORMAL``: a commit survives a killed process) with a long busy timeout,
so threads of one process and processes on one machine (Ray's
local workers) may write at once.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT = 1
"""The ledger's layout version; a ledger of another version is refused, never misread."""
BUSY_TIMEOUT_S = 60.0
"""How long a write waits for another writer of the run (Ray's workers) to commit."""
OPEN_WAIT_S = 5.0
"""How long opening waits to be able to write: a ledger another program holds locked
longer than this is refused before any call."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    document_id TEXT PRIMARY KEY,
    document_sha256 TEXT NOT NULL,
    settings_sha256 TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    records TEXT NOT NULL,
    failure TEXT,
    calls INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd REAL,
    finished_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
    provider TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    custom_ids TEXT NOT NULL,
    submitted_at REAL NOT NULL,
    PRIMARY KEY (provider, batch_id)
);
"""


class LedgerError(Exception):
    """The ledger cannot be opened or written (a corrupt file, another version, a full disk)."""


LOCK_SUFFIX = ".lock"
"""The run lock's file: the ledger's path plus this (``OUT.ledger.sqlite.lock``)."""


class RunLock:
    """The one run allowed on a ledger at a time: an exclusive, non-blocking lock on
    ``LEDGER.lock`` (``filelock``: an OS lock, released when the holder ends, however it
    ends, so a killed run never leaves it held). A second run on the same ledger, hence the
    same OUT, gets LedgerError at once instead of sending the same requests again. Ray's
    workers open the ledger itself, not the lock, and are unaffected."""

    def __init__(self, ledger_path: Path | str) -> None:
        from filelock import FileLock

        self.path = Path(str(ledger_path) + LOCK_SUFFIX)
        self._lock = FileLock(self.path, timeout=0)

    def acquire(self) -> None:
        """Hold the lock, or raise LedgerError naming the way out when another run holds it."""
        from filelock import Timeout

        try:
            self._lock.acquire()
        except Timeout:
            raise LedgerError(
                f"another run is using this ledger and its output ({self.path} is held): "
                "wait for it to end, or give this run another -o (and --ledger)"
            ) from None
        except OSError as error:
            raise LedgerError(
                f"cannot lock {self.path} ({error.strerror or error}); make its folder "
                "writable, or give another --ledger path"
            ) from None

    def release(self) -> None:
        """Let the next run in (a no-op when not held)."""
        self._lock.release(force=True)


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One finished document as the ledger holds it."""

    document_id: str
    document_sha256: str
    settings_sha256: str
    status: str
    records: tuple[dict[str, Any], ...]
    failure: dict[str, Any] | None


class Ledger:
    """The ledger at ``path`` (created if missing). See the module for its guarantees."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, timeout=OPEN_WAIT_S, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            # a commit survives a killed process (WAL); only a power cut may lose the last
            # few, which the rerun then redoes from the reply cache
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            found = self._db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if found is None:
                with self._db:
                    self._db.execute(
                        "INSERT OR IGNORE INTO meta VALUES ('format', ?)", (str(FORMAT),)
                    )
            elif found[0] != str(FORMAT):
                raise LedgerError(
                    f"{self.path} is a ledger of format {found[0]}, not {FORMAT}; give another "
                    "--ledger path (or remove it to redo every document)"
                )
            self._db.execute("BEGIN IMMEDIATE")  # writable now: not locked by another program
            self._db.rollback()
            self._db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            self._db.execute("SELECT count(*) FROM documents").fetchone()
        except sqlite3.Error as error:
            raise self._problem(error) from None

    def _problem(self, error: Exception, row: str = "") -> LedgerError:
        """The one line for a ledger that fails: locked by another program, on a full disk,
        or damaged (a truncated file, garbage, a row that cannot be read), with the way out."""
        text = str(error)
        if "locked" in text or "busy" in text:
            return LedgerError(
                f"the ledger {self.path} is locked by another program ({text}): end the program "
                "that holds it open (an sqlite3 shell, a backup), or give this run another "
                "--ledger"
            )
        if "full" in text:
            return LedgerError(
                f"cannot write the ledger {self.path} ({text}); the finished documents are kept "
                f"in it: free room under {self.path.parent} (or give another --ledger) and rerun "
                "the same command (no finished document is chunked again)"
            )
        row = f": {row} cannot be read" if row else ""
        return LedgerError(
            f"the ledger {self.path} is damaged{row} ({text}); move it away and rerun the same "
            "command (every document is redone, its replies taken from the reply cache, none "
            "paid again), or give another --ledger path"
        )

    def finished(self, document_id: str) -> LedgerEntry | None:
        """The ledger's entry for ``document_id``, if it finished in an earlier run."""
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT document_id, document_sha256, settings_sha256, status, records, "
                    "failure FROM documents WHERE document_id = ?",
                    (document_id,),
                ).fetchone()
            if row is None:
                return None
            records = tuple(json.loads(line) for line in row[4].splitlines() if line)
            failure = json.loads(row[5] or "null")
            if not all(isinstance(r, dict) for r in records) or not all(
                isinstance(v, str) for v in row[:4]
            ):
                raise ValueError("a record or a hash of the wrong type")
        except sqlite3.Error as error:
            raise self._problem(error) from None
        except (ValueError, TypeError, AttributeError) as error:
            raise self._problem(error, f"the row of document {document_id!r}") from None
        return LedgerEntry(row[0], row[1], row[2], row[3], records, failure)

    def record(
        self,
        *,
        document_id: str,
        document_sha256: str,
        settings_sha256: str,
        status: str,
        records: Sequence[Mapping[str, Any]],
        failure: Mapping[str, Any] | None,
        calls: int,
        input_tokens: int,
        output_tokens: int,
        cost_usd: float | None,
    ) -> None:
        """Record one finished document, in one transaction (replacing an earlier entry)."""
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        row = (
            document_id,
            document_sha256,
            settings_sha256,
            status,
            lines,
            None if failure is None else json.dumps(failure, ensure_ascii=False),
            calls,
            input_tokens,
            output_tokens,
            cost_usd,
            time.time(),
        )
        try:
            with self._lock, self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO documents VALUES (?,?,?,?,?,?,?,?,?,?,?)", row
                )
        except sqlite3.Error as error:
            raise self._problem(error) from None

    def counts(self) -> dict[str, int]:
        """Documents per status."""
        with self._lock:
            rows = self._db.execute("SELECT status, count(*) FROM documents GROUP BY status")
            return {status: n for status, n in rows}

    def add_batch(self, provider: str, batch_id: str, custom_ids: Sequence[str]) -> None:
        """Keep a submitted batch, so a rerun re-attaches to it."""
        try:
            with self._lock, self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO batches VALUES (?,?,?,?)",
                    (provider, batch_id, json.dumps(list(custom_ids)), time.time()),
                )
        except sqlite3.Error as error:
            raise self._problem(error) from None

    def batches(self) -> Iterator[tuple[str, str, list[str]]]:
        """The batches kept: (provider, batch id, custom ids), oldest first."""
        try:
            with self._lock:
                rows = self._db.execute(
                    "SELECT provider, batch_id, custom_ids FROM batches ORDER BY submitted_at"
                ).fetchall()
            kept = [(str(p), str(b), list(json.loads(c))) for p, b, c in rows]
        except sqlite3.Error as error:
            raise self._problem(error) from None
        except (ValueError, TypeError) as error:
            raise self._problem(error, "a row of its batches") from None
        yield from kept

    def remove_batch(self, provider: str, batch_id: str) -> None:
        """Forget a batch whose results are all in (the reply cache holds them)."""
        try:
            with self._lock, self._db:
                self._db.execute(
                    "DELETE FROM batches WHERE provider = ? AND batch_id = ?", (provider, batch_id)
                )
        except sqlite3.Error as error:
            raise self._problem(error) from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
