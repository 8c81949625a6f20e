"""The shipped reference cassettes are exactly what rebuild-reference makes of the replies."""

from __future__ import annotations

import json
from pathlib import Path

from agentic_chunking.suite import REFERENCE_MODEL, rebuild_reference_cassettes

REPO = Path(__file__).resolve().parent.parent


def test_reference_cassettes_are_up_to_date_with_the_reply_files(tmp_path: Path) -> None:
    written = rebuild_reference_cassettes(
        cases_dir=REPO / "cases",
        replies_dir=REPO / "cases" / "reference_replies",
        cassette_root=tmp_path,
    )
    assert len(written) == 32
    stale = [
        path.name
        for path in written
        if path.read_text() != (REPO / "cassettes" / REFERENCE_MODEL / path.name).read_text()
    ]
    assert stale == [], (
        f"{stale} differ from a fresh rebuild: run `python -m agentic_chunking.suite "
        "rebuild-reference` and commit cassettes/reference/"
    )


def test_hand_written_fact_texts_are_served_as_numbers_of_the_numbered_list() -> None:
    from agentic_chunking.pipeline._prompts import grouping_user_message
    from agentic_chunking.suite._replies import GroupEntry, ReferenceReplies, numbered_list

    listed = ["B fact.", "A  fact.", "C fact."]
    assert numbered_list(grouping_user_message(listed)) == listed
    replies = ReferenceReplies(
        case="TC-999",
        grouping=(
            GroupEntry(category="One", facts=("A fact.", "C fact.")),
            GroupEntry(category="Two", facts=("B fact.",)),
            GroupEntry(category="Odd", facts=("B fact.", "Not listed.")),
        ),
    )
    served = json.loads(replies.grouping_text(listed) or "")
    assert served == [
        {"category": "One", "fact_ids": [2, 3]},
        {"category": "Two", "fact_ids": [1]},
        {"category": "Odd", "facts": ["B fact.", "Not listed."]},
    ]


def test_the_reference_cassettes_answer_grouping_v2_with_numbers() -> None:
    import yaml

    path = Path(__file__).parent.parent / "cassettes/reference/TC-025.yaml"
    interactions = yaml.safe_load(path.read_text("utf-8"))["interactions"]
    # extraction first, then grouping, then the reference judge's call
    grouping = next(i for i in interactions if "fact_ids" in i["request"]["body"])
    reply = json.loads(json.loads(grouping["response"]["body"]["string"])["content"][0]["text"])
    assert reply == [
        {"category": "Glacier Formation and Movement", "fact_ids": [1, 2, 3, 4]},
        {"category": "Glacial Meltwater and Rivers", "fact_ids": [5]},
    ]


def _load_script(name: str) -> object:
    import importlib.util
    import sys

    sys.path.insert(0, str(REPO / "scripts"))
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_judge_v2_reference_replies_decide_what_the_judge_v1_ones_did() -> None:
    """Every case's reference judge, served in judge-v2 form and read by the v2 reader, gives
    the verdicts and pair decisions the judge-v1 reply files gave (snapshot taken before the
    conversion), and each supported verdict cites sentences of its own source."""
    from agentic_chunking._loopback import FakeMessagesServer
    from agentic_chunking.client import make_client
    from agentic_chunking.judge import number_propositions
    from agentic_chunking.suite import ReferenceServer, load_cases, load_replies
    from agentic_chunking.suite._judging import judge_case
    from agentic_chunking.suite._runner import run_pipeline

    before = json.loads((REPO / "tests/fixtures/reference_judge_decisions.json").read_text())
    reference = ReferenceServer()
    judged: dict[str, tuple[dict[str, str], dict[frozenset[str], bool]]] = {}
    with FakeMessagesServer(handler=reference) as server:
        client = make_client(api_key="k", base_url=server.base_url, max_retries=0)
        for case in load_cases(REPO / "cases"):
            reference.use(case, load_replies(case, REPO / "cases" / "reference_replies"))
            response = run_pipeline(case, client=client, model=REFERENCE_MODEL)
            judgement = judge_case(case, response, client=client, judge_model=REFERENCE_MODEL)
            if judgement is None:
                continue
            assert judgement.error is None, (case.id, judgement.error)
            texts = {
                p.number: p.text
                for p in number_propositions(c.propositions for c in response.chunks)
            }
            source = " ".join(" ".join(i.text.split()) for i in case.agentic_inputs())
            for verdict in judgement.propositions:
                if verdict.verdict == "supported":
                    assert verdict.sentences, (case.id, verdict)
                    assert all(q in source for q in verdict.reason.split('"')[1::2])
            judged[case.id] = (
                {" ".join(texts[v.number].split()): v.verdict for v in judgement.propositions},
                {
                    frozenset(
                        (" ".join(texts[p.first].split()), " ".join(texts[p.second].split()))
                    ): p.same_fact
                    for p in judgement.pairs
                },
            )
    assert not server.handler_errors
    assert sorted(judged) == sorted(before)
    for case_id, (verdicts, pairs) in judged.items():
        old = before[case_id]
        assert verdicts == {t: old["verdicts"][t] for t in verdicts}, case_id
        assert pairs == {frozenset((a, b)): same for a, b, same in old["pairs"]}, case_id
    assert sum(len(v) for v, _ in judged.values()) == 419


def test_the_conversion_maps_quotes_to_sentence_numbers_and_has_nothing_left_to_do() -> None:
    from agentic_chunking._models import AgenticChunkInput
    from agentic_chunking.judge import number_sentences

    convert = _load_script("convert_judge_replies_v2")
    sentences = number_sentences(
        [
            AgenticChunkInput("A", "The liver is the largest organ. It weighs 1.5 kilograms."),
            AgenticChunkInput("B", "Hepatocytes make up about 80 percent of its volume."),
        ]
    )
    entry = {
        "proposition": "The liver weighs 1.5 kilograms.",
        "verdict": "supported",
        "reason": 'source: "The liver is the largest organ." ... "It weighs 1.5 kilo..."',
    }
    assert convert.convert_entry(entry, sentences, "x") == {  # type: ignore[attr-defined]
        "proposition": "The liver weighs 1.5 kilograms.",
        "verdict": "supported",
        "sentences": [1, 2],
    }
    assert convert.sentence_of("make up about 80 percent", sentences) == (3, False)  # type: ignore[attr-defined]
    kept = {"proposition": "p", "verdict": "not_atomic", "reason": 'lists "two facts"'}
    assert convert.convert_entry(kept, sentences, "x") is kept  # type: ignore[attr-defined]
    # the shipped reply files are converted: a second run would change nothing
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "convert_judge_replies_v2.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 file(s) to convert" in done.stdout


def test_a_reference_verdict_cites_sentences_when_supported_and_reasons_otherwise() -> None:
    import pydantic
    import pytest

    from agentic_chunking.suite._judge_replies import JudgedProposition

    JudgedProposition(proposition="p", verdict="supported", sentences=(2,))
    JudgedProposition(proposition="p", verdict="not_atomic", reason="two facts")
    for wrong in (
        {"verdict": "supported", "reason": 'source: "p"'},
        {"verdict": "supported", "sentences": (1,), "reason": "r"},
        {"verdict": "supported", "sentences": (0,)},
        {"verdict": "not_supported", "sentences": (1,)},
        {"verdict": "needs_context"},
    ):
        with pytest.raises(pydantic.ValidationError):
            JudgedProposition(proposition="p", **wrong)


def test_the_reference_judge_refuses_to_cite_a_sentence_the_request_does_not_show() -> None:
    from agentic_chunking._models import AgenticChunk, AgenticChunkInput, AgenticResponse
    from agentic_chunking.judge import plan_judge_requests
    from agentic_chunking.suite._judge_replies import JudgeReplies, answer_judge_request

    inputs = [AgenticChunkInput("A", "Alpha is one."), AgenticChunkInput("B", "Beta is two.")]
    chunk = AgenticChunk.from_propositions(
        document_id="D",
        seq=1,
        thematic_category="T",
        propositions=["Beta is two."],
        source_chunk_ids=["B"],
    )
    (request,) = plan_judge_requests(inputs, AgenticResponse(chunks=(chunk,)))
    cites = {"propositions": [{"proposition": "Beta is two.", "verdict": "supported"}]}
    right = JudgeReplies.model_validate(
        {**cites, "propositions": [{**cites["propositions"][0], "sentences": [2]}]}
    )
    wrong = JudgeReplies.model_validate(
        {**cites, "propositions": [{**cites["propositions"][0], "sentences": [1]}]}
    )
    served = answer_judge_request(right, request.message, model="reference")
    assert not isinstance(served, str) and json.loads(served.text) == [[1, 2]]
    refused = answer_judge_request(wrong, request.message, model="reference")
    assert isinstance(refused, str) and "cites source sentence(s) [1]" in refused
