"""The findings layer (``agentic_chunking.findings``): what ``check`` finds, as records.

The command line's tests (test_cli_check*.py) hold the messages and files; here the
records: the findings document counts what the checks that ran found, says which did not
run, and the checks that compare an output with its input run exactly when it is given.
"""

from __future__ import annotations

from agentic_chunking import AgenticChunk, AgenticChunkInput, AgenticResponse
from agentic_chunking.checks import COVERAGE, ERROR, NO_INVENTION
from agentic_chunking.findings import output_findings

SOURCE = (
    "The Amazon rainforest covers much of Brazil. It is home to many species.",
    "The Amazon River flows into the Atlantic Ocean.",
)


def _response(propositions: list[str]) -> AgenticResponse:
    chunk = AgenticChunk.from_propositions(
        document_id="AMZ",
        seq=1,
        thematic_category="The Amazon",
        propositions=propositions,
        source_chunk_ids=["P0001", "P0002"],
    )
    return AgenticResponse(chunks=(chunk,))


def _inputs() -> list[AgenticChunkInput]:
    return [
        AgenticChunkInput(chunk_id=f"P000{n}", text=text) for n, text in enumerate(SOURCE, start=1)
    ]


def _errors(document: dict[str, object]) -> int:
    checks = document["checks"]
    assert isinstance(checks, dict)
    return sum(
        1
        for name, check in checks.items()
        if name not in document["not_run"]  # type: ignore[operator]
        for finding in check["findings"]
        if finding["severity"] == ERROR
    )


def test_without_the_input_the_checks_comparing_with_it_are_listed_as_not_run() -> None:
    made = output_findings(
        _response(["The Amazon River flows into the Atlantic Ocean."]),
        None,
        output_name="out.json",
        source_name=None,
    )
    assert not made.source_given
    assert {NO_INVENTION, COVERAGE} <= set(made.document["not_run"])
    assert made.document["source"] is None and made.document["output"] == "out.json"
    assert made.case().outcome in ("passed", "failed")


def test_an_invented_fact_is_an_error_counted_and_the_output_does_not_pass() -> None:
    faithful = output_findings(
        _response(["The Amazon River flows into the Atlantic Ocean."]),
        _inputs(),
        output_name="out.json",
        source_name="in.txt",
    )
    invented = output_findings(
        _response(["The Amazon River flows into the Pacific Ocean in 1850."]),
        _inputs(),
        output_name="out.json",
        source_name="in.txt",
    )
    assert faithful.source_given and NO_INVENTION not in faithful.document["not_run"]
    for made in (faithful, invented):
        assert made.document["errors"] == _errors(made.document)
        assert made.document["passed"] is (made.document["errors"] == 0)
    assert invented.document["errors"] > 0 and not invented.document["passed"]
    assert invented.case().outcome == "failed"
