"""What ``check`` accepts as a chunked output, validated before any rule runs.

``validate_input`` checks the shape and the types of the JSON ``chunk`` writes (pydantic
models in strict mode: a number is never taken for a string, a string never for a list)
and the documented limits, and raises InputError with one line naming the field, the
chunk (by its ChunkId when it has one, else by its place) and the way out. Only then are
the chunks read and the rules run, so a wrong type is never reported as a mismatch nor
checked one character at a time, and no rule meets an input larger than the limits.

Limits (documented in the failures page): a file of at most ``MAX_FILE_BYTES``; a
proposition of at most ``MAX_PROPOSITION_CHARS`` characters (a proposition is one sentence;
the rules' work grows with its length).

The models here mirror the output's published schema (``schemas/agentic-response.v1.json``
once it lands): replace them with a validation against that schema when it does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from .._errors import InputError
from .._shown import quote

MAX_FILE_BYTES = 20 * 1024 * 1024
"""The largest chunked output ``check`` reads: 20 MB."""
MAX_PROPOSITION_CHARS = 10_000
"""The longest proposition ``check`` accepts: 10,000 characters."""

Proposition = Annotated[str, StringConstraints(max_length=MAX_PROPOSITION_CHARS)]


class _Chunk(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")

    ChunkId: str
    DocumentId: str
    ThematicCategory: str
    Propositions: list[Proposition]
    SourceChunkIds: list[str] = []
    MergedContent: str | None = None
    PropositionCount: int | None = None
    CharacterCount: int | None = None
    TokenEstimate: int | None = None
    Hash: str | None = None


class _Output(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")

    Chunks: list[_Chunk]
    IsSuccess: bool = True
    ErrorDetail: str | None = None
    TotalChunks: int | None = None
    TotalPropositions: int | None = None
    Warnings: list[dict[str, Any]] = []
    Usage: dict[str, Any] | None = None
    FailedBatches: list[int] = []


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


def validate_input(data: Any, path: Path) -> None:
    """Raise InputError (one line: the file, the chunk, the field, what it must be) unless
    ``data`` has the shape and types of a chunked output within the limits."""
    try:
        _Output.model_validate(data)
    except ValidationError as invalid:
        raise InputError(f"{path}: {_first_problem(invalid, data)}") from None


def _first_problem(invalid: ValidationError, data: Any) -> str:
    error = invalid.errors(include_url=False)[0]
    location = list(error["loc"])
    kind = error["type"]
    where = ""
    if len(location) >= 2 and location[0] == "Chunks" and isinstance(location[1], int):
        index = location[1]
        chunk = data["Chunks"][index]
        chunk_id = chunk.get("ChunkId") if isinstance(chunk, dict) else None
        name = f"{quote(chunk_id, limit=80)!r}" if isinstance(chunk_id, str) else "(no ChunkId)"
        where = f"chunk {index + 1} {name}: "
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
