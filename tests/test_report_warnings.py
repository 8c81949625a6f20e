"""Pipeline warnings, expected failures, failures and errors as the report shows them."""

from __future__ import annotations

import re
from dataclasses import replace

from agentic_chunking import AgenticResponse, PipelineWarning
from agentic_chunking.report import (
    CaseResult,
    CheckResult,
    FindingRecord,
    RunResults,
    render_report,
    warning_groups,
    warning_summary,
)

# The pipeline's own wording (agentic_chunking/pipeline/_notes.py), one line of each kind.
REPEATED = (
    "duplicate merged before grouping (repeated): 'Bees dance.' from chunk BEE-C02 kept once "
    "as 'Bees dance.' (first from chunk BEE-C01)"
)
REWORDED = (
    "duplicate merged before grouping (reworded): 'Bees <b>dance</b>.' from chunk BEE-C03 "
    "kept once as 'Bees dance.' (first from chunk BEE-C01)"
)
EMPTY = "input chunk GLC-C02 is empty: it gives no batch"
NO_PROPOSITION = (
    "batch 2 (chunk X-C02) gave no proposition (the model answered with an empty array)"
)


def _with_case(run: RunResults, case_id: str, **changes: object) -> RunResults:
    cases = tuple(replace(c, **changes) if c.id == case_id else c for c in run.cases)  # type: ignore[arg-type]
    return replace(run, cases=cases)


def _warned(run: RunResults, case_id: str, lines: tuple[str, ...]) -> RunResults:
    case = run.case(case_id)
    assert case is not None and case.response is not None
    return _with_case(run, case_id, response=replace(case.response, warnings=lines))


def _summary_row(html: str, case_id: str) -> str:
    match = re.search(
        rf'<td class="case-cell"><a href="#case-{case_id}">.*?</tr>', html, flags=re.S
    )
    assert match, case_id
    return match.group(0)


def _case_block(html: str, case_id: str) -> str:
    start = html.index(f'<details class="case" id="case-{case_id}"')
    end = html.find('<details class="case" id=', start + 1)
    return html[start : end if end > 0 else html.index("</section>", start)]


def test_old_plain_lines_are_grouped_by_their_former_wording() -> None:
    lines = (REPEATED, EMPTY, REWORDED, NO_PROPOSITION, "something new", EMPTY)
    groups = warning_groups(lines)
    assert [(g.kind, g.label) for g in groups] == [
        ("duplicate_merged", "2 duplicates merged"),
        ("empty_input", "2 empty input chunks"),
        ("no_proposition", "1 batch gave no proposition"),
        ("other", "1 other warning"),
    ]
    assert groups[0].lines == (REPEATED, REWORDED)  # every line kept, in order
    assert warning_summary([REPEATED]) == "1 duplicate merged"
    assert warning_summary([]) == ""


def test_records_are_grouped_by_their_kind_never_their_wording() -> None:
    records = (
        PipelineWarning("possible_duplicate", "input chunk X is empty", {"relation": "r"}),
        PipelineWarning("duplicate_merged", "anything at all", {"kept": "A."}),
        PipelineWarning("a_kind_from_the_future", "duplicate merged before grouping"),
    )
    groups = warning_groups(records)
    assert [(g.kind, g.label) for g in groups] == [
        ("duplicate_merged", "1 duplicate merged"),
        ("possible_duplicate", "1 possible duplicate kept"),
        ("other", "1 other warning"),
    ]
    assert groups[1].records == records[:1]


def test_a_case_with_warnings_gets_a_badge_and_a_collapsible_list(reference: RunResults) -> None:
    html = render_report([_warned(reference, "TC-019", (REPEATED, REWORDED, EMPTY))], plots=False)
    row = _summary_row(html, "TC-019")
    assert 'title="pipeline warnings: 2 duplicates merged · 1 empty input chunk">⚠ 3<' in row
    block = _case_block(html, "TC-019")
    assert '<details class="warnings">' in block
    assert "⚠ 2 duplicates merged · 1 empty input chunk" in block
    assert "&#39;Bees &lt;b&gt;dance&lt;/b&gt;.&#39; from chunk BEE-C03" in block  # escaped
    assert "<b>dance</b>" not in html
    assert "warn-badge" not in _summary_row(html, "TC-001")  # no warnings, no badge
    assert '<details class="warnings">' not in _case_block(html, "TC-001")


def test_an_expected_failure_reads_as_failed_cleanly(reference: RunResults) -> None:
    case = reference.case("TC-027")
    assert case is not None and case.failed_as_expected and case.response is not None
    html = render_report([reference], plots=False)
    assert "✔ failed cleanly as expected" in _summary_row(html, "TC-027")
    block = _case_block(html, "TC-027")
    assert "✔ Failed cleanly, as expected." in block
    assert f"ErrorDetail: <code>{case.response.error_detail}</code>" in block
    assert "No output chunks: the run failed, as this case expects." in block
    assert 'class="o o-failed"' not in block and "box-fail" not in block


def test_a_failed_case_says_which_check_failed_and_why(reference: RunResults) -> None:
    reason = "propositions 3 and 4 are in no output chunk"
    broken = _with_case(
        reference,
        "TC-001",
        outcome="failed",
        checks={
            "partition": CheckResult(
                passed=False, findings=(FindingRecord("", "partition", reason),)
            ),
        },
    )
    block = _case_block(render_report([broken], plots=False), "TC-001")
    assert '<div class="box box-fail"><b>✘ Failed</b>' in block
    assert f"<li><b>Partition</b>: {reason}</li>" in block


def test_an_expected_error_that_did_not_come_is_a_failure(reference: RunResults) -> None:
    reason = "the run succeeded, but the case expects a failure naming ['max_tokens']"
    case = reference.case("TC-027")
    assert case is not None
    broken = _with_case(
        reference,
        "TC-027",
        outcome="failed",
        response=AgenticResponse(),
        checks={
            "expected_error": CheckResult(
                passed=False, findings=(FindingRecord("", "expected_error", reason),)
            ),
        },
    )
    html = render_report([broken], plots=False)
    assert "failed cleanly" not in _summary_row(html, "TC-027")
    block = _case_block(html, "TC-027")
    assert "box-fail" in block and reason.replace("'", "&#39;") in block


def test_a_case_that_could_not_run_shows_its_message(reference: RunResults) -> None:
    message = "no cassette answers TC-031: re-record with pytest --record"
    errored = CaseResult(id="TC-031", outcome="error", error=message)  # as the plugin writes it
    run = replace(reference, cases=(*reference.cases[:3], errored))
    html = render_report([run], plots=False)
    assert f'<div class="row-error">✘ {message}</div>' in html
    block = _case_block(html, "TC-031")
    assert f"<b>✘ Could not run</b><pre>{message}</pre>" in block
    assert "No output: the case could not run." in block
