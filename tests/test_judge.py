"""The judge: its request, its reply reader, its calls (on a loopback server) and how its
verdicts combine with the deterministic findings."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentic_chunking.judge as judge_api
from agentic_chunking import DEFAULT_JUDGE_MODEL
from agentic_chunking._errors import ConfigurationError, InputError, ReplyParseError
from agentic_chunking._loopback import FakeMessagesServer, FakeReply, user_text
from agentic_chunking._models import AgenticChunk, AgenticChunkInput, AgenticResponse
from agentic_chunking.checks import (
    NO_DUPLICATION,
    NO_INVENTION,
    NO_UNRESOLVED_PRONOUNS,
    SELF_CONTAINED,
    WARNING,
    Finding,
)
from agentic_chunking.client import make_client
from agentic_chunking.judge import (
    MAX_CALLS,
    Judgement,
    PairVerdict,
    PropositionVerdict,
    candidate_pairs,
    cited_reason,
    combine,
    number_propositions,
    number_sentences,
    plan_judge_requests,
    read_judge_reply,
    read_judge_request,
    resolve_judge_model,
    run_judge,
)
from agentic_chunking.pipeline._prompts import load_prompt
from agentic_chunking.report import CheckResult, FindingRecord
from agentic_chunking.report._records import JUDGE_STATUSES as RECORD_JUDGE_STATUSES

SOURCE = (
    "The Medici Bank opened branches in Rome and Venice. Pruning is not needed after frost "
    "damage but may be needed where drainage is poor."
)
SENTENCES = [
    "The Medici Bank opened branches in Rome and Venice.",
    "Pruning is not needed after frost damage but may be needed where drainage is poor.",
]
PROPOSITIONS = [
    "The Medici Bank opened a branch in Rome.",
    "The Medici Bank opened a branch in Venice.",
    "Frost damage is a sign of poor drainage.",
]


def _response(*chunks: list[str], sources: tuple[str, ...] = ("C1",)) -> AgenticResponse:
    return AgenticResponse(
        chunks=tuple(
            AgenticChunk.from_propositions(
                document_id="D",
                seq=i,
                thematic_category=f"theme {i}",
                propositions=chunk,
                source_chunk_ids=sources,
            )
            for i, chunk in enumerate(chunks, start=1)
        )
    )


def _verdicts(*verdicts: str, pairs: tuple[tuple[int, int, bool], ...] = ()) -> str:
    items: list[dict[str, object]] = [
        {"n": n, "verdict": v, "reason": f"source: reason {n}"}
        for n, v in enumerate(verdicts, start=1)
    ]
    items += [{"pair": [a, b], "same_fact": s, "reason": "pair reason"} for a, b, s in pairs]
    return json.dumps(items)


def test_public_names_are_sorted_and_exist() -> None:
    def isort_key(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert judge_api.__all__ == sorted(judge_api.__all__, key=isort_key)
    assert all(hasattr(judge_api, name) for name in judge_api.__all__)
    assert RECORD_JUDGE_STATUSES == judge_api.JUDGE_STATUSES


# -- the reply reader -------------------------------------------------------------------


def test_a_whole_reply_reads_in_the_order_asked() -> None:
    raw = _verdicts("supported", "not_supported", pairs=((1, 2, False),))
    verdicts, pairs = read_judge_reply(f"```json\n{raw}\n```", numbers=[1, 2], pairs=[(1, 2)])
    assert [v.verdict for v in verdicts] == ["supported", "not_supported"]
    assert pairs == [PairVerdict(1, 2, False, "pair reason")]


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("I think they are all fine.", "no JSON array"),
        ('{"n": 1}', "JSON object"),
        ('[{"n": 1, "verdict": "supported", "reason": "ok"', "not closed"),
        (_verdicts("supported"), "skips proposition(s) [2]"),
        (_verdicts("supported", "supported", "supported"), "proposition 3, which was not asked"),
        (
            json.dumps([{"n": 1, "verdict": "supported", "reason": "a"}] * 2),
            "proposition 1 is judged twice",
        ),
        (_verdicts("supported", "plausible"), "verdict 'plausible'"),
        (json.dumps([{"n": 1, "verdict": "supported"}]), "no one-line reason"),
        (json.dumps([{"n": True, "verdict": "supported", "reason": "a"}]), "no proposition number"),
        (json.dumps(["supported"]), "expected [n, sentence], [n, verdict, reason] or [a, b,"),
    ],
)
def test_a_reply_that_is_not_whole_is_refused_with_the_reason(raw: str, reason: str) -> None:
    with pytest.raises(ReplyParseError, match=re.escape(reason)):
        read_judge_reply(raw, numbers=[1, 2], pairs=[])


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        ([1, 2, True], "item 3 has no one-line reason"),
        ([1, 2, True, ""], "item 3 has no one-line reason"),
        ([1, 2, True, "r", "more"], "a pair is [a, b, true|false, reason]"),
        ([1, 3, False, "r"], "pair [1, 3], which was not asked"),
        (["1", 2, False, "r"], "expected two proposition numbers"),
    ],
)
def test_a_pair_as_an_array_is_read_as_strictly_as_the_object(item: object, reason: str) -> None:
    raw = json.dumps([[1, 1], [2, 1], item])
    with pytest.raises(ReplyParseError, match=re.escape(reason)):
        read_judge_reply(raw, numbers=[1, 2], pairs=[(1, 2)], sentences={1: SENTENCES[0]})


@pytest.mark.parametrize(
    ("pairs", "reason"),
    [
        ((), "skips pair(s) [[1, 2]]"),
        (((1, 2, False), (2, 1, True)), "answered twice"),
        (((1, 3, False),), "pair [1, 3], which was not asked"),
    ],
)
def test_pairs_must_be_answered_exactly_once(
    pairs: tuple[tuple[int, int, bool], ...], reason: str
) -> None:
    raw = _verdicts("supported", "supported", pairs=pairs)
    with pytest.raises(ReplyParseError, match=re.escape(reason)):
        read_judge_reply(raw, numbers=[1, 2], pairs=[(1, 2)])


SHOWN = {1: SENTENCES[0], 2: SENTENCES[1]}
COMPACT = json.dumps(
    [
        [1, 1],
        [2, 1, 2],
        [3, "not_supported", "the source ties drainage to pruning"],
        [1, 2, False, "Rome vs Venice"],
    ]
)
V2_OBJECTS = json.dumps(
    [
        [1, 1],
        [2, 1, 2],
        {"n": 3, "verdict": "not_supported", "reason": "the source ties drainage to pruning"},
        {"pair": [1, 2], "same_fact": False, "reason": "Rome vs Venice"},
    ]
)


def test_a_judge_v2_reply_with_objects_reads_as_its_judge_v3_arrays() -> None:
    def read(raw: str) -> object:
        return read_judge_reply(raw, numbers=[1, 2, 3], pairs=[(1, 2)], sentences=SHOWN)

    assert read(V2_OBJECTS) == read(COMPACT)


def test_a_compact_reply_cites_sentences_for_supported_and_reasons_the_rest() -> None:
    verdicts, pairs = read_judge_reply(COMPACT, numbers=[1, 2, 3], pairs=[(1, 2)], sentences=SHOWN)
    assert verdicts[0] == PropositionVerdict(
        1, "supported", f'source sentence 1: "{SENTENCES[0]}"', (1,)
    )
    assert verdicts[1].sentences == (1, 2)
    assert verdicts[1].reason == cited_reason(SHOWN)
    assert verdicts[1].reason == f'source sentences 1, 2: "{SENTENCES[0]}" ... "{SENTENCES[1]}"'
    assert (verdicts[2].verdict, verdicts[2].sentences) == ("not_supported", ())
    assert verdicts[2].reason == "the source ties drainage to pruning"
    assert pairs == [PairVerdict(1, 2, False, "Rome vs Venice")]
    # what a reference server sends for these verdicts is the same compact reply
    items = [v.to_reply_item() for v in verdicts] + [p.to_reply_item() for p in pairs]
    assert json.dumps(items) == COMPACT


@pytest.mark.parametrize(
    ("items", "reason"),
    [
        ([[1, 1], [2, 9]], "cites source sentence(s) [9], which the <source> of the request"),
        ([[1, 1], [2]], "a supported verdict is [proposition number, source sentence number"),
        ([[1, 1], [2, "1"]], "expected [n, k] (supported by source sentence k) or [n, verdict,"),
        ([[1, 1], [True, 1]], "a supported verdict is [proposition number"),
        ([[1, 1]], "skips proposition(s) [2]"),
        ([[1, 1], [1, 2]], "proposition 1 is judged twice"),
        ([[1, 1], {"n": 1, "verdict": "not_atomic", "reason": "r"}], "judged twice"),
        ([[1, 1], [3, 1]], "proposition 3, which was not asked"),
        ([[1, 1], [2, "not_atomic"]], "expected [n, k] (supported by source sentence k) or"),
        ([[1, 1], [2, "not_atomic", " "]], "item 2 has no one-line reason"),
        ([[1, 1], [2, "plausible", "r"]], "verdict 'plausible'"),
        ([[1, 1], [2, "not_atomic", "r", "more"]], "or [n, verdict, reason]"),
        ([[1, 1], ["2", "not_atomic", "r"]], "no proposition number 'n'"),
        ([[1, 1], [2, "not_atomic", "r"], [2, 1]], "proposition 2 is judged twice"),
    ],
)
def test_a_compact_reply_must_still_judge_every_proposition_once_citing_shown_sentences(
    items: list[object], reason: str
) -> None:
    with pytest.raises(ReplyParseError, match=re.escape(reason)):
        read_judge_reply(json.dumps(items), numbers=[1, 2], pairs=[], sentences=SHOWN)


def test_without_numbered_sentences_no_citation_is_readable() -> None:
    with pytest.raises(ReplyParseError, match=r"cites source sentence\(s\) \[1\]"):
        read_judge_reply("[[1, 1]]", numbers=[1], pairs=[])


# -- the request -------------------------------------------------------------------------


def test_possible_duplicates_are_the_pairs_a_lexical_rule_cannot_settle() -> None:
    numbered = number_propositions([PROPOSITIONS])
    assert candidate_pairs(numbered) == [(1, 2)]
    same = number_propositions([["Rome has a bank.", "A bank is in Rome.", "Cats purr."]])
    assert candidate_pairs(same) == [(1, 2)]


def test_one_case_is_one_call_with_its_source_propositions_and_pairs() -> None:
    inputs = [AgenticChunkInput("C1", SOURCE), AgenticChunkInput("C2", "   ")]
    (request,) = plan_judge_requests(inputs, _response(PROPOSITIONS))
    assert request.numbers == (1, 2, 3)
    assert request.pairs == ((1, 2),)
    # no tag or id around a chunk; the empty chunk C2 adds no line
    assert request.message.startswith(f"<source>\n[1] {SENTENCES[0]}\n[2] {SENTENCES[1]}\n</")
    assert "<chunk" not in request.message and "C1" not in request.message
    read = read_judge_request(request.message)
    assert read.propositions == dict(enumerate(PROPOSITIONS, start=1))
    assert read.pairs == ((1, 2),)
    assert read.sentences == request.sentence_texts == {1: SENTENCES[0], 2: SENTENCES[1]}


def test_source_sentences_keep_their_case_number_in_every_request() -> None:
    inputs = [
        AgenticChunkInput("A", "Alpha is first. It has\n  two sentences."),
        AgenticChunkInput("B", "Beta is second."),
    ]
    assert [(s.number, s.chunk_id, s.text) for s in number_sentences(inputs)] == [
        (1, "A", "Alpha is first."),
        (2, "A", "It has two sentences."),  # whitespace collapsed: one line per sentence
        (3, "B", "Beta is second."),
    ]
    (request,) = plan_judge_requests(inputs, _response(["Beta is a letter."], sources=("B",)))
    assert request.message.startswith("<source>\n[3] Beta is second.\n</source>")
    assert request.sentence_texts == {3: "Beta is second."}


def test_a_blank_line_ends_each_input_chunk_and_the_sentences_read_back() -> None:
    inputs = [
        AgenticChunkInput("A", "Alpha is first. It has two sentences."),
        AgenticChunkInput("B", "Beta is second."),
    ]
    response = _response(["Alpha is a letter.", "Beta is a letter."], sources=("A", "B"))
    (request,) = plan_judge_requests(inputs, response)
    assert request.message.startswith(
        "<source>\n[1] Alpha is first.\n[2] It has two sentences.\n\n[3] Beta is second.\n"
        "</source>\n<propositions>\n1. Alpha is a letter.\n2. Beta is a letter.\n</propositions>"
    )
    assert read_judge_request(request.message).sentences == request.sentence_texts


@settings(deadline=None, max_examples=25)
@given(st.integers(min_value=1, max_value=160), st.integers(min_value=1, max_value=60))
def test_every_proposition_is_judged_once_in_at_most_three_calls(n: int, per_call: int) -> None:
    chunks = [
        [f"Fact number {i} is about topic {i}." for i in range(start, min(n, start + 7))]
        for start in range(0, n, 7)
    ]
    requests = plan_judge_requests(
        [AgenticChunkInput("C1", "x")], _response(*chunks), max_per_call=per_call
    )
    numbers = [number for r in requests for number in r.numbers]
    assert sorted(numbers) == list(range(1, n + 1))
    assert len(requests) == min(MAX_CALLS, -(-n // per_call))
    assert all(r.of == len(requests) for r in requests)


def test_a_large_case_is_split_and_a_pair_across_calls_shows_its_other_member() -> None:
    texts = [f"Widget {i} weighs {i} kilograms." for i in range(1, 80)]
    texts.append("Widget 3 weighs 3 kilograms in total.")  # a copy of proposition 3
    requests = plan_judge_requests([AgenticChunkInput("C1", "x")], _response(texts))
    assert len(requests) == 2
    last = read_judge_request(requests[1].message)
    assert (3, 80) in requests[1].pairs
    assert last.others[3] == "Widget 3 weighs 3 kilograms."
    assert not set(last.others) & set(last.propositions)  # a text is in a request once
    assert requests[1].message.count("Widget 3 weighs 3 kilograms.") == 1
    assert all(3 not in r.numbers for r in requests[1:])


def test_provenance_limits_each_call_to_the_chunks_its_propositions_came_from() -> None:
    inputs = [AgenticChunkInput("A", "Alpha text."), AgenticChunkInput("B", "Beta text.")]
    response = _response(["Alpha is a letter."], sources=("A",))
    (request,) = plan_judge_requests(inputs, response)
    assert "Alpha text." in request.message
    assert "Beta text." not in request.message


def test_the_judge_model_comes_from_the_option_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AGENTIC_CHUNKING_JUDGE_MODEL", raising=False)
    assert resolve_judge_model(None) == DEFAULT_JUDGE_MODEL
    monkeypatch.setenv("AGENTIC_CHUNKING_JUDGE_MODEL", "env-judge")
    assert resolve_judge_model(None) == "env-judge"
    assert resolve_judge_model(" opt-judge ") == "opt-judge"


# -- the calls, on a loopback server -------------------------------------------------------


def _judge(
    replies: list[FakeReply | str], model: str = "loopback-judge"
) -> tuple[Judgement, FakeMessagesServer]:
    with (
        FakeMessagesServer(replies) as server,
        make_client(api_key="k", base_url=server.base_url, max_retries=0) as client,
    ):
        judgement = run_judge(
            [AgenticChunkInput("C1", SOURCE)], _response(PROPOSITIONS), client=client, model=model
        )
    return judgement, server


def test_one_call_at_temperature_zero_with_the_judge_prompt() -> None:
    reply = _verdicts("supported", "supported", "not_supported", pairs=((1, 2, False),))
    judgement, server = _judge([reply])
    assert judgement.error is None
    assert [v.verdict for v in judgement.propositions] == [
        "supported",
        "supported",
        "not_supported",
    ]
    (request,) = server.requests
    assert request.body["temperature"] == 0
    assert request.body["model"] == "loopback-judge"
    assert request.body["system"] == load_prompt("judge").text
    assert "3. Frost damage is a sign of poor drainage." in user_text(request.body)
    assert judgement.calls[0].stage == "judge"
    assert judgement.input_tokens > 0


def test_a_malformed_reply_gets_one_repair_turn() -> None:
    good = _verdicts("supported", "supported", "supported", pairs=((1, 2, False),))
    judgement, server = _judge(["Sure! All three look fine to me.", good])
    assert judgement.error is None
    assert len(judgement.calls) == 2
    assert "could not be parsed: no JSON array" in user_text(server.requests[1].body)


def test_a_reply_still_malformed_after_the_repair_is_an_error_not_a_verdict() -> None:
    judgement, _ = _judge(["not json", "still not json"])
    assert judgement.error is not None
    assert "could not be parsed" in judgement.error
    assert "after 1 repair attempt" in judgement.error
    assert judgement.propositions == ()


def test_a_skipped_proposition_number_is_asked_for_again() -> None:
    skipped = _verdicts("supported", "supported", pairs=((1, 2, False),))
    judgement, server = _judge([skipped, skipped])
    assert judgement.error is not None
    assert "skips proposition(s) [3]" in user_text(server.requests[1].body)


def test_a_repeated_proposition_number_is_refused() -> None:
    repeated = json.loads(_verdicts("supported", "supported", "supported", pairs=((1, 2, False),)))
    repeated.insert(1, repeated[0])
    judgement, _ = _judge([json.dumps(repeated)] * 2)
    assert judgement.error is not None
    assert "proposition 1 is judged twice" in judgement.error


def test_a_reply_cut_at_max_tokens_fails_cleanly_without_a_repair() -> None:
    cut = FakeReply(text='[{"n": 1, "verdict": "supp', stop_reason="max_tokens")
    judgement, server = _judge([cut])
    assert len(server.requests) == 1
    assert judgement.error is not None
    assert "judge call 1 of 1 stopped at max_tokens (4000)" in judgement.error
    assert "max_tokens_per_batch" not in judgement.error


def test_a_compact_reply_over_the_wire_cites_the_numbered_sentences() -> None:
    judgement, server = _judge([COMPACT])
    assert judgement.error is None
    assert [(v.verdict, v.sentences) for v in judgement.propositions] == [
        ("supported", (1,)),
        ("supported", (1, 2)),
        ("not_supported", ()),
    ]
    assert f"[2] {SENTENCES[1]}" in user_text(server.requests[0].body)


def test_a_citation_of_a_sentence_the_source_lacks_gets_one_repair_turn() -> None:
    wrong = COMPACT.replace("[2, 1, 2]", "[2, 7]")
    judgement, server = _judge([wrong, wrong])
    assert judgement.error is not None and judgement.propositions == ()
    assert "cites source sentence(s) [7]" in user_text(server.requests[1].body)


def test_a_cleared_warning_shows_the_cited_sentence_and_only_reasons_can_be_unverified() -> None:
    from agentic_chunking.report._changes import unverified_quotes

    verdicts, pairs = read_judge_reply(
        COMPACT.replace("the source ties drainage to pruning", 'the source says \\"frost kills\\"'),
        numbers=[1, 2, 3],
        pairs=[(1, 2)],
        sentences=SHOWN,
    )
    judgement = Judgement("j", tuple(verdicts), tuple(pairs))
    out = combine(
        {NO_INVENTION: [_finding(1, severity=WARNING)]}, judgement, NUMBERED, rules=ALL_RULES
    )
    cleared, raised = out[NO_INVENTION]
    record = FindingRecord.of(cleared)
    assert record.judge == "cleared"
    assert record.judge_reason == f'source sentence 1: "{SENTENCES[0]}"'
    assert SENTENCES[0] in record.judge_text
    assert unverified_quotes(record.judge_reason, SOURCE) == ()  # the source's own sentence
    assert unverified_quotes(FindingRecord.of(raised).judge_reason, SOURCE) == ("frost kills",)


def test_an_unknown_judge_model_stops_with_a_message_naming_judge_model() -> None:
    missing = FakeReply(status=404, text="model: judge-x", error_type="not_found_error")
    with pytest.raises(ConfigurationError, match=r"judge-x.*--judge-model"):
        _judge([missing], model="judge-x")


# -- combination with the deterministic tier --------------------------------------------

NUMBERED = number_propositions([PROPOSITIONS])
ALL_RULES = (NO_INVENTION, NO_UNRESOLVED_PRONOUNS, NO_DUPLICATION, SELF_CONTAINED)


def _judgement(*verdicts: str, pairs: tuple[tuple[int, int, bool], ...] = ()) -> Judgement:
    return Judgement(
        "j",
        tuple(PropositionVerdict(n, v, f"why {n}") for n, v in enumerate(verdicts, 1)),  # type: ignore[arg-type]
        tuple(PairVerdict(a, b, s, "pair why") for a, b, s in pairs),
    )


def _finding(number: int, rule: str = NO_INVENTION, severity: str = "error") -> Finding:
    return Finding(PROPOSITIONS[number - 1], rule, "det reason", severity=severity)  # type: ignore[arg-type]


def test_a_deterministic_error_stays_an_error_when_the_judge_disagrees() -> None:
    out = combine(
        {NO_INVENTION: [_finding(1)]},
        _judgement("supported", "supported", "supported"),
        NUMBERED,
        rules=ALL_RULES,
    )
    (finding,) = out[NO_INVENTION]
    assert finding.is_error
    assert (finding.judge, finding.judge_reason) == ("disagrees", "why 1")  # type: ignore[attr-defined]
    record = CheckResult.from_findings(out[NO_INVENTION])
    assert record.passed is False
    assert record.findings[0].judge == "disagrees"


def test_a_warning_the_judge_confirms_becomes_an_error_naming_the_judge_reason() -> None:
    out = combine(
        {NO_INVENTION: [_finding(3, severity=WARNING)]},
        _judgement("supported", "supported", "not_supported"),
        NUMBERED,
        rules=ALL_RULES,
    )
    (finding,) = out[NO_INVENTION]
    assert finding.is_error
    assert "the judge confirms: why 3" in finding.reason
    assert finding.judge == "confirmed"  # type: ignore[attr-defined]


def test_a_warning_the_judge_clears_stays_a_visible_warning() -> None:
    out = combine(
        {NO_INVENTION: [_finding(3, severity=WARNING)]},
        _judgement("supported", "supported", "supported"),
        NUMBERED,
        rules=ALL_RULES,
    )
    (finding,) = out[NO_INVENTION]
    assert not finding.is_error
    assert finding.judge == "cleared"  # type: ignore[attr-defined]
    assert CheckResult.from_findings(out[NO_INVENTION]).passed is True


def test_a_verdict_on_another_rule_neither_confirms_nor_clears() -> None:
    warning = _finding(3, severity=WARNING)
    out = combine(
        {NO_INVENTION: [warning]},
        _judgement("supported", "supported", "not_atomic"),
        NUMBERED,
        rules=(NO_INVENTION,),
    )
    assert out[NO_INVENTION] == [warning]


@pytest.mark.parametrize(
    ("verdict", "rule", "kind", "is_error"),
    [
        ("not_supported", NO_INVENTION, "judge_not_supported", True),
        ("needs_context", NO_UNRESOLVED_PRONOUNS, "judge_needs_context", True),
        ("not_atomic", SELF_CONTAINED, "judge_not_atomic", False),
    ],
)
def test_the_judge_alone_raises_what_no_rule_saw(
    verdict: str, rule: str, kind: str, is_error: bool
) -> None:
    out = combine({}, _judgement("supported", "supported", verdict), NUMBERED, rules=ALL_RULES)
    (finding,) = out[rule]
    assert (finding.proposition, finding.kind, finding.is_error) == (
        PROPOSITIONS[2],
        kind,
        is_error,
    )
    assert finding.judge == "raised"  # type: ignore[attr-defined]
    assert "why 3" in finding.reason
    assert combine({}, _judgement("supported", "supported", verdict), NUMBERED, rules=()) == {}


def test_a_pair_the_judge_calls_one_fact_is_a_warning_and_confirms_a_duplicate() -> None:
    judged = _judgement("supported", "supported", "supported", pairs=((1, 2, True),))
    raised = combine({}, judged, NUMBERED, rules=ALL_RULES)[NO_DUPLICATION]
    assert [(f.proposition, f.severity, f.kind) for f in raised] == [
        (PROPOSITIONS[1], "warning", "judge_same_fact")
    ]
    flagged = Finding(PROPOSITIONS[1], NO_DUPLICATION, "rewords", chunk_index=0, severity=WARNING)
    (confirmed,) = combine({NO_DUPLICATION: [flagged]}, judged, NUMBERED, rules=ALL_RULES)[
        NO_DUPLICATION
    ]
    assert confirmed.is_error
    assert confirmed.judge == "confirmed"  # type: ignore[attr-defined]
    not_same = _judgement("supported", "supported", "supported", pairs=((1, 2, False),))
    (cleared,) = combine({NO_DUPLICATION: [flagged]}, not_same, NUMBERED, rules=ALL_RULES)[
        NO_DUPLICATION
    ]
    assert (cleared.is_error, cleared.judge) == (False, "cleared")  # type: ignore[attr-defined]


def test_a_finding_record_keeps_the_judge_and_reads_old_files() -> None:
    cleared = FindingRecord(
        "p", NO_INVENTION, "r", severity="warning", judge="cleared", judge_reason='source: "p"'
    )
    assert cleared.judge_text == 'cleared by judge: source: "p"'
    assert FindingRecord.from_dict(cleared.to_dict()) == cleared
    old = {"proposition": "p", "rule": NO_INVENTION, "reason": "r"}
    assert FindingRecord.from_dict(old).judge is None
    assert "judge" not in FindingRecord.from_dict(old).to_dict()
    with pytest.raises(InputError, match="judge 'maybe' is not one of"):
        FindingRecord.from_dict({**old, "judge": "maybe"})
