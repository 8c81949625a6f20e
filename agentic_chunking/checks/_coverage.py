"""Coverage: every fact sentence of the input is stated by some proposition.

A sentence counts as covered when the propositions about it (aligned to it, or stating
at least ``COVERED`` of their content words from it: a repeated sentence is covered by
the one proposition) together state at least ``COVERED`` of its content words and every
one of its numbers. Sentences that state no fact are not judged: headings (no verb or fewer than
``MIN_WORDS`` content words and numbers); citation markers ("[12]", "(Smith et al.,
2020)") and figure or table labels ("See Figure 3.") are set aside first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._align import align, source_sentences
from ._finding import COVERAGE, ERROR, UNCOVERED_SENTENCE, WARNING, Finding, Severity
from ._language import can_be_verb, profile, stems_match, tokens

COVERED = 0.5
"""The share of a sentence's content words its propositions must state together."""
MIN_WORDS = 3
"""A sentence with fewer content words and numbers is a heading or label, not a fact."""

_CITATION = re.compile(
    r"\[\d+(?:\s*[,\u2013-]\s*\d+)*\]"  # [12], [3-5]
    r"|\(\s*[A-Z][^()]*\bet al\.?[^()]*\)"  # (Smith et al., 2020)
    r"|\(\s*[A-Z][a-z]+,?\s+\d{4}\s*\)"  # (Smith, 2020)
)
_LABEL = re.compile(
    r"^\W*(?:see\s+)?(?:fig(?:ure)?|table|chart|diagram|appendix)\.?\s*\d+[a-z]?\b[.:]?\s*",
    re.IGNORECASE,
)


def _fact_text(text: str) -> str:
    """A sentence without its citation markers ("[12]", "(Smith et al., 2020)") and its
    leading figure or table label ("Figure 3:")."""
    return _LABEL.sub("", _CITATION.sub(" ", text)).strip()


@dataclass(frozen=True)
class Coverage:
    """How much of a source its propositions state: ``covered`` of ``facts`` fact
    sentences (``share`` is 1.0 when there are none) and the ``uncovered`` sentences."""

    facts: int
    covered: int
    uncovered: tuple[str, ...]
    lost_numbers: tuple[tuple[str, ...], ...] = ()
    """Per uncovered sentence, its numbers that no proposition states at all."""

    @property
    def share(self) -> float:
        return self.covered / self.facts if self.facts else 1.0

    def findings(self, severity: Severity = WARNING) -> list[Finding]:
        """One ``uncovered_sentence`` finding (rule ``coverage``) per uncovered sentence."""
        lost = self.lost_numbers or ((),) * len(self.uncovered)
        return [
            Finding(
                "",
                COVERAGE,
                f"no proposition states this sentence; its {', '.join(numbers)} appear in "
                "no proposition (a fact dropped)"
                if numbers
                else "no proposition states this sentence"
                + ("" if severity == WARNING else " (a fact dropped)"),
                severity=ERROR if numbers else severity,
                kind=UNCOVERED_SENTENCE,
                source_sentence=sentence,
            )
            for sentence, numbers in zip(self.uncovered, lost, strict=True)
        ]


def _is_fact(text: str) -> bool:
    """A sentence that states something (once citations and figure labels are set aside):
    enough content words and numbers, and a word that can be a verb (a heading has none)."""
    toks = tokens(text)
    stated = profile(text)
    if len(stated.content) + len(stated.numbers) < MIN_WORDS:
        return False
    return any(not t.number and can_be_verb(t.norm) for t in toks)


def coverage(propositions: list[str], source: str) -> Coverage:
    """Which fact sentences of ``source`` the propositions state (see the module doc)."""
    sentences = source_sentences(source)
    stated: list[set[str]] = [set() for _ in sentences]
    numbers: list[set[str]] = [set() for _ in sentences]
    for proposition in propositions:
        window = align(proposition, source)
        if window is None:
            continue
        prop = profile(proposition)
        for k, sentence in enumerate(sentences):
            inside = window.start <= k < window.end
            part = sum(sentence.supports(w) for w in prop.content) >= COVERED * len(prop.content)
            if inside or (prop.content and part):  # the proposition states part of it
                stated[k] |= prop.content
                numbers[k] |= prop.numbers
    facts = covered = 0
    uncovered: list[str] = []
    lost: list[tuple[str, ...]] = []
    anywhere = {n for p in propositions for n in profile(p).numbers}
    for k, sentence in enumerate(sentences):
        text = _fact_text(sentence.text)
        if not _is_fact(text):
            continue
        facts += 1
        stated_here = profile(text)
        content = stated_here.content
        said = sum(any(stems_match(w, s) for s in stated[k]) for w in content)
        if said >= COVERED * len(content) and stated_here.numbers <= numbers[k]:
            covered += 1
        else:
            uncovered.append(sentence.text)
            lost.append(tuple(sorted(stated_here.numbers - anywhere)))
    return Coverage(facts, covered, tuple(uncovered), tuple(lost))


def find_uncovered_sentences(
    propositions: list[str], source: str, *, severity: Severity = WARNING
) -> list[Finding]:
    """Return a finding (kind ``uncovered_sentence``, rule ``coverage``, ``severity``:
    a warning by default, an error where a case asks) for each fact sentence of
    ``source`` that no proposition states: a fact dropped. A sentence whose number appears
    in no proposition at all is an error whatever ``severity`` says: a number of the
    input is certainly lost. The finding's proposition is
    empty and ``source_sentence`` is the dropped sentence."""
    return coverage(propositions, source).findings(severity)
