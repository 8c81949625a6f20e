"""Scripted models: handlers that answer the pipeline's prompts from data
(``ScriptedPipeline``), one proposition a paragraph (``ParagraphModel``), or the text
back verbatim (``VerbatimModel``)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._server import FakeReply, system_text, user_text

_NUMBERED_LINE = re.compile(r"^(\d+)\. (.*)$")


class ScriptedPipeline:
    """A handler that answers the pipeline's prompts from data, for generated documents.

    Extraction: the reply for a batch is ``extraction[batch text]`` (a list of
    propositions); a batch that packs several texts of ``extraction`` (joined by blank
    lines) is answered with their lists, concatenated in order; any other batch (one that
    holds part of a text, cut to fill a batch) with the propositions of every text that
    occur verbatim in it, in the order they occur (generated facts are their sentences).
    Grouping (grouping-v2): the numbered propositions are grouped by
    ``theme(proposition)`` and answered with numbers, themes in order of first
    appearance; with ``copy_facts`` the reply copies the texts instead (the grouping-v1
    shape, for comparison). Merge of windows: categories with the same label are joined.
    Every reply waits ``delay_s``. ``calls`` counts the requests per stage.
    """

    def __init__(
        self,
        extraction: Mapping[str, Iterable[str]],
        theme: Callable[[str], str],
        *,
        delay_s: float = 0.0,
        copy_facts: bool = False,
    ) -> None:
        from ..pipeline import extraction_user_message, load_prompt

        self._extraction = {text: list(props) for text, props in extraction.items()}
        self._wrap = extraction_user_message("\n").split("\n")
        self._systems = {
            load_prompt(stage).text: stage for stage in ("extraction", "grouping", "grouping_merge")
        }
        self._theme = theme
        self._delay_s = delay_s
        self._copy_facts = copy_facts
        self._lock = threading.Lock()
        self._said: set[str] = set()
        self.calls: dict[str, int] = {}

    def __call__(self, body: Mapping[str, Any]) -> FakeReply:
        stage = self._systems.get(system_text(body), "unknown")
        with self._lock:
            self.calls[stage] = self.calls.get(stage, 0) + 1
        first = body["messages"][0]["content"]
        if stage == "extraction":
            text = first.removeprefix(self._wrap[0] + "\n").removesuffix("\n" + self._wrap[-1])
            answer = self._extract(text)
            with self._lock:
                self._said.update(answer)
            return FakeReply(text=json.dumps(answer), delay_s=self._delay_s)
        listed = self._listed(first)
        if stage == "grouping":
            text = self._grouping(listed)
        elif stage == "grouping_merge":
            text = self._merge(listed)
        else:
            return FakeReply(status=400, text=f"ScriptedPipeline: unknown system prompt ({stage})")
        return FakeReply(text=text, delay_s=self._delay_s)

    def _listed(self, message: str) -> list[tuple[int, str]]:
        """The numbered items of a grouping or merge message. A proposition this model
        gave may span lines (a verbatim copy of wrapped text, whose lines may even open
        with "13. "): the list is read as ``1. <a proposition given>``, ``2. ...``, each
        on its own lines; a list that does not read so is read line by line."""
        body = message.split("\n", 1)[-1].rsplit("\n", 1)[0]
        by_first_line: dict[str, list[str]] = {}
        with self._lock:
            for said in self._said:
                by_first_line.setdefault(said.split("\n", 1)[0], []).append(said)
        listed: list[tuple[int, str]] = []
        at = 0  # where the next item starts in body
        while at < len(body):
            prefix = f"{len(listed) + 1}. "
            if not body.startswith(prefix, at):
                break
            at += len(prefix)
            line_end = body.find("\n", at)
            first_line = body[at : line_end if line_end >= 0 else len(body)]
            known = [
                p
                for p in by_first_line.get(first_line, [])
                if body.startswith(p, at)
                and (at + len(p) == len(body) or body[at + len(p)] == "\n")
            ]
            if not known:
                break
            item = max(known, key=len)
            listed.append((len(listed) + 1, item))
            at += len(item) + 1
        if listed and at >= len(body):
            return listed
        return [
            (int(match[1]), match[2])
            for line in message.splitlines()
            if (match := _NUMBERED_LINE.match(line))
        ]

    def _extract(self, batch: str) -> list[str]:
        """The propositions of ``batch``: its own, else those of the texts it packs."""
        if batch in self._extraction:
            return self._extraction[batch]
        found: list[str] = []
        pending: list[str] = []
        for paragraph in batch.split("\n\n"):
            pending.append(paragraph)
            if "\n\n".join(pending) in self._extraction:
                found.extend(self._extraction["\n\n".join(pending)])
                pending = []
        if not pending:
            return found
        verbatim = {p for props in self._extraction.values() for p in props if p in batch}
        return sorted(verbatim, key=batch.index)

    def _grouping(self, listed: list[tuple[int, str]]) -> str:
        groups: dict[str, list[tuple[int, str]]] = {}
        for number, text in listed:
            groups.setdefault(self._theme(text), []).append((number, text))
        key = "facts" if self._copy_facts else "fact_ids"
        return json.dumps(
            [
                {"category": label, key: [t if self._copy_facts else n for n, t in members]}
                for label, members in groups.items()
            ]
        )

    @staticmethod
    def _merge(listed: list[tuple[int, str]]) -> str:
        themes: dict[str, list[int]] = {}
        for number, label in listed:
            themes.setdefault(label, []).append(number)
        return json.dumps(
            [{"category": label, "category_ids": ids} for label, ids in themes.items()]
        )


class ParagraphModel(ScriptedPipeline):
    """A model for generated corpora: each paragraph of an extraction batch is one
    proposition; grouping puts propositions with the same first word in one theme.

    ``fail(user_text)`` true answers that request with HTTP 400 (a document's own
    failure). ``answered`` counts each distinct request (system prompt and messages) the
    model answered, i.e. was paid for, so a test can see that none was paid twice
    (``paid_twice``). With ``hold_after`` N, every request after the first N answered waits
    until ``release`` is set, then gets a 529 (overloaded: not answered, not paid): a run
    stuck half-way, to be killed."""

    def __init__(
        self,
        *,
        delay_s: float = 0.0,
        fail: Callable[[str], bool] | None = None,
        hold_after: int | None = None,
    ) -> None:
        super().__init__({}, theme=lambda text: text.split()[0], delay_s=delay_s)
        self._fail = fail
        self._hold_after = hold_after
        self.release = threading.Event()
        self.held = 0
        self.answered: dict[str, int] = {}

    def __call__(self, body: Mapping[str, Any]) -> FakeReply:
        key = json.dumps([system_text(body), body["messages"]], sort_keys=True)
        with self._lock:
            holds = self._hold_after is not None and sum(self.answered.values()) >= self._hold_after
            self.held += holds
        if holds:
            self.release.wait(60)
            return FakeReply(status=529, text="ParagraphModel: held, then overloaded (test)")
        if self._fail is not None and self._fail(user_text(body)):
            return FakeReply(status=400, text="ParagraphModel: this request fails (test)")
        reply = super().__call__(body)
        with self._lock:
            self.answered[key] = self.answered.get(key, 0) + 1
        return reply

    @property
    def paid_twice(self) -> int:
        """How many distinct requests were answered more than once."""
        with self._lock:
            return sum(1 for n in self.answered.values() if n > 1)

    def _extract(self, batch: str) -> list[str]:
        return [p.strip() for p in batch.split("\n\n") if p.strip()]


class VerbatimModel(ScriptedPipeline):
    """A model that gives the text back unchanged: each proposition of an extraction
    batch is one sentence of it (the package's segmenter, over each paragraph of the
    batch), or with ``run`` N a run of up to N consecutive sentences of one paragraph,
    copied with the whitespace between them (the exact slice of the batch's text).
    ``collapse`` gives each with its runs of whitespace collapsed to one space (what a
    model copying wrapped lines does). Grouping puts propositions with the same first
    word in one theme. For tests of provenance: every proposition is the text it was
    extracted from."""

    def __init__(self, *, run: int = 1, collapse: bool = False) -> None:
        super().__init__({}, theme=lambda text: text.split()[0])
        self._run = max(1, run)
        self._collapse = collapse

    def _extract(self, batch: str) -> list[str]:
        from .._text import sentence_spans

        out = []
        for paragraph in re.split(r"\n[ \t]*\n", batch):
            if paragraph.strip():
                spans = [(a, b) for a, b in sentence_spans(paragraph) if paragraph[a:b].strip()]
                for k in range(0, len(spans), self._run):
                    group = spans[k : k + self._run]
                    piece = paragraph[group[0][0] : group[-1][1]].strip()
                    out.append(" ".join(piece.split()) if self._collapse else piece)
        return out
