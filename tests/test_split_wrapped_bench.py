"""The hard-wrapped split benchmark's own parts: its document and its mid-sentence count."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_split_wrapped.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_split_wrapped", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_document_is_hard_wrapped_deterministic_and_of_the_size_asked(
    bench: ModuleType,
) -> None:
    text = bench.wrapped_document(20_000)
    assert text == bench.wrapped_document(20_000)
    assert 20_000 <= len(text) < 22_000
    assert max(len(line) for line in text.splitlines() if not line.startswith("#")) <= 72
    assert "\n# Section" in text and "\n- " in text and "\n    step_" in text


def test_sentence_starts_are_where_sentences_and_blocks_begin(bench: ModuleType) -> None:
    text = "# Title\n\nOne runs\nfar. Two\nends.\n- item one\n  goes on.\n\n    code()\n"
    starts = {text[s : s + 4] for s in bench.sentence_starts(text)}
    assert starts == {"# Ti", "One ", "Two\n", "- it", "code"}


def test_joining_lines_removes_the_mid_sentence_starts(bench: ModuleType) -> None:
    before = bench.measure("before", 20_000, "hashing")
    after = bench.measure("after", 20_000, "hashing")
    assert before["mid_sentence"] > 0
    assert after["mid_sentence"] == 0
    assert after["segments"] < before["segments"]
