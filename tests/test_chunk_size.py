"""The default output chunk limit is one the evaluated embedder reads whole, and ``chunk`` and
``corpus`` say so in one line when a limit is over it."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from agentic_chunking import chunk_text_agentic
from agentic_chunking._loopback import FakeMessagesServer, ParagraphModel
from agentic_chunking.cli import main
from agentic_chunking.cli._chunk import chunk_size_warning
from agentic_chunking.client import make_client
from agentic_chunking.pipeline._run import DEFAULT_MAX_CHUNK_TOKENS
from agentic_chunking.semantic import MiniLMEmbedder
from agentic_chunking.semantic._splitter import ADAPTIVE_MAX_TOKENS

DATA = Path(__file__).resolve().parent.parent / "agentic_chunking" / "evaluate" / "data"
PROSE = ("chatlogs.md", "finance.md", "pubmed.md", "state_of_the_union.md", "wikitexts.md")


def test_the_default_limit_is_within_what_minilm_reads_and_equals_level4s() -> None:
    assert MiniLMEmbedder.max_seq_length >= DEFAULT_MAX_CHUNK_TOKENS
    assert DEFAULT_MAX_CHUNK_TOKENS == ADAPTIVE_MAX_TOKENS


def _median_word_pieces(tokens: int) -> list[float]:
    """Per prose corpus of Chroma's evaluation, the median word pieces MiniLM's tokenizer
    makes of a text of ``tokens`` package tokens (``tokens * 4`` characters, cut at a space),
    [CLS] and [SEP] included."""
    pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer

    from agentic_chunking.semantic._embedders import TOKENIZER_FILE

    tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
    tokenizer.no_truncation()
    medians = []
    for name in PROSE:
        text = (DATA / name).read_text(encoding="utf-8")[:200_000]
        pieces = []
        for start in range(0, len(text) - tokens * 4, tokens * 4 * 7):
            window = text[start : start + tokens * 4]
            window = window[: window.rfind(" ")]
            pieces.append(len(tokenizer.encode(window).ids))
        medians.append(statistics.median(pieces))
    return medians


def test_a_chunk_at_the_default_limit_is_read_whole_by_minilm_and_one_at_twice_it_is_not() -> None:
    """What the default rests on, measured on real prose: a typical chunk of 256 tokens
    fits MiniLM's 256 word pieces; one of 512 (the limit one might pick) is cut."""
    window = MiniLMEmbedder.max_seq_length
    assert all(m <= window for m in _median_word_pieces(DEFAULT_MAX_CHUNK_TOKENS))
    assert all(m > window for m in _median_word_pieces(2 * DEFAULT_MAX_CHUNK_TOKENS))


def test_the_warning_is_said_only_over_the_embedders_window() -> None:
    window = MiniLMEmbedder.max_seq_length
    assert chunk_size_warning(None) is None
    assert chunk_size_warning(window) is None
    line = chunk_size_warning(window + 1)
    assert line is not None and "\n" not in line
    assert line.startswith(f"warning: --max-chunk-tokens {window + 1} is over {window}: ")
    assert "all-MiniLM-L6-v2" in line


@pytest.mark.parametrize("command", ["chunk", "corpus"])
def test_chunk_and_corpus_warn_in_one_line_when_the_limit_is_over_and_not_by_default(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "docs" / "doc.md"
    document.parent.mkdir()
    document.write_text("Alpha is a fact.\n\nBeta is another fact.\n", encoding="utf-8")
    given = str(document if command == "chunk" else document.parent)
    out = ["-o", str(tmp_path / ("out.json" if command == "chunk" else "out.jsonl"))]
    assert main([command, given, *out, "--dry-run"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main([command, given, *out, "--dry-run", "--max-chunk-tokens", "512"]) == 0
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert warnings == [f"agentic-chunking {command}: {chunk_size_warning(512)}"]


def test_a_theme_over_the_default_limit_is_written_in_parts_within_it() -> None:
    """The library's default: one theme of 24 paragraphs (about 400 tokens) comes back in
    parts of at most 256 tokens, not as one chunk under the batch limit of 2,000."""
    paragraphs = [
        f"Alpha fact {n} says that the river valley holds {n} old stone mills." for n in range(24)
    ]
    model = ParagraphModel()
    with (
        FakeMessagesServer(handler=model) as server,
        make_client(api_key="loopback", base_url=server.base_url, max_retries=0) as client,
    ):
        inputs = [{"chunk_id": f"P{n}", "text": text} for n, text in enumerate(paragraphs)]
        response = chunk_text_agentic(inputs, "doc", client=client, model="claude-sonnet-4-6")
    assert response.is_success, response.error_detail
    assert len(response.chunks) > 1
    assert {c.thematic_category for c in response.chunks} == {"Alpha"}
    assert all(c.token_estimate <= DEFAULT_MAX_CHUNK_TOKENS for c in response.chunks)
    assert sum(c.token_estimate for c in response.chunks) > DEFAULT_MAX_CHUNK_TOKENS
