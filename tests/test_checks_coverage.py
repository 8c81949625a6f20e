"""Coverage: every fact sentence of the input is stated by some proposition."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking import split_sentences
from agentic_chunking._models import AgenticChunk, AgenticResponse
from agentic_chunking.checks import COVERAGE, coverage, find_uncovered_sentences
from agentic_chunking.report import CaseResult
from agentic_chunking.suite import load_cases
from agentic_chunking.suite._runner import judge

SOURCE = (
    "Glaciers form where snow accumulates faster than it melts. "
    "The Aletsch Glacier is about 23 kilometres long. "
    "Meltwater feeds many rivers during the dry season."
)


def test_a_source_stated_in_full_is_covered() -> None:
    props = [
        "Glaciers form where snow accumulates faster than snow melts.",
        "The Aletsch Glacier is about 23 kilometres long.",
        "Glacial meltwater feeds many rivers during the dry season.",
    ]
    stated = coverage(props, SOURCE)
    assert (stated.covered, stated.facts, stated.share) == (3, 3, 1.0)
    assert find_uncovered_sentences(props, SOURCE) == []


def test_a_dropped_fact_is_a_warning_naming_the_sentence() -> None:
    props = [
        "Glaciers form where snow accumulates faster than snow melts.",
        "The Aletsch Glacier is about 23 kilometres long.",
    ]
    (finding,) = find_uncovered_sentences(props, SOURCE)
    assert (finding.rule, finding.kind, finding.severity) == (
        COVERAGE,
        "uncovered_sentence",
        "warning",
    )
    assert finding.source_sentence == "Meltwater feeds many rivers during the dry season."
    (strict,) = find_uncovered_sentences(props, SOURCE, severity="error")
    assert strict.is_error


def test_a_dropped_number_is_an_error_whatever_the_setting() -> None:
    props = [
        "Glaciers form where snow accumulates faster than snow melts.",
        "Meltwater feeds many rivers during the dry season.",
    ]
    (finding,) = find_uncovered_sentences(props, SOURCE)
    assert finding.is_error and "23" in finding.reason


@pytest.mark.parametrize(
    "not_a_fact",
    ["Glaciers and ice sheets", "[12]", "See Figure 3.", "(Smith et al., 2020)", "Table 2"],
)
def test_headings_citations_and_figure_references_are_not_facts(not_a_fact: str) -> None:
    source = f"{not_a_fact}\n\nMeltwater feeds many rivers during the dry season."
    stated = coverage(["Meltwater feeds many rivers during the dry season."], source)
    assert (stated.covered, stated.facts, stated.uncovered) == (1, 1, ())


def test_a_repeated_sentence_is_covered_by_one_proposition() -> None:
    source = (
        "Chlorine kills bacteria in water. Filters remove sand. Chlorine kills bacteria in water."
    )
    props = ["Chlorine kills bacteria in water.", "Filters remove sand."]
    assert coverage(props, source).uncovered == ()


_WORDS = st.sampled_from(["rivers", "glaciers", "feed", "melt", "snow", "form", "the", "cold"])
_SENTENCE = st.lists(_WORDS, min_size=3, max_size=8).map(lambda w: " ".join(w).capitalize() + ".")


@settings(max_examples=40, deadline=None)
@given(st.lists(_SENTENCE, min_size=1, max_size=5))
def test_the_source_sentences_themselves_cover_the_source(sentences: list[str]) -> None:
    source = " ".join(sentences)
    assert coverage(split_sentences(source), source).uncovered == ()


def _response(case_id: str, props: list[str]) -> AgenticResponse:
    chunk = AgenticChunk.from_propositions(
        document_id=case_id, seq=1, thematic_category="All", propositions=props
    )
    return AgenticResponse(chunks=(chunk,))


def test_the_suite_reports_coverage_per_case_and_a_case_can_make_it_an_error() -> None:
    cases = {c.id: c for c in load_cases(Path(__file__).resolve().parent.parent / "cases")}
    strict, loose = cases["TC-004"], cases["TC-001"]
    assert (strict.coverage, loose.coverage) == ("error", "warning")
    first = split_sentences(strict.source_text)[0]
    result = judge(strict, _response(strict.id, [first]))
    assert result.outcome == "failed" and result.checks[COVERAGE].passed is False
    assert result.coverage is not None and result.coverage[0] == 1 < result.coverage[1]
    assert CaseResult.from_dict(result.to_dict()).coverage == result.coverage
    facts = split_sentences(loose.source_text)
    passed = judge(loose, _response(loose.id, facts))
    assert passed.checks[COVERAGE].passed is True and passed.coverage == (len(facts), len(facts))


def test_the_report_shows_warnings_apart_from_errors_and_the_coverage() -> None:
    from agentic_chunking.report import RunResults, render_report

    cases = {c.id: c for c in load_cases(Path(__file__).resolve().parent.parent / "cases")}
    case = cases["TC-003"]
    facts = split_sentences(case.source_text)
    invented = facts[-1].rstrip(".") + " since 2031."
    # a dropped fact (warning), an impersonal "you" (warning), an invented year (error)
    props = [*facts[1:], "You can see the liver.", invented]
    result = judge(case, _response(case.id, props))
    html = render_report([RunResults(model="reference", cases=(result,))], plots=False)
    assert "⚠" in html and "(warning)" in html and "✘" in html
    assert f"Coverage: {len(facts) - 1} of {len(facts)} fact sentences" in html
    assert "Input sentences no proposition states" in html
    assert "judged against" in html
