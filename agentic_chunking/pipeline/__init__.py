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

from ._batches import plan_batches as plan_batches
from ._parse import parse_propositions as parse_propositions
from ._partition import normalise_space as normalise_space
from ._prompts import PROMPT_VERSIONS as PROMPT_VERSIONS
from ._prompts import extraction_user_message as extraction_user_message
from ._prompts import load_prompt as load_prompt
from ._run import DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_REPAIR_ATTEMPTS, chunk_text_agentic

__all__ = ["DEFAULT_MAX_CONCURRENCY", "DEFAULT_MAX_REPAIR_ATTEMPTS", "chunk_text_agentic"]
