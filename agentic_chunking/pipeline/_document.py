"""A document's text as the pipeline's input chunks: one per blank-line separated paragraph.

The one place a plain document becomes input chunks, for ``chunk`` on a ``.txt``/``.md``
file and for every document of a corpus. Guarantees: paragraphs in document order, each
stripped of surrounding whitespace, empty ones skipped, ids ``P0001``, ``P0002``, ...
(numbered over the paragraphs kept); Windows line ends read as ``\\n``.
"""

from __future__ import annotations

import re

from .._models import AgenticChunkInput

PARAGRAPH_BREAK = re.compile(r"\n[ \t\f\v]*\n")
"""A blank line (spaces and tabs allowed on it) between two paragraphs."""


def paragraph_inputs(text: str) -> list[AgenticChunkInput]:
    """The paragraphs of ``text`` as input chunks ``P0001``, ``P0002``, ... (see the module)."""
    paragraphs = [p.strip() for p in PARAGRAPH_BREAK.split(text.replace("\r\n", "\n"))]
    return [
        AgenticChunkInput(chunk_id=f"P{number:04d}", text=paragraph)
        for number, paragraph in enumerate((p for p in paragraphs if p), start=1)
    ]
