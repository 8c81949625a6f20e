"""A finished output loaded into LangChain and LlamaIndex without a model call, and into a
real embedded vector store (Chroma, extra ``vectorstore``) with a deterministic embedding:
offsets filled, bookkeeping kept out of what is embedded, flat metadata a store takes as
it is, a citation read back from the store and the source sliced with it."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking._errors import InputError
from agentic_chunking._loopback import FakeMessagesServer, ParagraphModel
from agentic_chunking._models import AgenticChunk, AgenticResponse
from agentic_chunking.adapters._loading import (
    HIDDEN_KEYS,
    char_offsets,
    chunk_metadata,
    citations,
    flatten_metadata,
    read_chunks,
)
from agentic_chunking.cli import main
from agentic_chunking.corpus import OutputWriter

pytest.importorskip("langchain_core")
pytest.importorskip("llama_index.core")

from langchain_core.documents import Document
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode

from agentic_chunking.adapters.langchain import load_documents
from agentic_chunking.adapters.llamaindex import load_nodes

KEY = "sk-ant-loaders-test-key"
SCALARS = (str, int, float, bool)

PETS = (
    "Cats purr when they are content.\n\n"
    "Dogs bark at strangers near the gate.\n\n"
    "Cats sleep for most of the day.\n"
)
GARDEN = (
    "Tomatoes need six hours of full sun.\n\n"
    "Roses are pruned in late winter.\n\n"
    "Tomatoes split when watering is uneven.\n"
)
BOOKKEEPING = ("PropositionCount", "CharacterCount", "TokenEstimate", "Part")


def _spans(text: str, sentence: str) -> list[tuple[int, int]]:
    start = text.index(sentence)
    return [(start, start + len(sentence))]


def _chunks(document_id: str, text: str) -> list[AgenticChunk]:
    """The chunks of ``text`` grouped by first word, with their spans, linked and one
    theme split in two parts, as the pipeline writes them."""
    sentences = [s for s in text.split("\n\n") if s.strip()]
    sentences = [s.strip() for s in sentences]
    themes: dict[str, list[str]] = {}
    for sentence in sentences:
        themes.setdefault(sentence.split()[0], []).append(sentence)
    made = []
    for theme, props in themes.items():
        parts = [props] if len(props) == 1 else [props[:1], props[1:]]
        for number, part in enumerate(parts, start=1):
            made.append(
                AgenticChunk.from_propositions(
                    document_id=document_id,
                    seq=len(made) + 1,
                    thematic_category=theme,
                    propositions=part,
                    source_chunk_ids=["P0001"],
                    proposition_chunk_ids=[["P0001"]] * len(part),
                    proposition_spans=[_spans(text, p) for p in part],
                    part=number if len(parts) > 1 else None,
                    part_count=len(parts) if len(parts) > 1 else None,
                    metadata={"source_path": f"{document_id}.txt", "tags": ["a", "b"]},
                )
            )
    return [
        replace(
            c,
            previous_chunk_id=made[i - 1].chunk_id if i else None,
            next_chunk_id=made[i + 1].chunk_id if i + 1 < len(made) else None,
        )
        for i, c in enumerate(made)
    ]


def _write(path: Path, chunks: Sequence[AgenticChunk]) -> Path:
    with OutputWriter(path) as out:
        for chunk in chunks:
            out.write(chunk.to_dict())
        out.commit()
    return path


@pytest.fixture(params=["chunks.jsonl", "chunks.parquet"])
def output(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return _write(tmp_path / request.param, _chunks("pets", PETS) + _chunks("garden", GARDEN))


# --- reading --------------------------------------------------------------------------


def test_every_record_reads_back_as_the_chunk_written(output: Path) -> None:
    written = _chunks("pets", PETS) + _chunks("garden", GARDEN)
    assert read_chunks(output) == written


def test_the_json_chunk_writes_reads_too(tmp_path: Path) -> None:
    chunks = tuple(_chunks("pets", PETS))
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(AgenticResponse(chunks=chunks).to_dict()), encoding="utf-8")
    assert tuple(read_chunks(path)) == chunks
    path.write_text(json.dumps(AgenticResponse.failure("batch 1: refused").to_dict()))
    with pytest.raises(InputError, match=r"a failed run's output .*rerun 'chunk'"):
        read_chunks(path)


def test_a_file_that_is_not_an_output_is_refused_with_its_name(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"notes\.md: not a finished output"):
        read_chunks(tmp_path / "notes.md")
    with pytest.raises(InputError, match=r"gone\.jsonl: no such file"):
        read_chunks(tmp_path / "gone.jsonl")
    bad = tmp_path / "bad.jsonl"
    record = _chunks("pets", PETS)[0].to_dict()
    bad.write_text(json.dumps(record) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl: line 2 is not JSON"):
        read_chunks(bad)
    bad.write_text(json.dumps({**record, "TokenEstimate": 1}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl: record 1: .*TokenEstimate is 1"):
        read_chunks(bad)
    bad.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl: line 1 is a list, not an object"):
        read_chunks(bad)
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match=r"bad\.parquet: not a readable Parquet file"):
        read_chunks(tmp_path / "bad.parquet")


# --- flat metadata --------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_every_flat_value_is_a_scalar_and_a_list_or_dict_reads_back(
    metadata: dict[str, Any],
) -> None:
    flat = flatten_metadata(metadata)
    assert all(isinstance(value, SCALARS) for value in flat.values())
    assert set(flat) == {key for key, value in metadata.items() if value is not None}
    for key, value in flat.items():
        original = metadata[key]
        assert (json.loads(value) if isinstance(original, list | dict) else value) == original


DATA = Path(__file__).resolve().parents[1] / "agentic_chunking" / "evaluate" / "data"
REAL = sorted(DATA.glob("*.md")) if DATA.is_dir() else []


def _paragraphs(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [p.strip() for p in text.split("\n\n") if p.strip()]


@pytest.mark.skipif(not REAL, reason="the shipped evaluation corpora are absent")
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(REAL or [Path()]), st.integers(0, 10_000), st.integers(1, 12))
def test_spans_round_trip_through_the_flat_view_on_real_text(
    path: Path, first: int, count: int
) -> None:
    """Paragraphs of the shipped corpora (headings, chat turns, non-ASCII) as propositions:
    the flat view's citations are the record's, and each span still slices its text."""
    paragraphs = _paragraphs(path)
    first %= len(paragraphs)
    text = "\n\n".join(paragraphs[first : first + count]) + "\n"
    for chunk in _chunks("doc", text):
        flat = chunk_metadata(chunk, flat=True)
        assert all(isinstance(value, SCALARS) for value in flat.values())
        assert citations(flat) == citations(chunk_metadata(chunk, flat=False))
        assert [c.spans for c in citations(flat)] == list(chunk.proposition_spans)
        for cited in citations(flat):
            assert cited.spans and all(cited.proposition == text[a:b] for a, b in cited.spans)
        start, end = flat["start_index"], flat["end_index"]
        assert all(p in text[start:end] for p in chunk.propositions)
        assert ("PreviousChunkId" in flat) == (chunk.previous_chunk_id is not None)


def test_a_carried_offset_is_replaced_by_the_chunks_own() -> None:
    chunk = _chunks("pets", PETS)[0]
    carried = replace(chunk, metadata={"start_index": 999, "end_index": 1000})
    assert chunk_metadata(carried, flat=True)["start_index"] == PETS.index("Cats purr")
    no_spans = AgenticChunk.from_propositions(
        document_id="d", seq=1, thematic_category="T", propositions=["A fact."]
    )
    assert char_offsets(no_spans) is None
    assert "start_index" not in chunk_metadata(no_spans, flat=True)


def test_metadata_without_the_record_is_no_citation() -> None:
    with pytest.raises(InputError, match="the metadata has no 'DocumentId'"):
        citations({"source": "x"})
    with pytest.raises(InputError, match="PropositionSpans is text but not JSON"):
        citations({"DocumentId": "d", "Propositions": "[]", "PropositionSpans": "[[1"})
    spanless = {"DocumentId": "d", "Propositions": '["A fact."]', "PropositionSpans": "[]"}
    assert [c.spans for c in citations(spanless)] == [()]


# --- LangChain and LlamaIndex ---------------------------------------------------------


def test_load_documents_gives_one_document_a_chunk_with_offsets(output: Path) -> None:
    documents = load_documents(output)
    chunks = read_chunks(output)
    assert [d.id for d in documents] == [c.chunk_id for c in chunks]
    assert [d.page_content for d in documents] == [c.merged_content for c in chunks]
    for document, chunk in zip(documents, chunks, strict=True):
        assert all(isinstance(value, SCALARS) for value in document.metadata.values())
        assert document.metadata["source_path"] == f"{chunk.document_id}.txt"
        assert json.loads(document.metadata["tags"]) == ["a", "b"]
        text = PETS if chunk.document_id == "pets" else GARDEN
        start, end = document.metadata["start_index"], document.metadata["end_index"]
        assert all(p in text[start:end] for p in chunk.propositions)
    nested = load_documents(output, flat_metadata=False)
    assert nested[0].metadata["PropositionSpans"] == [
        [[0, len("Cats purr when they are content.")]]
    ]
    assert nested[0].metadata["tags"] == ["a", "b"] and "NextChunkId" in nested[0].metadata
    assert "PreviousChunkId" not in documents[0].metadata  # None is left out, not "null"


def test_load_nodes_fills_offsets_and_keeps_bookkeeping_out_of_the_embedded_text(
    output: Path,
) -> None:
    nodes = load_nodes(output)
    chunks = read_chunks(output)
    assert all(isinstance(n, TextNode) for n in nodes)
    for node, chunk in zip(nodes, chunks, strict=True):
        assert (node.node_id, node.text, node.ref_doc_id) == (
            chunk.chunk_id,
            chunk.merged_content,
            chunk.document_id,
        )
        assert (node.start_char_idx, node.end_char_idx) == char_offsets(chunk)
        assert all(isinstance(value, SCALARS) for value in node.metadata.values())
        for mode in (MetadataMode.EMBED, MetadataMode.LLM):
            shown = node.get_content(metadata_mode=mode)
            assert (
                chunk.merged_content in shown and f"source_path: {chunk.document_id}.txt" in shown
            )
            assert f"ThematicCategory: {chunk.thematic_category}" in shown
            for key in (*BOOKKEEPING, "PropositionSpans", "Hash", "start_index", "ChunkId"):
                assert f"{key}:" not in shown, (key, shown)
        assert node.get_content(metadata_mode=MetadataMode.ALL).count("TokenEstimate: ") == 1
        links = node.relationships
        assert (NodeRelationship.PREVIOUS in links) == (chunk.previous_chunk_id is not None)
        if chunk.next_chunk_id is not None:
            assert links[NodeRelationship.NEXT].node_id == chunk.next_chunk_id
    split = [n for n in nodes if n.metadata.get("Part") == 2]
    assert split and split[0].metadata["PartCount"] == 2  # a part is bookkeeping, kept


# --- a real embedded vector store -----------------------------------------------------


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def hashed_words() -> Any:
    """A deterministic Chroma embedding function: each word hashed into one of 256
    buckets, L2-normed; no model, no download; texts sharing words are near. ``calls``
    counts its calls."""
    import numpy as np
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

    class HashedWords(EmbeddingFunction[Documents]):
        def __init__(self) -> None:
            self.calls = 0

        def __call__(self, input: Documents) -> Embeddings:
            self.calls += 1
            vectors = []
            for text in input:
                vector = np.zeros(256, dtype=np.float32)
                for word in _words(text):
                    vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % 256] += 1.0
                vectors.append(vector / max(float(np.linalg.norm(vector)), 1e-9))
            return vectors

        @staticmethod
        def name() -> str:
            return "hashed-words-test"

        def get_config(self) -> dict[str, Any]:
            return {}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> HashedWords:
            return HashedWords()

    return HashedWords()


@pytest.fixture
def chroma(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An embedded, persistent Chroma in ``tmp_path``, telemetry off; its default
    embedding model (an ONNX download at first use) made to fail if anything reaches it."""
    chromadb = pytest.importorskip("chromadb")
    from chromadb.utils.embedding_functions import onnx_mini_lm_l6_v2 as default_model

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("Chroma's default embedding model was called (a download)")

    monkeypatch.setattr(default_model.ONNXMiniLM_L6_V2, "__call__", refuse)
    monkeypatch.setattr(default_model.ONNXMiniLM_L6_V2, "_download", refuse)
    client = chromadb.PersistentClient(
        path=str(tmp_path / "chroma"), settings=chromadb.Settings(anonymized_telemetry=False)
    )
    yield client


@pytest.fixture
def corpus_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``corpus FOLDER -o OUT.jsonl`` over two documents, the model a loopback server
    whose propositions are the paragraphs, grouped by first word."""
    folder = tmp_path / "docs"
    (folder / "home").mkdir(parents=True)
    (folder / "home" / "pets.txt").write_text(PETS, encoding="utf-8")
    (folder / "garden.txt").write_text(GARDEN, encoding="utf-8")
    out = tmp_path / "chunks.jsonl"
    with FakeMessagesServer(handler=ParagraphModel()) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
        assert main(["corpus", str(folder), "-o", str(out), "--quiet"]) == 0
        requests = len(server.requests)
    assert requests > 0
    return folder, out


def _cited_sources(folder: Path, metadata: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each proposition of ``metadata`` and the text its spans slice from its source."""
    source = (folder / str(metadata["source_path"])).read_text(encoding="utf-8")
    return [
        (cited.proposition, source[a:b]) for cited in citations(metadata) for a, b in cited.spans
    ]


def test_a_corpus_output_goes_into_chroma_and_a_citation_comes_back(
    corpus_output: tuple[Path, Path], chroma: Any
) -> None:
    folder, out = corpus_output
    documents = load_documents(out)  # no model call: the server is stopped
    assert len(documents) == 4  # Cats, Dogs; Tomatoes, Roses
    embed = hashed_words()
    collection = chroma.create_collection("chunks", embedding_function=embed)
    collection.add(
        ids=[d.id for d in documents],
        documents=[d.page_content for d in documents],
        metadatas=[d.metadata for d in documents],
    )
    found = collection.query(query_texts=["Which dogs bark at strangers?"], n_results=1)
    (best,) = found["metadatas"][0]
    assert found["ids"][0] == ["home/pets.txt-0002"] and best["ThematicCategory"] == "Dogs"
    assert best == next(d.metadata for d in documents if d.id == "home/pets.txt-0002")
    cited = _cited_sources(folder, best)
    assert cited == [("Dogs bark at strangers near the gate.",) * 2]
    found = collection.query(query_texts=["when do cats sleep"], n_results=1)
    (cats,) = found["metadatas"][0]
    slices = _cited_sources(folder, cats)
    assert len(slices) == 2 and all(prop in text for prop, text in slices)
    assert PETS[cats["start_index"] : cats["end_index"]].startswith("Cats purr")
    assert embed.calls >= 3  # ours embedded the documents and both queries


def test_llamaindex_nodes_go_into_chroma_with_their_embedded_text_only(
    corpus_output: tuple[Path, Path], chroma: Any
) -> None:
    folder, out = corpus_output
    nodes = load_nodes(out.rename(out.with_suffix(".ndjson")))
    collection = chroma.create_collection("nodes", embedding_function=hashed_words())
    embedded = [n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes]
    assert not any(key in text for text in embedded for key in BOOKKEEPING)
    collection.add(
        ids=[n.node_id for n in nodes],
        documents=embedded,
        metadatas=[n.metadata for n in nodes],
    )
    found = collection.query(query_texts=["tomatoes full sun"], n_results=1)
    (best,) = found["metadatas"][0]
    assert best["ThematicCategory"] == "Tomatoes" and best["DocumentId"] == "garden.txt"
    slices = _cited_sources(folder, best)
    assert len(slices) == 2 and all(prop in text for prop, text in slices)


def test_chroma_refuses_the_record_as_it_is_and_takes_the_flat_view(
    output: Path, chroma: Any
) -> None:
    """Why the flat view exists: the record's nested lists and dict go into no store."""
    nested = load_documents(output, flat_metadata=False)
    collection = chroma.create_collection("records", embedding_function=hashed_words())
    with pytest.raises(ValueError, match="metadata"):
        collection.add(
            ids=[nested[0].id], documents=[nested[0].page_content], metadatas=[nested[0].metadata]
        )
    flat = [
        Document(page_content=d.page_content, metadata=d.metadata, id=d.id)
        for d in load_documents(output)
    ]
    collection.add(
        ids=[d.id for d in flat],
        documents=[d.page_content for d in flat],
        metadatas=[d.metadata for d in flat],
    )
    assert collection.count() == len(flat)
    stored = collection.get(ids=[flat[0].id])["metadatas"][0]
    assert citations(stored) == citations(nested[0].metadata)
    assert set(HIDDEN_KEYS) & set(stored)
