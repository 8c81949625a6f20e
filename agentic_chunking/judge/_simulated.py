"""A SIMULATED careful judge for the mutation kill matrix: not a model, and never recorded.

It knows which propositions a mutation changed or added (it is handed the Mutation) and
gives them the verdict a careful judge would: a proposition changed or added against the
mutation's rule is "not_supported" (no_invention), "needs_context" (pronouns) or
"not_atomic" (self-containment); an added copy is "the same fact" as the proposition it
copies; everything else is "supported". It proves the suite turns the judge's verdicts
into hard asserts; it says nothing about how well any real model judges (that is what
``agentic-chunking calibrate-judge`` measures).
"""

from __future__ import annotations

from .._models import AgenticResponse
from ..checks import NO_DUPLICATION, NO_INVENTION, NO_UNRESOLVED_PRONOUNS, SELF_CONTAINED
from ..mutations import Mutation
from ._request import candidate_pairs, number_propositions
from ._verdicts import (
    NEEDS_CONTEXT,
    NOT_ATOMIC,
    NOT_SUPPORTED,
    SUPPORTED,
    Judgement,
    PairVerdict,
    PropositionVerdict,
    Verdict,
)

SIMULATED_JUDGE_MODEL = "simulated-careful-judge"
"""The model id on a simulated judgement: never a real model's name."""

_VERDICT_FOR_RULE: dict[str, Verdict] = {
    NO_INVENTION: NOT_SUPPORTED,
    NO_UNRESOLVED_PRONOUNS: NEEDS_CONTEXT,
    SELF_CONTAINED: NOT_ATOMIC,
}


def simulated_careful_judge(response: AgenticResponse, mutation: Mutation) -> Judgement:
    """The verdicts a careful judge gives on ``response``, knowing ``mutation`` (see module)."""
    changed = set(mutation.replaced.values()) | set(mutation.added)
    propositions = number_propositions(c.propositions for c in response.chunks)
    verdicts = []
    for p in propositions:
        verdict = (
            _VERDICT_FOR_RULE.get(mutation.rule, SUPPORTED) if p.text in changed else SUPPORTED
        )
        reason = (
            f"simulated: the {mutation.operator} mutation made this proposition"
            if verdict != SUPPORTED
            else "simulated: unchanged from the reference reply"
        )
        verdicts.append(PropositionVerdict(p.number, verdict, reason))
    pairs = []
    for first, second in candidate_pairs(propositions):
        a, b = propositions[first - 1].text, propositions[second - 1].text
        copy = mutation.rule == NO_DUPLICATION and (a in changed or b in changed)
        reason = "simulated: an added copy" if copy else "simulated: two reference facts"
        pairs.append(PairVerdict(first, second, copy, reason))
    return Judgement(SIMULATED_JUDGE_MODEL, tuple(verdicts), tuple(pairs))
