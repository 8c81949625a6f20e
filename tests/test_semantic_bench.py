"""The boundary benchmark's own parts: its documents, its scores, its missing baselines."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from agentic_chunking.semantic import HashingEmbedder

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_semantic_boundaries.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_semantic_boundaries", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_document_has_its_boundaries_at_segment_starts(bench: ModuleType) -> None:
    documents = bench.load_documents()
    assert len(documents) == 7
    assert [d.name for d in documents if d.chosen_on] == [
        "six_domains",
        "city_report",
        "news_digest",
        "three_topics",
        "uneven_guide",
    ]
    six = documents[0]
    assert sorted(six.truth) == [8, 16, 24, 33, 41]
    three = next(d for d in documents if d.name == "three_topics")
    assert sorted(three.truth) == [5, 10] and len(three.spans) == 15
    assert all(d.truth and max(d.truth) < len(d.spans) for d in documents)


def test_scores_against_hand_computed_values(bench: ModuleType) -> None:
    truth = {5, 10}
    assert bench.prf({5, 10}, truth, 0) == (1.0, 1.0, 1.0)
    precision, recall, f1 = bench.prf({5, 11, 14}, truth, 0)
    assert (precision, recall) == (pytest.approx(1 / 3), 0.5)
    assert f1 == pytest.approx(2 * (1 / 3) * 0.5 / (1 / 3 + 0.5))
    assert bench.prf({5, 11, 14}, truth, 1)[:2] == (pytest.approx(2 / 3), 1.0)
    assert bench.prf(set(), truth, 0) == (0.0, 0.0, 0.0)


def test_chunk_starts_count_at_the_nearest_segment_start(bench: ModuleType) -> None:
    spans = [(0, 10), (10, 30), (30, 40)]
    assert bench.to_segments([0, 12, 29, 40], spans) == {1, 2}


@pytest.mark.skipif(importlib.util.find_spec("nltk") is None, reason="NLTK: the bench extra")
def test_pk_and_windowdiff_are_zero_for_the_truth_and_positive_for_a_miss(
    bench: ModuleType,
) -> None:
    assert bench.pk_windowdiff({5, 10}, {5, 10}, 15) == (0.0, 0.0)
    pk, windowdiff = bench.pk_windowdiff({5}, {5, 10}, 15)
    assert 0 < pk <= 1 and 0 < windowdiff <= 1


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("chonkie", "chonkie SemanticChunker"),
        ("langchain_experimental.text_splitter", "langchain SemanticChunker"),
        ("semantic_text_splitter", "semantic-text-splitter, oracle size"),
    ],
)
def test_a_missing_baseline_fails_at_its_factory(
    bench: ModuleType, block_import: Callable[[str], None], module: str, name: str
) -> None:
    """main() turns this ImportError into one 'skipped' line instead of a traceback."""
    factories = dict(bench.splitters(HashingEmbedder()))
    block_import(module)
    with pytest.raises(ImportError):
        factories[name]()
