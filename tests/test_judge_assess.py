"""``judge.assess``: every check on one output, as the suite and ``check`` run them."""

from __future__ import annotations

from agentic_chunking import AgenticChunk, AgenticResponse
from agentic_chunking.checks import (
    COVERAGE,
    ERROR,
    MIXED_DOMAINS,
    NO_DUPLICATION,
    NO_INVENTION,
    NO_UNRESOLVED_PRONOUNS,
    SELF_CONTAINED,
)
from agentic_chunking.judge import CHECK_NOT_RUN, NEEDS_SOURCE, assess

SOURCE = "The bridge opened in 1932. The bridge is 503 metres long."


def response(*propositions: str) -> AgenticResponse:
    chunk = AgenticChunk.from_propositions(
        document_id="D", seq=1, thematic_category="Bridge", propositions=list(propositions)
    )
    return AgenticResponse(chunks=(chunk,))


def test_without_the_source_the_checks_that_need_it_are_not_run_never_passed() -> None:
    checks = assess(response("The bridge opened in 1990."), source=None).checks
    for rule in NEEDS_SOURCE:
        assert checks[rule].applies and checks[rule].passed is None
        assert [f.kind for f in checks[rule].findings] == [CHECK_NOT_RUN]
    for rule in (NO_UNRESOLVED_PRONOUNS, NO_DUPLICATION, SELF_CONTAINED):
        assert checks[rule].passed is True


def test_with_the_source_they_run_and_find_the_invention() -> None:
    assessment = assess(response("The bridge opened in 1990."), source=SOURCE)
    invention = assessment.checks[NO_INVENTION]
    assert invention.passed is False
    assert {f.severity for f in invention.findings} == {ERROR}
    assert all(f.kind != CHECK_NOT_RUN for c in assessment.checks.values() for f in c.findings)
    assert assessment.coverage is not None and assessment.checks[COVERAGE].applies


def test_rules_not_asked_for_do_not_apply_and_domains_need_labels() -> None:
    checks = assess(
        response("The bridge opened in 1990."), source=SOURCE, rules=(SELF_CONTAINED,)
    ).checks
    assert checks[NO_INVENTION].applies is False
    assert checks[SELF_CONTAINED].passed is True
    assert checks[MIXED_DOMAINS].applies is False
    labelled = [
        ("The bridge opened in 1932.", "history"),
        ("The bridge is 503 metres long.", "size"),
    ]
    mixed = assess(
        response("The bridge opened in 1932.", "The bridge is 503 metres long."),
        source=SOURCE,
        labelled_sentences=labelled,
    ).checks[MIXED_DOMAINS]
    assert mixed.applies and mixed.passed is False
