"""The evaluation: chunkers, the embedding cache, a sweep, and the command end to end.

A table-lookup embedder (``TableEmbedder``) stands in for the model: each test knows
which chunk every question must retrieve.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from embedders import TableEmbedder

from agentic_chunking._errors import InputError
from agentic_chunking.cli import main
from agentic_chunking.evaluate import (
    Document,
    Question,
    build_chunker,
    chunker_specs,
    evaluate,
    fixed_windows,
    format_table,
    from_callable,
    paired_difference,
    parse_grid,
    render_html,
    sweep_specs,
)

PARAGRAPHS = [
    "Insulin lowers blood sugar in the body.",
    "The bank opened a branch in Rome in 1402.",
    "Glaciers carve valleys over thousands of years.",
]
TEXT = "\n\n".join(PARAGRAPHS)
QUESTIONS = ["What lowers blood sugar?", "When did the bank open in Rome?"]
TABLE = {
    PARAGRAPHS[0]: (1.0, 0.0, 0.0),
    PARAGRAPHS[1]: (0.0, 1.0, 0.0),
    PARAGRAPHS[2]: (0.0, 0.0, 1.0),
    QUESTIONS[0]: (0.9, 0.1, 0.0),
    QUESTIONS[1]: (0.1, 0.9, 0.0),
}


def paragraphs(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for part in text.split("\n\n"):
        spans.append((start, start + len(part)))
        start += len(part) + 2
    return spans


def corpus() -> tuple[list[Document], list[Question]]:
    gold = [TEXT.index("Insulin lowers blood sugar"), TEXT.index("in 1402")]
    return [Document("doc", TEXT)], [
        Question(QUESTIONS[0], "doc", ((gold[0], gold[0] + 26),)),
        Question(QUESTIONS[1], "doc", ((gold[1], gold[1] + 7),)),
    ]


def test_the_right_paragraph_is_retrieved_and_scored() -> None:
    documents, questions = corpus()
    result = evaluate(
        documents,
        questions,
        [from_callable("paragraphs", paragraphs)],
        embedder=TableEmbedder(TABLE),
        k=1,
        budget=10,
    ).results[0]
    assert result.chunks == 3
    assert result.at_k.recall == 1.0
    lengths = [len(PARAGRAPHS[0]), len(PARAGRAPHS[1])]
    assert result.at_k.precision == pytest.approx((26 / lengths[0] + 7 / lengths[1]) / 2)
    # a budget of 10 tokens: the best paragraph only (each is about 10 tokens)
    assert result.at_budget.chunks == 1.0


def test_two_chunkers_are_compared_question_by_question() -> None:
    documents, questions = corpus()
    whole, parts = evaluate(
        documents,
        questions,
        [from_callable("whole", lambda text: [(0, len(text))]), from_callable("parts", paragraphs)],
        embedder=TableEmbedder(TABLE),
        budget=1000,
    ).results
    # Each question's recall at the budget, in order; their mean is the reported recall.
    assert parts.budget_recalls == (1.0, 1.0)
    assert sum(whole.budget_recalls) / 2 == pytest.approx(whole.at_budget.recall)
    mean, error = paired_difference(parts, parts)
    assert (mean, error) == (0.0, 0.0)
    # hand-made: differences 0.5 and 0.1, mean 0.3, sample sd 0.2828, se 0.2
    first = dataclasses.replace(parts, budget_recalls=(1.0, 0.5))
    second = dataclasses.replace(parts, budget_recalls=(0.5, 0.4))
    assert paired_difference(first, second) == pytest.approx((0.3, 0.2))
    with pytest.raises(InputError, match="same questions"):
        paired_difference(first, dataclasses.replace(parts, budget_recalls=(1.0,)))


def test_a_second_run_embeds_nothing_and_a_sweep_embeds_each_chunk_once(tmp_path: Path) -> None:
    documents, questions = corpus()
    chunkers = ["fixed,size=5", "fixed,size=5,overlap=0", "level4,max_tokens=8"]
    first = TableEmbedder(TABLE)
    evaluate(documents, questions, chunkers, embedder=first, cache_dir=tmp_path)
    assert first.asked and len(first.asked) == len(set(first.asked))  # each text once
    second = TableEmbedder(TABLE)
    again = evaluate(documents, questions, chunkers, embedder=second, cache_dir=tmp_path)
    assert second.asked == []
    assert all(r.embedder_calls == 0 and r.embedded_texts == 0 for r in again.results)
    assert again.results[2].chunking_texts > 0  # the splitter's inputs, served by the cache


def test_a_damaged_cache_shard_is_embedded_again(tmp_path: Path) -> None:
    documents, questions = corpus()
    evaluate(
        documents, questions, ["fixed,size=5"], embedder=TableEmbedder(TABLE), cache_dir=tmp_path
    )
    for shard in tmp_path.rglob("*.json"):
        shard.write_text("{not json", encoding="utf-8")
    again = TableEmbedder(TABLE)
    evaluate(documents, questions, ["fixed,size=5"], embedder=again, cache_dir=tmp_path)
    assert again.asked


def test_fixed_windows_cover_the_text_and_overlap() -> None:
    text = "word " * 100
    spans = fixed_windows(text, 10, 5)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(b - a <= 40 for a, b in spans)
    assert all(later[0] < earlier[1] for earlier, later in itertools.pairwise(spans))
    assert fixed_windows(text, 10) == [(i, min(i + 40, len(text))) for i in range(0, 500, 40)]


def test_a_callable_span_outside_the_document_is_refused() -> None:
    documents, questions = corpus()
    bad = from_callable("bad", lambda text: [(0, len(text) + 5)])
    with pytest.raises(InputError, match="outside 'doc'"):
        evaluate(documents, questions, [bad], embedder=TableEmbedder(TABLE))


def _broken(text: str) -> list[tuple[int, int]]:
    raise ValueError("my chunker broke")


@pytest.mark.parametrize(
    ("function", "said"),
    [
        (_broken, "ValueError: my chunker broke"),
        (lambda: [], "TypeError"),  # the wrong signature
        (lambda text: 42, "TypeError"),  # not a list of spans
        (lambda text: ["x" * 500], "returned 'x"),  # a string, not a span: quoted short
        (lambda text: sys.exit(3), "it called sys.exit(3)"),  # not a silent exit 3
    ],
    ids=["raises", "signature", "not-iterable", "strings", "exits"],
)
def test_a_failing_callable_is_the_users_input_error_naming_it(function: Any, said: str) -> None:
    documents, questions = corpus()
    chunker = from_callable("mine:split", function)
    with pytest.raises(InputError) as raised:
        evaluate(documents, questions, [chunker], embedder=TableEmbedder(TABLE))
    message = str(raised.value)
    assert said in message and "'mine:split'" in message and "'doc'" in message
    assert len(message) < 400 and "\n" not in message


def test_bad_specs_name_the_way_out() -> None:
    embedder = TableEmbedder(TABLE)
    with pytest.raises(InputError, match="no chunker named 'magic'"):
        build_chunker("magic", embedder)
    with pytest.raises(InputError, match="no setting 'colour'"):
        build_chunker("fixed,colour=red", embedder)
    with pytest.raises(InputError, match="never runs on invented replies"):
        build_chunker("level5", embedder)
    with pytest.raises(InputError, match="not name=v1,v2"):
        parse_grid("threshold")


def test_level5_is_read_from_recorded_output_and_labelled(tmp_path: Path) -> None:
    documents, questions = corpus()
    start = TEXT.index("in 1402")
    records = {
        "model": "reference",
        "replies": "reference",
        "chunks": [
            {"document_id": "doc", "text": PARAGRAPHS[1], "spans": [[start - 5, start + 7]]},
            {"document_id": "doc", "text": PARAGRAPHS[0], "spans": [[0, 10], [20, 39]]},
        ],
    }
    path = tmp_path / "level5.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    evaluation = evaluate(
        documents, questions, [f"level5,replies={path}"], embedder=TableEmbedder(TABLE), k=1
    )
    result = evaluation.results[0]
    assert result.model_output == "reference"  # hand-written: never a model's output
    assert result.chunks == 2
    assert "[reference]" in format_table(evaluation)
    assert "not a model" in render_html(evaluation)


def test_sweep_specs_cover_the_grid() -> None:
    specs = sweep_specs("level4-solon", {"threshold": ("0.35", "0.5"), "window": ("1", "3")})
    assert specs == [
        "level4-solon,threshold=0.35,window=1",
        "level4-solon,threshold=0.35,window=3",
        "level4-solon,threshold=0.5,window=1",
        "level4-solon,threshold=0.5,window=3",
    ]


FACTORY = f"""
from embedders import TableEmbedder
TABLE = {TABLE!r}

def table():
    return TableEmbedder(TABLE)

def paragraphs(text):
    spans, start = [], 0
    for part in text.split("\\n\\n"):
        spans.append((start, start + len(part)))
        start += len(part) + 2
    return spans
"""


def test_the_command_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "eval_helpers.py").write_text(FACTORY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("eval_helpers", None)
    (tmp_path / "corpus.jsonl").write_text(json.dumps({"id": "doc", "text": TEXT}) + "\n", "utf-8")
    _, questions = corpus()
    lines = [
        json.dumps(
            {
                "question": q.text,
                "corpus_id": "doc",
                "references": [{"start_index": a, "end_index": b} for a, b in q.excerpts],
            }
        )
        for q in questions
    ]
    (tmp_path / "questions.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    common = [
        "evaluate",
        str(tmp_path / "corpus.jsonl"),
        "--questions",
        str(tmp_path / "questions.jsonl"),
        "-k",
        "1",
        "--embedder",
        "eval_helpers:table",
        "--cache-dir",
        str(tmp_path / "cache"),
    ]
    out_json, out_html = tmp_path / "out.json", tmp_path / "out.html"
    chunkers = ["--chunker", "eval_helpers:paragraphs", "--chunker", "fixed,size=4"]
    outputs = ["--json", str(out_json), "--html", str(out_html)]
    assert main([*common, *chunkers, *outputs]) == 0
    out = capsys.readouterr().out
    assert "R@budget" in out and "no chunker used a model's output" in out
    data = json.loads(out_json.read_text("utf-8"))
    assert [r["name"] for r in data["results"]] == ["eval_helpers:paragraphs", "fixed,size=4"]
    assert data["results"][0]["at_k"]["recall"] == 1.0
    assert data["questions"] == 2 and data["k"] == 1 and data["budget_tokens"] == 1000
    page = out_html.read_text("utf-8")
    assert "<svg" in page and "eval_helpers:paragraphs" in page and "<script" not in page

    sweep = ["--chunker", "fixed", "--sweep", "size=4,40", "--json", str(out_json)]
    assert main([*common, *sweep]) == 0
    data = json.loads(out_json.read_text("utf-8"))
    recalls = [r["at_budget"]["recall"] for r in data["results"]]
    assert recalls == sorted(recalls, reverse=True) and len(recalls) == 2
    assert data["chosen"] == data["results"][0]["name"]
    assert "* chosen" in capsys.readouterr().out


def test_the_command_refuses_a_corpus_without_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.txt").write_text("Some text.", "utf-8")
    assert main(["evaluate", str(tmp_path / "a.txt")]) == 2
    assert "needs --questions" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--json", "--html"])
def test_an_output_naming_the_questions_or_a_corpus_document_is_refused(
    tmp_path: Path, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    document = folder / "a.txt"
    document.write_text("Some text.", "utf-8")
    questions = tmp_path / "questions.csv"
    questions.write_text('question,references,corpus_id\nQ?,"[]",a\n', "utf-8")
    for target, said in ((questions, "is the input file"), (document, "inside the input folder")):
        assert (
            main(["evaluate", str(folder), "--questions", str(questions), option, str(target)]) == 2
        )
        assert said in capsys.readouterr().err
    assert document.read_text("utf-8") == "Some text."
    assert questions.read_text("utf-8").startswith("question,references")


def test_each_embedding_batch_reports_its_count_for_the_progress_line() -> None:
    documents, questions = corpus()
    names: list[str] = []
    counts: list[int] = []
    evaluate(
        documents,
        questions,
        [from_callable("paragraphs", paragraphs)],
        embedder=TableEmbedder(TABLE),
        progress=names.append,
        on_embedded=counts.append,
    )
    assert names == ["paragraphs"]
    assert sum(counts) == len(QUESTIONS) + len(PARAGRAPHS)  # every text embedded once


SLOW_FACTORY = """
import time

from agentic_chunking.semantic import HashingEmbedder


class Slow(HashingEmbedder):
    def __call__(self, texts, /):
        time.sleep(0.2)
        return super().__call__(texts)


def slow():
    return Slow()
"""


def test_off_a_terminal_a_slow_evaluation_says_where_it_is_at_least_every_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """evaluate off a terminal printed two lines in 17 minutes: now the chunker still
    running (and the texts embedded so far, once some are) at least every PROGRESS_EVERY_S
    (the one interval of every long command; 0.05 s here) while a slow embedder works."""
    import agentic_chunking.cli._progress as progress

    monkeypatch.setattr(progress, "PROGRESS_EVERY_S", 0.05)
    (tmp_path / "eval_slow.py").write_text(SLOW_FACTORY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("eval_slow", None)
    (tmp_path / "corpus.jsonl").write_text(json.dumps({"id": "doc", "text": TEXT}) + "\n", "utf-8")
    _, questions = corpus()
    lines = [
        json.dumps(
            {
                "question": q.text,
                "corpus_id": "doc",
                "references": [{"start_index": a, "end_index": b} for a, b in q.excerpts],
            }
        )
        for q in questions
    ]
    (tmp_path / "questions.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    command = ["evaluate", str(tmp_path / "corpus.jsonl"), "--questions"]
    command += [str(tmp_path / "questions.jsonl"), "--embedder", "eval_slow:slow", "--no-cache"]
    assert main([*command, "--chunker", "fixed,size=4"]) == 0
    err = capsys.readouterr().err
    beats = [line for line in err.splitlines() if line.endswith(" in)")]
    assert beats, err
    assert all(line.startswith("agentic-chunking evaluate: ") for line in beats)
    # the chunker at work, repeated while its (slow) embedding runs
    assert any(line.startswith("agentic-chunking evaluate: fixed,size=4 (") for line in beats), err


def test_chunker_specs_defaults_sweeps_and_adds_the_installed_splitters_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What ``evaluate`` compares: the named chunkers, else the defaults; a sweep replaces
    them by its grid on the first named (else the sweep's base); --installed appends each
    installed library splitter once, after what is already named."""
    default = ("level4", "fixed,size=256")
    assert chunker_specs([], default=default) == list(default)
    assert chunker_specs(["fixed,size=8"], default=default) == ["fixed,size=8"]
    grid = "size=8,16 overlap=0,2"
    assert chunker_specs(["fixed"], default=default, sweep=grid) == sweep_specs(
        "fixed", parse_grid(grid)
    )
    swept = chunker_specs([], default=default, sweep="seed", sweep_base="level4-solon")
    assert len(swept) == 27 and all(s.startswith("level4-solon,threshold=") for s in swept)
    monkeypatch.setattr(
        "agentic_chunking.evaluate._run.installed_splitters", lambda: ["recursive", "chonkie-token"]
    )
    assert chunker_specs(["recursive,size=256"], default=default, installed=True) == [
        "recursive,size=256",
        "chonkie-token,size=256",
    ]
