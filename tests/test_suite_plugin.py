"""The suite as a user meets it: pytest runs on a small copy of the project (pytester).

Live paths run against a FakeMessagesServer on 127.0.0.1, never the network.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import socket
from pathlib import Path

import pytest
import yaml

from agentic_chunking._loopback import FakeChatCompletionsServer, FakeMessagesServer, FakeReply
from agentic_chunking.client import make_client
from agentic_chunking.report import RunResults, build_report, load_results, write_results
from agentic_chunking.suite import ReferenceServer, find_secrets, load_case, load_replies
from agentic_chunking.suite.plugin import SYSTEMIC_EXIT_CODE

REPO = Path(__file__).resolve().parent.parent
CASES = ("TC-001", "TC-030")  # one that passes, one whose expected error is max_tokens
CASE_TESTS = "tests/test_cases.py::test_case"
# The outer session imported tests/test_cases.py already: import the copy by path. Only
# pytest-recording is loaded of the installed plugins (see the `project` fixture).
INNER = ("--import-mode=importlib", "-p", "no:cacheprovider", "-p", "pytest_recording.plugin")


@pytest.fixture(scope="module", autouse=True)
def _libraries_loaded(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Load here first what the inner runs use: pytester's in-process runs drop the modules
    a run imported, numpy and matplotlib cannot be imported twice in one process, and the
    SDK takes seconds to import each time."""
    build_report([RunResults(model="warm-up")], reports_dir=tmp_path_factory.mktemp("warm"))
    make_client(api_key="warm-up").close()
    importlib.import_module("pytest_recording._vcr")  # and with it vcrpy


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A copy of the repository's suite wiring with two cases and their reply files.

    Plugin autoloading is off in the inner runs: each in-process run would import every
    installed plugin (hypothesis, benchmark, ...) again, seconds a run.
    """
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    (pytester.path / "cases" / "reference_replies").mkdir(parents=True)
    for case_id in CASES:
        shutil.copy(REPO / "cases" / f"{case_id}.yaml", pytester.path / "cases")
        shutil.copy(
            REPO / "cases" / "reference_replies" / f"{case_id}.yaml",
            pytester.path / "cases" / "reference_replies",
        )
    (pytester.path / "tests").mkdir()
    shutil.copy(REPO / "tests" / "test_cases.py", pytester.path / "tests")
    shutil.copy(REPO / "conftest.py", pytester.path)
    return pytester


def _serve_reference(
    project: pytest.Pytester,
    fake: type[FakeMessagesServer | FakeChatCompletionsServer] = FakeMessagesServer,
) -> tuple[ReferenceServer, FakeMessagesServer | FakeChatCompletionsServer]:
    """A fake Messages API (or Chat Completions API) answering whichever of CASES is asked,
    with its reply file."""
    cases = {c: load_case(project.path / "cases" / f"{c}.yaml") for c in CASES}
    replies = {
        c: load_replies(cases[c], project.path / "cases" / "reference_replies") for c in CASES
    }
    servers = {c: ReferenceServer() for c in CASES}
    for case_id, server in servers.items():
        server.use(cases[case_id], replies[case_id])

    def answer(body: dict[str, object]) -> FakeReply:
        for server in servers.values():
            reply = server(body)
            if reply.status == 200:
                return reply
        return reply

    return servers["TC-001"], fake(handler=answer)


def test_replay_of_the_repository_cassettes_passes_and_writes_the_report(
    project: pytest.Pytester,
) -> None:
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    result = project.runpytest(*INNER, CASE_TESTS)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["*2/2 cases passed, model 'reference' (hand-written*", "report: *latest.html"]
    )
    assert (project.path / "reports" / "latest.html").is_file()
    assert (project.path / "reports" / "results-reference.json").is_file()


def test_record_writes_cassettes_without_secrets_then_replays_offline(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, server = _serve_reference(project)
    secret = "sk-ant-api03-" + "x" * 24
    with server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        recorded = project.runpytest(*INNER, CASE_TESTS, "--record", "--model", "loopback-model")
        recorded.assert_outcomes(passed=2)
    assert server.requests and all(
        r.headers.get("authorization") == f"Bearer {secret}" or r.headers.get("x-api-key") == secret
        for r in server.requests
    )
    cassettes = sorted((project.path / "cassettes" / "loopback-model").glob("*.yaml"))
    assert [c.stem for c in cassettes] == list(CASES)
    for cassette in cassettes:
        text = cassette.read_text()
        assert secret not in text
        assert find_secrets(text) == []
        assert '"model":"loopback-model"' in text

    # The server is gone and the key unset: the second run replays offline.
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    replayed = project.runpytest(*INNER, CASE_TESTS, "--model", "loopback-model")
    replayed.assert_outcomes(passed=2)
    replayed.stdout.fnmatch_lines(["*model 'loopback-model' (recorded replies)*"])

    # With the reference results beside it, the report compares the two, oldest first.
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    project.runpytest(*INNER, CASE_TESTS).assert_outcomes(passed=2)
    compared = project.runpytest(*INNER, CASE_TESTS, "--model", "loopback-model")
    compared.assert_outcomes(passed=2)
    compared.stdout.no_fnmatch_line("*report not written*")
    page = (project.path / "reports" / "latest.html").read_text()
    assert "What moved" in page
    assert "hand-written reference replies, not a model" in page
    assert page.index("loopback-model") > page.index("reference")


def test_record_without_an_api_key_stops_at_once_and_says_what_to_set(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = project.runpytest(*INNER, "--record")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--record calls the live model and needs an API key: set ANTHROPIC_API_KEY*"]
    )


def test_record_of_the_reference_set_is_refused_with_the_rebuild_command(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    result = project.runpytest(*INNER, "--record", "--model", "reference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*python -m agentic_chunking.suite rebuild-reference*"])


def test_an_unknown_model_under_record_stops_and_suggests_model(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = FakeReply(status=404, text="model: claude-retired-1", error_type="not_found_error")
    with FakeMessagesServer(handler=lambda body: reply) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        result = project.runpytest(*INNER, CASE_TESTS, "--record", "--model", "claude-retired-1")
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*--model*"])


def _failures_section(result: pytest.RunResult) -> str:
    """The output before pytest's short summary (which repeats each failure's first line,
    cut to the terminal width locally and whole under CI=true)."""
    return result.stdout.str().split("short test summary info")[0]


def test_a_model_never_recorded_is_one_usage_error_that_writes_nothing(
    project: pytest.Pytester,
) -> None:
    (project.path / "cassettes" / "reference-v2").mkdir(parents=True)
    (project.path / "cassettes" / "reference-v2" / "TC-001.yaml").write_text("interactions: []\n")
    result = project.runpytest(*INNER, "--model", "refrence-v2")  # a typo
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*no cassette of model 'refrence-v2'*holds none (recorded models: reference-v2)."
            " Did you mean --model reference-v2?*No case was run and no results file was*"
        ]
    )
    assert not (project.path / "reports").exists()


def test_a_missing_cassette_fails_plainly_with_the_record_command(
    project: pytest.Pytester,
) -> None:
    folder = project.path / "cassettes" / "never-recorded"
    folder.mkdir(parents=True)
    (folder / "TC-002.yaml").write_text("interactions: []\n")  # recorded, but not TC-001
    result = project.runpytest(*INNER, "-k", "TC-001", "--model", "never-recorded")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*TC-001: no cassette at *never-recorded*TC-001.yaml*Record it with: "
            "pytest tests/test_cases.py -k TC-001 --record --model never-recorded*"
        ]
    )
    result.stdout.no_fnmatch_line("*Connection error*")
    result.stdout.no_fnmatch_line("*During handling of the above exception*")
    assert _failures_section(result).count("TC-001: no cassette at") == 1  # printed once


def test_a_changed_input_makes_the_cassette_stale_and_says_so(project: pytest.Pytester) -> None:
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    case_file = project.path / "cases" / "TC-001.yaml"
    case_file.write_text(case_file.read_text().replace("Kubernetes is", "Kubernetes was", 1))
    result = project.runpytest(*INNER, "-k", "TC-001")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*TC-001: the cassette *TC-001.yaml has no recorded reply*stale*rebuild-reference*"]
    )


def test_an_invalid_case_file_names_the_file_and_the_field(project: pytest.Pytester) -> None:
    case_file = project.path / "cases" / "TC-001.yaml"
    case_file.write_text(case_file.read_text().replace("chunk_id:", "chunk_name:", 1))
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    result = project.runpytest(*INNER, "-k", "TC-001")
    result.stdout.fnmatch_lines(["*TC-001.yaml: inputs.0.chunk_id: Field required*"])


def test_no_cassette_in_the_repository_holds_a_key_shaped_string() -> None:
    cassettes = sorted((REPO / "cassettes").rglob("*.yaml"))
    assert len(cassettes) >= 32
    for cassette in cassettes:
        assert find_secrets(cassette.read_text()) == [], cassette


@pytest.mark.parametrize(
    "text",
    [
        "x-api-key: sk-ant-api03-abcdefghij",
        "    authorization:\n    - Bearer abcdefghijklmnop",
        "Authorization: whatever",
        '"key": "sk-ant-admin01-ABCDEF123"',
        "sk-proj-" + "A1b2" * 12,
        '"api_key": "sk-' + "x" * 48 + '"',
        "      openai-organization:\n      - org-abcdefghijklmnopqrstuvwx",
        "      openai-project:\n      - proj_abcdefghijklmnop",
        "      x-request-id:\n      - req_0123456789abcdef0123",
        '"organization": "org-abcdefghijklmnopqrstuvwx"',
        "request id req_0123456789abcdef0123 in a log line",
    ],
)
def test_the_secret_scan_finds_key_shaped_strings(text: str) -> None:
    assert find_secrets(text)


# -- systemic failures stop the session at the first case ------------------------------


def _record_against(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, base_url: str, *args: str
) -> pytest.RunResult:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
    return project.runpytest(*INNER, CASE_TESTS, "--record", "--model", "loopback-model", *args)


def _assert_stopped_plainly(result: pytest.RunResult, *wanted: str) -> None:
    assert result.ret == SYSTEMIC_EXIT_CODE
    text = result.stdout.str()
    stops = [line for line in result.outlines if "agentic-chunking stopped at TC-001:" in line]
    assert len(stops) == 1, text  # one plain message ...
    assert "Traceback" not in text and 'File "' not in text  # ... and no traceback
    for fragment in wanted:
        assert fragment in stops[0], stops[0]
    assert "TC-030" not in stops[0]
    assert "STOPPED" in result.outlines[-1] and "passed" not in result.outlines[-1]
    result.stdout.fnmatch_lines(["STOPPED at TC-001: 0 case(s) judged before it*no later case ran"])
    for option in re.findall(r"(?<![\w-])--[a-z][a-z-]+", stops[0]):
        assert option in OPTIONS_THAT_EXIST, option


OPTIONS_THAT_EXIST = {"--model", "--max-concurrency", "--record", "--baseline"}


def test_overloaded_after_the_retries_stops_after_the_first_case_and_keeps_cassettes(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = project.path / "cassettes" / "loopback-model" / "TC-001.yaml"
    old.parent.mkdir(parents=True)
    old.write_text("interactions: []\n")
    overloaded = FakeReply(status=529, text="Overloaded")
    with FakeMessagesServer(handler=lambda body: overloaded) as server:
        result = _record_against(project, monkeypatch, server.base_url, "--max-concurrency", "1")
    _assert_stopped_plainly(result, "HTTP 529", "overloaded", "--max-concurrency")
    assert len(server.requests) == 3  # the first call and the SDK's two retries, then stop
    assert old.read_text() == "interactions: []\n"
    assert not (project.path / "cassettes" / "loopback-model" / "TC-030.yaml").exists()


def test_a_base_url_with_a_path_is_reported_as_a_wrong_base_url(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeMessagesServer(handler=lambda body: FakeReply(text="[]")) as server:
        result = _record_against(project, monkeypatch, server.base_url + "/v1")
    _assert_stopped_plainly(result, "/v1/v1/messages", "base URL is wrong", "ANTHROPIC_BASE_URL")
    assert "not found" not in result.stdout.str().split("stopped at")[1].split("\n")[0]


def test_an_unknown_model_stops_with_one_message_naming_model(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = FakeReply(status=404, text="model: claude-retired-1", error_type="not_found_error")
    with FakeMessagesServer(handler=lambda body: reply) as server:
        result = _record_against(project, monkeypatch, server.base_url)
    _assert_stopped_plainly(result, "'loopback-model' was not found", "--model")
    assert len(server.requests) == 1


def test_a_rejected_key_stops_and_names_the_variable(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = FakeReply(status=401, text="invalid x-api-key")
    with FakeMessagesServer(handler=lambda body: reply) as server:
        result = _record_against(project, monkeypatch, server.base_url)
    _assert_stopped_plainly(result, "API key was rejected", "ANTHROPIC_API_KEY")


def test_a_refused_connection_stops_and_names_the_base_url(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = _record_against(project, monkeypatch, f"http://127.0.0.1:{port}")
    _assert_stopped_plainly(result, "no connection to", "ANTHROPIC_BASE_URL")


def test_a_case_of_its_own_failure_fails_that_case_only(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = FakeReply(status=400, text="prompt is too long")
    with FakeMessagesServer(handler=lambda body: reply) as server:
        result = _record_against(project, monkeypatch, server.base_url)
    result.assert_outcomes(failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert (
        _failures_section(result).count("HTTP 400 (invalid_request_error): prompt is too long") == 2
    )


# -- results merge per case --------------------------------------------------------------


def test_a_partial_run_updates_only_its_cases_and_the_report_says_so(
    project: pytest.Pytester,
) -> None:
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    project.runpytest(*INNER, CASE_TESTS).assert_outcomes(passed=2)
    results = project.path / "reports" / "results-reference.json"
    data = json.loads(results.read_text())
    for case in data["cases"]:
        case["judged_at"] = "2026-01-01T00:00:00+00:00"
    results.write_text(json.dumps(data))

    project.runpytest(*INNER, "-k", "TC-001").assert_outcomes(passed=1, deselected=2)
    merged = load_results(results)
    assert [c.id for c in merged.cases] == list(CASES)
    assert merged.case("TC-030").judged_at == "2026-01-01T00:00:00+00:00"  # type: ignore[union-attr]
    assert merged.case("TC-001").judged_at == merged.created_at  # type: ignore[union-attr]
    assert len(merged.judged_at_times) == 2
    page = (project.path / "reports" / "latest.html").read_text()
    assert "cases from 2 runs" in page


def test_a_plain_replay_reports_that_run_not_whatever_ran_last(project: pytest.Pytester) -> None:
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    other = RunResults(model="some-other-model", replies="recorded", created_at="2099-01-01")
    write_results(other, project.path / "reports")
    project.runpytest(*INNER, CASE_TESTS).assert_outcomes(passed=2)
    page = (project.path / "reports" / "latest.html").read_text()
    assert "some-other-model" not in page
    assert "Is it safe against" not in page  # one run, nothing to compare


def test_a_clean_pipeline_failure_is_a_completed_run_and_replaces_the_cassette(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = project.path / "cassettes" / "loopback-model" / "TC-001.yaml"
    old.parent.mkdir(parents=True)
    old.write_text("interactions: []\n")
    refusal = FakeReply(text="I can't help with that.", stop_reason="refusal")
    with FakeMessagesServer(handler=lambda body: refusal) as server:
        result = _record_against(project, monkeypatch, server.base_url)
    result.assert_outcomes(failed=2)  # TC-001 fails on the refusal, TC-030 lacks max_tokens
    assert "stop_reason refusal" in result.stdout.str()
    for case_id in CASES:
        text = (old.parent / f"{case_id}.yaml").read_text()
        assert text != "interactions: []\n" and "refusal" in text, text


def test_the_summary_notes_deprecated_defaults_and_models_without_failing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentic_chunking import DEFAULT_JUDGE_MODEL, DEFAULT_MODEL
    from agentic_chunking.client import _config as _client_config
    from agentic_chunking.suite._summary import sdk_notices

    retired = {DEFAULT_MODEL: "May 1st, 2099", "claude-old": "June 2nd, 2099"}
    monkeypatch.setattr(_client_config, "sdk_model_table", lambda: (("claude-new",), retired))
    notices = sdk_notices("claude-old", DEFAULT_JUDGE_MODEL)
    assert any("model 'claude-old' deprecated" in n and "June 2nd" in n for n in notices)
    assert any(f"{DEFAULT_MODEL!r}" in n and "default model" in n for n in notices)
    assert all("claude-new" in n for n in notices)
    monkeypatch.setattr(_client_config, "sdk_model_table", lambda: (("claude-new",), {}))
    assert sdk_notices("claude-old", None) == []
    assert sdk_notices("reference", "reference") == []


# -- the verdict against --baseline, and --fail-on-new (issue 22) --------------------------


def _break_tc030(project: pytest.Pytester) -> None:
    """Make TC-030 red without making its cassette stale: expect an error text it lacks."""
    case = project.path / "cases" / "TC-030.yaml"
    text = case.read_text()
    case.write_text(text.replace('error: ["max_tokens", "batch 1"]', 'error: ["no such words"]'))


def _saved(project: pytest.Pytester, name: str) -> Path:
    target = project.path / name
    shutil.copy(project.path / "reports" / "results-reference.json", target)
    return target


def test_fail_on_new_passes_a_red_case_the_baseline_knew(project: pytest.Pytester) -> None:
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    _break_tc030(project)
    first = project.runpytest(*INNER, CASE_TESTS)
    first.assert_outcomes(passed=1, failed=1)  # a red case: pytest's own exit code is 1
    assert first.ret == pytest.ExitCode.TESTS_FAILED
    known = _saved(project, "known-red.json")

    again = project.runpytest(*INNER, CASE_TESTS, "--baseline", str(known), "--fail-on-new")
    again.assert_outcomes(passed=1, xfailed=1)
    assert again.ret == pytest.ExitCode.OK
    again.stdout.fnmatch_lines(["*verdict against baseline: reference*: same"])
    junit = project.path / "junit.xml"
    project.runpytest(*INNER, CASE_TESTS, "--baseline", str(known), f"--junitxml={junit}")
    xml = junit.read_text()
    assert '<property name="verdict_against_baseline" value="same"' in xml
    assert "no such words" in xml  # the case's findings travel in the JUnit file


def test_fail_on_new_fails_on_what_the_baseline_did_not_have(project: pytest.Pytester) -> None:
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    project.runpytest(*INNER, CASE_TESTS).assert_outcomes(passed=2)
    green = _saved(project, "green.json")
    _break_tc030(project)

    result = project.runpytest(*INNER, CASE_TESTS, "--baseline", str(green), "--fail-on-new")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "TC-030 (*) failed with model 'reference' (judge 'reference'):",
            "*verdict against baseline: reference*: unsafe (1 new error)",
            "*new error TC-030 [[]expected_error[]]*no such words*",
        ]
    )
    page = (project.path / "reports" / "latest.html").read_text()
    assert 'data-verdict="unsafe"' in page  # the same verdict on the page


def test_fail_on_new_needs_a_baseline_and_a_bad_baseline_stops_before_any_case(
    project: pytest.Pytester,
) -> None:
    result = project.runpytest(*INNER, CASE_TESTS, "--fail-on-new")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--fail-on-new compares with a baseline: give --baseline*"])
    missing = project.path / "missing.json"
    result = project.runpytest(*INNER, CASE_TESTS, "--baseline", str(missing))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--baseline: results file*missing.json*does not exist*"])
    assert not (project.path / "reports").exists()  # no case ran


def test_a_no_judge_run_never_overwrites_the_judged_results(project: pytest.Pytester) -> None:
    shutil.copytree(REPO / "cassettes" / "reference", project.path / "cassettes" / "reference")
    project.runpytest(*INNER, CASE_TESTS).assert_outcomes(passed=2)
    judged = project.path / "reports" / "results-reference.json"
    before = judged.read_bytes()
    project.runpytest(*INNER, CASE_TESTS, "--no-judge").assert_outcomes(passed=2)
    assert judged.read_bytes() == before
    unjudged = load_results(project.path / "reports" / "results-reference-unjudged.json")
    assert unjudged.judge_model is None and load_results(judged).judge_model == "reference"


def _not_found_for(model: str) -> Exception:
    import anthropic
    import httpx2

    request = httpx2.Request(
        "POST", "http://127.0.0.1:9/v1/messages", json={"model": model, "max_tokens": 1}
    )
    response = httpx2.Response(404, request=request, json={"type": "error"})
    return anthropic.NotFoundError("not found", response=response, body=None)


def test_a_404_for_the_judge_model_names_the_judge_not_the_pipeline_model() -> None:
    from agentic_chunking.judge import resolve_judge_model
    from agentic_chunking.suite._systemic import systemic_failure

    judge = resolve_judge_model()  # the default judge model, whatever it is on this branch
    pipeline = "claude-x"
    failure = systemic_failure(_not_found_for(judge), model=pipeline, judge_model=judge)
    assert failure is not None and failure.kind == "model_unknown"
    assert f"the judge model {judge!r} was not found" in failure.message
    assert f"the pipeline model {pipeline!r} answered" in failure.message
    assert "--judge-model" in failure.message and "--no-judge" in failure.message
    own = systemic_failure(_not_found_for(pipeline), model=pipeline, judge_model=judge)
    assert own is not None and f"the model {pipeline!r} was not found" in own.message
    assert "--judge-model" not in own.message


# -- an OpenAI-compatible model (openai:M) --------------------------------------------------


def test_an_openai_model_records_into_its_own_folder_without_secrets_then_replays(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, server = _serve_reference(project, FakeChatCompletionsServer)
    secret = "sk-proj-" + "s" * 40
    with server:
        monkeypatch.setenv("OPENAI_API_KEY", secret)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_ORG_ID", "org-abcdefghijklmnopqrstuvwx")
        recorded = project.runpytest(
            *INNER,
            CASE_TESTS,
            "--record",
            "--model",
            "openai:loopback-model",
            "--judge-model",
            "openai:loopback-judge",
        )
        recorded.assert_outcomes(passed=2)
    assert server.requests and all(
        r.headers.get("authorization") == f"Bearer {secret}" for r in server.requests
    )
    assert {r.path for r in server.requests} == {"/v1/chat/completions"}
    folder = project.path / "cassettes" / "openai--loopback-model"
    cassettes = sorted(folder.glob("*.yaml"))
    assert [c.stem for c in cassettes] == list(CASES)
    models: set[str] = set()
    for cassette in cassettes:
        text = cassette.read_text()
        assert secret not in text and "org-abcdefghijklmnopqrstuvwx" not in text
        assert find_secrets(text) == []  # no Authorization, organisation, project, request id
        bodies = [json.loads(i["request"]["body"]) for i in yaml.safe_load(text)["interactions"]]
        models.update(b["model"] for b in bodies)  # the names on the server, no prefix
    assert models == {"loopback-model", "loopback-judge"}
    results = project.path / "reports" / "results-openai--loopback-model.json"
    written = json.loads(results.read_text())
    assert written["model"] == "openai:loopback-model"
    assert [p["provider"] for p in written["usage_by_provider"]] == ["openai"]
    assert find_secrets(results.read_text()) == []

    # The server is gone and no variable is set: the second run replays offline.
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID"):
        monkeypatch.delenv(name)
    replayed = project.runpytest(
        *INNER,
        CASE_TESTS,
        "--model",
        "openai:loopback-model",
        "--judge-model",
        "openai:loopback-judge",
    )
    replayed.assert_outcomes(passed=2)
    replayed.stdout.fnmatch_lines(["*model 'openai:loopback-model' (recorded replies)*"])


def test_record_of_an_openai_model_without_key_or_base_url_stops_at_once(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    result = project.runpytest(*INNER, CASE_TESTS, "--record", "--model", "openai:gpt-4.1-mini")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--record calls the live model and needs an API key: set OPENAI_API_KEY (or "
            "OPENAI_BASE_URL*'openai:gpt-4.1-mini'*"
        ]
    )


def test_an_unknown_provider_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest(*INNER, CASE_TESTS, "--model", "opena:gpt-4.1-mini")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--model: the model 'opena:gpt-4.1-mini' names the provider*"])


@pytest.mark.parametrize(
    ("server_options", "key", "wanted"),
    [
        ({"api_key": "server-key"}, None, ("no OpenAI API key, and the server at", "wants one")),
        ({"api_key": "server-key"}, "sk-wrong-key", ("API key was rejected", "OPENAI_API_KEY")),
        (
            {"models": ["qwen2.5:7b"]},
            None,
            ("'openai:loopback-model' was not found", "models the server lists: openai:qwen2.5:7b"),
        ),
    ],
)
def test_a_systemic_openai_fault_stops_after_the_first_case(
    project: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    server_options: dict[str, object],
    key: str | None,
    wanted: tuple[str, ...],
) -> None:
    with FakeChatCompletionsServer(
        handler=lambda body: FakeReply(text="[]"), **server_options
    ) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        if key is None:
            monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        else:
            monkeypatch.setenv("OPENAI_API_KEY", key)
        result = project.runpytest(
            *INNER, CASE_TESTS, "--record", "--model", "openai:loopback-model", "--no-judge"
        )
    _assert_stopped_plainly(result, *wanted)
    assert key is None or key not in result.stdout.str()


def test_a_429_after_the_retries_on_openai_stops_after_the_first_case(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    limited = FakeReply(status=429, text="Rate limit reached for requests")
    with FakeChatCompletionsServer(handler=lambda body: limited) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "k")
        result = project.runpytest(
            *INNER,
            CASE_TESTS,
            "--record",
            "--model",
            "openai:loopback-model",
            "--max-concurrency",
            "1",
            "--no-judge",
        )
    _assert_stopped_plainly(result, "HTTP 429", "--max-concurrency")
    assert len(server.requests) == 3  # the first call and the SDK's two retries, then stop


def test_a_timeout_on_every_attempt_is_no_reply_in_time_not_the_network() -> None:
    import anthropic
    import httpx2

    from agentic_chunking.suite._systemic import systemic_failure

    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/messages", json={"model": "m"})
    failure = systemic_failure(anthropic.APITimeoutError(request), model="m", judge_model=None)
    assert failure is not None and "within the timeout" in failure.message
    assert "AGENTIC_CHUNKING_TIMEOUT" in failure.message and "network" not in failure.message
    refused = anthropic.APIConnectionError(request=request)
    down = systemic_failure(refused, model="m", judge_model=None)
    assert down is not None and "no connection" in down.message  # the control


def test_an_empty_model_option_is_a_usage_error(project: pytest.Pytester) -> None:
    for option in ("--model", "--judge-model"):
        result = project.runpytest(*INNER, CASE_TESTS, option, "")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([f"*{option} is empty; give a model id*"])
