"""The versioned prompt files and the messages built around them."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from agentic_chunking import PROMPT_VERSIONS
from agentic_chunking._prompts import (
    extraction_user_message,
    grouping_user_message,
    load_prompt,
    repair_user_message,
)

STAGES = ("extraction", "grouping")
RULES = ("No invention", "No unresolved pronouns", "No duplication", "Full self-containment")


def test_versions_come_from_the_first_line_of_each_file() -> None:
    assert PROMPT_VERSIONS == {"extraction": "extraction-v2", "grouping": "grouping-v1"}
    for stage in STAGES:
        number = PROMPT_VERSIONS[stage].rsplit("-v", 1)[1]
        raw = resources.files("agentic_chunking").joinpath("prompts", f"{stage}.v{number}.txt")
        assert raw.read_text("utf-8").startswith(f"# version: {PROMPT_VERSIONS[stage]}\n")


def test_extraction_v2_asks_for_the_passages_own_words_and_v1_is_kept() -> None:
    text = load_prompt("extraction").text
    assert "Keep the passage's own words" in text and "no synonyms" in text
    assert "only the words needed to resolve a reference or to repeat a subject" in text
    v1 = resources.files("agentic_chunking").joinpath("prompts", "extraction.v1.txt")
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
    assert "exactly one group" in text and "verbatim" in text
    assert '"category"' in text and '"facts"' in text and "<propositions>" in text


def test_unknown_stage_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown prompt stage 'summary'"):
        load_prompt("summary")


def test_user_messages() -> None:
    assert extraction_user_message("A b.") == "<text>\nA b.\n</text>"
    numbered = grouping_user_message(["First.", "Second."])
    assert numbered == "<propositions>\n1. First.\n2. Second.\n</propositions>"
    assert re.search(
        r"could not be parsed: bad\. Reply again with only X", repair_user_message("bad", shape="X")
    )
