"""Step 3: read a model's JSON reply, tolerating what models really send.

Tolerated around or inside the JSON: Markdown code fences (with or without a language
tag), a preamble or trailing remarks, the whole reply in quotes (straight or smart), a
JSON string that holds the JSON, doubled quotes (``""text""``, from ODC's string
escaping), trailing commas, a byte-order mark. Never tolerated: a reply cut short (an
unclosed array is not completed) or a JSON object where an array is asked for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from .._errors import ReplyParseError
from .._shown import quote

_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_+-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")
_OUTER_QUOTES = (('"', '"'), ("'", "'"), ("\u201c", "\u201d"), ("\u2018", "\u2019"))
_TEXT_KEYS = ("text", "proposition", "statement", "fact")
_MAX_NESTING = 3


def load_json_array(raw: str | None) -> list[Any]:
    """Return the JSON array a reply holds, or raise ReplyParseError with the reason.

    The reason says what was found instead (nothing, an object, a cut-off array, prose).
    """
    if raw is None or not raw.strip():
        raise ReplyParseError("the reply is empty", raw=raw)
    value = _decode(raw, depth=0)
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        raise ReplyParseError(
            "the reply is a JSON object, not the JSON array the prompt asks for", raw=raw
        )
    if value is _NOT_JSON:
        if "[" in raw and "]" not in raw[raw.index("[") :]:
            reason = "the JSON array is not closed (the reply looks cut off)"
        else:
            reason = "no JSON array was found in the reply"
        raise ReplyParseError(reason, raw=raw)
    raise ReplyParseError(f"the reply is a JSON {type(value).__name__}, not a JSON array", raw=raw)


def parse_propositions_strict(raw: str | None) -> list[str]:
    """Return the propositions of an extraction reply, or raise ReplyParseError.

    Items are stripped; blank items are dropped; an object item with one of the keys
    text / proposition / statement / fact gives that string. Any other item (a number,
    null, a nested list) is an error naming its position, since dropping it would lose
    content silently. A well-formed empty array is a valid answer (a passage with no
    fact, such as a bare heading) and gives ``[]``; callers decide whether to warn.
    """
    items = load_json_array(raw)
    propositions: list[str] = []
    for position, item in enumerate(items, start=1):
        text = _item_text(item)
        if text is None:
            raise ReplyParseError(
                f"item {position} of the array is {quote(json.dumps(item), limit=80)}, not a "
                "proposition string",
                raw=raw,
            )
        if text:
            propositions.append(text)
    return propositions


def parse_propositions(raw: str | None) -> list[str]:
    """Return the propositions of an extraction reply; an empty list if it cannot be read.

    The seed's promise: never raises. Use ``parse_propositions_strict`` to learn why a
    reply gave nothing.
    """
    try:
        return parse_propositions_strict(raw)
    except ReplyParseError:
        return []


def _item_text(item: Any) -> str | None:
    if isinstance(item, str):
        return item.strip()
    if isinstance(item, dict):
        for key in _TEXT_KEYS:
            if isinstance(item.get(key), str):
                return str(item[key]).strip()
    return None


class _NotJson:
    pass


_NOT_JSON: Any = _NotJson()


def _decode(text: str, *, depth: int) -> Any:
    """Return the first JSON value any tolerated reading of ``text`` yields, else _NOT_JSON."""
    for candidate in _candidates(text):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, str) and depth < _MAX_NESTING and value.strip() != text.strip():
            inner = _decode(value, depth=depth + 1)
            if inner is not _NOT_JSON:
                return inner
            continue
        return value
    return _NOT_JSON


def _candidates(text: str) -> Iterator[str]:
    """Yield readings of the reply, the most literal first."""
    seen: set[str] = set()
    for base in _bases(text.lstrip("\ufeff").strip()):
        for repair in _REPAIRS:
            candidate = repair(base)
            if candidate not in seen:
                seen.add(candidate)
                yield candidate


def _bases(text: str) -> Iterator[str]:
    yield text
    for match in _FENCE.finditer(text):
        yield match.group(1).strip()
    for opening, closing in _OUTER_QUOTES:
        if len(text) >= 2 and text.startswith(opening) and text.endswith(closing):
            yield text[len(opening) : -len(closing)].strip()
    span = _outermost(text, "[", "]")
    if span:
        yield span
    span = _outermost(text, "{", "}")
    if span:
        yield span


def _outermost(text: str, opening: str, closing: str) -> str | None:
    start, end = text.find(opening), text.rfind(closing)
    return text[start : end + 1] if 0 <= start < end else None


_REPAIRS: tuple[Callable[[str], str], ...] = (
    lambda s: s,
    lambda s: _TRAILING_COMMA.sub(r"\1", s),
    lambda s: s.replace('""', '"'),
    lambda s: _TRAILING_COMMA.sub(r"\1", s.replace('""', '"')),
)
