"""What ``check`` accepts as a chunked output, validated before any rule runs.

``validate_input`` checks the shape and the types of the JSON ``chunk`` writes and the
documented limits, and raises InputError with one line naming the field, the chunk (by its
ChunkId when it has one, else by its place) and the way out. Only then are the chunks read
and the rules run, so a wrong type is never reported as a mismatch nor checked one
character at a time, and no rule meets an input larger than the limits.

The models are the published schema's (``adapters._schema``: ``ResponseRecord`` and the
records in it), made tolerant by ``tolerant_model``: every field keeps its published type
(in strict mode: a number is never taken for a string, a string never for a list), but
only the fields the rules read must be present (``CHECK_NEEDS``), others may be missing or
null, unknown fields are allowed, and the published value constraints (id patterns, the
hash's form, counts) are not enforced: ``check`` reads other tools' outputs with the same
names, and older ones. The one constraint added is the limit on a proposition's length.

Limits (documented in the failures page): a file of at most ``MAX_FILE_BYTES``; a
proposition of at most ``MAX_PROPOSITION_CHARS`` characters (a proposition is one sentence;
the rules' work grows with its length).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError, create_model

from .._errors import InputError
from .._shown import quote
from ..adapters._schema import (
    CallRecord,
    ChunkRecord,
    ExtractedRecord,
    ResponseRecord,
    UsageRecord,
    WarningRecord,
)

MAX_FILE_BYTES = 20 * 1024 * 1024
"""The largest chunked output ``check`` reads: 20 MB."""
MAX_PROPOSITION_CHARS = 10_000
"""The longest proposition ``check`` accepts: 10,000 characters."""
CHECK_NEEDS = ("ChunkId", "DocumentId", "ThematicCategory", "Propositions")
"""The fields of a chunk the rules read: the only ones ``check`` requires."""

Proposition = Annotated[str, StringConstraints(max_length=MAX_PROPOSITION_CHARS)]


def tolerant_model(
    model: type[BaseModel],
    *,
    required: Collection[str] = (),
    types: Mapping[str, Any] | None = None,
) -> type[BaseModel]:
    """``model``'s fields with their published types (or those of ``types``, by name), in
    strict mode, without their value constraints: the fields of ``required`` must be
    present, every other may be missing or null; fields ``model`` does not name are
    allowed."""
    replaced = types or {}
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = replaced.get(name, info.annotation)
        fields[name] = (annotation, ...) if name in required else (annotation | None, None)
    tolerant: type[BaseModel] = create_model(
        f"Checked{model.__name__}",
        __config__=ConfigDict(strict=True, extra="allow"),
        **fields,
    )
    return tolerant


_Chunk = tolerant_model(
    ChunkRecord, required=CHECK_NEEDS, types={"Propositions": list[Proposition]}
)
_Warning = tolerant_model(WarningRecord)
_Call = tolerant_model(CallRecord)
_Extracted = tolerant_model(ExtractedRecord)
_Usage = tolerant_model(UsageRecord, types={"Calls": list[_Call]})  # type: ignore[valid-type]
_Output = tolerant_model(
    ResponseRecord,
    required=("Chunks",),
    types={
        "Chunks": list[_Chunk],  # type: ignore[valid-type]
        "Warnings": list[_Warning],  # type: ignore[valid-type]
        "Usage": _Usage,
        "Extracted": list[_Extracted],  # type: ignore[valid-type]
    },
)


_TYPES = {
    "string_type": "a string",
    "list_type": "a list",
    "int_type": "a whole number",
    "bool_type": "true or false",
    "dict_type": "an object",
    "model_type": "an object",
}


def check_file_size(path: Path) -> None:
    """InputError, before the file is read, when ``path`` is over ``MAX_FILE_BYTES``."""
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError:
        return  # the reading step names what is wrong with the path
    if size > MAX_FILE_BYTES:
        raise InputError(
            f"{path}: {size:,} bytes, over the limit of {MAX_FILE_BYTES:,} bytes "
            f"({MAX_FILE_BYTES // (1024 * 1024)} MB) for one chunked output; check the "
            "outputs of a large document one part at a time"
        )


def validate_input(text: str, data: Any, path: Path) -> None:
    """Raise InputError (one line: the file, the chunk, the field, what it must be) unless
    ``text``, the JSON of ``data``, has the shape and types of a chunked output within the
    limits. Validated as JSON, as the published schema describes it (a span is a JSON
    array of two offsets)."""
    try:
        _Output.model_validate_json(text)
    except ValidationError as invalid:
        raise InputError(f"{path}: {_first_problem(invalid, data)}") from None


def validate_record(record: dict[str, Any], place: str, path: Path) -> None:
    """Raise InputError (one line: the file, the place, the chunk, the field) unless
    ``record``, one record of a corpus output (``place``: ``line N`` or ``row N``), is a
    chunk with the shape, types and limits of one in a chunked output."""
    data = {"Chunks": [record]}
    try:
        _Output.model_validate_json(json.dumps(data, ensure_ascii=False))
    except ValidationError as invalid:
        raise InputError(f"{path}: {_first_problem(invalid, data, place=place)}") from None


def _first_problem(invalid: ValidationError, data: Any, *, place: str | None = None) -> str:
    error = invalid.errors(include_url=False)[0]
    location = list(error["loc"])
    kind = error["type"]
    where = ""
    if len(location) >= 2 and location[0] == "Chunks" and isinstance(location[1], int):
        index = location[1]
        chunk = data["Chunks"][index]
        chunk_id = chunk.get("ChunkId") if isinstance(chunk, dict) else None
        name = f"{quote(chunk_id, limit=80)!r}" if isinstance(chunk_id, str) else "(no ChunkId)"
        where = f"chunk {index + 1} {name}: " if place is None else f"{place} (chunk {name}): "
        location = location[2:]
    field = str(location[0]) if location else "the chunk"
    item = next((p for p in location[1:] if isinstance(p, int)), None)
    if kind == "missing":
        return f"{where}lacks the field {field!r}; give the JSON 'chunk' writes"
    if kind == "string_too_long" and field == "Propositions":
        length = len(error["input"]) if isinstance(error["input"], str) else 0
        return (
            f"{where}proposition {(item or 0) + 1} has {length:,} characters, over the limit "
            f"of {MAX_PROPOSITION_CHARS:,} for one proposition; a proposition is one sentence"
        )
    got = _kind_of(error.get("input"))
    wanted = _TYPES.get(kind, "another type")
    if field in ("Propositions", "SourceChunkIds", "Chunks", "FailedBatches", "Warnings"):
        member = "strings" if field != "FailedBatches" else "whole numbers"
        if field in ("Chunks", "Warnings"):
            member = "objects"
        place = f": item {item + 1} is {got}" if item is not None else f", not {got}"
        return f"{where}{field} must be a list of {member}{place}; give the JSON 'chunk' writes"
    if len(location) > 1:  # inside the field: a span's offset, a call of Usage
        return f"{where}{field} holds {got} where {wanted} belongs; give the JSON 'chunk' writes"
    return f"{where}{field} must be {wanted}, not {got}; give the JSON 'chunk' writes"


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return f"the number {quote(str(value), limit=40)}"
    if isinstance(value, str):
        return f"the string {quote(value, limit=60)!r}"
    if isinstance(value, list):
        return f"a list of {len(value):,} items"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
