"""Polarity against the aligned sentence(s): negation, quantifiers and modality.

A negation or quantifier changes what a sentence asserts, so adding one the aligned source
window lacks, or losing one the window puts on a word the proposition keeps, is certain
evidence (an error). Modality and hedges ("may", "is believed to", "usually") are judged
more loosely by a reader, so a changed modality is a warning.
"""

from __future__ import annotations

from ._align import Sentence, Window
from ._finding import (
    ADDED_NEGATION,
    ADDED_QUANTIFIER,
    CHANGED_MODALITY,
    ERROR,
    LOST_NEGATION,
    LOST_QUANTIFIER,
    WARNING,
    Severity,
)
from ._language import GLUE_WORDS, NEGATIONS, Token, profile, stem, tokens, word_set

QUANTIFIERS: dict[str, str] = {
    **dict.fromkeys(("all", "every"), "all"),
    "each": "each",
    "most": "most",
    "half": "half",
    "few": "few",
    "always": "always",
    "only": "only",
}
"""Quantifier word -> its class ("every" and "all" say the same). Adding any but "each"
("each region" = "regions") is an error."""
RESTRICTIVE: frozenset[str] = frozenset({"most", "half", "few", "only", "always"})
"""The classes whose loss generalises a statement ("most X are" -> "X are"): losing "all"
or "each" leaves a generic plural that says the same."""
RESTATED = 0.75
"""A quantifier counts as lost only when the proposition keeps at least this share of the
content words of the quantifier's clause (it restates that clause, not a neighbour)."""
_CLAUSE_BREAKS = word_set("and but which while whereas who that")

MODALS: frozenset[str] = word_set(
    """may might could should must would likely unlikely possibly probably perhaps
    reportedly allegedly believed thought supposed seem seems seemed appear appears
    appeared sometimes usually generally typically often rarely"""
)
"""Modal verbs and hedges: their presence or absence is compared as a whole ("can" also
counts when the source has it and the proposition drops it, never when one is added)."""

_NOT_SCOPE = word_set("only just merely simply")
_LOOKAHEAD = 4

Problem = tuple[str, str, Severity]


def _negated(toks: tuple[Token, ...]) -> bool:
    return any(t.norm in NEGATIONS for t in toks)


def _scope(toks: tuple[Token, ...], i: int) -> list[str]:
    """The content stems (numbers too) right after ``toks[i]`` within its clause."""
    out: list[str] = []
    for tok in toks[i + 1 : i + 1 + _LOOKAHEAD]:
        if tok.text in ".,;:!?":
            break
        if tok.number:
            out.append(tok.norm)
        elif tok.norm not in GLUE_WORDS:
            out.append(stem(tok.norm))
    return out


def _clause(toks: tuple[Token, ...], i: int) -> frozenset[str]:
    """The content stems of the clause around ``toks[i]`` (between punctuation and
    "and"/"which"/"while"...), the word itself excluded."""
    start = i
    while (
        start > 0
        and toks[start - 1].text not in ".,;:!?"
        and (toks[start - 1].norm not in _CLAUSE_BREAKS)
    ):
        start -= 1
    end = i + 1
    while (
        end < len(toks)
        and toks[end].text not in ".,;:!?"
        and (toks[end].norm not in _CLAUSE_BREAKS)
    ):
        end += 1
    return frozenset(
        stem(t.norm)
        for k, t in enumerate(toks[start:end], start)
        if k != i and not t.number and t.norm not in GLUE_WORDS and t.text not in ".,;:!?"
    )


def _lost_negation(sentence: Sentence, kept: frozenset[str]) -> str | None:
    toks = tokens(sentence.text)
    for i, tok in enumerate(toks):
        if tok.norm not in NEGATIONS or tok.norm in ("nor", "neither"):
            continue
        nxt = toks[i + 1].norm if i + 1 < len(toks) else ""
        if nxt in _NOT_SCOPE:  # "not only A but also B" asserts A
            continue
        scope = _scope(toks, i)
        if scope and scope[0] in kept:
            return tok.text
    return None


def _quantifier_problems(prop_toks: tuple[Token, ...], window: Window) -> list[Problem]:
    kept = frozenset(profile(" ".join(t.text for t in prop_toks)).content_seq) | frozenset(
        t.norm for t in prop_toks if t.number
    )
    prop_classes = {QUANTIFIERS[t.norm] for t in prop_toks if t.norm in QUANTIFIERS}
    window_toks = [tokens(s.text) for s in window.members]
    window_classes = {
        QUANTIFIERS[t.norm] for ts in window_toks for t in ts if t.norm in QUANTIFIERS
    }
    problems: list[Problem] = []
    for added in sorted(prop_classes - window_classes - {"each"}):
        word = next(t.text for t in prop_toks if QUANTIFIERS.get(t.norm) == added)
        problems.append(
            (ADDED_QUANTIFIER, f'quantifier "{word}" not in the aligned source sentence', ERROR)
        )
    for toks in window_toks:
        for i, tok in enumerate(toks):
            cls = QUANTIFIERS.get(tok.norm)
            if cls is None or cls in prop_classes or cls not in RESTRICTIVE:
                continue
            scope = _scope(toks, i)
            clause = _clause(toks, i)
            restated = len(clause & kept) >= RESTATED * len(clause)
            if scope and scope[0] in kept and clause and restated:
                problems.append(
                    (
                        LOST_QUANTIFIER,
                        f'the source says "{tok.text}"; the proposition does not',
                        ERROR,
                    )
                )
                prop_classes.add(cls)
    return problems


def polarity_findings(proposition: str, window: Window) -> list[Problem]:
    """(kind, reason, severity) of each negation, quantifier or modality the proposition
    adds to or loses from the aligned window (empty when they agree)."""
    prop_toks = tokens(proposition)
    problems: list[Problem] = []
    prop_negated = _negated(prop_toks)
    if prop_negated and not any(_negated(tokens(s.text)) for s in window.members):
        problems.append((ADDED_NEGATION, "negated, but the aligned source sentence is not", ERROR))
    if not prop_negated:
        kept = frozenset(profile(proposition).content_seq)
        lost = next((w for s in window.members if (w := _lost_negation(s, kept))), None)
        if lost is not None:
            problems.append(
                (
                    LOST_NEGATION,
                    f'the aligned source sentence says "{lost}"; the proposition does not',
                    ERROR,
                )
            )
    problems += _quantifier_problems(prop_toks, window)
    prop_modal = {t.norm for i, t in enumerate(prop_toks) if not (i and t.capitalised)} & (
        MODALS | {"can"}
    )  # "in May" is a month
    window_modal = {t.norm for s in window.members for t in tokens(s.text)} & (MODALS | {"can"})
    kept = frozenset(  # words asserted: a gerund ("Raising X makes ...") asserts nothing
        stem(t.norm)
        for t in prop_toks
        if not t.number and t.norm not in GLUE_WORDS and not t.norm.endswith("ing")
    )
    governing = {  # the window's hedges on a word the proposition keeps
        toks[i].norm
        for toks in (tokens(s.text) for s in window.members)
        for i in range(len(toks))
        if toks[i].norm in MODALS | {"can"}
        and (scope := _scope(toks, i))
        and scope[0] in kept
        and len(_clause(toks, i) & kept) >= RESTATED * len(_clause(toks, i))
    }
    if governing and not prop_modal:
        problems.append(
            (
                CHANGED_MODALITY,
                f"the source hedges ({', '.join(sorted(governing))});"
                " the proposition states it as fact",
                WARNING,
            )
        )
    elif prop_modal - {"can"} and not window_modal:
        problems.append(
            (
                CHANGED_MODALITY,
                f"hedged ({', '.join(sorted(prop_modal - {'can'}))}), but the aligned source"
                " sentence is not",
                WARNING,
            )
        )
    return problems
