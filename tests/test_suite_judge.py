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

from agentic_chunking._client import make_client
from agentic_chunking._errors import CassetteError, InputError
from agentic_chunking._prompts import load_prompt
from agentic_chunking.checks import NO_INVENTION
from agentic_chunking.judge import (
    SIMULATED_JUDGE_MODEL,
    read_judge_request,
    simulated_careful_judge,
)
from agentic_chunking.mutations import Mutation
from agentic_chunking.report import RunResults, render_report
from agentic_chunking.suite import ReferenceServer, load_case, load_replies, run_case
from agentic_chunking.suite._cassettes import vcr_config
from agentic_chunking.suite._judging import JUDGE_CHECK, suite_judge_model
from agentic_chunking.suite._mutation import kill_matrix
from agentic_chunking.testing import FakeMessagesServer, FakeReply, user_text

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


def _moved_number(groups: list[dict[str, Any]], source: str, **_: Any) -> Mutation:
    """Swap the first two different numbers of a proposition: every number is still in
    the source, so no lexical rule can see it; only the relation changed."""
    for group in groups:
        for fact in group["facts"]:
            numbers = list(dict.fromkeys(re.findall(r"\d[\d,.]*\d|\d", fact)))
            if len(numbers) >= 2:
                a, b = numbers[0], numbers[1]
                swap = {a: b, b: a}
                moved = re.sub(
                    rf"\b({re.escape(a)}|{re.escape(b)})\b",
                    lambda m, swap=swap: swap[m.group(0)],
                    fact,
                )
                mutated = [
                    {**g, "facts": [moved if f == fact else f for f in g["facts"]]} for g in groups
                ]
                return Mutation(
                    "moved_number", NO_INVENTION, mutated, f"{a} <-> {b}", replaced={fact: moved}
                )
    raise InputError("no proposition with two numbers")


NUMBER_CASES = ("TC-004", "TC-005", "TC-010", "TC-015", "TC-016", "TC-029")
"""Cases with a proposition holding two numbers (a few, to keep the suite fast)."""


@pytest.fixture(scope="module")
def matrices(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Any]]]:
    cases = tmp_path_factory.mktemp("number-cases")
    for case_id in NUMBER_CASES:
        shutil.copy(CASES / f"{case_id}.yaml", cases)
    operators = {"moved_number": _moved_number}
    yield {
        "alone": kill_matrix(cases_dir=cases, replies_dir=REPLIES, operators=operators),
        "judged": kill_matrix(
            cases_dir=cases,
            replies_dir=REPLIES,
            operators=operators,
            careful_judge=simulated_careful_judge,
        ),
    }


def test_a_relation_mutation_the_rules_miss_is_killed_by_the_careful_judge(
    matrices: dict[str, list[Any]],
) -> None:
    alone = [o for o in matrices["alone"] if o.applied]
    judged = [o for o in matrices["judged"] if o.applied]
    assert len(judged) >= 4
    assert all(o.killed for o in judged), [o for o in judged if not o.killed]
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
