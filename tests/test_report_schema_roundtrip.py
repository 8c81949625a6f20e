"""What the suite writes, the report reads: every field the writers produce passes the schema.

The results file is validated by ``report/_schema.py`` before it is read; a writer that adds
a field the schema types differently would make every later report fail. This replays the
reference cassettes of cases that exercise the newer fields (structured warnings, coverage,
judge verdicts and tokens, per-case stamps) and loads the written file back.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import vcr

from agentic_chunking.client import make_client
from agentic_chunking.report import RunResults, load_results, record_run
from agentic_chunking.suite import load_case, run_case
from agentic_chunking.suite._cassettes import vcr_config

REPO = Path(__file__).resolve().parent.parent
# TC-018/TC-032: merged duplicates (warning records); TC-004: coverage as an error rule;
# TC-030: an expected failure (no coverage); every case: the reference judge.
CASES = ("TC-004", "TC-018", "TC-030", "TC-032")


def test_the_suites_results_file_passes_the_schema_it_is_read_with(tmp_path: Path) -> None:
    recorder = vcr.VCR(record_mode="none", **vcr_config())
    results = []
    with make_client(api_key="k", base_url="http://127.0.0.1:9", max_retries=0) as client:
        for case_id in CASES:
            cassette = REPO / "cassettes" / "reference" / f"{case_id}.yaml"
            with recorder.use_cassette(str(cassette)):
                result = run_case(
                    load_case(REPO / "cases" / f"{case_id}.yaml"),
                    client=client,
                    model="reference",
                    cassette=cassette,
                    judge_model="reference",
                )
            results.append(replace(result, judged_at="2026-12-01T00:00:00+00:00"))
    assert any(r.response is not None and r.response.warnings for r in results)
    assert any(r.coverage is not None for r in results)
    assert all(r.judge_usage.calls for r in results if r.response and r.response.is_success)
    run = RunResults(
        model="reference",
        replies="reference",
        cassette_set="cassettes/reference",
        prompt_versions={},
        created_at="2026-12-01T00:00:00+00:00",
        cases=tuple(results),
        judge_model="reference",
    )
    written = record_run(run, tmp_path)
    loaded = load_results(tmp_path / "results-reference.json")
    assert [c.id for c in loaded.cases] == list(CASES)
    as_written = json.loads(json.dumps(written.to_dict(), ensure_ascii=False))
    assert loaded.to_dict() == as_written
