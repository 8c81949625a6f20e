"""Mixed domains: an output chunk holding propositions from two labelled domains."""

from __future__ import annotations

from collections import Counter

from ._finding import MIXED_DOMAINS, Finding
from ._language import profile, stems_match

_MIN_SHARE = 0.5
"""A proposition is attributed to a labelled sentence when at least this share of its
content stems (and at least two of them, or all of a shorter one) occur in it."""


def _overlap(prop: frozenset[str], sentence: frozenset[str]) -> int:
    return sum(1 for s in prop if s in sentence or any(stems_match(s, t) for t in sentence))


def attribute_domain(proposition: str, labelled_sentences: list[tuple[str, str]]) -> str | None:
    """The domain of the labelled sentence(s) ``proposition`` is grounded in, or None.

    The sentences sharing the most content stems with the proposition win; the proposition
    is attributed only if they hold at least half of its content stems (two at least, when
    it has two or more) and all of them carry the same label. Otherwise None: a proposition
    that cannot be attributed is not evidence of mixing.
    """
    prop = profile(proposition).content
    if not prop:
        return None
    best, domains = 0, set()
    for sentence, domain in labelled_sentences:
        score = _overlap(prop, profile(sentence).content)
        if score > best:
            best, domains = score, {domain}
        elif score == best and score:
            domains.add(domain)
    if best < max(min(2, len(prop)), _MIN_SHARE * len(prop)) or len(domains) != 1:
        return None
    return domains.pop()


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
    for index, chunk in enumerate(chunks):
        attributed = [(p, attribute_domain(p, labelled_sentences)) for p in chunk]
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
