"""LangChain and LlamaIndex in and out, against the real packages (extras ``langchain``,
``llamaindex``), the model answered by FakeMessagesServer + ScriptedPipeline on
127.0.0.1; and ``check --from langchain|chonkie`` reading those tools' own JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking._errors import InputError
from agentic_chunking._loopback import FakeMessagesServer, ScriptedPipeline
from agentic_chunking.adapters._convert import chonkie_chunks, convert, langchain_chunks
from agentic_chunking.adapters._documents import PROVENANCE_KEYS, ChunkingFailed
from agentic_chunking.cli import main
from agentic_chunking.client import make_client

langchain_core = pytest.importorskip("langchain_core")
llama_index_core = pytest.importorskip("llama_index.core")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.load import dumpd  # noqa: E402

CATS = "Cats purr loudly. Cats sleep a lot."
DOGS = "Dogs bark often."
TEXT = f"{CATS}\n\n{DOGS}\n"
FACTS = {CATS: ["Cats purr loudly.", "Cats sleep a lot."], DOGS: ["Dogs bark often."]}


def theme(proposition: str) -> str:
    return proposition.split()[0]


@pytest.fixture
def client() -> Iterator[Any]:
    with (
        FakeMessagesServer(handler=ScriptedPipeline(FACTS, theme)) as server,
        make_client(api_key="sk-ant-adapter-test", base_url=server.base_url, max_retries=0) as c,
    ):
        yield c


def test_the_langchain_transformer_gives_documents_with_the_record_in_metadata(
    client: Any,
) -> None:
    from langchain_core.documents import BaseDocumentTransformer

    from agentic_chunking.adapters.langchain import AgenticChunker

    chunker = AgenticChunker(client=client, model="reference")
    assert isinstance(chunker, BaseDocumentTransformer)
    given = Document(page_content=TEXT, metadata={"source": "pets.md"}, id="PETS")
    cats, dogs = chunker.transform_documents([given])
    assert (cats.id, cats.page_content) == ("PETS-0001", "Cats purr loudly. Cats sleep a lot.")
    assert cats.metadata["source"] == "pets.md"  # the Document's metadata carried
    assert cats.metadata["ThematicCategory"] == "Cats" and cats.metadata["DocumentId"] == "PETS"
    assert cats.metadata["NextChunkId"] == "PETS-0002" and dogs.metadata["PreviousChunkId"]
    for out in (cats, dogs):  # spans into the Document's page_content
        for proposition, spans in zip(
            out.metadata["Propositions"], out.metadata["PropositionSpans"], strict=True
        ):
            assert [TEXT[a:b] for a, b in spans] == [proposition]
    assert "MergedContent" not in cats.metadata and "Metadata" not in cats.metadata
    unnamed = chunker.transform_documents([Document(page_content=TEXT)])
    assert unnamed[0].metadata["DocumentId"] == "DOC-0001"
    assert chunker.transform_documents([Document(page_content=" \n")]) == []


def test_a_document_the_pipeline_cannot_chunk_is_an_error_not_a_gap(client: Any) -> None:
    from agentic_chunking.adapters.langchain import AgenticChunker

    chunker = AgenticChunker(client=client, model="reference", max_chunk_tokens=2)
    with pytest.raises(ChunkingFailed, match="document DOC-0001: proposition 1") as failed:
        chunker.transform_documents([Document(page_content=TEXT)])
    assert failed.value.response.extracted


def test_the_llamaindex_parser_gives_text_nodes_with_relationships(client: Any) -> None:
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode

    from agentic_chunking.adapters.llamaindex import AgenticNodeParser

    parser = AgenticNodeParser(chunk_options={"client": client, "model": "reference"})
    assert isinstance(parser, NodeParser)
    document = LlamaDocument(text=TEXT, id_="PETS", metadata={"source": "pets.md"})
    cats, dogs = parser.get_nodes_from_documents([document])
    assert isinstance(cats, TextNode) and cats.node_id == "PETS-0001"
    assert cats.text == "Cats purr loudly. Cats sleep a lot." and cats.ref_doc_id == "PETS"
    assert cats.metadata["source"] == "pets.md" and cats.metadata["ThematicCategory"] == "Cats"
    assert cats.relationships[NodeRelationship.NEXT].node_id == dogs.node_id
    assert dogs.relationships[NodeRelationship.PREVIOUS].node_id == cats.node_id
    assert dogs.metadata["PropositionSpans"] == [[[TEXT.index(DOGS), TEXT.index(DOGS) + 16]]]
    embedded = cats.get_content(metadata_mode=MetadataMode.EMBED)
    assert "source: pets.md" in embedded and "PropositionSpans" not in embedded
    assert set(PROVENANCE_KEYS) <= set(cats.excluded_llm_metadata_keys)
    for key in ("PropositionCount", "CharacterCount", "TokenEstimate", "Part", "ChunkId"):
        assert f"{key}:" not in embedded and key in cats.metadata
    assert "ThematicCategory: Cats" in embedded


INTERLEAVED = "Cats purr loudly.\n\nDogs bark often.\n\nCats sleep a lot.\n"


def test_the_llamaindex_parser_gives_the_offsets_of_the_sources_not_a_text_search() -> None:
    """A theme whose sentences are apart in the document: its MergedContent occurs nowhere
    in it (LlamaIndex's own search leaves the offsets None); the spans give them. Flat
    metadata stays flat after LlamaIndex merges the Document's metadata in again."""
    from llama_index.core import Document as LlamaDocument

    from agentic_chunking.adapters.llamaindex import AgenticNodeParser

    facts = {line.strip(): [line.strip()] for line in INTERLEAVED.split("\n\n")}
    with (
        FakeMessagesServer(handler=ScriptedPipeline(facts, theme)) as server,
        make_client(api_key="sk-ant-adapter-test", base_url=server.base_url, max_retries=0) as c,
    ):
        parser = AgenticNodeParser(
            chunk_options={"client": c, "model": "reference"}, flat_metadata=True
        )
        cats, dogs = parser.get_nodes_from_documents(
            [LlamaDocument(text=INTERLEAVED, id_="PETS", metadata={"tags": ["x"], "note": None})]
        )
    assert cats.get_content() not in INTERLEAVED  # not verbatim: no text search finds it
    assert (cats.start_char_idx, cats.end_char_idx) == (0, len(INTERLEAVED) - 1)
    assert INTERLEAVED[dogs.start_char_idx : dogs.end_char_idx] == "Dogs bark often."
    for node in (cats, dogs):  # flat: the Document's list too, as JSON text
        assert all(isinstance(v, str | int | float | bool) for v in node.metadata.values())
        assert node.metadata["tags"] == '["x"]' and "note" not in node.metadata


def test_the_langchain_transformer_gives_flat_metadata_on_request(client: Any) -> None:
    from agentic_chunking.adapters.langchain import AgenticChunker, citations

    given = Document(page_content=TEXT, metadata={"tags": ["x"]}, id="PETS")
    flat = AgenticChunker(client=client, model="reference", flat_metadata=True)
    nested = AgenticChunker(client=client, model="reference")
    flat_documents = flat.transform_documents([given])
    nested_documents = nested.transform_documents([given])
    assert len(flat_documents) == 2
    for a, b in zip(flat_documents, nested_documents, strict=True):
        assert all(isinstance(v, str | int | float | bool) for v in a.metadata.values())
        assert citations(a.metadata) == citations(b.metadata)
        assert a.metadata["start_index"] == b.metadata["start_index"] == TEXT.index(a.page_content)


# --- check --from langchain | chonkie ---------------------------------------------------


def _splitter_documents() -> list[Any]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=40, chunk_overlap=0, add_start_index=True)
    return splitter.create_documents([TEXT], metadatas=[{"source": "pets.md"}])


def _chonkie_chunks() -> list[dict[str, Any]]:
    from chonkie import SentenceChunker

    chunker = SentenceChunker(tokenizer="character", chunk_size=40, chunk_overlap=0)
    return [chunk.to_dict() for chunk in chunker.chunk(TEXT)]


@pytest.mark.parametrize("form", ["model_dump", "dumpd"])
def test_a_langchain_document_list_reads_as_an_output_of_sentences(form: str) -> None:
    documents = _splitter_documents()
    data = [d.model_dump() if form == "model_dump" else dumpd(d) for d in documents]
    response = convert(json.loads(json.dumps(data)), "langchain", "pets")
    assert [c.chunk_id for c in response.chunks] == ["pets-0001", "pets-0002"]
    assert [p for c in response.chunks for p in c.propositions] == [
        *FACTS[CATS],
        *FACTS[DOGS],
    ]
    for chunk in response.chunks:
        assert dict(chunk.metadata)["source"] == "pets.md"
        for proposition, spans in zip(chunk.propositions, chunk.proposition_spans, strict=True):
            assert [TEXT[a:b] for a, b in spans] == [proposition]


def test_chonkie_chunks_read_as_an_output_with_spans_from_their_start_index() -> None:
    data = json.loads(json.dumps(_chonkie_chunks()))
    response = convert(data, "chonkie", "pets")
    sentences = [p for c in response.chunks for p in c.propositions]
    assert sentences == [*FACTS[CATS], *FACTS[DOGS]]
    for chunk in response.chunks:
        for proposition, spans in zip(chunk.propositions, chunk.proposition_spans, strict=True):
            assert [TEXT[a:b] for a, b in spans] == [proposition]
    assert convert({"chunks": data}, "chonkie", "pets") == response


@pytest.mark.parametrize(
    ("reader", "data", "message"),
    [
        (langchain_chunks, {"page_content": "x"}, "expected a JSON list of LangChain Document"),
        (langchain_chunks, [{"text": "x"}], "item 1 is not a LangChain Document"),
        (chonkie_chunks, [{"text": "x"}], "item 1 is not a chonkie Chunk"),
        (chonkie_chunks, [{"text": "x", "start_index": -1}], "item 1 is not a chonkie Chunk"),
        (langchain_chunks, [1, 2, 3], "Document objects, but item 1 is a number"),
        (chonkie_chunks, [{"text": "x"}, None], "Chunk objects, but item 2 is null"),
    ],
)
def test_a_list_of_another_shape_is_refused_naming_the_item(
    reader: Any, data: Any, message: str
) -> None:
    with pytest.raises(InputError, match=message):
        reader(data)


def test_check_from_langchain_and_chonkie_runs_the_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "pets.md"
    source.write_text(TEXT, encoding="utf-8")
    lc = tmp_path / "lc.json"
    lc.write_text(json.dumps([d.model_dump() for d in _splitter_documents()]), encoding="utf-8")
    ck = tmp_path / "ck.json"
    ck.write_text(json.dumps(_chonkie_chunks()), encoding="utf-8")
    for path, form in ((lc, "langchain"), (ck, "chonkie")):
        findings = tmp_path / f"{form}.findings.json"
        status = main(
            ["check", str(path), "--from", form, "--source", str(source), "-o", str(findings)]
        )
        assert status == 0, capsys.readouterr().err
        assert json.loads(findings.read_text(encoding="utf-8"))
    status = main(["check", str(ck), "--from", "langchain"])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert "(--from langchain): item 1 is not a LangChain Document" in err


def test_both_adapters_take_a_pipeline_options_record_as_the_keyword_form(client: Any) -> None:
    """The record and the keyword form give the same chunks; a setting of the record
    (here the chunk limit) reaches the run."""
    from llama_index.core import Document as LlamaDocument

    from agentic_chunking import PipelineOptions
    from agentic_chunking.adapters.langchain import AgenticChunker
    from agentic_chunking.adapters.llamaindex import AgenticNodeParser

    options = PipelineOptions(model="reference")
    by_record = AgenticChunker(options, client=client).transform_documents([Document(TEXT)])
    by_keywords = AgenticChunker(client=client, model="reference").transform_documents(
        [Document(TEXT)]
    )
    assert [d.page_content for d in by_record] == [d.page_content for d in by_keywords]
    small = AgenticChunker(PipelineOptions(model="reference", max_chunk_tokens=2), client=client)
    with pytest.raises(ChunkingFailed, match="proposition 1"):
        small.transform_documents([Document(TEXT)])
    parser = AgenticNodeParser(options=options, chunk_options={"client": client})
    nodes = parser.get_nodes_from_documents([LlamaDocument(text=TEXT, id_="PETS")])
    assert [n.get_content() for n in nodes] == [d.page_content for d in by_record]
