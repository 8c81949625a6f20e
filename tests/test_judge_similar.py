"""Duplicates by meaning through the judge layer: the ``semantic`` extra's pairs are sent
to the judge and become ``similar_meaning`` warnings that its verdict confirms or clears;
without the extra, pairs and findings are the lexical ones.

A fake finder keeps most tests fast and free of any model's numbers; one test runs
MiniLM and skips without the extra.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from embedders import MEANING_EXAMPLES, TableEmbedder

from agentic_chunking import AgenticChunk, AgenticChunkInput, AgenticResponse
from agentic_chunking.checks import ERROR, NO_DUPLICATION, WARNING, find_duplicates
from agentic_chunking.checks._duplicates import SIMILAR
from agentic_chunking.judge import (
    Judgement,
    PairVerdict,
    _similar,
    assess,
    candidate_pairs,
    number_propositions,
    plan_judge_requests,
    read_judge_request,
)
from agentic_chunking.judge._request import lexical_candidate_pairs
from agentic_chunking.report import FindingRecord
from agentic_chunking.semantic import MiniLMEmbedder
from agentic_chunking.semantic import _duplicates as semantic_duplicates
from agentic_chunking.semantic._duplicates import (
    SEMANTIC_DUPLICATES_ENV_VAR,
    SimilarityFinder,
    default_finder,
)

# one fact, the same fact reworded (no lexical rule sees them), another fact about the
# same subject, and an unrelated one: the fake embedder's table
INSULIN, REWORDED, OTHER, ROME = MEANING_EXAMPLES


def fake_finder(threshold: float = 0.9) -> SimilarityFinder:
    return SimilarityFinder(TableEmbedder(), threshold)


def response(*chunks: list[str]) -> AgenticResponse:
    return AgenticResponse(
        chunks=tuple(
            AgenticChunk.from_propositions(
                document_id="D", seq=i + 1, thematic_category=f"T{i}", propositions=chunk
            )
            for i, chunk in enumerate(chunks)
        )
    )


@pytest.fixture
def with_finder(monkeypatch: pytest.MonkeyPatch) -> SimilarityFinder:
    """The judge layer's default finder replaced by the fake one."""
    finder = fake_finder()
    monkeypatch.setattr(_similar, "default_finder", lambda: finder)
    monkeypatch.setattr("agentic_chunking.judge._assess.default_finder", lambda: finder)
    return finder


@pytest.fixture
def without_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine without the ``semantic`` extra (switched on: it still cannot run)."""
    monkeypatch.setattr(semantic_duplicates, "_extra_installed", lambda: False)
    monkeypatch.setenv(SEMANTIC_DUPLICATES_ENV_VAR, "on")


def test_by_default_the_judge_gets_the_lexical_pairs_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the extra installed but not switched on (the default): lexical only, so the
    recorded judge requests do not depend on the extra."""
    monkeypatch.setattr(semantic_duplicates, "_extra_installed", lambda: True)
    monkeypatch.delenv(SEMANTIC_DUPLICATES_ENV_VAR, raising=False)
    assert _similar.default_finder() is None
    numbered = number_propositions([[INSULIN, ROME, REWORDED]])
    assert candidate_pairs(numbered) == lexical_candidate_pairs(numbered)


def test_the_judge_is_sent_the_pairs_close_in_meaning(with_finder: SimilarityFinder) -> None:
    numbered = number_propositions([[INSULIN, ROME], [REWORDED]])
    assert candidate_pairs(numbered) == [(1, 3)]
    inputs = [AgenticChunkInput("C1", f"{INSULIN} {ROME} {REWORDED}")]
    (request,) = plan_judge_requests(inputs, response([INSULIN, ROME], [REWORDED]))
    assert request.pairs == ((1, 3),)
    assert read_judge_request(request.message).pairs == ((1, 3),)


def test_lexical_pairs_keep_their_place_and_are_not_sent_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    glycogen = ["The liver stores glycogen.", "Glycogen is stored by the liver."]
    texts = [INSULIN, *glycogen, REWORDED]
    vectors = {t: [1.0, 0.0] for t in texts}  # everything close to everything
    finder = SimilarityFinder(TableEmbedder(vectors), 0.9)
    monkeypatch.setattr(_similar, "default_finder", lambda: finder)
    # (2, 3) is the lexical pair, in its place; (1, 3) is not added: 3 is a copy of 2
    # for the lexical rules, which settle it
    pairs = candidate_pairs(number_propositions([texts]))
    assert pairs == [(1, 2), (2, 3), (1, 4), (2, 4), (3, 4)]


def test_without_the_extra_the_judge_gets_the_lexical_pairs_only(without_extra: None) -> None:
    numbered = number_propositions([[INSULIN, ROME, REWORDED]])
    assert candidate_pairs(numbered) == []
    glycogen = number_propositions(
        [["The liver stores glycogen.", INSULIN, "Glycogen is stored by the liver."]]
    )
    assert candidate_pairs(glycogen) == [(1, 3)]


def judged(same_fact: bool) -> Judgement:
    return Judgement("j", (), (PairVerdict(1, 3, same_fact, "pair reason"),))


def test_the_judge_confirming_the_pair_makes_the_warning_an_error(
    with_finder: SimilarityFinder,
) -> None:
    output = response([INSULIN, ROME], [REWORDED])
    check = assess(output, source=None, judgement=judged(True)).checks[NO_DUPLICATION]
    (finding,) = check.findings
    assert (finding.kind, finding.severity, finding.judge) == (SIMILAR, ERROR, "confirmed")
    assert check.passed is False


def test_the_judge_clearing_the_pair_leaves_a_cleared_warning(
    with_finder: SimilarityFinder,
) -> None:
    output = response([INSULIN, ROME], [REWORDED])
    check = assess(output, source=None, judgement=judged(False)).checks[NO_DUPLICATION]
    (finding,) = check.findings
    assert (finding.kind, finding.severity, finding.judge) == (SIMILAR, WARNING, "cleared")
    assert check.passed is True


def test_without_a_judge_the_pair_is_a_warning(with_finder: SimilarityFinder) -> None:
    check = assess(response([INSULIN, ROME, REWORDED]), source=None).checks[NO_DUPLICATION]
    assert [(f.kind, f.severity) for f in check.findings] == [(SIMILAR, WARNING)]
    assert check.passed is True


def test_without_the_extra_assess_is_lexical_only(without_extra: None) -> None:
    assert _similar.default_finder() is None
    output = response([INSULIN, ROME], [REWORDED, "Glycogen is stored by the liver."])
    check = assess(output, source=None).checks[NO_DUPLICATION]
    assert check.findings == () and check.passed is True


def test_without_the_extra_pairs_and_findings_are_exactly_the_lexical_ones(
    without_extra: None,
) -> None:
    chunks = [
        [INSULIN, "The liver stores glycogen.", "Kubernetes automates deployment."],
        ["Glycogen is stored by the liver.", REWORDED, "The liver stores a lot of glycogen."],
        ["Kubernetes automates the deployment of containers.", INSULIN],
    ]
    numbered = number_propositions(chunks)
    assert candidate_pairs(numbered) == lexical_candidate_pairs(numbered) != []
    check = assess(response(*chunks), source=None).checks[NO_DUPLICATION]
    expected = tuple(FindingRecord.of(f) for f in find_duplicates(chunks))
    assert check.findings == expected and len(expected) >= 2


@pytest.mark.skipif(not MiniLMEmbedder.available(), reason="needs the semantic extra")
def test_minilm_pairs_a_rewording_and_not_two_facts_about_one_subject(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SEMANTIC_DUPLICATES_ENV_VAR, "on")
    finder = default_finder()
    assert finder is not None
    rising = "Autoscaling adds servers when demand rises."
    falling = "Autoscaling removes servers when demand falls."
    assert [(p.first, p.later) for p in finder.pairs([INSULIN, rising, REWORDED, falling])] == [
        (0, 2)
    ]
    check = assess(response([INSULIN, rising], [REWORDED, falling]), source=None)
    (finding,) = check.checks[NO_DUPLICATION].findings
    assert (finding.proposition, finding.kind) == (REWORDED, SIMILAR)


def test_a_stale_cassette_says_the_extra_changes_the_judges_pairs(tmp_path: Path) -> None:
    from vcr.errors import CannotOverwriteExistingCassetteException

    from agentic_chunking.suite._cassettes import cassette_error

    cassette = tmp_path / "TC-001.yaml"
    cassette.write_text("interactions: []\n", encoding="utf-8")
    unmatched = CannotOverwriteExistingCassetteException.__new__(
        CannotOverwriteExistingCassetteException
    )
    error = cassette_error(unmatched, path=cassette, case_id="TC-001", model="m")
    assert error is not None and "stale" in str(error)
    assert f"{SEMANTIC_DUPLICATES_ENV_VAR}=on adds pairs close in meaning" in str(error)
