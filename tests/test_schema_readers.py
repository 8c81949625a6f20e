"""One schema, every reader (issue 42, item 2): what the published chunk schema refuses,
every reader of a chunk record refuses, with the same line.

The readers: ``AgenticChunk.from_dict``; ``check``'s reader of the JSON ``chunk`` writes
(``cli._findings.read_output``) and of a corpus output (``findings._corpus``); the
loaders' ``read_chunks`` over JSONL and JSON; and ``jsonschema`` over the committed
``schemas/*.json``. Each bad record is a good one with one field broken.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking import AgenticChunk, AgenticResponse, CallUsage, ExtractedBatch, InputError
from agentic_chunking._models import content_hash
from agentic_chunking._schema import chunk_problem
from agentic_chunking.adapters._loading import read_chunks
from agentic_chunking.cli._findings import read_output
from agentic_chunking.findings import _corpus as _check_corpus
from agentic_chunking.report import CaseResult, RunResults, load_results, write_results

jsonschema = pytest.importorskip("jsonschema")

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"
CHUNK_ID = "notes-0001"


def _good() -> dict[str, Any]:
    chunk = AgenticChunk.from_propositions(
        document_id="notes",
        seq=1,
        thematic_category="Battery chemistry",
        propositions=["Lithium cells age with heat.", "Cold slows the reaction."],
        source_chunk_ids=["C1"],
        proposition_chunk_ids=[["C1"], ["C1"]],
        proposition_spans=[[(0, 28)], [(29, 53)]],
    )
    return chunk.to_dict()


def _broken(**changes: Any) -> dict[str, Any]:
    record = _good()
    for name, value in changes.items():
        if value is _MISSING:
            del record[name]
        else:
            record[name] = value
    return record


_MISSING = object()

BAD = {
    "DocumentId 7": ("DocumentId", _broken(DocumentId=7)),
    "a list as ThematicCategory": ("ThematicCategory", _broken(ThematicCategory=["a", "b"])),
    "no ThematicCategory": ("ThematicCategory", _broken(ThematicCategory=_MISSING)),
    "no Propositions": ("Propositions", _broken(Propositions=_MISSING)),
    "a count of 0": ("PropositionCount", _broken(PropositionCount=0)),
    "no proposition": (
        "Propositions",
        _broken(
            Propositions=[],
            MergedContent="",
            PropositionCount=0,
            CharacterCount=0,
            TokenEstimate=0,
            Hash=content_hash(""),
            PropositionChunkIds=[],
            PropositionSpans=[],
            Spans=[],
        ),
    ),
    "a number as a proposition": ("Propositions", _broken(Propositions=["A cell.", 7])),
}


def _response(record: dict[str, Any]) -> dict[str, Any]:
    data = AgenticResponse(chunks=(AgenticChunk.from_dict(_good()),)).to_dict()
    data["Chunks"] = [record]
    return data


def _from_dict(record: dict[str, Any], tmp_path: Path) -> None:
    AgenticChunk.from_dict(record)


def _check_json(record: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "chunks.json"
    path.write_text(json.dumps(_response(record)), encoding="utf-8")
    read_output(path)


def _check_corpus_output(record: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    for document in _check_corpus.output_documents(path):
        _check_corpus._check_document(document, path, None, None, judge=None)


def _load_jsonl(record: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    read_chunks(path)


def _load_json(record: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "chunks.json"
    path.write_text(json.dumps(_response(record)), encoding="utf-8")
    read_chunks(path)


READERS: dict[str, Callable[[dict[str, Any], Path], None]] = {
    "from_dict": _from_dict,
    "check (JSON)": _check_json,
    "check (corpus output)": _check_corpus_output,
    "loader (JSONL)": _load_jsonl,
    "loader (JSON)": _load_json,
}


def _problem(message: str) -> str:
    """The line after the chunk's name: what every reader must say alike (each names the
    file and the chunk's place its own way before it)."""
    parts = re.split(rf"'{CHUNK_ID}'\)?: ", message, maxsplit=1)
    assert len(parts) == 2, message
    return parts[1]


def _schema_errors(name: str, data: dict[str, Any]) -> list[Any]:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return list(jsonschema.Draft202012Validator(schema).iter_errors(data))


def test_the_good_record_passes_every_reader_and_the_schemas(tmp_path: Path) -> None:
    record = _good()
    assert chunk_problem(record) is None
    assert not _schema_errors("agentic-chunk.v1.json", record)
    assert not _schema_errors("agentic-response.v1.json", _response(record))
    for name, reader in READERS.items():
        folder = tmp_path / name.replace(" ", "-").replace("(", "").replace(")", "")
        folder.mkdir()
        reader(record, folder)


@pytest.mark.parametrize("case", sorted(BAD))
def test_what_the_schema_refuses_every_reader_refuses_with_one_message(
    case: str, tmp_path: Path
) -> None:
    field, record = BAD[case]
    errors = _schema_errors("agentic-chunk.v1.json", record)
    assert errors, f"the published schema takes {case}"
    named = {str(e.path[0]) if e.path else e.message for e in errors}
    assert any(field in n for n in named), named
    assert _schema_errors("agentic-response.v1.json", _response(record))
    messages = {}
    for name, reader in READERS.items():
        folder = tmp_path / str(len(messages))
        folder.mkdir()
        with pytest.raises(InputError) as refused:
            reader(record, folder)
        messages[name] = str(refused.value)
    problems = {name: _problem(message) for name, message in messages.items()}
    assert len(set(problems.values())) == 1, problems
    assert field in problems["from_dict"]
    assert "Traceback" not in "".join(messages.values())


def test_the_type_messages_say_what_the_field_must_be(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="DocumentId must be a string, not the number 7"):
        AgenticChunk.from_dict(BAD["DocumentId 7"][1])
    with pytest.raises(InputError, match="ThematicCategory must be a string, not a list"):
        AgenticChunk.from_dict(BAD["a list as ThematicCategory"][1])
    with pytest.raises(InputError, match="lacks the field 'ThematicCategory'"):
        AgenticChunk.from_dict(BAD["no ThematicCategory"][1])


def test_a_count_the_schema_cannot_judge_is_still_refused_by_every_reader(
    tmp_path: Path,
) -> None:
    """A count of 3 for two propositions meets the schema (it bounds a count, it cannot
    count): the readers are stricter, and alike."""
    record = _broken(PropositionCount=3)
    assert not _schema_errors("agentic-chunk.v1.json", record)
    problems = set()
    for number, reader in enumerate(READERS.values()):
        folder = tmp_path / str(number)
        folder.mkdir()
        with pytest.raises(InputError) as refused:
            reader(record, folder)
        problems.add(_problem(str(refused.value)))
    assert len(problems) == 1, problems
    assert "PropositionCount is 3 but its propositions give 2" in problems.pop()


def test_an_older_record_without_the_later_fields_still_reads() -> None:
    """Only the fields every reader needs are required: a file written before the
    provenance fields (or with them null) reads, as before."""
    record = {
        k: v
        for k, v in _good().items()
        if k in ("ChunkId", "DocumentId", "ThematicCategory", "Propositions")
    }
    chunk = AgenticChunk.from_dict(record)
    assert chunk.propositions == tuple(_good()["Propositions"])
    assert chunk_problem({**_good(), "PreviousChunkId": None, "Extra": 1}) is None


def test_a_batched_runs_output_meets_the_published_schema() -> None:
    """``CallUsage.to_dict`` writes ``Batched: true`` for a call answered through a batch
    API; the response schema (which allows no unknown field) names it."""
    call = CallUsage("extraction", "m", 10, 5, "end_turn", 0.5, batch=1, batched=True)
    response = AgenticResponse(chunks=(AgenticChunk.from_dict(_good()),), calls=(call,))
    data = json.loads(json.dumps(response.to_dict()))
    assert data["Usage"]["Calls"][0]["Batched"] is True
    assert not _schema_errors("agentic-response.v1.json", data)
    assert AgenticResponse.from_dict(data).calls == (call,)


# -- the response record (what ``chunk`` writes): one reading, every reader ------------


def _good_response() -> dict[str, Any]:
    call = CallUsage("extraction", "m", 10, 5, "end_turn", 0.5, batch=1)
    response = AgenticResponse(chunks=(AgenticChunk.from_dict(_good()),), calls=(call,))
    return json.loads(json.dumps(response.to_dict()))


def _failed_response() -> dict[str, Any]:
    extracted = (ExtractedBatch(1, ("C1",), ("A fact.",)),)
    return AgenticResponse.failure("cut", extracted=extracted, failed_batches=(2,)).to_dict()


def _call(**changes: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        call = data["Usage"]["Calls"][0]
        for name, value in changes.items():
            call.pop(name) if value is _MISSING else call.update({name: value})

    return change


def _batch_without_chunk_ids(data: dict[str, Any]) -> None:
    del data["Extracted"][0]["ChunkIds"]


BAD_RESPONSES: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], None]]] = {
    "a number as a call's Model": (_good_response, _call(Model=7)),
    "a call without Stage": (_good_response, _call(Stage=_MISSING)),
    "a string of tokens": (_good_response, _call(InputTokens="12")),
    "IsSuccess as a string": (_good_response, lambda data: data.update(IsSuccess="yes")),
    "a warning without Kind": (_good_response, lambda data: data.update(Warnings=[{"M": 1}])),
    "a kept batch naming no chunk": (_failed_response, _batch_without_chunk_ids),
}


def _response_from_dict(data: dict[str, Any], tmp_path: Path) -> None:
    AgenticResponse.from_dict(data)


def _check_response(data: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "chunks.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    read_output(path)


def _load_response(data: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "chunks.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    read_chunks(path)


def _results_file(data: dict[str, Any], tmp_path: Path) -> None:
    run = RunResults(model="m", cases=(CaseResult(id="TC-001"),))
    path = write_results(run, tmp_path)
    results = json.loads(path.read_text(encoding="utf-8"))
    results["cases"][0]["response"] = data
    path.write_text(json.dumps(results), encoding="utf-8")
    load_results(path)


RESPONSE_READERS: dict[str, Callable[[dict[str, Any], Path], None]] = {
    "from_dict": _response_from_dict,
    "check": _check_response,
    "loader (JSON)": _load_response,
    "results file": _results_file,
}


@pytest.mark.parametrize("case", sorted(BAD_RESPONSES))
def test_what_the_response_schema_refuses_every_response_reader_refuses_alike(
    case: str, tmp_path: Path
) -> None:
    """Each reader names the file and the place its own way, then gives the one line
    ``AgenticResponse.from_dict`` gives after ``response: `` (none coerces ``7`` into
    ``"7"``, none fails with a KeyError)."""
    make, breaking = BAD_RESPONSES[case]
    good = make()
    assert not _schema_errors("agentic-response.v1.json", good)
    data = json.loads(json.dumps(good))
    breaking(data)
    assert _schema_errors("agentic-response.v1.json", data), f"the schema takes {case}"
    with pytest.raises(InputError) as refused:
        AgenticResponse.from_dict(data)
    line = str(refused.value)
    assert line.startswith("response: ") and line.endswith("give the JSON 'chunk' writes")
    problem = line.removeprefix("response: ")
    for number, (name, reader) in enumerate(RESPONSE_READERS.items()):
        if name in ("check", "loader (JSON)") and not data.get("IsSuccess", True):
            continue  # a failed run's output is refused by both before its fields are read
        folder = tmp_path / str(number)
        folder.mkdir()
        with pytest.raises(InputError) as refused:
            reader(data, folder)
        assert problem in str(refused.value), (name, str(refused.value))
        assert "Traceback" not in str(refused.value)


def test_an_older_responses_forms_read_in_every_response_reader(tmp_path: Path) -> None:
    """A file written before warnings were records (each a plain line) and before a kept
    batch named its chunks ``ChunkIds`` (one ``ChunkId``) still reads, in every reader."""
    data = _good_response()
    data["Warnings"] = ["Skipped 1 reply entry"]
    assert AgenticResponse.from_dict(data).warnings[0].message == "Skipped 1 reply entry"
    for number, reader in enumerate(RESPONSE_READERS.values()):
        folder = tmp_path / str(number)
        folder.mkdir()
        reader(data, folder)
    failed = _failed_response()
    batch = failed["Extracted"][0]
    batch["ChunkId"] = batch.pop("ChunkIds")[0]
    assert AgenticResponse.from_dict(failed).extracted[0].chunk_ids == ("C1",)
    _results_file(failed, tmp_path)
