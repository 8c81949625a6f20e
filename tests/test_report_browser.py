"""The report in a real browser: headless Chromium loads it from disk, offline, cleanly.

Skipped, with the reason, when no Chromium binary is found (Debian: ``apt-get install -y
chromium``; or point ``AGENTIC_CHUNKING_CHROMIUM`` at one). The screenshot is kept under
``reports/artifacts/`` as a test artefact. Chromium gets no network: every host name
resolves to nothing (its own background requests included). That the page names no
external asset at all is asserted statically in test_report_render.
"""

from __future__ import annotations

import dataclasses
import html
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agentic_chunking._errors import InputError
from agentic_chunking._loopback import FakeMessagesServer, FakeReply
from agentic_chunking.client import make_client
from agentic_chunking.mutations import OPERATORS, Mutation
from agentic_chunking.mutations._operators import invent_fact
from agentic_chunking.report import RunResults, compare_runs, load_results, render_report
from agentic_chunking.suite import ReferenceServer, load_cases, load_replies, run_case
from agentic_chunking.suite._cases import Case
from agentic_chunking.suite._mutation import mutate_replies
from agentic_chunking.suite._runner import run_pipeline

if TYPE_CHECKING:
    import anthropic

FIXTURES = Path(__file__).parent / "fixtures" / "report"
REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(__file__).resolve().parents[1] / "reports" / "artifacts"
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _chromium() -> str | None:
    override = os.environ.get("AGENTIC_CHUNKING_CHROMIUM")
    if override:
        return override
    return next((path for name in NAMES if (path := shutil.which(name))), None)


BROWSER = _chromium()
pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium binary on PATH (install Debian's `chromium` package, or set "
    "AGENTIC_CHUNKING_CHROMIUM to a Chromium/Chrome binary)",
)


def _open(page: Path, profile: Path, screenshot: Path) -> tuple[str, list[str]]:
    """Load ``page`` headless; return the DOM after load and the console messages."""
    assert BROWSER is not None
    command = [
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={profile}",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--enable-logging=stderr",
        "--v=0",
        "--hide-scrollbars",
        "--window-size=1400,2200",
        f"--screenshot={screenshot}",
        "--dump-dom",
        page.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done.stdout, console


def _png_colours(path: Path) -> int:
    from PIL import Image

    with Image.open(path) as image:
        assert image.format == "PNG"
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    return 1 << 20 if colours is None else len(colours)


def test_console_errors_are_caught(tmp_path: Path) -> None:
    """The check below can fail: a broken script and a console error are both seen."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<!doctype html><html><body><p>bad</p>"
        "<script>console.error('boom'); undefined_function();</script></body></html>",
        encoding="utf-8",
    )
    _, console = _open(page, tmp_path / "profile", tmp_path / "bad.png")
    text = "\n".join(console)
    assert '"boom"' in text
    assert "undefined_function is not defined" in text


def test_report_opens_offline_with_no_console_errors(tmp_path: Path) -> None:
    reference = load_results(FIXTURES / "results-reference.json")
    upgrade = load_results(FIXTURES / "results-claude-next.json")
    page = tmp_path / "report.html"
    page.write_text(render_report([upgrade], baseline=reference), encoding="utf-8")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = ARTIFACTS / "report-comparison.png"
    screenshot.unlink(missing_ok=True)

    dom, console = _open(page, tmp_path / "profile", screenshot)

    assert console == []
    assert "Is it safe against" in dom
    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in dom  # shown as text
    assert "<script" not in dom.lower()  # and never turned into an element
    assert dom.count("<svg") == 2
    assert screenshot.stat().st_size > 20_000
    assert _png_colours(screenshot) > 50  # a rendered page, not a blank one


# -- a three-way report of 32 cases: reference and two models through a loopback server ---

PAGE_HEIGHT_BOUND_PX = 6_000
"""A three-way report of the 32 cases, 1400 px wide, is at most this tall: the one-screen
headline, then the moves, summaries and cases collapsed (measured 3,932 px; the page
before issue 12 was about 48,000 px)."""

MEASURE = (
    "<script>addEventListener('load', () => {"
    "const b = document.body, d = document.documentElement;"
    "b.setAttribute('data-height', d.scrollHeight);"
    "b.setAttribute('data-width', d.scrollWidth);"
    "const last = [...document.querySelectorAll('#what-moved li.change')].pop();"
    "if (last) b.setAttribute('data-list-end', Math.ceil(last.getBoundingClientRect().bottom));"
    "});</script></body>"
)


def _judged_through_loopback(model: str, returned: str, faulty: bool, hour: int) -> RunResults:
    """Every case run by the real pipeline against a FakeMessagesServer on 127.0.0.1 that
    answers with the reference replies (under the dated id ``returned``), with an invented
    fact in every third case that has output when ``faulty``; judged as the suite judges."""
    cases = load_cases(REPO / "cases")
    reference = ReferenceServer()

    def answer(body: object) -> FakeReply:
        reply = reference(body)
        return dataclasses.replace(reply, model=returned) if reply.status == 200 else reply

    results = []
    with (
        FakeMessagesServer(handler=answer) as server,
        make_client(api_key="loopback", base_url=server.base_url, max_retries=0) as client,
    ):
        for number, case in enumerate(cases):
            replies = load_replies(case, REPO / "cases" / "reference_replies")
            reference.use(case, replies)
            if faulty and number % 3 == 0 and case.expect.error is None:
                original = run_pipeline(case, client=client, model=model)
                groups = [
                    {"category": c.thematic_category, "facts": list(c.propositions)}
                    for c in original.chunks
                ]
                mutation = invent_fact(groups, case.source_text, seed=number)
                reference.use(case, mutate_replies(replies, original, mutation))
            results.append(run_case(case, client=client, model=model))
    return RunResults(
        model=model,
        replies="reference" if model == "reference" else "recorded",
        created_at=f"2026-12-01T{hour:02d}:00:00+00:00",
        cases=tuple(results),
    )


def test_a_three_way_report_of_32_cases_is_one_screen_then_collapsed(tmp_path: Path) -> None:
    runs = [  # the base is the first given; the others keep the order given, not their times
        _judged_through_loopback("reference", "reference", faulty=False, hour=12),
        _judged_through_loopback("fake-a", "fake-a-20261201", faulty=False, hour=10),
        _judged_through_loopback("fake-b", "fake-b-20261201", faulty=True, hour=11),
    ]
    html = render_report(runs)
    page = tmp_path / "three-way.html"
    page.write_text(html.replace("</body>", MEASURE, 1), encoding="utf-8")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = ARTIFACTS / "report-three-way.png"
    screenshot.unlink(missing_ok=True)

    dom, console = _open(page, tmp_path / "profile", screenshot)

    assert console == []
    height = int(re.search(r'data-height="(\d+)"', dom).group(1))  # type: ignore[union-attr]
    width = int(re.search(r'data-width="(\d+)"', dom).group(1))  # type: ignore[union-attr]
    assert width <= 1400  # the three-way header fits the 1,400 px window: no sideways scroll
    (ARTIFACTS / "report-three-way-height.txt").write_text(f"{height}\n")
    assert 2_000 < height <= PAGE_HEIGHT_BOUND_PX
    text = re.sub(r"<[^>]+>", " ", dom)
    text = " ".join(text.split())
    # the base is the reference set; the runs follow by time; each run once
    assert "Is it safe against reference?" in text
    header = text[text.index("Run Model Replies") : text.index("Is it safe against")]
    assert header.index("reference (base") < header.index("fake-a") < header.index("fake-b")
    assert "fake-a same 0 0 0 0 0" in text
    assert "fake-b unsafe" in text
    assert "API returned: fake-b-20261201" in text
    assert screenshot.stat().st_size > 20_000
    assert _png_colours(screenshot) > 50


# -- twelve injected faults: every one is a line of the first screen (issue 22) --------------

TWELVE_FAULTS = (
    "invent_fact",
    "unresolve_pronoun",
    "fragment",
    "mix_domains",
    "move_number",
    "swap_person",
    "drop_negation",
    "verbless_list",
    "drop_number_fact",
    "drop_fact",
    "contain_duplicate",
    "invent_fact",
)
"""One fault per case, each in a different case: the operators the suite is meant to see."""
FIRST_SCREEN_PX = 1_400
"""The list of what changed ends within this many pixels of the top (a 1,400 px screen)."""


def _faulty_model_b(model: str) -> tuple[RunResults, RunResults, list[tuple[str, Mutation]]]:
    """Model A (faithful: the reference replies) and model B (the same replies with
    TWELVE_FAULTS injected, one case each), both through the loopback server and judged as
    the suite judges; and the faults, by case."""
    cases = [c for c in load_cases(REPO / "cases") if c.expect.error is None]
    reference = ReferenceServer()
    faults: list[tuple[str, Mutation]] = []
    a_results, b_results = [], []
    with (
        FakeMessagesServer(handler=reference) as server,
        make_client(api_key="loopback", base_url=server.base_url, max_retries=0) as client,
    ):
        pending = list(TWELVE_FAULTS)
        for case in cases:
            replies = load_replies(case, REPO / "cases" / "reference_replies")
            reference.use(case, replies)
            a_results.append(run_case(case, client=client, model=model))
            mutation = _first_that_applies(case, pending, client, model) if pending else None
            if mutation is not None:
                original = run_pipeline(case, client=client, model=model)
                reference.use(case, mutate_replies(replies, original, mutation))
                faults.append((case.id, mutation))
            b_results.append(run_case(case, client=client, model=model))
    assert len(faults) == len(TWELVE_FAULTS), [op for _, m in faults for op in [m.operator]]

    def run(name: str, results: list[object], hour: int) -> RunResults:
        return RunResults(
            model=name,
            replies="recorded",
            created_at=f"2026-12-01T{hour:02d}:00:00+00:00",
            cases=tuple(results),  # type: ignore[arg-type]
        )

    # B is recorded after A, then A is replayed: a base chosen by time would be B
    return run("model-a", a_results, 12), run("model-b", b_results, 11), faults


def _first_that_applies(
    case: Case, pending: list[str], client: anthropic.Anthropic, model: str
) -> Mutation | None:
    """The first pending operator that applies to ``case`` (removed from ``pending``)."""
    original = run_pipeline(case, client=client, model=model)
    groups = [
        {"category": c.thematic_category, "facts": list(c.propositions)} for c in original.chunks
    ]
    for name in dict.fromkeys(pending):
        if name == "mix_domains" and not case.has_domain_labels:
            continue
        try:
            mutation = OPERATORS[name](
                groups, case.source_text, seed=0, labelled_sentences=case.labelled_sentences()
            )
        except InputError:
            continue
        pending.remove(name)
        return mutation
    return None


def test_twelve_injected_faults_are_each_a_line_of_the_first_screen(tmp_path: Path) -> None:
    model_a, model_b, faults = _faulty_model_b("model-a")
    comparison = compare_runs([model_a, model_b])  # A first: A is the base, whatever the times
    assert comparison.reference.run is model_a and comparison.verdict == "unsafe"
    page = tmp_path / "twelve.html"
    page.write_text(
        render_report([model_a, model_b], plots=False).replace("</body>", MEASURE, 1),
        encoding="utf-8",
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = ARTIFACTS / "report-twelve-faults.png"
    screenshot.unlink(missing_ok=True)

    dom, console = _open(page, tmp_path / "profile", screenshot)

    assert console == []
    listing = dom[
        dom.index('<ul class="changes">') : dom.index("</ul>", dom.index('<ul class="changes">'))
    ]
    lines = re.findall(
        r'<li class="change[^"]*" data-case="([^"]+)"[^>]*>(.*?)</li>', listing, re.S
    )
    text = [
        (case_id, html.unescape(" ".join(re.sub(r"<[^>]+>", " ", body).split())))
        for case_id, body in lines
    ]
    for case_id, mutation in faults:
        mine = [line for c, line in text if c == case_id]
        assert mine, f"{mutation.operator} in {case_id}: no line in the list"
        wanted = [*mutation.replaced.values(), *mutation.added]
        if mutation.removed:  # a dropped fact: the sentence no longer covered, or the fact
            assert any("dropped fact" in line for line in mine), (mutation.operator, mine)
        elif wanted:  # the faulty proposition itself is on a line
            assert any(w in line for w in wanted for line in mine), (mutation.operator, mine)
        else:  # a fact moved to another chunk: its rule is on the case's line
            assert any(mutation.rule in line for line in mine), (mutation.operator, mine)
    # one line per fact: a fault that also leaves its sentence uncovered is still one line
    assert len(text) == len(faults)
    end = int(re.search(r'data-list-end="(\d+)"', dom).group(1))  # type: ignore[union-attr]
    (ARTIFACTS / "report-twelve-faults-list-end.txt").write_text(f"{end}\n")
    assert end <= FIRST_SCREEN_PX
    width = int(re.search(r'data-width="(\d+)"', dom).group(1))  # type: ignore[union-attr]
    assert width <= 1400
    # swapping the order flips it: B as the base, A's faithful answers are no new error
    assert compare_runs([model_b, model_a]).verdict != "unsafe"

    # the filters work without a script: a rule chosen in the form hides the other lines
    chosen = render_report([model_a, model_b], plots=False).replace(
        '<option value="coverage">', '<option value="coverage" selected>', 1
    )
    count = (
        "<script>addEventListener('load', () => document.body.setAttribute('data-shown', "
        "[...document.querySelectorAll('#what-moved > ul.changes > li.change')]"
        ".filter(li => getComputedStyle(li).display !== 'none').length));</script></body>"
    )
    filtered = tmp_path / "filtered.html"
    filtered.write_text(chosen.replace("</body>", count, 1), encoding="utf-8")
    dom, console = _open(filtered, tmp_path / "profile2", tmp_path / "filtered.png")
    shown = int(re.search(r'data-shown="(\d+)"', dom).group(1))  # type: ignore[union-attr]
    with_coverage = [c for c in comparison.changes if "coverage" in c.rules]
    assert 0 < len(with_coverage) < len(comparison.changes)
    assert shown == len(with_coverage)


def test_twelve_injected_faults_are_twelve_lines_without_a_browser() -> None:
    # The same count as the browser test, on the comparison itself (no Chromium needed): a
    # rewording that drops its sentence's number is one line with the dropped fact.
    model_a, model_b, faults = _faulty_model_b("model-a")
    changes = compare_runs([model_a, model_b]).changes
    assert sorted(c.case_id for c in changes) == sorted(case_id for case_id, _ in faults)
    moved = next(c for c in changes if c.case_id == "TC-004")
    assert moved.category == "dropped fact" and "rewording" in moved.rules
    assert moved.was is not None and moved.text != moved.was
