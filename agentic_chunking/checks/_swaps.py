"""The marks of a swap in the clause a proposition restates: a person of the clause
replaced, a name of the window left out for one of elsewhere, a term replaced."""

from __future__ import annotations

import re
from functools import lru_cache

import lemminflect

from ._align import Window, person_names
from ._language import GLUE_WORDS, Profile, profile, stem, stems_match, tokens, unit_of, word_set


@lru_cache(maxsize=8192)
def initials(text: str) -> frozenset[str]:
    """The acronyms a text spells out: initials (lower case) of every run of 2 to 5
    capitalised words ("Unreal Engine" -> "ue"), so "UE4" matches "Unreal Engine 4"."""
    toks = tokens(text)
    out: set[str] = set()
    for i in range(len(toks)):
        run = ""
        for tok in toks[i : i + 5]:
            if tok.number or not tok.capitalised:
                break
            run += tok.norm[0]
            if len(run) >= 2:
                out.add(run)
    return frozenset(out)


_ACRONYM_GLUE = word_set("of in the and for on at to de")
_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=8192)
def spelled_out(acronym: str, text: str) -> bool:
    """Does ``text`` spell the acronym out: consecutive capitalised words (glue words such
    as "of", "and", "the" skipped) whose first letters are its letters ("NASM": "National
    Air and Space Museum", "AQAP": "Al-Qaeda in the Arabian Peninsula")? Three letters
    or more (two letters match too much by chance)."""
    letters = [c for c in acronym.lower() if c.isalpha()]
    if len(letters) < 3:
        return False
    words = [w for w in _WORD.findall(text) if w.lower() not in _ACRONYM_GLUE]
    for i in range(len(words) - len(letters) + 1):
        run = words[i : i + len(letters)]
        if all(w[0].isupper() and w[0].lower() == c for w, c in zip(run, letters, strict=True)):
            return True
    return False


def acronyms(text: str) -> frozenset[str]:
    """The words of ``text`` in capitals, two letters or more ("UK", "NASA")."""
    return frozenset(t.text for t in tokens(text) if len(t.text) >= 2 and t.text.isupper())


def substituted(proposition: str, prop: Profile, window_names: frozenset[str]) -> bool:
    """Does the window hold a name the proposition lacks (nor spells out as an acronym)?
    With one of the source's names from elsewhere in the proposition, that is the mark of
    a swapped person or place."""
    spelled = initials(proposition)
    return any(
        w not in spelled and not any(stems_match(w, p) for p in prop.content) for w in window_names
    )


def person_replaced(prop: Profile, window: Window) -> bool:
    """Does the proposition restate a clause of the window (half its other words or more)
    while naming none of the words of the person that clause names? The mark of one
    person's act given to another."""
    said = prop.content
    for member in window.members:
        for clause in re.split(r"[,;:()]", member.text):
            clause_words = profile(clause).content
            for person in person_names(clause):
                if any(stems_match(w, p) for w in person for p in said):
                    continue
                rest = clause_words - person
                kept = sum(any(stems_match(w, p) for p in said) for w in rest)
                if rest and kept >= 0.5 * len(rest):
                    return True
    return False


REPLACED_TERM = "replaced_term"  # a bucket of swapped_term findings that are errors
_REFERRING = word_set("the this that these those its their his her such")


def is_term(word: str) -> bool:
    """A word that can name a thing or its kind: lemminflect lists it as a noun or an
    adjective and not as a verb ("ceramic", "electrolyte"), or does not know it."""
    found = lemminflect.getAllLemmas(word)
    return not found or (bool({"NOUN", "ADJ"} & set(found)) and "VERB" not in found)


def term_replaced(prop: Profile, window: Window) -> str:
    """The noun of a clause of the window that the proposition restates (half its other
    content words or more) but leaves out, where that noun is no anaphoric description
    ("the organ", "this figure": resolved, not replaced); "" when there is none."""
    said = prop.content
    for member in window.members:
        for clause in re.split(r"[,;:()]|\b(?:and|but|which|while|whereas|who)\b", member.text):
            every = tokens(clause)
            toks = [  # units after their number are not terms ("250 watt-hours")
                t
                for i, t in enumerate(every)
                if not t.number and not (i and every[i - 1].number and unit_of(t.text))
            ]
            words = {stem(t.norm) for t in toks if t.norm not in GLUE_WORDS}
            kept = sum(any(stems_match(w, p) for p in said) for w in words)
            if not words or kept < 0.5 * len(words):
                continue
            missing = [
                tok.text
                for i, tok in enumerate(toks)
                if tok.norm not in GLUE_WORDS
                and not tok.capitalised
                and len(tok.norm) > 3
                and not (i > 0 and toks[i - 1].norm in _REFERRING)
                and is_term(tok.norm)
                and not unit_of(tok.text)
                and not any(stems_match(stem(tok.norm), p) for p in said)
            ]
            if len(missing) == 1:  # one term of the restated clause, replaced
                return missing[0]
    return ""
