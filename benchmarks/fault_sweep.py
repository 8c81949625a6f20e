"""A fault sweep of the corpus surfaces: kills, signals, full disks, damaged ledgers, bad inputs,
absurd limits, bad servers and bad chunker callables, each run against the command line and
classified (traceback, file lost, paid twice, secret shown, hang, wrong exit, unclear message).

Each trial runs ``python -m agentic_chunking ...`` as a subprocess of this Python, in a
temporary folder of its own (``TMPDIR`` there too, so a trace file or a folder of kept replies
is inside it), against loopback servers of ``agentic_chunking.testing`` on 127.0.0.1 (never a
real API), with a recognisable fake key (``KEYS``). After its runs the harness looks at what
they left and gives the trial zero or more classes (``CLASSES``):

- ``traceback``: a Python traceback or stack frame in any output;
- ``lost``: OUT missing after a run that said it succeeded, OUT not valid JSONL (or Parquet),
  OUT changed by a run that failed or was killed, temporary files beside OUT after a
  successful run, an input file changed, a rerun's OUT unlike an uninterrupted run's;
- ``paid_twice``: the loopback model answered one request twice, or a batch server was
  sent one custom_id twice, across a kill and the rerun;
- ``secret``: a key, whole or in base64 (three alignments) or URL-encoded, in stdout,
  stderr or any file under the trial's folder;
- ``hang``: a run still going at its timeout (killed then);
- ``wrong_exit``: a status outside those the docs give for that case (``docs/failures.md``,
  ``docs/corpus.md``: 0, 1, 2, 3, 130, 141, 143; 70 is never expected);
- ``unclear``: a failed run with nothing on stderr, more than ``MAX_LINES`` lines on it
  (an argparse usage block not counted), or no line naming the problem (each trial's
  ``says`` pattern).

A trial with no class is clear and safe. ``python benchmarks/fault_sweep.py`` runs every
trial, prints a table of counts by class and one line per trial that has one, and writes
``benchmarks/results/fault_sweep.json``; ``--quick`` runs the cheap subset (``quick=True``),
``--only NAME`` (repeatable, a prefix) chosen ones (their figures kept only with ``--json``).
Trials that need what the machine lacks (root for a tmpfs, Ray) are skipped and counted as
skipped. ``tests/test_fault_sweep.py`` runs
the quick ones and asserts each is clear and safe.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _results import add_options, keep

from agentic_chunking.testing import (
    FakeMessageBatchesServer,
    FakeMessagesServer,
    FakeReply,
    ParagraphModel,
)

ROOT = Path(__file__).resolve().parent.parent
KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-SWEEP-q7Zr2Wk9Lm4Xp8Vn3Tb6Hc1Ds5Fg0Jy",
    "OPENAI_API_KEY": "sk-SWEEP-openai-Na8Qe2Rt5Yu1Io4Pa7Sd0Fg3Hj6",
}
CLASSES = ("traceback", "lost", "paid_twice", "secret", "hang", "wrong_exit", "unclear")
MAX_LINES = 4
"""A failed run's stderr (with --quiet) may hold this many lines, besides a usage block."""
TIMEOUT_S = 90.0
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s*File \"[^\"]+\", line \d+", re.M)


def secret_forms(key: str) -> list[str]:
    """The forms a key can leak in: itself, URL-encoded, and its base64 at the three
    alignments it can have inside a longer encoded string (the whole groups only)."""
    forms = {key, urllib.parse.quote(key, safe=""), urllib.parse.quote_plus(key)}
    raw = key.encode()
    for pad in range(3):
        data = b"\0" * pad + raw
        encoded = base64.b64encode(data).decode()
        whole = 4 * (len(data) // 3)
        forms.add(encoded[4 if pad else 0 : whole])
        forms.add(base64.urlsafe_b64encode(data).decode()[4 if pad else 0 : whole])
    return sorted(f for f in forms if len(f) >= 16)


def document(number: int, paragraphs: int = 3) -> str:
    """A small generated document: paragraphs the loopback model makes one proposition each."""
    words = ("Alpha", "Beta", "Gamma")
    return "".join(
        f"{words[p % 3]} {number} is fact {p} of document {number}.\n\n" for p in range(paragraphs)
    )


@dataclass
class Run:
    """One command run of a trial, and what it left."""

    label: str
    args: list[str]
    expect: frozenset[int]
    says: str | None
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    killed: bool = False
    seconds: float = 0.0

    def record(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "args": self.args,
            "expect": sorted(self.expect),
            "returncode": self.returncode,
            "timed_out": self.timed_out,
            "killed": self.killed,
            "seconds": round(self.seconds, 2),
            "stderr_tail": self.stderr.splitlines()[-3:],
        }


class Skip(Exception):
    """A trial that cannot run here (root for a tmpfs, Ray not installed)."""


@dataclass
class Trial:
    name: str
    group: str
    body: Callable[[Context], None]
    quick: bool = False
    doc: str = ""


@dataclass
class Outcome:
    name: str
    group: str
    classes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    skipped: str | None = None
    broken: str | None = None
    seconds: float = 0.0

    @property
    def clear(self) -> bool:
        return self.skipped is None and self.broken is None and not self.classes

    def record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "group": self.group,
            "classes": self.classes,
            "notes": self.notes,
            "skipped": self.skipped,
            "broken": self.broken,
            "seconds": round(self.seconds, 2),
            "runs": [run.record() for run in self.runs],
        }


class Context:
    """A trial's folder, its runs and its findings. ``inp`` holds inputs (hashed before the
    first run, compared at the end), ``out`` the outputs, ``tmp`` is the runs' TMPDIR."""

    def __init__(self, root: Path, outcome: Outcome) -> None:
        self.root = root
        self.outcome = outcome
        self.inp = root / "in"
        self.out_dir = root / "out"
        self.tmp = root / "tmp"
        for folder in (self.inp, self.out_dir, self.tmp, root / "home"):
            folder.mkdir(parents=True, exist_ok=True)
        self.out = self.out_dir / "chunks.jsonl"
        self.servers: list[Any] = []
        self.models: list[ParagraphModel] = []
        self._hashes: dict[Path, str] | None = None
        self.cleanups: list[Callable[[], None]] = []

    # -- findings ---------------------------------------------------------------------
    def problem(self, kind: str, note: str) -> None:
        assert kind in CLASSES, kind
        if kind not in self.outcome.classes:
            self.outcome.classes.append(kind)
        self.outcome.notes.append(f"{kind}: {note}")

    # -- inputs -----------------------------------------------------------------------
    def folder(self, count: int, paragraphs: int = 3) -> Path:
        corpus = self.inp / "docs"
        corpus.mkdir(exist_ok=True)
        for number in range(1, count + 1):
            (corpus / f"d{number:03d}.txt").write_text(
                document(number, paragraphs), encoding="utf-8"
            )
        return corpus

    def jsonl(self, name: str, lines: Sequence[str | Mapping[str, Any]]) -> Path:
        path = self.inp / name
        text = "".join(
            (line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines
        )
        path.write_text(text, encoding="utf-8")
        return path

    def protect(self) -> None:
        """Hash every input file now; the harness compares them after the last run."""
        self._hashes = _hashes(self.inp)

    # -- servers ----------------------------------------------------------------------
    def model(self, **kwargs: Any) -> ParagraphModel:
        script = ParagraphModel(**kwargs)
        self.models.append(script)
        return script

    def server(self, server: Any) -> Any:
        self.servers.append(server.start())
        return server

    def messages_server(self, **kwargs: Any) -> tuple[ParagraphModel, FakeMessagesServer]:
        script = self.model(**kwargs)
        return script, self.server(FakeMessagesServer(handler=script))

    # -- runs -------------------------------------------------------------------------
    def env(self, server: Any | None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("ANTHROPIC_", "OPENAI_", "AGENTIC_CHUNKING_", "RAY_"))
        }
        env.update(KEYS)
        env.update(
            PYTHONPATH=os.pathsep.join([str(ROOT), str(self.inp)]),
            TMPDIR=str(self.tmp),
            HOME=str(self.root / "home"),
            PYTHONUNBUFFERED="1",
        )
        if server is not None:
            env["ANTHROPIC_BASE_URL"] = server.base_url
            env["OPENAI_BASE_URL"] = server.base_url
        env.update(extra or {})
        return env

    def start(
        self, args: Sequence[str], server: Any | None = None, env: Mapping[str, str] | None = None
    ) -> subprocess.Popen[str]:
        if self._hashes is None:
            self.protect()
        command = [sys.executable, "-m", "agentic_chunking", *args]
        return subprocess.Popen(
            command,
            env=self.env(server, env),
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
        )

    def finish(
        self,
        process: subprocess.Popen[str],
        args: Sequence[str],
        *,
        expect: Sequence[int] = (0,),
        says: str | None = None,
        label: str = "",
        timeout: float = TIMEOUT_S,
        killed: bool = False,
        started: float | None = None,
    ) -> Run:
        run = Run(label or str(len(self.outcome.runs) + 1), list(args), frozenset(expect), says)
        begun = started if started is not None else time.monotonic()
        try:
            run.stdout, run.stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            run.timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            run.stdout, run.stderr = process.communicate()
        run.seconds = time.monotonic() - begun
        run.returncode = process.returncode
        run.killed = killed
        self.outcome.runs.append(run)
        self._judge(run)
        return run

    def run(
        self,
        args: Sequence[str],
        server: Any | None = None,
        *,
        expect: Sequence[int] = (0,),
        says: str | None = None,
        label: str = "",
        timeout: float = TIMEOUT_S,
        env: Mapping[str, str] | None = None,
    ) -> Run:
        started = time.monotonic()
        process = self.start(args, server, env)
        return self.finish(
            process,
            args,
            expect=expect,
            says=says,
            label=label,
            timeout=timeout,
            started=started,
        )

    def kill_when(
        self,
        process: subprocess.Popen[str],
        args: Sequence[str],
        ready: Callable[[], bool],
        *,
        sig: int = signal.SIGKILL,
        expect: Sequence[int] = (),
        says: str | None = None,
        label: str = "killed",
        within: float = TIMEOUT_S,
    ) -> Run | None:
        """Wait for ``ready()`` (or the run's end), then send ``sig`` to the run. A run
        that ended first is judged as it is (a stage never reached is a note, not a class)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline and process.poll() is None and not ready():
            time.sleep(0.02)
        if process.poll() is not None:
            self.outcome.notes.append(f"note: the run ended ({process.returncode}) before {label}")
            return self.finish(process, args, expect=(0,), label=f"{label} (ended first)")
        if not ready():
            self.outcome.notes.append(f"note: the stage of {label} was not reached in {within} s")
        process.send_signal(sig)
        deliberate = sig == signal.SIGKILL
        return self.finish(
            process,
            args,
            expect=expect or ((-9,) if deliberate else ()),
            says=says,
            label=label,
            killed=deliberate,
        )

    def uninterrupted(
        self, args: Sequence[str], source: Path, *, server: Any | bool | None = None
    ) -> bytes:
        """OUT of a clean run of ``args`` (with IN ``source`` and this trial's OUT put
        elsewhere) against a fresh model: what a killed-then-rerun run must write."""
        fresh = self.root / "fresh"
        fresh.mkdir(exist_ok=True)
        out = fresh / self.out.name
        moved = [str(out) if a == str(self.out) else a for a in args]
        if server is None:
            _, server = self.messages_server()
        self.run(moved, server or None, label="uninterrupted", timeout=180)
        return out.read_bytes() if out.exists() else b""

    # -- judging ----------------------------------------------------------------------
    def _judge(self, run: Run) -> None:
        text = run.stdout + "\n" + run.stderr
        if _TRACEBACK.search(text):
            frame = _TRACEBACK.search(text)
            assert frame is not None
            self.problem("traceback", f"{run.label}: {frame.group(0)!r}")
        if run.timed_out:
            self.problem("hang", f"{run.label}: still running after {run.seconds:.0f} s")
            return
        if run.killed:
            return
        if run.returncode not in run.expect:
            last = run.stderr.strip().splitlines()[-1:] or ["(nothing on stderr)"]
            self.problem(
                "wrong_exit",
                f"{run.label}: exit {run.returncode}, expected {sorted(run.expect)}: {last[0]!r}",
            )
        if run.returncode != 0:
            lines = _message_lines(run.stderr)
            if not lines:
                self.problem("unclear", f"{run.label}: exit {run.returncode}, nothing on stderr")
            elif len(lines) > MAX_LINES:
                self.problem("unclear", f"{run.label}: {len(lines)} lines on stderr")
            elif run.says and not re.search(run.says, run.stderr, re.I):
                self.problem("unclear", f"{run.label}: no line says /{run.says}/: {lines[-1]!r}")

    def check_out(
        self,
        *,
        must_exist: bool = True,
        same_as: bytes | None = None,
        was: bytes | None = None,
        path: Path | None = None,
    ) -> None:
        """OUT whole: valid JSONL (or Parquet), the bytes ``same_as`` when given, the bytes
        ``was`` (the previous file) when a run failed; no temporary file beside it."""
        out = path or self.out
        if was is not None:
            now = out.read_bytes() if out.exists() else None
            if now != was:
                self.problem("lost", f"{out.name} changed by a run that did not succeed")
            return
        if not out.exists():
            if must_exist:
                self.problem("lost", f"{out.name} missing after a successful run")
            return
        problem = _invalid(out)
        if problem:
            self.problem("lost", f"{out.name}: {problem}")
        elif same_as is not None and out.read_bytes() != same_as:
            self.problem("lost", f"{out.name} differs from an uninterrupted run's")
        left = [p.name for p in out.parent.iterdir() if "tmp" in p.name.lower()]
        if left:
            self.problem("lost", f"temporary files beside OUT after success: {left[:3]}")

    def check_paid(self) -> None:
        for number, script in enumerate(self.models):
            if script.paid_twice:
                self.problem("paid_twice", f"model {number}: {script.paid_twice} requests twice")
        for server in self.servers:
            book = getattr(server, "book", None)
            if book is not None:  # a custom_id answered in two batches (one cancelled is free)
                answered: dict[str, int] = {}
                for batch in list(book.batches.values()):
                    for custom_id, kind, _ in batch.results or ():
                        if kind == "succeeded":
                            answered[custom_id] = answered.get(custom_id, 0) + 1
                twice = [c for c, n in answered.items() if n > 1]
                if twice:
                    self.problem("paid_twice", f"{len(twice)} custom_ids answered twice")

    def close(self) -> None:
        for cleanup in reversed(self.cleanups):
            with contextlib.suppress(Exception):
                cleanup()
        for script in self.models:
            script.release.set()
        for server in self.servers:
            with contextlib.suppress(Exception):
                server.stop()
        self.check_paid()
        if self._hashes is not None:
            now = _hashes(self.inp)
            changed = sorted(
                str(p.relative_to(self.inp)) for p in self._hashes if now.get(p) != self._hashes[p]
            )
            if changed:
                self.problem("lost", f"input files changed or removed: {changed[:3]}")
        self._look_for_secrets()

    def _look_for_secrets(self) -> None:
        forms = [form for key in KEYS.values() for form in secret_forms(key)]
        texts = [(f"{r.label} output", r.stdout + r.stderr) for r in self.outcome.runs]
        for path in sorted(self.root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                with contextlib.suppress(OSError):
                    texts.append((str(path.relative_to(self.root)), _read_any(path)))
        for where, text in texts:
            found = [form for form in forms if form in text]
            if found:
                self.problem("secret", f"a key in {where}")


def _read_any(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix in (".gz", ".gzip"):
        import gzip

        with contextlib.suppress(OSError, EOFError):
            data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def _hashes(folder: Path) -> dict[Path, str]:
    return {
        path: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
    }


def _message_lines(stderr: str) -> list[str]:
    """stderr's lines without an argparse usage block (``usage:`` and its indented lines)."""
    lines, in_usage = [], False
    for line in stderr.splitlines():
        if line.startswith("usage:"):
            in_usage = True
            continue
        if in_usage and line.startswith(" "):
            continue
        in_usage = False
        if line.strip():
            lines.append(line)
    return lines


def _invalid(path: Path) -> str | None:
    """Why ``path`` is not a whole output (JSONL: every line a JSON object, the last ended
    by a newline; Parquet: readable), or None."""
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            pq.read_table(path)
        except ImportError:
            return None
        except Exception as error:  # any reading error means a damaged file
            return f"not readable Parquet ({type(error).__name__})"
        return None
    data = path.read_bytes()
    if path.suffix == ".json":
        try:
            json.loads(data)
        except ValueError:
            return "not JSON (cut short?)"
        return None
    if data and not data.endswith(b"\n"):
        return "its last line has no newline (cut short)"
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        try:
            if not isinstance(json.loads(line), dict):
                return f"line {number} is not a JSON object"
        except json.JSONDecodeError:
            return f"line {number} is not JSON"
    return None


# -- the trials -------------------------------------------------------------------------

TRIALS: list[Trial] = []
_REFERENCE: dict[tuple[Any, ...], bytes] = {}
_REFERENCE_LOCK = threading.Lock()


def trial(group: str, *, quick: bool = False) -> Callable[[Callable[[Context], None]], Any]:
    def register(body: Callable[[Context], None]) -> Callable[[Context], None]:
        name = body.__name__.removeprefix("t_")
        TRIALS.append(Trial(name, group, body, quick, (body.__doc__ or "").strip()))
        return body

    return register


def corpus_args(source: Path, out: Path, *extra: str) -> list[str]:
    return ["corpus", str(source), "-o", str(out), "--quiet", *extra]


def reference(count: int, paragraphs: int = 3, *extra: str) -> bytes:
    """OUT of an uninterrupted run over ``folder(count, paragraphs)`` (made once a sweep)."""
    key = (count, paragraphs, extra)
    with _REFERENCE_LOCK:
        if key not in _REFERENCE:
            with tempfile.TemporaryDirectory(prefix="sweep-ref-") as where:
                context = Context(Path(where), Outcome("reference", "reference"))
                _, server = context.messages_server()
                source = context.folder(count, paragraphs)
                run = context.run(corpus_args(source, context.out, *extra), server)
                context.close()
                if run.returncode != 0 or not context.out.exists():
                    raise RuntimeError(f"the reference run failed: {run.stderr[-500:]}")
                _REFERENCE[key] = context.out.read_bytes()
        return _REFERENCE[key]


def _kill_and_rerun(
    context: Context, count: int, hold_after: int | None, *, sig: int = signal.SIGKILL
) -> None:
    previous = b'{"previous": "output"}\n'
    context.out.write_bytes(previous)
    script, server = context.messages_server(hold_after=hold_after)
    source = context.folder(count)
    args = corpus_args(source, context.out, "--max-concurrency", "2")
    process = context.start(args, server)
    if hold_after is None:  # at start-up, before any request
        context.kill_when(process, args, lambda: True, sig=sig, label="killed at start-up")
    else:
        expect = {signal.SIGTERM: (143,), signal.SIGINT: (130,)}.get(sig, ())
        says = "stopped by SIGTERM" if sig == signal.SIGTERM else None

        def ready() -> bool:  # a request held, and every reply paid so far kept
            return script.held >= 1 and _kept(context) >= sum(script.answered.values())

        context.kill_when(process, args, ready, sig=sig, expect=expect, says=says)
    context.check_out(was=previous)
    script._hold_after = None
    script.release.set()
    context.run(args, server, label="rerun")
    context.check_out(same_as=reference(count))


@trial("kill", quick=True)
def t_sigkill_at_start_up(context: Context) -> None:
    """SIGKILL at once, while Python starts; the rerun writes the uninterrupted output."""
    _kill_and_rerun(context, 3, None)


@trial("kill")
def t_sigkill_at_the_first_request(context: Context) -> None:
    """SIGKILL with the first request held by the server; then a rerun."""
    _kill_and_rerun(context, 6, 0)


@trial("kill", quick=True)
def t_sigkill_after_one_reply(context: Context) -> None:
    """SIGKILL with one reply paid and the next request held; then a rerun."""
    _kill_and_rerun(context, 3, 1)


@trial("kill")
def t_sigkill_half_way(context: Context) -> None:
    """SIGKILL half-way (6 of 12 requests answered); then a rerun."""
    _kill_and_rerun(context, 6, 6)


@trial("kill")
def t_sigkill_at_the_last_request(context: Context) -> None:
    """SIGKILL with every request but the last answered; then a rerun."""
    _kill_and_rerun(context, 6, 11)


@trial("kill")
def t_sigkill_while_writing(context: Context) -> None:
    """SIGKILL when the ledger holds every document (OUT being written); then a rerun."""
    _script, server = context.messages_server()
    source = context.folder(30)
    previous = b'{"previous": "output"}\n'
    context.out.write_bytes(previous)
    args = corpus_args(source, context.out)
    process = context.start(args, server)
    ledger = context.out_dir / "chunks.ledger.sqlite"

    def all_done() -> bool:
        return _done(ledger) >= 30

    context.kill_when(process, args, all_done, label="killed at the write")
    now = context.out.read_bytes() if context.out.exists() else None
    if now not in (previous, None) and _invalid(context.out):
        context.problem("lost", "OUT half-written by the kill")
    context.run(args, server, label="rerun")
    context.check_out(same_as=reference(30))


def _kept(context: Context) -> int:
    """Replies in the run's reply cache: a reply the server sent is paid, but one the
    command had no time to receive and keep before a kill is lost whatever it does (the
    kill is sent once every answered reply is kept, so paid_twice means a kept one)."""
    cache = context.out.parent / (context.out.stem + ".replies")
    return len(list(cache.glob("*.json"))) if cache.is_dir() else 0


def _done(ledger: Path) -> int:
    if not ledger.exists():
        return 0
    try:
        with contextlib.closing(
            sqlite3.connect(f"file:{ledger}?mode=ro", uri=True, timeout=0.1)
        ) as db:
            tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
            for table in tables:
                columns = [r[1] for r in db.execute(f"pragma table_info({table})")]
                if "status" in columns:
                    row = db.execute(f"select count(*) from {table} where status='done'").fetchone()
                    return int(row[0])
    except sqlite3.Error:
        return 0
    return 0


@trial("signal")
def t_sigterm_while_calls_hang(context: Context) -> None:
    """SIGTERM with calls held: 143, one line, OUT as it was; then a rerun."""
    _kill_and_rerun(context, 6, 2, sig=signal.SIGTERM)


@trial("signal")
def t_sigint_while_calls_hang(context: Context) -> None:
    """SIGINT (Ctrl-C) with calls held: 130, one line, OUT as it was; then a rerun."""
    _kill_and_rerun(context, 6, 2, sig=signal.SIGINT)


# -- batch ------------------------------------------------------------------------------

BATCH = ["--batch", "--batch-poll", "0.1"]


def _batch_server(context: Context, **kwargs: Any) -> tuple[ParagraphModel, Any]:
    script = context.model()
    return script, context.server(FakeMessageBatchesServer(handler=script, **kwargs))


def _batch_kill(context: Context, stage: int, *, sig: int = signal.SIGKILL) -> None:
    """Kill a --batch run when its ``stage``-th batch is in flight; rerun with --batch."""
    _script, server = _batch_server(context, polls_to_end=10**6)
    source = context.folder(4)
    args = corpus_args(source, context.out, *BATCH)
    process = context.start(args, server)
    book = server.book

    def in_flight() -> bool:
        if len(book.batches) >= stage:
            book.polls_to_end = 10**6
            return True
        if len(book.batches) == stage - 1 and stage > 1:
            book.polls_to_end = 1  # let the earlier rounds end
        return False

    expect = {signal.SIGTERM: (143,)}.get(sig, ())
    says = "stopped by SIGTERM" if sig == signal.SIGTERM else None
    context.kill_when(process, args, in_flight, sig=sig, expect=expect, says=says)
    context.check_out(must_exist=False)
    book.polls_to_end = 1
    context.run(args, server, label="rerun --batch")
    context.check_out(same_as=reference(4, 3))


@trial("batch")
def t_batch_sigkill_first_round_in_flight(context: Context) -> None:
    """SIGKILL with the extraction batch in flight; the rerun re-attaches to it."""
    _batch_kill(context, 1)


@trial("batch")
def t_batch_sigkill_second_round_in_flight(context: Context) -> None:
    """SIGKILL with the grouping batch in flight (extraction collected); then a rerun."""
    _batch_kill(context, 2)


@trial("batch")
def t_batch_sigterm_in_flight(context: Context) -> None:
    """SIGTERM with a batch in flight: 143 and one line; the rerun collects the batch."""
    _batch_kill(context, 1, sig=signal.SIGTERM)


@trial("batch")
def t_batch_killed_then_rerun_without_batch(context: Context) -> None:
    """SIGKILL with a batch in flight, then a synchronous rerun: its documents fail (1),
    the batch named, nothing paid twice; then a --batch rerun collects it."""
    _script, server = _batch_server(context, polls_to_end=10**6)
    source = context.folder(4)
    args = corpus_args(source, context.out, *BATCH)
    process = context.start(args, server)
    context.kill_when(process, args, lambda: len(server.book.batches) >= 1)
    server.book.polls_to_end = 1
    context.run(
        corpus_args(source, context.out), server, expect=(1,), says="batch", label="sync rerun"
    )
    context.run(args, server, label="rerun --batch")
    context.check_out(same_as=reference(4, 3))


@trial("batch")
def t_batch_server_cancels_the_first_batch(context: Context) -> None:
    """The server cancels the first batch: its requests go into the next round, exit 0."""
    _, server = _batch_server(context, cancel_batches=[1])
    source = context.folder(4)
    context.run(corpus_args(source, context.out, *BATCH), server)
    context.check_out(same_as=reference(4, 3))


@trial("batch")
def t_batch_server_cancels_every_batch(context: Context) -> None:
    """The server cancels every batch: the run must end (documents failed, exit 1), not
    submit round after round for ever."""
    _, server = _batch_server(context, cancel_batches=range(1, 10**4))
    source = context.folder(2)
    context.run(
        corpus_args(source, context.out, *BATCH), server, expect=(1,), says="cancel", timeout=60
    )
    context.check_out(must_exist=False)


class _MortalBatchServer(FakeMessageBatchesServer):
    """A batch server that can die: once ``dead``, every request on a connection still
    open is dropped without an answer (a stopped ThreadingHTTPServer still answers on the
    keep-alive connections it had), and new ones are refused once stopped."""

    dead = False

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Any:
        if self.dead:
            raise ConnectionAbortedError("the sweep's server died")
        return super()._answer(method, path, headers, body)


@trial("batch")
def t_batch_server_dies_mid_batch(context: Context) -> None:
    """The server goes away with a batch in flight: the run ends within its timeout with
    one line (exit 1 or 3), OUT not written; a rerun against a live server collects."""
    script = context.model()
    server = context.server(_MortalBatchServer(handler=script, polls_to_end=10**6))
    source = context.folder(3)
    args = corpus_args(source, context.out, *BATCH, "--timeout", "5")
    process = context.start(args, server)
    while process.poll() is None and not server.book.batches:
        time.sleep(0.02)
    server.dead = True  # the connections it holds open drop too (stop() alone keeps them)
    server.stop()
    context.finish(process, args, expect=(1, 2, 3), says="batch|server|connect", timeout=120)
    context.check_out(must_exist=False)


# -- disks ------------------------------------------------------------------------------


def _tmpfs(context: Context, name: str, size: str) -> Path:
    place = context.root / name
    place.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        raise Skip("needs root to mount a small tmpfs")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(place)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise Skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    context.cleanups.append(lambda: subprocess.run(["umount", "-l", str(place)], check=False))
    return place


def _grow(place: Path) -> None:
    subprocess.run(["mount", "-o", "remount,size=64m", str(place)], check=True)


@trial("disk")
def t_full_disk_under_out(context: Context) -> None:
    """OUT (and its reply cache) on a 200 KB tmpfs that fills mid-run: exit 2 naming the
    room to free; once there is room, the rerun pays for nothing again."""
    disk = _tmpfs(context, "disk", "200k")
    context.out = disk / "chunks.jsonl"
    _, server = context.messages_server()
    source = context.folder(40, 12)
    args = corpus_args(source, context.out)
    context.run(args, server, expect=(2,), says="space|full|room", label="full")
    _grow(disk)
    context.run(args, server, label="rerun")
    context.check_out(same_as=reference(40, 12))


@trial("disk")
def t_full_disk_under_the_ledger(context: Context) -> None:
    """--ledger on a 64 KB tmpfs that fills mid-run: exit 2; the rerun pays for nothing."""
    disk = _tmpfs(context, "disk", "64k")
    _, server = context.messages_server()
    source = context.folder(60, 3)
    args = corpus_args(source, context.out, "--ledger", str(disk / "ledger.sqlite"))
    context.run(args, server, expect=(0, 2), says="space|full|room", label="full")
    _grow(disk)
    context.run(args, server, label="rerun")
    context.check_out(same_as=reference(60, 3))


@trial("disk")
def t_full_disk_under_tmpdir(context: Context) -> None:
    """TMPDIR on a full tmpfs (OUT elsewhere): the run writes OUT or says why in one line."""
    disk = _tmpfs(context, "disk", "4k")
    with contextlib.suppress(OSError):
        (disk / "filler").write_bytes(b"x" * 8192)
    _, server = context.messages_server()
    source = context.folder(3)
    context.run(corpus_args(source, context.out), server, expect=(0, 2), env={"TMPDIR": str(disk)})
    context.check_out(must_exist=False)


# -- the ledger -------------------------------------------------------------------------


def _ledger(context: Context) -> Path:
    return context.out_dir / "chunks.ledger.sqlite"


@trial("ledger", quick=True)
def t_ledger_of_garbage(context: Context) -> None:
    """A ledger that is not SQLite: exit 2, one line saying it is damaged."""
    _, server = context.messages_server()
    source = context.folder(2)
    _ledger(context).write_bytes(b"this is not a database\n" * 100)
    context.run(corpus_args(source, context.out), server, expect=(2,), says="damaged")
    context.check_out(must_exist=False)


def _finished_run(context: Context, count: int) -> tuple[list[str], Any]:
    _, server = context.messages_server()
    source = context.folder(count)
    args = corpus_args(source, context.out)
    context.run(args, server, label="first")
    return args, server


@trial("ledger")
def t_ledger_truncated(context: Context) -> None:
    """A finished run's ledger cut to half its size: exit 2 (damaged) or a rerun that
    recovers; moved away, the rerun takes every reply from the cache."""
    args, server = _finished_run(context, 6)
    ledger = _ledger(context)
    for extra in ledger.parent.glob(ledger.name + "-*"):
        extra.unlink()
    data = ledger.read_bytes()
    ledger.write_bytes(data[: len(data) // 2])
    run = context.run(args, server, expect=(0, 2), says="damaged", label="truncated")
    if run.returncode == 2:
        ledger.rename(ledger.with_suffix(".moved"))
        context.run(args, server, label="moved away")
    context.check_out(same_as=reference(6))


@trial("ledger")
def t_ledger_row_corrupted(context: Context) -> None:
    """A finished run's ledger with a row's columns overwritten by junk: exit 2 (damaged)
    or a rerun that redoes the document from the reply cache."""
    args, server = _finished_run(context, 4)
    ledger = _ledger(context)
    with contextlib.closing(sqlite3.connect(ledger)) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        for table in tables:
            columns = [r[1] for r in db.execute(f"pragma table_info({table})")]
            for column in columns:
                with contextlib.suppress(sqlite3.Error):
                    db.execute(f"update {table} set {column} = x'00ff00ff'")
        db.commit()
    context.run(args, server, expect=(0, 2), says="damaged", label="corrupted")
    context.check_out(must_exist=False)


@trial("ledger")
def t_ledger_locked(context: Context) -> None:
    """A ledger another program holds locked: exit 2 within seconds, one line."""
    args, server = _finished_run(context, 2)
    db = sqlite3.connect(_ledger(context), isolation_level=None)
    db.execute("begin exclusive")
    context.cleanups.append(db.close)
    context.run(args, server, expect=(2,), says="locked", label="locked", timeout=60)


@trial("ledger")
def t_two_runs_on_one_out(context: Context) -> None:
    """A second run on the same OUT while the first runs: refused (2); nothing paid twice."""
    script, server = context.messages_server(hold_after=2)
    source = context.folder(6)
    args = corpus_args(source, context.out)
    first = context.start(args, server)
    deadline = time.monotonic() + TIMEOUT_S
    while script.held < 1 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    context.run(args, server, expect=(2,), says="another run", label="second")
    script._hold_after = None
    script.release.set()
    context.finish(first, args, label="first", expect=(0,))
    context.check_out(same_as=reference(6))


# -- bad inputs -------------------------------------------------------------------------


def _bad_input(context: Context, path: Path, says: str, expect: Sequence[int] = (2,)) -> None:
    _, server = context.messages_server()
    context.run(corpus_args(path, context.out), server, expect=expect, says=says)
    context.check_out(must_exist=False)


@trial("input", quick=True)
def t_jsonl_line_not_json(context: Context) -> None:
    """A JSONL line that is not JSON: exit 2 naming the line."""
    path = context.jsonl("c.jsonl", [{"document_id": "a", "text": "A fact."}, "{not json"])
    _bad_input(context, path, "line 2")


@trial("input")
def t_jsonl_line_not_an_object(context: Context) -> None:
    """A JSONL line that is a list: exit 2 naming the line."""
    _bad_input(context, context.jsonl("c.jsonl", ["[1, 2]"]), "line 1")


@trial("input")
def t_jsonl_without_text(context: Context) -> None:
    """A record without 'text': exit 2 naming the field."""
    _bad_input(context, context.jsonl("c.jsonl", [{"document_id": "a"}]), "text")


@trial("input")
def t_jsonl_text_not_a_string(context: Context) -> None:
    """A record whose text is a number: exit 2 naming the field."""
    path = context.jsonl("c.jsonl", [{"document_id": "a", "text": 5}])
    _bad_input(context, path, "text")


@trial("input")
def t_jsonl_empty_file(context: Context) -> None:
    """An empty JSONL file: exit 2 saying there is no document (or 0 with nothing)."""
    path = context.inp / "c.jsonl"
    path.write_bytes(b"")
    _bad_input(context, path, "empty|no document", expect=(0, 2))


@trial("input")
def t_jsonl_cut_mid_line(context: Context) -> None:
    """A JSONL file cut in the middle of its last record: exit 2 naming the line."""
    path = context.inp / "c.jsonl"
    path.write_text('{"document_id": "a", "text": "A fact."}\n{"document_id": "b", "te', "utf-8")
    _bad_input(context, path, "line 2")


@trial("input")
def t_jsonl_with_bom_and_crlf(context: Context) -> None:
    """A JSONL file saved with a BOM and CRLF endings: read as any other (exit 0)."""
    path = context.inp / "c.jsonl"
    records = [{"document_id": f"d{n}", "text": document(n)} for n in (1, 2)]
    text = "\ufeff" + "".join(json.dumps(r) + "\r\n" for r in records)
    path.write_bytes(text.encode("utf-8"))
    _, server = context.messages_server()
    context.run(corpus_args(path, context.out), server, expect=(0, 2), says="BOM|line 1")
    context.check_out(must_exist=False)


@trial("input")
def t_jsonl_binary(context: Context) -> None:
    """A .jsonl that is gzip bytes: exit 2 saying it is not text."""
    import gzip

    path = context.inp / "c.jsonl"
    path.write_bytes(gzip.compress(b'{"document_id": "a", "text": "x"}\n'))
    _bad_input(context, path, "text|UTF-8|binary|compress")


@trial("input")
def t_parquet_garbage(context: Context) -> None:
    """A .parquet file that is not Parquet: exit 2 in one line."""
    path = context.inp / "c.parquet"
    path.write_bytes(b"PAR1 this is not parquet at all" * 10)
    _bad_input(context, path, "parquet")


@trial("input")
def t_parquet_missing_columns(context: Context) -> None:
    """A Parquet file without the 'text' column: exit 2 naming it."""
    pa, pq = _pyarrow()
    path = context.inp / "c.parquet"
    pq.write_table(pa.table({"document_id": ["a"], "body": ["A fact."]}), path)
    _bad_input(context, path, "text")


@trial("input")
def t_parquet_null_text(context: Context) -> None:
    """A Parquet row whose text is null: exit 2 naming the row (or that document failed)."""
    pa, pq = _pyarrow()
    path = context.inp / "c.parquet"
    pq.write_table(pa.table({"document_id": ["a", "b"], "text": [document(1), None]}), path)
    _bad_input(context, path, "text|null|row", expect=(1, 2))


@trial("input")
def t_parquet_cut_short(context: Context) -> None:
    """A Parquet file cut to half its size (a copy that did not finish): exit 2."""
    pa, pq = _pyarrow()
    path = context.inp / "c.parquet"
    texts = [document(n, 30) for n in range(40)]
    pq.write_table(pa.table({"document_id": [f"d{n}" for n in range(40)], "text": texts}), path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    _bad_input(context, path, "parquet")


@trial("input")
def t_csv_input(context: Context) -> None:
    """A CSV file as IN: exit 2 naming the kinds of corpus read, or its rows read as a
    document of text (exit 0)."""
    path = context.inp / "c.csv"
    path.write_text("document_id,text\na,A fact.\n", "utf-8")
    _bad_input(context, path, "jsonl|parquet|folder", expect=(0, 2))


@trial("input")
def t_in_missing(context: Context) -> None:
    """IN that does not exist: exit 2 naming it."""
    _bad_input(context, context.inp / "nothing-here", "nothing-here")


@trial("input")
def t_in_empty_folder(context: Context) -> None:
    """An empty folder as IN: exit 2 saying there is no document."""
    empty = context.inp / "empty"
    empty.mkdir()
    _bad_input(context, empty, "no document|empty|no file", expect=(0, 2))


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:
        raise Skip("pyarrow is not installed (the corpus extra)") from error
    return pa, pq


def _ids_trial(context: Context, ids: Sequence[str], says: str) -> None:
    """Documents with these ids: refused in one line (2), or chunked (0) with every id
    kept in OUT and nothing written outside the trial's folder."""
    records = [{"document_id": i, "text": document(n)} for n, i in enumerate(ids, 1)]
    path = context.jsonl("c.jsonl", records)
    before = set(context.root.parent.iterdir())
    _, server = context.messages_server()
    run = context.run(corpus_args(path, context.out), server, expect=(0, 2), says=says)
    after = set(context.root.parent.iterdir())
    if after - before:
        context.problem("lost", f"written outside the trial's folder: {sorted(after - before)}")
    context.check_out(must_exist=run.returncode == 0)
    if run.returncode == 0 and context.out.exists():
        seen = {
            json.loads(line)["DocumentId"] for line in context.out.read_text("utf-8").splitlines()
        }
        if seen != set(ids):
            context.problem("lost", f"ids in OUT differ: {sorted(seen ^ set(ids))[:3]!r}")


@trial("ids", quick=True)
def t_ids_with_dot_dot(context: Context) -> None:
    """Ids '../x' and '../../etc/y': kept as ids, no file made outside."""
    _ids_trial(context, ["../x", "../../etc/y"], "id")


@trial("ids")
def t_ids_with_slashes(context: Context) -> None:
    """Ids 'a/b', '/abs', 'a\\\\b': kept as ids."""
    _ids_trial(context, ["a/b", "/abs", "a\\b"], "id")


@trial("ids")
def t_id_with_nul(context: Context) -> None:
    """An id holding a NUL character: refused (2) or kept."""
    _ids_trial(context, ["a\x00b", "c"], "id|NUL")


@trial("ids")
def t_id_very_long(context: Context) -> None:
    """A 100,000-character id: refused (2) or kept."""
    _ids_trial(context, ["x" * 100_000, "y"], "id|long")


@trial("ids")
def t_id_empty(context: Context) -> None:
    """An empty id: refused in one line naming it."""
    _ids_trial(context, ["", "b"], "id|empty")


@trial("ids")
def t_ids_repeated(context: Context) -> None:
    """The same id twice: refused in one line naming both lines."""
    _ids_trial(context, ["same", "same"], "same|twice|repeat|line")


@trial("ids")
def t_id_not_a_string(context: Context) -> None:
    """An id that is a number or null: refused, or read as its text."""
    path = context.jsonl(
        "c.jsonl",
        [{"document_id": 7, "text": document(1)}, {"document_id": None, "text": document(2)}],
    )
    _, server = context.messages_server()
    run = context.run(corpus_args(path, context.out), server, expect=(0, 2), says="document_id")
    context.check_out(must_exist=run.returncode == 0)


# -- limits -----------------------------------------------------------------------------

LIMITS: list[tuple[str, str, str]] = [
    ("concurrency_zero", "--max-concurrency", "0"),
    ("concurrency_negative", "--max-concurrency", "-4"),
    ("concurrency_huge", "--max-concurrency", "1000000000"),
    ("rpm_zero", "--requests-per-minute", "0"),
    ("rpm_negative", "--requests-per-minute", "-1"),
    ("tpm_zero", "--tokens-per-minute", "0"),
    ("batch_tokens_zero", "--max-tokens-per-batch", "0"),
    ("chunk_tokens_zero", "--max-chunk-tokens", "0"),
    ("extraction_tokens_huge", "--extraction-max-tokens", "1000000000000"),
    ("grouping_tokens_zero", "--grouping-max-tokens", "0"),
    ("timeout_zero", "--timeout", "0"),
    ("timeout_nan", "--timeout", "nan"),
    ("batch_poll_zero", "--batch-poll", "0"),
    ("batch_poll_nan", "--batch-poll", "nan"),
    ("batch_documents_zero", "--batch-documents", "0"),
]


def _limit_trial(option: str, value: str) -> Callable[[Context], None]:
    def body(context: Context) -> None:
        _, server = context.messages_server()
        source = context.folder(2)
        extra = [option, value]
        if option.startswith("--batch-"):
            extra.append("--batch")
        pattern = re.escape(option.lstrip("-"))
        run = context.run(
            corpus_args(source, context.out, *extra),
            server,
            expect=(0, 2),
            says=pattern,
            timeout=60,
        )
        context.check_out(must_exist=run.returncode == 0)

    body.__doc__ = (
        f"corpus {option} {value}: refused naming the option (2), or a run that ends (0)."
    )
    return body


for _name, _option, _value in LIMITS:
    TRIALS.append(
        Trial(
            f"limit_{_name}",
            "limits",
            _limit_trial(_option, _value),
            quick=_name in ("concurrency_zero", "rpm_zero"),
        )
    )


# -- more kills, reruns and outputs ------------------------------------------------------


def _killed_half_way(
    context: Context, args: list[str], script: ParagraphModel, server: Any
) -> None:
    process = context.start(args, server)

    def ready() -> bool:
        return script.held >= 1 and _kept(context) >= sum(script.answered.values())

    context.kill_when(process, args, ready)
    script._hold_after = None
    script.release.set()


@trial("kill")
def t_sigkill_twice_then_rerun(context: Context) -> None:
    """Killed half-way, the rerun killed again further on, a third run ends: nothing paid
    twice, the uninterrupted output."""
    script, server = context.messages_server(hold_after=4)
    source = context.folder(8)
    args = corpus_args(source, context.out, "--max-concurrency", "2")
    _killed_half_way(context, args, script, server)
    script._hold_after = sum(script.answered.values()) + 4
    script.release.clear()
    _killed_half_way(context, args, script, server)
    context.run(args, server, label="third run")
    context.check_out(same_as=reference(8))


@trial("kill")
def t_document_edited_between_kill_and_rerun(context: Context) -> None:
    """Killed half-way, a finished document edited, then a rerun: the edit is chunked
    (OUT as a clean run of the edited corpus), nothing paid twice."""
    script, server = context.messages_server(hold_after=6)
    source = context.folder(6)
    args = corpus_args(source, context.out, "--max-concurrency", "2")
    _killed_half_way(context, args, script, server)
    (source / "d001.txt").write_text(document(101), encoding="utf-8")
    context.protect()
    context.run(args, server, label="rerun")
    context.check_out(same_as=context.uninterrupted(args, source))


@trial("kill")
def t_settings_changed_after_a_kill(context: Context) -> None:
    """Killed half-way, rerun with another --max-chunk-tokens: every document redone from
    the reply cache, none paid again."""
    script, server = context.messages_server(hold_after=6)
    source = context.folder(6)
    args = corpus_args(source, context.out, "--max-concurrency", "2")
    _killed_half_way(context, args, script, server)
    changed = [*args, "--max-chunk-tokens", "100"]
    context.run(changed, server, label="rerun, changed")
    context.check_out(same_as=context.uninterrupted(changed, source))


@trial("kill")
def t_parquet_out_killed_then_rerun(context: Context) -> None:
    """OUT.parquet: killed half-way (OUT as it was), the rerun writes a whole Parquet file
    and leaves no temporary file."""
    _pyarrow()
    context.out = context.out_dir / "chunks.parquet"
    script, server = context.messages_server(hold_after=6)
    source = context.folder(6)
    args = corpus_args(source, context.out, "--max-concurrency", "2")
    _killed_half_way(context, args, script, server)
    if context.out.exists():
        context.problem("lost", "a Parquet OUT appeared after a kill")
    context.run(args, server, label="rerun")
    context.check_out()


@trial("batch")
def t_openai_batch_killed_then_rerun(context: Context) -> None:
    """--batch on an OpenAI-compatible server, killed with the batch in flight; the rerun
    re-attaches and pays for nothing twice."""
    from agentic_chunking.testing import FakeBatchAPIServer

    script = context.model()
    server = context.server(FakeBatchAPIServer(handler=script, polls_to_end=10**6))
    source = context.folder(4)
    args = corpus_args(source, context.out, "--model", "openai:gpt-4o-mini", *BATCH)
    process = context.start(args, server)
    context.kill_when(process, args, lambda: len(server.book.batches) >= 1)
    server.book.polls_to_end = 1
    context.run(args, server, label="rerun --batch")
    context.check_out()


@trial("ledger")
def t_one_ledger_for_two_corpora(context: Context) -> None:
    """--ledger shared by a run on corpus A and then one on corpus B (the same file names,
    other texts): B's documents are chunked from B's texts, not skipped as A's."""
    _, server = context.messages_server()
    first = context.folder(3)
    ledger = context.out_dir / "shared.sqlite"
    context.run(corpus_args(first, context.out_dir / "a.jsonl", "--ledger", str(ledger)), server)
    other = context.inp / "other"
    other.mkdir()
    for number in range(1, 4):
        (other / f"d{number:03d}.txt").write_text(document(number + 50), encoding="utf-8")
    context.protect()
    args = corpus_args(other, context.out, "--ledger", str(ledger))
    context.run(args, server, label="corpus B")
    context.check_out(same_as=context.uninterrupted(corpus_args(other, context.out), other))


@trial("ledger")
def t_two_outs_one_ledger_at_once(context: Context) -> None:
    """Two runs at once with different -o and the same --ledger: the second refused (2)."""
    script, server = context.messages_server(hold_after=2)
    source = context.folder(6)
    ledger = str(context.out_dir / "shared.sqlite")
    first_args = corpus_args(source, context.out_dir / "a.jsonl", "--ledger", ledger)
    first = context.start(first_args, server)
    deadline = time.monotonic() + TIMEOUT_S
    while script.held < 1 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    second = corpus_args(source, context.out, "--ledger", ledger)
    context.run(second, server, expect=(2,), says="another run", label="second")
    script._hold_after = None
    script.release.set()
    context.finish(first, first_args, label="first")


# -- outputs and paths --------------------------------------------------------------------


def _path_trial(
    context: Context, extra: Sequence[str], says: str, *, out: Path | None = None
) -> None:
    script, server = context.messages_server()
    source = context.folder(2)
    context.run(corpus_args(source, out or context.out, *extra), server, expect=(2,), says=says)
    if script.answered:
        context.problem("wrong_exit", "a path refused only after model calls were paid")


@trial("paths")
def t_ledger_is_a_directory(context: Context) -> None:
    """--ledger naming a directory: exit 2 before any call, naming it."""
    (context.out_dir / "ledgerdir").mkdir()
    _path_trial(context, ["--ledger", str(context.out_dir / "ledgerdir")], "ledger")


@trial("paths")
def t_cache_dir_is_a_file(context: Context) -> None:
    """--cache-dir naming a file: exit 2 before any call, naming it."""
    (context.out_dir / "cachefile").write_text("x")
    _path_trial(context, ["--cache-dir", str(context.out_dir / "cachefile")], "cache")


@trial("paths")
def t_out_is_a_directory(context: Context) -> None:
    """-o naming a directory: exit 2 before any call."""
    (context.out_dir / "x.jsonl").mkdir()
    _path_trial(context, [], "directory", out=context.out_dir / "x.jsonl")


@trial("paths")
def t_out_is_the_input_file(context: Context) -> None:
    """corpus C.jsonl -o C.jsonl: refused (2), the input untouched."""
    path = context.jsonl("c.jsonl", [{"document_id": "a", "text": document(1)}])
    _, server = context.messages_server()
    context.run(
        ["corpus", str(path), "-o", str(path), "--quiet"], server, expect=(2,), says="input"
    )


@trial("paths")
def t_read_only_out_folder(context: Context) -> None:
    """OUT on a read-only filesystem: exit 2 before any call, naming the folder."""
    disk = _tmpfs(context, "disk", "1m")
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    _path_trial(context, [], "write|read-only|permission", out=disk / "chunks.jsonl")


@trial("disk")
def t_full_disk_keeps_the_previous_out(context: Context) -> None:
    """A previous OUT on a tmpfs that fills during the run: exit 2, the previous OUT whole."""
    disk = _tmpfs(context, "disk", "256k")
    context.out = disk / "chunks.jsonl"
    previous = b'{"previous": "output"}\n' * 2000
    context.out.write_bytes(previous)
    _, server = context.messages_server()
    source = context.folder(40, 12)
    args = corpus_args(source, context.out, "--cache-dir", str(context.out_dir / "replies"))
    context.run(args, server, expect=(2,), says="space|full|room", label="full")
    context.check_out(was=previous)
    _grow(disk)
    context.run(args, server, label="rerun")
    context.check_out(same_as=reference(40, 12))


@trial("disk")
def t_full_disk_under_the_cache_dir(context: Context) -> None:
    """--cache-dir on a 64 KB tmpfs: the run goes on (a warning) or stops (2); a rerun
    pays for no finished document again."""
    disk = _tmpfs(context, "disk", "64k")
    _, server = context.messages_server()
    source = context.folder(40, 6)
    args = corpus_args(source, context.out, "--cache-dir", str(disk / "replies"))
    context.run(args, server, expect=(0, 2), says="space|full|room", label="full")
    _grow(disk)
    context.run(args, server, label="rerun")
    context.check_out(same_as=reference(40, 6))


# -- the folder's own files -----------------------------------------------------------------


@trial("input")
def t_named_pipe_inside_the_folder(context: Context) -> None:
    """A named pipe among a folder's files: set aside or failed with its name, no hang."""
    source = context.folder(2)
    os.mkfifo(source / "pipe.txt")
    _, server = context.messages_server()
    context.run(corpus_args(source, context.out), server, expect=(0, 1), says="pipe", timeout=60)
    context.check_out(must_exist=False)


@trial("input")
def t_symlink_loop_inside_the_folder(context: Context) -> None:
    """A symlink loop among a folder's files: named (failed or set aside), the rest done."""
    source = context.folder(2)
    (source / "loop.txt").symlink_to(source / "loop.txt")
    _, server = context.messages_server()
    context.run(corpus_args(source, context.out), server, expect=(0, 1), says="loop")
    context.check_out(must_exist=False)


@trial("input")
def t_symlink_to_a_folder_above(context: Context) -> None:
    """A symlink to the folder's own parent (a cycle through the tree): no hang, no file
    read twice for ever; each document once."""
    source = context.folder(2)
    (source / "up").symlink_to(context.inp, target_is_directory=True)
    _, server = context.messages_server()
    context.run(corpus_args(source, context.out), server, expect=(0, 1, 2), timeout=60)
    context.check_out(must_exist=False)


# -- keys and settings ------------------------------------------------------------------------


def _env_trial(context: Context, env: Mapping[str, str], expect: Sequence[int], says: str) -> None:
    _, server = context.messages_server()
    source = context.folder(2)
    context.run(corpus_args(source, context.out), server, expect=expect, says=says, env=env)
    context.check_out(must_exist=False)


@trial("settings")
def t_key_missing(context: Context) -> None:
    """No ANTHROPIC_API_KEY: exit 2 naming the variable, before any file."""
    _env_trial(context, {"ANTHROPIC_API_KEY": ""}, (2,), "ANTHROPIC_API_KEY")


@trial("settings")
def t_key_with_a_newline(context: Context) -> None:
    """A key pasted with a newline: used without it (0) or refused in one line (2)."""
    key = KEYS["ANTHROPIC_API_KEY"] + "\n"
    _env_trial(context, {"ANTHROPIC_API_KEY": key}, (0, 2), "ANTHROPIC_API_KEY")


@trial("settings")
def t_key_with_a_character_outside_ascii(context: Context) -> None:
    """A key holding 'é' (a bad paste): refused in one line (2), never shown."""
    key = KEYS["ANTHROPIC_API_KEY"] + "é"
    _env_trial(context, {"ANTHROPIC_API_KEY": key}, (2,), "ANTHROPIC_API_KEY")


@trial("settings")
def t_base_url_not_a_url(context: Context) -> None:
    """ANTHROPIC_BASE_URL 'not a url': exit 2 naming the variable."""
    _env_trial(context, {"ANTHROPIC_BASE_URL": "not a url"}, (2,), "ANTHROPIC_BASE_URL")


@trial("settings")
def t_model_of_an_unknown_provider(context: Context) -> None:
    """--model foo:bar: exit 2 naming the model."""
    _, server = context.messages_server()
    source = context.folder(2)
    context.run(
        corpus_args(source, context.out, "--model", "foo:bar"), server, expect=(2,), says="foo"
    )


# -- split over a corpus ----------------------------------------------------------------------


@trial("input")
def t_split_over_a_bad_jsonl(context: Context) -> None:
    """split over a JSONL with a bad line: exit 2 naming the line."""
    path = context.jsonl("c.jsonl", [{"document_id": "a", "text": document(1)}, "{oops"])
    context.run(
        ["split", str(path), "-o", str(context.out)],
        None,
        expect=(2,),
        says="line 2",
        timeout=120,
    )
    context.check_out(must_exist=False)


# -- bad servers ---------------------------------------------------------------------------


class _OddBatchServer(FakeMessageBatchesServer):
    """A batch server whose results file is ``results`` (bytes) instead of the real one."""

    results: bytes = b""

    def _results_jsonl(self, batch: Any) -> bytes:
        return self.results


def _odd_batch_trial(context: Context, results: Callable[[bytes], bytes]) -> None:
    script = context.model()
    server = context.server(_OddBatchServer(handler=script, polls_to_end=1))
    real = FakeMessageBatchesServer._results_jsonl

    def answer(batch: Any) -> bytes:
        return results(real(server, batch))

    server._results_jsonl = answer  # type: ignore[method-assign]
    source = context.folder(2)
    context.run(
        corpus_args(source, context.out, *BATCH),
        server,
        expect=(1, 3),
        says="batch|result",
        timeout=60,
    )
    context.check_out(must_exist=False)


@trial("server")
def t_batch_results_not_jsonl(context: Context) -> None:
    """A batch whose results file is not JSONL: its documents fail in one line, no trace."""
    _odd_batch_trial(context, lambda real: b"<html>502 Bad Gateway</html>\n")


@trial("server")
def t_batch_results_cut_short(context: Context) -> None:
    """A batch whose results file is cut in the middle of a line: no trace, nothing lost."""
    _odd_batch_trial(context, lambda real: real[: len(real) // 2])


@trial("server")
def t_batch_results_of_other_requests(context: Context) -> None:
    """A batch whose results name custom_ids it was never sent: no trace, nothing lost."""
    _odd_batch_trial(context, lambda real: re.sub(rb'"custom_id": "', b'"custom_id": "x', real))


class _RawServer(FakeMessagesServer):
    """A Messages server that answers every request with one raw response."""

    status = 200
    payload: bytes | dict[str, Any] = b""
    headers: ClassVar[dict[str, str]] = {}
    delay_s = 0.0

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Any:
        return _response_class()(self.status, self.payload, dict(self.headers), self.delay_s)


def _response_class() -> Any:
    """The loopback servers' response record (``testing._Response``, or
    ``_loopback._server.Response`` once the servers moved there)."""
    import agentic_chunking.testing as testing

    found = getattr(testing, "_Response", None)
    if found is None:
        from agentic_chunking._loopback._server import (  # type: ignore[import-not-found]
            Response as found,
        )
    return found


def _raw_trial(
    context: Context,
    *,
    expect: Sequence[int] = (1, 2, 3),
    says: str,
    timeout: float = 90,
    extra: Sequence[str] = (),
    **attributes: Any,
) -> None:
    server = _RawServer()
    for name, value in attributes.items():
        setattr(server, name, value)
    context.server(server)
    source = context.folder(2)
    context.run(
        corpus_args(source, context.out, *extra),
        server,
        expect=expect,
        says=says,
        timeout=timeout,
    )
    context.check_out(must_exist=False)


@trial("server")
def t_server_answers_200_html(context: Context) -> None:
    """200 with an HTML page (a captive portal): one line naming the server, no trace."""
    _raw_trial(
        context,
        payload=b"<html><body>Log in to the Wi-Fi</body></html>",
        headers={"content-type": "text/html"},
        says="server|message|reply|html",
    )


@trial("server")
def t_server_answers_json_without_content(context: Context) -> None:
    """200 with JSON that is not a message: one line, no trace."""
    _raw_trial(context, payload={"hello": "world"}, says="server|message|reply")


@trial("server")
def t_server_rate_limits_for_ever(context: Context) -> None:
    """429 with retry-after 1 on every request: the run ends (retries spent), one line."""
    _raw_trial(
        context,
        status=429,
        headers={"retry-after": "1"},
        payload={"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}},
        says="429|rate",
        timeout=120,
    )


@trial("server")
def t_server_slower_than_the_timeout(context: Context) -> None:
    """Every answer after 6 s with --timeout 2: the run ends with one line, no hang."""
    _raw_trial(
        context,
        delay_s=6.0,
        payload={"type": "error", "error": {"type": "x", "message": "x"}},
        says="timed out|timeout|time",
        timeout=120,
        extra=("--timeout", "2"),
    )


# -- more inputs -----------------------------------------------------------------------------


@trial("input")
def t_include_glob_unbalanced(context: Context) -> None:
    """--include '[': refused (2) naming the glob, or a glob that matches nothing (2)."""
    source = context.folder(2)
    _, server = context.messages_server()
    context.run(
        corpus_args(source, context.out, "--include", "["),
        server,
        expect=(2,),
        says=r"\[|glob|include",
    )


@trial("input")
def t_exclude_everything(context: Context) -> None:
    """--exclude '*': no document is left: exit 2 in one line."""
    source = context.folder(2)
    _, server = context.messages_server()
    context.run(
        corpus_args(source, context.out, "--exclude", "*"), server, expect=(2,), says="no document"
    )


@trial("input")
def t_whitespace_only_document(context: Context) -> None:
    """A record whose text is only spaces and newlines: named (failed or set aside), the
    others done."""
    records = [
        {"document_id": "blank", "text": " \n\n \t"},
        {"document_id": "a", "text": document(1)},
    ]
    path = context.jsonl("c.jsonl", records)
    _, server = context.messages_server()
    context.run(corpus_args(path, context.out), server, expect=(0, 1, 2), says="failed|blank|empty")
    context.check_out(must_exist=False)


@trial("ledger")
def t_reply_cache_damaged(context: Context) -> None:
    """Every file of the reply cache cut to half, then a rerun with changed settings (so
    the documents are redone): no trace, the replies asked again, a whole OUT."""
    _, server = context.messages_server()
    source = context.folder(3)
    args = corpus_args(source, context.out)
    context.run(args, server, label="first")
    for path in (context.out_dir / "chunks.replies").glob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    _, again = context.messages_server()  # a reply that cannot be read is asked again
    changed = [*args, "--max-chunk-tokens", "100"]
    context.run(changed, again, label="rerun")
    context.check_out()


@trial("ledger")
def t_ledger_of_another_program(context: Context) -> None:
    """A SQLite file of another program as the ledger: refused (2) naming it, or used
    beside its tables (0); never its tables dropped."""
    ledger = context.out_dir / "chunks.ledger.sqlite"
    with contextlib.closing(sqlite3.connect(ledger)) as db:
        db.execute("create table photos (id integer primary key, name text)")
        db.execute("insert into photos (name) values ('holiday.jpg')")
        db.commit()
    _, server = context.messages_server()
    source = context.folder(2)
    context.run(corpus_args(source, context.out), server, expect=(0, 2), says="ledger")
    with contextlib.closing(sqlite3.connect(ledger)) as db:
        try:
            kept = db.execute("select count(*) from photos").fetchone()[0]
        except sqlite3.Error:
            kept = 0
    if kept != 1:
        context.problem("lost", "another program's table in the ledger file was changed")


@trial("ledger")
def t_ledger_of_a_newer_version(context: Context) -> None:
    """A ledger whose user_version is 99 (a newer release's): refused (2) naming it, or
    read; no trace."""
    args, server = _finished_run(context, 2)
    with contextlib.closing(sqlite3.connect(_ledger(context))) as db:
        db.execute("pragma user_version = 99")
        db.commit()
    context.run(args, server, expect=(0, 2), says="ledger|version", label="newer")


@trial("paths")
def t_out_is_a_symlink_to_a_file_elsewhere(context: Context) -> None:
    """-o a symbolic link to a file elsewhere: written through the link or refused (2);
    never the link replaced by a file while the target keeps the old text."""
    target = context.out_dir / "real.jsonl"
    target.write_text('{"previous": 1}\n')
    context.out.symlink_to(target)
    _, server = context.messages_server()
    source = context.folder(2)
    run = context.run(corpus_args(source, context.out), server, expect=(0, 2), says="link")
    if (
        run.returncode == 0
        and not context.out.is_symlink()
        and target.read_text() == '{"previous": 1}\n'
    ):
        context.problem("lost", "the link was replaced by a file; its target kept the old output")
    context.check_out(must_exist=False)


# -- split over a corpus, and corpus --level4 ---------------------------------------------


def _split_args(source: Path, out: Path) -> list[str]:
    return ["split", str(source), "-o", str(out), "--quiet"]


@trial("split")
def t_split_sigkill_then_rerun(context: Context) -> None:
    """split over a folder of 300 documents killed half-way (its ledger holding some),
    then a rerun: the uninterrupted output, no temporary file left."""
    source = context.folder(300, 4)
    previous = b'{"previous": "output"}\n'
    context.out.write_bytes(previous)
    args = _split_args(source, context.out)
    process = context.start(args)
    ledger = context.out_dir / "chunks.ledger.sqlite"
    context.kill_when(process, args, lambda: _done(ledger) >= 20, within=120)
    context.check_out(was=previous)
    context.run(args, label="rerun", timeout=180)
    context.check_out(same_as=context.uninterrupted(args, source, server=False))


@trial("split")
def t_split_two_runs_on_one_out(context: Context) -> None:
    """Two splits on one OUT at once: the second refused (2) or the first finished first."""
    source = context.folder(300, 4)
    args = _split_args(source, context.out)
    first = context.start(args)
    ledger = context.out_dir / "chunks.ledger.sqlite"
    deadline = time.monotonic() + 120
    while first.poll() is None and _done(ledger) < 5 and time.monotonic() < deadline:
        time.sleep(0.02)
    context.run(args, expect=(0, 2), says="another run", label="second", timeout=180)
    context.finish(first, args, label="first", timeout=180)
    context.check_out()


@trial("split")
def t_split_full_disk_under_out(context: Context) -> None:
    """split's OUT on a 64 KB tmpfs: exit 2 naming the room to free; the rerun, with
    room, writes the uninterrupted output."""
    disk = _tmpfs(context, "disk", "64k")
    context.out = disk / "chunks.jsonl"
    source = context.folder(200, 6)
    args = _split_args(source, context.out)
    context.run(args, expect=(2,), says="space|full|room", label="full", timeout=180)
    _grow(disk)
    context.run(args, label="rerun", timeout=180)
    context.check_out(same_as=context.uninterrupted(args, source, server=False))


@trial("split")
def t_level4_corpus_killed_then_rerun(context: Context) -> None:
    """corpus --level4 killed in its Level 5 calls, then a rerun: nothing paid twice, the
    uninterrupted output."""
    script, server = context.messages_server(hold_after=4)
    source = context.folder(6)
    args = corpus_args(source, context.out, "--level4", "--max-concurrency", "2")
    _killed_half_way(context, args, script, server)
    context.run(args, server, label="rerun", timeout=180)
    context.check_out(same_as=context.uninterrupted(args, source))


@trial("chunker")
def t_evaluate_sigterm_while_a_chunker_hangs(context: Context) -> None:
    """SIGTERM while an evaluate --chunker callable sleeps: 143, one line, no --json file."""
    (context.inp / "sweep_chunkers.py").write_text(CHUNKERS, "utf-8")
    corpus = context.jsonl("corpus.jsonl", [{"id": "doc", "text": "Alpha is a fact."}])
    reference_range = {"start_index": 0, "end_index": 5}
    questions = context.jsonl(
        "questions.jsonl",
        [{"question": "Alpha?", "corpus_id": "doc", "references": [reference_range]}],
    )
    out = context.out_dir / "eval.json"
    args = ["evaluate", str(corpus), "--questions", str(questions), "--embedder", "hashing"]
    args += ["--no-cache", "--chunker", "sweep_chunkers:hangs", "--json", str(out)]
    process = context.start(args)
    started = time.monotonic()
    context.kill_when(
        process,
        args,
        lambda: time.monotonic() - started > 5,
        sig=signal.SIGTERM,
        expect=(143,),
        says="SIGTERM",
        label="SIGTERM",
    )
    if out.exists():
        context.problem("lost", "evaluate wrote --json after SIGTERM")


# -- servers and secrets ----------------------------------------------------------------


def _echoing(status: int) -> Callable[[Mapping[str, Any]], FakeReply]:
    """A model that answers every request with ``status`` and an error text quoting the
    key it was sent (as some proxies do)."""
    key = KEYS["ANTHROPIC_API_KEY"]

    def answer(body: Mapping[str, Any]) -> FakeReply:
        return FakeReply(status=status, text=f"invalid x-api-key: {key} (Bearer {key})")

    return answer


@trial("server", quick=True)
def t_server_echoes_the_key_in_a_401(context: Context) -> None:
    """A 401 whose message quotes the key: exit 2, the key never shown."""
    server = context.server(FakeMessagesServer(handler=_echoing(401)))
    source = context.folder(2)
    context.run(corpus_args(source, context.out), server, expect=(2,), says="key")
    context.check_out(must_exist=False)


@trial("server")
def t_server_echoes_the_key_in_a_400(context: Context) -> None:
    """A 400 (a document's own failure) quoting the key: exit 1, the key in no failure file."""
    server = context.server(FakeMessagesServer(handler=_echoing(400)))
    source = context.folder(2)
    context.run(corpus_args(source, context.out), server, expect=(1,), says="fail")


@trial("server")
def t_base_url_with_the_key_in_it(context: Context) -> None:
    """--base-url http://user:KEY@127.0.0.1:PORT: the URL shown without the key."""
    _script, server = context.messages_server(fail=lambda text: True)
    key = KEYS["ANTHROPIC_API_KEY"]
    url = server.base_url.replace("http://", f"http://user:{key}@")
    source = context.folder(2)
    context.run(
        corpus_args(source, context.out, "--base-url", url), server, expect=(0, 1, 2), says="fail"
    )


@trial("server")
def t_server_not_listening(context: Context) -> None:
    """--base-url where nothing listens: one line naming the server (exit 1, 2 or 3)."""
    source = context.folder(2)
    with socket_port() as port:
        url = f"http://127.0.0.1:{port}"
    context.run(
        corpus_args(source, context.out, "--base-url", url, "--timeout", "3"),
        None,
        expect=(1, 2, 3),
        says="127.0.0.1|connect|server",
        timeout=120,
    )


@trial("server")
def t_server_answers_html(context: Context) -> None:
    """A server that answers 200 with an HTML page (a captive portal): one line, exit 1-3."""

    def html(body: Mapping[str, Any]) -> FakeReply:
        return FakeReply(status=502, text="<html><body>Bad gateway</body></html>")

    server = context.server(FakeMessagesServer(handler=html))
    source = context.folder(2)
    context.run(
        corpus_args(source, context.out), server, expect=(1, 2, 3), says="502|gateway|server"
    )


@contextlib.contextmanager
def socket_port() -> Iterator[int]:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


# -- check of a corpus output -----------------------------------------------------------


@trial("check")
def t_check_a_cut_output(context: Context) -> None:
    """check on a corpus OUT cut in the middle of its last line: exit 2 naming the line."""
    _, server = context.messages_server()
    source = context.folder(2)
    context.run(corpus_args(source, context.out), server, label="corpus")
    data = context.out.read_bytes()
    cut = context.inp / "cut.jsonl"
    cut.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 40])
    lines = cut.read_bytes().count(b"\n") + 1
    context.run(["check", str(cut)], None, expect=(2,), says=f"line {lines}", label="check")


# -- evaluate --chunker callables ----------------------------------------------------------

CHUNKERS = """
import sys, time

def raises(text):
    raise ValueError("the sweep's chunker broke")

def hangs(text):
    time.sleep(3600)

def a_string(text):
    return "not spans"

def none(text):
    return None

def strings(text):
    return ["a", "b"]

def out_of_range(text):
    return [(0, len(text) + 1000)]

def backwards(text):
    return [(10, 2)]

def floats(text):
    return [(0.0, 5.5)]

def exits(text):
    sys.exit(0)

def interrupts(text):
    raise KeyboardInterrupt

def generator(text):
    yield (0, len(text))
"""


def _evaluate(context: Context, spec: str, expect: Sequence[int], says: str) -> Run:
    (context.inp / "sweep_chunkers.py").write_text(CHUNKERS, "utf-8")
    text = "Alpha is the first fact. Beta is the second fact.\n\nGamma is the third fact."
    corpus = context.jsonl("corpus.jsonl", [{"id": "doc", "text": text}])
    start = text.index("Gamma")
    questions = context.jsonl(
        "questions.jsonl",
        [
            {
                "question": "What is the third fact?",
                "corpus_id": "doc",
                "references": [{"start_index": start, "end_index": len(text)}],
            }
        ],
    )
    args = [
        "evaluate",
        str(corpus),
        "--questions",
        str(questions),
        "--embedder",
        "hashing",
        "--no-cache",
        "--chunker",
        spec,
        "--json",
        str(context.out_dir / "eval.json"),
    ]
    return context.run(args, None, expect=expect, says=says, timeout=60)


def _chunker_trial(function: str, expect: Sequence[int], says: str) -> Callable[[Context], None]:
    def body(context: Context) -> None:
        _evaluate(context, f"sweep_chunkers:{function}", expect, says)
        context.check_out(
            must_exist=0 in expect and len(expect) == 1, path=context.out_dir / "eval.json"
        )

    body.__doc__ = f"evaluate --chunker sweep_chunkers:{function}: exit {list(expect)}, one line."
    return body


for _function, _expect, _says in [
    ("raises", (1, 2), "sweep_chunkers:raises|broke"),
    ("a_string", (2,), "sweep_chunkers:a_string"),
    ("none", (2,), "sweep_chunkers:none"),
    ("strings", (2,), "sweep_chunkers:strings"),
    ("out_of_range", (2,), "sweep_chunkers:out_of_range"),
    ("backwards", (2,), "sweep_chunkers:backwards"),
    ("floats", (0, 2), "sweep_chunkers:floats"),
    ("exits", (1, 2), "sys.exit"),
    ("interrupts", (1, 2, 130), "sweep_chunkers:interrupts|interrupt"),
    ("generator", (0, 2), "sweep_chunkers:generator"),
    ("missing_function", (2,), "missing_function"),
]:
    TRIALS.append(
        Trial(
            f"chunker_{_function}",
            "chunker",
            _chunker_trial(_function, _expect, _says),
            quick=_function == "raises",
        )
    )


@trial("chunker")
def t_chunker_that_hangs_then_ctrl_c(context: Context) -> None:
    """A chunker that sleeps for an hour: Ctrl-C after 5 s ends the run with 130, one line."""
    (context.inp / "sweep_chunkers.py").write_text(CHUNKERS, "utf-8")
    corpus = context.jsonl("corpus.jsonl", [{"id": "doc", "text": "Alpha is a fact."}])
    questions = context.jsonl(
        "questions.jsonl",
        [
            {
                "question": "Alpha?",
                "corpus_id": "doc",
                "references": [{"start_index": 0, "end_index": 5}],
            }
        ],
    )
    args = ["evaluate", str(corpus), "--questions", str(questions), "--embedder", "hashing"]
    args += ["--no-cache", "--chunker", "sweep_chunkers:hangs"]
    process = context.start(args)
    started = time.monotonic()
    context.kill_when(
        process,
        args,
        lambda: time.monotonic() - started > 5,
        sig=signal.SIGINT,
        expect=(130,),
        says="interrupt",
        label="Ctrl-C",
    )


# -- Ray ----------------------------------------------------------------------------------


RAY_ENV = {"RAY_TMPDIR": "/tmp"}
"""Ray's sockets under /tmp/ray: a trial's own TMPDIR is too deep for them (107 bytes)."""


def _ray() -> None:
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise Skip("ray is not installed (the ray extra)")


@trial("ray")
def t_ray_sigkill_then_rerun(context: Context) -> None:
    """--engine ray killed with requests held; a local rerun pays for nothing twice."""
    _ray()
    previous = b'{"previous": "output"}\n'
    context.out.write_bytes(previous)
    script, server = context.messages_server(hold_after=3)
    source = context.folder(4)
    args = corpus_args(source, context.out, "--engine", "ray")
    process = context.start(args, server, RAY_ENV)
    context.kill_when(process, args, lambda: script.held >= 1, within=180)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # Ray's own processes of this session
    context.check_out(was=previous)
    script._hold_after = None
    script.release.set()
    context.run(corpus_args(source, context.out), server, label="rerun", timeout=180)
    context.check_out(same_as=reference(4))


@trial("ray")
def t_ray_sigterm(context: Context) -> None:
    """--engine ray stopped by SIGTERM with requests held: 143, one line, OUT as it was."""
    _ray()
    previous = b'{"previous": "output"}\n'
    context.out.write_bytes(previous)
    script, server = context.messages_server(hold_after=3)
    source = context.folder(4)
    args = corpus_args(source, context.out, "--engine", "ray")
    process = context.start(args, server, RAY_ENV)
    context.kill_when(
        process,
        args,
        lambda: script.held >= 1,
        sig=signal.SIGTERM,
        expect=(143,),
        says="stopped by SIGTERM",
        within=180,
    )
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # anything of Ray's left in its session
    context.check_out(was=previous)


@trial("ray")
def t_ray_under_a_deep_tmpdir(context: Context) -> None:
    """--engine ray under a TMPDIR too deep for Ray's socket paths (107 bytes): exit 2 in
    one line naming RAY_TMPDIR, OUT as it was."""
    _ray()
    previous = b'{"previous": "output"}\n'
    context.out.write_bytes(previous)
    deep = context.tmp / ("t" * 60)
    deep.mkdir()
    _, server = context.messages_server()
    source = context.folder(2)
    args = corpus_args(source, context.out, "--engine", "ray")
    env = {"TMPDIR": str(deep)}
    context.run(args, server, expect=(2,), says="RAY_TMPDIR", env=env, timeout=180)
    context.check_out(was=previous)


@trial("ray")
def t_ray_bad_jsonl(context: Context) -> None:
    """--engine ray over a JSONL with a bad line: exit 2 naming it, as on the local engine."""
    _ray()
    path = context.jsonl("c.jsonl", [{"document_id": "a", "text": "A fact."}, "{not json"])
    _, server = context.messages_server()
    context.run(
        corpus_args(path, context.out, "--engine", "ray"),
        server,
        expect=(2,),
        says="line 2",
        timeout=180,
    )
    context.check_out(must_exist=False)


# -- running ------------------------------------------------------------------------------


def run_trial(item: Trial, where: Path) -> Outcome:
    outcome = Outcome(item.name, item.group)
    started = time.monotonic()
    root = where / item.name
    root.mkdir(parents=True)
    context = Context(root, outcome)
    try:
        item.body(context)
    except Skip as why:
        outcome.skipped = str(why)
    except Exception as error:  # a defect of the trial, not of the command: shown, counted
        outcome.broken = f"{type(error).__name__}: {error}"
    finally:
        context.close()
    outcome.seconds = time.monotonic() - started
    return outcome


def run_trials(
    trials: Sequence[Trial], where: Path | None = None, *, show: Callable[[str], None] | None = None
) -> list[Outcome]:
    outcomes = []
    with contextlib.ExitStack() as stack:
        if where is None:
            where = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="fault-sweep-")))
        for item in trials:
            outcome = run_trial(item, where)
            outcomes.append(outcome)
            if show is not None:
                state = ", ".join(outcome.classes) or "clear"
                if outcome.skipped or outcome.broken:
                    state = (
                        f"skipped: {outcome.skipped}"
                        if outcome.skipped
                        else f"BROKEN: {outcome.broken}"
                    )
                show(f"{item.name:45} {outcome.seconds:6.1f} s  {state}")
    return outcomes


def counts(outcomes: Sequence[Outcome]) -> dict[str, int]:
    table = {kind: sum(kind in o.classes for o in outcomes) for kind in CLASSES}
    table["clear and safe"] = sum(o.clear for o in outcomes)
    table["skipped"] = sum(o.skipped is not None for o in outcomes)
    table["broken (a defect of the sweep)"] = sum(o.broken is not None for o in outcomes)
    table["trials"] = len(outcomes)
    return table


def chosen(quick: bool, only: Sequence[str]) -> list[Trial]:
    trials = [t for t in TRIALS if t.quick] if quick else list(TRIALS)
    if only:
        trials = [t for t in TRIALS if any(t.name.startswith(o) for o in only)]
    return trials


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(parser)
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    parser.add_argument("--list", action="store_true", help="list the trials and stop")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep each trial's folder here")
    args = parser.parse_args(argv)
    trials = chosen(args.quick, args.only)
    if args.list:
        for item in trials:
            print(f"{item.group:8} {item.name:45} {item.doc.splitlines()[0] if item.doc else ''}")
        return 0
    if not trials:
        parser.error("no trial matches --only")
    outcomes = run_trials(trials, args.keep, show=print)
    table = counts(outcomes)
    print()
    print(f"{'class':16} trials")
    for kind, number in table.items():
        print(f"{kind:16} {number}")
    for outcome in outcomes:
        for note in outcome.notes:
            if not note.startswith("note:"):
                print(f"  {outcome.name}: {note}")
    figures: dict[str, int | str] = {"trials run": table.pop("trials")}
    figures.update({f"trials with {kind}": table.pop(kind) for kind in CLASSES})
    figures.update({f"trials {label}": number for label, number in table.items()})
    figures["failing trials"] = ", ".join(o.name for o in outcomes if o.classes) or "none"
    if args.only and args.json is None:  # a few chosen trials are not the sweep's figures
        print("--only: the figures are not kept (give --json PATH to keep them)")
        return 0
    keep(__file__, args, figures, **{"ray trials": sum(o.group == "ray" for o in outcomes)})
    if args.json or not args.quick:
        _write_details(args, outcomes)
    return 0


def _write_details(args: argparse.Namespace, outcomes: Sequence[Outcome]) -> None:
    """Each trial's classes, notes and runs, beside the figures (``*.trials.json``)."""
    from agentic_chunking._files import write_text_atomic

    target: Path = args.json or (Path(__file__).parent / "results" / "fault_sweep.json")
    details = target.with_name(target.stem + ".trials.json")
    write_text_atomic(details, json.dumps([o.record() for o in outcomes], indent=1) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
