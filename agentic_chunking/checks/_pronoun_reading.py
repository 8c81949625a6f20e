"""The pronoun rule's reading by the word lists: each pronoun, demonstrative and anaphoric
phrase of a proposition with no referent inside it (see
:func:`._pronouns.find_unresolved_pronouns` for what is flagged and why).

The antecedent is any plausible word earlier in the text, read by the word lists and the
lexicon; the parse is consulted only for what the lists cannot tell: whether a
capitalised word they read as a verb is a name (:meth:`_Reading.named`) and which person
a possessive names after it (:func:`._persons.cataphora`). Quoted text and titles are
masked first (:mod:`._titles`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ._finding import (
    ANAPHORIC_PHRASE,
    BARE_PRONOUN,
    ERROR,
    IMPERSONAL_YOU,
    SPEAKER_PRONOUN,
    WARNING,
    Problem,
)
from ._language import AUXILIARIES, GLUE_WORDS, Token, can_be_verb, lemma, stem, tokens
from ._parser import parse
from ._persons import COLLECTIVE_NOUNS, PERSON_NOUNS, PERSON_SUFFIX, cataphora
from ._titles import mask_quotes, mask_titles
from ._verbs import can_be_finite_verb, looks_like_finite_verb
from ._words import (
    CLAUSE_OPENING_SUBORDINATORS,
    DATE_PREPOSITIONS,
    DEMONSTRATIVES,
    GROUP_PRONOUNS,
    MONTHS,
    PERSON_PRONOUNS,
    PREPOSITIONS,
    READER_PRONOUNS,
    SPEAKER_PRONOUNS,
    SUBJECT_PRONOUNS,
    THING_PRONOUNS,
    WEEKDAYS,
    word_set,
)

_SUBJECTS = SUBJECT_PRONOUNS - word_set("i you")
"""Subject pronouns an opening phrase may hold before the clause's comma ("At the
airport they encounter ..."): the third person and "we"."""
_AFTER_THOSE = PREPOSITIONS | word_set(
    "around near among across within behind beside between through inside outside"
)
"""Prepositions after which "those" is people described on the spot ("those around
her"), not a reference to something earlier."""
_EXPLETIVE_ADJ = word_set(
    """possible impossible necessary likely unlikely important estimated believed thought
    said reported known expected clear unclear common difficult easy hard true false
    essential vital useful worth rumoured rumored claimed assumed suggested argued noted
    shown found predicted recommended advisable unusual rare evident obvious apparent
    time raining"""
)
_EXPLETIVE_VERBS = word_set("takes took take seems seemed appears appeared happens")
_SAME_OK_NEXT = word_set("as time way year day period")
_NON_NAMES = MONTHS | WEEKDAYS
_PLACE_PREPOSITIONS = word_set("in at from near across throughout")
_OPENING_PREPOSITIONS = word_set(
    """after before during upon in at despite following while since with without through
    throughout unlike like for to from on"""
)
_OPENING_ADVERBS = word_set(
    """however soon later meanwhile eventually finally instead thus therefore moreover
    furthermore additionally nevertheless subsequently afterwards initially originally
    still yet also again besides consequently hence likewise similarly otherwise today"""
)
_STARRED = re.compile(r"(?<=[^\W\d_])\*(?=[^\W\d_])")
"""A star between two letters: a letter the text could not encode or a censored one
("L'H*me-Chamondot", "f*ck"); the word stays one word ("me" in "H*me" is no pronoun)."""
_MODALS = word_set("will may might can must shall")
"""Modals that are also first names ("Will", "May"): before an inflected verb, a name."""


def _is_expletive(norms: list[str], i: int) -> bool:
    """``it`` in "it is estimated that", "it is revealed that", "it takes...", "makes it
    possible to"."""
    rest = [w for w in norms[i + 1 : i + 5] if w not in ("not", "also", "now")]
    if rest and rest[0] in _EXPLETIVE_VERBS:
        return True
    j = 0
    while j < len(rest) and rest[j] in AUXILIARIES:
        j += 1
    if j and j + 1 < len(rest) and rest[j].endswith("ed") and rest[j + 1] == "that":
        return True  # "it is revealed that", "it was decided that"
    return j < len(rest) and rest[j] in _EXPLETIVE_ADJ


@dataclass(frozen=True, eq=False)
class _Reading:
    """A proposition read for its pronouns: its ``text`` with quotes and titles masked, the
    ``toks`` of that text and their ``norms``, and ``names``, its capitalised words the
    source uses as names (:func:`._persons.source_names`)."""

    text: str
    toks: tuple[Token, ...]
    norms: list[str]
    names: frozenset[str]

    def earlier_nouns(self, i: int) -> list[int]:
        """The words before word ``i`` that may be nouns: no number, function word, finite
        verb nor adverb in -ly."""
        toks, norms = self.toks, self.norms
        return [
            k
            for k in range(i)
            if not toks[k].number
            and norms[k] not in GLUE_WORDS
            and not looks_like_finite_verb(toks, k)
            and not norms[k].endswith("ly")
        ]

    def is_name(self, k: int) -> bool:
        """A capitalised word that can name a person: not a month or day, not an acronym,
        not a place after "in/at/from", not an opening adverb ("However", "Soon")."""
        toks, norms = self.toks, self.norms
        tok = toks[k]
        if not tok.capitalised or tok.text.isupper():
            return False
        if tok.norm in _NON_NAMES and self._a_date(k):
            return False  # "in June", "June 5"; "June wants to redeem herself" names her
        possessor = re.search(rf"\b{re.escape(tok.text)}['\u2019]s\b", self.text) is not None
        if k and norms[k - 1] in _PLACE_PREPOSITIONS and not possessor:
            return False  # "in Paris"; not "In Charlie's childhood"
        return not (k == 0 and tok.norm in _OPENING_ADVERBS)

    def _a_date(self, k: int) -> bool:
        """A month or day name used as a date: after "in"/"on"/"since"... or next to a
        number."""
        toks = self.toks
        before = toks[k - 1] if k else None
        after = toks[k + 1] if k + 1 < len(toks) else None
        return (before is not None and (before.number or before.norm in DATE_PREPOSITIONS)) or (
            after is not None and after.number
        )

    def subject_after_opening(self, i: int) -> list[int]:
        """Cataphora: for a pronoun in an opening phrase ("After her divorce, Martha
        ..."), the first three words after the phrase's comma, where the subject stands;
        empty when the pronoun is not in such a phrase."""
        toks, norms = self.toks, self.norms
        at = self.text.find(",")
        comma = len(tokens(self.text[:at])) if at >= 0 else 0  # tokens before the comma
        if comma <= i or norms[0] not in _OPENING_PREPOSITIONS | CLAUSE_OPENING_SUBORDINATORS:
            return []  # "She ..., Martha", "One of his works is ..., Leicestershire"
        if norms[0] not in CLAUSE_OPENING_SUBORDINATORS and (
            any(
                looks_like_finite_verb(toks, k) and not (k and norms[k - 1] == "to")
                for k in range(comma)
            )  # "To support her family, Isobel ...": an infinitive, no clause
            or (norms[i] in _SUBJECTS and i + 1 < comma and can_be_finite_verb(norms[i + 1]))
        ):
            return []  # "After school he joined ..., Texas", "At the airport in 'X' they
            # encounter ..., Micah": a clause, no opening phrase
        return list(range(comma, min(len(toks), comma + 3)))

    def named(self, k: int) -> bool:
        """A capitalised word the word lists read as a verb form, a modal or an adverb
        ("Rose", "Drew", "Will", "May", "Lily") that is a name by the evidence: the source
        uses it as a name (:attr:`names`), a finite verb follows it ("Rose lost", "Will
        sold"), or the parse reads it as a proper noun or a subject ("Holly and her
        sister visit")."""
        toks, norms = self.toks, self.norms
        tok = toks[k]
        if not tok.capitalised or tok.number or tok.text.isupper() or not self.is_name(k):
            return False
        if tok.norm in self.names:
            return True
        if tok.norm in GLUE_WORDS and tok.norm not in _MODALS:
            return False  # "To pay", "If found": no name
        after = norms[k + 1] if k + 1 < len(toks) else ""
        if after and not toks[k + 1].capitalised and can_be_verb(after) and lemma(after) != after:
            return True  # an inflected verb ("lost", "sold", "reflects") follows no modal
        parsed = parse(self.text)
        return parsed is not None and any(
            w.text == tok.text and (w.tag in {"NNP", "NNPS"} or w.dep in {"nsubj", "nsubjpass"})
            for w in parsed.words
        )

    def person_after(self, i: int) -> bool:
        """For a possessive ("His brother's debts trouble Marco", "Her mother visits Ann
        Kerr"), the person it names later in the sentence: :func:`._persons.cataphora`."""
        toks, norms = self.toks, self.norms
        if norms[i] not in ("his", "her"):
            return False
        return cataphora(self.text, norms[i], sum(1 for t in toks[:i] if t.norm == norms[i]))

    def has_person(self, i: int) -> bool:
        """Does a person stand for the he/she at word ``i``: a name or a person noun before
        it or just after its opening phrase, a name the word lists read as a verb
        (:meth:`named`), or a person the possessive names after it (:meth:`person_after`)?"""
        toks, norms = self.toks, self.norms
        earlier = self.earlier_nouns(i)
        for k in [*earlier, *self.subject_after_opening(i)]:
            if toks[k].number or norms[k] in GLUE_WORDS:
                continue
            w = norms[k]
            if self.is_name(k):
                return True
            if toks[k].capitalised:
                continue
            if w in PERSON_NOUNS or w.rstrip("s") in PERSON_NOUNS or PERSON_SUFFIX.search(w):
                return True
        if any(self.named(k) for k in range(i) if k not in earlier):
            return True
        return self.person_after(i)

    def has_group(self, i: int) -> bool:
        """Does a group stand for the they/them/their at word ``i``: a group noun, a name or
        a plural noun before it or just after its opening phrase, or "X and Y"?"""
        toks, norms = self.toks, self.norms
        after = [k for k in self.subject_after_opening(i) if norms[k] not in GLUE_WORDS]
        nouns = self.earlier_nouns(i) + after
        for k in nouns:
            w = norms[k]
            place = k > 0 and norms[k - 1] in _PLACE_PREPOSITIONS  # "in Paris"
            title = toks[k].text == "Q"  # a quoted title, masked: "In 'Only For The Week'"
            if w in COLLECTIVE_NOUNS or (toks[k].capitalised and not place and not title):
                return True
            if w.endswith("s") and not w.endswith(("ss", "us", "is")):
                return True
        return "and" in norms[:i] and len(nouns) >= 2


@lru_cache(maxsize=8192)
def pronoun_problems(
    proposition: str,
    titles: frozenset[str] = frozenset(),
    names: frozenset[str] = frozenset(),
) -> tuple[Problem, ...]:
    """(kind, reason, severity) of each pronoun, demonstrative or anaphoric phrase of
    ``proposition`` with no referent inside it, in the order of its words; ``titles``: the
    source's titles the proposition holds (:func:`._titles.source_titles`), ``names``: its
    capitalised words the source uses as names."""
    # a quoted title stays one word ("Q", never a name nor a pronoun): "explains in
    # "Viciously Yours" that ..." keeps its "that" a complementiser
    quoted = _STARRED.sub("x", mask_quotes(proposition))
    text = mask_titles(quoted, titles)
    toks = tokens(text)
    reading = _Reading(text, toks, [t.norm for t in toks], names)
    found = (_problem_at(reading, i) for i in range(len(toks)))
    return tuple(problem for problem in found if problem is not None)


def _problem_at(reading: _Reading, i: int) -> Problem | None:
    """The problem of word ``i`` of ``reading``, None when it has none: a he/she with no
    person, an it/its with no noun (an expletive "it" aside), a they/them with no group, a
    speaker pronoun, an impersonal "you", or an anaphoric phrase
    (:func:`_anaphoric_problem`)."""
    toks, norms, w = reading.toks, reading.norms, reading.norms[i]
    if toks[i].number or (len(toks[i].text) > 1 and toks[i].text.isupper()):
        return None  # "US", "IT": acronyms
    said = toks[i].text
    if w in PERSON_PRONOUNS and not reading.has_person(i):
        return (BARE_PRONOUN, f'"{said}" has no person named before it', ERROR)
    expletive = w == "it" and _is_expletive(norms, i)
    if w in THING_PRONOUNS and not expletive and not reading.earlier_nouns(i):
        return (BARE_PRONOUN, f'"{said}" has no noun before it', ERROR)
    if w in GROUP_PRONOUNS and not reading.has_group(i):
        return (BARE_PRONOUN, f'"{said}" has no plural noun or group before it', ERROR)
    if w in SPEAKER_PRONOUNS and not (w == "i" and i and toks[i - 1].capitalised):
        return (SPEAKER_PRONOUN, f'"{said}" refers to a speaker outside the text', ERROR)
    if w in READER_PRONOUNS:
        return (IMPERSONAL_YOU, f'"{said}": the generic reader, not a named person', WARNING)
    return _anaphoric_problem(toks, norms, i)


def _anaphoric_problem(toks: tuple[Token, ...], norms: list[str], i: int) -> Problem | None:
    """The anaphoric phrase at word ``i`` (:func:`_anaphoric_phrase`) as a problem: a
    demonstrative alone ("This is") a bare pronoun, an error; a phrase ("this process",
    "the former") an error, "such systems" and "the same" a warning (suspect only)."""
    found = _anaphoric_phrase(toks, norms, i)
    if found is None:
        return None
    phrase, problem = found[0].lower(), found[1]
    if " " not in phrase:  # "This" alone, not "This process"
        return (BARE_PRONOUN, problem, ERROR)
    loose = phrase.startswith(("such ", "the same"))  # suspect; "this process": certain
    return (ANAPHORIC_PHRASE, problem, WARNING if loose else ERROR)


def _anaphoric_phrase(toks: tuple[Token, ...], norms: list[str], i: int) -> tuple[str, str] | None:
    """Demonstratives and phrases that point outside: "this process", "such systems",
    "the former", "the same", "that" after a preposition or opening the sentence; each
    as the phrase, as written, and the finding's message."""
    w = norms[i]
    nxt = norms[i + 1] if i + 1 < len(norms) else ""
    prev = norms[i - 1] if i else ""
    if w == "this" and prev == "to" and nxt in ("day", "date"):
        return None  # "continues to this day": the time of writing
    if w in DEMONSTRATIVES:
        if w == "those" and (
            nxt in ("who", "whose", "that", "which", "he", "she", "they", "we", "i", "you")
            or nxt in _AFTER_THOSE  # "those around her", "those in need": said here
            or (nxt.endswith(("ing", "ed")) and can_be_verb(nxt))  # "those affected"
        ):
            return None  # "those he cares about"
        if nxt and nxt not in GLUE_WORDS and not looks_like_finite_verb(toks, i + 1):
            if stem(nxt) in {stem(x) for x in norms[:i]}:
                return None
            return _pointing(f"{toks[i].text} {toks[i + 1].text}", "something outside")
        return _pointing(toks[i].text)
    if w == "that" and (i == 0 or prev in PREPOSITIONS or not nxt):
        return _pointing(toks[i].text)
    if w == "such" and nxt and nxt not in ("as", "a", "an", "that") and nxt not in GLUE_WORDS:
        if stem(nxt) in {stem(x) for x in norms[:i]}:
            return None
        return _pointing(f"such {toks[i + 1].text}")
    if (
        prev == "the"
        and w in ("former", "latter")
        and nxt
        and nxt not in GLUE_WORDS
        and not looks_like_finite_verb(toks, i + 1)
    ):
        return None  # "the former president": an adjective
    if prev == "the" and w in ("former", "latter", "above", "aforementioned", "same"):
        if w == "same" and (nxt in _SAME_OK_NEXT or "as" in norms[i + 1 : i + 4]):
            return None
        if w == "same" and nxt and stem(nxt) in {stem(x) for x in norms[: i - 1]}:
            return None
        return _pointing(f"the {toks[i].text}")
    if i == 0 and w in ("both", "neither", "each") and nxt in AUXILIARIES:
        return _pointing(toks[i].text, "things outside the proposition")
    return None


def _pointing(phrase: str, outside: str = "something outside the proposition") -> tuple[str, str]:
    """An anaphoric ``phrase`` and its message: '"phrase" points to <outside>'."""
    return phrase, f'"{phrase}" points to {outside}'
