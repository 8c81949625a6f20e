"""The stop signals have one owner, ``_entry.handle_stop_signals``, which the command line
and the suite's pytest plugin both call: what the suite's ``StopHandling`` adds (a second
signal, or the grace after a SIGTERM, ends the process through ``end_now``), and that no
other module installs a SIGINT or SIGTERM handler."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import agentic_chunking

PACKAGE = Path(agentic_chunking.__file__).parent

_PROBE = """
import os, signal, sys, time
from agentic_chunking._entry import StopHandling, end_process, handle_stop_signals

def end_now(status):
    end_process(status, f"ended {status}")

restore = handle_stop_signals(StopHandling(
    sigterm_raises=KeyboardInterrupt, end_now=end_now, grace_s=GRACE, quiet_unraisable=True
))
try:
    os.kill(os.getpid(), FIRST)
    signal.pause()
except KeyboardInterrupt:
    print("unwinding", flush=True)
if SECOND is not None:
    os.kill(os.getpid(), SECOND)
time.sleep(30)
print("never")
"""


def _probe(first: str, second: str | None, grace: float = 60.0) -> subprocess.CompletedProcess[str]:
    code = _PROBE.replace("GRACE", repr(grace)).replace("FIRST", first)
    code = code.replace("SECOND", second or "None")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_a_second_stop_signal_ends_the_process_with_the_first_ones_status() -> None:
    sigterm_then_ctrl_c = _probe("signal.SIGTERM", "signal.SIGINT")
    assert sigterm_then_ctrl_c.returncode == 143
    assert sigterm_then_ctrl_c.stdout == "unwinding\n"
    assert sigterm_then_ctrl_c.stderr == "ended 143\n"
    two_ctrl_c = _probe("signal.SIGINT", "signal.SIGINT")
    assert (two_ctrl_c.returncode, two_ctrl_c.stderr) == (130, "ended 130\n")


def test_the_grace_after_a_sigterm_ends_a_process_that_did_not_unwind() -> None:
    held = _probe("signal.SIGTERM", None, grace=0.3)
    assert (held.returncode, held.stdout, held.stderr) == (143, "unwinding\n", "ended 143\n")


def test_a_ctrl_c_starts_no_grace_timer() -> None:
    code = _PROBE.replace("GRACE", "0.3").replace("FIRST", "signal.SIGINT")
    code = code.replace("SECOND", "None").replace("time.sleep(30)", "time.sleep(1)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "unwinding\nnever\n", "")


def test_the_handlers_from_before_are_put_back() -> None:
    probe = (
        "import signal\n"
        "from agentic_chunking._entry import StopHandling, handle_stop_signals\n"
        "mine = lambda signum, frame: None\n"
        "signal.signal(signal.SIGTERM, mine)\n"
        "restore = handle_stop_signals(StopHandling())\n"
        "print(signal.getsignal(signal.SIGTERM) is mine)\n"
        "restore()\n"
        "print(signal.getsignal(signal.SIGTERM) is mine)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["False", "True"]


def _installs_a_handler(tree: ast.AST) -> bool:
    """Whether ``tree`` calls ``signal.signal`` or sets ``sys.unraisablehook``."""
    for node in ast.walk(tree):
        calls = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        if (
            calls
            and node.func.attr == "signal"
            and getattr(node.func.value, "id", None) == "signal"
        ):
            return True
        sets = isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
        if sets and node.attr == "unraisablehook":
            return True
    return False


def test_only_the_entry_module_installs_stop_signal_handlers() -> None:
    owners = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if _installs_a_handler(ast.parse(path.read_text("utf-8")))
    )
    assert owners == ["_entry.py"]
    assert _installs_a_handler(ast.parse("import signal\nsignal.signal(signal.SIGINT, f)"))
    assert _installs_a_handler(ast.parse("import sys\nsys.unraisablehook = f"))
    assert not _installs_a_handler(ast.parse("import signal\nsignal.getsignal(signal.SIGINT)"))
