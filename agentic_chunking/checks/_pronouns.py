"""No unresolved pronouns: every pronoun or anaphoric phrase has its referent inside.

The rule (:func:`find_unresolved_pronouns`) joins three readings of a proposition: the
word lists' (:mod:`._pronoun_reading`: pronouns, demonstratives and anaphoric phrases
with no referent before them), the parse's agreement (:mod:`._agreement`: a pronoun whose
only candidates disagree with it) and, with the source, the definite noun phrases the
source or the parse says more about (:mod:`._definite`, :mod:`._definite_parse`). Who
a proposition names is read in :mod:`._persons`; quoted text and titles are set aside
first (:mod:`._titles`).
"""

from __future__ import annotations

from ._agreement import disagreeing
from ._definite import definite_in_source
from ._definite_parse import definite_by_parse
from ._finding import BARE_PRONOUN, NO_UNRESOLVED_PRONOUNS, Finding, Problem
from ._language import tokens
from ._persons import source_names
from ._pronoun_reading import pronoun_problems
from ._titles import titles_of


def _definite(proposition: str, source: str, names: frozenset[str]) -> Problem | None:
    """What the source says the definite refers to (:func:`._definite.definite_in_source`),
    else what the parse says (:func:`._definite_parse.definite_by_parse`, whatever the
    source writes; ``names``: the proposition's words the source uses as names)."""
    return definite_in_source(proposition, source) or definite_by_parse(proposition, names)


def find_unresolved_pronouns(propositions: list[str], source: str | None = None) -> list[Finding]:
    """Return the findings of each proposition with a pronoun or anaphoric phrase whose
    referent is not inside it, one per problem.

    Errors: ``bare_pronoun``, he/she/him/her/his/hers(elf) with no name (a capitalised
    word) or person noun ("the author", words in -er/-or/-ist/-ian) earlier in the
    proposition; it/its with no noun earlier, unless "it" is expletive ("it is estimated
    that", "it is possible to", "it takes"); they/them/their with no plural noun, group
    noun, name or "X and Y" earlier; "this/these/those/that" standing alone ("This is",
    "after that"); "Both/Each/Neither" + verb as subject. ``speaker_pronoun``: I, we, us,
    our, me, my outside quotation marks ("i.e." is never "I", "US" is an acronym).
    ``anaphoric_phrase``: an error for "this/these/those" + a noun not met earlier and
    "the former/latter/above"; a warning for "such" + noun (not "such as") and "the same"
    (not "the same as", "at the same time"). Warnings:
    ``impersonal_you``, you/your (the generic reader); with ``source``,
    ``definite_without_antecedent``: "The residue blocks ..." where the source introduced
    the residue in an earlier sentence and the aligned one refers back to it, or where
    the source (up to the aligned sentences) only writes it with a word that says which
    ("human liver", "most commercial panels"), never after an article; and, by the parse,
    a definite noun phrase of a specific event that the proposition does not introduce,
    whatever the source writes (:func:`._definite_parse.definite_by_parse`). A first name
    the word lists read as a verb or modal ("Rose", "Will") is a person when the source
    uses it as a name (:func:`._persons.source_names`), an inflected verb follows it or the
    parse reads it as a name; a his/her possessive is resolved by a person named after it
    (:func:`._persons.cataphora`). Quoted text
    (every kind of quote) is not judged. Not flagged: "that" as complementiser or
    relative ("shows that", "the cells that"). Heuristic, not a parser: the antecedent is
    any plausible noun earlier in the text.
    """
    findings: list[Finding] = []
    for p in propositions:
        titles = titles_of(source) if source is not None else frozenset()
        named = source_names(source) if source is not None else frozenset()
        names = named & {t.norm for t in tokens(p) if t.capitalised}
        problems = list(pronoun_problems(p, frozenset(t for t in titles if t in p), names))
        if not any(kind == BARE_PRONOUN for kind, _, _ in problems):
            problems += disagreeing(p)
        if source is not None and (definite := _definite(p, source, names)) is not None:
            problems.append(definite)
        findings += [
            Finding(p, NO_UNRESOLVED_PRONOUNS, reason, severity=severity, kind=kind)
            for kind, reason, severity in problems
        ]
    return findings
