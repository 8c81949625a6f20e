"""Measure the substance checks on labelled items: recall, specificity, balanced accuracy.

Data sets: the public GAP-derived pronoun items and WiCE-derived invention items in the
shared validation folder (env ``AGENTIC_CHUNKING_VALIDATION_DIR``, default
``../shared/validation`` from the repository root), and our own labelled items for
duplication and self-containment in ``benchmarks/data/``. Each check is compared with a
naive baseline measured in the same run. Labels: true = the item PASSES the check.

    python benchmarks/bench_checks.py [--show-errors N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agentic_chunking.checks import (
    PARAPHRASE_ALLOWANCE,
    find_duplicates,
    find_inventions,
    find_not_self_contained,
    find_unresolved_pronouns,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
Item = dict[str, object]
Check = Callable[[Item], list[str]]  # the reasons the item fails; empty = passes


def _validation_dir() -> Path:
    raw = os.environ.get("AGENTIC_CHUNKING_VALIDATION_DIR", "../shared/validation")
    path = Path(raw) if Path(raw).is_absolute() else (ROOT / raw).resolve()
    if not (path / "gap_unresolved_pronoun.jsonl").is_file():
        sys.exit(
            f"validation data not found in {path} (expected gap_unresolved_pronoun.jsonl and "
            "wice_no_invention.jsonl); set AGENTIC_CHUNKING_VALIDATION_DIR to the folder "
            "that holds them"
        )
    return path


def _load(path: Path) -> list[Item]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _reasons(findings: list) -> list[str]:  # type: ignore[type-arg]
    return [f.reason for f in findings]


_PRONOUN = re.compile(
    r"\b(it|its|they|them|their|he|him|his|she|her|hers|we|us|our|this|these|those)\b", re.I
)


def _naive_words(item: Item) -> list[str]:
    source = set(re.findall(r"\w+", str(item["source"]).lower()))
    missing = [w for w in re.findall(r"\w+", str(item["candidate"]).lower()) if w not in source]
    return [f"missing {missing}"] if missing else []


CHECKS: dict[str, tuple[str, Check, Check]] = {
    # name: (data file, check, naive baseline)
    "no_invention": (
        "wice_no_invention.jsonl",
        lambda it: _reasons(find_inventions([str(it["candidate"])], str(it["source"]))),
        _naive_words,
    ),
    "no_invention (allowance)": (
        "wice_no_invention.jsonl",
        lambda it: _reasons(
            find_inventions(
                [str(it["candidate"])],
                str(it["source"]),
                paraphrase_allowance=PARAPHRASE_ALLOWANCE,
            )
        ),
        _naive_words,
    ),
    "no_unresolved_pronouns": (
        "gap_unresolved_pronoun.jsonl",
        lambda it: _reasons(find_unresolved_pronouns([str(it["candidate"])])),
        lambda it: ["pronoun"] if _PRONOUN.search(str(it["candidate"])) else [],
    ),
    "no_duplication": (
        "duplicates.jsonl",
        lambda it: _reasons(find_duplicates([[str(it["a"])], [str(it["b"])]])),
        lambda it: ["equal"] if str(it["a"]).lower() == str(it["b"]).lower() else [],
    ),
    "self_contained": (
        "self_contained.jsonl",
        lambda it: _reasons(find_not_self_contained([str(it["candidate"])])),
        lambda it: [] if re.match(r"[A-Z0-9].*[.!?]$", str(it["candidate"])) else ["form"],
    ),
}


@dataclass
class Score:
    n: int
    recall: float
    specificity: float
    errors: list[tuple[str, Item, list[str]]]

    @property
    def balanced(self) -> float:
        return (self.recall + self.specificity) / 2


def score(items: list[Item], check: Check) -> Score:
    fails = passes = caught = cleared = 0
    errors: list[tuple[str, Item, list[str]]] = []
    for item in items:
        reasons = check(item)
        if item["label"]:
            passes += 1
            cleared += not reasons
            if reasons:
                errors.append(("false alarm", item, reasons))
        else:
            fails += 1
            caught += bool(reasons)
            if not reasons:
                errors.append(("missed", item, reasons))
    return Score(len(items), caught / max(1, fails), cleared / max(1, passes), errors)


def _kind(kind: str, item: Item, reasons: list[str]) -> str:
    if kind == "false alarm":
        return "false alarm: " + re.sub(r"[:(\"'].*", "", reasons[0]).strip()
    meta = item.get("meta") or {}
    detail = item.get("kind") or (meta.get("pronoun") if isinstance(meta, dict) else None)
    return f"missed: {detail}" if detail else "missed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--show-errors",
        type=int,
        default=0,
        metavar="N",
        help="print N misclassified items per check (default 0)",
    )
    args = parser.parse_args(argv)
    validation = _validation_dir()
    started = time.perf_counter()
    header = (
        f"{'check':24} {'data':30} {'n':>4} {'recall':>7} {'spec':>6} {'bal':>6} {'base':>6}"
        f" {'fit':>6} {'held':>6}"
    )
    print(header)
    print("-" * len(header))
    details: list[str] = []
    for name, (file, check, baseline) in CHECKS.items():
        path = (validation if (validation / file).is_file() else DATA) / file
        items = _load(path)
        result, base = score(items, check), score(items, baseline)
        fit, held = score(items[0::2], check), score(items[1::2], check)
        print(
            f"{name:24} {file:30} {result.n:4d} {result.recall:7.3f} "
            f"{result.specificity:6.3f} {result.balanced:6.3f} {base.balanced:6.3f} "
            f"{fit.balanced:6.3f} {held.balanced:6.3f}"
        )
        kinds = Counter(_kind(*e) for e in result.errors).most_common(4)
        details.append(f"{name}: main errors: " + "; ".join(f"{k} x{c}" for k, c in kinds))
        for kind, item, reasons in random.Random(0).sample(
            result.errors, min(args.show_errors, len(result.errors))
        ):
            text = item.get("candidate") or f"{item.get('a')!r} / {item.get('b')!r}"
            details.append(f"  [{kind}] {str(text)[:200]}")
            if reasons:
                details.append(f"      reason: {reasons[0][:200]}")
    print()
    print("\n".join(details))
    print(
        "\n(fit / held = balanced accuracy on the items at even / odd 0-based line numbers "
        "of the data file; thresholds of a check, e.g. the tolerance of find_inventions, are "
        "fitted on the even half only, so 'held' is the honest figure)"
        f"\n(base = balanced accuracy of a naive baseline, same items; "
        f"{time.perf_counter() - started:.1f}s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
