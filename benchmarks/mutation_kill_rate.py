"""Kill rate of the suite: every mutation operator on every case's reference replies.

Run: python benchmarks/mutation_kill_rate.py [--seed N] [--careful-judge] [--show-survivors]
Prints, per operator, how many cases it applied to, the share killed by errors (the case
fails on the operator's rule) and the share killed by errors or warnings (at least a
warning of that rule shows it), and which checks fired; then the overall figures. The
certain operators (numbers, names, negation, verbless list, a dropped fact with a number)
must be killed 100% by errors; below that is a finding.
With --careful-judge, a SIMULATED careful judge's verdicts (it knows the mutation; not a
model) combine with the rules.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from agentic_chunking._errors import InputError
from agentic_chunking._text import split_sentences
from agentic_chunking.checks import (
    COVERAGE,
    NO_INVENTION,
    SELF_CONTAINED,
    Finding,
    find_inventions,
    find_not_self_contained,
    find_uncovered_sentences,
)
from agentic_chunking.judge import simulated_careful_judge
from agentic_chunking.mutations import CERTAIN_OPERATORS, OPERATORS, apply_to_propositions
from agentic_chunking.suite import load_cases
from agentic_chunking.suite._mutation import MutationOutcome, kill_matrix

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.0%}" if whole else "-"


def _rule_findings(rule: str, propositions: list[str], source: str) -> list[Finding]:
    if rule == NO_INVENTION:
        return find_inventions(propositions, source)
    if rule == SELF_CONTAINED:
        return find_not_self_contained(propositions)
    if rule == COVERAGE:
        return find_uncovered_sentences(propositions, source)
    raise ValueError(f"no minimal-edit form for rule {rule}")


def minimal_edit_form(seed: int) -> dict[str, tuple[int, int]]:
    """Per certain operator: (cases where it applied to the verbatim source sentences,
    cases where an error of its rule caught the mutated proposition(s))."""
    results: dict[str, tuple[int, int]] = {}
    for name in CERTAIN_OPERATORS:
        applied = killed = 0
        for case in load_cases(CASES_DIR):
            source = case.source_text
            sentences = split_sentences(source)
            groups: list[object] = [{"category": "source", "facts": list(sentences)}]
            try:
                mutation = OPERATORS[name](
                    groups, source, seed=seed, labelled_sentences=case.labelled_sentences()
                )
            except InputError:
                continue
            applied += 1
            mutated = apply_to_propositions(mutation, list(sentences))
            judged = list(mutation.replaced.values()) if mutation.rule != COVERAGE else mutated
            findings = _rule_findings(mutation.rule, judged, source)
            killed += any(f.is_error and f.rule == mutation.rule for f in findings)
        results[name] = (applied, killed)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--careful-judge",
        action="store_true",
        help="combine a SIMULATED careful judge's verdicts (it knows the mutation; not a model)",
    )
    parser.add_argument("--show-survivors", action="store_true")
    args = parser.parse_args()
    outcomes = kill_matrix(
        cases_dir=CASES_DIR,
        replies_dir=CASES_DIR / "reference_replies",
        seed=args.seed,
        careful_judge=simulated_careful_judge if args.careful_judge else None,
    )
    by_operator: dict[str, list[MutationOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_operator[outcome.operator].append(outcome)
    print(f"{'operator':<18} {'applied':>7} {'by errors':>14} {'errors|warnings':>16}  fired")
    for name, rows in sorted(by_operator.items()):
        applied = [o for o in rows if o.applied]
        killed = sum(o.killed for o in applied)
        warned = sum(o.warned for o in applied)
        fired = Counter(rule for o in applied for rule in o.fired)
        caught = ", ".join(f"{rule} x{n}" for rule, n in fired.most_common())
        mark = " (certain)" if name in CERTAIN_OPERATORS else ""
        print(
            f"{name:<18} {len(applied):>7} {_share(killed, len(applied)):>14} "
            f"{_share(warned, len(applied)):>16}  {caught}{mark}"
        )
        for o in applied:
            if args.show_survivors and not o.killed:
                print(f"  {'WARNED' if o.warned else 'SURVIVED'} {o.case_id}: {o.detail}")
    applied = [o for o in outcomes if o.applied]
    killed = sum(o.killed for o in applied)
    warned = sum(o.warned for o in applied)
    print(
        f"killed by errors: {_share(killed, len(applied))}; by errors or warnings: "
        f"{_share(warned, len(applied))} (seed {args.seed})"
    )
    print("\ncertain operators in minimal-edit form (on the verbatim source sentences):")
    for name, (tried, caught) in minimal_edit_form(args.seed).items():
        print(f"{name:<18} {tried:>7} {_share(caught, tried):>14}")


if __name__ == "__main__":
    main()
