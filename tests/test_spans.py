"""Provenance spans point where the text is (docs/output-schema.md, "Spans, to the
character").

On verbatim output (every proposition one source sentence, or a run of them, given back
unchanged or with its whitespace collapsed) each proposition's spans, read as runs
(spans separated only by whitespace), hold the proposition up to whitespace (runs of
whitespace, line ends included, compared as one space), or a copy the pipeline merged
into it (a ``duplicate_merged`` warning names it); a sentence that is repeated in the
document is located in the batch the proposition came from, never at another copy.

Tested where the spans are computed (``_provenance.locate`` over ``plan_batches``),
end to end (``corpus`` against a loopback model that gives the text back,
``testing.VerbatimModel``), and through ``evaluate``'s Level 5 chunker, over real text
(Chroma's corpora, /usr/share/common-licenses/, Debian changelogs; each skipped when
absent) and generated shapes real documents have.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from embedders import TableEmbedder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentic_chunking._loopback import FakeMessagesServer, VerbatimModel
from agentic_chunking._models import AgenticChunkInput, Span
from agentic_chunking.checks._duplicates import certainly_same_fact
from agentic_chunking.cli import main
from agentic_chunking.evaluate import Document, Question, build_chunker
from agentic_chunking.evaluate._scoring import score
from agentic_chunking.pipeline._batches import Batch, plan_batches
from agentic_chunking.pipeline._document import paragraph_inputs
from agentic_chunking.pipeline._provenance import locate

DATA = Path(__file__).resolve().parents[1] / "agentic_chunking" / "evaluate" / "data"
LICENSES = Path("/usr/share/common-licenses")
CHANGELOGS = Path("/usr/share/doc")


# --- the corpus: real repetitive text ------------------------------------------------


def real_texts(changelogs: int = 12, limit: int = 60_000) -> Iterator[tuple[str, str]]:
    """``(name, text)`` of real documents every checkout or Debian machine has: Chroma's
    corpora (cut to ``limit`` characters), the licence texts, and the first
    ``changelogs`` Debian changelogs; what is absent is left out."""
    for path in sorted(DATA.glob("*.md")):
        yield path.name, path.read_text(encoding="utf-8")[:limit]
    if LICENSES.is_dir():
        for path in sorted(p for p in LICENSES.iterdir() if p.is_file() and not p.is_symlink()):
            yield path.name, path.read_text(encoding="utf-8", errors="replace")[:limit]
    found = sorted(CHANGELOGS.glob("*/changelog.Debian.gz")) if CHANGELOGS.is_dir() else []
    for path in found[:changelogs]:
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as file:
            yield f"{path.parent.name}.changelog", file.read()[:limit]


# --- generated shapes ----------------------------------------------------------------

_name = st.sampled_from(["bash", "gcc-12", "coreutils", "libfoo", "zlib"])
_version = st.tuples(st.integers(0, 12), st.integers(0, 40), st.integers(1, 9)).map(
    lambda v: f"{v[0]}.{v[1]}-{v[2]}"
)
_item = st.sampled_from(
    [
        "* New upstream release.",
        "* Team upload.",
        "* Update symbols file.",
        "* Fix FTBFS with GCC 13 (Closes: #1037652).",
        "* Bump Standards-Version, no changes needed.",
    ]
)
_changelog = st.builds(
    "{0} ({1}) unstable; urgency=medium\n\n  {2}\n  {3}\n\n -- Ann Maintainer <ann@example.org>  "
    "Mon, 0{4} Jan 2024 10:00:00 +0100".format,
    _name,
    _version,
    _item,
    _item,
    st.integers(1, 9),
)
_copyright = st.builds(
    "Files: {0}\nCopyright: {1} Ann Maintainer <ann@example.org>\nLicense: GPL-2+".format,
    st.sampled_from(["*", "debian/*", "src/*.c", "doc/*"]),
    st.sampled_from(["2010-2014", "2020", "1998, 2004"]),
)
_note = st.builds(
    "{0}. See the note above for the terms.".format, st.integers(1, 40)
)  # numbered notes: the same words, another number
_heading = st.sampled_from(["## Definitions", "DEFINITIONS", "1. Definitions.", "# Notes"])
_boilerplate = st.just(
    "This program is distributed in the hope that it will be useful, but WITHOUT ANY "
    "WARRANTY; without even the implied warranty of MERCHANTABILITY."
)
_cited = st.builds(
    "The {0} was approved in {1}.[{2}] It is used in {3} countries.".format,
    st.sampled_from(["drug", "treaty", "standard"]),
    st.integers(1950, 2020),
    st.integers(1, 30),
    st.integers(2, 90),
)
_block = st.one_of(_changelog, _copyright, _note, _heading, _boilerplate, _cited)


def _dress(text: str, crlf: bool, tabs: bool, nbsp: bool) -> str:
    if tabs:
        text = text.replace("\n  ", "\n\t")
    if nbsp:
        text = text.replace("Ann Maintainer", "Ann\u00a0Maintainer")
    return text.replace("\n", "\r\n") if crlf else text


documents = st.builds(
    lambda blocks, joiner, crlf, tabs, nbsp: _dress(joiner.join(blocks) + "\n", crlf, tabs, nbsp),
    st.lists(_block, min_size=2, max_size=14),
    st.sampled_from(["\n\n", "\n", " "]),  # paragraphs, or one long chunk cut in pieces
    st.booleans(),
    st.booleans(),
    st.booleans(),
)


# --- the property --------------------------------------------------------------------


def collapse(text: str) -> str:
    """``text`` with each run of whitespace one space, the ends stripped: the one
    difference a verbatim proposition may have from its source."""
    return " ".join(text.split())


def runs(document: str, spans: Sequence[Span]) -> list[str]:
    """The document's text of each run of ``spans`` (sorted; spans separated only by
    whitespace are one run)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and not document[out[-1][1] : start].strip():
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return [document[a:b] for a, b in out]


def holds(run: str, proposition: str, copies: Sequence[str] = ()) -> bool:
    """Does ``run`` hold the proposition, or a copy merged into it, up to whitespace?"""
    return any(collapse(text) in collapse(run) for text in (proposition, *copies))


def verbatim(batch_text: str, run: int, collapsed: bool) -> list[str]:
    """What ``VerbatimModel`` answers for a batch (its extraction, no server)."""
    model = VerbatimModel(run=run, collapse=collapsed)
    return model._extract(batch_text)


def _segment_range(batch: Batch, k: int, text: str) -> tuple[int, int]:
    """Where segment ``k`` is in its input chunk's text: from its ``skip``, counted in
    non-whitespace characters (a wrong ``skip`` also puts the places at the wrong text,
    which the runs' check catches)."""
    visible = [i for i, c in enumerate(text) if not c.isspace()]
    segment = batch.segments[k]
    count = sum(not c.isspace() for c in segment.text)
    return visible[segment.skip], visible[segment.skip + count - 1] + 1


def check_located(document: str, limit: int, run: int, collapsed: bool) -> int:
    """Locate the verbatim propositions of every batch of ``document``, assert the
    property of each; return how many were checked."""
    inputs = paragraph_inputs(document)
    by_id = {c.chunk_id: c for c in inputs}
    texts = {c.chunk_id: c.text for c in inputs}
    total = 0
    for batch in plan_batches(inputs, limit):
        propositions = verbatim(batch.text, run, collapsed)
        ranges = [
            (s.chunk_id, *_segment_range(batch, k, texts[s.chunk_id]))
            for k, s in enumerate(batch.segments)
        ]
        for proposition, found in zip(
            propositions, locate(propositions, batch, texts), strict=True
        ):
            total += 1
            assert found.places, proposition
            spans = []
            for place in found.places:
                chunk = by_id[place.chunk_id]
                assert chunk.start is not None
                # the proposition's own batch: the place overlaps one of its segments
                assert any(
                    cid == place.chunk_id and place.start < hi and place.end > lo
                    for cid, lo, hi in ranges
                ), (proposition, place)
                spans.append((chunk.start + place.start, chunk.start + place.end))
            held = runs(document, spans)
            assert all(holds(r, proposition) for r in held), (proposition, held)
            wanted = collapse(proposition)
            if collapse(batch.text).count(wanted) == 1:  # once in its batch: one place
                assert len(held) == 1, (proposition, held)
    return total


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    documents,
    st.sampled_from([12, 30, 60, 400]),
    st.integers(1, 3),
    st.booleans(),
)
def test_verbatim_propositions_of_generated_shapes_are_located_where_they_are(
    document: str, limit: int, run: int, collapsed: bool
) -> None:
    assert check_located(document, limit, run, collapsed) > 0


@pytest.mark.parametrize("run", [1, 3])
def test_verbatim_propositions_of_real_text_are_located_where_they_are(run: int) -> None:
    names = []
    for name, text in real_texts():
        if check_located(text, 300, run, collapsed=run == 3):
            names.append(name)
    assert any(n.endswith(".md") for n in names)  # Chroma's corpora ship with the package


def test_a_sentence_repeated_in_one_long_chunk_is_located_in_its_own_piece() -> None:
    # one paragraph over the batch limit: cut into pieces, two of which hold the same line
    line = "See the License for the specific language governing permissions."
    filler = [f"Clause {n} grants a licence to copy item {n}." for n in range(30)]
    text = " ".join([line, *filler, line, *filler[:3]])
    inputs = [AgenticChunkInput("C1", text, start=0)]
    batches = plan_batches(inputs, 60)
    holding = [b for b in batches if line in b.text]
    assert len(holding) == 2  # the line is in two batches of the one chunk
    second = text.rindex(line)
    (found,) = locate([line], holding[1], {"C1": text})
    assert [(p.start, p.end) for p in found.places] == [(second, second + len(line))]
    (found,) = locate([line], holding[0], {"C1": text})
    assert [(p.start, p.end) for p in found.places] == [(0, len(line))]


def test_a_changelog_header_is_located_at_itself_not_at_a_header_like_it() -> None:
    headers = [f"bash (5.{n}-1) unstable; urgency=medium" for n in range(6)]
    document = "\n\n".join(f"{h}\n\n  * New upstream release." for h in headers)
    inputs = paragraph_inputs(document)
    texts = {c.chunk_id: c.text for c in inputs}
    (batch,) = plan_batches(inputs, 2000)  # all packed in one batch
    for header, found in zip(headers, locate(headers, batch, texts), strict=True):
        (place,) = found.places
        chunk = next(c for c in inputs if c.chunk_id == place.chunk_id)
        assert chunk.start is not None
        assert document[chunk.start + place.start : chunk.start + place.end] == header


def test_a_heading_is_located_at_the_heading_not_inside_a_sentence() -> None:
    document = "Read the Definitions first.\n\nDefinitions\n\nA term means a word."
    inputs = paragraph_inputs(document)
    (batch,) = plan_batches(inputs, 2000)
    (found,) = locate(["Definitions"], batch, {c.chunk_id: c.text for c in inputs})
    assert found.chunk_ids == ("P0002",)


def test_a_paraphrase_is_still_aligned_to_its_sentence() -> None:
    document = "The liver filters blood.\n\nZoning rules govern land use in cities."
    inputs = paragraph_inputs(document)
    (batch,) = plan_batches(inputs, 2000)
    texts = {c.chunk_id: c.text for c in inputs}
    (found,) = locate(["Cities govern land use by zoning rules."], batch, texts)
    assert found.chunk_ids == ("P0002",)
    (place,) = found.places
    assert texts["P0002"][place.start : place.end] == "Zoning rules govern land use in cities."
    (nothing,) = locate(["Quasars emit light."], batch, texts)
    assert nothing.places == () and nothing.chunk_ids == ("P0001", "P0002")


def test_distinct_versions_are_not_the_same_fact() -> None:
    # merging them would drop a changelog entry and point its span at the other header
    a, b = "binutils (2.31.1-8) unstable; urgency=medium", "binutils (2.29.1-8) unstable;"
    assert not certainly_same_fact(a, b + " urgency=medium")
    assert certainly_same_fact(a, a + " ")


# --- end to end: corpus, and evaluate's Level 5 chunker ------------------------------


def _corpus_folder(tmp_path: Path) -> dict[str, str]:
    """A folder of real and generated documents (CRLF line ends, tabs, non-breaking
    spaces); returns document id -> text as written."""
    folder = tmp_path / "docs"
    folder.mkdir()
    chosen: dict[str, str] = {}
    for name, text in real_texts(changelogs=2, limit=6000):
        if name in ("chatlogs.md", "finance.md", "BSD", "Apache-2.0") or name.endswith(
            ".changelog"
        ):
            chosen[re.sub(r"\W", "_", name)] = text
    chosen["shapes"] = _dress(
        "\n\n".join(
            [
                "bash (5.2-1) unstable; urgency=medium\n\n  * New upstream release.",
                "bash (5.1-1) unstable; urgency=medium\n\n  * New upstream release.",
                "Files: *\nCopyright: 2020 Ann Maintainer\nLicense: GPL-2+",
                "Files: debian/*\nCopyright: 2021 Ann Maintainer\nLicense: GPL-2+",
                "13. See the note above for the terms.",
                "14. See the note above for the terms.",
                "The drug was approved in 1998.[16] It is used in 40 countries.",
            ]
        ),
        crlf=True,
        tabs=True,
        nbsp=True,
    )
    for name, text in chosen.items():
        (folder / f"{name}.txt").write_bytes(text.encode("utf-8"))
    return {f"{name}.txt": text for name, text in chosen.items()}  # a file's id is its name


def test_corpus_output_of_a_verbatim_model_has_spans_where_the_text_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = _corpus_folder(tmp_path)
    out = tmp_path / "out.jsonl"
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    with FakeMessagesServer(handler=VerbatimModel()) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-spans-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        code = main(["corpus", str(tmp_path / "docs"), "-o", str(out), "--quiet"])
    capsys.readouterr()
    assert code == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["DocumentId"] for r in records} == set(texts)
    checked = 0
    for record in records:
        document = texts[record["DocumentId"]]
        for proposition, spans in zip(
            record["Propositions"], record["PropositionSpans"], strict=True
        ):
            held = runs(document, [(a, b) for a, b in spans])
            assert held, proposition
            for run in held:  # the text, or a copy merged into it (a corpus names none)
                assert holds(run, proposition) or _merged_away(proposition, [run]), (
                    proposition,
                    run,
                )
            checked += 1
    assert checked > 100
    level5 = tmp_path / "level5.json"
    level5.write_text(
        json.dumps(
            {
                "model": "reference",
                "replies": "reference",
                "chunks": [
                    {
                        "document_id": r["DocumentId"],
                        "text": r["MergedContent"],
                        "spans": r["Spans"],
                    }
                    for r in records
                ],
            }
        ),
        encoding="utf-8",
    )
    _check_level5(level5, texts, records)


def _check_level5(path: Path, texts: dict[str, str], records: list[dict[str, Any]]) -> None:
    """Evaluate's Level 5 chunker credits each chunk with the ranges where its text is."""
    chunker = build_chunker(f"level5,replies={path}", TableEmbedder())
    for document_id, text in texts.items():
        mine = [r for r in records if r["DocumentId"] == document_id]
        chunks = chunker.split(Document(document_id, text))
        assert len(chunks) == len(mine)
        for chunk, record in zip(chunks, mine, strict=True):
            held = runs(text, list(chunk.spans))
            for proposition in record["Propositions"]:
                assert any(holds(r, proposition) for r in held) or _merged_away(
                    proposition, held
                ), proposition
            # a question whose answer is one of its propositions is fully recalled by it
            first = record["PropositionSpans"][0][0]
            question = Question("q", document_id, ((first[0], first[1]),))
            assert score(question, [chunk])[0] == 1.0


def _merged_away(proposition: str, held: Sequence[str]) -> bool:
    """Is a copy merged into the proposition here: a sentence or line of ``held`` that is
    certainly the same fact (the merge's own rule, ``duplicate_merged``)?"""
    sentences = [s for r in held for s in re.split(r"(?<=[.!?])\s+|\n", r) if s.strip()]
    return any(certainly_same_fact(proposition, s) for s in sentences)


def test_the_verbatim_model_reads_a_grouping_list_of_propositions_that_span_lines() -> None:
    model = VerbatimModel()
    said = ["Terms of section\n2. apply to copies.", "Copies are free."]
    model._said.update(said)
    message = "<propositions>\n1. " + said[0] + "\n2. " + said[1] + "\n</propositions>"
    assert model._listed(message) == [(1, said[0]), (2, said[1])]
    # read line by line (the old way) the wrapped line would be taken for item 2
    assert VerbatimModel()._listed(message)[1] == (2, "apply to copies.")
