"""Candidate pairs for duplicate detection: an inverted index of stem keys, not all pairs.

Two propositions can be the same fact (or one contain the other) only when most content
stems of one match stems of the other, and stems match (``stems_match``) when they are
equal or one is a short inflectional prefix of the other, so matching stems share their
first four letters: those four letters are a proposition's keys. Prefix filtering (as in
set-similarity joins): with keys ordered by how few propositions hold them, two key sets
that may differ by at most ``k`` keys share one among each side's ``k + 1`` rarest; a
contained proposition's keys are all in its container, so its rarest key is there. Only
those rare keys are looked up, and an exact repeat is found by its whole word sequence.

What the rules require exactly narrows the index further, so near-identical texts (one
template with another number in each, thousands of times) do not make every pair a
candidate:

- the same fact has the same numbers and polarity: the prefix keys are looked up only
  among texts of the same numbers and polarity;
- a contained text's numbers are among its container's and its polarity is the same:
  each number (``#7``) and a negation (``#not``) are keys too, so a text's rarest key is
  often its number, held by few texts.

The work is the size of the rare keys' postings, about linear in the number of
propositions for natural text and for near-identical texts that differ by a number or a
mutated word (``benchmarks/bench_duplicates.py``, ``benchmarks/bench_near_identical.py``).
The candidates are not stored: ``candidate_pairs`` returns a mapping that computes a
text's candidates when asked, so memory is the index, linear in the texts' keys, never
the pairs (a few thousand near-identical texts once held millions of pairs).

The one kind of pair this can miss: a pair whose matched stems include a long stem
matched only by ``fuzz.ratio`` (90 % alike) with a difference in its first four letters.
Merging uses hashed keys, not this index, so it misses nothing; the tests check that the
findings equal the all-pairs ones on the cases and the validation sets.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence

from ._cached import profile, tokens

_PREFIX = 4
_PROBE_SHARE = 0.3
"""Probed stems: the unmatched allowance of ``same_fact`` (0.15 of the union, at least
one) for a union of up to twice the proposition's own stems, plus one."""
_NEGATED = "#not"


def stem_keys(text: str) -> frozenset[str]:
    """The index keys of ``text``'s content stems: each stem's first four letters."""
    return frozenset(s[:_PREFIX] for s in profile(text).content)


def _fact_keys(text: str) -> frozenset[str]:
    """The stem keys plus what a contained text shares with its container: each number
    (``#7``) and a negation (``#not``). A contained text's fact keys are all its
    container's."""
    p = profile(text)
    extra = {f"#{n}" for n in p.numbers} | ({_NEGATED} if p.negated else set())
    return stem_keys(text) | extra


class CandidatePairs(Mapping[int, list[int]]):
    """For each index ``i``, the ascending indices ``j < i`` worth comparing with it,
    computed when asked (``pairs[i]``, ``pairs.get(i, ())``); an index with none is absent.

    Deterministic; the same pairs whichever order the indices are asked in.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        words: list[tuple[str, ...]] = []
        keys: list[frozenset[str]] = []
        groups: list[tuple[frozenset[str], bool]] = []
        for text in texts:  # one text at a time, so profile() finds its tokens remembered
            words.append(tuple(t.norm for t in tokens(text)))
            keys.append(_fact_keys(text))
            p = profile(text)
            groups.append((p.numbers, p.negated))
        holders: dict[str, list[int]] = defaultdict(list)
        exact: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for i in range(len(texts)):
            exact[words[i]].append(i)
            for key in keys[i]:
                holders[key].append(i)
        starts: dict[tuple[tuple[frozenset[str], bool], str], list[int]] = defaultdict(list)
        by_rarest: dict[str, list[int]] = defaultdict(list)
        self._prefixes: list[list[str]] = []
        self._rarest: list[str | None] = []
        for i, text in enumerate(texts):
            rarity = sorted(keys[i], key=lambda k: (len(holders[k]), k))
            stems = [k for k in rarity if not k.startswith("#")]
            prefix = stems[: max(1, int(_PROBE_SHARE * len(profile(text).content))) + 1]
            self._prefixes.append(prefix)
            for key in prefix:
                starts[(groups[i], key)].append(i)
            rarest = rarity[0] if stems else None  # no content stem: never contained
            self._rarest.append(rarest)
            if rarest is not None:
                by_rarest[rarest].append(i)
        self._words, self._keys, self._groups = words, keys, groups
        self._holders, self._exact = holders, exact
        self._starts, self._by_rarest = starts, by_rarest
        self._size = len(texts)

    def _probe(self, i: int) -> set[int]:
        """Every candidate of ``i`` on either side (the pairs are symmetric)."""
        probed = set(self._exact[self._words[i]])
        for key in self._prefixes[i]:  # the same fact: prefixes meet within one group
            probed.update(self._starts[(self._groups[i], key)])
        rarest = self._rarest[i]
        if rarest is not None:  # i contained in j: j holds i's rarest key
            probed.update(self._holders[rarest])
        for key in self._keys[i]:  # j contained in i: i holds j's rarest key
            probed.update(self._by_rarest.get(key, ()))
        probed.discard(i)
        return probed

    def __getitem__(self, i: int) -> list[int]:
        if not 0 <= i < self._size:
            raise KeyError(i)
        earlier = sorted(j for j in self._probe(i) if j < i)
        if not earlier:
            raise KeyError(i)
        return earlier

    def __iter__(self) -> Iterator[int]:
        return (i for i in range(self._size) if any(j < i for j in self._probe(i)))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def candidate_pairs(texts: Sequence[str]) -> CandidatePairs:
    """For each index ``i``, the ascending indices ``j < i`` worth comparing with it.

    Keys are ordered by how few texts hold them (ties by the key). A text's *prefix* is
    its rarest stem keys, as many as ``same_fact`` could leave unmatched plus one.
    Candidates are the pairs of the same numbers and polarity whose prefixes share a key
    (prefix filtering: any two key sets that overlap that much share one), the pairs where
    one text holds the other's rarest fact key (a contained text's fact keys are all in
    its container), and the pairs with the same normalised words. Deterministic; computed
    per index when asked (see ``CandidatePairs``).
    """
    return CandidatePairs(texts)
