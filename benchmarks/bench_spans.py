"""Provenance spans: what locating every proposition costs, and whether the spans of
verbatim output point where the text is.

Cost. A generated document (``_generated.py``: generated, not real text) of paragraphs of
five facts each becomes paragraph input chunks (``paragraph_inputs``) and extraction
batches (``plan_batches``); every fact is a proposition. Locating them
(``_provenance.locate``: each found in its batch, mapped to its input chunk's sentences)
is timed against, as the baseline measured in the same run, building the output chunks
from them (``assemble``). A generated fact is its sentence, so the span text of each is
counted against the fact.

Real text. Chroma's corpora (``agentic_chunking/evaluate/data/*.md``), the licence texts
of /usr/share/common-licenses/ and the Debian changelogs /usr/share/doc/*/changelog.Debian.gz
(what is absent is left out) go through the pipeline's own steps without a model: the
batches a run sends, a verbatim model's answer (``testing.VerbatimModel``: each
proposition one sentence of its batch, given back unchanged), ``locate``,
``merge_duplicates`` and ``assemble``. Counted: the propositions whose spans, read as
runs (spans separated only by whitespace), do not each hold the proposition up to
whitespace, or a copy merged into it (goal 0), and those with no span.

    .venv/bin/python benchmarks/bench_spans.py [--quick] [--facts N] [--changelogs N]
        [--json PATH]
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _generated import themed_propositions
from _results import add_options, keep

from agentic_chunking._loopback import VerbatimModel
from agentic_chunking.checks._align import align, source_sentences
from agentic_chunking.pipeline._assemble import assemble
from agentic_chunking.pipeline._batches import plan_batches
from agentic_chunking.pipeline._document import paragraph_inputs
from agentic_chunking.pipeline._partition import Merged, merge_duplicates
from agentic_chunking.pipeline._provenance import locate

ROOT = Path(__file__).resolve().parents[1]


def real_texts(changelogs: int) -> Iterator[tuple[str, str, str]]:
    """``(kind, name, text)`` of the real documents (see the module)."""
    for path in sorted((ROOT / "agentic_chunking" / "evaluate" / "data").glob("*.md")):
        yield "chroma", path.name, path.read_text(encoding="utf-8")
    licences = Path("/usr/share/common-licenses")
    if licences.is_dir():
        for path in sorted(p for p in licences.iterdir() if p.is_file() and not p.is_symlink()):
            yield "licences", path.name, path.read_text(encoding="utf-8", errors="replace")
    for path in sorted(Path("/usr/share/doc").glob("*/changelog.Debian.gz"))[:changelogs]:
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as file:
            yield "changelogs", path.parent.name, file.read()


def collapse(text: str) -> str:
    return " ".join(text.split())


def runs(document: str, spans: list[tuple[int, int]]) -> list[str]:
    """The text of each run of ``spans`` (spans separated only by whitespace join)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and not document[out[-1][1] : start].strip():
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return [document[a:b] for a, b in out]


def verbatim_spans(text: str) -> tuple[int, int, int]:
    """(propositions, spans not holding their text, without a span) of one document."""
    inputs = paragraph_inputs(text)
    if not inputs:
        return 0, 0, 0
    texts = {c.chunk_id: c.text for c in inputs}
    model = VerbatimModel()
    copies: dict[str, set[str]] = {}
    extracted = []
    for batch in plan_batches(inputs):
        propositions = model._extract(batch.text)
        for proposition, found in zip(
            propositions, locate(propositions, batch, texts), strict=True
        ):
            extracted.append((proposition, found.chunk_ids, found.places))

    def noted(kept: Merged, dropped: str, _ids: tuple[str, ...]) -> None:
        copies.setdefault(kept.text, set()).add(dropped)

    merged = merge_duplicates(extracted, on_merge=noted)
    grouping = [(f"T{n}", [n]) for n in range(1, len(merged) + 1)]
    chunks, _ = assemble(grouping, merged, inputs, document_id="D", metadata={}, limit=10_000_000)
    wrong = missing = 0
    for chunk in chunks:
        for proposition, spans in zip(chunk.propositions, chunk.proposition_spans, strict=True):
            if not spans:
                missing += 1
                continue
            wanted = [collapse(t) for t in (proposition, *copies.get(proposition, ()))]
            if not all(any(w in collapse(r) for w in wanted) for r in runs(text, list(spans))):
                wrong += 1
    return len(merged), wrong, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=3000, help="propositions (default 3000)")
    parser.add_argument(
        "--changelogs", type=int, default=1000, help="Debian changelogs read (default 1000)"
    )
    add_options(parser)
    args = parser.parse_args()
    count = 300 if args.quick else args.facts
    facts = themed_propositions(count, seed=7)
    paragraphs = [" ".join(f for f, _ in facts[i : i + 5]) for i in range(0, len(facts), 5)]
    document = "\n\n".join(paragraphs)
    inputs = paragraph_inputs(document)
    texts = {c.chunk_id: c.text for c in inputs}
    batches = plan_batches(inputs)
    themes: dict[str, list[int]] = {}
    for number, (_fact, theme) in enumerate(facts, start=1):
        themes.setdefault(theme, []).append(number)

    align.cache_clear()
    source_sentences.cache_clear()
    began = time.perf_counter()
    merged: list[Merged] = []
    for batch in batches:
        wanted = [f for f, _ in facts if f in batch.text]
        for fact, found in zip(wanted, locate(wanted, batch, texts), strict=True):
            merged.append(Merged(fact, found.chunk_ids, found.places))
    located = time.perf_counter() - began
    began = time.perf_counter()
    chunks, _ = assemble(
        list(themes.items()), merged, inputs, document_id="B", metadata={}, limit=10_000_000
    )
    baseline = time.perf_counter() - began
    found = sum(bool(s) for c in chunks for s in c.proposition_spans)
    exact = sum(
        [document[a:b] for a, b in s] == [p]
        for c in chunks
        for p, s in zip(c.propositions, c.proposition_spans, strict=True)
    )
    print(f"document: {len(document):,} characters, {len(inputs)} paragraphs, {count} facts")
    print(f"building the chunks (baseline): {1000 * baseline / count:.3f} ms per proposition")
    print(f"locating the propositions:      {1000 * located / count:.3f} ms per proposition")
    print(f"ratio locating / building:      {located / baseline:.1f}x")
    print(f"located: {found} of {count} propositions; span text == proposition: {exact}")

    totals: dict[str, list[int]] = {}
    documents = 0
    for kind, _name, text in real_texts(4 if args.quick else args.changelogs):
        if args.quick:
            text = text[:6_000]
        counted = verbatim_spans(text)
        row = totals.setdefault(kind, [0, 0, 0, 0])
        row[0] += 1
        for k in range(3):
            row[k + 1] += counted[k]
        documents += 1
    all_props = sum(r[1] for r in totals.values())
    all_wrong = sum(r[2] for r in totals.values())
    all_missing = sum(r[3] for r in totals.values())
    for kind, (docs, props, wrong, missing) in totals.items():
        print(
            f"{kind}: {docs} documents, {props:,} verbatim propositions, "
            f"{wrong} with a span not holding its text, {missing} without a span"
        )
    print(
        f"real text: {documents} documents, {all_props:,} verbatim propositions; "
        f"spans not holding their text: {all_wrong} (goal 0); without a span: {all_missing}"
    )
    per_kind: dict[str, int] = {}
    for kind, (docs, props, wrong, missing) in totals.items():
        per_kind[f"{kind} documents"] = docs
        per_kind[f"{kind} verbatim propositions"] = props
        per_kind[f"{kind} spans not holding their text"] = wrong
        per_kind[f"{kind} propositions without a span"] = missing
    keep(
        __file__,
        args,
        {
            "building ms per proposition": round(1000 * baseline / count, 3),
            "locating ms per proposition": round(1000 * located / count, 3),
            "ratio locating / building": round(located / baseline, 1),
            "propositions located": found,
            "span text == proposition": exact,
            "real documents": documents,
            "real verbatim propositions": all_props,
            "real spans not holding their text": all_wrong,
            "real propositions without a span": all_missing,
            **per_kind,
        },
        facts=count,
        characters=len(document),
        paragraphs=len(inputs),
    )


if __name__ == "__main__":
    main()
