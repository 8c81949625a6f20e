"""Kill rate of the suite: every mutation operator on every case's reference replies.

Run: python benchmarks/mutation_kill_rate.py [--seed N [N ...]] [--careful-judge]
[--show-survivors] [--quick] (``--quick``: the first QUICK_CASES cases; several seeds:
each seed's figures, labelled "seed N: ...", then whether every operator reached the
target at every seed)
Prints, per operator, how many cases it applied to, the share killed by errors (the case
fails on the operator's rule) and the share killed by errors or warnings (at least a
warning of that rule shows it), and which checks fired; then the overall figures, and the
certain operators (numbers, names, negation, verbless list, a dropped fact with a number)
in their minimal-edit form, which errors must kill 100%. Every operator must be flagged
(errors or warnings) on at least 95% of its cases (issue 19); below that is a finding.
A swapped term's mutant that the source may itself state (every word of it, the new one
included, in one sentence that also holds the word replaced:
``agentic_chunking.mutations.possibly_equivalent``) is counted apart, on a row "(maybe
eq.)" of its own; the overall figures count every mutant.
With --careful-judge, a SIMULATED careful judge's verdicts (it knows the mutation; not a
model) combine with the rules.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, keep

from agentic_chunking.judge import simulated_careful_judge
from agentic_chunking.mutations import CERTAIN_OPERATORS
from agentic_chunking.suite._mutation import MutationOutcome, kill_matrix, minimal_edit_outcomes

CASES_DIR = Path(__file__).resolve().parent.parent / "cases"
QUICK_CASES = 3
TARGET = 0.95
"""Every operator must be flagged (errors or warnings) on at least this share of its cases."""


def first_cases(folder: Path, count: int) -> Path:
    """A folder holding links to the first ``count`` case files of CASES_DIR."""
    for path in sorted(CASES_DIR.glob("TC-*.yaml"))[:count]:
        (folder / path.name).symlink_to(path)
    return folder


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.0%}" if whole else "-"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        run(folder)


def run(folder: str) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seed",
        type=int,
        nargs="+",
        default=[0],
        help="one seed or several (--seed 0 1 2 3): each seed's figures, then whether every "
        f"operator is flagged on at least {TARGET * 100:.0f}%% of its cases at every seed",
    )
    parser.add_argument(
        "--careful-judge",
        action="store_true",
        help="combine a SIMULATED careful judge's verdicts (it knows the mutation; not a model)",
    )
    parser.add_argument("--show-survivors", action="store_true")
    add_options(parser)
    args = parser.parse_args()
    cases_dir = first_cases(Path(folder), QUICK_CASES) if args.quick else CASES_DIR
    figures: dict[str, str | bool] = {}
    below: list[str] = []
    for seed in args.seed:
        prefix = f"seed {seed}: " if len(args.seed) > 1 else ""
        below += [
            f"{row} at seed {seed}" for row in _one_seed(args, cases_dir, seed, prefix, figures)
        ]
    figures[f"every operator flagged on >= {TARGET:.0%} of its cases at every seed"] = not below
    print(f"\nbelow {TARGET:.0%}: {', '.join(below) if below else 'none'}")
    keep(
        __file__,
        args,
        figures,
        seeds=" ".join(map(str, args.seed)),
        careful_judge=args.careful_judge,
    )


def _one_seed(
    args: argparse.Namespace,
    cases_dir: Path,
    seed: int,
    prefix: str,
    figures: dict[str, str | bool],
) -> list[str]:
    """Print one seed's kill matrix, add its figures (labels opening with ``prefix``) and
    return the rows flagged on fewer than TARGET of their cases (the possibly equivalent
    rows are shown, never judged against it)."""
    outcomes = kill_matrix(
        cases_dir=cases_dir,
        replies_dir=CASES_DIR / "reference_replies",
        seed=seed,
        careful_judge=simulated_careful_judge if args.careful_judge else None,
    )
    below: list[str] = []
    by_operator: dict[str, list[MutationOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_operator[outcome.operator].append(outcome)
    print(f"\n{'operator':<18} {'applied':>7} {'by errors':>14} {'errors|warnings':>16}  fired")
    rows_by_label: list[tuple[str, str, list[MutationOutcome]]] = []
    for name, rows in sorted(by_operator.items()):
        applied = [o for o in rows if o.applied]
        rows_by_label.append((name, name, [o for o in applied if not o.possibly_equivalent]))
        apart = [o for o in applied if o.possibly_equivalent]
        if apart:  # mutants the source may itself state: their own row, never dropped
            rows_by_label.append((f"{name} (maybe eq.)", f"{name} possibly equivalent", apart))
    for label, key, applied in rows_by_label:
        name = applied[0].operator if applied else label
        killed = sum(o.killed for o in applied)
        warned = sum(o.warned for o in applied)
        fired = Counter(rule for o in applied for rule in o.fired)
        caught = ", ".join(f"{rule} x{n}" for rule, n in fired.most_common())
        mark = " (certain)" if name in CERTAIN_OPERATORS else ""
        print(
            f"{label:<18} {len(applied):>7} {_share(killed, len(applied)):>14} "
            f"{_share(warned, len(applied)):>16}  {caught}{mark}"
        )
        figures[f"{prefix}{key}: killed by errors / by errors or warnings"] = (
            f"{_share(killed, len(applied))} / {_share(warned, len(applied))}"
        )
        if label == key and applied and warned < TARGET * len(applied):
            below.append(key)
        for o in applied:
            if args.show_survivors and not o.killed:
                print(f"  {'WARNED' if o.warned else 'SURVIVED'} {o.case_id}: {o.detail}")
    applied = [o for o in outcomes if o.applied]
    killed = sum(o.killed for o in applied)
    warned = sum(o.warned for o in applied)
    print(
        f"killed by errors: {_share(killed, len(applied))}; by errors or warnings: "
        f"{_share(warned, len(applied))} (seed {seed})"
    )
    print("\ncertain operators in minimal-edit form (on the verbatim source sentences):")
    figures[f"{prefix}all operators: killed by errors"] = _share(killed, len(applied))
    figures[f"{prefix}all operators: killed by errors or warnings"] = _share(warned, len(applied))
    minimal = minimal_edit_outcomes(cases_dir=cases_dir, seed=seed)
    for name in CERTAIN_OPERATORS:
        rows = [o for o in minimal if o.operator == name]
        caught = sum(o.killed for o in rows)
        print(f"{name:<18} {len(rows):>7} {_share(caught, len(rows)):>14}")
        figures[f"{prefix}minimal edit {name}: killed by errors"] = _share(caught, len(rows))
        for o in rows:
            if args.show_survivors and not o.killed:
                print(f"  SURVIVED {o.case_id}: {o.detail}")
    return below


if __name__ == "__main__":
    main()
