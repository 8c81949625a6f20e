"""``agentic-chunking report``, run as a user runs it: through ``cli.main``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentic_chunking.cli import build_parser, main

FIXTURES = Path(__file__).parent / "fixtures" / "report"
REFERENCE = FIXTURES / "results-reference.json"
UPGRADE = FIXTURES / "results-claude-next.json"


def test_help_lists_the_report_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["report", "--help"])
    out = capsys.readouterr().out
    assert "--baseline PATH" in out and "-o OUT.html" in out and "--no-plots" in out


def test_two_files_make_a_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "deep" / "out.html"
    status = main(["report", str(REFERENCE), str(UPGRADE), "-o", str(out), "--no-plots"])
    assert status == 0
    assert capsys.readouterr().out == f"report written to {out}\n"
    html = out.read_text(encoding="utf-8")
    assert "What moved" in html
    assert "Side by side, per case" in html
    assert "(base of the comparison)" in html


def test_baseline_is_the_reference(tmp_path: Path) -> None:
    out = tmp_path / "out.html"
    assert main(["report", str(UPGRADE), "--baseline", str(REFERENCE), "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "baseline: reference" in html and "(baseline)" in html
    assert 'data-verdict="unsafe"' in html
    assert html.count("<svg") == 2


def test_one_file_is_a_plain_report(tmp_path: Path) -> None:
    out = tmp_path / "one.html"
    assert main(["report", str(REFERENCE), "-o", str(out), "--no-plots"]) == 0
    html = out.read_text(encoding="utf-8")
    assert "What moved" not in html and "TC-031" in html


def test_default_output_is_reports_latest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(REFERENCE, tmp_path / "a.json")
    monkeypatch.chdir(tmp_path)
    assert main(["report", "a.json", "--no-plots"]) == 0
    assert capsys.readouterr().out == "report written to reports/latest.html\n"
    assert (tmp_path / "reports" / "latest.html").is_file()
    assert len(list((tmp_path / "reports").glob("report-*.html"))) == 1


@pytest.mark.parametrize("which", ["results", "baseline"])
def test_bad_file_is_a_one_line_error(
    tmp_path: Path, which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    argv = (
        ["report", str(missing)]
        if which == "results"
        else ["report", str(REFERENCE), "--baseline", str(missing)]
    )
    assert main([*argv, "-o", str(tmp_path / "x.html")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("agentic-chunking report: error: results file ")
    assert str(missing) in captured.err and captured.err.count("\n") == 1
    assert not (tmp_path / "x.html").exists()
