"""No duplication: the same fact twice anywhere in the output."""

from __future__ import annotations

from functools import lru_cache

from ._finding import NO_DUPLICATION, Finding
from ._language import profile, stems_match, subject_stems, tokens


@lru_cache(maxsize=1 << 18)
def _stems_match(a: str, b: str) -> bool:
    """:func:`stems_match`, remembered: merging and the check compare every pair of
    propositions, so the same few hundred stems meet each other over and over."""
    return stems_match(a, b)


def _unmatched(left: frozenset[str], right: frozenset[str], limit: int) -> set[str] | None:
    """The stems of ``left`` that match none of ``right``; None as soon as there are more
    than ``limit`` of them (the caller's answer is then "not the same fact" anyway)."""
    out: set[str] = set()
    for s in left:
        if s not in right and not any(_stems_match(s, r) for r in right):
            out.add(s)
            if len(out) > limit:
                return None
    return out


@lru_cache(maxsize=65536)
def _same_fact_ordered(a: str, b: str) -> bool:
    ta = tuple(t.norm for t in tokens(a))
    tb = tuple(t.norm for t in tokens(b))
    if ta == tb:
        return bool(ta)
    pa, pb = profile(a), profile(b)
    if pa.numbers != pb.numbers or pa.number_units != pb.number_units:
        return False
    if pa.negated != pb.negated:
        return False
    if not pa.content or not pb.content:
        return False
    union = len(pa.content | pb.content)
    # unmatched stems allowed in all: about one in seven, none below five stems
    allowed = max(1, int(0.15 * union)) if union >= 5 else 0
    only_a = _unmatched(pa.content, pb.content, allowed)
    if only_a is None:
        return False
    only_b = _unmatched(pb.content, pa.content, allowed - len(only_a))
    if only_b is None:
        return False
    if not only_a and not only_b:
        return True
    if (only_a | only_b) & (pa.names | pb.names):
        return False
    return not (only_a & subject_stems(a) or only_b & subject_stems(b))


def same_fact(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` state the same fact, exactly or trivially reworded.

    Definition: after normalisation (case, punctuation, whitespace, British/American
    spelling, number words as digits, "%" as "percent", hyphens split) the two have the same
    numbers with the same units and the same polarity (both negated or neither), and their
    content-word stems match (exactly, or as a short inflectional prefix); at most about one
    stem in seven may differ, and never a capitalised name or a word of either subject.
    Word order is ignored, so an active and a passive rewording are the same fact.
    Symmetric, deterministic; ``same_fact(a, a)`` is True for any ``a`` with a word in it.
    """
    if a == b:
        return bool(tokens(a))
    first, second = (a, b) if a <= b else (b, a)
    return _same_fact_ordered(first, second)


def find_duplicates(chunks: list[list[str]]) -> list[Finding]:
    """Return one finding per proposition that repeats an earlier one (by :func:`same_fact`).

    Chunks are read in order, propositions in order; the first occurrence is kept and each
    later copy, in the same or another chunk, is reported with the chunk index of the copy
    and a reason naming the first occurrence. Empty list when every fact appears once.
    """
    seen: list[tuple[int, str]] = []
    findings: list[Finding] = []
    for chunk_index, chunk in enumerate(chunks):
        for proposition in chunk:
            original = next((item for item in seen if same_fact(item[1], proposition)), None)
            if original is None:
                seen.append((chunk_index, proposition))
                continue
            where = "in the same chunk" if original[0] == chunk_index else f"in chunk {original[0]}"
            exact = "repeats" if original[1].strip() == proposition.strip() else "rewords"
            findings.append(
                Finding(
                    proposition=proposition,
                    rule=NO_DUPLICATION,
                    reason=f"{exact} the same fact stated {where}: {original[1]!r}",
                    chunk_index=chunk_index,
                )
            )
    return findings
