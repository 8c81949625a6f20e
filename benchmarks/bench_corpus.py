"""A corpus run against a loopback Messages API with a fixed latency per call: each figure a
ratio from one run.

- wall time of DOCS generated documents at concurrency 16 against the latency floor
  (ceil(calls / 16) x latency): the shared limit keeps 16 requests in flight across
  documents;
- peak memory (max RSS of the client process) at 10 x DOCS documents against DOCS
  documents: documents stream in and results stream out;
- killed at about half (SIGKILL while requests are held), then rerun: requests paid twice
  (goal 0) and whether OUT equals an uninterrupted run's, byte for byte;
- ``--batch`` against a loopback Message Batches server: whether OUT equals the synchronous
  run's, and its cost over the synchronous cost (goal 0.5);
- the Ray engine on a local Ray instance of 2 CPUs (with the ``ray`` extra): whether OUT
  equals the local engine's, and its overhead per document over the local engine's.

    python benchmarks/bench_corpus.py            # 1,000 and 10,000 documents, 0.2 s a call
    python benchmarks/bench_corpus.py --quick    # 40 and 400 documents, 0.02 s a call

Add ``--json PATH`` to write the figures as JSON. No network: the server is on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, keep

from agentic_chunking._loopback import FakeMessagesServer, ParagraphModel
from agentic_chunking.corpus import Ledger

KEY = "sk-ant-bench-corpus"
CONCURRENCY = 16


def write_corpus(path: Path, documents: int) -> None:
    """``documents`` generated documents of two paragraphs (one extraction call, one
    grouping call each), as JSONL with a little metadata."""
    with path.open("w", encoding="utf-8") as stream:
        for n in range(documents):
            text = (
                f"Alpha {n} is the first fact of document {n}.\n\n"
                f"Beta {n} is the second fact of document {n}."
            )
            record = {"document_id": f"doc-{n:06d}", "text": text, "metadata": {"n": n}}
            stream.write(json.dumps(record) + "\n")


def run_cli(corpus: Path, out: Path, base_url: str, *extra: str) -> tuple[float, int, str]:
    """Run ``corpus`` in a child process; return (wall seconds, max RSS in KiB, stderr)."""
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": base_url}
    code = (
        "import resource, sys\n"
        "from agentic_chunking.cli import main\n"
        "status = main(sys.argv[1:])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "corpus",
            str(corpus),
            "-o",
            str(out),
            "--quiet",
            "--max-concurrency",
            str(CONCURRENCY),
            *extra,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the corpus run failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, int(done.stderr.strip().splitlines()[-1]), done.stderr


class ServerProcess:
    """A ParagraphModel server with ``latency`` per call in a process of its own, so its
    threads do not share the benchmark's interpreter lock with the client's."""

    def __init__(self, latency: float) -> None:
        self._child = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._child.stdout is not None
        self.base_url = self._child.stdout.readline().strip()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._child.stdin is not None
        self._child.stdin.close()
        self._child.wait(60)


def serve(latency: float) -> None:
    """The child of ServerProcess: serve until standard input closes."""
    with FakeMessagesServer(handler=ParagraphModel(delay_s=latency)) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


def throughput(documents: int, latency: float) -> dict[str, Any]:
    """Run the corpus command in this process (imports and client warmed up by a first,
    one-document run) against a server process; wall time against the latency floor."""
    from agentic_chunking.cli import main as cli

    with tempfile.TemporaryDirectory() as work, ServerProcess(latency) as server:
        os.environ.update({"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url})
        warm = Path(work) / "warm.jsonl"
        write_corpus(warm, 1)
        cli(["corpus", str(warm), "-o", str(Path(work) / "warm-out.jsonl"), "--quiet"])
        corpus = Path(work) / "corpus.jsonl"
        write_corpus(corpus, documents)
        started = time.perf_counter()
        status = cli(
            [
                "corpus",
                str(corpus),
                "-o",
                str(Path(work) / "out.jsonl"),
                "--quiet",
                "--max-concurrency",
                str(CONCURRENCY),
            ]
        )
        wall = time.perf_counter() - started
        if status != 0:
            raise SystemExit(f"the corpus run failed with status {status}")
    calls = 2 * documents  # one extraction and one grouping call a document (checked below)
    floor = math.ceil(calls / CONCURRENCY) * latency
    return {
        "documents": documents,
        "calls": calls,
        "wall_s": wall,
        "floor_s": floor,
        "wall_over_floor": wall / floor,
    }


def memory(documents: int) -> int:
    with tempfile.TemporaryDirectory() as work:
        corpus = Path(work) / "corpus.jsonl"
        write_corpus(corpus, documents)
        script = ParagraphModel()
        with FakeMessagesServer(handler=script) as server:
            _, rss, _ = run_cli(corpus, Path(work) / "out.jsonl", server.base_url)
    return rss


def kill_and_resume(documents: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as work:
        corpus, out = Path(work) / "corpus.jsonl", Path(work) / "out.jsonl"
        write_corpus(corpus, documents)
        script = ParagraphModel(hold_after=documents)  # about half of the 2 x documents calls
        with FakeMessagesServer(handler=script) as server:
            env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
            child = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "agentic_chunking",
                    "corpus",
                    str(corpus),
                    "-o",
                    str(out),
                    "--quiet",
                    "--max-concurrency",
                    str(CONCURRENCY),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + 600
            while script.held < CONCURRENCY // 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            child.kill()
            child.wait()
            script.release.set()
            finished = Ledger(Path(work) / "out.ledger.sqlite").counts().get("done", 0)
            script._hold_after = None
            run_cli(corpus, out, server.base_url)
            paid_twice = script.paid_twice
        whole = Path(work) / "whole.jsonl"
        fresh = ParagraphModel()
        with FakeMessagesServer(handler=fresh) as server:
            run_cli(corpus, whole, server.base_url)
        same = out.read_bytes() == whole.read_bytes()
    return {
        "documents": documents,
        "finished_before_kill": finished,
        "requests_paid_twice": paid_twice,
        "same_output": same,
    }


def _summary_cost(err: str) -> float:
    line = next(x for x in reversed(err.splitlines()) if "tokens, $" in x)
    return float(line.split("tokens, $", 1)[1].split(";", 1)[0])


def batch_against_sync(documents: int) -> dict[str, Any]:
    """The same corpus synchronously and with --batch: same OUT, and the cost ratio."""
    from agentic_chunking._loopback import FakeMessageBatchesServer

    with tempfile.TemporaryDirectory() as work:
        corpus = Path(work) / "corpus.jsonl"
        write_corpus(corpus, documents)
        with FakeMessagesServer(handler=ParagraphModel()) as server:
            _, _, err = run_cli(corpus, Path(work) / "sync.jsonl", server.base_url)
        sync_cost = _summary_cost(err)
        with FakeMessageBatchesServer(handler=ParagraphModel()) as server:
            _, _, err = run_cli(
                corpus,
                Path(work) / "batch.jsonl",
                server.base_url,
                "--batch",
                "--batch-poll",
                "0.1",
            )
            batches = len(server.book.batches)
        same = (Path(work) / "sync.jsonl").read_bytes() == (Path(work) / "batch.jsonl").read_bytes()
    return {
        "documents": documents,
        "same_output": same,
        "batches": batches,
        "cost_ratio": _summary_cost(err) / sync_cost,
    }


def ray_against_local(documents: int) -> dict[str, Any] | None:
    """The local engine and the Ray engine (a local instance of 2 CPUs, started by the
    command) on the same corpus: same OUT, and the overhead per document."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as work:
        corpus = Path(work) / "corpus.jsonl"
        write_corpus(corpus, documents)
        with FakeMessagesServer(handler=ParagraphModel()) as server:
            local_s, _, _ = run_cli(corpus, Path(work) / "local.jsonl", server.base_url)
            ray_s, _, _ = run_cli(
                corpus, Path(work) / "ray.jsonl", server.base_url, "--engine", "ray"
            )
        same = (Path(work) / "local.jsonl").read_bytes() == (Path(work) / "ray.jsonl").read_bytes()
    return {
        "documents": documents,
        "same_output": same,
        "local_s": local_s,
        "ray_s": ray_s,
        "overhead_per_document_s": (ray_s - local_s) / documents,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, help="documents of the throughput run")
    parser.add_argument("--latency", type=float, help="seconds per call")
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    add_options(parser)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return
    documents = args.documents or (48 if args.quick else 1000)
    latency = args.latency or (0.05 if args.quick else 0.2)
    speed = throughput(documents, latency)
    print(
        f"{documents:,} documents, {speed['calls']:,} calls, {latency} s a call, "
        f"{CONCURRENCY} in flight: wall {speed['wall_s']:.2f} s, floor {speed['floor_s']:.2f} s, "
        f"ratio {speed['wall_over_floor']:.3f} (goal <= 1.2)"
    )
    small, large = memory(documents), memory(10 * documents)
    print(
        f"peak memory: {small / 1024:.1f} MiB at {documents:,} documents, "
        f"{large / 1024:.1f} MiB at {10 * documents:,}: ratio {large / small:.3f} (goal <= 1.2)"
    )
    resumed = kill_and_resume(max(documents // 2, 20))
    print(
        f"killed with {resumed['finished_before_kill']} of {resumed['documents']} documents "
        f"finished, then rerun: {resumed['requests_paid_twice']} requests paid twice (goal 0), "
        f"output {'identical to' if resumed['same_output'] else 'DIFFERENT from'} an "
        "uninterrupted run's"
    )
    batched = batch_against_sync(max(documents // 4, 12))
    print(
        f"--batch on {batched['documents']} documents ({batched['batches']} batches): output "
        f"{'identical to' if batched['same_output'] else 'DIFFERENT from'} the synchronous "
        f"run's, cost ratio {batched['cost_ratio']:.3f} (goal 0.5)"
    )
    on_ray = None if args.quick else ray_against_local(max(documents // 4, 12))
    if args.quick:
        print("Ray engine: not run with --quick (starting Ray alone takes longer than a quick run)")
    elif on_ray is None:
        print("Ray engine: not measured (the ray extra is not installed)")
    else:
        print(
            f"Ray engine on {on_ray['documents']} documents: output "
            f"{'identical to' if on_ray['same_output'] else 'DIFFERENT from'} the local "
            f"engine's; {on_ray['ray_s']:.1f} s against {on_ray['local_s']:.1f} s local "
            "(each in a fresh process; Ray's start included): "
            f"{on_ray['overhead_per_document_s'] * 1000:.0f} ms more per document"
        )
    figures = {
        "calls": speed["calls"],
        "wall s": round(speed["wall_s"], 2),
        "latency floor s": round(speed["floor_s"], 2),
        "wall / floor (goal <= 1.2)": round(speed["wall_over_floor"], 3),
        f"peak memory MiB at {documents:,} documents": round(small / 1024, 1),
        f"peak memory MiB at {10 * documents:,} documents": round(large / 1024, 1),
        "peak memory ratio (goal <= 1.2)": round(large / small, 3),
        "killed and rerun: documents finished before the kill": resumed["finished_before_kill"],
        "killed and rerun: requests paid twice (goal 0)": resumed["requests_paid_twice"],
        "killed and rerun: output identical": resumed["same_output"],
        "--batch: output identical": batched["same_output"],
        "--batch: batches": batched["batches"],
        "--batch: cost ratio (goal 0.5)": round(batched["cost_ratio"], 3),
    }
    if on_ray is not None:
        figures |= {
            "Ray engine: output identical": on_ray["same_output"],
            "Ray engine: ms more per document": round(on_ray["overhead_per_document_s"] * 1000),
        }
    keep(__file__, args, figures, documents=documents, latency_s=latency)


if __name__ == "__main__":
    main()
