"""``agentic-chunking report``, run as a user runs it: through ``cli.main``."""

from __future__ import annotations

import json
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
    assert "--base PATH, --baseline PATH" in out and "-o OUT.html" in out and "--no-plots" in out
    assert "the FIRST is the base" in " ".join(out.split())
    assert "--fail-on {unsafe,review}" in out and "--json FILE" in out


def test_two_files_make_a_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "deep" / "out.html"
    status = main(["report", str(REFERENCE), str(UPGRADE), "-o", str(out), "--no-plots"])
    assert status == 0
    assert capsys.readouterr().out == (
        f"report written to {out}\nverdict against reference: unsafe (2 new errors)\n"
    )
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


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "is a directory"),
        ("", "is empty"),
        ("  \n", "is empty"),
        ('{"Chunks": []}', "holds no 'schema': not a results file"),
    ],
    ids=["directory", "empty", "blank", "chunked-output"],
)
def test_what_is_not_a_results_file_is_named_in_one_line(
    tmp_path: Path, content: str | None, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    given = tmp_path / "given.json"
    if content is None:
        given.mkdir()
    else:
        given.write_text(content, encoding="utf-8")
    assert main(["report", str(given), "-o", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert said in err and "reports/results-<model>.json" in err and err.count("\n") == 1


def _report(tmp_path: Path, *argv: str) -> tuple[int, str]:
    out = tmp_path / "page.html"
    status = main(["report", *argv, "-o", str(out), "--no-plots"])
    return status, out.read_text(encoding="utf-8")


def test_the_first_file_is_the_base_and_swapping_them_flips_the_verdict(tmp_path: Path) -> None:
    # the upgrade was run later than the reference: a base chosen by time would not move
    status, forward = _report(tmp_path, str(REFERENCE), str(UPGRADE), "--fail-on", "review")
    assert status == 1 and 'data-verdict="unsafe"' in forward
    status, backward = _report(tmp_path, str(UPGRADE), str(REFERENCE), "--fail-on", "review")
    assert 'data-verdict="unsafe"' not in backward
    assert "Is it safe against claude-next-20261201?" in backward
    assert status == (1 if 'data-verdict="review"' in backward else 0)
    # --base names it explicitly, whatever the order of the files
    status, based = _report(tmp_path, str(REFERENCE), "--base", str(UPGRADE))
    assert status == 0 and "Is it safe against baseline: claude-next-20261201?" in based


@pytest.mark.parametrize(
    ("fail_on", "expected"), [(None, 0), ("unsafe", 1), ("review", 1)], ids=str
)
def test_fail_on_gates_on_the_verdict(tmp_path: Path, fail_on: str | None, expected: int) -> None:
    extra = [] if fail_on is None else ["--fail-on", fail_on]
    assert _report(tmp_path, str(REFERENCE), str(UPGRADE), *extra)[0] == expected
    # the same run against itself is 'same': no level fails it
    assert _report(tmp_path, str(REFERENCE), str(REFERENCE), *extra)[0] == 0


def test_fail_on_refuses_an_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["report", str(REFERENCE), "--fail-on", "bad"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--fail-on: invalid choice: 'bad'" in err and "unsafe" in err and "review" in err


def test_json_holds_the_verdict_the_list_and_the_case_deltas(tmp_path: Path) -> None:
    target = tmp_path / "ci" / "comparison.json"
    status, html = _report(tmp_path, str(REFERENCE), str(UPGRADE), "--json", str(target))
    assert status == 0
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["schema"] == "agentic-chunking-comparison/1"
    assert data["verdict"] == "unsafe" and f'data-verdict="{data["verdict"]}"' in html
    assert data["base"]["model"] == "reference"
    (run,) = data["runs"]
    assert (run["model"], run["verdict"], run["new_errors"]) == (
        "claude-next-20261201",
        "unsafe",
        2,
    )
    assert [(c["case"], c["category"], c["rules"][0]) for c in data["changes"]] == [
        ("TC-019", "new error", "no_invention"),
        ("TC-031", "new error", "no_invention"),
    ]
    tc031 = next(c for c in data["cases"] if c["case"] == "TC-031")
    assert tc031["outcome"] == ["passed", "failed"] and tc031["new_errors"] == 1
    assert tc031["verdict"] == "unsafe"
    same = next(c for c in data["cases"] if c["case"] == "TC-027")
    assert same["verdict"] == "same" and same["new_errors"] == 0


def test_a_gate_without_a_comparison_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.html"
    assert main(["report", str(REFERENCE), "--fail-on", "unsafe", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--fail-on and --json need a comparison" in err and err.count("\n") == 1
    assert not out.exists()


def test_the_page_and_the_json_on_one_file_are_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    same = tmp_path / "z.out"
    argv = ["report", str(REFERENCE), str(UPGRADE), "--json", str(same), "-o", str(same)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"-o and --json both name {same}" in err and err.count("\n") == 1
    assert not same.exists()


def test_one_run_given_twice_states_the_verdict_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CI job that compares a file with itself (or a copy) gets the verdict line and a
    JSON verdict, never a silent "nothing to compare"."""
    copy = tmp_path / "results-A.json"
    shutil.copy(REFERENCE, copy)
    target = tmp_path / "comparison.json"
    out = tmp_path / "out.html"
    gate = ["--fail-on", "review", "--json", str(target), "-o", str(out)]
    status = main(["report", str(REFERENCE), str(copy), *gate])
    assert status == 0
    out = capsys.readouterr().out
    assert "verdict against reference: same (both files hold this one run)" in out
    assert json.loads(target.read_text())["verdict"] == "same"
