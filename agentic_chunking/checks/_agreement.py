"""Pronoun agreement, by the parse: a pronoun whose only candidate antecedents in the
proposition disagree with it in number or gender, or are persons for an "it"."""

from __future__ import annotations

import re
from functools import lru_cache

from ._finding import BARE_PRONOUN, WARNING, Problem
from ._parser import Parse, parse
from ._persons import MASCULINE_PRONOUNS, a_person, gender, surely_a_person
from ._titles import mask_quotes, mask_titles
from ._words import PERSON_PRONOUNS

_AGREEING_WORD = re.compile(r"(?i)\b(?:he|him|his|himself|she|her|hers|herself|it|its|itself)\b")
_PERSON_DEPS_OF_IT = frozenset({"dobj", "pobj", "poss", "dative", "iobj"})
"""The places of an "it"/"its" that refers (an object or a possessor), never an expletive
subject ("it is likely that", "it was late")."""


def _singular_agreement(parsed: Parse, i: int) -> Problem | None:
    """A he/she pronoun at word ``i`` whose candidate antecedents before it disagree: only
    plural nouns ("Thousands of fans mourned his death."), or only persons of the other
    gender ("The actress won an award for his role.", "Mr. Brown sold her house.")."""
    word = parsed.words[i]
    candidates = [w for w in parsed.words[:i] if w.pos in {"NOUN", "PROPN"}]
    names = [  # a capitalised word that is no plural noun nor function word: a name
        w
        for w in parsed.words[:i]
        if w.text[:1].isupper()
        and w.tag != "NNS"
        and w.pos not in {"DET", "ADV", "ADP", "PRON", "CCONJ", "SCONJ", "NUM"}
    ]
    if candidates and not names and all(w.tag == "NNS" for w in candidates):
        return (
            BARE_PRONOUN,
            f'"{word.text}" has only plural nouns before it'
            f" ({', '.join(w.text for w in candidates)})",
            WARNING,
        )
    persons = [k for k in range(i) if a_person(parsed, k)]
    wanted = "m" if word.text.lower() in MASCULINE_PRONOUNS else "f"
    genders = {gender(parsed, k) for k in persons}
    if persons and genders == {"f" if wanted == "m" else "m"}:
        return (
            BARE_PRONOUN,
            f'"{word.text}" disagrees in gender with every person before it'
            f" ({', '.join(parsed.words[k].text for k in persons)})",
            WARNING,
        )
    return None


def _thing_agreement(parsed: Parse, i: int, proposition: str) -> Problem | None:
    """An "it"/"its" object or possessor at word ``i`` whose only candidate antecedents
    are persons ("Mary Smith founded it in 1990.", "The nurse praised its design."): a
    thing the proposition never names."""
    word = parsed.words[i]
    if word.dep not in _PERSON_DEPS_OF_IT:
        return None
    after = parsed.words[i + 1] if i + 1 < len(parsed.words) else None
    if after is not None and (after.pos == "ADJ" or after.text.lower() in ("to", "that")):
        return None  # "found it difficult to", "made it to the final": no thing meant
    candidates = [k for k in range(i) if parsed.words[k].pos in {"NOUN", "PROPN", "NUM"}]
    if candidates and all(surely_a_person(parsed, k, proposition) for k in candidates):
        return (
            BARE_PRONOUN,
            f'"{word.text}" has only persons before it'
            f" ({', '.join(parsed.words[k].text for k in candidates)})",
            WARNING,
        )
    return None


@lru_cache(maxsize=8192)
def disagreeing(proposition: str) -> tuple[Problem, ...]:
    """A pronoun whose only candidate antecedents in the proposition disagree with it, by
    the parse: a he/she whose candidates are all plural nouns or all persons of the other
    gender, an "it"/"its" whose candidates are all persons. Unresolved, as a warning (a
    parse is evidence, not proof; a name alone says no gender). Empty without the parser."""
    if not _AGREEING_WORD.search(proposition):
        return ()  # nothing to agree: no parse
    masked = mask_titles(mask_quotes(proposition))
    parsed = parse(masked)
    if parsed is None:
        return ()
    for i, word in enumerate(parsed.words):
        if word.tag not in {"PRP", "PRP$"}:
            continue
        lower = word.text.lower()
        if lower in PERSON_PRONOUNS:
            problem = _singular_agreement(parsed, i)
        elif lower in ("it", "its"):
            problem = _thing_agreement(parsed, i, masked)
        else:
            continue
        if problem is not None:
            return (problem,)
    return ()
