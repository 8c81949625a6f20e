"""parse_propositions: the seed's tolerance, what models really send, and the strict twin."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic_chunking import ReplyParseError, parse_propositions, parse_propositions_strict

EXPECTED = ["Kubernetes is a container orchestration platform.", "Kubernetes is open source."]
ARRAY = json.dumps(EXPECTED)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(ARRAY, id="plain array"),
        pytest.param(f"```json\n{ARRAY}\n```", id="fence with language tag"),
        pytest.param(f"```\n{ARRAY}\n```", id="fence without language tag"),
        pytest.param(ARRAY.replace('"', '""'), id="doubled quotes (ODC escaping)"),
        pytest.param(json.dumps(ARRAY), id="outer-quoted reply (a JSON string holding the array)"),
        pytest.param(f"Here are the propositions:\n{ARRAY}", id="preamble"),
        pytest.param(f"{ARRAY}\n\nLet me know if you need more.", id="text after the array"),
        pytest.param(ARRAY[:-1] + ",]", id="trailing comma"),
        pytest.param(f"\u201c{ARRAY}\u201d", id="smart quotes around the reply"),
        pytest.param("\ufeff" + ARRAY, id="byte-order mark"),
        pytest.param(f"Sure!\n```json\n{ARRAY[:-1]},\n]\n```\nDone.", id="preamble, fence, comma"),
    ],
)
def test_tolerated_reply_shapes(raw: str) -> None:
    assert parse_propositions(raw) == EXPECTED
    assert parse_propositions_strict(raw) == EXPECTED


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (None, "empty"),
        ("", "empty"),
        ("   \n", "empty"),
        ("These are not JSON.", "no JSON array"),
        ('{"propositions": ["a."]}', "JSON object"),
        ('["Kubernetes is a container orches', "not closed"),
        ("42", "not a JSON array"),
    ],
)
def test_unreadable_replies_give_empty_list_and_a_reason(raw: str | None, reason: str) -> None:
    assert parse_propositions(raw) == []
    with pytest.raises(ReplyParseError, match=reason) as caught:
        parse_propositions_strict(raw)
    assert caught.value.raw == raw


@pytest.mark.parametrize("raw", ["[]", '["", "  "]', "```json\n[]\n```"])
def test_a_well_formed_empty_array_is_a_valid_empty_answer(raw: str) -> None:
    assert parse_propositions_strict(raw) == []
    assert parse_propositions(raw) == []


def test_blank_items_are_dropped_and_items_stripped() -> None:
    assert parse_propositions('["  A fact.  ", "", "   ", "B fact."]') == ["A fact.", "B fact."]


def test_object_items_with_a_text_field_are_read() -> None:
    raw = '[{"text": "A fact."}, {"proposition": "B fact."}, "C fact."]'
    assert parse_propositions(raw) == ["A fact.", "B fact.", "C fact."]


@pytest.mark.parametrize("item", ["42", "null", '["nested"]', '{"other": "x"}'])
def test_non_string_items_are_refused_by_position_not_dropped(item: str) -> None:
    raw = f'["A fact.", {item}]'
    with pytest.raises(ReplyParseError, match="item 2"):
        parse_propositions_strict(raw)
    assert parse_propositions(raw) == []


def test_a_cut_reply_is_never_completed() -> None:
    cut = '["First fact.", "Second fact.", "Third fa'
    assert parse_propositions(cut) == []


@given(st.lists(st.text(min_size=1).filter(str.strip), max_size=8))
def test_property_any_json_array_of_strings_round_trips(items: list[str]) -> None:
    expected = [i.strip() for i in items]
    assert parse_propositions(json.dumps(items)) == expected
    assert parse_propositions(f"```json\n{json.dumps(items, ensure_ascii=False)}\n```") == expected
