"""benchmarks/bench_chunkers.py's comparison, on four of the cases (issue 32 item 5): our
pipeline and the LangChain adapter (a chain built in the benchmark, LangChain's
``ChatOpenAI`` pointed at the loopback server) recorded through the suite, then compared:
the page renders, the verdict is computed, every case the adapter cannot do is not
applicable (the benchmark asserts each of these; the full 32 run in the benchmark)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest
from test_suite_plugin import INNER, _libraries_loaded

__all__ = ["_libraries_loaded"]  # a fixture, used by name

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_chunkers.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    for module in ("langchain_core.prompts", "langchain_openai", "openai.types.chat"):
        importlib.import_module(module)  # once here, not in each in-process run
    spec = importlib.util.spec_from_file_location("bench_chunkers", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_pipeline_and_the_langchain_adapter_are_recorded_and_compared(
    bench: ModuleType,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    _libraries_loaded: None,
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("AGENTIC_CHUNKING_JUDGE_MODEL", raising=False)
    import agentic_chunking.report._render as render

    monkeypatch.setattr(render, "all_plots", lambda columns: [])  # the plots are not the point
    folder = bench.make_project(pytester.path, ("TC-001", "TC-011", "TC-021", "TC-030"))

    def run(where: Path, args: Sequence[str]) -> None:
        result = pytester.runpytest(*INNER, *args)
        assert result.ret in (0, 1), result.stdout.str()

    outcome = bench.record_and_compare(folder, run)
    assert sorted(outcome.not_applicable) == ["TC-011", "TC-030"]
    assert "does no grouping" in outcome.not_applicable["TC-011"]
    assert outcome.verdict in ("same", "review", "unsafe")
    assert outcome.summary.startswith(f"verdict against {bench.PIPELINE}: {outcome.verdict}")
    assert outcome.requests["loopback-lc"] == 2  # one call per input chunk of TC-001, TC-021
    assert [c.id for c in outcome.chunker.cases if c.outcome == "passed"] == ["TC-001", "TC-021"]
