"""The adaptive mode's size rule: a topic over the budget is cut at its weakest gaps.

Threshold (Solon's) mode keeps Solon's greedy packing; adaptive mode cuts a group over
``max_chunk_token_size`` into the fewest chunks that fit, choosing among those cuttings
the one with the fewest undersized chunks, then the fewest cuts off a line end, then the
lowest similarity at its cuts. The property test of the adaptive guarantees
(tests/test_semantic_adaptive.py) checks that the count is greedy packing's.
"""

from __future__ import annotations

import numpy as np

from agentic_chunking import estimate_tokens
from agentic_chunking.semantic import HashingEmbedder, SemanticSplitter

# Six sentences of 40 characters (10 tokens each); sentence i's vector is VECTORS[i].
SENTENCES = [f"Sentence number {i} says one thing: here. " for i in range(6)]
TEXT = "".join(SENTENCES)
assert all(len(s) == 40 for s in SENTENCES)


def embedder_with(vectors: list[list[float]]) -> object:
    """An embedder that gives sentence i the vector ``vectors[i]``."""
    by_text = {
        s.strip(): np.asarray(v, dtype=np.float64) for s, v in zip(SENTENCES, vectors, strict=True)
    }

    def embed(texts: list[str]) -> np.ndarray:
        return np.vstack([by_text[t] for t in texts])

    return embed


def split_bodies(vectors: list[list[float]], *, max_tokens: int, **options: object) -> list[str]:
    splitter = SemanticSplitter(
        embedder_with(vectors),  # type: ignore[arg-type]
        similarity_window=1,
        depth_cutoff=1e9,  # no semantic boundary: one group, only the size rule cuts
        min_chunk_tokens=0,
        min_sentences_per_chunk=1,
        max_chunk_token_size=max_tokens,
        **options,  # type: ignore[arg-type]
    )
    explanation = splitter.explain(TEXT)
    assert explanation.boundaries == ()
    return [c.text for c in explanation.chunks]


# Two halves: sentences 0-2 alike, 3-5 alike, the halves apart: the weakest gap is 2|3.
TWO_HALVES = [[1, 0.1 * i, 0] for i in range(3)] + [[0.2, 1, 0.1 * i] for i in range(3)]
FLAT = [[1, 0.01 * i, 0] for i in range(6)]


def test_a_group_over_the_budget_is_cut_at_its_weakest_gap_not_filled_greedily() -> None:
    # 60 tokens, budget 45: two chunks are needed; greedy packing would take four sentences.
    bodies = split_bodies(TWO_HALVES, max_tokens=45)
    assert bodies == ["".join(SENTENCES[:3]), "".join(SENTENCES[3:])]


def test_solons_mode_keeps_the_greedy_packing() -> None:
    splitter = SemanticSplitter(
        embedder_with(TWO_HALVES),  # type: ignore[arg-type]
        similarity_threshold=-1.0,  # never a semantic boundary
        similarity_window=1,
        max_chunk_token_size=45,
    )
    bodies = [c.text for c in splitter.split(TEXT)]
    assert bodies == ["".join(SENTENCES[:4]), "".join(SENTENCES[4:])]


def test_a_group_within_the_budget_is_not_cut() -> None:
    assert split_bodies(TWO_HALVES, max_tokens=60) == [TEXT]


def test_the_fewest_chunks_come_first_even_against_a_weaker_gap() -> None:
    # The weakest gap is 1|2, but cutting there leaves four sentences (40 tokens) over the
    # budget of 30, so three chunks: the two-chunk cutting 3|3 is taken instead.
    vectors = [[1, 0.1 * i, 0] for i in range(2)] + [[0.1, 1, 0.1 * i] for i in range(4)]
    assert split_bodies(vectors, max_tokens=50)[0] == "".join(SENTENCES[:2])
    assert split_bodies(vectors, max_tokens=30) == [
        "".join(SENTENCES[:3]),
        "".join(SENTENCES[3:]),
    ]


def test_undersized_chunks_are_avoided_when_a_cutting_without_them_exists() -> None:
    # The weakest gap is 4|5 (sentence 5 stands apart), but cutting there leaves a chunk
    # of one sentence (10 tokens) under min_chunk_tokens=15: the cut moves to a gap that
    # leaves both chunks at 15 tokens or more.
    vectors = [[1, 0.05 * i, 0] for i in range(5)] + [[0, 0, 1]]
    bodies = split_bodies(vectors, max_tokens=50)
    assert bodies[-1] == SENTENCES[5]  # without a minimum, the weakest gap wins
    splitter = SemanticSplitter(
        embedder_with(vectors),  # type: ignore[arg-type]
        similarity_window=1,
        depth_cutoff=1e9,
        min_chunk_tokens=15,
        min_sentences_per_chunk=1,
        max_chunk_token_size=50,
    )
    tokens = [estimate_tokens(c.text) for c in splitter.split(TEXT)]
    assert len(tokens) == 2 and min(tokens) >= 15


def test_a_line_end_is_preferred_to_a_weaker_gap_inside_a_paragraph() -> None:
    # The same six sentences, a line end after sentence 1: the weakest gap is 2|3 (two
    # halves), but the cut goes to the line end 1|2, which also makes two chunks that fit.
    text = "".join(SENTENCES[:2]).rstrip() + "\n" + "".join(SENTENCES[2:])
    embed = embedder_with(TWO_HALVES)
    splitter = SemanticSplitter(
        embed,  # type: ignore[arg-type]
        similarity_window=1,
        depth_cutoff=1e9,
        min_chunk_tokens=0,
        min_sentences_per_chunk=1,
        max_chunk_token_size=45,
    )
    bodies = [c.text for c in splitter.split(text)]
    assert bodies == [text[: text.index("\n") + 1], text[text.index("\n") + 1 :]]
    # Where no line end allows the fewest chunks (budget 30: only 3|3 does), the line end
    # is not taken: fewer chunks come first.
    splitter.max_chunk_token_size = 30
    assert splitter.split(text)[0].text == text[: text.index(SENTENCES[3])]


def test_an_oversized_sentence_is_still_cut_inside_only_where_it_must_be() -> None:
    long = "word " * 40  # 200 characters, 50 tokens: over a budget of 30
    text = "A short opening sentence here. " + long.strip() + ". A short closing one here."
    splitter = SemanticSplitter(HashingEmbedder(), max_chunk_token_size=30)
    chunks = splitter.split(text)
    assert all(estimate_tokens(c.text) <= 30 for c in chunks)
    assert "".join(c.text for c in chunks) == text
