"""Between extraction and grouping: merge duplicate propositions, validate the partition.

Pure functions, no I/O. Duplicates are decided by ``checks.same_fact`` (the same relation
the no-duplication check uses), so what the pipeline merges is exactly what the check
would have flagged. Partition membership is exact string equality after whitespace
normalisation: the grouping must copy propositions verbatim.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .checks import same_fact


@dataclass(frozen=True, slots=True)
class Merged:
    """A proposition kept after merging, and the input chunk ids it came from, first seen first."""

    text: str
    sources: tuple[str, ...]


def normalise_space(text: str) -> str:
    """Return ``text`` with runs of whitespace collapsed to one space and the ends stripped."""
    return " ".join(text.split())


def merge_duplicates(
    extracted: Iterable[tuple[str, str]],
    *,
    on_merge: Callable[[Merged, str, str], None] | None = None,
) -> list[Merged]:
    """Merge ``(proposition, chunk_id)`` pairs that state the same fact.

    Deterministic: pairs are read in order; the first occurrence's text is kept and later
    copies (exact after whitespace normalisation, or ``same_fact``) only add their chunk id
    to its ``sources``. The result keeps first-occurrence order. ``on_merge(kept, dropped,
    chunk_id)`` is called for every copy merged away, so the merge is never silent.
    """
    kept: list[Merged] = []
    exact: dict[str, int] = {}
    for text, chunk_id in extracted:
        key = normalise_space(text)
        position = exact.get(key)
        if position is None:
            position = next((i for i, m in enumerate(kept) if same_fact(m.text, text)), None)
        if position is None:
            exact[key] = len(kept)
            kept.append(Merged(text=text.strip(), sources=(chunk_id,)))
            continue
        exact.setdefault(key, position)
        current = kept[position]
        if on_merge is not None:
            on_merge(current, text.strip(), chunk_id)
        if chunk_id not in current.sources:
            kept[position] = Merged(text=current.text, sources=(*current.sources, chunk_id))
    return kept


def check_partition(
    groups: Sequence[tuple[str, Sequence[str]]], propositions: Sequence[str]
) -> str | None:
    """Return why ``groups`` is not a partition of ``propositions``, or None when it is.

    ``groups`` is ``[(category, facts), ...]`` in reply order. Reports, each with the
    propositions concerned: those missing from the grouping, those not among the
    extracted propositions, and those placed more than once.
    """
    expected = {normalise_space(p): p for p in propositions}
    placed: dict[str, list[int]] = {}
    added: list[str] = []
    for number, (_category, facts) in enumerate(groups, start=1):
        for fact in facts:
            key = normalise_space(fact)
            if key in expected:
                placed.setdefault(key, []).append(number)
            else:
                added.append(f"{fact!r} (group {number})")
    missing = [repr(p) for key, p in expected.items() if key not in placed]
    repeated = [
        f"{expected[key]!r} (groups {', '.join(map(str, numbers))})"
        for key, numbers in placed.items()
        if len(numbers) > 1
    ]
    problems = []
    if missing:
        problems.append(f"{len(missing)} missing from the grouping: " + "; ".join(missing))
    if added:
        problems.append(f"{len(added)} not among the extracted propositions: " + "; ".join(added))
    if repeated:
        problems.append(
            f"{len(repeated)} placed in more than one chunk (or twice in one): "
            + "; ".join(repeated)
        )
    if not problems:
        return None
    return (
        f"the grouping reply is not a partition of the {len(expected)} extracted "
        "propositions: " + ". ".join(problems)
    )
