"""Duplicate detection through the stem index gives the same pairs as comparing all pairs;
certain duplicates are errors, possible ones (reworded, contained) warnings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking.checks import (
    ERROR,
    WARNING,
    certainly_same_fact,
    contains,
    find_duplicates,
    same_fact,
)
from agentic_chunking.checks._duplicates import (
    CERTAIN,
    CONTAINED,
    EXACT,
    REWORDED,
    _exact,
    duplicate_pairs,
)
from agentic_chunking.suite._cases import load_cases
from agentic_chunking.suite._mutation import _propositions
from agentic_chunking.suite._replies import load_replies

ROOT = Path(__file__).resolve().parent.parent
VALIDATION = Path(
    os.environ.get("AGENTIC_CHUNKING_VALIDATION_DIR", ROOT.parent / "shared/validation")
)


def all_pairs(texts: list[str]) -> list[tuple[int, int, str]]:
    """The definition of ``duplicate_pairs``, comparing every pair (quadratic)."""
    reported: set[int] = set()
    out: list[tuple[int, int, str]] = []
    for i, text in enumerate(texts):
        live = [j for j in range(i) if j not in reported]
        sure = next((j for j in live if certainly_same_fact(texts[j], text)), None)
        if sure is not None:
            out.append((sure, i, EXACT if _exact(texts[sure], text) else CERTAIN))
            reported.add(i)
            continue
        reworded = next((j for j in live if same_fact(texts[j], text)), None)
        if reworded is not None:
            out.append((reworded, i, REWORDED))
            reported.add(i)
            continue
        held = next((j for j in live if contains(texts[j], text) or contains(text, texts[j])), None)
        if held is not None:
            out.append((held, i, CONTAINED))
    return out


def case_propositions() -> list[list[str]]:
    lists = []
    for case in load_cases(ROOT / "cases"):
        replies = load_replies(case, ROOT / "cases/reference_replies")
        props = []
        for entry in replies.extraction:
            try:
                props.extend(_propositions(entry))
            except Exception:  # a deliberately cut reply (TC-030) has none
                continue
        lists.append(props)
    return lists


def test_the_index_finds_what_all_pairs_finds_on_the_32_cases() -> None:
    lists = case_propositions()
    assert sum(map(len, lists)) > 200
    for texts in lists:
        assert duplicate_pairs(texts) == all_pairs(texts)
    everything = [p for texts in lists for p in texts]
    assert duplicate_pairs(everything) == all_pairs(everything)


def _validation_items() -> list[dict[str, object]]:
    path = VALIDATION / "real_llm_dev.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not here; set AGENTIC_CHUNKING_VALIDATION_DIR")
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_the_index_finds_what_all_pairs_finds_on_the_validation_sets() -> None:
    items = _validation_items()
    pairs = [i for i in items if i["check"] == "no_duplication"]
    assert pairs
    for item in pairs:
        texts = [str(item["source"]), str(item["candidate"])]
        assert duplicate_pairs(texts) == all_pairs(texts)
    # every real proposition of the set, and every pair's two sides, as one long output
    everything = list(dict.fromkeys(str(i["candidate"]) for i in items)) + [
        str(i["source"]) for i in pairs
    ]
    found = duplicate_pairs(everything)
    assert found == all_pairs(everything)
    assert {kind for *_, kind in found} >= {EXACT}


WORDS = [
    "liver",
    "glycogen",
    "store",
    "filter",
    "blood",
    "zoning",
    "city",
    "land",
    "regulate",
    "bee",
    "dance",
    "queen",
]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
            st.sampled_from(["", "no ", "all ", "some ", "3 "]),
        ),
        max_size=25,
    )
)
def test_the_index_matches_all_pairs_on_generated_lists(drawn: list[tuple[list[str], str]]) -> None:
    texts = [f"{lead}{' '.join(words)} are here.".capitalize() for words, lead in drawn]
    assert duplicate_pairs(texts) == all_pairs(texts)


@pytest.mark.parametrize(
    ("first", "later", "kind", "severity"),
    [
        ("The liver stores glycogen.", "The  liver stores glycogen", EXACT, ERROR),
        (
            "The human liver stores glycogen.",
            "Glycogen is stored by the human liver.",
            CERTAIN,
            ERROR,
        ),
        ("Each worker has a badge.", "Every worker has a badge.", CERTAIN, ERROR),
        ("Dogs chase cats.", "Cats chase dogs.", REWORDED, WARNING),
        ("Dogs chase cats.", "Cats are chased by dogs.", CERTAIN, ERROR),
        ("The organization grows fast.", "The organ grows fast.", REWORDED, WARNING),  # one stem
        (
            "The Romans were defeated by the Gauls.",
            "The Gauls defeated the Romans.",
            CERTAIN,
            ERROR,
        ),
        (
            "The Romans were defeated by the Gauls.",
            "The Romans defeated the Gauls.",
            REWORDED,
            WARNING,
        ),
        (
            "The liver converts glucose into glycogen.",
            "The liver converts glycogen into glucose.",
            REWORDED,
            WARNING,
        ),
        (
            "The liver stores glycogen in the body.",
            "The liver stores glycogen.",
            CONTAINED,
            WARNING,
        ),
    ],
)
def test_certain_duplicates_are_errors_and_possible_ones_warnings(
    first: str, later: str, kind: str, severity: str
) -> None:
    [finding] = find_duplicates([[first], [later]])
    assert (finding.kind, finding.severity, finding.chunk_index) == (kind, severity, 1)
    assert repr(first) in finding.reason


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("All birds can fly.", "Some birds can fly."),
        ("Most residents own a car.", "Many residents own a car."),
        ("Only members may vote in the election.", "Members may vote in the election."),
        ("The pass lets no trucks through.", "The pass lets half as many trucks through."),
    ],
)
def test_quantifiers_and_polarity_make_different_facts(a: str, b: str) -> None:
    assert not same_fact(a, b) and not certainly_same_fact(a, b)
    assert all(f.kind != EXACT and f.kind != CERTAIN for f in find_duplicates([[a, b]]))


@pytest.mark.parametrize(
    ("first", "later"),
    [
        (
            "Genomics studies the complete set of DNA in an organism.",
            "The complete set of DNA in an organism is known as the organism's genome.",
        ),
        (
            "Hydroelectric dams can raise or lower output within minutes.",
            "Raising or lowering output within minutes makes hydroelectric dams useful for "
            "balancing the grid.",
        ),
    ],
)
def test_the_same_words_around_another_claim_are_not_a_containment(first: str, later: str) -> None:
    assert not contains(first, later) and not contains(later, first)
    assert find_duplicates([[first, later]]) == []
