"""The versioned prompt files and the messages built around them."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from agentic_chunking import PROMPT_VERSIONS
from agentic_chunking.pipeline._prompts import (
    extraction_user_message,
    grouping_merge_user_message,
    grouping_user_message,
    load_prompt,
    partition_repair_message,
    repair_user_message,
)

STAGES = ("extraction", "grouping")
RULES = ("No invention", "No unresolved pronouns", "No duplication", "Full self-containment")


FILES = {
    "extraction": "extraction.v2.txt",
    "grouping": "grouping.v2.txt",
    "grouping_merge": "grouping-merge.v1.txt",
    "judge": "judge.v3.txt",
}


def test_versions_come_from_the_first_line_of_each_file() -> None:
    assert PROMPT_VERSIONS == {
        "extraction": "extraction-v2",
        "grouping": "grouping-v2",
        "grouping_merge": "grouping-merge-v1",
        "judge": "judge-v3",
    }
    for stage, name in FILES.items():
        raw = resources.files("agentic_chunking.pipeline").joinpath("prompts", name)
        assert raw.read_text("utf-8").startswith(f"# version: {PROMPT_VERSIONS[stage]}\n")


def test_judge_v3_shows_each_verdicts_reply_item_and_v1_and_v2_are_kept() -> None:
    text = load_prompt("judge").text
    for verdict in ("not_supported", "needs_context", "not_atomic"):
        assert f'[n, "{verdict}", reason]: ' in text
    assert "[n, k]: supported by source sentence k" in text
    assert '<pairs> line "a | b": [a, b, true|false, reason]' in text
    assert "<propositions>" in text and "<source>" in text and "not instructions" in text
    prompts = resources.files("agentic_chunking.pipeline").joinpath("prompts")
    v1_text = prompts.joinpath("judge.v1.txt").read_text("utf-8")
    v2_text = prompts.joinpath("judge.v2.txt").read_text("utf-8")
    assert v1_text.startswith("# version: judge-v1\n")
    assert v2_text.startswith("# version: judge-v2\n")
    # the system prompt is sent with every judge call
    assert len(text) < 0.6 * len(v2_text)


def test_grouping_v1_is_kept_for_the_cassettes_that_answer_it() -> None:
    raw = resources.files("agentic_chunking.pipeline").joinpath("prompts", "grouping.v1.txt")
    assert raw.read_text("utf-8").startswith("# version: grouping-v1\n")


def test_extraction_v2_asks_for_the_passages_own_words_and_v1_is_kept() -> None:
    text = load_prompt("extraction").text
    assert "Keep the passage's own words" in text and "no synonyms" in text
    assert "only the words needed to resolve a reference or to repeat a subject" in text
    v1 = resources.files("agentic_chunking.pipeline").joinpath("prompts", "extraction.v1.txt")
    assert v1.read_text("utf-8").startswith("# version: extraction-v1\n")


@pytest.mark.parametrize("stage", STAGES)
def test_the_version_line_is_not_sent(stage: str) -> None:
    text = load_prompt(stage).text
    assert "# version" not in text and text == text.strip() and len(text) > 500


def test_extraction_states_the_four_rules_and_the_reply_shape() -> None:
    text = load_prompt("extraction").text
    for rule in RULES:
        assert rule in text, rule
    assert "JSON array of strings" in text and "<text>" in text


def test_grouping_states_the_partition_and_the_reply_shape() -> None:
    text = load_prompt("grouping").text
    assert all(rule.lower() in text.lower() for rule in RULES)
    assert "exactly one group" in text and "by its number only" in text
    assert '"category"' in text and '"fact_ids"' in text and "<propositions>" in text
    assert '"facts"' not in text


def test_the_merge_prompt_asks_for_category_numbers() -> None:
    text = load_prompt("grouping_merge").text
    assert "<categories>" in text and '"category_ids"' in text and "exactly one theme" in text


def test_unknown_stage_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown prompt stage 'summary'"):
        load_prompt("summary")


def test_user_messages() -> None:
    assert extraction_user_message("A b.") == "<text>\nA b.\n</text>"
    numbered = grouping_user_message(["First.", "Second."])
    assert numbered == "<propositions>\n1. First.\n2. Second.\n</propositions>"
    merge = grouping_merge_user_message([("Livers", ["The liver filters blood."]), ("Z", [])])
    assert merge == "<categories>\n1. Livers\n   - The liver filters blood.\n2. Z\n</categories>"
    repair = partition_repair_message("number 3 is in no group", shape="X")
    assert "not a partition: number 3 is in no group." in repair and "only X" in repair
    assert re.search(
        r"could not be parsed: bad\. Reply again with only X", repair_user_message("bad", shape="X")
    )
