"""Shared fixtures: the report's two saved results files (tests/fixtures/report), an absent
extra, and a deterministic embedder for the split command."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from pathlib import Path

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
