"""What ``chunk`` (and ``check --source``) reads as the pipeline's input: a document or a
chunk list.

``read_inputs(path)`` returns the pipeline's ``InputFile`` (``pipeline.input_file`` reads
the file's text): the input chunks (a document's paragraphs with their offsets, or a
JSON/YAML list of ``{chunk_id, text}`` objects), the document id the file names and its
metadata. Every refusal is one InputError naming the file and the way out.
"""

from __future__ import annotations

from pathlib import Path

from .._errors import InputError
from ..corpus import JSONL_SUFFIXES
from ..pipeline import JSON_SUFFIXES as JSON_SUFFIXES
from ..pipeline import TEXT_SUFFIXES as TEXT_SUFFIXES
from ..pipeline import YAML_SUFFIXES as YAML_SUFFIXES
from ..pipeline import InputFile, input_file, paragraph_inputs
from ._io import is_stdin, read_text_file


def read_inputs(path: Path) -> InputFile:
    """Return the input chunks of ``path``, the document id it names and its metadata.
    A document's paragraphs carry their offsets in it (``paragraph_inputs``).

    ``-`` reads a document (paragraphs) from standard input; a file is a chunk list when its
    suffix is a JSON or YAML one, and a document otherwise, whatever its extension
    (``LICENSE``, ``notes.rst``, ``server.log``), as ``split`` and ``corpus`` read it;
    but a ``.jsonl`` or ``.ndjson`` file is a corpus (one document a line), refused with
    the ``corpus`` command that chunks it, before it is read (and any call).
    Raises InputError for a missing, unreadable, binary or empty file, invalid JSON/YAML,
    or a wrong shape; the message names the file and the way out.
    """
    if is_stdin(path):  # a document (.md/.txt) on standard input
        return InputFile(paragraph_inputs(read_text_file(path)), None, {})
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a document or a chunk-list file")
    if path.suffix.lower() in JSONL_SUFFIXES and path.exists():
        raise InputError(
            f"{path}: a JSONL corpus (one document a line, as 'split DIR' and 'corpus' write "
            f"it), not one document; chunk it with 'agentic-chunking corpus {path} -o OUT.jsonl'"
        )
    return input_file(path, read_text_file(path))
