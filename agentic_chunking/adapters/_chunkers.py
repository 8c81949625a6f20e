"""Chunker adapters: other Level 5 implementations as chunkers the suite runs
(``pytest --chunker module:callable``; see ``agentic_chunking.suite._chunkers``).

- ``langchain_chunker(runnable)`` wraps any LangChain runnable the user builds (for
  instance the proposition-indexing prompt pulled from LangChain's hub, piped into a chat
  model, as Kamradt's notebook does; nothing of it is copied into this project). It invokes
  the runnable once per input chunk with ``{input_key: text}`` and reads propositions from
  what it returns (``read_propositions``). It does no grouping: each input chunk's
  propositions are one chunk, named by the input chunk's id.
- ``baseline_chunker(model)`` is ours without grouping: one call of our extraction prompt
  per input chunk (with our parser and its repair turns; ``extraction_max_tokens`` and
  ``max_repair_attempts`` from its ``PipelineOptions``), each input chunk's propositions
  one chunk. It tells what our grouping adds.

Both are callables ``(inputs, document_id) -> AgenticResponse`` with ``chunker_name``,
``model`` and ``groups = False``. The model calls go through the SDKs' HTTP clients, which
the suite's cassettes record and replay. A reply that is not propositions makes the
chunker raise ``ChunkerOutputError``, which the suite shows as the case's error in one line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import AgenticChunkingError
from .._models import AgenticChunk, AgenticChunkInput, AgenticResponse, CallUsage
from ..pipeline import (
    EXTRACTION_SHAPE,
    CallSettings,
    PipelineOptions,
    converse,
    extraction_user_message,
    load_json_array,
    parse_propositions_strict,
)

if TYPE_CHECKING:
    from ..client import AnyClient


class ChunkerOutputError(AgenticChunkingError):
    """A wrapped chunker's reply holds no propositions the adapter can read."""


def read_propositions(value: Any) -> list[str]:
    """Propositions from what a runnable returns: a list of strings; a message or string
    whose text is a JSON array of strings (or an object with ``sentences`` or
    ``propositions``, as the hub's proposition prompt asks for); an object or mapping with
    such a field. ChunkerOutputError otherwise."""
    if isinstance(value, Mapping):
        for key in ("propositions", "sentences"):
            if key in value:
                return read_propositions(value[key])
    for key in ("propositions", "sentences"):
        if hasattr(value, key) and not isinstance(value, str):
            return read_propositions(getattr(value, key))
    content = getattr(value, "content", None)
    if isinstance(content, str):
        value = content
    if isinstance(value, str):
        start, end = value.find("{"), value.rfind("}")
        for candidate in (value, value[start : end + 1] if 0 <= start < end else ""):
            try:
                return read_propositions(json.loads(candidate))
            except (ValueError, ChunkerOutputError):
                continue
        try:
            return read_propositions(load_json_array(value))
        except AgenticChunkingError:
            pass
    is_list = isinstance(value, Sequence) and not isinstance(value, (str, bytes))
    if is_list and all(isinstance(item, str) for item in value):
        return [item.strip() for item in value if item.strip()]
    shown = repr(value)[:120]
    raise ChunkerOutputError(
        f"the runnable returned {type(value).__name__} {shown}, not propositions (a JSON "
        "array of strings, or an object with `sentences` or `propositions`)"
    )


def _one_chunk_per_input(
    document_id: str,
    found: Sequence[tuple[AgenticChunkInput, list[str]]],
    calls: Sequence[CallUsage] = (),
) -> AgenticResponse:
    chunks = tuple(
        AgenticChunk.from_propositions(
            document_id=document_id,
            seq=seq,
            thematic_category=item.chunk_id,
            propositions=propositions,
            source_chunk_ids=[item.chunk_id],
        )
        for seq, (item, propositions) in enumerate(
            ((i, p) for i, p in found if p),
            start=1,
        )
    )
    return AgenticResponse(chunks=chunks, calls=tuple(calls))


@dataclass
class LangChainChunker:
    """A LangChain runnable as a chunker (see the module); ``langchain_chunker`` builds it."""

    runnable: Any
    chunker_name: str = "langchain"
    model: str | None = None
    input_key: str = "input"
    groups: bool = False

    def __call__(self, inputs: list[AgenticChunkInput], document_id: str) -> AgenticResponse:
        found = [
            (item, read_propositions(self.runnable.invoke({self.input_key: item.text})))
            for item in inputs
        ]
        return _one_chunk_per_input(document_id, found)


def langchain_chunker(
    runnable: Any, *, name: str = "langchain", model: str | None = None, input_key: str = "input"
) -> LangChainChunker:
    """Wrap ``runnable`` (anything with ``invoke(dict)``) as a chunker named ``name``;
    ``model`` names the model its calls use (for the run's cassettes and results)."""
    if not callable(getattr(runnable, "invoke", None)):
        raise TypeError(f"{type(runnable).__name__} has no invoke(): pass a LangChain runnable")
    return LangChainChunker(runnable, chunker_name=name, model=model, input_key=input_key)


@dataclass
class BaselineChunker:
    """Our extraction prompt, one call per input chunk, no grouping (see the module)."""

    model: str
    client: AnyClient | None = None
    chunker_name: str = "baseline"
    groups: bool = False
    options: PipelineOptions = field(default_factory=PipelineOptions)
    """The extraction's ``max_tokens`` and repair turns (``model`` is the chunker's own)."""

    def __call__(self, inputs: list[AgenticChunkInput], document_id: str) -> AgenticResponse:
        from ..client import ModelClient

        client = self.client or ModelClient()
        settings = CallSettings(
            client=client, model=self.model, max_repair_attempts=self.options.max_repair_attempts
        )
        found: list[tuple[AgenticChunkInput, list[str]]] = []
        calls: list[CallUsage] = []
        try:
            for number, item in enumerate(inputs, start=1):
                outcome = converse(
                    stage="extraction",
                    where=f"input chunk {item.chunk_id}",
                    batch=number,
                    messages=[{"role": "user", "content": extraction_user_message(item.text)}],
                    max_tokens=self.options.extraction_max_tokens,
                    settings=settings,
                    parse=parse_propositions_strict,
                    shape=EXTRACTION_SHAPE,
                )
                calls += outcome.calls
                if outcome.error is not None:
                    return AgenticResponse.failure(outcome.error, calls=calls)
                found.append((item, list(outcome.value)))
        finally:
            if self.client is None and isinstance(client, ModelClient):
                client.close()
        return _one_chunk_per_input(document_id, found, calls)


def baseline_chunker(
    model: str, *, client: AnyClient | None = None, options: PipelineOptions | None = None
) -> BaselineChunker:
    """Our extraction alone as a chunker: one extraction call per input chunk with
    ``model`` (its provider's client from the environment unless ``client`` is given) and
    ``options``' extraction ``max_tokens`` and repair turns, no grouping."""
    return BaselineChunker(model=model, client=client, options=options or PipelineOptions())
