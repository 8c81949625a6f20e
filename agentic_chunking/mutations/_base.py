"""What every mutation operator shares: the Mutation record and the fact helpers."""

from __future__ import annotations

import copy
import random
import re
from dataclasses import dataclass, field
from typing import Any

from .._errors import InputError
from ..checks import looks_like_finite_verb, tokens

Groups = list[dict[str, Any]]


@dataclass(frozen=True)
class Mutation:
    """A mutated grouping reply and what the suite needs to replay it.

    ``groups`` is the mutated reply; ``rule`` the rule id that must catch it;
    ``replaced`` maps an original proposition to its mutated text, ``added`` lists new
    propositions and ``removed`` dropped ones, so the same change can be applied to the
    extraction replies (see :func:`apply_to_propositions`); ``description`` says what was
    done; ``swapped`` is (the word replaced, the word put in its place) for an operator
    that swaps one word for another.
    """

    operator: str
    rule: str
    groups: Groups
    description: str
    replaced: dict[str, str] = field(default_factory=dict)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    swapped: tuple[str, str] | None = None


def apply_to_propositions(mutation: Mutation, propositions: list[str]) -> list[str]:
    """Return ``propositions`` with the mutation's replacements made, removals dropped and
    additions appended."""
    kept = [mutation.replaced.get(p, p) for p in propositions if p not in mutation.removed]
    return kept + list(mutation.added)


def _usable(group: object) -> bool:
    """A group entry the operators may touch: a dict whose ``facts`` is a list."""
    return isinstance(group, dict) and isinstance(group.get("facts"), list)


def _facts(groups: Groups) -> list[tuple[int, int, str]]:
    """(group index, fact index, fact) of every string fact; malformed entries are skipped."""
    found = [
        (g, f, fact)
        for g, group in enumerate(groups)
        if _usable(group)
        for f, fact in enumerate(group["facts"])
        if isinstance(fact, str) and fact.strip()
    ]
    if not found:
        raise InputError(
            "the grouping reply has no facts to mutate; give at least one group with facts"
        )
    return found


def _ordered(groups: Groups, seed: int) -> list[tuple[int, int, str]]:
    facts = _facts(groups)
    random.Random(seed).shuffle(facts)
    return facts


def _replace(groups: Groups, g: int, f: int, new: str) -> Groups:
    out = copy.deepcopy(groups)
    out[g]["facts"][f] = new
    return out


def _subject_end(fact: str) -> int | None:
    """Character offset where the first finite verb starts, if a subject precedes it."""
    toks = tokens(fact)
    for i, tok in enumerate(toks):
        if i and looks_like_finite_verb(toks, i):
            match = re.search(rf"\b{re.escape(tok.text)}\b", fact)
            return match.start() if match and match.start() > 0 else None
    return None
