"""The mutation operators of issue 10: what each changes, and which the checks catch."""

from __future__ import annotations

import copy

import pytest

from agentic_chunking import InputError
from agentic_chunking.checks import (
    COVERAGE,
    NO_DUPLICATION,
    NO_INVENTION,
    SELF_CONTAINED,
    coverage,
    find_inventions,
    find_not_self_contained,
)
from agentic_chunking.mutations import (
    CERTAIN_OPERATORS,
    OPERATORS,
    apply_to_propositions,
    possibly_equivalent,
)

SOURCE = (
    "Marie Curie discovered polonium in 1898. Pierre Curie taught physics in Paris. "
    "Boiling does not remove lead from water. The bridge may close in winter. "
    "The battery lasts 300 cycles. The charger costs 40 dollars. "
    "The human liver stores glycogen in liver cells."
)
FACTS = [
    "Marie Curie discovered polonium in 1898.",
    "Pierre Curie taught physics in Paris.",
    "Boiling does not remove lead from water.",
    "The bridge may close in winter.",
    "The battery lasts 300 cycles.",
    "The charger costs 40 dollars.",
    "The human liver stores glycogen in liver cells.",
]
GROUPS = [{"category": "A", "facts": FACTS[:4]}, {"category": "B", "facts": FACTS[4:]}]
NEW = (
    "contain_duplicate",
    "cut_definite",
    "drop_fact",
    "drop_modality",
    "drop_number_fact",
    "drop_negation",
    "move_number",
    "swap_person",
    "swap_term",
    "verbless_list",
)


def _facts(groups: list[dict[str, object]]) -> list[str]:
    return [f for g in groups for f in g["facts"]]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("seed", range(4))
def test_each_operator_is_pure_deterministic_and_changes_one_thing(name: str, seed: int) -> None:
    before = copy.deepcopy(GROUPS)
    mutation = OPERATORS[name](GROUPS, SOURCE, seed=seed)
    assert before == GROUPS and mutation.operator == name
    assert mutation == OPERATORS[name](GROUPS, SOURCE, seed=seed)
    changes = len(mutation.replaced) + len(mutation.added) + len(mutation.removed)
    assert changes == 1, mutation
    assert sorted(_facts(mutation.groups)) == sorted(apply_to_propositions(mutation, FACTS))


@pytest.mark.parametrize("seed", range(4))
def test_certain_mutations_are_errors_of_the_checks(seed: int) -> None:
    for name in CERTAIN_OPERATORS:
        mutation = OPERATORS[name](GROUPS, SOURCE, seed=seed)
        props = _facts(mutation.groups)
        findings = {
            NO_INVENTION: find_inventions,
            COVERAGE: lambda p, s: coverage(p, s).findings(),
            SELF_CONTAINED: lambda p, s: find_not_self_contained(p),
        }[mutation.rule](props, SOURCE)
        assert any(f.is_error for f in findings), (name, mutation.description)


def test_what_each_operator_does() -> None:
    swapped = OPERATORS["swap_person"](GROUPS, SOURCE, seed=0)
    assert set(swapped.replaced.values()) <= {
        "Pierre Curie discovered polonium in 1898.",
        "Marie Curie taught physics in Paris.",
    }
    negated = OPERATORS["drop_negation"](GROUPS, SOURCE)
    assert list(negated.replaced.values()) == ["Boiling does remove lead from water."]
    hedged = OPERATORS["drop_modality"](GROUPS, SOURCE)
    assert list(hedged.replaced.values()) == ["The bridge will close in winter."]
    cut = OPERATORS["cut_definite"](GROUPS, SOURCE)
    assert list(cut.replaced.values()) == ["The liver stores glycogen in liver cells."]
    verbless = OPERATORS["verbless_list"](GROUPS, SOURCE, seed=0)
    (listed,) = verbless.replaced.values()
    assert " and " in listed and verbless.rule == SELF_CONTAINED
    contained = OPERATORS["contain_duplicate"](GROUPS, SOURCE, seed=0)
    (added,) = contained.added
    assert contained.rule == NO_DUPLICATION and any(f.rstrip(".") in added for f in FACTS)


def test_a_dropped_fact_with_a_number_is_an_error_of_the_coverage_rule() -> None:
    mutation = OPERATORS["drop_number_fact"](GROUPS, SOURCE, seed=0)
    assert mutation.rule == COVERAGE
    (dropped,) = mutation.removed
    assert any(c.isdigit() for c in dropped)
    findings = coverage(_facts(mutation.groups), SOURCE).findings()
    assert [f.source_sentence for f in findings if f.is_error] == [dropped]
    assert coverage(FACTS, SOURCE).findings() == []
    plain = OPERATORS["drop_fact"](GROUPS, SOURCE, seed=0)
    (lost,) = plain.removed
    warnings = coverage(_facts(plain.groups), SOURCE).findings()
    assert [(f.source_sentence, f.severity) for f in warnings] == [(lost, "warning")]


@pytest.mark.parametrize("seed", range(4))
def test_a_number_fact_is_one_whose_number_no_other_fact_states(seed: int) -> None:
    # "2 atria" is stated again by "two atria" (the checks read number words), and the
    # 5 of "5 valves" is no number of "1500": only the valves fact loses a number
    facts = [
        "The heart has two atria.",
        "Each heart has 2 atria.",
        "The heart has 5 valves.",
        "The first drawing of a heart dates from 1500.",
    ]
    groups = [{"category": "Heart", "facts": facts}]
    source = " ".join(facts)
    mutation = OPERATORS["drop_number_fact"](groups, source, seed=seed)
    assert mutation.removed in (["The heart has 5 valves."], [facts[3]])
    repeated = [{"category": "Heart", "facts": facts[:2]}]
    with pytest.raises(InputError):
        OPERATORS["drop_number_fact"](repeated, " ".join(facts[:2]), seed=seed)


def test_operators_refuse_input_with_nothing_to_mutate() -> None:
    plain = [{"category": "A", "facts": ["Cats sleep.", "Dogs bark."]}]
    for name in ("move_number", "swap_person", "drop_negation", "drop_modality"):
        with pytest.raises(InputError):
            OPERATORS[name](plain, "Cats sleep. Dogs bark.")


def test_swap_term_never_swaps_half_of_a_hyphenated_word() -> None:
    source = "A lithium-ion battery stores charge. The anode holds lithium ions in graphite."
    groups = [{"category": "Batteries", "facts": ["A lithium-ion battery stores charge."]}]
    mutation = OPERATORS["swap_term"](groups, source, seed=0)
    (new,) = mutation.replaced.values()
    assert "lithium-ion" in new  # the compound stays whole; a word standing alone is swapped
    assert new != "A lithium-ion battery stores charge."


def test_swap_term_never_brings_another_form_of_a_word_the_fact_uses() -> None:
    source = (
        "Lithium-ion batteries store energy. The separator of a lithium-ion battery keeps the"
        " anode and the cathode apart. Graphite anodes crack with time."
    )
    fact = "The separator of a lithium-ion battery keeps the anode and the cathode apart."
    mutation = OPERATORS["swap_term"]([{"category": "Batteries", "facts": [fact]}], source)
    (new,) = mutation.replaced.values()
    assert "batteries" not in new  # "The batteries of a lithium-ion battery" names it twice
    assert "battery" in new and new != fact  # another noun of the source is swapped in


KUBERNETES = (
    "Kubernetes is an open-source container orchestration platform that automates the"
    " deployment, scaling and management of containerized applications."
)


def test_a_swapped_term_the_restated_sentence_holds_is_possibly_equivalent() -> None:
    fact = "Kubernetes automates the management of containerized applications."
    mutation = OPERATORS["swap_term"]([{"category": "K", "facts": [fact]}], KUBERNETES)
    assert mutation.swapped == ("management", "orchestration")
    assert possibly_equivalent(mutation, KUBERNETES)


def test_a_swapped_term_from_another_sentence_is_no_possible_equivalent() -> None:
    source = (
        "Cloud providers rent servers to customers. Autoscaling adds servers when demand rises"
        " and removes them when demand falls."
    )
    fact = "Autoscaling removes servers when demand falls."
    mutation = OPERATORS["swap_term"]([{"category": "C", "facts": [fact]}], source)
    (new,) = mutation.replaced.values()
    assert new != fact and mutation.swapped is not None
    assert not possibly_equivalent(mutation, source)  # its words come from two sentences


def test_only_a_swap_of_words_can_be_possibly_equivalent() -> None:
    mutation = OPERATORS["move_number"](GROUPS, SOURCE, seed=0)
    assert mutation.swapped is None and not possibly_equivalent(mutation, SOURCE)


def test_a_swapped_in_word_that_only_shares_a_stem_with_the_sentence_is_no_equivalent() -> None:
    source = "Chlorine is added to treated water to kill bacteria and viruses."
    mutation = OPERATORS["swap_term"](
        [{"category": "W", "facts": [source]}],
        source + " Water treatment begins with coagulation.",
    )
    assert mutation.swapped is not None and mutation.swapped[1] == "treatment"
    assert not possibly_equivalent(mutation, source + " Water treatment begins with coagulation.")
