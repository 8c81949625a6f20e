"""The bundled benchmark: Chroma's five corpora and 472 questions, read from package data."""

from __future__ import annotations

from importlib import resources

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
