"""The judge calls of one case: the pipeline's own call-parse-repair loop, with judge-v3.

``run_judge`` sends the requests of ``plan_judge_requests`` one after the other, in order
(so a recorded cassette holds them in a stable order after the pipeline's calls), at
temperature 0, each read by ``read_judge_reply`` with at most one repair turn. A reply
that is cut at max_tokens, refused, or still unreadable after the repair gives a
Judgement with ``error`` set (never a partial verdict dressed as whole). An unknown judge
model raises ConfigurationError naming ``--judge-model``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._errors import ConfigurationError
from .._models import AgenticChunkInput, AgenticResponse, CallUsage
from ..client import DEFAULT_JUDGE_MODEL
from ..pipeline import DEFAULT_MAX_REPAIR_ATTEMPTS, CallSettings, Outcome, converse
from ._request import JudgeRequest, plan_judge_requests
from ._verdicts import Judgement, Pair, PairVerdict, PropositionVerdict, read_judge_reply

if TYPE_CHECKING:
    from ..client import AnyClient

JUDGE_STAGE = "judge"
JUDGE_MODEL_ENV_VAR = "AGENTIC_CHUNKING_JUDGE_MODEL"
DEFAULT_JUDGE_MAX_TOKENS = 4000
"""Room for about 50 verdicts, every one with a short reason, and the pairs."""
JUDGE_SHAPE = (
    "the JSON array with one item per numbered proposition, in order ([n, k] when "
    "supported, k the source sentence number; else [n, verdict, reason]), then one "
    "[a, b, true|false, reason] per pair"
)


def resolve_judge_model(judge_model: str | None = None, *, default: str | None = None) -> str:
    """The judge model: ``judge_model`` if given, else ``$AGENTIC_CHUNKING_JUDGE_MODEL``,
    else ``default`` (the suite passes its own rule here), else DEFAULT_JUDGE_MODEL.
    """
    if judge_model is not None and judge_model.strip():
        return judge_model.strip()
    from_env = os.environ.get(JUDGE_MODEL_ENV_VAR, "").strip()
    return from_env or default or DEFAULT_JUDGE_MODEL


def run_judge(
    inputs: Sequence[AgenticChunkInput],
    response: AgenticResponse,
    *,
    client: AnyClient,
    model: str,
    max_tokens: int = DEFAULT_JUDGE_MAX_TOKENS,
    max_repair_attempts: int = DEFAULT_MAX_REPAIR_ATTEMPTS,
    pairs: Sequence[Pair] | None = None,
) -> Judgement:
    """Ask ``model`` to judge every proposition of ``response`` against ``inputs``.

    Makes one call per request of ``plan_judge_requests`` (one for a case of up to 50
    propositions), plus at most one repair turn each. ``pairs`` replaces the candidate
    pairs of possible duplicates when given. Stops at the first request that
    gives no usable reply and returns the Judgement with its ``error``. Raises
    ConfigurationError for an unknown model or a rejected key, ModelCallError when the
    transport fails (the suite turns a cassette miss into its stale-cassette message).
    """
    settings = CallSettings(client=client, model=model, max_repair_attempts=max_repair_attempts)
    verdicts: list[PropositionVerdict] = []
    answered: list[PairVerdict] = []
    calls: list[CallUsage] = []
    for request in plan_judge_requests(inputs, response, pairs=pairs):
        outcome = _ask(request, settings, max_tokens)
        calls.extend(outcome.calls)
        if outcome.error:
            return Judgement(model, tuple(verdicts), tuple(answered), tuple(calls), outcome.error)
        verdicts.extend(outcome.value[0])
        answered.extend(outcome.value[1])
    return Judgement(model, tuple(verdicts), tuple(answered), tuple(calls))


def _ask(request: JudgeRequest, settings: CallSettings, max_tokens: int) -> Outcome:
    try:
        return converse(
            stage=JUDGE_STAGE,
            where=request.label,
            batch=request.index,
            messages=[{"role": "user", "content": request.message}],
            max_tokens=max_tokens,
            settings=settings,
            parse=lambda raw: read_judge_reply(
                raw,
                numbers=request.numbers,
                pairs=request.pairs,
                sentences=request.sentence_texts,
            ),
            shape=JUDGE_SHAPE,
        )
    except ConfigurationError as error:
        raise ConfigurationError(
            f"{error} This was the judge model: choose it with --judge-model or "
            f"{JUDGE_MODEL_ENV_VAR}."
        ) from error
