"""The hand-written reference judge: verdicts in a reply file's ``judge:`` section.

A case's reply file ends with a ``judge:`` section (schema in cases/README.md): one
verdict per proposition of the reference run, keyed by the proposition's text, and one
answer per pair of possible duplicates, keyed by the two texts. A supported verdict cites
the source sentence(s) stating it by number (``sentences``: the case's sentences numbered
as ``judge.number_sentences`` does, the same in every request); any other verdict and
every pair gives a ``reason``. The reference server answers a judge request from it in
the judge-v3 reply shape by reading the request's numbers, pairs and sentences, so the
verdicts do not depend on proposition numbering; a proposition or pair the section does
not answer, or a cited sentence the request does not show, is a loud error (a stale reply
file), never a default verdict.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .._loopback import FakeReply
from ..judge import PairVerdict, PropositionVerdict, read_judge_request


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class JudgedProposition(_Strict):
    proposition: str = Field(min_length=1)
    verdict: Literal["supported", "not_supported", "needs_context", "not_atomic"]
    sentences: tuple[int, ...] = ()
    reason: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _cited_or_reasoned(self) -> JudgedProposition:
        if self.verdict == "supported" and (not self.sentences or self.reason is not None):
            raise ValueError(
                "a supported verdict cites its source sentence numbers (`sentences`) and "
                "gives no `reason`"
            )
        if self.verdict != "supported" and (self.sentences or self.reason is None):
            raise ValueError(f"a {self.verdict} verdict gives a `reason` and no `sentences`")
        if any(k < 1 for k in self.sentences):
            raise ValueError("source sentence numbers start at 1")
        return self


class JudgedPair(_Strict):
    first: str = Field(min_length=1)
    second: str = Field(min_length=1)
    same_fact: bool
    reason: str = Field(min_length=1)


class JudgeReplies(_Strict):
    """The reference judge's answers on one case (or a ``raw`` reply text, for edge cases)."""

    propositions: tuple[JudgedProposition, ...] = ()
    pairs: tuple[JudgedPair, ...] = ()
    raw: str | None = None
    stop_reason: str = "end_turn"


def _key(text: str) -> str:
    return " ".join(text.split())


def answer_judge_request(
    judge: JudgeReplies | None, message: str, *, model: str
) -> FakeReply | str:
    """The reply to a judge request from ``judge``, or a str saying what it leaves unanswered."""
    if judge is None:
        return "a judge request, but the reply file has no judge section"
    if judge.raw is not None:
        return FakeReply(text=judge.raw, stop_reason=judge.stop_reason, model=model)
    asked = read_judge_request(message)
    texts = {**asked.others, **asked.propositions}
    verdicts = {_key(v.proposition): v for v in judge.propositions}
    pairs = {frozenset((_key(p.first), _key(p.second))): p for p in judge.pairs}
    items: list[object] = []
    for number, text in asked.propositions.items():
        found = verdicts.get(_key(text))
        if found is None:
            return (
                f"a judge request for proposition {number} {text!r}, which the judge section lacks"
            )
        unshown = [k for k in found.sentences if k not in asked.sentences]
        if unshown:
            return (
                f"a judge request for proposition {number} {text!r}, whose verdict cites "
                f"source sentence(s) {unshown} the request does not show"
            )
        verdict = PropositionVerdict(number, found.verdict, found.reason or "", found.sentences)
        items.append(verdict.to_reply_item())
    for first, second in asked.pairs:
        pair = pairs.get(frozenset((_key(texts[first]), _key(texts[second]))))
        if pair is None:
            return f"a judge request for pair {first} | {second}, which the judge section lacks"
        items.append(PairVerdict(first, second, pair.same_fact, pair.reason).to_reply_item())
    return FakeReply(
        text=json.dumps(items, ensure_ascii=False), stop_reason=judge.stop_reason, model=model
    )
