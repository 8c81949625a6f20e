"""Mutation operators for the mistakes lexical rules missed (issue 10): a number moved to
another fact, a person swapped, a negation or a hedge dropped, a term swapped, a verbless
list, a definite description cut from its antecedent, a containment duplicate, a fact
dropped.

Same contract as :mod:`agentic_chunking.mutations`: pure, deterministic for a ``seed``,
``InputError`` when the input offers nothing to mutate. Unlike the first five operators,
these do NOT verify that a check catches them: how many the checks catch is what the kill
matrix (``benchmarks/mutation_kill_rate.py``) measures.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from .._errors import InputError
from .._text import split_sentences
from ..checks import (
    COVERAGE,
    GLUE_WORDS,
    NO_DUPLICATION,
    NO_INVENTION,
    NO_UNRESOLVED_PRONOUNS,
    SELF_CONTAINED,
    UPPER_LETTER,
    all_lemmas,
    lemma,
    person_shaped,
    profile,
    source_sentences,
    stem,
    tokens,
    word_set,
)
from ._base import Groups, Mutation, _ordered, _replace, _subject_end, _usable

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_NEGATION = (
    (re.compile(r"\b(can)not\b"), r"\1"),
    (
        re.compile(
            r"\b(do|does|did|is|are|was|were|has|have|had|can|could|will|would)"
            r"(?: not|n't)\b"
        ),
        r"\1",
    ),
    (re.compile(r"\b(?:not|never) "), ""),
    (re.compile(r"\bno (?=\w)"), ""),
)
_MODAL = (
    (re.compile(r"\b(?:may|might|could|can|should|would) (?:be )?"), "will "),
    (
        re.compile(
            r"\b(?:usually|often|typically|generally|likely|probably|possibly|mostly"
            r"|sometimes|widely believed to|believed to) "
        ),
        "",
    ),
)


def _replaced(
    groups: Groups,
    g: int,
    f: int,
    fact: str,
    new: str,
    name: str,
    rule: str,
    what: str,
    swapped: tuple[str, str] | None = None,
) -> Mutation:
    return Mutation(
        name, rule, _replace(groups, g, f, new), what, replaced={fact: new}, swapped=swapped
    )


_CAPITALISED_RUN = re.compile(
    rf"{UPPER_LETTER}[\w'\u2019-]*(?:\s+(?:{UPPER_LETTER}[\w'\u2019-]*|de'|da\b|di\b|von\b|van\b))*"
)


_NOT_NAMES = GLUE_WORDS | word_set(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday one two three four five six
    seven eight nine ten"""
)


def _names(text: str) -> list[str]:
    """The names of ``text``: runs of capitalised words ("Marie Curie", "Lorenzo de'
    Medici"), in order of first appearance; a run that only ever opens a sentence counts
    only when its first word is no dictionary word ("Marie", not "Mitochondria")."""
    found: list[str] = []
    opening: set[str] = set()
    for sentence in split_sentences(text):
        for match in _CAPITALISED_RUN.finditer(sentence):
            words = match.group(0).split()
            if words[0].lower() in _NOT_NAMES:  # "The Medici Bank" -> "Medici Bank"
                words = words[1:]
            if not words or words[0].lower() in _NOT_NAMES or "-" in words[0]:
                continue
            name = " ".join(words)
            found.append(name)
            if match.group(0) == name and match.start() == 0:
                opening.add(name)
    mid = {n for n in found if n not in opening} | {
        n for n in found if not all_lemmas(n.split()[0].lower())
    }
    return [n for n in dict.fromkeys(found) if n in mid]


def move_number(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Replace a number of one fact by a number of another fact (both numbers of the
    source): the number is bound to the wrong fact. Guarantees: one fact replaced."""
    facts = _ordered(groups, seed)
    numbers = [(n.group(0), fact) for _, _, fact in facts for n in _NUMBER.finditer(fact)]
    for g, f, fact in facts:
        for match in _NUMBER.finditer(fact):
            other = next((n for n, owner in numbers if owner != fact and n not in fact), None)
            if other is not None:
                new = fact[: match.start()] + other + fact[match.end() :]
                what = f"{match.group(0)} in {fact!r} replaced by {other}, another fact's number"
                return _replaced(groups, g, f, fact, new, "move_number", NO_INVENTION, what)
    raise InputError("move_number needs two facts with different numbers")


def _person(name: str) -> bool:
    """A person's name, by its shape (``person_shaped``: "Marie Curie", not "Amazon S3")."""
    return person_shaped(name.split())


def swap_person(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Give one named person's or organisation's act to a name of ANOTHER sentence of the
    source ("Marie Curie discovered polonium" -> "Pierre Curie discovered polonium").
    Guarantees: one fact replaced; the new name is a name of the source."""
    names = [n for n in _names(source) if _person(n)]
    sentences = split_sentences(source)
    for g, f, fact in _ordered(groups, seed):
        for own in (n for n in names if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", fact)):
            beside = " ".join(s for s in sentences if own in s)  # names of the same sentence
            other = next(
                (n for n in names if n not in fact and n not in beside and own not in n), None
            )
            if other is not None:
                new = re.sub(rf"(?<!\w){re.escape(own)}(?!\w)", other, fact, count=1)
                what = f"{own!r} in {fact!r} swapped for {other!r}"
                return _replaced(groups, g, f, fact, new, "swap_person", NO_INVENTION, what)
    raise InputError("swap_person needs a fact naming a person and another person in the source")


def _first_change(fact: str, rules: tuple[tuple[re.Pattern[str], str], ...]) -> str | None:
    for pattern, replacement in rules:
        new = pattern.sub(replacement, fact, count=1)
        if new != fact:
            return new[:1].upper() + new[1:]
    return None


def drop_negation(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Drop the negation of a fact ("does not remove" -> "does remove", "no trucks" ->
    "trucks"). Guarantees: one fact replaced, its negation gone."""
    for g, f, fact in _ordered(groups, seed):
        new = _first_change(fact, _NEGATION)
        if new is not None:
            what = f"negation dropped from {fact!r}"
            return _replaced(groups, g, f, fact, new, "drop_negation", NO_INVENTION, what)
    raise InputError("drop_negation found no negated fact")


def drop_modality(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """State a hedged fact as certain ("may cause" -> "will cause", "usually" dropped).
    Guarantees: one fact replaced."""
    for g, f, fact in _ordered(groups, seed):
        new = _first_change(fact, _MODAL)
        if new is not None:
            what = f"modality dropped from {fact!r}"
            return _replaced(groups, g, f, fact, new, "drop_modality", NO_INVENTION, what)
    raise InputError("drop_modality found no hedged fact")


def _nouns(text: str) -> list[str]:
    """Lower-case words lemminflect knows only as nouns, five letters or more."""
    return [
        t.text
        for t in tokens(text)
        if not t.number
        and t.text.islower()
        and len(t.text) >= 5
        and t.norm not in GLUE_WORDS
        and set(all_lemmas(t.text)) == {"NOUN"}
    ]


def swap_term(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Swap a noun of a fact for another noun of the source the fact does not use; a word
    standing alone, never half of a hyphenated compound ("lithium-ion"), which would make
    nonsense rather than a wrong fact. Guarantees: one fact replaced; the new word occurs
    in the source and is no form of a word the fact uses ("batteries" is not swapped into a
    fact about "a lithium-ion battery": the fact would name its own thing twice)."""
    pool = list(dict.fromkeys(_nouns(source)))
    for g, f, fact in _ordered(groups, seed):
        used = {stem(t.norm) for t in tokens(fact) if not t.number}
        for word in _nouns(fact):
            whole = rf"(?<![\w-]){re.escape(word)}(?![\w-])"  # not half of "lithium-ion"
            if not re.search(whole, fact):
                continue
            other = next(
                (
                    w
                    for w in pool
                    if w not in fact.lower() and w[:3] != word[:3] and stem(w) not in used
                ),
                None,
            )
            if other is not None:
                new = re.sub(whole, other, fact, count=1)
                what = f"{word!r} in {fact!r} swapped for {other!r}"
                swapped = (word, other)
                return _replaced(groups, g, f, fact, new, "swap_term", NO_INVENTION, what, swapped)
    raise InputError("swap_term found no noun to swap")


def possibly_equivalent(mutation: Mutation, source: str) -> bool:
    """Is a swapped term's mutant one the source may itself state? Every content word of
    the mutated fact, the swapped-in word included, stands in one sentence of ``source``
    that also holds the word replaced: the mutant restates that sentence in its own
    words ("Kubernetes is a container orchestration platform that automates the
    management of containerized applications" holds "Kubernetes automates the
    orchestration of containerized applications"), and whether it is wrong is a reader's
    call, not certain. The swapped-in word must be written there itself (or another form
    of it), not only share a stem ("kill treatment" where the sentence says "treated
    water" is no restatement). False for a mutation that swaps no word, and when the words come
    from two sentences or more ("Autoscaling removes customers" where "customers" is a
    word of another sentence). The kill matrix counts these apart (never drops them)."""
    if mutation.swapped is None or len(mutation.replaced) != 1:
        return False
    (new,) = mutation.replaced.values()
    old, brought = mutation.swapped
    words = profile(new).content
    return any(
        sentence.supports(stem(old.lower()))
        and _writes(sentence.text, brought)
        and all(sentence.supports(w) for w in words)
        for sentence in source_sentences(source)
    )


def _writes(text: str, word: str) -> bool:
    """Does ``text`` write ``word`` itself, or another form of it ("applications" for
    "application"), not only a word of its stem ("treated" is no "treatment")?"""
    return any(t.norm == word.lower() or lemma(t.norm) == lemma(word.lower()) for t in tokens(text))


def _noun_phrase(fact: str) -> str | None:
    """An adjective-noun or noun-noun pair of the fact that ends on a plural noun ("red
    blood cells" -> "blood cells"), or a plural noun alone: words the lexicon knows only
    as nouns or adjectives, so the list built from them has no verb."""
    toks = [t for t in tokens(fact) if not t.number]
    for i, tok in enumerate(toks):
        found = all_lemmas(tok.text)
        if not tok.text.islower() or set(found) != {"NOUN"} or lemma(tok.text) == tok.text:
            continue  # a plural noun with no verb reading ("cells", "benches")
        before = toks[i - 1].text if i else ""
        pair = set(all_lemmas(before)) if before.islower() else set()
        if pair and pair <= {"NOUN", "ADJ"} and before not in GLUE_WORDS:
            return f"{before} {tok.text}"
        return tok.text
    return None


def verbless_list(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Replace a fact by two of the output's noun phrases joined by "and" ("Street lamps
    and park benches."): a list with no verb, built from words the lexicon knows only as
    nouns or adjectives. Guarantees: one fact replaced."""
    facts = _ordered(groups, seed)
    phrases = [(p, fact) for _, _, fact in facts if (p := _noun_phrase(fact))]
    for g, f, fact in facts:
        own = _noun_phrase(fact)
        other = next((p for p, owner in phrases if owner != fact and p != own), None)
        if own and other:
            new = f"{own[:1].upper() + own[1:]} and {other}."
            what = f"{fact!r} replaced by the verbless list {new!r}"
            return _replaced(groups, g, f, fact, new, "verbless_list", SELF_CONTAINED, what)
    raise InputError("verbless_list needs two facts with a plural noun")


def _subject(fact: str) -> str | None:
    """The words before the first finite verb, without a trailing comma (None if none)."""
    end = _subject_end(fact)
    return None if end is None else (fact[:end].strip().rstrip(",") or None)


def cut_definite(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Cut a fact's subject down to "The <head noun>", dropping the words that say which
    one ("The human liver stores glycogen." -> "The liver stores glycogen.").
    Guarantees: one fact replaced."""
    for g, f, fact in _ordered(groups, seed):
        subject = _subject(fact)
        words = (subject or "").split()
        plain = all(w.isalpha() and w.islower() for w in words[1:])  # no name, no "of"
        if len(words) < 3 or not plain or " of " in f" {subject} " or words[0] != "The":
            continue
        new = f"The {words[-1]}{fact[len(subject or '') :]}"
        what = f"subject {subject!r} of {fact!r} cut to 'The {words[-1]}'"
        return _replaced(groups, g, f, fact, new, "cut_definite", NO_UNRESOLVED_PRONOUNS, what)
    raise InputError("cut_definite needs a fact whose subject is 'The' + two words or more")


def contain_duplicate(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Add a fact that states all of another and one more ("A, and B."), so one
    proposition contains another. Guarantees: one fact added."""
    facts = _ordered(groups, seed)
    if len(facts) < 2:
        raise InputError("contain_duplicate needs two facts")
    (g, _f, first), (_g, _f2, second) = facts[0], facts[1]
    new = f"{first.rstrip(' .!')}, and {second[:1].lower() + second[1:]}"
    out = copy.deepcopy(groups)
    out[g]["facts"].append(new)
    what = f"{new!r} (containing {first!r}) added"
    return Mutation("contain_duplicate", NO_DUPLICATION, out, what, added=[new])


def _drop(groups: Groups, g: int, f: int, fact: str, name: str) -> Mutation:
    out = copy.deepcopy(groups)
    del out[g]["facts"][f]
    out = [group for group in out if not _usable(group) or group["facts"]]
    return Mutation(name, COVERAGE, out, f"{fact!r} dropped", removed=[fact])


def _numbered(facts: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The facts holding a number that no other fact states, numbers read as the checks
    read them ("two atria" states 2; "5" is not inside "1500"): dropping a fact whose
    numbers another fact states loses no number."""
    numbers = {fact: profile(fact).numbers for _, _, fact in facts}
    return [
        (g, f, fact)
        for g, f, fact in facts
        if numbers[fact] - {n for other, ns in numbers.items() if other != fact for n in ns}
    ]


def drop_fact(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Drop a fact that holds no number from the output: a fact lost.
    Guarantees: one fact removed, from its group and the extraction alike."""
    facts = _ordered(groups, seed)
    plain = [(g, f, fact) for g, f, fact in facts if not _NUMBER.search(fact)]
    if len(facts) < 2 or not plain:
        raise InputError("drop_fact needs two facts, one of them without a number")
    return _drop(groups, *plain[0], "drop_fact")


def drop_number_fact(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Drop a fact holding a number no other fact states: a number of the input lost.
    Guarantees: one fact removed, from its group and the extraction alike."""
    facts = _ordered(groups, seed)
    numbered = _numbered(facts)
    if len(facts) < 2 or not numbered:
        raise InputError("drop_number_fact needs two facts, one with a number of its own")
    return _drop(groups, *numbered[0], "drop_number_fact")


FACT_OPERATORS = {
    "contain_duplicate": contain_duplicate,
    "cut_definite": cut_definite,
    "drop_fact": drop_fact,
    "drop_number_fact": drop_number_fact,
    "drop_modality": drop_modality,
    "drop_negation": drop_negation,
    "move_number": move_number,
    "swap_person": swap_person,
    "swap_term": swap_term,
    "verbless_list": verbless_list,
}
"""The operators of this module, by name."""
CERTAIN_OPERATORS = (
    "drop_negation",
    "drop_number_fact",
    "move_number",
    "swap_person",
    "verbless_list",
)
"""Operators whose mutation is certain evidence: the suite must kill each by an error."""
