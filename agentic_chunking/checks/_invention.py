"""No invention: every proposition is supported by its source text."""

from __future__ import annotations

import gzip
import json
import math
from functools import lru_cache
from importlib import resources

from .._text import split_sentences
from ._finding import NO_INVENTION, Finding
from ._language import Profile, profile, stem, stems_match, tokens

_Index = tuple[Profile, dict[str, tuple[str, ...]]]

PARAPHRASE_ALLOWANCE = 0.2
"""The allowance ``find_inventions`` offers when asked (it is off by default): at most this
share of a proposition's content words (names included) may be unsupported common words,
one in five, so never in a proposition of fewer than five content words."""

COMMON_SURPRISAL = 7.0
"""A tolerated word must be common: ``-log10`` of its relative frequency in the English
list of pyspellchecker (subtitle counts) at most this. Fitted on the even lines of the
WiCE validation items (see ``benchmarks/bench_checks.py``); 7.0 keeps words seen about
once in 10 million running words, and turns away rare and technical terms."""


@lru_cache(maxsize=1)
def _frequencies() -> tuple[dict[str, int], float]:
    """The English word counts shipped with pyspellchecker (loaded once, ~0.5 s)."""
    data = (resources.files("spellchecker") / "resources" / "en.json.gz").read_bytes()
    counts: dict[str, int] = json.loads(gzip.decompress(data))
    return counts, float(sum(counts.values()))


@lru_cache(maxsize=65536)
def surprisal(word: str) -> float:
    """``-log10`` of the relative frequency of ``word`` (lower case) in common English;
    a word missing from the list counts as half an occurrence (about 9.5)."""
    counts, total = _frequencies()
    return math.log10(total / counts.get(word.lower(), 0.5))


@lru_cache(maxsize=256)
def _source_index(source: str) -> _Index:
    """The source's profile, every stem of the source (glue words too) keyed by its first
    three letters."""
    by_prefix: dict[str, set[str]] = {}
    for tok in tokens(source):
        if not tok.number:
            word_stem = stem(tok.norm)
            by_prefix.setdefault(word_stem[:3], set()).add(word_stem)
    every = {key: tuple(sorted(stems)) for key, stems in by_prefix.items()}
    return profile(source), every


@lru_cache(maxsize=256)
def _source_sentences(source: str) -> tuple[Profile, ...]:
    """The profile of each sentence of the source (only needed for negated propositions)."""
    return tuple(profile(s) for s in split_sentences(source))


def _supported(word_stem: str, every: dict[str, tuple[str, ...]]) -> bool:
    """The stem, or a close variant sharing its first three letters, is in the source."""
    candidates = every.get(word_stem[:3], ())
    return word_stem in candidates or any(stems_match(word_stem, c) for c in candidates)


def _matches_negated_sentence(prop: Profile, sentences: tuple[Profile, ...]) -> bool:
    """Is one of the source sentences sharing the most content words and numbers with the
    proposition negated too?"""
    best, negated = 0, False
    for sentence in sentences:
        score = len(prop.content & sentence.content) + len(prop.numbers & sentence.numbers)
        if score > best:
            best, negated = score, sentence.negated
        elif score == best:
            negated = negated or sentence.negated
    return negated


def _tolerated(words: list[str], content_words: int, allowance: float) -> bool:
    """Paraphrase allowance: few unsupported words, all of them common English."""
    return (
        allowance > 0
        and len(words) <= allowance * content_words
        and all(surprisal(w) <= COMMON_SURPRISAL for w in words)
    )


def _problems(proposition: str, source: str, allowance: float) -> list[str]:
    src, every = _source_index(source)
    prop = profile(proposition)
    problems: list[str] = []
    written = {stem(t.norm): t.text for t in tokens(proposition) if not t.number}
    missing = [s for s in dict.fromkeys(prop.content_seq) if not _supported(s, every)]
    names = [written.get(s, s) for s in missing if s in prop.names]
    words = [written.get(s, s) for s in missing if s not in prop.names]
    if names:
        problems.append(f"names not in the source: {', '.join(names)}")
    if words and not _tolerated(words, len(prop.content), allowance):
        problems.append(f"words not in the source: {', '.join(words)}")
    numbers = sorted(prop.numbers - src.numbers)
    if numbers:
        problems.append(f"numbers not in the source: {', '.join(numbers)}")
    for number, unit in sorted(prop.number_units - src.number_units):
        if number in src.numbers:
            others = sorted(u for n, u in src.number_units if n == number)
            said = f" (the source has {number} {', '.join(others)})" if others else ""
            problems.append(f"{number} {unit} is not in the source{said}")
    if prop.negated and not _matches_negated_sentence(prop, _source_sentences(source)):
        problems.append("negated, but the source sentence it matches is not")
    return problems


def find_inventions(
    propositions: list[str], source: str, *, paraphrase_allowance: float = 0.0
) -> list[Finding]:
    """Return a finding for each proposition the source does not support.

    Checked, after the normalisation of :mod:`._language` (case, British/American
    spelling, hyphens split, "%" = "percent", "$5" = "5 dollars", number words = digits,
    "1,000" = "1000"), against the WHOLE source (pronoun resolution legitimately brings
    words from other sentences):
    - every capitalised name (a capitalised word not opening the proposition, months
      included) is a stem of the source or a close variant of one, with NO allowance;
    - every other content word (not a glue word such as "is", "has", "the", "known",
      "called": see ``GLUE_WORDS``), stemmed, is a stem of the source or a close
      inflectional variant of one ("movement"/"moving"). By default there is no allowance
      (the suite's hard assert). With ``paraphrase_allowance`` (e.g.
      ``PARAPHRASE_ALLOWANCE``, 0.2) the unsupported ones are tolerated when they are at
      most that share of the proposition's distinct content words (names included) AND
      each is common English (``surprisal`` <= ``COMMON_SURPRISAL``): a proposition of
      fewer than five content words then gets none, and a rare or technical word is never
      tolerated; all the unsupported words are named when the allowance is exceeded;
    - every number (dates and years included) is a number of the source, and a number
      followed by a unit ("5.5 percent", "3.7 V") appears with that unit in the source;
    - a negated proposition ("not", "never", "no", "n't", "without"...) matches a negated
      source sentence (the source sentence sharing the most content words and numbers).
    Dates are numbers and month names, so an invented date, number, unit, name or
    negation is always reported, whatever the allowance. Support, not mere
    non-contradiction: a word the source never uses is an invention even when it is
    plausible. The allowance, when asked for, trades that away for paraphrase-heavy text:
    inside it a changed common word (a verb such as "sold" for "bought") can pass unseen in
    a long proposition, which is why the suite does not use it.
    """
    findings: list[Finding] = []
    for proposition in propositions:
        problems = _problems(proposition, source, paraphrase_allowance)
        if problems:
            findings.append(Finding(proposition, NO_INVENTION, "; ".join(problems)))
    return findings
