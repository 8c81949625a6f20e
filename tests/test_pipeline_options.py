"""One PipelineOptions: every caller passes the same record, the ledger's settings hash is
the one function's, a setting changed on the command line reaches it, and a ledger written
before the record existed resumes with no document redone."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking import AgenticChunkInput, InputError, chunk_text_agentic
from agentic_chunking._loopback import FakeMessagesServer, ParagraphModel
from agentic_chunking.cli import main
from agentic_chunking.cli._main import build_parser
from agentic_chunking.client import DEFAULT_MODEL, ModelClient
from agentic_chunking.corpus import Ledger, chunk_corpus, open_corpus, read_records
from agentic_chunking.pipeline import (
    PROMPT_VERSIONS,
    PipelineOptions,
    equivalent_sha256s,
    options_sha256,
)
from agentic_chunking.pipeline._options import OUTPUT_FIELDS

KEY = "sk-ant-options-test-key"

# Written by the code before PipelineOptions (``CorpusSettings(...).sha256()`` at commit
# 8c8e5b2), for the prompts below: what users' ledgers hold.
RECORDED_PROMPTS = {
    "extraction": "extraction-v2",
    "grouping": "grouping-v2",
    "grouping_merge": "grouping-merge-v1",
    "judge": "judge-v3",
}
OLD_CLI_DEFAULT = "cda9d5a108cea646d116b281a3ee6f735290d5fd34da96bc7ed4c2d3adfd44b5"
"""``corpus IN -o OUT`` with every default (the command named max_chunk_tokens 256)."""
OLD_LIBRARY_DEFAULT = "4afc4c3ef9586ec1bc5b42ca9e7e914407e06458bcc90d1e5327ead799a43177"
"""``CorpusSettings(model="claude-sonnet-4-6")``: max_chunk_tokens left None (the default)."""
OLD_EVERY_SETTING = "999d84c57f80b487db1779d7f9ec55ef4d921b0051787336b7bd0070a3ccd481"
"""``CorpusSettings("openai:gpt-4o-mini", 500, 3000, 2000, 100, 0)``."""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesServer]:
    with FakeMessagesServer(handler=ParagraphModel()) as running:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.base_url)
        monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
        yield running


def _folder(root: Path, count: int = 3) -> Path:
    folder = root / "docs"
    folder.mkdir()
    for n in range(1, count + 1):
        (folder / f"d{n}.txt").write_text(
            f"Alpha {n} is the first fact.\n\nBeta {n} is the second fact.\n", encoding="utf-8"
        )
    return folder


def _old_ledger(folder: Path, ledger_path: Path, settings_sha256: str) -> None:
    """A ledger as a run of the old code left it: every document of ``folder`` done with
    ``settings_sha256``, its records marked so that their reuse shows in the output."""
    with Ledger(ledger_path) as ledger:
        for document in open_corpus(folder).documents():
            ledger.record(
                document_id=document.document_id,
                document_sha256=document.document_sha256,
                settings_sha256=settings_sha256,
                status="done",
                records=[{"ChunkId": f"{document.document_id}-old", "MergedContent": "old"}],
                failure=None,
                calls=2,
                input_tokens=10,
                output_tokens=5,
                cost_usd=0.0,
            )


def test_the_hash_of_the_same_settings_is_what_the_old_code_stored() -> None:
    assert dict(sorted(PROMPT_VERSIONS.items())) == RECORDED_PROMPTS, (
        "a prompt changed: the recorded hashes below are for the prompts above (a new "
        "prompt rightly redoes every document); record them again from this code"
    )
    assert options_sha256(PipelineOptions(model=DEFAULT_MODEL)) == OLD_CLI_DEFAULT
    every = PipelineOptions(
        model="openai:gpt-4o-mini",
        max_tokens_per_batch=500,
        extraction_max_tokens=3000,
        grouping_max_tokens=2000,
        max_chunk_tokens=100,
        max_repair_attempts=0,
    )
    assert options_sha256(every) == OLD_EVERY_SETTING
    assert equivalent_sha256s(PipelineOptions(model=DEFAULT_MODEL)) == {
        OLD_CLI_DEFAULT,
        OLD_LIBRARY_DEFAULT,
    }
    assert equivalent_sha256s(every) == {OLD_EVERY_SETTING}  # no default left unnamed


def test_how_the_calls_are_made_is_not_hashed_and_every_output_setting_is() -> None:
    base = PipelineOptions(model=DEFAULT_MODEL)
    same = dataclasses.replace(
        base, max_concurrency=99, max_retries=0, timeout=5.0, base_url="http://x"
    )
    assert options_sha256(same) == options_sha256(base)
    changed = {
        "model": "claude-haiku-4-5",
        "max_tokens_per_batch": 999,
        "extraction_max_tokens": 999,
        "grouping_max_tokens": 999,
        "max_chunk_tokens": 999,
        "max_repair_attempts": 0,
    }
    assert set(changed) == set(OUTPUT_FIELDS)
    hashes = {options_sha256(dataclasses.replace(base, **{k: v})) for k, v in changed.items()}
    assert len(hashes) == len(changed) and options_sha256(base) not in hashes
    # the model as the run resolves it: named, or from the variable, hashes alike
    assert options_sha256(PipelineOptions()) == options_sha256(base)


@pytest.mark.parametrize("old_hash", [OLD_CLI_DEFAULT, OLD_LIBRARY_DEFAULT])
def test_a_ledger_the_old_code_wrote_resumes_on_the_command_line_with_no_document_redone(
    server: FakeMessagesServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    old_hash: str,
) -> None:
    folder = _folder(tmp_path)
    out = tmp_path / "out.jsonl"
    _old_ledger(folder, tmp_path / "out.ledger.sqlite", old_hash)
    assert main(["corpus", str(folder), "-o", str(out), "--quiet"]) == 0
    assert server.requests == []
    assert "0 done, 3 skipped (done before)" in capsys.readouterr().err
    assert [r["ChunkId"] for r in read_records(out)] == [f"d{n}.txt-old" for n in (1, 2, 3)]


def test_a_ledger_the_old_library_wrote_resumes_through_chunk_corpus(
    server: FakeMessagesServer, tmp_path: Path
) -> None:
    folder = _folder(tmp_path)
    _old_ledger(folder, tmp_path / "ledger.sqlite", OLD_LIBRARY_DEFAULT)
    with Ledger(tmp_path / "ledger.sqlite") as ledger, ModelClient() as client:
        results = list(
            chunk_corpus(
                open_corpus(folder).documents(),
                PipelineOptions(model=DEFAULT_MODEL),
                client=client,
                ledger=ledger,
            )
        )
    assert [r.status for r in results] == ["skipped"] * 3
    assert server.requests == []


def test_a_ledger_of_other_settings_is_redone_and_keeps_the_new_hash(
    server: FakeMessagesServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, 2)
    out = tmp_path / "out.jsonl"
    _old_ledger(folder, tmp_path / "out.ledger.sqlite", OLD_EVERY_SETTING)
    assert main(["corpus", str(folder), "-o", str(out), "--quiet"]) == 0
    assert "2 done, 0 skipped" in capsys.readouterr().err
    with Ledger(tmp_path / "out.ledger.sqlite") as ledger:
        entries = [ledger.finished(f"d{n}.txt") for n in (1, 2)]
    assert {e.settings_sha256 for e in entries if e is not None} == {OLD_CLI_DEFAULT}


SETTINGS_FLAGS = [
    ("--model", "claude-haiku-4-5", "model", "claude-haiku-4-5"),
    ("--max-tokens-per-batch", "700", "max_tokens_per_batch", 700),
    ("--extraction-max-tokens", "3000", "extraction_max_tokens", 3000),
    ("--grouping-max-tokens", "2000", "grouping_max_tokens", 2000),
    ("--max-chunk-tokens", "120", "max_chunk_tokens", 120),
]


@pytest.mark.parametrize(("flag", "value", "field", "expected"), SETTINGS_FLAGS)
def test_a_setting_changed_on_the_command_line_reaches_the_record_and_the_ledger_hash(
    server: FakeMessagesServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flag: str,
    value: str,
    field: str,
    expected: object,
) -> None:
    """``chunk`` and ``corpus`` build the same record from the same flags; the ledger keeps
    that record's hash, which the flag changed."""
    from agentic_chunking.pipeline import _outcome

    seen: list[PipelineOptions] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(args[2])
        return chunk_text_agentic(*args, **kwargs)

    # the one per-document call chunk and corpus make (pipeline.chunk_outcome)
    monkeypatch.setattr(_outcome, "chunk_text_agentic", spy)
    folder = _folder(tmp_path, 1)
    shared = [flag, value, "--max-concurrency", "2"]
    out = tmp_path / "out.jsonl"
    assert main(["corpus", str(folder), "-o", str(out), "--quiet", *shared]) == 0
    chunk = ["chunk", str(folder / "d1.txt"), "-o", str(tmp_path / "c.json"), "-q"]
    assert main([*chunk, *shared]) == 0
    corpus_options, chunk_options = seen
    assert isinstance(corpus_options, PipelineOptions)
    assert corpus_options == chunk_options.resolved()  # one record, the model resolved once
    assert getattr(corpus_options, field) == expected != getattr(PipelineOptions(), field)
    with Ledger(tmp_path / "out.ledger.sqlite") as ledger:
        entry = ledger.finished("d1.txt")
    assert entry is not None
    assert entry.settings_sha256 == options_sha256(corpus_options) != OLD_CLI_DEFAULT


def test_every_flag_of_the_model_options_lands_in_the_record() -> None:
    """Each option ``chunk`` parses into the pipeline's settings is a field of the record
    (none is dropped on the way, as ``max_chunk_tokens`` once was for the corpus)."""
    from agentic_chunking.cli._chunk import pipeline_options

    args = build_parser().parse_args(
        [
            "chunk",
            "x.txt",
            "--model",
            "m1",
            "--max-tokens-per-batch",
            "11",
            "--extraction-max-tokens",
            "12",
            "--grouping-max-tokens",
            "13",
            "--max-chunk-tokens",
            "14",
            "--max-concurrency",
            "15",
            "--timeout",
            "16",
            "--base-url",
            "http://127.0.0.1:1",
        ]
    )
    assert pipeline_options(args) == PipelineOptions(
        model="m1",
        max_tokens_per_batch=11,
        extraction_max_tokens=12,
        grouping_max_tokens=13,
        max_chunk_tokens=14,
        max_concurrency=15,
        timeout=16.0,
        base_url="http://127.0.0.1:1",
    )


def test_the_suite_and_the_adapters_pass_the_record_they_are_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentic_chunking.adapters import _documents
    from agentic_chunking.suite import _runner
    from agentic_chunking.suite._cases import load_case

    seen: list[PipelineOptions] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(args[2])
        raise InputError("stop here")

    monkeypatch.setattr(_runner, "chunk_text_agentic", spy)
    monkeypatch.setattr(_documents, "chunk_text_agentic", spy)
    case = load_case(Path(__file__).parent.parent / "cases" / "TC-030.yaml")
    with pytest.raises(InputError):
        _runner.run_pipeline(case, client=ModelClient(), model="reference", max_concurrency=3)
    assert seen[-1] == case.pipeline_options("reference", max_concurrency=3)
    assert seen[-1].extraction_max_tokens == case.pipeline.extraction_max_tokens
    assert seen[-1].max_chunk_tokens == case.max_tokens_per_batch
    given = PipelineOptions(model="reference", max_chunk_tokens=77)
    options, run = _documents.adapter_options(given, {"client": None, "grouping_max_tokens": 9})
    assert options == dataclasses.replace(given, grouping_max_tokens=9) and run == {"client": None}
    with pytest.raises(InputError):
        _documents.chunk_document("Alpha.\n\nBeta.", "D", {}, options, run)
    assert seen[-1] is options


def test_the_keyword_form_builds_the_same_record_and_refuses_a_mix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentic_chunking.pipeline import _run

    seen: list[PipelineOptions] = []
    monkeypatch.setattr(_run, "plan_batches", lambda *a: seen.append(a) or [])
    inputs = [AgenticChunkInput("c1", "")]
    chunk_text_agentic(inputs, "D", model="m", max_chunk_tokens=None, max_tokens_per_batch=9)
    assert seen[-1][1] == 9
    with pytest.raises(TypeError, match="not both"):
        chunk_text_agentic(inputs, "D", PipelineOptions(), model="m")
    with pytest.raises(TypeError, match="max_token_per_batch"):
        chunk_text_agentic(inputs, "D", max_token_per_batch=9)
    with pytest.raises(InputError, match="max_chunk_tokens is 0"):
        chunk_text_agentic(inputs, "D", PipelineOptions(max_chunk_tokens=0))


def test_the_batch_engine_keeps_the_hash_the_local_engine_reads_so_either_resumes_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--batch`` runs the same record with more calls in flight (not hashed): its ledger
    holds the hash of the settings the command was given, and a local rerun skips every
    document it finished."""
    from agentic_chunking._loopback import FakeMessageBatchesServer

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("AGENTIC_CHUNKING_MODEL", raising=False)
    folder = _folder(tmp_path, 2)
    out = tmp_path / "out.jsonl"
    flags = ["--max-chunk-tokens", "120", "--quiet"]
    with FakeMessageBatchesServer(handler=ParagraphModel(), polls_to_end=1) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert (
            main(["corpus", str(folder), "-o", str(out), "--batch", "--batch-poll", "0.05", *flags])
            == 0
        )
    expected = options_sha256(PipelineOptions(max_chunk_tokens=120))
    with Ledger(tmp_path / "out.ledger.sqlite") as ledger:
        hashes = {ledger.finished(f"d{n}.txt").settings_sha256 for n in (1, 2)}  # type: ignore[union-attr]
    assert hashes == {expected}
    capsys.readouterr()
    with FakeMessagesServer(handler=ParagraphModel()) as local:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", local.base_url)
        assert main(["corpus", str(folder), "-o", str(out), *flags]) == 0
        assert local.requests == []
    assert "0 done, 2 skipped (done before)" in capsys.readouterr().err


def test_the_settings_hash_goes_through_the_one_request_hash_with_the_ledgers_bytes() -> None:
    """The ledger's settings hash is the client's canonical_sha256 in the layout ledgers
    hold (default separators, non-ASCII escaped), on non-ASCII text too; the cache's
    layout (non-ASCII kept) gives another digest for the same value, so the two layouts are
    not confused."""
    import hashlib
    import json

    from agentic_chunking.client import canonical_sha256

    value = {"model": "modèle-ü", "limits": [1, 2], "b": None}
    ledger_bytes = json.dumps(value, sort_keys=True).encode("utf-8")
    assert canonical_sha256(value, compact=False, ensure_ascii=True) == (
        hashlib.sha256(ledger_bytes).hexdigest()
    )
    assert canonical_sha256(value, compact=False) != canonical_sha256(
        value, compact=False, ensure_ascii=True
    )
