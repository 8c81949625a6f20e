"""find_unresolved_pronouns: a pronoun must find its referent inside the proposition."""

from __future__ import annotations

import pytest

from agentic_chunking.checks import NO_UNRESOLVED_PRONOUNS, find_unresolved_pronouns


@pytest.mark.parametrize(
    ("proposition", "phrase"),
    [
        ("It releases glucose into the blood.", '"It"'),
        ("They store energy in chemical bonds.", '"They"'),
        ("This process takes place in the mitochondria.", '"This process"'),
        ("Such systems are expensive to maintain.", '"such systems"'),
        ("The former is cheaper than lithium-ion batteries.", '"the former"'),
        ("The latter was painted in 1512.", '"the latter"'),
        ("He founded the company in 1998.", '"He"'),
        ("Her paintings hang in the Uffizi.", '"Her"'),
        ("Their capacity fades after 500 cycles.", '"Their"'),
        ("We measured the voltage of each cell.", '"We"'),
        ("After that, the city grew rapidly.", '"that"'),
        ("These cells divide rapidly.", '"These cells"'),
        ("This is the largest dome in Europe.", '"This"'),
        ("The same applies to solid-state batteries.", '"the same"'),
    ],
)
def test_unresolved_pronouns_are_reported(proposition: str, phrase: str) -> None:
    findings = find_unresolved_pronouns([proposition])
    assert len(findings) == 1
    assert findings[0].rule == NO_UNRESOLVED_PRONOUNS
    assert phrase in findings[0].reason


@pytest.mark.parametrize(
    "proposition",
    [
        "The human liver stores glycogen.",
        "The human liver stores glycogen and it releases glucose.",
        "It is estimated that 20 percent of urban land is used for roads.",
        "It is possible to run Kubernetes on a single node.",
        "It takes two hours to charge the battery.",
        "Marie Curie won the Nobel Prize and she founded the Radium Institute.",
        "Lithium-ion batteries lose capacity as their electrodes degrade.",
        "The study shows that telomeres shorten with age.",
        "The cells that divide fastest are stem cells.",
        "Solid-state batteries and lithium-ion batteries differ in their electrolytes.",
        "Both cities have the same population as Paris.",
        "The pod restarted and the same pod failed again.",
        "The cluster restarts failed pods, and this cluster runs on three nodes.",
        "Metals such as lithium react with water.",
        'The author said "we will finish the book" in 2010.',
    ],
)
def test_resolved_or_expletive_pronouns_pass(proposition: str) -> None:
    assert find_unresolved_pronouns([proposition]) == []


def test_findings_keep_input_order() -> None:
    props = ["It fails.", "The pod restarts.", "They fail."]
    assert [f.proposition for f in find_unresolved_pronouns(props)] == ["It fails.", "They fail."]


@pytest.mark.parametrize(
    ("proposition", "kind", "severity"),
    [
        ("It releases glucose into the blood.", "bare_pronoun", "error"),
        ("This is the largest dome in Europe.", "bare_pronoun", "error"),
        ("We measured the voltage of each cell.", "speaker_pronoun", "error"),
        ("This process takes place in the mitochondria.", "anaphoric_phrase", "error"),
        ("Such systems are expensive to maintain.", "anaphoric_phrase", "warning"),
        ("You can recycle glass bottles.", "impersonal_you", "warning"),
    ],
)
def test_each_finding_has_its_kind_and_severity(proposition: str, kind: str, severity: str) -> None:
    (finding,) = find_unresolved_pronouns([proposition])
    assert (finding.kind, finding.severity) == (kind, severity)


@pytest.mark.parametrize(
    "proposition",
    [
        "The author wrote 'we will win' in 2010.",  # single quotes masked
        "The author wrote \u2018we will win\u2019 in 2010.",
        "The fee is waived for members, i.e. students and staff.",  # i.e. is not "I"
        "The team won the U.S. Championships in 1931.",  # US is not "us"
        "Batteries can't be recycled with glass.",
    ],
)
def test_quotes_abbreviations_and_acronyms_are_not_pronouns(proposition: str) -> None:
    assert find_unresolved_pronouns([proposition]) == []


SOURCE = "The solvent leaves a residue on the lens. The residue blocks the sensor."


def test_a_definite_description_cut_from_its_antecedent_is_a_warning() -> None:
    (finding,) = find_unresolved_pronouns(["The residue blocks the sensor."], SOURCE)
    assert (finding.kind, finding.severity) == ("definite_without_antecedent", "warning")
    assert find_unresolved_pronouns(["The solvent leaves a residue on the lens."], SOURCE) == []
    assert find_unresolved_pronouns(["The residue blocks the sensor."]) == []  # no source


@pytest.mark.parametrize(
    "proposition",
    [
        "June wants to redeem herself.",  # a first name that is also a month
        "After her marriage breakdown, Martha moves back to her parents' house.",
        "Upon their return to England, Bulkeley and his men faced accusations of mutiny.",
    ],
)
def test_decontextualised_names_resolve_pronouns(proposition: str) -> None:
    assert find_unresolved_pronouns([proposition]) == []


@pytest.mark.parametrize(
    "proposition",
    [
        "In June, she moved to Paris.",  # a month as a date names nobody
        "After her divorce, the house was sold.",  # nobody after the opening phrase
        "Their relationship evolves.",
    ],
)
def test_pronouns_without_a_person_still_are_errors(proposition: str) -> None:
    assert [f.kind for f in find_unresolved_pronouns([proposition]) if f.is_error]


@pytest.mark.parametrize(
    "proposition",
    [
        "After high school he joined the Marines before living in Austin, Texas.",
        "One of his works is the church at Stapleford, Leicestershire.",
    ],
)
def test_a_name_after_a_later_comma_resolves_no_pronoun(proposition: str) -> None:
    assert [f.kind for f in find_unresolved_pronouns([proposition]) if f.is_error]


SUMMARY = (
    '"Wildfire" by Hannah Grace follows Russ and Aurora at Honey Acres, a summer camp.'
    " The narrative explores family and belonging. Russ's father visits the camp."
)


@pytest.mark.parametrize(
    "proposition",
    [
        "The narrative explores family and belonging.",  # the book never named
        "Themes of family are explored in the book.",
        "The primary setting of the story is a summer camp.",
    ],
)
def test_a_work_the_claim_never_names_is_a_warning(proposition: str) -> None:
    findings = find_unresolved_pronouns([proposition], SUMMARY)
    assert [(f.kind, f.severity) for f in findings] == [("definite_without_antecedent", "warning")]


@pytest.mark.parametrize(
    "proposition",
    [
        '"Wildfire" is a book about Russ and Aurora.',  # the title is in the claim
        "The story of Russ and Aurora unfolds at Honey Acres.",  # "the story of X" says which
    ],
)
def test_a_named_work_is_no_definite_warning(proposition: str) -> None:
    assert find_unresolved_pronouns([proposition], SUMMARY) == []


@pytest.mark.parametrize(
    "proposition",
    [
        "Sumner is fiercely loyal to those he cares about.",  # "those" of a relative clause
        "Izzy unveils secrets that pose threats to those around her.",  # people, said here
        "The fund helps those affected by the flood.",
        "In Charlie's childhood, she meets a girl in a playpark.",  # a possessor, no place
    ],
)
def test_pronouns_a_reader_resolves_inside_the_claim(proposition: str) -> None:
    assert find_unresolved_pronouns([proposition]) == []


def test_a_place_after_in_still_names_nobody() -> None:
    assert [f.kind for f in find_unresolved_pronouns(["In Paris, she meets a girl."])] == [
        "bare_pronoun"
    ]


# "The <noun> <verb> ..." where the source never writes the noun after an article or at a
# sentence's start, only with a word before it that says which: a definite description
# cut from what the source calls it (the mutation cut_definite). A warning.
@pytest.mark.parametrize(
    ("source", "proposition", "said"),
    [
        (
            "The human liver stores glycogen. When blood sugar falls, the organ breaks "
            "this glycogen down.",
            "The liver breaks glycogen down when blood sugar falls.",
            "human liver",
        ),
        (
            "Solar photovoltaic panels convert sunlight into electricity, and most "
            "commercial panels use silicon cells.",
            "The panels use silicon cells.",
            "photovoltaic panels",
        ),
        (
            "Officials called curatores aquarum managed the system and punished illegal taps.",
            "The aquarum punished illegal taps.",
            "curatores aquarum",
        ),
    ],
)
def test_a_definite_cut_from_what_the_source_calls_it_is_a_warning(
    source: str, proposition: str, said: str
) -> None:
    findings = find_unresolved_pronouns([proposition], source)
    assert [(f.kind, f.severity) for f in findings] == [("definite_without_antecedent", "warning")]
    assert f'the source only says "{said}"' in findings[0].reason


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        # the proposition carries the word that says which (decontextualised)
        (
            "The human liver stores glycogen. When blood sugar falls, the organ breaks "
            "this glycogen down.",
            "The human liver breaks glycogen down when blood sugar falls.",
        ),
        # the word that says which, elsewhere in the proposition
        ("The human liver stores glycogen.", "The liver stores glycogen in the human body."),
        # the source itself writes it after an article, or opens a sentence with it
        (
            "Solar panels convert sunlight, and the panels last 25 years.",
            "The panels last 25 years.",
        ),
        ("They bought a small farm. Farms there grow rice.", "The farm grows rice."),
        (
            "Officials called curatores managed the aqueducts.",
            "The curatores managed the aqueducts.",
        ),
        # an adjective before the head noun, no cut description
        (
            "Most of the channel ran underground, which protected the water from contamination.",
            "The underground channel of a Roman aqueduct protected the water from contamination.",
        ),
        # a reworded sentence whose noun the source uses plainly
        ("Crews cut the cables in 1998.", "The cables were cut by crews in 1998."),
    ],
)
def test_a_definite_the_source_writes_so_is_no_warning(source: str, proposition: str) -> None:
    assert find_unresolved_pronouns([proposition], source) == []


@pytest.mark.parametrize(
    "proposition",
    [
        'At the airport in "Only For The Week," they encounter Arnold\'s groomsmen, Micah.',
        "At the airport in Paris, they encounter Micah and Christian.",  # a place, no group
    ],
)
def test_they_of_a_clause_before_a_comma_is_not_resolved_by_names_after_it(
    proposition: str,
) -> None:
    (finding,) = find_unresolved_pronouns([proposition])
    assert (finding.kind, finding.severity) == ("bare_pronoun", "error")


@pytest.mark.parametrize(
    "proposition",
    [
        "Google said they would appeal.",  # an organisation is a group
        "In Paris, the Curies said they had found radium.",
        "After her divorce, Martha moves home.",  # cataphora of an opening phrase
        "To support her family, Isobel Stanhope decides to join the Aviary.",  # infinitive
        "As they prepare to leave, Jade and Florence share a goodbye.",
    ],
)
def test_a_group_or_a_cataphora_still_resolves_they(proposition: str) -> None:
    assert find_unresolved_pronouns([proposition]) == []
