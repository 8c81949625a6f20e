"""Case against case: which findings are new or resolved, and how the propositions moved.

``finding_changes`` compares the findings of two runs of a case as multisets of
(rule, proposition, kind, severity, reason), whatever the rule: a new invented number in
a case that already failed ``no_invention`` is a new finding. ``align_propositions``
pairs the propositions of the two runs: the same text (up to spacing and case) first,
then the most similar remaining pairs (rapidfuzz, at least ``REWORDED_AT``), each with a
word diff (difflib); the rest are only in one run. A reworded pair whose changed words
hold a negation, a number or a name is ``notable``: the meaning may have changed even
where no rule fires. A capitalised word that opens a sentence is a name only when the
texts compared (and the case's source) never use it in lower case: "Cells store ..." is
not a name added where the source says "cells".
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ._records import FindingRecord
from ._results import CaseResult

#: Similarity (rapidfuzz ``token_sort_ratio``, 0-100) from which two propositions are one
#: proposition reworded rather than two different ones.
REWORDED_AT = 60.0
PAIR_STATUSES = ("same", "reworded", "dropped", "added")
_NEGATIONS = frozenset(["not", "no", "never", "none", "nor", "neither", "without", "cannot", "n't"])
_WORD = re.compile(r"\S+")
#: Words that open a sentence capitalised without being a name.
_OPENERS = frozenset(
    _WORD.findall(
        "a an the this that these those it its they their there he she we in on at by for "
        "from of to with as after before during when while each every some many most all both"
    )
)
_PUNCTUATION = ".,;:!?()\"'\u201c\u201d\u2018\u2019"

FindingKey = tuple[str, str, str, str, str]


def finding_key(finding: FindingRecord) -> FindingKey:
    """What identifies a finding across runs: rule, proposition (for a finding on no
    proposition, e.g. an uncovered sentence: its source sentence), kind, severity, reason."""
    subject = finding.proposition or (finding.source_sentence or "")
    return (finding.rule, subject, finding.kind, finding.severity, finding.reason)


def all_findings(case: CaseResult) -> list[FindingRecord]:
    """Every finding of every check of ``case``, in check order."""
    return [f for _, check in case.ordered_checks() for f in check.findings]


def finding_changes(
    before: CaseResult, after: CaseResult
) -> tuple[tuple[FindingRecord, ...], tuple[FindingRecord, ...]]:
    """(new, resolved): findings of ``after`` not in ``before``, and the other way round.

    Compared as multisets of ``finding_key``, so a finding repeated once more is new.
    """
    return _minus(all_findings(after), all_findings(before)), _minus(
        all_findings(before), all_findings(after)
    )


def _minus(
    these: Iterable[FindingRecord], those: Iterable[FindingRecord]
) -> tuple[FindingRecord, ...]:
    left = Counter(finding_key(f) for f in those)
    kept = []
    for finding in these:
        key = finding_key(finding)
        if left[key]:
            left[key] -= 1
        else:
            kept.append(finding)
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class WordOp:
    """A run of words of a word diff: ``same``, ``del`` (only before) or ``add`` (only after)."""

    op: str
    text: str


@dataclass(frozen=True, slots=True)
class PropositionPair:
    """One proposition across two runs; ``status`` is one of PAIR_STATUSES."""

    status: str
    before: str | None
    after: str | None
    similarity: float = 100.0
    words: tuple[WordOp, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def notable(self) -> bool:
        """True when the words changed hold a negation, a number or a name."""
        return bool(self.notes)


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def word_diff(before: str, after: str) -> tuple[WordOp, ...]:
    """The word-level diff of two texts as runs of same / del / add words."""
    a, b = _WORD.findall(before), _WORD.findall(after)
    ops: list[WordOp] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            ops.append(WordOp("same", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            ops.append(WordOp("del", " ".join(a[i1:i2])))
        if j2 > j1:
            ops.append(WordOp("add", " ".join(b[j1:j2])))
    return tuple(ops)


def lowercase_words(*texts: str) -> frozenset[str]:
    """The words the ``texts`` use in lower case somewhere: common words, not names."""
    return frozenset(
        word
        for text in texts
        for token in _WORD.findall(text)
        if (word := token.strip(_PUNCTUATION)) and word == word.lower()
    )


def _notes(words: Sequence[WordOp], common: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """What a reader must look at in a word diff: negations, numbers, names changed.

    A capitalised word is a name, except at the start of the sentence, where it is a name
    only when it is no common opener and ``common`` (words seen in lower case) lacks it.
    """
    notes: list[str] = []
    at_start = True  # a sentence's first word is capitalised whether or not it is a name
    for op in words:
        if op.op == "same":
            at_start = False
            continue
        verb = "removed" if op.op == "del" else "added"
        tokens = [t.strip(_PUNCTUATION) for t in op.text.split()]
        if any(t.casefold() in _NEGATIONS or t.casefold().endswith("n't") for t in tokens):
            notes.append(f"negation {verb}: {op.text}")
        if any(any(ch.isdigit() for ch in t) for t in tokens):
            notes.append(f"number {verb}: {op.text}")
        names = [
            t
            for position, t in enumerate(tokens)
            if t[:1].isupper()
            and not (
                at_start and position == 0 and (t.casefold() in _OPENERS or t.casefold() in common)
            )
        ]
        if names:
            notes.append(f"name {verb}: {op.text}")
        if op.op == "add":
            at_start = False  # the next op starts where the added words end
    return tuple(dict.fromkeys(notes))


def align_propositions(
    before: Sequence[str], after: Sequence[str], *, source: str = ""
) -> list[PropositionPair]:
    """Pair the propositions of two runs: same, reworded (with a word diff), or in one only.

    ``source`` (the case's input text) tells common words from names in the flags.
    Guarantees: every proposition of ``before`` and of ``after`` is in exactly one pair;
    pairs come in ``before`` order, then the propositions only in ``after``, in order.
    """
    from rapidfuzz import fuzz, process

    unmatched_after = list(range(len(after)))
    partner: dict[int, tuple[int, float]] = {}
    by_text: dict[str, list[int]] = {}
    for j in unmatched_after:
        by_text.setdefault(_normal(after[j]), []).append(j)
    for i, text in enumerate(before):
        same = by_text.get(_normal(text))
        if same:
            partner[i] = (same.pop(0), 100.0)
    used = {j for j, _ in partner.values()}
    rest_a = [i for i in range(len(before)) if i not in partner]
    rest_b = [j for j in range(len(after)) if j not in used]
    if rest_a and rest_b:
        scores = process.cdist(
            [_normal(before[i]) for i in rest_a],
            [_normal(after[j]) for j in rest_b],
            scorer=fuzz.token_sort_ratio,
        )
        ranked = sorted(
            ((float(scores[x][y]), x, y) for x in range(len(rest_a)) for y in range(len(rest_b))),
            key=lambda t: (-t[0], t[1], t[2]),
        )
        for score, x, y in ranked:
            i, j = rest_a[x], rest_b[y]
            if score < REWORDED_AT:
                break
            if i not in partner and j not in used:
                partner[i] = (j, score)
                used.add(j)
    common = lowercase_words(source, *before, *after)
    pairs = [_pair(before[i], after, partner.get(i), common) for i in range(len(before))]
    pairs += [
        PropositionPair("added", None, after[j], 0.0) for j in range(len(after)) if j not in used
    ]
    return pairs


def _pair(
    text: str, after: Sequence[str], match: tuple[int, float] | None, common: frozenset[str]
) -> PropositionPair:
    if match is None:
        return PropositionPair("dropped", text, None, 0.0)
    j, score = match
    if _normal(text) == _normal(after[j]):
        return PropositionPair("same", text, after[j])
    words = word_diff(text, after[j])
    return PropositionPair("reworded", text, after[j], score, words, _notes(words, common))


def propositions_of(case: CaseResult) -> list[str]:
    """The output propositions of ``case`` in chunk order (empty without a response)."""
    if case.response is None:
        return []
    return [p for chunk in case.response.chunks for p in chunk.propositions]


@dataclass(frozen=True, slots=True)
class CaseDiff:
    """What changed in one case between a base run and another run."""

    case_id: str
    label: str
    new_findings: tuple[FindingRecord, ...]
    resolved_findings: tuple[FindingRecord, ...]
    propositions: tuple[PropositionPair, ...]

    def count(self, status: str) -> int:
        """How many proposition pairs have ``status`` (one of PAIR_STATUSES)."""
        return sum(p.status == status for p in self.propositions)

    @property
    def new_errors(self) -> tuple[FindingRecord, ...]:
        return tuple(f for f in self.new_findings if f.is_error)

    @property
    def new_warnings(self) -> tuple[FindingRecord, ...]:
        return tuple(f for f in self.new_findings if not f.is_error)

    @property
    def notable(self) -> tuple[PropositionPair, ...]:
        """Reworded propositions whose changed words hold a negation, number or name."""
        return tuple(p for p in self.propositions if p.notable)

    @property
    def changed_propositions(self) -> tuple[PropositionPair, ...]:
        return tuple(p for p in self.propositions if p.status != "same")

    @property
    def changed(self) -> bool:
        return bool(self.new_findings or self.resolved_findings or self.changed_propositions)


def diff_case(before: CaseResult, after: CaseResult, label: str) -> CaseDiff:
    """The findings and propositions that changed from ``before`` to ``after``."""
    new, resolved = finding_changes(before, after)
    source = "\n".join(i.text for i in after.inputs or before.inputs)
    pairs = align_propositions(propositions_of(before), propositions_of(after), source=source)
    return CaseDiff(after.id, label, new, resolved, tuple(pairs))
