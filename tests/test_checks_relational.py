"""Faithful restatements that are no invention (issue 31, item 4): a converse relation, a
superlative's "of all"; and a relational error the judge contradicts becomes a warning."""

from __future__ import annotations

import pytest

from agentic_chunking.checks import (
    ERROR,
    NO_INVENTION,
    RELATIONAL_KINDS,
    WARNING,
    Finding,
    find_inventions,
    find_uncovered_sentences,
)
from agentic_chunking.checks._converse import SAME_ORDER, SWAPPED, converse_reading, converses_of
from agentic_chunking.judge import Judgement, PropositionVerdict, combine, number_propositions

FAMILY = "Tom Hale is the grandson of Bill Hale. Tom Hale works as a baker in Leeds."
SCHOOL = "Ann Lee was a student of Marie Curie at the Sorbonne. Ann Lee later lived in Lyon."


def _with_the_rest(claim: str, source: str) -> list[str]:
    """``claim`` and the source's sentences after its first, verbatim."""
    return [claim, *(s if s.endswith(".") else s + "." for s in source.split(". ")[1:] if s)]


def _kinds(propositions: list[str], source: str) -> list[tuple[str, str]]:
    return [(f.kind, f.severity) for f in find_inventions(propositions, source)]


def test_the_converse_lexicon_is_symmetric() -> None:
    assert "grandfath" in converses_of("grandson")
    assert "grandson" in converses_of("grandfath")
    assert converses_of("baker") == frozenset()


@pytest.mark.parametrize(
    ("source", "restated"),
    [
        (FAMILY, "Bill Hale is the grandfather of Tom Hale."),
        (FAMILY, "Bill Hale is the grandmother of Tom Hale."),
        (SCHOOL, "Marie Curie was a teacher of Ann Lee at the Sorbonne."),
        ("Leeds United lost to Arsenal in the final.", "Arsenal beat Leeds United in the final."),
    ],
)
def test_a_converse_restatement_covers_its_sentence_and_invents_nothing(
    source: str, restated: str
) -> None:
    propositions = _with_the_rest(restated, source)
    assert find_uncovered_sentences(propositions, source) == []
    assert _kinds(propositions, source) == []


@pytest.mark.parametrize(
    ("source", "reversed_claim"),
    [
        (FAMILY, "Tom Hale is the grandfather of Bill Hale."),
        (SCHOOL, "Ann Lee was a teacher of Marie Curie at the Sorbonne."),
    ],
)
def test_a_converse_with_its_sides_unswapped_reverses_the_relation(
    source: str, reversed_claim: str
) -> None:
    assert ("swapped_term", WARNING) in _kinds([reversed_claim], source)
    uncovered = find_uncovered_sentences(_with_the_rest(reversed_claim, source), source)
    assert uncovered and uncovered[0].source_sentence == source.split(". ")[0] + "."


def test_converse_reading_tells_the_sides_apart_by_what_they_do_not_share() -> None:
    sentence = "Tom Hale is the grandson of Bill Hale."
    assert converse_reading("Bill Hale is the grandfather of Tom Hale.", sentence, "grandson") == (
        SWAPPED
    )
    assert converse_reading("Tom Hale is the grandfather of Bill Hale.", sentence, "grandson") == (
        SAME_ORDER
    )
    assert converse_reading("Tom Hale is the grandson of Bill Hale.", sentence, "grandson") is None
    assert converse_reading("Bill Hale is a grandfather.", sentence, "grandson") is None


@pytest.mark.parametrize(
    ("source", "restated"),
    [
        (
            "Mercury is the smallest planet in the Solar System.",
            "Mercury is the smallest of all planets in the Solar System.",
        ),
        (
            "Mercury is the smallest planet in the Solar System.",
            "Mercury is the smallest planet of all in the Solar System.",
        ),
        ("Mercury is the densest planet.", "Mercury is the most dense of all planets."),
        ("Lead is the most toxic metal here.", "Lead is the most toxic of all metals here."),
    ],
)
def test_a_superlative_restated_with_of_all_adds_no_quantifier(source: str, restated: str) -> None:
    assert _kinds([restated], source) == []


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        ("Cats sleep in the sun.", "All cats sleep in the sun."),
        ("Tea is popular in Leeds.", "Tea is popular in all of Leeds."),
        ("Cats in Leeds sleep in the sun.", "Cats of all ages in Leeds sleep in the sun."),
        ("Cats sleep in the sun.", "Most cats sleep in the sun."),
    ],
)
def test_an_all_or_most_that_is_no_superlative_is_still_an_added_quantifier(
    source: str, proposition: str
) -> None:
    assert "added_quantifier" in [kind for kind, _ in _kinds([proposition], source)]


PROPOSITIONS = ["Mercury is the smallest of all planets.", "Mercury has 0 moons."]
NUMBERED = number_propositions([PROPOSITIONS])


def _judged(kind: str, severity: str, verdict: str) -> Finding:
    finding = Finding(PROPOSITIONS[0], NO_INVENTION, "det", severity=severity, kind=kind)  # type: ignore[arg-type]
    judgement = Judgement(
        "j",
        (
            PropositionVerdict(1, verdict, "the source says so"),  # type: ignore[arg-type]
            PropositionVerdict(2, "supported", "ok"),
        ),
        (),
    )
    (out,) = combine({NO_INVENTION: [finding]}, judgement, NUMBERED, rules=(NO_INVENTION,))[
        NO_INVENTION
    ]
    return out


@pytest.mark.parametrize("kind", sorted(RELATIONAL_KINDS))
def test_a_relational_error_the_judge_finds_supported_becomes_a_warning(kind: str) -> None:
    out = _judged(kind, ERROR, "supported")
    assert (out.severity, out.judge) == (WARNING, "cleared")  # type: ignore[attr-defined]
    assert "the judge finds it supported: the source says so" in out.reason


@pytest.mark.parametrize("kind", sorted(RELATIONAL_KINDS))
def test_a_relational_warning_the_judge_finds_supported_stays_a_warning(kind: str) -> None:
    out = _judged(kind, WARNING, "supported")
    assert (out.severity, out.judge) == (WARNING, "cleared")  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["added_quantifier", "moved_number"])
def test_a_relational_error_the_judge_confirms_stays_an_error(kind: str) -> None:
    out = _judged(kind, ERROR, "not_supported")
    assert (out.severity, out.judge) == (ERROR, "confirmed")  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["invented_number", "invented_name", ""])
def test_an_error_on_what_the_source_never_states_stays_an_error_when_the_judge_disagrees(
    kind: str,
) -> None:
    out = _judged(kind, ERROR, "supported")
    assert (out.severity, out.judge) == (ERROR, "disagrees")  # type: ignore[attr-defined]


def test_a_proposition_that_keeps_the_relation_word_reads_no_converse() -> None:
    source = "Later, Violet's father sends her away to await the birth and her marriage."
    claim = "Violet's father sends her away to await the birth of her child and her marriage."
    assert converse_reading(claim, source, "father") is None
    assert "swapped_term" not in [kind for kind, _ in _kinds([claim], source)]


SONY = "Sony is prepping a U.K. version of the show, which fared well in Canada."


@pytest.mark.parametrize(
    "claim",
    ["Sony is prepping a British version of the show.", "The show fared well in Canada."],
)
def test_a_demonym_of_a_place_the_source_names_is_no_invented_name(claim: str) -> None:
    assert _kinds([claim], SONY) == []


@pytest.mark.parametrize(
    "claim",
    ["Sony is prepping a French version of the show.", "Sony is prepping a German version."],
)
def test_a_demonym_of_a_place_the_source_never_names_is_an_invented_name(claim: str) -> None:
    assert ("invented_name", ERROR) in _kinds([claim], SONY)
