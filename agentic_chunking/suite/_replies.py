"""The hand-written reference replies, and a Messages-API handler that serves them.

A reply file (``cases/reference_replies/TC-0NN.yaml``, schema in cases/README.md) gives,
for each extraction batch of its case, the reply (a proposition list, or a raw text with
an optional stop reason and a repair answer), then the grouping reply. Its
``input_sha256`` is ``input_hash(case)`` of the case input it was written for: a reply
file whose case input changed since is refused (``load_replies``), never paired quietly
with the new input. They are served
under the model id ``reference`` so that no cassette built from them bears a real
model's name.

The grouping is written by hand as readable fact texts (or as ``fact_ids``); the server
answers the grouping-v2 prompt with numbers, derived mechanically: each fact text is
replaced by its number in the numbered list the request carries. An entry with a fact
that is not in that list is served as texts, so the pipeline refuses it loudly.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .._errors import CaseError, ConfigurationError
from .._loopback import FakeReply, system_text
from ..client import parse_model
from ..pipeline import extraction_user_message, load_prompt, normalise_space, plan_batches
from ._cases import Case, _describe, safe_load_yaml
from ._judge_replies import JudgeReplies, answer_judge_request

REFERENCE_MODEL = "reference"


def is_reference(model: str) -> bool:
    """Whether ``model`` names the hand-written replies, on any provider (``reference``,
    ``openai:reference``): such cassettes are rebuilt, never recorded from a model."""
    try:
        return parse_model(model).name == REFERENCE_MODEL
    except ConfigurationError:
        return False


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReplyText(_Strict):
    """One reply: a proposition list (sent as a JSON array) or a raw text."""

    propositions: tuple[str, ...] | None = None
    raw: str | None = None
    stop_reason: str = "end_turn"

    @model_validator(mode="after")
    def _one_body(self) -> ReplyText:
        if (self.propositions is None) == (self.raw is None):
            raise ValueError("give exactly one of `propositions` or `raw`")
        return self

    def text(self) -> str:
        if self.raw is not None:
            return self.raw
        return json.dumps(list(self.propositions or ()), ensure_ascii=False)


class ExtractionReply(ReplyText):
    """One batch's reply: ``chunk_id`` names the batch's one input chunk, ``chunk_ids`` the
    input chunks of a batch that packs several (exactly one of the two is given)."""

    chunk_id: str | None = Field(default=None, min_length=1)
    chunk_ids: tuple[str, ...] | None = Field(default=None, min_length=1)
    repair: ReplyText | None = None

    @model_validator(mode="after")
    def _one_id_field(self) -> ExtractionReply:
        if (self.chunk_id is None) == (self.chunk_ids is None):
            raise ValueError("give exactly one of `chunk_id` or `chunk_ids`")
        return self

    @property
    def ids(self) -> tuple[str, ...]:
        """The input chunk ids of the batch this reply answers."""
        return (self.chunk_id,) if self.chunk_id is not None else tuple(self.chunk_ids or ())


class GroupEntry(_Strict):
    category: str
    facts: tuple[str, ...] | None = None
    fact_ids: tuple[int, ...] | None = None


class ReferenceReplies(_Strict):
    """The replies of one case: extraction per batch, in batch order, then grouping."""

    case: str
    input_sha256: str | None = None
    extraction: tuple[ExtractionReply, ...] = ()
    grouping: tuple[GroupEntry, ...] | None = None
    grouping_raw: str | None = None
    grouping_stop_reason: str = "end_turn"
    judge: JudgeReplies | None = None

    def grouping_text(self, numbered: Sequence[str] | None = None) -> str | None:
        """The grouping reply; with ``numbered`` (the list the request numbered from 1),
        facts given as texts are sent as their numbers (``fact_ids``)."""
        if self.grouping_raw is not None:
            return self.grouping_raw
        if self.grouping is None:
            return None
        return json.dumps([_as_numbers(g, numbered) for g in self.grouping], ensure_ascii=False)


def _as_numbers(entry: GroupEntry, numbered: Sequence[str] | None) -> dict[str, Any]:
    plain = entry.model_dump(exclude_none=True)
    if numbered is None or entry.facts is None:
        return plain
    numbers = {normalise_space(text): n for n, text in enumerate(numbered, 1)}
    keys = [normalise_space(fact) for fact in entry.facts]
    if not all(key in numbers for key in keys):
        return plain
    return {"category": entry.category, "fact_ids": [numbers[key] for key in keys]}


def numbered_list(message: str) -> list[str]:
    """The propositions of a grouping user message (``<propositions>``, ``N. text`` lines)."""
    body = message.removeprefix("<propositions>\n").removesuffix("\n</propositions>")
    return [_NUMBERED.sub("", line, count=1) for line in body.split("\n")]


_NUMBERED = re.compile(r"^\d+\. ")


def input_hash(case: Case) -> str:
    """SHA-256 of what a reply answers: the case's input chunks, batch limit and pipeline
    settings (not its labels or expectations, which a reply does not depend on)."""
    answered = {
        "inputs": [[c.chunk_id, c.text] for c in case.inputs],
        "max_tokens_per_batch": case.max_tokens_per_batch,
        "pipeline": case.pipeline.model_dump(),
    }
    text = json.dumps(answered, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def replies_path(case: Case, replies_dir: Path) -> Path:
    return Path(replies_dir) / f"{case.id}.yaml"


def load_replies(case: Case, replies_dir: Path) -> ReferenceReplies:
    """Read the case's reply file and check it answers the case's batches, one by one, and
    was written for the case's current input (``input_sha256``); CaseError otherwise."""
    path = replies_path(case, replies_dir)
    try:
        data = safe_load_yaml(path.read_text(encoding="utf-8"))
        replies = ReferenceReplies.model_validate(data)
    except OSError as error:
        raise CaseError(f"{path}: cannot be read ({error.strerror})") from None
    except yaml.YAMLError as error:
        raise CaseError(f"{path}: is not valid YAML ({error})") from None
    except ValidationError as error:
        raise CaseError(f"{path}: {_describe(error)}") from None
    batches = plan_batches(case.agentic_inputs(), case.max_tokens_per_batch)
    planned = [list(b.chunk_ids) for b in batches]
    given = [list(e.ids) for e in replies.extraction]
    if replies.case != case.id or planned != given:
        raise CaseError(
            f"{path}: answers case {replies.case} with extraction entries for chunks {given}, "
            f"but {case.id} plans batches for chunks {planned}: one entry per batch, in order "
            "(a batch that packs several input chunks is one entry with `chunk_ids: [...]`)"
        )
    _check_input_hash(case, replies, path)
    return replies


def _check_input_hash(case: Case, replies: ReferenceReplies, path: Path) -> None:
    current = input_hash(case)
    if replies.input_sha256 == current:
        return
    if replies.input_sha256 is None:
        problem = "has no input_sha256, so nothing says which input of the case it answers"
    else:
        problem = (
            f"was written for another input of {case.id} (input_sha256 {replies.input_sha256}"
            f"), and the case's input, batch limit or pipeline settings changed since"
        )
    raise CaseError(
        f"{path}: {problem}. Review its hand-written replies against the current case file "
        f"({case.id}.yaml) and update them, then set `input_sha256: {current}` in {path.name}"
    )


class ReferenceServer:
    """A Messages-API handler (for FakeMessagesServer) answering one case at a time.

    ``use(case, replies)`` makes a case current. Extraction requests are recognised by
    their batch text, repair turns by their extra messages, the grouping request by its
    prompt. A request the current replies do not answer gets a 400 that says what was
    asked, so a stale reply file is loud rather than quietly answered.
    """

    def __init__(self) -> None:
        self._extraction: dict[str, ExtractionReply] = {}
        self._replies: ReferenceReplies | None = None
        self._extraction_prompt = load_prompt("extraction").text
        self._grouping_prompt = load_prompt("grouping").text
        self._judge_prompt = load_prompt("judge").text

    def use(self, case: Case, replies: ReferenceReplies) -> None:
        """Answer ``case``'s requests with ``replies`` from now on."""
        batches = plan_batches(case.agentic_inputs(), case.max_tokens_per_batch)
        self._extraction = {
            extraction_user_message(batch.text): reply
            for batch, reply in zip(batches, replies.extraction, strict=True)
        }
        self._replies = replies

    def __call__(self, body: Mapping[str, Any]) -> FakeReply:
        messages = list(body.get("messages", []))
        first = _content(messages[0]) if messages else ""
        system = system_text(body)
        if system == self._extraction_prompt and first in self._extraction:
            entry = self._extraction[first]
            reply: ReplyText = entry
            if len(messages) > 1:
                if entry.repair is None:
                    return _unanswered("a repair turn the reply file does not answer", first)
                reply = entry.repair
            return FakeReply(
                text=reply.text(), stop_reason=reply.stop_reason, model=REFERENCE_MODEL
            )
        if system == self._grouping_prompt and self._replies is not None:
            text = self._replies.grouping_text(numbered_list(first))
            if text is not None:
                return FakeReply(
                    text=text,
                    stop_reason=self._replies.grouping_stop_reason,
                    model=REFERENCE_MODEL,
                )
        if system == self._judge_prompt and self._replies is not None and len(messages) == 1:
            answer = answer_judge_request(self._replies.judge, first, model=REFERENCE_MODEL)
            return _unanswered(answer, first) if isinstance(answer, str) else answer
        return _unanswered("a request no reference reply answers", first)


def _content(message: Mapping[str, Any]) -> str:
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, Mapping))


def _unanswered(what: str, first: str) -> FakeReply:
    return FakeReply(
        status=400,
        error_type="invalid_request_error",
        text=f"reference server: {what}; first user message begins {first[:120]!r}",
    )
