"""Cassettes: where they live, how requests match them, and what never goes into them.

Guarantees of ``vcr_config()``:
- requests match on method, path and JSON body (not host or headers), so a changed
  prompt, input, model id or max_tokens is a stale cassette, and the replies recorded
  through any base URL replay against any other;
- request headers are cut down to an allow-list (no Authorization, x-api-key, user agent
  or x-stainless-* machine details); response headers to the content type (no
  organisation id, request id, rate limits or cf-ray); error responses (>= 400) are not
  recorded, so a 429 or 529 met while recording is never replayed;
- compressed bodies are stored decoded, readable in review.

Guarantees of ``StagedPersister`` (how a cassette is recorded): a recording starts empty
and is held in memory; it replaces the cassette on disk (atomically, through
``write_text_atomic``) only for a case whose run was ``approve``d (it completed: a
success or a clean pipeline failure). A transport failure, SIGINT, SIGTERM or a kill
leaves the previous cassette byte for byte. A cassette that cannot be written (a
read-only or full folder) keeps the previous one too; the reason is in ``unsaved`` (for
the suite to make its case an error) and the OSError goes on to the caller. So does a
recording holding a reply longer than its request's ``max_tokens`` allows (a server that
ignores the limit is not the model's API: its replies would replace good cassettes with
megabytes); a CassetteError goes on then.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._errors import CassetteError
from .._files import write_text_atomic
from .._shown import find_secrets as find_secrets  # the one scan, re-exported for the suite
from ..client import error_chain as error_chain  # the client's one walk of a chain
from ..client import model_folder

KEPT_REQUEST_HEADERS = frozenset({"accept", "anthropic-version", "content-type"})
KEPT_RESPONSE_HEADERS = frozenset({"content-type"})
MATCH_ON = ("method", "path", "body")
CHARS_PER_TOKEN_AT_MOST = 32
"""A reply body longer than this many characters per ``max_tokens`` asked (plus
``REPLY_SLACK_CHARS`` for the envelope) cannot be the model's answer to that request."""
REPLY_SLACK_CHARS = 8_192


def cassette_dir(cassette_root: Path, model: str) -> Path:
    """``<root>/<folder>``: one directory per model, named by ``model_folder``: a bare
    (Anthropic) id as given, ``openai:M`` as ``openai--M`` (no colon, safe on every OS)."""
    return Path(cassette_root) / model_folder(model)


def cassette_path(cassette_root: Path, model: str, case_id: str) -> Path:
    return cassette_dir(cassette_root, model) / f"{case_id}.yaml"


def vcr_config() -> dict[str, Any]:
    """The vcrpy options every suite cassette is recorded and replayed with."""
    return {
        "match_on": MATCH_ON,
        "before_record_request": _scrub_request,
        "before_record_response": _scrub_response,
        "decode_compressed_response": True,
    }


class StagedPersister:
    """A vcrpy persister that never writes a cassette for a run that did not complete.

    In replay (``recording=False``) it loads cassettes as vcrpy's own persister does. While
    recording, ``load_cassette`` finds nothing (each recording starts afresh, nothing is
    deleted) and ``save_cassette`` writes only a path that was ``approve``d since its
    recording began; any other recording is dropped and its path listed in ``kept``.
    """

    def __init__(self, *, recording: bool) -> None:
        self.recording = recording
        self._approved: set[Path] = set()
        self.kept: list[Path] = []
        self.unsaved: dict[Path, str] = {}
        """Resolved path -> why the approved recording could not be written there."""

    def approve(self, path: Path) -> None:
        """Let the next save of ``path`` replace the cassette: its case's run completed."""
        self._approved.add(Path(path).resolve())

    def load_cassette(self, cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.persisters.filesystem import CassetteNotFoundError, FilesystemPersister

        if self.recording:
            raise CassetteNotFoundError()
        return FilesystemPersister.load_cassette(cassette_path, serializer)

    def save_cassette(self, cassette_path: str | Path, cassette_dict: Any, serializer: Any) -> None:
        from vcr.serialize import serialize

        path = Path(cassette_path)
        if self.recording and path.resolve() not in self._approved:
            self.kept.append(path)
            return
        self._approved.discard(path.resolve())
        oversized = oversized_reply(cassette_dict) if self.recording else None
        if oversized is not None:
            self.unsaved[path.resolve()] = (
                f"the recording was not saved to {path}: {oversized}; the server ignores "
                "max_tokens, so it is not the model's API. The previous cassette, if any, is "
                "unchanged: record against the provider's API"
            )
            raise CassetteError(self.unsaved[path.resolve()])
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, serialize(cassette_dict, serializer))
        except OSError as error:
            self.unsaved[path.resolve()] = (
                f"the recording could not be saved to {path} ({error.strerror or error}); "
                "the previous cassette, if any, is unchanged: make the folder writable or "
                "free space, then record again"
            )
            raise


def oversized_reply(cassette_dict: Any) -> str | None:
    """Why a recording holds a reply no API honouring the request's ``max_tokens`` (or
    ``max_completion_tokens``) would send: its usage counts more output tokens, or its body
    is longer than ``CHARS_PER_TOKEN_AT_MOST`` characters a token; None when every reply
    fits."""
    requests = cassette_dict.get("requests", []) if isinstance(cassette_dict, dict) else []
    responses = cassette_dict.get("responses", []) if isinstance(cassette_dict, dict) else []
    for number, (request, response) in enumerate(zip(requests, responses, strict=False), 1):
        asked = _asked_tokens(getattr(request, "body", None))
        if asked is None or not isinstance(response, dict):
            continue
        body = response.get("body", {}).get("string", "")
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
        if len(text) > asked * CHARS_PER_TOKEN_AT_MOST + REPLY_SLACK_CHARS:
            return f"reply {number} is {len(text):,} characters for max_tokens {asked:,}"
        spent = _output_tokens(text)
        if spent is not None and spent > asked:
            return f"reply {number} used {spent:,} output tokens for max_tokens {asked:,}"
    return None


def _asked_tokens(body: Any) -> int | None:
    try:
        data = json.loads(body) if body else None
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    asked = data.get("max_tokens", data.get("max_completion_tokens"))
    return asked if isinstance(asked, int) and asked > 0 else None


def _output_tokens(text: str) -> int | None:
    try:
        usage = json.loads(text).get("usage", {})
    except (ValueError, AttributeError):
        return None
    spent = (
        usage.get("output_tokens", usage.get("completion_tokens"))
        if isinstance(usage, dict)
        else None
    )
    return spent if isinstance(spent, int) else None


def _scrub_request(request: Any) -> Any:
    """Drop every request header outside the allow-list (idempotent: runs on replay too)."""
    for name in list(request.headers):
        if name.lower() not in KEPT_REQUEST_HEADERS:
            del request.headers[name]
    return request


def _scrub_response(response: dict[str, Any]) -> dict[str, Any] | None:
    """Keep successful responses only, with the content type as their one header."""
    if int(response.get("status", {}).get("code", 0)) >= 400:
        return None
    headers = response.get("headers", {})
    response["headers"] = {k: v for k, v in headers.items() if k.lower() in KEPT_RESPONSE_HEADERS}
    return response


def rerecord_command(case_id: str, model: str) -> str:
    """The exact command that records the cassette of ``case_id`` for ``model`` again."""
    if model == "reference":
        return "python -m agentic_chunking.suite rebuild-reference"
    return f"pytest tests/test_cases.py -k {case_id} --record --model {model}"


def cassette_error(
    error: BaseException, *, path: Path, case_id: str, model: str
) -> CassetteError | None:
    """Turn vcrpy's refusal to play a request, wherever the SDK wrapped it, into a plain
    CassetteError naming the cassette and the command that re-records it; None if
    ``error`` has nothing to do with a cassette."""
    if not any(_is_unmatched(e) for e in error_chain(error)):
        return None
    from ..semantic import SEMANTIC_DUPLICATES_ENV_VAR

    command = rerecord_command(case_id, model)
    if not path.exists():
        return CassetteError(
            f"{case_id}: no cassette at {path} for model {model!r}. Record it with: {command}"
        )
    return CassetteError(
        f"{case_id}: the cassette {path} has no recorded reply for a request this run made "
        f"(it is stale: a prompt, the case input, the settings or the judge model changed "
        f"since it was recorded, or the judge's pairs did: {SEMANTIC_DUPLICATES_ENV_VAR}=on "
        f"adds pairs close in meaning, so replay with the setting it was recorded with). "
        f"Re-record it with: {command}"
    )


def _is_unmatched(error: BaseException) -> bool:
    from vcr.errors import CannotOverwriteExistingCassetteException

    return isinstance(error, CannotOverwriteExistingCassetteException)
