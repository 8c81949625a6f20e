"""The plugin's judge options as a user meets them (pytester, loopback server only)."""

from __future__ import annotations

import json
import shutil

import pytest
from test_suite_plugin import (  # the same small project and loopback server
    CASE_TESTS,
    INNER,
    REPO,
    _libraries_loaded,
    _serve_reference,
    project,
)

__all__ = ["_libraries_loaded", "project"]  # fixtures, used by name


def _results(project: pytest.Pytester, model: str) -> dict[str, object]:
    data = json.loads((project.path / "reports" / f"results-{model}.json").read_text())
    assert isinstance(data, dict)
    return data


def test_replay_is_judged_by_the_reference_judge_unless_no_judge(project: pytest.Pytester) -> None:
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    project.runpytest(*INNER, CASE_TESTS).assert_outcomes(passed=2)
    results = _results(project, "reference")
    assert results["judge_model"] == "reference"
    assert results["judge_calibration"] is None
    assert results["judge_usage"]["calls"] == 1  # type: ignore[index]  # TC-030 fails as expected: not judged
    tc001 = results["cases"][0]  # type: ignore[index]
    assert tc001["judge_usage"]["calls"] == 1
    page = (project.path / "reports" / "latest.html").read_text()
    assert "not calibrated" in page

    # --no-judge: the same cassettes, the judge's interactions left unplayed; its results
    # go to a file of their own, the judged results stay as they were.
    project.runpytest(*INNER, CASE_TESTS, "--no-judge").assert_outcomes(passed=2)
    assert _results(project, "reference")["judge_model"] == "reference"
    results = _results(project, "reference-unjudged")
    assert "judge_model" not in results
    assert all("judge_usage" not in case for case in results["cases"])  # type: ignore[attr-defined]


def test_another_judge_model_on_replay_names_the_recorded_judge_before_any_case(
    project: pytest.Pytester,
) -> None:
    # Issue 24: the cassette's own judge is read at start-up; no case runs, no results.
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    result = project.runpytest(*INNER, "-k", "TC-001", "--judge-model", "judge-nobody-recorded")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*'reference' judged TC-001*--judge-model reference*"])
    result.stdout.no_fnmatch_line("*Connection error*")
    assert not (project.path / "reports").exists()


def test_record_puts_the_judge_calls_in_the_case_cassette_then_replays_them(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, server = _serve_reference(project)
    with server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "loopback-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        recorded = project.runpytest(
            *INNER, CASE_TESTS, "--record", "--model", "loopback", "--judge-model", "loopback-j"
        )
        recorded.assert_outcomes(passed=2)
    cassette = (project.path / "cassettes" / "loopback" / "TC-001.yaml").read_text()
    assert cassette.index('"model":"loopback-j"') > cassette.index('"model":"loopback"')
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    replayed = project.runpytest(
        *INNER, CASE_TESTS, "--model", "loopback", "--judge-model", "loopback-j"
    )
    replayed.assert_outcomes(passed=2)
    assert _results(project, "loopback")["judge_model"] == "loopback-j"
