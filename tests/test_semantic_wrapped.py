"""Level 4 on hard-wrapped text: lines of a paragraph joined, blocks kept apart, batches bounded."""

from __future__ import annotations

import textwrap

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from agentic_chunking import estimate_tokens
from agentic_chunking.semantic import (
    HashingEmbedder,
    SemanticSplitter,
    paragraph_breaks,
    segment_spans,
    soft_line_breaks,
)
from agentic_chunking.semantic._segment import HAND_WRAP_WIDTH

# Words that cannot open a heading, a list item or a table row when a wrap puts them first.
WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)
SENTENCE = st.lists(WORDS, min_size=1, max_size=14).map(lambda w: " ".join(w).capitalize() + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=6).map(" ".join)


def _fill(text: str, width: int, **options: str) -> str:
    """Hard-wrap without cutting a word (a cut word is another text)."""
    return textwrap.fill(text, width, break_long_words=False, break_on_hyphens=False, **options)


def _normalised(text: str, **options: bool) -> list[str]:
    return [" ".join(text[a:b].split()) for a, b in segment_spans(text, **options)]


def _starts(text: str, **options: bool) -> set[int]:
    return {a for a, _ in segment_spans(text, **options)}


# -- the line-joining algorithm (properties) ---------------------------------------------


@given(st.lists(PARAGRAPH, min_size=1, max_size=4), st.integers(min_value=12, max_value=100))
def test_wrapping_a_paragraph_never_changes_its_segments(paragraphs: list[str], width: int) -> None:
    flat = "\n\n".join(paragraphs)
    wrapped = "\n\n".join(_fill(p, width) for p in paragraphs)
    assert _normalised(wrapped) == _normalised(flat)
    # Solon's rule (every line end a delimiter) cuts wherever a line ends.
    line_rule = _normalised(wrapped, join_wrapped_lines=False)
    assert len(line_rule) >= len(_normalised(flat))


BLOCK = st.one_of(
    PARAGRAPH.map(lambda p: ("paragraph", _fill(p, 30))),
    SENTENCE.map(lambda s: ("heading", f"# {s}")),
    st.lists(SENTENCE, min_size=1, max_size=4).map(
        lambda items: (
            "list",
            "\n".join(_fill(s, 30, initial_indent="- ", subsequent_indent="  ") for s in items),
        )
    ),
    st.lists(WORDS, min_size=1, max_size=4).map(
        lambda lines: ("code", "\n".join(f"    {w} = 1" for w in lines))
    ),
)


@given(st.lists(BLOCK, min_size=1, max_size=6), st.sampled_from(["\n\n", "\n"]))
def test_a_blank_line_a_heading_a_list_item_and_a_code_line_still_end_a_segment(
    blocks: list[tuple[str, str]], separator: str
) -> None:
    text = ""
    must_start: set[int] = set()
    previous = ""
    for kind, block in blocks:
        if text:
            text += "\n\n" if kind == "code" or previous == "code" else separator
        # A block after a blank line, and a heading, item or code line anywhere, starts anew.
        if kind in ("heading", "list", "code") or separator == "\n\n" or not text:
            must_start.add(len(text))
        offset = len(text)
        for line in block.split("\n"):
            if kind == "code" or (kind == "list" and line.startswith("- ")):
                must_start.add(offset)
            offset += len(line) + 1
        text += block
        previous = kind
    starts = _starts(text)
    # A segment opens at the first character that is not a space (the first at offset 0).
    assert {p + len(text[p:]) - len(text[p:].lstrip()) if p else 0 for p in must_start} <= starts
    # Joining never adds a cut that Solon's line rule does not make.
    assert starts <= _starts(text, join_wrapped_lines=False)
    assert "".join(text[a:b] for a, b in segment_spans(text)) == text


@given(st.text(alphabet=st.sampled_from("ab .\n#-*|`~\t 1)"), max_size=120))
def test_soft_breaks_are_line_ends_between_two_non_blank_lines(text: str) -> None:
    for offset in soft_line_breaks(text):
        assert text[offset] == "\n"
        before = text[:offset].rsplit("\n", 1)[-1]
        after = text[offset + 1 :].split("\n", 1)[0]
        assert before.strip() and after.strip()


def test_line_ends_that_stay_hard() -> None:
    def joined(text: str) -> list[str]:
        return [text[a:b] for a, b in segment_spans(text)]

    assert joined("Title\n=====\nbody goes\non here") == [
        "Title\n",
        "=====\n",
        "body goes\non here",
    ]
    assert joined("| a | b |\n| 1 | 2 |") == ["| a | b |\n", "| 1 | 2 |"]
    assert joined("text\n```\nx = 1\ny = 2\n```\nmore\nwords") == [
        "text\n",
        "```\n",
        "x = 1\n",
        "y = 2\n",
        "```\n",
        "more\nwords",
    ]
    assert joined("One item:\n- first part\n   goes on\n* second\n+ third") == [
        "One item:\n",
        "- first part\n   goes on\n",
        "* second\n",
        "+ third",
    ]
    # Windows line ends: the wrap is joined, the blank line is not.
    assert joined("a wrapped\r\nline\r\n\r\nnext") == ["a wrapped\r\nline\r\n\r\n", "next"]


def test_the_splitter_joins_wrapped_lines_unless_told_not_to() -> None:
    text = textwrap.fill("Cats purr and cats sleep all day. " * 6, 25)
    assert len(SemanticSplitter(HashingEmbedder()).segments(text)) == 6
    solon = SemanticSplitter(HashingEmbedder(), join_wrapped_lines=False)
    assert len(solon.segments(text)) > 6
    for chunk in SemanticSplitter(HashingEmbedder(), max_chunk_token_size=20).split(text):
        assert chunk.text == text[chunk.start : chunk.end]


# -- bounded batches and progress --------------------------------------------------------


class Recording:
    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return HashingEmbedder()(texts)


def _document(sentences: int) -> str:
    return " ".join(
        f"Sentence {n} talks about {'cats' if n % 40 < 20 else 'volts'}"
        + " and more" * (n % 9)
        + "."
        for n in range(sentences)
    )


def test_a_batch_stays_within_its_count_and_its_padded_tokens() -> None:
    embedder = Recording()
    splitter = SemanticSplitter(embedder, batch_size=16, batch_tokens=200)
    splitter.split(_document(300))
    assert len(embedder.batches) > 300 // 16
    for batch in embedder.batches:
        assert len(batch) <= 16
        assert len(batch) == 1 or len(batch) * max(map(estimate_tokens, batch)) <= 200
    texts = [t for batch in embedder.batches for t in batch]
    assert len(texts) == len(set(texts)) == 300  # each distinct segment once


def test_a_short_document_is_one_batch() -> None:
    embedder = Recording()
    SemanticSplitter(embedder).split(_document(20))
    assert len(embedder.batches) == 1


def test_progress_counts_the_texts_embedded_up_to_the_total() -> None:
    splitter = SemanticSplitter(Recording(), batch_size=8)
    calls: list[tuple[int, int]] = []
    text = _document(50)
    splitter.explain(text, progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 50) and calls[-1] == (50, 50)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert len(calls) == 1 + 7  # before the first batch, then after each of ceil(50/8)
    calls.clear()
    splitter.explain(text, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 0)]  # all memoised: nothing left to embed


# -- paragraph breaks: where a topic boundary may fall ---------------------------------


def test_a_blank_line_a_heading_and_a_list_item_end_a_paragraph() -> None:
    text = "One para.\n\nTwo para.\n# Head\n- item one\n- item two\nwrapped on\nhere."
    ends = {text.index(s) + len(s) - 1 for s in ("One para.\n", "Two para.\n", "Head\n")}
    ends |= {text.index("\n\nTwo") + 1, text.index("item one\n") + len("item one")}
    # The wrapped lines of the second item are one paragraph: no break inside.
    assert paragraph_breaks(text) == frozenset(ends)


def test_the_wrapped_lines_of_a_paragraph_are_not_paragraph_breaks() -> None:
    paragraph = " ".join(["The river runs south to the sea."] * 12)
    text = _fill(paragraph, 72) + "\n\n" + _fill(paragraph, 72)
    blank = text.index("\n\n")
    assert paragraph_breaks(text) == frozenset({blank, blank + 1})


def test_a_line_too_long_to_be_wrapped_by_hand_ends_a_paragraph() -> None:
    # One paragraph a line, a single newline between them (a wiki dump, a word processor).
    long_line = "A sentence of the first paragraph, long enough. " * 3
    short_line = "A short line, as a hard wrap makes it."
    assert len(long_line) > HAND_WRAP_WIDTH >= len(short_line)
    text = long_line + "\n" + long_line + "\n" + short_line + "\n" + short_line
    first, second, third = (i for i, c in enumerate(text) if c == "\n")
    assert paragraph_breaks(text) == frozenset({first, second})
    assert third in soft_line_breaks(text)


@given(st.text(alphabet=st.sampled_from("ab .\n#-*|`~\t 1)"), max_size=160))
def test_paragraph_breaks_are_the_hard_line_ends_and_the_long_lines_ends(text: str) -> None:
    soft = soft_line_breaks(text)
    breaks = paragraph_breaks(text)
    for offset, character in enumerate(text):
        if character != "\n":
            assert offset not in breaks
        elif offset not in soft:
            assert offset in breaks
        else:
            line = text[:offset].rsplit("\n", 1)[-1]
            assert (offset in breaks) == (len(line) > HAND_WRAP_WIDTH)
