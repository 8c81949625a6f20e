"""Is there a finite verb: the one decision every rule of the checks asks.

:func:`finite_verb_reading` reads a whole text: the parse's reading wins (:mod:`._parser`,
when the ``parser`` extra is installed), lemminflect's lexicon decides without it. Its
answers:

- ``FINITE``: a finite verb with its subject by the parse, or a word the lexicon's rules
  read as one;
- ``IMPERATIVE``: none, but the text opens on the base form of a verb that takes what
  follows ("Upload to unstable.", "Declare compliance with Policy 4.6.0."): an
  instruction, a complete sentence but no self-contained claim;
- ``NONE``: no word can be a finite verb (:func:`certainly_verbless`: every word is a
  number, a glue word, a word the lexicon never lists as a past, present or 3rd-person
  verb form, or such a form in a place a finite verb cannot take: the first word of a
  statement, after a determiner or an adjective, a plural noun closing a list conjunct);
- ``UNSURE``: no verb recognised, but a word may be one ("The rise of prices").

The token-level helpers (:func:`looks_like_finite_verb`, :func:`can_be_finite_verb`) are
the lexicon's side of that decision; rules that ask about one word in its place use them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from ._language import (
    AUXILIARIES,
    GLUE_WORDS,
    Token,
    all_inflections,
    all_lemmas,
    lemma,
    stem,
    tokens,
    word_set,
)
from ._parser import Parse, parse
from ._words import (
    DATE_PREPOSITIONS,
    DETERMINERS,
    FREQUENT_ADVERBS,
    NON_QUANTIFYING_DETERMINERS,
    PREPOSITIONS,
    SUBJECT_PRONOUNS,
)

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


_COMMON_VERBS = word_set(
    """use uses used make makes made take takes took give gives gave get gets got go goes
    went come comes came become becomes became run runs ran show shows showed find finds
    found hold holds held keep keeps kept lead leads led leave leaves left mean means meant
    include includes contain contains provide provides require requires allow allows
    produce produces store stores convert converts release releases remain remains
    consist consists depend depends reduce reduces increase increases decrease decreases
    improve improves enable enables support supports rely relies occur occurs exist exists
    live lives work works serve serves create creates form forms play plays say says said
    tell tells told know knows knew see sees saw think thinks thought begin begins began
    grow grows grew build builds built write writes wrote win wins won lose loses lost
    pay pays paid meet meets met sell sells sold bring brings brought buy buys bought
    feel feels felt stand stands stood set sets put puts cost costs hit hits let lets
    cut cuts spend spends spent send sends sent rise rises rose fall falls fell
    die dies born marry marries need needs want wants seem seems appear appears
    help helps move moves carry carries drive drives control controls manage manages
    regulate regulates encode encodes break breaks broke split splits generate generates
    expand expands contract contracts flow flows act acts"""
) | word_set(
    """arose awoke bore beat began bent bit blew broke bought caught chose clung crept dealt
    dug drew dreamt drank drove ate fed fought fled flew forbade forgot forgave froze hung
    heard hid hurt knelt laid leant leapt learnt lent lay lit rode rang sought shook shone
    shot shrank shut sang sank sat slept slid spoke sped spun spread sprang stole stuck
    stung struck swore swept swam swung taught tore threw understood woke wore wove wept"""
)


def looks_like_finite_verb(toks: tuple[Token, ...], i: int) -> bool:
    """Heuristic: is ``toks[i]`` a finite verb? An auxiliary or modal, a frequent verb form
    from a fixed list, or a lower-case word ending in -ed not right after a determiner."""
    tok = toks[i]
    if tok.number:
        return False
    w = tok.norm
    prev = toks[i - 1].norm if i else ""
    if w in AUXILIARIES:
        return True
    if prev in NON_QUANTIFYING_DETERMINERS:
        return False
    if w in _COMMON_VERBS:
        return True
    return bool(i and not tok.capitalised and len(w) > 3 and w.endswith("ed"))


@lru_cache(maxsize=8192)
def subject_stems(text: str) -> frozenset[str]:
    """Content stems before the first finite verb (the grammatical subject, roughly)."""
    toks = tokens(text)
    out: set[str] = set()
    for i, tok in enumerate(toks):
        if looks_like_finite_verb(toks, i):
            break
        if not tok.number and tok.norm not in GLUE_WORDS:
            out.add(stem(tok.norm))
    return frozenset(out)


def _in_prepositional_phrase(toks: tuple[Token, ...], i: int) -> bool:
    """Walking back over the noun phrase ending before ``toks[i]``, is the first function
    word met a preposition ("in lithium-ion batteries")?"""
    for k in range(i - 1, -1, -1):
        w = toks[k].norm
        if w in PREPOSITIONS:
            return True
        if toks[k].number or w not in GLUE_WORDS:
            continue
        return False
    return False


def _lexicon_finds_finite_verb(text: str) -> bool:
    """A finite verb is present. Heuristic: an auxiliary or modal, a frequent verb form or a
    word in -ed (``looks_like_finite_verb``); or, right after a noun phrase that is not
    inside a prepositional phrase, a lower-case word in -s (not -ss/-us/-is/-ous: "ratio
    measures", "the cell divides"), or a lower-case word after a plural noun in -s
    ("batteries replace"); or a word lemminflect's lexicon lists as a finite verb form in a
    verb's place (``_verb_in_place``)."""
    if any(_clause_has_finite_verb(clause) for clause in re.split(r"[,;:()]", text)):
        return True
    toks = tokens(text)
    return any(_verb_in_place(toks, i) for i in range(1, len(toks)))


def plain_adverb(word: str) -> bool:
    """An adverb by the lexicon (an adverb reading and no noun one: "publicly", "often";
    not "family")."""
    found = all_lemmas(word)
    return "ADV" in found and "NOUN" not in found and "ADJ" not in found


def _verb_in_place(toks: tuple[Token, ...], i: int) -> bool:
    """Is ``toks[i]`` a finite verb by the lexicon and its place: a lower-case past,
    present or 3rd-person form of a verb (lemminflect), after a name or a noun (not a
    determiner, a preposition, a number or a word in -ly), and either a verb only ("Izzy
    and her team embark", "the story explores") or before what a verb takes: a
    determiner, a possessive, a preposition, "to" or a name ("Britta and Sumner attend a
    concert", "Kate, a character, escapes from", "Alma attacks Jade"). Adverbs between are
    skipped ("Izzy and Max publicly announce"); after a subject pronoun a verb form is the
    verb ("they encounter")."""
    tok = toks[i]
    if tok.number or tok.capitalised or tok.norm in GLUE_WORDS or not can_be_finite_verb(tok.norm):
        return False
    k = i - 1
    while k > 0 and not toks[k].capitalised and plain_adverb(toks[k].norm):
        k -= 1  # "Izzy and Max publicly announce"
    prev = toks[k]
    if prev.norm in SUBJECT_PRONOUNS:
        return True  # "they encounter"
    if prev.number or prev.norm in DETERMINERS | PREPOSITIONS or plain_adverb(prev.norm):
        return False
    if not prev.capitalised and prev.norm in GLUE_WORDS:
        return False
    if k == 0 and prev.norm.endswith(("ed", "ing")):
        return False  # "Increased demand for housing": a participle opens a noun phrase
    found = all_lemmas(tok.norm)
    if set(found) <= {"VERB", "AUX"}:
        return True
    if prev.capitalised and tok.norm.endswith("s") and "VERB" in found:
        return True  # '"The Echo of Everything" combines elements'
    nxt = toks[i + 1] if i + 1 < len(toks) else None
    return nxt is not None and (
        nxt.norm in DETERMINERS or nxt.norm in PREPOSITIONS or (nxt.capitalised and not nxt.number)
    )


def _clause_has_finite_verb(text: str) -> bool:
    toks = tokens(text)
    for i, tok in enumerate(toks):
        if looks_like_finite_verb(toks, i):
            return True
        w = tok.norm
        if not i or tok.number or tok.capitalised or w in GLUE_WORDS or len(w) < 3:
            continue
        back = i - 1
        while back > 0 and (toks[back].norm in FREQUENT_ADVERBS or toks[back].norm.endswith("ly")):
            back -= 1  # "freezing only stops", "the cell rapidly divides"
        prev = toks[back]
        if prev.number or prev.norm in GLUE_WORDS or _in_prepositional_phrase(toks, back):
            continue
        if w.endswith("s") and not w.endswith(("ss", "us", "is", "ous")):
            return True
        plural_prev = (
            prev.norm.endswith("s")
            and not prev.norm.endswith(("ss", "us", "is"))
            and not (prev.capitalised and back > 0)
        )
        if plural_prev and not w.endswith("ly"):
            return True
    return False


FiniteVerbReading = Literal["finite", "imperative", "none", "unsure"]
FINITE: FiniteVerbReading = "finite"
IMPERATIVE: FiniteVerbReading = "imperative"
NONE: FiniteVerbReading = "none"
UNSURE: FiniteVerbReading = "unsure"


@lru_cache(maxsize=8192)
def finite_verb_reading(text: str) -> FiniteVerbReading:
    """Does ``text`` have a finite verb (see the module doc for the four answers)? The
    parse decides first: a finite verb with its subject by the parse is ``FINITE``
    whatever the lexicon says ("Sharper joined the board": a surname, not an adjective);
    without the parser, or when the parse finds none, the lexicon decides. The parse can
    only clear, so it is asked only when the lexicon finds no verb: the same answer, and
    a text the lexicon reads as a sentence is never parsed here (a parse costs as much as
    the rest of the checks)."""
    toks = tokens(text)
    certain = certainly_verbless(toks)
    if not certain and _lexicon_finds_finite_verb(text):
        return FINITE
    parsed = parse(text)
    if parsed is not None and parsed.has_finite_clause():
        return FINITE
    if opens_imperative(toks, parsed):
        return IMPERATIVE
    return NONE if certain else UNSURE


def opens_imperative(toks: tuple[Token, ...], parsed: Parse | None) -> bool:
    """Does the text open on a verb in its base form that takes what follows: an
    imperative ("Upload to unstable.", "Bump Standards-Version to 4.5.0.")? The parse
    decides when it reads the first word as a verb at the root (``VB``) or as a common
    noun ("Access to clean water.", "Park benches."); when it has no parse, or reads the
    capitalised first word as a name (the small model's habit: "Migrate", "Bump"), the
    lexicon does: the word is a verb's base form and either has no noun reading ("Declare
    compliance ...", "Remove obsolete patches.") or is followed by what a verb takes and
    a noun does not: a determiner, a possessive or a name ("Use the new tarball.", "Bump
    Standards-Version ..."). Never a word in -s, -ed or -ing ("Closes: #12345", "Rising
    costs"), a number ("2.") or a noun compound ("Street lamps", "Water levels").
    ``parsed`` is the text's parse, None without the parser."""
    if len(toks) < 2 or toks[0].number or not toks[0].capitalised or toks[0].text.isupper():
        return False
    first = toks[0].norm
    found = all_lemmas(first)
    if "VERB" not in found or lemma(first) != first or first in GLUE_WORDS:
        return False
    if parsed is not None and parsed.words:
        word = parsed.words[0]
        if word.tag == "VB" and word.dep == "ROOT":
            return True
        if word.tag in {"NN", "NNS", "JJ", "VBG", "VBN", "VBD", "VBZ"}:
            return False
    if "NOUN" not in found and "ADJ" not in found:
        return True
    nxt = toks[1]
    return nxt.norm in DETERMINERS or (nxt.capitalised and not nxt.number)
