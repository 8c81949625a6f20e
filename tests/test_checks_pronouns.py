"""find_unresolved_pronouns: a pronoun must find its referent inside the proposition."""

from __future__ import annotations

import pytest

from agentic_chunking.checks import NO_UNRESOLVED_PRONOUNS, find_unresolved_pronouns, parser_status

needs_parser = pytest.mark.skipif(
    not parser_status().available, reason="the [parser] extra is not installed"
)


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
        # an adjective before the head noun, no cut description
        (
            "Most of the channel ran underground, which protected the water from contamination.",
            "The underground channel of a Roman aqueduct protected the water from contamination.",
        ),
    ],
)
def test_a_definite_the_source_writes_so_is_no_warning(source: str, proposition: str) -> None:
    assert find_unresolved_pronouns([proposition], source) == []


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        (
            "Officials called curatores managed the aqueducts.",
            "The curatores managed the aqueducts.",
        ),
        ("Crews cut the cables in 1998.", "The cables were cut by crews in 1998."),
        ("The group was formed in 1994.", "The group was formed in 1994."),
    ],
)
@needs_parser
def test_a_definite_of_a_specific_event_is_a_warning_whatever_the_source_writes(
    source: str, proposition: str
) -> None:
    """Issue 40: a proposition must stand alone; "the cables" is unresolved in it even
    where the source writes "the cables" itself."""
    kinds = [f.kind for f in find_unresolved_pronouns([proposition], source)]
    assert "definite_without_antecedent" in kinds


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


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        (
            "Later that year Grace left Leeds.",
            "Grace reflects on how her new job changed her life.",
        ),
        ("In 1990 Rose Tyler met Tom. Rose lost her keys.", "Rose and her sister visit Paris."),
        ("Tom and Will met in 1990.", "Will and his sister sold the house."),
        ("She called Holly twice.", "Holly and her sister visit Paris."),
        ("Anna met May in Leeds.", "May and her sister visit Paris."),
    ],
)
def test_a_first_name_that_is_a_dictionary_word_is_a_person_when_the_source_uses_it_so(
    source: str, proposition: str
) -> None:
    """Issue 40: "Rose", "Will", "May", "Holly" are read as a verb, a modal, an adverb by the
    word lists; the document's own use of the word as a name (capitalised inside a
    sentence) makes it a person."""
    assert [f for f in find_unresolved_pronouns([proposition], source) if f.is_error] == []


@pytest.mark.parametrize(
    "proposition",
    [
        "Rose lost her keys.",
        "Will sold his car in 1990.",
        "May reflects on her life.",
        "Drew says that he will come.",
    ],
)
def test_a_first_name_before_an_inflected_verb_is_a_person(proposition: str) -> None:
    """No modal stands before an inflected verb ("Will sold", "May reflects"), and a verb
    form before another finite verb is its subject: a name, with or without a source."""
    assert [f for f in find_unresolved_pronouns([proposition]) if f.is_error] == []


@pytest.mark.parametrize(
    "proposition",
    [
        "Will she sell her car?",  # a modal, a question
        "May her memory live on.",  # a modal
        "To pay off his debts, he sells the car.",  # "To" is no name
        "If found, his car will be returned.",
    ],
)
def test_a_modal_or_a_function_word_opening_the_proposition_is_no_person(
    proposition: str,
) -> None:
    errors = [f.kind for f in find_unresolved_pronouns([proposition]) if f.is_error]
    assert "bare_pronoun" in errors


def test_a_star_inside_a_word_keeps_it_one_word() -> None:
    """A letter the text could not encode, or a censored one ("L'H*me", "f*cking"): "me"
    is part of the word, no pronoun; a pronoun standing alone still is one."""
    proposition = "Jacques worked for Noel Juchereau in L'H*me-Chamondot in 1645."
    assert find_unresolved_pronouns([proposition]) == []
    (finding,) = find_unresolved_pronouns(["The f*cking rules bind me."])
    assert finding.kind == "speaker_pronoun"
