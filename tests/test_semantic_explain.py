"""render_explanation: the text plot that --explain prints."""

from __future__ import annotations

from agentic_chunking.semantic import HashingEmbedder, SemanticSplitter, render_explanation

CATS = "Cats purr and cats sleep. Cats purr and cats eat. Cats purr and cats play. "
VOLTS = "Battery cells store charge. Battery cells store heat. Battery cells store power. "


def rows(plot: str) -> list[str]:
    return [line for line in plot.splitlines() if line[:4].strip().isdigit()]


def test_threshold_mode_marks_the_threshold_column_and_the_cut() -> None:
    text = CATS + VOLTS
    splitter = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.5, similarity_window=1)
    plot = render_explanation(splitter.explain(text), text, width=20)
    lines = rows(plot)
    assert len(lines) == 6
    assert "a cut needs sim < 0.500" in plot
    assert [line.split()[0] for line in lines if " CUT " in line] == ["3"]
    # The bars run from 0 to 1 over 20 columns: the threshold is column 10.
    bars = [line.split("|")[1] for line in lines]
    assert all(len(bar) == 20 for bar in bars)
    assert bars[0] == " " * 10 + ":" + " " * 9  # segment 0 has no score
    assert bars[3].startswith(" " * 10 + ":")  # similarity 0 across the topic shift
    assert "Battery cells store charge." in lines[3]


def test_a_cut_made_by_the_token_limit_is_marked_size() -> None:
    text = CATS + VOLTS
    splitter = SemanticSplitter(
        HashingEmbedder(), similarity_threshold=-1.0, max_chunk_token_size=20
    )
    plot = render_explanation(splitter.explain(text), text)
    assert " CUT " not in plot
    assert sum(" size " in line for line in rows(plot)) == len(splitter.split(text)) - 1 > 0


def test_a_curve_without_a_valley_says_so_and_long_segments_are_shortened() -> None:
    text = ("A long sentence about the weather that goes on and on for a while. " * 6).strip()
    plot = render_explanation(SemanticSplitter(HashingEmbedder()).explain(text), text)
    assert "no valley in the curve, so no cut" in plot
    assert all(line.endswith("...") for line in rows(plot))
    assert "1 semantic groups, 1 chunks" in plot


def test_an_empty_text_gives_only_the_header() -> None:
    plot = render_explanation(SemanticSplitter(HashingEmbedder()).explain("  "), "  ")
    assert rows(plot) == [] and "0 segments, 0 semantic groups, 0 chunks" in plot


def test_the_summary_shows_only_the_lowest_places_lowest_first() -> None:
    text = (CATS + VOLTS) * 5
    splitter = SemanticSplitter(HashingEmbedder(), similarity_threshold=0.5, similarity_window=1)
    explanation = splitter.explain(text)
    full = rows(render_explanation(explanation, text))
    summary = render_explanation(explanation, text, lowest=3)
    lowest = rows(summary)
    assert len(full) == 30 and len(lowest) == 3
    scores = [float(line.split()[1]) for line in lowest]
    every = sorted(float(line.split()[1]) for line in full if line.split()[1] != ".")
    assert scores == every[:3]
    assert set(lowest) <= set(full)  # the same rows as the full curve draws
    assert "the 3 lowest-similarity places of 29" in summary
    assert "cuts: 9 semantic, 0 by the token limit" in summary
    # lowest=0: the summary alone.
    assert rows(render_explanation(explanation, text, lowest=0)) == []
