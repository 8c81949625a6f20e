"""Soft granularity metrics: deviation flags, explanations, theme matching."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking.report import (
    CaseResult,
    Expectation,
    SeedFigures,
    deviation_notes,
    load_results,
    metric_status,
    missing_themes,
    theme_found,
)
from agentic_chunking.report._themes import default_similarity, theme_matches

FIXTURES = Path(__file__).parent / "fixtures" / "report"


@pytest.fixture(scope="module")
def tc031() -> CaseResult:
    case = load_results(FIXTURES / "results-reference.json").case("TC-031")
    assert case is not None
    return case  # 6 chunks, 20 propositions, 354 tokens


@pytest.mark.parametrize(
    ("span", "direction"),
    [((5, 8), "in"), ((6, 6), "in"), ((7, 9), "below"), ((2, 5), "above"), (None, "unknown")],
)
def test_chunks_against_range(
    tc031: CaseResult, span: tuple[int, int] | None, direction: str
) -> None:
    case = replace(tc031, expected=replace(tc031.expected, chunks=span))
    status = metric_status(case, "chunks")
    assert status.actual == 6
    assert status.direction == direction
    assert status.deviates == (direction in ("above", "below"))
    assert bool(status.explanation) == (direction != "in")


def test_explanation_names_value_range_gap_and_seed(tc031: CaseResult) -> None:
    case = replace(tc031, expected=replace(tc031.expected, chunks=(2, 4)))
    text = metric_status(case, "chunks").explanation
    assert text.startswith("6 chunks is 2 above the expected 2-4: the grouper split")
    assert text.endswith("seed 000 reported 6")
    tokens = metric_status(tc031, "tokens")  # 354 against 400-650
    assert tokens.direction == "below"
    assert "46 below" in tokens.explanation
    assert tokens.seed == 499 and tokens.seed_delta == 354 - 499


def test_deviation_notes_list_counts_and_missing_themes(tc031: CaseResult) -> None:
    assert deviation_notes(tc031) == [metric_status(tc031, "tokens").explanation]
    case = replace(
        tc031, expected=Expectation(chunks=(1, 2), themes=("Quantum",), seed=SeedFigures(chunks=6))
    )
    notes = deviation_notes(case)
    assert len(notes) == 2
    assert notes[0].startswith("6 chunks is 4 above")
    assert notes[1] == "expected theme 'Quantum' is not among the categories"


def test_no_response_is_unknown_not_a_deviation(tc031: CaseResult) -> None:
    case = replace(tc031, response=None, outcome="error", error="the model call failed")
    status = metric_status(case, "propositions")
    assert status.direction == "unknown" and not status.deviates
    assert "the model call failed" in status.explanation
    assert missing_themes(case) == []


@pytest.mark.parametrize(
    ("expected", "categories", "found"),
    [
        ("Battery", ["Lithium-ion Battery Fundamentals"], True),
        ("batteries", ["Solid-State Battery Technology"], True),
        ("Urban Planning", ["Urban Planning and Zoning"], True),
        ("Urban Planning", ["Urban Renewal", "Planning Law"], False),
        ("Genomics", ["Cellular Energy Production"], False),
        ("", ["Anything"], False),
    ],
)
def test_theme_found_by_stems(expected: str, categories: list[str], found: bool) -> None:
    assert theme_matches(expected, categories, similarity=None) is found


def test_a_theme_is_found_by_meaning_where_the_words_differ() -> None:
    def similar(theme: str, categories: object) -> list[float]:
        return [0.9 if c == "Land-Use Regulation" else 0.1 for c in categories]  # type: ignore[attr-defined]

    assert theme_matches("Zoning", ["Energy", "Land-Use Regulation"], similarity=similar)
    assert not theme_matches("Zoning", ["Energy"], similarity=similar)
    assert not theme_matches("Zoning", ["Land-Use Regulation"], similarity=None)


@pytest.mark.skipif(default_similarity() is None, reason="needs the semantic extra")
@pytest.mark.parametrize(
    ("expected", "categories", "found"),
    [
        ("Zoning", ["Battery Storage", "Land-Use Regulation"], True),
        ("Batteries", ["Energy Storage"], True),
        ("Genomics", ["Cellular Energy Production", "Metabolism"], False),
        ("Printing", ["The Reformation"], False),
    ],
)
def test_theme_found_uses_the_embedder_when_installed(
    expected: str, categories: list[str], found: bool
) -> None:
    assert theme_found(expected, categories) is found


words = st.text(alphabet="abcdefghij", min_size=1, max_size=8)


@settings(deadline=None)  # the first example loads the stemmer; CI machines are shared
@given(st.lists(words, min_size=1, max_size=4), st.lists(words, max_size=4))
def test_a_theme_is_found_in_any_category_that_contains_it(
    theme: list[str], extra: list[str]
) -> None:
    expected = " ".join(theme)
    assert theme_matches(expected, [" ".join([*extra, *theme, *extra]).title()], similarity=None)
    assert not theme_matches(expected + " zzzzq", [expected], similarity=None)


def test_a_count_is_explained_by_granularity_only_where_that_applies(tc031: CaseResult) -> None:
    expects_failure = replace(
        tc031, expected_error=("max_tokens",), expected=Expectation(chunks=(0, 0))
    )
    status = metric_status(expects_failure, "chunks")
    assert status.direction == "above"
    assert "expects a clean failure with no output, but the run succeeded" in status.explanation
    assert "grouper" not in status.explanation
    normal = metric_status(replace(tc031, expected=Expectation(chunks=(1, 2))), "chunks")
    assert "the grouper split themes more finely" in normal.explanation


@pytest.mark.parametrize(
    ("expected", "categories", "found"),
    [
        ("Big Cities", ["Large Cities"], True),
        ("Major Causes of Decline", ["Weather", "Significant Causes of Decline"], True),
        ("Reasons for Delay", ["Delays Due To Weather"], False),  # "reason" is not listed
        ("Small Cities", ["Large Cities"], False),  # opposite groups never match
        ("Big Cities", ["Large Towns"], False),  # every theme word must be said
        ("Zoning", ["Land-Use Regulation"], False),  # a domain term is not in the lexicon
    ],
)
def test_a_theme_is_found_by_the_paraphrase_lexicon(
    expected: str, categories: list[str], found: bool
) -> None:
    assert theme_matches(expected, categories, similarity=None) is found
