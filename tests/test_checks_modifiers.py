"""Swaps inside a noun phrase, read on the parse (checks._modifiers): a swapped_term warning.

A modifier of the source put in the place of the one the window sets on the same noun
("energy ions" for "lithium ions"), and a determiner of one thing before a plural noun
("a Roman cities"), must be flagged; what faithful propositions do with noun phrases must
not: carry context onto a bare noun, turn "the X of the Y" into "the Y X", keep the
window's modifier beside a new one, count ("a few cities", "a great many people"), or
use a noun that looks plural and is not ("a series"). The propositions are written for
these tests.
"""

from __future__ import annotations

import pytest

from agentic_chunking.checks import WARNING, find_inventions
from agentic_chunking.checks._align import align
from agentic_chunking.checks._finding import SWAPPED_TERM
from agentic_chunking.checks._modifiers import determiner_disagrees, modifier_swapped
from agentic_chunking.checks._parser import parser_status

pytestmark = pytest.mark.skipif(
    not parser_status().available, reason="the [parser] extra is not installed"
)

BATTERY = (
    "Sodium-ion cells store charge in a hard carbon anode. "
    "During charging, sodium ions travel through the liquid electrolyte to the anode."
)
KIDNEY = (
    "The human kidney is a bean-shaped excretory organ. "
    "It filters about 180 litres of blood plasma a day."
)
WALLS = (
    "Medieval towns built stone walls with gates. "
    "The walls of a town were repaired by its guilds. "
    "Several towns also dug a moat."
)
HIVE = "A wasp nest holds one queen and many workers. The queen lays eggs in paper cells."


def _swaps(proposition: str, source: str) -> list[str]:
    return [
        f.reason
        for f in find_inventions([proposition], source)
        if f.kind == SWAPPED_TERM and f.severity == WARNING
    ]


@pytest.mark.parametrize(
    ("source", "proposition", "new", "old"),
    [
        (
            BATTERY,  # a noun modifier of another sentence in the window's modifier's place
            "During charging of a sodium-ion cell, carbon ions travel through the liquid "
            "electrolyte to the anode.",
            "carbon ions",
            "sodium ions",
        ),
        (
            KIDNEY,  # an adjective of the source in the place of the window's adjective
            "The human kidney is a bean-shaped human organ.",
            "human organ",
            "excretory organ",
        ),
    ],
)
def test_a_modifier_in_the_place_of_the_windows_is_a_swap(
    source: str, proposition: str, new: str, old: str
) -> None:
    window = align(proposition, source)
    assert window is not None
    assert modifier_swapped(proposition, window, source) == (new, old)
    assert _swaps(proposition, source)


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        (HIVE, "A wasp queen lays eggs in paper cells."),  # context onto a bare noun
        (WALLS, "The guilds of a town repaired the town walls."),  # "the walls of a town"
        (BATTERY, "During charging, sodium ions travel through the liquid electrolyte."),
        (  # the window's modifier kept beside one carried from another sentence
            BATTERY,
            "During charging, sodium ions travel through the liquid electrolyte to the hard "
            "carbon anode.",
        ),
        (  # linked through a conjunction in the source
            "Lithium and sodium ions differ in size. Sodium ions are larger.",
            "Lithium ions are smaller than sodium ions.",
        ),
        (  # linked in another sentence, whose word is another form ("leaves", "leaf")
            "Green tea leaves are heated after picking. The first flush, harvested in spring, "
            "produces the most delicate leaves.",
            "The first flush produces the most delicate tea leaves.",
        ),
        (  # a comparison that says the window's phrase too; a run of nouns
            "Iron phosphate cells last longer than cells with a nickel cobalt oxide cathode.",
            "Iron phosphate cells last longer than nickel cobalt oxide cells.",
        ),
        (  # no clause: the parse reads "design" as a noun
            "Engineers design roads. Planners write policies for complete streets.",
            "Engineers design street policies.",
        ),
    ],
)
def test_faithful_noun_phrases_are_no_modifier_swap(source: str, proposition: str) -> None:
    window = align(proposition, source)
    assert window is not None
    assert modifier_swapped(proposition, window, source) is None


@pytest.mark.parametrize(
    ("proposition", "phrase"),
    [
        ("The walls of a medieval towns were repaired by guilds.", "a medieval towns"),
        ("Each guilds repaired the walls of a town.", "Each guilds"),
        ("Another towns dug a moat.", "Another towns"),
    ],
)
def test_a_singular_determiner_before_a_plural_is_flagged(proposition: str, phrase: str) -> None:
    assert determiner_disagrees(proposition, WALLS) == phrase
    assert _swaps(proposition, WALLS)


@pytest.mark.parametrize(
    "proposition",
    [
        "A few towns dug a moat.",  # a counting word between
        "A great many towns built stone walls with gates.",
        "A dozen towns built stone walls.",
        "Medieval towns built a series of stone walls.",  # "series" is no inflected plural
        "Each town built stone walls with gates.",  # agreement
        "The walls of a town were repaired by its guilds.",  # verbatim
        "The gate of a town guards stone walls, and the moat protects them.",  # a verb between
    ],
)
def test_determiners_that_agree_are_not_flagged(proposition: str) -> None:
    assert determiner_disagrees(proposition, WALLS) is None


def test_the_source_writing_it_so_is_not_flagged() -> None:
    source = "The rules of a games club are strict."
    assert determiner_disagrees("The rules of a games club are strict.", source) is None
