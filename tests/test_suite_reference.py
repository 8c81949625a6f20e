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
