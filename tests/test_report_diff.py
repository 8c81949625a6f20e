"""Case against case: findings compared one by one, propositions aligned with a word diff."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking.report import CaseResult, CheckResult, FindingRecord
from agentic_chunking.report._diff import align_propositions, finding_changes, word_diff


def _case(*findings: FindingRecord) -> CaseResult:
    return CaseResult(id="TC-001", checks={"no_invention": CheckResult.from_findings(findings)})


def test_new_and_resolved_findings_are_a_multiset_difference() -> None:
    a = FindingRecord("A fact.", "no_invention", "'3' is not in the source")
    b = FindingRecord("B fact.", "no_invention", "'4' is not in the source")
    warning = FindingRecord(
        "A fact.", "no_invention", "'3' is not in the source", severity="warning"
    )
    new, resolved = finding_changes(_case(a), _case(a, a, b, warning))
    assert new == (a, b, warning)  # once more is new; another severity is another finding
    assert resolved == ()
    assert finding_changes(_case(a, b), _case(b)) == ((), (a,))
    assert finding_changes(_case(a), _case(a)) == ((), ())


def test_a_dropped_not_is_a_notable_rewording() -> None:
    (pair,) = align_propositions(
        ["Solar panels do not store energy."], ["Solar panels store energy."]
    )
    assert pair.status == "reworded" and pair.notable
    assert pair.notes == ("negation removed: do not",)
    assert [(w.op, w.text) for w in pair.words] == [
        ("same", "Solar panels"),
        ("del", "do not"),
        ("same", "store energy."),
    ]


def test_a_swapped_person_and_number_are_notable_a_plain_rewording_is_not() -> None:
    swapped, plain = align_propositions(
        ["Alice founded the firm in 2014.", "The city adopted a zoning code."],
        ["Bob founded the firm in 2015.", "The city adopted a new zoning code."],
    )
    assert swapped.notes == (
        "name removed: Alice",
        "name added: Bob",
        "number removed: 2014.",
        "number added: 2015.",
    )
    assert plain.status == "reworded" and not plain.notable


def test_dropped_and_added_facts_stand_alone() -> None:
    pairs = align_propositions(
        ["Kubernetes is open source.", "Zoning began in 1916."],
        ["kubernetes  is open source.", "Cats purr."],
    )
    assert [(p.status, p.before, p.after) for p in pairs] == [
        ("same", "Kubernetes is open source.", "kubernetes  is open source."),
        ("dropped", "Zoning began in 1916.", None),
        ("added", None, "Cats purr."),
    ]


def test_word_diff_of_equal_texts_is_one_run() -> None:
    assert [(w.op, w.text) for w in word_diff("a b c", "a  b c")] == [("same", "a b c")]


sentences = st.lists(
    st.text(alphabet="abcde ", min_size=1, max_size=20).filter(str.strip), max_size=6
)


@settings(deadline=None)
@given(sentences, sentences)
def test_every_proposition_is_in_exactly_one_pair(before: list[str], after: list[str]) -> None:
    pairs = align_propositions(before, after)
    assert [p.before for p in pairs if p.before is not None] == before
    assert sorted(p.after for p in pairs if p.after is not None) == sorted(after)
    for pair in pairs:
        if pair.status == "reworded":
            assert pair.before is not None and pair.after is not None
            rebuilt_before = " ".join(w.text for w in pair.words if w.op != "add")
            rebuilt_after = " ".join(w.text for w in pair.words if w.op != "del")
            assert rebuilt_before.split() == pair.before.split()
            assert rebuilt_after.split() == pair.after.split()
