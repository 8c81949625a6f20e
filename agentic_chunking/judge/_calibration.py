"""Calibration of the judge: how well its verdicts separate labelled good items from bad.

A calibration item (``benchmarks/data/judge_calibration.jsonl``, copied from the public,
human-labelled sets of ../shared/validation) has a ``source``, a ``candidate``, a
``label`` (true = the candidate passes the rule) and a ``check``. Each item is sent to the
judge exactly as a case is (``run_judge`` on a one-chunk source), and the judge *flags*
it when its verdict breaks the item's rule (the rule's ``flagged_by`` in the registry of
``agentic_chunking.checks``):

- no_invention: "not_supported"; no_unresolved_pronoun: "needs_context";
- self_contained: "not_atomic" or "needs_context";
- no_duplication (source and candidate are two propositions): the pair is "same_fact".

The sets spell one rule apart from its id (``no_unresolved_pronoun``): :data:`SET_NAMES`.

Per rule: recall = flagged bad items / bad items, specificity = unflagged good items /
good items, balanced accuracy = their mean (None when a side has no item). An item whose
judge call gave no usable reply is counted apart (``unjudged``), never as a verdict.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._files import write_text_atomic
from .._models import AgenticChunk, AgenticChunkInput, AgenticResponse
from ..checks import NO_DUPLICATION, NO_UNRESOLVED_PRONOUNS, rules
from ..pipeline import PROMPT_VERSIONS
from ..report import model_slug
from ._verdicts import Judgement, Pair

CALIBRATION_SCHEMA = "agentic-chunking-judge-calibration/1"
SET_NAMES: dict[str, str] = {NO_UNRESOLVED_PRONOUNS: "no_unresolved_pronoun"}
"""The name the labelled sets give a rule where it is not the rule's id (their files say
``no_unresolved_pronoun``): the one place the two spellings meet. An item's ``check`` and
the calibration file's rules use the sets' name."""


def set_name(rule_id: str) -> str:
    """The labelled sets' name of a rule (its id unless :data:`SET_NAMES` says)."""
    return SET_NAMES.get(rule_id, rule_id)


def flagging() -> dict[str, frozenset[str]]:
    """The verdicts that flag an item of each registered rule, by the sets' name of the
    rule (``flagged_by`` of ``agentic_chunking.checks.rules()``; no_duplication has none:
    it is flagged by its pair)."""
    return {set_name(r.id): r.flagged_by for r in rules()}


FLAGGING: dict[str, frozenset[str]] = flagging()
""":func:`flagging` of the rules as they stand at import (the readers here call it)."""

Judge = Callable[[Sequence[AgenticChunkInput], AgenticResponse, Sequence[Pair] | None], Judgement]
"""Judges one item: its source chunks, its propositions, the pairs to ask (or None)."""


@dataclass(frozen=True, slots=True)
class CalibrationItem:
    """One labelled item: ``label`` true means ``candidate`` passes ``check``."""

    id: str
    check: str
    source: str
    candidate: str
    label: bool


@dataclass(frozen=True, slots=True)
class Calibration:
    """The judge's figures per rule, and what they were measured with."""

    judge_model: str
    prompt_version: str
    seed: int
    figures: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": CALIBRATION_SCHEMA,
            "judge_model": self.judge_model,
            "prompt_version": self.prompt_version,
            "seed": self.seed,
            "rules": {rule: dict(values) for rule, values in self.figures.items()},
        }


def load_items(path: Path) -> list[CalibrationItem]:
    """Read calibration items (JSON lines); InputError naming the line when one is invalid."""
    items = []
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot be read as UTF-8 JSON lines ({error})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as error:
            raise InputError(
                f"{path}:{number}: not JSON ({error}); expected one JSON object a line with "
                "id, check, source, candidate and label"
            ) from None
        if not isinstance(data, dict):
            raise InputError(
                f"{path}:{number}: a JSON {type(data).__name__}, not an object; expected one "
                "JSON object a line with id, check, source, candidate and label"
            )
        try:
            item = CalibrationItem(
                str(data["id"]),
                str(data["check"]),
                str(data["source"]),
                str(data["candidate"]),
                bool(data["label"]),
            )
        except KeyError as missing:
            raise InputError(
                f"{path}:{number}: not a calibration item: it lacks {missing}; expected a JSON "
                "object with id, check, source, candidate and label"
            ) from None
        known = flagging()
        if item.check not in known:
            raise InputError(f"{path}:{number}: check {item.check!r} is not one of {list(known)}")
        items.append(item)
    return items


def sample_items(
    items: Iterable[CalibrationItem], *, per_class: int, seed: int
) -> list[CalibrationItem]:
    """A fixed sample: at most ``per_class`` items of each (check, label), drawn with
    ``random.Random(seed)``, in the order of the input."""
    classes: dict[tuple[str, bool], list[CalibrationItem]] = {}
    ordered = list(items)
    for item in ordered:
        classes.setdefault((item.check, item.label), []).append(item)
    rng = random.Random(seed)
    chosen = {
        item.id
        for key in sorted(classes)
        for item in rng.sample(classes[key], min(per_class, len(classes[key])))
    }
    return [item for item in ordered if item.id in chosen]


def item_case(item: CalibrationItem) -> tuple[list[AgenticChunkInput], AgenticResponse]:
    """The item as the judge sees a case: its source as one chunk, its proposition(s)."""
    propositions = [item.candidate]
    if item.check == NO_DUPLICATION:
        propositions = [item.source, item.candidate]
    source = "\n".join(propositions) if item.check == NO_DUPLICATION else item.source
    chunk = AgenticChunk.from_propositions(
        document_id="CAL",
        seq=1,
        thematic_category="calibration",
        propositions=propositions,
        source_chunk_ids=[item.id],
    )
    return [AgenticChunkInput(item.id, source)], AgenticResponse(chunks=(chunk,))


def flagged(item: CalibrationItem, judgement: Judgement) -> bool | None:
    """Whether the judge flags the item under its rule; None when it gave no verdict."""
    if judgement.error is not None:
        return None
    if item.check == NO_DUPLICATION:
        return any(p.same_fact for p in judgement.pairs) if judgement.pairs else None
    verdict = judgement.verdict_of(1)
    return None if verdict is None else verdict.verdict in flagging()[item.check]


def calibrate(items: Sequence[CalibrationItem], judge: Judge) -> dict[str, dict[str, float]]:
    """Judge every item with ``judge`` and return the figures per rule (see the module)."""
    tallies: dict[str, dict[str, float]] = {}
    for item in items:
        inputs, response = item_case(item)
        pairs = [(1, 2)] if item.check == NO_DUPLICATION else None
        verdict = flagged(item, judge(inputs, response, pairs))
        row = tallies.setdefault(
            item.check, {"good": 0, "bad": 0, "caught": 0, "passed": 0, "unjudged": 0}
        )
        if verdict is None:
            row["unjudged"] += 1
        elif item.label:
            row["good"] += 1
            row["passed"] += not verdict
        else:
            row["bad"] += 1
            row["caught"] += verdict
    return {rule: _figures(row) for rule, row in sorted(tallies.items())}


def _figures(row: Mapping[str, float]) -> dict[str, float]:
    recall = row["caught"] / row["bad"] if row["bad"] else None
    specificity = row["passed"] / row["good"] if row["good"] else None
    figures = {"good_items": row["good"], "bad_items": row["bad"], "unjudged": row["unjudged"]}
    if recall is not None:
        figures["recall"] = round(recall, 4)
    if specificity is not None:
        figures["specificity"] = round(specificity, 4)
    if recall is not None and specificity is not None:
        figures["balanced_accuracy"] = round((recall + specificity) / 2, 4)
    return figures


def calibration_path(directory: Path, judge_model: str) -> Path:
    """``<directory>/judge-<model>.json``."""
    return Path(directory) / f"judge-{model_slug(judge_model)}.json"


def write_calibration(calibration: Calibration, path: Path) -> Path:
    """Write the calibration file (atomically) and return its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(calibration.to_dict(), indent=2) + "\n")
    return path


def calibration_figures(
    judge_model: str | None, directory: Path
) -> Mapping[str, Mapping[str, float]] | None:
    """The figures per rule of ``judge_model`` in ``directory/judge-<model>.json``; None
    without a judge, a file, a readable file, or when it was made with another prompt."""
    if judge_model is None:
        return None
    try:
        calibration = load_calibration(calibration_path(directory, judge_model))
    except (InputError, OSError):
        return None
    return calibration.figures if calibration is not None else None


def load_calibration(path: Path) -> Calibration | None:
    """The calibration in ``path``; None when it was measured with another judge prompt
    (it no longer describes this judge). FileNotFoundError when there is none; InputError
    when the file is not a calibration file."""
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(f"calibration file {str(path)!r} is not readable JSON: {error}") from None
    if not isinstance(data, dict) or data.get("schema") != CALIBRATION_SCHEMA:
        raise InputError(
            f"calibration file {str(path)!r} is not a {CALIBRATION_SCHEMA} file; write it "
            "with `agentic-chunking calibrate-judge`"
        )
    if data.get("prompt_version") != PROMPT_VERSIONS["judge"]:
        return None
    return Calibration(
        judge_model=str(data.get("judge_model", "")),
        prompt_version=str(data["prompt_version"]),
        seed=int(data.get("seed", 0)),
        figures={
            str(rule): {str(k): float(v) for k, v in values.items()}
            for rule, values in (data.get("rules") or {}).items()
        },
    )
