"""lemminflect's lexicon read without importing lemminflect (``checks/_english.py``): the
same answers as lemminflect's own functions, and no spaCy import on the way."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentic_chunking.checks import _english


def test_the_lexicons_words_get_lemminflects_own_lemmas_and_inflections() -> None:
    """Every third word of the lexicon (about 35,000; all of them: 10 s on a busy machine)."""
    lemminflect = pytest.importorskip("lemminflect")
    _english.all_lemmas("seen")
    _english.all_inflections("see")
    words = sorted(set(_english._TABLES["lemmas"]) | set(_english._TABLES["inflections"]))
    assert len(words) > 50_000  # the whole lexicon was read, not a stub
    differ = [
        word
        for word in words[::3]
        if _english.all_lemmas(word) != lemminflect.getAllLemmas(word)
        or _english.all_inflections(word) != lemminflect.getAllInflections(word)
    ]
    assert differ == []


@pytest.mark.parametrize("word", ["Seen", "SEEN", "seen", "Paris", "Aaron", "mice", "best"])
@pytest.mark.parametrize("upos", [None, "VERB", "NOUN", "PROPN", "ADJ", "AUX", "PUNCT"])
def test_capitalisation_and_parts_of_speech_are_answered_as_lemminflect_answers(
    word: str, upos: str | None
) -> None:
    lemminflect = pytest.importorskip("lemminflect")
    if upos != "PUNCT":  # lemminflect logs a warning for an unknown part of speech
        assert _english.all_lemmas(word, upos) == lemminflect.getAllLemmas(word, upos)
        assert _english.all_inflections(word, upos) == lemminflect.getAllInflections(word, upos)
    else:
        assert _english.all_lemmas(word, upos) == {} == _english.all_inflections(word, upos)


@pytest.mark.parametrize(
    ("lemma", "tag"),
    [
        ("good", "JJS"),
        ("draw", "VBD"),
        ("put", "VBN"),
        ("fast", "RBS"),
        ("go", "VBZ"),
        ("mouse", "NNS"),
        ("Paris", "NNP"),
        ("xyzzy", "VBD"),
        ("be", "VBD"),
        ("can", "MD"),
    ],
)
def test_one_inflection_is_lemminflects_without_forms_made_by_rule(lemma: str, tag: str) -> None:
    lemminflect = pytest.importorskip("lemminflect")
    expected = lemminflect.getInflection(lemma, tag, inflect_oov=False) or ()
    assert _english.inflection(lemma, tag) == tuple(expected)


def test_the_lexicon_says_what_a_reader_expects() -> None:
    assert _english.all_lemmas("seen")["VERB"] == ("see",)
    assert _english.all_lemmas("mice")["NOUN"] == ("mouse",)
    assert "drew" in _english.all_inflections("draw", "VERB")["VBD"]
    assert _english.inflection("good", "JJS") == ("best",)
    assert _english.all_lemmas("xyzzy") == {}


def test_using_the_lexicon_imports_neither_spacy_nor_lemminflect() -> None:
    """A fresh process that looks words up, stems and runs a duplicate search has neither
    spaCy nor lemminflect in ``sys.modules`` (lemminflect imports spaCy at its top)."""
    probe = (
        "import sys\n"
        "from agentic_chunking.checks import find_duplicates\n"
        "from agentic_chunking.checks._language import all_lemmas, stem, lemma\n"
        "assert all_lemmas('seen') and lemma('grew') == 'grow' and stem('running')\n"
        "find_duplicates([['Ann won the cup in 2019.', 'In 2019 Ann won the cup.']])\n"
        "print(sorted(m for m in ('spacy', 'lemminflect') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


def test_a_missing_lexicon_is_one_plain_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_english.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(_english.LexiconMissing, match="reinstall"):
        _english._resources()
