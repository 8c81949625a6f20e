"""A pipeline warning as a record: its kind, the readable message and the data.

``AgenticResponse.warnings`` holds these; the report groups them by ``kind``, and
``PipelineWarning.of`` reads the plain lines older result files hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

EMPTY_INPUT = "empty_input"
"""An input chunk with no text: it gives no batch. Data: ``chunk_id``."""
NO_PROPOSITION = "no_proposition"
"""A batch whose reply is an empty array. Data: ``batch``, ``chunk_ids`` (its input chunks)."""
DUPLICATE_MERGED = "duplicate_merged"
"""A copy merged before grouping (certainly the same fact). Data: ``kept``, ``dropped``,
``chunk_ids`` (of the copy), ``kept_from`` (first source of the kept one), ``how``
("repeated" or "certain")."""
POSSIBLE_DUPLICATE = "possible_duplicate"
"""Two propositions that may state one fact, both kept. Data: ``proposition``,
``original``, ``relation`` ("reworded_duplicate" or "contained_duplicate")."""
SKIPPED_ENTRY = "skipped_entry"
"""A grouping reply entry that could not be used. Data: ``entry`` (1-based), ``reason``."""
OVERSIZED_CHUNK = "oversized_chunk"
"""An output chunk whose token estimate is above the size limit (``max_chunk_tokens``,
by default the extraction batch limit). Data: ``chunk_id``, ``tokens``, ``limit``,
``category``. Only in files written before the limit was enforced (a theme above it is
now split, :data:`SPLIT_THEME`)."""
SPLIT_THEME = "split_theme"
"""A theme above the size limit (``max_chunk_tokens``) written as consecutive parts.
Data: ``category``, ``tokens`` (the whole theme's estimate), ``limit``, ``chunk_ids``
(of its parts, in order)."""
UNALIGNED_PROPOSITION = "unaligned_proposition"
"""A proposition no sentence of its input chunk(s) states (its ``PropositionSpans``
entry is empty). Data: ``proposition``, ``chunk_ids``."""
NO_SOURCE_OFFSETS = "no_source_offsets"
"""Input chunks without ``start`` offsets in a document of several chunks: their
propositions get no span. Data: ``chunk_ids``."""
OTHER_WARNING = "other"
"""A warning of no known kind (e.g. read from an old file)."""
WARNING_KINDS: tuple[str, ...] = (
    DUPLICATE_MERGED,
    POSSIBLE_DUPLICATE,
    EMPTY_INPUT,
    NO_PROPOSITION,
    SKIPPED_ENTRY,
    SPLIT_THEME,
    UNALIGNED_PROPOSITION,
    NO_SOURCE_OFFSETS,
    OVERSIZED_CHUNK,
    OTHER_WARNING,
)
"""Every pipeline warning kind, in the order the report lists them."""

# How lines of files written before warnings were records are read back: kind by wording.
_LEGACY_WORDING: tuple[tuple[str, str], ...] = (
    ("duplicate merged before grouping", DUPLICATE_MERGED),
    ("input chunk ", EMPTY_INPUT),
    (" gave no proposition", NO_PROPOSITION),
    ("entry ", SKIPPED_ENTRY),
)


@dataclass(frozen=True, slots=True)
class PipelineWarning:
    """Something the pipeline noticed that did not fail the run: a ``kind`` (one of
    ``WARNING_KINDS``), the readable ``message`` and the facts as ``data``.

    ``str()`` is the message. Serialised as ``{"Kind", "Message", "Data"}``.
    """

    kind: str
    message: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"Kind": self.kind, "Message": self.message, "Data": dict(self.data)}

    @classmethod
    def of(cls, value: PipelineWarning | str | Mapping[str, Any]) -> PipelineWarning:
        """Read a warning: a record, its dict form, or a plain line (an old file's form,
        whose kind is recognised by the pipeline's former wording, else ``other``)."""
        if isinstance(value, PipelineWarning):
            return value
        if isinstance(value, Mapping):
            return cls(
                kind=str(value.get("Kind") or OTHER_WARNING),
                message=str(value.get("Message", "")),
                data=dict(value.get("Data") or {}),
            )
        line = str(value)
        kind = next(
            (
                kind
                for phrase, kind in _LEGACY_WORDING
                if (line.startswith(phrase) if phrase[0] != " " else phrase in line)
            ),
            OTHER_WARNING,
        )
        return cls(kind=kind, message=line)
