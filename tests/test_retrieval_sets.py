"""The public retrieval sets under benchmarks/data/retrieval/: every gold range holds its
text, the sizes and sources their READMEs state, and a shifted range refused."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from agentic_chunking._errors import InputError
from agentic_chunking.evaluate import load_documents, load_questions
from agentic_chunking.evaluate._data import check_questions

SETS = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "retrieval"
EXPECTED = {  # set: (documents, questions, the source commit its README names)
    "squad": (10, 2698, "e0c66cfec263165fb3c15cb76a22175e371b71d7"),
    "qasper": (10, 39, "d40559b9f8468dc3c94620503a9d83075df07016"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_gold_range_is_its_documents_slice(name: str) -> None:
    folder = SETS / name
    documents = load_documents([folder / "documents.jsonl"])
    questions = load_questions(folder / "questions.jsonl")
    count, asked, commit = EXPECTED[name]
    assert (len(documents), len(questions)) == (count, asked)
    check_questions(documents, questions)  # raises on a range that does not hold its content
    texts = {d.id: d.text for d in documents}
    lines = (folder / "questions.jsonl").read_text("utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    for row in rows:
        for ref in row["references"]:
            assert ref["content"].strip() == ref["content"] != ""
            assert texts[row["corpus_id"]][ref["start_index"] : ref["end_index"]] == ref["content"]
    readme = (folder / "README.md").read_text("utf-8")
    assert commit in readme and "CC BY" in readme
    assert sum(f.stat().st_size for f in folder.iterdir()) < 1_500_000


def test_a_shifted_range_is_refused() -> None:
    folder = SETS / "squad"
    documents = load_documents([folder / "documents.jsonl"])
    question = load_questions(folder / "questions.jsonl")[0]
    start, end = question.excerpts[0]
    moved = dataclasses.replace(question, excerpts=((start + 1, end + 1),))
    with pytest.raises(InputError, match="does not hold its 'content'"):
        check_questions(documents, [moved])


def test_the_compare_run_matches_sizes_and_marks_only_clear_differences(tmp_path: Path) -> None:
    """``bench_retrieval.py --set qasper --quick``: Level 4 and the splitters at three
    budgets; each splitter's size matched to Level 4's mean chunk (and semchunk and
    chonkie at its limit too, unless that is the matched size), and the coherence rule at
    the limit giving Level 4's mean chunk (``--coherence-matched``); a verdict other than "tie"
    exactly where the 95% interval excludes zero (checked on the rounded figures, with a
    margin for the rounding)."""
    import subprocess
    import sys

    out = tmp_path / "compare.json"
    root = SETS.parents[2]
    done = subprocess.run(
        [
            sys.executable,
            str(root / "benchmarks" / "bench_retrieval.py"),
            "--set",
            "qasper",
            "--quick",
            "--embedder",
            "hashing",
            "--coherence-matched",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text("utf-8"))["figures"]
    for budget in (250, 500, 1000):
        assert f"level4: recall at {budget} tokens (%)" in figures
        assert f"level4,rule=coherence: recall at {budget} tokens (%)" in figures
    sizes = {k: v for k, v in figures.items() if k.endswith(": mean chunk (tokens)")}
    matched = {
        k.removesuffix(" size matched to Level 4's mean chunk (tokens)"): v
        for k, v in figures.items()
        if k.endswith(" size matched to Level 4's mean chunk (tokens)")
    }
    assert "langchain-recursive" in matched  # the bench extra is in dev
    for name, size in matched.items():  # every splitter installed, at Level 4's mean
        mean = sizes[f"{name},size={size}: mean chunk (tokens)"]
        assert abs(mean - sizes["level4: mean chunk (tokens)"]) <= 10, name
    limit = figures["coherence limit matched to Level 4's mean chunk (tokens)"]
    coherence = f"level4,rule=coherence,max_tokens={limit}"
    assert (
        abs(sizes[f"{coherence}: mean chunk (tokens)"] - sizes["level4: mean chunk (tokens)"]) <= 10
    )
    assert f"{coherence} more than one point below a splitter of its mean chunk" in figures
    splitters = [k for k in sizes if not k.startswith("level4")]
    assert len(splitters) >= len(matched)  # the matched ones, and any same-limit one
    verdicts = [k for k in figures if k.endswith(": verdict (95% interval)")]
    assert len(verdicts) == 3 * 3 * len(splitters)  # three Level 4s, three budgets
    for key in verdicts:
        label = key.removesuffix(": verdict (95% interval)")
        mean = figures[f"{label}: paired difference (points)"]
        error = figures[f"{label}: paired standard error (points)"]
        if abs(mean) - 1.96 * error > 0.2:
            assert figures[key] == ("leads" if mean > 0 else "trails"), key
        elif abs(mean) - 1.96 * error < -0.2:
            assert figures[key] == "tie", key
