"""The fault sweep's harness (benchmarks/fault_sweep.py, issue 44 item 2): each class it gives
fires on the fault it names and not on a clean run, and its quick trials (a kill and rerun,
a damaged ledger, bad JSONL, ids with path characters, absurd limits, a key echoed by the
server, a chunker that raises) are clear and safe on today's code. The whole sweep is a
benchmark (``python benchmarks/fault_sweep.py``), not a test."""

from __future__ import annotations

import base64
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SWEEP = Path(__file__).resolve().parents[1] / "benchmarks" / "fault_sweep.py"


@pytest.fixture(scope="module")
def sweep() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fault_sweep", SWEEP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _context(sweep: ModuleType, tmp_path: Path) -> object:
    return sweep.Context(tmp_path / "trial", sweep.Outcome("t", "g"))


def _judged(sweep: ModuleType, tmp_path: Path, **run: object) -> list[str]:
    context = _context(sweep, tmp_path)
    fields = {"label": "r", "args": [], "expect": frozenset({2}), "says": None, **run}
    context._judge(sweep.Run(**fields))  # type: ignore[attr-defined]
    return list(context.outcome.classes)  # type: ignore[attr-defined]


def test_each_class_of_a_run_fires_on_its_fault_and_not_on_a_clean_run(
    sweep: ModuleType, tmp_path: Path
) -> None:
    one_line = "agentic-chunking corpus: argument --max-concurrency: '0' must be 1 or more\n"
    usage = "usage: agentic-chunking corpus [-h] -o OUT\n" + "    [--x N]\n" * 12
    assert _judged(sweep, tmp_path / "a", returncode=2, stderr=usage + one_line) == []
    assert _judged(sweep, tmp_path / "b", returncode=0, expect=frozenset({0})) == []
    trace = 'Traceback (most recent call last):\n  File "x.py", line 3, in f\nValueError\n'
    assert "traceback" in _judged(sweep, tmp_path / "c", returncode=2, stderr=trace)
    assert _judged(sweep, tmp_path / "d", returncode=70, stderr=one_line) == ["wrong_exit"]
    assert _judged(sweep, tmp_path / "e", returncode=2, stderr="") == ["unclear"]
    assert _judged(sweep, tmp_path / "f", returncode=2, stderr="a\nb\nc\nd\ne\n") == ["unclear"]
    says = {"returncode": 2, "stderr": one_line}
    assert _judged(sweep, tmp_path / "g", says="damaged", **says) == ["unclear"]
    assert _judged(sweep, tmp_path / "h", says="concurrency", **says) == []
    assert _judged(sweep, tmp_path / "i", returncode=None, timed_out=True) == ["hang"]
    assert _judged(sweep, tmp_path / "j", returncode=-9, killed=True) == []


def test_a_key_is_found_raw_url_encoded_or_in_base64_at_any_alignment(
    sweep: ModuleType, tmp_path: Path
) -> None:
    key = sweep.KEYS["ANTHROPIC_API_KEY"]
    forms = sweep.secret_forms(key)
    for prefix in (b"", b"u", b"us", b"user:"):
        encoded = base64.b64encode(prefix + key.encode() + b"@host").decode()
        assert any(form in encoded for form in forms), prefix
    assert not any(form in base64.b64encode(b"sk-ant-other-key-0000").decode() for form in forms)
    context = _context(sweep, tmp_path)
    (context.out_dir / "x.failures.jsonl").write_text(f'{{"error": "Bearer {key}"}}\n')  # type: ignore[attr-defined]
    context.close()  # type: ignore[attr-defined]
    assert context.outcome.classes == ["secret"]  # type: ignore[attr-defined]


def test_an_output_cut_short_changed_or_left_with_temp_files_is_lost(
    sweep: ModuleType, tmp_path: Path
) -> None:
    def classes(text: str, *, was: bytes | None = None, temp: bool = False) -> list[str]:
        context = _context(sweep, tmp_path / str(len(list(tmp_path.iterdir()))))
        context.out.write_text(text, "utf-8")  # type: ignore[attr-defined]
        if temp:
            (context.out_dir / ".chunks.jsonl.tmp-12-x").write_text("{")  # type: ignore[attr-defined]
        context.check_out(was=was)  # type: ignore[attr-defined]
        return list(context.outcome.classes)  # type: ignore[attr-defined]

    assert classes('{"a": 1}\n{"b": 2}\n') == []
    assert classes('{"a": 1}\n{"b"') == ["lost"]
    assert classes('{"a": 1}\n[1]\n') == ["lost"]
    assert classes('{"a": 1}\n', temp=True) == ["lost"]
    assert classes('{"a": 1}\n', was=b'{"a": 1}\n') == []
    assert classes('{"a": 2}\n', was=b'{"a": 1}\n') == ["lost"]


def test_an_input_changed_by_a_run_is_lost(sweep: ModuleType, tmp_path: Path) -> None:
    context = _context(sweep, tmp_path)
    source = context.folder(2)  # type: ignore[attr-defined]
    context.protect()  # type: ignore[attr-defined]
    (source / "d001.txt").write_text("replaced", "utf-8")
    context.close()  # type: ignore[attr-defined]
    assert context.outcome.classes == ["lost"]  # type: ignore[attr-defined]


def test_the_quick_trials_are_clear_and_safe(sweep: ModuleType, tmp_path: Path) -> None:
    trials = sweep.chosen(True, [])
    assert 5 <= len(trials) <= 12
    assert {t.group for t in trials} >= {"kill", "ledger", "input", "ids", "limits", "server"}
    outcomes = sweep.run_trials(trials, tmp_path)
    failing = {o.name: o.broken or o.notes for o in outcomes if o.skipped is None and not o.clear}
    assert failing == {}
    table = sweep.counts(outcomes)
    assert table["trials"] == len(trials)
    assert table["clear and safe"] + table["skipped"] == len(trials)
