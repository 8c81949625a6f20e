"""The published JSON Schemas of the output, generated from pydantic models of ``to_dict``.

``ChunkRecord`` mirrors ``AgenticChunk.to_dict()`` (one line of a corpus JSONL file) and
``ResponseRecord`` ``AgenticResponse.to_dict()`` (what ``chunk`` writes). The committed
files ``schemas/agentic-chunk.v1.json`` and ``schemas/agentic-response.v1.json`` are
``schema_text(...)`` of them (``python scripts/write_schemas.py`` rewrites them; a test
checks they are current). A version is never changed in place: a field removed or made
stricter is a new file (``v2``); a field added as optional is allowed in ``v1``.
The schemas describe what is written.

Reading (issue 42): every reader of a chunk record validates it through ``ChunkRecord`` too,
with ``chunk_problem``: ``AgenticChunk.from_dict`` (so the loaders and the corpus reader),
and ``check`` (``findings._input``, through ``tolerant_model`` and ``describe_problem``).
A reader takes a field in the published type only (strict: ``DocumentId: 7`` or a list as
``ThematicCategory`` is refused, never turned into a string) and at least one proposition;
it needs only ``READ_NEEDS`` (older files lack the later fields), allows null for a field
it does not need and fields it does not know. The other published value constraints are
``from_dict``'s: it checks every figure and ``Hash`` against the propositions (stricter
than the schema's bounds), a span's offsets and ``Part``. Each refusal is one line made by
``describe_problem``, the same in every reader.

Every reader of a response (what ``chunk`` writes) validates it through ``ResponseReading``
(``response_reading``: the same tolerance, each chunk as ``ChunkReading``, each call with
the fields ``CallUsage.from_dict`` reads), with ``response_problem``:
``AgenticResponse.from_dict`` (so the loaders and the results file's reader), ``check``
(``findings._input``) and the results file's schema (``report._schema``, for the response
each case keeps). An older file's forms still read there: a warning as its line alone, a
kept batch's one ``ChunkId``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    create_model,
    model_validator,
)
from pydantic_core import ErrorDetails

from ._files import write_text_atomic
from ._shown import quote

SCHEMA_VERSION = 1
CHUNK_SCHEMA_FILE = f"agentic-chunk.v{SCHEMA_VERSION}.json"
RESPONSE_SCHEMA_FILE = f"agentic-response.v{SCHEMA_VERSION}.json"

Offset = Annotated[int, Field(ge=0)]
Span = Annotated[
    tuple[Offset, Offset],
    Field(description="[start, end): Python str indices into the document's text"),
]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ChunkRecord(_Record):
    """One output chunk: ``AgenticChunk.to_dict()``; one line of a corpus JSONL file."""

    model_config = ConfigDict(title="AgenticChunk", extra="forbid", strict=True)

    ChunkId: str = Field(
        description="`{DocumentId}-{seq:04d}`, `seq` counting from 1 in output order "
        "(`notes-0001`)",
        pattern=r"-[0-9]{4,}$",
    )
    DocumentId: str = Field(
        description="the document's id: `--document-id`, else the input file's `document_id` "
        "(a chunk list's, or the one every item of `split`'s output shares), else its stem "
        "(`stdin` for `-`); `DOC-UNKNOWN` when none is known"
    )
    ThematicCategory: str = Field(
        description="the theme the model gave the group; every part of a split theme keeps it"
    )
    Propositions: list[str] = Field(
        description="the chunk's atomic, self-contained propositions, each stated once in the "
        "whole output (certain duplicates are merged before grouping)",
        min_length=1,
    )
    MergedContent: str = Field(description="the `Propositions` joined by one space, exactly")
    PropositionCount: int = Field(ge=1, description="the number of `Propositions`")
    CharacterCount: int = Field(
        ge=0,
        description="the length of `MergedContent` in characters (Python `len`, code points)",
    )
    TokenEstimate: int = Field(
        ge=0,
        description="the seed's estimate: `CharacterCount // 4`; never above the size limit "
        "(`--max-chunk-tokens`, by default 256)",
    )
    Hash: str = Field(
        pattern=r"^sha256-[0-9a-f]{64}$",
        description="`sha256-` followed by the hex SHA-256 of `MergedContent` encoded as UTF-8",
    )
    SourceChunkIds: list[str] = Field(
        description="the ids of the input chunks the propositions came from, in input order "
        "(for a packed batch, the chunk(s) whose sentences state each proposition; every id "
        "of the batch when nothing in it supports the proposition)"
    )
    PropositionChunkIds: list[list[str]] = Field(
        default_factory=list,
        description="one entry per proposition, in order: the input chunk id(s) it came "
        "from, in input order",
    )
    PropositionSpans: list[list[Span]] = Field(
        default_factory=list,
        description="one entry per proposition, in order: the `[start, end]` offsets in the "
        "document's text of each source sentence that states it (`text[start:end]` is the "
        "sentence); `[]` when none aligns (warning `unaligned_proposition`) or its input "
        "chunk has no offsets (warning `no_source_offsets`)",
    )
    Spans: list[Span] = Field(
        default_factory=list,
        description="the union of the `PropositionSpans`: sorted, overlapping spans merged",
    )
    PreviousChunkId: str | None = Field(
        default=None, description="the `ChunkId` before this one in output order; `null` first"
    )
    NextChunkId: str | None = Field(
        default=None, description="the `ChunkId` after this one in output order; `null` last"
    )
    Part: int | None = Field(
        default=None,
        ge=1,
        description="1-based part number when a theme above the size limit was written as "
        "consecutive chunks; `null` otherwise",
    )
    PartCount: int | None = Field(
        default=None, ge=2, description="how many parts the theme has; `null` when not split"
    )
    Metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="the document's metadata overlaid by that of the input chunks the "
        "propositions came from (input order, a later one wins); never invented; `{}` when "
        "none",
    )


class WarningRecord(_Record):
    """``PipelineWarning.to_dict()``."""

    Kind: str = Field(description="One of the warning kinds (`agentic_chunking._warning`)")
    Message: str = Field(description="The readable message")
    Data: dict[str, Any] = Field(description="The facts of the message, by kind")


class CallRecord(_Record):
    """``CallUsage.to_dict()``: one model call."""

    Stage: str
    Batch: int | None
    Model: str
    InputTokens: int = Field(ge=0)
    OutputTokens: int = Field(ge=0)
    StopReason: str | None
    LatencySeconds: float = Field(ge=0)
    Cached: bool = False
    CacheWriteTokens: int = Field(default=0, ge=0)
    CacheReadTokens: int = Field(default=0, ge=0)
    Batched: bool = False


class UsageRecord(_Record):
    """The tokens of every call of the run (prompt-cache totals only when there are any)."""

    InputTokens: int = Field(ge=0)
    OutputTokens: int = Field(ge=0)
    CacheWriteTokens: int = Field(default=0, ge=0)
    CacheReadTokens: int = Field(default=0, ge=0)
    Calls: list[CallRecord]


class ExtractedRecord(_Record):
    """``ExtractedBatch.to_dict()``: a batch's propositions kept on a failure."""

    Batch: int = Field(ge=1)
    ChunkIds: list[str]
    Propositions: list[str]


class ResponseRecord(_Record):
    """What ``chunk`` writes: ``AgenticResponse.to_dict()``."""

    model_config = ConfigDict(title="AgenticResponse", extra="forbid", strict=True)

    Chunks: list[ChunkRecord] = Field(description="The output chunks; [] on a failure")
    TotalChunks: int = Field(ge=0, description="len(Chunks)")
    TotalPropositions: int = Field(ge=0, description="Sum of PropositionCount")
    TotalTokenEstimate: int = Field(ge=0, description="Sum of TokenEstimate")
    IsSuccess: bool = Field(description="False when the run failed; then ErrorDetail says why")
    ErrorDetail: str = Field(description='"" on success')
    Warnings: list[WarningRecord] = Field(description="What was noticed but did not fail")
    Usage: UsageRecord = Field(description="Tokens of every model call, and the calls")
    Extracted: list[ExtractedRecord] = Field(
        default_factory=list, description="On a failure: the propositions extracted before it"
    )
    FailedBatches: list[int] = Field(
        default_factory=list, description="On a failure: the extraction batches that failed"
    )


def json_schema(model: type[BaseModel], file_name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``model``, with its ``$id`` ``file_name``."""
    schema = model.model_json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": file_name,
        **schema,
    }


def schema_text(model: type[BaseModel], file_name: str) -> str:
    """The committed text of a schema file: sorted keys, two-space indent, final newline."""
    return json.dumps(json_schema(model, file_name), indent=2, sort_keys=True) + "\n"


SCHEMAS: dict[str, type[BaseModel]] = {
    CHUNK_SCHEMA_FILE: ChunkRecord,
    RESPONSE_SCHEMA_FILE: ResponseRecord,
}
"""Every published schema file and the model it is generated from."""


def write_schemas(directory: Path) -> list[Path]:
    """Write every schema of ``SCHEMAS`` into ``directory`` (atomically); return the paths."""
    return [
        write_text_atomic(directory / name, schema_text(model, name))
        for name, model in SCHEMAS.items()
    ]


def field_table(model: type[BaseModel] = ChunkRecord) -> str:
    """A Markdown table of ``model``'s fields: name, JSON type, required, guarantee."""
    schema = model.model_json_schema(mode="serialization")
    required = set(schema.get("required", []))
    lines = ["| Field | Type | Required | Guarantee |", "| --- | --- | --- | --- |"]
    for name, info in model.model_fields.items():
        kind = _json_type(schema["properties"][name])
        needed = "yes" if name in required else "no"
        lines.append(f"| `{name}` | {kind} | {needed} | {info.description or ''} |")
    return "\n".join(lines) + "\n"


def _json_type(prop: dict[str, Any]) -> str:
    if "anyOf" in prop:
        return " or ".join(_json_type(p) for p in prop["anyOf"])
    if "$ref" in prop:
        return str(prop["$ref"]).rsplit("/", 1)[-1]
    kind = str(prop.get("type", "any"))
    if kind == "array" and "items" in prop:
        return f"array of {_json_type(prop['items'])}"
    if kind == "array" and "prefixItems" in prop:
        return "[start, end]"
    return kind


READ_NEEDS = ("ChunkId", "DocumentId", "ThematicCategory", "Propositions")
"""The fields of a chunk record every reader requires (``from_dict``, ``check``); the
others were added later and may be missing from an older file."""

GIVE = "give the JSON 'chunk' writes"
"""The way out every reader's refusal of a chunk record names."""


def tolerant_model(
    model: type[BaseModel],
    *,
    required: Collection[str] = (),
    types: Mapping[str, Any] | None = None,
    older: Callable[[Any], Any] | None = None,
) -> type[BaseModel]:
    """``model``'s fields with their published types (or those of ``types``, by name), in
    strict mode, without their value constraints: the fields of ``required`` must be
    present, every other may be missing or null; fields ``model`` does not name are
    allowed. ``older``, when given, reads an older file's form of the record as the
    current one before it is validated (the record itself is not changed; give it only to
    a record with no span inside: a record with one is validated from Python objects
    then, where a span must be a tuple). What every reader of a saved record validates it
    with."""
    replaced = types or {}
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = replaced.get(name, info.annotation)
        fields[name] = (annotation, ...) if name in required else (annotation | None, None)
    validators: dict[str, Any] = {}
    if older is not None:
        read_older = older
        validators["older_form"] = model_validator(mode="before")(
            lambda cls, data: read_older(data)
        )
    tolerant: type[BaseModel] = create_model(
        f"Checked{model.__name__}",
        __config__=ConfigDict(strict=True, extra="allow"),
        __validators__=validators,
        **fields,
    )
    return tolerant


Propositions = Annotated[list[str], Field(min_length=1)]
"""A chunk's propositions as every reader takes them: at least one (as published)."""

ChunkReading = tolerant_model(
    ChunkRecord, required=READ_NEEDS, types={"Propositions": Propositions}
)
"""``ChunkRecord`` as every reader takes it (``tolerant_model``, ``READ_NEEDS``; a chunk
without a proposition refused, as the schema does)."""


def chunk_problem(record: Mapping[str, Any]) -> str | None:
    """Why ``record`` is not a chunk record a reader takes (``describe_problem``'s line),
    or None. Validated as JSON, as the published schema describes it (a span is a JSON
    array of two offsets); a value JSON cannot hold is written as its text."""
    try:
        ChunkReading.model_validate_json(json.dumps(record, ensure_ascii=False, default=str))
    except ValidationError as invalid:
        return describe_problem(invalid.errors(include_url=False)[0])
    return None


def chunk_name(record: Any) -> str:
    """How a refusal names a chunk record: its ``ChunkId`` quoted, else ``(no ChunkId)``."""
    stated = record.get("ChunkId") if isinstance(record, Mapping) else None
    return f"{quote(stated, limit=80)!r}" if isinstance(stated, str) else "(no ChunkId)"


CALL_NEEDS = ("Stage", "Model", "InputTokens", "OutputTokens")
"""The fields of a recorded call every reader requires (``CallUsage.from_dict`` reads them)."""
WARNING_NEEDS = ("Kind",)
"""The field of a warning record every reader requires."""
BATCH_NEEDS = ("Batch", "ChunkIds")
"""The fields of an extraction batch kept on a failure every reader requires."""


def _older_batch(data: Any) -> Any:
    """An older file's extraction batch names its one chunk ``ChunkId``: read as ``ChunkIds``."""
    if isinstance(data, dict) and "ChunkIds" not in data and "ChunkId" in data:
        return {**data, "ChunkIds": [data["ChunkId"]]}
    return data


def _older_warning(data: Any) -> Any:
    """A file written before warnings were records holds each as its line alone: read as a
    record of that message (``PipelineWarning.of`` gives it its kind)."""
    return {"Kind": "other", "Message": data} if isinstance(data, str) else data


def response_reading(propositions: Any = Propositions) -> type[BaseModel]:
    """``ResponseRecord`` as every reader takes it (``tolerant_model``): each chunk as
    ``ChunkReading``, each call with ``CALL_NEEDS``, each warning with ``WARNING_NEEDS``
    (or, in an older file, its line alone), each kept batch with ``BATCH_NEEDS`` (or an
    older file's ``ChunkId``); nothing else required. ``propositions``: the type of a
    chunk's ``Propositions`` (``check`` bounds a proposition's length)."""
    chunk = tolerant_model(ChunkRecord, required=READ_NEEDS, types={"Propositions": propositions})
    call = tolerant_model(CallRecord, required=CALL_NEEDS)
    warning = tolerant_model(WarningRecord, required=WARNING_NEEDS, older=_older_warning)
    batch = tolerant_model(ExtractedRecord, required=BATCH_NEEDS, older=_older_batch)
    return tolerant_model(
        ResponseRecord,
        types={
            "Chunks": list[chunk],  # type: ignore[valid-type]
            "Warnings": list[warning],  # type: ignore[valid-type]
            "Usage": tolerant_model(UsageRecord, types={"Calls": list[call]}),  # type: ignore[valid-type]
            "Extracted": list[batch],  # type: ignore[valid-type]
        },
    )


ResponseReading = response_reading()
"""``ResponseRecord`` as every reader takes it (``response_reading``)."""


_CHUNK_OBJECTS: TypeAdapter[list[dict[str, Any]]] = TypeAdapter(
    list[dict[str, Any]], config=ConfigDict(strict=True)
)


def response_problem(record: Mapping[str, Any], *, chunks: bool = True) -> str | None:
    """Why ``record`` is not a response a reader takes (``response_error_line``), or None.
    Validated as JSON, as ``chunk_problem`` does. ``chunks=False``: its chunks are only
    checked to be objects, for a reader that validates each through ``chunk_problem``
    next (``AgenticResponse.from_dict``, so no chunk is validated twice)."""
    data = record if chunks else {k: v for k, v in record.items() if k != "Chunks"}
    try:
        ResponseReading.model_validate_json(json.dumps(data, ensure_ascii=False, default=str))
        if not chunks:
            try:
                _CHUNK_OBJECTS.validate_python(record.get("Chunks") or [])
            except ValidationError as invalid:
                error = invalid.errors(include_url=False)[0]
                located: ErrorDetails = {**error, "loc": ("Chunks", *error["loc"])}
                return response_error_line(located, record)
    except ValidationError as invalid:
        return response_error_line(invalid.errors(include_url=False)[0], record)
    return None


def response_error_line(error: ErrorDetails, record: Any) -> str:
    """The line every reader gives for ``error``, located from the response ``record``:
    ``chunk 'notes-0001': `` and ``describe_problem``'s line for a chunk's field (what
    ``AgenticChunk.from_dict`` says of the chunk alone), else ``response: `` and it."""
    location = list(error["loc"])
    if len(location) >= 2 and location[0] == "Chunks" and isinstance(location[1], int):
        chunks = record.get("Chunks") if isinstance(record, Mapping) else None
        chunk = chunks[location[1]] if isinstance(chunks, list) else None
        inner: ErrorDetails = {**error, "loc": tuple(location[2:])}
        return f"chunk {chunk_name(chunk)}: {describe_problem(inner)}"
    return f"response: {describe_problem(error)}"


_TYPES = {
    "string_type": "a string",
    "list_type": "a list",
    "int_type": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "dict_type": "an object",
    "model_type": "an object",
}
_LISTS = {
    "Propositions": "strings",
    "SourceChunkIds": "strings",
    "Chunks": "objects",
    "Warnings": "objects",
    "FailedBatches": "whole numbers",
}


def describe_problem(error: ErrorDetails) -> str:
    """One line naming the field of a record ``error`` (pydantic's, located from the record)
    is about, what it must be and what it is, and the way out (``GIVE``)."""
    location = list(error["loc"])
    kind = error["type"]
    field = str(location[0]) if location else "the chunk"
    item = next((p for p in location[1:] if isinstance(p, int)), None)
    if kind == "missing":
        if len(location) > 1:  # inside a field: a call of Usage, a kept batch
            return f"{_path(location[:-1])} lacks the field {location[-1]!r}; {GIVE}"
        return f"lacks the field {field!r}; {GIVE}"
    got = kind_of(error.get("input"))
    if kind == "too_short" and len(location) == 1:
        return f"{field} is an empty list; a chunk holds at least one; {GIVE}"
    if field in _LISTS and len(location) <= 2:
        place = f": item {item + 1} is {got}" if item is not None else f", not {got}"
        return f"{field} must be a list of {_LISTS[field]}{place}; {GIVE}"
    wanted = _TYPES.get(kind, "another type")
    if len(location) > 1 and isinstance(location[-1], str):  # a named field inside one
        return f"{_path(location)} must be {wanted}, not {got}; {GIVE}"
    if len(location) > 1:  # an item inside the field: a span's offset
        return f"{field} holds {got} where {wanted} belongs; {GIVE}"
    return f"{field} must be {wanted}, not {got}; {GIVE}"


def _path(location: Sequence[Any]) -> str:
    """``Usage.Calls[0].Model``: a place in a record, list items counted from 0."""
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def kind_of(value: Any) -> str:
    """What ``value`` is, quoted for a message (``the number 7``, ``a list of 2 items``)."""
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
