"""The documentation's "Compare two models" recipe, run as written (issue 32).

The recipe's commands are read from the documentation text itself: the fenced block right
after the marker ``<!-- recipe: compare-models -->`` (docs/comparing.md), so the
documentation cannot drift from what works. Model A and the candidates are recorded
against loopback servers (``LoopbackModel``: the reference replies, a fact dropped or a
number invented on demand), Anthropic's and OpenAI-compatible, model and judge on each and
mixed; the recipe then replays offline and must give ``same`` for A against itself,
``unsafe`` for a candidate that invents a number, ``review`` for one that only drops a fact.
"""

from __future__ import annotations

import importlib
import json
import re
import shlex
import shutil
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path

import pytest
from test_suite_plugin import INNER, REPO, _libraries_loaded, project

from agentic_chunking._loopback import FakeChatCompletionsServer, FakeMessagesServer
from agentic_chunking.cli import main
from agentic_chunking.report import at_or_above
from agentic_chunking.report._results import results_stem
from agentic_chunking.suite._judge_options import replay_judge
from agentic_chunking.suite._loopback import Edit, LoopbackModel

__all__ = ["_libraries_loaded", "project"]  # fixtures, used by name

RECIPE_MARKER = "<!-- recipe: compare-models -->"
CASE_TESTS = "tests/test_cases.py::test_case"
PLATFORM = "Kubernetes is an open-source container orchestration platform."
SCALING = "Kubernetes automates the scaling of containerized applications."
ONLY_THE_CASES = ("--deselect", "tests/test_cases.py::test_there_are_32_valid_cases")
"""The project copy holds one case, not 32: the count test is left out of its runs."""


@pytest.fixture(scope="module")
def _both_sdks_loaded() -> None:
    """Load here first what the inner runs import on either provider and for the judge
    (pytester's in-process runs drop the modules a run imported: the OpenAI SDK's types
    alone take seconds to import again each run)."""
    from agentic_chunking.client import ModelClient

    with ModelClient(api_keys={"openai": "warm-up"}, base_urls={"openai": "http://127.0.0.1:9"}):
        pass
    for module in ("openai.types", "openai.types.chat", "anthropic.types", "spacy"):
        importlib.import_module(module)


def recipe_text(marker: str = RECIPE_MARKER) -> str:
    """The shell block the documentation marks with ``marker`` (docs/*.md, README.md)."""
    pages = [*sorted((REPO / "docs").rglob("*.md")), REPO / "README.md"]
    for page in pages:
        text = page.read_text(encoding="utf-8") if page.is_file() else ""
        if marker in text:
            block = re.match(r"\s*```(?:sh|bash|shell)\n(.*?)```", text.split(marker, 1)[1], re.S)
            assert block is not None, f"{page}: no ```sh block right after {marker}"
            return block.group(1)
    raise AssertionError(f"no page under docs/ (nor README.md) holds {marker}")


def recipe_commands(text: str, variables: Mapping[str, str]) -> list[list[str]]:
    """The commands of a shell block: continued lines joined, comments dropped, words split
    as the shell splits them, ``$NAME`` and ``${NAME}`` replaced from ``variables``."""
    joined = re.sub(r"\\\n", " ", text)
    commands = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            commands.append(
                [re.sub(r"\$\{?(\w+)\}?", lambda m: variables[m.group(1)], word) for word in words]
            )
    return commands


def test_the_recipe_is_read_from_the_documentation() -> None:
    commands = recipe_commands(recipe_text(), {"CANDIDATE": "openai:m"})
    assert [c[0] for c in commands] == ["pytest", "agentic-chunking"]
    assert "reports/results-openai:m.json" in commands[1]  # a model id in a file name
    with pytest.raises(KeyError):  # a variable the recipe uses must be given
        recipe_commands(recipe_text(), {})


def _fail_on_level() -> str:
    """The ``--fail-on`` level of the recipe's report command."""
    report = recipe_commands(recipe_text(), {"CANDIDATE": "m"})[-1]
    return report[report.index("--fail-on") + 1]


def _invents_a_number(case_id: str, propositions: list[str]) -> list[str]:
    return [p.replace(PLATFORM, PLATFORM[:-1] + " released in 2014.") for p in propositions]


def _drops_a_fact(case_id: str, propositions: list[str]) -> list[str]:
    return [p for p in propositions if p != SCALING]


def _record(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, model: str, judge: str, edit: Edit
) -> None:
    """Record ``model`` (judged by ``judge``) against loopback servers of both providers."""
    cases = project.path / "cases"
    with ExitStack() as stack:
        anthropic = stack.enter_context(FakeMessagesServer(handler=LoopbackModel(cases, edit=edit)))
        openai = stack.enter_context(
            FakeChatCompletionsServer(handler=LoopbackModel(cases, edit=edit))
        )
        with monkeypatch.context() as env:
            env.setenv("ANTHROPIC_API_KEY", "loopback-key")
            env.setenv("ANTHROPIC_BASE_URL", anthropic.base_url)
            env.setenv("OPENAI_API_KEY", "loopback-key")
            env.setenv("OPENAI_BASE_URL", openai.base_url)
            result = project.runpytest(
                *INNER, CASE_TESTS, "--record", "--model", model, "--judge-model", judge
            )
        outcomes = result.parseoutcomes()
        assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 1, result.stdout.str()


def _run_recipe(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str], candidate: str
) -> tuple[list[int], str, dict[str, object]]:
    """Run the recipe's commands with ``CANDIDATE``; (exit codes, report output, JSON)."""
    statuses: list[int] = []
    output = ""
    for command in recipe_commands(recipe_text(), {"CANDIDATE": candidate}):
        if command[0] == "pytest":
            result = project.runpytest(*INNER, *command[1:], *ONLY_THE_CASES)
            statuses.append(int(result.ret))
            assert "judge model" in result.stdout.str()  # names the judge it replays with
        else:
            assert command[0] == "agentic-chunking"
            capsys.readouterr()
            statuses.append(main(command[1:]))
            output = capsys.readouterr().out
    comparison = json.loads((project.path / "comparison.json").read_text())
    return statuses, output, comparison


@pytest.fixture
def one_case(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, _both_sdks_loaded: None
) -> pytest.Pytester:
    """The project with TC-001 alone; its pages without plots (drawing them is most of a
    run's time here, and test_report_render covers them)."""
    import agentic_chunking.report._render as render

    monkeypatch.setattr(render, "all_plots", lambda columns: [])
    (project.path / "cases" / "TC-030.yaml").unlink()  # TC-001 alone: one sentence, 4 facts
    return project


PROVIDERS = [
    pytest.param("", "", id="anthropic"),
    pytest.param("openai:", "openai:", id="openai"),
    pytest.param("", "openai:", id="mixed"),
]


@pytest.mark.parametrize(("model_prefix", "judge_prefix"), PROVIDERS)
def test_the_recipe_as_written_gives_same_unsafe_and_review(
    one_case: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    model_prefix: str,
    judge_prefix: str,
) -> None:
    project = one_case
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)  # replay is offline, with no key
    monkeypatch.delenv("AGENTIC_CHUNKING_JUDGE_MODEL", raising=False)
    judge = f"{judge_prefix}loopback-judge"
    trusted = f"{model_prefix}loopback-a"
    candidates = {
        trusted: ("same", None),
        f"{model_prefix}loopback-invents": ("unsafe", _invents_a_number),
        f"{model_prefix}loopback-drops": ("review", _drops_a_fact),
    }
    _record(project, monkeypatch, trusted, judge, lambda _case, props: props)
    release = project.path / "release"
    release.mkdir()
    shutil.copy(
        project.path / "reports" / f"{results_stem(trusted)}.json", release / "results-A.json"
    )
    for candidate, (_, edit) in candidates.items():
        if edit is not None:
            _record(project, monkeypatch, candidate, judge, edit)
    for candidate, (verdict, _) in candidates.items():
        statuses, output, comparison = _run_recipe(project, capsys, candidate)
        assert comparison["verdict"] == verdict, output
        assert f": {verdict}" in output
        results = json.loads(
            (project.path / "reports" / f"{results_stem(candidate)}.json").read_text()
        )
        assert results["judge_model"] == judge  # read from the cassettes, never the default
        # pytest --fail-on-new fails on unsafe alone; report on its --fail-on level or above
        gate = _fail_on_level()
        expected = [int(verdict == "unsafe"), int(at_or_above(verdict, gate))]
        assert statuses == expected, output


CASSETTES = Path("cassettes/openai--m")


def test_replay_takes_the_cassettes_one_judge_unless_another_is_asked_for() -> None:
    held = {"openai:judge": ["TC-001", "TC-002"]}
    ask = {"model": "openai:m", "cassettes": CASSETTES}
    assert replay_judge(held, judge_model="claude-x", given_by=None, **ask) == "openai:judge"
    assert replay_judge(held, judge_model="openai:judge", given_by="--judge-model", **ask) == (
        "openai:judge"
    )
    assert replay_judge({}, judge_model="claude-x", given_by=None, **ask) == "claude-x"
    with pytest.raises(pytest.UsageError) as refused:
        replay_judge(held, judge_model="claude-x", given_by="--judge-model", **ask)
    message = str(refused.value)
    assert "\n" not in message
    assert "'claude-x'" in message and "'openai:judge'" in message
    assert "`pytest tests/test_cases.py --model openai:m --judge-model openai:judge`" in message


def test_cassettes_judged_by_two_judges_stop_the_replay_naming_both() -> None:
    held = {"openai:judge": ["TC-001"], "judge-b": ["TC-002", "TC-003"]}
    for given_by in (None, "--judge-model"):
        with pytest.raises(pytest.UsageError) as refused:
            replay_judge(
                held, judge_model="judge-b", given_by=given_by, model="m", cassettes=CASSETTES
            )
        message = str(refused.value)
        assert "\n" not in message
        assert "hold 2 judge models ('judge-b' judged TC-002, TC-003; 'openai:judge' judged" in (
            message
        )
        assert '--judge-model openai:judge -k "TC-001"`' in message
        assert '--judge-model judge-b -k "TC-002 or TC-003"`' in message


def test_record_takes_base_url_for_the_models_provider_and_its_judge(
    one_case: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    project = one_case
    model, judge = "openai:loopback-url", "openai:loopback-judge"
    with FakeChatCompletionsServer(handler=LoopbackModel(project.path / "cases")) as server:
        argv = (*INNER, CASE_TESTS, "--record", "--model", model, "--judge-model", judge)
        refused = project.runpytest(*argv)  # no key, no URL: refused before any call
        assert refused.ret == pytest.ExitCode.USAGE_ERROR and not server.requests
        refused.stderr.fnmatch_lines(["*OPENAI_API_KEY*"])
        project.runpytest(*argv, "--base-url", server.base_url).assert_outcomes(passed=1)
    assert {r.body["model"] for r in server.requests} == {"loopback-url", "loopback-judge"}
    assert (project.path / "cassettes" / "openai--loopback-url" / "TC-001.yaml").is_file()
