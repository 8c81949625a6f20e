"""Candidate pairs for duplicate detection: an inverted index of stem keys, not all pairs.

Two propositions can be the same fact (or one contain the other) only when most content
stems of one match stems of the other, and stems match (``stems_match``) when they are
equal or one is a short inflectional prefix of the other, so matching stems share their
first four letters. Each proposition is indexed under the first four letters of each of
its content stems (and, for stems of six letters or more, under the last four, which
catches most spelling-level near misses), plus its whole normalised word sequence, so an
exact repeat is always a candidate. Each proposition then probes the index with its
rarest stems only: enough of them that, with at most about one stem in seven unmatched
(the ``same_fact`` allowance, bounded for a partner up to its own size again), at least
one probed stem is a matched one. The work is the size of the rare stems' postings,
about linear in the number of propositions for natural text.

The one kind of pair this can miss: a pair whose every matched stem pair is a long stem
matched only by ``fuzz.ratio`` with different first and last four letters. For merging
that errs towards keeping both; the test suite checks the findings equal all-pairs ones.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ._language import profile, tokens

_PREFIX = 4
_SUFFIX_MIN = 6
_PROBE_SHARE = 0.3
"""Probed share of a proposition's stems: the unmatched allowance (0.15 of the union)
for a union of up to twice its own stems, plus one."""


def _stem_keys(stem: str) -> tuple[tuple[str, str], ...]:
    if len(stem) >= _SUFFIX_MIN:
        return (("p", stem[:_PREFIX]), ("s", stem[-_PREFIX:]))
    return (("p", stem[:_PREFIX]),)


def candidate_pairs(texts: Sequence[str]) -> dict[int, list[int]]:
    """For each index ``i``, the ascending indices ``j < i`` worth comparing with it.

    Deterministic. Every pair with the same normalised words is included; see the module
    docstring for the pairs of stems this index joins.
    """
    stems = [sorted(profile(text).content) for text in texts]
    index: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, text in enumerate(texts):
        index[("x", " ".join(t.norm for t in tokens(text)))].append(i)
        for key in {key for s in stems[i] for key in _stem_keys(s)}:
            index[key].append(i)
    pairs: dict[int, set[int]] = defaultdict(set)
    for i, text in enumerate(texts):
        probed = {("x", " ".join(t.norm for t in tokens(text)))}
        by_rarity = sorted(stems[i], key=lambda s: (len(index[("p", s[:_PREFIX])]), s))
        count = min(len(by_rarity), int(_PROBE_SHARE * len(by_rarity)) + 2)
        for s in by_rarity[:count]:
            probed.update(_stem_keys(s))
        for key in probed:
            for j in index[key]:
                if j != i:
                    pairs[max(i, j)].add(min(i, j))
    return {i: sorted(js) for i, js in pairs.items()}
