"""The suite's replay against a bare vcrpy replay of the same cassettes, in one run.

(a) suite: what each case test does, minus pytest: ``load_case``, the case's cassette
    opened by vcrpy (record mode none, the suite's ``vcr_config()``) and ``run_case``
    (the pipeline through the Anthropic SDK, then the checks via ``judge``), for all
    32 cases, with one replay client per pass (as the session fixture makes one).
(b) bare: the same cassettes opened with the same vcrpy options, each recorded request
    sent once as recorded (method, URI, body, headers) with a plain ``httpx2`` client
    (the HTTP library anthropic 2.x uses) and its JSON read: the cost of vcrpy itself.
(c) sdk: the same requests sent through the SDK (``client.messages.create``) instead,
    to split (a)'s extra time between the SDK and our own code.

Each figure is the best of ``--repeats`` passes; every pass does all the work afresh
(cases loaded, cassettes read, pipeline and checks run). The breakdown of (a) comes from
separate instrumented passes in the same run (best of the same number of repeats).

    python benchmarks/bench_suite_replay.py [--repeats 5] [--model reference] [--quick]

``--quick``: the first QUICK_CASES cases, one pass.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import vcr

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, keep

from agentic_chunking.client import REPLAY_API_KEY, ModelClient, make_client
from agentic_chunking.suite import case_files, cassette_path, judge, load_case, run_case
from agentic_chunking.suite import vcr_config as suite_vcr_config
from agentic_chunking.suite._runner import run_pipeline

ROOT = Path(__file__).resolve().parent.parent
AIM = 1.3
QUICK_CASES = 4
Where = tuple[list[Path], Path, str]


def fresh_session() -> None:
    """Empty every per-text cache of the package (tokens, stems, profiles, prompts...), as
    a new pytest session starts with them empty; one-time loads (maxsize 1: word counts,
    the sentence model, templates) stay, as imports do."""
    for name, module in list(sys.modules.items()):
        if name != "agentic_chunking" and not name.startswith("agentic_chunking."):
            continue
        for value in list(vars(module).values()):
            info = getattr(value, "cache_info", None)
            if callable(info) and info().maxsize != 1 and hasattr(value, "cache_clear"):
                value.cache_clear()


def _vcr() -> vcr.VCR:
    return vcr.VCR(record_mode="none", **suite_vcr_config())


class Phases:
    """Seconds spent in each named step of one pass, summed over the cases."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - started)

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds


def suite_pass(paths: list[Path], cassette_root: Path, model: str) -> int:
    """(a): every case as its test runs it; returns how many passed."""
    recorder = _vcr()
    passed = 0
    with ModelClient.for_replay() as client:  # the suite's replay client
        for path in paths:
            case = load_case(path)
            cassette = cassette_path(cassette_root, model, case.id)
            with recorder.use_cassette(str(cassette)):
                result = run_case(case, client=client, model=model, cassette=cassette)
            passed += result.outcome == "passed"
    return passed


def bare_pass(paths: list[Path], cassette_root: Path, model: str, phases: Phases) -> int:
    """(b): every recorded request of every cassette sent by httpx2; returns the count."""
    recorder = _vcr()
    sent = 0
    with httpx2.Client() as http:
        for path in paths:
            with phases.timed("cassette open+close"):
                context = recorder.use_cassette(str(cassette_path(cassette_root, model, path.stem)))
                cassette = context.__enter__()
            try:
                with phases.timed("requests (httpx2)"):
                    for request in list(cassette.requests):
                        reply = http.request(
                            request.method,
                            request.uri,
                            content=request.body,
                            headers=dict(request.headers.items()),
                        )
                        reply.raise_for_status()
                        reply.json()
                        sent += 1
            finally:
                with phases.timed("cassette open+close"):
                    context.__exit__(None, None, None)
    return sent


def sdk_pass(paths: list[Path], cassette_root: Path, model: str) -> int:
    """(c): the same requests as (b) through the SDK's ``messages.create``."""
    recorder = _vcr()
    sent = 0
    with make_client(api_key=REPLAY_API_KEY, max_retries=0) as client:
        for path in paths:
            with recorder.use_cassette(str(cassette_path(cassette_root, model, path.stem))) as cas:
                for request in list(cas.requests):
                    body = json.loads(request.body)
                    extra = {k: body.pop(k) for k in ("temperature",) if k in body}
                    message = client.messages.create(**body, extra_body=extra)
                    "".join(b.text for b in message.content if b.type == "text")
                    sent += 1
    return sent


def instrumented_pass(paths: list[Path], cassette_root: Path, model: str) -> Phases:
    """(a) split into its steps: run_case's two halves timed apart, the rest around them."""
    phases = Phases()
    recorder = _vcr()
    with phases.timed("client"):
        client = ModelClient.for_replay()
    with client:
        for path in paths:
            with phases.timed("load_case"):
                case = load_case(path)
            cassette = cassette_path(cassette_root, model, case.id)
            with phases.timed("cassette open+close"):
                context = recorder.use_cassette(str(cassette))
                context.__enter__()
            try:
                with phases.timed("chunk_text_agentic"):
                    response = run_pipeline(case, client=client, model=model)
            finally:
                with phases.timed("cassette open+close"):
                    context.__exit__(None, None, None)
            phases.add("  of which SDK calls*", sum(c.latency_s for c in response.calls))
            with phases.timed("judge (checks)"):
                judge(case, response)
    return phases


def _timed(run: Callable[[], Any]) -> tuple[float, Any]:
    fresh_session()
    started = time.perf_counter()
    value = run()
    return time.perf_counter() - started, value


def measure(where: Where, repeats: int) -> dict[str, Any]:
    """Best of ``repeats`` for each figure; the passes are interleaved, so a busy machine
    slows all of them alike."""
    best = {"suite": float("inf"), "bare": float("inf"), "sdk": float("inf")}
    suite_steps: dict[str, float] = {}
    bare_steps: dict[str, float] = {}
    passed = requests = 0
    for _ in range(repeats):
        seconds, passed = _timed(lambda: suite_pass(*where))
        best["suite"] = min(best["suite"], seconds)
        bare = Phases()
        seconds, requests = _timed(lambda: bare_pass(*where, bare))  # noqa: B023
        best["bare"] = min(best["bare"], seconds)
        best["sdk"] = min(best["sdk"], _timed(lambda: sdk_pass(*where))[0])
        _, steps = _timed(lambda: instrumented_pass(*where))
        for into, got in ((suite_steps, steps.seconds), (bare_steps, bare.seconds)):
            for name, value in got.items():
                into[name] = min(into.get(name, float("inf")), value)
    return {
        **best,
        "passed": passed,
        "requests": requests,
        "steps": suite_steps,
        "bare_steps": bare_steps,
    }


def report(figures: dict[str, Any], *, cases: int, model: str, repeats: int) -> None:
    suite, bare, sdk = figures["suite"], figures["bare"], figures["sdk"]
    ratio = suite / bare
    print(
        f"{cases} cases, {figures['requests']} recorded requests, cassettes {model!r}, "
        f"best of {repeats} interleaved passes, per-text caches emptied before each pass"
    )
    print(
        f"(a) suite replay (load_case, cassette, run_case) {suite * 1000:8.1f} ms  "
        f"({figures['passed']}/{cases} passed)"
    )
    print(f"(b) bare vcrpy replay (httpx2)                   {bare * 1000:8.1f} ms")
    print(f"(c) the same requests through the SDK            {sdk * 1000:8.1f} ms")
    verdict = "within" if ratio <= AIM else "above"
    print(f"ratio (a)/(b): {ratio:.2f}x ({verdict} the aim of {AIM}x); (c)/(b): {sdk / bare:.2f}x")
    print("where the time goes (ms, best per step over the passes):")
    for label, steps in (("(a)", figures["steps"]), ("(b)", figures["bare_steps"])):
        for name, seconds in steps.items():
            print(f"  {label} {name:<24} {seconds * 1000:8.1f}")
    print("  * summed over the extraction threads, which overlap; includes vcrpy's matching")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="passes per figure (best kept)")
    parser.add_argument("--model", default="reference", help="cassettes/<model>/ to replay")
    parser.add_argument("--cases-dir", type=Path, default=ROOT / "cases")
    parser.add_argument("--cassette-root", type=Path, default=ROOT / "cassettes")
    add_options(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats = 1
    if args.repeats < 1:
        parser.error(f"--repeats is {args.repeats}; expected 1 or more")
    paths = case_files(args.cases_dir)[: QUICK_CASES if args.quick else None]
    where: Where = (paths, args.cassette_root, args.model)
    # warm-up: imports and one-time loads (word counts, sentence model) are paid once
    suite_pass(*where), bare_pass(*where, Phases()), sdk_pass(*where)
    figures = measure(where, args.repeats)
    report(figures, cases=len(paths), model=args.model, repeats=args.repeats)
    keep(
        __file__,
        args,
        {
            "cases": len(paths),
            "cases passed": figures["passed"],
            "recorded requests": figures["requests"],
            "(a) suite replay ms": round(figures["suite"] * 1000, 1),
            "(b) bare vcrpy replay ms": round(figures["bare"] * 1000, 1),
            "(c) requests through the SDK ms": round(figures["sdk"] * 1000, 1),
            "ratio (a)/(b)": round(figures["suite"] / figures["bare"], 2),
            "ratio (c)/(b)": round(figures["sdk"] / figures["bare"], 2),
            **{f"(a) {k.strip()} ms": round(v * 1000, 1) for k, v in figures["steps"].items()},
        },
        model=args.model,
        repeats=args.repeats,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
