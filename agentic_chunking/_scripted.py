"""``ScriptedPipeline``: a FakeMessagesServer handler answering from data (see testing)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .testing import FakeReply

_NUMBERED_LINE = re.compile(r"^(\d+)\. (.*)$")


class ScriptedPipeline:
    """A handler that answers the pipeline's prompts from data, for generated documents.

    Extraction: the reply for a batch is ``extraction[batch text]`` (a list of
    propositions). Grouping (grouping-v2): the numbered propositions are grouped by
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
        from ._prompts import extraction_user_message, load_prompt

        self._extraction = {
            extraction_user_message(text): json.dumps(list(props))
            for text, props in extraction.items()
        }
        self._systems = {
            load_prompt(stage).text: stage for stage in ("extraction", "grouping", "grouping_merge")
        }
        self._theme = theme
        self._delay_s = delay_s
        self._copy_facts = copy_facts
        self._lock = threading.Lock()
        self.calls: dict[str, int] = {}

    def __call__(self, body: Mapping[str, Any]) -> FakeReply:
        stage = self._systems.get(str(body.get("system")), "unknown")
        with self._lock:
            self.calls[stage] = self.calls.get(stage, 0) + 1
        first = body["messages"][0]["content"]
        if stage == "extraction":
            return FakeReply(text=self._extraction[first], delay_s=self._delay_s)
        listed = [
            (int(match[1]), match[2])
            for line in first.splitlines()
            if (match := _NUMBERED_LINE.match(line))
        ]
        if stage == "grouping":
            text = self._grouping(listed)
        elif stage == "grouping_merge":
            text = self._merge(listed)
        else:
            return FakeReply(status=400, text=f"ScriptedPipeline: unknown system prompt ({stage})")
        return FakeReply(text=text, delay_s=self._delay_s)

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
