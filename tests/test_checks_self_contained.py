"""find_not_self_contained: one complete declarative sentence that reads alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentic_chunking.checks import SELF_CONTAINED, find_not_self_contained


@pytest.mark.parametrize(
    ("proposition", "reason", "severity"),
    [
        ("Also, the liver releases glucose.", "opens with 'Also'", "warning"),
        ("However, solid-state batteries remain expensive.", "opens with 'However'", "warning"),
        ("In addition, pods share storage volumes.", "opens with 'In addition'", "warning"),
        ("however the cost fell.", "opens with 'however'", "warning"),
        ("As mentioned above, Kubernetes automates deployment.", "As mentioned above", "warning"),
        ("The table below lists the energy densities.", "table below", "warning"),
        ("The second one is more efficient.", "The second one", "warning"),
        ("See below for the zoning categories.", "See below", "warning"),
        ("The following steps describe glycolysis.", "The following", "warning"),
        ("The cathode material in lithium-ion batteries.", "no finite verb", "error"),
        ("Lower energy density.", "no finite verb", "error"),
        ("Street lamps and park benches.", "no finite verb", "error"),
        ("Because the anode expands during charging", "subordinate clause", "error"),
        ("Which makes the dome the largest of its time", "relative", "error"),
        # closed by ". ! ?" as a sentence: a source may write such a fragment itself
        ("Because the anode expands during charging.", "subordinate clause", "warning"),
        ("Which makes the dome the largest of its time.", "relative", "warning"),
        ("Michelangelo painted the ceiling. He finished it in 1512.", "2 sentences", "warning"),
        ("the liver stores glycogen.", "capital", "warning"),
        ("Does the liver store glycogen?", "question", "warning"),
        ("The liver stores glycogen and", "cut off", "error"),
        ("The liver stores glycogen and.", "cut off", "warning"),
        ("", "empty", "error"),
    ],
)
def test_not_self_contained_is_reported(proposition: str, reason: str, severity: str) -> None:
    findings = find_not_self_contained([proposition])
    assert findings and all(f.rule == SELF_CONTAINED for f in findings)
    matching = [f for f in findings if reason in f.reason]
    assert [f.severity for f in matching] == [severity], findings
    assert matching[0].kind in KINDS


KINDS = {"cut_off", "no_finite_verb", "not_one_sentence", "leans_on_context", "form"}


def test_a_verb_the_heuristic_misses_is_only_a_warning() -> None:
    # "rise" is a noun after "The" and a verb elsewhere: the lexicon cannot be sure
    (finding,) = find_not_self_contained(["The rise of prices in Europe."])
    assert (finding.kind, finding.severity) == ("no_finite_verb", "warning")


@pytest.mark.parametrize(
    "proposition",
    [
        # decontextualised claims from book summaries: a verb form of the lexicon in a
        # verb's place, which the word lists miss
        "A distance of 800 meters corresponds to approximately a ten-minute walk.",
        "Britta and Sumner attend a concert together.",
        "Izzy and her team embark on a daring heist during a grand masquerade ball.",
        "In 2019, Kate, a character in the novel, escapes from her abusive partner, Simon.",
        "June Hayward's book, 'Over the Sycamore,' receives a lukewarm reception.",
        "Alma, an injured guest, attacks Jade for causing the accident.",
        "Izzy and Max publicly announce their relationship at a social gathering.",
        "At the airport, they encounter Arnold's groomsmen, Micah and Christian.",
        '"The Echo of Everything" combines elements of speculative fiction.',
        "Evie, a graphic designer, accompanies her to the airport.",
        "Lieutenant David Cheap asserts his authority among the survivors.",
    ],
)
def test_a_verb_in_a_verbs_place_is_found(proposition: str) -> None:
    assert find_not_self_contained([proposition]) == []


@pytest.mark.parametrize(
    ("fragment", "severity"),
    [
        ("Increased demand for housing in cities.", "warning"),
        ("The rise of prices in Europe.", "warning"),
        ("Dacre, the god of the Underlings.", "error"),
        ("A list of the members of the board.", "error"),
        ("Rising costs and falling wages.", "error"),
    ],
)
def test_a_fragment_stays_a_fragment(fragment: str, severity: str) -> None:
    (finding,) = find_not_self_contained([fragment])
    assert (finding.kind, finding.severity) == ("no_finite_verb", severity)


@pytest.mark.parametrize(
    "proposition",
    [
        "Kubernetes automates the deployment of containerised applications.",
        "Floor area ratio measures building density.",
        "Solid-state batteries replace the liquid electrolyte with a solid material.",
        "Telomeres shorten with each cell division.",
        "The Krebs cycle takes place in the mitochondrial matrix.",
        "Michelangelo painted the Sistine Chapel ceiling between 1508 and 1512.",
        "Although they are costly, solid-state batteries are safer.",
        "Dr. Smith measured 3.5 V across the cell.",
        "iPhones use lithium-ion batteries.",
        "The 2010 census counted 308 million residents.",
        "Thermal runaway occurs when a cell overheats!",
        "The liver stores glycogen",  # no final period needed
        "In addition to cost, weight matters.",  # not the connective "In addition,"
        "As a result of the drought, prices rose.",
        "You can't recycle greasy pizza boxes.",
    ],
)
def test_complete_sentences_pass(proposition: str) -> None:
    assert find_not_self_contained([proposition]) == []


@pytest.mark.parametrize(
    "proposition",
    [
        "Violet learns about her mother's tragic death.",  # a name that is also an adjective
        "The narrative explores grief and memory.",  # a noun that is also an adjective
        "Tensions arise between two pilots.",  # "arise", not its spelling variant "arize"
        "John Byron's narrative criticizes the captain.",  # a noun after a name's possessive
        "The story of Violet from 1942 shows her love of nature.",  # a year, no modifier
    ],
)
def test_a_verb_after_a_noun_or_name_that_may_be_an_adjective_is_no_error(
    proposition: str,
) -> None:
    assert not [f for f in find_not_self_contained([proposition]) if f.is_error]


def test_a_verbless_list_of_names_still_is_an_error() -> None:
    findings = find_not_self_contained(["Ben Diamond, Declan Rose, and Ingrid Slocum."])
    assert [f.kind for f in findings if f.is_error] == ["no_finite_verb"]


LEXICAL_SUSPECTS = (
    "Their marriage not only unites their souls but also intertwines their fates.",
    "There's a world championship in bull-riding at stake in the story.",
)
"""Sentences with a finite verb the word lists do not recognise (a warning without the
parser)."""


def _needs_parser() -> None:
    from agentic_chunking.checks._parser import parser_status

    if not parser_status().available:
        pytest.skip("the [parser] extra is not installed")


@pytest.mark.parametrize("proposition", LEXICAL_SUSPECTS)
def test_without_the_parser_a_verb_the_lists_miss_is_only_a_warning(
    proposition: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentic_chunking.checks import _self_contained, _verbs

    monkeypatch.setattr(_verbs, "parse", lambda text: None)  # no [parser]
    _self_contained._problems.cache_clear()
    _verbs.finite_verb_reading.cache_clear()
    findings = find_not_self_contained([proposition])
    _self_contained._problems.cache_clear()  # what was judged without the parser
    _verbs.finite_verb_reading.cache_clear()
    assert [(f.kind, f.severity) for f in findings] == [("no_finite_verb", "warning")]


@pytest.mark.parametrize("proposition", LEXICAL_SUSPECTS)
def test_the_parser_clears_a_verb_the_lists_miss(proposition: str) -> None:
    _needs_parser()
    assert find_not_self_contained([proposition]) == []


@pytest.mark.parametrize(
    "fragment", ["Street lamps and park benches.", "Ben Diamond, Declan Rose, and Ingrid Slocum."]
)
def test_the_parser_never_clears_a_verbless_list(fragment: str) -> None:
    from agentic_chunking.checks import _parser

    _needs_parser()
    parsed = _parser.parse(fragment)
    assert parsed is not None and not parsed.has_finite_clause()
    assert [f.severity for f in find_not_self_contained([fragment])] == ["error"]


@pytest.mark.parametrize(
    "proposition",
    [
        "Janelle keeps her distance, focusing on her own well-being.",
        "Amerie is the bride-to-be.",
        "A signet is an ability that reflects the rider's core being.",  # "being" a noun
    ],
)
def test_a_hyphenated_word_at_the_end_is_not_cut_off(proposition: str) -> None:
    assert find_not_self_contained([proposition]) == []


def test_red_blood_cells_alone_stay_a_verbless_fragment() -> None:
    # an adjective that is also a noun is no subject without a determiner or a name
    findings = find_not_self_contained(["Red blood cells."])
    assert [(f.kind, f.severity) for f in findings] == [("no_finite_verb", "error")]


@pytest.mark.parametrize(
    ("proposition", "flagged"),
    [
        ("A year later, Ann Kerr returns to Leeds.", True),
        ("Two weeks later Ann Kerr left Paris.", True),
        ("Years later, Ann Kerr reopened the bakery.", True),
        ("The next morning, Ann Kerr leaves Leeds.", True),
        ("Soon after, Ann Kerr left Leeds.", True),
        ("Two years before her death, Ann Kerr left Paris.", False),  # the event is named
        ("A year after the war, Ann Kerr left Paris.", False),
        ("Ann Kerr left Paris a year later.", False),  # not an opening
        ("Ten years later, in 1990, Ann Kerr left Paris.", False),  # a date anchors it
    ],
)
def test_an_opening_time_relative_to_an_unnamed_event_leans_on_context(
    proposition: str, flagged: bool
) -> None:
    kinds = [f.kind for f in find_not_self_contained([proposition])]
    assert ("leans_on_context" in kinds) is flagged


IMPERATIVES_BY_THE_LEXICON = (
    "Declare compliance with Policy 4.6.0.",  # a verb with no noun reading
    "Migrate to debhelper 13.",
    "Remove obsolete patches.",
    "Use the new upstream tarball.",  # a determiner after it: a verb takes it, a noun not
    "Bump Standards-Version to 4.5.0.",  # a name after it
)
"""Changelog lines given back verbatim: an instruction opening on a verb's base form."""

VERBLESS_FRAGMENTS = (
    "2.",
    "Closes: #12345",
    "Street lamps and park benches.",
    "Park benches and street lamps.",  # "park" is a verb too, but a noun compound here
    "Rising costs and falling wages.",
    "Support for the project.",
    "Copyright 2001 Free Software Foundation.",
)


def _forget() -> None:
    """Clear what the rule remembers (judged with or without the parser)."""
    from agentic_chunking.checks import _self_contained, _verbs

    _self_contained._problems.cache_clear()
    _verbs.finite_verb_reading.cache_clear()


def _without_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentic_chunking.checks import _verbs

    monkeypatch.setattr(_verbs, "parse", lambda text: None)
    _forget()


def _verb_findings(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.severity) for f in find_not_self_contained([text]) if f.kind != "form"]


@pytest.fixture(params=["parser", "lexicon"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Judge with the parser (skipped without the extra), then with the lexicon alone."""
    if request.param == "parser":
        _needs_parser()
    else:
        _without_parser(monkeypatch)
    yield request.param
    _forget()  # what was judged either way


@pytest.mark.parametrize("imperative", IMPERATIVES_BY_THE_LEXICON)
def test_an_imperative_is_a_warning_not_a_fragment(imperative: str, reader: str) -> None:
    (finding,) = find_not_self_contained([imperative])
    assert (finding.kind, finding.severity) == ("no_finite_verb", "warning")
    assert "imperative" in finding.reason


def test_the_parse_reads_an_imperative_the_lexicon_cannot() -> None:
    # "upload" is a noun too, and "to" follows nouns as well: only the parse can tell
    _needs_parser()
    (finding,) = find_not_self_contained(["Upload to unstable."])
    assert (finding.kind, finding.severity) == ("no_finite_verb", "warning")
    assert "imperative" in finding.reason


@pytest.mark.parametrize("fragment", VERBLESS_FRAGMENTS)
def test_a_true_fragment_stays_an_error(fragment: str, reader: str) -> None:
    assert _verb_findings(fragment) == [("no_finite_verb", "error")]
