"""The checks' closed word classes live in one module, and each narrower set is derived."""

from __future__ import annotations

import ast
from pathlib import Path

from agentic_chunking.checks import _words

CHECKS = Path(_words.__file__).parent
CLASSES = {
    "PREPOSITIONS",
    "SUBORDINATORS",
    "CONJUNCTIONS",
    "DETERMINERS",
    "DATE_PREPOSITIONS",
    "MONTHS",
    "WEEKDAYS",
    "SUBJECT_PRONOUNS",
}


def test_no_module_of_the_checks_defines_its_own_list_of_a_shared_class() -> None:
    """Only ``_words`` binds the name of a shared class to a literal list of words; other
    modules import it. A set a rule names for its own purpose (``_PLACE_PREPOSITIONS``,
    ``_AFTER_THOSE = PREPOSITIONS | ...``) is not a second version of the class."""
    found = []
    for path in sorted(CHECKS.glob("*.py")):
        if path.name == "_words.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AnnAssign):
                targets = [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            value = getattr(node, "value", None)
            literal = isinstance(value, ast.Call) and any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) for a in value.args
            )
            for name in names:
                if literal and name.lstrip("_") in CLASSES:
                    found.append(f"{path.name}: {name}")
    assert found == []


def test_the_narrower_sets_are_derived_from_their_one_list() -> None:
    assert _words.CLAUSE_ONLY_SUBORDINATORS < _words.CLAUSE_OPENING_SUBORDINATORS
    assert _words.CLAUSE_OPENING_SUBORDINATORS < _words.SUBORDINATORS
    assert _words.NON_QUANTIFYING_DETERMINERS < _words.DETERMINERS
    # the words a narrower set leaves out are the ones its doc names
    assert "after" in _words.SUBORDINATORS & _words.PREPOSITIONS
    assert "after" not in _words.CLAUSE_OPENING_SUBORDINATORS
    assert {"as", "once", "when"} <= _words.CLAUSE_OPENING_SUBORDINATORS
    assert not {"as", "once", "when"} & _words.CLAUSE_ONLY_SUBORDINATORS
    assert "some" in _words.DETERMINERS - _words.NON_QUANTIFYING_DETERMINERS


def test_months_in_calendar_order_and_lower_case() -> None:
    assert len(_words.MONTH_NAMES) == 12
    assert _words.MONTH_NAMES[2] == "March"
    assert frozenset(m.lower() for m in _words.MONTH_NAMES) == _words.MONTHS
