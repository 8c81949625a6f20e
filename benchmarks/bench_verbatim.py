"""The checks on verbatim output: every sentence of real documents given back unchanged.

Data: the verbatim corpus of ``benchmarks/_verbatim.py`` (Chroma's five corpora, the
licence texts of base-files, the first document of each Debian changelog and copyright
file, generated documents of the shapes real ones have; a path absent here is skipped).
For each document, three outputs, each checked as ``agentic-chunking check`` checks it
(``judge._assess.assess`` against ``judge._assess.source_text`` of the document's
paragraphs): every sentence alone as a proposition, the sentences in runs of 1 to 4
consecutive ones joined by a space, and every paragraph whole (blocks between blank
lines, which the segmenter's sentences need not line up with).

Printed: the findings per rule, kind and severity, per output; the three counts
whose goal is 0 (a ``no_invention`` error, a ``cut_off`` error on a proposition closed by
". ! ?", a source sentence not counted as covered); and the twenty most common findings
of any severity, with one example each, for a reader's verdict. The unresolved-pronoun
and duplication rules are not run: a sentence given back alone keeps its pronouns by
construction, and a repeated sentence is a real duplicate.

    python benchmarks/bench_verbatim.py [--quick] [--workers N] [--show N]

``--quick``: QUICK_DOCUMENTS documents of each source.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor

from _results import add_options, keep
from _verbatim import Document, paragraphs, runs, sources

from agentic_chunking._models import AgenticChunk, AgenticResponse
from agentic_chunking._text import split_sentences
from agentic_chunking.checks import (
    COVERAGE,
    ERROR,
    NO_INVENTION,
    SELF_CONTAINED,
)
from agentic_chunking.checks._finding import CUT_OFF
from agentic_chunking.judge._assess import assess, source_text
from agentic_chunking.pipeline._document import paragraph_inputs

QUICK_DOCUMENTS = 3
RULES = (NO_INVENTION, SELF_CONTAINED)
RUN_LENGTHS = (2, 3, 1, 4)
MODES = ("alone", "runs", "paragraphs")
CLOSED = (".", "!", "?")

Row = tuple[str, str, str, str, str, str, str]
"""(mode, rule, kind, severity, reason, document, proposition or source sentence)."""


def response(propositions: Sequence[str]) -> AgenticResponse:
    """An output of one chunk holding ``propositions``."""
    chunk = AgenticChunk.from_propositions(
        document_id="D", seq=1, thematic_category="Verbatim", propositions=list(propositions)
    )
    return AgenticResponse(chunks=(chunk,))


def outputs(source: str, shift: int = 0) -> dict[str, list[str]]:
    """The three verbatim outputs of ``source``: each sentence alone, runs of them, and
    each paragraph whole."""
    sentences = split_sentences(source)
    lengths = RUN_LENGTHS[shift % len(RUN_LENGTHS) :] + RUN_LENGTHS[: shift % len(RUN_LENGTHS)]
    return {
        "alone": sentences,
        "runs": list(runs(sentences, lengths)),
        "paragraphs": paragraphs(source),
    }


def goal_missed(rule: str, kind: str, severity: str, proposition: str) -> bool:
    """Is this finding one of the three whose goal is none on verbatim output?"""
    if rule == COVERAGE:
        return True  # any uncovered sentence, whatever its severity
    if severity != ERROR:
        return False
    if rule == NO_INVENTION:
        return True
    return rule == SELF_CONTAINED and kind == CUT_OFF and proposition.rstrip().endswith(CLOSED)


def check_document(item: tuple[int, Document]) -> tuple[int, int, list[Row]]:
    """The findings of the verbatim outputs of one document: (sentences, propositions,
    rows)."""
    index, document = item
    source = source_text(paragraph_inputs(document.text))
    rows: list[Row] = []
    made = outputs(source, index)
    for mode, propositions in made.items():
        if not propositions:
            continue
        checks = assess(response(propositions), source=source, rules=RULES).checks
        for rule, result in checks.items():
            for f in result.findings:
                said = f.proposition if rule != COVERAGE else (f.source_sentence or "")
                rows.append((mode, rule, f.kind, f.severity, f.reason, document.name, said))
    return len(made["alone"]), sum(len(p) for p in made.values()), rows


def _short(text: str, width: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def measure(documents: Sequence[Document], workers: int) -> tuple[int, int, list[Row]]:
    items: Iterable[tuple[int, int, list[Row]]]
    numbered = list(enumerate(documents))
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            items = list(pool.map(check_document, numbered, chunksize=8))
    else:
        items = [check_document(item) for item in numbered]
    sentences = propositions = 0
    rows: list[Row] = []
    for s, p, r in items:
        sentences += s
        propositions += p
        rows += r
    return sentences, propositions, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--show", type=int, default=20, help="most common findings to list")
    args = parser.parse_args(argv)
    found = sources()
    if args.quick:
        found = {name: docs[:QUICK_DOCUMENTS] for name, docs in found.items()}
    documents = [d for docs in found.values() for d in docs]
    sentences, propositions, rows = measure(documents, max(1, args.workers))
    figures: dict[str, float | int | str | bool] = {}
    for name, docs in found.items():
        figures[f"documents {name}"] = len(docs)
    figures["documents"] = len(documents)
    figures["sentences"] = sentences
    figures["propositions checked (alone, in runs, paragraphs)"] = propositions
    print(f"{len(documents)} documents, {sentences} sentences, {propositions} propositions")
    by_kind = Counter((r[1], r[2], r[3], r[0]) for r in rows)
    print("\nfindings per rule, kind and severity (alone / in runs / paragraphs):")
    for rule, kind, severity in sorted({k[:3] for k in by_kind}):
        counts = [by_kind[(rule, kind, severity, mode)] for mode in MODES]
        shown = " / ".join(f"{c:>6}" for c in counts)
        print(f"  {rule:<15} {kind:<22} {severity:<8} {shown}")
        for mode, count in zip(MODES, counts, strict=True):
            figures[f"findings {rule} {kind} {severity} {mode}"] = count
    goals = {
        "no_invention errors": [r for r in rows if r[1] == NO_INVENTION and r[3] == ERROR],
        "cut_off errors on closed propositions": [
            r for r in rows if r[1] == SELF_CONTAINED and goal_missed(r[1], r[2], r[3], r[6])
        ],
        "uncovered sentences": [r for r in rows if r[1] == COVERAGE],
    }
    print("\ngoal 0 (alone / in runs / paragraphs):")
    for label, missed in goals.items():
        counts = [sum(r[0] == mode for r in missed) for mode in MODES]
        print(f"  {label:<40} " + " / ".join(f"{c:>6}" for c in counts))
        for mode, count in zip(MODES, counts, strict=True):
            figures[f"goal 0: {label} {mode}"] = count
        for row in missed[: args.show]:
            print(f"    {row[0]} {row[5]}: {row[4]} | {_short(row[6])}")
    common = Counter((r[1], r[2], r[3], r[4]) for r in rows)
    example = {}
    for r in rows:
        example.setdefault((r[1], r[2], r[3], r[4]), r)
    print(f"\nthe {args.show} most common findings (any severity, every output):")
    for rank, (key, count) in enumerate(common.most_common(args.show), 1):
        rule, kind, severity, reason = key
        row = example[key]
        line = f"{count} x {rule} {kind} {severity}: {reason}"
        print(f"  {rank:>2}. {line}\n      e.g. {row[5]}: {_short(row[6])}")
        figures[f"common finding {rank:02d}"] = f"{line} | e.g. {row[5]}: {_short(row[6])}"
    keep(__file__, args, figures, run_lengths=",".join(map(str, RUN_LENGTHS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
