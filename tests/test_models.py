"""The output contract's records: derived fields, dict names, tamper detection."""

from __future__ import annotations

import json

import pytest

import agentic_chunking
from agentic_chunking import AgenticChunk, AgenticChunkInput, AgenticResponse, InputError


def _chunk() -> AgenticChunk:
    return AgenticChunk.from_propositions(
        document_id="DOC-001",
        seq=3,
        thematic_category="Battery Chemistry",
        propositions=["Lithium is light.", "Cobalt is costly."],
        source_chunk_ids=["C1"],
    )


def test_merged_content_is_joined_by_one_space() -> None:
    assert _chunk().merged_content == "Lithium is light. Cobalt is costly."
    assert _chunk().chunk_id == "DOC-001-0003"


def test_chunk_dict_round_trip() -> None:
    chunk = _chunk()
    assert AgenticChunk.from_dict(chunk.to_dict()) == chunk
    assert chunk.to_dict()["SourceChunkIds"] == ["C1"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("MergedContent", "edited"),
        ("PropositionCount", 5),
        ("Hash", "sha256-00"),
        ("TokenEstimate", 1),
    ],
)
def test_a_stored_figure_that_disagrees_is_refused(field: str, value: object) -> None:
    data = _chunk().to_dict()
    data[field] = value
    with pytest.raises(InputError, match=field):
        AgenticChunk.from_dict(data)


def test_missing_field_is_named() -> None:
    data = _chunk().to_dict()
    del data["ThematicCategory"]
    with pytest.raises(InputError, match="ThematicCategory"):
        AgenticChunk.from_dict(data)


def test_failure_needs_a_reason() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        AgenticResponse.failure("")
    failed = AgenticResponse.failure("the reply was cut")
    assert failed.to_dict()["IsSuccess"] is False and failed.chunks == ()


@pytest.mark.parametrize(
    "data",
    [{"chunk_id": "C1", "text": "x"}, {"ChunkId": "C1", "Text": "x"}],
)
def test_input_accepts_both_naming_styles(data: dict[str, str]) -> None:
    assert AgenticChunkInput.from_dict(data) == AgenticChunkInput("C1", "x")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"text": "x"}, "no chunk_id"),
        ({"chunk_id": "C1"}, "no text"),
        ({"chunk_id": " ", "text": "x"}, "no chunk_id"),
    ],
)
def test_input_errors_name_the_field(data: dict[str, str], message: str) -> None:
    with pytest.raises(InputError, match=message):
        AgenticChunkInput.from_dict(data)


def test_public_api_is_sorted_and_importable() -> None:
    names = agentic_chunking.__all__
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(agentic_chunking, name), name


def test_warnings_are_records_serialised_with_their_message_and_read_back() -> None:
    from agentic_chunking import PipelineWarning

    record = PipelineWarning(
        "empty_input", "input chunk C2 is empty: it gives no batch", {"chunk_id": "C2"}
    )
    response = AgenticResponse(warnings=(record,))
    data = response.to_dict()
    assert data["Warnings"] == [
        {
            "Kind": "empty_input",
            "Message": "input chunk C2 is empty: it gives no batch",
            "Data": {"chunk_id": "C2"},
        }
    ]
    assert AgenticResponse.from_dict(json.loads(json.dumps(data))).warnings == (record,)
    assert str(record) == record.message


def test_an_old_file_whose_warnings_are_lines_is_still_read() -> None:
    old = {
        "Chunks": [],
        "IsSuccess": True,
        "Warnings": [
            "input chunk C2 is empty: it gives no batch",
            "duplicate merged before grouping (reworded): 'A.' from chunk C3 kept once as 'A!'",
            "something else",
        ],
    }
    warnings = AgenticResponse.from_dict(old).warnings
    assert [w.kind for w in warnings] == ["empty_input", "duplicate_merged", "other"]
    assert [w.message for w in warnings] == old["Warnings"]
