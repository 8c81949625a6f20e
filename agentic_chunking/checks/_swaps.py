"""The marks of a swap in the clause a proposition restates: a person of the clause
replaced, a name of the window left out for one of elsewhere, a term replaced, and a noun
standing where the source puts another (``term_in_place``: "lot height" where the source
says "lot coverage", even when "height" is a word of the same sentence)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from ._align import Window, _sentence, person_names, source_sentences
from ._finding import NO_INVENTION, SWAPPED_TERM, WARNING, Finding
from ._language import (
    GLUE_WORDS,
    Profile,
    Token,
    all_lemmas,
    profile,
    stem,
    stems_match,
    tokens,
    unit_of,
    word_set,
)
from ._lexicon import paraphrases
from ._modifiers import determiner_disagrees, modifier_swapped
from ._verbs import subject_stems
from ._words import DEFINITE_DETERMINERS


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


_ACRONYM_GLUE = word_set("of in the and for on at to de")
_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=8192)
def spelled_out(acronym: str, text: str) -> bool:
    """Does ``text`` spell the acronym out: consecutive capitalised words (glue words such
    as "of", "and", "the" skipped) whose first letters are its letters ("NASM": "National
    Air and Space Museum", "AQAP": "Al-Qaeda in the Arabian Peninsula")? Three letters
    or more (two letters match too much by chance)."""
    letters = [c for c in acronym.lower() if c.isalpha()]
    if len(letters) < 3:
        return False
    words = [w for w in _WORD.findall(text) if w.lower() not in _ACRONYM_GLUE]
    for i in range(len(words) - len(letters) + 1):
        run = words[i : i + len(letters)]
        if all(w[0].isupper() and w[0].lower() == c for w, c in zip(run, letters, strict=True)):
            return True
    return False


def acronyms(text: str) -> frozenset[str]:
    """The words of ``text`` in capitals, two letters or more ("UK", "NASA")."""
    return frozenset(t.text for t in tokens(text) if len(t.text) >= 2 and t.text.isupper())


def substituted(proposition: str, prop: Profile, window_names: frozenset[str]) -> bool:
    """Does the window hold a name the proposition lacks (nor spells out as an acronym)?
    With one of the source's names from elsewhere in the proposition, that is the mark of
    a swapped person or place."""
    spelled = initials(proposition)
    return any(
        w not in spelled and not any(stems_match(w, p) for p in prop.content) for w in window_names
    )


def person_replaced(prop: Profile, window: Window) -> bool:
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


_PERSONAL = word_set("he she his her")
"""Pronouns that refer to a person."""


def passed_over_person(prop: Profile, window: Window, word_stem: str) -> frozenset[str]:
    """The person a window that opens with "He", "She", "His" or "Her" most likely means,
    when the proposition puts a name (``word_stem``) said only before that person in that
    person's place: the person named in the subject (before the finite verb) of the
    nearest earlier sentence whose subject names one, if the proposition leaves a word of
    that person's name out. "His great-grandson Lorenzo de' Medici governed Florence. He
    invited the young Michelangelo" means Lorenzo; a proposition that resolves "He" to
    the earlier "Giovanni di Bicci de' Medici" passes him over. Empty when the window
    opens otherwise, no earlier subject names a person, the proposition names all of that
    person's words ("Lorenzo de' Medici invited ..."), or the name stands in that
    person's sentence or after it (another person of the story named since); so a
    biography's "He" resolved to the subject of its first sentence, with no other
    subject between, passes."""
    first = next(iter(tokens(window.members[0].text)), None)
    if first is None or first.norm not in _PERSONAL:
        return frozenset()
    before = window.before()
    for k in range(len(before) - 1, -1, -1):
        subject = subject_stems(before[k].text)
        person = next((p for p in before[k].persons if p <= subject), None)
        if person is None:
            continue
        words = [w for w in person if w not in GLUE_WORDS]  # "de" of "Lorenzo de' Medici"
        named = all(any(stems_match(w, c) for c in prop.content) for w in words)
        since = any(s.supports(word_stem) for s in before[k:])
        return frozenset() if named or since else person
    return frozenset()


_THING_PRONOUNS = {"it": False, "they": True, "them": True}
"""Pronouns that stand for things, and whether they are plural."""
_RESOLVED = word_set("it its they them their")
"""Pronouns a proposition resolves to the noun they stand for."""

REPLACED_TERM = "replaced_term"  # a bucket of swapped_term findings that are errors
_REFERRING = DEFINITE_DETERMINERS | word_set("its their his her")
_DESCRIBING = DEFINITE_DETERMINERS
"""Words before a noun that may make it a description another noun resolves ("the organ"
-> "the liver"); after a possessive ("her portrait", "its duration") the noun stays when
the possessor is resolved."""


def is_term(word: str) -> bool:
    """A word that can name a thing or its kind: lemminflect lists it as a noun or an
    adjective and not as a verb ("ceramic", "electrolyte"), or does not know it."""
    found = all_lemmas(word)
    return not found or (bool({"NOUN", "ADJ"} & set(found)) and "VERB" not in found)


def _of_follows(toks: list[Token], i: int) -> bool:
    """Is ``toks[i]`` the head of an "of" phrase ("the night of the finale"), which a
    rewording may drop for its complement ("during the finale")?"""
    return i + 1 < len(toks) and toks[i + 1].norm == "of"


ANTECEDENT_SENTENCES = 2
"""How many sentences before a description ("the organ") its antecedent may stand without
the two written side by side."""


def term_replaced(prop: Profile, window: Window, proposition: str = "", source: str = "") -> str:
    """The noun of a clause of the window that the proposition restates (half its other
    content words or more, of three or more) but leaves out, where that noun is no
    anaphoric description ("the organ", "this figure": resolved, not replaced, when a word
    the proposition brings stands in the ``ANTECEDENT_SENTENCES`` sentences before the
    window or beside the noun in an earlier one; "The nutrients turn glucose into
    glycogen" for "The liver turns ..." brings no such word); "" when
    there is none, or when the proposition (given with its ``source``) uses a word the
    source never uses: a proposition that rewords picks synonyms, and a synonym the
    source happens to use elsewhere is no swap."""
    if proposition and source and _rewords(proposition, source):
        return ""
    said = prop.content
    brought = [w for w in said if not window.supports(w)]
    near = window.before()[-ANTECEDENT_SENTENCES:]
    nearby = any(s.supports(w) for s in near for w in brought)

    def resolvable(noun: str) -> bool:
        """Can a word the proposition brings be what the description ``noun`` ("the
        organ") refers to: it stands in the sentences just before the window, or beside
        the noun in an earlier sentence ("The human liver is the largest organ")?"""
        return nearby or any(
            s.supports(noun) and s.supports(w) for s in window.before() for w in brought
        )

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
            if len(words) < 3 or kept < 0.5 * len(words):
                continue  # half of "personal growth" is no clause restated
            missing = [
                tok.text
                for i, tok in enumerate(toks)
                if tok.norm not in GLUE_WORDS
                and not tok.capitalised
                and len(tok.norm) > 3
                and not (
                    i > 0
                    and toks[i - 1].norm in _DESCRIBING
                    and (_of_follows(toks, i) or resolvable(stem(tok.norm)))
                )
                and is_term(tok.norm)
                and not unit_of(tok.text)
                and not any(stems_match(stem(tok.norm), p) for p in said)
            ]
            if len(missing) == 1:  # one term of the restated clause, replaced
                return missing[0]
    return ""


@dataclass(frozen=True)
class _Slot:
    """One content word (or number) of a text, in order: its stem, its words, whether it
    is written as a name, whether a referring word stands before it ("the organ", not
    "the pull of": a description spelled out), and whether glue words separate it from
    the slot before ("pull of gravity") or not ("blood cells")."""

    stem: str
    text: str
    plain: bool
    number: bool
    referred: bool
    glued: bool
    broken: bool = False


_BREAK = re.compile(r"[,;:()\[\]]|\s[-\u2013\u2014]\s|\b(?:and|or|but)\b")
"""What separates the items of a list or the parts of a sentence."""


@lru_cache(maxsize=8192)
def _slots(text: str) -> tuple[_Slot, ...]:
    """The content words and numbers of ``text`` in order (glue words skipped). A word is
    ``plain`` when it is written in lower case, or opens the text and is a dictionary
    word ("Modern plants ..."); a comma, a bracket, "and", "or" or "but" before a word
    makes it ``broken`` (and ``glued``)."""
    out: list[_Slot] = []
    for piece, part in enumerate(_BREAK.split(text)):
        toks = tokens(part)
        last = -1
        for i, tok in enumerate(toks):
            if not tok.number and tok.norm in GLUE_WORDS:
                continue
            opening = piece == 0 and i == 0 and bool(all_lemmas(tok.norm))
            before = toks[i - 1].norm if i else ""
            spelled = before == "the" and i + 1 < len(toks) and toks[i + 1].norm == "of"
            broken = bool(out) and last < 0
            out.append(
                _Slot(
                    tok.norm if tok.number else stem(tok.norm),
                    tok.text,
                    (not tok.capitalised or opening) and not tok.number,
                    tok.number,
                    before in _REFERRING and not spelled,
                    broken or (last >= 0 and i > last + 1),
                    broken,
                )
            )
            last = i
    return tuple(out)


@dataclass(frozen=True)
class _Neighbours:
    """What some sentences put next to what: the adjacent pairs of content stems of each
    sentence (glue words skipped), where each stem stands (sentence slots, index), and
    how many pronouns for things each sentence holds ("it", "its", "they", "them",
    "their"), keyed by its slots."""

    stems: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    places: dict[str, tuple[tuple[tuple[_Slot, ...], int], ...]]
    pronouns: dict[tuple[_Slot, ...], int]


@lru_cache(maxsize=1024)
def _neighbours(sentences: tuple[str, ...]) -> _Neighbours:
    places: dict[str, list[tuple[tuple[_Slot, ...], int]]] = {}
    pairs: set[tuple[str, str]] = set()
    pronouns: dict[tuple[_Slot, ...], int] = {}
    for sentence in sentences:
        slots = _slots(sentence)
        for k, slot in enumerate(slots):
            places.setdefault(slot.stem, []).append((slots, k))
        pairs.update((a.stem, b.stem) for a, b in pairwise(slots))
        pronouns[slots] = sum(t.norm in _RESOLVED for t in tokens(sentence))
    return _Neighbours(
        frozenset(places),
        frozenset(pairs),
        {k: tuple(v) for k, v in places.items()},
        pronouns,
    )


def _said(word_stem: str, slots: tuple[_Slot, ...]) -> int:
    return sum(stems_match(word_stem, s.stem) for s in slots)


def _noun(slot: _Slot) -> bool:
    """A lower-case word that can name a thing: a noun that is no verb, or a unit."""
    word = slot.text.lower()
    found = all_lemmas(word)
    return bool(unit_of(word)) or (is_term(word) and (not found or "NOUN" in found))


def _pair(slots: tuple[_Slot, ...], a: int, b: int) -> tuple[str, str]:
    return (slots[a].stem, slots[b].stem) if a < b else (slots[b].stem, slots[a].stem)


def _direct(slots: tuple[_Slot, ...], a: int, b: int) -> bool:
    """No glue word between the neighbouring slots ``a`` and ``b``."""
    return not slots[max(a, b)].glued


def _same(slots: tuple[_Slot, ...], k: int, other: tuple[_Slot, ...], m: int) -> bool:
    """Do the slots stand for the same thing: both edges (an index outside), both numbers,
    or one stem of a word that is no name?"""
    inside, there = 0 <= k < len(slots), 0 <= m < len(other)
    if not inside or not there:
        return inside == there
    a, b = slots[k], other[m]
    if not (a.plain or a.number):
        return False  # a name carried as context may sit anywhere
    return (a.number and b.number) or stems_match(a.stem, b.stem)


def _left_out(where: tuple[_Slot, ...], m: int, step: int, new: _Slot) -> bool:
    """Does ``new`` follow ``where[m]`` (in the direction ``step``): right after it ("loyal
    followers" -> "followers"), or within three words past a list break ("virtual
    machines, storage" -> "storage")? Then ``where[m]`` was left out, not replaced."""
    broken = False
    for x in range(m + step, m + 4 * step, step):
        if not 0 <= x < len(where):
            return False
        broken = broken or where[max(x, x - step)].broken
        if stems_match(where[x].stem, new.stem):
            return x == m + step or broken
    return False


def _displaced(
    prop: tuple[_Slot, ...],
    i: int,
    found: _Neighbours,
    window_names: frozenset[str] = frozenset(),
    source_pairs: frozenset[tuple[str, str]] = frozenset(),
) -> tuple[str, str] | None:
    """(new, old) when ``prop[i]`` stands where the sentences of ``found`` put ``old``:
    beside a neighbour ``a`` of the proposition the sentences put ``old`` (and never
    ``prop[i]``), on both sides ("credited with the X of linear perspective"), or on one
    side with no glue word between ("lot X") and ``old`` not said at all. A neighbour
    written as a name counts only when it is one of ``window_names`` (the window's own
    names: "two ATP glucose" for "two ATP molecules"); a name carried from elsewhere may
    sit anywhere, and so may a name the source puts beside the word in any sentence
    ("the channel of a Roman aqueduct"). A proposition resolves the pronouns of the
    sentence (``found.pronouns``: "their magma" -> "the magma of andesitic volcanoes"),
    so each may say ``old`` once more. Not when the
    neighbour was inserted (the word beyond it stands next to ``prop[i]`` in the
    sentences: context carried) or ``old`` was left out (``prop[i]`` follows it there:
    one item of a list, an adjective dropped)."""
    new = prop[i]
    sides = [j for j in (i - 1, i + 1) if 0 <= j < len(prop)]
    if any(_pair(prop, i, j) in found.pairs for j in sides):
        return None  # the sentences say it so on one side
    for j in sides:
        step = j - i
        if not (prop[j].plain or prop[j].number):
            run = [prop[j].stem]  # the whole name: "Nha Hoa" beside "tragedies"
            x = j + step
            while 0 <= x < len(prop) and not (prop[x].plain or prop[x].number):
                run.append(prop[x].stem)
                x += step
            beside = {p for r in run for p in ((new.stem, r), (r, new.stem))} & (
                found.pairs | source_pairs
            )
            if prop[j].stem not in window_names or beside:
                continue  # a name carried as context may sit anywhere, or on the other side
                # of the word ("the grief of Anna" for "Anna's grief")
        beyond = j + step
        if 0 <= beyond < len(prop) and _pair(prop, i, beyond) in found.pairs:
            continue  # the neighbour was inserted: "addition to investment portfolios"
        for where, k in found.places.get(prop[j].stem, ()):
            m = k - step  # where the sentence has its word in ``new``'s place
            if not 0 <= m < len(where):
                continue
            old = where[m]
            if not _noun(old) or old.referred or not old.plain or stems_match(old.stem, new.stem):
                continue
            if any(old.stem in member for member in paraphrases(new.stem)):
                continue
            if _left_out(where, m, -step, new):
                continue  # "rent storage" for "rent virtual machines, storage"
            both = _same(prop, i - step, where, m - step)
            resolved = found.pronouns.get(where, 0)
            if both and _said(old.stem, prop) < _said(old.stem, where) + resolved:
                return new.text, old.text
            if _direct(prop, i, j) and _direct(where, k, m) and not _said(old.stem, prop):
                return new.text, old.text
    return None


def _restates(proposition: str, window: Window) -> bool:
    """Does the proposition keep at least half of the content words of its window, or of
    one sentence of it (a window of three sentences that a word of the proposition pulled
    in still holds the one it restates)? A claim that summarises or rewords the window
    picks other words everywhere."""
    said = profile(proposition).content
    whole = frozenset().union(*(m.profile.content for m in window.members))
    for words in (whole, *(m.profile.content for m in window.members)):
        kept = sum(any(stems_match(w, p) for p in said) for w in words)
        if words and kept >= 0.5 * len(words):
            return True
    return False


def _rewords(proposition: str, source: str) -> bool:
    """Does the proposition use a lower-case content word the source never uses? A
    proposition that rewords picks synonyms ("assailant" -> "shooter"), and a synonym
    that the source happens to use elsewhere is no swap."""
    whole = _sentence(source)
    return any(
        not t.number
        and not t.capitalised
        and t.norm not in GLUE_WORDS
        and not whole.supports(stem(t.norm))
        for t in tokens(proposition)
    )


def term_in_place(proposition: str, window: Window, source: str) -> tuple[str, str] | None:
    """(new, old): a noun of the proposition standing where the source puts another noun.

    "containerized orchestration" where the window says "containerized applications",
    "0.25 foundations" for "0.25 dollars", "credited with the residents of linear
    perspective" for "the rediscovery of": see ``_displaced``. ``new`` is a lower-case
    noun of the source (a word the source never uses is another finding). A word of the
    window is compared with the window alone (context from another sentence may be set
    beside it: "Modern water treatment plants" for "Modern plants"); a word of another
    sentence with the whole source ("water coagulation plants" for "water treatment
    plants"). Only a proposition that restates its window (half its words or more) in the
    source's own words is judged: one that rewords picks synonyms, some of which the
    source uses elsewhere. A description that refers back ("the organ" resolved to "the
    liver") and a listed paraphrase are not swaps. None when there is no such noun.
    """
    if not _restates(proposition, window) or _rewords(proposition, source):
        return None
    prop = _slots(proposition)
    here = _neighbours(tuple(m.text for m in window.members))
    names_here = frozenset(  # the window's own words written as names ("ATP")
        slot.stem
        for member in window.members
        for slot in _slots(member.text)
        if not (slot.plain or slot.number)
    )
    everywhere = _neighbours(tuple(s.text for s in source_sentences(source)))
    for i, new in enumerate(prop):
        if new.number or new.text[:1].isupper() or len(new.stem) < 3:
            continue
        if new.stem not in everywhere.stems or not _noun(new) or unit_of(new.text):
            continue
        swap = _displaced(prop, i, here, names_here, everywhere.pairs)
        if swap is None and new.stem not in here.stems:
            swap = _displaced(prop, i, everywhere)
        if swap is not None:
            return swap
    return None


def _plural(word: str) -> bool:
    """A noun written in its plural form ("servers"; lemminflect's noun lemma differs)."""
    found = all_lemmas(word)
    return "NOUN" in found and found["NOUN"][0] != word


def pronoun_in_place(proposition: str, window: Window) -> tuple[str, str] | None:
    """(noun, pronoun): a lower-case noun of the proposition standing where the window
    has "it", "they" or "them", between the same two words ("removes customers when"
    for "removes them when"), where the pronoun's own sentence offers an agreeing noun
    before it (a plural for "they"/"them", a singular for "it": "Autoscaling adds servers
    when demand rises and removes them when demand falls") and the noun is no word of the
    window nor of the ``ANTECEDENT_SENTENCES`` sentences before it. A pronoun that has
    its antecedent in its own sentence is resolved there; a noun brought from far away
    in its place is another thing. None when there is no such noun (a pronoun that opens
    its sentence, "It stores vitamins", may mean a thing of any earlier sentence)."""
    near = window.before()[-ANTECEDENT_SENTENCES:]
    mine = tokens(proposition)
    for member in window.members:
        toks = tokens(member.text)
        for i, tok in enumerate(toks):
            plural = _THING_PRONOUNS.get(tok.text.lower())
            if plural is None or i == 0 or i + 1 >= len(toks):
                continue
            offered = [
                t.norm
                for t in toks[:i]
                if not t.number
                and not t.capitalised
                and t.norm not in GLUE_WORDS
                and "NOUN" in all_lemmas(t.norm)
                and _plural(t.norm) == plural
            ]
            if not offered:
                continue
            left, right = toks[i - 1].norm, toks[i + 1].norm
            for k in range(1, len(mine) - 1):
                noun = mine[k]
                if mine[k - 1].norm != left or mine[k + 1].norm != right:
                    continue
                if noun.number or noun.capitalised or noun.norm in GLUE_WORDS:
                    continue
                if not is_term(noun.norm) or "NOUN" not in all_lemmas(noun.norm):
                    continue
                word_stem = stem(noun.norm)
                if window.supports(word_stem) or any(s.supports(word_stem) for s in near):
                    continue
                return noun.text, tok.text
    return None


def in_place_findings(
    proposition: str, window: Window, source: str, found: list[Finding]
) -> list[Finding]:
    """A ``swapped_term`` warning for a term standing where the source puts another
    (:func:`term_in_place`, :func:`pronoun_in_place`, and on the parse a modifier in
    another's place, :func:`._modifiers.modifier_swapped`, judged like the first only on a
    proposition in the source's own words), or for a singular determiner
    before a plural noun the source does not write so
    (:func:`._modifiers.determiner_disagrees`), unless ``found`` already has one for the
    proposition: the words the window does not support are judged apart, a word of the
    window in another word's place ("lot height" for "lot coverage") only here."""
    if any(f.proposition == proposition and f.kind == SWAPPED_TERM for f in found):
        return []
    swap = term_in_place(proposition, window, source) or pronoun_in_place(proposition, window)
    if swap is None and not _rewords(proposition, source):  # the source's own words only
        swap = modifier_swapped(proposition, window, source)
    if swap is not None:
        reason = f'"{swap[0]}" where the source says "{swap[1]}"'
    else:
        disagreeing = determiner_disagrees(proposition, source)
        if disagreeing is None:
            return []
        reason = f'"{disagreeing}": a determiner of one thing before a plural, a word put in'
    return [
        Finding(
            proposition,
            NO_INVENTION,
            reason,
            severity=WARNING,
            kind=SWAPPED_TERM,
            source_sentence=window.text,
        )
    ]
