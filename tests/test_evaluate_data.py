"""The bundled benchmark: Chroma's five corpora and 472 questions, read from package data."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from agentic_chunking._errors import InputError
from agentic_chunking.evaluate import BENCHMARK_CORPORA, load_benchmark

DATA = resources.files("agentic_chunking.evaluate") / "data"


def test_every_gold_excerpt_is_its_corpus_slice() -> None:
    documents, questions = load_benchmark()
    texts = {d.id: d.text for d in documents}
    assert sorted(texts) == sorted(BENCHMARK_CORPORA)
    assert len(questions) == 472
    import csv
    import json

    rows = list(csv.DictReader(DATA.joinpath("questions.csv").read_text("utf-8").splitlines(True)))
    excerpts = [(r["corpus_id"], ref) for r in rows for ref in json.loads(r["references"])]
    assert len(excerpts) == 790
    for corpus, ref in excerpts:
        assert texts[corpus][ref["start_index"] : ref["end_index"]] == ref["content"]


def test_the_data_stays_modest_and_names_its_source() -> None:
    size = sum(f.stat().st_size for f in DATA.iterdir() if f.is_file())  # type: ignore[attr-defined]
    assert size < 2_100_000
    readme = DATA.joinpath("README.md").read_text("utf-8")
    assert "d451fc4cf56e417b755994b4ca5212fd5057c0d2" in readme
    assert "MIT License" in DATA.joinpath("LICENSE").read_text("utf-8")


def test_known_sections_are_the_article_starts() -> None:
    documents, _ = load_benchmark(["wikitexts", "pubmed", "finance"])
    sections = {d.id: d.sections for d in documents}
    wiki = next(d for d in documents if d.id == "wikitexts")
    assert len(sections["wikitexts"]) == 16  # 17 articles, the first at offset 0
    assert all(wiki.text[s : s + 3] == " = " for s in sections["wikitexts"])
    assert len(sections["pubmed"]) == 14
    assert sections["finance"] == ()


def test_a_subset_and_a_quick_run() -> None:
    documents, questions = load_benchmark(["chatlogs"], questions_per_corpus=3)
    assert [d.id for d in documents] == ["chatlogs"]
    assert len(questions) == 3 and {q.document_id for q in questions} == {"chatlogs"}
    with pytest.raises(InputError, match="no corpus 'novels'"):
        load_benchmark(["novels"])


def _gold(text: str, content: str, start: int) -> str:
    import csv
    import io
    import json

    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["question", "references", "corpus_id"])
    reference = {"content": content, "start_index": start, "end_index": start + len(content)}
    writer.writerow(["What is said?", json.dumps([reference]), "doc"])
    return out.getvalue()


@pytest.mark.parametrize(
    ("text", "start", "said"),
    [
        ("One line.\nThe gold sentence.\n", 11, "shifted by -1"),  # a row shifted by one
        ("\ufeffOne line.\nThe gold sentence.\n", 10, "byte-order mark"),  # offsets without BOM
        ("One line.\r\nThe gold sentence.\r\n", 10, "CRLF"),  # offsets taken on LF text
    ],
)
def test_a_gold_range_that_does_not_hold_its_content_is_refused(
    text: str, start: int, said: str
) -> None:
    from agentic_chunking.evaluate._data import check_questions, parse_questions_csv
    from agentic_chunking.evaluate._records import Document

    questions = parse_questions_csv(_gold(text, "The gold sentence.", start), "q.csv")
    with pytest.raises(InputError) as caught:
        check_questions([Document("doc", text)], questions)
    message = str(caught.value)
    assert "question 1: the excerpt" in message and "does not hold its 'content'" in message
    assert said in message and "correct the offsets" in message


def test_a_gold_range_holding_its_content_or_giving_none_passes() -> None:
    from agentic_chunking.evaluate._data import check_questions, parse_questions_csv
    from agentic_chunking.evaluate._records import Document

    text = "One line.\nThe gold sentence.\n"
    questions = parse_questions_csv(_gold(text, "The gold sentence.", 10), "q.csv")
    check_questions([Document("doc", text)], questions)  # no error: the range holds it
    assert questions[0].contents == ("The gold sentence.",)
    bare = 'question,references,corpus_id\nQ?,"[{""start_index"": 0, ""end_index"": 3}]",doc\n'
    (question,) = parse_questions_csv(bare, "q.csv")
    assert question.contents == ()
    check_questions([Document("doc", text)], [question])


def test_a_folder_gives_the_files_corpus_reads_nested_ones_included(tmp_path: Path) -> None:
    """evaluate read only the top of a folder that corpus reads at every depth ("no
    document"); it now lists a folder's files through the corpus reader."""
    from agentic_chunking.evaluate import load_documents

    (tmp_path / "notes" / "deep").mkdir(parents=True)
    (tmp_path / "top.md").write_text("# Top\n\nSome text.\n", "utf-8")
    (tmp_path / "notes" / "deep" / "inner.txt").write_text("Inner text.\n", "utf-8")
    (tmp_path / ".hidden.txt").write_text("Never read.\n", "utf-8")
    documents = load_documents([tmp_path])
    assert [d.id for d in documents] == ["notes/deep/inner", "top"]
    assert documents[0].text == "Inner text.\n"
