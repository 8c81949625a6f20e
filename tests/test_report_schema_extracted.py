"""A results file keeps each batch's extraction as written (``ChunkIds``) and still reads
an older file's ``ChunkId``: a run's results merge into the file the previous run wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic_chunking._errors import InputError
from agentic_chunking._models import AgenticResponse, ExtractedBatch
from agentic_chunking.report import CaseResult, RunResults, load_results, write_results


def _written(tmp_path: Path) -> Path:
    extracted = (ExtractedBatch(1, ("C1", "C2"), ("A fact.",)),)
    response = AgenticResponse(extracted=extracted)
    run = RunResults(model="m", cases=(CaseResult(id="TC-001", response=response),))
    return write_results(run, tmp_path)


def test_a_results_file_with_packed_batches_is_read_back(tmp_path: Path) -> None:
    path = _written(tmp_path)
    case = load_results(path).cases[0]
    assert case.response is not None
    assert case.response.extracted[0].chunk_ids == ("C1", "C2")


def test_an_older_chunk_id_is_read_and_a_batch_naming_no_chunk_is_refused(tmp_path: Path) -> None:
    path = _written(tmp_path)
    data = json.loads(path.read_text())
    batch = data["cases"][0]["response"]["Extracted"][0]
    del batch["ChunkIds"]
    batch["ChunkId"] = "C1"
    path.write_text(json.dumps(data))
    assert load_results(path).cases[0].response.extracted[0].chunk_ids == ("C1",)  # type: ignore[union-attr]
    del batch["ChunkId"]
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="ChunkIds"):
        load_results(path)
