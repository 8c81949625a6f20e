"""A document's text as the pipeline's input chunks: one per blank-line separated paragraph.

The one place a plain document becomes input chunks, for ``chunk`` on a ``.txt``/``.md``
file and for every document of a corpus. Guarantees: paragraphs in document order, each
stripped of surrounding whitespace, empty ones skipped, ids ``P0001``, ``P0002``, ...
(numbered over the paragraphs kept); a Windows line end (``\\r\\n``) counts as one for the
blank line between paragraphs; each chunk's ``start``/``end`` are its offsets in ``text``
as given, so ``text[chunk.start:chunk.end] == chunk.text`` (line ends inside a paragraph
kept as they are).
"""

from __future__ import annotations

import re

from .._models import AgenticChunkInput

PARAGRAPH_BREAK = re.compile(r"\r?\n[ \t\f\v\r]*\n")
"""A blank line (spaces and tabs allowed on it; ``\\r\\n`` line ends too) between two
paragraphs."""


def paragraph_inputs(text: str) -> list[AgenticChunkInput]:
    """The paragraphs of ``text`` as input chunks ``P0001``, ``P0002``, ... (see the module)."""
    inputs: list[AgenticChunkInput] = []
    position = 0
    for cut in (*PARAGRAPH_BREAK.finditer(text), None):
        end = len(text) if cut is None else cut.start()
        piece = text[position:end]
        stripped = piece.strip()
        if stripped:
            start = position + len(piece) - len(piece.lstrip())
            inputs.append(
                AgenticChunkInput(
                    chunk_id=f"P{len(inputs) + 1:04d}",
                    text=stripped,
                    start=start,
                    end=start + len(stripped),
                )
            )
        if cut is not None:
            position = cut.end()
    return inputs
