"""No invention: every proposition is supported by the source sentence(s) it states."""

from __future__ import annotations

import gzip
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ._align import Sentence, Window, _sentence, align
from ._converse import SAME_ORDER, SWAPPED, converse_reading, converses_of
from ._finding import (
    CUT_NAME,
    ERROR,
    INVENTED_NAME,
    MOVED_NAME,
    NO_INVENTION,
    SWAPPED_TERM,
    UNSUPPORTED_WORD,
    WARNING,
    Finding,
    Severity,
)
from ._language import (
    GLUE_WORDS,
    Profile,
    all_lemmas,
    profile,
    stem,
    stems_of,
    tokens,
)
from ._lexicon import demonym_places, paraphrases
from ._minimal import TITLE, replaced_name
from ._names import cut_name
from ._numbers import aligned_finding, number_findings
from ._polarity import polarity_findings
from ._swaps import (
    REPLACED_TERM,
    acronyms,
    in_place_findings,
    initials,
    is_term,
    passed_over_person,
    person_replaced,
    spelled_out,
    substituted,
    term_replaced,
)
from ._words import MONTHS

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


def _earlier(word_stem: str, window: Window) -> bool:
    """A word of a sentence before the window: context carried to stand alone."""
    return any(s.supports(word_stem) for s in window.before())


@dataclass(frozen=True)
class _Judged:
    """What a proposition's words are judged with: its window, the whole source, the
    names it uses, and the marks of a swap in the restated clause."""

    proposition: str
    prop: Profile
    window: Window
    whole: _Whole
    source: str
    names: frozenset[str]
    window_names: frozenset[str]
    missing_person: bool
    replaced_term: str
    minimal_name: bool
    verbs: frozenset[str]


def _judged(proposition: str, prop: Profile, window: Window, source: str) -> _Judged:
    whole = _whole(source)
    names = set(prop.names)
    first = next(iter(tokens(proposition)), None)
    if first is not None and first.capitalised and not first.number:
        opener = stem(first.norm)
        if opener not in whole.lower and whole.sentence.supports(opener):
            names.add(opener)  # "Pierre Curie ...": a name opening the proposition
    window_names = {n for m in window.members for n in (*m.profile.names, m.opener) if n}
    titled = {stem(t.norm) for m in TITLE.finditer(proposition) for t in tokens(m.group(0))}
    return _Judged(
        proposition,
        prop,
        window,
        whole,
        source,
        frozenset(names),
        frozenset(window_names - whole.lower),
        person_replaced(prop, window),
        term_replaced(prop, window, proposition, source),
        replaced_name(
            proposition, window, frozenset(n for n in names if not window.supports(n)) - titled
        ),
        _verbs_used(proposition),
    )


def _verbs_used(proposition: str) -> frozenset[str]:
    """Words of the proposition used as verbs: lemminflect knows them as verbs and not as
    nouns, or as both with a glue word after them ("experiences the horrors", "works
    on") or a name or "to" before them ("Summer works", "to travel")."""
    toks = tokens(proposition)
    used: set[str] = set()
    for i, tok in enumerate(toks):
        found = set(all_lemmas(tok.norm)) if not tok.number else set()
        if "VERB" not in found:
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        prev = toks[i - 1] if i else None
        if (
            "NOUN" not in found
            or (nxt is not None and nxt.norm in GLUE_WORDS)
            or (prev is not None and (prev.norm == "to" or (prev.capitalised and i > 1)))
        ):
            used.add(tok.text.lower())
    return frozenset(used)


def _rewording(text: str, verbs: frozenset[str]) -> bool:
    """A word a faithful rewording brings: a verb ("achieves", "experiences the") or an
    adverb ("previously") the source does not use, or a common English word that is no
    noun ("main", "dangerous"). What is left, a noun ("fat" for "glycogen") or a rare
    word the source never uses, may be a new thing the claim brings in, and is shown."""
    word = text.lower()
    found = set(all_lemmas(word))
    if not found:
        return False
    if word in verbs or ("ADV" in found and "NOUN" not in found):
        return True
    return not {"NOUN", "VERB"} & found and surprisal(word) <= COMMON_SURPRISAL


def _extends_a_name(text: str, j: _Judged) -> bool:
    """A capitalised common English word (no month) beside a capitalised word of the
    source in one run of names: "City" in "New York City" where the source says "New
    York", "Executive" in "Executive Producer Ted Dintersmith". Its capital marks a longer
    form of a known name, not a new one, so its absence is no certain evidence."""
    word = text.lower()
    if word in MONTHS or not all_lemmas(word) or surprisal(word) > COMMON_SURPRISAL:
        return False
    for run in _capitalised_runs(j.proposition):
        words = run.split()
        if text in words and any(
            w != text and j.whole.sentence.supports(stem(w.lower())) for w in words
        ):
            return True
    return False


def _expands_an_acronym(text: str, j: _Judged) -> bool:
    """Is the word part of a run of capitalised words of the proposition that spells out
    an acronym of the source ("United Kingdom" where the source says "UK")?"""
    if not text[:1].isupper():
        return False
    mine = initials(j.proposition)
    if any(a.lower() in mine for a in acronyms(j.source)) and any(
        text in run.split() for run in _capitalised_runs(j.proposition)
    ):
        return True
    return any(  # "Producers Guild of America" where the source says "PGA"
        text[0].lower() in a.lower() and spelled_out(a, j.proposition) for a in acronyms(j.source)
    )


def _capitalised_runs(text: str) -> list[str]:
    return re.findall(r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+", text)


def _names_its_place(text: str, said: Sentence | Window) -> bool:
    """Is ``text`` a demonym whose place ``said`` names ("British" where the source says
    "U.K.", :func:`._lexicon.demonym_places`)?"""
    return any(all(said.supports(s) for s in place) for place in demonym_places(text))


def _bucket(j: _Judged, word_stem: str, text: str) -> str | None:
    """Which finding an unsupported word of the proposition belongs to (None: fine)."""
    window, whole = j.window, j.whole
    anywhere = (
        whole.sentence.supports(word_stem)
        or _in_glued(text.lower(), whole.glued)
        or (text.isupper() and text.lower() in initials(j.source))
        or (text.isupper() and (spelled_out(text, j.proposition) or spelled_out(text, j.source)))
        or _expands_an_acronym(text, j)
        or _names_its_place(text, whole.sentence)
    )
    earlier = _earlier(word_stem, window)
    if word_stem in j.names and word_stem in stems_of(MONTHS) and anywhere:
        return None if earlier else SWAPPED_TERM  # a date of a later sentence: suspect
    if word_stem in j.names:
        if not anywhere:  # "New York City" where the source says "New York"; "Group B"
            certain = len(text) > 1 and not _extends_a_name(text, j)
            return INVENTED_NAME if certain else UNSUPPORTED_WORD
        if j.missing_person or j.minimal_name:
            return MOVED_NAME  # a person of the restated clause replaced
        if earlier and passed_over_person(j.prop, window, word_stem):
            return MOVED_NAME  # "He" resolved to an earlier person than the one it means
        if earlier and any(m.refers for m in window.members):
            return None  # resolving a pronoun of the window brings an earlier name
        if word_stem not in whole.lower and substituted(j.proposition, j.prop, j.window_names):
            return MOVED_NAME
        return None if earlier else MOVED_NAME  # only a later sentence has it
    if anywhere and j.replaced_term and text.islower() and is_term(text):
        return REPLACED_TERM  # a term of the restated clause replaced
    if anywhere:
        # a word of another sentence, earlier or later: context carried to stand alone, or
        # two sentences paired into one claim; only a term of the restated clause replaced
        # by it (above) is worth a reader's time
        return None
    if _rewording(text, j.verbs):
        return None
    return UNSUPPORTED_WORD


REVERSED = "reversed_relation"
"""The bucket of a converse relation word whose sides were not swapped (a warning of kind
``swapped_term``)."""


def _converse_in(proposition: str, word_stem: str, window: Window) -> str | None:
    """How the proposition's word restates a relation of the window by its converse
    (:func:`._converse.converse_reading`, the first window word it is the converse of),
    or None when it is the converse of no window word."""
    for converse in converses_of(word_stem):
        for sentence in window.members:
            if sentence.supports(converse):
                source_word = next(
                    (stem(t.norm) for t in tokens(sentence.text) if stem(t.norm) == converse),
                    None,
                )
                if source_word is not None:
                    return converse_reading(proposition, sentence.text, source_word)
    return None


def _word_findings(proposition: str, prop: Profile, window: Window, source: str) -> list[Finding]:
    judged = _judged(proposition, prop, window, source)
    written = {stem(t.norm): t.text for t in tokens(proposition) if not t.number}
    buckets: dict[str, list[str]] = {}
    for word_stem in dict.fromkeys(prop.content_seq):
        text = written.get(word_stem, word_stem)
        if window.supports(word_stem) or _paraphrased(word_stem, window):
            continue
        if _names_its_place(text, window):
            continue  # "a British version" for "a U.K. version"
        reading = _converse_in(proposition, word_stem, window)
        if reading == SWAPPED:
            continue  # "B is the grandfather of A" for "A is the grandson of B"
        if reading == SAME_ORDER:
            buckets.setdefault(REVERSED, []).append(text)
            continue
        bucket = _bucket(judged, word_stem, text)
        if bucket is not None:
            buckets.setdefault(bucket, []).append(text)
    moved_name_severity = ERROR if judged.minimal_name else WARNING
    reasons: dict[str, tuple[str, str, Severity]] = {
        INVENTED_NAME: (INVENTED_NAME, "names not in the source: {}", ERROR),
        MOVED_NAME: (
            MOVED_NAME,
            "names not in the aligned source sentence (found elsewhere): {}",
            moved_name_severity,
        ),
        REPLACED_TERM: (
            SWAPPED_TERM,
            f'words of another sentence in place of "{judged.replaced_term}": {{}}',
            WARNING,
        ),
        SWAPPED_TERM: (
            SWAPPED_TERM,
            "words not in the aligned source sentence (found elsewhere): {}",
            WARNING,
        ),
        UNSUPPORTED_WORD: (UNSUPPORTED_WORD, "words not in the source: {}", WARNING),
        REVERSED: (
            SWAPPED_TERM,
            "the converse of the source's relation with its sides in the same places"
            " (the relation reversed): {}",
            WARNING,
        ),
    }
    return [
        aligned_finding(proposition, kind, template.format(", ".join(words)), window, severity)
        for bucket, (kind, template, severity) in reasons.items()
        if (words := buckets.get(bucket))
    ]


def find_inventions(propositions: list[str], source: str) -> list[Finding]:
    """Return the findings of each proposition its source does not support, one per kind.

    Each proposition is aligned (:func:`._align.align`) to the source sentence(s) it
    states, and judged against that window, after the normalisation of :mod:`._language`
    (case, lemmas, British/American spelling, hyphens split, "%" = "percent", "$5" = "5
    dollars", number words that count = digits, PDF line-break hyphens joined). Every
    finding names the window in ``source_sentence``. Errors (certain evidence):
    - ``invented_number``: a number or date the source never states (a spelled-out "one"
      only warns: "one hour" may be "an hour"); a decade holding a year of the source ("the
      2000s"), a year the source writes with two digits ("15 Jul 19") and a unit conversion
      in parentheses of a number of the source ("10 kg (23 lb)") are stated by it;
    - ``invented_unit``: a number the source gives with another unit (a unit added to a
      bare number of the source only warns);
    - ``invented_name``: a name (capitalised word not opening the proposition, months
      included) the source never uses;
    - a minimal edit of one clause of the window (:mod:`._minimal`): ``moved_number`` /
      ``moved_name`` (one number or name replaced by another of the source),
      ``added_negation`` / ``lost_negation`` / ``added_quantifier`` / ``lost_quantifier``
      (see :mod:`._polarity`).
    Warnings (suspect, never failing): ``cut_name``, a name of the window with words
    left out of its middle (:mod:`._names`); ``unsupported_word``, a content word the source never
    uses and no paraphrase of a window word (``data/paraphrases.txt``); ``swapped_term``, a
    word of the source outside the window; ``changed_modality``; and the relational kinds
    above when they are no minimal edit (context carried from another sentence, a
    negation of another clause, a paraphrase aligned to a neighbour). Glue words ("is", "the",
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
        findings += number_findings(proposition, prop, window, _whole(source).profile, source)
        findings += _word_findings(proposition, prop, window, source)
        if (cut := cut_name(proposition, window.text, source)) is not None:
            reason = f'"{cut[0]}" where the source says "{cut[1]}": a name with words left out'
            findings.append(aligned_finding(proposition, CUT_NAME, reason, window, WARNING))
        findings += in_place_findings(proposition, window, source, findings)
        findings += [
            aligned_finding(proposition, kind, reason, window, severity)
            for kind, reason, severity in polarity_findings(proposition, window)
        ]
    return findings
