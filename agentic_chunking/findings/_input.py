"""What ``check`` accepts as a chunked output, validated before any rule runs.

``validate_input`` checks the shape and the types of the JSON ``chunk`` writes and the
documented limits, and raises InputError with one line naming the field, the chunk (by its
ChunkId when it has one, else by its place) and the way out. Only then are the chunks read
and the rules run, so a wrong type is never reported as a mismatch nor checked one
character at a time, and no rule meets an input larger than the limits.

The model is the published schema's (``agentic_chunking._schema``: ``ResponseRecord``
and the records in it) as every reader of a response takes it, ``_schema.response_reading``
(``AgenticResponse.from_dict`` too): every field keeps its published type
(in strict mode: a number is never taken for a string, a string never for a list), but
only the fields every reader needs must be present (``CHECK_NEEDS``, ``READ_NEEDS``), others
may be missing or null, unknown fields are allowed; the stored figures are then checked
against the propositions by ``from_dict``. The one constraint added is the limit on a
proposition's length. A refusal's line is ``_schema.describe_problem``'s, as in every
reader, after the chunk's place.

Limits (documented in the failures page): a file of at most ``MAX_FILE_BYTES``; a
proposition of at most ``MAX_PROPOSITION_CHARS`` characters (a proposition is one sentence;
the rules' work grows with its length).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, StringConstraints, ValidationError

from .._errors import InputError
from .._schema import READ_NEEDS, describe_problem, response_reading
from .._shown import quote

MAX_FILE_BYTES = 20 * 1024 * 1024
"""The largest chunked output ``check`` reads: 20 MB."""
MAX_PROPOSITION_CHARS = 10_000
"""The longest proposition ``check`` accepts: 10,000 characters."""
CHECK_NEEDS = READ_NEEDS
"""The fields of a chunk the rules read: the only ones ``check`` requires."""

Proposition = Annotated[str, StringConstraints(max_length=MAX_PROPOSITION_CHARS)]
_Propositions = Annotated[list[Proposition], Field(min_length=1)]


_Output = response_reading(_Propositions)
"""The response as every reader takes it (``_schema.response_reading``), a proposition's
length bounded."""


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
    if kind == "string_too_long" and location and location[0] == "Propositions":
        item = next((p for p in location[1:] if isinstance(p, int)), 0)
        length = len(error["input"]) if isinstance(error["input"], str) else 0
        return (
            f"{where}proposition {item + 1} has {length:,} characters, over the limit "
            f"of {MAX_PROPOSITION_CHARS:,} for one proposition; a proposition is one sentence"
        )
    return f"{where}{describe_problem({**error, 'loc': tuple(location)})}"
