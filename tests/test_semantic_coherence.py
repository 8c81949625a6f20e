"""The coherence rule: topics as whole groups, so one topic is not cut for its length."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentic_chunking import InputError
from agentic_chunking.semantic import MiniLMEmbedder, SemanticSplitter, render_explanation
from agentic_chunking.semantic._boundaries import COHERENCE_RATIO, coherence_boundaries

DIMENSION = 16


def always(first: int, end: int) -> bool:
    return True


def at_least(segments: int):  # type: ignore[no-untyped-def]
    return lambda first, end: end - first >= segments


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def near(direction: np.ndarray, count: int, noise: float, seed: int) -> np.ndarray:
    """``count`` unit vectors within ``noise`` of ``direction``."""
    rng = np.random.default_rng(seed)
    return unit(direction + noise * rng.normal(size=(count, len(direction))))


def axis(number: int) -> np.ndarray:
    vector = np.zeros(DIMENSION)
    vector[number] = 1.0
    return vector


@given(st.integers(1, 400))
@settings(deadline=None)
def test_identical_vectors_get_no_cut_at_any_length(count: int) -> None:
    assert coherence_boundaries(np.tile(axis(0), (count, 1)), always) == []


@given(st.integers(2, 300), st.floats(0.0, 0.12), st.integers(0, 2**16))
@settings(deadline=None)
def test_near_identical_vectors_get_no_cut_at_any_length(
    count: int, noise: float, seed: int
) -> None:
    # Every pair at least COHERENCE_RATIO alike: across a cut is then never under the
    # ratio times within (at most 1), whatever the groups.
    vectors = near(axis(0) + 0.5 * axis(1), count, noise, seed)
    assume(float(np.min(vectors @ vectors.T)) >= COHERENCE_RATIO)
    assert coherence_boundaries(vectors, at_least(2)) == []
    assert coherence_boundaries(vectors, always) == []


@given(st.integers(2, 60), st.integers(2, 60), st.floats(0.0, 0.1), st.integers(0, 2**16))
@settings(deadline=None)
def test_two_different_blocks_get_one_cut_at_their_border(
    first: int, second: int, noise: float, seed: int
) -> None:
    blocks = [near(axis(0), first, noise, seed), near(axis(1), second, noise, seed + 1)]
    vectors = np.vstack(blocks)
    # Clearly different: any two of a block more alike than any two across, by far.
    within = min(float(np.min(b @ b.T)) for b in blocks)
    across = float(np.max(np.abs(blocks[0] @ blocks[1].T)))
    assume(within >= 0.5 and across <= 0.2 * within)
    assert coherence_boundaries(vectors, at_least(2)) == [first]


def test_a_drifting_topic_is_one_group_and_strangers_are_not() -> None:
    # One topic that drifts: each vector a small turn from the previous one. Sentences
    # far apart are less alike, but across any cut about as alike as within each side.
    angles = np.linspace(0.0, 0.6, 80)
    drift = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    drift = np.hstack([drift, np.zeros((80, DIMENSION - 2))])
    assert coherence_boundaries(drift, at_least(2)) == []
    stranger = near(axis(5), 10, 0.1, 3)
    assert coherence_boundaries(np.vstack([drift, stranger]), at_least(2)) == [80]


def test_the_group_rule_and_paragraph_breaks_hold() -> None:
    vectors = np.vstack([near(axis(0), 6, 0.05, 1), near(axis(1), 6, 0.05, 2)])
    assert coherence_boundaries(vectors, at_least(7)) == []  # no cut leaves both 7+
    assert coherence_boundaries(vectors, at_least(2), breaks=[5]) == [5]


@given(st.lists(st.integers(0, 3), min_size=2, max_size=80), st.integers(1, 4))
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_cuts_are_ordered_inside_respect_the_group_rule_and_repeat(
    topics: list[int], least: int
) -> None:
    vectors = np.vstack([near(axis(t), 1, 0.2, i) for i, t in enumerate(topics)])
    cuts = coherence_boundaries(vectors, at_least(least))
    assert cuts == sorted(set(cuts)) and all(0 < c < len(topics) for c in cuts)
    edges = [0, *cuts, len(topics)]
    if cuts:  # a document too small for two groups is one, whatever its size
        assert all(b - a >= least for a, b in itertools.pairwise(edges))
    assert coherence_boundaries(vectors.copy(), at_least(least)) == cuts


# -- in the splitter ------------------------------------------------------------------------


class TopicEmbedder:
    """Maps a sentence to its topic's axis (the word before 'topic'), a little noise added."""

    name = "topic-embedder"

    def __call__(self, texts: list[str]) -> np.ndarray:
        rows = []
        for text in texts:
            words = text.split()
            number = int(words[words.index("topic") - 1]) if "topic" in words else 0
            seed = sum(map(ord, text))
            rows.append(near(axis(number), 1, 0.1, seed)[0])
        return np.vstack(rows)


def sentences(topic: int, count: int) -> str:
    return " ".join(
        f"Sentence {k} of the {topic} topic says something plain about it." for k in range(count)
    )


def test_the_splitter_selects_the_rule_and_cuts_at_the_border() -> None:
    splitter = SemanticSplitter(TopicEmbedder(), boundary_rule="coherence")
    assert splitter.mode == "coherence"
    text = sentences(1, 6) + " " + sentences(2, 6)
    explanation = splitter.explain(text)
    assert explanation.mode == "coherence" and explanation.boundaries == (6,)
    assert explanation.cut_kinds == ("semantic",) and explanation.size_cuts == 0
    assert "coherence rule" in render_explanation(explanation, text)


@pytest.mark.parametrize("count", [3, 30, 120])
def test_one_long_topic_gets_no_semantic_cut_and_the_caps_cuts_are_forced(count: int) -> None:
    text = sentences(1, count)
    explanation = SemanticSplitter(TopicEmbedder(), boundary_rule="coherence").explain(text)
    assert explanation.boundaries == ()
    assert set(explanation.cut_kinds) <= {"size"}
    assert explanation.size_cuts == len(explanation.chunks) - 1
    if count == 120:  # about 1,700 tokens: over the 256-token cap
        assert explanation.size_cuts >= 6
    assert "".join(c.text for c in explanation.chunks) == text


def test_the_output_is_deterministic() -> None:
    text = sentences(1, 20) + " " + sentences(2, 9) + " " + sentences(3, 14)
    first = SemanticSplitter(TopicEmbedder(), boundary_rule="coherence").explain(text)
    again = SemanticSplitter(TopicEmbedder(), boundary_rule="coherence").explain(text)
    assert first == again and first.boundaries == (20, 29)


def test_a_wrong_rule_or_a_threshold_with_it_is_a_plain_error() -> None:
    with pytest.raises(InputError, match="boundary_rule"):
        SemanticSplitter(TopicEmbedder(), boundary_rule="deep")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="similarity_threshold"):
        SemanticSplitter(TopicEmbedder(), boundary_rule="coherence", similarity_threshold=0.5)
    for ratio in (0.0, -1.0, float("nan")):
        with pytest.raises(InputError, match="coherence_ratio"):
            SemanticSplitter(TopicEmbedder(), boundary_rule="coherence", coherence_ratio=ratio)


def test_evaluate_names_the_rule_in_a_level4_spec() -> None:
    from agentic_chunking.evaluate import build_chunker

    chunker = build_chunker("level4,rule=coherence", TopicEmbedder())
    assert chunker.settings["mode"] == "coherence" and chunker.settings["ratio"] == 0.4
    assert build_chunker("level4", TopicEmbedder()).settings["mode"] == "adaptive"
    with pytest.raises(InputError, match="rule=adaptive"):
        build_chunker("level4,rule=deep", TopicEmbedder())


# -- on real text, with the default embedder ----------------------------------------------

LICENCES = Path("/usr/share/common-licenses")
WIKITEXTS = Path(__file__).resolve().parents[1] / "agentic_chunking/evaluate/data/wikitexts.md"


def _minilm_splitter() -> SemanticSplitter:
    if not MiniLMEmbedder.available():
        pytest.skip("MiniLM needs the semantic extra")
    return SemanticSplitter(MiniLMEmbedder(), boundary_rule="coherence")


@pytest.mark.parametrize("name", ["Apache-2.0", "CC0-1.0", "BSD"])
def test_a_licence_alone_gets_no_semantic_cut_only_forced_ones(name: str) -> None:
    path = LICENCES / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    text = path.read_text(encoding="utf-8")
    explanation = _minilm_splitter().explain(text)
    assert explanation.boundaries == ()
    assert explanation.size_cuts == len(explanation.chunks) - 1


def test_a_licence_then_an_article_is_cut_once_at_their_border() -> None:
    path = LICENCES / "Apache-2.0"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    licence = " ".join(path.read_text(encoding="utf-8").split()[:300])
    licence = licence[: licence.rfind(". ") + 1]  # ends with a sentence
    article = WIKITEXTS.read_text(encoding="utf-8").split("\n")[1].strip()  # a paragraph
    for between in (" ", "\n\n"):
        text = licence + between + article
        explanation = _minilm_splitter().explain(text)
        border = len(licence) + len(between)
        starts = [explanation.segments[b][0] for b in explanation.boundaries]
        assert starts == [border], (starts, border)
