"""The report in a real browser: headless Chromium loads it from disk, offline, cleanly.

Skipped, with the reason, when no Chromium binary is found (Debian: ``apt-get install -y
chromium``; or point ``AGENTIC_CHUNKING_CHROMIUM`` at one). The screenshot is kept under
``reports/artifacts/`` as a test artefact. Chromium gets no network: every host name
resolves to nothing (its own background requests included). That the page names no
external asset at all is asserted statically in test_report_render.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agentic_chunking.client import make_client
from agentic_chunking.mutations._operators import invent_fact
from agentic_chunking.report import RunResults, load_results, render_report
from agentic_chunking.suite import ReferenceServer, load_cases, load_replies, run_case
from agentic_chunking.suite._mutation import mutate_replies
from agentic_chunking.suite._runner import run_pipeline
from agentic_chunking.testing import FakeMessagesServer, FakeReply

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
    "<script>addEventListener('load', () => document.body.setAttribute("
    "'data-height', document.documentElement.scrollHeight));</script></body>"
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
    runs = [
        _judged_through_loopback("fake-b", "fake-b-20261201", faulty=True, hour=11),
        _judged_through_loopback("reference", "reference", faulty=False, hour=12),
        _judged_through_loopback("fake-a", "fake-a-20261201", faulty=False, hour=10),
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
    (ARTIFACTS / "report-three-way-height.txt").write_text(f"{height}\n")
    assert 2_000 < height <= PAGE_HEIGHT_BOUND_PX
    text = re.sub(r"<[^>]+>", " ", dom)
    text = " ".join(text.split())
    # the base is the reference set; the runs follow by time; each run once
    assert "Is it safe against reference?" in text
    header = text[text.index("Run Model Replies") : text.index("Is it safe against")]
    assert header.index("reference (base") < header.index("fake-a") < header.index("fake-b")
    assert "fake-a safe 0 0 0 0 0 0" in text
    assert "fake-b not safe" in text
    assert "API returned: fake-b-20261201" in text
    assert screenshot.stat().st_size > 20_000
    assert _png_colours(screenshot) > 50
