"""Every benchmark runs: each script in ``benchmarks/`` in its ``--quick`` mode, as a user
would run it (a subprocess of this Python), so a change elsewhere that breaks one fails
here instead of rotting until someone quotes its figures.

A run passes when it exits 0 with no traceback and prints something; a script that uses
``benchmarks/_results.py`` must also write its figures (``--json``), marked quick. Nothing
about speed is asserted: the figures of a quick run on a busy machine mean nothing. A
benchmark script is found by name (``_results.benchmark_scripts``), so a new one is run
without being listed, and one without ``--quick`` fails. A benchmark that cannot run here
(``_results.cannot_run``, or a third-party module that is not installed) is a skip that
names what is missing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
QUICK_TIMEOUT_S = 600
"""A quick run takes seconds of CPU, minutes of wall time on a crowded machine; this only
stops a hung one (it fails the test)."""
WORKERS = max(2, min(4, os.cpu_count() or 2))
"""Quick runs at once."""


def _load_results() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_bench_results", BENCHMARKS / "_results.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


results = _load_results()
SCRIPTS = results.benchmark_scripts(BENCHMARKS)
_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


def _local_modules() -> set[str]:
    """Modules that are ours (a missing one is a bug, not an extra not installed)."""
    return {"agentic_chunking"} | {path.stem for path in BENCHMARKS.glob("*.py")}


def skip_reason(returncode: int, stderr: str) -> str | None:
    """Why a run is a skip rather than a failure, or None: the benchmark said it cannot
    run here, or it stopped on a third-party module that is not installed."""
    if returncode == results.CANNOT_RUN_EXIT:
        lines = [line for line in stderr.splitlines() if line.startswith("cannot run:")]
        return lines[-1] if lines else "cannot run (no reason given)"
    missing = _MISSING_MODULE.search(stderr)
    if returncode != 0 and missing and missing[1].split(".")[0] not in _local_modules():
        return f"needs {missing[1]!r}, not installed (an optional extra)"
    return None


def has_quick(source: str) -> bool:
    """Whether a benchmark's source offers ``--quick`` (itself or through _results)."""
    return "--quick" in source or "add_options(" in source


_RUNNING: set[subprocess.Popen[str]] = set()
"""The quick runs under way (the session's teardown kills them: a stop signal must not
leave a benchmark running on after the test run has ended)."""
_RUNNING_LOCK = threading.Lock()
_STOPPING = threading.Event()


def run_quick(script: Path, kept: Path) -> subprocess.CompletedProcess[str]:
    """``python <script> --quick`` (and ``--json kept`` if it uses _results), this tree first
    on the path; killed after ``QUICK_TIMEOUT_S`` (``TimeoutExpired``) or by ``stop_quick_runs``."""
    command = [sys.executable, str(script), "--quick"]
    if "_results" in script.read_text(encoding="utf-8"):
        command += ["--json", str(kept)]
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    with subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: killed with what it starts
    ) as child:
        with _RUNNING_LOCK:
            _RUNNING.add(child)
            if _STOPPING.is_set():  # started as the session stopped
                _kill_group(child)
        try:
            stdout, stderr = child.communicate(timeout=QUICK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _kill_group(child)
            child.communicate()
            raise
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(child)
    return subprocess.CompletedProcess(command, child.returncode, stdout, stderr)


def stop_quick_runs() -> None:
    """Kill every quick run under way, and any that starts from now on."""
    with _RUNNING_LOCK:
        _STOPPING.set()
        running = list(_RUNNING)
    for child in running:
        _kill_group(child)


def _result(future: Future[subprocess.CompletedProcess[str]]) -> Any:
    """``future.result()``, waited for in short slices: a signal the kernel delivers to a
    worker thread does not wake the main thread from one long wait, and Python runs its
    handlers (Ctrl-C, SIGTERM: unwind now) only in the main thread, between waits."""
    while True:
        try:
            return future.result(timeout=0.25)
        except TimeoutError:
            continue


def _kill_group(child: subprocess.Popen[str]) -> None:
    """SIGKILL ``child`` and every process it started (its process group), which would
    otherwise hold its output pipes open and run on."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def quick_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[Path, Future[subprocess.CompletedProcess[str]]]]:
    """The quick runs of every benchmark selected in this session, started together on
    WORKERS processes at a time (most of a quick run is importing, which overlaps). On
    teardown, also after Ctrl-C or SIGTERM, the runs not started are cancelled and those
    under way killed, so the session ends at once and leaves no process behind."""
    selected = [
        item.callspec.params["script"]
        for item in request.session.items
        if item.path == Path(__file__).resolve() and hasattr(item, "callspec")
        if "script" in item.callspec.params
    ]
    folder = tmp_path_factory.mktemp("quick")
    _STOPPING.clear()
    pool = ThreadPoolExecutor(max_workers=WORKERS)
    try:
        yield {
            script: pool.submit(run_quick, script, folder / f"{script.stem}.json")
            for script in selected
            if has_quick(script.read_text(encoding="utf-8"))
        }
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        stop_quick_runs()
        pool.shutdown(wait=True)


@pytest.mark.parametrize("script", SCRIPTS, ids=[path.stem for path in SCRIPTS])
def test_benchmark_runs_in_quick_mode(script: Path, quick_runs: dict[Path, Any]) -> None:
    source = script.read_text(encoding="utf-8")
    assert has_quick(source), (
        f"benchmarks/{script.name} has no --quick option: every benchmark takes --quick "
        "(small sizes, a few seconds, the same code path; benchmarks/_results.add_options)"
    )
    done = _result(quick_runs[script])
    reason = skip_reason(done.returncode, done.stderr)
    if reason:
        pytest.skip(f"{script.name}: {reason}")
    shown = f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    assert done.returncode == 0, f"{script.name} --quick exited {done.returncode}\n{shown}"
    assert "Traceback (most recent call last)" not in done.stderr, shown
    assert done.stdout.strip(), f"{script.name} --quick printed no figures\n{shown}"
    if "--json" in done.args:
        kept = Path(done.args[done.args.index("--json") + 1])
        record = json.loads(kept.read_text(encoding="utf-8"))
        assert record["quick"] is True
        assert record["figures"], f"{script.name} --quick kept no figures\n{shown}"


def test_every_benchmark_is_found_and_helpers_are_not(tmp_path: Path) -> None:
    for name in ("bench_new.py", "kill_rate.py", "_shared.py", "make_data.py", "summarise.py"):
        (tmp_path / name).write_text('"""x"""\n', encoding="utf-8")
    (tmp_path / "notes.md").write_text("not a script", encoding="utf-8")
    found = [path.name for path in results.benchmark_scripts(tmp_path)]
    assert found == ["bench_new.py", "kill_rate.py"]


def test_the_known_benchmarks_are_among_those_run() -> None:
    names = {path.name for path in SCRIPTS}
    assert {"bench_concurrency.py", "bench_prechunk.py", "mutation_kill_rate.py"} <= names
    assert not names & {"_generated.py", "_results.py", "summarise.py"}
    assert not any(name.startswith("make_") for name in names)


def test_a_missing_prerequisite_is_a_skip_and_a_broken_import_is_not() -> None:
    said = "cannot run: the validation folder ../shared/validation is missing\n"
    assert skip_reason(results.CANNOT_RUN_EXIT, said) == said.strip()
    extra = "Traceback ...\nModuleNotFoundError: No module named 'chonkie'\n"
    assert skip_reason(1, extra) == "needs 'chonkie', not installed (an optional extra)"
    ours = "Traceback ...\nModuleNotFoundError: No module named 'agentic_chunking.gone'\n"
    assert skip_reason(1, ours) is None
    local = "Traceback ...\nModuleNotFoundError: No module named '_generated'\n"
    assert skip_reason(1, local) is None
    renamed = "ImportError: cannot import name 'REPLAY_API_KEY' from 'agentic_chunking.x'\n"
    assert skip_reason(1, renamed) is None
    assert skip_reason(0, "") is None


def test_a_script_without_quick_is_told_so() -> None:
    assert not has_quick('"""Speed."""\nimport argparse\nparser.add_argument("--size")\n')
    assert has_quick('parser.add_argument("--quick", action="store_true")\n')
    assert has_quick("from _results import add_options\nadd_options(parser)\n")
