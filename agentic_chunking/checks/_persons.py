"""Who a proposition names: person and group nouns, the gender a word says, the names a
source uses, person-shaped names, and the possessive that names a person after it.

The pronoun rule asks here whether a he/she has a person to refer to, whether a name is
a person's, and which gender a person word says; the parse (:mod:`._parser`) is read
where it is installed, and every answer falls back to the word lists without it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ._align import person_names, person_shaped, source_sentences
from ._language import stem, tokens
from ._parser import Parse, parse, person_spans
from ._words import PERSON_PRONOUNS, word_set

PERSON_NOUNS = word_set(
    """man woman men women boy girl child king queen prince princess father mother son
    daughter brother sister husband wife uncle aunt person people author writer actor
    actress singer player president minister founder leader chief director member officer
    doctor nurse patient teacher student scientist artist painter poet composer engineer
    manager owner partner friend lord lady emperor pope bishop priest saint knight duke
    duchess countess count baron general captain colonel sergeant soldier judge lawyer
    senator governor mayor chairman ceo coach athlete driver pilot character protagonist
    host presenter journalist reporter editor producer musician rapper dancer model wrestler
    champion"""
)
"""Nouns that name a person ("the author", "the nurse")."""
PERSON_SUFFIX = re.compile(r"(?:er|or|ist|ian|ess|ant|ent)s?$")
"""The endings of a noun that may name a person ("the author", "a scientist")."""
COLLECTIVE_NOUNS = word_set(
    """people police team company government group staff children data family band crew
    army board committee council public audience couple parents"""
)
"""Nouns that name a group, which "they" may refer to ("the team", "the police")."""
MASCULINE_PRONOUNS = word_set("he him his himself")
"""The pronouns of a man."""
FEMININE_PRONOUNS = word_set("she her hers herself")
"""The pronouns of a woman."""
MASCULINE_NOUNS = word_set(
    """man men boy boys gentleman father son brother husband uncle nephew grandfather
    grandson stepfather stepson king prince duke emperor lord sir baron count earl monk
    actor waiter steward businessman sportsman chairman spokesman fisherman nobleman
    schoolboy boyfriend fiance widower bachelor patriarch sultan tsar czar pharaoh mr"""
)
"""English nouns (and titles before a name: "Mr", "Sir", "King") that name a man."""
FEMININE_NOUNS = word_set(
    """woman women girl girls lady mother daughter sister wife aunt niece
    grandmother granddaughter stepmother stepdaughter queen princess duchess empress
    countess baroness nun actress waitress stewardess heroine businesswoman sportswoman
    chairwoman spokeswoman schoolgirl girlfriend fiancee widow matriarch mrs ms miss
    madame dame"""
)
"""English nouns (and titles before a name: "Mrs", "Ms", "Queen") that name a woman."""


@lru_cache(maxsize=256)
def source_names(source: str) -> frozenset[str]:
    """The words ``source`` writes capitalised inside a sentence (not first, not after a
    colon), in lower case: the document's own use of a word as a name ("... met Rose in
    Leeds": "rose", "leeds"). A proposition's "Rose" or "Will" that the word lists read as
    a verb is a name when the source uses it so."""
    found: set[str] = set()
    for sentence in source_sentences(source):
        toks = tokens(sentence.text)
        for k in range(1, len(toks)):
            if toks[k].capitalised and not toks[k].number and toks[k - 1].norm not in ":.!?;":
                found.add(toks[k].norm)
    return frozenset(found)


_ARGUMENTS = frozenset({"nsubj", "nsubjpass", "dobj", "dative"})


@lru_cache(maxsize=4096)
def cataphora(text: str, pronoun: str, nth: int) -> bool:
    """Is the ``nth`` (0-based) ``pronoun`` ("his" or "her") of ``text`` a possessive that
    names a person who comes after it in the same sentence, by the parse: a subject or
    object of the main clause (its verb or a verb joined to it: "continue to trouble
    Marco") that is a person-shaped name or a name the named-entity recogniser labels a
    person ("His brother's debts continue to trouble Marco", "Her mother visits Ann
    Kerr")? Not a name inside the possessive's own phrase ("Her nephew Raimund Sanders",
    "his victory over Humayun"), not in a clause of "be" ("His father was John Smith",
    "Among his officers was William Adams": the name is what the phrase names), not when
    the main clause's subject is a pronoun ("To pay off his debts, he courts Alison":
    "his" is that pronoun's). False without the parser."""
    parsed = parse(text)
    if parsed is None:
        return False
    words = parsed.words
    found = [k for k, w in enumerate(words) if w.text.lower() == pronoun]
    if nth >= len(found) or words[found[nth]].tag != "PRP$":
        return False  # "told her the news": an object, no possessive
    p = found[nth]
    top = words[p].head
    while words[top].dep in ("poss", "compound") and words[top].head != top:
        top = words[top].head  # "His brother's debts": the phrase is "debts"
    phrase = parsed.subtree(top)
    root = next((k for k, w in enumerate(words) if w.dep == "ROOT"), None)
    if root is None or words[root].lemma == "be":
        return False
    verbs = {root} | {
        k
        for k in parsed.subtree(root)
        if words[k].dep in ("xcomp", "conj") and words[k].pos in ("VERB", "AUX")
    }
    subjects = [
        k for v in verbs for k in parsed.children(v) if words[k].dep in ("nsubj", "nsubjpass")
    ]
    if any(words[k].pos == "PRON" for k in subjects):
        return False
    spans = None
    for k, word in enumerate(words):
        if k <= p or k in phrase or word.pos != "PROPN" or word.tag == "NNPS":
            continue
        head = k
        while words[head].dep in ("compound", "flat") and words[head].head != head:
            head = words[head].head  # "Ann" of "Ann Kerr"
        if words[head].pos != "PROPN" or words[head].dep not in _ARGUMENTS:
            continue  # "three Arafura Games titles": a name inside a common noun's phrase
        if words[head].head not in verbs:
            continue
        name = [words[j].text for j in sorted(parsed.subtree(head)) if words[j].pos == "PROPN"]
        if person_shaped(name):
            return True
        spans = person_spans(text) if spans is None else spans
        if spans and any(a <= word.idx < b for a, b in spans):
            return True
    return False


def gender(parsed: Parse, k: int) -> str:
    """The gender a person word of the parse says: "m" or "f" for a gendered noun or
    pronoun ("king", "she"), or for a name after a gendered title ("Mr. Brown", "Queen
    Mary"); "" when it does not say (a name alone, "the doctor")."""
    words = parsed.words
    text = words[k].text.lower().rstrip(".")
    if text in MASCULINE_PRONOUNS or text in MASCULINE_NOUNS:
        return "m"
    if text in FEMININE_PRONOUNS or text in FEMININE_NOUNS:
        return "f"
    if words[k].pos == "PROPN":
        for j in range(k - 1, max(-1, k - 4), -1):  # the title before the name's words
            before = words[j].text.lower().rstrip(".")
            if before in MASCULINE_NOUNS:
                return "m"
            if before in FEMININE_NOUNS:
                return "f"
            if words[j].pos != "PROPN" and words[j].text != ".":
                break
    return ""


def a_person(parsed: Parse, k: int) -> bool:
    """Can word ``k`` of the parse be a person: a singular proper noun, a person noun
    ("the nurse", "the king"), a he/she pronoun?"""
    word = parsed.words[k]
    text = word.text.lower().rstrip(".")
    if text in PERSON_PRONOUNS:
        return word.tag in {"PRP", "PRP$"}
    if word.pos == "PROPN" or (word.pos == "NOUN" and word.text[:1].isupper()):
        return word.tag not in {"NNS", "NNPS"}  # a name ("Britta" read as a noun)
    return (
        word.pos == "NOUN"
        and word.tag == "NN"
        and (text in PERSON_NOUNS or text in MASCULINE_NOUNS or text in FEMININE_NOUNS)
    )


def surely_a_person(parsed: Parse, k: int, proposition: str) -> bool:
    """Is word ``k`` a person for certain: a person noun in lower case ("the nurse"), or a
    proper noun that is a word of a person-shaped name of the proposition ("Mary Smith":
    two capitalised words, the first no dictionary word; :func:`._align.person_names`)
    and that the named-entity recogniser labels a person (not "Pennwest University",
    not "The Aviary")?"""
    word = parsed.words[k]
    text = word.text.lower()
    if word.pos == "NOUN" and word.text.islower():
        return text in PERSON_NOUNS or text in MASCULINE_NOUNS or text in FEMININE_NOUNS
    if word.pos != "PROPN" or not any(stem(text) in name for name in person_names(proposition)):
        return False
    spans = person_spans(proposition)
    return spans is not None and any(a <= word.idx < b for a, b in spans)


def a_person_name(parsed: Parse, k: int, text: str) -> bool:
    """Is the proper noun at ``k`` a person's name: a word of a person-shaped name
    ("Patricia Liu", :func:`._align.person_shaped`) or of a span the named-entity
    recogniser labels a person?"""
    words = parsed.words
    run = [k]
    while run[0] > 0 and words[run[0] - 1].pos == "PROPN":
        run.insert(0, run[0] - 1)
    while run[-1] + 1 < len(words) and words[run[-1] + 1].pos == "PROPN":
        run.append(run[-1] + 1)
    if person_shaped([words[j].text for j in run]):
        return True
    spans = person_spans(text)
    return spans is not None and any(a <= words[k].idx < b for a, b in spans)
