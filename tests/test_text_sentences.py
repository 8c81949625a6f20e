"""The package's sentences (``_text.sentence_spans``, ``split_sentences``) and the layout
that ends one whatever its punctuation: a blank line, an ATX heading line, a title
underline.

Invariants over generated shapes real documents have (headings, numbered lists, lead-in
lines ending in ":", changelog headers and trailers, hard-wrapped paragraphs, joined by
blank lines of any whitespace) and over real text (the licences of base-files, Chroma's
corpora; skipped when absent): no sentence holds a blank line; the sentences, in order,
hold the text's non-space characters exactly once; each span holds exactly its sentence,
and ``checks.sentence_offsets`` finds each sentence where it is.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentic_chunking._text import layout_breaks, sentence_spans, split_sentences
from agentic_chunking.checks import sentence_offsets

RUNS = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
REAL = [
    *sorted(Path("/usr/share/common-licenses").glob("*")),
    *sorted((Path(__file__).parent.parent / "agentic_chunking/evaluate/data").glob("*.md")),
]


def assert_invariants(text: str) -> list[str]:
    """Check every guarantee of the sentences of ``text``; return them."""
    sentences = split_sentences(text)
    spans = sentence_spans(text)
    assert not [s for s in sentences if BLANK_LINE.search(s)]
    assert "".join("".join(s.split()) for s in sentences) == "".join(text.split())
    assert all(a < b <= c for (a, b), (c, _) in itertools.pairwise(spans))
    assert [text[a:b].strip() for a, b in spans] == sentences
    assert [text[a:b] for a, b in sentence_offsets(text)] == sentences
    return sentences


# --- generated shapes -------------------------------------------------------------

WORD = st.sampled_from(
    [
        "the",
        "widget",
        "service",
        "stores",
        "keys",
        "in",
        "a",
        "database",
        "and",
        "runs",
        "on",
        "Linux",
        "licence",
        "grant",
        "copyright",
        "holder",
        "may",
        "not",
        "use",
        "this",
        "file",
        "except",
        "3.5",
        "V",
        "Dr.",
        "e.g.",
        "U.S.",
        "version",
    ]
)
TITLE_WORD = st.sampled_from(
    [
        "widget",
        "service",
        "keys",
        "database",
        "Linux",
        "licence",
        "grant",
        "copyright",
        "holder",
        "version",
    ]
)
"""Words with no full stop, for a title or a lead-in Punkt has no reason to cut."""
SPACE = st.sampled_from(["", " ", "\t", "  ", "\r"])
BLANK = st.builds(lambda a, b: f"\n{a}\n{b}", SPACE, st.sampled_from(["", "\n", " \n"]))


@st.composite
def phrase(draw: st.DrawFn, stop: str = "", words_from: st.SearchStrategy[str] = WORD) -> str:
    words = draw(st.lists(words_from, min_size=1, max_size=9))
    return " ".join(words).capitalize() + stop


@st.composite
def paragraph(draw: st.DrawFn) -> str:
    """Sentences, hard-wrapped at a drawn width (single line breaks)."""
    text = " ".join(draw(st.lists(phrase("."), min_size=1, max_size=4)))
    width = draw(st.integers(20, 80))
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + len(word) >= width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "\n".join([*lines, line])


@st.composite
def heading(draw: st.DrawFn) -> str:
    title = draw(phrase(words_from=TITLE_WORD))
    kind = draw(st.sampled_from(["atx", "setext", "rst"]))
    if kind == "atx":
        return "#" * draw(st.integers(1, 6)) + " " + title
    mark = "=-" if kind == "setext" else "=-~^*+#_"
    return f"{title}\n{draw(st.sampled_from(mark)) * max(3, len(title))}"


@st.composite
def numbered_list(draw: st.DrawFn) -> str:
    items = draw(st.lists(phrase(draw(st.sampled_from(["", "."]))), min_size=1, max_size=5))
    start = draw(st.integers(1, 12))
    return "\n".join(f"{start + k}. {item}" for k, item in enumerate(items))


@st.composite
def lead_in(draw: st.DrawFn) -> str:
    return draw(st.sampled_from(["How to ", "To ", "", "The steps to "])) + draw(
        phrase(":", words_from=TITLE_WORD)
    )


@st.composite
def changelog(draw: st.DrawFn) -> str:
    version = f"{draw(st.integers(0, 9))}.{draw(st.integers(0, 30))}-{draw(st.integers(1, 4))}"
    entries = draw(st.lists(phrase(draw(st.sampled_from(["", "."]))), min_size=1, max_size=3))
    body = "\n".join(f"  * {e}" for e in entries)
    return (
        f"widget ({version}) unstable; urgency=medium\n\n{body}\n\n"
        " -- Jane Doe <jane@example.org>  Mon, 01 Jan 2024 10:00:00 +0000"
    )


BLOCK = st.one_of(paragraph(), heading(), numbered_list(), lead_in(), changelog())


@st.composite
def document(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A document of blocks joined by blank lines, and its blocks."""
    blocks = draw(st.lists(BLOCK, min_size=1, max_size=8))
    text = blocks[0]
    for block in blocks[1:]:
        text += draw(BLANK) + block
    return draw(SPACE) + text + draw(st.sampled_from(["", "\n", "\n\n"])), blocks


@RUNS
@given(document())
def test_no_sentence_of_a_generated_document_holds_a_blank_line_or_drops_a_character(
    drawn: tuple[str, list[str]],
) -> None:
    text, blocks = drawn
    sentences = assert_invariants(text)
    assert len(sentences) >= len(blocks)  # each block ends a sentence


@RUNS
@given(document())
def test_every_heading_line_and_lead_in_line_is_a_sentence_of_its_own(
    drawn: tuple[str, list[str]],
) -> None:
    text, blocks = drawn
    sentences = split_sentences(text)
    for block in blocks:
        if block.startswith("#") or block.endswith(":"):
            assert block in sentences


@RUNS
@given(heading(), st.one_of(paragraph(), numbered_list()))
def test_a_heading_on_the_line_above_text_ends_its_own_sentence(title: str, body: str) -> None:
    text = f"{title}\n{body}"
    sentences = assert_invariants(text)
    assert sentences[0] == title
    assert "".join("".join(s.split()) for s in sentences[1:]) == "".join(body.split())


@RUNS
@given(paragraph(), st.sampled_from(["\n", " \n"]), paragraph())
def test_a_single_line_break_in_prose_ends_no_sentence(first: str, gap: str, second: str) -> None:
    """The rule must not fire: a wrapped line of prose is no layout break."""
    text = f"{first}{gap}{second}"
    assert [b for b in layout_breaks(text) if 0 < b < len(text)] == []
    assert sentence_spans(text) == sentence_spans(text.replace("\n", " "))


# --- the shapes of the trial and the rule's edges ---------------------------------

TRIAL = (
    "# Deploying the Widget Service\n\n## Overview\n\nThe Widget Service stores widgets in a "
    "database. It runs on Linux.\n\nHow to rotate the signing key:\n\n1. Generate a new key.\n"
    "2. Upload it."
)


def test_the_new_user_trial_document_gives_each_heading_and_lead_in_alone() -> None:
    assert assert_invariants(TRIAL) == [
        "# Deploying the Widget Service",
        "## Overview",
        "The Widget Service stores widgets in a database.",
        "It runs on Linux.",
        "How to rotate the signing key:",
        "1. Generate a new key.",
        "2. Upload it.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a NEWS file: ATX headings on the lines next to a list
        (
            "## [0.3.3] - 2019-07-24\n### Added\n- new helper function",
            ["## [0.3.3] - 2019-07-24", "### Added", "- new helper function"],
        ),
        # a reStructuredText changelog: the underline ends the title
        (
            "Breaking Changes\n^^^^^^^^^^^^^^^^\n* Made develop install to the user site",
            ["Breaking Changes\n^^^^^^^^^^^^^^^^", "* Made develop install to the user site"],
        ),
        (
            "Version 1.1.7\n~~~~~~~~~~~~~\nReleased: 2017-09-11",
            ["Version 1.1.7\n~~~~~~~~~~~~~", "Released: 2017-09-11"],
        ),
        # text, then a heading with no blank line between: the heading starts a sentence
        (
            "Text before it\n# Next part\nMore text.",
            ["Text before it", "# Next part", "More text."],
        ),
        ("Title\r\n\r\nBody text.", ["Title", "Body text."]),
        ("Title\n \t \nBody text.", ["Title", "Body text."]),
    ],
)
def test_the_layout_ends_a_sentence(text: str, expected: list[str]) -> None:
    assert assert_invariants(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Issue\n#16 is fixed by the patch.",  # a number sign, no heading
        "The file\n#include <stdio.h> is read first.",
        "One\n-- two words joined\nby a dash.",  # two dashes are no underline
        "The licence is granted\nto anyone who asks.",  # a wrapped line
        "The price rose\n*** sharply in March.",  # a mark followed by text on its line
    ],
)
def test_no_layout_break_inside_a_line_or_on_a_wrapped_line(text: str) -> None:
    assert [b for b in layout_breaks(text) if 0 < b < len(text)] == []
    assert len(assert_invariants(text)) == 1


def test_an_empty_or_blank_text_has_no_sentence() -> None:
    assert split_sentences("") == split_sentences(" \n\n \t") == []
    assert sentence_spans("\n\n") == []


# --- real text --------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_text_keeps_every_guarantee(path: Path) -> None:
    if not path.is_file():
        pytest.skip(f"{path} is absent here")
    text = path.read_text(encoding="utf-8", errors="replace")
    sentences = assert_invariants(text)
    assert len(sentences) >= len([b for b in BLANK_LINE.split(text) if b.strip()])


def test_real_text_is_there_or_skipped_cleanly() -> None:
    """The real-text test above reads something on any machine with the package's data."""
    assert any(p.suffix == ".md" for p in REAL)
