"""A "He" or "She" of the aligned sentence resolved to an earlier person than the one the
nearest earlier subject names (issue 31, the kill matrix at seed 2: Lorenzo de' Medici's
invitation given to his great-grandfather Giovanni)."""

from __future__ import annotations

import pytest

from agentic_chunking.checks import find_inventions
from agentic_chunking.checks._align import person_names

MEDICI = (
    "Giovanni di Bicci de' Medici founded the Medici Bank in Florence in 1397. The company"
    " opened branches in Rome and Venice. His great-grandson Lorenzo de' Medici governed"
    " Florence from 1469 until 1492. He invited the young Michelangelo to live in the Medici"
    " household."
)
LIFE = (
    "John Smith was born in Leeds in 1900. He married Jane Doe in 1925. He opened a bakery"
    " in York. He died in 1950."
)


def _moved_names(claim: str, source: str) -> list[str]:
    return [f.reason for f in find_inventions([claim], source) if f.kind == "moved_name"]


def test_a_particle_with_an_apostrophe_stays_inside_a_persons_name() -> None:
    assert frozenset({"lorenzo", "medici"}) in person_names("Lorenzo de' Medici ruled.")


def test_he_resolved_to_an_earlier_person_than_the_nearest_subject_is_a_moved_name() -> None:
    claim = (
        "Giovanni di Bicci de' Medici invited the young Michelangelo to live in the Medici"
        " household."
    )
    assert _moved_names(claim, MEDICI)


@pytest.mark.parametrize(
    "claim",
    [
        "Lorenzo de' Medici invited the young Michelangelo to live in the Medici household.",
        "Lorenzo invited the young Michelangelo to live in the Medici household.",
    ],
)
def test_he_resolved_to_the_nearest_subject_is_no_moved_name(claim: str) -> None:
    assert not _moved_names(claim, MEDICI)


@pytest.mark.parametrize(
    "claim", ["John Smith died in 1950.", "John Smith opened a bakery in York."]
)
def test_a_biographys_he_resolved_to_its_first_subject_is_no_moved_name(claim: str) -> None:
    assert not _moved_names(claim, LIFE)  # Jane Doe is an object, never a subject between


def test_a_person_named_after_the_nearest_subject_is_no_passed_over_person() -> None:
    source = MEDICI + (
        " Isabella d'Este became Marchioness of Mantua in 1490. She commissioned paintings"
        " from Andrea Mantegna for her private study."
    )
    claim = "Isabella d'Este commissioned paintings from Andrea Mantegna for her private study."
    assert not _moved_names(claim, source)  # Lorenzo is the nearest subject person, but
    # Isabella is named after him: another person of the story, not one passed over
