"""Polarity against the aligned sentence(s): negation, quantifiers and modality.

A negation or quantifier changes what a sentence asserts. Adding one the aligned window
lacks, or losing one the window puts on a word the proposition keeps, is an error only as
a minimal edit (:mod:`._minimal`): the proposition restates one clause of the window with
nothing added, and that clause has the other polarity. Otherwise the negation or
quantifier may belong to another clause of the sentence ("The committee did not meet in
May, when the budget was approved." -> "The budget was approved in May.") and the finding
is a warning for the judge. Modality and hedges ("may", "is believed to", "usually") are
judged more loosely by a reader: a changed modality is always a warning. A capitalised
word inside the proposition is part of a name or title ("Only For The Week"), never a
negation or quantifier, unless it opens one of the sentences the proposition quotes ("...
orthologs. Only two of 205 ..."). What a negation, quantifier or hedge governs stops at the
sentence's punctuation: "..., since splashing water can spread bacteria" hedges the part
after the comma, which a proposition may restate alone.
"""

from __future__ import annotations

import re
from dataclasses import astuple
from functools import lru_cache
from itertools import pairwise

from ._align import Window, _sentence
from ._finding import (
    ADDED_NEGATION,
    ADDED_QUANTIFIER,
    CHANGED_MODALITY,
    ERROR,
    LOST_NEGATION,
    LOST_QUANTIFIER,
    WARNING,
    Problem,
    Severity,
)
from ._language import (
    GLUE_WORDS,
    NEGATIONS,
    Token,
    all_lemmas,
    inflection,
    profile,
    stem,
    tokens,
    word_set,
)
from ._minimal import RESTATED, TITLE, restated_clauses
from ._parser import parse

QUANTIFIERS: dict[str, str] = {
    **dict.fromkeys(("all", "every"), "all"),
    "each": "each",
    "most": "most",
    "half": "half",
    "few": "few",
    "always": "always",
    "only": "only",
}
"""Quantifier word -> its class ("every" and "all" say the same). Adding any but "each"
("each region" = "regions") is an error."""
RESTRICTIVE: frozenset[str] = frozenset({"most", "half", "few", "only", "always"})
"""The classes whose loss generalises a statement ("most X are" -> "X are"): losing "all"
or "each" leaves a generic plural that says the same."""
_CLAUSE_BREAKS = word_set("and but which while whereas who that where")

MODALS: frozenset[str] = word_set(
    """may might could should must would likely unlikely possibly probably perhaps
    reportedly allegedly believed thought supposed seem seems seemed appear appears
    appeared sometimes usually generally typically often rarely"""
)
"""Modal verbs and hedges: their presence or absence is compared as a whole ("can" also
counts when the source has it and the proposition drops it, never when one is added)."""

_NOT_SCOPE = word_set("only just merely simply before")
_SUPERLATIVE = word_set("the its their his her our")
_LOOKAHEAD = 4


_PUNCTUATION = re.compile(r"[,;:]\s+|\s[-\u2013\u2014]\s|\s?\(|\)")
"""A break between the parts of a sentence: a comma, semicolon or colon before a space,
a dash between spaces, a bracket (not "1,000", "7:30" or "lithium-ion")."""
_BREAK = Token(",", ",", False, False)
_STOP = Token(".", ".", False, False)
"""Where one sentence ends and the next begins inside a text (a proposition may quote
several): the word after it opens a sentence, its capital no mark of a name."""
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?=\s)|\n[^\S\n]*(?=\n)")


def _sentences(text: str) -> list[str]:
    """``text`` cut after each ". ! ?" (and its closing quotes or brackets) that a space
    follows, and at each blank line (a heading the segmenter joined to the sentence after
    it): the sentences a proposition may quote, each whole."""
    pieces: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        pieces.append(text[start : end.end()])
        start = end.end()
    return [*pieces, text[start:]]


_IMPLICIT_NEGATION = re.compile(r"(?i)\s+(?:yet|fail|fails|failed|failing)\s+to\b")
"""An implicit negation, read as "not": "has yet to win" (has not won), "failed to
qualify" (did not qualify); "never" is a negation word itself."""


class _LineStart(Token):
    """A capitalised word that opens a line of its text ("Distribution of Source Form\n\n
    All distribution ...": a heading the segmenter joined to the sentence after it): its
    capital, like a sentence's first word's, is no mark of a name."""


def _line_starts(piece: str) -> frozenset[int]:
    """The indices, among ``tokens(piece)``, of the first word of each line after the
    first (none if cutting the text at its line breaks would tokenise it otherwise)."""
    lines = piece.split("\n")
    if len(lines) == 1:
        return frozenset()
    starts: set[int] = set()
    count = 0
    for k, line in enumerate(lines):
        found = tokens(line)
        if k and found:
            starts.add(count)
        count += len(found)
    return frozenset(starts) if count == len(tokens(piece)) else frozenset()


@lru_cache(maxsize=8192)
def _toks(text: str) -> tuple[Token, ...]:
    """The tokens of ``text`` with each quoted title read as one name ("Title") and a
    ``_BREAK`` token (text ",") where punctuation parts the sentence, so that a scope or
    a clause stops there ("Washing chicken is not recommended, since water can spread
    bacteria": "can" governs the part after the comma), a ``_STOP`` where one sentence
    ends and the next begins. A quotation is read within its sentence, as in the source
    sentence alone (an unclosed quotation mark does not make the next sentences a
    title). A capitalised word opening a line is a :class:`_LineStart`. The tokens alone
    if cutting the text at its punctuation would tokenise it otherwise."""
    pieces = [
        _IMPLICIT_NEGATION.sub(" not to", TITLE.sub(" Title ", sentence))
        for sentence in _sentences(text)
    ]
    whole = tokens(" ".join(pieces))
    sentences = [[tokens(part) for part in _PUNCTUATION.split(piece)] for piece in pieces]
    if [t for parts in sentences for part in parts for t in part] != list(whole):
        return whole
    out: list[Token] = []
    for piece, parts in zip(pieces, sentences, strict=True):
        stop = bool(out)
        starts = _line_starts(piece)
        count = 0
        for part in parts:
            if part:
                out += [_STOP if stop else _BREAK] if out else []
                stop = False
                for tok in part:
                    line_start = count in starts and tok.capitalised
                    out.append(_LineStart(*astuple(tok)) if line_start else tok)
                    count += 1
    return tuple(out)


def _in_name(toks: tuple[Token, ...], i: int) -> bool:
    """A capitalised word after the first of its sentence, or a first word the next
    capitalised word continues ("Nobody's Fool is a film", "No Country for Old Men won"):
    part of a name or title."""
    if i == 0 or toks[i - 1] is _STOP or isinstance(toks[i], _LineStart):  # a first word
        return i + 1 < len(toks) and toks[i].capitalised and toks[i + 1].capitalised
    return toks[i].capitalised


def _negated(toks: tuple[Token, ...]) -> bool:
    """Does a negation of the text stand (no name's word, not cancelled by a second one)?"""
    return any(
        t.norm in NEGATIONS and not _in_name(toks, i) and not _doubled(toks, i)
        for i, t in enumerate(toks)
    )


def _severity(minimal: bool) -> Severity:
    return ERROR if minimal else WARNING


def _scope(toks: tuple[Token, ...], i: int) -> list[str]:
    """The content stems (numbers too) right after ``toks[i]`` within its clause."""
    out: list[str] = []
    for tok in toks[i + 1 : i + 1 + _LOOKAHEAD]:
        if tok.text in ".,;:!?":
            break
        if tok.number:
            out.append(tok.norm)
        elif tok.norm not in GLUE_WORDS:
            out.append(stem(tok.norm))
    return out


def _clause(toks: tuple[Token, ...], i: int) -> frozenset[str]:
    """The content stems of the clause around ``toks[i]`` (between punctuation and
    "and"/"which"/"while"...), the word itself excluded."""
    start = i
    while (
        start > 0
        and toks[start - 1].text not in ".,;:!?"
        and (toks[start - 1].norm not in _CLAUSE_BREAKS)
    ):
        start -= 1
    end = i + 1
    while (
        end < len(toks)
        and toks[end].text not in ".,;:!?"
        and (toks[end].norm not in _CLAUSE_BREAKS)
    ):
        end += 1
    return frozenset(
        stem(t.norm)
        for k, t in enumerate(toks[start:end], start)
        if k != i and not t.number and t.norm not in GLUE_WORDS and t.text not in ".,;:!?"
    )


def _contrasted(toks: tuple[Token, ...], i: int, kept: frozenset[str]) -> bool:
    """Is the negation at ``toks[i]`` the first half of "not X, but Y" and does the
    proposition keep Y ("confronts not Harry, but Isabelle" -> "confronts Isabelle ...
    Harry's lies")? "written not by Anna, but by Ben" -> "written by Anna" loses it."""
    for k in range(i + 1, min(len(toks) - 1, i + 1 + _LOOKAHEAD)):
        if toks[k].text in ".;:!?":
            return False
        if toks[k].text == "," and toks[k + 1].norm == "but":
            other = _scope(toks, k + 1)
            return bool(other) and other[0] in kept
    return False


def _doubled(toks: tuple[Token, ...], i: int) -> bool:
    """Is the negation at ``toks[i]`` one of two in a row of its clause, at most one word
    between them ("you cannot afford not to test it": you must test it; "it is not
    unusual" has one only; "without restriction, including without limitation" two
    apart)? Two negations cancel: the positive restates them."""
    for k in (i - 2, i - 1, i + 1, i + 2):
        if not 0 <= k < len(toks):
            continue
        between = toks[min(i, k) + 1 : max(i, k)]
        if any(t is _BREAK or t is _STOP for t in (toks[k], *between)):
            continue
        if toks[k].norm in NEGATIONS and toks[k].norm not in ("nor", "neither"):
            return True
    return False


def _lost_negation(text: str, kept: frozenset[str]) -> str | None:
    """The negation of ``text`` on a word the proposition keeps (None: none); two in a
    row cancel (:func:`_doubled`)."""
    toks = _toks(text)
    for i, tok in enumerate(toks):
        if tok.norm not in NEGATIONS or tok.norm in ("nor", "neither") or _in_name(toks, i):
            continue
        if _doubled(toks, i):
            continue
        nxt = toks[i + 1].norm if i + 1 < len(toks) else ""
        if nxt in _NOT_SCOPE:  # "not only A but also B" asserts A; so does "not before"
            continue
        if _contrasted(toks, i, kept):  # "confront not Harry, but Isabelle"
            continue
        scope = _scope(toks, i)
        if scope and scope[0] in kept:
            return tok.text
    return None


def _negated_clause_kept(sentence: str, proposition: str) -> bool | None:
    """Does the proposition keep a clause of ``sentence`` that a negation holds (RESTATED
    of the clause's content lemmas, by the parse)? "The committee, which had not met since
    May, approved the budget." -> "The committee approved the budget." drops the clause
    of "not" with the negation: nothing is lost. None without the parser."""
    parsed, said = parse(sentence), parse(proposition)
    if parsed is None or said is None:
        return None
    lemmas = {w.lemma for w in said.words}
    for i, word in enumerate(parsed.words):
        if word.dep == "neg" or word.lemma in NEGATIONS:
            clause = parsed.clause_lemmas(i)
            if clause and len(clause & lemmas) >= RESTATED * len(clause):
                return True
    return False


def _quantifier(toks: tuple[Token, ...], i: int) -> str | None:
    """The class of the quantifier at ``toks[i]``, if it is one: not a word of a name,
    not "only to" ("reunites with him, only to discover ...": then, not solely)."""
    cls = QUANTIFIERS.get(toks[i].norm)
    if cls is None or _in_name(toks, i):
        return None
    if cls == "only" and i + 1 < len(toks) and toks[i + 1].norm == "to":
        return None
    if cls == "all" and _of_all_after_superlative(toks, i):
        return None
    if cls == "most" and ((i and toks[i - 1].norm in _SUPERLATIVE) or _adjective(toks, i + 1)):
        return None  # "the most compact planet": a superlative, no quantifier
    return cls


def _superlative(tok: Token) -> bool:
    """Is ``tok`` a superlative adjective or adverb: an inflected "-est" form of an
    adjective ("smallest", "best", "eldest"; not "honest" or "forest"), or "most"/"least"
    (which make one of the next adjective)?"""
    if tok.number:
        return False
    if tok.norm in ("most", "least"):
        return True
    lemmas = all_lemmas(tok.norm).get("ADJ", ())
    return any(lemma != tok.norm and tok.norm in inflection(lemma, "JJS") for lemma in lemmas)


def _of_all_after_superlative(toks: tuple[Token, ...], i: int) -> bool:
    """Is the "all" at ``toks[i]`` the "of all" of a superlative ("the smallest of all
    planets", "the most famous of all his works"): the comparison's range, which says the
    same as "the smallest planet", no quantifier of the claim? The superlative stands at
    most three words before the "of" ("the largest city of all")."""
    if i < 2 or toks[i - 1].norm != "of":
        return False
    return any(_superlative(t) for t in toks[max(0, i - 5) : i - 1] if t.text not in ".,;:!?")


def _adjective(toks: tuple[Token, ...], i: int) -> bool:
    """Is ``toks[i]`` an adjective (lemminflect lists an adjective reading, no noun one)?"""
    if i >= len(toks) or toks[i].number:
        return False
    found = all_lemmas(toks[i].norm)
    return "ADJ" in found and "NOUN" not in found


def _classes(toks: tuple[Token, ...]) -> set[str]:
    return {c for i in range(len(toks)) if (c := _quantifier(toks, i)) is not None}


def _quantifier_problems(
    prop_toks: tuple[Token, ...], window: Window, restated: tuple[str, ...]
) -> list[Problem]:
    kept = frozenset(profile(" ".join(t.text for t in prop_toks)).content_seq) | frozenset(
        t.norm for t in prop_toks if t.number
    )
    prop_classes = _classes(prop_toks)
    window_toks = [_toks(s.text) for s in window.members]
    window_classes = {c for ts in window_toks for c in _classes(ts)}
    restated_classes = [_classes(_toks(c)) for c in restated]
    problems: list[Problem] = []
    for added in sorted(prop_classes - window_classes - {"each"}):
        word = next(t.text for t in prop_toks if QUANTIFIERS.get(t.norm) == added)
        problems.append(
            (
                ADDED_QUANTIFIER,
                f'quantifier "{word}" not in the aligned source sentence',
                _severity(bool(restated_classes)),
            )
        )
    for toks in window_toks:
        for i, tok in enumerate(toks):
            cls = _quantifier(toks, i)
            if i and toks[i - 1].norm in ("not", *_SUPERLATIVE):
                continue  # "not only" asserts; "the most unexpected" is a superlative
            if tok.norm == "most" and _adjective(toks, i + 1):
                continue  # "the world's most prestigious brands": a superlative
            if cls is None or cls in prop_classes or cls not in RESTRICTIVE:
                continue
            scope = _scope(toks, i)
            clause = _clause(toks, i)
            restated_here = len(clause & kept) >= RESTATED * len(clause)
            if scope and scope[0] in kept and clause and restated_here:
                minimal = any(cls in classes for classes in restated_classes)
                problems.append(
                    (
                        LOST_QUANTIFIER,
                        f'the source says "{tok.text}"; the proposition does not',
                        _severity(minimal),
                    )
                )
                prop_classes.add(cls)
    return problems


def _hedge_context(
    window: Window, said: frozenset[str]
) -> tuple[tuple[tuple[Token, ...], frozenset[str] | None], ...]:
    """The tokens of each window sentence (any hedged word counts: None), then of the
    sentence right before or after the window with the proposition's content words the
    window lacks (only a hedge on one of those counts): two sentences paired into one claim
    ("... an anode. The cathode is an oxide, while the anode is usually graphite." -> "The
    anode is graphite.") keep the hedge on the words taken from the one the window missed."""
    missing = frozenset(w for w in said if not window.supports(w))
    beside = [k for k in (window.start - 1, window.end) if 0 <= k < len(window.sentences)]
    return (
        *((_toks(s.text), None) for s in window.members),
        *(
            (_toks(window.sentences[k].text), missing)
            for k in beside
            if missing and any(window.sentences[k].supports(w) for w in missing)
        ),
    )


def _modal(toks: tuple[Token, ...], i: int) -> bool:
    """Is ``toks[i]`` a modal verb or hedge (:data:`MODALS`, or "can")? Not before a number:
    "may 15, 2019", "22 May 2022" and "between April and May 2011" name a month."""
    if toks[i].norm not in MODALS and toks[i].norm != "can":
        return False
    return not (i + 1 < len(toks) and toks[i + 1].number)


def _restates_clause(toks: tuple[Token, ...], i: int, said: frozenset[str], head: str) -> bool:
    """Does the proposition restate the clause of the hedge at ``toks[i]``: RESTATED of its
    content words, or the word right before the hedge and the one it governs ("The cathode
    usually determines the capacity and the cost" -> "The cathode determines the cost")?"""
    clause = _clause(toks, i)
    if len(clause & said) >= RESTATED * len(clause):
        return True
    before = toks[i - 1] if i else None
    return (
        before is not None
        and not before.number
        and before.norm not in GLUE_WORDS
        and stem(before.norm) in said
        and head in said
    )


_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


def _quoted_window(proposition: str, window: Window) -> Window:
    """The window cut to the blocks (between blank lines) that a proposition quoting it
    word for word reaches, when the segmenter joined a paragraph it does not quote to
    one it does ("... (v 12).\n\nThere are many reactions exerting almost no control
    ..."): a negation, quantifier or hedge past a blank line governs nothing the
    proposition says. The window itself otherwise."""
    blocks = [b for s in window.members for b in _BLANK_LINE.split(s.text) if b.strip()]
    flats = [" ".join(b.split()) for b in blocks]
    text = " ".join(proposition.split())
    at = " ".join(flats).find(text)
    if at < 0 or not text:
        return window
    end = at + len(text)
    kept: list[str] = []
    position = 0
    for block, flat in zip(blocks, flats, strict=True):
        if position < end and at < position + len(flat):
            kept.append(block)
        position += len(flat) + 1
    if len(kept) == len(blocks):
        return window
    return Window(tuple(_sentence(b) for b in kept), 0, len(kept))


_CLOSED = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")


def _seamed(proposition: str, window: Window) -> str:
    """The proposition with a blank line where it passes from a source sentence with no
    closing mark to the next one word for word ("Warranty No warranty is given ...", a
    heading the segmenter ends at the layout, then its paragraph): read so, the next
    sentence's first word opens a sentence, as in the source, and is no name's. Only the
    whitespace at such a seam changes (the proposition's own line breaks stay)."""
    near = window.sentences[max(0, window.start - 1) : window.end + 1]
    seamed = proposition
    for first, second in pairwise(near):
        left, right = first.text.split(), second.text.split()
        if left and right and not _CLOSED.search(left[-1]):
            seam = re.compile(rf"({_spaced(left)})\s+(?={_spaced(right)})")
            seamed = seam.sub(lambda m: m.group(1) + "\n\n", seamed)
    return seamed


def _spaced(words: list[str]) -> str:
    """A pattern of ``words`` with any whitespace between them."""
    return r"\s+".join(map(re.escape, words))


def polarity_findings(proposition: str, window: Window) -> list[Problem]:
    """(kind, reason, severity) of each negation, quantifier or modality the proposition
    adds to or loses from the aligned window (empty when they agree); the severity is an
    error only for a minimal edit of one restated clause (see the module). A proposition
    quoting the window is judged against the blocks it quotes (:func:`_quoted_window`)."""
    window = _quoted_window(proposition, window)
    prop_toks = _toks(_seamed(proposition, window))
    restated = restated_clauses(proposition, window)
    problems = _negation_problems(proposition, prop_toks, window, restated)
    problems += _quantifier_problems(prop_toks, window, restated)
    modality = _modality_problem(prop_toks, window)
    return problems if modality is None else [*problems, modality]


def _negation_problems(
    proposition: str, prop_toks: tuple[Token, ...], window: Window, restated: tuple[str, ...]
) -> list[Problem]:
    """A negation the proposition adds (the window negates nothing) or loses (a negation
    of the window on a clause the proposition keeps): an error only when the negated
    words are those of a restated clause (a minimal edit), else a warning."""
    problems: list[Problem] = []
    prop_negated = _negated(prop_toks)
    if prop_negated and not any(_negated(_toks(s.text)) for s in window.members):
        negated = {
            w for i, t in enumerate(prop_toks) if t.norm in NEGATIONS for w in _scope(prop_toks, i)
        }  # the negated words must be words of the restated clause
        minimal = any(negated & profile(c).content for c in restated)
        problems.append(
            (ADDED_NEGATION, "negated, but the aligned source sentence is not", _severity(minimal))
        )
    if not prop_negated:
        kept = frozenset(profile(proposition).content_seq)
        lost = next(
            (
                w
                for s in window.members
                if (w := _lost_negation(s.text, kept))
                and _negated_clause_kept(s.text, proposition) is not False
            ),
            None,
        )
        if lost is not None:
            minimal = any(_lost_negation(c, kept) for c in restated)
            problems.append(
                (
                    LOST_NEGATION,
                    f'the aligned source sentence says "{lost}"; the proposition does not',
                    _severity(minimal),
                )
            )
    return problems


def _modality_problem(prop_toks: tuple[Token, ...], window: Window) -> Problem | None:
    """A ``changed_modality`` warning: the window hedges a word the proposition states as
    fact (:func:`_governing_hedges`), or the proposition hedges (beyond "can") what no
    sentence of the window hedges; None otherwise."""
    prop_modal = {
        t.norm
        for i, t in enumerate(prop_toks)
        if _modal(prop_toks, i) and not (i and t.capitalised and not isinstance(t, _LineStart))
    }  # "in May" is a month
    window_modal = {
        t.norm
        for s in window.members
        for ts in [_toks(s.text)]
        for i, t in enumerate(ts)
        if _modal(ts, i)
    }
    governing = _governing_hedges(prop_toks, window, prop_modal)
    if governing:
        return (
            CHANGED_MODALITY,
            f"the source hedges ({', '.join(sorted(governing))}); the proposition states it"
            " as fact",
            WARNING,
        )
    if prop_modal - {"can"} and not window_modal:
        return (
            CHANGED_MODALITY,
            f"hedged ({', '.join(sorted(prop_modal - {'can'}))}), but the aligned source"
            " sentence is not",
            WARNING,
        )
    return None


def _governing_hedges(
    prop_toks: tuple[Token, ...], window: Window, prop_modal: set[str]
) -> set[str]:
    """The window's hedges ("may", "might", ...) on a word the proposition asserts (not a
    gerund) without hedging it itself, in a clause the proposition restates; with a hedge
    in the proposition (``prop_modal``), only those it made certain ("may cause" ->
    "will cause")."""
    said = frozenset(  # every content word the proposition says ("changing the sequence")
        stem(t.norm)
        for t in prop_toks
        if not t.number and t.norm not in GLUE_WORDS and t is not _BREAK
    )
    kept = frozenset(  # words asserted: a gerund ("Raising X makes ...") asserts nothing
        stem(t.norm)
        for t in prop_toks
        if not t.number
        and t.norm not in GLUE_WORDS
        and not t.norm.endswith("ing")
        and t is not _BREAK
    ) | frozenset(t.norm for t in prop_toks if t.number)  # "often by less than 1 meter"
    hardened = {  # the words a hedge became certain on: "may cause" -> "will cause"
        w for i, t in enumerate(prop_toks) if t.norm == "will" for w in _scope(prop_toks, i)[:1]
    }
    hedged = {  # the words the proposition itself hedges: "may be paid" keeps "may"
        scope[0]
        for i in range(len(prop_toks))
        if _modal(prop_toks, i) and (scope := _scope(prop_toks, i))
    }
    governing = {  # the window's hedges on a word the proposition keeps, unhedged there
        toks[i].norm
        for toks, only in _hedge_context(window, said)
        for i in range(len(toks))
        if _modal(toks, i)
        and (scope := _scope(toks, i))
        and scope[0] in kept
        and scope[0] not in hedged
        and (only is None or scope[0] in only)
        and (not prop_modal or scope[0] in hardened)
        and _restates_clause(toks, i, said, scope[0])
    }
    return governing
