"""No duplication: the same fact twice anywhere in the output, certain or possible.

Three relations between two propositions, from the strongest:

- **certainly the same fact** (:func:`certainly_same_fact`): equal after normalisation,
  or the same words as lemmas in the same roles (articles aside, a passive turned active:
  "Glycogen is stored by the liver." = "The liver stores glycogen."), with the same
  numbers (and units), polarity and quantifiers ("each" = "every"). No word is left over
  on either side and no role changes, so nothing is lost by keeping one. (Word order is
  not ignored beyond the passive: "The liver converts glucose into glycogen." and "...
  glycogen into glucose." hold the same words and are two facts.)
- **possibly the same fact, reworded** (:func:`same_fact` but not certain): a few stems
  differ, or the words are the same but who does what may differ ("Dogs chase cats." /
  "Cats chase dogs.").
- **containment** (:func:`contains`): one proposition states all of another and more.

``find_duplicates`` reports the first as errors and the other two as warnings. Pairs are
not compared all against all: candidates come from an inverted index of stem keys
(:mod:`._candidates`), then the exact relations decide, so the work grows about linearly.

A fourth, weaker relation comes from outside: pairs an embedder found close in meaning
(the ``semantic`` extra; the judge layer finds them and passes them in as ``similar``).
Those the lexical rules leave open (:func:`open_similar_pairs`) are warnings of kind
``similar_meaning``: candidates for the judge, whose confirmation makes them errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from ._cached import CACHE_SIZE as _CACHE
from ._cached import profile, subject_stems, tokens
from ._candidates import candidate_pairs, stem_keys
from ._finding import ERROR, NO_DUPLICATION, WARNING, Finding
from ._language import stems_match, word_set
from ._verbs import looks_like_finite_verb

EXACT = "exact_duplicate"
"""The same words after normalisation (case, spacing, spelling, number words)."""
CERTAIN = "certain_duplicate"
"""The same content stems, numbers, polarity, quantifiers and doer, in another order."""
REWORDED = "reworded_duplicate"
"""Probably the same fact in other words (:func:`same_fact` but not certain)."""
CONTAINED = "contained_duplicate"
"""One proposition states all of another and more."""
SIMILAR = "similar_meaning"
"""Close in meaning by an embedder's vectors while the lexical rules find nothing: maybe the
same fact in other words, maybe two facts about one subject (the judge decides)."""
DUPLICATE_KINDS = (EXACT, CERTAIN, REWORDED, CONTAINED, SIMILAR)

_QUANTIFIER_CLASSES: dict[str, str] = {
    word: label
    for label, words in (
        ("all", "all every each entire whole"),
        ("no", "no none neither"),
        ("some", "some several various multiple certain"),
        ("many", "many much numerous"),
        ("most", "most majority"),
        ("few", "few little minority"),
        ("half", "half"),
        ("both", "both"),
        ("any", "any either"),
        ("only", "only solely exclusively"),
        ("more", "more"),
        ("less", "less fewer"),
    )
    for word in word_set(words)
}
"""Quantifier words and the class each belongs to ("every" and "each" are "all")."""

_MIN_CONTAINED_STEMS = 2
"""A contained proposition states at least this many content stems (not just "Water boils.")."""


@lru_cache(maxsize=1 << 18)
def _stems_match(a: str, b: str) -> bool:
    """:func:`stems_match`, remembered: the same few hundred stems meet over and over."""
    return stems_match(a, b)


def _unmatched(left: frozenset[str], right: frozenset[str], limit: int) -> set[str] | None:
    """The stems of ``left`` that match none of ``right``; None as soon as there are more
    than ``limit`` of them (the caller's answer is then "not the same fact" anyway)."""
    out: set[str] = set()
    for s in left:
        if s not in right and not any(_stems_match(s, r) for r in right):
            out.add(s)
            if len(out) > limit:
                return None
    return out


@lru_cache(maxsize=_CACHE)
def quantifiers(text: str) -> frozenset[str]:
    """The quantifier classes of ``text`` ("all", "no", "some", "half", "only", ...)."""
    return frozenset(
        _QUANTIFIER_CLASSES[t.norm] for t in tokens(text) if t.norm in _QUANTIFIER_CLASSES
    )


@lru_cache(maxsize=_CACHE)
def _signature(text: str) -> tuple[object, ...]:
    """What two propositions of one fact must share exactly: numbers with units,
    polarity, quantifiers, and codes (tokens with digits that are no number: versions
    "2.31.1", identifiers "r279456"; "binutils (2.31.1-8)" is not "binutils (2.29.1-8)")."""
    p = profile(text)
    return (p.numbers, p.number_units, p.negated, quantifiers(text), _codes(text))


@lru_cache(maxsize=_CACHE)
def _codes(text: str) -> frozenset[str]:
    return frozenset(
        t.norm for t in tokens(text) if not t.number and any(c.isdigit() for c in t.norm)
    )


_IGNORED = word_set("a an the")
"""Words whose presence never changes the fact ("a"/"the" swapped)."""
_BE = word_set("is are was were be been being")
"""Forms of "be": the auxiliary of a passive, dropped when it is turned active."""


@lru_cache(maxsize=_CACHE)
def lemma(word: str) -> str:
    """A conservative lemma of a lower-case word: only regular inflections are removed
    (-s, -es, -ies, -ed, -ing, then a final -e), so "stores", "stored", "storing" and
    "store" meet, and "organization" never meets "organ" as its stem does."""
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "zes", "ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    elif word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


@lru_cache(maxsize=_CACHE)
def active_sequence(text: str) -> tuple[str, ...]:
    """The words of ``text`` in order as conservative lemmas (:func:`lemma`; numbers as
    digits, quantifiers as their class), without articles; a passive ("O is V-ed by S
    ...") is turned active ("S V O ..."), so both voices give one sequence. Prepositions
    and word order are kept: they say who does what to whom."""
    toks = tokens(text)
    items: list[str] = []
    verb = by = None
    for i, tok in enumerate(toks):
        if not tok.norm.isalnum() or tok.norm in _IGNORED:
            continue
        if verb is None and looks_like_finite_verb(toks, i):
            verb = len(items) if tok.norm in _BE else -1
        if tok.norm == "by" and verb is not None and verb >= 0:
            by = len(items)
        if tok.norm in _BE and verb is not None and verb >= 0 and by is None:
            continue  # the passive's auxiliary
        word = tok.norm if tok.number else _QUANTIFIER_CLASSES.get(tok.norm) or lemma(tok.norm)
        items.append(word)
    if verb is None or verb < 0 or by is None:
        return tuple(items)
    subject, middle, agent = items[:verb], items[verb:by], items[by + 1 :]
    return (*agent, *middle, *subject)


@lru_cache(maxsize=_CACHE)
def certain_key(text: str) -> tuple[object, ...] | None:
    """A key equal for two texts exactly when they are certainly the same fact beyond
    normalised equality (None for a text without a content word): the same words in the
    same roles (:func:`active_sequence`), numbers, polarity and quantifiers."""
    if not profile(text).content:
        return None
    return (active_sequence(text), *_signature(text))


def _exact(a: str, b: str) -> bool:
    ta = tuple(t.norm for t in tokens(a))
    return bool(ta) and ta == tuple(t.norm for t in tokens(b))


def certainly_same_fact(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are certainly one fact: the same words after normalisation
    (case, punctuation, spacing, British/American spelling, number words as digits), or
    the same lemmas in the same roles (:func:`active_sequence`: articles aside, a passive
    turned active, quantifiers by class) with the same numbers with units, polarity and
    quantifiers. Implies :func:`same_fact` for texts with a content word."""
    if _exact(a, b):
        return True
    key = certain_key(a)
    return key is not None and key == certain_key(b)


@lru_cache(maxsize=65536)
def _same_fact_ordered(a: str, b: str) -> bool:
    if _exact(a, b):
        return True
    if _signature(a) != _signature(b):
        return False
    pa, pb = profile(a), profile(b)
    if not pa.content or not pb.content:
        return False
    union = len(pa.content | pb.content)
    # unmatched stems allowed in all: about one in seven, none below five stems
    allowed = max(1, int(0.15 * union)) if union >= 5 else 0
    only_a = _unmatched(pa.content, pb.content, allowed)
    if only_a is None:
        return False
    only_b = _unmatched(pb.content, pa.content, allowed - len(only_a))
    if only_b is None:
        return False
    if not only_a and not only_b:
        return True
    if (only_a | only_b) & (pa.names | pb.names):
        return False
    return not (only_a & subject_stems(a) or only_b & subject_stems(b))


def same_fact(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` state the same fact, exactly or trivially reworded.

    Definition: after normalisation (case, punctuation, whitespace, British/American
    spelling, number words as digits, "%" as "percent", hyphens split) the two have the same
    numbers with the same units, the same polarity (both negated or neither) and the same
    quantifiers ("all", "no", "some", "half", "only", ...), and their content-word stems
    match (exactly, or as a short inflectional prefix); at most about one stem in seven may
    differ, and never a capitalised name or a word of either subject. Word order is
    ignored, so an active and a passive rewording are the same fact.
    Symmetric, deterministic; ``same_fact(a, a)`` is True for any ``a`` with a word in it.
    """
    if a == b:
        return bool(tokens(a))
    first, second = (a, b) if a <= b else (b, a)
    return _same_fact_ordered(first, second)


def contains(longer: str, shorter: str) -> bool:
    """True when ``longer`` states all of ``shorter`` and more: the content stems of
    ``shorter`` (at least two) match, in the same order, stems of ``longer``, which has
    more ("X does Y." in "X does Y in Z."); its numbers with units and quantifiers are
    among ``longer``'s, and the polarity is the same. The order matters: the same words
    around another verb ("Genomics studies the DNA." / "The DNA is known as the genome.")
    are another fact."""
    pl, ps = profile(longer), profile(shorter)
    if len(ps.content) < _MIN_CONTAINED_STEMS or len(pl.content) <= len(ps.content):
        return False
    if pl.negated != ps.negated or not ps.numbers <= pl.numbers:
        return False
    if not (ps.number_units <= pl.number_units and quantifiers(shorter) <= quantifiers(longer)):
        return False
    if _unmatched(ps.content, pl.content, 0) != set():
        return False
    return _in_order(ps.content_seq, pl.content_seq)


def _in_order(short: Sequence[str], long_: Sequence[str]) -> bool:
    """True when each stem of ``short`` matches a stem of ``long_``, in order (greedy)."""
    position = 0
    for s in short:
        while position < len(long_) and not _stems_match(s, long_[position]):
            position += 1
        if position == len(long_):
            return False
        position += 1
    return True


def duplicate_kind(first: str, later: str) -> str | None:
    """How ``later`` repeats ``first``: one of ``DUPLICATE_KINDS``, or None."""
    if _exact(first, later):
        return EXACT
    if certainly_same_fact(first, later):
        return CERTAIN
    if same_fact(first, later):
        return REWORDED
    if contains(first, later) or contains(later, first):
        return CONTAINED
    return None


def find_duplicates(
    chunks: Sequence[Sequence[str]], *, similar: Iterable[tuple[int, int]] = ()
) -> list[Finding]:
    """Return one finding per proposition that repeats an earlier one.

    Chunks are read in order, propositions in order (see :func:`duplicate_pairs`). A
    proposition certainly the same fact as an earlier one gives an **error**; a possible
    duplicate (kind ``reworded_duplicate``) or a containment (``contained_duplicate``)
    gives a **warning**. ``similar`` holds pairs ``(earlier, later)`` of indexes into the
    propositions of all chunks in order, found close in meaning by other means (an
    embedder); each later proposition of an open pair (:func:`open_similar_pairs`) without
    a lexical finding gets a **warning** of kind ``similar_meaning`` naming its earliest
    partner. Each finding has the chunk index of the copy and a reason naming the first
    occurrence; findings are in the order of the copies. Empty list when every fact
    appears once.
    """
    flat = [(c, p) for c, chunk in enumerate(chunks) for p in chunk]
    texts = [p for _, p in flat]
    pairs = duplicate_pairs(texts)
    pairs += _first_partners(open_similar_pairs(texts, similar, lexical=pairs))
    return [
        _finding(flat[j], flat[i][0], flat[i][1], kind)
        for j, i, kind in sorted(pairs, key=lambda pair: pair[1])
    ]


def open_similar_pairs(
    texts: Sequence[str],
    pairs: Iterable[tuple[int, int]],
    *,
    lexical: Sequence[tuple[int, int, str]] | None = None,
) -> list[tuple[int, int]]:
    """The pairs ``(earlier, later)`` of ``pairs`` (indexes into ``texts``, found close in
    meaning by other means) that the lexical rules leave open, sorted: the later text has
    no finding of :func:`duplicate_pairs` (``lexical``, computed when None), and nothing
    certain tells the two apart: they have the same polarity, and the numbers of one are
    all among the other's (a repeated fact keeps its numbers; "5.5 percent" and "5.75
    percent" are two facts, however close their vectors)."""
    if lexical is None:
        lexical = duplicate_pairs(texts)
    reported = {later for _, later, _ in lexical}
    kept: set[tuple[int, int]] = set()
    for pair in pairs:
        first, later = sorted(pair)
        if first == later or later in reported or first < 0 or later >= len(texts):
            continue
        a, b = profile(texts[first]), profile(texts[later])
        if a.negated != b.negated or not (a.numbers <= b.numbers or b.numbers <= a.numbers):
            continue
        kept.add((first, later))
    return sorted(kept, key=lambda pair: (pair[1], pair[0]))


def _first_partners(pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """One ``(earliest, later, SIMILAR)`` per later text of ``pairs`` (sorted by later)."""
    out: list[tuple[int, int, str]] = []
    for first, later in pairs:
        if not out or out[-1][1] != later:
            out.append((first, later, SIMILAR))
    return out


def duplicate_pairs(texts: Sequence[str]) -> list[tuple[int, int, str]]:
    """``(first, later, kind)`` for each proposition that repeats an earlier one.

    Each proposition is compared with the earlier ones not themselves reported as a copy; one
    with no letter or digit (a rule of dashes, a lone quote mark) states no fact and is
    neither a copy nor an original.
    The earliest that is certainly the same fact (:func:`certainly_same_fact`; kind
    ``exact_duplicate`` or ``certain_duplicate``) wins; otherwise the earliest possibly the
    same fact (:func:`same_fact`, ``reworded_duplicate``), otherwise the earliest in a
    containment either way (:func:`contains`, ``contained_duplicate``; the later one stays
    a fact of its own). Certain copies are found by hashed keys; the others only among
    candidate pairs from a stem index (see :mod:`._candidates`), with the same result as
    comparing all pairs wherever matching stems share their first four letters.
    """
    earlier = candidate_pairs(texts)
    facts = [(stem_keys(t), len(profile(t).content), _signature(t)) for t in texts]
    reported: set[int] = set()
    first: dict[object, int] = {}
    pairs: list[tuple[int, int, str]] = []
    for i, text in enumerate(texts):
        if not any(c.isalnum() for c in text):
            continue  # no word ("----", '"""'): no fact to repeat (self_contained flags it)
        words = tuple(t.norm for t in tokens(text))
        key = certain_key(text)
        sure = [j for j in (first.get(("words", words)), first.get(key)) if j is not None]
        if sure:
            j = min(sure)
            pairs.append((j, i, EXACT if _exact(texts[j], text) else CERTAIN))
            reported.add(i)
            continue
        live = [j for j in earlier.get(i, ()) if j not in reported]
        match = _possible_match(i, texts, facts, live)
        if match is not None:
            pairs.append(match)
        if match is not None and match[2] == REWORDED:
            reported.add(i)
            continue
        first.setdefault(("words", words), i)
        if key is not None:
            first.setdefault(key, i)
    return pairs


_Facts = tuple[frozenset[str], int, tuple[object, ...]]
"""Per text: its stem keys, its number of content stems, its signature."""


def _possible_match(
    i: int, texts: Sequence[str], facts: Sequence[_Facts], live: Sequence[int]
) -> tuple[int, int, str] | None:
    """The earliest possible duplicate of ``texts[i]`` among ``live``, else the earliest
    containment. Pairs whose stem keys differ by more than either relation allows are
    passed over without the full comparison."""
    text = texts[i]
    mine, size, signature = facts[i]
    for j in live:
        theirs, other, their_signature = facts[j]
        if their_signature != signature or len(mine ^ theirs) > max(1, (size + other) * 3 // 20):
            continue
        if same_fact(texts[j], text):
            return j, i, REWORDED
    for j in live:
        theirs = facts[j][0]
        if (mine <= theirs or theirs <= mine) and (
            contains(texts[j], text) or contains(text, texts[j])
        ):
            return j, i, CONTAINED
    return None


def _finding(original: tuple[int, str], chunk_index: int, proposition: str, kind: str) -> Finding:
    where = "in the same chunk" if original[0] == chunk_index else f"in chunk {original[0]}"
    what = {
        EXACT: "repeats the same fact",
        CERTAIN: "restates the same fact (same words in another order)",
        REWORDED: "may restate, reworded, the fact",
        CONTAINED: "overlaps (one states all of the other) the fact",
        SIMILAR: "is close in meaning (embedding similarity) to the fact",
    }[kind]
    return Finding(
        proposition=proposition,
        rule=NO_DUPLICATION,
        reason=f"{what} stated {where}: {original[1]!r}",
        chunk_index=chunk_index,
        severity=ERROR if kind in (EXACT, CERTAIN) else WARNING,
        kind=kind,
    )
