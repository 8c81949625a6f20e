"""Measure the substance checks on labelled items, counting errors and warnings apart.

Data: the shared validation folder (env ``AGENTIC_CHUNKING_VALIDATION_DIR``, default
``../shared/validation`` from the repository root): ``real_llm_dev.jsonl`` (412 items of
real model output, labelled by reading: mostly GOOD propositions, so it measures false
alarms), GAP-derived pronoun items and WiCE-derived invention items; and our own labelled
items for duplication and self-containment in ``benchmarks/data/``. Labels: true = the
item PASSES the check. Then the reference replies, judged as the suite judges them.

For each set: the share of good items with an error (false alarms that would fail a
faithful run; goal <= 1% per rule on real_llm_dev), the share of good items with any
finding (a warning is visible, never failing), recall on bad items counting errors and
counting errors or warnings, and balanced accuracy both ways. "fit" / "held" are the
balanced accuracy (errors) on the items at even / odd 0-based lines: no threshold of the
checks was fitted on the odd lines, so "held" is the honest figure. On
real_llm_fables_dev (unlabelled GPT-4 claims that carry context): the share of claims with
an error and with any finding, and 20 error findings drawn at random for a reader.

real_llm_factscore_dev (FActScore facts): the shares of facts with an error and with any
finding, and the 200 facts of ``data/factscore_labels.jsonl`` labelled by reading (errors
and findings on the good, recall on the defective, every error on a good fact and every
miss listed).

    python benchmarks/bench_checks.py [--show N] [--quick]

``--quick``: the first QUICK_ITEMS items of each set, QUICK_ROWS fables summaries,
QUICK_CASES reference cases and the FActScore set's first 300 facts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, cannot_run, keep

from agentic_chunking.checks import Finding, Rule, RuleInput, rules
from agentic_chunking.judge import set_name

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
Item = dict[str, object]
Check = Callable[[Item], list[Finding]]
QUICK_ITEMS, QUICK_ROWS, QUICK_CASES = 20, 3, 4
_quick = False


def _validation_dir() -> Path:
    raw = os.environ.get("AGENTIC_CHUNKING_VALIDATION_DIR", "../shared/validation")
    path = Path(raw) if Path(raw).is_absolute() else (ROOT / raw).resolve()
    if not (path / "real_llm_dev.jsonl").is_file():
        cannot_run(
            f"validation data not found in {path} (expected real_llm_dev.jsonl, "
            "gap_unresolved_pronoun.jsonl, wice_no_invention.jsonl); set "
            "AGENTIC_CHUNKING_VALIDATION_DIR to the folder that holds them"
        )
    return path


def _load(path: Path, quick_size: int = QUICK_ITEMS) -> list[Item]:
    """The items of a JSON-lines file (the first ``quick_size`` under ``--quick``)."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [json.loads(line) for line in lines[: quick_size if _quick else None]]


def _s(item: Item, key: str) -> str:
    return str(item[key])


def _on_item(rule: Rule) -> Check:
    """``rule`` run on one labelled item as ``assess`` runs it: a rule that reads
    propositions on the candidate with its source, a rule that reads chunks on the item's
    two texts as two chunks, source first (the duplicate sets' pair). An item without a
    source (our self-containment items) is given None."""
    if rule.reads == "chunks":
        return lambda it: rule.run(RuleInput([[_s(it, "source")], [_s(it, "candidate")]]))
    return lambda it: rule.run(
        RuleInput([[_s(it, "candidate")]], _s(it, "source") if "source" in it else None)
    )


def _on_claim(rule: Rule) -> Callable[[str, str], list[Finding]]:
    """``rule`` (one that reads propositions) run on one claim with its source."""
    return lambda claim, source: rule.run(RuleInput([[claim]], source))


def _checks() -> dict[str, Check]:
    """Every registered rule (``checks.rules()``), by the labelled sets' name of it (as
    ``check`` names it in real_llm_dev) -> the check run on one item."""
    return {set_name(rule.id): _on_item(rule) for rule in rules()}


def _claim_checks() -> dict[str, Callable[[str, str], list[Finding]]]:
    """Every registered rule that reads propositions, by the sets' name -> the check run on
    one claim and its source (the fables and FActScore claims: one claim, no pair)."""
    return {set_name(rule.id): _on_claim(rule) for rule in rules() if rule.reads == "propositions"}


SETS: tuple[tuple[str, str, str], ...] = (
    # (label, file, rule); real_llm_dev is split by its items' ``check`` field
    ("GAP", "gap_unresolved_pronoun.jsonl", "no_unresolved_pronoun"),
    ("WiCE", "wice_no_invention.jsonl", "no_invention"),
    ("ours", "duplicates.jsonl", "no_duplication"),
    ("ours", "self_contained.jsonl", "self_contained"),
)


@dataclass
class Score:
    good: int = 0
    bad: int = 0
    good_error: int = 0
    good_any: int = 0
    bad_error: int = 0
    bad_any: int = 0

    def add(self, label: bool, findings: list[Finding]) -> None:
        error, anything = any(f.is_error for f in findings), bool(findings)
        if label:
            self.good += 1
            self.good_error += error
            self.good_any += anything
        else:
            self.bad += 1
            self.bad_error += error
            self.bad_any += anything

    def balanced(self, *, warnings: bool) -> float:
        caught = self.bad_any if warnings else self.bad_error
        alarms = self.good_any if warnings else self.good_error
        recall = caught / self.bad if self.bad else 1.0
        specificity = 1 - alarms / self.good if self.good else 1.0
        return (recall + specificity) / 2


def _pct(part: int, whole: int) -> str:
    return f"{part / whole:6.1%}" if whole else "     -"


def _normalised(item: Item) -> Item:
    """Our own duplicate items say ``a``/``b``; the shared sets say ``source``/``candidate``."""
    if "a" in item and "source" not in item:
        return {**item, "source": item["a"], "candidate": item["b"]}
    return item


def _row(
    name: str,
    rule: str,
    items: list[Item],
    show: int,
    notes: list[str],
    figures: dict[str, float | str],
) -> str:
    check = _checks()[rule]
    score, fit, held = Score(), Score(), Score()
    kinds: Counter[str] = Counter()
    misses: list[tuple[str, Item, list[Finding]]] = []
    for position, item in enumerate(items):
        findings = check(_normalised(item))
        label = bool(item["label"])
        for part in (score, fit if position % 2 == 0 else held):
            part.add(label, findings)
        for f in findings:
            kinds[f"{'good' if label else 'bad'} {f.severity} {f.kind or f.rule}"] += 1
        if label and any(f.is_error for f in findings):
            misses.append(("false alarm", item, findings))
        elif not label and not findings:
            misses.append(("missed", item, findings))
    notes.append(
        f"{name} {rule}: " + ", ".join(f"{k} x{n}" for k, n in kinds.most_common(6)) or "-"
    )
    for kind, item, findings in random.Random(0).sample(misses, min(show, len(misses))):
        notes.append(f"  [{kind}] {_s(_normalised(item), 'candidate')[:160]}")
        notes += [f"      {f.severity} {f.kind}: {f.reason[:140]}" for f in findings[:2]]
    s = score
    figures |= {
        f"{name} {rule}: good with an error %": round(100 * s.good_error / s.good, 1)
        if s.good
        else "-",
        f"{name} {rule}: good with any finding %": round(100 * s.good_any / s.good, 1)
        if s.good
        else "-",
        f"{name} {rule}: balanced accuracy (errors)": round(s.balanced(warnings=False), 3),
        f"{name} {rule}: held out": round(held.balanced(warnings=False), 3),
    }
    return (
        f"{name:6} {rule:22} {s.good:4d} {s.bad:4d} {_pct(s.good_error, s.good)} "
        f"{_pct(s.good_any, s.good)} {_pct(s.bad_error, s.bad)} {_pct(s.bad_any, s.bad)} "
        f"{s.balanced(warnings=False):6.3f} {s.balanced(warnings=True):6.3f} "
        f"{fit.balanced(warnings=False):6.3f} {held.balanced(warnings=False):6.3f}"
    )


def _reference_findings(
    limit: int | None = None, propositions: list[str] | None = None
) -> Counter[str]:
    """Errors and warnings of the 32 cases (the first ``limit`` of them) replayed from the
    reference replies, judged exactly as the suite judges them (a loopback server serves
    the replies); ``propositions`` counts the propositions checked, and the list passed
    as ``propositions`` receives them."""
    from agentic_chunking._loopback import FakeMessagesServer
    from agentic_chunking.client import make_client
    from agentic_chunking.suite import load_cases
    from agentic_chunking.suite._replies import REFERENCE_MODEL, ReferenceServer, load_replies
    from agentic_chunking.suite._runner import judge, run_pipeline

    cases_dir = ROOT / "cases"
    counts: Counter[str] = Counter()
    reference = ReferenceServer()
    with FakeMessagesServer(handler=reference) as server:
        client = make_client(api_key="bench-no-key", base_url=server.base_url, max_retries=0)
        with client:
            for case in load_cases(cases_dir)[: QUICK_CASES if _quick else limit]:
                reference.use(case, load_replies(case, cases_dir / "reference_replies"))
                response = run_pipeline(case, client=client, model=REFERENCE_MODEL)
                counts["propositions"] += response.total_propositions
                if propositions is not None:
                    propositions += [p for c in response.chunks for p in c.propositions]
                result = judge(case, response)
                for check in result.checks.values():
                    if check.applies:
                        counts["errors"] += len(check.errors)
                        counts["warnings"] += len(check.warnings)
    return counts


def _fables(validation: Path, sample: int, figures: dict[str, float | str]) -> list[str]:
    """real_llm_fables_dev (unlabelled, mostly faithful GPT-4 claims that carry context):
    per rule, the share of claims with an error and with any finding; then ``sample``
    error findings drawn at random (seed 0) for a reader to judge."""
    path = validation / "real_llm_fables_dev.jsonl"
    if not path.is_file():
        return ["real_llm_fables_dev.jsonl not found: skipped"]
    rows = _load(path, QUICK_ROWS)
    checks = _claim_checks()
    claims = 0
    errors: Counter[str] = Counter()
    anything: Counter[str] = Counter()
    drawn: list[tuple[str, Finding]] = []
    for row in rows:
        source = _s(row, "source")
        for prop in row["propositions"]:  # type: ignore[attr-defined]
            claim = str(prop["proposition"])
            claims += 1
            found = {rule: check(claim, source) for rule, check in checks.items()}
            for rule, findings in found.items():
                errors[rule] += any(f.is_error for f in findings)
                anything[rule] += bool(findings)
                drawn += [(str(prop["id"]), f) for f in findings if f.is_error]
            errors["any rule"] += any(f.is_error for fs in found.values() for f in fs)
            anything["any rule"] += any(found.values())
    lines = [f"real_llm_fables_dev: {claims} claims in {len(rows)} summaries (unlabelled)"]
    for rule in (*checks, "any rule"):
        lines.append(
            f"  {rule:22} errors on {_pct(errors[rule], claims)}, any finding on"
            f" {_pct(anything[rule], claims)}"
        )
    lines += _fables_labelled(rows, checks, figures)
    chosen = random.Random(0).sample(drawn, min(sample, len(drawn)))
    lines.append(f"  {len(chosen)} error findings drawn at random (seed 0) of {len(drawn)}:")
    lines += [f"    {i} {f.kind}: {f.proposition.strip()[:150]}" for i, f in chosen]
    return lines


def _fables_labelled(
    rows: list[Item],
    checks: dict[str, Callable[[str, str], list[Finding]]],
    figures: dict[str, float | str],
) -> list[str]:
    """The 200 claims of ``data/fables_labels.jsonl`` labelled by reading: errors and any
    finding on the claims good on every rule (false alarms), and on the defective ones."""
    path = DATA / "fables_labels.jsonl"
    if not path.is_file():
        return []
    sources = {
        str(p["id"]): _s(row, "source")
        for row in rows
        for p in row["propositions"]  # type: ignore[attr-defined]
    }
    score = Score()
    by_rule = {rule: Score() for rule in checks}
    kinds: Counter[str] = Counter()
    for item in _load(path):
        if _s(item, "id") not in sources:  # its summary is not among the rows read (--quick)
            continue
        claim, good = _s(item, "proposition"), bool(item["good"])
        found = {rule: check(claim, sources[_s(item, "id")]) for rule, check in checks.items()}
        findings = [f for fs in found.values() for f in fs]
        score.add(good, findings)
        for rule, fs in found.items():
            by_rule[rule].add(good, fs)
        kinds.update(f"{'good' if good else 'bad'} {f.severity} {f.kind}" for f in findings)
    _keep_labelled("fables labelled", score, by_rule, figures)
    return [
        f"  labelled sample ({score.good} good, {score.bad} defective; data/fables_labels.jsonl):"
        f" errors on {_pct(score.good_error, score.good)} / any finding on"
        f" {_pct(score.good_any, score.good)} of the good; errors on"
        f" {_pct(score.bad_error, score.bad)} / any finding on {_pct(score.bad_any, score.bad)}"
        " of the defective",
        *_per_rule(by_rule),
        "    " + ", ".join(f"{k} x{n}" for k, n in kinds.most_common(8)),
    ]


def _keep_labelled(
    name: str, score: Score, by_rule: dict[str, Score], figures: dict[str, float | str]
) -> None:
    """A labelled sample's figures for the results file: errors and any finding on the good
    items, recall by any finding on the defective ones, all rules together and per rule."""

    def share(part: int, whole: int) -> float | str:
        return round(100 * part / whole, 1) if whole else "-"

    for rule, s in {"any rule": score, **by_rule}.items():
        figures[f"{name} {rule}: good with an error %"] = share(s.good_error, s.good)
        figures[f"{name} {rule}: good with any finding %"] = share(s.good_any, s.good)
        figures[f"{name} {rule}: defective flagged (any finding) %"] = share(s.bad_any, s.bad)


def _per_rule(by_rule: dict[str, Score]) -> list[str]:
    """One line per rule of a labelled sample: errors and any finding on the good items, and
    the defective items it flags (by an error, by any finding)."""
    return [
        f"    {rule:22} good: errors {_pct(s.good_error, s.good)}, any finding"
        f" {_pct(s.good_any, s.good)}; defective flagged: by errors {_pct(s.bad_error, s.bad)},"
        f" by any finding {_pct(s.bad_any, s.bad)}"
        for rule, s in by_rule.items()
    ]


def _factscore(validation: Path, limit: int | None, figures: dict[str, float | str]) -> list[str]:
    """real_llm_factscore_dev: the share of facts with an error and with any finding (the
    first ``limit`` facts), then the 200 facts of ``data/factscore_labels.jsonl`` labelled
    by reading: errors and any finding on the good ones (each error listed), recall by
    any finding on the defective ones per defect, and the misses."""
    path = validation / "real_llm_factscore_dev.jsonl"
    if not path.is_file():
        return ["real_llm_factscore_dev.jsonl not found: skipped"]
    rows = {_s(row, "id"): row for row in _load(path, quick_size=10**9)}  # labels need all

    checks = _claim_checks()
    by_rule = {rule: Score() for rule in checks}

    def run(row: Item, good: bool | None = None) -> list[Finding]:
        fact, source = _s(row, "proposition"), _s(row, "source")
        found = {rule: check(fact, source) for rule, check in checks.items()}
        if good is not None:
            for rule, fs in found.items():
                by_rule[rule].add(good, fs)
        return [f for fs in found.values() for f in fs]

    facts = list(rows.values())[:limit]
    found = [run(row) for row in facts]
    errors = sum(any(f.is_error for f in fs) for fs in found)
    lines = [
        f"real_llm_factscore_dev: {len(facts)} facts: errors on {_pct(errors, len(facts))},"
        f" any finding on {_pct(sum(bool(fs) for fs in found), len(facts))}"
    ]
    labels = DATA / "factscore_labels.jsonl"
    if not labels.is_file():
        return lines
    score = Score()
    caught: Counter[str] = Counter()
    defects: Counter[str] = Counter()
    listed: list[str] = []
    for item in _load(labels, quick_size=20):
        good = bool(item["good"])
        findings = run(rows[_s(item, "id")], good)
        score.add(good, findings)
        if not good:
            defects[_s(item, "defect")] += 1
            caught[_s(item, "defect")] += bool(findings)
        if good and any(f.is_error for f in findings):
            listed += [
                f"    error on good: {_s(item, 'proposition')[:110]} -> {f.kind}: {f.reason[:80]}"
                for f in findings
                if f.is_error
            ]
        elif not good and not findings:
            listed.append(f"    missed ({item['defect']}): {_s(item, 'proposition')[:120]}")
    lines.append(
        f"  labelled sample ({score.good} good, {score.bad} defective;"
        f" data/factscore_labels.jsonl): errors on {_pct(score.good_error, score.good)} /"
        f" any finding on {_pct(score.good_any, score.good)} of the good; recall by any"
        f" finding {_pct(score.bad_any, score.bad)} ("
        + ", ".join(f"{d} {caught[d]}/{n}" for d, n in defects.most_common())
        + ")"
    )
    _keep_labelled("factscore labelled", score, by_rule, figures)
    return lines + _per_rule(by_rule) + listed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=0, metavar="N", help="misjudged items")
    add_options(parser)
    args = parser.parse_args(argv)
    global _quick
    _quick = args.quick
    figures: dict[str, float | str] = {}
    validation = _validation_dir()
    started = time.perf_counter()
    header = (
        f"{'set':6} {'rule':22} {'good':>4} {'bad':>4} {'g.err':>6} {'g.any':>6} "
        f"{'recE':>6} {'recEW':>6} {'balE':>6} {'balEW':>6} {'fit':>6} {'held':>6}"
    )
    print(header)
    print("-" * len(header))
    notes: list[str] = []
    real = _load(validation / "real_llm_dev.jsonl")
    for rule in _checks():
        items = [it for it in real if it["check"] == rule]
        print(_row("real", rule, items, args.show, notes, figures))
    for name, file, rule in SETS:
        path = validation / file if (validation / file).is_file() else DATA / file
        print(_row(name, rule, _load(path), args.show, notes, figures))
    print("\n" + "\n".join(_fables(validation, 20, figures)))
    print("\n" + "\n".join(_factscore(validation, 300 if args.quick else None, figures)))
    reference = _reference_findings()
    print(
        f"\nreference replies: {reference['errors']} errors, {reference['warnings']} warnings "
        "(32 cases judged as the suite judges them; goal 0 / 0)"
    )
    print("\n" + "\n".join(notes))
    print(
        "\ng.err / g.any = share of GOOD items with an error / with any finding (a false"
        " alarm that fails a run / that is shown); recE / recEW = share of BAD items with an"
        " error / with any finding; balE / balEW = balanced accuracy counting errors / errors"
        " or warnings; fit / held = balE on the even / odd lines of the file"
        f" ({time.perf_counter() - started:.1f}s)"
    )
    figures |= {
        "reference cases: errors": reference["errors"],
        "reference cases: warnings": reference["warnings"],
    }
    keep(__file__, args, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
