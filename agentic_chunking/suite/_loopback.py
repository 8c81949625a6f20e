"""A loopback model for tests and benchmarks: the cases' reference replies, changed on demand.

``LoopbackModel`` is a handler for ``FakeMessagesServer`` or ``FakeChatCompletionsServer``
(both hand it a Messages-API body) that answers every case of a cases folder at once:

- the pipeline's extraction and grouping requests, and the judge's, from the reference
  reply files (``ReferenceServer``), so a suite run against it records what the
  ``reference`` cassettes hold, under any model name and on either wire format;
- with ``edit``, each extraction reply that is a proposition list goes through
  ``edit(case_id, propositions)`` first (a fact dropped, a number invented: a candidate
  model for a comparison); the grouping of a changed case then puts every proposition under
  the reference grouping's first category, and the judge's verdicts on propositions the
  reply file does not know are ``generic_judge_reply``'s;
- any other request (another chunker's own prompt, or an extraction of one chunk of a
  batch the reference packs with others) is answered with the reference propositions of
  the input chunks its last user message quotes, as a JSON array, or ``[]`` when it
  quotes none (a packed batch's propositions are shared out among its chunks by the
  words they share).

The replies are hand-written (``reference``); the model a reply names is the one asked
for. Nothing here is a measurement of any real model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._loopback import FakeReply, system_text, user_text
from ..judge import PairVerdict, PropositionVerdict, read_judge_request
from ..pipeline import load_prompt, parse_propositions
from ._cases import Case, load_cases
from ._replies import (
    ExtractionReply,
    ReferenceReplies,
    ReferenceServer,
    load_replies,
    numbered_list,
)

Edit = Callable[[str, list[str]], list[str]]
"""``edit(case_id, propositions)``: the propositions a changed model replies instead."""

_WORD = re.compile(r"\w+")


class LoopbackModel:
    """A handler answering every case of ``cases_dir`` (see the module)."""

    def __init__(self, cases_dir: Path, *, edit: Edit | None = None) -> None:
        self.cases: list[Case] = load_cases(cases_dir)
        replies_dir = Path(cases_dir) / "reference_replies"
        self._replies: dict[str, ReferenceReplies] = {
            case.id: load_replies(case, replies_dir) for case in self.cases
        }
        self._servers: dict[str, ReferenceServer] = {}
        for case in self.cases:
            self._servers[case.id] = server = ReferenceServer()
            server.use(case, self._replies[case.id])
        self._edit = edit
        self._changed: dict[str, set[str]] = {}
        """case id -> the propositions its changed replies hold."""
        self._prompts = {
            load_prompt(stage).text: stage for stage in ("extraction", "grouping", "judge")
        }
        self._per_chunk: dict[str, list[str]] = {}
        """An input chunk's text (whitespace collapsed) -> its reference propositions (a
        packed batch's are shared out by the words they share with each of its chunks)."""
        for case in self.cases:
            for reply in self._replies[case.id].extraction:
                texts = self._texts(case, reply.ids)
                for text in texts:
                    self._per_chunk.setdefault(text, [])
                for proposition in _propositions(reply):
                    owner = max(texts, key=lambda t: _shared(proposition, t), default=None)
                    if owner is not None:
                        self._per_chunk[owner].append(proposition)

    def __call__(self, body: Mapping[str, Any]) -> FakeReply:
        stage = self._prompts.get(system_text(body))
        model = str(body.get("model", ""))
        if stage is None:
            return FakeReply(text=json.dumps(self._quoted(body), ensure_ascii=False), model=model)
        if stage == "grouping":
            changed = self._changed_grouping(body)
            if changed is not None:
                return FakeReply(text=changed, model=model)
        servers = list(self._servers.items())
        if stage == "grouping":  # the case whose propositions these are, before any other
            servers.sort(key=lambda item: -self._overlap(item[0], body))
        for case_id, server in servers:
            reply = server(body)
            if reply.status == 200:
                edited = self._edited(case_id, reply) if stage == "extraction" else reply
                return _as_model(edited, model)
        if stage == "judge":
            return FakeReply(text=generic_judge_reply(user_text(body)), model=model)
        if stage == "extraction" and self._quoted(body):  # one chunk of a packed batch
            return FakeReply(text=json.dumps(self._quoted(body), ensure_ascii=False), model=model)
        return reply

    def _overlap(self, case_id: str, body: Mapping[str, Any]) -> int:
        """How many of a grouping request's propositions ``case_id``'s replies hold."""
        listed = set(numbered_list(user_text(body)))
        held = {p for reply in self._replies[case_id].extraction for p in _propositions(reply)}
        return len(listed & held)

    def _edited(self, case_id: str, reply: FakeReply) -> FakeReply:
        if self._edit is None:
            return reply
        try:
            propositions = json.loads(reply.text)
        except ValueError:
            return reply
        if not isinstance(propositions, list):
            return reply
        edited = self._edit(case_id, [str(p) for p in propositions])
        if edited != propositions:
            self._changed.setdefault(case_id, set()).update(edited)
        return FakeReply(text=json.dumps(edited, ensure_ascii=False), stop_reason=reply.stop_reason)

    def _changed_grouping(self, body: Mapping[str, Any]) -> str | None:
        listed = numbered_list(user_text(body))
        for case_id, held in self._changed.items():
            if listed and set(listed) <= held:
                entries = self._replies[case_id].grouping or ()
                label = entries[0].category if entries else "Facts"
                ids = list(range(1, len(listed) + 1))
                return json.dumps([{"category": label, "fact_ids": ids}], ensure_ascii=False)
        return None

    @staticmethod
    def _texts(case: Case, chunk_ids: Sequence[str]) -> tuple[str, ...]:
        return tuple(" ".join(i.text.split()) for i in case.inputs if i.chunk_id in chunk_ids)

    def _quoted(self, body: Mapping[str, Any]) -> list[str]:
        """The reference propositions of every input chunk the last user message quotes
        (whitespace collapsed), in the order the message quotes them."""
        text = " ".join(user_text(body).split())
        quoted = sorted((text.find(chunk), chunk) for chunk in self._per_chunk if chunk in text)
        return [p for _, chunk in quoted for p in self._per_chunk[chunk]]


def _propositions(reply: ExtractionReply) -> list[str]:
    """The propositions a reference extraction reply gives the pipeline: its list, else
    what the pipeline's tolerant parser reads from its raw text, else its repair's."""
    if reply.propositions is not None:
        return list(reply.propositions)
    for text in (reply.raw, None if reply.repair is None else reply.repair.text()):
        found = parse_propositions(text)  # never raises: [] for an unreadable text
        if found:
            return found
    return []


def _as_model(reply: FakeReply, model: str) -> FakeReply:
    """``reply`` naming ``model``, as a real API names the model asked for."""
    from dataclasses import replace

    return replace(reply, model=model)


def generic_judge_reply(message: str) -> str:
    """A judge-v3 reply to ``message`` that finds every proposition supported by the source
    sentence sharing the most words with it, and no pair the same fact: a stand-in judge,
    never a measurement."""
    asked = read_judge_request(message)
    items: list[Sequence[object]] = []
    for number, text in asked.propositions.items():
        best = max(asked.sentences, key=lambda k: _shared(text, asked.sentences[k]), default=None)
        if best is None:
            items.append(PropositionVerdict(number, "not_supported", "no source").to_reply_item())
        else:
            items.append(PropositionVerdict(number, "supported", "", (best,)).to_reply_item())
    for first, second in asked.pairs:
        items.append(PairVerdict(first, second, False, "different facts").to_reply_item())
    return json.dumps(items, ensure_ascii=False)


def _shared(first: str, second: str) -> int:
    return len(set(_WORD.findall(first.lower())) & set(_WORD.findall(second.lower())))
