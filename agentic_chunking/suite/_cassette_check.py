"""Is a cassette readable? A plain answer before vcrpy meets a broken file.

vcrpy, handed an empty cassette, treats it as missing (so replay reports every request as
stale); handed a truncated, binary or otherwise corrupt one, it raises a YAML or KeyError
traceback that does not name the file. ``check_cassette`` reads the file as vcrpy will
(the same deserialiser), checks that every recorded JSON reply is whole, and returns a
CassetteError naming the file, what is wrong with it, and the command that records it
again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._errors import CassetteError
from ..client import ANTHROPIC, OPENAI, ModelRef
from ._cassettes import rerecord_command


def check_cassette(
    path: Path, *, case_id: str, model: str, rerecord: str | None = None
) -> CassetteError | None:
    """Return why the cassette at ``path`` cannot be replayed, or None when it can.

    A missing file is None too: the replay itself says "no cassette" with the command.
    ``rerecord`` is the command named to record it again (default: the suite's, for a case).
    """
    path = Path(path)
    if path.exists() and not path.is_file():
        problem: str | None = "is a directory (or another non-file), not a cassette file"
    elif not path.is_file():
        return None
    else:
        problem = _problem(path)
    if problem is None:
        return None
    return CassetteError(
        f"{case_id}: the cassette {path} {problem}, so it cannot be replayed (truncated "
        f"or corrupt). Re-record it with: {rerecord or rerecord_command(case_id, model)}"
    )


JUDGE_MESSAGE_START = "<source>"
"""How a judge request's user message begins (``judge_user_message``); no pipeline
request does (extraction opens with ``<text>``, grouping with ``<propositions>``)."""


def recorded_judge_models(path: Path) -> set[str]:
    """The canonical id (``parse_model``'s: ``openai:judge`` for a Chat Completions request,
    a bare id for a Messages request) of the model of every judge request recorded in the
    cassette at ``path``; empty when it holds none (a case the judge skips) or cannot be
    read (``check_cassette`` says why). A request is the judge's when its first message
    that is not the system prompt opens with ``JUDGE_MESSAGE_START``, on either wire format.
    """
    try:
        from vcr.serialize import deserialize
        from vcr.serializers import yamlserializer

        requests, *_rest = deserialize(Path(path).read_text("utf-8"), yamlserializer)
    except Exception:  # missing, unreadable or corrupt: the replay's own checks name it
        return set()
    models: set[str] = set()
    for request in requests:
        body = _json_body(request.body)
        if _first_user_text(body).startswith(JUDGE_MESSAGE_START) and body.get("model"):
            models.add(_model_id(str(body["model"]), str(getattr(request, "path", ""))))
    return models


CHAT_COMPLETIONS_PATH = "/chat/completions"
"""How an OpenAI-compatible request's path ends; a Messages request's ends ``/messages``."""


def _model_id(name: str, path: str) -> str:
    """The canonical id of the model ``name`` a request to ``path`` asked for."""
    provider = OPENAI if path.rstrip("/").endswith(CHAT_COMPLETIONS_PATH) else ANTHROPIC
    return ModelRef(provider, name).id


def _first_user_text(body: dict[str, Any]) -> str:
    """The text of the first message that is not the system prompt (an OpenAI-compatible
    body carries its system prompt as the first message; a Messages body apart)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    first = next((m for m in messages if m.get("role") != "system"), {})
    content = first.get("content")
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return content if isinstance(content, str) else ""


def _json_body(raw: Any) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw or "")
        body = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return {}
    return body if isinstance(body, dict) else {}


def _problem(path: Path) -> str | None:
    try:
        raw = path.read_bytes()
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    if not raw.strip():
        return "is empty"
    if b"\x00" in raw:
        return "holds binary data (NUL bytes), not YAML text"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"is not UTF-8 text (byte {error.start})"
    return _unreadable(text)


def _unreadable(text: str) -> str | None:
    """vcrpy's own deserialiser over ``text``: None, or what it choked on in words."""
    import yaml
    from vcr.serialize import CASSETTE_FORMAT_VERSION, deserialize
    from vcr.serializers import yamlserializer

    parsed: list[Any] = []

    class _Keeping:  # vcrpy's YAML serializer, keeping what it parsed: the text is read once
        @staticmethod
        def deserialize(cassette_string: str) -> Any:
            parsed.append(yamlserializer.deserialize(cassette_string))
            return parsed[-1]

    try:
        _requests, responses, *_metadata = deserialize(text, _Keeping)
        version = parsed[-1].get("version")
        if version != CASSETTE_FORMAT_VERSION:  # vcrpy itself replays any version
            return (
                f"has format version {version!r}, not {CASSETTE_FORMAT_VERSION} (the one "
                "this vcrpy writes and reads)"
            )
        for number, response in enumerate(responses, start=1):
            cut = _cut_reply(response)
            if cut:
                return f"has reply {number} {cut}"
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f" at line {mark.line + 1}" if mark is not None else ""
        return f"is not valid YAML{where} ({error.problem})"
    except KeyError as error:
        return f"lacks the field {error.args[0]!r} a cassette has"
    except Exception as error:  # anything else vcrpy raises on this text: not a cassette
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        return f"is not a vcrpy cassette ({first_line})"
    return None


def _cut_reply(response: dict[str, Any]) -> str | None:
    """Why a recorded response is not whole (a JSON body cut off), or None."""
    body = response["body"]["string"]
    headers = {str(k).lower(): v for k, v in (response.get("headers") or {}).items()}
    kinds = headers.get("content-type") or []
    if any("json" in str(kind) for kind in kinds):
        try:
            json.loads(body)
        except ValueError:
            return "cut off (its JSON body does not parse)"
    return None
