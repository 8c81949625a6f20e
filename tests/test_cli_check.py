"""``agentic-chunking check`` and ``chunk --check``: the suite's checks on any chunked output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking import AgenticChunk, AgenticResponse
from agentic_chunking._loopback import FakeChatCompletionsServer, FakeMessagesServer, user_text
from agentic_chunking.checks import COVERAGE, ERROR, NO_INVENTION, SELF_CONTAINED
from agentic_chunking.cli import EXIT_USAGE, main
from agentic_chunking.judge import CHECK_NOT_RUN, read_judge_request
from agentic_chunking.pipeline._prompts import load_prompt

KEY = "sk-ant-check-test-key"
GOOD = [
    "The Amazon river carries more water than any other river.",
    "The Amazon river flows through Peru, Colombia and Brazil.",
    "The Amazon river basin covers about seven million square kilometres.",
]
SOURCE = f"{GOOD[0]} {GOOD[1]}\n\n{GOOD[2]}"


def output(propositions: list[str], *, document_id: str = "AMZ") -> dict[str, Any]:
    chunk = AgenticChunk.from_propositions(
        document_id=document_id,
        seq=1,
        thematic_category="The Amazon",
        propositions=propositions,
        source_chunk_ids=["P0001", "P0002"],
    )
    return AgenticResponse(chunks=(chunk,)).to_dict()


def write(tmp_path: Path, name: str, content: Any) -> Path:
    path = tmp_path / name
    text = content if isinstance(content, str) else json.dumps(content)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return write(tmp_path, "amazon.md", SOURCE)


def run_check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    status = main(["check", *argv])
    out, err = capsys.readouterr()
    return status, json.loads(out) if out else None, err


def errors_of(findings: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        f
        for check in findings["checks"].values()
        for f in check["findings"]
        if f["severity"] == ERROR and f["kind"] != CHECK_NOT_RUN
    ]


def test_a_good_output_with_its_source_passes_every_check(
    tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = write(tmp_path, "out.json", output(GOOD))
    status, findings, err = run_check([str(out), "--source", str(source)], capsys)
    assert status == 0
    assert findings["passed"] is True and findings["errors"] == 0
    assert findings["not_run"] == {}
    assert findings["coverage"] == {"covered": 3, "facts": 3}
    assert findings["checks"][NO_INVENTION]["passed"] is True
    assert "0 errors" in err and "not run" not in err


def test_an_invented_number_is_an_error_with_its_rule_and_exit_1(
    tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    invented = [*GOOD[:2], "The Amazon river basin covers about 9,000,000 square kilometres."]
    out = write(tmp_path, "out.json", output(invented))
    status, findings, err = run_check([str(out), "--source", str(source)], capsys)
    assert status == 1
    assert findings["passed"] is False and findings["errors"] >= 1
    invention = [f for f in errors_of(findings) if f["rule"] == NO_INVENTION]
    assert [f["proposition"] for f in invention] == [invented[2]]
    assert all(f["kind"] for f in invention)  # a record with a kind, not a sentence to parse
    assert f"{findings['errors']} errors" in err


def test_without_the_source_the_checks_that_need_it_say_they_did_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    invented = [*GOOD[:2], "The Amazon river basin covers about 9,000,000 square kilometres."]
    out = write(tmp_path, "out.json", output(invented))
    status, findings, err = run_check([str(out)], capsys)
    assert status == 0  # the invention cannot be seen without the source: not a pass either
    assert set(findings["not_run"]) == {NO_INVENTION, COVERAGE}
    for rule in (NO_INVENTION, COVERAGE):
        check = findings["checks"][rule]
        assert check["passed"] is None
        assert [f["kind"] for f in check["findings"]] == [CHECK_NOT_RUN]
    assert findings["coverage"] is None and findings["warnings"] == 0
    assert findings["checks"][SELF_CONTAINED]["passed"] is True  # the others still run
    assert "not run: no_invention, coverage (give --source INPUT" in err


def test_the_checks_that_need_no_source_find_errors_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = write(tmp_path, "out.json", output([*GOOD, "Street lamps and park benches."]))
    status, findings, _ = run_check([str(out)], capsys)
    assert status == 1
    assert {f["rule"] for f in errors_of(findings)} == {SELF_CONTAINED}


def test_another_tools_output_with_the_contracts_names_is_checked(
    tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    minimal = {
        "Chunks": [
            {
                "ChunkId": "x-1",
                "DocumentId": "x",
                "ThematicCategory": "Amazon",
                "Propositions": GOOD,
            }
        ]
    }
    out = write(tmp_path, "theirs.json", minimal)
    status, findings, _ = run_check([str(out), "--source", str(source)], capsys)
    assert status == 0 and findings["propositions"] == 3 and findings["chunks"] == 1


def test_findings_and_the_case_view_are_written_to_files(
    tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = write(tmp_path, "out.json", output([*GOOD, "<b>Street lamps and park benches.</b>"]))
    findings_path, page = tmp_path / "findings.json", tmp_path / "page.html"
    argv = [str(out), "-o", str(findings_path), "--html", str(page)]
    status, printed, _ = run_check(argv, capsys)
    assert status == 1 and printed is None  # nothing on stdout with -o
    findings = json.loads(findings_path.read_text(encoding="utf-8"))
    assert findings["schema"] == "agentic-chunking-check/1"
    html = page.read_text(encoding="utf-8")
    assert "&lt;b&gt;Street lamps" in html and "<b>Street lamps" not in html  # escaped
    assert 'class="case"' in html and "not run" in html and "give" not in html.lower()[:0]
    assert "No invention" in html and "which was not given" in html


@pytest.mark.parametrize("copies", [1, 6])
def test_a_repeated_proposition_shows_its_findings_once_on_each_copy(
    copies: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A text found by a rule in every chunk it sits in is marked once per copy, with its
    own findings: the page grows with the output, not with copies times copies."""
    chunks = [
        AgenticChunk.from_propositions(
            document_id="REP",
            seq=n + 1,
            thematic_category=f"Theme {n + 1}",
            propositions=[GOOD[0], "He said that it was over."],
            source_chunk_ids=["P0001"],
        )
        for n in range(copies)
    ]
    out = write(tmp_path, "out.json", AgenticResponse(chunks=tuple(chunks)).to_dict())
    findings_path, page = tmp_path / "findings.json", tmp_path / "page.html"
    status, _, _ = run_check([str(out), "-o", str(findings_path), "--html", str(page)], capsys)
    assert status == 1
    findings = json.loads(findings_path.read_text(encoding="utf-8"))
    pronouns = [f for f in errors_of(findings) if f["rule"] == "no_unresolved_pronouns"]
    assert len(pronouns) == 2 * copies  # "He" and "it", in each copy
    marks = page.read_text(encoding="utf-8").count('<span class="reason')
    assert marks == len(errors_of(findings))  # each finding once, on its own copy


def test_with_o_the_page_goes_beside_the_findings_unless_html_says(
    tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = write(tmp_path, "out.json", output(GOOD))
    findings = tmp_path / "findings.json"
    assert run_check([str(out), "--source", str(source), "-o", str(findings)], capsys)[0] == 0
    assert (tmp_path / "findings.html").is_file()
    assert run_check([str(out), "--source", str(source)], capsys)[0] == 0  # stdout: no page
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "amazon.md",
        "findings.html",
        "findings.json",
        "out.json",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid JSON at line 1"),
        ([{"chunk_id": "P1", "text": "x"}], "not a chunked output"),
        ({"Chunks": [{"ChunkId": "x"}]}, "lacks the field 'DocumentId'"),
        ({"Chunks": [], "IsSuccess": False, "ErrorDetail": "cut"}, "a failed run's document"),
        ({"Chunks": "none"}, "not a chunked output"),
    ],
)
def test_bad_input_is_one_plain_message_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, message: str
) -> None:
    out = write(tmp_path, "bad.json", content)
    status, printed, err = run_check([str(out)], capsys)
    assert status == EXIT_USAGE and printed is None
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_the_judge_needs_the_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = write(tmp_path, "out.json", output(GOOD))
    status, _, err = run_check([str(out), "--judge-model", "loopback-judge"], capsys)
    assert status == EXIT_USAGE and "--judge-model needs --source INPUT" in err


def _judge_finding_nothing_but(number: int) -> Any:
    def judge(body: dict[str, Any]) -> str:
        asked = read_judge_request(user_text(body))
        return json.dumps(
            [
                {
                    "n": n,
                    "verdict": "not_supported" if n == number else "supported",
                    "reason": "the source says otherwise" if n == number else "stated",
                }
                for n in asked.propositions
            ]
            + [{"pair": list(p), "same_fact": False, "reason": "different"} for p in asked.pairs]
        )

    return judge


def test_with_a_judge_model_the_judges_verdicts_are_taken_in(
    tmp_path: Path,
    source: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = write(tmp_path, "out.json", output(GOOD))
    with FakeMessagesServer(handler=_judge_finding_nothing_but(2)) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        argv = [str(out), "--source", str(source), "--judge-model", "loopback-judge"]
        status, findings, err = run_check(argv, capsys)
        assert len(server.requests) == 1
    assert status == 1
    raised = errors_of(findings)
    assert [(f["rule"], f["proposition"], f["judge"]) for f in raised] == [
        (NO_INVENTION, GOOD[1], "raised")
    ]
    assert findings["judge_model"] == "loopback-judge"
    assert findings["judge_usage"]["calls"] == 1
    assert KEY not in err
    # Without --judge-model, no call and no judge finding.
    status, findings, _ = run_check([str(out), "--source", str(source)], capsys)
    assert status == 0 and findings["judge_model"] is None


@pytest.mark.parametrize("via", ["--base-url", "OPENAI_BASE_URL"])
def test_an_openai_judge_is_asked_through_its_base_url_with_no_key(
    tmp_path: Path,
    source: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    via: str,
) -> None:
    # Issue 32: `check --judge-model openai:M` asked for ANTHROPIC_API_KEY, then refused
    # "the client given is for anthropic".
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    out = write(tmp_path, "out.json", output(GOOD))
    with FakeChatCompletionsServer(handler=_judge_finding_nothing_but(2)) as server:
        argv = [str(out), "--source", str(source), "--judge-model", "openai:loopback-judge"]
        if via == "--base-url":
            argv += ["--base-url", server.base_url]
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        status, findings, err = run_check(argv, capsys)
    assert [r.body["model"] for r in server.requests] == ["loopback-judge"], err
    assert status == 1
    assert [f["judge"] for f in errors_of(findings)] == ["raised"]
    assert findings["judge_model"] == "openai:loopback-judge"


def test_an_openai_judge_without_key_or_url_is_one_line_before_any_call(
    tmp_path: Path,
    source: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    out = write(tmp_path, "out.json", output(GOOD))
    argv = [str(out), "--source", str(source), "--judge-model", "openai:loopback-judge"]
    status, findings, err = run_check(argv, capsys)
    assert status == EXIT_USAGE and findings is None
    assert len(err.strip().splitlines()) == 1
    assert "OPENAI_API_KEY" in err and "ANTHROPIC_API_KEY" not in err


# -- chunk --check ----------------------------------------------------------------------


def _pipeline(body: dict[str, Any]) -> str:
    """Each input chunk's sentences become propositions; one theme for all."""
    text = user_text(body)
    if body["system"] == load_prompt("grouping").text:
        numbers = [int(line.split(".", 1)[0]) for line in text.splitlines() if line[:1].isdigit()]
        return json.dumps([{"category": "The Amazon", "fact_ids": numbers}])
    passage = text.removeprefix("<text>\n").removesuffix("\n</text>")
    return json.dumps([s if s.endswith(".") else s + "." for s in passage.split(". ") if s])


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesServer]:
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    with FakeMessagesServer(handler=_pipeline) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        yield fake


def test_chunk_check_writes_the_findings_beside_the_output(
    server: FakeMessagesServer, tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    status = main(["chunk", str(source), "--model", "reference", "-o", str(out), "--check"])
    err = capsys.readouterr().err
    assert status == 0, err
    findings = json.loads((tmp_path / "out.check.json").read_text(encoding="utf-8"))
    assert findings["source"] == str(source) and findings["not_run"] == {}
    assert findings["errors"] == 0 and findings["coverage"]["facts"] == 3
    assert (tmp_path / "out.check.html").is_file()
    assert "checks: 0 errors" in err and "out.check.json" in err
    # The same output, checked on its own later, gives the same findings.
    status, again, _ = run_check([str(out), "--source", str(source)], capsys)
    assert status == 0 and again["checks"] == findings["checks"]


def test_chunk_without_check_writes_no_findings(
    server: FakeMessagesServer, tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    assert main(["chunk", str(source), "--model", "reference", "-o", str(out)]) == 0
    assert "checks:" not in capsys.readouterr().err
    assert not (tmp_path / "out.check.json").exists()


def test_chunk_check_needs_an_output_file_before_any_call(
    server: FakeMessagesServer, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chunk", str(source), "--model", "reference", "--check"]) == EXIT_USAGE
    assert "--check needs -o OUT" in capsys.readouterr().err
    assert server.requests == []


def test_the_summary_counts_in_the_singular_and_the_plural(
    tmp_path: Path, source: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = write(tmp_path, "one.json", output(GOOD[:1]))
    _, _, err = run_check([str(out), "--source", str(source)], capsys)
    # one proposition covers little of the source: one coverage error, one warning
    assert "check: 1 error, 1 warning in 1 proposition of" in err
    out = write(tmp_path, "three.json", output(GOOD))
    _, _, err = run_check([str(out), "--source", str(source)], capsys)
    assert "check: 0 errors, 0 warnings in 3 propositions of" in err


@pytest.mark.parametrize(
    ("flag", "hint"),
    [
        ([], "give the JSON 'chunk' writes"),
        (["--from", "chonkie"], "give chonkie's chunks as a JSON list (--from chonkie)"),
        (["--from", "langchain"], "give langchain's chunks as a JSON list (--from langchain)"),
    ],
)
def test_malformed_json_gets_the_hint_of_the_format_named(
    tmp_path: Path, flag: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path, "bad.json", "{oops")
    status, _, err = run_check([str(bad), *flag], capsys)
    assert status == EXIT_USAGE and hint in err and len(err.splitlines()) == 1


def test_the_findings_and_the_page_on_one_file_are_refused_before_any_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = write(tmp_path, "out.json", output(GOOD))
    same = tmp_path / "f.json"
    status, _, err = run_check([str(out), "-o", str(same), "--html", str(same)], capsys)
    assert status == EXIT_USAGE and f"-o and --html both name {same}" in err
    assert not same.exists()


def test_an_empty_file_a_folder_or_a_list_name_what_check_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = write(tmp_path, "empty.json", "")
    status, _, err = run_check([str(empty)], capsys)
    assert status == EXIT_USAGE and "the file is empty; give the JSON 'chunk' writes" in err
    status, _, err = run_check([str(tmp_path)], capsys)
    assert status == EXIT_USAGE and "is a directory; give the JSON 'chunk' writes" in err
    listed = write(tmp_path, "lc.json", [{"page_content": "A fact."}])
    status, _, err = run_check([str(listed)], capsys)
    assert status == EXIT_USAGE and "give --from langchain or --from chonkie" in err


def test_an_unknown_option_names_the_subcommand_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = write(tmp_path, "out.json", output(GOOD))
    with pytest.raises(SystemExit) as stopped:
        main(["check", str(out), "--bogus"])
    err = capsys.readouterr().err
    assert stopped.value.code == EXIT_USAGE
    assert err.splitlines() == [
        "agentic-chunking check: error: unrecognized arguments: --bogus "
        "(see agentic-chunking check --help)"
    ]
