"""The public surface of agentic_chunking.checks."""

from __future__ import annotations

import agentic_chunking.checks as checks
from agentic_chunking.checks import SUBSTANCE_RULES, Finding


def test_all_is_sorted_and_complete() -> None:
    def isort_key(name: str) -> tuple[int, str]:  # constants, classes, functions (RUF022)
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert checks.__all__ == sorted(checks.__all__, key=isort_key)
    assert all(hasattr(checks, name) for name in checks.__all__)


def test_rule_ids() -> None:
    assert SUBSTANCE_RULES == (
        "no_invention",
        "no_unresolved_pronouns",
        "no_duplication",
        "self_contained",
    )
    assert checks.MIXED_DOMAINS == "mixed_domains"


def test_finding_is_frozen_and_serialises() -> None:
    finding = Finding("It fails.", checks.NO_UNRESOLVED_PRONOUNS, "why", 2)
    assert finding.to_dict() == {
        "proposition": "It fails.",
        "rule": "no_unresolved_pronouns",
        "reason": "why",
        "chunk_index": 2,
        "severity": "error",
        "kind": "",
        "source_sentence": None,
    }
    assert Finding("p", "r", "x").chunk_index is None
    try:
        finding.rule = "other"  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("Finding must be frozen")


def test_finding_severity_defaults_to_error_and_rejects_unknown() -> None:
    assert Finding("p", "r", "x").is_error
    warning = Finding("p", "r", "x", severity=checks.WARNING, kind="unsupported_word")
    assert not warning.is_error
    assert warning.to_dict()["severity"] == "warning"
    try:
        Finding("p", "r", "x", severity="fatal")  # type: ignore[arg-type]
    except ValueError as error:
        assert "fatal" in str(error)
    else:
        raise AssertionError("an unknown severity must be refused")
