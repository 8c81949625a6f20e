"""Step 5: turn the grouping reply into typed chunks (seed 002's NormaliseAgenticOutput)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import ReplyParseError
from .._models import (
    UNKNOWN_DOCUMENT_ID,
    AgenticChunk,
    AgenticResponse,
)
from .._shown import quote, quote_list
from .._warning import SKIPPED_ENTRY, PipelineWarning
from ._parse import load_json_array


@dataclass(frozen=True, slots=True)
class ThemeGroup:
    """One entry of a grouping reply: a category and its facts, in reply order."""

    category: str
    facts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GroupingReply:
    """A parsed grouping reply: the usable groups and, for each skipped entry, why."""

    groups: tuple[ThemeGroup, ...]
    skipped: tuple[str, ...]
    skipped_entries: tuple[tuple[int, str], ...] = ()
    """Each skipped entry as ``(position, reason)``, 1-based, for structured warnings."""


def parse_grouping(raw: str | None, *, propositions: Sequence[str] | None = None) -> GroupingReply:
    """Read a grouping reply ``[{"category": str, "facts": [str, ...]}, ...]``.

    With ``propositions`` (the numbered list the grouping prompt showed, numbered from 1),
    an entry may give ``"fact_ids": [1, 3]`` instead of ``facts``. Entries without a
    category, without facts, or with no non-blank fact are skipped, each with its reason
    in ``skipped``. Raises ReplyParseError when the reply is not a JSON array, or when no
    entry is usable.
    """
    entries = load_json_array(raw)
    if not entries:
        raise ReplyParseError("the grouping reply is an empty array", raw=raw)
    groups: list[ThemeGroup] = []
    skipped: list[tuple[int, str]] = []
    for position, entry in enumerate(entries, start=1):
        group = _read_entry(entry, propositions)
        if isinstance(group, str):
            skipped.append((position, group))
        else:
            groups.append(group)
    lines = tuple(_skip_line(position, reason) for position, reason in skipped)
    if not groups:
        raise ReplyParseError(
            "no entry of the grouping reply is usable (" + quote_list(lines) + ")", raw=raw
        )
    return GroupingReply(groups=tuple(groups), skipped=lines, skipped_entries=tuple(skipped))


def _skip_line(position: int, reason: str) -> str:
    return f"entry {position} skipped: {reason}"


@dataclass(frozen=True, slots=True)
class NumberedGroup:
    """One entry of a grouping reply read as numbers (grouping-v2 and the window merge).

    ``ids`` are 1-based, exactly as the reply gave them: they may be repeated or out of
    range (the partition check names those). ``unknown`` holds facts the reply gave as text
    (grouping-v1 shape) that match no listed proposition after whitespace normalisation.
    """

    category: str
    ids: tuple[int, ...]
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NumberedReply:
    """A grouping reply read as numbers: the usable groups and, per skipped entry, why."""

    groups: tuple[NumberedGroup, ...]
    skipped: tuple[str, ...]


def parse_numbered_grouping(
    raw: str | None, *, propositions: Sequence[str], key: str = "fact_ids"
) -> NumberedReply:
    """Read ``[{"category": str, key: [int, ...]}, ...]`` against a numbered list.

    ``propositions`` is the list the prompt numbered from 1. An entry may instead give
    ``"facts"`` as texts (the v1 shape): each is mapped to its number by whitespace-
    normalised equality, the rest kept in ``unknown``. Numbers are not range-checked here.
    Entries without a category or without a list of whole numbers are skipped, with the
    reason in ``skipped``. Raises ReplyParseError when the reply is not a JSON array or no
    entry is usable.
    """
    entries = load_json_array(raw)
    if not entries:
        raise ReplyParseError("the grouping reply is an empty array", raw=raw)
    numbers = {" ".join(p.split()): n for n, p in enumerate(propositions, 1)}
    groups: list[NumberedGroup] = []
    skipped: list[str] = []
    for position, entry in enumerate(entries, start=1):
        group = _read_numbered(entry, key, numbers)
        if isinstance(group, str):
            skipped.append(f"entry {position} skipped: {group}")
        else:
            groups.append(group)
    if not groups:
        raise ReplyParseError(
            "no entry of the grouping reply is usable (" + quote_list(skipped) + ")", raw=raw
        )
    return NumberedReply(groups=tuple(groups), skipped=tuple(skipped))


def _read_numbered(entry: Any, key: str, numbers: dict[str, int]) -> NumberedGroup | str:
    if not isinstance(entry, dict):
        return f"{quote(json.dumps(entry), limit=60)} is not an object with category and {key}"
    category = entry.get("category")
    if not isinstance(category, str) or not category.strip():
        return "no category"
    label = category.strip()
    if key in entry:
        ids = entry[key]
        if not isinstance(ids, list) or not ids or not all(_is_whole(i) for i in ids):
            return f"{key} of {quote(label)!r} is not a non-empty list of whole numbers"
        return NumberedGroup(category=label, ids=tuple(ids))
    facts = entry.get("facts")
    if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
        return f"{quote(label)!r} has no {key}"
    texts = [" ".join(f.split()) for f in facts if f.strip()]
    if not texts:
        return f"{quote(label)!r} has no {key}"
    return NumberedGroup(
        category=label,
        ids=tuple(numbers[t] for t in texts if t in numbers),
        unknown=tuple(t for t in texts if t not in numbers),
    )


def _read_entry(entry: Any, propositions: Sequence[str] | None) -> ThemeGroup | str:
    """Return the group, or the reason the entry cannot be used."""
    if not isinstance(entry, dict):
        return f"{quote(json.dumps(entry), limit=60)} is not an object with category and facts"
    category = entry.get("category")
    if not isinstance(category, str) or not category.strip():
        return "no category"
    if "facts" in entry:
        facts = entry["facts"]
        if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
            return f"facts of {quote(category)!r} is not a list of strings"
    elif "fact_ids" in entry:
        resolved = _resolve_ids(entry["fact_ids"], propositions)
        if isinstance(resolved, str):
            return f"{quote(category)!r}: {resolved}"
        facts = resolved
    else:
        return f"{quote(category)!r} has no facts"
    kept = tuple(f.strip() for f in facts if f.strip())
    if not kept:
        return f"{quote(category)!r} has no facts"
    return ThemeGroup(category=category.strip(), facts=kept)


def _resolve_ids(ids: Any, propositions: Sequence[str] | None) -> list[str] | str:
    if propositions is None:
        return "fact_ids given but no numbered proposition list to resolve them against"
    if not isinstance(ids, list) or not all(_is_whole(i) for i in ids):
        return "fact_ids is not a list of whole numbers"
    out_of_range = [i for i in ids if not 1 <= i <= len(propositions)]
    if out_of_range:
        return f"fact_ids {out_of_range} are outside 1..{len(propositions)}"
    return [propositions[i - 1] for i in ids]


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def normalise_agentic_output(
    raw: str | None,
    document_id: str | None,
    *,
    propositions: Sequence[str] | None = None,
) -> AgenticResponse:
    """Map a grouping reply to an AgenticResponse (seed 002's contract).

    Chunk ids are ``{document_id}-{seq:04d}`` from 1, in reply order; an empty or missing
    document id becomes ``DOC-UNKNOWN``. A reply that is empty, not JSON, not an array,
    ``[]``, or without any usable entry gives ``is_success`` false, no chunks and an
    ``error_detail`` saying why. Skipped entries are kept as ``warnings``. Never raises.
    """
    doc = document_id.strip() if document_id and document_id.strip() else UNKNOWN_DOCUMENT_ID
    try:
        reply = parse_grouping(raw, propositions=propositions)
    except ReplyParseError as error:
        return AgenticResponse.failure(f"the grouping reply could not be parsed: {error.reason}")
    chunks = tuple(
        AgenticChunk.from_propositions(
            document_id=doc, seq=seq, thematic_category=group.category, propositions=group.facts
        )
        for seq, group in enumerate(reply.groups, start=1)
    )
    warnings = tuple(
        PipelineWarning(
            SKIPPED_ENTRY, _skip_line(position, reason), {"entry": position, "reason": reason}
        )
        for position, reason in reply.skipped_entries
    )
    return AgenticResponse(chunks=chunks, warnings=warnings)
