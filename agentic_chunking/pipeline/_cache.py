"""A content-addressed cache of model replies, so that a run can resume without paying twice.

A plain directory: one JSON file per answered request, named by the SHA-256 of what
decides the reply (``request_key``: the model id, the system prompt, the messages,
``max_tokens``; every request is sent at temperature 0), written through the package's
one atomic writer, so an interrupted run leaves whole files only. Every reply that came
back whole from the server is stored (a cut or refused reply too: at temperature 0 the
same request gives the same answer); a transport failure stores nothing. A reply that
cannot be stored (a full disk) does not stop the paid run: it is counted in ``failures``
with the reason, for the caller to report. With ``read``
(``chunk --resume``) a request already answered is served from the directory and marked
``cached`` in its CallUsage, with the tokens it cost when it was paid for; without it the
cache is only written. An unreadable file is a miss (and is overwritten), never an error.

Every entry is verified before it is served: its ``format`` must be FORMAT, its
``request_sha256`` must be the key it is looked up by and the name it is stored under, and
its ``reply_sha256`` must be the SHA-256 of the reply it holds (text, stop reason, usage).
An entry that fails is never served: the request is sent again (and the entry
overwritten), and it is counted in ``rejected`` with the reason, for the caller to report.
A reply that no parser could read, even after the repair turns, is set aside (renamed
``KEY.unparsed.json``, kept to read, never served), so that a resumed run asks again
rather than failing again on the same reply.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from .._files import write_text_atomic
from .._models import CallUsage
from ..client import ModelReply

FORMAT = 1
"""The version of a cache file's layout (a change starts a new cache)."""
UNPARSED_SUFFIX = ".unparsed.json"
"""An entry set aside (:meth:`ReplyCache.set_aside`): kept to read, never served."""
FALLBACK_PREFIX = "agentic-chunking-replies-"
"""The name of a fallback folder begins so, in the system's temporary directory."""


def request_key(
    *, model: str, system: str, messages: Sequence[Mapping[str, str]], max_tokens: int
) -> str:
    """The hex SHA-256 of what decides a reply at temperature 0."""
    payload = {
        "format": FORMAT,
        "model": model,
        "system": system,
        "messages": [dict(m) for m in messages],
        "max_tokens": max_tokens,
        "temperature": 0,
    }
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def reply_digest(text: object, stop_reason: object, usage: object) -> str:
    """The hex SHA-256 of a stored reply's content: its text, stop reason and usage."""
    payload = {"text": text, "stop_reason": stop_reason, "usage": usage}
    encoded = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def _entry_problem(data: object, key: str) -> str | None:
    """Why a cache entry read from ``key``'s file may not be served, or None when it is whole."""
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("format") != FORMAT:
        return f"format {data.get('format')!r}, not {FORMAT}"
    if data.get("request_sha256") != key:
        return "its request hash does not match its name"
    digest = reply_digest(data.get("text"), data.get("stop_reason"), data.get("usage"))
    if data.get("reply_sha256") != digest:
        return "its reply does not match its checksum"
    return None


class ReplyCache:
    """Replies kept in ``directory`` (created if missing); served back only when ``read``.

    Thread-safe: each key is its own file, written atomically; ``hits`` and ``stored``
    count what this run took from the cache and put in it, ``failures`` the reasons a
    reply could not be stored, ``rejected`` the reasons an entry failed verification (it
    was not served).
    """

    def __init__(self, directory: Path | str, *, read: bool) -> None:
        self.directory = Path(directory)
        self.read = read
        self.hits = 0
        self.stored = 0
        self.failures: list[str] = []
        self.rejected: list[str] = []
        self.set_aside_count = 0
        self.fallback: Path | None = None
        self.fallback_reason = ""
        self._kept: dict[str, str] = {}  # this run's entries, to copy into a fallback
        self._lock = threading.Lock()
        self._fallback_lock = threading.Lock()

    def path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str, *, stage: str, batch: int | None) -> ModelReply | None:
        """The stored reply for ``key`` (as a call of ``stage``/``batch``, ``cached``), or
        None when not reading, not stored, unreadable, or failing verification (counted in
        ``rejected``)."""
        if not self.read:
            return None
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            self._reject(key, f"unreadable ({type(error).__name__})")
            return None
        problem = _entry_problem(data, key)
        if problem is not None:
            self._reject(key, problem)
            return None
        try:
            usage = replace(
                CallUsage.from_dict(data["usage"]),
                stage=stage,
                batch=batch,
                latency_s=0.0,
                cached=True,
            )
            reply = ModelReply(text=str(data["text"]), stop_reason=data["stop_reason"], usage=usage)
        except (ValueError, KeyError, TypeError, AttributeError):
            self._reject(key, "its reply is not a reply")
            return None
        with self._lock:
            self.hits += 1
            self._kept[key] = _entry_text(data)
        return reply

    def _reject(self, key: str, problem: str) -> None:
        with self._lock:
            self.rejected.append(f"{self.path(key).name}: {problem}")

    def put(self, key: str, reply: ModelReply) -> None:
        """Store ``reply`` under ``key`` atomically. A failed write (OSError) is not raised:
        the reply was paid for and the run goes on; it goes to the fallback folder instead
        (with every other reply of this run), or, failing that too, into ``failures``."""
        data = {
            "format": FORMAT,
            "request_sha256": key,
            "text": reply.text,
            "stop_reason": reply.stop_reason,
            "usage": reply.usage.to_dict(),
        }
        data["reply_sha256"] = reply_digest(reply.text, reply.stop_reason, data["usage"])
        text = _entry_text(data)
        with self._lock:
            self._kept[key] = text
        if self.fallback is None:
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
                write_text_atomic(self.path(key), text)
            except OSError as error:
                reason = error.strerror or str(error)
            else:
                with self._lock:
                    self.stored += 1
                return
        else:
            reason = self.fallback_reason
        try:
            self._write_to_fallback(key, text, reason)
        except OSError as error:
            with self._lock:
                self.failures.append(f"{reason}; nor in a temporary folder: {error.strerror}")
            return
        with self._lock:
            self.stored += 1

    def set_aside(self, key: str) -> None:
        """Rename the entry of ``key`` to ``KEY.unparsed.json`` (atomically, in place), so
        that a resumed run asks that request again while the paid reply stays on disk to
        read. For replies no parser could read: served again, they would fail again. A
        missing entry or a failed rename is no error (the rerun then serves it as before)."""
        entry = self.path(key)
        try:
            entry.replace(entry.with_name(f"{key}{UNPARSED_SUFFIX}"))
        except OSError:
            return
        with self._lock:
            self.set_aside_count += 1

    def keep_elsewhere(self, name: str, text: str, reason: str) -> Path:
        """Write ``text`` as ``name`` in the fallback folder (made now, with every reply of
        this run, when there is none yet); return its path. Raises OSError when even that
        cannot be written."""
        with self._fallback_lock:
            folder = self._open_fallback(reason)
            return write_text_atomic(folder / name, text)

    def _write_to_fallback(self, key: str, text: str, reason: str) -> None:
        with self._fallback_lock:
            folder = self._open_fallback(reason)
            write_text_atomic(folder / f"{key}.json", text)

    def _open_fallback(self, reason: str) -> Path:
        """The fallback folder, made at the first call with every entry of this run so far
        (callers hold ``_fallback_lock``)."""
        if self.fallback is not None:
            return self.fallback
        folder = Path(tempfile.mkdtemp(prefix=FALLBACK_PREFIX))
        with self._lock:
            kept = dict(self._kept)
        for key, text in kept.items():
            write_text_atomic(folder / f"{key}.json", text)
        self.fallback_reason = reason
        self.fallback = folder
        return folder

    @property
    def replies_this_run(self) -> int:
        """How many replies this run paid for or took from the cache (each kept)."""
        with self._lock:
            return len(self._kept)


def _entry_text(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
