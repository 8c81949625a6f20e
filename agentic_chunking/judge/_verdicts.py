"""The judge's verdicts as records, and the reader of a judge reply.

A judge reply (prompt judge-v3) is a JSON array, read by the project's tolerant parser
(``_parse``), with one item per numbered proposition, then one per pair:

- ``[<n>, <k>, ...]``: proposition n is supported, stated by source sentence(s) k (the
  numbers of the request's ``[k]`` lines); no reason, the cited sentence is the evidence;
- ``[<n>, "<verdict>", "<reason>"]``: any other verdict, with a short reason;
- ``[<first>, <second>, true|false, "<reason>"]``: a pair, the same fact or not.

The objects judge-v2 asked for are read too (``{"n": <n>, "verdict": ..., "reason": ...}``,
an object saying "supported" with a reason as judge-v1 wrote it, and ``{"pair": [<first>,
<second>], "same_fact": true|false, "reason": ...}``), so older cassettes still replay.

``read_judge_reply`` returns exactly one verdict per proposition asked and one per pair
asked, or raises ReplyParseError naming what is wrong (a number skipped, repeated or not
asked, a sentence the request did not show, an unknown verdict, a missing reason), so the
caller can ask once for a repair; a reply that stays incomplete leaves the case to the
rules. A cited verdict's ``reason`` is the cited sentences' own text, so it is exactly
verifiable against the source.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NoReturn, cast

from .._errors import ReplyParseError
from .._models import CallUsage
from .._shown import QUOTE_LIMIT, quote
from ..pipeline import load_json_array

Verdict = Literal["supported", "not_supported", "needs_context", "not_atomic"]
SUPPORTED: Verdict = "supported"
NOT_SUPPORTED: Verdict = "not_supported"
NEEDS_CONTEXT: Verdict = "needs_context"
NOT_ATOMIC: Verdict = "not_atomic"
VERDICTS: tuple[Verdict, ...] = (SUPPORTED, NOT_SUPPORTED, NEEDS_CONTEXT, NOT_ATOMIC)
"""The per-proposition verdicts the judge prompt allows."""

Pair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class PropositionVerdict:
    """The judge's verdict on proposition ``number`` (1-based, output order) and why.

    ``sentences`` are the source sentence numbers a supported verdict cites (empty for a
    verdict given with a reason); then ``reason`` is ``cited_reason`` of their texts."""

    number: int
    verdict: Verdict
    reason: str
    sentences: tuple[int, ...] = ()

    def to_reply_item(self) -> list[int | str]:
        """The item a judge-v3 reply gives for this verdict: ``[n, k, ...]`` when it cites
        sentences, else ``[n, verdict, reason]``."""
        if self.sentences:
            return [self.number, *self.sentences]
        return [self.number, self.verdict, self.reason]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"n": self.number, "verdict": self.verdict, "reason": self.reason}
        if self.sentences:
            data["sentences"] = list(self.sentences)
        return data


def cited_reason(cited: Mapping[int, str]) -> str:
    """The reason of a supported verdict that cites sentences: their numbers and their
    text, quoted (``source sentence 3: "..."``; two or more joined by `` ... ``)."""
    numbers = ", ".join(str(n) for n in cited)
    label = "source sentence" if len(cited) == 1 else "source sentences"
    quotes = " ... ".join(f'"{text}"' for text in cited.values())
    return f"{label} {numbers}: {quotes}"


@dataclass(frozen=True, slots=True)
class PairVerdict:
    """Whether propositions ``first`` and ``second`` state the same fact, and why."""

    first: int
    second: int
    same_fact: bool
    reason: str

    def to_reply_item(self) -> list[int | bool | str]:
        """The item a judge-v3 reply gives for this pair: ``[first, second, same_fact,
        reason]``."""
        return [self.first, self.second, self.same_fact, self.reason]

    def to_dict(self) -> dict[str, Any]:
        return {
            "pair": [self.first, self.second],
            "same_fact": self.same_fact,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the judge said on one case: verdicts, the calls made, or why there are none.

    ``error`` is None exactly when every call gave a whole, readable reply; then
    ``propositions`` has one verdict per proposition of the case and ``pairs`` one per
    pair asked. On an error both may be partial (the calls that did succeed).
    """

    model: str
    propositions: tuple[PropositionVerdict, ...] = ()
    pairs: tuple[PairVerdict, ...] = ()
    calls: tuple[CallUsage, ...] = ()
    error: str | None = None

    def verdict_of(self, number: int) -> PropositionVerdict | None:
        """The verdict on proposition ``number``, or None when the judge gave none."""
        return next((v for v in self.propositions if v.number == number), None)

    def pairs_with(self, number: int) -> tuple[PairVerdict, ...]:
        """The pair verdicts that involve proposition ``number``."""
        return tuple(p for p in self.pairs if number in (p.first, p.second))

    @property
    def input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.calls)


def read_judge_reply(
    raw: str | None,
    *,
    numbers: Sequence[int],
    pairs: Sequence[Pair],
    sentences: Mapping[int, str] | None = None,
) -> tuple[list[PropositionVerdict], list[PairVerdict]]:
    """Read a judge reply that must judge exactly ``numbers`` and ``pairs``.

    ``sentences`` are the source sentences the request showed, by number: the only ones a
    supported verdict may cite. Returns the verdicts in the order asked. Raises
    ReplyParseError (with the raw reply) for anything else: not a JSON array, an item that
    is neither a verdict nor a pair, an unknown verdict, an empty reason, a citation of no
    sentence or of a sentence not shown, a number or pair not asked, repeated or left out.
    """
    items = load_json_array(raw)
    shown = sentences or {}
    verdicts: dict[int, PropositionVerdict] = {}
    pair_verdicts: dict[Pair, PairVerdict] = {}
    asked_pairs = {tuple(sorted(p)): p for p in pairs}
    for position, item in enumerate(items, start=1):
        if isinstance(item, list):
            as_object = _listed(item, position, raw)
            if as_object is None:
                cited = _read_citation(item, position, numbers, verdicts, shown, raw)
                verdicts[cited.number] = cited
                continue
            item = as_object
        if not isinstance(item, Mapping):
            _fail(
                f"item {position} is {json.dumps(item)[:60]}; expected [n, sentence], "
                "[n, verdict, reason] or [a, b, true|false, reason]",
                raw,
            )
        reason = item.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            _fail(f"item {position} has no one-line reason", raw)
        if "pair" in item:
            pair = _read_pair(item, position, asked_pairs, pair_verdicts, raw)
            pair_verdicts[pair] = PairVerdict(pair[0], pair[1], item["same_fact"], reason.strip())
        else:
            number = _read_number(item, position, numbers, verdicts, raw)
            verdict = item.get("verdict")
            if verdict not in VERDICTS:
                _fail(
                    f"item {position} (proposition {number}) has verdict {verdict!r}; "
                    f"expected one of {list(VERDICTS)}",
                    raw,
                )
            verdicts[number] = PropositionVerdict(number, cast(Verdict, verdict), reason.strip())
    missing = [n for n in numbers if n not in verdicts]
    if missing:
        _fail(f"the reply skips proposition(s) {missing}: every number needs a verdict", raw)
    missing_pairs = [list(p) for p in pairs if p not in pair_verdicts]
    if missing_pairs:
        _fail(f"the reply skips pair(s) {missing_pairs}: every pair needs an answer", raw)
    return [verdicts[n] for n in numbers], [pair_verdicts[p] for p in pairs]


def _listed(item: list[Any], position: int, raw: str | None) -> dict[str, Any] | None:
    """``[n, verdict, reason]`` or ``[a, b, same_fact, reason]`` as the object judge-v2
    wrote for it, then read by the same checks (an empty reason is refused there); None
    for anything else, which is read as a citation ``[n, k, ...]``."""
    if len(item) >= 3 and isinstance(item[2], bool):
        if len(item) > 4:
            _fail(
                f"item {position} is {json.dumps(item)[:60]}; a pair is [a, b, true|false, reason]",
                raw,
            )
        return {
            "pair": item[:2],
            "same_fact": item[2],
            "reason": item[3] if len(item) == 4 else None,
        }
    if len(item) >= 2 and isinstance(item[1], str):
        if len(item) != 3:
            _fail(
                f"item {position} is {json.dumps(item)[:60]}; expected [n, k] (supported by "
                "source sentence k) or [n, verdict, reason]",
                raw,
            )
        return {"n": item[0], "verdict": item[1], "reason": item[2]}
    return None


def _read_citation(
    item: list[Any],
    position: int,
    numbers: Sequence[int],
    seen: Mapping[int, PropositionVerdict],
    shown: Mapping[int, str],
    raw: str | None,
) -> PropositionVerdict:
    """``[n, k, ...]``: proposition n supported by the shown source sentence(s) k."""
    if len(item) < 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in item):
        _fail(
            f"item {position} is {json.dumps(item)[:60]}; a supported verdict is "
            "[proposition number, source sentence number, ...]",
            raw,
        )
    number = _read_number({"n": item[0]}, position, numbers, seen, raw)
    cited = list(dict.fromkeys(item[1:]))
    unknown = [k for k in cited if k not in shown]
    if unknown:
        _fail(
            f"item {position} (proposition {number}) cites source sentence(s) {unknown}, "
            "which the <source> of the request does not show",
            raw,
        )
    return PropositionVerdict(
        number, SUPPORTED, cited_reason({k: shown[k] for k in cited}), tuple(cited)
    )


def _read_number(
    item: Mapping[str, Any],
    position: int,
    numbers: Sequence[int],
    seen: Mapping[int, PropositionVerdict],
    raw: str | None,
) -> int:
    number = item.get("n")
    if isinstance(number, bool) or not isinstance(number, int):
        _fail(f"item {position} has no proposition number 'n' (found {number!r})", raw)
    if number not in numbers:
        _fail(f"item {position} judges proposition {number}, which was not asked", raw)
    if number in seen:
        _fail(f"proposition {number} is judged twice (item {position} repeats it)", raw)
    return number


def _read_pair(
    item: Mapping[str, Any],
    position: int,
    asked: Mapping[tuple[int, ...], Pair],
    seen: Mapping[Pair, PairVerdict],
    raw: str | None,
) -> Pair:
    value = item.get("pair")
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in value)
    ):
        _fail(f"item {position} has pair {value!r}; expected two proposition numbers", raw)
    pair = asked.get(tuple(sorted(value)))
    if pair is None:
        _fail(f"item {position} answers pair {value}, which was not asked", raw)
    if pair in seen:
        _fail(f"pair {list(pair)} is answered twice (item {position} repeats it)", raw)
    if not isinstance(item.get("same_fact"), bool):
        _fail(f"item {position} (pair {value}) has no true/false 'same_fact'", raw)
    return pair


def _fail(reason: str, raw: str | None) -> NoReturn:
    """Raise the reason, capped (``quote``): a value copied from a junk reply stays short."""
    raise ReplyParseError(quote(reason, limit=2 * QUOTE_LIMIT), raw=raw)
