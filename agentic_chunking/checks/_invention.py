"""No invention: every proposition is supported by the source sentence(s) it states."""

from __future__ import annotations

import gzip
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import lemminflect

from ._align import Sentence, Window, _sentence, align, person_names
from ._finding import (
    ERROR,
    INVENTED_NAME,
    MOVED_NAME,
    NO_INVENTION,
    SWAPPED_TERM,
    UNSUPPORTED_WORD,
    WARNING,
    Finding,
)
from ._language import (
    GLUE_WORDS,
    Profile,
    profile,
    stem,
    stems_match,
    tokens,
    unit_of,
    word_set,
)
from ._lexicon import paraphrases
from ._numbers import MONTHS, aligned_finding, number_findings
from ._polarity import polarity_findings


@lru_cache(maxsize=1)
def _month_stems() -> frozenset[str]:
    return frozenset(stem(m) for m in MONTHS)


COMMON_SURPRISAL = 7.0
"""A word is common English when ``-log10`` of its relative frequency in the English list
of pyspellchecker (subtitle counts) is at most this (seen about once in 10 million
running words); used to tell a glued PDF word ("theelectrolyte") from a real one."""


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


@dataclass(frozen=True)
class _Whole:
    """The whole source: as one sentence (for "anywhere in the source"), its profile, its
    rare lower-case words (candidate PDF gluings such as "theelectrolyte"), and the stems
    it writes in lower case somewhere (so not names: "Material" in a menu label)."""

    sentence: Sentence
    profile: Profile
    glued: tuple[str, ...]
    lower: frozenset[str]


@lru_cache(maxsize=256)
def _whole(source: str) -> _Whole:
    toks = [t for t in tokens(source) if not t.number]
    glued = {t.norm for t in toks if len(t.norm) >= 8 and surprisal(t.norm) > COMMON_SURPRISAL}
    lower = frozenset(stem(t.norm) for t in toks if not t.capitalised) | frozenset(
        stem(w) for w in GLUE_WORDS
    )
    return _Whole(_sentence(source), profile(source), tuple(sorted(glued)), lower)


def _in_glued(word: str, glued: tuple[str, ...]) -> bool:
    return len(word) >= 3 and any(word in g and word != g for g in glued)


def _paraphrased(word_stem: str, window: Window) -> bool:
    """A member of one of the word's paraphrase groups is in the window."""
    for member in paraphrases(word_stem):
        if len(member) == 1 and window.supports(member[0]):
            return True
        if len(member) > 1 and all(window.supports(s) for s in member):
            return True
    return False


@lru_cache(maxsize=8192)
def initials(text: str) -> frozenset[str]:
    """The acronyms a text spells out: initials (lower case) of every run of 2 to 5
    capitalised words ("Unreal Engine" -> "ue"), so "UE4" matches "Unreal Engine 4"."""
    toks = tokens(text)
    out: set[str] = set()
    for i in range(len(toks)):
        run = ""
        for tok in toks[i : i + 5]:
            if tok.number or not tok.capitalised:
                break
            run += tok.norm[0]
            if len(run) >= 2:
                out.add(run)
    return frozenset(out)


def _substituted(proposition: str, prop: Profile, window_names: set[str]) -> bool:
    """Does the window hold a name the proposition lacks (nor spells out as an acronym)?
    With one of the source's names from elsewhere in the proposition, that is the mark of
    a swapped person or place."""
    spelled = initials(proposition)
    return any(
        w not in spelled and not any(stems_match(w, p) for p in prop.content) for w in window_names
    )


def _person_replaced(prop: Profile, window: Window) -> bool:
    """Does the proposition restate a clause of the window (half its other words or more)
    while naming none of the words of the person that clause names? The mark of one
    person's act given to another."""
    said = prop.content
    for member in window.members:
        for clause in re.split(r"[,;:()]", member.text):
            clause_words = profile(clause).content
            for person in person_names(clause):
                if any(stems_match(w, p) for w in person for p in said):
                    continue
                rest = clause_words - person
                kept = sum(any(stems_match(w, p) for p in said) for w in rest)
                if rest and kept >= 0.5 * len(rest):
                    return True
    return False


REPLACED_TERM = "replaced_term"  # a bucket of swapped_term findings that are errors
_REFERRING = word_set("the this that these those its their his her such")


def _term(word: str) -> bool:
    """A word that can name a thing or its kind: lemminflect lists it as a noun or an
    adjective and not as a verb ("ceramic", "electrolyte"), or does not know it."""
    found = lemminflect.getAllLemmas(word)
    return not found or (bool({"NOUN", "ADJ"} & set(found)) and "VERB" not in found)


def _term_replaced(prop: Profile, window: Window) -> str:
    """The noun of a clause of the window that the proposition restates (half its other
    content words or more) but leaves out, where that noun is no anaphoric description
    ("the organ", "this figure": resolved, not replaced); "" when there is none."""
    said = prop.content
    for member in window.members:
        for clause in re.split(r"[,;:()]|\b(?:and|but|which|while|whereas|who)\b", member.text):
            every = tokens(clause)
            toks = [  # units after their number are not terms ("250 watt-hours")
                t
                for i, t in enumerate(every)
                if not t.number and not (i and every[i - 1].number and unit_of(t.text))
            ]
            words = {stem(t.norm) for t in toks if t.norm not in GLUE_WORDS}
            kept = sum(any(stems_match(w, p) for p in said) for w in words)
            if not words or kept < 0.5 * len(words):
                continue
            missing = [
                tok.text
                for i, tok in enumerate(toks)
                if tok.norm not in GLUE_WORDS
                and not tok.capitalised
                and len(tok.norm) > 3
                and not (i > 0 and toks[i - 1].norm in _REFERRING)
                and _term(tok.norm)
                and not unit_of(tok.text)
                and not any(stems_match(stem(tok.norm), p) for p in said)
            ]
            if len(missing) == 1:  # one term of the restated clause, replaced
                return missing[0]
    return ""


def _earlier(word_stem: str, window: Window) -> bool:
    """A word of a sentence before the window: context carried to stand alone."""
    return any(s.supports(word_stem) for s in window.before())


def _word_findings(proposition: str, prop: Profile, window: Window, source: str) -> list[Finding]:
    whole = _whole(source)
    written = {stem(t.norm): t.text for t in tokens(proposition) if not t.number}
    buckets: dict[str, list[str]] = {
        k: [] for k in (INVENTED_NAME, MOVED_NAME, REPLACED_TERM, SWAPPED_TERM, UNSUPPORTED_WORD)
    }
    missing_person = _person_replaced(prop, window)
    replaced_term = _term_replaced(prop, window)
    window_names = {n for m in window.members for n in (*m.profile.names, m.opener) if n}
    window_names -= whole.lower
    names = set(prop.names)
    first = next(iter(tokens(proposition)), None)
    if first is not None and first.capitalised and not first.number:
        opener = stem(first.norm)
        if opener not in whole.lower and whole.sentence.supports(opener):
            names.add(opener)  # "Pierre Curie ...": a name opening the proposition
    for word_stem in dict.fromkeys(prop.content_seq):
        if window.supports(word_stem) or _paraphrased(word_stem, window):
            continue
        text = written.get(word_stem, word_stem)
        anywhere = (
            whole.sentence.supports(word_stem)
            or _in_glued(text.lower(), whole.glued)
            or (text.isupper() and text.lower() in initials(source))
        )
        if word_stem in names and word_stem in _month_stems() and anywhere:
            if not _earlier(word_stem, window):
                buckets[SWAPPED_TERM].append(text)  # a date of a later sentence: suspect
        elif word_stem in names:
            if not anywhere:
                buckets[INVENTED_NAME].append(text)
            elif missing_person:
                buckets[MOVED_NAME].append(text)  # a person of the sentence replaced
            elif _earlier(word_stem, window) and any(m.refers for m in window.members):
                continue  # resolving a pronoun of the window brings an earlier name
            elif word_stem not in whole.lower and _substituted(proposition, prop, window_names):
                buckets[MOVED_NAME].append(text)
            elif not _earlier(word_stem, window):
                buckets[MOVED_NAME].append(text)  # only a later sentence has it: no antecedent
        elif anywhere and replaced_term and text.islower() and _term(text):
            buckets[REPLACED_TERM].append(text)  # a term of the restated clause replaced
        elif anywhere and not _earlier(word_stem, window):
            buckets[SWAPPED_TERM].append(text)
        elif anywhere:
            continue  # context an earlier sentence gives, carried to stand alone
        else:
            buckets[UNSUPPORTED_WORD].append(text)
    reasons = {
        INVENTED_NAME: (INVENTED_NAME, "names not in the source: {}", ERROR),
        MOVED_NAME: (
            MOVED_NAME,
            "names not in the aligned source sentence (found elsewhere): {}",
            ERROR,
        ),
        REPLACED_TERM: (
            SWAPPED_TERM,
            f'words of another sentence in place of "{replaced_term}": {{}}',
            ERROR,
        ),
        SWAPPED_TERM: (
            SWAPPED_TERM,
            "words not in the aligned source sentence (found elsewhere): {}",
            WARNING,
        ),
        UNSUPPORTED_WORD: (UNSUPPORTED_WORD, "words not in the source: {}", WARNING),
    }
    return [
        aligned_finding(proposition, kind, template.format(", ".join(words)), window, severity)
        for bucket, (kind, template, severity) in reasons.items()
        if (words := buckets[bucket])
    ]


def find_inventions(propositions: list[str], source: str) -> list[Finding]:
    """Return the findings of each proposition its source does not support, one per kind.

    Each proposition is aligned (:func:`._align.align`) to the source sentence(s) it
    states, and judged against that window, after the normalisation of :mod:`._language`
    (case, lemmas, British/American spelling, hyphens split, "%" = "percent", "$5" = "5
    dollars", number words that count = digits, PDF line-break hyphens joined). Every
    finding names the window in ``source_sentence``. Errors (certain evidence):
    - ``invented_number``: a number or date the source never states (a spelled-out "one"
      only warns: "one hour" may be "an hour");
    - ``invented_unit``: a number of the source with a unit the source never gives it;
    - ``invented_name``: a name (capitalised word not opening the proposition, months
      included) the source never uses;
    - ``moved_number`` / ``moved_name``: in the source, but not in the window (a name
      brought by resolving a pronoun of the window from an earlier sentence is fine);
    - ``added_negation`` / ``lost_negation`` / ``added_quantifier`` / ``lost_quantifier``
      (see :mod:`._polarity`).
    Warnings (suspect, never failing): ``unsupported_word``, a content word the source never
    uses and no paraphrase of a window word (``data/paraphrases.txt``); ``swapped_term``, a
    word of the source outside the window; ``changed_modality``. Glue words ("is", "the",
    "called", see ``GLUE_WORDS``) are never judged. A proposition copied verbatim from a
    source sentence gets no finding.
    """
    findings: list[Finding] = []
    for proposition in propositions:
        window = align(proposition, source)
        if window is None:
            if profile(proposition).content:
                findings.append(
                    Finding(proposition, NO_INVENTION, "the source is empty", kind=UNSUPPORTED_WORD)
                )
            continue
        prop = profile(proposition)
        findings += number_findings(proposition, prop, window, _whole(source).profile)
        findings += _word_findings(proposition, prop, window, source)
        findings += [
            aligned_finding(proposition, kind, reason, window, severity)
            for kind, reason, severity in polarity_findings(proposition, window)
        ]
    return findings
