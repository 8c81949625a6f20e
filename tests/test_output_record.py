"""The output record (issue 29): offsets, metadata, document id, spans, neighbours, parts.

Every guarantee of RECORD.md is checked where it must hold and where it must not fire:
paragraph offsets on CRLF text, input offsets and metadata read and refused, the
document's and the input chunks' metadata on every output chunk, ``split`` then ``chunk``
keeping Level 4's document id, offsets and metadata, spans into the document on a
generated long document and on the 32 cases' reference outputs, and the size limit.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking import AgenticChunkInput, AgenticResponse, chunk_text_agentic
from agentic_chunking._errors import InputError
from agentic_chunking._loopback import FakeMessagesServer, ScriptedPipeline, user_text
from agentic_chunking._models import AgenticChunk, estimate_tokens, merge_spans
from agentic_chunking._text import split_sentences
from agentic_chunking._warning import NO_SOURCE_OFFSETS, SPLIT_THEME, UNALIGNED_PROPOSITION
from agentic_chunking.checks._align import align
from agentic_chunking.cli import main
from agentic_chunking.client import make_client
from agentic_chunking.pipeline._assemble import assemble, parts_within
from agentic_chunking.pipeline._document import paragraph_inputs
from agentic_chunking.pipeline._partition import Merged
from agentic_chunking.pipeline._prompts import load_prompt

REPO = Path(__file__).resolve().parent.parent
KEY = "sk-ant-output-test-key"


def sentence_model(themes: Mapping[str, str] | None = None) -> Any:
    """Extraction: every sentence of the batch, verbatim; grouping: by ``themes``
    (proposition -> category; "All" for the rest), in order of first appearance."""
    grouping = load_prompt("grouping").text

    def answer(body: dict[str, Any]) -> str:
        text = user_text(body)
        if body["system"] == grouping:
            listed = [line.split(". ", 1) for line in text.splitlines()[1:-1]]
            groups: dict[str, list[int]] = {}
            for number, fact in listed:
                groups.setdefault((themes or {}).get(fact, "All"), []).append(int(number))
            return json.dumps([{"category": c, "fact_ids": ids} for c, ids in groups.items()])
        body_text = text.removeprefix("<text>\n").removesuffix("\n</text>")
        return json.dumps(split_sentences(body_text))

    return answer


def run(
    inputs: Sequence[AgenticChunkInput],
    *,
    themes: Mapping[str, str] | None = None,
    **options: Any,
) -> AgenticResponse:
    with (
        FakeMessagesServer(handler=sentence_model(themes)) as server,
        make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
    ):
        return chunk_text_agentic(inputs, "D", client=client, **options)


# --- input: offsets and metadata -------------------------------------------------------

_pieces = st.sampled_from(["Alpha beta.", "Gamma.", " ", "\t", "\n", "\r\n", "\n\n", "\r\n\r\n"])


@given(st.lists(_pieces, max_size=30).map("".join))
def test_paragraph_offsets_point_into_the_text_as_given(text: str) -> None:
    inputs = paragraph_inputs(text)
    assert [c.chunk_id for c in inputs] == [f"P{n:04d}" for n in range(1, len(inputs) + 1)]
    for chunk in inputs:
        assert chunk.start is not None and text[chunk.start : chunk.end] == chunk.text
        assert chunk.text == chunk.text.strip() and chunk.text
    assert " ".join(c.text for c in inputs).split() == text.split()  # nothing lost
    ends = [(c.start, c.end) for c in inputs]
    assert ends == sorted(ends)


def test_a_crlf_blank_line_separates_paragraphs_and_a_crlf_inside_one_is_kept() -> None:
    text = "One.\r\nStill one.\r\n\r\nTwo."
    one, two = paragraph_inputs(text)
    assert (one.text, one.start, one.end) == ("One.\r\nStill one.", 0, 16)
    assert (two.text, text[two.start : two.end]) == ("Two.", "Two.")


def test_input_offsets_and_metadata_are_read() -> None:
    chunk = AgenticChunkInput.from_dict(
        {"chunk_id": "C1", "text": "Hello.", "start": 10, "metadata": {"page": 3}}
    )
    assert (chunk.start, chunk.end, dict(chunk.metadata)) == (10, 16, {"page": 3})
    plain = AgenticChunkInput.from_dict({"ChunkId": "C2", "Text": "Hi."})
    assert (plain.start, plain.end, dict(plain.metadata)) == (None, None, {})
    assert AgenticChunkInput.from_dict(chunk.to_dict()) == chunk


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"start": 0, "end": 3}, "do not hold its text of 6 characters"),
        ({"start": -6}, "do not hold its text"),
        ({"start": True}, "not a whole number"),
        ({"start": "0"}, "not a whole number"),
        ({"metadata": ["page", 3]}, "metadata is a list, not an object"),
    ],
)
def test_bad_offsets_or_metadata_are_refused_with_the_way_out(
    extra: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        AgenticChunkInput.from_dict({"chunk_id": "C1", "text": "Hello.", **extra})


# --- metadata and document id through the whole line ----------------------------------


def test_the_document_metadata_overlaid_by_the_chunks_metadata_is_on_every_chunk() -> None:
    first, second = "Cats purr loudly.", "Dogs bark often."
    inputs = [
        AgenticChunkInput("C1", first, start=0, metadata={"page": 1, "section": "cats"}),
        AgenticChunkInput("C2", second, start=len(first) + 2, metadata={"page": 2}),
    ]
    meta = {"title": "Pets", "page": 0}
    response = run(inputs, themes={first: "Cats", second: "Dogs"}, metadata=meta)
    cats, dogs = response.chunks
    assert dict(cats.metadata) == {"title": "Pets", "page": 1, "section": "cats"}
    assert dict(dogs.metadata) == {"title": "Pets", "page": 2}  # nothing of C1 invented
    both = run(inputs, metadata=meta).chunks[0]  # one theme from both: the later one wins
    assert dict(both.metadata) == {"title": "Pets", "page": 2, "section": "cats"}
    assert meta == {"title": "Pets", "page": 0}  # the caller's dict untouched


def test_without_any_metadata_a_chunk_has_an_empty_object() -> None:
    [chunk] = run([AgenticChunkInput("C1", "Cats purr loudly.")]).chunks
    assert chunk.to_dict()["Metadata"] == {}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesServer]:
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    with FakeMessagesServer(handler=sentence_model()) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        yield fake


TOPICS = (
    "Cats purr and cats sleep all day long. Cats hunt mice at night. "
    "Battery cells store charge for hours. Battery cells lose power in the cold. "
    "Glaciers carve deep valleys slowly. Glaciers move rock downhill."
)


@pytest.mark.usefixtures("hashing", "server")
def test_split_then_chunk_keeps_the_document_id_offsets_and_metadata(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "three.md"
    document.write_text(TOPICS, encoding="utf-8")
    level4 = tmp_path / "l4_small.json"
    split = ["split", str(document), "--threshold", "1.0", "--max-tokens", "20"]
    assert main([*split, "-o", str(level4)]) == 0
    records = json.loads(level4.read_text(encoding="utf-8"))
    assert len(records) > 1 and records[1]["start"] > 0
    out = tmp_path / "out.json"
    assert main(["chunk", str(level4), "-o", str(out)]) == 0
    capsys.readouterr()
    result = json.loads(out.read_text(encoding="utf-8"))
    assert not [w for w in result["Warnings"] if w["Kind"] == NO_SOURCE_OFFSETS]
    [chunk] = result["Chunks"]
    assert chunk["DocumentId"] == "three" and chunk["ChunkId"] == "three-0001"  # not l4_small
    assert chunk["Metadata"] == {"source": str(document)}
    # each proposition is a sentence of the document, and its span is where it is
    for proposition, spans in zip(chunk["Propositions"], chunk["PropositionSpans"], strict=True):
        assert [TOPICS[a:b] for a, b in spans] == [proposition]
    assert chunk["Spans"] == sorted(s for spans in chunk["PropositionSpans"] for s in spans)
    assert " ".join(TOPICS[a:b] for a, b in chunk["Spans"]) == TOPICS  # every sentence
    given_id = tmp_path / "given.json"
    assert main(["chunk", str(level4), "--document-id", "X", "-o", str(given_id)]) == 0
    assert json.loads(given_id.read_text(encoding="utf-8"))["Chunks"][0]["DocumentId"] == "X"


@pytest.mark.usefixtures("server")
def test_a_document_on_crlf_lines_gets_spans_into_its_text_as_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "Cats purr loudly.\r\nCats sleep a lot.\r\n\r\nDogs bark often.\r\n"
    document = tmp_path / "pets.txt"
    document.write_bytes(text.encode("utf-8"))
    assert main(["chunk", str(document)]) == 0
    [chunk] = json.loads(capsys.readouterr().out)["Chunks"]
    assert chunk["PropositionChunkIds"] == [["P0001"], ["P0001"], ["P0002"]]
    assert [text[a:b] for spans in chunk["PropositionSpans"] for a, b in spans] == list(
        chunk["Propositions"]
    )


# --- provenance to the character -------------------------------------------------------


def test_a_single_chunk_without_offsets_is_the_whole_document() -> None:
    text = "Cats purr loudly. Dogs bark often."
    [chunk] = run([AgenticChunkInput("C1", text)]).chunks
    assert chunk.proposition_spans == (((0, 17),), ((18, 34),))
    assert chunk.spans == ((0, 17), (18, 34))
    shifted = run([AgenticChunkInput("C1", text, start=100)]).chunks[0]
    assert shifted.spans == ((100, 117), (118, 134))


def test_chunks_of_a_document_without_offsets_get_no_span_and_one_warning() -> None:
    inputs = [AgenticChunkInput("C1", "Cats purr loudly."), AgenticChunkInput("C2", "Dogs bark.")]
    response = run(inputs)
    assert response.chunks[0].proposition_spans == ((), ())
    assert response.chunks[0].proposition_chunk_ids == (("C1",), ("C2",))
    assert [(w.kind, dict(w.data)) for w in response.warnings] == [
        (NO_SOURCE_OFFSETS, {"chunk_ids": ["C1", "C2"]})
    ]  # and no unaligned_proposition: nothing could be located


def test_a_proposition_no_sentence_states_has_no_span_and_a_warning() -> None:
    def model(body: dict[str, Any]) -> str:
        if body["system"] == load_prompt("grouping").text:
            return json.dumps([{"category": "All", "fact_ids": [1, 2]}])
        return json.dumps(["Cats purr loudly.", "Zebras gallop swiftly."])

    with (
        FakeMessagesServer(handler=model) as server,
        make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
    ):
        response = chunk_text_agentic(
            [AgenticChunkInput("C1", "Cats purr loudly.", start=5)], "D", client=client
        )
    [chunk] = response.chunks
    assert chunk.proposition_spans == (((5, 22),), ())
    [warning] = response.warnings
    assert warning.kind == UNALIGNED_PROPOSITION
    assert dict(warning.data) == {"proposition": "Zebras gallop swiftly.", "chunk_ids": ["C1"]}


def test_chunks_are_linked_to_their_neighbours_in_output_order() -> None:
    text = "Cats purr loudly. Dogs bark often. Fish swim fast."
    themes = {"Cats purr loudly.": "Cats", "Dogs bark often.": "Dogs", "Fish swim fast.": "Fish"}
    chunks = run([AgenticChunkInput("C1", text)], themes=themes).chunks
    assert [(c.previous_chunk_id, c.chunk_id, c.next_chunk_id) for c in chunks] == [
        (None, "D-0001", "D-0002"),
        ("D-0001", "D-0002", "D-0003"),
        ("D-0002", "D-0003", None),
    ]


def _located_as_aligned(
    response: AgenticResponse, inputs: Sequence[AgenticChunkInput], document: str
) -> int:
    """Check that the document's text at every span is a sentence the checks' alignment
    gives the proposition in its input chunk(s); return how many propositions have a span."""
    by_id = {c.chunk_id: c for c in inputs}
    located = 0
    for chunk in response.chunks:
        assert chunk.spans == merge_spans(s for spans in chunk.proposition_spans for s in spans)
        for proposition, ids, spans in zip(
            chunk.propositions, chunk.proposition_chunk_ids, chunk.proposition_spans, strict=True
        ):
            assert ids and set(ids) <= set(chunk.source_chunk_ids)
            aligned = set()
            for source in (by_id[i] for i in ids):
                window = align(proposition, source.text)
                assert window is not None
                aligned |= {sentence.text for sentence in window.members}
            for start, end in spans:
                assert document[start:end] in aligned, (proposition, document[start:end])
            located += bool(spans)
    return located


def test_spans_on_a_generated_long_document_hold_each_propositions_sentence() -> None:
    paragraphs = [
        " ".join(f"Item {n}-{k} weighs {n + k} grams in total." for k in range(1 + n % 5))
        for n in range(120)
    ]
    document = "Preface line.\r\n\r\n" + "\n\n   ".join(paragraphs) + "\n"
    inputs = paragraph_inputs(document)
    extraction = {c.text: split_sentences(c.text) for c in inputs}
    script = ScriptedPipeline(extraction, lambda text: f"Group {len(text) % 3}")
    with (
        FakeMessagesServer(handler=script) as server,
        make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
    ):
        response = chunk_text_agentic(
            inputs, "LONG", client=client, max_tokens_per_batch=200, max_chunk_tokens=60
        )
    assert response.is_success, response.error_detail
    total = response.total_propositions
    assert _located_as_aligned(response, inputs, document) == total
    for chunk in response.chunks:  # a generated fact is its sentence: its span is itself
        for proposition, spans in zip(chunk.propositions, chunk.proposition_spans, strict=True):
            assert [document[a:b] for a, b in spans] == [proposition]
    assert max(c.token_estimate for c in response.chunks) <= 60
    assert any(c.part_count for c in response.chunks)


def test_spans_of_the_32_reference_outputs_hold_their_aligned_sentences(
    reference_outputs: list[tuple[Any, AgenticResponse]],
) -> None:
    assert len(reference_outputs) == 32
    located = total = 0
    for case, response in reference_outputs:
        if not response.is_success:
            assert case.expect.error, case.id
            continue
        located += _located_as_aligned(response, case.agentic_inputs(), case.source_text)
        total += response.total_propositions
        assert not [w for w in response.warnings if w.kind == NO_SOURCE_OFFSETS], case.id
        unaligned = [w for w in response.warnings if w.kind == UNALIGNED_PROPOSITION]
        empty = sum(not s for c in response.chunks for s in c.proposition_spans)
        assert len(unaligned) == empty, case.id  # every proposition without a span is named
    assert 0 < located <= total


# --- the size limit ---------------------------------------------------------------------

_words = st.text(alphabet="abcdefgh ", min_size=1, max_size=60).map(
    lambda s: (s.strip() or "x") + "."
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_words, min_size=1, max_size=40), st.integers(min_value=1, max_value=40))
def test_parts_are_consecutive_within_the_limit_and_as_full_as_it_allows(
    propositions: list[str], limit: int
) -> None:
    fitting = [p for p in propositions if estimate_tokens(p) <= limit]
    if not fitting:
        return
    parts = parts_within(fitting, limit)
    assert [i for part in parts for i in part] == list(range(len(fitting)))
    joined = [" ".join(fitting[i] for i in part) for part in parts]
    assert all(estimate_tokens(text) <= limit for text in joined)
    for part, following in itertools.pairwise(parts):  # the next one did not fit
        longer = " ".join(fitting[i] for i in [*part, following[0]])
        assert estimate_tokens(longer) > limit


@settings(max_examples=100, deadline=None)
@given(
    st.lists(_words, min_size=1, max_size=30, unique=True),
    st.integers(min_value=15, max_value=60),
    st.data(),
)
def test_every_output_chunk_is_within_the_limit_and_every_proposition_in_one_chunk(
    propositions: list[str], limit: int, data: st.DataObject
) -> None:
    merged = [Merged(p, ("C1",)) for p in propositions]
    themes = data.draw(st.lists(st.integers(0, 3), min_size=len(merged), max_size=len(merged)))
    groups: dict[int, list[int]] = {}
    for number, theme in enumerate(themes, start=1):
        groups.setdefault(theme, []).append(number)
    grouping = [(f"Theme {t}", numbers) for t, numbers in groups.items()]
    text = " ".join(propositions)
    chunks, warnings = assemble(
        grouping,
        merged,
        [AgenticChunkInput("C1", text)],
        document_id="D",
        metadata={},
        limit=limit,
    )
    assert all(c.token_estimate <= limit for c in chunks)
    placed = [p for c in chunks for p in c.propositions]
    assert sorted(placed) == sorted(propositions)  # each exactly once
    assert [c.chunk_id for c in chunks] == [f"D-{n:04d}" for n in range(1, len(chunks) + 1)]
    split = {w.data["category"]: w.data["chunk_ids"] for w in warnings if w.kind == SPLIT_THEME}
    for category, numbers in grouping:
        mine = [c for c in chunks if c.thematic_category == category]
        assert [p for c in mine for p in c.propositions] == [propositions[n - 1] for n in numbers]
        if len(mine) > 1:
            assert [(c.part, c.part_count) for c in mine] == [
                (k, len(mine)) for k in range(1, len(mine) + 1)
            ]
            assert split[category] == [c.chunk_id for c in mine]
        else:
            assert (mine[0].part, mine[0].part_count) == (None, None)
            assert category not in split


def test_a_chunk_dict_with_provenance_reads_back_and_refuses_edited_spans() -> None:
    chunk = AgenticChunk.from_propositions(
        document_id="D",
        seq=1,
        thematic_category="T",
        propositions=["A b.", "C d."],
        source_chunk_ids=["C1"],
        proposition_chunk_ids=[["C1"], ["C1"]],
        proposition_spans=[[(0, 4)], [(5, 9), (0, 4)]],
        part=1,
        part_count=2,
        metadata={"k": "v"},
    )
    data = json.loads(json.dumps(chunk.to_dict()))
    assert data["Spans"] == [[0, 4], [5, 9]]
    assert AgenticChunk.from_dict(data).to_dict() == data
    with pytest.raises(InputError, match="Spans is"):
        AgenticChunk.from_dict({**data, "Spans": [[0, 9]]})
    old = {k: v for k, v in data.items() if k in ("ChunkId", "DocumentId", "ThematicCategory")}
    read = AgenticChunk.from_dict({**old, "Propositions": ["A b."]})
    assert (read.proposition_spans, read.part, dict(read.metadata)) == ((), None, {})


_sentence = st.builds(
    "{} {} {} grams.".format,
    st.sampled_from(["Iron", "Gold", "Salt", "Sand", "Clay"]),
    st.sampled_from(["weighs", "holds", "loses"]),
    st.integers(1, 99_999),
)


@settings(max_examples=6, deadline=None)
@given(
    st.lists(st.lists(_sentence, min_size=1, max_size=6, unique=True), min_size=1, max_size=6),
    st.integers(min_value=8, max_value=80),
)
def test_pipeline_outputs_are_within_the_limit_and_place_every_proposition_once(
    paragraphs: list[list[str]], limit: int
) -> None:
    document = "\n\n".join(" ".join(p) for p in paragraphs)
    inputs = paragraph_inputs(document)
    extraction = {c.text: split_sentences(c.text) for c in inputs}
    expected = [s for c in inputs for s in extraction[c.text]]
    script = ScriptedPipeline(extraction, lambda text: text.split()[0])
    with (
        FakeMessagesServer(handler=script) as server,
        make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
    ):
        response = chunk_text_agentic(inputs, "G", client=client, max_chunk_tokens=limit)
    if not response.is_success:  # only a proposition above the limit may fail the run
        assert any(estimate_tokens(p) > limit for p in expected)
        assert "above max_chunk_tokens" in response.error_detail
        return
    assert all(c.token_estimate <= limit for c in response.chunks)
    placed = [p for c in response.chunks for p in c.propositions]
    assert len(placed) == len(set(placed)) and set(placed) == set(expected)
    assert _located_as_aligned(response, inputs, document) == len(placed)


def test_a_chunk_lists_document_id_and_metadata_are_read_only_when_given(tmp_path: Path) -> None:
    from agentic_chunking.cli._chunk import read_inputs

    def read(data: object) -> Any:
        path = tmp_path / "list.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return read_inputs(path)

    shared = [{"chunk_id": f"C{n}", "text": "x.", "document_id": "D7"} for n in range(2)]
    assert read(shared).document_id == "D7"
    mixed = [{**shared[0]}, {**shared[1], "document_id": "D8"}]
    assert read(mixed).document_id is None  # two documents' ids: none is the file's
    assert read([{"chunk_id": "C", "text": "x."}]).document_id is None
    given = read({"document_id": "M", "metadata": {"lang": "en"}, "chunks": shared})
    assert (given.document_id, given.metadata) == ("M", {"lang": "en"})
    with pytest.raises(InputError, match="metadata is a list, not an object"):
        read({"metadata": ["en"], "chunks": shared})
