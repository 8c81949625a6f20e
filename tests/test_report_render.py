"""The HTML page: escaping, self-containment, header, summary flags, comparison, files."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from html import unescape
from pathlib import Path

import pytest

from agentic_chunking import InputError
from agentic_chunking.report import RunResults, build_report, compare_runs, render_report

MOMENT = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def single(reference: RunResults) -> str:
    return render_report([reference], generated_at=MOMENT)


@pytest.fixture(scope="module")
def compared(reference: RunResults, upgrade: RunResults) -> str:
    return render_report([upgrade], baseline=reference, generated_at=MOMENT)


def _text(html: str) -> str:
    """The visible text of a page, roughly: tags and SVG dropped, entities decoded."""
    html = re.sub(r"<svg.*?</svg>", " ", html, flags=re.S)
    html = re.sub(r"<style>.*?</style>", " ", html, flags=re.S)
    html = re.sub(r"</?(code|b|span|a|q|em)\b[^>]*>", "", html)  # inline: no gap
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


@pytest.mark.parametrize("page", ["single", "compared"])
def test_model_text_is_escaped_never_markup(page: str, request: pytest.FixtureRequest) -> None:
    html: str = request.getfixturevalue(page)
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert "HTML &lt;b&gt;Markup&lt;/b&gt; &amp; Scripts" in html
    assert "<b>Markup</b>" not in html
    assert "The tag <script>alert('x')</script> is how HTML embeds a script." in _text(html)


def test_a_finding_reason_with_markup_is_escaped(compared: str) -> None:
    assert "not in the source &lt;em&gt;text&lt;/em&gt;" in compared
    assert "<em>" not in compared


@pytest.mark.parametrize("page", ["single", "compared"])
def test_page_is_self_contained(page: str, request: pytest.FixtureRequest) -> None:
    html: str = request.getfixturevalue(page)
    for pattern in (
        r"\bsrc=",
        r"<link\b",
        r"@import",
        r"url\((?!#)",
        r"<script\b",
        r"<iframe\b",
        r"https?://(?!www\.w3\.org/\d{4}/)",
    ):
        # url(#id) inside the inline SVG points into the page itself; anything else may not
        assert not re.search(pattern, html, flags=re.I), pattern
    assert html.count("<svg") == 2  # granularity plot and token plot, inline


def test_plots_can_be_left_out(reference: RunResults) -> None:
    html = render_report([reference], plots=False)
    assert "<svg" not in html and "Granularity at a glance" not in html


def test_header_labels_hand_written_replies(single: str, reference: RunResults) -> None:
    text = _text(single)
    assert "the replies are reference replies, written by hand" in text
    assert "not answers from a live model" in text
    assert "reference replies · hand-written, not a live model" in text
    assert "extraction: extraction-v1; grouping: grouping-v1" in text
    assert "cassettes/reference" in text and reference.created_at in text
    assert "Generated 2026-11-29 12:00:00 UTC" in text


def test_recorded_replies_have_no_reference_warning(upgrade: RunResults) -> None:
    text = _text(render_report([upgrade], generated_at=MOMENT, plots=False))
    assert "recorded from a live model" in text
    assert "hand-written" not in text


def test_summary_rows_show_counts_ranges_seed_and_flags(single: str) -> None:
    rows = re.findall(
        r"<tr>\s*<td class=\"case-cell\"><a href=\"#case-(TC-\d+)\">.*?</tr>", single, flags=re.S
    )
    assert rows == ["TC-001", "TC-019", "TC-027", "TC-031"]
    tc031 = single[single.index('href="#case-TC-031"') :]
    tc031 = tc031[: tc031.index('id="case-')]
    text = _text(tc031)
    assert "6 exp 5-8 · seed 6" in text
    assert "20 exp 16-26 · seed 20" in text
    assert "354⚑ exp 400-650 · seed 499" in text
    assert "⚑ 354 tokens is 46 below the expected 400-650" in text
    assert text.count("⚑") == 2  # flag on the tokens cell and its note; chunks are in range


def test_totals_of_tokens_in_and_out(single: str, reference: RunResults) -> None:
    total_in = sum(c.usage.input_tokens for c in reference.cases)
    total_out = sum(c.usage.output_tokens for c in reference.cases)
    assert f"model tokens {total_in} in / {total_out} out" in _text(single)
    total_row = _text(single[single.index('<tr class="total"') :])
    assert total_row.strip().startswith(f"Total (4 cases) 8 25 430 {total_in} {total_out}")


def test_case_detail_marks_failing_proposition_with_reason(compared: str) -> None:
    detail = compared[compared.index('id="case-TC-031"') :]
    bad = re.findall(r'<li class="bad">(.*?)</li>', detail, flags=re.S)
    assert len(bad) == 1
    text = _text(bad[0])
    assert text.strip().startswith("It also controls which genes are expressed. ✘")
    assert "✘ No unresolved pronouns: 'It' has no referent" in text
    assert "✘ Self-contained: starts with a pronoun" in text
    assert "Input chunks (4)" in _text(detail)
    assert "ART-C04" in detail


def test_single_run_has_no_comparison(single: str) -> None:
    assert "What moved" not in single


def test_comparison_leads_with_whether_it_is_safe(compared: str) -> None:
    text = _text(compared)
    start = text.index("Is it safe against baseline: reference?")
    assert start < text.index("What moved") < text.index("Summary")
    assert "✘ unsafe against baseline: reference: 2 new errors." in text
    # the headline row: unsafe, 2 new errors (four findings on two facts), 0 new
    # warnings, 0 dropped facts, 0 flagged rewordings, 0 resolved, 2 cases passed (was 4)
    assert "claude-next-20261201 unsafe 2 0 0 0 0 2 was 4" in text
    # under it, one line per fact, each with its case, rules, proposition and reason
    listing = text[text.index("What changed (2 line(s)") : text.index("What moved")]
    assert (
        "✘ new error TC-031 · no_invention, no_unresolved_pronouns, self_contained · "
        "It also controls which genes are expressed. — 'expressed' and 'controls' are not "
        "in the source" in listing
    )
    assert "✘ new error TC-019 · no_invention · The tag" in listing
    order = [
        text.index(t, start)
        for t in ("Substance verdicts (2)", "Counts beyond the soft ranges (1)", "Themes (")
    ]
    assert order == sorted(order)
    assert "TC-019 · claude-next-20261201: passed → failed (no_invention: pass → fail)" in text
    assert "TC-031 · claude-next-20261201: tokens 354 → 364" in text


def test_changed_cases_come_first_collapsed_with_their_diff(compared: str) -> None:
    cases = compared[compared.index('<section id="cases">') :]
    ids = re.findall(r'<details class="case[^"]*" id="case-(TC-\d+)"', cases)
    assert ids[:3] == ["TC-001", "TC-019", "TC-031"]
    assert re.findall(r'<details class="case changed" id="case-(TC-\d+)"', cases) == ids[:3]
    assert re.search(r'<details class="case[^"]*" id="case-[^"]+" open', cases) is None
    tc031 = _text(cases[cases.index('id="case-TC-031"') :])
    assert "Against baseline: reference:" in tc031
    assert "✘ new error · No invention: It also controls which genes are expressed." in tc031
    assert "+ added: It also controls which genes are expressed." in tc031


def test_safe_upgrade_says_so(reference: RunResults) -> None:
    other = replace(reference, model="claude-same", replies="recorded")
    text = _text(render_report([other], baseline=reference, generated_at=MOMENT, plots=False))
    assert "✔ same as baseline: reference: no new finding, no dropped fact" in text
    assert "Nothing changed: no new finding" in text
    assert "Nothing moved." in text


def test_side_by_side_shows_deltas(compared: str) -> None:
    side = compared[compared.index('class="side"') :]
    row = _text(side[side.index('<td><a href="#case-TC-001"') :].split("</tr>")[0])
    assert row.split() == ["TC-001", "passed", "1", "3", "51", "passed", "1", "4+1", "62+11"]


def test_runs_that_could_not_run_still_render(reference: RunResults) -> None:
    broken = replace(
        reference,
        model="broken",
        replies="recorded",
        cases=tuple(
            replace(c, response=None, outcome="error", error="model call failed: HTTP 529")
            for c in reference.cases
        ),
    )
    text = _text(render_report([broken], baseline=reference, generated_at=MOMENT, plots=False))
    assert "TC-031 · broken: passed → error: model call failed: HTTP 529" in text
    assert "✘ unsafe against baseline: reference: 4 new errors." in text
    assert "✘ new error TC-031 · case — passed → error: model call failed: HTTP 529" in text
    assert "✘ Could not run model call failed: HTTP 529" in text
    alone = _text(render_report([broken], plots=False))
    assert "broken · 0/4 passed · 4 errors" in alone
    assert "No output: the case could not run." in alone


def test_no_runs_is_an_input_error() -> None:
    with pytest.raises(InputError, match="at least one results file"):
        render_report([])


def test_build_report_writes_latest_and_timestamped_copy(
    tmp_path: Path, reference: RunResults
) -> None:
    path = build_report([reference], reports_dir=tmp_path / "reports")
    assert path == tmp_path / "reports" / "latest.html"
    (copy,) = (tmp_path / "reports").glob("report-*.html")
    assert re.fullmatch(r"report-\d{8}-\d{6}\.html", copy.name)
    assert copy.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_build_report_keeps_only_the_newest_timestamped_copies(
    tmp_path: Path, reference: RunResults
) -> None:
    from agentic_chunking.report._results import HISTORY_KEEP

    reports = tmp_path / "reports"
    reports.mkdir()
    for day in range(1, HISTORY_KEEP + 6):  # older copies, as earlier runs left them
        (reports / f"report-202601{day:02d}-120000.html").write_text("old", encoding="utf-8")
    (reports / "report-mine.html").write_text("a file of the user's", encoding="utf-8")
    build_report([reference], reports_dir=reports)
    copies = sorted(reports.glob("report-2*.html"))
    assert len(copies) == HISTORY_KEEP
    assert copies[0].name == "report-20260107-120000.html"  # the six oldest are gone
    assert (reports / "report-mine.html").exists()


def test_headline_shows_coverage_and_estimated_cost(
    reference: RunResults, upgrade: RunResults
) -> None:
    def covered(run: RunResults, figures: list[tuple[int, int]]) -> RunResults:
        cases = [replace(c, coverage=f) for c, f in zip(run.cases, figures, strict=False)]
        return replace(run, cases=cases + list(run.cases[len(cases) :]))

    base = covered(replace(reference, model="claude-3-5-haiku-20241022"), [(10, 10), (8, 9)])
    new = covered(replace(upgrade, model="claude-haiku-4-5"), [(9, 10), (6, 9)])
    text = _text(render_report([new], baseline=base, generated_at=MOMENT))
    headline = text[text.index("Is it safe against") : text.index("What moved")]
    assert "Facts covered Model tokens in / out Cost (estimate)" in headline
    assert "15/19 (-3)" in headline
    (h,) = compare_runs([new], baseline=base).headlines
    assert h.cost_usd[0] is not None and h.cost_usd[1] is not None
    change = h.cost_usd[1] - h.cost_usd[0]
    sign = "+" if change >= 0 else "-"
    assert f"~${h.cost_usd[1]:.4f} {sign}${abs(change):.4f}" in headline
    plain = _text(render_report([upgrade], baseline=reference, generated_at=MOMENT))
    headline = plain[plain.index("Is it safe against") : plain.index("What moved")]
    assert "not measured 4260 / 4850" in headline
    assert "no price known for claude-next-20261201" in headline
