"""The judge in the suite: after the pipeline's calls, in the case's cassette, combined with
the checks; a stale judge reply, --no-judge, and the kill matrix with a careful judge.

Every live path runs against a FakeMessagesServer on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking._errors import CassetteError, InputError
from agentic_chunking._loopback import FakeMessagesServer, FakeReply, user_text
from agentic_chunking.checks import NO_INVENTION
from agentic_chunking.client import make_client
from agentic_chunking.judge import (
    SIMULATED_JUDGE_MODEL,
    read_judge_request,
    simulated_careful_judge,
)
from agentic_chunking.mutations import Mutation
from agentic_chunking.pipeline._prompts import load_prompt
from agentic_chunking.report import RunResults, render_report
from agentic_chunking.suite import ReferenceServer, load_case, load_replies, run_case
from agentic_chunking.suite._cassettes import vcr_config
from agentic_chunking.suite._judging import JUDGE_CHECK, suite_judge_model
from agentic_chunking.suite._mutation import kill_matrix

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"
REPLIES = CASES / "reference_replies"
JUDGE_PROMPT = load_prompt("judge").text


class _Judged:
    """The reference server, with the judge's replies overridden by ``judge``."""

    def __init__(self, case_id: str, judge: Any = None) -> None:
        case = load_case(CASES / f"{case_id}.yaml")
        self.case = case
        self.reference = ReferenceServer()
        self.reference.use(case, load_replies(case, REPLIES))
        self.judge = judge

    def __call__(self, body: Mapping[str, Any]) -> FakeReply | str:
        if body.get("system") == JUDGE_PROMPT and self.judge is not None:
            return self.judge(body)  # type: ignore[no-any-return]
        return self.reference(body)


def _run(case_id: str, judge: Any = None, judge_model: str | None = "loopback-judge") -> Any:
    handler = _Judged(case_id, judge)
    with (
        FakeMessagesServer(handler=handler) as server,
        make_client(api_key="k", base_url=server.base_url, max_retries=0) as client,
    ):
        result = run_case(handler.case, client=client, model="reference", judge_model=judge_model)
    assert not server.handler_errors
    return result, server


def _all_supported_but(number: int, verdict: str) -> Any:
    def answer(body: Mapping[str, Any]) -> str:
        asked = read_judge_request(user_text(body))
        items: list[dict[str, Any]] = [
            {
                "n": n,
                "verdict": verdict if n == number else "supported",
                "reason": "the source says 1397, not 1398" if n == number else "source: ok",
            }
            for n in asked.propositions
        ]
        items += [{"pair": list(p), "same_fact": False, "reason": "two"} for p in asked.pairs]
        return json.dumps(items)

    return answer


def test_the_judge_call_follows_the_pipeline_calls_and_its_tokens_stand_apart() -> None:
    result, server = _run("TC-005", _all_supported_but(0, "supported"))
    systems = [r.body["system"] for r in server.requests]
    assert systems[-1] == JUDGE_PROMPT
    assert JUDGE_PROMPT not in systems[:-1]
    assert server.requests[-1].body["model"] == "loopback-judge"
    assert result.outcome == "passed"
    assert result.judge_usage.calls == 1
    assert result.judge_usage.input_tokens > 0
    assert result.usage.calls == len(server.requests) - 1


def test_not_supported_on_a_clean_proposition_fails_the_case_naming_the_judge() -> None:
    result, _ = _run("TC-005", _all_supported_but(1, "not_supported"))
    assert result.outcome == "failed"
    (finding,) = result.checks[NO_INVENTION].errors
    assert finding.kind == "judge_not_supported"
    assert finding.judge == "raised"
    assert "1397, not 1398" in finding.reason
    again = RunResults.from_dict(json.loads(json.dumps(RunResults("m", cases=(result,)).to_dict())))
    assert again.cases[0].checks[NO_INVENTION].errors[0].judge == "raised"
    page = render_report(
        [RunResults("m", cases=(result,), judge_model="loopback-judge")], plots=False
    )
    assert "[raised by judge]" in page
    assert "<code>loopback-judge</code>: not calibrated" in page


def test_a_judge_that_gives_no_usable_reply_leaves_the_verdict_to_the_checks() -> None:
    result, _ = _run("TC-005", lambda body: "no verdicts today")
    assert result.outcome == "passed"
    check = result.checks[JUDGE_CHECK]
    assert check.passed is None
    assert check.warnings and "could not be parsed" in check.warnings[0].reason
    assert result.judge_usage.calls == 2  # the call and its one repair turn


def test_without_a_judge_model_no_judge_call_is_made() -> None:
    result, server = _run("TC-005", judge_model=None)
    assert all(r.body["system"] != JUDGE_PROMPT for r in server.requests)
    assert result.judge_usage.calls == 0
    assert result.outcome == "passed"


def test_a_changed_judge_model_makes_the_reference_cassette_stale(tmp_path: Path) -> None:
    import vcr

    case = load_case(CASES / "TC-005.yaml")
    cassette = tmp_path / "TC-005.yaml"
    shutil.copy(REPO / "cassettes" / "reference" / "TC-005.yaml", cassette)
    recorder = vcr.VCR(record_mode="none", **vcr_config())
    with (
        make_client(api_key="k", base_url="http://127.0.0.1:9", max_retries=0) as client,
        recorder.use_cassette(str(cassette)),
    ):
        passed = run_case(
            case, client=client, model="reference", cassette=cassette, judge_model="reference"
        )
        assert passed.outcome == "passed"
        assert passed.judge_usage.calls == 1
    with (
        make_client(api_key="k", base_url="http://127.0.0.1:9", max_retries=0) as client,
        recorder.use_cassette(str(cassette)),
        pytest.raises(CassetteError, match=r"stale.*judge model.*rebuild-reference"),
    ):
        run_case(case, client=client, model="reference", cassette=cassette, judge_model="other")


def test_the_reference_set_is_judged_by_the_reference_judge_unless_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTIC_CHUNKING_JUDGE_MODEL", "env-judge")
    assert suite_judge_model(None, model="reference") == "reference"
    assert suite_judge_model("chosen", model="reference") == "chosen"
    assert suite_judge_model(None, model="claude-x") == "env-judge"


# -- the kill matrix with a careful judge ----------------------------------------------


def _replace_one(
    groups: list[dict[str, Any]], name: str, change: Any, description: str
) -> Mutation:
    """The first proposition ``change`` alters (it returns None to pass) becomes a
    no_invention mutation: a relation changed, every word still in the source."""
    for group in groups:
        for fact in group["facts"]:
            changed = change(fact, groups)
            if changed and changed != fact:
                mutated = [
                    {**g, "facts": [changed if f == fact else f for f in g["facts"]]}
                    for g in groups
                ]
                return Mutation(name, NO_INVENTION, mutated, description, replaced={fact: changed})
    raise InputError(f"{name}: nothing to mutate")


_NAME = re.compile(r"[A-Z][\w']*(?:(?: (?:de'|d'|da|di|von|van))? [A-Z][\w']*)+")
_THAN = re.compile(r"^(?P<a>.+?) (?P<verb>is|are) (?P<cmp>more \w+|\w+er) than (?P<b>.+?)\.$")


def _moved_number(groups: list[dict[str, Any]], source: str, **_: Any) -> Mutation:
    """Swap the first two different numbers of a proposition."""

    def change(fact: str, _groups: Any) -> str | None:
        numbers = list(dict.fromkeys(re.findall(r"\d[\d,.]*\d|\d", fact)))
        if len(numbers) < 2:
            return None
        swap = {numbers[0]: numbers[1], numbers[1]: numbers[0]}
        pattern = rf"\b({re.escape(numbers[0])}|{re.escape(numbers[1])})\b"
        return re.sub(pattern, lambda m: swap[m.group(0)], fact)

    return _replace_one(groups, "moved_number", change, "two numbers swapped")


def _swapped_person(groups: list[dict[str, Any]], source: str, **_: Any) -> Mutation:
    """Give a proposition the subject (a name) of another proposition of the case."""
    starts = (_NAME.match(f) for g in groups for f in g["facts"])
    names = list(
        dict.fromkeys(
            m.group(0) for m in starts if m and not m.group(0).startswith(("The ", "In ", "A "))
        )
    )

    def change(fact: str, _groups: Any) -> str | None:
        mine = _NAME.match(fact)
        if mine is None or mine.group(0) not in names:
            return None
        other = next((n for n in names if n not in fact and mine.group(0) not in n), None)
        return None if other is None else other + fact[mine.end() :]

    return _replace_one(groups, "swapped_person", change, "a subject swapped")


def _dropped_modality(groups: list[dict[str, Any]], source: str, **_: Any) -> Mutation:
    """Drop "usually", "often" or "typically": a hedge becomes a rule."""

    def change(fact: str, _groups: Any) -> str | None:
        return re.sub(r"\b(usually|often|typically) ", "", fact, count=1)

    return _replace_one(groups, "dropped_modality", change, "a hedge dropped")


def _swapped_term(groups: list[dict[str, Any]], source: str, **_: Any) -> Mutation:
    """Swap the two sides of a comparison ("A is cheaper than B" -> "B is cheaper than A")."""

    def change(fact: str, _groups: Any) -> str | None:
        m = _THAN.match(fact)
        if m is None:
            return None
        first, second = m["b"], m["a"]
        compared = f"{m['verb']} {m['cmp']} than {second[0].lower()}{second[1:]}"
        return f"{first[0].upper()}{first[1:]} {compared}."

    return _replace_one(groups, "swapped_term", change, "a comparison reversed")


RELATION_OPERATORS = {
    "moved_number": _moved_number,
    "swapped_person": _swapped_person,
    "dropped_modality": _dropped_modality,
    "swapped_term": _swapped_term,
}
RELATION_CASES = ("TC-002", "TC-004", "TC-005", "TC-011", "TC-015", "TC-032")
"""A few cases where each relation operator applies (to keep the suite fast)."""


@pytest.fixture(scope="module")
def matrices(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Any]]]:
    cases = tmp_path_factory.mktemp("relation-cases")
    for case_id in RELATION_CASES:
        shutil.copy(CASES / f"{case_id}.yaml", cases)
    yield {
        "alone": kill_matrix(cases_dir=cases, replies_dir=REPLIES, operators=RELATION_OPERATORS),
        "judged": kill_matrix(
            cases_dir=cases,
            replies_dir=REPLIES,
            operators=RELATION_OPERATORS,
            careful_judge=simulated_careful_judge,
        ),
    }


def test_relation_mutations_the_rules_miss_are_killed_by_the_careful_judge(
    matrices: dict[str, list[Any]],
) -> None:
    judged = [o for o in matrices["judged"] if o.applied]
    assert {o.operator for o in judged} == set(RELATION_OPERATORS)
    assert all(o.killed for o in judged), [o for o in judged if not o.killed]
    alone = [o for o in matrices["alone"] if o.applied]
    assert sum(o.killed for o in alone) < len(alone)  # the rules alone let some through


def test_the_simulated_judge_says_so() -> None:
    assert SIMULATED_JUDGE_MODEL == "simulated-careful-judge"


def test_a_judge_section_that_lacks_a_proposition_stops_the_rebuild_plainly(
    tmp_path: Path,
) -> None:
    from agentic_chunking._errors import CaseError
    from agentic_chunking.suite import rebuild_reference_cassettes

    cases, replies = tmp_path / "cases", tmp_path / "replies"
    cases.mkdir()
    replies.mkdir()
    shutil.copy(CASES / "TC-005.yaml", cases)
    text = (REPLIES / "TC-005.yaml").read_text()
    dropped = "  - proposition: The Medici Bank became the banker of the papacy.\n"
    assert dropped in text
    (replies / "TC-005.yaml").write_text(text.replace(dropped, "  - proposition: Gone.\n", 1))
    with pytest.raises(
        CaseError,
        match=r"TC-005.yaml: the judge section does not answer.*"
        r"draft_judge_replies.py --case TC-005",
    ):
        rebuild_reference_cassettes(
            cases_dir=cases, replies_dir=replies, cassette_root=tmp_path / "cassettes"
        )


def test_the_draft_script_replaces_only_the_judge_section() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "draft_judge_replies", REPO / "scripts" / "draft_judge_replies.py"
    )
    assert spec is not None and spec.loader is not None
    draft = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(draft)
    text = (REPLIES / "TC-005.yaml").read_text()
    section = draft.HEADER + "judge:\n  propositions: []\n"
    head = text.split(draft.MARKER)[0]
    assert draft.with_judge_section(text + "later: 1\n", section) == head + section + "later: 1\n"
    assert draft.with_judge_section("case: X\n", section) == "case: X\n" + section
    # run over an unchanged file, the section it writes is the one there (reviewed kept)
    assert draft.with_judge_section(text, text[len(head) :]) == text
