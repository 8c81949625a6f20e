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

from ._chunkers import Chunker as Chunker
from ._chunkers import build_chunker as build_chunker
from ._chunkers import fixed_windows as fixed_windows
from ._chunkers import from_callable
from ._chunkers import installed_splitters as installed_splitters
from ._data import BENCHMARK_CORPORA as BENCHMARK_CORPORA
from ._data import load_benchmark, load_documents, load_questions
from ._data import load_inputs as load_inputs
from ._output import format_table, write_html, write_json
from ._output import render_html as render_html
from ._records import Document as Document
from ._records import EvalChunk as EvalChunk
from ._records import Question as Question
from ._records import paired_difference as paired_difference
from ._run import SEED_GRID as SEED_GRID
from ._run import Evaluation, evaluate
from ._run import chunker_specs as chunker_specs
from ._run import parse_grid as parse_grid
from ._run import sweep_specs as sweep_specs
from ._scoring import crossing_chunks as crossing_chunks
from ._scoring import score as score
from ._scoring import within_budget as within_budget

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "Evaluation",
    "evaluate",
    "format_table",
    "from_callable",
    "load_benchmark",
    "load_documents",
    "load_questions",
    "write_html",
    "write_json",
]
