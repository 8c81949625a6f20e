"""Numbers against the aligned window: invented, moved to another fact, wrong unit.

A number the source never states (after the normalisation of :mod:`._language`) is an
error; a number of the source bound to another fact is an error only as a minimal edit of
one clause (:func:`._minimal.replaced_number`), a warning otherwise."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ._align import Window
from ._finding import (
    ERROR,
    INVENTED_NUMBER,
    INVENTED_UNIT,
    MOVED_NUMBER,
    NO_INVENTION,
    WARNING,
    Finding,
    Severity,
)
from ._language import (
    GLUE_WORDS,
    Profile,
    Token,
    all_lemmas,
    decades,
    format_number,
    short_years,
    stem,
    stems_match,
    tokens,
    unit_of,
)
from ._minimal import replaced_number
from ._words import MONTHS


def aligned_finding(
    prop: str, kind: str, reason: str, window: Window, severity: Severity
) -> Finding:
    """A ``no_invention`` finding that names the window it was judged against."""
    return Finding(
        prop, NO_INVENTION, reason, severity=severity, kind=kind, source_sentence=window.text
    )


def _moved(
    proposition: str, prop: Profile, window: Window, src: Profile, after_name: set[str]
) -> list[Finding]:
    """Numbers of the source the proposition binds to another fact than the source does."""
    findings: list[Finding] = []
    minimal = replaced_number(proposition, window)
    moved = sorted(
        n
        for n in prop.numbers & src.numbers
        if not window.has_number(n)
        and not (
            any(n in b.profile.numbers for b in window.before())
            and (n in after_name or (not minimal and any(m.refers for m in window.members)))
        )
    )  # "Unreal Engine 4" carried from an earlier sentence is a name, not a moved number;
    # "The eleven aqueducts" for the window's "they" resolves a pronoun; but a number of
    # the window's clause replaced by it ("It has at least 95 moons" -> "... 1977 moons")
    # resolves nothing: the pronoun is still there, the window's number is gone
    if moved:
        # an error only as a minimal edit: one number of a restated clause replaced by
        # another; a number carried from elsewhere to stand alone ("In 2018, ...") or a
        # paraphrase aligned to the wrong sentence is a warning for the judge
        findings.append(
            aligned_finding(
                proposition,
                MOVED_NUMBER,
                f"numbers not in the aligned source sentence (found elsewhere): {', '.join(moved)}",
                window,
                ERROR if minimal else WARNING,
            )
        )
    unbound = [
        n for n in sorted(prop.numbers) if window.has_number(n) and not _bound(prop, n, window)
    ]
    displaced = [(n, other) for n, other in displaced_numbers(prop, window) if n not in unbound]
    if displaced:
        findings.append(
            aligned_finding(
                proposition,
                MOVED_NUMBER,
                "numbers of another clause of the aligned source sentence: "
                + ", ".join(f"{n} where the clause it restates says {o}" for n, o in displaced),
                window,
                ERROR if minimal else WARNING,
            )
        )
    if unbound:
        findings.append(
            aligned_finding(
                proposition,
                MOVED_NUMBER,
                f"numbers bound to another fact than in the source: {', '.join(unbound)} (its"
                " clause of the source shares no word with the proposition)",
                window,
                ERROR if minimal else WARNING,
            )
        )
    return findings


_FACTORS: dict[tuple[str, str], float] = {
    ("pound", "kg"): 0.45359237,
    ("inch", "mm"): 25.4,
    ("inch", "cm"): 2.54,
    ("foot", "m"): 0.3048,
    ("mile", "km"): 1.609344,
    ("g", "mg"): 1000.0,
    ("kg", "g"): 1000.0,
    ("km", "m"): 1000.0,
    ("m", "cm"): 100.0,
    ("cm", "mm"): 10.0,
}
"""How many of the second unit make one of the first; read both ways."""
_NUMBER_TEXT = r"(\d[\d,]*(?:\.\d+)?)"
_RESTATED = re.compile(
    _NUMBER_TEXT
    + r"[\s-]*([A-Za-z]+)\.?\s*\(\s*(?:about\s+|approx\.?\s+)?"
    + _NUMBER_TEXT
    + r"[\s-]*([A-Za-z]+)\.?\s*\)"
)


def _unit(word: str) -> str | None:
    """The unit of a conversion's word: "in" is inches there ("18 in (460 mm)")."""
    return "inch" if word == "in" else unit_of(word)


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def _converts(a: float, unit_a: str, b: float, unit_b: str) -> bool:
    """Is ``b unit_b`` ``a unit_a`` converted, rounded to its written digits (within 5%)?"""
    factor = _FACTORS.get((unit_a, unit_b)) or (
        1 / _FACTORS[(unit_b, unit_a)] if (unit_b, unit_a) in _FACTORS else None
    )
    return factor is not None and b > 0 and abs(a * factor - b) <= 0.05 * b


def converted_numbers(proposition: str, source_numbers: frozenset[str]) -> frozenset[str]:
    """Numbers the proposition gives only as a unit conversion, in parentheses, of a number
    of the source ("10 kg (23 lb)" where the source says "a 23-pound projectile"): the
    writer's arithmetic, not a fact the source lacks. Both directions; the conversion must
    hold to within 5% (the rounding of the written digits)."""
    found: set[str] = set()
    for m in _RESTATED.finditer(unicodedata.normalize("NFKC", proposition)):
        a, unit_a, b, unit_b = m.group(1), _unit(m.group(2)), m.group(3), _unit(m.group(4))
        if unit_a is None or unit_b is None:
            continue
        first, second = format_number(_value(a)), format_number(_value(b))
        if not _converts(_value(a), unit_a, _value(b), unit_b):
            continue
        if second in source_numbers:
            found.add(first)
        if first in source_numbers:
            found.add(second)
    return frozenset(found)


def _stated_otherwise(
    proposition: str, prop: Profile, source: str, src: Profile, converted: frozenset[str]
) -> frozenset[str]:
    """The proposition's numbers the source states without writing them as such: a decade
    ("the 2000s") holding a year of the source, a year the source writes with two digits
    ("15 Jul 19"), or a unit conversion of a number of the source (``converted``)."""
    decades_named = decades(proposition)
    years = {n[:3] for n in src.numbers if len(n) == 4}
    short = short_years(source)
    return frozenset(
        n
        for n in prop.numbers
        if (n in decades_named and n[:3] in years)
        or (re.fullmatch(r"(19|20)\d\d", n) and n[2:] in short)
        or n in converted
    )


def number_findings(
    proposition: str, prop: Profile, window: Window, src: Profile, source: str
) -> list[Finding]:
    """The number findings of one proposition against its window and the whole ``source``
    (``src`` is its profile): invented numbers and units (errors), moved ones (errors only
    as minimal edits)."""
    toks = tokens(proposition)
    after_name = {
        t.norm
        for i, t in enumerate(toks)
        if t.number
        and i
        and toks[i - 1].capitalised
        and toks[i - 1].norm not in MONTHS
        and toks[i - 1].norm not in GLUE_WORDS  # "A 1998 renovation" opens a sentence
    }
    spelled_one = {t.norm for t in tokens(proposition) if t.number and t.text.lower() == "one"}
    findings: list[Finding] = []
    converted = converted_numbers(proposition, src.numbers)
    stated = _stated_otherwise(proposition, prop, source, src, converted)
    invented = sorted(prop.numbers - src.numbers - stated)
    certain = [n for n in invented if n not in spelled_one]
    if certain:
        findings.append(
            aligned_finding(
                proposition,
                INVENTED_NUMBER,
                f"numbers not in the source: {', '.join(certain)}",
                window,
                ERROR,
            )
        )
    if len(certain) < len(invented):
        findings.append(
            aligned_finding(
                proposition,
                INVENTED_NUMBER,
                '"one" counts something the source does not',
                window,
                WARNING,
            )
        )
    findings += _moved(proposition, prop, window, src, after_name)
    for number, unit in sorted(prop.number_units - src.number_units):
        if number in src.numbers and number not in converted:
            others = sorted(u for n, u in src.number_units if n == number)
            said = f" (the source has {number} {', '.join(others)})" if others else ""
            # certain only when the source gives the number another unit; a unit added to
            # a bare number ("aged 25" -> "25 years old") may be what the source means
            findings.append(
                aligned_finding(
                    proposition,
                    INVENTED_UNIT,
                    f"{number} {unit} is not in the source{said}",
                    window,
                    ERROR if others else WARNING,
                )
            )
    return findings


_CLAUSE_BREAKS = frozenset({".", ",", ";", ":", "and", "but", "while", "whereas"})


@dataclass(frozen=True)
class _Clause:
    """One clause of a sentence: its content stems, those of them written as common
    words (``plain``: lower case, or a dictionary word opening the sentence; three
    letters or more, so not "d" of "d'Este" nor "da" of "da Vinci"), and its numbers."""

    words: frozenset[str]
    plain: frozenset[str]
    numbers: frozenset[str]


def _clauses(toks: tuple[Token, ...]) -> list[_Clause]:
    """The clauses of one sentence (between punctuation or "and"/"but"/"while"; the "and"
    of a range "4.5 and 5.5" does not break); a unit after its number is not a content
    word."""
    clauses: list[_Clause] = []
    words: set[str] = set()
    plain: set[str] = set()
    numbers: set[str] = set()
    padded = (*toks, Token(".", ".", False, False))
    for i, tok in enumerate(padded):
        in_range = 0 < i < len(toks) - 1 and toks[i - 1].number and toks[i + 1].number
        if not tok.number and tok.norm in _CLAUSE_BREAKS and not in_range:
            if words or numbers:
                clauses.append(_Clause(frozenset(words), frozenset(plain), frozenset(numbers)))
            words, plain, numbers = set(), set(), set()
        elif tok.number:
            numbers.add(tok.norm)
        elif tok.norm not in GLUE_WORDS and not (unit_of(tok.text) and toks[i - 1].number):
            words.add(stem(tok.norm))
            common = not tok.capitalised or (i == 0 and bool(all_lemmas(tok.norm)))
            if common and len(tok.norm) >= 3:
                plain.add(stem(tok.norm))
    return clauses


_BLANK_LINE = re.compile(r"\n[^\S\n]*\n\s*")


def _text_clauses(text: str) -> list[_Clause]:
    """The clauses of a sentence of the source (see :func:`_clauses`), a blank line ending
    one too: the segmenter may join two blocks ("Files: *\nCopyright: 2009 Ann\n\nFiles:
    debian/*\nCopyright: 2012 Ben"), whose numbers are bound each to its own block."""
    return [c for block in _BLANK_LINE.split(text) for c in _clauses(tokens(block))]


def _clauses_with(text: str, number: str) -> list[frozenset[str]]:
    """The content stems of each clause of ``text`` (see :func:`_text_clauses`) that holds
    ``number``."""
    return [c.words for c in _text_clauses(text) if number in c.numbers]


def _kept(prop: Profile, words: frozenset[str], numbers: frozenset[str]) -> int:
    """How many of a clause's content stems and numbers the proposition states."""
    said = sum(any(stems_match(w, p) for p in prop.content) for w in words)
    return said + len(numbers & prop.numbers)


def displaced_numbers(prop: Profile, window: Window) -> list[tuple[str, str]]:
    """(number, the numbers it stands for): a number of the window that the proposition
    puts in the place of another clause's number. Clauses are measured by their common
    words and numbers (names are context a proposition carries anywhere). The
    proposition restates a clause of the window that does not hold the number (half its
    common words and numbers or more, two at least), leaves one of that clause's numbers
    out, and restates it more than any clause holding the number (the number itself not
    counted); it restates no clause holding the number (more than half its common
    words), nor states another number of one: "Leonardo drew her portrait in 1490" where
    the window says "Isabella became Marchioness in 1490 ... Leonardo drew her portrait
    in 1500"; "The toll rose to 5.5 dollars in 2021" where it says "rose to 5.5 dollars
    in 2010 and rose again to 5.75 dollars in 2021". Kept: "The bridge ... ended in
    October 1965" for "began on 14 March 1962 and ended in October 1965" (its own clause
    restated), "The toll rose from 5.5 dollars in 2010 to 5.75 dollars in 2021" (bound
    as the source binds them), "Gaudi worked on the Sagrada Familia until 1926" (only
    names of the other clause)."""
    clauses = [c for member in window.members for c in _text_clauses(member.text)]
    found: list[tuple[str, str]] = []
    for number in sorted(prop.numbers):
        own = [c for c in clauses if number in c.numbers]
        if not own or any((c.numbers - {number}) & prop.numbers for c in own):
            continue  # not the window's, or stated with another number of its own clause
        if any(
            not c.words or (c.plain and 2 * _kept(prop, c.plain, frozenset()) > len(c.plain))
            for c in own
        ):
            continue  # its own clause restated, or the number is a clause alone ("? 0.37")
        best_own = max(_kept(prop, c.plain, c.numbers - {number}) for c in own)
        for clause in clauses:
            left_out = sorted(clause.numbers - prop.numbers)
            if number in clause.numbers or not left_out:
                continue
            kept = _kept(prop, clause.plain, clause.numbers)
            size = len(clause.plain) + len(clause.numbers)
            if kept >= 2 and 2 * kept >= size and kept > best_own:
                found.append((number, ", ".join(left_out)))
                break
    return found


def _bound(prop: Profile, number: str, window: Window) -> bool:
    """Is ``number`` stated of the same thing as in the source: does a clause of the window
    that holds it share a content word (or name) with the proposition? ("up to 60,000
    worker bees" does not share one with "The queen lays 60,000 eggs a day".)"""
    for sentence in window.members:
        for clause in _clauses_with(sentence.text, number):
            if not clause or any(stems_match(w, c) for w in prop.content for c in clause):
                return True  # a clause of bare numbers binds nothing
    return False
