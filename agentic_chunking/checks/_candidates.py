"""Candidate pairs for duplicate detection: an inverted index of stem keys, not all pairs.

Two propositions can be the same fact (or one contain the other) only when most content
stems of one match stems of the other, and stems match (``stems_match``) when they are
equal or one is a short inflectional prefix of the other, so matching stems share their
first four letters: those four letters are a proposition's keys. Prefix filtering (as in
set-similarity joins): with keys ordered by how few propositions hold them, two key sets
that may differ by at most ``k`` keys share one among each side's ``k + 1`` rarest; a
contained proposition's keys are all in its container, so its rarest key is there. Only
those rare keys are looked up, and an exact repeat is found by its whole word sequence.
The work is the size of the rare keys' postings, about linear in the number of
propositions for natural text (``benchmarks/bench_duplicates.py``).

The one kind of pair this can miss: a pair whose matched stems include a long stem
matched only by ``fuzz.ratio`` (90 % alike) with a difference in its first four letters.
Merging uses hashed keys, not this index, so it misses nothing; the tests check that the
findings equal the all-pairs ones on the cases and the validation sets.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ._cached import profile, tokens

_PREFIX = 4
_PROBE_SHARE = 0.3
"""Probed stems: the unmatched allowance of ``same_fact`` (0.15 of the union, at least
one) for a union of up to twice the proposition's own stems, plus one."""


def stem_keys(text: str) -> frozenset[str]:
    """The index keys of ``text``'s content stems: each stem's first four letters."""
    return frozenset(s[:_PREFIX] for s in profile(text).content)


def candidate_pairs(texts: Sequence[str]) -> dict[int, list[int]]:
    """For each index ``i``, the ascending indices ``j < i`` worth comparing with it.

    Keys are ordered by how few texts hold them (ties by the key). A text's *prefix* is
    its rarest keys, as many as ``same_fact`` could leave unmatched plus one. Candidates
    are the pairs whose prefixes share a key (prefix filtering: any two key sets that
    overlap that much share one), the pairs where one text holds the other's rarest key
    (a contained text's keys are all in its container), and the pairs with the same
    normalised words. Deterministic.
    """
    words: list[tuple[str, ...]] = []
    keys: list[frozenset[str]] = []
    for text in texts:  # one text at a time, so profile() finds its tokens remembered
        words.append(tuple(t.norm for t in tokens(text)))
        keys.append(stem_keys(text))
    holders: dict[str, list[int]] = defaultdict(list)
    exact: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i in range(len(texts)):
        exact[words[i]].append(i)
        for key in keys[i]:
            holders[key].append(i)
    prefixes: list[list[str]] = []
    starts: dict[str, list[int]] = defaultdict(list)
    for i, text in enumerate(texts):
        rare = sorted(keys[i], key=lambda k: (len(holders[k]), k))
        prefix = rare[: max(1, int(_PROBE_SHARE * len(profile(text).content))) + 1]
        prefixes.append(prefix)
        for key in prefix:
            starts[key].append(i)
    found: list[set[int]] = [set() for _ in texts]
    for i in range(len(texts)):
        probed = set(exact[words[i]])
        for key in prefixes[i]:
            probed.update(starts[key])
        if prefixes[i]:
            probed.update(holders[prefixes[i][0]])
        for j in probed:  # each pair recorded on its later side
            if j < i:
                found[i].add(j)
            elif j > i:
                found[j].add(i)
    return {i: sorted(js) for i, js in enumerate(found) if js}
