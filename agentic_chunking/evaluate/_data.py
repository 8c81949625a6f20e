"""Corpora and questions: the bundled benchmark, files, JSONL and CSV in Chroma's shape.

The bundled benchmark is Chroma's general chunking evaluation (five corpora, 472
questions; ``data/README.md`` names the source and commit), read from package data:
nothing is downloaded. Every loader checks what it reads and raises ``InputError`` with
one line naming the problem and the way out.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from .._errors import InputError
from ._records import Document, Question, Span

BENCHMARK = "chroma"
BENCHMARK_CORPORA = ("chatlogs", "finance", "pubmed", "state_of_the_union", "wikitexts")
_HEADING = re.compile(r"^#{1,6}[ \t]", re.M)


def _data_file(name: str) -> str:
    return (resources.files("agentic_chunking.evaluate") / "data" / name).read_text(
        encoding="utf-8"
    )


def _read_text(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {path}: {error}; give a readable UTF-8 file") from None


def section_starts(text: str, pattern: str | re.Pattern[str]) -> tuple[int, ...]:
    """Return the offsets of the lines matching ``pattern`` (multiline), except offset 0."""
    compiled = re.compile(pattern, re.M) if isinstance(pattern, str) else pattern
    return tuple(m.start() for m in compiled.finditer(text) if m.start() > 0)


def load_benchmark(
    corpora: Sequence[str] | None = None, *, questions_per_corpus: int | None = None
) -> tuple[list[Document], list[Question]]:
    """Return the bundled benchmark's documents and questions (all five corpora by default).

    ``questions_per_corpus`` keeps the first N questions of each corpus (a quick run).
    Known sections: the article starts ``data/sections.json`` names (wikitexts, pubmed).
    """
    chosen = list(corpora or BENCHMARK_CORPORA)
    unknown = [c for c in chosen if c not in BENCHMARK_CORPORA]
    if unknown:
        raise InputError(
            f"the benchmark has no corpus {unknown[0]!r}; choose from "
            + ", ".join(BENCHMARK_CORPORA)
        )
    markers: dict[str, str] = json.loads(_data_file("sections.json"))
    documents = []
    for name in chosen:
        text = _data_file(f"{name}.md")
        sections = section_starts(text, markers[name]) if name in markers else ()
        documents.append(Document(name, text, sections))
    questions = parse_questions_csv(_data_file("questions.csv"), "the bundled questions.csv")
    kept: list[Question] = []
    counts: dict[str, int] = {}
    for question in questions:
        if question.document_id not in chosen:
            continue
        counts[question.document_id] = counts.get(question.document_id, 0) + 1
        if questions_per_corpus is None or counts[question.document_id] <= questions_per_corpus:
            kept.append(question)
    return documents, kept


def load_documents(paths: Iterable[Path | str]) -> list[Document]:
    """Read documents from files: a ``.jsonl`` file holds one ``{"id", "text"}`` object a
    line (optional ``"sections"``: offsets where a known section starts); any other file is
    one document named by its stem (Markdown headings mark its sections); a folder gives the
    files ``corpus`` reads in it (the corpus reader's listing: every file at any depth, in
    sorted order, hidden ones and links to folders left out), each named by its path under
    the folder without its suffix (the stem, for a file at the top). Raises InputError on a
    duplicate id or a bad line."""
    from ..corpus import open_corpus

    documents: list[Document] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = [
                (f, f.relative_to(path).with_suffix("").as_posix())
                for f in open_corpus(path).files()
            ]
        else:
            files = [(path, path.stem)]
        for file, name in files:
            if not file.exists():
                raise InputError(f"no such corpus file: {file}; give a file, a folder or a JSONL")
            if file.suffix == ".jsonl":
                documents.extend(_jsonl_documents(file))
            else:
                text = _read_text(file)
                sections = (
                    section_starts(text, _HEADING) if file.suffix in (".md", ".markdown") else ()
                )
                documents.append(Document(name, text, sections))
    seen: set[str] = set()
    for document in documents:
        if document.id in seen:
            raise InputError(
                f"two documents are named {document.id!r}; give each document a distinct id "
                "(file stem or JSONL 'id')"
            )
        seen.add(document.id)
    if not documents:
        raise InputError("the corpus holds no document; give files, a folder or a JSONL file")
    return documents


def _jsonl_documents(path: Path) -> list[Document]:
    documents = []
    for number, line in enumerate(_read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        record = _json_object(line, where)
        text, identifier = record.get("text"), record.get("id")
        if not isinstance(text, str) or not isinstance(identifier, str | int):
            raise InputError(f"{where}: expected an object with a string 'text' and an 'id'")
        sections = record.get("sections", [])
        if not isinstance(sections, list) or not all(
            isinstance(s, int) and 0 <= s <= len(text) for s in sections
        ):
            raise InputError(f"{where}: 'sections' must be a list of offsets into 'text'")
        documents.append(Document(str(identifier), text, tuple(sorted(sections))))
    return documents


def _json_object(line: str, where: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(f"{where} is not JSON ({error.msg}); expected one object a line") from None
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object")
    return record


def _question(record: dict[str, Any], references: Any, where: str) -> Question:
    text, corpus = record.get("question"), record.get("corpus_id")
    if not isinstance(text, str) or not text.strip() or not isinstance(corpus, str):
        raise InputError(f"{where}: expected a 'question' and a 'corpus_id' (the document id)")
    if not isinstance(references, list) or not references:
        raise InputError(f"{where}: 'references' must be a non-empty list of excerpts")
    spans: list[Span] = []
    contents: list[str | None] = []
    for reference in references:
        try:
            start, end = int(reference["start_index"]), int(reference["end_index"])
        except (KeyError, TypeError, ValueError):
            raise InputError(
                f"{where}: each reference needs integer 'start_index' and 'end_index'"
            ) from None
        if not 0 <= start < end:
            raise InputError(f"{where}: reference [{start}, {end}) is not a character range")
        spans.append((start, end))
        content = reference.get("content") if isinstance(reference, dict) else None
        contents.append(content if isinstance(content, str) else None)
    kept = tuple(contents) if any(c is not None for c in contents) else ()
    return Question(text, corpus, tuple(spans), kept)


def parse_questions_csv(content: str, where: str) -> list[Question]:
    """Parse Chroma's questions CSV: ``question``, ``references`` (JSON), ``corpus_id``."""
    reader = csv.DictReader(content.splitlines(keepends=True))
    missing = {"question", "references", "corpus_id"} - set(reader.fieldnames or ())
    if missing:
        raise InputError(
            f"{where} lacks the column(s) {', '.join(sorted(missing))}; expected Chroma's "
            "question,references,corpus_id"
        )
    questions = []
    for number, row in enumerate(reader, 2):
        line = f"{where} row {number}"
        try:
            references = json.loads(row["references"] or "")
        except json.JSONDecodeError:
            raise InputError(f"{line}: 'references' is not a JSON list") from None
        questions.append(_question(dict(row), references, line))
    return questions


def load_questions(path: Path | str) -> list[Question]:
    """Read questions from a CSV (Chroma's columns) or a JSONL file (the same keys, with
    ``references`` a list rather than a JSON string)."""
    file = Path(path)
    content = _read_text(file)
    if file.suffix == ".jsonl":
        questions = []
        for number, line in enumerate(content.splitlines(), 1):
            if line.strip():
                where = f"{file} line {number}"
                record = _json_object(line, where)
                questions.append(_question(record, record.get("references"), where))
        return questions
    return parse_questions_csv(content, str(file))


def check_questions(documents: Sequence[Document], questions: Sequence[Question]) -> None:
    """Raise InputError when a question names an unknown document, a range outside it, or a
    range that does not hold the ``content`` its file gives (offsets taken on another copy
    of the text: CRLF line endings, a byte-order mark, a shifted row); the message says
    where the content is, if anywhere, and what usually causes the shift."""
    texts = {d.id: d.text for d in documents}
    lengths = {d.id: len(d.text) for d in documents}
    if not questions:
        raise InputError("no question to evaluate; give a questions file with at least one row")
    for number, question in enumerate(questions, 1):
        if question.document_id not in lengths:
            raise InputError(
                f"question {number} names the document {question.document_id!r}, which is not "
                "in the corpus; give the corpus it was written for"
            )
        for _, end in question.excerpts:
            if end > lengths[question.document_id]:
                raise InputError(
                    f"question {number}: an excerpt ends at {end}, past the end of "
                    f"{question.document_id!r} ({lengths[question.document_id]} characters)"
                )
        for (start, end), content in zip(question.excerpts, question.contents, strict=False):
            text = texts[question.document_id]
            if content is not None and text[start:end] != content:
                raise InputError(
                    _moved_excerpt(number, question.document_id, text, start, end, content)
                )


def _moved_excerpt(
    number: int, document: str, text: str, start: int, end: int, content: str
) -> str:
    """The one line for a gold range that does not hold its content: where the content is,
    and the usual cause."""
    where = (
        f"question {number}: the excerpt [{start}, {end}) of {document!r} does not hold its "
        "'content'"
    )
    found = text.find(content)
    if found >= 0:
        place = (
            f"; that text is at [{found}, {found + len(content)}) (shifted by {found - start:+d})"
        )
    else:
        place = "; that text is nowhere in the document"
    causes = []
    if text.startswith("\ufeff"):
        causes.append("the document starts with a byte-order mark")
    if "\r\n" in text or "\r\n" in content:
        causes.append("CRLF line endings in the document or the content")
    cause = f" ({' and '.join(causes)})" if causes else ""
    return (
        f"{where}{place}: the offsets were taken on another copy of the text{cause}. Give the "
        "corpus exactly as it was when the questions were written, or correct the offsets"
    )


def load_inputs(
    paths: Sequence[Path],
    questions: Path | None,
    *,
    benchmark_corpora: Sequence[str] | None = None,
    questions_per_corpus: int | None = None,
) -> tuple[list[Document], list[Question], str]:
    """The documents, the questions and the corpus's name in the results: ``paths`` with
    the questions file ``questions`` when any path is given, else the bundled benchmark
    (``benchmark_corpora``, ``questions_per_corpus``: ``load_benchmark``). InputError for a
    corpus without questions."""
    if paths:
        if questions is None:
            raise InputError("a corpus needs a questions file (Chroma's CSV or JSONL)")
        corpus = ", ".join(str(p) for p in paths)
        return load_documents(paths), load_questions(questions), corpus
    documents, asked = load_benchmark(benchmark_corpora, questions_per_corpus=questions_per_corpus)
    corpus = "Chroma's chunking evaluation (" + ", ".join(d.id for d in documents) + ")"
    return documents, asked, corpus
