"""Mutation operators: break a good grouping reply on purpose, so the suite can prove that
each substance check fails when it must.

Every operator takes the grouping reply shape ``[{"category": str, "facts": [str, ...]},
...]`` and the case's source text, and returns a :class:`Mutation`. Operators are pure
(the input is never modified) and deterministic: the same input and ``seed`` give the same
mutation. Each one verifies its own result with the check of its rule and raises
:class:`~agentic_chunking.InputError` when the input offers nothing to mutate.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from .._errors import InputError
from ..checks import (
    MIXED_DOMAINS,
    NO_DUPLICATION,
    NO_INVENTION,
    NO_UNRESOLVED_PRONOUNS,
    SELF_CONTAINED,
    attribute_domain,
    find_inventions,
    find_mixed_domains,
    find_not_self_contained,
    find_unresolved_pronouns,
    same_fact,
)
from ._base import (
    Groups,
    Mutation,
    _ordered,
    _replace,
    _subject_end,
    _usable,
    apply_to_propositions,
)
from ._facts import CERTAIN_OPERATORS, FACT_OPERATORS

_FICTIONAL = ("Quimby Institute", "Zelinski Foundation", "Marrowvale Consortium", "Ostrander Group")
_NUMBER_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")


def invent_fact(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Change a number of a fact to one the source never states, or, when no fact has a
    number, attribute a fact to an organisation that does not occur in the source.
    Guarantees: one fact replaced; ``find_inventions`` reports it against ``source``."""
    for g, f, fact in _ordered(groups, seed):
        match = _NUMBER.search(fact)
        if match:
            value = match.group(0)
            new_value = (
                str(int(float(value)) + 7) if "." not in value else f"{float(value) + 0.25:g}"
            )
            new = fact[: match.start()] + new_value + fact[match.end() :]
        else:
            name = next((n for n in _FICTIONAL if n.split()[0].lower() not in source.lower()), None)
            if name is None:
                continue
            new = fact.rstrip(" .!") + f", according to the {name}."
        if find_inventions([new], source):
            return Mutation(
                "invent_fact",
                NO_INVENTION,
                _replace(groups, g, f, new),
                f"invented content in {fact!r}",
                replaced={fact: new},
            )
    raise InputError("invent_fact found no fact it could make unsupported; give facts with words")


def unresolve_pronoun(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Replace the subject of a fact with "It"/"They" (agreeing with the verb), or with
    "This process"/"These" when ``seed % 3 == 2``.
    Guarantees: one fact replaced; ``find_unresolved_pronouns`` reports it."""
    for g, f, fact in _ordered(groups, seed):
        end = _subject_end(fact)
        if end is None:
            continue
        subject = fact[:end].strip()
        verb = fact[end:].split()[0].lower()
        singular = verb in ("is", "was", "has", "does") or (
            verb.endswith("s") and verb not in ("are", "were")
        )
        pronoun = "It" if singular else "They"
        if seed % 3 == 2:
            pronoun = "This process" if singular else "These"
        new = f"{pronoun} {fact[end:]}"
        if find_unresolved_pronouns([new]):
            return Mutation(
                "unresolve_pronoun",
                NO_UNRESOLVED_PRONOUNS,
                _replace(groups, g, f, new),
                f"subject {subject!r} replaced by {pronoun!r}",
                replaced={fact: new},
            )
    raise InputError("unresolve_pronoun found no fact with a subject before its verb")


_REWORDINGS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(r"\b(\w{3,})i([sz])(e|es|ed|ing|ation)\b"),
        lambda m: f"{m.group(1)}i{'z' if m.group(2) == 's' else 's'}{m.group(3)}",
    ),
    (
        re.compile(r"\b([2-9])\b"),
        lambda m: _NUMBER_WORDS[int(m.group(1)) - 2],
    ),
    (re.compile(r"\b([A-Za-z]+)-([a-z]+)\b"), lambda m: f"{m.group(1)} {m.group(2)}"),
    (re.compile(r"\b(a|the)\b"), lambda m: "the" if m.group(1) == "a" else "a"),
)


def _reword(fact: str) -> str:
    for pattern, change in _REWORDINGS:
        new = pattern.sub(change, fact, count=1)
        if new != fact:
            return new
    return fact.rstrip(" .!") + "!" if fact.rstrip().endswith(".") else fact.rstrip() + "."


def duplicate(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Add a trivially reworded copy of a fact (spelling variant, number as a word, a
    hyphen dropped, "a"/"the" swapped, or other final punctuation) to another group (the
    same group when there is only one).
    Guarantees: one fact added; ``same_fact(original, copy)``; ``find_duplicates`` fires."""
    for g, _f, fact in _ordered(groups, seed):
        copy_ = _reword(fact)
        if copy_ == fact or not same_fact(fact, copy_):
            continue
        usable = [i for i, group in enumerate(groups) if _usable(group)]
        target = next((i for i in usable if i > g), usable[0] if usable[0] != g else g)
        out = copy.deepcopy(groups)
        out[target]["facts"].append(copy_)
        return Mutation(
            "duplicate",
            NO_DUPLICATION,
            out,
            f"reworded copy of {fact!r} added to group {target}",
            added=[copy_],
        )
    raise InputError("duplicate found no fact to copy")


def fragment(groups: Groups, source: str, *, seed: int = 0, **_: Any) -> Mutation:
    """Make a fact not self-contained: cut it down to its subject (a fragment), falling
    back to opening it with "Also, " (which the check only warns about).
    Guarantees: one fact replaced; ``find_not_self_contained`` reports it."""
    for g, f, fact in _ordered(groups, seed):
        first_word = fact.split()[0] if fact.split() else ""
        head = fact[:1] if len(first_word) > 1 and first_word.isupper() else fact[:1].lower()
        candidates = [f"Also, {head}{fact[1:]}"]
        end = _subject_end(fact)
        if end is not None:  # the subject alone: certain (an error); "Also, ..." only warns
            candidates.insert(0, fact[:end].strip().rstrip(",") + ".")
        for new in candidates:
            if find_not_self_contained([new]):
                return Mutation(
                    "fragment",
                    SELF_CONTAINED,
                    _replace(groups, g, f, new),
                    f"{fact!r} made not self-contained",
                    replaced={fact: new},
                )
    raise InputError("fragment found no fact to break")


def mix_domains(
    groups: Groups,
    source: str,
    *,
    seed: int = 0,
    labelled_sentences: list[tuple[str, str]] | None = None,
    **_: Any,
) -> Mutation:
    """Move a fact attributed to one labelled domain into a group of another domain.
    Needs ``labelled_sentences`` ((source sentence, domain) pairs). Guarantees: no fact
    added or lost; ``find_mixed_domains`` reports the moved fact."""
    if not labelled_sentences:
        raise InputError("mix_domains needs labelled_sentences: (sentence, domain) pairs")
    domains = [
        {
            d
            for fact in (group["facts"] if _usable(group) else [])
            if isinstance(fact, str) and (d := attribute_domain(fact, labelled_sentences))
        }
        for group in groups
    ]
    for g, f, fact in _ordered(groups, seed):
        own = attribute_domain(fact, labelled_sentences)
        for target, target_domains in enumerate(domains):
            if own is None or target == g or not target_domains or own in target_domains:
                continue
            out = copy.deepcopy(groups)
            out[target]["facts"].append(out[g]["facts"].pop(f))
            chunks = [group["facts"] for group in out if _usable(group)]
            if find_mixed_domains(chunks, labelled_sentences):
                return Mutation(
                    "mix_domains", MIXED_DOMAINS, out, f"{fact!r} ({own}) moved into group {target}"
                )
    raise InputError(
        "mix_domains needs two groups whose facts come from different labelled domains"
    )


OPERATORS: dict[str, Callable[..., Mutation]] = {
    "duplicate": duplicate,
    "fragment": fragment,
    "invent_fact": invent_fact,
    "mix_domains": mix_domains,
    "unresolve_pronoun": unresolve_pronoun,
    **FACT_OPERATORS,
}
"""Operator name -> function ``(groups, source, *, seed=0, labelled_sentences=None)``; the
last nine (issue 10) live in ``mutations._facts``."""

__all__ = ["CERTAIN_OPERATORS", "OPERATORS", "Mutation", "apply_to_propositions"]
