"""Make the two public retrieval sets under ``benchmarks/data/retrieval/`` from their sources.

Run: python benchmarks/make_retrieval_sets.py --squad-explorer GITDIR --qasper-sample GITDIR
     [--titles N]

Each set is a ``documents.jsonl`` (``{"id", "text"}`` a line) and a ``questions.jsonl``
(Chroma's keys: ``question``, ``corpus_id``, ``references`` with ``start_index``,
``end_index`` and ``content``), which ``agentic_chunking.evaluate.load_documents`` and
``load_questions`` read and ``check_questions`` verifies (every range holds its content).
The rules, deterministic, stated again in each set's README:

- ``squad``: SQuAD 1.1's dev split as its authors' explorer pages show it (the gh-pages
  branch of rajpurkar/SQuAD-explorer, ``explore/1.1/dev/<title>.html``): the first
  ``--titles`` titles in the order of the explorer's index (the dev file's order). A
  document is one title's paragraphs joined by a blank line (a whole article, several
  topics). A question is kept when its first ground-truth answer occurs exactly once in its
  paragraph (the pages give no offset, so an answer found twice is ambiguous); its gold
  range is that occurrence.
- ``qasper``: QASPER's first ten papers of the train split (the HF parquet conversion's
  order), as ``qasper-original-sample.json`` of rajsr-p/qasper-personal holds them. A
  document is the title, the abstract and each section (its name on a line, then its
  paragraphs), joined by blank lines. A question is kept when one of its answers (the
  first, in the file's order, that qualifies) is answerable and cites evidence paragraphs
  that are all in the text (a figure or table, "FLOAT SELECTED: ...", is not); its gold
  ranges are those paragraphs.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "data" / "retrieval"
PARAGRAPH = re.compile(r'<div class="para-wrap">(.*?)(?=<div class="para-wrap">|$)', re.S)
CONTEXT = re.compile(r"<pre>(.*?)</pre>", re.S)
QA = re.compile(
    r'<div class="qa-wrap" data-id="([^"]+)">.*?<strong class="question">(.*?)</strong>'
    r'.*?<span class="answer">(.*?)</span>',
    re.S,
)


def _git_show(repo: Path, spec: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "show", spec], check=True, capture_output=True, text=True
    ).stdout


def _commit(repo: Path, ref: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", ref], check=True, capture_output=True, text=True
    ).stdout.strip()


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


def squad(repo: Path, titles: int) -> dict[str, Any]:
    """Write the SQuAD set; return what was taken (for the README)."""
    index = _git_show(repo, "gh-pages:explore/1.1/dev/index.html")
    order: list[str] = []
    for name in re.findall(r'href="/SQuAD-explorer/explore/1\.1/dev/([^"?]+)\.html"', index):
        if name not in order:
            order.append(name)
    documents, questions = [], []
    skipped = 0
    for title in order[:titles]:
        page = _git_show(repo, f"gh-pages:explore/1.1/dev/{title}.html")
        text, paragraphs = "", []
        for block in PARAGRAPH.findall(page):
            found = CONTEXT.search(block)
            if found is None:
                continue
            context = html.unescape(found.group(1)).strip()
            start = len(text) + (2 if text else 0)
            text = f"{text}\n\n{context}" if text else context
            paragraphs.append((start, context, QA.findall(block)))
        documents.append({"id": title, "text": text})
        for start, context, qas in paragraphs:
            for _, question, answer in qas:
                answer = html.unescape(answer).strip()
                if not answer or context.count(answer) != 1:
                    skipped += 1
                    continue
                begin = start + context.index(answer)
                questions.append(
                    {
                        "question": html.unescape(question).strip(),
                        "corpus_id": title,
                        "references": [
                            {
                                "start_index": begin,
                                "end_index": begin + len(answer),
                                "content": answer,
                            }
                        ],
                    }
                )
    _write_jsonl(OUT / "squad" / "documents.jsonl", documents)
    _write_jsonl(OUT / "squad" / "questions.jsonl", questions)
    return {
        "commit": _commit(repo, "gh-pages"),
        "titles": [d["id"] for d in documents],
        "questions": len(questions),
        "skipped": skipped,
        "characters": sum(len(d["text"]) for d in documents),
    }


def _records(content: str) -> list[dict[str, Any]]:
    """The file holds JSON objects one after another (indented), not one list."""
    decoder, at, records = json.JSONDecoder(), 0, []
    while True:
        while at < len(content) and content[at].isspace():
            at += 1
        if at >= len(content):
            return records
        record, at = decoder.raw_decode(content, at)
        records.append(record)


def qasper(repo: Path) -> dict[str, Any]:
    """Write the QASPER set; return what was taken (for the README)."""
    papers = _records(_git_show(repo, "HEAD:qasper-original-sample.json"))
    documents, questions = [], []
    skipped = 0
    for paper in papers:
        parts: list[str] = [paper["title"].strip(), "Abstract", paper["abstract"].strip()]
        full = paper["full_text"]
        for name, paragraphs in zip(full["section_name"], full["paragraphs"], strict=True):
            parts.append((name or "").strip() or "Section")
            parts.extend(p.strip() for p in paragraphs if p.strip())
        text = "\n\n".join(parts)
        starts: dict[str, int] = {}
        at = 0
        for part in parts:
            starts.setdefault(part, at)
            at += len(part) + 2
        documents.append({"id": paper["id"], "text": text})
        qas = paper["qas"]
        for question, answers in zip(qas["question"], qas["answers"], strict=True):
            gold: list[str] | None = None
            for answer in answers["answer"]:
                evidence = [e.strip() for e in answer["evidence"] if e.strip()]
                if (
                    not answer["unanswerable"]
                    and evidence
                    and all(e in starts and text.count(e) == 1 for e in evidence)
                ):
                    gold = evidence
                    break
            if gold is None:
                skipped += 1
                continue
            questions.append(
                {
                    "question": question.strip(),
                    "corpus_id": paper["id"],
                    "references": [
                        {"start_index": starts[e], "end_index": starts[e] + len(e), "content": e}
                        for e in sorted(set(gold), key=starts.__getitem__)
                    ],
                }
            )
    _write_jsonl(OUT / "qasper" / "documents.jsonl", documents)
    _write_jsonl(OUT / "qasper" / "questions.jsonl", questions)
    return {
        "commit": _commit(repo, "HEAD"),
        "papers": [d["id"] for d in documents],
        "questions": len(questions),
        "skipped": skipped,
        "characters": sum(len(d["text"]) for d in documents),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--squad-explorer", type=Path, required=True, help="its git directory")
    parser.add_argument("--qasper-sample", type=Path, required=True, help="its git directory")
    parser.add_argument("--titles", type=int, default=10, help="SQuAD titles taken (first N)")
    args = parser.parse_args()
    print(json.dumps({"squad": squad(args.squad_explorer, args.titles)}, indent=1))
    print(json.dumps({"qasper": qasper(args.qasper_sample)}, indent=1))


if __name__ == "__main__":
    main()
