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

Beside them: ``_options`` (``PipelineOptions``, every setting of a run in one frozen
record, and ``options_sha256``, the settings hash the corpus ledger keeps), ``_plan`` (what
a run would do, for ``--dry-run``, and its progress) and ``_notes`` (the pipeline's
warnings as records), ``_outcome`` (a run as a record of how it ended, ``done``,
``failed`` or ``stopped``, for ``chunk`` and ``corpus``) and ``_input_file`` (a document
or a chunk-list file as input chunks). May import: the root's shared modules,
``client`` and ``checks`` (the certain-duplicate relation); never judge, suite, report
or cli.
"""

from ._batches import Batch as Batch
from ._batches import plan_batches as plan_batches
from ._cache import FALLBACK_PREFIX as FALLBACK_PREFIX
from ._cache import UNPARSED_SUFFIX as UNPARSED_SUFFIX
from ._cache import ReplyCache as ReplyCache
from ._conversation import CallSettings as CallSettings
from ._conversation import Outcome as Outcome
from ._conversation import converse as converse
from ._document import paragraph_inputs as paragraph_inputs
from ._input_file import JSON_SUFFIXES as JSON_SUFFIXES
from ._input_file import TEXT_SUFFIXES as TEXT_SUFFIXES
from ._input_file import YAML_SUFFIXES as YAML_SUFFIXES
from ._input_file import InputFile as InputFile
from ._input_file import input_file as input_file
from ._normalise import GroupingReply as GroupingReply
from ._normalise import ThemeGroup as ThemeGroup
from ._normalise import normalise_agentic_output as normalise_agentic_output
from ._normalise import parse_grouping as parse_grouping
from ._options import DEFAULT_EXTRACTION_MAX_TOKENS as DEFAULT_EXTRACTION_MAX_TOKENS
from ._options import DEFAULT_GROUPING_MAX_TOKENS as DEFAULT_GROUPING_MAX_TOKENS
from ._options import DEFAULT_MAX_CHUNK_TOKENS as DEFAULT_MAX_CHUNK_TOKENS
from ._options import DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_REPAIR_ATTEMPTS, PipelineOptions
from ._options import RECORD_FORMAT as RECORD_FORMAT
from ._options import equivalent_sha256s as equivalent_sha256s
from ._options import options_sha256 as options_sha256
from ._outcome import ChunkOutcome as ChunkOutcome
from ._outcome import chunk_outcome as chunk_outcome
from ._parse import load_json_array as load_json_array
from ._parse import parse_propositions as parse_propositions
from ._parse import parse_propositions_strict as parse_propositions_strict
from ._partition import normalise_space as normalise_space
from ._plan import ProgressEvent as ProgressEvent
from ._plan import RunPlan as RunPlan
from ._plan import plan_run as plan_run
from ._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH as DEFAULT_MAX_TOKENS_PER_BATCH
from ._prechunk import pre_chunk_for_extraction as pre_chunk_for_extraction
from ._prompts import EXTRACTION_SHAPE as EXTRACTION_SHAPE
from ._prompts import PROMPT_VERSIONS as PROMPT_VERSIONS
from ._prompts import extraction_user_message as extraction_user_message
from ._prompts import load_prompt as load_prompt
from ._run import chunk_text_agentic

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MAX_REPAIR_ATTEMPTS",
    "PipelineOptions",
    "chunk_text_agentic",
]
