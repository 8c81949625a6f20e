"""Coverage: every fact sentence of the input is stated by some proposition.

A sentence counts as covered when the propositions about it (aligned to it, quoting it
word for word wherever it stands, or stating at least ``COVERED`` of their content words
from it: a repeated sentence is covered by the one proposition) together state at least
``COVERED`` of its content words and every one of its numbers. Sentences that state no
fact are not judged: headings (no verb or fewer than ``MIN_WORDS`` content words and
numbers); citation markers ("[12]", "(Smith et al., 2020)") and figure or table labels
("See Figure 3.") are set aside first.

A sentence split into several propositions loses one fact without falling under
``COVERED`` ("... automates the deployment, scaling and management of ..." with
"scaling" in no proposition). Its mark is a fact word (a noun or verb: no adjective,
adverb, unit, causative "let"/"make", nor a noun after "the"/"this" that a proposition
may resolve, unless an "of" spells it out) that no proposition about the sentence
states, by stem, by a listed paraphrase that is no other word of the sentence, or by its
converse with the relation's sides swapped ("A is the grandson of B" is stated by "B is
the grandfather of A", :mod:`._converse`). That
is evidence only when the output keeps the passage's own words, as the extraction prompt
asks: the sentence is partly stated when the propositions leave at most
``KEPT_ELSEWHERE`` of the source's other fact words unstated (``MIN_EVIDENCE`` of them
or more stated).
An output that rewords or leaves words out throughout (a summary, a paraphrase) is judged
by ``COVERED`` alone, as a reader would: its missing words are its style, not a lost
fact.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .._text import is_heading
from ._align import Sentence, SourceSentences, _sentence, align, quotations, source_sentences
from ._converse import SWAPPED, converse_reading
from ._finding import COVERAGE, ERROR, UNCOVERED_SENTENCE, WARNING, Finding, Severity
from ._language import (
    GLUE_WORDS,
    Token,
    all_lemmas,
    can_be_verb,
    profile,
    stem,
    stems_match,
    stems_of,
    tokens,
    unit_of,
    word_set,
)
from ._lexicon import paraphrases
from ._words import DEFINITE_DETERMINERS

COVERED = 0.5
"""The share of a sentence's content words its propositions must state together."""
MIN_WORDS = 3
"""A sentence with fewer content words and numbers is a heading or label, not a fact."""
KEPT_ELSEWHERE = 0.05
"""A fact word no proposition states marks a sentence partly stated only when the
propositions leave at most this share of the source's other fact words unstated."""
MIN_EVIDENCE = 5
"""... and state at least this many of them (a source of one short sentence shows no
style to compare with)."""
_CAUSATIVE_VERBS = word_set("let make get")


"""Verbs whose fact is the verb after them ("lets ions pass": "ions pass")."""
_REFERRING = DEFINITE_DETERMINERS
"""Words before a noun that a proposition may replace by what it refers to ("the organ"
-> "the liver"); a possessive ("its duration") keeps its noun."""

_CITATION = re.compile(
    r"\[\d+(?:\s*[,\u2013-]\s*\d+)*\]"  # [12], [3-5]
    r"|\(\s*[A-Z][^()]*\bet al\.?[^()]*\)"  # (Smith et al., 2020)
    r"|\(\s*[A-Z][a-z]+,?\s+\d{4}\s*\)"  # (Smith, 2020)
)
_LABEL = re.compile(
    r"^\W*(?:see\s+)?(?:fig(?:ure)?|table|chart|diagram|appendix)\.?\s*\d+[a-z]?\b[.:]?\s*",
    re.IGNORECASE,
)


def _fact_text(text: str) -> str:
    """A sentence without its citation markers ("[12]", "(Smith et al., 2020)") and its
    leading figure or table label ("Figure 3:")."""
    return _LABEL.sub("", _CITATION.sub(" ", text)).strip()


@dataclass(frozen=True)
class Coverage:
    """How much of a source its propositions state: ``covered`` of ``facts`` fact
    sentences (``share`` is 1.0 when there are none) and the ``uncovered`` sentences."""

    facts: int
    covered: int
    uncovered: tuple[str, ...]
    lost_numbers: tuple[tuple[str, ...], ...] = ()
    """Per uncovered sentence, its numbers that no proposition states at all."""
    lost_words: tuple[tuple[str, ...], ...] = ()
    """Per uncovered sentence, the fact words no proposition states when it is partly
    stated (see the module), else empty."""
    empty: bool = False
    """True when there were no propositions at all: every fact is certainly dropped, so
    each uncovered sentence is an error whatever severity is asked for."""

    @property
    def share(self) -> float:
        return self.covered / self.facts if self.facts else 1.0

    def findings(self, severity: Severity = WARNING) -> list[Finding]:
        """One ``uncovered_sentence`` finding (rule ``coverage``) per uncovered sentence: an
        error when its numbers appear in no proposition or there are no propositions at
        all, else of ``severity``."""
        lost = self.lost_numbers or ((),) * len(self.uncovered)
        words = self.lost_words or ((),) * len(self.uncovered)
        certain = ERROR if self.empty else severity
        return [
            Finding(
                "",
                COVERAGE,
                _reason(numbers, unstated, certain),
                severity=ERROR if numbers else certain,
                kind=UNCOVERED_SENTENCE,
                source_sentence=sentence,
            )
            for sentence, numbers, unstated in zip(self.uncovered, lost, words, strict=True)
        ]


def _reason(numbers: tuple[str, ...], words: tuple[str, ...], severity: Severity) -> str:
    if numbers:
        which = "number" if len(numbers) == 1 else "numbers"
        verb = "appears" if len(numbers) == 1 else "appear"
        return (
            f"no proposition states this sentence; its {which} {', '.join(numbers)} (in "
            f"figures or in words) {verb} in no proposition (a fact dropped)"
        )
    if words:
        return (
            f"no proposition states part of this sentence: {', '.join(words)} (the other "
            "propositions keep the passage's words, so a fact dropped)"
        )
    return "no proposition states this sentence" + (
        "" if severity == WARNING else " (a fact dropped)"
    )


def _is_fact(text: str) -> bool:
    """A sentence that states something (once citations and figure labels are set aside):
    enough content words and numbers, and a word that can be a verb (a heading has none),
    and no title (``_is_title``)."""
    if _is_title(text):
        return False
    toks = tokens(text)
    stated = profile(text)
    if len(stated.content) + len(stated.numbers) < MIN_WORDS:
        return False
    return any(not t.number and can_be_verb(t.norm) for t in toks)


_CLOSED = re.compile(r"[.!?\u2026][\"')\]}\u00bb\u201d\u2019]*\s*$")


def _is_title(text: str) -> bool:
    """A heading or label, which the segmenter gives alone (it ends a sentence at a blank
    line and around a heading): a heading by its layout (``_text.is_heading``: "# ...",
    a title over its underline), or one line with no closing mark (". ! ?") whose every
    word that can be a verb can be a noun too ("Glaciers and ice sheets"; but "I moved to
    Paris" and "Deploying the service" state or do something)."""
    if is_heading(text):
        return True
    if "\n" in text.strip() or _CLOSED.search(text):
        return False
    return all("NOUN" in all_lemmas(t.norm) for t in tokens(text) if can_be_verb(t.norm))


def coverage(propositions: list[str], source: str) -> Coverage:
    """Which fact sentences of ``source`` the propositions state (see the module doc)."""
    sentences = source_sentences(source)
    judged = _judged(sentences, _about(propositions, source, sentences), propositions)
    every = sum(n for *_, n in judged)
    unstated_all = sum(len(u) for _, _, _, u, _ in judged)
    uncovered: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
    for text, share_kept, lost, unstated, _ in judged:
        if not share_kept:
            uncovered.append((text, lost, ()))
            continue
        others = every - len(unstated)  # the fact words of the source but these
        elsewhere = (unstated_all - len(unstated)) / others if others else 1.0
        if unstated and others >= MIN_EVIDENCE and elsewhere <= KEPT_ELSEWHERE:
            uncovered.append((text, lost, unstated))
    return Coverage(
        len(judged),
        len(judged) - len(uncovered),
        tuple(t for t, _, _ in uncovered),
        tuple(n for _, n, _ in uncovered),
        tuple(w for _, _, w in uncovered),
        empty=not propositions,
    )


@dataclass(frozen=True)
class _About:
    """Per source sentence, what the propositions about it state together: their content
    words (``stated``), their numbers, and the propositions themselves (``about``)."""

    stated: list[set[str]]
    numbers: list[set[str]]
    about: list[list[str]]


def _about(propositions: list[str], source: str, sentences: SourceSentences) -> _About:
    """Which propositions are about which sentence of ``source``: a proposition is about
    the sentences it quotes word for word (else those of its aligned window) and those
    that hold at least ``COVERED`` of its content words."""
    found = _About([set() for _ in sentences], [set() for _ in sentences], [[] for _ in sentences])
    for proposition in propositions:
        window = align(proposition, source)
        if window is None:
            continue
        prop = profile(proposition)
        quoted = quotations(proposition, source) or ((window.start, window.end),)
        held = Counter(k for w in prop.content for k in sentences.supporting(w))
        candidates = held.keys() | {k for start, end in quoted for k in range(start, end)}
        for k in sorted(candidates):
            inside = any(start <= k < end for start, end in quoted)
            part = held[k] >= COVERED * len(prop.content)  # the sentences holding its words
            if inside or (prop.content and part):  # the proposition states part of it
                found.stated[k] |= prop.content
                found.numbers[k] |= prop.numbers
                found.about[k].append(proposition)
    return found


_Judged = tuple[str, bool, tuple[str, ...], tuple[str, ...], int]
"""A fact sentence judged: its text, whether its propositions state ``COVERED`` of its
content words and all its numbers, its numbers no proposition states, its fact words
no proposition about it states, and how many fact words it has."""


def _judged(sentences: SourceSentences, found: _About, propositions: list[str]) -> list[_Judged]:
    """Each fact sentence (:func:`_is_fact`) judged against what the propositions about it
    state (``found``, :func:`_about`); a fact word is stated by stem, by a paraphrase, or
    by a proposition that states its converse (:mod:`._converse`)."""
    anywhere = {n for p in propositions for n in profile(p).numbers}
    judged: list[_Judged] = []
    for k, sentence in enumerate(sentences):
        text = _fact_text(sentence.text)
        if not _is_fact(text):
            continue
        stated_here = profile(text)
        content = stated_here.content
        said = sum(any(stems_match(w, s) for s in found.stated[k]) for w in content)
        share_kept = said >= COVERED * len(content) and stated_here.numbers <= found.numbers[k]
        words = _fact_words(text)
        said_here = _sentence(" ".join(found.about[k]))
        own = frozenset(s for s, _ in words)
        unstated = tuple(
            w
            for s, w in words
            if not _stated(s, said_here, own - {s})
            and not any(converse_reading(p, text, s) == SWAPPED for p in found.about[k])
        )
        lost = tuple(sorted(stated_here.numbers - anywhere))
        judged.append((sentence.text, share_kept, lost, unstated, len(words)))
    return judged


def _fact_words(text: str) -> tuple[tuple[str, str], ...]:
    """(stem, word) of each fact word of a sentence, once: a noun or a verb (or a word
    the lexicon does not know, four letters or more), no unit, no causative, no word after
    a referring word ("the organ"; but "the pull of gravity" spells it out, and "its
    duration" keeps its noun)."""
    toks = tokens(text)
    out: dict[str, str] = {}
    for i, tok in enumerate(toks):
        if tok.number or tok.norm in GLUE_WORDS or unit_of(tok.text):
            continue
        word_stem = stem(tok.norm)
        if word_stem in stems_of(_CAUSATIVE_VERBS) or word_stem in out:
            continue
        before = toks[i - 1].norm if i else ""
        if before in _REFERRING and not (before == "the" and _spelled_out(toks, i)):
            continue
        found = set(all_lemmas(tok.norm))
        if (found and not {"NOUN", "VERB"} & found) or (not found and len(tok.norm) < 4):
            continue
        out[word_stem] = tok.text
    return tuple(out.items())


def _spelled_out(toks: tuple[Token, ...], i: int) -> bool:
    """Is ``toks[i]`` after "the" spelled out by an "of" phrase: "the pull of gravity",
    "the deployment, scaling and management of applications" (nouns and "and"/"or"
    up to the "of")?"""
    for tok in toks[i + 1 : i + 5]:
        if tok.norm == "of":
            return True
        if tok.number or (tok.norm not in ("and", "or") and tok.norm in GLUE_WORDS):
            return False
        if "VERB" in all_lemmas(tok.norm) and "NOUN" not in all_lemmas(tok.norm):
            return False
    return False


def _stated(word_stem: str, said: Sentence, own: frozenset[str]) -> bool:
    """Does some proposition state the word, by stem or by a listed paraphrase that is no
    other word of its own sentence (``own``: "its duration indicates" is not stated by
    the "shows" of "the angle shows")?"""
    if said.supports(word_stem):
        return True
    return any(
        m and not own & set(m) and all(said.supports(s) for s in m) for m in paraphrases(word_stem)
    )


def find_uncovered_sentences(
    propositions: list[str], source: str, *, severity: Severity = WARNING
) -> list[Finding]:
    """Return a finding (kind ``uncovered_sentence``, rule ``coverage``, ``severity``:
    a warning by default, an error where a case asks) for each fact sentence of
    ``source`` that no proposition states: a fact dropped. A sentence whose number appears
    in no proposition at all is an error whatever ``severity`` says: a number of the
    input is certainly lost. The finding's proposition is
    empty and ``source_sentence`` is the dropped sentence."""
    return coverage(propositions, source).findings(severity)
