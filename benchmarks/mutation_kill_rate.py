"""Kill rate of the suite: every mutation operator on every case's reference replies.

Run: python benchmarks/mutation_kill_rate.py [--seed N] [--careful-judge]
Prints, per operator, how many cases it applied to, how many were killed, and which
checks fired; then the overall kill rate (below 100% is a finding).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from agentic_chunking.judge import simulated_careful_judge
from agentic_chunking.suite._mutation import MutationOutcome, kill_matrix

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--careful-judge",
        action="store_true",
        help="combine a SIMULATED careful judge's verdicts (it knows the mutation; not a model)",
    )
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
    print(f"{'operator':<18} {'applied':>7} {'killed':>6}  caught by")
    for name, rows in sorted(by_operator.items()):
        applied = [o for o in rows if o.applied]
        killed = sum(o.killed for o in applied)
        fired = Counter(rule for o in applied for rule in o.fired)
        caught = ", ".join(f"{rule} x{n}" for rule, n in fired.most_common())
        print(f"{name:<18} {len(applied):>7} {killed:>6}  {caught}")
        for o in applied:
            if not o.killed:
                print(f"  SURVIVED {o.case_id}: {o.detail}")
    applied = [o for o in outcomes if o.applied]
    killed = sum(o.killed for o in applied)
    print(f"kill rate: {killed}/{len(applied)} = {killed / len(applied):.1%} (seed {args.seed})")


if __name__ == "__main__":
    main()
