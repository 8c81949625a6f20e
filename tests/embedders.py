"""A model-free embedder for tests (moved from ``agentic_chunking.testing``: only tests use
it): ``TableEmbedder`` answers from a table of vectors, ``MEANING_EXAMPLES`` by default."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class TableEmbedder:
    """An embedder (``semantic.Embedder``) that answers from a table of vectors, the zero
    vector for a text not in it, and records every text it is asked to embed: tests of
    what is embedded, how often, and which pairs come out close, without a model."""

    name = "table"

    def __init__(self, vectors: Mapping[str, Sequence[float]] | None = None) -> None:
        self.vectors = dict(MEANING_EXAMPLES if vectors is None else vectors)
        self.asked: list[str] = []

    def __call__(self, texts: list[str], /) -> list[list[float]]:
        self.asked += texts
        width = len(next(iter(self.vectors.values()), ()))
        return [list(self.vectors.get(text, [0.0] * width)) for text in texts]


MEANING_EXAMPLES: dict[str, tuple[float, ...]] = {
    "Insulin lowers blood sugar.": (1.0, 0.0, 0.0, 0.0),
    "Insulin reduces the level of glucose in the blood.": (0.96, 0.28, 0.0, 0.0),
    "The pancreas makes insulin in its beta cells.": (0.5, 0.0, 0.866, 0.0),
    "The bank opened a branch in Rome in 1402.": (0.0, 0.0, 0.0, 1.0),
}
"""``TableEmbedder``'s default table, in this order: one fact, the same fact reworded with
almost no content word in common (cosine 0.96: no lexical rule sees them), another fact
about the same subject, and an unrelated fact."""
