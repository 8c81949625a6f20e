"""Any chunker under the suite (issue 32): ``pytest --chunker module:callable`` or
pyproject's ``[tool.agentic-chunking] chunker``; the shipped LangChain and baseline
adapters recorded against loopback servers and replayed offline (pytester, never the
network)."""

from __future__ import annotations

import importlib
import json
import textwrap

import pytest
from test_suite_plugin import INNER, REPO, _libraries_loaded, project

from agentic_chunking import AgenticResponse
from agentic_chunking._loopback import FakeChatCompletionsServer
from agentic_chunking.adapters._chunkers import ChunkerOutputError, read_propositions
from agentic_chunking.suite import load_cases
from agentic_chunking.suite._chunkers import Chunker, ChunkerError, as_response, not_applicable
from agentic_chunking.suite._loopback import LoopbackModel

__all__ = ["_libraries_loaded", "project"]  # fixtures, used by name

CASE_TESTS = "tests/test_cases.py::test_case"
TC001 = [
    "Kubernetes is an open-source container orchestration platform.",
    "Kubernetes automates the deployment of containerized applications.",
    "Kubernetes automates the scaling of containerized applications.",
    "Kubernetes automates the management of containerized applications.",
]
USER_CHUNKERS = f'''
from types import SimpleNamespace

FACTS = {TC001!r}


def facts(inputs, document_id):
    """No model call: TC-001's facts, as a list of {{category, propositions}}."""
    return [{{"category": "Kubernetes", "propositions": FACTS}}]


def documents(inputs, document_id):
    """LangChain-Document-like items, a category in their metadata."""
    return [SimpleNamespace(page_content=f, metadata={{"category": "Kubernetes"}}) for f in FACTS]


def broken(inputs, document_id):
    raise RuntimeError("the service said no\\nTraceback (most recent call last): ...")


def wrong(inputs, document_id):
    return 42


def exits(inputs, document_id):
    import sys

    sys.exit(0)


def runaway(inputs, document_id):
    return [{{"category": "Kubernetes", "propositions": ["word " * 10_000_000]}}]


facts.groups = False
'''
LANGCHAIN_MODULE = """
import os

from langchain_core.prompts import ChatPromptTemplate
from langchain_openai import ChatOpenAI

from agentic_chunking.adapters._chunkers import baseline_chunker, langchain_chunker

prompt = ChatPromptTemplate.from_messages(
    [
        ("system", "Decompose the text into clear, simple propositions. Answer with a JSON "
         "array of strings."),
        ("user", "{input}"),
    ]
)
model = ChatOpenAI(model="loopback-lc", temperature=0, max_retries=0,
                   base_url=os.environ.get("OPENAI_BASE_URL") or "http://127.0.0.1:9/v1")
chain = langchain_chunker(prompt | model, name="langchain", model="openai:loopback-lc")
baseline = baseline_chunker("openai:loopback-base")
"""


@pytest.fixture(scope="module")
def _langchain_loaded() -> None:
    """LangChain and the OpenAI SDK imported once here: pytester's in-process runs drop
    what a run imported, and importing them again takes seconds each run."""
    for module in ("langchain_core.prompts", "langchain_openai", "openai.types.chat"):
        importlib.import_module(module)


@pytest.fixture
def chunkers(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The project with the user's chunker modules, and no key of any provider."""
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("AGENTIC_CHUNKING_JUDGE_MODEL", raising=False)
    (project.path / "user_chunkers.py").write_text(textwrap.dedent(USER_CHUNKERS))
    (project.path / "lc_chunkers.py").write_text(textwrap.dedent(LANGCHAIN_MODULE))
    return project


def _results(project: pytest.Pytester, name: str) -> dict[str, dict[str, object]]:
    data = json.loads((project.path / "reports" / f"results-{name}.json").read_text())
    return {case["id"]: case for case in data["cases"]}


def test_a_chunker_that_calls_no_model_needs_no_cassette_and_skips_what_it_cannot_do(
    chunkers: pytest.Pytester,
) -> None:
    result = chunkers.runpytest(
        *INNER, CASE_TESTS, "--chunker", "user_chunkers:facts", "--no-judge"
    )
    result.assert_outcomes(passed=1, skipped=1)  # TC-030 expects our pipeline's own failure
    result.stdout.fnmatch_lines(
        [
            "chunker: user_chunkers:facts (run 'facts--no-model', instead of our pipeline)",
            "  TC-030 not applicable: the case expects our pipeline's own failure*",
        ]
    )
    cases = _results(chunkers, "facts--no-model-unjudged")
    assert cases["TC-001"]["outcome"] == "passed"
    assert cases["TC-030"]["outcome"] == "not_applicable"
    assert "our pipeline's own failure" in str(cases["TC-030"]["error"])
    assert not (chunkers.path / "cassettes").exists()


def test_pyproject_names_the_chunker_and_documents_with_a_category_are_chunks(
    chunkers: pytest.Pytester,
) -> None:
    (chunkers.path / "pyproject.toml").write_text(
        '[tool.agentic-chunking]\nchunker = "user_chunkers:documents"\n'
    )
    result = chunkers.runpytest(*INNER, CASE_TESTS, "-k", "TC-001", "--no-judge")
    result.assert_outcomes(passed=1)
    response = _results(chunkers, "documents--no-model-unjudged")["TC-001"]["response"]
    assert [c["Propositions"] for c in response["Chunks"]] == [TC001]  # type: ignore[index]


@pytest.mark.parametrize(
    ("spec", "line"),
    [
        ("broken", "TC-001: the chunker 'broken' failed: RuntimeError: the service said no"),
        ("wrong", "the chunker 'wrong' returned a int, not chunks*"),
        ("exits", "TC-001: the chunker 'exits' failed: it called sys.exit(0)*"),
        ("runaway", "TC-001: the chunker 'runaway' returned a chunk of 50,000,000 characters*"),
    ],
)
def test_a_failing_chunker_is_the_cases_error_in_one_line(
    chunkers: pytest.Pytester, spec: str, line: str
) -> None:
    argv = (*INNER, CASE_TESTS, "-k", "TC-001", "--chunker", f"user_chunkers:{spec}", "--no-judge")
    result = chunkers.runpytest(*argv)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*{line}*"])
    result.stdout.no_fnmatch_line("*Traceback*")
    assert _results(chunkers, f"{spec}--no-model-unjudged")["TC-001"]["outcome"] == "error"


def test_a_chunker_that_cannot_be_imported_is_a_usage_error_before_any_case(
    chunkers: pytest.Pytester,
) -> None:
    for spec, says in (
        ("no_such_module:chunk", "cannot be imported (ModuleNotFoundError"),
        ("user_chunkers:absent", "has no callable 'absent'"),
        ("user_chunkers", "is not module:callable"),
    ):
        result = chunkers.runpytest(*INNER, CASE_TESTS, "--chunker", spec)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([f"*{says}*"])
    assert not (chunkers.path / "reports").exists()


@pytest.mark.parametrize(
    ("spec", "folder"),
    [
        ("lc_chunkers:chain", "langchain--openai--loopback-lc"),
        ("lc_chunkers:baseline", "baseline--openai--loopback-base"),
    ],
)
def test_an_adapter_is_recorded_against_the_loopback_server_then_replayed_offline(
    chunkers: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    _langchain_loaded: None,
    spec: str,
    folder: str,
) -> None:
    judge = ("--judge-model", "openai:loopback-judge")
    with FakeChatCompletionsServer(handler=LoopbackModel(chunkers.path / "cases")) as server:
        with monkeypatch.context() as env:
            env.setenv("OPENAI_API_KEY", "loopback-key")
            env.setenv("OPENAI_BASE_URL", server.base_url)
            recorded = chunkers.runpytest(*INNER, CASE_TESTS, "--record", "--chunker", spec, *judge)
        recorded.assert_outcomes(passed=1, skipped=1)
    asked = [r.body["model"] for r in server.requests]
    assert asked[0] != "loopback-judge" and asked[-1] == "loopback-judge"  # chunker, then judge
    cassette = chunkers.path / "cassettes" / folder / "TC-001.yaml"
    assert cassette.is_file()
    assert not (chunkers.path / "cassettes" / folder / "TC-030.yaml").exists()  # not applicable
    recorded_cases = _results(chunkers, folder)
    replayed = chunkers.runpytest(*INNER, CASE_TESTS, "--chunker", spec)  # no key, no server
    replayed.assert_outcomes(passed=1, skipped=1)
    replayed.stdout.fnmatch_lines(
        ["*judge model: 'openai:loopback-judge' (read from the cassettes)"]
    )
    cases = _results(chunkers, folder)
    chunks = cases["TC-001"]["response"]["Chunks"]  # type: ignore[index]
    assert chunks == recorded_cases["TC-001"]["response"]["Chunks"]  # type: ignore[index]
    assert [c["Propositions"] for c in chunks] == [TC001]
    assert cases["TC-030"]["outcome"] == "not_applicable"


def test_every_shape_a_chunker_may_return_is_read_and_any_other_is_one_line() -> None:
    ours = AgenticResponse()
    assert as_response(ours, "D") is ours
    response = as_response(
        [{"category": "A", "propositions": ["One."]}, {"category": "A", "propositions": ["Two."]}],
        "D",
    )
    assert [(c.thematic_category, c.propositions) for c in response.chunks] == [
        ("A", ("One.", "Two."))
    ]
    for bad, says in (
        ("text", "returned a str, not chunks"),
        ([{"category": "A"}], "item 1 as a dict"),
        ([object()], "item 1 as a object"),
    ):
        with pytest.raises(ChunkerError, match=says):
            as_response(bad, "D")


def test_the_langchain_adapter_reads_propositions_from_what_a_runnable_returns() -> None:
    assert read_propositions('["A.", " B. "]') == ["A.", "B."]
    assert read_propositions('```json\n{"sentences": ["A."]}\n```') == ["A."]
    assert read_propositions({"propositions": ["A."]}) == ["A."]
    with pytest.raises(ChunkerOutputError, match="not propositions"):
        read_propositions("Sure! Here are the propositions: none.")


def test_a_chunker_without_grouping_cannot_do_the_cases_that_assert_grouping() -> None:
    cases = {c.id: c for c in load_cases(REPO / "cases")}
    flat = Chunker("m:f", "flat", lambda inputs, document_id: [], groups=False)
    grouping = Chunker("m:g", "grouping", lambda inputs, document_id: [])
    assert "does no grouping" in str(not_applicable(cases["TC-011"], flat))  # a grouping case
    assert "ART-0004 mixes Human Metabolism, Genomics" in str(not_applicable(cases["TC-031"], flat))
    assert not_applicable(cases["TC-001"], flat) is None
    assert not_applicable(cases["TC-031"], grouping) is None
    assert "pipeline's own failure" in str(not_applicable(cases["TC-030"], grouping))
