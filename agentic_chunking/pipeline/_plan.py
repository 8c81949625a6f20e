"""The run plan (``chunk --dry-run``) and progress with tokens so far, for long documents.

``plan_run`` says what a run would do without calling the model: the extraction batches,
the grouping windows, estimated input and output tokens, and the estimated cost for a
model whose price is known. Everything it cannot know before the model answers is an
estimate, and is labelled so: propositions per source sentence (``PROPOSITIONS_PER_
SENTENCE``) and their length (``PROPOSITION_CHARS``) are measured on the 32 reference
cases; tokens are characters / 4, as the seed counts them.

``ProgressTally`` turns each finished call into a progress line with the stage's count
done out of its total and the tokens so far.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._models import AgenticChunkInput, CallUsage, estimate_tokens
from .._text import split_sentences
from ..client import (
    CACHE_READ_RATE,
    CACHE_WRITE_RATE,
    cache_min_tokens,
    estimate_cost_usd,
)
from ._batches import Batch, plan_batches
from ._grouping import GROUP_OUTPUT_TOKENS, estimate_output_tokens, window_capacity
from ._options import PipelineOptions
from ._prompts import extraction_user_message, load_prompt

PROPOSITIONS_PER_SENTENCE = 1.57
"""Propositions a source sentence gives, on average (440 from 280 sentences, 32 cases)."""
PROPOSITION_CHARS = 68
"""Mean characters of a proposition in the reference replies of the 32 cases."""
MERGE_CHARS_PER_CATEGORY = 3 * PROPOSITION_CHARS + 40
"""Characters one category takes in the merge call: its label and three example facts."""


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What a run would do. Token and proposition figures are estimates (see the module)."""

    model: str
    batches: int
    input_chunks: int
    estimated_propositions: int
    grouping_windows: int
    estimated_input_tokens: int
    estimated_output_tokens: int
    estimated_cost_usd: float | None
    cache_write_tokens: int = 0
    """System-prompt tokens written to the prompt cache (first call of each cached stage)."""
    cache_read_tokens: int = 0
    """System-prompt tokens read from the prompt cache (every later call of that stage)."""
    cost_without_cache_usd: float | None = None
    """The same run's estimated cost if no prompt were cached."""
    cache_note: str = ""
    """Why the system prompts are cached or not (sizes against the model's minimum)."""
    batched: bool = False
    """Planned through the provider's batch API: the costs are at the batch price."""
    listed_cost_usd: float | None = None
    """The same run's estimated cost sent call by call, at the listed price (batched only)."""

    def lines(self) -> list[str]:
        """The plan as lines a person reads."""
        cost = (
            f"${self.estimated_cost_usd:.4f}"
            if self.estimated_cost_usd is not None
            else f"unknown (no price known for model {self.model!r})"
        )
        merge = " + 1 merge call" if self.grouping_windows > 1 else ""
        return [
            f"model: {self.model}",
            f"extraction: {self.batches} batches from {self.input_chunks} input chunks",
            f"propositions (estimate): about {self.estimated_propositions}",
            f"grouping: {self.grouping_windows} window(s){merge}",
            f"tokens (estimate): {self.estimated_input_tokens:,} in, "
            f"{self.estimated_output_tokens:,} out",
            f"prompt caching: {self.cache_note}",
            f"cost (estimate): {cost}{self._saving()}{self._batch_saving()}",
        ]

    def _batch_saving(self) -> str:
        if not self.batched or self.estimated_cost_usd is None or self.listed_cost_usd is None:
            return ""
        saved = self.listed_cost_usd - self.estimated_cost_usd
        return (
            f", at the batch price (${self.listed_cost_usd:.4f} sent call by call: "
            f"${saved:.4f} saved)"
        )

    def _saving(self) -> str:
        if self.estimated_cost_usd is None or self.cost_without_cache_usd is None:
            return ""
        saved = self.cost_without_cache_usd - self.estimated_cost_usd
        if not (self.cache_write_tokens or self.cache_read_tokens):
            return ""
        return (
            f" with prompt caching (${self.cost_without_cache_usd:.4f} without it: "
            f"${saved:.4f} saved)"
        )


def plan_run(
    inputs: Sequence[AgenticChunkInput | Mapping[str, Any]],
    options: PipelineOptions,
    *,
    batched: bool = False,
) -> RunPlan:
    """Plan a run of ``inputs`` with ``options`` without calling the model.

    The batches are ``plan_batches``'s, the run's own; the ``max_tokens`` limits are
    checked as the run checks them (``PipelineOptions.check``). ``batched``: the run goes
    through the provider's batch API (``client.BatchClient``), so its costs are at the
    batch price, and the plan says what sending the calls one by one would cost. Raises
    InputError on bad input or a ``max_tokens`` the run would refuse.
    """
    options.check()
    model = options.model_id
    batches = plan_batches(inputs, options.max_tokens_per_batch)
    tokens = _estimate(batches, options.grouping_max_tokens)
    stages = [
        ("extraction", len(load_prompt("extraction").text), len(batches)),
        ("grouping", len(load_prompt("grouping").text), tokens.windows),
    ]
    write, read, note = _prompt_cache(model, stages)
    cost, listed = (
        estimate_cost_usd(
            model,
            tokens.input_tokens - write - read,
            tokens.output_tokens,
            cache_write_tokens=write,
            cache_read_tokens=read,
            batched=batch_price,
        )
        for batch_price in (batched, False)
    )
    return RunPlan(
        model=model,
        batches=len(batches),
        input_chunks=len({i for b in batches for i in b.chunk_ids}),
        estimated_propositions=tokens.propositions,
        grouping_windows=tokens.windows,
        estimated_input_tokens=tokens.input_tokens,
        estimated_output_tokens=tokens.output_tokens,
        estimated_cost_usd=cost,
        cache_write_tokens=write,
        cache_read_tokens=read,
        cost_without_cache_usd=estimate_cost_usd(
            model, tokens.input_tokens, tokens.output_tokens, batched=batched
        ),
        cache_note=note,
        batched=batched,
        listed_cost_usd=listed if batched else None,
    )


@dataclass(frozen=True, slots=True)
class _Estimate:
    """What the calls of a run would carry, estimated (see the module)."""

    propositions: int
    windows: int
    input_tokens: int
    output_tokens: int


def _estimate(batches: Sequence[Batch], grouping_max_tokens: int) -> _Estimate:
    """The propositions, grouping windows and tokens in and out of a run of ``batches``:
    every extraction call, the grouping windows and, past one window, the merge call."""
    extraction_prompt = len(load_prompt("extraction").text)
    grouping_prompt = len(load_prompt("grouping").text)
    input_chars = sum(extraction_prompt + len(extraction_user_message(b.text)) for b in batches)
    sentences = sum(len(split_sentences(b.text)) for b in batches)
    propositions = math.ceil(sentences * PROPOSITIONS_PER_SENTENCE)
    output_chars = propositions * (PROPOSITION_CHARS + 4)  # a JSON string and its comma
    capacity = window_capacity(grouping_max_tokens)
    windows = max(1, math.ceil(propositions / capacity)) if propositions else 0
    input_chars += windows * grouping_prompt + propositions * (PROPOSITION_CHARS + 6)
    output_tokens = estimate_tokens("x" * output_chars)
    for w in range(windows):
        output_tokens += estimate_output_tokens(min(capacity, propositions - w * capacity))
    if windows > 1:
        categories = math.ceil(propositions / 4)
        input_chars += len(load_prompt("grouping_merge").text)
        input_chars += categories * MERGE_CHARS_PER_CATEGORY
        output_tokens += categories * 2 + GROUP_OUTPUT_TOKENS * max(1, categories // 4)
    return _Estimate(propositions, windows, input_chars // 4, output_tokens)


def _prompt_cache(model: str, stages: Sequence[tuple[str, int, int]]) -> tuple[int, int, str]:
    """Cache writes and reads of the system prompts of ``stages`` (``(name, prompt
    characters, calls)``), as the client sends them: a prompt of at least the model's
    minimum (``cache_min_tokens``) is written by its stage's first call and read by every
    later one (all within the 5-minute cache); a shorter one is not cached."""
    minimum = cache_min_tokens(model)
    write = read = 0
    cached, short = [], []
    for name, chars, calls in stages:
        if not calls:
            continue
        tokens = chars // 4
        if tokens < minimum:
            short.append(f"{name} {tokens:,}")
            continue
        write += tokens
        read += tokens * (calls - 1)
        cached.append(f"{name} ({tokens:,} tokens, {calls} calls)")
    parts = []
    if cached:
        parts.append(
            f"system prompt cached for {', '.join(cached)}: {write:,} tokens written at "
            f"{CACHE_WRITE_RATE:g}x, {read:,} read at {CACHE_READ_RATE:g}x the input price"
        )
    if short:
        parts.append(
            f"not used for the system prompts under the {minimum:,}-token minimum {model} "
            f"caches ({', '.join(short)} tokens), so no saving there"
        )
    return write, read, "; ".join(parts) or "no calls"


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """One finished call of a run: its ``stage`` ("extraction batch", "grouping window",
    "grouping merge"), ``done`` of ``total`` in that stage, what it was (``label``) and
    how it ended (``status``), and the run's tokens so far (every call finished until
    now, repairs included)."""

    stage: str
    done: int
    total: int
    label: str
    status: str
    input_tokens: int
    output_tokens: int

    def line(self) -> str:
        """``"extraction batch 3/40 done (<label>): <status>; tokens so far 1,200 in /
        300 out"``."""
        return (
            f"{self.stage} {self.done}/{self.total} done ({self.label}): {self.status}; "
            f"tokens so far {self.input_tokens:,} in / {self.output_tokens:,} out"
        )


class ProgressTally:
    """Counts finished calls per stage and the tokens so far; reports one event per call.

    Thread-safe. ``done(stage, total, label, status, calls)`` adds ``calls`` to the token
    tally and gives a :class:`ProgressEvent` to ``on_event``, else its ``line()`` to
    ``report`` (``line=False``: nothing reported, the tokens still counted).
    """

    def __init__(
        self,
        report: Callable[[str], None] | None,
        on_event: Callable[[ProgressEvent], None] | None = None,
    ) -> None:
        self._report = report
        self._on_event = on_event
        self._lock = threading.Lock()
        self._done: dict[str, int] = {}
        self.input_tokens = 0
        self.output_tokens = 0

    def done(
        self,
        stage: str,
        total: int,
        label: str,
        status: str,
        calls: Sequence[CallUsage],
        *,
        line: bool = True,
    ) -> None:
        """Count ``calls`` and report the event (``line=False``: count only, report nothing)."""
        with self._lock:
            self._done[stage] = self._done.get(stage, 0) + 1
            self.input_tokens += sum(c.input_tokens for c in calls)
            self.output_tokens += sum(c.output_tokens for c in calls)
            event = ProgressEvent(
                stage=stage,
                done=self._done[stage],
                total=total,
                label=label,
                status=status,
                input_tokens=self.input_tokens,
                output_tokens=self.output_tokens,
            )
            if not line:
                return
            if self._on_event is not None:
                self._on_event(event)
            elif self._report is not None:
                self._report(event.line())
