"""Shared fixtures: the report's two saved results files (tests/fixtures/report), an absent
extra, a deterministic embedder for the split command, and the 32 cases' reference
outputs."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentic_chunking.report import RunResults, load_results

REPORT_FIXTURES = Path(__file__).parent / "fixtures" / "report"


@pytest.fixture(scope="session")
def reference() -> RunResults:
    """The reference run of the report fixtures (hand-written replies)."""
    return load_results(REPORT_FIXTURES / "results-reference.json")


@pytest.fixture(scope="session")
def upgrade() -> RunResults:
    """A fictional later run (`claude-next`) with verdict, count and theme changes."""
    return load_results(REPORT_FIXTURES / "results-claude-next.json")


@pytest.fixture(autouse=True)
def _user_cache_in_tmp(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``chunk`` without ``-o`` keeps its replies in the user cache directory: a temporary
    one here, never the home directory of whoever runs the tests."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


@pytest.fixture
def block_import(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Make ``import NAME`` fail as if the package were not installed (an absent extra)."""

    def block(blocked: str) -> None:
        real_import = builtins.__import__

        def guarded(name: str, *args: object, **kwargs: object) -> object:
            if name == blocked:
                raise ImportError(f"No module named {blocked!r}", name=blocked)
            return real_import(name, *args, **kwargs)

        monkeypatch.setattr(builtins, "__import__", guarded)

    return block


@pytest.fixture
def hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the split command's default embedder the deterministic one (no extra needed)."""
    import agentic_chunking.semantic._splitter as splitter_module
    from agentic_chunking.semantic import HashingEmbedder

    monkeypatch.setattr(splitter_module, "MiniLMEmbedder", HashingEmbedder)


@pytest.fixture(scope="session")
def reference_outputs() -> list[tuple[Any, Any]]:
    """The 32 cases' outputs from their hand-written reference replies."""
    from agentic_chunking._loopback import FakeMessagesServer
    from agentic_chunking.client import make_client
    from agentic_chunking.suite import ReferenceServer, load_cases, load_replies
    from agentic_chunking.suite._runner import run_pipeline

    repo = Path(__file__).resolve().parent.parent
    reference = ReferenceServer()
    outputs = []
    with (
        FakeMessagesServer(handler=reference) as server,
        make_client(api_key="loopback", base_url=server.base_url, max_retries=0) as client,
    ):
        for case in load_cases(repo / "cases"):
            reference.use(case, load_replies(case, repo / "cases" / "reference_replies"))
            outputs.append((case, run_pipeline(case, client=client, model="reference")))
    return outputs
