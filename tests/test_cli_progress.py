"""chunk's stderr: a bar on a terminal, plain lines otherwise, --quiet, warnings grouped by
kind with the first three examples, one summary line; a theme above the size limit
split into parts."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking import AgenticChunkInput, chunk_text_agentic
from agentic_chunking._loopback import FakeMessagesServer, user_text
from agentic_chunking._models import AgenticResponse
from agentic_chunking._warning import SPLIT_THEME, PipelineWarning
from agentic_chunking.cli import main
from agentic_chunking.cli._progress import RunDisplay
from agentic_chunking.client import make_client
from agentic_chunking.pipeline._plan import ProgressEvent
from agentic_chunking.pipeline._prompts import load_prompt

KEY = "sk-ant-progress-test-key"
PARAGRAPHS = [f"Fact number {i} is true." for i in range(1, 6)]
ONE_PARAGRAPH_A_BATCH = ["--max-tokens-per-batch", "6"]
"""24 characters a batch: each paragraph is one call; output chunks up to the default limit,
which no longer follows the batch limit."""


def doubling_model(body: dict[str, Any]) -> str:
    """Each paragraph comes back twice (a certain duplicate); one theme for all."""
    text = user_text(body)
    if body["system"] == load_prompt("grouping").text:
        facts = [line.split(". ", 1)[1] for line in text.splitlines()[1:-1]]
        return json.dumps([{"category": "Facts", "facts": facts}])
    paragraphs = text.removeprefix("<text>\n").removesuffix("\n</text>").split("\n\n")
    return json.dumps([p for p in paragraphs for _ in range(2)])


@pytest.fixture
def document(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    path = tmp_path / "doc.md"
    path.write_text("\n\n".join(PARAGRAPHS), encoding="utf-8")
    with FakeMessagesServer(handler=doubling_model) as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        yield path


def test_without_a_terminal_each_call_is_a_plain_line_then_warnings_then_a_summary(
    document: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    argv = ["chunk", str(document), "-o", str(out), "--model", "claude-sonnet-4-6"]
    assert main([*argv, *ONE_PARAGRAPH_A_BATCH]) == 0
    err = capsys.readouterr().err.splitlines()
    calls = [line for line in err if "extraction batch" in line]
    assert len(calls) == 5 and all("; cost so far $" in line for line in calls)
    assert "\r" not in "".join(err)  # no bar drawn into a log
    # five warnings of one kind: the count, three examples, the rest counted
    start = err.index("agentic-chunking chunk: warning: 5 duplicates merged:")
    examples = err[start + 1 : start + 4]
    assert all(line.startswith("agentic-chunking chunk:   - duplicate merged") for line in examples)
    assert "... and 2 more (duplicate_merged; all are in" in err[start + 4]
    assert len(json.loads(out.read_text())["Warnings"]) == 5  # the whole list in the file
    summary = err[-1]
    assert summary.startswith("agentic-chunking chunk: done: 1 chunk, 5 propositions from 5 ")
    assert "6 calls" in summary and "5 warnings (5 duplicates merged)" in summary
    assert f"written to {out}" in summary and "($" in summary


def test_quiet_prints_only_the_summary_line(
    document: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    assert main(["chunk", str(document), "-o", str(out), "--quiet", *ONE_PARAGRAPH_A_BATCH]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("agentic-chunking chunk: done: ")
    assert "5 warnings (5 duplicates merged)" in err[0]
    assert len(json.loads(out.read_text())["Warnings"]) == 5


def test_few_warnings_are_all_shown_without_a_more_line() -> None:
    stream = io.StringIO()
    display = RunDisplay(model="m", prefix="p: ", stream=stream)
    warnings = [PipelineWarning("possible_duplicate", f"pair {n}") for n in range(3)]
    display.warnings(warnings, "out.json")
    assert stream.getvalue().splitlines() == [
        "p: warning: 3 possible duplicates kept:",
        "p:   - pair 0",
        "p:   - pair 1",
        "p:   - pair 2",
    ]


def test_warnings_are_grouped_by_kind_not_by_wording() -> None:
    stream = io.StringIO()
    display = RunDisplay(model="m", prefix="", stream=stream)
    display.warnings(
        [
            PipelineWarning(SPLIT_THEME, "gave no proposition " + "x" * 500),  # misleading
            PipelineWarning("no_proposition", "something else entirely"),
        ],
        "out.json",
    )
    lines = stream.getvalue().splitlines()
    assert "warning: 1 theme split into parts:" in lines
    assert "warning: 1 batch gave no proposition:" in lines
    assert max(len(line) for line in lines) < 200  # a 500-character message is shortened


def test_on_a_terminal_a_bar_shows_progress_eta_and_cost() -> None:
    stream = io.StringIO()
    display = RunDisplay(model="claude-sonnet-4-6", prefix="p: ", stream=stream, bar=True)
    for done in (1, 2):
        display.event(ProgressEvent("extraction batch", done, 4, "b", "ok", 1000 * done, 10))
    display.say("grouping 12 propositions")
    display.close()
    drawn = stream.getvalue()
    assert "extraction batch" in drawn and "2/4" in drawn and "call" in drawn
    assert "<" in drawn  # tqdm's elapsed<remaining: the ETA
    assert "2,000 in / 10 out, $0.0062" in drawn
    assert "p: grouping 12 propositions" in drawn
    assert "tokens so far" not in drawn  # no plain line besides the bar


def test_quiet_shows_no_bar_and_no_line() -> None:
    stream = io.StringIO()
    display = RunDisplay(model="m", prefix="", stream=stream, quiet=True)
    display.event(ProgressEvent("extraction batch", 1, 1, "b", "ok", 1, 1))
    display.say("still waiting")
    display.warnings([PipelineWarning("other", "w")], "out")
    assert stream.getvalue() == ""


def test_the_summary_of_a_failed_run_says_failed_and_where_the_document_is() -> None:
    stream = io.StringIO()
    display = RunDisplay(model="unknown-model", prefix="", stream=stream, quiet=True)
    line = display.summary(AgenticResponse.failure("cut"), "OUT.failed.json", 3)
    assert line.startswith("failed; 0 calls, 0 in / 0 out tokens; no warnings; OUT.failed.json")
    assert stream.getvalue() == line + "\n"


def _run_with_chunk_limit(limit: int | None) -> AgenticResponse:
    facts = [f"Fact number {i} is true and somewhat long." for i in range(1, 9)]

    def model(body: dict[str, Any]) -> str:
        if body["system"] == load_prompt("grouping").text:
            return json.dumps([{"category": "All", "fact_ids": list(range(1, 9))}])
        return json.dumps(facts)

    with (
        FakeMessagesServer(handler=model) as server,
        make_client(api_key=KEY, base_url=server.base_url, max_retries=0) as client,
    ):
        return chunk_text_agentic(
            [AgenticChunkInput("C1", " ".join(facts))],
            "D",
            client=client,
            max_chunk_tokens=limit,
        )


def test_a_theme_above_the_size_limit_is_written_in_parts_and_warned() -> None:
    response = _run_with_chunk_limit(50)
    assert response.is_success
    whole = _run_with_chunk_limit(None).chunks[0]
    assert whole.token_estimate > 50
    [warning] = [w for w in response.warnings if w.kind == SPLIT_THEME]
    ids = [c.chunk_id for c in response.chunks]
    assert len(ids) > 1 and ids == [f"D-{n:04d}" for n in range(1, len(ids) + 1)]
    assert warning.data == {
        "category": "All",
        "tokens": whole.token_estimate,
        "limit": 50,
        "chunk_ids": ids,
    }
    assert f"about {whole.token_estimate:,} tokens, above the limit of 50" in warning.message
    assert all(c.token_estimate <= 50 and c.thematic_category == "All" for c in response.chunks)
    assert [(c.part, c.part_count) for c in response.chunks] == [
        (n, len(ids)) for n in range(1, len(ids) + 1)
    ]
    assert [p for c in response.chunks for p in c.propositions] == list(whole.propositions)


def test_an_output_chunk_within_the_limit_is_not_split() -> None:
    default = _run_with_chunk_limit(None)  # the limit defaults to the batch limit, 2000
    assert default.is_success and not default.warnings
    assert (default.chunks[0].part, default.chunks[0].part_count) == (None, None)
    exact = _run_with_chunk_limit(default.chunks[0].token_estimate)
    assert not exact.warnings and len(exact.chunks) == 1


def test_a_proposition_above_the_size_limit_fails_the_run_naming_it() -> None:
    response = _run_with_chunk_limit(5)
    assert not response.is_success and not response.chunks
    assert "'Fact number 1 is true and somewhat long.'" in response.error_detail
    assert "max_chunk_tokens 5" in response.error_detail and "at least 10" in response.error_detail
    assert [c.stage for c in response.calls] == ["extraction"]  # no grouping paid for
    assert response.extracted[0].propositions[0].startswith("Fact number 1")


def test_a_heartbeat_repeats_the_status_while_a_step_is_silent() -> None:
    import io
    import time

    from agentic_chunking.cli._progress import Heartbeat

    stream = io.StringIO()
    with Heartbeat("cmd: ", every=0.05, stream=stream) as heartbeat:
        heartbeat.say("level4")
        heartbeat.status("still on level4: 640 texts embedded so far")
        deadline = time.monotonic() + 10
        while "640 texts" not in stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "cmd: level4"
    assert lines[1].startswith("cmd: still on level4: 640 texts embedded so far (")
    assert lines[1].endswith(" s in)")


def test_a_quiet_heartbeat_prints_nothing() -> None:
    import io
    import time

    from agentic_chunking.cli._progress import Heartbeat

    stream = io.StringIO()
    with Heartbeat("cmd: ", every=0.01, stream=stream, quiet=True) as heartbeat:
        heartbeat.say("level4")
        time.sleep(0.05)
    assert stream.getvalue() == ""


def test_a_heartbeat_whose_reader_went_away_falls_silent_without_a_trace() -> None:
    """`corpus ... 2>&1 | head -1`: the beat's next line meets a closed pipe. It must not
    end the beat's thread with a traceback (printed on that same closed stream, or on a
    log); the command's own next line meets the pipe and ends with 141."""
    import threading
    import time

    from agentic_chunking.cli._progress import Heartbeat

    class Gone:
        writes = 0

        def write(self, text: str) -> int:
            Gone.writes += 1
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    errors: list[BaseException] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: errors.append(args.exc_value)  # type: ignore[assignment,misc]
    try:
        with Heartbeat("cmd: ", every=0.01, stream=Gone()) as heartbeat:  # type: ignore[arg-type]
            heartbeat.status("working")
            time.sleep(0.2)
            heartbeat.say("still here")  # quiet from the first failure on: no raise
    finally:
        threading.excepthook = previous
    assert errors == []
    assert Gone.writes == 1  # one attempt, then silence
