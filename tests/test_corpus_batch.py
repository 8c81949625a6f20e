"""``corpus --batch``: the same corpus through the providers' batch APIs, against loopback
fakes of Anthropic's Message Batches and OpenAI's Batch API: the same chunks at half the
cost, batch ids kept in the ledger so a killed run re-attaches, cancelled batches retried."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic_chunking._loopback import (
    FakeBatchAPIServer,
    FakeMessageBatchesServer,
    FakeMessagesServer,
    ParagraphModel,
)
from agentic_chunking.cli import main
from agentic_chunking.corpus import Ledger, read_records

KEY = "sk-ant-batch-corpus-key"


def _counts(path: Path) -> dict[str, int]:
    with Ledger(path) as ledger:
        return ledger.counts()


def _batches(path: Path) -> list[tuple[str, str, list[str]]]:
    with Ledger(path) as ledger:
        return list(ledger.batches())


FAST = ["--batch-poll", "0.05", "--quiet"]


def _corpus(tmp_path: Path, documents: int = 6) -> Path:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps(
                {
                    "document_id": f"doc-{n}",
                    "text": f"Alpha {n} is a fact.\n\nBeta {n} is one more.\n\nAlpha {n} again.",
                    "metadata": {"n": n},
                }
            )
            + "\n"
            for n in range(documents)
        ),
        encoding="utf-8",
    )
    return corpus


def _cost(summary: str) -> float:
    found = re.search(r"tokens, \$([0-9.]+)", summary)
    assert found, summary
    return float(found[1])


@pytest.fixture
def anthropic_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    yield monkeypatch


def test_batch_gives_the_synchronous_chunks_at_half_the_cost(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path)
    with FakeMessagesServer(handler=ParagraphModel()) as server:
        anthropic_env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert main(["corpus", str(corpus), "-o", str(tmp_path / "sync.jsonl"), "--quiet"]) == 0
    sync_cost = _cost(capsys.readouterr().err.splitlines()[-1])
    with FakeMessageBatchesServer(handler=ParagraphModel(), polls_to_end=2) as server:
        anthropic_env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        out = tmp_path / "batch.jsonl"
        assert main(["corpus", str(corpus), "-o", str(out), "--batch", *FAST]) == 0
        assert len(server.book.batches) == 2  # one round of extraction, one of grouping
        assert set(server.book.submissions.values()) == {1}
    assert out.read_bytes() == (tmp_path / "sync.jsonl").read_bytes()
    batch_cost = _cost(capsys.readouterr().err.splitlines()[-1])
    assert batch_cost == pytest.approx(sync_cost / 2, rel=0.01)
    assert _batches(tmp_path / "batch.ledger.sqlite") == []  # all ended, all in


def test_batch_on_an_openai_compatible_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path, 4)
    with FakeBatchAPIServer(handler=ParagraphModel()) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-batch-test")
        out = tmp_path / "out.jsonl"
        command = ["corpus", str(corpus), "-o", str(out), "--batch", *FAST]
        assert main([*command, "--model", "openai:gpt-4.1", "--base-url", server.base_url]) == 0
        assert len(server.book.batches) == 2
    assert len(read_records(out)) == 8


def test_a_cancelled_batch_is_retried_in_the_next_round(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path, 3)
    with FakeMessageBatchesServer(handler=ParagraphModel(), cancel_batches=[1]) as server:
        anthropic_env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        out = tmp_path / "out.jsonl"
        assert main(["corpus", str(corpus), "-o", str(out), "--batch", *FAST]) == 0
        assert len(server.book.batches) == 3  # the cancelled one, its retry, the grouping
    assert len(read_records(out)) == 6


def test_a_run_killed_while_its_batch_is_in_flight_reattaches_to_it(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch
) -> None:
    corpus, out = _corpus(tmp_path, 5), tmp_path / "out.jsonl"
    with FakeMessageBatchesServer(handler=ParagraphModel(), polls_to_end=10**6) as server:
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agentic_chunking",
                "corpus",
                str(corpus),
                "-o",
                str(out),
                "--batch",
                *FAST,
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        ledger = tmp_path / "out.ledger.sqlite"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and child.poll() is None:
            if ledger.exists() and _batches(ledger):
                break
            time.sleep(0.1)
        child.kill()
        _, err = child.communicate(timeout=30)
        kept = _batches(ledger)
        assert len(kept) == 1, err
        assert not out.exists()
        server.book.polls_to_end = 1  # the provider finishes the batch after the kill
        anthropic_env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert main(["corpus", str(corpus), "-o", str(out), "--batch", *FAST]) == 0
        assert set(server.book.submissions.values()) == {1}  # nothing submitted twice
        assert len(server.book.batches) == 2  # the attached extraction batch, then grouping
    assert len(read_records(out)) == 10
    assert _batches(ledger) == []


def test_batch_refuses_what_does_not_go_with_it(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, out = _corpus(tmp_path, 1), str(tmp_path / "out.jsonl")
    assert main(["corpus", str(corpus), "-o", out, "--batch", "--engine", "ray"]) == 2
    assert "--batch runs on the local engine" in capsys.readouterr().err
    assert main(["corpus", str(corpus), "-o", out, "--batch", "--requests-per-minute", "5"]) == 2
    assert "leave out --requests-per-minute with --batch" in capsys.readouterr().err


def test_the_dry_run_shows_the_batch_saving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path, 3)
    assert (
        main(["corpus", str(corpus), "-o", str(tmp_path / "o.jsonl"), "--dry-run", "--batch"]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    found = re.search(r"\$([0-9.]+) instead of \$([0-9.]+) synchronously", lines[-1])
    assert found and float(found[1]) == pytest.approx(float(found[2]) / 2, abs=1e-4)


def test_a_batch_of_a_provider_not_configured_is_named_and_the_run_goes_on(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ledger naming a batch of a provider the run has no key for failed the run."""
    anthropic_env.delenv("OPENAI_API_KEY", raising=False)
    corpus, out = _corpus(tmp_path, 2), tmp_path / "out.jsonl"
    with Ledger(tmp_path / "out.ledger.sqlite") as ledger:
        ledger.add_batch("openai", "batch_elsewhere", ["0" * 64, "1" * 64])
    with FakeMessageBatchesServer(handler=ParagraphModel(), polls_to_end=1) as server:
        anthropic_env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert main(["corpus", str(corpus), "-o", str(out), "--batch", *FAST]) == 0
    err = capsys.readouterr().err
    assert "the openai batch batch_elsewhere (2 requests), submitted by an earlier run" in err
    assert "rerun the same command with --batch and OPENAI_API_KEY set" in err
    assert len(read_records(out)) == 4
    assert [b[1] for b in _batches(tmp_path / "out.ledger.sqlite")] == ["batch_elsewhere"]


def test_a_rerun_without_batch_pays_for_no_request_of_a_batch_in_flight(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A kill while a batch was in flight, then a rerun without --batch, paid every request
    of that batch again without naming it. Now the batch is named with the way to collect
    it, and its requests' documents fail instead of being paid for twice."""
    corpus, out = _corpus(tmp_path, 3), tmp_path / "out.jsonl"
    ledger = tmp_path / "out.ledger.sqlite"
    with FakeMessageBatchesServer(handler=ParagraphModel(), polls_to_end=10**6) as server:
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        command = [sys.executable, "-m", "agentic_chunking", "corpus", str(corpus), "-o"]
        child = subprocess.Popen(
            [*command, str(out), "--batch", *FAST],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and child.poll() is None:
            if ledger.exists() and _batches(ledger):
                break
            time.sleep(0.1)
        child.kill()
        child.communicate(timeout=30)
    (batch_id,) = [b[1] for b in _batches(ledger)]
    with FakeMessagesServer(handler=ParagraphModel()) as sync:
        anthropic_env.setenv("ANTHROPIC_BASE_URL", sync.base_url)
        assert main(["corpus", str(corpus), "-o", str(out), "--quiet"]) == 1
        assert sync.requests == []  # every extraction is in the batch: none paid twice
    err = capsys.readouterr().err
    assert f"the anthropic batch {batch_id} (3 requests), submitted by an earlier run" in err
    assert "rerun the same command with --batch and ANTHROPIC_API_KEY set" in err
    failures = read_records(tmp_path / "out.failures.jsonl")
    assert len(failures) == 3 and all(batch_id in f["error"] for f in failures)
    assert _batches(ledger) != []  # kept, for the rerun with --batch to collect


# -- a batch whose retrieval is refused for good: never submitted again ------------------


def _stderr_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().err.splitlines()


@pytest.mark.parametrize(
    ("provider", "status"), [("anthropic", 404), ("openai", 404), ("anthropic", 403)]
)
def test_a_proxy_that_refuses_batch_polls_stops_the_run_and_pays_for_nothing_twice(
    tmp_path: Path,
    anthropic_env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    provider: str,
    status: int,
) -> None:
    """A proxy answered every batch poll with 404: the run submitted the same request again
    and again (116 paid batches of one request in 240 s, no message). Now the run stops at
    the first refused poll with exit 2 and one line naming the batch, the status and the
    way out; every request was submitted once, and the ledger keeps the batch."""
    corpus, out = _corpus(tmp_path, 3), tmp_path / "out.jsonl"
    kind = FakeBatchAPIServer if provider == "openai" else FakeMessageBatchesServer
    model = ["--model", "openai:gpt-4.1"] if provider == "openai" else []
    anthropic_env.setenv("OPENAI_API_KEY", "sk-openai-batch-test")
    with kind(
        handler=ParagraphModel(), poll_fault=lambda batch_id, poll: status, lifetime_s=30
    ) as server:
        # --timeout: the old code's loop, once the fake's lifetime ends, fails in seconds
        command = ["corpus", str(corpus), "-o", str(out), "--batch", *FAST, *model]
        command += ["--timeout", "5"]
        capsys.readouterr()
        assert main([*command, "--base-url", server.base_url]) == 2
        assert len(server.book.batches) == 1
        assert set(server.book.submissions.values()) == {1}  # paid twice: none
        (batch_id,) = server.book.batches
    lines = _stderr_lines(capsys)
    assert len(lines) == 1, lines
    (line,) = lines
    variable = "OPENAI_BASE_URL" if provider == "openai" else "ANTHROPIC_BASE_URL"
    for said in (
        f"agentic-chunking corpus: error: the {provider} batch {batch_id} (3 requests) could "
        f"not be retrieved: HTTP {status}",
        f"--base-url or {variable}",
        "any proxy in between",
        "rerun the same command to collect the batch",
        f"rerun with --forget-batch {batch_id}",
        f"{out} was left as it was",
    ):
        assert said in line
    assert "Traceback" not in line
    assert [b[1] for b in _batches(tmp_path / "out.ledger.sqlite")] == [batch_id]
    assert not out.exists()


def test_once_the_proxy_passes_polls_the_rerun_collects_the_batch_it_kept(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, out = _corpus(tmp_path, 3), tmp_path / "out.jsonl"
    with FakeMessageBatchesServer(
        handler=ParagraphModel(), poll_fault=lambda batch_id, poll: 404, lifetime_s=30
    ) as server:
        anthropic_env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        command = ["corpus", str(corpus), "-o", str(out), "--batch", *FAST]
        assert main(command) == 2
        server.book.poll_fault = None  # the proxy fixed
        assert main(command) == 0
        assert set(server.book.submissions.values()) == {1}
        assert len(server.book.batches) == 2  # the extraction batch collected, the grouping
    assert len(read_records(out)) == 6
    assert _batches(tmp_path / "out.ledger.sqlite") == []


def test_forget_batch_gives_up_a_batch_the_provider_no_longer_has_and_pays_again(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, out = _corpus(tmp_path, 3), tmp_path / "out.jsonl"
    with FakeMessageBatchesServer(
        handler=ParagraphModel(), poll_fault=lambda batch_id, poll: 404, lifetime_s=30
    ) as server:
        anthropic_env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        command = ["corpus", str(corpus), "-o", str(out), "--batch", *FAST]
        assert main(command) == 2
        (batch_id,) = server.book.batches
    with FakeMessageBatchesServer(handler=ParagraphModel()) as elsewhere:  # it has no such batch
        anthropic_env.setenv("ANTHROPIC_BASE_URL", elsewhere.base_url)
        assert main(command) == 2  # a rerun alone never pays again
        assert elsewhere.book.submissions == {}
        capsys.readouterr()
        assert main([*command, "--forget-batch", batch_id, "--forget-batch", "msgbatch_x"]) == 0
        assert set(elsewhere.book.submissions.values()) == {1}
    err = capsys.readouterr().err
    assert f"forgot the anthropic batch {batch_id} (3 requests)" in err
    assert "sent again and paid again" in err
    assert "--forget-batch msgbatch_x: the ledger holds no such batch" in err
    assert len(read_records(out)) == 6
    assert _batches(tmp_path / "out.ledger.sqlite") == []


def test_transient_poll_failures_are_retried_and_nothing_is_sent_twice(
    tmp_path: Path, anthropic_env: pytest.MonkeyPatch
) -> None:
    corpus, out = _corpus(tmp_path, 3), tmp_path / "out.jsonl"
    refused = {503: 1, 429: 2}  # the first poll of each batch 503, the second 429

    def flaky(batch_id: str, poll: int) -> int | None:
        return next((s for s, n in refused.items() if n == poll), None)

    with FakeMessageBatchesServer(handler=ParagraphModel(), poll_fault=flaky) as server:
        anthropic_env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert main(["corpus", str(corpus), "-o", str(out), "--batch", *FAST]) == 0
        assert set(server.book.submissions.values()) == {1}
        assert all(n >= 2 for n in server.book.refused_polls.values())
    assert len(read_records(out)) == 6


# -- progress while a batch is in flight ------------------------------------------------


def test_off_a_terminal_a_batch_in_flight_is_shown_at_least_every_interval(
    tmp_path: Path,
    anthropic_env: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import agentic_chunking.cli._progress as progress

    anthropic_env.setattr(progress, "PROGRESS_EVERY_S", 0.05)
    corpus, out = _corpus(tmp_path, 3), tmp_path / "out.jsonl"
    with FakeMessageBatchesServer(handler=ParagraphModel(), polls_to_end=8) as server:
        anthropic_env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert main(["corpus", str(corpus), "-o", str(out), "--batch", "--batch-poll", "0.1"]) == 0
    err = capsys.readouterr().err
    waiting = [
        line
        for line in err.splitlines()
        if line.startswith("agentic-chunking corpus: 0 of 3 documents")
        and "; batches: 0 of 3 requests answered, 1 in flight (" in line
    ]
    assert waiting, err
    assert "\r" not in err and "<" not in err  # no bar, no ETA


class _Terminal:
    """A stream that says it is a terminal (for the bar), keeping what was written."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("batched", [False, True])
def test_the_bar_shows_an_eta_except_under_batch(batched: bool) -> None:
    """Under --batch the bar's ETA said 20 min 40 s before the run ended: documents end in
    bursts, when a round's batch does, and their rate says nothing of the next batch."""
    from agentic_chunking.cli._corpus_display import CorpusDisplay
    from agentic_chunking.corpus import DocumentResult

    stream = _Terminal()
    tally = CorpusDisplay(total=4, quiet=False, batched=batched, stream=stream)  # type: ignore[arg-type]
    for n in range(2):
        time.sleep(0.15)  # past tqdm's least interval between two redraws
        tally.add(DocumentResult(f"d{n}", n, "done"))
    tally.close()
    assert "2/4" in stream.text
    assert ("<" in stream.text) is not batched  # tqdm's ETA: "[elapsed<remaining, rate]"
