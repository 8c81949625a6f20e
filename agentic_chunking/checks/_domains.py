"""Mixed domains: an output chunk holding propositions from two labelled domains."""

from __future__ import annotations

from collections import Counter

from ._finding import MIXED_DOMAINS, Finding
from ._language import profile, stems_match

_MIN_SHARE = 0.5
"""A proposition is attributed to a labelled sentence when at least this share of its
content stems (and at least two of them, or all of a shorter one) occur in it."""


class _Attributor:
    """The labelled sentences' content stems, and which of them each proposition stem
    matches (remembered for this one set of sentences: each stem pair is compared once,
    not once per sentence and proposition)."""

    def __init__(self, labelled_sentences: list[tuple[str, str]]) -> None:
        self._sentences = [(profile(s).content, d) for s, d in labelled_sentences]
        self._vocabulary = frozenset().union(*(c for c, _ in self._sentences))
        self._matches: dict[str, frozenset[str]] = {}

    def _matching(self, stem: str) -> frozenset[str]:
        found = self._matches.get(stem)
        if found is None:
            found = frozenset(t for t in self._vocabulary if stems_match(stem, t))
            self._matches[stem] = found
        return found

    def domain_of(self, proposition: str) -> str | None:
        prop = profile(proposition).content
        if not prop:
            return None
        matching = [self._matching(s) for s in prop]
        best, domains = 0, set()
        for sentence, domain in self._sentences:
            score = sum(1 for m in matching if not m.isdisjoint(sentence))
            if score > best:
                best, domains = score, {domain}
            elif score == best and score:
                domains.add(domain)
        if best < max(min(2, len(prop)), _MIN_SHARE * len(prop)) or len(domains) != 1:
            return None
        return domains.pop()


def attribute_domain(proposition: str, labelled_sentences: list[tuple[str, str]]) -> str | None:
    """The domain of the labelled sentence(s) ``proposition`` is grounded in, or None.

    The sentences sharing the most content stems with the proposition win; the proposition
    is attributed only if they hold at least half of its content stems (two at least, when
    it has two or more) and all of them carry the same label. Otherwise None: a proposition
    that cannot be attributed is not evidence of mixing.
    """
    return _Attributor(labelled_sentences).domain_of(proposition)


def find_mixed_domains(
    chunks: list[list[str]], labelled_sentences: list[tuple[str, str]]
) -> list[Finding]:
    """Return findings for each chunk whose propositions come from two or more domains.

    Each proposition is attributed with :func:`attribute_domain`. In a chunk with two or
    more attributed domains, the chunk's main domain is the most frequent one (ties: the
    first met); every proposition from another domain is reported with the chunk index and
    both domain labels. Empty when ``labelled_sentences`` is empty.
    """
    findings: list[Finding] = []
    if not labelled_sentences:
        return findings
    attributor = _Attributor(labelled_sentences)
    for index, chunk in enumerate(chunks):
        attributed = [(p, attributor.domain_of(p)) for p in chunk]
        counts = Counter(d for _, d in attributed if d is not None)
        if len(counts) < 2:
            continue
        main = max(counts, key=lambda d: (counts[d], -[a for _, a in attributed].index(d)))
        for proposition, domain in attributed:
            if domain is not None and domain != main:
                reason = (
                    f"comes from domain {domain!r} but chunk {index} is mainly {main!r} "
                    f"({counts[main]} of {sum(counts.values())} attributed propositions)"
                )
                findings.append(Finding(proposition, MIXED_DOMAINS, reason, index))
    return findings
