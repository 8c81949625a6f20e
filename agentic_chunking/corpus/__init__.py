"""The corpus layer: many documents through the one per-document pipeline.

- ``_documents``: a corpus on disk (a folder of text files, JSONL, Parquet), scanned once
  for bad records and duplicate ids before any call, then streamed in input order;
- ``_run``: ``process_document`` (the one per-document function every engine calls:
  threads here, the batch path, Ray, with one ``pipeline.PipelineOptions``) and
  ``chunk_corpus`` (concurrent, input order kept, resume by document through the ledger,
  which keeps the options' ``options_sha256``);
- ``_job``: ``CorpusRun``, a whole run as the ``corpus`` command asks for it (its client,
  lock, reply cache and ledger, the batches an earlier run left, the engine, OUT written)
  and ``plan_corpus`` (its ``--dry-run``), with records for every outcome and nothing
  printed;
- ``_ledger``: the SQLite ledger of finished documents and submitted batches, and the
  ``RunLock`` that keeps a second run off it;
- ``_outputs``: JSONL or Parquet output, written atomically;
- ``_split``: ``split_corpus``, Level 4 over the same inputs (one embedder for the run,
  resume by document through the ledger), and ``split_corpus_to``, the whole run that
  writes the Level 4 records ``corpus`` reads (``SplitRun``: what it did);
- ``_fallback``: the replies a run kept in a temporary folder when its reply cache was
  full, taken back by the next run on that cache.

May import: the root's shared modules, ``client``, ``checks``, ``semantic``, ``pipeline``;
never report, judge, suite or cli.
"""

from ._documents import JSONL_SUFFIXES as JSONL_SUFFIXES
from ._documents import NOT_TEXT as NOT_TEXT
from ._documents import PARQUET_SUFFIXES as PARQUET_SUFFIXES
from ._documents import CorpusDocument as CorpusDocument
from ._documents import CorpusSource as CorpusSource
from ._documents import Scan as Scan
from ._documents import file_document as file_document
from ._documents import open_corpus
from ._fallback import mark_fallback as mark_fallback
from ._fallback import take_back as take_back
from ._job import BATCH_CONCURRENCY as BATCH_CONCURRENCY
from ._job import BatchNote as BatchNote
from ._job import BatchSettings as BatchSettings
from ._job import CorpusJob as CorpusJob
from ._job import CorpusOutcome as CorpusOutcome
from ._job import CorpusPlan as CorpusPlan
from ._job import CorpusRun as CorpusRun
from ._job import CorpusTotals as CorpusTotals
from ._job import plan_corpus as plan_corpus
from ._ledger import Ledger, LedgerError
from ._ledger import RunLock as RunLock
from ._outputs import OUTPUT_SUFFIXES as OUTPUT_SUFFIXES
from ._outputs import OutputWriter as OutputWriter
from ._outputs import check_output_suffix as check_output_suffix
from ._outputs import output_records as output_records
from ._outputs import publish_failures as publish_failures
from ._outputs import read_records
from ._run import DocumentResult, chunk_corpus, process_document
from ._split import DEFAULT_CHUNK_PREFIX as DEFAULT_CHUNK_PREFIX
from ._split import SplitRun as SplitRun
from ._split import chunk_record as chunk_record
from ._split import short_overlaps as short_overlaps
from ._split import split_corpus
from ._split import split_corpus_to as split_corpus_to

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "DocumentResult",
    "Ledger",
    "LedgerError",
    "chunk_corpus",
    "open_corpus",
    "process_document",
    "read_records",
    "split_corpus",
]
