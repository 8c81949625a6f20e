"""docs/benchmarks.md is rendered from the benchmarks' own results files, and kept current.

``benchmarks/_results.keep`` writes a run's figures (a quick run's only when asked);
``benchmarks/summarise.py`` lists every benchmark script with what it measures, its command
and its last figures, or says it was not run, and ``--check`` fails a stale page.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


summarise = _load("summarise")
results = sys.modules["_results"]  # the helper summarise imports, as every benchmark does

MEASURES = '"""Widgets per second against a baseline.\n\nMore detail here.\n"""\n'


def _scripts(folder: Path) -> None:
    for name in ("bench_fast", "bench_slow", "bench_new"):
        (folder / f"{name}.py").write_text(MEASURES.replace("Widgets", name), encoding="utf-8")
    (folder / "_helper.py").write_text('"""not a benchmark"""\n', encoding="utf-8")


def _args(**values: object) -> argparse.Namespace:
    return argparse.Namespace(**{"quick": False, "json": None, **values})


def test_a_full_run_keeps_its_figures_with_date_machine_and_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results, "RESULTS", tmp_path)
    monkeypatch.setattr(sys, "argv", ["bench_fast.py", "--repeat", "2", "--json", "x"])
    path = results.keep("/x/benchmarks/bench_fast.py", _args(), {"ratio": 1.8}, repeat=2)
    assert path == tmp_path / "bench_fast.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["figures"] == {"ratio": 1.8}
    assert record["notes"] == {"repeat": 2}
    assert record["quick"] is False
    assert record["command"] == "python benchmarks/bench_fast.py --repeat 2"
    assert record["machine"]["cores"] >= 1
    assert record["date"].endswith("UTC")


def test_a_quick_run_keeps_nothing_unless_told_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results, "RESULTS", tmp_path / "results")
    assert results.keep("bench_fast.py", _args(quick=True), {"ratio": 1.0}) is None
    assert not (tmp_path / "results").exists()
    asked = tmp_path / "quick.json"
    assert results.keep("bench_fast.py", _args(quick=True, json=asked), {"r": 1}) == asked
    assert json.loads(asked.read_text(encoding="utf-8"))["quick"] is True


def test_the_page_lists_every_benchmark_with_its_figures_or_why_it_has_none(
    tmp_path: Path,
) -> None:
    _scripts(tmp_path)
    done = tmp_path / "results"
    done.mkdir()
    record = {
        "benchmark": "bench_fast",
        "quick": False,
        "command": "python benchmarks/bench_fast.py --repeat 3",
        "date": "2026-12-02 05:40 UTC",
        "machine": {"cpu": "Test CPU", "cores": 2, "load_average_1min": 3.5},
        "figures": {"ratio ours / baseline": 1.8, "calls": 12000, "content kept": True},
        "notes": {},
    }
    (done / "bench_fast.json").write_text(json.dumps(record), encoding="utf-8")
    summarise.record_not_run("bench_slow", "takes 20 minutes on 2 shared cores", done)
    page = summarise.render(tmp_path, done)
    assert "## bench_fast" in page and "## bench_slow" in page and "## bench_new" in page
    assert "_helper" not in page
    assert "bench_fast per second against a baseline." in page
    assert "More detail here" not in page
    assert "`python benchmarks/bench_fast.py --repeat 3`" in page
    assert "| ratio ours / baseline | 1.8 |" in page
    assert "| calls | 12,000 |" in page and "| content kept | yes |" in page
    assert "Test CPU, 2 cores" in page and "load average 3.5" in page
    assert "Last run: 2026-12-02 05:40 UTC." in page
    today = summarise.load_record("bench_slow", done)["date"][:10]
    assert f"Not run on {today}: takes 20 minutes on 2 shared cores" in page
    assert "No figures recorded: run `python benchmarks/bench_new.py`." in page


def test_a_quick_runs_figures_are_marked_as_such(tmp_path: Path) -> None:
    _scripts(tmp_path)
    done = tmp_path / "results"
    done.mkdir()
    record = {"quick": True, "date": "2026-12-02 05:40 UTC", "machine": {}, "figures": {"a": 1}}
    (done / "bench_new.json").write_text(json.dumps(record), encoding="utf-8")
    page = summarise.render(tmp_path, done)
    assert "a `--quick` run: its figures only show that it ran" in page


def test_docs_benchmarks_page_is_current() -> None:
    page = ROOT / "docs" / "benchmarks.md"
    assert page.read_text(encoding="utf-8") == summarise.render(), (
        "docs/benchmarks.md is out of date (a benchmark or its figures changed): "
        "run python benchmarks/summarise.py"
    )
