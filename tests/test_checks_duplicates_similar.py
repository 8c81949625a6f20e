"""``find_duplicates(chunks, similar=...)``: pairs found close in meaning elsewhere (an
embedder) become ``similar_meaning`` warnings where the lexical rules leave them open."""

from __future__ import annotations

from agentic_chunking.checks import NO_DUPLICATION, WARNING, find_duplicates
from agentic_chunking.checks._duplicates import SIMILAR, open_similar_pairs

INSULIN = "Insulin lowers blood sugar."
REWORDED = "Insulin reduces the level of glucose in the blood."
OTHER = "The pancreas makes insulin in its beta cells."
ROME = "The bank opened a branch in Rome in 1402."


def test_a_pair_close_in_meaning_is_a_similar_meaning_warning_naming_the_first() -> None:
    (finding,) = find_duplicates([[INSULIN, ROME], [REWORDED]], similar=[(0, 2)])
    assert (finding.proposition, finding.kind, finding.severity) == (REWORDED, SIMILAR, WARNING)
    assert finding.rule == NO_DUPLICATION and finding.chunk_index == 1
    assert INSULIN in finding.reason and "in chunk 0" in finding.reason


def test_without_similar_pairs_the_findings_are_the_lexical_ones() -> None:
    chunks = [[INSULIN, "The liver stores glycogen."], ["Glycogen is stored by the liver.", ROME]]
    lexical = find_duplicates(chunks)
    assert [f.kind for f in lexical] == ["certain_duplicate"]
    assert find_duplicates(chunks, similar=[]) == lexical


def test_a_proposition_the_lexical_rules_report_gets_no_second_finding() -> None:
    texts = [INSULIN, "The liver stores glycogen.", "Glycogen is stored by the liver."]
    assert open_similar_pairs(texts, [(0, 2), (0, 1)]) == [(0, 1)]
    kinds = [f.kind for f in find_duplicates([texts], similar=[(0, 2), (0, 1)])]
    assert kinds == [SIMILAR, "certain_duplicate"]  # in the order of the copies


def test_different_numbers_or_polarity_keep_a_pair_closed() -> None:
    texts = [
        "Inflation rose 5.5 percent in 2022.",
        "Prices climbed 5.75 percent in 2022.",
        "Prices climbed 5.5 percent.",
        "The drug does not lower blood pressure.",
        "The medicine reduces hypertension.",
    ]
    # numbers: 5.75 is not among 5.5/2022 (closed); 5.5 alone is among them (open)
    assert open_similar_pairs(texts, [(0, 1), (0, 2), (3, 4)]) == [(0, 2)]


def test_each_later_proposition_gets_one_finding_with_its_earliest_partner() -> None:
    texts = [OTHER, INSULIN, REWORDED]
    findings = find_duplicates([texts], similar=[(1, 2), (2, 0)])
    assert open_similar_pairs(texts, [(1, 2), (2, 0)]) == [(0, 2), (1, 2)]
    (finding,) = findings
    assert finding.proposition == REWORDED and repr(OTHER) in finding.reason
