"""The records the batch engine (``_batch``) and each provider's batch wire format
(``_anthropic``, ``_openai``) pass between them: a batch in flight (``InFlight``), its
state as the provider counts it (``BatchProgress``), one request's outcome
(``BatchResult``), and the two ways a look at a batch fails (``IncompleteResults``: a
download cut short, fetched again; ``BatchUnreachableError``: a retrieval refused for
good). Kinds, never sentences: the engine decides what each means for the callers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .._errors import ConfigurationError
from ._calls import ModelReply

TRANSIENT_STATUSES = frozenset({408, 409, 429})
"""The 4xx statuses a later try may not meet (as the SDKs retry them): a batch retrieval
refused with any other 4xx is unreachable, a batch request failed with one is refused
for good."""
RESULT_KINDS = ("succeeded", "errored", "invalid", "expired", "canceled")
"""What became of one request of a batch: answered; failed in a way worth another round
(a server error); refused as invalid (the same request meets it again: never retried);
not processed before the batch expired; cancelled with its batch."""


@dataclass(frozen=True, slots=True)
class BatchProgress:
    """The state of one batch, as the provider counts its requests.

    ``status``: ``submitted`` (accepted by the provider), ``attached`` (an earlier run's
    batch, given to ``attach``), ``in_progress``, ``canceling``, ``ended``, or
    ``unreachable`` (its retrieval refused for good: the client stopped, the batch may
    still end; see BatchUnreachableError). ``round`` is
    the client's submission round that made it (1-based; 0 for an attached batch). Until
    a batch ends, OpenAI counts only succeeded and failed requests (``errored`` here);
    the ``ended`` record counts each request by its result.
    """

    provider: str
    batch_id: str
    round: int
    status: str
    requests: int
    processing: int
    succeeded: int = 0
    errored: int = 0
    canceled: int = 0
    expired: int = 0


class BatchUnreachableError(ConfigurationError):
    """A batch in flight whose retrieval the provider (or what stands in its place at the
    base URL) refused with ``status``, a status the same retrieval meets again: a 404 from
    a proxy that does not pass batch retrievals through, a 401 or 403 for another key, a
    batch deleted. The batch was accepted (and is paid for); none of its ``requests``
    (their number; None when unknown) is submitted again, and the client has stopped.
    ``provider`` and ``batch_id`` name it; ``detail`` is what the server said."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        batch_id: str,
        status: int,
        requests: int | None,
        detail: str,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.batch_id = batch_id
        self.status = status
        self.requests = requests
        self.detail = detail

    def copy(self) -> BatchUnreachableError:
        """The same error, a new instance (one for each caller: each gets its own trace)."""
        return BatchUnreachableError(
            str(self),
            provider=self.provider,
            batch_id=self.batch_id,
            status=self.status,
            requests=self.requests,
            detail=self.detail,
        )


@dataclass(frozen=True, slots=True)
class BatchResult:
    """One request's outcome in an ended batch: ``kind`` of RESULT_KINDS, the ``reply``
    when it succeeded, what the provider said (``detail``) when it failed."""

    kind: str
    reply: ModelReply | None = None
    detail: str = ""


@dataclass(eq=False)
class InFlight:
    """A batch submitted or attached and not yet ended: ``custom_ids`` None when it was
    attached by id alone (its requests unknown until it ends); ``next_poll`` a
    ``time.monotonic()``; ``failures`` the failed retrievals in a row."""

    provider: str
    batch_id: str
    round: int
    custom_ids: frozenset[str] | None
    next_poll: float
    failures: int = 0


class IncompleteResults(Exception):
    """A batch's results, as downloaded, lack some of its requests: the download was cut
    short (a proxy, a dropped connection). A failed look at the batch, fetched again at the
    next poll; never a reason to submit the missing requests again (they were answered,
    and paid for)."""


def check_whole(batch: InFlight, results: Mapping[str, BatchResult]) -> None:
    """Raise IncompleteResults when ``results`` lack a request this run put in ``batch``
    (an attached batch's requests are not known: nothing to check)."""
    missing = (batch.custom_ids or frozenset()) - results.keys()
    if missing:
        count = len(batch.custom_ids or ())
        raise IncompleteResults(
            f"its results hold {count - len(missing)} of its {count} requests (cut short)"
        )
