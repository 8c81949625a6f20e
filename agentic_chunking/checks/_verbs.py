"""Certain evidence that a text has no finite verb, from lemminflect's English lexicon.

The self-containment heuristic (``_self_contained._has_finite_verb``) guesses; this module
decides only when the lexicon leaves no doubt: every word is a number, a glue word, a word
the lexicon never lists as a past, present or 3rd-person verb form, or such a form in a
position a finite verb cannot take (the first word of a statement, right after a
determiner or an adjective, a plural noun closing a list conjunct).
"""

from __future__ import annotations

from functools import lru_cache

from ._language import AUXILIARIES, GLUE_WORDS, Token, all_inflections, all_lemmas, lemma
from ._words import DATE_PREPOSITIONS, DETERMINERS

_FINITE_TAGS = ("VBD", "VBZ", "VBP")
_PUNCTUATION = frozenset(".,;:!?")


@lru_cache(maxsize=65536)
def can_be_finite_verb(word: str) -> bool:
    """Is ``word`` (lower case) a past, present or 3rd-person form of some verb in
    lemminflect's lexicon ("codes", "complete", "grew")? An auxiliary is; a word the
    lexicon does not know is when it ends in -s or -ed (longer than three letters)."""
    if word in AUXILIARIES:
        return True
    found = all_lemmas(word)
    if not found:
        return word.endswith(("s", "ed")) and len(word) > 3
    for base in found.get("VERB", ()) + found.get("AUX", ()):
        forms = all_inflections(base, upos="VERB")
        if any(word in forms.get(tag, ()) for tag in _FINITE_TAGS):
            return True
    return False


_ADJECTIVE_ENDINGS = ("al", "ic", "ous", "ive", "ful", "less", "able", "ible", "ary")


def _adjective_only(word: str) -> bool:
    """The lexicon lists an adjective reading and no verb one, or does not know a word with an
    adjective ending ("industrial", "andesitic")."""
    found = all_lemmas(word)
    if not found:
        return word.endswith(_ADJECTIVE_ENDINGS) and len(word) > 4
    return "ADJ" in found and "VERB" not in found


def _starts_noun_phrase(tok: Token) -> bool:
    found = all_lemmas(tok.norm)
    return (
        tok.number
        or tok.capitalised
        or tok.norm in DETERMINERS
        or "ADJ" in found
        or not can_be_finite_verb(tok.norm)
    )


def _closes_list_conjunct(toks: tuple[Token, ...], i: int) -> bool:
    """``toks[i]`` is a plural noun ending a conjunct of a list: followed by "and"/"or"/a
    comma and a noun phrase ("cells and industrial ..."), or closing a text that has an
    "and"/"or" before it ("Street lamps and park benches.")."""
    w = toks[i].norm
    if lemma(w) == w or "NOUN" not in all_lemmas(w):
        return False
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    if nxt is None or nxt.text in ".;!":
        return any(t.norm in ("and", "or") for t in toks[:i])
    if nxt.norm in ("and", "or") or nxt.text == ",":
        after = toks[i + 2] if i + 2 < len(toks) else None
        return after is not None and (
            _starts_noun_phrase(after) or _closes_list_conjunct(toks, i + 2)
        )
    return False


def _adverb(word: str) -> bool:
    """An adverb: the lexicon lists an adverb reading and no noun one, or does not know a
    word in -ly ("family" and "Lily" are nouns)."""
    found = all_lemmas(word)
    if not found:
        return word.endswith("ly")
    return "ADV" in found and "NOUN" not in found


def _before_adverbs(toks: tuple[Token, ...], i: int) -> int:
    """The index of the word before ``toks[i]``, skipping adverbs ("only", "often"; not
    a name in -ly such as "Lily")."""
    k = i - 1
    while k > 0 and not toks[k].number and not toks[k].capitalised and _adverb(toks[k].norm):
        k -= 1
    return k


def _may_be_subject(toks: tuple[Token, ...], k: int, i: int) -> bool:
    """Can ``toks[k]``, an adjective that is also a noun, be the subject of ``toks[i]``?
    After a determiner or a name, maybe with modifiers between ("the narrative explores",
    "Byron's narrative criticizes", "a graphic designer accompanies"), or as a name before
    a verb in -s ("Violet learns"); not "Red blood cells" (no determiner, and "blood" is no
    -s form)."""
    if "NOUN" not in all_lemmas(toks[k].norm):
        return False
    j = k - 1  # back over the noun phrase's modifiers: "a graphic designer accompanies"
    while j > 0 and not toks[j].capitalised and _modifier(toks[j].norm):
        j -= 1
    after_determiner = j >= 0 and j < k and (toks[j].norm in DETERMINERS or toks[j].capitalised)
    return after_determiner or (toks[k].capitalised and toks[i].norm.endswith("s"))


def _modifier(word: str) -> bool:
    """Can ``word`` modify a noun inside a noun phrase (an adjective or a noun reading)?"""
    found = all_lemmas(word)
    return word not in DETERMINERS and ("ADJ" in found or "NOUN" in found)


def certainly_verbless(toks: tuple[Token, ...]) -> bool:
    """True only when no word of ``toks`` can be the finite verb (see the module doc)."""
    for i, tok in enumerate(toks):
        w = tok.norm
        if tok.number or tok.text in _PUNCTUATION:
            continue
        if w in AUXILIARIES:
            return False
        verb = can_be_finite_verb(w) or can_be_finite_verb(tok.text.lower())  # "arise", not
        if w in GLUE_WORDS or not verb or i == 0:  # its spelling variant "arize"
            continue  # a statement does not open with its finite verb
        k = _before_adverbs(toks, i)
        prev = toks[k]
        adjective = (
            _adjective_only(prev.norm)
            and not (prev.capitalised and k > 0)  # "David Cheap asserts": a name
            and not _may_be_subject(toks, k, i)
        )
        date = prev.number and k > 0 and toks[k - 1].norm in DATE_PREPOSITIONS  # "from 1942"
        if (prev.number and not date) or prev.norm in DETERMINERS or adjective:
            continue  # "a complete street", "industrial bioreactors"
        if _closes_list_conjunct(toks, i):
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        in_list = prev.norm in ("and", "or") or prev.text == ","
        if in_list and nxt is not None and not can_be_finite_verb(nxt.norm) and lemma(w) == w:
            continue  # "... and park benches": a noun modifying the next noun
        return False
    return True
