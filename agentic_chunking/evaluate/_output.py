"""An evaluation's outputs: a text table, JSON, and one offline HTML page with a plot.

The page uses the report's style sheet and inline SVG (matplotlib through the report's
``_plots`` helpers): no script, no network; every string is escaped by the template.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import InputError
from .._files import write_text_atomic
from ..report import _COLOURS, _figure, _svg
from ._records import paired_difference
from ._run import CURVE_BUDGETS, Evaluation

if TYPE_CHECKING:
    import jinja2

MODEL_OUTPUT_LABELS = {
    "none": "no model",
    "recorded": "real model output (recorded)",
    "reference": "reference replies (hand-written, not a model)",
}
_COLUMNS = (
    ("chunker", "<"),
    ("chunks", ">"),
    ("mean tok", ">"),
    ("p95 tok", ">"),
    ("crossing", ">"),
    ("R@k", ">"),
    ("P@k", ">"),
    ("IoU@k", ">"),
    ("R@budget", ">"),
    ("±se", ">"),
    ("P@budget", ">"),
    ("IoU@budget", ">"),
    ("tok@budget", ">"),
    ("embed texts", ">"),
    ("chunk s", ">"),
    ("embed s", ">"),
)


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


TIED_Z = 1.96
"""Two settings are tied when their paired difference in recall is within this many of its
standard errors (a 95% interval that holds zero)."""


def recommendation(evaluation: Evaluation) -> list[str]:
    """The lines that recommend a sweep's setting: the chosen one with its 95% interval,
    then each other setting its paired difference cannot tell apart from it (the interval
    of the difference holds zero), with that difference. Nothing without a chosen one."""
    best = next((r for r in evaluation.results if r.name == evaluation.chosen), None)
    if best is None:
        return []
    recall, se = best.at_budget.recall, best.at_budget.recall_se
    lines = [
        f"recommended: {best.name} (R@budget {_pct(recall)}%, 95% interval "
        f"{_pct(recall - TIED_Z * se)} to {_pct(recall + TIED_Z * se)}; mean chunk "
        f"{best.mean_tokens:.0f} tokens)"
    ]
    tied = []
    compared = 0
    for other in evaluation.results:
        if other is best or len(other.budget_recalls) != len(best.budget_recalls):
            continue
        if len(best.budget_recalls) < 2:
            continue
        compared += 1
        difference, error = paired_difference(other, best)
        if abs(difference) <= TIED_Z * error:
            tied.append(
                f"{other.name} ({100 * difference:+.1f} ± {100 * TIED_Z * error:.1f}, "
                f"mean chunk {other.mean_tokens:.0f} tokens)"
            )
    if tied:
        lines.append(
            "not told apart from it (paired difference in R@budget, 95% interval holds 0): "
            + "; ".join(tied)
        )
    elif compared and compared == len(evaluation.results) - 1:
        lines.append("every other setting is below it (paired difference, 95% interval)")
    return lines


def table_rows(evaluation: Evaluation) -> list[list[str]]:
    """The table's rows as strings, in the evaluation's order (percentages for scores)."""
    rows = []
    for r in evaluation.results:
        mark = " *" if r.name == evaluation.chosen else ""
        label = "" if r.model_output == "none" else f" [{r.model_output}]"
        rows.append(
            [
                f"{r.name}{label}{mark}",
                str(r.chunks),
                f"{r.mean_tokens:.0f}",
                f"{r.p95_tokens:.0f}",
                str(r.crossing_sections),
                _pct(r.at_k.recall),
                _pct(r.at_k.precision),
                _pct(r.at_k.iou),
                _pct(r.at_budget.recall),
                _pct(r.at_budget.recall_se),
                _pct(r.at_budget.precision),
                _pct(r.at_budget.iou),
                f"{r.at_budget.tokens:.0f}",
                str(r.chunking_texts + r.chunks),
                f"{r.chunking_seconds:.1f}",
                f"{r.embedding_seconds:.1f}",
            ]
        )
    return rows


def format_table(evaluation: Evaluation) -> str:
    """Return the plain-text table and the lines that say how it was measured."""
    rows = table_rows(evaluation)
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, (h, _) in enumerate(_COLUMNS)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            f"{c:{a}{w}}" for c, (_, a), w in zip(cells, _COLUMNS, widths, strict=True)
        ).rstrip()

    header = [
        f"corpus: {evaluation.corpus} ({evaluation.documents} documents, "
        f"{evaluation.characters:,} characters, {evaluation.questions} questions)",
        f"embedder: {evaluation.embedder}; retrieval: exact cosine over all chunks; "
        f"k={evaluation.k}; budget={evaluation.budget} tokens; tokens: {evaluation.token_rule}",
        "scores: Chroma's token-level recall (R), precision (P), IoU, in %, mean over questions;"
        " ±se: the standard error of R@budget",
    ]
    body = [line([h for h, _ in _COLUMNS]), *(line(row) for row in rows)]
    footer = []
    if evaluation.chosen:
        footer.append(f"* chosen: the best recall at the {evaluation.budget}-token budget")
        footer.extend(recommendation(evaluation))
    labels = sorted({r.model_output for r in evaluation.results} - {"none"})
    for label in labels:
        footer.append(f"[{label}]: {MODEL_OUTPUT_LABELS[label]}")
    if not labels:
        footer.append("no chunker used a model's output")
    footer.append(
        "embed texts: the chunker's own embedding inputs (Level 4) plus its chunks, cache "
        "hits included"
    )
    return "\n".join([*header, "", *body, "", *footer])


def write_json(evaluation: Evaluation, path: Path | str) -> Path:
    """Write the evaluation as JSON, atomically."""
    return _write(path, json.dumps(evaluation.to_dict(), indent=2) + "\n")


def _write(path: Path | str, text: str) -> Path:
    try:
        return write_text_atomic(path, text)
    except OSError as error:
        raise InputError(f"cannot write {path}: {error}; give a writable path") from None


def recall_plot(evaluation: Evaluation) -> str:
    """Inline SVG: mean recall against mean retrieved tokens, one line per chunker, the
    chosen settings drawn thicker."""
    figure = _figure(8.0, 4.6)
    figure.subplots_adjust(bottom=0.6 / 4.6, right=1 - 2.9 / 8.0)
    axes = figure.add_subplot(1, 1, 1)
    for index, result in enumerate(evaluation.results):
        xs = [tokens for _, _, tokens in result.curve]
        ys = [100 * recall for _, recall, _ in result.curve]
        chosen = result.name == evaluation.chosen
        axes.plot(
            xs,
            ys,
            marker="o",
            markersize=3,
            linewidth=2.8 if chosen else 1.2,
            color=_COLOURS[index % len(_COLOURS)],
            linestyle="-" if index < len(_COLOURS) else "--",
            label=("★ " if chosen else "") + result.name,
        )
    axes.axvline(evaluation.budget, color="#9ca3af", linewidth=0.8, linestyle=":")
    axes.set_xscale("log")
    axes.set_xlabel(
        "mean retrieved tokens per question (budgets " + ", ".join(map(str, CURVE_BUDGETS)) + ")"
    )
    axes.set_ylabel("token-level recall (%)")
    axes.set_ylim(0, 100)
    axes.grid(True, linewidth=0.3)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    return _svg(figure, "evaluate")


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [
                jinja2.PackageLoader("agentic_chunking.evaluate", "templates"),
                jinja2.PackageLoader("agentic_chunking.report", "templates"),
            ]
        ),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_html(evaluation: Evaluation) -> str:
    """Return the page: how it was measured, the table, the plot, per-document recall."""
    from markupsafe import Markup

    view: dict[str, Any] = {
        "evaluation": evaluation,
        "headers": [h for h, _ in _COLUMNS],
        "rows": list(zip(evaluation.results, table_rows(evaluation), strict=True)),
        "labels": MODEL_OUTPUT_LABELS,
        "plot": Markup(recall_plot(evaluation)),
        "document_ids": sorted({d for r in evaluation.results for d in r.by_document}),
    }
    return _environment().get_template("evaluation.html.j2").render(**view)


def write_html(evaluation: Evaluation, path: Path | str) -> Path:
    """Write the HTML page atomically."""
    return _write(path, render_html(evaluation))
