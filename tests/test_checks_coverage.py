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


def test_no_propositions_at_all_drop_every_fact_as_an_error() -> None:
    """An output with no propositions certainly breaks coverage: each fact sentence is an
    error, with numbers or without; one proposition left makes the others warnings again."""
    findings = find_uncovered_sentences([], SOURCE)
    assert len(findings) == 3 and all(f.is_error for f in findings)
    assert all("a fact dropped" in f.reason for f in findings)
    kept = find_uncovered_sentences(["The Aletsch Glacier is about 23 kilometres long."], SOURCE)
    assert len(kept) == 2 and not any(f.is_error for f in kept)
    assert find_uncovered_sentences([], "") == []  # nothing to cover: nothing dropped


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


# Partly stated: a sentence split into propositions, one of them dropped, keeps more
# than COVERED of its words; a fact word no proposition states shows it, when the rest
# of the output keeps the passage's words (checks._coverage, KEPT_ELSEWHERE).
CLUSTER = (
    "Kubernetes is an open-source container orchestration platform that automates the "
    "deployment, scaling and management of containerized applications. "
    "Red blood cells have no mitochondria, so these cells rely on glycolysis alone for "
    "energy. The human liver stores glycogen. When blood sugar falls, the organ breaks "
    "this glycogen down. The separator lets lithium ions pass."
)
STATED = [
    "Kubernetes is an open-source container orchestration platform.",
    "Kubernetes automates the deployment of containerized applications.",
    "Kubernetes automates the scaling of containerized applications.",
    "Kubernetes automates the management of containerized applications.",
    "Red blood cells have no mitochondria.",
    "Red blood cells rely on glycolysis alone for energy.",
    "The human liver stores glycogen.",
    # context carried: "the organ" resolved, "this glycogen" too
    "When blood sugar falls, the human liver breaks glycogen down.",
    # the causative "lets" left for the verb it governs
    "Lithium ions pass through the separator.",
]


def test_an_output_in_the_passages_words_covers_every_sentence() -> None:
    stated = coverage(STATED, CLUSTER)
    assert (stated.covered, stated.uncovered) == (stated.facts, ())


@pytest.mark.parametrize(
    ("dropped", "sentence", "words"),
    [
        (
            "Kubernetes automates the scaling of containerized applications.",
            "Kubernetes is an open-source",
            "scaling",
        ),  # one item of a list
        (
            "Red blood cells rely on glycolysis alone for energy.",
            "Red blood cells have no mitochondria",
            "rely, glycolysis, energy",
        ),  # one clause of two
    ],
)
def test_a_fact_dropped_from_a_split_sentence_is_a_warning_naming_its_words(
    dropped: str, sentence: str, words: str
) -> None:
    props = [p for p in STATED if p != dropped]
    (finding,) = find_uncovered_sentences(props, CLUSTER)
    assert finding.severity == "warning" and finding.source_sentence.startswith(sentence)
    assert f"no proposition states part of this sentence: {words} " in finding.reason
    assert coverage(props, CLUSTER).covered == coverage(props, CLUSTER).facts - 1


def test_an_output_that_rewords_throughout_is_judged_by_the_share_alone() -> None:
    # a summary: every sentence reworded, words left out everywhere; each sentence keeps
    # half its words, so no sentence is flagged for the words it leaves out
    summary = [
        "Kubernetes is a container orchestration platform.",
        "Kubernetes automates deployment and management of containerized applications.",
        "Red blood cells have no mitochondria and use glycolysis.",
        "The human liver stores glycogen.",
        "When blood sugar falls, the human liver releases glycogen.",
        "Lithium ions pass through the separator.",
    ]
    assert find_uncovered_sentences(summary, CLUSTER) == []


def test_a_short_source_shows_no_style_to_judge_a_missing_word_by() -> None:
    source = "Zoning codes regulate height and coverage."
    assert find_uncovered_sentences(["Zoning codes regulate height."], source) == []


def test_a_converse_relation_states_the_sentence() -> None:
    source = (
        "Deoxygenated blood is pumped to the lungs by the right ventricle. "
        "The left ventricle pumps oxygenated blood to the body. "
        "Four valves keep blood flowing in one direction."
    )
    props = [
        "The right ventricle pumps deoxygenated blood to the lungs.",
        "The left ventricle pumps oxygenated blood to the body.",
        "Four valves keep blood flowing in one direction through the heart.",
    ]
    assert find_uncovered_sentences(props, source) == []


def test_a_listed_paraphrase_states_its_word() -> None:
    source = CLUSTER + " Most commercial panels use crystalline silicon cells."
    props = [*STATED, "Most commercial panels employ crystalline silicon cells."]
    assert find_uncovered_sentences(props, source) == []


PARTS = (
    "The separator is a thin porous membrane which keeps the anode and the cathode apart. "
    "Pumps keep water moving through the plant. "
    "The angle of the dance shows the direction of the food, and its duration indicates "
    "the distance. "
    "Kubernetes automates the deployment, scaling and management of containerized "
    "applications."
)
PARTS_STATED = [
    "The separator is a thin porous membrane.",
    "The separator keeps the anode and the cathode apart.",
    "Pumps keep water moving through the plant.",
    "The angle of the dance shows the direction of the food.",
    "The duration of the dance indicates the distance.",
    "Kubernetes automates the deployment of containerized applications.",
    "Kubernetes automates the scaling of containerized applications.",
    "Kubernetes automates the management of containerized applications.",
]


@pytest.mark.parametrize(
    ("dropped", "words"),
    [
        # "keep" of another sentence's proposition does not state this one's
        ("The separator keeps the anode and the cathode apart.", "keeps"),
        # "shows" stands for the sentence's own "shows", not for its "indicates"; "its"
        # keeps its noun
        ("The duration of the dance indicates the distance.", "duration, indicates"),
        # "the deployment, scaling and management of ...": spelled out, no reference
        ("Kubernetes automates the deployment of containerized applications.", "deployment"),
    ],
)
def test_a_word_is_stated_only_by_a_proposition_about_its_sentence(
    dropped: str, words: str
) -> None:
    assert find_uncovered_sentences(PARTS_STATED, PARTS) == []
    props = [p for p in PARTS_STATED if p != dropped]
    (finding,) = find_uncovered_sentences(props, PARTS)
    assert f"no proposition states part of this sentence: {words} " in finding.reason


def test_a_dropped_sentence_names_its_number_in_the_singular_and_says_it_may_be_a_word() -> None:
    source = "Coffee grows in the tropics. Arabica and robusta are the two main species."
    (finding,) = find_uncovered_sentences(["Coffee grows in the tropics."], source)
    assert "its number 2 (in figures or in words) appears in no proposition" in finding.reason
    source = "Coffee grows in the tropics. It grows in 11 countries and 3 regions."
    (finding,) = find_uncovered_sentences(["Coffee grows in the tropics."], source)
    assert "its numbers 11, 3 (in figures or in words) appear in no proposition" in finding.reason


@pytest.mark.parametrize(
    "title",
    ["## Glaciers store fresh water", "Glaciers store fresh water\n==========================="],
)
def test_a_heading_by_its_layout_is_not_a_fact_even_with_a_verb(title: str) -> None:
    """The segmenter gives a heading alone (a blank line and a heading line end a
    sentence); its shape, not its words, says it states nothing."""
    source = f"{title}\n\nMeltwater feeds many rivers during the dry season."
    stated = coverage(["Meltwater feeds many rivers during the dry season."], source)
    assert (stated.covered, stated.facts, stated.uncovered) == (1, 1, ())


@pytest.mark.parametrize(
    "fact",
    [
        "I moved to Paris with my sister last year",  # a chat line: no full stop, a verb
        "Glaciers and ice sheets hold most fresh water.",  # closed: a sentence
        "Glaciers and ice sheets\ncover a tenth of the land",  # two lines: a sentence
    ],
)
def test_a_line_without_a_heading_shape_is_still_judged_a_fact(fact: str) -> None:
    source = f"{fact}\n\nMeltwater feeds many rivers during the dry season."
    stated = coverage(["Meltwater feeds many rivers during the dry season."], source)
    assert stated.facts == 2 and len(stated.uncovered) == 1
