"""Proof that the suite can fail: every mutation operator on every case it applies to.

Each operator of ``agentic_chunking.mutations`` breaks a case's reference replies in one
way (an invented fact, an unresolved pronoun, a duplicate, a fragment, a mixed-domain
chunk); the mutated replies are served to the real pipeline on a loopback server and the
case is judged exactly as the suite judges it. A mutation is killed when the case fails
on the operator's rule, or, for a duplicate, on the pipeline's partition guard: the
pipeline merges propositions that are certainly the same fact (``certainly_same_fact``)
before grouping, so a grouping that lists a merged-away copy is refused (after its one
repair turn) before any output exists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import InputError
from .._loopback import FakeMessagesServer
from .._models import AgenticResponse
from .._text import split_sentences
from ..checks import (
    COVERAGE,
    MIXED_DOMAINS,
    NO_DUPLICATION,
    Finding,
    RuleInput,
    find_uncovered_sentences,
    rule_of,
)
from ..client import make_client
from ..judge import Judgement
from ..mutations import (
    CERTAIN_OPERATORS,
    OPERATORS,
    Mutation,
    apply_to_propositions,
    possibly_equivalent,
)
from ..pipeline import parse_propositions_strict
from ._cases import Case, load_cases
from ._replies import (
    REFERENCE_MODEL,
    ExtractionReply,
    GroupEntry,
    ReferenceReplies,
    ReferenceServer,
    load_replies,
)
from ._runner import PARTITION, judge, run_pipeline

if TYPE_CHECKING:
    from ..client import AnyClient


Operator = Callable[..., Mutation]
"""A mutation operator, called as ``agentic_chunking.mutations._operators.OPERATORS`` are."""
CarefulJudge = Callable[[AgenticResponse, Mutation], Judgement]
"""Judges a mutated response knowing the mutation (a simulated judge, never a model)."""


@dataclass(frozen=True, slots=True)
class MutationOutcome:
    """One case x operator: whether it applied, what fired, whether it was killed (the
    case failed on the operator's rule: an error) and whether it was at least warned."""

    case_id: str
    operator: str
    rule: str | None
    applied: bool
    killed: bool
    fired: tuple[str, ...]
    detail: str
    warned: bool = False
    """A finding (error or warning) of the operator's rule showed the mutation: a
    regressed model's suspect output is visible even where the case stays green."""
    possibly_equivalent: bool = False
    """The mutant may say what the source says (``mutations.possibly_equivalent``): the
    kill matrix counts it apart."""


def mutate_replies(
    replies: ReferenceReplies, response: AgenticResponse, mutation: Mutation
) -> ReferenceReplies:
    """The case's replies with ``mutation`` made to the grouping and the extraction alike.

    Extraction entries become plain proposition lists (raw replies are parsed first, and
    a repaired entry takes its repair), so the mutation tests the checks, not the parser.
    """
    entries = []
    for position, entry in enumerate(replies.extraction):
        propositions = [
            mutation.replaced.get(p, p) for p in _propositions(entry) if p not in mutation.removed
        ]
        if position == 0:
            propositions.extend(mutation.added)
        entries.append(
            ExtractionReply(
                chunk_id=entry.chunk_id, chunk_ids=entry.chunk_ids, propositions=tuple(propositions)
            )
        )
    grouping = tuple(
        GroupEntry(category=str(g["category"]), facts=tuple(g["facts"])) for g in mutation.groups
    )
    del response  # the groups in ``mutation`` were built from it
    return ReferenceReplies(case=replies.case, extraction=tuple(entries), grouping=grouping)


def _propositions(entry: ExtractionReply) -> list[str]:
    reply = entry.repair if entry.repair is not None else entry
    return parse_propositions_strict(reply.text())


def kill_matrix(
    *,
    cases_dir: Path,
    replies_dir: Path,
    seed: int = 0,
    progress: Callable[[MutationOutcome], None] | None = None,
    careful_judge: CarefulJudge | None = None,
    operators: Mapping[str, Operator] | None = None,
) -> list[MutationOutcome]:
    """Run every operator on every case that produces output; return one outcome each.

    ``careful_judge`` (e.g. ``agentic_chunking.judge.simulated_careful_judge``) judges each
    mutated response and its verdicts combine with the checks, as the suite's recorded
    judge does; ``operators`` replaces ``agentic_chunking.mutations._operators.OPERATORS``.
    """
    reference = ReferenceServer()
    outcomes: list[MutationOutcome] = []
    with FakeMessagesServer(handler=reference) as server:
        client = make_client(api_key="mutation-no-key", base_url=server.base_url, max_retries=0)
        with client:
            for case in load_cases(cases_dir):
                if case.expect.error is not None:
                    continue  # no output to break: the case expects a clean failure
                for outcome in _case_outcomes(
                    case,
                    replies_dir,
                    reference,
                    client,
                    seed,
                    careful_judge,
                    OPERATORS if operators is None else operators,
                ):
                    outcomes.append(outcome)
                    if progress is not None:
                        progress(outcome)
    return outcomes


def _case_outcomes(
    case: Case,
    replies_dir: Path,
    reference: ReferenceServer,
    client: AnyClient,
    seed: int,
    careful_judge: CarefulJudge | None,
    operators: Mapping[str, Operator],
) -> Iterator[MutationOutcome]:
    replies = load_replies(case, replies_dir)
    reference.use(case, replies)
    original = run_pipeline(case, client=client, model=REFERENCE_MODEL)
    groups = [
        {"category": c.thematic_category, "facts": list(c.propositions)} for c in original.chunks
    ]
    for name, operator in operators.items():
        if name == "mix_domains" and not case.has_domain_labels:
            yield MutationOutcome(case.id, name, MIXED_DOMAINS, False, False, (), "no labels")
            continue
        try:
            mutation = operator(
                groups, case.source_text, seed=seed, labelled_sentences=case.labelled_sentences()
            )
        except InputError as error:
            yield MutationOutcome(case.id, name, None, False, False, (), str(error))
            continue
        reference.use(case, mutate_replies(replies, original, mutation))
        mutated = run_pipeline(case, client=client, model=REFERENCE_MODEL)
        judgement = None
        if careful_judge is not None and mutated.is_success:
            judgement = careful_judge(mutated, mutation)
        result = judge(case, mutated, judgement)
        fired = tuple(n for n, c in result.checks.items() if c.applies and c.passed is False)
        killed = mutation.rule in fired or (mutation.rule == NO_DUPLICATION and PARTITION in fired)
        own = result.checks.get(mutation.rule)
        warned = killed or (own is not None and bool(own.findings))
        yield MutationOutcome(
            case.id,
            name,
            mutation.rule,
            True,
            killed,
            fired,
            mutation.description,
            warned,
            possibly_equivalent(mutation, case.source_text),
        )
    reference.use(case, replies)


@dataclass(frozen=True)
class MinimalEditOutcome:
    """A certain operator applied to one case's source sentences taken verbatim as the
    propositions (its minimal-edit form: exactly one item of one source sentence
    changed), and whether an error of its rule caught the change."""

    case_id: str
    operator: str
    rule: str
    killed: bool
    detail: str


def _rule_findings(rule_id: str, propositions: list[str], source: str) -> list[Finding]:
    """The findings of ``rule_id`` on ``propositions`` (one chunk) and ``source``: a rule of
    the registry (``checks.rule_of``) run as ``assess`` runs it, or coverage (not a rule of
    the registry: it takes a severity)."""
    if rule_id == COVERAGE:
        return find_uncovered_sentences(propositions, source)
    rule = rule_of(rule_id)
    if rule is None:
        raise ValueError(f"no minimal-edit form for rule {rule_id}")
    return rule.run(RuleInput([propositions], source))


def minimal_edit_outcomes(
    *, cases_dir: Path, seed: int = 0, operators: Mapping[str, Operator] | None = None
) -> list[MinimalEditOutcome]:
    """Every certain operator (``CERTAIN_OPERATORS``) in its minimal-edit form on every
    case it applies to. Issue 19: an error needs evidence no faithful rewording and no
    decontextualisation can produce, so these are the mutations errors must kill; on the
    reference replies, which reword and carry context, the same operators may be
    warnings for the judge. ``operators`` replaces the certain operators; each mutation
    is judged by its rule as the registry runs it (:func:`_rule_findings`)."""
    if operators is None:
        operators = {name: OPERATORS[name] for name in CERTAIN_OPERATORS}
    outcomes: list[MinimalEditOutcome] = []
    for case in load_cases(cases_dir):
        source = case.source_text
        sentences = split_sentences(source)
        for name, operator in operators.items():
            groups = [{"category": "source", "facts": list(sentences)}]
            try:
                mutation = operator(
                    groups, source, seed=seed, labelled_sentences=case.labelled_sentences()
                )
            except InputError:
                continue
            mutated = apply_to_propositions(mutation, list(sentences))
            judged = list(mutation.replaced.values()) if mutation.rule != COVERAGE else mutated
            found = _rule_findings(mutation.rule, judged, source)
            killed = any(f.is_error and f.rule == mutation.rule for f in found)
            outcomes.append(
                MinimalEditOutcome(case.id, name, mutation.rule, killed, mutation.description)
            )
    return outcomes
