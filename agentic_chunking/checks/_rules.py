"""The registry of substance rules: one frozen record per rule, in display order.

Every layer that lists the substance rules reads them here, at call time: ``assess`` (which
rules run, which need the input text), the results file and the report (the order and the
title of each check), the case files (which rule names a case may ask for), the judge's
combination and its calibration (the verdicts that flag a rule). A new rule is one module
(its ``find_*`` function and tests) and one record in :data:`RULES`; nothing else changes.

One ordered tuple rather than modules registering themselves on import: the display order
is written once, where it can be read; the registry is complete as soon as this module is
imported (no import done for its side effect, no order that depends on which module was
imported first); and a test swaps it whole (``monkeypatch.setattr(_rules, "RULES", ...)``),
which every reader sees because each reads :func:`rules` when it runs, never a copy.

The judge's verdicts are named by their words (``"not_supported"``...): the judge layer
sits above this one, and tests/test_checks_rules.py checks each word is one of its verdicts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ._duplicates import find_duplicates
from ._finding import NO_DUPLICATION, NO_INVENTION, NO_UNRESOLVED_PRONOUNS, SELF_CONTAINED, Finding
from ._invention import find_inventions
from ._pronouns import find_unresolved_pronouns
from ._self_contained import find_not_self_contained

Reads = Literal["propositions", "chunks"]
PROPOSITIONS: Reads = "propositions"
"""The rule reads each proposition (its findings have no ``chunk_index``)."""
CHUNKS: Reads = "chunks"
"""The rule reads the chunks, propositions in order (its findings name their chunk)."""


def _no_pairs() -> Sequence[tuple[int, int]]:
    return ()


@dataclass(frozen=True, slots=True)
class RuleInput:
    """What a rule is given: one output's ``chunks`` (each its propositions, in order), the
    ``source`` text it was made from (None when not given; a rule that ``needs_source`` is
    only called with it), and ``similar``, which returns the pairs of propositions close in
    meaning (0-based indexes into :attr:`propositions`) that the judge layer also asks
    about; called only by a rule that uses them, it costs nothing otherwise."""

    chunks: Sequence[Sequence[str]]
    source: str | None = None
    similar: Callable[[], Sequence[tuple[int, int]]] = field(default=_no_pairs)

    @property
    def propositions(self) -> list[str]:
        """Every proposition of every chunk, in order."""
        return [p for chunk in self.chunks for p in chunk]


@dataclass(frozen=True, slots=True)
class Rule:
    """One substance rule.

    ``id`` is the rule of its findings and the name of its check (in results files, case
    files and the report); ``title`` the check's heading in the report; ``needs_source``
    True when the rule compares the output with its input (without the input it is "not
    run", never passed); ``reads`` whether it judges propositions one by one or the
    chunks; ``flagged_by`` the judge's verdicts on a proposition that agree with a finding
    of the rule (empty: no verdict on one proposition speaks to it); ``run`` the check
    itself: every finding of the rule on the given output, [] when all is well.
    """

    id: str
    title: str
    needs_source: bool
    reads: Reads
    flagged_by: frozenset[str]
    run: Callable[[RuleInput], list[Finding]]


RULES: tuple[Rule, ...] = (
    Rule(
        NO_INVENTION,
        "No invention",
        needs_source=True,
        reads=PROPOSITIONS,
        flagged_by=frozenset({"not_supported"}),
        run=lambda given: find_inventions(given.propositions, given.source or ""),
    ),
    Rule(
        NO_UNRESOLVED_PRONOUNS,
        "No unresolved pronouns",
        needs_source=False,
        reads=PROPOSITIONS,
        flagged_by=frozenset({"needs_context"}),
        run=lambda given: find_unresolved_pronouns(given.propositions, given.source),
    ),
    Rule(
        NO_DUPLICATION,
        "No duplication",
        needs_source=False,
        reads=CHUNKS,
        flagged_by=frozenset(),
        run=lambda given: find_duplicates(given.chunks, similar=given.similar()),
    ),
    Rule(
        SELF_CONTAINED,
        "Self-contained",
        needs_source=False,
        reads=PROPOSITIONS,
        flagged_by=frozenset({"not_atomic", "needs_context"}),
        run=lambda given: find_not_self_contained(given.propositions),
    ),
)
"""Every substance rule, in display order: the suite's hard asserts."""

SUBSTANCE_RULES: tuple[str, ...] = tuple(r.id for r in RULES)
"""The ids of :data:`RULES` as this module defines them (the four rules of seed 000, in
order); code that must see a rule added later reads :func:`rule_ids`."""


def rules() -> tuple[Rule, ...]:
    """The registered rules, in display order (read at each call: see the module)."""
    return RULES


def rule_ids() -> tuple[str, ...]:
    """The ids of the registered rules, in display order."""
    return tuple(r.id for r in RULES)


def rule_of(rule_id: str) -> Rule | None:
    """The registered rule with this id; None when there is none."""
    return next((r for r in RULES if r.id == rule_id), None)
