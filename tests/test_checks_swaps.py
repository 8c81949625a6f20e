"""A term put in another term's place (checks._swaps.term_in_place): a swapped_term warning.

The rule compares a proposition's neighbouring words with the source's: a noun of the
source standing beside a neighbour where the source puts another noun that the
proposition does not say. It must fire on a swap inside the restated sentence and on a
swap inside context carried from another sentence, and stay silent on what faithful
propositions do: pick one item of a list, drop an adjective, carry context beside a word,
resolve a description, state a converse relation, reword.
"""

from __future__ import annotations

import pytest

from agentic_chunking.checks import WARNING, find_inventions
from agentic_chunking.checks._align import align
from agentic_chunking.checks._finding import SWAPPED_TERM
from agentic_chunking.checks._swaps import term_in_place

ZONING = (
    "Zoning codes regulate building height, lot coverage, setbacks and permitted uses. "
    "Cloud providers rent virtual machines, storage and networks to customers. "
    "The toll was 0.25 dollars when the bridge opened. "
    "The foundations of the bridge rest on bedrock."
)
PLANTS = (
    "Municipal water treatment plants begin with coagulation. "
    "Modern plants also use activated carbon to remove odor compounds."
)
FLORENCE = (
    "Brunelleschi is credited with the rediscovery of linear perspective. "
    "Few residents of the city owned books."
)


def _swaps(proposition: str, source: str) -> list[str]:
    return [f.reason for f in find_inventions([proposition], source) if f.kind == SWAPPED_TERM]


@pytest.mark.parametrize(
    ("source", "proposition", "new", "old"),
    [
        (ZONING, "Zoning codes regulate lot height.", "height", "coverage"),  # same sentence
        (ZONING, "The toll was 0.25 foundations when the bridge opened.", "foundations", "dollars"),
        (
            FLORENCE,
            "Brunelleschi is credited with the residents of linear perspective.",
            "residents",
            "rediscovery",
        ),  # both neighbours kept, glue words between
        (
            # a word of another sentence, in the place of a word the sentence says twice
            "A solid electrolyte does not burn, which makes solid-state cells safer than "
            "cells with a liquid electrolyte. Solid-state batteries are expensive.",
            "Solid-state batteries are safer than cells with a liquid electrolyte.",
            "batteries",
            "cells",
        ),
        (
            PLANTS,  # a swap inside context carried from the other sentence
            "Modern water coagulation plants use activated carbon to remove odor compounds.",
            "coagulation",
            "treatment",
        ),
    ],
)
def test_a_noun_in_another_nouns_place_is_a_swapped_term_warning(
    source: str, proposition: str, new: str, old: str
) -> None:
    window = align(proposition, source)
    assert window is not None
    assert term_in_place(proposition, window, source) == (new, old)
    findings = [f for f in find_inventions([proposition], source) if f.kind == SWAPPED_TERM]
    assert [f.severity for f in findings] == [WARNING]
    assert f'"{new}" where the source says "{old}"' in findings[0].reason


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        (ZONING, "Zoning codes regulate lot coverage."),  # one item of a list
        (ZONING, "Cloud providers rent storage to customers."),  # an item after a comma
        (
            "Providers rent servers, storage and networks to customers.",
            "Providers rent storage to customers.",
        ),
        ("Networks use glass fiber cables.", "Networks use glass cables."),  # a noun dropped
        (ZONING, "The toll was 0.25 dollars when the bridge opened."),
        # context carried from the other sentence, beside the window's own words
        (PLANTS, "Modern water treatment plants use activated carbon to remove odor compounds."),
        (FLORENCE, "Brunelleschi is credited with the rediscovery of linear perspective."),
        # an adjective dropped
        (
            "Cheap was left on the island with a small group of loyal followers.",
            "Cheap was left on the island with a small group of followers.",
        ),
        # a description resolved to the referent an earlier sentence names
        (
            "The human liver stores glycogen. When blood sugar falls, the organ breaks it down.",
            "When blood sugar falls, the human liver breaks glycogen down.",
        ),
        # a converse relation
        (
            "Deoxygenated blood is pumped to the lungs by the right ventricle.",
            "The right ventricle pumps deoxygenated blood to the lungs.",
        ),
        # a word carried from an earlier clause beside the sentence's own noun
        (
            "Stocks are the core of investment strategies, and gold is a valuable addition "
            "to any portfolio.",
            "Gold is a valuable addition to investment portfolios.",
        ),
        # a name beside the noun: names carried as context may sit anywhere
        (
            "Glycolysis yields two ATP molecules. Aerobic respiration and fermentation "
            "follow it. The former produces far more ATP than the latter.",
            "Aerobic respiration produces far more ATP than fermentation.",
        ),
        ("The letters reveal the depths of Anna's grief.", "The letters reveal the grief of Anna."),
        (  # a name of two words on the other side of the word
            "The diaries reveal the depths of Anna Karenina's grief.",
            "The diaries reveal the grief of Anna Karenina.",
        ),
        # a proposition that rewords (a word the source never uses): its synonym of a
        # source word may be one the source uses elsewhere
        (
            "The guard was shot dead by an unknown assailant. The shooter was never found.",
            "The guard was killed by an unknown shooter.",
        ),
    ],
)
def test_faithful_propositions_get_no_swapped_term(source: str, proposition: str) -> None:
    assert _swaps(proposition, source) == []


def test_a_swap_the_window_rules_already_named_is_reported_once() -> None:
    source = "Solid-state cells use a ceramic electrolyte. Older cells use a liquid one."
    findings = find_inventions(["Solid-state cells use a liquid electrolyte."], source)
    assert [f.kind for f in findings].count(SWAPPED_TERM) == 1


def test_only_a_proposition_that_restates_its_sentence_is_compared_word_by_word() -> None:
    # "story set" where the sentence says "narrative set", but the proposition keeps a
    # third of the sentence: a summary picks its own words
    source = (
        "Dune is a sweeping narrative set on a desert planet, following a young duke "
        "through betrayal, war and prophecy. The story was filmed twice."
    )
    summary = "Dune is a story set on a desert planet."
    window = align(summary, source)
    assert window is not None
    assert term_in_place(summary, window, source) is None
    restated = "Dune is a sweeping story set on a desert planet, following a young duke."
    window = align(restated, source)
    assert window is not None
    assert term_in_place(restated, window, source) == ("story", "narrative")


SOLID = "Solid-state cells use a ceramic electrolyte. Older cells use a liquid one."


def test_a_term_of_the_restated_clause_replaced_is_judged_only_without_rewording() -> None:
    # the clause rule (term_replaced): "liquid" of the other sentence for "ceramic"
    assert len(_swaps("Solid-state cells use a liquid electrolyte.", SOLID)) == 1
    # a proposition that rewords ("employ") picks its words freely: for the judge
    assert _swaps("Solid-state cells employ a liquid electrolyte.", SOLID) == []


def test_half_of_a_two_word_clause_is_no_clause_restated() -> None:
    source = (
        "Ann and Ben meet at a wedding and feel an instant attraction. In the end, "
        '"Long Week" is a study of love, personal growth and family.'
    )
    # "grows" meets "growth" of "personal growth": one word, not a clause restated
    assert _swaps('Ann and Ben\'s attraction grows in "Long Week".', source) == []


FACTS = (
    "Plants take up nutrients through their roots. "
    "Telomeres shorten each time a cell divides. "
    "Insulin signals muscle cells to take up glucose. "
    "The liver turns excess glucose into glycogen and fat."
)
CHAIN = (
    "The human liver is the largest internal organ of the body. "
    "It weighs about 1.5 kilograms in an adult. "
    "Its main cells are called hepatocytes. "
    "They store glucose as glycogen. "
    "When blood sugar falls, the organ breaks this glycogen down."
)


def test_a_described_term_replaced_by_a_word_that_cannot_be_its_antecedent_is_a_swap() -> None:
    # "nutrients" stands only in an unrelated sentence, far from and never beside "liver"
    kinds = [
        f.kind for f in find_inventions(["The nutrients turn excess glucose into glycogen."], FACTS)
    ]
    assert SWAPPED_TERM in kinds


@pytest.mark.parametrize(
    "proposition",
    [
        "The human liver breaks glycogen down when blood sugar falls.",  # "the organ" resolved
        "The liver breaks glycogen down when blood sugar falls.",
    ],
)
def test_a_description_resolved_to_its_antecedent_is_no_swap(proposition: str) -> None:
    assert [f.kind for f in find_inventions([proposition], CHAIN)] == []


def test_a_noun_after_a_possessive_replaced_by_a_word_of_another_sentence_is_a_swap() -> None:
    source = (
        "Venice had a famous trading company. "
        "Ann Kerr ruled Mantua from 1490. "
        "She commissioned paintings, and Leonardo drew her portrait in 1500."
    )
    swapped = "Leonardo drew a company of Ann Kerr in 1500."
    assert SWAPPED_TERM in [f.kind for f in find_inventions([swapped], source)]
    kept = "Leonardo drew a portrait of Ann Kerr in 1500."
    assert find_inventions([kept], source) == []


ENERGY = (
    "Glycolysis breaks one molecule of glucose into two molecules of pyruvate. This process"
    " yields a net gain of two ATP molecules."
)
VOLCANO = (
    "Volcanoes form where magma reaches the surface at high altitudes. Andesitic volcanoes"
    " erupt more explosively because their magma is more viscous."
)
SCALING = (
    "Cloud providers rent servers to customers. A load balancer spreads incoming requests."
    " Monitoring tools track latency. Autoscaling adds servers when demand rises and removes"
    " them when demand falls."
)


@pytest.mark.parametrize(
    ("source", "proposition", "new", "old"),
    [
        # a name of the window beside the word stays a neighbour: "ATP" is said there
        (ENERGY, "Glycolysis yields a net gain of two ATP glucose.", "glucose", "molecules"),
        # "their magma" resolved to "andesitic volcanoes" says "volcanoes" once more
        (
            VOLCANO,
            "Andesitic altitudes erupt more explosively because the magma of andesitic"
            " volcanoes is more viscous.",
            "altitudes",
            "volcanoes",
        ),
    ],
)
def test_a_swap_beside_a_name_of_the_window_or_a_resolved_pronoun_is_found(
    source: str, proposition: str, new: str, old: str
) -> None:
    window = align(proposition, source)
    assert window is not None
    assert term_in_place(proposition, window, source) == (new, old)


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        (ENERGY, "Glycolysis yields a net gain of two ATP molecules."),
        (ENERGY, "Glycolysis breaks one molecule of glucose into two molecules of pyruvate."),
        (
            VOLCANO,
            "Andesitic volcanoes erupt more explosively because the magma of andesitic"
            " volcanoes is more viscous.",
        ),
        (VOLCANO, "Andesitic volcanoes erupt more explosively because their magma is viscous."),
        (SCALING, "Autoscaling removes servers when demand falls."),
        (SCALING, "Autoscaling removes the extra servers when demand falls."),
    ],
)
def test_faithful_restatements_beside_names_and_pronouns_get_no_swapped_term(
    source: str, proposition: str
) -> None:
    assert _swaps(proposition, source) == []


def test_a_noun_of_a_distant_sentence_in_a_pronouns_place_is_a_swapped_term() -> None:
    reasons = _swaps("Autoscaling removes customers when demand falls.", SCALING)
    assert reasons == ['"customers" where the source says "them"']


def test_a_pronoun_that_opens_its_sentence_may_mean_a_thing_of_any_earlier_sentence() -> None:
    source = (
        "The liver filters blood. Bile flows to the gut. Doctors test enzymes. The gut absorbs"
        " fat. It also stores vitamins."
    )
    assert _swaps("The liver also stores vitamins.", source) == []


WIDE_SOLID = (
    "Solid-state batteries replace the liquid electrolyte with a solid ceramic. The solid"
    " electrolyte is not flammable, which reduces the risk of fire. It also allows a lithium"
    " metal anode, which could raise energy density substantially."
)


def test_a_swap_is_judged_against_the_one_sentence_of_a_wide_window_it_restates() -> None:
    claim = "The solid energy of a solid-state battery is not flammable, which reduces the risk."
    assert _swaps(claim, WIDE_SOLID) == ['"energy" where the source says "electrolyte"']


def test_a_faithful_restatement_of_one_sentence_of_a_wide_window_has_no_swap() -> None:
    claim = "The solid electrolyte of a solid-state battery is not flammable."
    assert _swaps(claim, WIDE_SOLID) == []


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        (  # "electrode materials", a phrase of another sentence carried as context
            "Lithium-ion batteries store energy, and the electrode materials expand during"
            " each charge cycle. Repeated expansion and contraction cracks the electrode"
            " particles, and the cracking gradually reduces the capacity of the cell.",
            "Repeated expansion and contraction of lithium-ion battery electrode materials"
            " cracks the electrode particles.",
        ),
        (  # "Roman aqueduct": the source puts the window's name beside the word elsewhere
            "Roman aqueducts carried water to cities. Inspection shafts allowed workers to"
            " clear deposits. Where an aqueduct crossed a valley, Roman builders raised the"
            " channel on arches.",
            "Inspection shafts allowed workers to clear deposits from the channel of a Roman"
            " aqueduct.",
        ),
    ],
)
def test_context_carried_as_the_source_phrases_it_is_no_swap(source: str, proposition: str) -> None:
    assert _swaps(proposition, source) == []
