"""normalise_agentic_output: the seed's contract, failures, skipped entries, fact_ids."""

from __future__ import annotations

import hashlib
import json

import pytest

from agentic_chunking import (
    UNKNOWN_DOCUMENT_ID,
    AgenticResponse,
    normalise_agentic_output,
    parse_grouping,
)

GROUPS = [
    {
        "category": "Cloud Infrastructure",
        "facts": [
            "Kubernetes is a container orchestration platform.",
            "Kubernetes automates deployment of containerised applications.",
        ],
    },
    {"category": "Battery Chemistry", "facts": ["Lithium-ion batteries store energy."]},
]
RAW = json.dumps(GROUPS)


def test_chunks_follow_the_seed_contract() -> None:
    response = normalise_agentic_output(RAW, "DOC-001")
    assert response.is_success and response.error_detail == ""
    first, second = response.chunks
    assert [first.chunk_id, second.chunk_id] == ["DOC-001-0001", "DOC-001-0002"]
    assert first.document_id == "DOC-001"
    assert first.thematic_category == "Cloud Infrastructure"
    merged = " ".join(GROUPS[0]["facts"])
    assert first.merged_content == merged
    assert first.proposition_count == 2
    assert first.character_count == len(merged)
    assert first.token_estimate == len(merged) // 4
    assert first.hash == "sha256-" + hashlib.sha256(merged.encode("utf-8")).hexdigest()


def test_totals_are_sums_over_chunks() -> None:
    response = normalise_agentic_output(RAW, "DOC-001")
    assert response.total_chunks == 2
    assert response.total_propositions == 3
    assert response.total_token_estimate == sum(c.token_estimate for c in response.chunks)


def test_chunk_id_sequence_is_zero_padded_to_four() -> None:
    groups = [{"category": f"T{i}", "facts": [f"Fact {i}."]} for i in range(12)]
    ids = [c.chunk_id for c in normalise_agentic_output(json.dumps(groups), "D").chunks]
    assert ids[0] == "D-0001" and ids[11] == "D-0012"


@pytest.mark.parametrize("document_id", ["", None, "   "])
def test_empty_document_id_becomes_doc_unknown(document_id: str | None) -> None:
    response = normalise_agentic_output(RAW, document_id)
    assert {c.document_id for c in response.chunks} == {UNKNOWN_DOCUMENT_ID}
    assert response.chunks[0].chunk_id == "DOC-UNKNOWN-0001"


@pytest.mark.parametrize("raw", [None, "", "not json at all", "[]", '{"category": "x"}', "[1, 2]"])
def test_unusable_reply_fails_with_a_reason_and_no_chunks(raw: str | None) -> None:
    response = normalise_agentic_output(raw, "DOC-001")
    assert response.is_success is False
    assert response.error_detail.startswith("the grouping reply could not be parsed: ")
    assert response.chunks == ()
    assert response.total_chunks == 0


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"facts": ["A fact."]}, "no category"),
        ({"category": "  ", "facts": ["A fact."]}, "no category"),
        ({"category": "Lonely"}, "has no facts"),
        ({"category": "Empty", "facts": []}, "has no facts"),
        ({"category": "Blank", "facts": ["  "]}, "has no facts"),
    ],
)
def test_bad_entries_are_skipped_with_a_warning_and_the_rest_kept(
    entry: dict[str, object], reason: str
) -> None:
    response = normalise_agentic_output(json.dumps([entry, *GROUPS]), "DOC-001")
    assert response.is_success
    assert [c.thematic_category for c in response.chunks] == [
        "Cloud Infrastructure",
        "Battery Chemistry",
    ]
    assert response.chunks[0].chunk_id == "DOC-001-0001"
    assert len(response.warnings) == 1
    warning = response.warnings[0]
    assert warning.kind == "skipped_entry" and warning.data["entry"] == 1
    assert "entry 1 skipped" in warning.message and reason in warning.data["reason"]


def test_fenced_and_preambled_grouping_reply_is_read() -> None:
    response = normalise_agentic_output(f"Here you go:\n```json\n{RAW}\n```", "DOC-001")
    assert response.is_success and response.total_chunks == 2


def test_fact_ids_resolve_against_the_numbered_list() -> None:
    propositions = ["A fact.", "B fact.", "C fact."]
    raw = json.dumps(
        [{"category": "X", "fact_ids": [1, 3]}, {"category": "Y", "facts": ["B fact."]}]
    )
    response = normalise_agentic_output(raw, "D", propositions=propositions)
    assert [c.propositions for c in response.chunks] == [("A fact.", "C fact."), ("B fact.",)]


@pytest.mark.parametrize(
    ("fact_ids", "propositions", "reason"),
    [
        ([1, 4], ["a.", "b."], "outside 1..2"),
        ([0], ["a."], "outside 1..1"),
        (["1"], ["a."], "not a list of whole numbers"),
        ([1], None, "no numbered proposition list"),
    ],
)
def test_bad_fact_ids_are_reported(
    fact_ids: list[object], propositions: list[str] | None, reason: str
) -> None:
    raw = json.dumps([{"category": "X", "fact_ids": fact_ids}])
    response = normalise_agentic_output(raw, "D", propositions=propositions)
    assert not response.is_success
    assert reason in response.error_detail


def test_parse_grouping_reports_skips() -> None:
    reply = parse_grouping(json.dumps([{"category": "A", "facts": ["x."]}, "junk"]))
    assert [g.category for g in reply.groups] == ["A"]
    assert reply.skipped == ('entry 2 skipped: "junk" is not an object with category and facts',)


def test_response_dict_uses_the_seed_names_and_round_trips() -> None:
    response = normalise_agentic_output(RAW, "DOC-001")
    data = response.to_dict()
    assert list(data)[:6] == [
        "Chunks",
        "TotalChunks",
        "TotalPropositions",
        "TotalTokenEstimate",
        "IsSuccess",
        "ErrorDetail",
    ]
    assert list(data["Chunks"][0])[:9] == [
        "ChunkId",
        "DocumentId",
        "ThematicCategory",
        "Propositions",
        "MergedContent",
        "PropositionCount",
        "CharacterCount",
        "TokenEstimate",
        "Hash",
    ]
    assert AgenticResponse.from_dict(json.loads(json.dumps(data))) == response


def test_numbered_grouping_keeps_numbers_as_given_and_maps_texts() -> None:
    from agentic_chunking import ReplyParseError
    from agentic_chunking.pipeline._normalise import NumberedGroup, parse_numbered_grouping

    listed = ["First fact.", "Second  fact.", "Third fact."]
    raw = (
        '[{"category": "A", "fact_ids": [3, 9, 3]}, {"category": "B", "facts": '
        '["Second fact.", "New fact."]}, {"category": "C", "fact_ids": ["1"]}, {"fact_ids": [1]}]'
    )
    reply = parse_numbered_grouping(raw, propositions=listed)
    assert reply.groups == (
        NumberedGroup("A", (3, 9, 3)),
        NumberedGroup("B", (2,), ("New fact.",)),
    )
    assert reply.skipped == (
        "entry 3 skipped: fact_ids of 'C' is not a non-empty list of whole numbers",
        "entry 4 skipped: no category",
    )
    merged = parse_numbered_grouping(
        '[{"category": "T", "category_ids": [2, 1]}]', propositions=["x", "y"], key="category_ids"
    )
    assert merged.groups == (NumberedGroup("T", (2, 1)),)
    with pytest.raises(ReplyParseError, match="no entry of the grouping reply is usable"):
        parse_numbered_grouping('[{"category": "A"}]', propositions=listed)
