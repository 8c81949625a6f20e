"""Definite noun phrases by the parse: a "the" and a bare common noun naming a specific
thing the proposition never introduces ("The group was formed in 1994."), whatever the
source writes (:func:`definite_by_parse`). A warning of the pronoun rule (kind
``definite_without_antecedent``); None without the parser."""

from __future__ import annotations

import re
from functools import lru_cache

from ._definite import WORKS
from ._finding import DEFINITE_WITHOUT_ANTECEDENT, WARNING, Problem
from ._language import GLUE_WORDS, all_inflections, all_lemmas, lemma, tokens
from ._parser import Parse, parse
from ._persons import COLLECTIVE_NOUNS, PERSON_NOUNS, a_person_name
from ._words import word_set

_WORLD_UNIQUE = word_set(
    """sun moon earth world sky universe internet weather public past present future
    environment atmosphere ocean sea climate economy population papacy"""
)
"""Nouns whose definite use names the one thing there is ("The sun rises")."""
_SURROUNDINGS = word_set("water air ground surface land soil floor wind rain snow sunlight")
"""Nouns whose definite use names the physical surroundings of what the claim is about
("38 metres above the water", "moisture in the air", "below the surface")."""
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_SAYS_WHICH = frozenset(
    {"amod", "compound", "nummod", "prep", "relcl", "acl", "appos", "poss", "nmod", "npadvmod"}
)
"""Dependents of a noun that say which one it is ("the human liver", "the club,
Liverpool FC", "the electrons of a lithium atom", "the team that won")."""


_BARE_SUBJECTS = PERSON_NOUNS | COLLECTIVE_NOUNS
_ROLES = (
    PERSON_NOUNS
    | COLLECTIVE_NOUNS
    | word_set(
        """narrator hero heroine villain victim couple duo trio pair organisation organization
    firm agency club society union orchestra choir label studio"""
    )
)
"""Person, role and group nouns: "the narrator", "the band" names one specific someone
whatever the tense ("The narrator rents the villa")."""
_IDIOMATIC = word_set(
    """time end beginning start rest past future present meantime moment way truth
    morning afternoon evening night day week month year weekend summer winter spring
    autumn fall top bottom middle front back outset first last latter former same
    following opposite contrary dark light wild open"""
)
"""Nouns whose definite use names a time, a part or a fixed phrase, not a thing the
reader must be told ("in the end", "at the time", "the rest", "learned the truth", "in
the morning")."""
_FIXED_PHRASES = frozenset(
    {
        "on the spot",
        "on the whole",
        "on the go",
        "on the run",
        "on the rise",
        "on the way",
        "by the way",
        "in the way",
        "in the dark",
        "in the air",
        "in the lead",
        "at the helm",
        "at the ready",
        "in the making",
        "on the mend",
        "on the line",
        "at the outset",
        "in the wake",
        "in the process",
        "under the radar",
        "behind the scenes",
        "on the air",
        "off the record",
        "in the red",
        "in the black",
        "in the field",
        "at the scene",
        "to the point",
        "beside the point",
        "on the cards",
        "in the news",
    }
)
"""Fixed phrases whose "the" refers to nothing the reader must be told ("retires on the
spot", "in the dark about it", "in the news")."""
_NOT_ARGUMENTS = frozenset({"attr", "acomp", "oprd", "npadvmod", "appos", "dep", "meta"})
"""Places where a definite does not refer to a thing of its own: a predicate ("Ann was
the winner"), a measure or an apposition."""
_CLAUSE_HEADS = frozenset({"VERB", "AUX"})


def _clause_verb(parsed: Parse, k: int) -> int:
    """The verb whose clause holds word ``k``: the nearest verb above it that heads a
    clause (not a participle used as a preposition or an adjective: "including",
    "lost"); the root when none."""
    words = parsed.words
    seen = {k}
    while words[k].head != k and not (
        words[k].pos in _CLAUSE_HEADS and words[k].dep not in ("prep", "amod", "aux", "auxpass")
    ):
        k = words[k].head
        if k in seen:
            break
        seen.add(k)
    return k


def _past(parsed: Parse, verb: int) -> bool:
    """Is ``verb`` in the past: a past form, or a past auxiliary on it ("was founded")?"""
    words = parsed.words
    return words[verb].tag == "VBD" or any(
        words[k].tag == "VBD" and words[k].dep in {"aux", "auxpass"} for k in parsed.children(verb)
    )


def _role_subject(parsed: Parse, verb: int) -> bool:
    """Is the subject of ``verb`` a person, role or group noun ("The narrator rents",
    "The band tours")? Someone specific, whatever the tense."""
    words = parsed.words
    return any(
        words[k].dep in _SUBJECT_DEPS and words[k].lemma in _ROLES for k in parsed.children(verb)
    )


def _named(parsed: Parse, k: int, names: frozenset[str], text: str) -> bool:
    """Is word ``k`` a name: a proper noun, not an acronym ("ATP"), capitalised inside the
    sentence ("Tensions arise between Mira and Xaden"); first in the sentence, only with
    evidence that it names someone or something (a capitalised first word may be any
    term: "Glycolysis takes place in the cytoplasm"): the source uses it as a name
    (``names``), it opens a person-shaped name, or the named-entity recogniser labels it
    a person ("Elena grapples with the case")."""
    words = parsed.words
    word = words[k]
    if word.pos != "PROPN" or (word.text.isupper() and len(word.text) > 1):
        return False
    first = k == 0 or words[k - 1].text in (".", "!", "?", '"', "\u201c", "'")
    if not first:
        return True
    return word.text.lower() in names or a_person_name(parsed, k, text)


def _specific_clause(parsed: Parse, verb: int, names: frozenset[str], text: str) -> bool:
    """Does the clause of ``verb`` belong to a sentence about a specific event: its verb or
    the sentence's main verb in the past ("drew", "was founded", "said that the ship
    sank"), a name among the sentence's words ("Ann reopens the shop", "Tensions arise
    between Mira and Xaden", "Lilith discovers that the bargain is the source of the
    plague"), or a person, role or group noun as the subject ("The narrator rents")? The
    present with neither states what holds in general ("The cathode determines the
    capacity", "The liver turns glucose into glycogen")."""
    words = parsed.words
    main, seen = verb, {verb}
    while words[main].head != main and words[main].head not in seen:
        main = words[main].head
        seen.add(main)
    return (
        _past(parsed, verb)
        or _past(parsed, main)
        or any(_named(parsed, k, names, text) for k in parsed.subtree(main))
        or _role_subject(parsed, verb)
        or _role_subject(parsed, main)
    )


def _may_name(parsed: Parse, k: int, noun: int, text: str) -> bool:
    """May the earlier word ``k`` be what the definite at ``noun`` refers to: the same
    lemma ("a ship ... the ship"), or a proper noun in another clause ("Liverpool FC won
    the league and the club ...", "After Oasis split, the band ..."), never one in the
    definite's own clause ("Elena grapples with the case": Elena is no case) nor a
    person's name for a noun that names no person ("June assures Patricia Liu that she
    has improved the manuscript")?"""
    words = parsed.words
    if words[k].lemma == words[noun].lemma:
        return True
    if words[k].pos != "PROPN" or _clause_verb(parsed, k) == _clause_verb(parsed, noun):
        return False
    return words[noun].lemma in _ROLES or not a_person_name(parsed, k, text)


_CANDIDATE = re.compile(r"\b[Tt]he\s+([a-z][a-z-]*)\b(?!\s+of\b)")
"""A "the" and a lower-case word not followed by "of" (which would say which)."""
_EXEMPT = _WORLD_UNIQUE | _SURROUNDINGS | _IDIOMATIC | WORKS


def _may_find_definite(proposition: str, names: frozenset[str]) -> bool:
    """Can :func:`definite_by_parse` find anything in ``proposition``, by its words alone
    (a cheap test before a parse, never false where the parse could find one)? A "the"
    before a lower-case word none of the exempt lists holds (or a bare person or group
    noun first), and a sign of a specific event: a past-tense form, a capitalised word
    inside the sentence, a capitalised first word that is no function word (a name the
    source uses or the recogniser may call a person), or a person, role or group noun."""
    toks = tokens(proposition)
    if not toks:
        return False
    bare = toks[0].norm in _BARE_SUBJECTS and toks[0].capitalised
    if not bare and not any(m.group(1) not in _EXEMPT for m in _CANDIDATE.finditer(proposition)):
        return False  # no "the" before a common noun that may be judged: no parse
    first = toks[0]
    return (
        any(_can_be_past(t.norm) or t.norm.endswith("ed") for t in toks)
        or any(t.capitalised and not t.number for t in toks[1:])
        or (first.capitalised and (first.norm in names or first.norm not in GLUE_WORDS))
        or any(t.norm in _ROLES or lemma(t.norm) in _ROLES for t in toks)
    )


@lru_cache(maxsize=65536)
def _can_be_past(word: str) -> bool:
    """Is ``word`` (lower case) a past-tense form of some verb in lemminflect's lexicon
    ("drew", "was", "founded")?"""
    found = all_lemmas(word)
    return any(
        word in all_inflections(base, upos="VERB").get("VBD", ())
        for base in found.get("VERB", ()) + found.get("AUX", ())
    )


@lru_cache(maxsize=8192)
def definite_by_parse(proposition: str, names: frozenset[str] = frozenset()) -> Problem | None:
    """A definite noun phrase naming a specific thing the proposition does not introduce,
    whatever the source writes: "the" and a bare common noun ("The group was formed in
    1994.", "Elena grapples with the complexities of the case.", "The narrator rents the
    villa.", "The band's first album was released.") or a person or group noun with no
    article ("Council apologised."), in a clause that states a specific event
    (:func:`_specific_clause`: the past, a named subject, a person or group noun as
    subject). A singular noun in any place of the clause (subject, object, after a
    preposition, a possessor, inside an "of" phrase); a plural only as the subject.

    Not: a noun with a word or phrase that says which ("the human liver", "the club,
    Liverpool FC", "Klopp's club", "the electrons of a lithium atom", "the team that
    won"), a world-unique noun ("the sun", "the internet"), a time, part or fixed phrase
    ("at the time", "the rest", "learned the truth"), the work a claim is about
    (:func:`._definite.unnamed_work`), a predicate ("Ann was the winner"), a noun the proposition
    introduces or may name before (:func:`_may_name`: "A ship sank and the ship ...",
    "Liverpool FC won and the club ..."), a kind in general ("The liver turns glucose
    into glycogen"). Names ("the United States") are proper nouns, never judged. None
    without the parser, or when nothing is found; a question is not judged.

    Parsed only when the words allow a finding (:func:`_may_find_definite`)."""
    if proposition.rstrip().endswith("?") or not _may_find_definite(proposition, names):
        return None
    parsed = parse(proposition)
    if parsed is None:
        return None
    for i in range(len(parsed.words)):
        form = _definite_form(parsed, i)
        problem = _unintroduced(parsed, i, form, names, proposition) if form else None
        if problem is not None:
            return problem
    return None


_THE, _BARE = "the", "bare"
"""The two forms of a definite :func:`definite_by_parse` judges: "the" and a noun, and a
person or group noun first with no article ("Council apologised")."""


def _definite_form(parsed: Parse, i: int) -> str:
    """How word ``i`` of the parse is a definite noun phrase that may name something the
    proposition does not introduce: :data:`_THE` ("the" and a common noun in the singular
    anywhere, in the plural as the subject), :data:`_BARE` (a person or group noun first,
    with no article), or "" when it is none or its phrase says which (a compound, a
    dependent that says which, a world-unique noun, a time, part or fixed phrase, a
    predicate, "The Times")."""
    words = parsed.words
    word = words[i]
    first_bare = i == 0 and word.text.lower() in _BARE_SUBJECTS  # "Council apologised"
    if word.dep in _NOT_ARGUMENTS or not (
        first_bare or (word.pos == "NOUN" and word.tag in {"NN", "NNS"})
    ):
        return ""
    if word.tag == "NNS" and word.dep not in _SUBJECT_DEPS:
        return ""  # "the survivors", "the cables" after a verb: judged as subjects only
    if word.dep == "compound" or (i + 1 < len(words) and words[i + 1].pos in ("NOUN", "PROPN")):
        return ""  # "the proton gradient" read as two phrases: a compound
    kids = [words[k] for k in parsed.children(i)]
    articles = [k.lemma for k in kids if k.dep == "det"]
    lower = word.text.lower()
    bare_subject = not articles and i == 0 and word.text[:1].isupper() and lower in _BARE_SUBJECTS
    if articles != ["the"] and not bare_subject:
        return ""
    if not word.text.islower() and not bare_subject:
        return ""  # "The Times": a name
    if any(k.dep in _SAYS_WHICH for k in kids):
        return ""
    if word.lemma in _WORLD_UNIQUE | _SURROUNDINGS | _IDIOMATIC | WORKS or lower in _IDIOMATIC:
        return ""
    if i >= 2 and f"{words[i - 2].text.lower()} the {lower}" in _FIXED_PHRASES:
        return ""  # "on the spot", "in the end"
    return _BARE if bare_subject else _THE


def _unintroduced(
    parsed: Parse, i: int, form: str, names: frozenset[str], proposition: str
) -> Problem | None:
    """The problem of the definite at word ``i`` (of ``form``, :func:`_definite_form`) when
    its clause states a specific event (:func:`_specific_clause`), no earlier word may be
    what it names (:func:`_may_name`) and, for a bare noun, the clause is in the past;
    None otherwise."""
    words = parsed.words
    word = words[i]
    verb = _clause_verb(parsed, i)
    if not _specific_clause(parsed, verb, names, proposition):
        return None  # "The liver turns glucose into glycogen": a kind, in general
    earlier = [k for k in range(i) if words[k].pos in ("NOUN", "PROPN")]
    if any(_may_name(parsed, k, i, proposition) for k in earlier):
        return None  # "A ship sank and the ship ...", "Liverpool FC won and the club ..."
    if form == _BARE and not _past(parsed, verb):
        return None  # "Company is a film": a title; "Council apologised": someone
    if form == _BARE:
        return (
            DEFINITE_WITHOUT_ANTECEDENT,
            f'"{word.text}" without an article: which one the proposition does not say',
            WARNING,
        )
    return (
        DEFINITE_WITHOUT_ANTECEDENT,
        f'"the {word.text}": which {word.text} the proposition does not say',
        WARNING,
    )
