"""The rule registry of ``checks/_rules.py``: what it holds, and that a rule added to it
alone flows through assess, the judge's combination, the calibration, the report's records
and the case files, none of which is touched."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentic_chunking import AgenticChunk, AgenticResponse
from agentic_chunking._errors import CaseError
from agentic_chunking.checks import (
    COVERAGE,
    NO_DUPLICATION,
    NO_INVENTION,
    NO_UNRESOLVED_PRONOUNS,
    SELF_CONTAINED,
    SUBSTANCE_RULES,
    WARNING,
    Finding,
    Rule,
    RuleInput,
    _rules,
    rule_ids,
    rule_of,
    rules,
)
from agentic_chunking.judge import NEEDS_SOURCE, assess
from agentic_chunking.judge._calibration import FLAGGING, flagging, set_name
from agentic_chunking.judge._verdicts import VERDICTS, Judgement, PropositionVerdict
from agentic_chunking.mutations import Mutation
from agentic_chunking.report import CheckResult
from agentic_chunking.report._records import check_order
from agentic_chunking.report._render import check_title
from agentic_chunking.report._results import CaseResult
from agentic_chunking.suite._cases import load_case
from agentic_chunking.suite._mutation import kill_matrix, minimal_edit_outcomes

SOURCE = "The bridge opened in 1932. The bridge is 503 metres long."
CASES_DIR = Path(__file__).resolve().parent.parent / "cases"


def response(*propositions: str) -> AgenticResponse:
    chunk = AgenticChunk.from_propositions(
        document_id="D", seq=1, thematic_category="Bridge", propositions=list(propositions)
    )
    return AgenticResponse(chunks=(chunk,))


def test_the_registry_holds_the_four_rules_in_display_order() -> None:
    assert rule_ids() == SUBSTANCE_RULES == tuple(r.id for r in rules())
    assert SUBSTANCE_RULES == (NO_INVENTION, NO_UNRESOLVED_PRONOUNS, NO_DUPLICATION, SELF_CONTAINED)
    assert [r.title for r in rules()] == [
        "No invention",
        "No unresolved pronouns",
        "No duplication",
        "Self-contained",
    ]
    assert NEEDS_SOURCE == (NO_INVENTION, COVERAGE)
    assert rule_of("partition") is None
    for rule in rules():
        assert rule_of(rule.id) is rule
        assert rule.flagged_by <= set(VERDICTS), rule.id  # the judge's words, spelt right
        assert rule.reads in ("propositions", "chunks")


@pytest.mark.parametrize(
    ("rule_id", "bad", "good"),
    [
        (NO_INVENTION, ["The bridge opened in 1990."], ["The bridge opened in 1932."]),
        (NO_UNRESOLVED_PRONOUNS, ["It opened in 1932."], ["The bridge opened in 1932."]),
        (
            NO_DUPLICATION,
            ["The bridge opened in 1932.", "The bridge opened in 1932."],
            ["The bridge opened in 1932.", "The bridge is 503 metres long."],
        ),
        (SELF_CONTAINED, ["The bridge opened in 1932 and the"], ["The bridge opened in 1932."]),
    ],
)
def test_each_record_runs_its_own_rule(rule_id: str, bad: list[str], good: list[str]) -> None:
    rule = rule_of(rule_id)
    assert rule is not None
    found = rule.run(RuleInput([bad], SOURCE))
    assert found and {f.rule for f in found} == {rule_id}
    assert any(f.is_error for f in found)
    assert not [f for f in rule.run(RuleInput([good], SOURCE)) if f.is_error]


def test_the_calibration_reads_the_sets_spelling_of_the_pronoun_rule() -> None:
    assert set_name(NO_UNRESOLVED_PRONOUNS) == "no_unresolved_pronoun"
    assert set_name(NO_INVENTION) == NO_INVENTION
    assert {
        "no_invention": frozenset({"not_supported"}),
        "no_unresolved_pronoun": frozenset({"needs_context"}),
        "no_duplication": frozenset(),
        "self_contained": frozenset({"not_atomic", "needs_context"}),
    } == FLAGGING


# A rule the project does not have: a proposition in capital letters where the source
# writes none. It needs the source, so that the "not run" path is shown too.
SHOUTING = "no_shouting"


def _find_shouting(given: RuleInput) -> list[Finding]:
    source = given.source or ""
    return [
        Finding(p, SHOUTING, "written in capitals", severity=WARNING, kind="shouting")
        for p in given.propositions
        if p.isupper() and p not in source
    ]


FAKE = Rule(
    SHOUTING,
    "No shouting",
    needs_source=True,
    reads="propositions",
    flagged_by=frozenset({"not_atomic"}),
    run=_find_shouting,
)


@pytest.fixture
def with_fake_rule(monkeypatch: pytest.MonkeyPatch) -> Rule:
    monkeypatch.setattr(_rules, "RULES", (*_rules.RULES, FAKE))
    return FAKE


def test_without_registering_it_no_layer_knows_the_fake_rule(tmp_path: Path) -> None:
    assert SHOUTING not in assess(response("THE BRIDGE OPENED."), source=SOURCE).checks
    assert SHOUTING not in flagging()
    with pytest.raises(CaseError, match=r"checks\.0: Input should be 'no_invention'"):
        load_case(_case_file(tmp_path, checks=[SHOUTING]))


def test_a_registered_rule_runs_in_assess_and_the_judge_confirms_it(with_fake_rule: Rule) -> None:
    shouted = response("THE BRIDGE OPENED IN 1932.", "The bridge is 503 metres long.")
    checks = assess(shouted, source=SOURCE).checks
    assert list(checks)[: len(SUBSTANCE_RULES) + 1] == [*SUBSTANCE_RULES, SHOUTING]
    found = checks[SHOUTING]
    assert found.applies and found.passed is True  # a warning alone never fails
    assert [(f.proposition, f.kind, f.severity) for f in found.findings] == [
        ("THE BRIDGE OPENED IN 1932.", "shouting", "warning")
    ]
    # needs_source: without the input it is "not run", never passed
    assert assess(shouted, source=None).checks[SHOUTING].passed is None
    # not asked for: it does not apply
    assert assess(shouted, source=SOURCE, rules=[NO_INVENTION]).checks[SHOUTING].applies is False
    # a verdict of its flagged_by confirms its warning into an error
    judgement = Judgement(
        "judge-model",
        propositions=(
            PropositionVerdict(1, "not_atomic", "shouted"),
            PropositionVerdict(2, "supported", "stated"),
        ),
    )
    confirmed = assess(shouted, source=SOURCE, judgement=judgement).checks[SHOUTING]
    assert confirmed.passed is False
    assert [(f.severity, f.judge) for f in confirmed.findings] == [("error", "confirmed")]
    assert flagging()[SHOUTING] == frozenset({"not_atomic"})


def test_a_registered_rule_is_ordered_and_titled_in_the_report(with_fake_rule: Rule) -> None:
    assert check_order()[: len(SUBSTANCE_RULES) + 1] == (*SUBSTANCE_RULES, SHOUTING)
    assert check_title(SHOUTING) == "No shouting"
    assert check_title("mixed_domains") == "Domains kept apart"
    checks = {
        "zeta": CheckResult(),
        "mixed_domains": CheckResult(),
        SHOUTING: CheckResult(),
        NO_INVENTION: CheckResult(),
    }
    case = CaseResult(id="TC-001", checks=checks)
    assert [n for n, _ in case.ordered_checks()] == [
        NO_INVENTION,
        SHOUTING,
        "mixed_domains",
        "zeta",
    ]
    assert CaseResult.from_dict(case.to_dict()).checks.keys() == checks.keys()


def test_a_registered_rule_is_one_a_case_may_ask_for(with_fake_rule: Rule, tmp_path: Path) -> None:
    case = load_case(_case_file(tmp_path, checks=[SHOUTING]))
    assert case.applicable_rules == (SHOUTING,)
    every = load_case(_case_file(tmp_path, checks=None))
    assert every.applicable_rules == (*SUBSTANCE_RULES, SHOUTING)
    with pytest.raises(CaseError, match=r"or 'no_shouting'"):
        load_case(_case_file(tmp_path, checks=["no_magic"]))


def _case_file(directory: Path, *, checks: list[str] | None) -> Path:
    data: dict[str, object] = {
        "id": "TC-001",
        "name": "a bridge",
        "category": "edge",
        "description": "one chunk",
        "document_id": "D",
        "inputs": [{"chunk_id": "a", "text": SOURCE}],
        "expect": {},
    }
    if checks is not None:
        data["checks"] = checks
    path = directory / "TC-001.yaml"
    path.write_text(yaml.safe_dump(data), "utf-8")
    return path


# The mutation path: an operator that breaks an output for the fake rule, judged by the
# kill matrix and in its minimal-edit form through the registry alone.
LOUD = dataclasses.replace(
    FAKE,
    run=lambda given: [dataclasses.replace(f, severity="error") for f in _find_shouting(given)],
)
"""The fake rule with errors instead of warnings: a mutation it catches is killed."""


def _shout(groups: list[dict[str, Any]], source: str, **_: object) -> Mutation:
    """A mutation operator of the fake rule: the first fact written in capitals."""
    first = groups[0]["facts"][0]
    shouted = copy.deepcopy(groups)
    shouted[0]["facts"][0] = first.upper()
    return Mutation(
        "shout", SHOUTING, shouted, "the first fact in capitals", replaced={first: first.upper()}
    )


def _one_case(directory: Path) -> Path:
    (directory / "TC-001.yaml").symlink_to(CASES_DIR / "TC-001.yaml")
    return directory


def test_a_registered_rule_judges_its_mutations_in_minimal_edit_form(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cases = _one_case(tmp_path)
    with pytest.raises(ValueError, match="no minimal-edit form for rule no_shouting"):
        minimal_edit_outcomes(cases_dir=cases, operators={"shout": _shout})
    monkeypatch.setattr(_rules, "RULES", (*_rules.RULES, LOUD))
    (outcome,) = minimal_edit_outcomes(cases_dir=cases, operators={"shout": _shout})
    assert (outcome.case_id, outcome.operator, outcome.rule) == ("TC-001", "shout", SHOUTING)
    assert outcome.killed
    monkeypatch.setattr(_rules, "RULES", (*_rules.RULES[:-1], FAKE))  # warnings kill nothing
    (outcome,) = minimal_edit_outcomes(cases_dir=cases, operators={"shout": _shout})
    assert not outcome.killed


def test_a_registered_rule_kills_its_mutations_in_the_kill_matrix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cases = _one_case(tmp_path)
    replies = CASES_DIR / "reference_replies"
    monkeypatch.setattr(_rules, "RULES", (*_rules.RULES, FAKE))
    (warned,) = kill_matrix(cases_dir=cases, replies_dir=replies, operators={"shout": _shout})
    assert (warned.applied, warned.rule, warned.killed, warned.warned) == (
        True,
        SHOUTING,
        False,
        True,
    )
    monkeypatch.setattr(_rules, "RULES", (*_rules.RULES[:-1], LOUD))
    (killed,) = kill_matrix(cases_dir=cases, replies_dir=replies, operators={"shout": _shout})
    assert killed.killed and SHOUTING in killed.fired
