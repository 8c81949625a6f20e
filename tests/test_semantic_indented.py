"""Level 4's segmenter: an indented block is code only when its lines look like code.

An indented paragraph of prose (a licence in a third-party notices file) is segmented by
its sentences, as the same paragraph unindented would be; real code indented stays code,
one segment per line, as before.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic_chunking.semantic import HashingEmbedder, segment_spans, soft_line_breaks
from agentic_chunking.semantic._segment import indented_block_is_code

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_split_notices.py"

MIT_GRANT = """\
    Permission is hereby granted, free of charge, to any person obtaining a
    copy of this software and associated documentation files (the
    "Software"), to deal in the Software without restriction, including
    without limitation the rights to use, copy, modify, merge, publish,
    distribute, sublicense, and/or sell copies of the Software."""

APACHE_HEADER = """\
    Licensed under the Apache License, Version 2.0 (the "License");
    you may not use this file except in compliance with the License.
    You may obtain a copy of the License at"""

BSD_CLAUSE = """\
    1. Redistributions of source code must retain the above copyright
       notice, this list of conditions and the following disclaimer of the holder(s)."""

PROSE = {"mit": MIT_GRANT, "apache": APACHE_HEADER, "bsd clause": BSD_CLAUSE}

CODE = {
    "python": "    def hello(name):\n        greeting = 'hi ' + name\n        return greeting",
    "calls": "    step_0(value=42)\n    step_1(value=7)",
    "assignments": "    width = 72\n    height = 40",
    "c": "    int main(void) {\n        return 0;\n    }",
    "json": '    {"name": "agentic-chunking",\n     "version": "0.1.0"}',
    "shell prompt": "    $ pip install agentic-chunking\n    $ agentic-chunking --help",
    "doctest": "    >>> split(text)\n    ['a', 'b']",
    "short commands": "    make\n    make install\n    make test",
    "url": "    http://www.apache.org/licenses/LICENSE-2.0",
    "comment": "    # the settings of the run\n    retries: 3",
    "index": "    values[0]\n    values[1]",
    "arrow": "    Stream<T> map(Function<T, R> f) -> R",
    "identifiers": "    snake_case_name other.attribute\n    third_name.value fourth.value",
}


def _segments(text: str) -> list[str]:
    return [" ".join(text[a:b].split()) for a, b in segment_spans(text)]


@pytest.mark.parametrize("name", sorted(PROSE))
def test_an_indented_paragraph_of_prose_is_prose(name: str) -> None:
    block = PROSE[name]
    assert not indented_block_is_code(block.split("\n"))
    text = f"Notices follow.\n\n{block}\n"
    unindented = f"Notices follow.\n\n{textwrap.dedent(block)}\n"
    assert _segments(text) == _segments(unindented)
    assert soft_line_breaks(text)  # its wrapped lines are joined


@pytest.mark.parametrize("name", sorted(CODE))
def test_indented_code_stays_code_one_segment_per_line(name: str) -> None:
    block = CODE[name]
    assert indented_block_is_code(block.split("\n"))
    text = f"An example:\n\n{block}\n"
    assert not soft_line_breaks(text)
    assert len(segment_spans(text, join_wrapped_lines=True)) >= block.count("\n") + 2


def test_an_indented_list_of_prose_items_is_a_list() -> None:
    text = (
        "Conditions:\n\n"
        "    - Redistributions of source code must retain the above copyright notice\n"
        "      and this list of conditions.\n"
        "    - Redistributions in binary form must reproduce the above copyright\n"
        "      notice in the documentation.\n"
    )
    assert _segments(text) == [
        "Conditions:",
        "- Redistributions of source code must retain the above copyright notice and "
        "this list of conditions.",
        "- Redistributions in binary form must reproduce the above copyright notice in "
        "the documentation.",
    ]


def test_an_indented_prose_block_joins_only_its_own_lines() -> None:
    """Lines after the block (a lazy line, unindented) are not joined to it, and a one-line
    command stays apart from the text under it, as when indentation alone decided."""
    text = (
        "Run:\n\n    make install\nthen go on\n\n"
        "    The above copyright notice and this permission notice shall be\n"
        "    included in all copies.\nunder it\n"
    )
    assert _segments(text) == [
        "Run:",
        "make install",
        "then go on",
        "The above copyright notice and this permission notice shall be included in all copies.",
        "under it",
    ]


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)
SENTENCE = st.lists(WORDS, min_size=1, max_size=14).map(lambda w: " ".join(w).capitalize() + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=6).map(" ".join)


@given(st.lists(PARAGRAPH, min_size=1, max_size=4), st.integers(min_value=50, max_value=100))
def test_indenting_wrapped_prose_never_changes_its_segments(
    paragraphs: list[str], width: int
) -> None:
    def fill(paragraph: str, indent: str) -> str:
        return textwrap.fill(
            paragraph,
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )

    flat = "Notices.\n\n" + "\n\n".join(fill(p, "") for p in paragraphs)
    indented = "Notices.\n\n" + "\n\n".join(fill(p, "    ") for p in paragraphs)
    assert _segments(indented) == _segments(flat)


# -- the notices benchmark's own parts --------------------------------------------------


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_split_notices", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_notices_file_is_indented_deterministic_and_holds_code(bench: ModuleType) -> None:
    notices = bench.notices_document(12)
    assert notices == bench.notices_document(12)
    assert "\n    Permission is hereby granted" in notices.text and notices.code_blocks
    for start, end in notices.code_blocks:
        assert notices.text[start:end].startswith("        import lib")


def test_sentence_starts_read_the_dedented_text_a_paragraph_at_a_time(bench: ModuleType) -> None:
    text = "Title line\n\n    One runs\n    far. Two\n    ends.\n"
    flat, where = bench.dedented(text)
    assert flat == "Title line\n\nOne runs\nfar. Two\nends.\n"
    assert all(text[where[i]] == flat[i] for i in range(len(flat)))
    assert {text[s : s + 3] for s in bench.sentence_starts(text)} == {"Tit", "One", "Two"}


def test_no_chunk_of_the_notices_file_starts_mid_sentence(bench: ModuleType) -> None:
    notices = bench.notices_document(6)
    before = bench.measure(notices, HashingEmbedder(), "before")
    after = bench.measure(notices, HashingEmbedder(), "after")
    assert before["mid_sentence"] > 0  # indentation alone made the licences code
    assert after["mid_sentence"] == 0
    assert after["code_kept"] == after["code_blocks"] > 0
