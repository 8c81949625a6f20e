"""``PipelineOptions``: every setting of the per-document pipeline, in one frozen record.

``chunk_text_agentic``, ``chunk``, ``corpus`` (its threads, ``--batch`` and Ray), the
suite's runner and the adapters all take this one record, so what ran is what a record
says. Two kinds of field:

- what decides a document's chunks (``OUTPUT_FIELDS``: the model, the batch limit, the
  two ``max_tokens``, the chunk size limit, the repair turns), hashed by
  ``options_sha256`` for the corpus ledger: a document is skipped only when it was done
  with the same hash;
- how the calls are made (``max_concurrency``, ``max_retries``, ``timeout``,
  ``base_url``), which change no chunk at temperature 0 and are not hashed.

``options_sha256`` is the one settings hash (the reply cache keys each request, not the
settings: ``_cache.request_key``). The hash of a set of settings is what the ledger stored
before this record existed (the same JSON payload, byte for byte), so existing ledgers
resume; a ledger entry written with no chunk size limit named (the library's
``CorpusSettings`` left it None, meaning the default) is read as equivalent to the
default (``equivalent_sha256s``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from .._errors import InputError
from ..client import DEFAULT_MAX_RETRIES, canonical_sha256, check_max_tokens, resolve_model
from ._prechunk import DEFAULT_MAX_TOKENS_PER_BATCH
from ._prompts import PROMPT_VERSIONS

DEFAULT_EXTRACTION_MAX_TOKENS = 8000
"""Room for the propositions of a full packed batch (2,000 tokens by default): the
reference replies give 1.26 output characters per input character (1.87 at most in one
batch), so 2,000 would cut a full batch. Output is billed as generated, not as allowed."""
DEFAULT_GROUPING_MAX_TOKENS = 4000
DEFAULT_MAX_CHUNK_TOKENS = 256
"""The size limit of an output chunk (``max_chunk_tokens``, ``--max-chunk-tokens``), in
``estimate_tokens`` (characters // 4): a chunk an embedder reads whole. all-MiniLM-L6-v2,
the embedder of ``evaluate`` and Level 4 (``semantic.MiniLMEmbedder.max_seq_length``), reads
256 word pieces; English prose runs 4.3 to 4.8 characters a word piece (Chroma's corpora
in ``evaluate/data``), so 256 tokens of 4 characters are 215 to 240 word pieces, read whole,
where the rest of a longer chunk is never embedded. The Level 4 splitter's limit is the
same (``semantic._splitter.ADAPTIVE_MAX_TOKENS``). It was the batch limit, 2,000, before."""
DEFAULT_MAX_CONCURRENCY = 4
DEFAULT_MAX_REPAIR_ATTEMPTS = 1
RECORD_FORMAT = 1
"""The version of an output record's layout, part of the settings hash: a new layout redoes
every document of a corpus (from the reply cache, at no cost)."""

OUTPUT_FIELDS = (
    "model",
    "max_tokens_per_batch",
    "extraction_max_tokens",
    "grouping_max_tokens",
    "max_chunk_tokens",
    "max_repair_attempts",
)
"""The fields that decide a document's chunks: the ones ``options_sha256`` hashes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PipelineOptions:
    """Every setting of one run of the pipeline over a document (see the module).

    ``model``: the model id, else ``$AGENTIC_CHUNKING_MODEL``, else DEFAULT_MODEL
    (``openai:<name>`` is a model of an OpenAI-compatible server); ``resolved()`` fixes it.
    ``max_tokens_per_batch``: the token limit of one extraction batch.
    ``extraction_max_tokens``, ``grouping_max_tokens``: ``max_tokens`` of those calls (one a
    non-streaming call may ask for: ``check``). ``max_chunk_tokens``: no output chunk above
    it (a theme above it is written in parts; one proposition above it fails the run).
    ``max_repair_attempts``: repair turns after an unreadable reply. ``max_concurrency``:
    calls of one document in flight at once. ``max_retries``, ``timeout`` (seconds per
    attempt; None: ``$AGENTIC_CHUNKING_TIMEOUT``, else 120) and ``base_url`` (replaces the
    provider's base URL variable) configure a client built for the run; a client given to
    the run keeps its own.
    """

    model: str | None = None
    max_tokens_per_batch: int = DEFAULT_MAX_TOKENS_PER_BATCH
    extraction_max_tokens: int = DEFAULT_EXTRACTION_MAX_TOKENS
    grouping_max_tokens: int = DEFAULT_GROUPING_MAX_TOKENS
    max_chunk_tokens: int = DEFAULT_MAX_CHUNK_TOKENS
    max_repair_attempts: int = DEFAULT_MAX_REPAIR_ATTEMPTS
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    max_retries: int = DEFAULT_MAX_RETRIES
    timeout: float | None = None
    base_url: str | None = None

    @property
    def model_id(self) -> str:
        """The model a run uses: ``model``, else ``$AGENTIC_CHUNKING_MODEL``, else the
        default, in canonical form (``client.resolve_model``)."""
        return resolve_model(self.model)

    def resolved(self) -> PipelineOptions:
        """These options with ``model`` resolved (the argument, else the variable, else the
        default; canonical form): what a run uses and what the hash describes."""
        return replace(self, model=self.model_id)

    def check_values(self) -> None:
        """InputError naming the first limit below what a run can work with."""
        for name, value in (
            ("max_chunk_tokens", self.max_chunk_tokens),
            ("max_concurrency", self.max_concurrency),
            ("extraction_max_tokens", self.extraction_max_tokens),
            ("grouping_max_tokens", self.grouping_max_tokens),
        ):
            if value < 1:
                raise InputError(f"{name} is {value}; expected a whole number of 1 or more")
        if self.max_repair_attempts < 0:
            raise InputError(
                f"max_repair_attempts is {self.max_repair_attempts}; expected 0 or more"
            )

    def check(self) -> None:
        """Raise InputError when no call could be made with these options (a max_tokens
        above what one non-streaming call to the model may ask for), naming the option: a
        run's fault, found before any document rather than failing each one."""
        check_max_tokens(
            self.model_id,
            extraction_max_tokens=self.extraction_max_tokens,
            grouping_max_tokens=self.grouping_max_tokens,
        )

    def sha256(self) -> str:
        """``options_sha256(self)``."""
        return options_sha256(self)

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON-ready data (to pass between processes: Ray's workers)."""
        return asdict(self)


def options_sha256(options: PipelineOptions) -> str:
    """The hex SHA-256 of what decides a document's chunks: the ``OUTPUT_FIELDS`` of
    ``options`` (its model resolved), the prompts' versions and the record format. The one
    settings hash of the package (the corpus ledger's); the same settings give the same
    hash the ledger stored before ``PipelineOptions`` (see the module)."""
    resolved = options.resolved()
    return _payload_sha256({name: getattr(resolved, name) for name in OUTPUT_FIELDS})


def equivalent_sha256s(options: PipelineOptions) -> frozenset[str]:
    """``options_sha256(options)``, and the hash an earlier release stored for the same
    settings: with the default chunk size limit, the library's ``CorpusSettings`` hashed
    ``max_chunk_tokens`` as None (the default, unnamed). A ledger entry with either is a
    document done with these options."""
    resolved = options.resolved()
    fields = {name: getattr(resolved, name) for name in OUTPUT_FIELDS}
    hashes = {_payload_sha256(fields)}
    if resolved.max_chunk_tokens == DEFAULT_MAX_CHUNK_TOKENS:
        hashes.add(_payload_sha256({**fields, "max_chunk_tokens": None}))
    return frozenset(hashes)


def _payload_sha256(fields: dict[str, Any]) -> str:
    """The settings hash of ``fields``: the payload the ledger has always hashed, as JSON
    with sorted keys and non-ASCII escaped (for ASCII settings, every model id a provider
    lists), through the client's one ``canonical_sha256``, so that a
    stored hash stays what it was."""
    payload = {
        **fields,
        "prompts": dict(sorted(PROMPT_VERSIONS.items())),
        "record_format": RECORD_FORMAT,
    }
    return canonical_sha256(payload, compact=False, ensure_ascii=True)
