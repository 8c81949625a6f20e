"""Adapters: other libraries' shapes in and out of the pipeline.

LangChain and LlamaIndex (optional extras) take and give their own Documents and nodes,
and load a finished output (``corpus``'s JSONL or Parquet, ``chunk``'s JSON) as them;
converters read other chunkers' output for ``check``; chunker adapters put another Level 5
implementation under the suite. Each adapter imports its library inside the module that
needs it, so the package imports without any of them. May import: the root's records and
errors, ``client``, ``checks``, ``semantic``, ``pipeline``, ``corpus`` (its output reader);
nothing above.
"""

from ._chunkers import ChunkerOutputError, baseline_chunker, langchain_chunker
from ._convert import FROM_FORMATS as FROM_FORMATS
from ._convert import convert as convert

# What users call (docs/api/); the LangChain and LlamaIndex adapters are the public modules
# ``adapters.langchain`` and ``adapters.llamaindex`` (each needs its extra).
__all__ = ["ChunkerOutputError", "baseline_chunker", "langchain_chunker"]
