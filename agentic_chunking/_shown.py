"""How outside text is shown in what the package writes: secrets redacted, quotes capped.

``redact`` is the one redaction function. Every message the tools print, every failure
document, results file, report and suite message passes through it (``redact_data`` for a
JSON-like value), and the client applies it where an SDK error's text enters a message.
It is provider-neutral: it replaces

- the value of every configured key: each environment variable whose name ends in
  ``_API_KEY`` (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, ...) and each key a client was
  built with (``remember_secret``), whole and line by line (a key pasted with a line
  break may be quoted in pieces);
- key-shaped strings whatever their provider (``sk-...``, ``sk-ant-...``, ``Bearer ...``,
  the value of an ``x-api-key`` or ``authorization`` header, a ``key=`` query parameter);
- the credentials of a URL (``https://user:secret@host`` becomes ``https://***@host``);
- every credential a client sends (``remember_request``): each header value it sends
  other than the SDK's descriptive ones (``user-agent``, ``x-stainless-*``, ...), the
  token after its scheme word, and a base URL's user and password (which the HTTP library
  sends as ``Authorization: Basic base64(user:password)``);
- a secret in another encoding: each configured value also as JSON or ``repr`` shows it,
  percent-encoded and in base64; ``Basic <token>`` whatever it holds; and any base64 or
  percent-encoded token that decodes to a secret or to ``user:password`` credentials
  (decoded and matched).

Guarantee: ``find_secrets(redact(text)) == []`` for any text. ``find_secrets`` is the scan
the tests run over cassettes, messages, failure documents, results files and reports.

``quote`` is the one way a reply (or any outside text) is quoted in a message or a failure
document's message: on one line, at most ``QUOTE_LIMIT`` characters, with how much was left
out, and redacted; ``quote_list`` lists at most ``LIST_LIMIT`` such items and counts the
rest. A junk reply of any size thus gives a message of bounded length.

``counted`` is the one way a count is shown with the word it counts ("1 call", "3 calls").
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote as percent_encoded
from urllib.parse import unquote, urlsplit

REDACTED = "[redacted]"
QUOTE_LIMIT = 200
"""The most characters of outside text (a model reply) one message quotes."""
LIST_LIMIT = 10
"""The most items (propositions, labels, numbers) one message lists; the rest are counted."""

_MIN_SECRET = 16
"""Shorter configured values (and pieces of a key) are not treated as secrets: a real key
is longer (Anthropic's about 100 characters, OpenAI's 50 or more), and a short value such
as ``loopback`` in a test would be redacted out of model names and results files."""

KEY_SHAPED = (
    re.compile(r"\bsk-ant-[A-Za-z0-9_-]{6,}"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"),
    re.compile(r"(?i)\bBearer\s+[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(
        r"(?i)\b(?:x-api-key|api[-_]?key|authorization)([\"']?\s*[:=]\s*[\"']?)(?!\[)"
        r"(?:(?:Basic|Bearer|Token)\s+)?[^\s\"',;)\]}]+"
    ),
    re.compile(
        r"(?i)([?&](?:[\w.-]*(?:key|token|secret|password|passwd|signature|sig|auth)[\w.-]*)=)"
        r"(?!\[)[^&\s\"'#]+"
    ),
)
ACCOUNT_IDS = (
    re.compile(r"\b(?:org-[A-Za-z0-9]{12,}|proj_[A-Za-z0-9]{12,}|req_[A-Za-z0-9]{12,})\b"),
)
"""The ids that name an account or a request (OpenAI's organisation, project and request
ids): not secrets, but no cassette, report or log should carry them either."""
_HEADER_LINE = re.compile(
    r"(?im)^\s*-?\s*[\"']?(?:x-api-key|authorization|openai-organization|openai-project"
    r"|x-request-id|request-id|openai-organization-id|anthropic-organization-id)[\"']?"
    r"\s*:\s*(?!\[redacted\])\S"
)
_URL_CREDENTIALS = re.compile(r"//[^/@\s]+@")
_ENCODED_TOKEN = re.compile(r"(?<=\bBasic )[A-Za-z0-9+/_-]{4,}={0,2}|[A-Za-z0-9+/_%-]{12,}={0,2}")
"""A run that may be a secret in base64 or percent-encoding: decoded and matched."""
_CREDENTIALS = re.compile(r"[\x21-\x7e]+:[\x21-\x7e]+")
"""What ``user:password`` (the content of a Basic header) looks like once decoded."""
_MIN_PASSWORD = 8
"""A URL's password is a secret from this length on (a user's own, often shorter than a
key); shorter ones are still hidden wherever they travel as credentials."""
_DESCRIPTIVE_HEADERS = re.compile(
    r"(?i)^(?:accept|accept-encoding|content-type|content-length|user-agent|connection|host"
    r"|x-stainless-[\w-]+|anthropic-version|anthropic-beta|openai-beta|x-should-retry)$"
)
"""The headers an SDK sends that describe the request, not who sends it: every other
header value a client sends is remembered as a secret (``remember_request``)."""

_remembered: set[str] = set()
_remembered_exact: set[str] = set()
"""URL credentials: secrets as given, not split into pieces nor held to ``_MIN_SECRET``."""
_lock = threading.Lock()


def remember_secret(value: str) -> None:
    """Treat ``value`` (a key a client was built with) as a secret from now on."""
    if len(value.strip()) >= _MIN_SECRET:
        with _lock:
            _remembered.add(value)


def remember_request(headers: Mapping[str, object], url: object = None) -> None:
    """Treat what a client sends as secrets from now on: the value of each header in
    ``headers`` but the descriptive ones (and the token after a scheme word such as
    ``Bearer``), and the user and password of ``url`` (raw and percent-decoded, alone and
    as the ``user:password`` pair the HTTP library sends in base64 as Basic credentials)."""
    values: list[str] = []
    for name, value in headers.items():
        if isinstance(value, str) and not _DESCRIPTIVE_HEADERS.match(name):
            values += [value, value.partition(" ")[2]]
    try:
        parts = urlsplit(str(url)) if url is not None else None
        user, password = (parts.username, parts.password) if parts else (None, None)
    except ValueError:
        user = password = None
    with _lock:
        for value in values:
            if len(value.strip()) >= _MIN_SECRET:
                _remembered.add(value.strip())
        for name, word in (
            (user or "", password or ""),
            (unquote(user or ""), unquote(password or "")),
        ):
            # a user without a password may be the key itself (``http://KEY@host``)
            for secret in (word or name, f"{name}:{word}"):
                if len(secret) >= _MIN_PASSWORD:
                    _remembered_exact.add(secret)


def configured_secrets() -> list[str]:
    """Every configured key value and its non-blank lines, longest first."""
    values = {v for k, v in os.environ.items() if k.upper().endswith("_API_KEY")}
    with _lock:
        values |= _remembered
    pieces: set[str] = set()
    for value in values:
        for piece in (value, value.strip(), *value.splitlines(), *value.split()):
            piece = piece.strip()
            if len(piece) >= _MIN_SECRET:
                pieces.add(piece)
    with _lock:
        pieces |= _remembered_exact
    return sorted(pieces, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[redacted]`` (see the module docstring)."""
    return _redact(str(text), configured_secrets())


def _redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        for form in _encodings(secret):
            text = text.replace(form, REDACTED)
    text = _URL_CREDENTIALS.sub("//***@", text)
    for pattern in KEY_SHAPED:
        text = pattern.sub(_replacement, text)
    for pattern in ACCOUNT_IDS:
        text = pattern.sub(REDACTED, text)
    return _ENCODED_TOKEN.sub(
        lambda m: REDACTED if _hides_secret(m.group(0), secrets) else m.group(0), text
    )


def _encodings(secret: str) -> list[str]:
    """``secret`` as it may travel: itself, as ``repr`` or a JSON string shows it,
    percent-encoded, and in base64 (standard and URL-safe, with or without padding)."""
    raw = secret.encode("utf-8")
    forms = {
        secret,
        secret.encode("unicode_escape").decode("ascii"),
        json.dumps(secret)[1:-1],
        percent_encoded(secret, safe=""),
        percent_encoded(secret),
    }
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        forms |= {encoded.decode("ascii"), encoded.decode("ascii").rstrip("=")}
    return sorted((f for f in forms if f), key=len, reverse=True)


def _decodings(token: str) -> list[tuple[str, bool]]:
    """What ``token`` reads as once percent-decoded or base64-decoded (as printable text),
    each with whether it came from base64 (where Basic credentials travel)."""
    decoded = [(unquote(token), False)] if "%" in token else []
    core = token.rstrip("=")
    if "%" not in core:
        padded = core + "=" * (-len(core) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                text = decode(padded).decode("utf-8")
            except (binascii.Error, ValueError):
                continue
            if text.isprintable():
                decoded.append((text, True))
    return decoded


def _hides_secret(token: str, secrets: list[str]) -> bool:
    """Whether ``token`` decodes to text holding a secret, or from base64 to
    ``user:password`` credentials."""
    for text, from_base64 in _decodings(token):
        if from_base64 and _CREDENTIALS.fullmatch(text) and "://" not in text:
            return True
        if any(secret in text for secret in secrets):
            return True
    return False


def _replacement(match: re.Match[str]) -> str:
    if match.re.groups:  # keep the header or parameter name and its separator
        return match.group(0)[: match.end(1) - match.start(0)] + REDACTED
    return REDACTED


def redact_data(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, numbers) with every string redacted."""
    return _redact_data(value, configured_secrets())


def _redact_data(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return _redact(value, secrets)
    if isinstance(value, dict):
        return {
            _redact(k, secrets) if isinstance(k, str) else k: _redact_data(v, secrets)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_redact_data(v, secrets) for v in value]
    return value


def find_secrets(text: str, *, also: Iterable[str] = ()) -> list[str]:
    """Every key-shaped string, auth header line or configured key value in ``text``
    (and each of ``also``); empty when the text is clean."""
    found = [m.group(0) for pattern in KEY_SHAPED for m in pattern.finditer(text)]
    found = [f for f in found if not f.endswith(REDACTED)]
    found += [m.group(0) for pattern in ACCOUNT_IDS for m in pattern.finditer(text)]
    found += [m.group(0) for m in _HEADER_LINE.finditer(text)]
    secrets = [s for s in (*configured_secrets(), *also) if s]
    found += [form for s in secrets for form in _encodings(s) if form in text]
    found += [
        m.group(0) for m in _ENCODED_TOKEN.finditer(text) if _hides_secret(m.group(0), secrets)
    ]
    return found


def quote(text: str, *, limit: int = QUOTE_LIMIT) -> str:
    """``text`` fit to quote in a message: whitespace runs made one space, cut to
    ``limit`` characters with how many were left out, and redacted. Never longer than
    ``limit`` plus a short tail."""
    flat = " ".join(redact(text).split())
    if len(flat) <= limit:
        return flat
    return f"{flat[:limit]}... ({len(text):,} characters in all)"


def quote_list(items: Iterable[object], *, most: int = LIST_LIMIT, sep: str = "; ") -> str:
    """At most ``most`` of ``items`` (each already quoted by the caller) joined by ``sep``,
    then "... and N more" for the rest."""
    listed = list(items)
    shown = sep.join(str(item) for item in listed[:most])
    rest = len(listed) - most
    return f"{shown}{sep}... and {rest:,} more" if rest > 0 else shown


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` (with thousands separators) and the word it counts, in the singular for
    exactly 1: ``counted(1, "call")`` is "1 call", ``counted(3, "call")`` "3 calls";
    ``many`` is the plural when it is not ``one`` plus "s" ("model replies")."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"
