"""The judge in the suite: when a case is judged, and what its judgement does to the checks.

A case is sent to the judge after its pipeline calls (so the judge's calls follow them in
the case's cassette) when the run succeeded with at least one proposition and the case
expects no failure. The judge model is fixed for the runs being compared: ``--judge-model``,
else ``$AGENTIC_CHUNKING_JUDGE_MODEL``, else the pipeline's default model; the hand-written
``reference`` set is judged by the hand-written ``reference`` judge (on the same
provider: ``openai:reference`` by ``openai:reference``) unless ``--judge-model`` names
another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._models import AgenticResponse
from ..judge import JUDGE_CHECK, Judgement, judge_usage, resolve_judge_model, run_judge
from ._cases import Case
from ._replies import is_reference

if TYPE_CHECKING:
    from ..client import AnyClient

__all__ = ["JUDGE_CHECK", "judge_case", "judge_usage", "suite_judge_model"]


def suite_judge_model(judge_model: str | None, *, model: str) -> str:
    """The judge model of a suite run over ``model``'s cassettes (see the module)."""
    if judge_model is None and is_reference(model):
        return model
    return resolve_judge_model(judge_model)


def judge_case(
    case: Case, response: AgenticResponse, *, client: AnyClient, judge_model: str
) -> Judgement | None:
    """The judge's verdicts on ``response``, or None when there is nothing to judge."""
    if case.expect.error is not None or not response.is_success or not response.chunks:
        return None
    return run_judge(case.agentic_inputs(), response, client=client, model=judge_model)
