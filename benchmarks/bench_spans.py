"""What locating every proposition to the character costs, against building the chunks
without locating them, measured in the same run on the same grouping.

A generated document (``_generated.py``: generated, not real text) of paragraphs of
five facts each becomes paragraph input chunks (``paragraph_inputs``); every fact is a
proposition, grouped by its theme. ``assemble`` (the step that builds the output
chunks) is timed twice on that grouping: with the inputs' offsets (each proposition
aligned to its input chunk's sentences, ``PropositionSpans``) and, as the baseline, with
the same inputs stripped of offsets (nothing is aligned; the rest of the step is the
same). Prints both times per proposition and their ratio, and counts the propositions whose span
text in the document is the proposition itself (a generated fact is its sentence).

    .venv/bin/python benchmarks/bench_spans.py [--quick] [--facts N] [--json PATH]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _generated import themed_propositions
from _results import add_options, keep

from agentic_chunking._models import AgenticChunk, AgenticChunkInput
from agentic_chunking.checks._align import align, source_sentences
from agentic_chunking.pipeline._assemble import assemble
from agentic_chunking.pipeline._document import paragraph_inputs
from agentic_chunking.pipeline._partition import Merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=3000, help="propositions (default 3000)")
    add_options(parser)
    args = parser.parse_args()
    count = 300 if args.quick else args.facts
    facts = themed_propositions(count, seed=7)
    paragraphs = [" ".join(f for f, _ in facts[i : i + 5]) for i in range(0, len(facts), 5)]
    document = "\n\n".join(paragraphs)
    inputs = paragraph_inputs(document)
    merged = [Merged(fact, (inputs[n // 5].chunk_id,)) for n, (fact, _) in enumerate(facts)]
    themes: dict[str, list[int]] = {}
    for number, (_fact, theme) in enumerate(facts, start=1):
        themes.setdefault(theme, []).append(number)
    grouping = list(themes.items())
    unplaced = [dataclasses.replace(c, start=None, end=None) for c in inputs]

    def timed(given: list[AgenticChunkInput]) -> tuple[float, tuple[AgenticChunk, ...]]:
        align.cache_clear()
        source_sentences.cache_clear()
        began = time.perf_counter()
        chunks, _ = assemble(
            grouping, merged, given, document_id="B", metadata={}, limit=10_000_000
        )
        return time.perf_counter() - began, chunks

    baseline, _ = timed(unplaced)
    located, chunks = timed(inputs)
    spans = [s for c in chunks for p in c.proposition_spans for s in p]
    found = sum(bool(s) for c in chunks for s in c.proposition_spans)
    exact = sum(
        [document[a:b] for a, b in s] == [p]
        for c in chunks
        for p, s in zip(c.propositions, c.proposition_spans, strict=True)
    )
    print(f"document: {len(document):,} characters, {len(inputs)} paragraphs, {count} facts")
    print(f"without spans (baseline): {1000 * baseline / count:.3f} ms per proposition")
    print(f"with spans:               {1000 * located / count:.3f} ms per proposition")
    print(f"ratio with / without:     {located / baseline:.1f}x")
    print(
        f"located: {found} of {count} propositions ({len(spans)} spans); "
        f"span text == proposition: {exact} of {count}"
    )
    keep(
        __file__,
        args,
        {
            "without spans ms per proposition": round(1000 * baseline / count, 3),
            "with spans ms per proposition": round(1000 * located / count, 3),
            "ratio with / without": round(located / baseline, 1),
            "propositions located": found,
            "span text == proposition": exact,
        },
        facts=count,
        characters=len(document),
        paragraphs=len(inputs),
    )


if __name__ == "__main__":
    main()
