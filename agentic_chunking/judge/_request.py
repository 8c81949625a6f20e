"""What the judge is asked: the numbered propositions of a case, its possible duplicates,
and the source they came from, in one call per case (two or three for a large case).

Guarantees of ``plan_judge_requests``:
- propositions are numbered 1..n in output order (chunk after chunk), and every number is
  in exactly one request; a case with up to ``MAX_PROPOSITIONS_PER_CALL`` propositions is
  one request, a larger one is split into at most ``MAX_CALLS`` contiguous requests of
  near-equal size (never one call per proposition);
- every candidate pair is in exactly one request, the one holding its later member; an
  earlier member judged in another request is shown under ``<other_propositions>``;
- each request carries the input chunks its propositions came from (all of them when the
  output records no provenance), so a split request still sees its whole source;
- the source goes as numbered sentences (``number_sentences``: the project's segmenter,
  numbered 1..m over all non-empty input chunks of the case), so a sentence keeps its
  number in every request of a case and a supported verdict can cite it by number;
- every judge call pays for its whole message (``benchmarks/bench_judge_cost.py``), so it
  carries no boilerplate: a blank line ends an input chunk (no tag or id around it), a
  pair is two proposition numbers, and a proposition's text is in a request once, under
  ``<propositions>`` or, for a pair's earlier member judged in another request, under
  ``<other_propositions>``.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .._models import AgenticChunkInput, AgenticResponse
from .._text import split_sentences
from ..checks import profile, same_fact
from ._similar import similar_meaning_pairs
from ._verdicts import Pair

MAX_PROPOSITIONS_PER_CALL = 50
"""Propositions judged in one call; above this a case is split."""
MAX_CALLS = 3
"""Judge calls per case at most, whatever its size."""
POSSIBLE_DUPLICATE_OVERLAP = 0.6
"""Share of content stems (intersection over union) from which two propositions are sent
to the judge as a possible duplicate; pairs ``same_fact`` already calls duplicates are
always sent."""


@dataclass(frozen=True, slots=True)
class Numbered:
    """A proposition with its judge number (1-based) and its output chunk (0-based)."""

    number: int
    chunk_index: int
    text: str


@dataclass(frozen=True, slots=True)
class SourceSentence:
    """A sentence of the case's source with its judge number (1-based) and its chunk;
    ``text`` has its whitespace collapsed to single spaces."""

    number: int
    chunk_id: str
    text: str


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """One judge call: which numbers and pairs it judges, the source sentences it shows
    (those a supported verdict may cite), and the user message it sends."""

    index: int
    of: int
    numbers: tuple[int, ...]
    pairs: tuple[Pair, ...]
    message: str
    sentences: tuple[SourceSentence, ...] = ()

    @property
    def sentence_texts(self) -> dict[int, str]:
        """The text of each sentence shown, by number."""
        return {s.number: s.text for s in self.sentences}

    @property
    def label(self) -> str:
        return f"judge call {self.index} of {self.of}"


def number_propositions(chunks: Iterable[Sequence[str]]) -> list[Numbered]:
    """Number the propositions of ``chunks`` 1..n, chunk after chunk, in order."""
    numbered: list[Numbered] = []
    for chunk_index, chunk in enumerate(chunks):
        for text in chunk:
            numbered.append(Numbered(len(numbered) + 1, chunk_index, text))
    return numbered


def number_sentences(inputs: Iterable[AgenticChunkInput]) -> list[SourceSentence]:
    """The sentences of the non-empty ``inputs`` (``split_sentences``), numbered 1..m in
    input order; the numbering depends on the case's inputs only, never on a request."""
    sentences: list[SourceSentence] = []
    for chunk in inputs:
        for text in split_sentences(chunk.text):
            sentences.append(
                SourceSentence(len(sentences) + 1, chunk.chunk_id, " ".join(text.split()))
            )
    return sentences


def candidate_pairs(propositions: Sequence[Numbered]) -> list[Pair]:
    """The pairs (earlier, later) that may state one fact, in order of later then earlier:
    the lexical ones (:func:`lexical_candidate_pairs`) and, with the ``semantic`` extra,
    those close in meaning that no lexical rule settles (``_similar``)."""
    lexical = lexical_candidate_pairs(propositions)
    position = {p.number: i for i, p in enumerate(propositions)}
    similar = similar_meaning_pairs(
        [p.text for p in propositions], known={(position[a], position[b]) for a, b in lexical}
    )
    if not similar:
        return lexical
    added = [(propositions[i].number, propositions[j].number) for i, j in similar]
    return sorted([*lexical, *added], key=lambda pair: (pair[1], pair[0]))


def lexical_candidate_pairs(propositions: Sequence[Numbered]) -> list[Pair]:
    """The pairs (earlier, later) that may state one fact by their words, in order.

    A pair is a candidate when :func:`~agentic_chunking.checks.same_fact` says so, or
    when the two share at least ``POSSIBLE_DUPLICATE_OVERLAP`` of their content stems:
    what a lexical rule cannot settle goes to the judge.
    """
    stems = [profile(p.text).content for p in propositions]
    pairs: list[Pair] = []
    for j, later in enumerate(propositions):
        for i in range(j):
            shared = len(stems[i] & stems[j])
            if not shared:  # nothing in common: neither a duplicate nor a near one
                continue
            overlap = shared / len(stems[i] | stems[j])
            if overlap >= POSSIBLE_DUPLICATE_OVERLAP or same_fact(propositions[i].text, later.text):
                pairs.append((propositions[i].number, later.number))
    return pairs


def plan_judge_requests(
    inputs: Sequence[AgenticChunkInput],
    response: AgenticResponse,
    *,
    max_per_call: int = MAX_PROPOSITIONS_PER_CALL,
    pairs: Sequence[Pair] | None = None,
) -> list[JudgeRequest]:
    """The judge calls for ``response`` (empty when it has no proposition); see the module.

    ``pairs`` (earlier, later) replaces the candidate pairs when given.
    """
    propositions = number_propositions(c.propositions for c in response.chunks)
    if not propositions:
        return []
    sentences = number_sentences(inputs)
    if pairs is None:
        pairs = candidate_pairs(propositions)
    calls = min(MAX_CALLS, math.ceil(len(propositions) / max_per_call))
    # Sizes differ by at most one, so ``calls`` groups are made (ceil-sized slices could
    # make fewer: 4 propositions in 3 calls would be two slices of 2).
    bounds = [len(propositions) * i // calls for i in range(calls + 1)]
    groups = [propositions[start:end] for start, end in itertools.pairwise(bounds)]
    requests = []
    for index, group in enumerate(groups, start=1):
        numbers = {p.number for p in group}
        mine = tuple(pair for pair in pairs if pair[1] in numbers)
        others = sorted({a for a, _ in mine if a not in numbers})
        chunk_indexes = {p.chunk_index for p in group}
        sources = {s for i in chunk_indexes for s in response.chunks[i].source_chunk_ids}
        shown = tuple(s for s in sentences if not sources or s.chunk_id in sources)
        message = judge_user_message(shown, group, [propositions[n - 1] for n in others], mine)
        requests.append(
            JudgeRequest(index, len(groups), tuple(sorted(numbers)), mine, message, shown)
        )
    return requests


def judge_user_message(
    source: Sequence[SourceSentence],
    propositions: Sequence[Numbered],
    others: Sequence[Numbered],
    pairs: Sequence[Pair],
) -> str:
    """The user message of a judge call (the tags the judge prompt describes): the source
    sentences as ``[k] text`` lines, a blank line between input chunks (the judge needs
    where a chunk ends, not its id), then the propositions as ``n. text`` lines."""
    by_chunk: dict[str, list[SourceSentence]] = {}
    for sentence in source:
        by_chunk.setdefault(sentence.chunk_id, []).append(sentence)
    chunks = "\n\n".join(
        "\n".join(f"[{s.number}] {s.text}" for s in members) for members in by_chunk.values()
    )
    parts = [f"<source>\n{chunks}\n</source>", _section("propositions", propositions)]
    if others:
        parts.append(_section("other_propositions", others))
    if pairs:
        lines = "\n".join(f"{a} | {b}" for a, b in pairs)
        parts.append(f"<pairs>\n{lines}\n</pairs>")
    return "\n".join(parts)


def _section(tag: str, propositions: Sequence[Numbered]) -> str:
    lines = "\n".join(f"{p.number}. {' '.join(p.text.split())}" for p in propositions)
    return f"<{tag}>\n{lines}\n</{tag}>"


_SECTION = re.compile(r"<(source|propositions|other_propositions|pairs)>\n(.*?)\n</\1>", re.DOTALL)
_NUMBERED = re.compile(r"^(\d+)\. (.*)$")
_SENTENCE = re.compile(r"^\[(\d+)\] (.*)$")
_PAIR = re.compile(r"^(\d+) \| (\d+)$")


@dataclass(frozen=True, slots=True)
class ReadRequest:
    """A judge user message read back: what it asks (for fake and reference servers)."""

    propositions: dict[int, str]
    others: dict[int, str]
    pairs: tuple[Pair, ...]
    sentences: dict[int, str]


def read_judge_request(message: str) -> ReadRequest:
    """Read the numbered propositions, pairs and source sentences out of a judge user
    message."""
    sections = {m.group(1): m.group(2).splitlines() for m in _SECTION.finditer(message)}

    def numbered(tag: str) -> dict[int, str]:
        found = (_NUMBERED.match(line) for line in sections.get(tag, []))
        return {int(m.group(1)): m.group(2) for m in found if m}

    found_pairs = (_PAIR.match(line) for line in sections.get("pairs", []))
    found_sentences = (_SENTENCE.match(line) for line in sections.get("source", []))
    return ReadRequest(
        propositions=numbered("propositions"),
        others=numbered("other_propositions"),
        pairs=tuple((int(m.group(1)), int(m.group(2))) for m in found_pairs if m),
        sentences={int(m.group(1)): m.group(2) for m in found_sentences if m},
    )
