"""The one list of what changed, and the one verdict it gives: computed once, shown everywhere.

For each run against the base, case by case, ``case_changes`` turns a ``CaseDiff`` into
lines a person reads and a CI job counts (``Change``):

- ``new error`` / ``new warning``: findings the base did not have, **one line per
  proposition**: every rule it newly breaks is on that line, the gravest first, so a fact
  that breaks three rules counts once;
- ``dropped fact``: a source sentence no proposition states any more (a new ``coverage``
  finding), one line per sentence, an error when its number is lost with it; or a
  proposition of the base that no proposition of the run states, even in part (no
  partner in the alignment, none containing it: ``STATED_WITHIN``), while the checks
  still count its sentence covered;
- ``flagged rewording``: a proposition reworded so that a negation, a number or a name
  changed, when no new finding names it already (then the flags go on that line);
- ``resolved``: base findings that are gone, one line per proposition (shown below);
  never findings that went with a dropped fact (their proposition is stated nowhere in the
  run, or their sentence is on a dropped-fact line): those are named on the fact's
  ``dropped fact`` line instead, so a model that drops facts never reads as improved.

A finding on a proposition that was only reworded, or whose reason alone changed, with
the same rule, kind and severity on both sides, is the same finding carried over: neither
new nor resolved. A case that no longer runs, or is missing from the run, is a ``new
error`` line of the rule ``case``; so is a substance verdict that got worse with no new
error finding to show for it.

``verdict_of`` gives the verdict from the lines, in three states (``CHANGE_VERDICTS``,
mildest first; the judge's verdicts on a proposition are ``judge.VERDICTS``): ``unsafe``
when a line is an error, ``review`` when there are lines but none is an error, ``same``
when there is none. Nothing else decides a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..checks import NO_INVENTION
from ._diff import CaseDiff, PropositionPair, propositions_of
from ._records import FindingRecord
from ._results import CaseResult

CHANGE_VERDICTS = ("same", "review", "unsafe")
"""The verdict of a run against its base, mildest first (``--fail-on`` compares by index)."""
CATEGORIES = ("new error", "new warning", "dropped fact", "flagged rewording")
"""The kinds of line of the list of what changed, in display order."""
RESOLVED = "resolved"
CASE_RULE = "case"
"""The rule named by a line about a whole case (it no longer runs, or is missing)."""
REWORDING_RULE = "rewording"
COVERAGE_RULE = "coverage"
SAME_SENTENCE = 70.0
"""rapidfuzz ``token_set_ratio`` from which a proposition's base wording states a sentence."""
STATED_WITHIN = 90.0
"""``token_set_ratio`` from which a dropped proposition is still stated within another one
(a merge of two facts into one sentence is no dropped fact)."""
_QUOTED = re.compile(r"[\"“”]([^\"“”]{3,}?)[\"“”]|'([^']{3,}?)'(?![a-z])")


@dataclass(frozen=True, slots=True)
class Change:
    """One line of the list: what changed in one case of the run ``label``.

    ``text`` is the proposition (the sentence, for a dropped fact; empty for a whole
    case), ``was`` its wording in the base when it was reworded, ``notes`` the rewording's
    flags (a negation, number or name changed), ``judge`` the recorded judge's word on it
    (empty without one) and ``unverified`` the words the judge quotes that the case's
    source does not contain (its quote cannot be checked, so it is marked unverified).
    """

    category: str
    severity: str
    case_id: str
    label: str
    rules: tuple[str, ...]
    text: str
    reason: str
    judge: str = ""
    unverified: tuple[str, ...] = ()
    was: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def to_dict(self) -> dict[str, Any]:
        """The line for machines (``report --json``): every field, lists for tuples."""
        return {
            "category": self.category,
            "severity": self.severity,
            "case": self.case_id,
            "run": self.label,
            "rules": list(self.rules),
            "text": self.text,
            "reason": self.reason,
            "judge": self.judge or None,
            "judge_unverified_quotes": list(self.unverified),
            "was": self.was,
            "notes": list(self.notes),
        }


def verdict_of(changes: Iterable[Change]) -> str:
    """``unsafe`` (a line is an error), ``review`` (lines, no error) or ``same`` (none)."""
    lines = list(changes)
    if any(c.is_error for c in lines):
        return "unsafe"
    return "review" if lines else "same"


def at_or_above(verdict: str, threshold: str) -> bool:
    """True when ``verdict`` is ``threshold`` or graver (``--fail-on``); ValueError for a
    value not in ``CHANGE_VERDICTS``."""
    return CHANGE_VERDICTS.index(verdict) >= CHANGE_VERDICTS.index(threshold)


def worst(verdicts: Iterable[str]) -> str:
    """The gravest of ``verdicts`` (``same`` for none)."""
    return max(verdicts, key=CHANGE_VERDICTS.index, default="same")


def unverified_quotes(reason: str, source: str) -> tuple[str, ...]:
    """The passages ``reason`` quotes (in double quotes, or single quotes of 3+ characters)
    that ``source`` does not contain, compared case- and space-insensitively."""
    flat = " ".join(source.split()).casefold()
    missing = []
    for match in _QUOTED.finditer(reason):
        quoted = " ".join((match.group(1) or match.group(2) or "").split())
        if quoted and quoted.casefold().strip(" .,;:") not in flat:
            missing.append(quoted)
    return tuple(missing)


def _subject(finding: FindingRecord) -> str:
    return finding.proposition or (finding.source_sentence or "")


def _carried(
    new: Sequence[FindingRecord], resolved: Sequence[FindingRecord], was: dict[str, str]
) -> tuple[list[FindingRecord], list[FindingRecord]]:
    """``new`` and ``resolved`` without the findings carried over from base to run."""
    left = list(resolved)
    fresh = []
    for finding in new:
        before = was.get(_subject(finding), _subject(finding))
        twin = next(
            (
                r
                for r in left
                if _subject(r) == before
                and (r.rule, r.kind, r.severity) == (finding.rule, finding.kind, finding.severity)
            ),
            None,
        )
        if twin is None:
            fresh.append(finding)
        else:
            left.remove(twin)
    return fresh, left


def _grouped(findings: Iterable[FindingRecord]) -> dict[str, list[FindingRecord]]:
    groups: dict[str, list[FindingRecord]] = {}
    for finding in findings:
        groups.setdefault(_subject(finding), []).append(finding)
    for group in groups.values():
        group.sort(key=lambda f: not f.is_error)  # the gravest first, stable otherwise
    return groups


def _line(
    category: str,
    group: list[FindingRecord],
    diff: CaseDiff,
    source: str,
    pair: PropositionPair | None,
) -> Change:
    first = group[0]
    judged = next((f for f in group if f.judge is not None), None)
    judge = "" if judged is None else judged.judge_text
    return Change(
        category=category,
        severity="error" if first.is_error else "warning",
        case_id=diff.case_id,
        label=diff.label,
        rules=tuple(dict.fromkeys(f.rule for f in group)),
        text=_subject(first),
        reason=first.reason,
        judge=judge,
        unverified=() if judged is None else unverified_quotes(judged.judge_reason, source),
        was=None if pair is None else pair.before,
        notes=() if pair is None else pair.notes,
    )


def _source(case: CaseResult | None) -> str:
    return "" if case is None else "\n".join(i.text for i in case.inputs)


def _similar(a: str, b: str) -> float:
    from rapidfuzz import fuzz

    return float(fuzz.token_set_ratio(a.casefold(), b.casefold()))


def _replacements(diff: CaseDiff, after: CaseResult) -> dict[str, str]:
    """Added propositions that took the place of a dropped one (after text -> base text):
    the dropped one's predecessor is aligned with the added one's predecessor (or both
    open the output). The word alignment misses these when the new text is too far from the
    old ("Hepatocytes." for "Hepatocytes store glucose as glycogen.")."""
    after_texts = propositions_of(after)
    kept = [p for p in diff.propositions if p.status != "added"]
    added = {p.after for p in diff.propositions if p.status == "added"}
    used: set[int] = set()
    position: list[int | None] = []
    for pair in kept:
        index = next(
            (j for j, t in enumerate(after_texts) if t == pair.after and j not in used), None
        )
        if index is not None:
            used.add(index)
        position.append(index)
    found: dict[str, str] = {}
    for i, pair in enumerate(kept):
        if pair.status != "dropped":
            continue
        anchor = -1 if i == 0 else position[i - 1]
        if anchor is None or anchor + 1 >= len(after_texts):
            continue
        candidate = after_texts[anchor + 1]
        if candidate in added and candidate not in found and anchor + 1 not in used:
            used.add(anchor + 1)
            position[i] = anchor + 1
            found[candidate] = pair.before or ""
    return found


def _fold_coverage(
    groups: dict[str, list[FindingRecord]], was: dict[str, str]
) -> dict[str, list[FindingRecord]]:
    """Coverage groups (an uncovered sentence) moved onto the proposition group whose fault
    left the sentence uncovered; the others kept as they are."""
    proposition_groups = {k: g for k, g in groups.items() if g[0].proposition}
    folded = dict(proposition_groups)
    for subject, group in groups.items():
        if subject in proposition_groups:
            continue
        owner = next(
            (
                key
                for key, findings in proposition_groups.items()
                if any(f.source_sentence == subject for f in findings)
                or (key in was and _similar(was[key], subject) >= SAME_SENTENCE)
            ),
            None,
        )
        if owner is None:
            folded[subject] = group
        else:
            folded[owner] = sorted([*folded[owner], *group], key=lambda f: not f.is_error)
    return folded


def _dropped_propositions(diff: CaseDiff, sentences: list[str], named: set[str]) -> list[Change]:
    """Lines for base propositions the run states nowhere, whose sentence has no line yet."""
    stated = [p.after for p in diff.propositions if p.after]
    lines = []
    for pair in diff.propositions:
        text = pair.before or ""
        if pair.status != "dropped" or text in named:
            continue
        if any(_similar(text, sentence) >= SAME_SENTENCE for sentence in sentences):
            continue  # its sentence is on a dropped-fact line already
        if any(_similar(text, other) >= STATED_WITHIN for other in stated):
            continue  # stated within another proposition (e.g. two facts merged)
        lines.append(
            Change(
                "dropped fact",
                "warning",
                diff.case_id,
                diff.label,
                (COVERAGE_RULE,),
                text,
                "stated in the base; no proposition of this run states it (the checks still "
                "count its sentence covered)",
            )
        )
    return lines


def _with_rewordings(changes: list[Change], diff: CaseDiff, named: set[str]) -> list[Change]:
    """``changes`` with each flagged rewording of ``diff.notable`` that no line names yet:
    folded onto the ``dropped fact`` line whose fact the rewording dropped (one line for
    both, its flags in the reason), else a ``flagged rewording`` line of its own."""
    changes = list(changes)
    for pair in diff.notable:
        if pair.after in named:
            continue
        dropped = next(
            (
                index
                for index, change in enumerate(changes)
                if change.category == "dropped fact"
                and (
                    change.was == pair.before
                    or _similar(pair.before or "", change.text) >= SAME_SENTENCE
                )
            ),
            None,
        )
        if dropped is not None:  # the rewording is what dropped the fact: one line for both
            line = changes[dropped]
            changes[dropped] = replace(
                line,
                rules=(*line.rules, REWORDING_RULE),
                text=pair.after or "",
                reason=f"{line.reason} (the sentence: {line.text}); {'; '.join(pair.notes)}",
                was=pair.before,
                notes=pair.notes,
            )
            continue
        changes.append(
            Change(
                "flagged rewording",
                "warning",
                diff.case_id,
                diff.label,
                (REWORDING_RULE,),
                pair.after or "",
                "; ".join(pair.notes),
                was=pair.before,
                notes=pair.notes,
            )
        )
    return changes


def case_changes(
    diff: CaseDiff, before: CaseResult, after: CaseResult
) -> tuple[list[Change], list[Change]]:
    """(changes, resolved) of one case from ``before`` (base) to ``after`` (see the module)."""
    source = _source(after) or _source(before)
    reworded = {p.after: p for p in diff.propositions if p.status == "reworded" and p.after}
    was = {after_text: p.before or "" for after_text, p in reworded.items()}
    new, gone = _carried(diff.new_findings, diff.resolved_findings, was)
    replaced = _replacements(diff, after)
    was.update(replaced)
    changes: list[Change] = []
    for subject, group in _fold_coverage(_grouped(new), was).items():
        coverage = group[0].rule == COVERAGE_RULE and not group[0].proposition
        category = (
            "dropped fact" if coverage else "new error" if group[0].is_error else "new warning"
        )
        line = _line(category, group, diff, source, reworded.get(subject))
        if subject in replaced:
            line = replace(line, was=replaced[subject])
        changes.append(line)
    named = {c.text for c in changes} | set(replaced.values())
    sentences = [c.text for c in changes if c.category == "dropped fact"]
    if propositions_of(after):  # a run with no output is one ``case`` line, not one per fact
        changes += _dropped_propositions(diff, sentences, named)
    changes = _with_rewordings(changes, diff, named)
    if after.outcome == "error" and before.outcome != "error":
        reason = f"{before.outcome} → error: {after.error or 'the case could not run'}"
        changes.append(
            Change("new error", "error", diff.case_id, diff.label, (CASE_RULE,), "", reason)
        )
    resolved = []
    for subject, group in _grouped(gone).items():
        if _went_with_a_dropped_fact(subject, group, diff, changes):
            changes = _listed_as_dropped(changes, subject, group, diff)
        else:
            resolved.append(_line(RESOLVED, group, diff, _source(before), None))
    return changes, resolved


def _went_with_a_dropped_fact(
    subject: str, group: list[FindingRecord], diff: CaseDiff, changes: list[Change]
) -> bool:
    """Whether base findings on the proposition ``subject`` are gone only because its fact
    went: the run states it nowhere (dropped, and not within another proposition), or its
    sentence is on a dropped-fact line. A proposition the source never stated (a
    ``no_invention`` finding on it) going is a real fix: resolved."""
    if not group[0].proposition or any(f.rule == NO_INVENTION for f in group):
        return False
    stated = [p.after for p in diff.propositions if p.after]
    dropped = any(p.status == "dropped" and p.before == subject for p in diff.propositions)
    if dropped and not any(_similar(subject, other) >= STATED_WITHIN for other in stated):
        return True
    sentences = {f.source_sentence for f in group if f.source_sentence}
    return any(c.category == "dropped fact" and c.text in sentences for c in changes)


def _listed_as_dropped(
    changes: list[Change], subject: str, group: list[FindingRecord], diff: CaseDiff
) -> list[Change]:
    """``changes`` with the base findings on ``subject`` named on its dropped-fact line (a
    new dropped-fact line when it has none): gone with the fact, never resolved."""
    rules = tuple(dict.fromkeys(f.rule for f in group))
    note = f"its base finding(s) ({', '.join(rules)}) went with it: dropped, not resolved"
    for index, change in enumerate(changes):
        if change.category == "dropped fact" and (
            change.text == subject or _similar(subject, change.text) >= SAME_SENTENCE
        ):
            changes[index] = replace(change, reason=f"{change.reason}; {note}")
            return changes
    line = Change(
        "dropped fact",
        "warning",
        diff.case_id,
        diff.label,
        (COVERAGE_RULE,),
        subject,
        f"stated in the base; no proposition of this run states it; {note}",
    )
    return [*changes, line]


def missing_case(case_id: str, label: str, where: str) -> Change:
    """The line of a case the run lacks (an error: nothing says it still passes)."""
    return Change(
        "new error", "error", case_id, label, (CASE_RULE,), "", f"case missing from {where}"
    )


def ordered(changes: Iterable[Change], case_ids: Sequence[str]) -> list[Change]:
    """Lines in display order: by category (``CATEGORIES``), then case, then as found."""
    rank = {case_id: n for n, case_id in enumerate(case_ids)}
    return sorted(
        changes,
        key=lambda c: (
            CATEGORIES.index(c.category) if c.category in CATEGORIES else len(CATEGORIES),
            rank.get(c.case_id, len(rank)),
        ),
    )
