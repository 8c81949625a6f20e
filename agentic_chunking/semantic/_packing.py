"""The adaptive size rule's small parts: the cost of a cut before each piece of a group,
and the choice among the starts a group's last chunk may take (``SemanticSplitter.
_fit_at_weakest_gaps`` and ``_best_starts`` use them)."""

from __future__ import annotations

from collections.abc import Sequence

from ._records import Span

Option = tuple[int, int, int, float, int]
"""A cutting's key, least is best: (chunks, small chunks, cuts off a line end, the sum of
the similarities at its cuts, the start of its last chunk)."""


def cut_costs(
    text: str, pieces: list[Span], owner: list[int], gaps: Sequence[float | None]
) -> tuple[list[int], list[float]]:
    """Per piece, the cost of a cut before it: 1 when it is not at a line end, 0 when it
    is; and the similarity there (2.0, above every cosine, inside a segment: the last
    resort)."""
    inside = 2.0
    off_line_at: list[int] = [0]
    similarity_at: list[float] = [0.0]
    for first in range(1, len(pieces)):
        if owner[first] == owner[first - 1]:
            off_line_at.append(1)
            similarity_at.append(inside)
        else:
            similarity = gaps[owner[first] - 1]
            before = text[pieces[first - 1][0] : pieces[first][0]]
            off_line_at.append(0 if "\n" in before[len(before.rstrip()) :] else 1)
            similarity_at.append(1.0 if similarity is None else float(similarity))
    return off_line_at, similarity_at


def least_option(option: list[Option], first: int, middle: int, fewest_end: int) -> Option:
    """The best last chunk's candidate among the starts ``first`` to ``fewest_end`` (those
    with the fewest chunks before them): from ``middle`` on, a start's chunk is undersized
    (one more small chunk)."""
    chosen = min(option[first:middle], default=None)
    if middle < fewest_end:  # the starts whose chunk is undersized
        chunks, small, off_line, similarity, start = min(option[middle:fewest_end])
        undersized = (chunks, small + 1, off_line, similarity, start)
        if chosen is None or undersized < chosen:
            chosen = undersized
    assert chosen is not None  # first < fewest_end: there is a start
    return chosen
