"""The index of a source's stems answers what reading every sentence answers: the sentences
that support a stem, the window a proposition aligns to, the coverage of a source. Over real
text the project ships (Chroma's corpora) and every Debian machine has (the licences)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agentic_chunking._text import split_sentences
from agentic_chunking.checks import coverage
from agentic_chunking.checks._align import (
    _common_words,
    _glue,
    _items,
    _opener,
    _score,
    align,
    quotations,
    source_sentences,
    supported_anywhere,
)
from agentic_chunking.checks._language import profile, stem, tokens

DATA = Path(__file__).resolve().parent.parent / "agentic_chunking" / "evaluate" / "data"
TEXTS = [
    DATA / "wikitexts.md",
    DATA / "state_of_the_union.md",
    DATA / "chatlogs.md",
    Path("/usr/share/common-licenses/GPL-3"),
    Path("/usr/share/common-licenses/Apache-2.0"),
]


def _source(path: Path, size: int = 12_000) -> str:
    if not path.exists():
        pytest.skip(f"{path} is absent here")
    text = path.read_text(encoding="utf-8")[:size]
    return text[: text.rfind("\n")]


def _brute_force_align(proposition: str, source: str) -> int:
    """The best sentence as ``align`` chose it before the index: every sentence scored."""
    sentences = source_sentences(source)
    prop = profile(proposition)
    counts = {s: sum(x.supports(s) for x in sentences) for s in _items(prop)}
    names = prop.names | {_opener(proposition)}
    weights = {s: (0.5 if s in names else 1.0) / n for s, n in counts.items() if n}
    glue, words = _glue(proposition), _common_words(proposition)
    scores = [_score(prop, glue, words, weights, sentences, k) for k in range(len(sentences))]
    return max(range(len(sentences)), key=lambda i: (scores[i], -i))


def _propositions(source: str, rng: random.Random) -> list[str]:
    """Sentences of the source as they are, cut, merged with the next, with a word of
    elsewhere, or words no sentence holds."""
    sentences = [s for s in split_sentences(source) if len(s.split()) > 2]
    out = []
    for k, sentence in enumerate(sentences):
        words = sentence.split()
        other = rng.choice(sentences).split()
        out += [
            sentence,
            " ".join(words[len(words) // 2 :]),
            f"{sentence} {sentences[(k + 1) % len(sentences)]}",
            " ".join([*words[:-1], rng.choice(other)]),
            "Zorblax quintessentially flummoxed the vorpal snickersnee.",
        ]
    return out


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.name)
def test_the_index_finds_the_sentences_that_support_a_stem(path: Path) -> None:
    source = _source(path)
    sentences = source_sentences(source)
    stems = {stem(t.norm) for t in tokens(source) if not t.number}
    stems |= {"zorbl", "flummox", "a", "xy"}
    for word_stem in sorted(stems):
        expected = tuple(k for k, s in enumerate(sentences) if s.supports(word_stem))
        assert sentences.supporting(word_stem) == expected, word_stem
        assert supported_anywhere(sentences, word_stem) == bool(expected)
        assert supported_anywhere(tuple(sentences), word_stem) == bool(expected)


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.name)
def test_a_proposition_aligns_to_the_sentence_scoring_every_sentence_gives(path: Path) -> None:
    source = _source(path, 6_000)
    compared = 0
    for proposition in _propositions(source, random.Random(path.name)):
        window = align(proposition, source)
        assert window is not None
        quoted = quotations(proposition, source)
        if quoted:  # word for word: exactly the first sentences it quotes, not a score
            assert (window.start, window.end) == quoted[0], proposition
            continue
        compared += 1
        best = _brute_force_align(proposition, source)
        assert window.start <= best < window.end, proposition
    assert compared > 0  # the scoring path was exercised


def test_coverage_is_what_reading_every_sentence_gives() -> None:
    """The sentences a proposition states part of, found through the index, are those whose
    words it holds half of: a sentence of the source restated is covered, one left out is
    not, whatever the size of the source around it."""
    source = _source(DATA / "state_of_the_union.md", 8_000)
    sentences = [s for s in split_sentences(source) if len(s.split()) > 5]
    kept = sentences[::2]
    stated = coverage(kept, source)
    assert stated.facts > 0 and 0 < stated.covered < stated.facts
    assert all(s not in stated.uncovered for s in kept)
    everything = coverage(sentences, source)
    assert everything.covered > stated.covered
