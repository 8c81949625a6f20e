"""Support aligned to sentences: which source sentence(s) a proposition states.

A proposition is judged against a WINDOW of its source, not the bag of the whole source:
the sentence sharing the most content words, numbers and names with it, grown by at most
``MAX_WINDOW - 1`` neighbouring sentences while a neighbour supplies a content word or a
name the window lacks (a number only through an anaphoric link: a following sentence
that opens with a pronoun, "This ...", "The same ..."). Pure and cached per text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .._text import sentence_spans, split_sentences
from ._language import GLUE_WORDS, Profile, all_lemmas, profile, stem, stems_match, tokens, word_set

MAX_WINDOW = 3
"""The most consecutive source sentences one proposition may be aligned to."""

PRONOUNS: frozenset[str] = word_set(
    "he him his she her hers it its they them their theirs this these that those such former latter"
)
"""Words whose resolution may bring a name from an earlier sentence into a proposition."""

_ANAPHORIC_OPENING = re.compile(
    r"^\W*(?:he|she|it|they|this|that|these|those|such|the same|the former|the latter|its|their"
    r"|his|her)\b",
    re.IGNORECASE,
)


_LIST_MARKER = re.compile(r"^\s*(?:\d{1,2}|[a-zA-Z])[.)]\s+")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a source: its text, its :class:`Profile`, every stem it holds
    (glue words too) keyed by the stem's first three letters, and whether it has a
    pronoun (``refers``) or opens with one (``opens_anaphoric``)."""

    text: str
    profile: Profile
    by_prefix: dict[str, frozenset[str]]
    refers: bool
    opens_anaphoric: bool
    glue: frozenset[str]
    opener: str
    persons: tuple[frozenset[str], ...]
    marker: str = ""
    """The number of the list marker opening the sentence ("13" of "13. accounts payable
    ..."), else "": kept out of ``profile`` (no fact), but a number the sentence writes."""

    memo: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    def supports(self, word_stem: str) -> bool:
        """The stem, or a close variant with the same first three letters, is here."""
        known = self.memo.get(word_stem)
        if known is None:
            candidates = self.by_prefix.get(word_stem[:3], frozenset())
            known = word_stem in candidates or any(stems_match(word_stem, c) for c in candidates)
            self.memo[word_stem] = known
        return known


@lru_cache(maxsize=8192)
def _sentence(text: str) -> Sentence:
    by_prefix: dict[str, set[str]] = {}
    norms = []
    for tok in tokens(text):
        if not tok.number:
            norms.append(tok.norm)
            word_stem = stem(tok.norm)
            by_prefix.setdefault(word_stem[:3], set()).add(word_stem)
    return Sentence(
        text,
        profile(_LIST_MARKER.sub("", text)),
        {k: frozenset(v) for k, v in by_prefix.items()},
        any(w in PRONOUNS for w in norms),
        bool(_ANAPHORIC_OPENING.match(text)),
        _glue(text),
        _opener(text),
        person_names(text),
        _marker(text),
    )


def _marker(text: str) -> str:
    """The number of a list marker opening ``text`` ("13." -> "13"), else ""."""
    found = _LIST_MARKER.match(text)
    return next((t.norm for t in tokens(found.group(0)) if t.number), "") if found else ""


def _opener(text: str) -> str:
    """The stem of a capitalised first word that is no English dictionary word ("Marie"),
    else ""."""
    first = next(iter(tokens(_LIST_MARKER.sub("", text))), None)
    if first is None or not first.capitalised or all_lemmas(first.norm):
        return ""  # "Now", "Boiling": English words, not names
    return stem(first.norm)


UPPER_LETTER = r"[A-Z\u00c0-\u00de]"
"""A capital letter, accented ones of Latin-1 included (a regular-expression class)."""
_PERSON = re.compile(
    rf"{UPPER_LETTER}[\w'\u2019-]*(?:\s+(?:de'|(?:da|di|von|van|de|del|la|le)\b))*"
    rf"(?:\s+{UPPER_LETTER}[\w'\u2019-]*)+"
)


def person_shaped(words: Sequence[str]) -> bool:
    """Do ``words`` have a person's name's shape: two or more, the first no dictionary
    word and not all capitals ("Marie Curie", "Lorenzo de' Medici"; not "Amazon S3",
    "DNA Polymerase")?"""
    return len(words) >= 2 and not words[0].isupper() and not all_lemmas(words[0].lower())


@lru_cache(maxsize=8192)
def person_names(text: str) -> tuple[frozenset[str], ...]:
    """The stems of each person-shaped name of ``text``: two or more capitalised words,
    the first no dictionary word and not all capitals ("Marie Curie", "Andrea Mantegna",
    "Lorenzo de' Medici"; not "The Medici", "DNA Polymerase")."""
    out = []
    for match in _PERSON.finditer(text):
        words = [w for w in match.group(0).split() if w[:1].isupper()]
        if person_shaped([words[0].strip("'\u2019"), *words[1:]]):
            out.append(frozenset(stem(t.norm) for t in tokens(" ".join(words)) if not t.number))
    return tuple(out)


_POLAR = word_set("not no never none nothing without all every each most half few only always")


@lru_cache(maxsize=8192)
def _glue(text: str) -> frozenset[str]:
    """The glue words of a text (a tie-breaker: "Not." aligns to "Not.", not "The.")."""
    return frozenset(t.norm for t in tokens(text) if t.norm in GLUE_WORDS or t.norm in _POLAR)


class SourceSentences(tuple[Sentence, ...]):
    """A source's sentences in order, with an index of the stems they hold, so that which
    sentences support a stem is found without reading every sentence (a proposition's
    alignment costs what the sentences sharing its words cost, not the whole source: the
    checks' time grows linearly with a document, not with its square)."""

    _stems: dict[str, dict[str, tuple[int, ...]]]
    _supporting: dict[str, tuple[int, ...]]

    def supporting(self, word_stem: str) -> tuple[int, ...]:
        """The indexes of the sentences that support ``word_stem`` (``Sentence.supports``),
        in order: exactly ``[k for k, s in enumerate(self) if s.supports(word_stem)]``."""
        try:
            memo = self._supporting
        except AttributeError:
            memo = self._supporting = {}
        known = memo.get(word_stem)
        if known is None:
            variants = self._index().get(word_stem[:3], {})
            found: set[int] = set()
            for candidate, where in variants.items():
                if candidate == word_stem or stems_match(word_stem, candidate):
                    found.update(where)
            known = memo[word_stem] = tuple(sorted(found))
        return known

    def _index(self) -> dict[str, dict[str, tuple[int, ...]]]:
        """Each stem's first three letters -> each stem with them -> the sentences holding it
        (what ``Sentence.by_prefix`` holds, inverted)."""
        try:
            return self._stems
        except AttributeError:
            pass
        index: dict[str, dict[str, list[int]]] = {}
        for k, sentence in enumerate(self):
            for prefix, stems in sentence.by_prefix.items():
                for word_stem in stems:
                    index.setdefault(prefix, {}).setdefault(word_stem, []).append(k)
        self._stems = {p: {w: tuple(ks) for w, ks in v.items()} for p, v in index.items()}
        return self._stems


def supported_anywhere(sentences: Sequence[Sentence], word_stem: str) -> bool:
    """Does any of ``sentences`` support ``word_stem``? (Through the index of a whole
    source's ``SourceSentences``; sentence by sentence for any other sequence.)"""
    if isinstance(sentences, SourceSentences):
        return bool(sentences.supporting(word_stem))
    return any(s.supports(word_stem) for s in sentences)


@lru_cache(maxsize=256)
def source_sentences(source: str) -> SourceSentences:
    """The sentences of ``source`` (the package's segmenter; PDF line-break hyphens are
    joined by the tokenizer), each profiled once, indexed by the stems they hold."""
    return SourceSentences(_sentence(s) for s in split_sentences(source))


@lru_cache(maxsize=256)
def sentence_offsets(source: str) -> tuple[tuple[int, int], ...]:
    """Where each sentence of ``source_sentences(source)`` is: ``(start, end)`` offsets in
    ``source``, parallel to it, so ``source[start:end] == source_sentences(source)[k].text``."""
    offsets = []
    for a, b in sentence_spans(source):
        piece = source[a:b]
        if piece.strip():
            start = a + len(piece) - len(piece.lstrip())
            offsets.append((start, start + len(piece.strip())))
    return tuple(offsets)


@dataclass(frozen=True)
class Window:
    """The source sentences ``sentences[start:end]`` a proposition is aligned to."""

    sentences: tuple[Sentence, ...]
    start: int
    end: int

    @property
    def members(self) -> tuple[Sentence, ...]:
        return self.sentences[self.start : self.end]

    @property
    def text(self) -> str:
        """The aligned sentence(s), joined by a space: what a finding names."""
        return " ".join(s.text for s in self.members)

    def supports(self, word_stem: str) -> bool:
        return any(s.supports(word_stem) for s in self.members)

    def has_number(self, number: str) -> bool:
        """The number is stated by a sentence of the window, or numbers its list item."""
        return any(number in s.profile.numbers or number == s.marker for s in self.members)

    def before(self) -> tuple[Sentence, ...]:
        """The source sentences before the window."""
        return self.sentences[: self.start]


def _items(prop: Profile) -> frozenset[str]:
    return prop.content | prop.names


def _score(
    prop: Profile,
    glue: frozenset[str],
    words: frozenset[str],
    weights: dict[str, float],
    sentences: tuple[Sentence, ...],
    k: int,
) -> tuple[float, ...]:
    """How well sentence ``k`` states the proposition. First the evidence of its words:
    each content word shared weighs 1 / the number of sentences that have it (a word
    only this sentence has is the best evidence), a name half that (names are the context
    a proposition carries to stand alone); a sentence opening with a pronoun ("It ...",
    "The former ...") also gets half the weight of the words its two preceding sentences
    give (what the pronoun resolves to). Then lower-case words shared, negations and
    quantifiers shared, numbers shared, glue words shared, and fewest words the
    proposition lacks."""
    sentence = sentences[k]
    own = {s for s in weights if sentence.supports(s)}
    evidence = sum(weights[s] for s in own)
    if sentence.opens_anaphoric:
        context = {s for s in weights for b in sentences[max(0, k - 2) : k] if b.supports(s)}
        evidence += 0.5 * sum(weights[s] for s in context - own)
    common = sum(sentence.supports(s) for s in words)
    polar = len(glue & sentence.glue & _POLAR)
    extra = len(sentence.glue - glue) + len(sentence.profile.content - prop.content)
    numbers = len(prop.numbers & sentence.profile.numbers)
    return round(evidence, 9), common, polar, numbers, len(glue & sentence.glue), -extra


def _common_words(proposition: str) -> frozenset[str]:
    """The lower-case content stems: what may grow a window (a name may not, or a swapped
    person would pull in the sentence of the person it was swapped for)."""
    toks = tokens(proposition)
    opener = stem(toks[0].norm) if toks and not _opener(proposition) else ""
    return frozenset(
        stem(t.norm)
        for t in toks
        if not t.number and not t.capitalised and t.norm not in GLUE_WORDS and len(t.norm) > 2
    ) | (
        {opener} - {""} if toks and not toks[0].number and toks[0].norm not in GLUE_WORDS else set()
    )


def _helps(
    prop: Profile, words: frozenset[str], window: Window, candidate: int, after: bool
) -> bool:
    """Would sentence ``candidate`` supply what the window lacks: two of its missing
    lower-case words, or, when the two sentences are linked by a pronoun (the later one
    opens with it), one word or a number? (One word alone would let a term swapped in
    from the next sentence pull that sentence into the window.)"""
    sentence = window.sentences[candidate]
    supplied = sum(not window.supports(s) and sentence.supports(s) for s in words)
    anaphoric = sentence.opens_anaphoric if after else window.members[0].opens_anaphoric
    if supplied >= 2 or (anaphoric and supplied):
        return True
    missing = {n for n in prop.numbers if not window.has_number(n)}
    return anaphoric and bool(missing & sentence.profile.numbers)


BOUND_SLACK = 1e-6
"""What a bound on a sentence's evidence is allowed to fall short of the best evidence by
before the sentence is skipped: far above the float error of a sum in another order."""


def _bounded(weights: dict[str, float], sentences: SourceSentences) -> list[tuple[float, int]]:
    """Every sentence whose ``_score`` may have evidence, with a bound on that evidence,
    highest bound first (the earliest on a tie). A sentence not listed has evidence 0:
    it supports no weighted stem, nor do the two before it (a sentence opening with a
    pronoun takes half the weight of its two preceding sentences' words)."""
    own: dict[int, float] = {}
    for word_stem, weight in weights.items():
        for k in sentences.supporting(word_stem):
            own[k] = own.get(k, 0.0) + weight
    bound = dict(own)
    for k, evidence in own.items():
        for j in (k + 1, k + 2):
            if j < len(sentences) and sentences[j].opens_anaphoric:
                bound[j] = bound.get(j, 0.0) + 0.5 * evidence
    return sorted(((b, k) for k, b in bound.items()), key=lambda item: (-item[0], item[1]))


def _best(
    prop: Profile,
    glue: frozenset[str],
    words: frozenset[str],
    weights: dict[str, float],
    sentences: SourceSentences,
) -> int:
    """The best-scoring sentence (``_score``; the earliest on a tie), the same as scoring
    every sentence: a sentence whose bound on its evidence is below the best evidence
    found cannot win and is not scored, nor one without evidence once one has it."""
    best: tuple[tuple[float, ...], int] | None = None
    for bound, k in _bounded(weights, sentences):
        if best is not None and bound + BOUND_SLACK < best[0][0]:
            break
        key = (_score(prop, glue, words, weights, sentences, k), -k)
        if best is None or key > best:
            best = key
    if best is not None and best[0][0] > 0:
        return -best[1]
    # no sentence has evidence: every one is scored on what follows evidence
    return max(
        range(len(sentences)),
        key=lambda i: (_score(prop, glue, words, weights, sentences, i), -i),
    )


@lru_cache(maxsize=256)
@lru_cache(maxsize=256)
def _flat_source(source: str, joined: bool = False) -> tuple[str, tuple[int, ...]]:
    """The sentences of ``source`` with each run of whitespace made one space, joined by
    one space (``joined``: by one space only where the source has whitespace between
    them, else by nothing: the segmenter may cut inside a word, "1 @.@ 6 km" into "1 @."
    and "@ 6 km"), and where each sentence starts in that text."""
    offsets = sentence_offsets(source)
    starts: list[int] = []
    position = 0
    flat = []
    for k, sentence in enumerate(source_sentences(source)):
        text = " ".join(sentence.text.split())
        if k:
            apart = not joined or offsets[k - 1][1] < offsets[k][0]
            flat.append(" " if apart else "")
            position += int(apart)
        starts.append(position)
        flat.append(text)
        position += len(text)
    return "".join(flat), tuple(starts)


def _quoted_in(text: str, flat: str, starts: tuple[int, ...]) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    at = flat.find(text)
    while at >= 0:
        end = at + len(text)
        before = flat[at - 1] if at else " "
        after = flat[end] if end < len(flat) else " "
        if not (before.isalnum() and text[0].isalnum()) and not (
            after.isalnum() and text[-1].isalnum()
        ):
            found.append((bisect_right(starts, at) - 1, bisect_right(starts, end - 1)))
        at = flat.find(text, at + 1)
    return found


@lru_cache(maxsize=8192)
def quotations(proposition: str, source: str) -> tuple[tuple[int, int], ...]:
    """Where ``proposition`` quotes ``source`` word for word (whitespace aside): for each
    occurrence that starts and ends at word boundaries, the sentences ``(first, last +
    1)`` it quotes from, wherever it starts and ends (the end of one sentence and the next
    whole: an output that cuts the source elsewhere than the segmenter). Sentences are
    read joined by a space, or, failing that, as the source joins them (no space where
    the segmenter cut inside a word). Empty when it quotes nothing or holds no word."""
    text = " ".join(proposition.split())
    if not any(c.isalnum() for c in text):
        return ()
    found = _quoted_in(text, *_flat_source(source))
    return tuple(found or _quoted_in(text, *_flat_source(source, joined=True)))


@lru_cache(maxsize=8192)
def align(proposition: str, source: str) -> Window | None:
    """The window of ``source`` that ``proposition`` states, or None for an empty source.

    Guarantees: a proposition that quotes the source word for word (whitespace aside: a
    sentence, a run of sentences, or a part of them) aligns to exactly the sentences it
    quotes from, however many. Any other window is 1 to ``MAX_WINDOW`` consecutive
    sentences and holds the best-scoring sentence (see ``_score``; the earliest on a
    tie); a proposition copied verbatim from a sentence aligns to a window that supports
    every one of its words, names and numbers.
    """
    sentences = source_sentences(source)
    if not sentences:
        return None
    quoted = quotations(proposition, source)
    if quoted:  # the first place it quotes (coverage counts every place)
        return Window(sentences, *quoted[0])
    prop = profile(proposition)
    glue = _glue(proposition)
    words = _common_words(proposition)
    counts = {s: len(sentences.supporting(s)) for s in _items(prop)}
    names = prop.names | {_opener(proposition)}  # "Jennifer Doudna ..." opens with a name
    weights = {s: (0.5 if s in names else 1.0) / n for s, n in counts.items() if n}
    best = _best(prop, glue, words, weights, sentences)
    window = Window(sentences, best, best + 1)
    while window.end - window.start < MAX_WINDOW:
        options = []
        if window.start > 0 and _helps(prop, words, window, window.start - 1, after=False):
            options.append(Window(sentences, window.start - 1, window.end))
        if window.end < len(sentences) and _helps(prop, words, window, window.end, after=True):
            options.append(Window(sentences, window.start, window.end + 1))
        if not options:
            break
        window = max(options, key=lambda w: sum(w.supports(s) for s in _items(prop)))
    return window
