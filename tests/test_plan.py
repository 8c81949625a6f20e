"""The run plan (``chunk --dry-run``) and the progress tally."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentic_chunking import AgenticChunkInput, CallUsage
from agentic_chunking.cli import main
from agentic_chunking.client import PRICES_PER_MILLION
from agentic_chunking.pipeline import PipelineOptions
from agentic_chunking.pipeline._grouping import window_capacity
from agentic_chunking.pipeline._plan import ProgressTally, plan_run

SENTENCE = "Glaciers carve deep valleys into the rock of the mountains over many centuries. "


def inputs(chunks: int, sentences: int) -> list[AgenticChunkInput]:
    return [AgenticChunkInput(f"C{i}", SENTENCE * sentences) for i in range(chunks)]


def test_a_short_document_is_one_window_and_priced() -> None:
    plan = plan_run(inputs(2, 3), PipelineOptions(model="claude-3-7-sonnet-20250219"))
    assert (plan.batches, plan.input_chunks, plan.grouping_windows) == (1, 2, 1)  # packed
    assert plan.estimated_propositions == 10  # 6 sentences x 1.57, rounded up
    price_in, price_out = PRICES_PER_MILLION["claude-3-7-sonnet-20250219"]
    expected = plan.estimated_input_tokens * price_in + plan.estimated_output_tokens * price_out
    assert plan.estimated_cost_usd == pytest.approx(expected / 1e6)
    assert plan.lines()[3] == "grouping: 1 window(s)"


def test_a_long_document_plans_windows_and_a_merge_and_an_unknown_price_says_so() -> None:
    plan = plan_run(inputs(200, 20), PipelineOptions(model="my-model"))
    capacity = window_capacity(4000)
    assert plan.estimated_propositions == 6280
    assert plan.grouping_windows == -(-6280 // capacity) > 1
    assert "+ 1 merge call" in plan.lines()[3]
    assert plan.estimated_cost_usd is None
    assert plan.lines()[-1] == "cost (estimate): unknown (no price known for model 'my-model')"
    shorter = plan_run(inputs(100, 20), PipelineOptions(model="m"))
    assert shorter.estimated_input_tokens < plan.estimated_input_tokens
    assert shorter.estimated_output_tokens < plan.estimated_output_tokens


def test_dry_run_prints_the_plan_without_a_key_or_a_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # nothing listens here
    path = tmp_path / "doc.md"
    path.write_text(f"{SENTENCE * 3}\n\n{SENTENCE * 2}\n", encoding="utf-8")
    assert main(["chunk", str(path), "--dry-run", "--model", "claude-sonnet-4-5"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == f"plan for {path} (no model called):"
    assert "extraction: 1 batches from 2 input chunks" in out and "cost (estimate): $" in out
    assert err == ""


def test_dry_run_through_the_console_entry_point(tmp_path: Path) -> None:
    path = tmp_path / "doc.txt"
    path.write_text(SENTENCE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "agentic_chunking", "chunk", str(path), "--dry-run"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "grouping: 1 window(s)" in done.stdout


def test_the_tally_counts_per_stage_and_adds_tokens() -> None:
    lines: list[str] = []
    tally = ProgressTally(lines.append)
    call = CallUsage("extraction", "m", 1200, 300, "end_turn", 0.1, batch=1)
    tally.done("extraction batch", 2, "batch 1", "4 propositions", [call])
    tally.done("extraction batch", 2, "batch 2", "failed", [call, call])
    assert lines == [
        "extraction batch 1/2 done (batch 1): 4 propositions; tokens so far 1,200 in / 300 out",
        "extraction batch 2/2 done (batch 2): failed; tokens so far 3,600 in / 900 out",
    ]
