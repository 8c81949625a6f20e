"""Where each proposition of an extraction batch is: its input chunk(s) and its sentences.

A proposition is located in the text the model was sent (its batch), then mapped back to
the input chunks' own text, so a sentence repeated elsewhere in the document (a changelog
header, a copyright line, a numbered note) is never taken for it:

1. **Word for word.** When the proposition occurs in the batch's text up to whitespace
   (runs of whitespace, line ends included, compared as one space), its places are those
   occurrences. Occurrences that are whole sentences or lines are preferred to ones
   inside a longer sentence ("Definitions." the heading, not "... in Definitions.").
2. **Aligned.** Otherwise the checks' sentence alignment (``checks._align.align``, the
   window of one to three consecutive sentences a proposition states) over the batch's
   text gives the place, and so does every sentence of the batch equal word for word to
   one of the window (overlapping input chunks repeat a sentence: the fact is in both).
   A window that shares no content word, name or number with the proposition gives no
   place (nothing in the batch supports it).

A place in the batch is mapped to the segment(s) it overlaps, then to the input chunk's
text (a segment is a piece of its chunk whose non-whitespace characters are the chunk's
from ``Segment.skip`` on: pre-chunking changes only whitespace), and widened to the
chunk's sentences it touches (``checks._align.sentence_offsets``), so a place is always
whole sentences of the input chunk, and a word-for-word proposition is inside the
sentences of its places.

The input chunk ids of a proposition are those of its places, in input order; a batch of
one input chunk gives that id whatever the proposition says, and a proposition with no
place in a packed batch gets every id of the batch, so provenance is never narrower than
the evidence. Pure, no I/O.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..checks import Window, align, profile, sentence_offsets
from ._batches import SEGMENT_JOINER, Batch


@dataclass(frozen=True, slots=True, order=True)
class Place:
    """Sentences of one input chunk that state a proposition: ``text[start:end]`` of the
    input chunk ``chunk_id``'s text, whole sentences of it (``sentence_offsets``)."""

    chunk_id: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Located:
    """Where one proposition of a batch is: its input chunk ids (non-empty, in input
    order, a subset of the batch's) and its places (sorted; empty when no sentence of the
    batch states it)."""

    chunk_ids: tuple[str, ...]
    places: tuple[Place, ...]


def locate(propositions: Sequence[str], batch: Batch, texts: Mapping[str, str]) -> list[Located]:
    """Locate each proposition of ``batch`` (see the module). ``texts`` maps the batch's
    input chunk ids to their texts (the chunks' own, before pre-chunking)."""
    view = _BatchView(batch, texts)
    located = []
    for proposition in propositions:
        places = view.places(proposition)
        ids = tuple(dict.fromkeys(p.chunk_id for p in places))
        if len(batch.chunk_ids) == 1 or not ids:
            ids = batch.chunk_ids
        else:
            order = {cid: k for k, cid in enumerate(batch.chunk_ids)}
            ids = tuple(sorted(ids, key=order.__getitem__))
        located.append(Located(ids, places))
    return located


class _BatchView:
    """A batch's text with what locating needs: its whitespace-collapsed form, the
    segments' bounds, and the boundaries of its sentences and lines."""

    def __init__(self, batch: Batch, texts: Mapping[str, str]) -> None:
        self.batch = batch
        self.texts = texts
        self.text = text = batch.text
        self.bounds: list[tuple[int, int, int]] = []  # (start, end, segment index)
        start = 0
        for k, segment in enumerate(batch.segments):
            self.bounds.append((start, start + len(segment.text), k))
            start += len(segment.text) + len(SEGMENT_JOINER)
        # the collapsed text: each run of whitespace one space; where each character was
        self.collapsed, self.origin = _collapse(text)
        self.visible_before = _visible_prefix(text)
        self.sentences = sentence_offsets(text)
        edges = {0, len(text)}
        for a, b in self.sentences:
            edges.update((a, b))
        for line_start, line_end in _lines(text):
            edges.update((line_start, line_end))
        self.edges = frozenset(edges)

    def places(self, proposition: str) -> tuple[Place, ...]:
        ranges = self._occurrences(proposition) or self._aligned(proposition)
        return tuple(sorted({p for a, b in ranges for p in self._map(a, b)}))

    def _occurrences(self, proposition: str) -> list[tuple[int, int]]:
        """The ranges of the batch's text holding ``proposition`` up to whitespace, those
        that are whole sentences or lines when there are any."""
        wanted = " ".join(proposition.split())
        if not wanted:
            return []
        found = []
        at = self.collapsed.find(wanted)
        while at >= 0:
            end = at + len(wanted)
            if _word_edge(self.collapsed, at) and _word_edge(self.collapsed, end):
                found.append((self.origin[at], self.origin[end - 1] + 1))
            at = self.collapsed.find(wanted, at + 1)
        whole = [(a, b) for a, b in found if a in self.edges and b in self.edges]
        return whole or found

    def _aligned(self, proposition: str) -> list[tuple[int, int]]:
        """The batch sentences of the proposition's aligned window, and every sentence of
        the batch equal to one of them; none when the window supports nothing of it."""
        window = align(proposition, self.text)
        if window is None or not _supports_something(proposition, window):
            return []
        texts = {s.text for s in window.members}
        return [
            self.sentences[k]
            for k, sentence in enumerate(window.sentences)
            if window.start <= k < window.end or sentence.text in texts
        ]

    def _map(self, start: int, end: int) -> list[Place]:
        """The places of the batch range ``[start, end)``: for each segment it overlaps,
        the sentences of that segment's input chunk holding the overlapped characters."""
        places = []
        for lo, hi, k in self.bounds:
            a, b = max(start, lo), min(end, hi)
            if a >= b:
                continue
            segment = self.batch.segments[k]
            first = self.visible_before[a] - self.visible_before[lo]
            last = self.visible_before[b] - self.visible_before[lo]
            text = self.texts.get(segment.chunk_id)
            if last <= first or text is None:
                continue
            where = _visible_positions(text)
            if segment.skip + last > len(where):
                continue  # the segment is not of this text (cannot happen from plan_batches)
            start_in_chunk = where[segment.skip + first]
            end_in_chunk = where[segment.skip + last - 1] + 1
            places.extend(_sentences_of(segment.chunk_id, text, start_in_chunk, end_in_chunk))
        return places


def _sentences_of(chunk_id: str, text: str, start: int, end: int) -> list[Place]:
    """The sentences of ``text`` that ``[start, end)`` touches, as places."""
    offsets = sentence_offsets(text)
    ends = [b for _, b in offsets]
    first = bisect.bisect_right(ends, start)
    places = []
    for a, b in offsets[first:]:
        if a >= end:
            break
        places.append(Place(chunk_id, a, b))
    return places


def _collapse(text: str) -> tuple[str, list[int]]:
    """``text`` with each run of whitespace one space and the ends stripped, and for each
    of its characters the offset in ``text`` it stands for (a run's first character)."""
    out: list[str] = []
    origin: list[int] = []
    space = False
    for position, char in enumerate(text):
        if char.isspace():
            space = bool(out)
            continue
        if space:
            out.append(" ")
            origin.append(position - 1)
            space = False
        out.append(char)
        origin.append(position)
    return "".join(out), origin


def _visible_prefix(text: str) -> list[int]:
    """``counts[i]``: the non-whitespace characters of ``text[:i]``."""
    counts = [0]
    total = 0
    for char in text:
        total += not char.isspace()
        counts.append(total)
    return counts


@lru_cache(maxsize=64)
def _visible_positions(text: str) -> tuple[int, ...]:
    """The offsets of ``text``'s non-whitespace characters, in order."""
    return tuple(k for k, char in enumerate(text) if not char.isspace())


def _lines(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each line's text, surrounding spaces left out."""
    lines = []
    position = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        stripped = body.strip()
        if stripped:
            start = position + len(body) - len(body.lstrip())
            lines.append((start, start + len(stripped)))
        position += len(line)
    return lines


def _word_edge(text: str, at: int) -> bool:
    """Does ``at`` not cut a word of ``text`` (a letter or digit on both sides)?"""
    return at <= 0 or at >= len(text) or not (text[at - 1].isalnum() and text[at].isalnum())


def _supports_something(proposition: str, window: Window) -> bool:
    """Does the aligned window hold any content word, name or number of the proposition?"""
    prop = profile(proposition)
    return any(window.supports(s) for s in prop.content | prop.names) or any(
        window.has_number(n) for n in prop.numbers
    )
