"""Does a chunker help retrieval? Token-level recall at equal context, side by side.

``evaluate(documents, questions, chunkers)`` chunks a corpus with each chunker, embeds
chunks and questions (the offline MiniLM embedder by default, or any ``Embedder``),
retrieves by exact cosine search over every chunk, and scores each question with Chroma's
token-level recall, precision and IoU over character ranges, at ``k`` chunks and at a
retrieved-token budget. ``load_benchmark`` reads the bundled copy of Chroma's chunking
evaluation (five corpora, 472 questions, MIT; ``data/README.md``); ``load_documents`` and
``load_questions`` read a user's corpus and questions in Chroma's shape. Embeddings are
cached by content hash (``CachedEmbedder``), on disk with a ``cache_dir``. Outputs:
``format_table``, ``write_json``, ``write_html``.
"""

from ..semantic import CachedEmbedder
from ._chunkers import (
    BUILT_IN,
    Chunker,
    build_chunker,
    fixed_windows,
    from_callable,
    installed_splitters,
)
from ._data import BENCHMARK_CORPORA, load_benchmark, load_documents, load_questions
from ._output import format_table, render_html, write_html, write_json
from ._records import (
    ChunkerResult,
    Document,
    EvalChunk,
    Question,
    Scores,
    paired_difference,
)
from ._run import (
    CURVE_BUDGETS,
    DEFAULT_BUDGET,
    DEFAULT_K,
    SEED_GRID,
    Evaluation,
    evaluate,
    parse_grid,
    sweep_specs,
)
from ._scoring import crossing_chunks, score, within_budget

__all__ = [
    "BENCHMARK_CORPORA",
    "BUILT_IN",
    "CURVE_BUDGETS",
    "DEFAULT_BUDGET",
    "DEFAULT_K",
    "SEED_GRID",
    "CachedEmbedder",
    "Chunker",
    "ChunkerResult",
    "Document",
    "EvalChunk",
    "Evaluation",
    "Question",
    "Scores",
    "build_chunker",
    "crossing_chunks",
    "evaluate",
    "fixed_windows",
    "format_table",
    "from_callable",
    "installed_splitters",
    "load_benchmark",
    "load_documents",
    "load_questions",
    "paired_difference",
    "parse_grid",
    "render_html",
    "score",
    "sweep_specs",
    "within_budget",
    "write_html",
    "write_json",
]
