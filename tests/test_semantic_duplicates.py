"""``semantic._duplicates``: the pairs of an output close in meaning, and the extra's
shared finder.

A fake embedder (vectors chosen by hand) keeps these tests fast and free of any model's
numbers; ``tests/test_judge_similar.py`` runs MiniLM end to end.
"""

from __future__ import annotations

import numpy as np
import pytest
from embedders import MEANING_EXAMPLES, TableEmbedder

from agentic_chunking.semantic import CachedEmbedder, HashingEmbedder
from agentic_chunking.semantic import _duplicates as semantic_duplicates
from agentic_chunking.semantic._duplicates import (
    MINILM_DUPLICATE_THRESHOLD,
    SEMANTIC_DUPLICATES_ENV_VAR,
    SimilarityFinder,
    SimilarPair,
    default_finder,
)

# one fact, the same fact reworded (no lexical rule sees them), another fact about the
# same subject, and an unrelated one: the fake embedder's table
INSULIN, REWORDED, OTHER, ROME = MEANING_EXAMPLES


def fake_finder(threshold: float = 0.9) -> SimilarityFinder:
    return SimilarityFinder(TableEmbedder(), threshold)


def test_the_finder_returns_the_pairs_that_reach_the_threshold_in_order() -> None:
    texts = [ROME, INSULIN, OTHER, REWORDED]
    pairs = fake_finder(0.9).pairs(texts)
    assert [(p.first, p.later) for p in pairs] == [(1, 3)]
    assert pairs[0] == SimilarPair(1, 3, pytest.approx(0.96))
    # lower the bar and the other fact about insulin (cosine 0.5 and 0.48) comes in too
    assert [(p.first, p.later) for p in fake_finder(0.45).pairs(texts)] == [
        (1, 2),
        (1, 3),
        (2, 3),
    ]


def test_the_finder_finds_nothing_between_distinct_facts_or_in_a_lone_text() -> None:
    assert fake_finder(0.9).pairs([INSULIN, OTHER, ROME]) == []
    assert fake_finder(0.9).pairs([INSULIN]) == []


def test_a_text_without_a_vector_direction_is_similar_to_nothing() -> None:
    assert fake_finder(-1.0).pairs(["", INSULIN]) == [SimilarPair(0, 1, 0.0)]
    assert fake_finder(0.5).pairs(["", "   "]) == []


def test_vectors_are_normalised_so_the_threshold_is_a_cosine() -> None:
    embedder = TableEmbedder({INSULIN: [10.0, 0.0], REWORDED: [0.5, 0.5]})
    (pair,) = SimilarityFinder(embedder, 0.7).pairs([INSULIN, REWORDED])
    assert pair.cosine == pytest.approx(0.7071, abs=1e-4)


def test_repeated_texts_are_embedded_once_and_pair_with_cosine_one() -> None:
    finder = fake_finder()
    pairs = finder.pairs([INSULIN, ROME, INSULIN])
    assert [(p.first, p.later, round(p.cosine, 6)) for p in pairs] == [(0, 2, 1.0)]
    assert isinstance(finder.embedder, TableEmbedder)
    assert finder.embedder.asked == [INSULIN, ROME]


def test_the_blocked_similarity_matrix_gives_the_pairs_of_the_whole_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = [f"Fact number {i} about item {i % 7}." for i in range(40)]
    finder = SimilarityFinder(HashingEmbedder(dimensions=64), 0.6)
    whole = finder.pairs(texts)
    monkeypatch.setattr(semantic_duplicates, "_BLOCK", 3)
    assert finder.pairs(texts) == whole and whole


def test_the_cached_embedder_embeds_each_text_once_and_keeps_the_order() -> None:
    fake = TableEmbedder()
    cached = CachedEmbedder(fake, max_texts=3, batch_size=2)
    first = cached([REWORDED, INSULIN, REWORDED])
    assert np.allclose(first, fake([REWORDED, INSULIN, REWORDED]))
    fake.asked.clear()
    cached([INSULIN, OTHER])
    assert fake.asked == [OTHER]  # INSULIN remembered
    cached([ROME])  # a fourth text: the least recently used (REWORDED) is forgotten
    fake.asked.clear()
    cached([REWORDED, INSULIN])
    assert fake.asked == [REWORDED]


def test_without_the_extra_or_unless_switched_on_there_is_no_default_finder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(semantic_duplicates, "_extra_installed", lambda: True)
    monkeypatch.delenv(SEMANTIC_DUPLICATES_ENV_VAR, raising=False)
    assert default_finder() is None  # off unless switched on
    monkeypatch.setenv(SEMANTIC_DUPLICATES_ENV_VAR, "on")
    finder = default_finder()
    assert finder is not None and finder.threshold == MINILM_DUPLICATE_THRESHOLD
    assert default_finder() is finder  # one shared finder: one model, one vector memory
    monkeypatch.setenv(SEMANTIC_DUPLICATES_ENV_VAR, "off")
    assert default_finder() is None
    monkeypatch.setenv(SEMANTIC_DUPLICATES_ENV_VAR, "on")
    monkeypatch.setattr(semantic_duplicates, "_extra_installed", lambda: False)
    assert default_finder() is None


def test_a_text_keeps_its_closest_earlier_partners_only() -> None:
    vectors = {f"t{i}": [1.0, 0.01 * i] for i in range(6)}  # all close, t4 closest to t5
    finder = SimilarityFinder(TableEmbedder(vectors), 0.9, max_partners=2)
    pairs = finder.pairs(list(vectors))
    assert [(p.first, p.later) for p in pairs if p.later == 5] == [(3, 5), (4, 5)]
    assert [(p.first, p.later) for p in pairs if p.later == 2] == [(0, 2), (1, 2)]
    assert len(pairs) == 1 + 2 * 4  # linear in the number of texts


def test_near_identical_texts_give_a_number_of_pairs_linear_in_their_number() -> None:
    texts = [f"The bridge carried {n} vehicles a day in the year it opened." for n in range(600)]
    pairs = SimilarityFinder(HashingEmbedder(), 0.5).pairs(texts)
    assert len(pairs) == 3 * (len(texts) - 3) + 0 + 1 + 2
