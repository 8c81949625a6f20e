"""A document's run as a record of how it ended: ``chunk_outcome`` runs
``chunk_text_agentic`` and returns a ``ChunkOutcome`` whose ``kind`` says it: ``done``
(every chunk made), ``failed`` (the model's answers made no valid output: a cut, refused or
unreadable reply, a grouping that is no partition; ``response.error_detail`` says which)
or ``stopped`` (a call failed outright, ModelCallError, or the configuration was refused
during the run, ConfigurationError; ``error``, with what was extracted before it in
``response``). ``chunk`` and ``corpus`` read the kind; neither parses a message. An input
the pipeline refuses (InputError) and a stop signal are raised as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._errors import ConfigurationError, ModelCallError
from .._models import AgenticChunkInput, AgenticResponse
from ._options import PipelineOptions
from ._run import chunk_text_agentic

OutcomeKind = Literal["done", "failed", "stopped"]


@dataclass(frozen=True, slots=True)
class ChunkOutcome:
    """How one document's run ended (see the module). ``response`` is None only for a
    run stopped before it had any response to keep."""

    kind: OutcomeKind
    response: AgenticResponse | None
    error: ModelCallError | ConfigurationError | None = None


def chunk_outcome(
    inputs: Sequence[AgenticChunkInput | Mapping[str, Any]],
    document_id: str | None,
    options: PipelineOptions,
    **run: Any,
) -> ChunkOutcome:
    """``chunk_text_agentic(inputs, document_id, options, **run)`` as a ChunkOutcome (``run``:
    its ``client``, ``cache``, ``progress``, ``on_event``, ``metadata``)."""
    try:
        response = chunk_text_agentic(inputs, document_id, options, **run)
    except (ModelCallError, ConfigurationError) as error:  # a 401 keeps what a 500 keeps
        kept = error.response if isinstance(error.response, AgenticResponse) else None
        return ChunkOutcome("stopped", kept, error)
    return ChunkOutcome("done" if response.is_success else "failed", response)
