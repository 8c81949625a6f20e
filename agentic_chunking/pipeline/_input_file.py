"""A document or a chunk-list file as the pipeline's input chunks (``chunk``, ``check``).

``input_file(path, text)`` reads ``text``, the content of ``path``: a chunk list when the
suffix is a JSON or YAML one (a list of ``{chunk_id, text}`` objects, extra keys allowed,
or a mapping with an ``inputs`` or ``chunks`` list, such as a case file), else a document
whatever its extension (``LICENSE``, ``notes.rst``), cut into paragraphs
(``paragraph_inputs``). Every refusal is an InputError naming the file, the place and the
way out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from .._errors import InputError
from .._models import AgenticChunkInput
from ._document import paragraph_inputs

TEXT_SUFFIXES = (".txt", ".md", ".markdown")
JSON_SUFFIXES = (".json",)
YAML_SUFFIXES = (".yaml", ".yml")


class InputFile(NamedTuple):
    """What an input file gives: its chunks, the document id it names (a mapping's
    ``document_id``, else the ``document_id`` every item of a list shares, as ``split``
    writes it; else None), and the document's metadata (a mapping's ``metadata``, else
    ``{}``). Each chunk keeps its own ``start``/``end``/``metadata``."""

    inputs: list[AgenticChunkInput]
    document_id: str | None
    metadata: dict[str, Any]


def input_file(path: Path, text: str) -> InputFile:
    """The input chunks ``text`` (the content of ``path``) gives, the document id it names
    and its metadata (see the module); a document's paragraphs carry their offsets in it."""
    suffix = path.suffix.lower()
    if suffix not in (*JSON_SUFFIXES, *YAML_SUFFIXES):
        return InputFile(paragraph_inputs(text), None, {})
    data = _load_structured(path, text, yaml_syntax=suffix in YAML_SUFFIXES)
    return _chunk_list(path, data)


def _load_structured(path: Path, text: str, *, yaml_syntax: bool) -> Any:
    try:
        return _parse_structured(path, text, yaml_syntax=yaml_syntax)
    except RecursionError:  # nested deeper than any chunk list: not one
        raise InputError(
            f"{path}: nested too deeply to be a chunk list; give a list of "
            "{chunk_id, text} objects, or the document as plain text"
        ) from None


def _parse_structured(path: Path, text: str, *, yaml_syntax: bool) -> Any:
    if not yaml_syntax:
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(
                f"{path}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
            ) from None
    import yaml  # only a YAML file needs it

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise InputError(f"{path}: invalid YAML{where}: {problem}") from None


def _chunk_list(path: Path, data: Any) -> InputFile:
    document_id: str | None = None
    metadata: dict[str, Any] = {}
    if isinstance(data, dict):
        items = data.get("inputs", data.get("chunks"))
        if isinstance(data.get("document_id"), str):
            document_id = data["document_id"]
        if data.get("metadata") is not None:
            if not isinstance(data["metadata"], dict):
                raise InputError(
                    f"{path}: metadata is a {type(data['metadata']).__name__}, not an object; "
                    'give the document\'s metadata as {"key": value, ...} or leave it out'
                )
            metadata = dict(data["metadata"])
    else:
        items = data
    if not isinstance(items, list):
        raise InputError(
            f"{path}: expected a list of {{chunk_id, text}} objects (or a mapping with an "
            f"'inputs' list), found a {type(data).__name__}"
        )
    if not items:
        raise InputError(f"{path}: the chunk list is empty; give at least one {{chunk_id, text}}")
    chunks: list[AgenticChunkInput] = []
    for position, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise InputError(
                f"{path}: item {position} is a {type(item).__name__}, expected an object "
                "with chunk_id and text"
            )
        try:
            chunks.append(AgenticChunkInput.from_dict(item))
        except InputError as error:
            raise InputError(f"{path}: item {position}: {error}") from None
    if not any(chunk.text.replace("\x00", "").strip() for chunk in chunks):
        raise InputError(
            f"{path}: every input chunk has empty text (or only NUL characters); nothing to chunk"
        )
    if document_id is None:
        shared = {item.get("document_id", item.get("DocumentId")) for item in items}
        if len(shared) == 1 and isinstance(next(iter(shared)), str):
            document_id = next(iter(shared))
    return InputFile(chunks, document_id, metadata)
