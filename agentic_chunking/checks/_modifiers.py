"""Swaps inside a noun phrase, read on the parse (:mod:`._parser`): a modifier the source
never sets on its noun in place of the one it does ("energy ions" where the window says
"lithium ions"), and a determiner that cannot go with its noun ("a Roman cities": a
singular article before a plural, the trace of a word put in another's place).

Both return None without the parser (a slim install keeps the lexical rules of
:mod:`._swaps`). Guarantees: only lower-case words are judged (a name carried as context
may stand anywhere); a modifier pair the source links anywhere, directly or through a
preposition or a conjunction ("the channel of the aqueduct" -> "the aqueduct channel"),
is never a swap; nor is a modifier added where the window's noun has none ("The queen" ->
"A honeybee queen": context carried), nor one when the proposition also says the window's
phrase ("phosphate cells ... than oxide cells"). Only the word right before a noun is read
as its modifier, and a proposition whose parse finds no clause is not judged: a parse
that finds none has misread a verb as a noun ("Urban planners design street networks").

Cost: each rule first looks for its lexical shadow (two words side by side that the source
never sets so, the second after another word in the window; a determiner of one thing
with a plural noun a few words on) and parses only when it finds one; a source sentence
is parsed only when it holds both words of a pair to check.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import pairwise

from ._align import Window, _sentence, source_sentences
from ._language import GLUE_WORDS, all_lemmas, stem, tokens, word_set
from ._parser import Parse, Word, parse

_MODIFIER_DEPS = frozenset({"amod", "compound"})
"""Dependencies of a word that narrows its noun: "internal organ", "lithium ions"."""
_MODIFIER_POS = frozenset({"ADJ", "NOUN"})
_NOUN_TAGS = frozenset({"NN", "NNS"})
_QUANTITY = word_set(
    "few many much more most several other same such various numerous certain own "
    "first second third last next previous final whole entire total great good"
)
"""Modifiers that count, order or compare rather than say which kind ("a great many
people", "the other cities"): never judged as swapped."""
_BETWEEN = frozenset({"ADJ"})
"""What may stand between a determiner and its noun: adjectives. A noun between ("a
lithium-ion cell stores ions") is most often the parse reading a verb as a plural."""
_SINGULAR_DETERMINERS = frozenset({"a", "an", "another", "each", "every"})
"""Determiners of one thing only: before a plural noun they disagree with it."""
_LOOK_AHEAD = 3
"""How many words after a determiner of one thing :func:`_plural_after_one` looks."""


def _key(word: Word) -> str:
    return stem(word.lemma)


def _plain(word: Word) -> bool:
    """A lower-case dictionary-shaped word: no name, no number, no glue."""
    return (
        word.text.isalpha()
        and word.text.islower()
        and word.lemma not in GLUE_WORDS
        and word.lemma not in _QUANTITY
    )


def _modifier(parsed: Parse, i: int) -> Word | None:
    """The plain adjective or noun right before noun ``i`` that narrows it ("internal" in
    "largest internal organ"), if any. Only the nearest: in a run of nouns ("nickel
    manganese cobalt oxide cells") the parse of the farther ones is a guess."""
    if i == 0:
        return None
    word = parsed.words[i - 1]
    if word.head != i or word.dep not in _MODIFIER_DEPS or word.pos not in _MODIFIER_POS:
        return None
    return word if _plain(word) else None


@lru_cache(maxsize=8192)
def _links(sentence: str) -> frozenset[frozenset[str]]:
    """The pairs of word stems the parse of one sentence links: a word and its head, a
    preposition's object and what the preposition hangs from ("channel of the aqueduct"),
    a conjunct and its first conjunct's head ("lithium and sodium ions"), and a modifier
    of a modifier and the noun beyond ("glass fiber cables": "glass cables" drops one)."""
    parsed = parse(sentence)
    if parsed is None:
        return frozenset()
    pairs: set[frozenset[str]] = set()
    words = parsed.words
    for word in words:
        head = words[word.head]
        pairs.add(frozenset((_key(word), _key(head))))
        through = word.dep in ("pobj", "conj") or head.dep in _MODIFIER_DEPS
        if through and head.head != word.head:
            pairs.add(frozenset((_key(word), _key(words[head.head]))))
    return frozenset(pairs)


def _linked(source: str, a: Word, b: Word) -> bool:
    """Does a sentence of the source link the words ``a`` and ``b`` (:func:`_links`, by
    their lemmas' stems)? Only the sentences that hold both words, as written or as
    lemmas ("leaves", "leaf"), are parsed."""
    pair = frozenset((_key(a), _key(b)))
    forms = [{_key(w), stem(w.text.lower())} for w in (a, b)]
    return any(
        all(any(s.supports(f) for f in word) for word in forms) and pair in _links(s.text)
        for s in source_sentences(source)
    )


def _plain_pairs(text: str) -> list[tuple[str, str]]:
    """The stems of every two neighbouring lower-case words of ``text``, glue words and
    numbers left out ("lithium ions" -> ("lithium", "ion"))."""
    toks = tokens(text)
    return [
        (stem(a.norm), stem(b.norm))
        for a, b in pairwise(toks)
        if not (a.number or b.number or a.capitalised or b.capitalised)
        and a.norm not in GLUE_WORDS
        and b.norm not in GLUE_WORDS
    ]


@lru_cache(maxsize=256)
def _source_pairs(source: str) -> frozenset[tuple[str, str]]:
    return frozenset(_plain_pairs(source))


def _may_swap(proposition: str, window: Window, source: str) -> bool:
    """The lexical shadow of :func:`modifier_swapped`: two words of the source side by
    side in the proposition and never in the source, the second standing after another
    word in the window. Without one the parse (the costly part) is skipped."""
    known = _source_pairs(source)
    novel = [pair for pair in _plain_pairs(proposition) if pair not in known]
    if not novel:
        return False
    whole = _sentence(source)
    preceded = {b for member in window.members for _, b in _plain_pairs(member.text)}
    return any(b in preceded and whole.supports(a) for a, b in novel)


def modifier_swapped(proposition: str, window: Window, source: str) -> tuple[str, str] | None:
    """(new, old): a noun phrase of the proposition whose modifier stands where the window
    puts another on the same noun ("energy ions" where the window says "lithium ions",
    "human organ" for "internal organ"). The new modifier is a word of the source that the
    source never links to the noun; the window's modifier is not on the proposition's
    noun. None when there is none, or without the parser."""
    if not _may_swap(proposition, window, source):
        return None
    said = parse(proposition)
    if said is None or not said.has_finite_clause():
        return None  # a parse with no clause misreads verbs as nouns ("planners design")
    whole = _sentence(source)
    said_modifiers: dict[str, list[tuple[Word, Word]]] = {}
    for i, noun in enumerate(said.words):
        new = _modifier(said, i) if noun.tag in _NOUN_TAGS and _plain(noun) else None
        if new is not None:
            said_modifiers.setdefault(_key(noun), []).append((new, noun))
    if not any(whole.supports(_key(new)) for ps in said_modifiers.values() for new, _ in ps):
        return None  # no modifier of the source's: the window need not be parsed
    window_modifiers: dict[str, list[Word]] = {}
    for member in window.members:
        parsed = parse(member.text)
        if parsed is None:
            return None
        for i, word in enumerate(parsed.words):
            modifier = _modifier(parsed, i) if word.tag in _NOUN_TAGS else None
            if modifier is not None:
                window_modifiers.setdefault(_key(word), []).append(modifier)
    for key, phrases in said_modifiers.items():
        kept = {_key(new) for new, _ in phrases}
        for new, noun in phrases:
            new_key = _key(new)
            if not whole.supports(new_key) or _linked(source, new, noun):
                continue
            for old in window_modifiers.get(key, ()):
                if _key(old) not in kept:  # the window's phrase is not said elsewhere
                    return f"{new.text} {noun.text}", f"{old.text} {noun.text}"
    return None


def _plural_after_one(proposition: str) -> bool:
    """The lexical shadow of :func:`determiner_disagrees`: a determiner of one thing with
    a plural noun (lemminflect: a noun whose lemma is another word) at most
    :data:`_LOOK_AHEAD` words on. Only such propositions are parsed."""
    toks = tokens(proposition)
    for i, tok in enumerate(toks):
        if tok.norm not in _SINGULAR_DETERMINERS:
            continue
        for after in toks[i + 1 : i + 1 + _LOOK_AHEAD]:
            nouns = all_lemmas(after.norm).get("NOUN", ())
            if after.norm.endswith("s") and nouns and after.norm not in nouns:
                return True
    return False


def determiner_disagrees(proposition: str, source: str) -> str | None:
    """The phrase ("a Roman cities") where a determiner of one thing ("a", "an", "each",
    "every", "another") stands before a plural noun, with no counting word between ("a
    few cities", "a great many people" agree), when the source does not write it so.
    None when there is none, or without the parser."""
    if not _plural_after_one(proposition):
        return None  # no parse needed
    said = parse(proposition)
    if said is None:
        return None
    lowered = " ".join(source.lower().split())
    for i, noun in enumerate(said.words):
        if noun.tag != "NNS" or noun.lemma == noun.text.lower():
            continue  # not an inflected plural ("a series", "a means")
        for k in said.children(i):
            det = said.words[k]
            if det.dep != "det" or det.text.lower() not in _SINGULAR_DETERMINERS or k > i:
                continue
            between = said.words[k + 1 : i]
            if any(w.lemma in _QUANTITY or w.tag == "CD" or w.pos not in _BETWEEN for w in between):
                continue  # a counting word ("a few"), or a noun between: a misread verb
            phrase = proposition[det.idx : noun.idx + len(noun.text)]
            if " ".join(phrase.lower().split()) not in lowered:
                return phrase
    return None
