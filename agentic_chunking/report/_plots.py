"""Plots as inline SVG (matplotlib, imported lazily): no files, no network, no scripts.

Figures are built on ``matplotlib.figure.Figure`` directly, never through pyplot, so no GUI
backend is touched and no global figure state is kept. Text is written as SVG text and
escaped by matplotlib; in ``all_plots`` math parsing is off, so a ``$`` in a model id is
shown as is.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

from ._compare import Column
from ._records import METRICS

_COLOURS = ("#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2")
#: Captions shown above each plot, in ``all_plots`` order.
CAPTIONS = (
    "Chunks, propositions and tokens per case: the expected range (grey bar), the figure "
    "seed 000 reports (star) and each model's count (dot).",
    "Model tokens per case: input (light) with output stacked on it (dark), per model.",
)


def _svg(figure: Any, salt: str) -> str:
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg")
    text = buffer.getvalue()
    # Drop the XML prolog and the RDF metadata block (a date, links to vocabularies).
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    return text[text.index("<svg") :]


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    # Fixed margins in inches (rotated case ids below, labels left) instead of a layout
    # engine: the engine's extra passes cost more than drawing the plot.
    figure = Figure(figsize=(width, height))
    figure.subplots_adjust(
        left=0.7 / width,
        right=1 - 0.2 / width,
        top=1 - 0.35 / height,
        bottom=0.75 / height,
        hspace=0.15,
    )
    return figure


def _case_ids(columns: Sequence[Column]) -> list[str]:
    ids: dict[str, None] = {}
    for column in columns:
        ids.update((c.id, None) for c in column.run.cases)
    return list(ids)


def _draw_metric(axes: Any, columns: Sequence[Column], ids: list[str], metric: str) -> None:
    """Draw one metric: all ranges in one bar call, all seeds in one scatter (few artists)."""
    position = {case_id: i for i, case_id in enumerate(ids)}
    cases = columns[0].run.cases if columns else ()
    spans = [
        (position[c.id], span) for c in cases if (span := c.expected.range_of(metric)) is not None
    ]
    if spans:
        axes.bar(
            [x for x, _ in spans],
            [hi - lo + 0.6 for _, (lo, hi) in spans],
            bottom=[lo - 0.3 for _, (lo, _hi) in spans],
            width=0.7,
            color="#e5e7eb",
            edgecolor="#9ca3af",
            linewidth=0.6,
            zorder=1,
        )
    seeds = [
        (position[c.id], value)
        for c in cases
        if c.expected.seed is not None and (value := c.expected.seed.get(metric)) is not None
    ]
    if seeds:
        xs, ys = zip(*seeds, strict=True)
        axes.scatter(xs, ys, marker="*", s=90, color="#111827", zorder=4, label="seed 000")
    width = 0.5 / max(1, len(columns))
    for index, column in enumerate(columns):
        offset = (index - (len(columns) - 1) / 2) * width
        points = [
            (position[c.id] + offset, c.counts[metric])
            for c in column.run.cases
            if c.counts[metric] is not None
        ]
        if points:
            xs, ys = zip(*points, strict=True)
            axes.scatter(
                xs, ys, s=22, color=_COLOURS[index % len(_COLOURS)], label=column.label, zorder=3
            )
    axes.set_ylabel(metric if metric == "chunks" else f"{metric} (log)", fontsize=8)
    if metric != "chunks":
        _log_scale(axes)
    axes.grid(axis="y", color="#f3f4f6", zorder=0)
    axes.spines[["top", "right"]].set_visible(False)


def _log_scale(axes: Any) -> None:
    """Linear up to 10, logarithmic above: one long case no longer flattens the others."""
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    axes.set_yscale("symlog", linthresh=10, linscale=0.5)
    low, high = axes.get_ylim()
    ticks = [t for t in (0, 10, 30, 100, 300, 1000, 3000, 10000) if low <= t <= high * 1.05]
    axes.yaxis.set_major_locator(FixedLocator(ticks))
    axes.yaxis.set_major_formatter(ScalarFormatter())
    axes.yaxis.set_minor_locator(NullLocator())


def _legend(axes: Any) -> None:
    """One row of legend above the axes, clear of the data (none when nothing is labelled)."""
    if not axes.get_legend_handles_labels()[0]:
        return
    axes.legend(
        fontsize=7,
        frameon=False,
        loc="lower left",
        bbox_to_anchor=(0.0, 1.0),
        ncols=4,
        borderaxespad=0.2,
    )


def expected_vs_actual(columns: Sequence[Column], metrics: Sequence[str] = METRICS) -> str:
    """SVG: per case and metric, the expected range (grey bar), the seed's figure (star)
    and each model's count (dot), one row of axes per metric, cases along a shared x."""
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise ValueError(f"metrics {list(metrics)!r} must be some of {list(METRICS)}")
    ids = _case_ids(columns)
    figure = _figure(max(7.0, 0.34 * len(ids) + 2), 1.0 + 1.7 * len(metrics))
    # Not sharex: shared axes would each build every case's tick (ticks are the costliest
    # artists here); the upper rows get none and the same limits instead.
    grid = figure.subplots(len(metrics), 1, squeeze=False)
    for axes, metric in zip(grid[:, 0], metrics, strict=True):
        _draw_metric(axes, columns, ids, metric)
        axes.set_xlim(-0.6, len(ids) - 0.4)
        axes.set_xticks([])
    _legend(grid[0, 0])
    bottom = grid[-1, 0]
    bottom.set_xticks(range(len(ids)), ids, rotation=60, ha="right", fontsize=7)
    return _svg(figure, "expected")


def token_usage(columns: Sequence[Column]) -> str:
    """SVG: model tokens in and out per case, one pair of bars per model."""
    ids = _case_ids(columns)
    figure = _figure(max(7.0, 0.34 * len(ids) + 2), 3.0)
    axes = figure.add_subplot()
    width = 0.8 / max(1, len(columns))
    for index, column in enumerate(columns):
        offset = (index - (len(columns) - 1) / 2) * width
        cases = {c.id: c for c in column.run.cases}
        xs = [i + offset for i, case_id in enumerate(ids) if case_id in cases]
        ins = [cases[case_id].usage.input_tokens for case_id in ids if case_id in cases]
        outs = [cases[case_id].usage.output_tokens for case_id in ids if case_id in cases]
        colour = _COLOURS[index % len(_COLOURS)]
        axes.bar(xs, ins, width=width, color=colour, alpha=0.35, label=f"{column.label}: in")
        axes.bar(xs, outs, width=width, bottom=ins, color=colour, label=f"{column.label}: out")
    axes.set_xticks(range(len(ids)), ids, rotation=60, ha="right", fontsize=7)
    axes.set_ylabel("model tokens", fontsize=8)
    axes.grid(axis="y", color="#f3f4f6", zorder=0)
    axes.spines[["top", "right"]].set_visible(False)
    _legend(axes)
    return _svg(figure, "tokens")


def all_plots(columns: Sequence[Column]) -> list[str]:
    """The report's plots, as SVG strings, in reading order (captions in ``CAPTIONS``)."""
    if not columns or not any(column.run.cases for column in columns):
        return []
    import matplotlib

    with matplotlib.rc_context({"text.parse_math": False, "svg.fonttype": "none"}):
        return [expected_vs_actual(columns), token_usage(columns)]
