"""Negation, quantifiers and modality against the aligned sentence (find_inventions)."""

from __future__ import annotations

import pytest

from agentic_chunking.checks import find_inventions


def _kinds(proposition: str, source: str) -> list[tuple[str, str]]:
    return [(f.kind, f.severity) for f in find_inventions([proposition], source)]


@pytest.mark.parametrize(
    ("source", "proposition", "expected"),
    [
        (
            "Boiling does not remove lead from water.",
            "Boiling removes lead from water.",
            ("lost_negation", "error"),
        ),
        (
            "The pass lets no trucks through in winter.",
            "The pass lets trucks through in winter.",
            ("lost_negation", "error"),
        ),
        (
            "Boiling removes germs from water.",
            "Boiling never removes germs.",
            ("added_negation", "error"),
        ),
        (
            "Most food poisoning cases are mild.",
            "Food poisoning cases are mild.",
            ("lost_quantifier", "error"),
        ),
        ("Cats sleep in the sun.", "All cats sleep in the sun.", ("added_quantifier", "error")),
        (
            "It is widely believed that the bridge may close in winter.",
            "The bridge closes in winter.",
            ("changed_modality", "warning"),
        ),
        (
            "The bridge closes in winter.",
            "The bridge might close in winter.",
            ("changed_modality", "warning"),
        ),
    ],
)
def test_a_changed_polarity_is_found(
    source: str, proposition: str, expected: tuple[str, str]
) -> None:
    assert expected in _kinds(proposition, source)


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        # the negation is on a part the proposition leaves out
        (
            "Freezing does not kill bacteria, but it slows their growth.",
            "Freezing slows the growth of bacteria.",
        ),
        ("The tool is free, not paid.", "The tool is free."),
        (
            "Vitamin C is found not only in oranges but also in peppers.",
            "Vitamin C is found in peppers.",
        ),
        # the quantifier sits on a clause the proposition does not restate
        (
            "Most food poisoning cases are not serious, and the symptoms usually pass"
            " within a week.",
            "Food poisoning symptoms usually pass within a week.",
        ),
        # "each region" says what "regions" says
        ("Each region contains several zones.", "Regions contain several zones."),
        # a gerund asserts nothing the hedge could qualify
        (
            "Dams can raise their output within minutes, which makes them useful.",
            "Raising output within minutes makes dams useful.",
        ),
    ],
)
def test_a_kept_polarity_is_not_reported(source: str, proposition: str) -> None:
    assert _kinds(proposition, source) == []
