"""A number of one clause of the aligned sentence put in the place of another clause's
number (issue 31, the kill matrix at seeds 1-3): "Leonardo drew her portrait in 1490"
where 1490 is the year Isabella became Marchioness and the portrait is dated 1500."""

from __future__ import annotations

import pytest

from agentic_chunking.checks import find_inventions
from agentic_chunking.checks._align import align
from agentic_chunking.checks._language import profile
from agentic_chunking.checks._numbers import displaced_numbers

ART = (
    "Isabella d'Este became Marchioness of Mantua in 1490. She commissioned paintings from"
    " Andrea Mantegna for her private study, and Leonardo da Vinci drew her portrait in 1500."
)
TOLL = (
    "The toll was 0.25 dollars when the bridge opened, rose to 5.5 dollars in 2010 and rose"
    " again to 5.75 dollars in 2021."
)
HIVE = (
    "A honeybee colony has one queen and up to 60,000 worker bees. The queen lays as many"
    " as 2,000 eggs per day in spring, and a worker lives for about 40 days in summer."
)


def _moved(claim: str, source: str) -> list[str]:
    return [f.reason for f in find_inventions([claim], source) if f.kind == "moved_number"]


@pytest.mark.parametrize(
    ("claim", "source", "number"),
    [
        ("Leonardo da Vinci drew a portrait of Isabella d'Este in 1490.", ART, "1490"),
        ("The toll on the bridge rose to 5.5 dollars in 2021.", TOLL, "2021"),
        ("A honeybee worker lives for about 2,000 days in summer.", HIVE, "2000"),
        ("The queen lays as many as 40 eggs per day in spring.", HIVE, "40"),
    ],
)
def test_a_number_put_in_the_place_of_another_clauses_number_is_moved(
    claim: str, source: str, number: str
) -> None:
    window = align(claim, source)
    assert window is not None
    assert number in dict(displaced_numbers(profile(claim), window))
    assert _moved(claim, source)


@pytest.mark.parametrize(
    "claim",
    [
        "Leonardo da Vinci drew a portrait of Isabella d'Este in 1500.",
        "Isabella d'Este became Marchioness of Mantua in 1490.",
        "In 1490, Isabella d'Este became Marchioness of Mantua.",
        "Isabella d'Este, who became Marchioness of Mantua in 1490, was drawn by Leonardo in 1500.",
    ],
)
def test_a_number_stated_with_its_own_clause_is_not_moved(claim: str) -> None:
    assert not _moved(claim, ART)


@pytest.mark.parametrize(
    "claim",
    [
        "The toll on the bridge was 0.25 dollars when the bridge opened.",
        "The toll on the bridge rose to 5.5 dollars in 2010.",
        "The toll on the bridge rose to 5.75 dollars in 2021.",
        "The bridge toll rose from 5.5 dollars in 2010 to 5.75 dollars in 2021.",
        "A honeybee queen lays as many as 2,000 eggs per day in spring.",
        "A worker bee lives for about 40 days in summer.",
        "A honeybee colony has up to 60,000 worker bees.",
    ],
)
def test_faithful_restatements_keep_their_numbers(claim: str) -> None:
    source = TOLL if "toll" in claim else HIVE
    assert not _moved(claim, source)


@pytest.mark.parametrize(
    ("source", "claim"),
    [
        (  # its own clause restated; the shared subject stands in the first clause
            "Construction of the Elm River Bridge began on 14 March 1962 and ended in"
            " October 1965.",
            "Construction of the Elm River Bridge ended in October 1965.",
        ),
        (
            "Human red blood cells are about 7.5 um in diameter and about 2 um thick.",
            "Human red blood cells are about 2 um thick.",
        ),
        (  # only names of the other clause carried as context
            "Antoni Gaudi took over the design of the Sagrada Familia in Barcelona in 1883"
            " and worked on the basilica until he died in 1926.",
            "Antoni Gaudi worked on the Sagrada Familia until 1926.",
        ),
    ],
)
def test_a_clause_that_shares_its_subject_or_names_with_another_keeps_its_number(
    source: str, claim: str
) -> None:
    assert not _moved(claim, source)
