"""A text plot of a split: the similarity curve, one row per segment, with the cuts marked.

``render_explanation(explanation, text)`` returns plain ASCII lines, for a terminal: a
header saying which rule decided and with what cutoff, then per segment its number, its
score, (adaptive mode) its depth, a bar as long as the score on a fixed scale, a mark, and
the segment's first words. ``CUT`` marks a semantic boundary, ``size`` a cut the token
limit added; in threshold mode a ``:`` column marks the threshold on the bars. With
``lowest=K`` only a summary and the ``K`` places of least similarity are drawn, so a long
document's explanation stays a screenful.
"""

from __future__ import annotations

import math

from .._models import estimate_tokens
from ._records import SplitExplanation

_PREVIEW = 48


def _column(value: float, low: float, high: float, width: int) -> int:
    return max(0, min(width, round((value - low) / (high - low) * width))) if high > low else 0


def _bar(score: float | None, low: float, high: float, width: int, line: int | None) -> str:
    """``#`` up to the score; ``:`` marks the threshold's column (threshold mode)."""
    bar = list(
        " " * width if score is None else ("#" * _column(score, low, high, width)).ljust(width)
    )
    if line is not None and line < width and bar[line] == " ":
        bar[line] = ":"
    return "".join(bar)


def _header(explanation: SplitExplanation, low: float, high: float) -> str:
    groups = len(explanation.boundaries) + 1 if explanation.segments else 0
    if explanation.mode == "adaptive":
        cutoff = (
            "no valley in the curve, so no cut"
            if math.isinf(explanation.cutoff)
            else f"a cut needs a depth of at least {explanation.cutoff:.3f}"
        )
        rule = f"adaptive rule: sim = similarity across the gap before a segment; {cutoff}"
    elif explanation.mode == "coherence":
        rule = (
            "coherence rule: sim = similarity across the gap before a segment; neighbouring "
            "groups stay apart when their sentences are less than "
            f"{explanation.cutoff:.2f} times as alike across as within"
        )
    else:
        rule = (
            "threshold rule (Solon): sim = similarity of a segment to the window before it; "
            f"a cut needs sim < {explanation.cutoff:.3f}"
        )
    return (
        f"{rule}\n{len(explanation.segments)} segments, {groups} semantic groups, "
        f"{len(explanation.chunks)} chunks; bars from {low:.2f} to {high:.2f}"
    )


class _Plot:
    """The rows of one explanation's plot: its scale (bars from ``low`` to ``high``), each
    segment's mark and row, and the column titles."""

    def __init__(self, explanation: SplitExplanation, text: str, width: int) -> None:
        self.explanation, self.text, self.width = explanation, text, width
        scores = [s for s in explanation.similarities if s is not None]
        self.low = min([0.0, *scores])
        self.high = max([1.0, *scores])
        self.boundaries = set(explanation.boundaries)
        self.starts = {c.body_start for c in explanation.chunks}
        self.adaptive = explanation.mode == "adaptive"
        threshold = explanation.mode == "threshold"
        self.line = _column(explanation.cutoff, self.low, self.high, width) if threshold else None

    def mark(self, index: int) -> str:
        """``CUT`` at a semantic boundary, ``size`` where the token limit cut, else ``""``."""
        start, end = self.explanation.segments[index]
        if index in self.boundaries:
            return "CUT"
        if index and any(start <= s < end for s in self.starts):
            return "size"
        return ""

    def row(self, index: int) -> str:
        """Segment ``index``'s row: number, score, (adaptive) depth, bar, mark, words."""
        start, end = self.explanation.segments[index]
        score = self.explanation.similarities[index]
        depth = self.explanation.depths[index]
        shown = "     ." if score is None else f"{score:>6.3f}"
        if self.adaptive:
            shown += "      ." if depth is None else f" {depth:>6.3f}"
        preview = " ".join(self.text[start:end].split())
        if len(preview) > _PREVIEW:
            preview = preview[: _PREVIEW - 3] + "..."
        bar = _bar(score, self.low, self.high, self.width, self.line)
        return f"{index:>4} {shown} |{bar}| {self.mark(index):<4}  {preview}"

    def title(self) -> str:
        """The column titles."""
        depth_title = f" {'depth':>6}" if self.adaptive else ""
        return f"{'seg':>4} {'sim':>6}{depth_title} {'':<{self.width + 2}} {'mark':<4}  text"


def _summary(plot: _Plot, lowest: int) -> list[str]:
    """The summary's lines after the header: chunk sizes and cuts, then the ``lowest``
    places of least similarity, lowest first."""
    explanation = plot.explanation
    lines: list[str] = []
    sizes = sorted(estimate_tokens(c.text) for c in explanation.chunks)
    if sizes:
        by_limit = sum(plot.mark(i) == "size" for i in range(len(explanation.segments)))
        lines.append(
            f"chunk sizes (tokens): least {sizes[0]}, median {sizes[len(sizes) // 2]}, "
            f"most {sizes[-1]}; cuts: {len(plot.boundaries)} semantic, "
            f"{by_limit} by the token limit"
        )
    scored = sorted(
        (score, index) for index, score in enumerate(explanation.similarities) if score is not None
    )
    shown = scored[: max(0, lowest)]
    lines.append(
        f"the {len(shown)} lowest-similarity places of {len(scored)}, lowest first "
        "(--explain=full prints every segment):"
    )
    if shown:
        lines.append(plot.title())
        lines.extend(plot.row(index) for _, index in shown)
    return lines


def render_explanation(
    explanation: SplitExplanation, text: str, *, width: int = 30, lowest: int | None = None
) -> str:
    """Return the plot of ``explanation`` (made from ``text``) as lines ending in newline.

    ``lowest`` None (the default) gives the full curve, one row per segment. A number
    gives a summary that stays a screenful on any document: the header, the chunk sizes
    (tokens by ``estimate_tokens``: least, median, most), how many cuts are semantic and
    how many the token limit added, then the ``lowest`` places of least similarity, lowest
    first, each as a full row (a tie keeps document order).
    """
    plot = _Plot(explanation, text, width)
    lines = [_header(explanation, plot.low, plot.high)]
    if lowest is None:
        lines.append(plot.title())
        lines.extend(plot.row(index) for index in range(len(explanation.segments)))
    else:
        lines.extend(_summary(plot, lowest))
    return "\n".join(lines) + "\n"
