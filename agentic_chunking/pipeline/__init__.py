"""The Level 5 pipeline: input chunks in, atomic propositions grouped by theme out.

The steps, in the order the data flows (``_run.chunk_text_agentic`` runs them):

1. ``_prechunk``: cut each input chunk's text into pieces that fit the extraction prompt;
2. ``_batches``: plan the extraction batches, each with its input chunk's id;
3. extraction: one call per batch through ``_conversation`` (call, ``_parse`` the tolerant
   JSON reading, at most one repair turn), on the ``_threads`` pool, prompts from
   ``_prompts`` and the versioned files in ``prompts/``; ``_provenance`` locates each
   proposition in its batch (its input chunks and their sentences);
4. ``_partition``: merge certain duplicates across batches, then check that the grouping
   is a partition of the merged propositions;
5. ``_grouping``: group by proposition number, in windows with a merge for long documents;
6. ``_normalise``: turn the grouping reply into the output contract's typed chunks.

Beside them: ``_plan`` (what a run would do, for ``--dry-run``, and its progress) and
``_notes`` (the pipeline's warnings as records). May import: the root's shared modules,
``client`` and ``checks`` (the certain-duplicate relation); never judge, suite, report
or cli.
"""

from ._conversation import CallSettings as CallSettings
from ._conversation import Outcome as Outcome
from ._conversation import converse as converse
from ._parse import load_json_array as load_json_array
from ._parse import parse_propositions_strict as parse_propositions_strict
from ._prompts import PROMPT_VERSIONS as PROMPT_VERSIONS
from ._run import DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_REPAIR_ATTEMPTS, chunk_text_agentic

__all__ = ["DEFAULT_MAX_CONCURRENCY", "DEFAULT_MAX_REPAIR_ATTEMPTS", "chunk_text_agentic"]
