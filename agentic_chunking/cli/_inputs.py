"""What ``chunk`` (and ``check --source``) reads as the pipeline's input: a document or a
chunk list.

``read_inputs(path)`` returns an ``InputFile``: the input chunks (a document's paragraphs
with their offsets, or a JSON/YAML list of ``{chunk_id, text}`` objects), the document id
the file names and its metadata. Every refusal is one InputError naming the file and the
way out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from .._errors import InputError
from .._models import AgenticChunkInput
from ..pipeline import paragraph_inputs
from ._io import is_stdin, read_text_file

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


def read_inputs(path: Path) -> InputFile:
    """Return the input chunks of ``path``, the document id it names and its metadata.
    A document's paragraphs carry their offsets in it (``paragraph_inputs``).

    ``-`` reads a document (paragraphs) from standard input; a file is a chunk list when its
    suffix is a JSON or YAML one, and a document otherwise, whatever its extension
    (``LICENSE``, ``notes.rst``, ``server.log``), as ``split`` and ``corpus`` read it.
    Raises InputError for a missing, unreadable, binary or empty file, invalid JSON/YAML,
    or a wrong shape; the message names the file and the way out.
    """
    if is_stdin(path):  # a document (.md/.txt) on standard input
        return InputFile(paragraph_inputs(read_text_file(path)), None, {})
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a document or a chunk-list file")
    suffix = path.suffix.lower()
    text = read_text_file(path)
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
