"""Our pipeline against the LangChain adapter on the 32 cases, recorded and compared.

Both are recorded through the suite (``pytest tests/test_cases.py --record``) against one
loopback OpenAI-compatible server (``LoopbackModel``: the hand-written reference replies;
for the LangChain chain, the reference propositions of each input chunk it sends), judged
by the same loopback judge, in a copy of the project made for the run:

(a) our pipeline: ``--model openai:loopback-pipeline``;
(b) the LangChain adapter: a chain built here (a chat prompt piped into LangChain's
    ``ChatOpenAI`` pointed at the loopback server, wrapped by ``langchain_chunker``),
    ``--chunker``; it does no grouping.

Then ``report`` compares (b) with (a) as it compares two models. Printed: each run's
outcomes (passed, failed, error, not applicable), its model calls per case run and the
ratio of (b)'s to (a)'s, the verdict and its counts, and every case (b) cannot do with the
reason. Asserted: the page renders, the verdict is computed, every case the adapter cannot
do is not applicable (never an error of the checks, never a "case missing" line). The
replies are hand-written (``reference``): nothing here measures a real model.

    python benchmarks/bench_chunkers.py [--quick] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from markupsafe import escape

from agentic_chunking._loopback import FakeChatCompletionsServer
from agentic_chunking.report import RunResults, compare_runs, load_results, render_report
from agentic_chunking.report._results import results_stem
from agentic_chunking.suite import case_files
from agentic_chunking.suite._loopback import LoopbackModel

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import add_options, cannot_run, keep

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = "openai:loopback-pipeline"
JUDGE = "openai:loopback-judge"
CHUNKER = "lc_chain:chain"
CHUNKER_RUN = "langchain--openai--loopback-lc"
OUTCOMES = ("passed", "failed", "error", "not_applicable")
NA = "not_applicable"
QUICK_CASES = ("TC-001", "TC-005", "TC-011", "TC-021", "TC-030")
"""Extraction, grouping, edge and the expected-error case: every kind, in seconds."""
CHAIN_MODULE = """
import os

from langchain_core.prompts import ChatPromptTemplate
from langchain_openai import ChatOpenAI

from agentic_chunking.adapters._chunkers import langchain_chunker

prompt = ChatPromptTemplate.from_messages(
    [
        ("system", "Decompose the text into clear, simple propositions, each understandable "
         "on its own. Answer with a JSON array of strings."),
        ("user", "{input}"),
    ]
)
model = ChatOpenAI(model="loopback-lc", temperature=0, max_retries=0,
                   base_url=os.environ.get("OPENAI_BASE_URL") or "http://127.0.0.1:9/v1")
chain = langchain_chunker(prompt | model, name="langchain", model="openai:loopback-lc")
"""

Runner = Callable[[Path, Sequence[str]], None]
"""Runs ``pytest ARGS`` in the project folder (a subprocess here; pytester in the test)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the comparison gave."""

    pipeline: RunResults
    chunker: RunResults
    requests: dict[str, int]
    """Requests the loopback server received, per model asked for (the judge's apart)."""
    verdict: str
    summary: str
    rules: dict[str, int]
    """How many lines of the list of what changed name each rule."""
    not_applicable: dict[str, str]
    page: Path


def make_project(folder: Path, cases: Sequence[str] | None = None) -> Path:
    """A copy of the suite's wiring with ``cases`` (default: all 32) and the chain module."""
    (folder / "cases" / "reference_replies").mkdir(parents=True)
    chosen = cases or [p.stem for p in case_files(ROOT / "cases")]
    for case_id in chosen:
        shutil.copy(ROOT / "cases" / f"{case_id}.yaml", folder / "cases")
        replies = ROOT / "cases" / "reference_replies" / f"{case_id}.yaml"
        shutil.copy(replies, folder / "cases" / "reference_replies")
    (folder / "tests").mkdir()
    shutil.copy(ROOT / "tests" / "test_cases.py", folder / "tests")
    shutil.copy(ROOT / "conftest.py", folder)
    (folder / "lc_chain.py").write_text(textwrap.dedent(CHAIN_MODULE), encoding="utf-8")
    return folder


@contextmanager
def loopback(folder: Path) -> Iterator[FakeChatCompletionsServer]:
    """The loopback server answering every case of ``folder``; its base URL in
    ``OPENAI_BASE_URL`` (and a key in ``OPENAI_API_KEY``) while it runs."""
    before = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    with FakeChatCompletionsServer(handler=LoopbackModel(folder / "cases")) as server:
        os.environ["OPENAI_BASE_URL"] = server.base_url
        os.environ["OPENAI_API_KEY"] = "loopback-key"
        try:
            yield server
        finally:
            for key, value in before.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        if server.handler_errors:
            raise server.handler_errors[0]


def record_and_compare(folder: Path, run: Runner) -> Outcome:
    """Record both runs in ``folder`` (``make_project``), compare the adapter's with ours,
    write the page; AssertionError when a promise of the module does not hold."""
    only = ("--deselect", "tests/test_cases.py::test_there_are_32_valid_cases")
    judge = ("--judge-model", JUDGE)
    with loopback(folder) as server:
        run(folder, ["tests/test_cases.py", *only, "--record", "--model", PIPELINE, *judge])
        run(folder, ["tests/test_cases.py", *only, "--record", "--chunker", CHUNKER, *judge])
    requests: dict[str, int] = {}
    for request in server.requests:
        model = str(request.body.get("model")) if isinstance(request.body, dict) else "?"
        requests[model] = requests.get(model, 0) + 1
    reports = folder / "reports"
    pipeline = load_results(reports / f"{results_stem(PIPELINE)}.json")
    chunker = load_results(reports / f"{results_stem(CHUNKER_RUN)}.json")
    comparison = compare_runs([pipeline, chunker])
    page = folder / "comparison.html"
    page.write_text(render_report([pipeline, chunker], comparison=comparison), encoding="utf-8")
    not_applicable = {c.id: c.error or "" for c in chunker.cases if c.outcome == "not_applicable"}
    html = page.read_text(encoding="utf-8")
    for case in chunker.cases:  # the adapter does no grouping, nor our pipeline's errors
        grouping = case.category == "grouping" or case.expected_error is not None
        assert not grouping or case.id in not_applicable, f"{case.id}: {case.outcome}"
        reason = not_applicable.get(case.id, "")
        assert not reason or "grouping" in reason or "pipeline's own failure" in reason
    for case_id, reason in not_applicable.items():
        assert f"not applicable to {comparison.columns[1].label}" in html, case_id
        assert str(escape(reason.split(" (")[0])) in html, case_id
    assert not any(c.case_id in not_applicable for c in comparison.changes), "n/a as a change"
    assert comparison.verdict in ("same", "review", "unsafe")
    return Outcome(
        pipeline,
        chunker,
        requests,
        comparison.verdict,
        comparison.summary,
        dict(Counter(r for c in comparison.changes for r in c.rules).most_common()),
        not_applicable,
        page,
    )


def _subprocess(folder: Path, args: Sequence[str]) -> None:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "pytest", "-p", "pytest_recording.plugin", "-q", *args]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 1: cases failed, which the comparison shows
        raise SystemExit(f"pytest {' '.join(args)} exited {done.returncode}:\n{done.stdout}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(parser)
    args = parser.parse_args(argv)
    try:
        import langchain_openai  # noqa: F401  (the chain's chat model)
    except ImportError:
        cannot_run('langchain-openai is not installed: pip install -e ".[langchain-suite]"')
    figures: dict[str, float | int | str] = {}
    with tempfile.TemporaryDirectory(prefix="bench-chunkers-") as tmp:
        folder = make_project(Path(tmp), QUICK_CASES if args.quick else None)
        outcome = record_and_compare(folder, _subprocess)
        ran = {}
        for label, run, model in (
            ("pipeline", outcome.pipeline, "loopback-pipeline"),
            ("langchain", outcome.chunker, "loopback-lc"),
        ):
            counts = {o: sum(c.outcome == o for c in run.cases) for o in OUTCOMES}
            ran[label] = (outcome.requests.get(model, 0), len(run.cases) - counts[NA])
            calls, cases = ran[label]
            print(
                f"{label:9} {run.model}: {json.dumps(counts)}; {calls} model calls for "
                f"{cases} cases run ({calls / max(cases, 1):.2f} a case)"
            )
            figures |= {f"{label}: cases {o.replace('_', ' ')}": n for o, n in counts.items()}
            figures[f"{label}: model calls a case run"] = round(calls / max(cases, 1), 2)
        (base_calls, base_cases), (calls, cases) = ran["pipeline"], ran["langchain"]
        ratio = (calls / max(cases, 1)) / max(base_calls / max(base_cases, 1), 1e-9)
        print(f"model calls a case run, langchain / pipeline: {ratio:.2f}x")
        print(outcome.summary)
        print(f"  lines by rule: {json.dumps(outcome.rules)}")
        for case_id, reason in sorted(outcome.not_applicable.items()):
            print(f"  {case_id} not applicable to the adapter: {reason}")
        print(f"report rendered ({outcome.page.stat().st_size} bytes)")
        figures["model calls a case run, langchain / pipeline (x)"] = round(ratio, 2)
        figures["verdict of langchain against the pipeline"] = outcome.verdict
        figures["cases not applicable to langchain"] = ", ".join(sorted(outcome.not_applicable))
    keep(__file__, args, figures, replies="hand-written reference replies, loopback server")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
