"""find_inventions: support, not mere non-contradiction."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking import split_sentences
from agentic_chunking.checks import NO_INVENTION, PARAPHRASE_ALLOWANCE, find_inventions

SOURCE = (
    "The human liver stores glycogen. It releases glucose when blood sugar falls. "
    "Inflation rose 5.5 percent in 2022. Lithium-ion cells do not use solid electrolytes. "
    "The tower, completed in March 1889, is 330 m tall. Gustave Eiffel's company built it. "
    "The city organises two festivals a year."
)


@pytest.mark.parametrize(
    "proposition",
    [
        "The human liver stores glycogen.",
        "The human liver releases glucose when blood sugar falls.",  # resolved pronoun
        "Inflation rose 5.5% in 2022.",
        "In 2022, inflation rose by 5.5 per cent.",
        "Lithium ion cells do not use solid electrolytes.",
        "The tower is 330 metres tall.",
        "The tower was completed in March 1889.",
        "Gustave Eiffel's company built the tower.",
        "The city organizes 2 festivals a year.",  # spelling variant, number word
        "The human liver is known to store glycogen.",  # glue words
    ],
)
def test_supported_propositions_pass(proposition: str) -> None:
    assert find_inventions([proposition], SOURCE) == []


@pytest.mark.parametrize(
    ("proposition", "reason"),
    [
        ("The human liver stores fat.", "words not in the source: fat"),
        ("Inflation rose 5.75 percent in 2022.", "numbers not in the source: 5.75"),
        ("Inflation rose 5.5 percent in 2021.", "numbers not in the source: 2021"),
        ("The tower is 330 feet tall.", "330 foot is not in the source"),
        ("The tower was completed in May 1889.", "names not in the source: May"),
        ("Professor Smith says the liver stores glycogen.", "Smith"),
        ("The human liver does not store glycogen.", "negated"),
        ("The city organises three festivals a year.", "numbers not in the source: 3"),
    ],
)
def test_unsupported_propositions_are_reported(proposition: str, reason: str) -> None:
    findings = find_inventions([proposition], SOURCE)
    assert len(findings) == 1
    assert findings[0].rule == NO_INVENTION
    assert findings[0].proposition == proposition
    assert reason in findings[0].reason


LONG = (
    "The human liver stores glycogen and releases glucose when blood sugar falls, "
    "while inflation rose 5.5 percent in 2022"
)


@pytest.mark.parametrize(
    "proposition",
    [
        LONG + ".",
        LONG + " quickly.",  # one common paraphrase word in 9 content words: tolerated
    ],
)
def test_a_common_paraphrase_word_in_a_long_proposition_is_tolerated_when_asked(
    proposition: str,
) -> None:
    assert find_inventions([proposition], SOURCE, paraphrase_allowance=PARAPHRASE_ALLOWANCE) == []


def test_by_default_no_paraphrase_word_is_tolerated() -> None:
    findings = find_inventions([LONG + " quickly."], SOURCE)
    assert len(findings) == 1
    assert "words not in the source: quickly" in findings[0].reason


@pytest.mark.parametrize(
    ("proposition", "reason"),
    [
        (LONG + " hepatically.", "words not in the source: hepatically"),  # rare word
        (LONG + " quickly, steadily and gently.", "quickly, steadily, gently"),  # over 1 in 5
        (LONG + ", 6 percent in 2023.", "numbers not in the source: 2023, 6"),
        (LONG + " in May.", "names not in the source: May"),
        (LONG + " according to the Quimby Institute.", "names not in the source: Quimby"),
        ("The human liver does not store glycogen when blood sugar falls quickly.", "negated"),
        ("The tower is 330 feet tall, and the human liver stores glycogen.", "330 foot"),
    ],
)
def test_the_paraphrase_allowance_never_lets_hard_facts_through(
    proposition: str, reason: str
) -> None:
    findings = find_inventions([proposition], SOURCE, paraphrase_allowance=PARAPHRASE_ALLOWANCE)
    assert len(findings) == 1
    assert reason in findings[0].reason


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        ("Published Apr. 24, 2018 in the U.S.", "It was published on April 24, 2018 in the US."),
        ("Posted 2018-02-22.", "It was posted on 22 February 2018."),
    ],
)
def test_date_and_acronym_spellings_are_one(source: str, proposition: str) -> None:
    assert find_inventions([proposition], source) == []


def test_only_the_offending_propositions_are_returned() -> None:
    good, bad = "The human liver stores glycogen.", "The pancreas stores glycogen."
    assert [f.proposition for f in find_inventions([good, bad, good], SOURCE)] == [bad]


_WORDS = st.sampled_from(
    [
        "the",
        "liver",
        "stores",
        "glycogen",
        "battery",
        "cells",
        "not",
        "never",
        "5.5",
        "percent",
        "2022",
        "two",
        "organises",
        "Kubernetes",
        "runs",
        "pods",
        "on",
        "nodes",
        "colour",
        "lithium-ion",
        "$80",
        "million",
        "3.7",
        "V",
        "no",
    ]
)
_SENTENCE = st.lists(_WORDS, min_size=1, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")


@settings(max_examples=60, deadline=None)
@given(st.lists(_SENTENCE, min_size=1, max_size=6), st.data())
def test_a_sentence_copied_from_the_source_is_never_an_invention(
    sentences: list[str], data: st.DataObject
) -> None:
    source = " ".join(sentences)
    chosen = data.draw(st.sampled_from(split_sentences(source)))
    assert find_inventions([chosen], source) == []
