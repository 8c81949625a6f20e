"""One model call, whatever the provider: the request record (``ModelRequest``), the reply
(``ModelReply``), the request's hash (``canonical_sha256``: the one function every
request hash goes through), and what each provider's call does alike (``where`` a call
is, ``notify_while_waiting`` while it is in flight).

Guarantees: a ``ModelRequest`` holds what decides a reply at temperature 0 (the model's
name at its provider, the system prompt, the messages, ``max_tokens``) and nothing else,
frozen; ``canonical_sha256`` of the same value is the same hex digest in every run and
on every machine (keys sorted; ``compact`` chooses the JSON separators and ASCII escapes
of the two hashes already stored in the wild, so that neither changes).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .._models import CallUsage

WAIT_NOTICE_S = 15.0
"""A call still in flight after this many seconds is reported through ``on_wait``."""


@dataclass(frozen=True, slots=True)
class ModelReply:
    """The text of one reply, how it ended, and what it cost."""

    text: str
    stop_reason: str | None
    usage: CallUsage


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """What decides one reply at temperature 0: the call signature every provider's
    ``call``, request body and batch line are made from, and the reply cache's key.
    ``model`` is the model as its user names it: a provider's ``call`` gets the name at the
    provider (``gpt-4o`` for ``openai:gpt-4o``), the reply cache the full id;
    ``messages`` are copied on the way in."""

    model: str
    system: str
    messages: tuple[Mapping[str, str], ...]
    max_tokens: int

    @classmethod
    def of(
        cls, *, model: str, system: str, messages: Sequence[Mapping[str, str]], max_tokens: int
    ) -> ModelRequest:
        """The record of a call's keyword arguments."""
        return cls(model, system, tuple(dict(m) for m in messages), max_tokens)

    def message_list(self) -> list[dict[str, str]]:
        """The messages as a fresh list of dicts (as a request body carries them)."""
        return [dict(m) for m in self.messages]

    def payload(self) -> dict[str, Any]:
        """What decides the reply, as a JSON object (``temperature`` is always 0)."""
        return {
            "model": self.model,
            "system": self.system,
            "messages": self.message_list(),
            "max_tokens": self.max_tokens,
            "temperature": 0,
        }


def canonical_sha256(
    value: object, *, compact: bool = True, ensure_ascii: bool | None = None
) -> str:
    """The hex SHA-256 of ``value`` as canonical JSON (keys sorted), encoded as UTF-8: the
    package's one hash of a request or of settings.

    Three byte layouts, each what files already hold, so a stored hash stays valid:
    ``compact`` (a batch request's custom_id): no spaces, non-ASCII escaped; otherwise
    the default separators, non-ASCII kept as it is (the reply cache's key) or, with
    ``ensure_ascii=True``, escaped (the corpus ledger's settings hash). ``ensure_ascii``
    left None follows ``compact``."""
    escape = compact if ensure_ascii is None else ensure_ascii
    separators = (",", ":") if compact else None
    text = json.dumps(value, ensure_ascii=escape, sort_keys=True, separators=separators)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def where(stage: str, batch: int | None) -> str:
    """A call as messages name it: ``grouping call``, ``extraction call for batch 2``."""
    return f"{stage} call" if batch is None else f"{stage} call for batch {batch}"


@contextmanager
def notify_while_waiting(
    on_wait: Callable[[str], None] | None, where: str, timeout: Any
) -> Iterator[None]:
    """Call ``on_wait`` every WAIT_NOTICE_S seconds until the block ends."""
    if on_wait is None:
        yield
        return
    done = threading.Event()
    started = time.monotonic()
    limit = getattr(timeout, "read", timeout)
    per_attempt = (
        f"; the timeout is {limit:g} s per attempt" if isinstance(limit, int | float) else ""
    )

    def notify() -> None:
        while not done.wait(WAIT_NOTICE_S):
            waited = time.monotonic() - started
            on_wait(f"{where}: still waiting for the model ({waited:.0f} s so far{per_attempt})")

    notifier = threading.Thread(target=notify, name="wait-notice", daemon=True)
    notifier.start()
    try:
        yield
    finally:
        done.set()


def too_large_advice(stage: str) -> str:
    """What to do about a request the server found too large (HTTP 413), by its stage."""
    if stage == "extraction":
        return "lower --max-tokens-per-batch so each batch is smaller"
    return "chunk the document in parts: the grouping call carries every proposition"


def request_path(exc: BaseException) -> str | None:
    """The URL path of the request an SDK error is about; None when it names none."""
    request = getattr(exc, "request", None)
    return None if request is None else str(request.url.path)


def env_value(name: str) -> str:
    """The environment variable ``name``, stripped ("" when unset)."""
    return os.environ.get(name, "").strip()
