"""The one exception tree of the package.

AgenticChunkingError
├── InputError          bad input from the caller: a file, a chunk list, an argument
├── ConfigurationError  the environment is not set up (no API key, unknown model id)
├── ModelCallError      a model call failed or its reply is not whole (max_tokens, refusal)
├── ReplyParseError     a model reply could not be read as the shape the prompt asks for
├── CaseError           a case file of the suite is invalid
└── CassetteError       a recorded reply is missing or stale for the request made

Every message names the bad value, what was expected, and the way out.
"""

from __future__ import annotations

from typing import Any


class AgenticChunkingError(Exception):
    """Root of every error this package raises on purpose.

    ``kind`` names, for an error a model call raised, what it means for the run: one of the
    client layer's failure kinds (``no_key``, ``key_rejected``, ``model_unknown``,
    ``base_url``, ``unreachable``, ``overloaded``), decided once where the call failed, or
    None (the request's own failure, or not a call's). Readers (the suite's systemic
    failures) read it instead of classifying the SDK's exception again.
    """

    kind: str | None = None


class InputError(AgenticChunkingError, ValueError):
    """Raised when the caller's input (text, chunk list, file, argument) is unusable."""


class ConfigurationError(AgenticChunkingError):
    """Raised when the environment is not set up for a live call (API key, model id).

    ``response``, set by ``chunk_text_agentic`` when the key is rejected after some batches
    were extracted, is the failed AgenticResponse keeping them (None otherwise), as for
    ModelCallError.
    """

    response: Any = None  # an AgenticResponse; typed loosely: models sit above errors


class ModelCallError(AgenticChunkingError):
    """Raised when a model call fails or returns a reply that is not whole.

    ``stage`` is "extraction" or "grouping"; ``batch`` the extraction batch index, if any.
    ``response``, set by ``chunk_text_agentic``, is the failed AgenticResponse holding every
    proposition extracted before the failure and the batch that failed (None otherwise).
    """

    def __init__(self, message: str, *, stage: str, batch: int | None = None) -> None:
        super().__init__(message)
        self.stage = stage
        self.batch = batch
        self.response: Any = None  # an AgenticResponse; typed loosely: models sit above errors


class ReplyParseError(AgenticChunkingError):
    """Raised when a model reply does not have the shape its prompt asks for.

    Carries the ``raw`` reply and the ``reason`` it was rejected.
    """

    def __init__(self, reason: str, *, raw: str | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class CaseError(AgenticChunkingError):
    """Raised when a case file is invalid; the message names the file and the field."""


class CassetteError(AgenticChunkingError):
    """Raised when no recorded reply matches a request: the cassette is missing or stale.

    The message names the cassette and the exact command that re-records it.
    """
