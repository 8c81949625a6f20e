"""Shared language work for the checks: tokens, spelling variants, stems, numbers.

Everything here is pure, deterministic and cached per text, because the suite calls the
checks on every run. Stemming is snowball (English); no data is downloaded.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer
from rapidfuzz import fuzz

from . import _english
from ._words import MONTH_NAMES
from ._words import word_set as word_set  # re-exported: the lists of single rules use it

_STEMMERS = threading.local()
"""One snowball stemmer per thread: a stemmer keeps its word in its own state, so one
shared by threads (documents chunked concurrently) raises IndexError or stems wrong."""


def _stemmer() -> snowballstemmer.stemmer:
    """This thread's English stemmer (made on first use)."""
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return stemmer


def _split(words: str) -> list[str]:
    return words.split()


def _keys(words: str, value: str) -> dict[str, str]:
    return dict.fromkeys(words.split(), value)


GLUE_WORDS: frozenset[str] = word_set("""
    a an the this that these those such same other another
    is are was were be been being am has have had having do does did done
    will would shall should can could may might must
    of in on at to for with by from as into onto upon about between within without
    through over under after before during since until than then via per among across
    and or but nor so yet also both either neither each every all any some many much
    more most less least very just only even still too well
    which who whom whose what when where why how whether while if because although though
    it its itself they them their theirs themselves he him his she her hers himself herself
    we us our ours i me my you your there here one ones own
    not no never none n't
    known called named referred considered several multiple various numerous
    """)
"""Function and glue words extraction legitimately adds or drops; never content."""

NEGATIONS: frozenset[str] = word_set(
    "not no never none nothing nobody nowhere neither nor cannot without n't"
)
"""Words that negate a statement (``n't`` is split off contractions first)."""

_UNITS: dict[str, str] = {
    **_keys("percent pct percentage", "percent"),
    **_keys("dollar dollars usd", "dollar"),
    **_keys("euro euros eur", "euro"),
    **_keys("pound pounds gbp lb lbs", "pound"),
    **_keys("kg kilogram kilograms kilo kilos", "kg"),
    **_keys("g gram grams", "g"),
    **_keys("mg milligram milligrams", "mg"),
    **_keys("km kilometre kilometres kilometer kilometers", "km"),
    **_keys("m metre metres meter meters", "m"),
    **_keys("cm centimetre centimetres centimeter centimeters", "cm"),
    **_keys("mm millimetre millimetres millimeter millimeters", "mm"),
    **_keys("nm nanometre nanometres nanometer nanometers", "nm"),
    **_keys("mile miles mi", "mile"),
    **_keys("foot feet ft", "foot"),
    **_keys("inch inches", "inch"),
    **_keys("v volt volts", "volt"),
    **_keys("kv kilovolt kilovolts", "kv"),
    **_keys("w watt watts", "watt"),
    **_keys("kw kilowatt kilowatts", "kw"),
    **_keys("mw megawatt megawatts", "mw"),
    **_keys("gw gigawatt gigawatts", "gw"),
    **_keys("wh", "wh"),
    **_keys("kwh", "kwh"),
    **_keys("mah", "mah"),
    **_keys("hz hertz", "hz"),
    **_keys("ghz gigahertz", "ghz"),
    **_keys("mhz megahertz", "mhz"),
    **_keys("gb gigabyte gigabytes", "gb"),
    **_keys("mb megabyte megabytes", "mb"),
    **_keys("tb terabyte terabytes", "tb"),
    **_keys("year years yr yrs", "year"),
    **_keys("month months", "month"),
    **_keys("week weeks", "week"),
    **_keys("day days", "day"),
    **_keys("hour hours hr hrs h", "hour"),
    **_keys("minute minutes min mins", "minute"),
    **_keys("second seconds sec secs s", "second"),
    **_keys("millisecond milliseconds ms", "ms"),
    **_keys("degree degrees", "degree"),
    **_keys("celsius c", "celsius"),
    **_keys("fahrenheit f", "fahrenheit"),
    **_keys("kelvin", "kelvin"),
    **_keys("litre litres liter liters l", "litre"),
    **_keys("ml millilitre millilitres milliliter milliliters", "ml"),
    **_keys("ton tons tonne tonnes", "ton"),
    **_keys("acre acres", "acre"),
    **_keys("hectare hectares ha", "hectare"),
    **_keys("cycle cycles", "cycle"),
    **_keys("times x fold", "times"),
}
"""Unit words and symbols (lower case) -> one canonical unit, so "3.7 V" = "3.7 volts"."""

_SMALL = {
    w: i
    for i, w in enumerate(
        _split(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen"
        )
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate(_split("_ _ twenty thirty forty fifty sixty seventy eighty ninety"))
    if w != "_"
}
_SCALES = {
    "hundred": 100,
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
_NUMBER_WORDS = frozenset(_SMALL) | frozenset(_TENS) | frozenset(_SCALES)

_VARIANT_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(\w{2,})is(e|es|ed|ing|ation|ations|er|ers)$"), r"\1iz\2"),
    (re.compile(r"^(\w{2,})ys(e|es|ed|ing)$"), r"\1yz\2"),
    (re.compile(r"^(\w{3,})our(s|ed|ing|able|ite|ites)?$"), r"\1or\2"),
    (re.compile(r"^(\w{2,}[tb])re(s|d)?$"), r"\1er\2"),
    (re.compile(r"^(\w{3,})ogue(s)?$"), r"\1og\2"),
    (re.compile(r"^(\w{2,})ll(ed|ing|er|ers)$"), r"\1l\2"),
    (re.compile(r"^sulph"), "sulf"),
)
_WORD_VARIANTS = {
    "aluminium": "aluminum",
    "grey": "gray",
    "sulphur": "sulfur",
    "programme": "program",
    "programmes": "programs",
    "defence": "defense",
    "licence": "license",
    "offence": "offense",
    "tyre": "tire",
    "e-mail": "email",
    "per": "per",
    "cent": "cent",
}
_OUR_KEEP = word_set(
    "your yours four hour hours flour pour tour sour devour detour contour velour tours pours"
)


@lru_cache(maxsize=65536)
def canonical_word(word: str) -> str:
    """Return ``word`` lower-cased with British/American spelling variants made one.

    Accents are dropped ("Hygiène" = "Hygiene"); -ise/-ize, -yse/-yze, -our/-or, -tre/-ter,
    -ogue/-og, doubled -ll- before a suffix, and a few single words (aluminium, grey,
    programme...). Applied to both texts compared, so an over-eager rewrite cannot create a
    mismatch, only (rarely) a false match.
    """
    w = word.lower()
    if not w.isascii():  # "Hygiène" = "Hygiene": a title written with or without accents
        w = "".join(c for c in unicodedata.normalize("NFKD", w) if not unicodedata.combining(c))
    if w in _WORD_VARIANTS:
        return _WORD_VARIANTS[w]
    if len(w) < 5 or w in _OUR_KEEP or w in GLUE_WORDS:  # "called" stays "called"
        return w
    for pattern, replacement in _VARIANT_RULES:
        new = pattern.sub(replacement, w)
        if new != w:
            return new
    return w


def all_lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's lemmas of ``word`` by universal part of speech (``{}`` when it does
    not know the word), read from its data without importing it (``_english``: importing
    lemminflect imports spaCy)."""
    return _english.all_lemmas(word)


def inflection(base: str, tag: str) -> tuple[str, ...]:
    """lemminflect's forms of the lemma ``base`` for the Penn tag ``tag`` (``()`` when its
    lexicon lists none; no form made by rule), read as :func:`all_lemmas` reads."""
    return _english.inflection(base, tag)


def all_inflections(base: str, *, upos: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's inflections of the lemma ``base`` as part of speech ``upos``, by
    Penn tag (``{}`` when it has none), read as :func:`all_lemmas` reads."""
    return _english.all_inflections(base, upos)


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The dictionary form of ``word`` (lower case) from lemminflect's English lexicon:
    irregular forms joined ("seen" -> "see", "said" -> "say", "grew" -> "grow", "mice" ->
    "mouse"); a verb reading wins over a noun one; a word it does not know is returned as
    given. Pure lookup in data shipped in the wheel, nothing downloaded."""
    found = all_lemmas(word)
    for upos in ("VERB", "AUX", "NOUN", "ADJ", "ADV"):
        if upos in found:
            return str(found[upos][0]).lower()
    return word


@lru_cache(maxsize=65536)
def can_be_verb(word: str) -> bool:
    """Can ``word`` (lower case) be a verb form in lemminflect's English lexicon? A word it
    does not know counts as one when it ends in -s or -ed (longer than three letters)."""
    found = all_lemmas(word)
    if not found:
        return word.endswith(("s", "ed")) and len(word) > 3
    return "VERB" in found or "AUX" in found


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball stem of the lemma of the canonical form of ``word``."""
    canonical = canonical_word(word)
    return str(_stemmer().stemWord(lemma(canonical)))


_APOSTROPHES = re.compile(r"[\u2018\u2019\u02bc`]")
_PREP = (
    (_APOSTROPHES, "'"),
    (re.compile(r"[\u201c\u201d]"), '"'),
    (re.compile(r"[\u2010-\u2015\u2212]"), "-"),
    (re.compile(r"(?i)\bper\s+cent\b"), "percent"),
    (re.compile(r"%"), " percent"),
    (re.compile(r"(?i)\bcan't\b"), "can not"),
    (re.compile(r"(?i)\bwon't\b"), "will not"),
    (re.compile(r"(?i)\bshan't\b"), "shall not"),
    (re.compile(r"(?i)n't\b"), " not"),
    (re.compile(r"(?i)\bcannot\b"), "can not"),
    (re.compile(r"'s\b|'"), " "),
)
_ABBREVIATIONS = (
    (re.compile(r"(?i)\bi\.\s?e\.(?=\W|$)"), "that is"),
    (re.compile(r"(?i)\be\.\s?g\.(?=\W|$)"), "for example"),
    (re.compile(r"(?i)\betc\.(?=\W|$)"), "etc"),
    (re.compile(r"(?i)\b(?:cf|viz|vs)\.(?=\W|$)"), "compare"),
)
_PDF_HYPHEN = re.compile(r"(?<=[a-z])-[ \t]*\n[ \t]*(?=[a-z])")
_CURRENCY = re.compile(
    r"([$€£])\s?(\d[\d,]*(?:\.\d+)?)"
    r"(?:\s?(thousand|million|billion|trillion|bn|mn|m|k)\b)?"
)
"""An amount of money, its scale written apart or run together ("$2.4 billion",
"$2.4billion", "£3.5bn", "$40m", "$500k")."""
_CURRENCY_NAME = {"$": "dollars", "€": "euros", "£": "pounds"}
_SCALE_ABBREVIATIONS = {"bn": "billion", "mn": "million", "m": "million", "k": "thousand"}
_RUN_TOGETHER_SCALE = re.compile(r"(?i)(?<=\d)(thousand|million|billion|trillion)\b")
"""A scale word run together with its number ("2.4billion")."""


def _amount(match: re.Match[str]) -> str:
    scale = match.group(3)
    scale = "" if scale is None else " " + _SCALE_ABBREVIATIONS.get(scale.lower(), scale.lower())
    return f"{match.group(2)}{scale} {_CURRENCY_NAME[match.group(1)]}"


_TOKEN = re.compile(
    r"\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?|[^\W\d_]+|[.!?;:,](?=\s|$)|\n(?=[^\S\n]*\n)"
)
_BREAK = frozenset(".!?;:,\n")
"""Punctuation and a blank line ("\n" before it): they stop a number run and make a last
"one" the pronoun ("... correct one\n\n[ Hugh ..."), and are no tokens themselves."""
_ORDINAL_SUFFIX = re.compile(r"(?<=\d)(st|nd|rd|th|s)$")


_MONTH_ABBREVIATION = re.compile(
    r"\b(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b\.?(?=\s*\d)"
    r"|(?<=\d\s)(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b\.?"
)
_ISO_DATE = re.compile(r"\b(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b")
_DOTTED_ACRONYM = re.compile(r"\b(?:[A-Z]\.){2,}")


def _month(abbreviation: str) -> str:
    return next(m for m in MONTH_NAMES if m.startswith(abbreviation[:3]))


def _prepare(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _PDF_HYPHEN.sub("", text)  # "electro-\nlyte" (a PDF line break) -> "electrolyte"
    for pattern, replacement in _ABBREVIATIONS:
        text = pattern.sub(replacement, text)
    text = _ISO_DATE.sub(
        lambda m: f"{int(m.group(3))} {MONTH_NAMES[int(m.group(2)) - 1]} {m.group(1)}", text
    )
    text = _MONTH_ABBREVIATION.sub(lambda m: _month(m.group(1) or m.group(2)), text)
    text = _DOTTED_ACRONYM.sub(lambda m: m.group(0).replace(".", "") + " ", text)
    text = _CURRENCY.sub(_amount, text)
    text = _RUN_TOGETHER_SCALE.sub(r" \1", text)
    for pattern, replacement in _PREP:
        text = pattern.sub(replacement, text)
    return text


def _number_value(token: str) -> float | None:
    digits = _ORDINAL_SUFFIX.sub("", token)
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", digits):
        digits = digits.replace(",", "")
    try:
        return float(digits)
    except ValueError:
        return None


def format_number(value: float) -> str:
    """Canonical text of a number: ``5.50`` -> ``5.5``, ``2000.0`` -> ``2000``."""
    return str(int(value)) if value == int(value) else repr(round(value, 6))


@dataclass(frozen=True)
class Token:
    """A word or a number of a text: ``text`` as written, ``norm`` lower/canonical, or the
    canonical number for numbers; ``number`` is True for numbers (digits or words)."""

    text: str
    norm: str
    number: bool
    capitalised: bool


def _counts(raw: list[str], i: int) -> bool:
    """Does the word "one" at ``raw[i]`` count something? Only when a word that is not a
    glue word follows it ("one hour", "one hundred"); "one can", "one of them", "one
    another" and a final "one" are the pronoun."""
    nxt = raw[i + 1].lower() if i + 1 < len(raw) else ""
    if not nxt or nxt in _BREAK or (nxt in GLUE_WORDS and nxt not in _NUMBER_WORDS):
        return False
    return not (nxt.endswith("s") and lemma(nxt) != nxt)  # "one divides", "one needs"


def _collapse_numbers(raw: list[str]) -> list[Token]:
    """Turn digit runs and number-word runs ("twenty five million") into number tokens."""
    out: list[Token] = []
    i = 0
    while i < len(raw):
        word = raw[i]
        if word in _BREAK:  # punctuation only stops a number run ("5.5. Million.")
            i += 1
            continue
        low = word.lower()
        value = _number_value(word) if word[0].isdigit() else None
        if value is None and low == "one" and not _counts(raw, i):
            out.append(Token(word, "one", False, word[0].isupper()))  # "one can", "one of"
            i += 1
            continue
        if value is not None or low in _SMALL or low in _TENS:
            total, current, j = 0.0, value if value is not None else 0.0, i + 1
            if value is None:
                current = float(_SMALL.get(low, _TENS.get(low, 0)))
            while j < len(raw):
                nxt = raw[j].lower()
                if nxt in _SMALL or nxt in _TENS:
                    add = _SMALL.get(nxt, _TENS.get(nxt, 0))
                    # "twenty five" adds; "five thirty-second ads" are two words
                    if value is not None or (current % 100 and (nxt in _TENS or add >= 10)):
                        break
                    if current % 10:
                        break
                    current += add
                elif nxt in _SCALES:
                    current = (current or 1) * _SCALES[nxt]
                    if _SCALES[nxt] >= 1000:
                        total, current = total + current, 0.0
                elif (
                    nxt == "and"
                    and value is None
                    and j + 1 < len(raw)
                    and (raw[j + 1].lower() in _NUMBER_WORDS)
                ):
                    pass
                else:
                    break
                j += 1
            number = format_number(total + current)
            out.append(Token(" ".join(raw[i:j]), number, True, False))
            i = j
            continue
        out.append(Token(word, canonical_word(word), False, word[0].isupper()))
        i += 1
    return out


@lru_cache(maxsize=8192)
def tokens(text: str) -> tuple[Token, ...]:
    """Words and numbers of ``text`` in order: hyphenated words split ("lithium-ion" ->
    "lithium", "ion"), possessive 's dropped, n't -> not, % -> percent, $5 -> 5 dollars,
    digits canonical ("1,000" -> "1000"), number words as digits ("two" -> "2"), dotted
    acronyms closed up ("U.S." -> "US"), ISO dates spelled out ("2018-02-22" -> "22
    February 2018") and month abbreviations next to a number expanded ("Apr. 24" ->
    "April 24")."""
    return tuple(_collapse_numbers(_TOKEN.findall(_prepare(text))))


_SHORT_YEAR = re.compile(r"\b\d{1,2}\s+(?:" + "|".join(MONTH_NAMES) + r")\s+(\d{2})\b(?![\d:.,]\d)")
_DECADE = re.compile(r"\b(1\d\d0|20\d0)'?s\b")


@lru_cache(maxsize=1024)
def short_years(text: str) -> frozenset[str]:
    """Two-digit years of the day-month-year dates of ``text`` ("15 Jul 19" -> "19"): a
    four-digit year ending in them states the same date."""
    return frozenset(m.group(1) for m in _SHORT_YEAR.finditer(_prepare(text)))


def decades(text: str) -> frozenset[str]:
    """The decades ``text`` names ("the 2000s", "the 1980's" -> "2000", "1980"): a year of
    the source within one supports it."""
    return frozenset(m.group(1) for m in _DECADE.finditer(_prepare_quotes(text)))


def _prepare_quotes(text: str) -> str:
    return _APOSTROPHES.sub("'", unicodedata.normalize("NFKC", text))


def unit_of(word: str) -> str | None:
    """The canonical unit a word names, or None."""
    return _UNITS.get(word.lower())


@dataclass(frozen=True)
class Profile:
    """What the checks compare in a text: content stems, numbers (with units), negation."""

    content: frozenset[str]
    content_seq: tuple[str, ...]
    numbers: frozenset[str]
    number_units: frozenset[tuple[str, str]]
    names: frozenset[str]
    negated: bool


@lru_cache(maxsize=8192)
def profile(text: str) -> Profile:
    """Return the :class:`Profile` of ``text`` (cached)."""
    toks = tokens(text)
    content: list[str] = []
    names: set[str] = set()
    numbers: set[str] = set()
    units: set[tuple[str, str]] = set()
    negated = False
    for i, tok in enumerate(toks):
        if tok.number:
            numbers.add(tok.norm)
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            unit = unit_of(nxt.text) if nxt is not None and not nxt.number else None
            if unit is not None:
                units.add((tok.norm, unit))
            continue
        if tok.norm in NEGATIONS:
            negated = True
        capitalised_glue = tok.capitalised and i > 0 and len(tok.norm) > 1  # "in May"
        if (tok.norm in GLUE_WORDS and not capitalised_glue) or (
            unit_of(tok.text) and i and toks[i - 1].number
        ):
            continue
        content.append(stem(tok.norm))
        if tok.capitalised and i > 0:
            names.add(stem(tok.norm))
    return Profile(
        frozenset(content),
        tuple(content),
        frozenset(numbers),
        frozenset(units),
        frozenset(names),
        negated,
    )


AUXILIARIES: frozenset[str] = word_set(
    """is are was were am be been being has have had do does did can could will would shall
    should may might must"""
)
"""Finite auxiliary and modal verbs."""


@lru_cache(maxsize=64)
def stems_of(words: frozenset[str]) -> frozenset[str]:
    """The stems of a fixed word set (a module's constant), made on its first use and
    kept: stemming loads lemminflect, which a module should not do when imported."""
    return frozenset(stem(w) for w in words)


def stems_match(a: str, b: str) -> bool:
    """Equal stems, one a prefix of the other (4+ letters, at most 4 more), or two long
    stems at least 90 % alike: "movement"/"move", "organ"/"organiz"."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) >= 4 and long_.startswith(short) and len(long_) - len(short) <= 4:
        return True
    return len(short) >= 6 and fuzz.ratio(a, b) >= 90
