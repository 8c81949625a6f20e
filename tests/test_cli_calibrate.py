"""``agentic-chunking calibrate-judge``: recorded against a loopback judge, replayed offline.

The judge here is SCRIPTED (it answers from the items' labels, with one item deliberately
wrong), so the figures are known in advance; no real model is involved.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking._loopback import FakeChatCompletionsServer, FakeMessagesServer, user_text
from agentic_chunking.cli import main
from agentic_chunking.judge import load_calibration, read_judge_request

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "benchmarks" / "data" / "judge_calibration.jsonl"


@pytest.fixture
def items(tmp_path: Path) -> list[dict[str, Any]]:
    """Two items of each (check, label) present in the shipped sample."""
    chosen: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    for line in DATA.read_text("utf-8").splitlines():
        item = json.loads(line)
        chosen.setdefault((item["check"], item["label"]), [])
        if len(chosen[(item["check"], item["label"])]) < 2:
            chosen[(item["check"], item["label"])].append(item)
    picked = [item for group in chosen.values() for item in group]
    (tmp_path / "items.jsonl").write_text("\n".join(json.dumps(i) for i in picked) + "\n")
    return picked


def _scripted_judge(items: list[dict[str, Any]], wrong: str, *, shape: str = "v3") -> Any:
    """Answers from the labels in the reply ``shape`` of a judge prompt: "v3" (a supported
    verdict is ``[n, k]``, citing the item's first source sentence; any other
    ``[n, verdict, reason]``; a pair ``[a, b, same_fact, reason]``), "v2" (``[n, k]``, the
    rest objects with a reason) or "v1" (every verdict an object with a reason); all are
    read."""
    by_candidate = {" ".join(i["candidate"].split()): i for i in items}
    flag = {
        "no_invention": "not_supported",
        "no_unresolved_pronoun": "needs_context",
        "self_contained": "not_atomic",
    }

    def answer(body: Mapping[str, Any]) -> str:
        asked = read_judge_request(user_text(body))
        last = asked.propositions[max(asked.propositions)]
        item = by_candidate[last]
        good = item["label"] != (item["id"] == wrong)  # one item answered wrongly
        replies: list[Any] = []
        for n in asked.propositions:
            supported = good or item["check"] == "no_duplication"
            if supported and shape != "v1":
                replies.append([n, min(asked.sentences)])
                continue
            verdict = "supported" if supported else flag[item["check"]]
            if shape == "v3":
                replies.append([n, verdict, "scripted"])
            else:
                replies.append({"n": n, "verdict": verdict, "reason": "scripted"})
        for a, b in asked.pairs:
            if shape == "v3":
                replies.append([a, b, not good, "scripted"])
            else:
                replies.append({"pair": [a, b], "same_fact": not good, "reason": "scripted"})
        return json.dumps(replies)

    return answer


def _args(tmp_path: Path, *extra: str, judge: str = "loopback-judge") -> list[str]:
    return [
        "calibrate-judge",
        "--judge-model",
        judge,
        "--items",
        str(tmp_path / "items.jsonl"),
        "--cassette-root",
        str(tmp_path / "cassettes"),
        "--calibration-dir",
        str(tmp_path / "calibration"),
        *extra,
    ]


def test_record_then_replay_offline_gives_the_same_figures(
    tmp_path: Path,
    items: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    wrong = next(i["id"] for i in items if i["check"] == "no_invention" and not i["label"])
    with FakeMessagesServer(handler=_scripted_judge(items, wrong)) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "loopback-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        assert main(_args(tmp_path, "--record")) == 0
    assert len(server.requests) == len(items)  # one call per item
    path = tmp_path / "calibration" / "judge-loopback-judge.json"
    recorded = load_calibration(path)
    assert recorded is not None
    invention = recorded.figures["no_invention"]
    assert (invention["recall"], invention["specificity"]) == (0.5, 1.0)
    assert invention["balanced_accuracy"] == 0.75
    assert recorded.figures["no_unresolved_pronoun"]["balanced_accuracy"] == 1.0
    assert "specificity" not in recorded.figures["no_duplication"]  # no good item: n/a
    cassette = (tmp_path / "cassettes" / "loopback-judge" / "judge-calibration.yaml").read_text()
    assert "loopback-key" not in cassette

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("ANTHROPIC_BASE_URL")
    path.unlink()
    assert main(_args(tmp_path)) == 0
    assert load_calibration(path) == recorded
    assert "no_invention: " in capsys.readouterr().out


def test_the_shipped_sample_is_decided_the_same_in_every_judge_prompts_reply_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = [json.loads(line) for line in DATA.read_text("utf-8").splitlines() if line]
    assert len(shipped) == 56
    wrong = next(i["id"] for i in shipped if i["check"] == "no_invention" and not i["label"])
    figures = {}
    for shape in ("v3", "v2", "v1"):
        root = tmp_path / shape
        args = [
            "calibrate-judge",
            "--judge-model",
            "loopback-judge",
            "--items",
            str(DATA),
            "--cassette-root",
            str(root / "cassettes"),
            "--calibration-dir",
            str(root / "calibration"),
            "--record",
        ]
        handler = _scripted_judge(shipped, wrong, shape=shape)
        with FakeMessagesServer(handler=handler) as server:
            monkeypatch.setenv("ANTHROPIC_API_KEY", "loopback-key")
            monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
            assert main(args) == 0
        assert len(server.requests) == 56  # every item judged in one call, no repair turn
        calibration = load_calibration(root / "calibration" / "judge-loopback-judge.json")
        assert calibration is not None and calibration.prompt_version == "judge-v3"
        figures[shape] = calibration.figures
    assert figures["v3"] == figures["v2"] == figures["v1"]
    invention = figures["v3"]["no_invention"]
    assert (invention["recall"], invention["specificity"], invention["unjudged"]) == (0.9, 1.0, 0)
    assert all(rule["unjudged"] == 0 for rule in figures["v3"].values())


def test_a_local_judge_behind_an_openai_compatible_server_is_calibrated_without_a_key(
    tmp_path: Path,
    items: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wrong = next(i["id"] for i in items if i["check"] == "no_invention" and not i["label"])
    judge = "openai:qwen2.5:7b"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeChatCompletionsServer(handler=_scripted_judge(items, wrong)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert main(_args(tmp_path, "--record", judge=judge)) == 0
    assert len(server.requests) == len(items)
    assert {r.body["model"] for r in server.requests} == {"qwen2.5:7b"}
    path = tmp_path / "calibration" / "judge-openai--qwen2.5_7b.json"
    recorded = load_calibration(path)
    assert recorded is not None and recorded.figures["no_invention"]["balanced_accuracy"] == 0.75
    assert (tmp_path / "cassettes" / "openai--qwen2.5_7b" / "judge-calibration.yaml").is_file()

    monkeypatch.delenv("OPENAI_BASE_URL")  # replay: no server, no variable
    path.unlink()
    assert main(_args(tmp_path, judge=judge)) == 0
    assert load_calibration(path) == recorded


def test_replay_without_a_cassette_says_how_to_record(
    tmp_path: Path, items: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_args(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "no calibration cassette" in err
    assert "calibrate-judge --judge-model loopback-judge --record" in err


def test_record_without_a_key_stops_and_says_what_to_set(
    tmp_path: Path,
    items: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(_args(tmp_path, "--record")) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_a_calibration_of_another_judge_prompt_does_not_count(tmp_path: Path) -> None:
    path = tmp_path / "judge-x.json"
    path.write_text(
        json.dumps(
            {
                "schema": "agentic-chunking-judge-calibration/1",
                "prompt_version": "judge-v0",
                "rules": {},
            }
        )
    )
    assert load_calibration(path) is None


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("[1, 2]", ":1: a JSON list, not an object"),
        ('{"id": 1}', ":1: not a calibration item: it lacks 'check'"),
        ("{not json", ":1: not JSON"),
    ],
    ids=["list", "missing-field", "not-json"],
)
def test_items_of_another_shape_are_one_line_naming_the_line(
    tmp_path: Path, line: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text(line + "\n", encoding="utf-8")
    assert main(["calibrate-judge", "--judge-model", "reference", "--items", str(items)]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Error(" not in err
