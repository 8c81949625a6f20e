"""pre_chunk_for_extraction: the upstream behaviours, and the size guarantee upstream lacks."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking import estimate_tokens, pre_chunk_for_extraction


def _non_whitespace(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("empty", [None, "", "   ", "\n\n\t\n"])
def test_empty_or_none_text_gives_no_batches(empty: str | None) -> None:
    assert pre_chunk_for_extraction(empty) == []


@pytest.mark.parametrize("limit", [0, -5])
def test_limit_zero_or_less_means_2000(limit: int) -> None:
    text = "\n\n".join(["x" * 3000] * 4)  # 12,000 chars: two batches at 8,000 chars each
    assert pre_chunk_for_extraction(text, limit) == pre_chunk_for_extraction(text, 2000)
    assert [len(b) for b in pre_chunk_for_extraction(text, limit)] == [6002, 6002]


def test_one_token_is_four_characters() -> None:
    assert estimate_tokens("abc") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("x" * 4001) == 1000


def test_paragraphs_are_packed_greedily_and_kept_whole() -> None:
    paragraphs = ["A" * 10 + ".", "B" * 10 + ".", "C" * 10 + "."]
    text = "\n\n".join(paragraphs)
    # Limit 7 tokens = 28 chars: two paragraphs (11 + 2 + 11 = 24) fit, three do not.
    assert pre_chunk_for_extraction(text, 7) == [
        paragraphs[0] + "\n\n" + paragraphs[1],
        paragraphs[2],
    ]


def test_small_text_is_one_batch() -> None:
    assert pre_chunk_for_extraction("Kubernetes orchestrates containers.") == [
        "Kubernetes orchestrates containers."
    ]


def test_oversized_paragraph_is_split_at_sentence_boundaries() -> None:
    sentences = [f"Sentence number {i} is here." for i in range(6)]
    batches = pre_chunk_for_extraction(" ".join(sentences), 15)  # 60 chars
    assert all(estimate_tokens(b) <= 15 for b in batches)
    for batch in batches:  # every batch is whole sentences
        assert batch.endswith(".")
        assert batch.startswith("Sentence")


def test_abbreviations_and_decimals_do_not_end_a_sentence() -> None:
    text = (
        "Dr. Smith tested 3.5 V cells in the U.S. last year, e.g. for drones. "
        "The second sentence is here."
    )
    first = text.split(" The second")[0]
    batches = pre_chunk_for_extraction(text, len(first) // 4 + 1)
    assert batches[0] == first


def test_a_single_sentence_longer_than_the_limit_is_split_within_the_limit() -> None:
    sentence = "word " * 500 + "end."
    batches = pre_chunk_for_extraction(sentence, 10)
    assert all(estimate_tokens(b) <= 10 for b in batches)
    assert _non_whitespace("".join(batches)) == _non_whitespace(sentence)


def test_a_single_word_longer_than_the_limit_is_cut() -> None:
    batches = pre_chunk_for_extraction("x" * 100, 5)
    assert batches == ["x" * 20] * 5


def test_crlf_line_ends_separate_paragraphs() -> None:
    text = "First paragraph here.\r\n\r\nSecond paragraph here."
    assert pre_chunk_for_extraction(text, 6) == ["First paragraph here.", "Second paragraph here."]


def test_text_without_punctuation_stays_within_the_limit() -> None:
    text = " ".join(f"token{i}" for i in range(2000))
    batches = pre_chunk_for_extraction(text, 50)
    assert all(estimate_tokens(b) <= 50 for b in batches)
    assert _non_whitespace("".join(batches)) == _non_whitespace(text)


_text = st.lists(
    st.sampled_from([*"abc XYZ.!?\n\r\t,;:3-\"'é。", "Dr. ", "e.g. ", "3.5 ", "\n\n", "word "]),
    max_size=150,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=_text, limit=st.integers(min_value=-2, max_value=40))
def test_property_no_batch_over_the_limit(text: str, limit: int) -> None:
    effective = limit if limit > 0 else 2000
    for batch in pre_chunk_for_extraction(text, limit):
        assert batch.strip()
        assert estimate_tokens(batch) <= effective


@settings(max_examples=200, deadline=None)
@given(text=_text, limit=st.integers(min_value=1, max_value=40))
def test_property_every_non_whitespace_character_kept_in_order(text: str, limit: int) -> None:
    batches = pre_chunk_for_extraction(text, limit)
    assert _non_whitespace("".join(batches)) == _non_whitespace(text)
