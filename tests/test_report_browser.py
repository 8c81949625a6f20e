"""The report in a real browser: headless Chromium loads it from disk, offline, cleanly.

Skipped, with the reason, when no Chromium binary is found (Debian: ``apt-get install -y
chromium``; or point ``AGENTIC_CHUNKING_CHROMIUM`` at one). The screenshot is kept under
``reports/artifacts/`` as a test artefact. Chromium gets no network: every host name
resolves to nothing (its own background requests included). That the page names no
external asset at all is asserted statically in test_report_render.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agentic_chunking.report import load_results, render_report

FIXTURES = Path(__file__).parent / "fixtures" / "report"
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
    assert "What moved" in dom
    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in dom  # shown as text
    assert "<script" not in dom.lower()  # and never turned into an element
    assert dom.count("<svg") == 2
    assert screenshot.stat().st_size > 20_000
    assert _png_colours(screenshot) > 50  # a rendered page, not a blank one
