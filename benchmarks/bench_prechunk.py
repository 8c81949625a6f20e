"""Pre-chunking throughput on a generated 10 MB text, against semchunk at the same limit.

Run: python benchmarks/bench_prechunk.py [--megabytes 10] [--repeat 3]
Prints the best wall time of each splitter and the ratio semchunk / ours (> 1: ours faster).
Both use the seed's token estimate (characters // 4) and a limit of 2000 tokens.
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections.abc import Callable

from agentic_chunking import estimate_tokens, pre_chunk_for_extraction

LIMIT_TOKENS = 2000
_WORDS = [
    "lithium",
    "cathode",
    "anode",
    "battery",
    "cell",
    "voltage",
    "kubernetes",
    "cluster",
    "container",
    "node",
    "planning",
    "zoning",
    "density",
    "metabolism",
    "enzyme",
    "genome",
    "sequence",
    "fresco",
    "patron",
    "painter",
    "florence",
]
_ABBREVIATIONS = ["Dr.", "e.g.", "U.S.", "3.5 V", "approx."]


def generate_text(megabytes: float, *, seed: int = 7) -> str:
    """Return deterministic prose of about ``megabytes`` MB: sentences, paragraphs, and now
    and then an oversized paragraph and an over-long sentence to exercise every path."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    paragraphs: list[str] = []
    size = 0
    while size < target:
        sentence_count = rng.choice([3, 5, 8, 12, 80])  # 80 makes an oversized paragraph
        sentences = []
        for _ in range(sentence_count):
            length = rng.choice([8, 14, 22, 2500])  # 2500 words: one sentence over the limit
            words = [rng.choice(_WORDS) for _ in range(length)]
            if rng.random() < 0.2:
                words.insert(rng.randrange(len(words)), rng.choice(_ABBREVIATIONS))
            sentences.append(" ".join(words).capitalize() + ".")
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(paragraphs)


def _best_time(function: Callable[[], list[str]], repeat: int) -> tuple[float, list[str]]:
    best, result = float("inf"), []
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import semchunk  # the baseline; installed by the dev extra

    text = generate_text(args.megabytes)
    print(f"text: {len(text):,} characters, limit {LIMIT_TOKENS} tokens (characters // 4)")

    ours_s, ours = _best_time(lambda: pre_chunk_for_extraction(text, LIMIT_TOKENS), args.repeat)
    # A fresh chunker per repeat: semchunk memoises token counts, and a cache warmed by
    # the previous repeat would time a second pass over the same text, not a first.
    theirs_s, theirs = _best_time(
        lambda: semchunk.chunkerify(estimate_tokens, chunk_size=LIMIT_TOKENS)(text), args.repeat
    )

    def _check(name: str, batches: list[str]) -> None:
        over = sum(estimate_tokens(b) > LIMIT_TOKENS for b in batches)
        kept = re.sub(r"\s+", "", "".join(batches)) == re.sub(r"\s+", "", text)
        print(f"  {name:<26} batches={len(batches):>6}  over limit={over}  content kept={kept}")

    print(f"pre_chunk_for_extraction  {ours_s:8.3f} s  {len(text) / ours_s / 1e6:7.2f} MB/s")
    print(f"semchunk.chunkerify       {theirs_s:8.3f} s  {len(text) / theirs_s / 1e6:7.2f} MB/s")
    _check("pre_chunk_for_extraction", ours)
    _check("semchunk", theirs)
    print(f"ratio semchunk / ours: {theirs_s / ours_s:.2f}x (above 1: ours is faster)")


if __name__ == "__main__":
    main()
