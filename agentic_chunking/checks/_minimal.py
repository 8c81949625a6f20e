"""Minimal edits: the one shape of a relational change that is certain evidence.

A faithful model rewords, pairs two sentences into one claim and carries context from
other sentences (a full name, the book's title, a heading, a date) to make a proposition
stand alone. Rewording and pairing drop words of the aligned clause; carried context ADDS
words but keeps the clause. A proposition that keeps a clause of its aligned window (at
least RESTATED of its content words and numbers, up to lemmas) and changes exactly one of
its numbers, names, negations or quantifiers is another thing: no rewording and no
decontextualisation produces that, so it is an error. Words added besides (context carried
to stand alone) do not make it less certain. Everything relational that is not such a
minimal edit is a warning for the judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ._align import Sentence, Window, _opener, _sentence, supported_anywhere
from ._language import Profile, Token, profile, stem, stems_match, stems_of, tokens, word_set
from ._swaps import initials

RESTATED = 0.75
"""A proposition restates a clause when it keeps at least this share of the clause's
content words and numbers (the changed item aside)."""

TITLE = re.compile(r'["\u201c][^"\u201d]*["\u201d]')
"""A span in quotation marks: a title or a quotation ("Only For The Week"), whose words
are a name, never a negation, quantifier or person of a minimal edit."""
_CLAUSE_SPLIT = re.compile(r"[,;:()]|\b(?:and|but|which|while|whereas|when)\b")


@dataclass(frozen=True)
class Difference:
    """How a proposition differs from one clause of its window.

    ``added_words`` / ``added_numbers``: content stems and numbers of the proposition the
    clause does not say; ``removed_words`` / ``removed_numbers``: those of the clause the
    proposition does not say; ``removed_names``: the removed words the clause writes
    capitalised; ``size``: how many content words and numbers the clause has.
    """

    clause: str
    added_words: frozenset[str]
    added_numbers: frozenset[str]
    removed_words: frozenset[str]
    removed_numbers: frozenset[str]
    removed_names: frozenset[str]
    size: int
    from_clause: float
    new_words: frozenset[str]

    def kept(self, *, aside: int = 0) -> float:
        """The share of the clause's items the proposition says, ``aside`` replaced items
        set apart (0.0 for a clause with nothing else)."""
        rest = self.size - aside
        gone = len(self.removed_words) + len(self.removed_numbers) - aside
        return (rest - gone) / rest if rest > 0 else 0.0


@lru_cache(maxsize=4096)
def _clauses(text: str) -> tuple[str, ...]:
    """The sentence itself and its parts between commas, semicolons, colons, brackets and
    the words that join clauses ("and", "which", "when"...)."""
    parts = [p.strip() for p in _CLAUSE_SPLIT.split(text)]
    return tuple(dict.fromkeys([text, *(p for p in parts if p)]))


HONORIFICS = word_set("mr mrs ms miss dr doctor sir lady lord captain professor saint st")
"""Titles before a name: "Mrs. Liu" -> "Patricia Liu" names the same person."""


def _names_of(clause: str) -> frozenset[str]:
    toks = tokens(clause)
    names = {
        stem(t.norm)
        for i, t in enumerate(toks)
        if t.capitalised and not t.number and (i > 0 or _opener(clause))
    }
    return frozenset(names - stems_of(HONORIFICS))


def _difference(prop: Profile, clause: str, whole: tuple[Sentence, ...]) -> Difference:
    said: Sentence = _sentence(clause)
    src = profile(clause)
    removed_words = frozenset(
        w for w in src.content if not any(stems_match(w, p) for p in prop.content)
    )
    added_words = frozenset(w for w in prop.content if not said.supports(w))
    added_numbers = prop.numbers - src.numbers
    prop_size = len(prop.content) + len(prop.numbers)
    from_clause = 1 - (len(added_words) + len(added_numbers)) / prop_size if prop_size else 0.0
    return Difference(
        clause,
        added_words,
        added_numbers,
        removed_words,
        src.numbers - prop.numbers,
        removed_words & _names_of(clause),
        len(src.content) + len(src.numbers),
        from_clause,
        frozenset(w for w in added_words if not supported_anywhere(whole, w)),
    )


def differences(proposition: str, window: Window) -> tuple[Difference, ...]:
    """The :class:`Difference` of the proposition from every clause of the window (each
    whole sentence of the window first, then its parts)."""
    prop = profile(proposition)
    return tuple(
        _difference(prop, clause, window.sentences)
        for member in window.members
        for clause in _clauses(member.text)
    )


def _candidate(d: Difference, *, aside: int = 0) -> bool:
    """The shape every minimal edit shares: the clause kept (RESTATED of its items, the
    replaced ones aside), at least half of the proposition from the clause, and no word
    added that the source never uses (carried context, not a rewording)."""
    return d.kept(aside=aside) >= RESTATED and d.from_clause >= 0.5 and not d.new_words


def replaced_number(proposition: str, window: Window) -> bool:
    """The proposition keeps one clause of the window (see ``_candidate``) with exactly
    one of its numbers (or one range) replaced by one other number (or range): a moved
    number as a minimal edit."""
    return any(
        (
            len(d.added_numbers) == len(d.removed_numbers) == 1
            or (len(d.added_numbers) == len(d.removed_numbers) == 2 and _range(d))
        )
        and _candidate(d, aside=len(d.removed_numbers))
        for d in differences(proposition, window)
    )


def _range(d: Difference) -> bool:
    """Are the clause's two replaced numbers one range ("300 to 500", "4.5-5.5")?"""
    at = [i for i, t in enumerate(tokens(d.clause)) if t.number and t.norm in d.removed_numbers]
    return len(at) == 2 and at[1] - at[0] <= 2


def _runs(toks: tuple[Token, ...], stems: frozenset[str]) -> list[tuple[int, int]]:
    """The runs of capitalised words (start, end) that hold one of ``stems``."""
    runs: list[tuple[int, int]] = []
    start = None
    for i, tok in enumerate((*toks, None)):
        if tok is not None and tok.capitalised and not tok.number:
            start = i if start is None else start
            continue
        if start is not None and any(stem(t.norm) in stems for t in toks[start:i]):
            runs.append((start, i))
        start = None
    return runs


def _same_place(
    new: tuple[Token, ...], a: int, b: int, old: tuple[Token, ...], c: int, d: int
) -> bool:
    """Do the runs new[a:b] and old[c:d] stand between the same words (one side enough)?"""
    before = (a == 0 and c == 0) or (a > 0 and c > 0 and new[a - 1].norm == old[c - 1].norm)
    after = (b == len(new) and d == len(old)) or (
        b < len(new) and d < len(old) and new[b].norm == old[d].norm
    )
    return before or after


def replaced_name(proposition: str, window: Window, names: frozenset[str]) -> bool:
    """The proposition keeps one clause of the window (RESTATED of its other items) with
    one name of the clause replaced, in the same place between the same words, by a name
    holding ``names`` (the stems of the proposition's names the window lacks): a swapped
    person as a minimal edit ("Marie Curie discovered polonium" -> "Pierre Curie
    discovered polonium"; not "Max works for Lord Morland" -> "Max Vane is an agent")."""
    new = tokens(proposition)
    new_runs = _runs(new, names)
    for diff in differences(proposition, window):
        if not (diff.added_words & names and diff.removed_names):
            continue
        if not _candidate(diff, aside=len(diff.removed_names)):
            continue
        old = tokens(diff.clause)
        for c, d in _runs(old, diff.removed_names):
            if any(_same_person(new[a:b], old[c:d], window.sentences) for a, b in new_runs):
                continue  # the name is still there, written out: "Max" -> "Maximillian Vane"
            for a, b in new_runs:
                if _same_place(new, a, b, old, c, d):
                    return True
    return False


def _same_person(
    new: tuple[Token, ...], old: tuple[Token, ...], sentences: tuple[Sentence, ...]
) -> bool:
    """Two names of one person or thing: one holding every word of the other ("Isobel" /
    "Isobel Stanhope", "Morland" / "Lady Morland"), one word the start of the other ("Max" /
    "Maximillian"), an acronym and its expansion ("UE" / "Unreal Engine"), or both words in
    one run of names of the source ('Theodore "Teddy" Ingram')."""
    new_words = {t.norm for t in new} - {t.norm for t in old}
    old_words = {t.norm for t in old} - {t.norm for t in new}
    if not old_words or not new_words:
        return True  # one name lengthened or shortened: "Isobel" / "Isobel Stanhope"
    if any(a.startswith(b) or b.startswith(a) for a in new_words for b in old_words):
        return True
    spelled = initials(" ".join(t.text for t in new)) | initials(" ".join(t.text for t in old))
    if any(w in spelled for w in new_words | old_words):
        return True
    for sentence in sentences:
        toks = tokens(sentence.text)
        every = frozenset(new_words | old_words)
        for c, d in _runs(toks, frozenset(stem(w) for w in every)):
            run = {t.norm for t in toks[c:d]}
            if run & new_words and run & old_words:
                return True
    return False


def restated_clauses(proposition: str, window: Window) -> tuple[str, ...]:
    """The clauses of the window (whole sentences first) of which the proposition keeps
    every number and RESTATED of the content words, with at least half of its own words
    from the clause and no word the source never uses. A negation or quantifier added to
    or dropped from one of them, on a word of that clause, is a minimal edit."""
    return tuple(
        d.clause
        for d in differences(proposition, window)
        if not d.removed_numbers and _candidate(d)
    )
