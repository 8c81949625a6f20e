"""The published JSON Schemas: current with their models, and met by every output written.

The committed ``schemas/*.v1.json`` must equal what ``scripts/write_schemas.py`` writes,
and ``docs/output-schema.md`` must hold the field table of the chunk record; every
response the tests below write (``chunk`` on a document and on a Level 4 list, a failed
run, the 32 cases' reference outputs, a response with parts) must validate against the
response schema, and each of its chunks against the chunk schema, as must every line of a
corpus's JSONL output; an edited output must not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agentic_chunking import AgenticResponse
from agentic_chunking._loopback import FakeMessagesServer, user_text
from agentic_chunking._schema import (
    CHUNK_SCHEMA_FILE,
    RESPONSE_SCHEMA_FILE,
    SCHEMAS,
    ChunkRecord,
    field_table,
    schema_text,
)
from agentic_chunking.cli import main
from agentic_chunking.pipeline._prompts import load_prompt

REPO = Path(__file__).resolve().parent.parent
SCHEMA_DIR = REPO / "schemas"


def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


RESPONSE = _validator(RESPONSE_SCHEMA_FILE)
CHUNK = _validator(CHUNK_SCHEMA_FILE)


def paragraph_model(body: dict[str, Any]) -> str:
    """Each paragraph of a batch is a proposition; the grouping puts all in one theme."""
    text = user_text(body)
    if body["system"] == load_prompt("grouping").text:
        return json.dumps([{"category": "All", "fact_ids": list(range(1, text.count("\n")))}])
    return json.dumps(text.removeprefix("<text>\n").removesuffix("\n</text>").split("\n\n"))


def assert_valid(output: dict[str, Any]) -> None:
    """``output`` (a response dict) meets the response schema, each chunk the chunk schema."""
    RESPONSE.validate(output)
    for chunk in output["Chunks"]:
        CHUNK.validate(chunk)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_the_committed_schema_is_the_generated_one(name: str) -> None:
    committed = (SCHEMA_DIR / name).read_text(encoding="utf-8")
    assert committed == schema_text(SCHEMAS[name], name), (
        f"schemas/{name} is out of date: run python scripts/write_schemas.py"
    )


def test_the_documentation_holds_the_field_table_of_the_chunk_record() -> None:
    page = (REPO / "docs" / "output-schema.md").read_text(encoding="utf-8")
    assert field_table(ChunkRecord) in page, "docs/output-schema.md: paste field_table()"


def test_the_chunk_commands_outputs_meet_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    document = tmp_path / "doc.md"
    document.write_text("Cats purr loudly.\n\nDogs bark often. Fish swim.\n", encoding="utf-8")
    level4 = tmp_path / "l4.json"
    level4.write_text(
        json.dumps(
            [
                {"chunk_id": "L-1", "text": "Cats purr.", "start": 0, "document_id": "X"},
                {"chunk_id": "L-2", "text": "Dogs bark.", "start": 11, "document_id": "X"},
            ]
        ),
        encoding="utf-8",
    )
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    with FakeMessagesServer(handler=paragraph_model) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-schema-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        outputs = []
        runs = ((document, []), (level4, []), (document, ["--max-chunk-tokens", "4"]))
        for source, extra in runs:
            out = tmp_path / f"out{len(outputs)}.json"
            main(["chunk", str(source), "-o", str(out), *extra])
            failed = out.with_name(out.stem + ".failed.json")
            outputs.append(json.loads((out if out.exists() else failed).read_text("utf-8")))
    capsys.readouterr()
    assert [o["IsSuccess"] for o in outputs] == [True, True, False]  # the last: too large
    assert outputs[2]["Extracted"]
    for output in outputs:
        assert_valid(output)


def test_the_32_reference_outputs_meet_the_schema(
    reference_outputs: list[tuple[Any, AgenticResponse]],
) -> None:
    for _case, response in reference_outputs:
        assert_valid(json.loads(json.dumps(response.to_dict())))


def test_an_edited_output_does_not_meet_the_schema(
    reference_outputs: list[tuple[Any, AgenticResponse]],
) -> None:
    good = json.loads(json.dumps(reference_outputs[0][1].to_dict()))
    chunk = good["Chunks"][0]
    for edit in (
        {"Hash": "md5-0"},
        {"PropositionSpans": [[[5, -1]]]},
        {"Part": 0},
        {"Extra": 1},
        {"Metadata": []},
    ):
        with pytest.raises(jsonschema.ValidationError):
            CHUNK.validate({**chunk, **edit})
    with pytest.raises(jsonschema.ValidationError):
        RESPONSE.validate({**good, "IsSuccess": "yes"})


def test_every_line_of_a_corpus_output_is_a_chunk_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentic_chunking._loopback import ParagraphModel
    from agentic_chunking.corpus import read_records

    lines = [
        {"document_id": "doc-1", "text": "Alpha is one.\n\nBeta is two.\n", "metadata": {"y": 1}},
        {
            "document_id": "l4-doc",
            "chunks": [
                {"chunk_id": "S1", "text": "Kappa is a fact.", "start": 0, "metadata": {"p": 1}},
                {"chunk_id": "S2", "text": "Lambda is another.", "start": 17},
            ],
        },
    ]
    corpus = tmp_path / "in.jsonl"
    corpus.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    with FakeMessagesServer(handler=ParagraphModel()) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-schema-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert main(["corpus", str(corpus), "-o", str(out), "--quiet"]) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert records == read_records(out) and len(records) >= 2
    for record in records:
        CHUNK.validate(record)
    kappa = next(r for r in records if "S1" in r["SourceChunkIds"])
    assert kappa["Metadata"]["p"] == 1 and kappa["PropositionSpans"][0] == [[0, 16]]
