"""Between extraction and grouping: merge duplicate propositions, validate the partition.

Pure functions, no I/O. Only what is certainly the same fact is merged
(``checks.certainly_same_fact``, the relation the no-duplication check reports as an
error); a possible duplicate (reworded, or one proposition containing another) is kept
and reported, because merging on a guess could drop a real fact. A grouping is checked as
a partition of the numbered list (``check_numbered_partition``), or, for texts,
by exact string equality after whitespace normalisation (``check_partition``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .._shown import quote, quote_list
from ..checks import certain_key
from ._provenance import Place


@dataclass(frozen=True, slots=True)
class Merged:
    """A proposition kept after merging, the input chunk ids it came from (first seen
    first), and the places of its input chunks that state it (``_provenance``: those of
    every copy merged into it, sorted)."""

    text: str
    sources: tuple[str, ...]
    places: tuple[Place, ...] = ()


def normalise_space(text: str) -> str:
    """Return ``text`` with runs of whitespace collapsed to one space and the ends stripped."""
    return " ".join(text.split())


def merge_duplicates(
    extracted: Iterable[tuple[str, Sequence[str]] | tuple[str, Sequence[str], Sequence[Place]]],
    *,
    on_merge: Callable[[Merged, str, tuple[str, ...]], None] | None = None,
) -> list[Merged]:
    """Merge ``(proposition, chunk_ids)`` pairs (or ``(proposition, chunk_ids, places)``)
    that are certainly the same fact.

    Deterministic: pairs are read in order; the first occurrence's text is kept and later
    copies (equal after whitespace normalisation, or ``checks.certainly_same_fact``, by its
    order-free key) only add their chunk ids to its ``sources`` and their places to its
    ``places``. A possible duplicate is kept. The result keeps first-occurrence order.
    ``on_merge(kept, dropped, chunk_ids)`` is called for every copy merged away, so the
    merge is never silent. Linear: copies are found by hashed keys.
    """
    kept: list[Merged] = []
    exact: dict[str, int] = {}
    keyed: dict[tuple[object, ...], int] = {}
    for item in extracted:
        text, chunk_ids = item[0], tuple(item[1])
        places = tuple(item[2]) if len(item) > 2 else ()
        key = normalise_space(text)
        order_free = certain_key(text)
        position = exact.get(key)
        if position is None and order_free is not None:
            position = keyed.get(order_free)
        if position is None:
            exact[key] = len(kept)
            if order_free is not None:
                keyed.setdefault(order_free, len(kept))
            kept.append(
                Merged(
                    text=text.strip(),
                    sources=tuple(dict.fromkeys(chunk_ids)),
                    places=tuple(sorted(set(places))),
                )
            )
            continue
        exact.setdefault(key, position)
        current = kept[position]
        if on_merge is not None:
            on_merge(current, text.strip(), chunk_ids)
        added = tuple(i for i in dict.fromkeys(chunk_ids) if i not in current.sources)
        more = set(places) - set(current.places)
        if added or more:
            kept[position] = Merged(
                text=current.text,
                sources=(*current.sources, *added),
                places=tuple(sorted({*current.places, *more})),
            )
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
                added.append(f"{quote(fact)!r} (group {number})")
    missing = [repr(quote(p)) for key, p in expected.items() if key not in placed]
    repeated = [
        f"{quote(expected[key])!r} (groups {quote_list(numbers, sep=', ')})"
        for key, numbers in placed.items()
        if len(numbers) > 1
    ]
    problems = []
    if missing:
        problems.append(f"{len(missing)} missing from the grouping: " + quote_list(missing))
    if added:
        problems.append(f"{len(added)} not among the extracted propositions: " + quote_list(added))
    if repeated:
        problems.append(
            f"{len(repeated)} placed in more than one chunk (or twice in one): "
            + quote_list(repeated)
        )
    if not problems:
        return None
    return (
        f"the grouping reply is not a partition of the {len(expected)} extracted "
        "propositions: " + ". ".join(problems)
    )


@dataclass(frozen=True, slots=True)
class NumberedPartition:
    """What a numbered grouping does to the list ``1..count``; ``ok`` when a partition.

    ``missing``: numbers in no group. ``repeated``: ``(number, groups)`` for a number in
    more than one group (or twice in one; groups 1-based in reply order).
    ``out_of_range``: ``(number, group)`` outside ``1..count``. ``unknown``: ``(text,
    group)`` for a fact given as text that matches no listed proposition.
    """

    count: int
    missing: tuple[int, ...] = ()
    repeated: tuple[tuple[int, tuple[int, ...]], ...] = ()
    out_of_range: tuple[tuple[int, int], ...] = ()
    unknown: tuple[tuple[str, int], ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.missing or self.repeated or self.out_of_range or self.unknown)

    def repair_reason(self) -> str:
        """The breaches by number only, for the repair turn: "number 3 is in no group; ..."."""
        parts = []
        if self.missing:
            parts.append(f"{_numbers(self.missing)} {_is_are(self.missing)} in no group")
        for number, groups in self.repeated:
            parts.append(f"number {number} is in groups {_join(groups)}")
        if self.out_of_range:
            bad = [n for n, _ in self.out_of_range]
            parts.append(f"{_numbers(bad)} {_is_are(bad)} not in the list 1..{self.count}")
        if self.unknown:
            parts.append(
                f"{len(self.unknown)} fact(s) were given as text instead of by number: "
                + quote_list(repr(quote(text)) for text, _ in self.unknown)
            )
        return "; ".join(parts)

    def describe(self, propositions: Sequence[str], what: str = "extracted propositions") -> str:
        """The breaches with the listed texts, for ``error_detail`` (``what`` names the list);
        each text and each list capped (``quote``, ``quote_list``): bounded for any reply."""
        problems = []
        if self.missing:
            named = quote_list(f"{n} {quote(propositions[n - 1])!r}" for n in self.missing)
            problems.append(f"{len(self.missing)} missing from the grouping: {named}")
        added = [f"number {n} (group {g})" for n, g in self.out_of_range]
        added += [f"{quote(text)!r} (group {g})" for text, g in self.unknown]
        if added:
            problems.append(f"{len(added)} not among the {what}: " + quote_list(added))
        if self.repeated:
            named = quote_list(
                f"{n} {quote(propositions[n - 1])!r} (groups {quote_list(g, sep=', ')})"
                for n, g in self.repeated
            )
            problems.append(
                f"{len(self.repeated)} placed in more than one chunk (or twice in one): {named}"
            )
        return f"the grouping reply is not a partition of the {self.count} {what}: " + ". ".join(
            problems
        )


def check_numbered_partition(
    groups: Sequence[tuple[Sequence[int], Sequence[str]]], count: int
) -> NumberedPartition:
    """Check ``groups`` (``[(ids, unknown texts), ...]`` in reply order) against ``1..count``."""
    placed: dict[int, list[int]] = {}
    out_of_range: list[tuple[int, int]] = []
    unknown: list[tuple[str, int]] = []
    for group, (ids, texts) in enumerate(groups, start=1):
        for number in ids:
            if 1 <= number <= count:
                placed.setdefault(number, []).append(group)
            else:
                out_of_range.append((number, group))
        unknown.extend((text, group) for text in texts)
    return NumberedPartition(
        count=count,
        missing=tuple(n for n in range(1, count + 1) if n not in placed),
        repeated=tuple((n, tuple(g)) for n, g in sorted(placed.items()) if len(g) > 1),
        out_of_range=tuple(out_of_range),
        unknown=tuple(unknown),
    )


def _join(numbers: Sequence[int]) -> str:
    return ", ".join(map(str, numbers))


def _numbers(numbers: Sequence[int]) -> str:
    return f"number{'s' if len(numbers) > 1 else ''} {_join(numbers)}"


def _is_are(numbers: Sequence[int]) -> str:
    return "are" if len(numbers) > 1 else "is"
