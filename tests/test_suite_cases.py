"""Case files: the schema refuses what is wrong, naming the file and the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from agentic_chunking import CaseError
from agentic_chunking.suite import load_case, load_replies
from agentic_chunking.suite._cassettes import vcr_config
from agentic_chunking.suite._replies import input_hash

REPO_CASES = Path(__file__).resolve().parent.parent / "cases"

GOOD = {
    "id": "TC-099",
    "name": "A case",
    "category": "grouping",
    "description": "Two domains.",
    "document_id": "DOC",
    "inputs": [
        {"chunk_id": "C1", "text": "Kubernetes runs containers.", "domain": "Cloud"},
        {
            "chunk_id": "C2",
            "text": "Zoning sets land use. Glucose feeds cells.",
            "sentences": [
                {"text": "Zoning sets land use.", "domain": "Urban Planning"},
                {"text": "Glucose feeds cells.", "domain": "Metabolism"},
            ],
        },
    ],
    "expect": {"chunks": [1, 3], "themes": ["Cloud"]},
}


def _write(tmp_path: Path, data: object, name: str = "TC-099.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_good_case_loads_with_its_labels(tmp_path: Path) -> None:
    case = load_case(_write(tmp_path, GOOD))
    assert case.applicable_rules == (
        "no_invention",
        "no_unresolved_pronouns",
        "no_duplication",
        "self_contained",
    )
    assert case.labelled_sentences() == [
        ("Kubernetes runs containers.", "Cloud"),
        ("Zoning sets land use.", "Urban Planning"),
        ("Glucose feeds cells.", "Metabolism"),
    ]
    assert case.has_domain_labels
    assert case.inputs[1].domains == ("Urban Planning", "Metabolism")


def _broken(change: dict[str, object]) -> dict[str, object]:
    data = yaml.safe_load(yaml.safe_dump(GOOD))
    for dotted, value in change.items():
        target = data
        *path, last = dotted.split(".")
        for part in path:
            target = target[int(part)] if part.isdigit() else target[part]
        if value is None:
            del target[int(last) if last.isdigit() else last]
        else:
            target[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"category": "other"}, "category: Input should be 'extraction', 'grouping'"),
        ({"inputs.0.chunk_id": None}, "inputs.0.chunk_id: Field required"),
        ({"inputs.1.sentences.0.text": "Not in the chunk."}, "not a substring of the chunk"),
        (
            {"inputs.0.sentences": [{"text": "Kubernetes runs containers.", "domain": "X"}]},
            "not both",
        ),
        ({"inputs.1.chunk_id": "C1"}, "chunk ids repeated in inputs: ['C1']"),
        ({"expect.chunks": [3, 1]}, "chunks range [3, 1] is not [min, max]"),
        ({"checks": ["no_magic"]}, "checks.0: Input should be 'no_invention'"),
        ({"surprise": 1}, "surprise: Extra inputs are not permitted"),
    ],
)
def test_schema_errors_name_the_file_and_the_field(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = _write(tmp_path, _broken(change))
    with pytest.raises(CaseError) as caught:
        load_case(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_the_id_must_match_the_file_name(tmp_path: Path) -> None:
    message = re.escape("id is 'TC-099' but the file is named TC-098.yaml")
    with pytest.raises(CaseError, match=message):
        load_case(_write(tmp_path, GOOD, "TC-098.yaml"))


def test_invalid_yaml_is_named(tmp_path: Path) -> None:
    path = tmp_path / "TC-099.yaml"
    path.write_text("id: [unclosed\n")
    with pytest.raises(CaseError, match="is not valid YAML"):
        load_case(path)


def test_a_reply_file_must_answer_the_planned_batches(tmp_path: Path) -> None:
    case = load_case(_write(tmp_path, GOOD))
    replies = {"case": "TC-099", "extraction": [{"chunk_id": "C1", "propositions": ["A."]}]}
    (tmp_path / "replies").mkdir()
    _write(tmp_path / "replies", replies)
    with pytest.raises(CaseError, match=r"plans batches for chunks \[\['C1', 'C2'\]\]"):
        load_replies(case, tmp_path / "replies")


def test_scrubbing_drops_secrets_and_account_headers_and_error_replies() -> None:
    config = vcr_config()
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {
            "content-type": ["application/json"],
            "anthropic-organization-id": ["org-123"],
            "request-id": ["req_1"],
            "anthropic-ratelimit-requests-remaining": ["10"],
            "cf-ray": ["abc"],
        },
        "body": {"string": "{}"},
    }
    kept = config["before_record_response"](response)
    assert kept["headers"] == {"content-type": ["application/json"]}
    assert config["before_record_response"]({"status": {"code": 429}, "headers": {}}) is None
    assert config["before_record_response"]({"status": {"code": 529}, "headers": {}}) is None

    from vcr.request import Request

    request = Request(
        "POST",
        "https://api.anthropic.com/v1/messages",
        b"{}",
        {
            "Authorization": "Bearer sk-ant-secret",
            "x-api-key": "sk-ant-secret",
            "User-Agent": "Anthropic/Python 2.14.0",
            "x-stainless-os": "Linux",
            "content-type": "application/json",
            "anthropic-version": "2023-06-01",
        },
    )
    scrubbed = config["before_record_request"](request)
    assert sorted(k.lower() for k in scrubbed.headers) == ["anthropic-version", "content-type"]
    assert config["before_record_request"](scrubbed) is scrubbed  # idempotent (runs on replay)


# -- pipeline settings a case fixes for every model (item: TC-030 cut for any model) ----


def test_a_case_may_fix_pipeline_settings_and_they_reach_every_request(tmp_path: Path) -> None:
    from agentic_chunking._loopback import FakeMessagesServer, FakeReply
    from agentic_chunking.client import make_client
    from agentic_chunking.suite._runner import run_pipeline

    case = load_case(
        _write(
            tmp_path,
            {**GOOD, "pipeline": {"extraction_max_tokens": 64}, "inputs": GOOD["inputs"][:1]},
        )  # type: ignore[index]
    )
    assert case.pipeline.extraction_max_tokens == 64
    assert case.pipeline.grouping_max_tokens == 4000  # unset: the pipeline's default
    cut = FakeReply(text='["Kubernetes', stop_reason="max_tokens")
    with (
        FakeMessagesServer([cut]) as server,
        make_client(api_key="k", base_url=server.base_url, max_retries=0) as client,
    ):
        response = run_pipeline(case, client=client, model="any-model")
    assert server.requests[0].body["max_tokens"] == 64
    assert not response.is_success and "max_tokens (64)" in response.error_detail


def test_tc030_cuts_every_models_extraction_far_below_the_passage() -> None:
    case = load_case(REPO_CASES / "TC-030.yaml")
    passage_tokens = len(case.source_text) // 4  # the propositions restate the whole passage
    assert case.pipeline.extraction_max_tokens * 1.5 <= passage_tokens


def test_invalid_pipeline_settings_name_the_field(tmp_path: Path) -> None:
    path = _write(tmp_path, {**GOOD, "pipeline": {"extraction_max_tokens": 0}})
    with pytest.raises(CaseError, match=r"pipeline\.extraction_max_tokens: Input should be"):
        load_case(path)


# -- reply files carry the hash of the input they answer ---------------------------------


def test_a_reply_file_for_a_changed_input_is_refused_and_says_what_to_update(
    tmp_path: Path,
) -> None:
    case = load_case(_write(tmp_path, GOOD))
    (tmp_path / "replies").mkdir()
    replies = {
        "case": "TC-099",
        "input_sha256": input_hash(case),
        "extraction": [
            {
                "chunk_ids": ["C1", "C2"],  # two small chunks: one packed batch
                "propositions": ["Kubernetes runs containers.", "Zoning sets land use."],
            },
        ],
    }
    _write(tmp_path / "replies", replies)
    assert load_replies(case, tmp_path / "replies").input_sha256 == input_hash(case)

    changed = {
        **GOOD,
        "inputs": [{**GOOD["inputs"][0], "text": "Kubernetes ran containers."}, GOOD["inputs"][1]],
    }  # type: ignore[index]
    edited = load_case(_write(tmp_path, changed))
    assert input_hash(edited) != input_hash(case)
    with pytest.raises(CaseError) as caught:
        load_replies(edited, tmp_path / "replies")
    message = str(caught.value)
    assert "was written for another input of TC-099" in message
    assert f"set `input_sha256: {input_hash(edited)}` in TC-099.yaml" in message
    assert "Review its hand-written replies" in message

    _write(tmp_path / "replies", {k: v for k, v in replies.items() if k != "input_sha256"})
    with pytest.raises(CaseError, match="has no input_sha256"):
        load_replies(case, tmp_path / "replies")


def test_labels_and_expectations_do_not_change_the_input_hash(tmp_path: Path) -> None:
    case = load_case(_write(tmp_path, GOOD))
    relabelled = load_case(_write(tmp_path, {**GOOD, "expect": {"chunks": [2, 2]}}))
    assert input_hash(relabelled) == input_hash(case)


def test_rebuild_reference_refuses_a_stale_reply_and_keeps_the_cassette(tmp_path: Path) -> None:
    import shutil

    from agentic_chunking.suite.__main__ import main

    repo = REPO_CASES.parent
    (tmp_path / "cases" / "reference_replies").mkdir(parents=True)
    shutil.copy(REPO_CASES / "TC-001.yaml", tmp_path / "cases")
    shutil.copy(
        REPO_CASES / "reference_replies" / "TC-001.yaml", tmp_path / "cases" / "reference_replies"
    )
    cassette = tmp_path / "cassettes" / "reference" / "TC-001.yaml"
    cassette.parent.mkdir(parents=True)
    shutil.copy(repo / "cassettes" / "reference" / "TC-001.yaml", cassette)
    before = cassette.read_bytes()
    case_file = tmp_path / "cases" / "TC-001.yaml"
    case_file.write_text(case_file.read_text().replace("Kubernetes is", "Kubernetes was", 1))
    code = main(
        [
            "rebuild-reference",
            "--cases",
            str(tmp_path / "cases"),
            "--cassettes",
            str(tmp_path / "cassettes"),
        ]
    )
    assert code == 2
    assert cassette.read_bytes() == before
