"""Definite noun phrases the source says more about: "The residue blocks the sensor."
where the source introduced the residue in an earlier sentence, "The ventricle pumps"
where it says "the left ventricle", "The narrative explores grief." where the claim never
names the work it is about. Warnings of the pronoun rule (kind
``definite_without_antecedent``); the parse's reading is :mod:`._definite_parse`."""

from __future__ import annotations

import re

from ._align import align
from ._finding import DEFINITE_WITHOUT_ANTECEDENT, WARNING, Problem
from ._language import GLUE_WORDS, Token, can_be_verb, stem, tokens
from ._titles import QUOTED
from ._verbs import looks_like_finite_verb
from ._words import DEFINITE_DETERMINERS, word_set

_DEFINITE = DEFINITE_DETERMINERS
WORKS = word_set("narrative story novel book series tale plot summary")
"""Nouns by which a claim refers to the work the source summarises or describes."""


_PARTS_OF_A_WORK = re.compile(
    r"(?i)^\W*(?:(?:key|main|major|central|other|recurring|significant|important|notable"
    r"|prominent|pivotal)\s+)?(?:events|themes|characters|motifs|scenes|moments|subplots"
    r"|plot\s+points|conflicts|settings|twists)\s+(?:include|involve|are|encompass)\b"
)
"""A claim whose subject is the parts of a work, with no work named: "Key events include
...", "Main characters are ..." (not "Themes of loyalty ...": an "of" says which)."""


def unnamed_work(proposition: str, toks: tuple[Token, ...]) -> Problem | None:
    """ "The narrative explores grief.", "... are explored in the book.", "Key events
    include ...": the work the claim is about, never named in it (no quoted title, not
    "the story of X")."""
    if QUOTED.search(proposition):
        return None
    parts = _PARTS_OF_A_WORK.match(proposition)
    if parts is not None:
        return (
            DEFINITE_WITHOUT_ANTECEDENT,
            f'"{parts.group(0).strip()}": the parts of a work the claim does not name',
            WARNING,
        )
    for i in range(len(toks) - 1):
        nxt = toks[i + 2].norm if i + 2 < len(toks) else ""
        if toks[i].norm == "the" and toks[i + 1].norm in WORKS and nxt != "of":
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"the {toks[i + 1].text}": which work the claim does not say',
                WARNING,
            )
    return None


def definite_in_source(proposition: str, source: str) -> Problem | None:
    """'The residue blocks the sensor.' where the source introduced that residue in an
    earlier sentence and refers back to it ('the/this residue') in the aligned one,
    'The ventricle pumps ...' where the aligned sentence says which ('the left
    ventricle'), or 'The panels use ...' where the source only says which ('most
    commercial panels')."""
    toks = tokens(proposition)
    unnamed = unnamed_work(proposition, toks)
    if unnamed is not None:
        return unnamed
    if len(toks) < 3 or toks[0].norm != "the" or toks[1].capitalised or toks[1].number:
        return None
    if not (looks_like_finite_verb(toks, 2) or can_be_verb(toks[2].norm)):
        return None  # "The residue of the solvent ...": the description is spelled out
    window = align(proposition, source)
    if window is None:
        return None
    noun = stem(toks[1].norm)
    said = {stem(t.norm) for t in toks if not t.number}
    for k in range(window.start, window.end):
        sentence = tokens(window.sentences[k].text)
        dropped = [  # "The ventricle ..." where the source says "the left ventricle"
            sentence[j - 1].text
            for j, t in enumerate(sentence)
            if j > 1
            and stem(t.norm) == noun
            and sentence[j - 2].norm in _DEFINITE
            and sentence[j - 1].norm not in GLUE_WORDS
            and not sentence[j - 1].number
            and stem(sentence[j - 1].norm) not in said
        ]
        if dropped:
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"the {toks[1].text}": the source says "the {dropped[0]} {toks[1].text}"',
                WARNING,
            )
    for k in range(window.start, window.end):
        sentence = tokens(window.sentences[k].text)
        referring = any(
            stem(t.norm) == noun and j and sentence[j - 1].norm in _DEFINITE
            for j, t in enumerate(sentence)
        )
        if referring and any(s.supports(noun) for s in window.sentences[:k]):
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"the {toks[1].text}": the source says which in an earlier sentence',
                WARNING,
            )
    sentences = [s.text for s in window.sentences[: window.end]]
    modifier = _only_modified(noun, said, sentences) if looks_like_finite_verb(toks, 2) else ""
    if modifier:  # "The underground channel ...": "underground" is no head noun
        return (
            DEFINITE_WITHOUT_ANTECEDENT,
            f'"the {toks[1].text}": the source only says "{modifier} {toks[1].text}"',
            WARNING,
        )
    return None


_ARTICLES = _DEFINITE | word_set("a an its their his her our")


def _only_modified(noun: str, said: set[str], sentences: list[str]) -> str:
    """The word before ``noun`` where ``sentences`` (the aligned ones and those before
    them) write it only with a word the proposition does not say before it ("human
    liver", "most commercial panels", "curatores aquarum"), never after an article or
    at the start of a sentence ("the liver", "a panel", "Panels ..."); "" otherwise."""
    found = ""
    for text in sentences:
        toks = tokens(text)
        for j, tok in enumerate(toks):
            if tok.number or stem(tok.norm) != noun:
                continue
            before = toks[j - 1] if j else None
            if before is None or before.norm in _ARTICLES:
                return ""  # the source names it so itself
            if before.norm in GLUE_WORDS or before.number:
                continue  # "of panels", "and panels": neither
            if stem(before.norm) not in said:
                found = found or before.text
    return found
