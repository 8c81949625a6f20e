"""The Ray engine on a local Ray instance with 2 CPUs, against a loopback server: the same
records as the local engine, byte for byte after sorting, and resume through the ledger."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic_chunking.cli import main
from agentic_chunking.corpus import Ledger
from agentic_chunking.testing import FakeMessagesServer, ParagraphModel

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

KEY = "sk-ant-ray-test-key"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[ParagraphModel, FakeMessagesServer]]:
    """A loopback server, and a local Ray instance of 2 CPUs started with the server's URL
    and a key in its environment, as a user's shell gives them to the command."""
    script = ParagraphModel()
    with FakeMessagesServer(handler=script) as server, pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", KEY)
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            yield script, server
        finally:
            ray.shutdown()


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus.jsonl"
    lines = [
        {
            "document_id": f"doc-{n:02d}",
            "text": f"Alpha {n} is a fact.\n\nBeta {n} is another fact.\n\nAlpha {n} is more.",
            "metadata": {"n": n, "tags": ["a", "b"][: n % 3]},
        }
        for n in range(20)
    ]
    lines.append({"document_id": "l4", "chunks": [{"chunk_id": "S1", "text": "Gamma holds."}]})
    corpus.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return corpus


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_ray_engine_writes_the_local_engines_records(
    tmp_path: Path,
    served: tuple[ParagraphModel, FakeMessagesServer],
    capsys: pytest.CaptureFixture[str],
) -> None:
    corpus = _corpus(tmp_path)
    _, server = served
    local, distributed = tmp_path / "local" / "out.jsonl", tmp_path / "ray" / "out.jsonl"
    local.parent.mkdir()
    distributed.parent.mkdir()
    before = len(server.requests)
    assert main(["corpus", str(corpus), "-o", str(local), "--quiet"]) == 0
    sent = len(server.requests) - before
    ray_run = ["corpus", str(corpus), "-o", str(distributed), "--quiet", "--engine", "ray"]
    assert main(ray_run) == 0
    assert len(server.requests) - before == 2 * sent  # a cache of its own: all done again
    assert sorted(distributed.read_text().splitlines()) == sorted(local.read_text().splitlines())
    assert distributed.read_bytes() == local.read_bytes()  # input order kept too
    assert Ledger(tmp_path / "ray" / "out.ledger.sqlite").counts() == {"done": 21}
    # rerun on Ray: every document skipped through the ledger its workers wrote
    assert main(ray_run) == 0
    assert len(server.requests) - before == 2 * sent
    assert "0 done, 21 skipped" in capsys.readouterr().err.splitlines()[-1]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.usefixtures("served")
def test_a_folder_on_ray_matches_the_local_engine(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    for n in range(6):
        (folder / ("sub" if n % 2 else ".") / f"f{n}").write_text(f"Delta {n} holds.\n")
    (folder / "bin.dat").write_bytes(b"\x00\x01")
    local, distributed = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    assert main(["corpus", str(folder), "-o", str(local), "--quiet"]) == 1
    assert main(["corpus", str(folder), "-o", str(distributed), "--quiet", "--engine", "ray"]) == 1
    assert distributed.read_bytes() == local.read_bytes()
    assert (tmp_path / "ray.failures.jsonl").read_bytes() == (
        tmp_path / "local.failures.jsonl"
    ).read_bytes()
