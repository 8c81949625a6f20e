"""The plugin's judge options (``--judge-model``, ``--no-judge``) and the judge's calibration.

Kept apart from ``plugin.py`` so the judge's wiring is one small module.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
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


def calibration_for(
    judge_model: str | None, root: Path
) -> Mapping[str, Mapping[str, float]] | None:
    """The judge's calibration figures per rule from ``calibration/``, None when it has none
    (or the file was made with another judge prompt, or cannot be read)."""
    return calibration_figures(judge_model, root / "calibration")
