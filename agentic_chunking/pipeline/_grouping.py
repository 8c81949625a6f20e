"""Step 4 of the live pipeline: grouping by proposition number, in windows when long.

The grouping prompt (grouping-v2) numbers the merged propositions and the model answers
with numbers (``fact_ids``), so its reply grows by a few tokens per proposition instead of
a copy of each. When the propositions are more than one call can answer within its
``max_tokens`` (estimated by :func:`plan_windows`), they are grouped in consecutive
windows (each numbered from 1 and checked as a partition of its window), and a final
merge call over the windows' category labels, with a few example facts each, joins the
categories that name one theme, so the themes are global. Whatever the path, the result
is checked as a partition of the whole document before it is returned.

A grouping or merge reply that is not a partition gets one repair turn (per the
pipeline's ``max_repair_attempts``) naming exactly the numbers missing, repeated or out of
range; after that the run fails as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from .._models import CallUsage, estimate_tokens
from ._conversation import Breach, Outcome
from ._normalise import NumberedReply, parse_numbered_grouping
from ._partition import NumberedPartition, check_numbered_partition
from ._prompts import (
    GROUPING_MERGE_SHAPE,
    GROUPING_SHAPE,
    grouping_merge_user_message,
    grouping_user_message,
)
from ._threads import map_abandoning

ID_OUTPUT_TOKENS = 2
"""Output tokens one cited number costs ("17, "), a deliberate overestimate."""
GROUP_OUTPUT_TOKENS = 16
"""Output tokens of one group's frame and label (``{"category": "...", "fact_ids": []}``)."""
FACTS_PER_GROUP_FLOOR = 4
"""The plan assumes groups no smaller than this on average (more groups = more output)."""
OUTPUT_SHARE = 0.75
"""A window is planned to need at most this share of the grouping ``max_tokens``."""
MAX_WINDOW_INPUT_TOKENS = 60_000
"""A window's numbered list is kept under this many input tokens (estimate: chars / 4)."""
MERGE_EXAMPLES = 3
"""Example propositions shown per category in the merge call."""


class Ask(Protocol):
    """The pipeline's call-parse-repair loop, as the grouping stage uses it."""

    def __call__(
        self,
        *,
        stage: str,
        batch: int | None,
        messages: list[dict[str, str]],
        parse: Callable[[str], Any],
        check: Callable[[Any], Breach | None],
        shape: str,
    ) -> Outcome: ...


Done = Callable[[str, int, str, str, Sequence[CallUsage]], None]
"""Told of each finished step: stage, the stage's total, a label, a status and its calls
(``_plan.ProgressTally.done``)."""


def estimate_output_tokens(count: int) -> int:
    """Planned output tokens of a numbered grouping of ``count`` propositions."""
    groups = -(-count // FACTS_PER_GROUP_FLOOR)
    return count * ID_OUTPUT_TOKENS + groups * GROUP_OUTPUT_TOKENS + 8


def window_capacity(max_tokens: int) -> int:
    """The most propositions one grouping call is planned for under ``max_tokens``
    (at least 1): the planned output stays within ``OUTPUT_SHARE`` of ``max_tokens``."""
    budget = int(max_tokens * OUTPUT_SHARE)
    low, high = 1, max(1, budget)
    while low < high:  # estimate_output_tokens grows with the count: bisect
        middle = (low + high + 1) // 2
        if estimate_output_tokens(middle) <= budget:
            low = middle
        else:
            high = middle - 1
    return low


def plan_windows(texts: Sequence[str], max_tokens: int) -> list[range]:
    """Split ``range(len(texts))`` into consecutive windows one grouping call can answer.

    A window's planned output (:func:`estimate_output_tokens`) stays within
    ``OUTPUT_SHARE`` of ``max_tokens`` and its numbered list under
    ``MAX_WINDOW_INPUT_TOKENS``; their sizes differ by at most one where the input bound
    does not cut a window short. One window (the single-call path) when everything fits.
    Every index is in exactly one window.
    """
    capacity = window_capacity(max_tokens)
    if texts:
        capacity = math.ceil(len(texts) / math.ceil(len(texts) / capacity))
    windows: list[range] = []
    start = 0
    while start < len(texts):
        stop, used = start, 0
        while stop < len(texts) and stop - start < capacity:
            cost = estimate_tokens(texts[stop]) + 3
            if stop > start and used + cost > MAX_WINDOW_INPUT_TOKENS:
                break
            used += cost
            stop += 1
        windows.append(range(start, stop))
        start = stop
    return windows


def group(
    texts: Sequence[str],
    ask: Ask,
    *,
    max_tokens: int,
    max_concurrency: int = 1,
    on_done: Done | None = None,
) -> Outcome:
    """Group ``texts`` (the merged propositions, numbered from 1) by theme.

    The value is ``[(category, [number, ...]), ...]`` in reply order, 1-based numbers into
    ``texts``, every number in exactly one group (checked before returning).
    """
    windows = plan_windows(texts, max_tokens)
    if len(windows) == 1:
        return _group_window(texts, ask, window=None)

    def run(number: int, window: range) -> Outcome:
        outcome = _group_window([texts[i] for i in window], ask, window=number)
        if on_done is not None:
            status = "failed" if outcome.error else f"{len(outcome.value)} categories"
            label = f"window {number}, {len(window)} propositions"
            on_done("grouping window", len(windows), label, status, outcome.calls)
        return outcome

    outcomes = map_abandoning(
        lambda numbered: run(*numbered),
        list(enumerate(windows, start=1)),
        max_workers=max_concurrency,
        name="grouping",
    )
    calls = [call for outcome in outcomes for call in outcome.calls]
    errors = [outcome.error for outcome in outcomes if outcome.error]
    if errors:
        return Outcome(value=None, error="; ".join(errors), calls=tuple(calls))
    categories = [
        (label, [window.start + n for n in ids])
        for window, outcome in zip(windows, outcomes, strict=True)
        for label, ids in outcome.value
    ]
    if len(categories) > window_capacity(max_tokens):
        return Outcome(
            value=None,
            error=(
                f"the {len(windows)} grouping windows gave {len(categories)} categories, more "
                f"than one merge call can answer within the grouping max_tokens ({max_tokens}, "
                f"room for {window_capacity(max_tokens)}); raise the grouping max_tokens"
            ),
            calls=tuple(calls),
        )
    merged = _merge_categories(texts, categories, ask)
    calls.extend(merged.calls)
    if on_done is not None:
        status = "failed" if merged.error else f"{len(merged.value)} themes"
        on_done("grouping merge", 1, f"{len(categories)} categories", status, merged.calls)
    return Outcome(value=merged.value, error=merged.error, calls=tuple(calls))


def _group_window(texts: Sequence[str], ask: Ask, *, window: int | None) -> Outcome:
    where = "the grouping reply" if window is None else f"the grouping reply for window {window}"
    outcome = ask(
        stage="grouping",
        batch=window,
        messages=[{"role": "user", "content": grouping_user_message(texts)}],
        parse=lambda raw: parse_numbered_grouping(raw, propositions=texts),
        check=lambda reply: _breach(reply, texts, where),
        shape=GROUPING_SHAPE,
    )
    if outcome.error:
        return outcome
    reply: NumberedReply = outcome.value
    return Outcome(
        value=[(g.category, list(g.ids)) for g in reply.groups], error=None, calls=outcome.calls
    )


def _merge_categories(
    texts: Sequence[str], categories: Sequence[tuple[str, list[int]]], ask: Ask
) -> Outcome:
    """One call joining the windows' categories into global themes; numbers stay global."""
    labels = [label for label, _ in categories]
    shown = [(label, [texts[n - 1] for n in ids[:MERGE_EXAMPLES]]) for label, ids in categories]
    outcome = ask(
        stage="grouping_merge",
        batch=None,
        messages=[{"role": "user", "content": grouping_merge_user_message(shown)}],
        parse=lambda raw: parse_numbered_grouping(raw, propositions=labels, key="category_ids"),
        check=lambda reply: _breach(reply, labels, "the grouping merge reply", "categories"),
        shape=GROUPING_MERGE_SHAPE,
    )
    if outcome.error:
        return outcome
    reply: NumberedReply = outcome.value
    themes = [
        (theme.category, [n for c in theme.ids for n in categories[c - 1][1]])
        for theme in reply.groups
    ]
    whole = check_numbered_partition([(ids, ()) for _, ids in themes], len(texts))
    if not whole.ok:  # cannot happen when every window and the merge are partitions
        return Outcome(value=None, error=whole.describe(texts), calls=outcome.calls)
    return Outcome(value=themes, error=None, calls=outcome.calls)


def _breach(
    reply: NumberedReply, listed: Sequence[str], where: str, what: str = "extracted propositions"
) -> Breach | None:
    partition: NumberedPartition = check_numbered_partition(
        [(g.ids, g.unknown) for g in reply.groups], len(listed)
    )
    if partition.ok:
        return None
    detail = partition.describe(listed, what).replace("the grouping reply", where, 1)
    if reply.skipped:
        detail += " (" + "; ".join(reply.skipped) + ")"
    return Breach(reason=partition.repair_reason(), detail=detail)
