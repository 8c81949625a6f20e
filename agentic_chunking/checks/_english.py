"""lemminflect's English lexicon (lemmas and inflections), read from the data files its
wheel ships, without importing the ``lemminflect`` package.

``import lemminflect`` tries ``import spacy`` at its top (to register spaCy token
extensions), so a process that only looks words up would pay spaCy's import (about 2 s,
most of a first duplicate search on 500 propositions) without parsing anything. The
lookups the checks use (``getAllLemmas`` and ``getAllInflections`` without a part of
speech model: no out-of-vocabulary rules) are plain dictionary reads of two gzipped CSV
files and two override files in ``lemminflect/resources``; this module reads those files
as lemminflect's own codecs do and answers the two questions the same way, word for word
(``tests/test_checks_english.py`` compares the two over a third of the lexicon). The package is
located with ``importlib.util.find_spec``, which runs none of its code.

Loaded once per process, on first use, under a lock (threads of the corpus layer).
"""

from __future__ import annotations

import gzip
import importlib.util
import threading
from collections.abc import Callable
from pathlib import Path

Forms = dict[str, tuple[str, ...]]

_UPOS_TYPES = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "AUX"})
_INFLECTED_TAGS: dict[str, tuple[str, ...]] = {
    "noun": ("NNS",),
    "adj": ("JJR", "JJS"),
    "adv": ("RBR", "RBS"),
    "verb": ("VBD", "VBN", "VBG", "VBZ"),
}
"""The Penn tags of the forms after the base on a line of ``infl_lu.csv.gz``, by category
(lemminflect's ``InflectionLUCodec.penn_dict``)."""
_BASE_TAGS: dict[str, tuple[str, ...]] = {
    "noun": ("NN",),
    "adj": ("JJ",),
    "adv": ("RB",),
    "verb": ("VB", "VBP"),
    "aux": ("VB",),
    "modal": ("VB",),
}
_AUX_AND_MODALS: dict[str, Forms] = {
    "can": {"VB": ("can",), "VBD": ("could",)},
    "may": {"VB": ("may",), "VBD": ("might",)},
    "will": {"VB": ("will",), "VBD": ("would",)},
    "shall": {"VB": ("shall",), "VBD": ("should",)},
    "must": {"VB": ("must",), "VBD": ("must",)},
    "ought": {"VB": ("ought",), "VBD": ("ought",)},
    "dare": {"VB": ("dare",)},
    "be": {
        "VB": ("be",),
        "VBD": ("was", "were"),
        "VBG": ("being",),
        "VBN": ("been",),
        "VBP": ("am", "are"),
        "VBZ": ("is",),
    },
}
"""The auxiliaries and modals lemminflect hard-codes over its inflection table
(``InflectionLUCodec.updateForAuxMod``)."""
_TAGS_OF_UPOS: dict[str, frozenset[str]] = {
    "VERB": frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"}),
    "AUX": frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"}),
    "ADJ": frozenset({"JJ", "JJR", "JJS"}),
    "ADV": frozenset({"RB", "RBR", "RBS"}),
    "NOUN": frozenset({"NN", "NNS", "NNP", "NNPS"}),
}
_LOCK = threading.Lock()
_TABLES: dict[str, dict[str, Forms]] = {}


def _table(name: str, load: Callable[[], dict[str, Forms]]) -> dict[str, Forms]:
    """The table ``name``, loaded by ``load`` once per process (under a lock: threads that
    ask together wait for one load)."""
    table = _TABLES.get(name)
    if table is None:
        with _LOCK:
            table = _TABLES.get(name)
            if table is None:
                table = _TABLES[name] = load()
    return table


class LexiconMissing(ImportError):
    """lemminflect (a core dependency) is not installed, or its data files are absent."""


def _resources() -> Path:
    """The folder of lemminflect's data files, found without importing the package."""
    spec = importlib.util.find_spec("lemminflect")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    folder = Path(locations[0]) / "resources" if locations else None
    if folder is None or not (folder / "lemma_lu.csv.gz").is_file():
        raise LexiconMissing(
            "lemminflect's lexicon was not found: reinstall agentic-chunking"
            " (pip install --force-reinstall lemminflect)"
        )
    return folder


def _overrides(path: Path) -> dict[str, Forms]:
    """An overrides file (``word,tag,form`` lines, ``#`` comments) as word -> tag -> forms."""
    found: dict[str, Forms] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, tag, form = line.split(",")
        found.setdefault(word, {})[tag] = (form,)
    return found


def _gzipped_lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def _load_lemmas() -> dict[str, Forms]:
    """word -> upos -> lemmas: ``lemma_lu.csv.gz`` (category ``modal`` read as ``AUX``) with
    ``lemma_overrides.csv`` laid over it, as lemminflect's ``Lemmatizer`` merges them."""
    folder = _resources()
    table: dict[str, Forms] = {}
    for line in _gzipped_lines(folder / "lemma_lu.csv.gz"):
        word, category, forms = line.strip().split(",")
        upos = "AUX" if category.upper() == "MODAL" else category.upper()
        table.setdefault(word, {})[upos] = tuple(forms.split("/"))
    for word, overrides in _overrides(folder / "lemma_overrides.csv").items():
        table.setdefault(word, {}).update(overrides)
    return table


def _load_inflections() -> dict[str, Forms]:
    """lemma -> Penn tag -> forms: ``infl_lu.csv.gz``, the hard-coded auxiliaries and modals,
    then ``infl_overrides.csv``, as lemminflect's ``Inflections`` merges them."""
    folder = _resources()
    table: dict[str, Forms] = {}
    for line in _gzipped_lines(folder / "infl_lu.csv.gz"):
        word, category, *forms = line.strip().split(",")
        if category not in _BASE_TAGS:
            raise LexiconMissing(f"lemminflect's lexicon has an unknown category {category!r}")
        entry: Forms = {}
        for tag, spellings in zip(_INFLECTED_TAGS.get(category, ()), forms, strict=False):
            if spellings:
                entry[tag] = tuple(spellings.split("/"))
        for tag in _BASE_TAGS[category]:
            entry[tag] = (word,)
        table.setdefault(word, {}).update(entry)
    table.update({word: dict(forms) for word, forms in _AUX_AND_MODALS.items()})
    for word, overrides in _overrides(folder / "infl_overrides.csv").items():
        table.setdefault(word, {}).update(overrides)
    return table


def _caps_style(word: str) -> str:
    if word.isupper():
        return "all_upper"
    return "first_upper" if word and word[0].isupper() else "lower"


def _in_style(forms: Forms, style: str) -> Forms:
    """``forms`` spelt in ``style`` (lemminflect's ``applyCapsStyleToDict``)."""
    if style == "all_upper":
        return {k: tuple(w.upper() for w in v) for k, v in forms.items()}
    if style == "first_upper":
        return {k: tuple(w.capitalize() for w in v) for k, v in forms.items()}
    return {k: tuple(w.lower() for w in v) for k, v in forms.items()}


def all_lemmas(word: str, upos: str | None = None) -> Forms:
    """The lemmas of ``word`` by universal part of speech, spelt in the word's capitalisation
    (``{}`` when the lexicon does not list it, or ``upos`` is none of NOUN, PROPN, VERB,
    ADJ, ADV, AUX): what ``lemminflect.getAllLemmas(word, upos)`` returns. A new dict on
    every call."""
    if upos is not None and upos not in _UPOS_TYPES:
        return {}
    style, key = _caps_style(word), word.lower()
    if upos == "PROPN":
        key, upos = key.capitalize(), "NOUN"
    found = _table("lemmas", _load_lemmas).get(key, {})
    if upos:
        found = {k: v for k, v in found.items() if k == upos}
    return _in_style(found, style)


def all_inflections(lemma: str, upos: str | None = None) -> Forms:
    """The forms of ``lemma`` by Penn tag (those of ``upos`` only, when given), spelt in the
    lemma's capitalisation (``{}`` when the lexicon does not list it): what
    ``lemminflect.getAllInflections(lemma, upos)`` returns. A new dict on every call."""
    if upos is not None and upos not in _UPOS_TYPES:
        return {}
    style, key = _caps_style(lemma), lemma.lower()
    if upos == "PROPN":
        key, upos = key.capitalize(), "NOUN"
    found = _table("inflections", _load_inflections).get(key, {})
    if upos is not None:
        wanted = _TAGS_OF_UPOS.get(upos, frozenset())
        found = {k: v for k, v in found.items() if k in wanted}
    return _in_style(found, style)


_ALTERNATE_TAGS: dict[str, tuple[str, ...]] = {
    "RP": ("JJ", "RB"),
    "VBD": ("VBN",),
    "VBN": ("VBD",),
    "JJ": ("RB",),
    "JJR": ("RBR",),
    "JJS": ("RBS",),
    "RB": ("JJ",),
    "RBR": ("JJR",),
    "RBS": ("JJS",),
}
"""The tags lemminflect tries when a lemma has no form for the one asked
(``LexicalUtils.pennTagAlts``): a past for a participle, an adverb's for an adjective's."""


def inflection(lemma: str, tag: str) -> tuple[str, ...]:
    """The forms of ``lemma`` for the Penn tag ``tag`` from the lexicon, or for the tag
    lemminflect tries next ("VBN" for "VBD", "RBS" for "JJS"); ``()`` when it lists none:
    what ``lemminflect.getInflection(lemma, tag, inflect_oov=False)`` returns (no forms
    made by rule for a word the lexicon does not list)."""
    proper = tag in ("NNP", "NNPS")
    forms = all_inflections(lemma, "PROPN" if proper else None)
    wanted = {"NNP": "NN", "NNPS": "NNS"}.get(tag, tag)
    found = forms.get(wanted)
    for alternate in () if found else _ALTERNATE_TAGS.get(tag, ()):
        found = forms.get(alternate)
        if found:
            break
    return found or ()
