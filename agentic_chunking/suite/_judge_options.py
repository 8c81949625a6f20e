"""The plugin's judge options (``--judge-model``, ``--no-judge``) and the judge's calibration.

Kept apart from ``plugin.py`` so the judge's wiring is one small module.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..client import DEFAULT_JUDGE_MODEL
from ..judge import JUDGE_MODEL_ENV_VAR, calibration_figures
from ._judging import suite_judge_model
from ._replies import REFERENCE_MODEL


def add_judge_options(group: Any) -> None:
    """Add ``--judge-model`` and ``--no-judge`` to the suite's option group."""
    group.addoption(
        "--judge-model",
        default=None,
        help="the model that judges each case after its pipeline calls, recorded in the same "
        f"cassette (default: ${JUDGE_MODEL_ENV_VAR}, else {DEFAULT_JUDGE_MODEL}; the "
        f"'{REFERENCE_MODEL}' set is judged by the hand-written '{REFERENCE_MODEL}' judge)",
    )
    group.addoption(
        "--no-judge",
        action="store_true",
        default=False,
        help="skip the judge: the deterministic checks alone, warnings stay warnings",
    )


def configured_judge_model(config: pytest.Config, model: str) -> str | None:
    """The run's judge model, or None under ``--no-judge``."""
    if config.getoption("--no-judge"):
        return None
    return suite_judge_model(config.getoption("--judge-model"), model=model)


def judge_model_given(config: pytest.Config, model: str) -> bool:
    """Whether the run's judge model was asked for (``--judge-model``, or its variable for a
    recorded model) rather than left to the default."""
    if (config.getoption("--judge-model") or "").strip():
        return True
    return model != REFERENCE_MODEL and bool(os.environ.get(JUDGE_MODEL_ENV_VAR, "").strip())


def judge_given_by(config: pytest.Config, model: str) -> str | None:
    """How the run's judge model was asked for (``--judge-model``, or the variable), None
    when it was left to the default."""
    if (config.getoption("--judge-model") or "").strip():
        return "--judge-model"
    if judge_model_given(config, model):
        return f"${JUDGE_MODEL_ENV_VAR}"
    return None


def replay_judge(
    held: Mapping[str, Sequence[str]],
    *,
    judge_model: str,
    given_by: str | None,
    model: str,
    cassettes: Path,
) -> str:
    """The judge a replay runs with, from ``held`` (judge model -> the selected cases whose
    cassettes it judged, every provider's id canonical): the cassettes' one judge when the
    run did not ask for one, ``judge_model`` when they hold it or hold none.

    Raises pytest.UsageError, in one line naming both judges and the command that replays
    the cassettes, for cassettes that hold two judges, or one other than the one asked for.
    """
    if not held or set(held) == {judge_model}:
        return judge_model
    if len(held) == 1 and given_by is None:
        return next(iter(held))
    where = "; ".join(
        f"{judge!r} judged {', '.join(cases[:5])}{' ...' if len(cases) > 5 else ''}"
        for judge, cases in sorted(held.items())
    )
    command = f"pytest tests/test_cases.py --model {model}"
    if len(held) > 1:
        replay = " and ".join(
            f'`{command} --judge-model {judge} -k "{" or ".join(cases)}"`'
            for judge, cases in sorted(held.items())
        )
        raise pytest.UsageError(
            f"the cassettes in {cassettes} hold {len(held)} judge models ({where}), and one "
            f"run compares its cases under one judge: replay each judge's cases apart with "
            f"{replay}, or re-record the others with one judge (paid: --record --model "
            f"{model} --judge-model {sorted(held)[0]}). No case was run and no results file "
            "was changed"
        )
    (recorded,) = held
    raise pytest.UsageError(
        f"{given_by} asks for the judge {judge_model!r}, but the cassettes in {cassettes} "
        f"were judged by {recorded!r} ({where}): replay them with `{command} --judge-model "
        f"{recorded}` (or leave {given_by} out: replay reads the judge from the cassettes), "
        f"or skip the judge with --no-judge; judging them with {judge_model!r} needs a paid "
        f"re-record (--record --judge-model {judge_model}). No case was run and no results "
        "file was changed"
    )


def calibration_for(
    judge_model: str | None, root: Path
) -> Mapping[str, Mapping[str, float]] | None:
    """The judge's calibration figures per rule from ``calibration/``, None when it has none
    (or the file was made with another judge prompt, or cannot be read)."""
    return calibration_figures(judge_model, root / "calibration")
