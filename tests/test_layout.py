"""The package's layout: its public names, its layers, and no import circle.

Read from the source with ``ast`` (imports inside functions included), so a new import that
runs back up a layer, or closes a circle, fails here before anyone meets it at run time.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

import agentic_chunking

PACKAGE = Path(agentic_chunking.__file__).parent
REPO = PACKAGE.parent

# Lower layers first; a module may import from its own layer's package and any lower layer.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"_entry", "_errors", "_files", "_models", "_schema", "_shown", "_text", "_warning"}),
    frozenset({"client", "checks", "semantic"}),
    frozenset({"pipeline", "mutations"}),
    frozenset({"corpus", "adapters"}),  # many documents; other libraries' shapes in and out
    frozenset(
        {"testing", "_loopback", "report"}
    ),  # the loopback model APIs; testing re-exports them
    frozenset({"judge"}),
    frozenset({"suite", "evaluate"}),
    frozenset({"cli"}),
    frozenset({"__init__", "__main__"}),  # the public API and ``python -m``
)

PUBLIC_NAMES = {
    "DEFAULT_JUDGE_MODEL",
    "DEFAULT_MAX_TOKENS_PER_BATCH",
    "DEFAULT_MODEL",
    "PROMPT_VERSIONS",
    "UNKNOWN_DOCUMENT_ID",
    "AgenticChunk",
    "AgenticChunkInput",
    "AgenticChunkingError",
    "AgenticResponse",
    "Batch",
    "CallUsage",
    "CaseError",
    "CassetteError",
    "ConfigurationError",
    "ExtractedBatch",
    "GroupingReply",
    "InputError",
    "ModelCallError",
    "PipelineWarning",
    "ReplyParseError",
    "ThemeGroup",
    "chunk_text_agentic",
    "estimate_tokens",
    "normalise_agentic_output",
    "parse_grouping",
    "parse_propositions",
    "parse_propositions_strict",
    "plan_batches",
    "pre_chunk_for_extraction",
    "split_sentences",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``from x import y`` counts as x, or x.y
    when x.y is a module)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                targets = [
                    f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target
                    for alias in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer(module: str) -> int:
    top = _top(module)
    for index, members in enumerate(LAYERS):
        if top in members:
            return index
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS")


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """The imports of ``graph`` from a lower layer into a higher one."""
    return [
        f"{a} -> {b}"
        for a, targets in graph.items()
        for b in targets
        if _layer(b) > _layer(a) and _top(a) != "__init__"
    ]


def import_circles(graph: dict[str, set[str]]) -> list[str]:
    """Each circle of ``graph``, as ``a -> b -> a``."""
    visiting: set[str] = set()
    done: set[str] = set()
    circles: list[str] = []

    def visit(node: str, path: list[str]) -> None:
        if node in visiting:
            circles.append(" -> ".join([*path[path.index(node) :], node]))
            return
        if node in done:
            return
        visiting.add(node)
        for target in sorted(graph.get(node, ())):
            visit(target, [*path, node])
        visiting.discard(node)
        done.add(node)

    for module in sorted(graph):
        visit(module, [])
    return circles


def test_no_import_runs_back_up_a_layer() -> None:
    assert upward_imports(import_graph()) == []


def test_there_is_no_import_circle_between_modules() -> None:
    assert import_circles(import_graph()) == []


def test_the_layout_checks_can_fail() -> None:
    upward = {"agentic_chunking.pipeline._run": {"agentic_chunking.suite.plugin"}}
    assert upward_imports(upward) == [
        "agentic_chunking.pipeline._run -> agentic_chunking.suite.plugin"
    ]
    circle = {
        "agentic_chunking.a": {"agentic_chunking.b"},
        "agentic_chunking.b": {"agentic_chunking.a"},
    }
    assert import_circles(circle) == [
        "agentic_chunking.a -> agentic_chunking.b -> agentic_chunking.a"
    ]
    assert "agentic_chunking.client._config" in import_graph()["agentic_chunking.client._anthropic"]


def test_the_public_names_are_pinned() -> None:
    assert set(agentic_chunking.__all__) == PUBLIC_NAMES
    assert all(hasattr(agentic_chunking, name) for name in PUBLIC_NAMES)


def test_the_entry_points_are_where_users_call_them() -> None:
    from agentic_chunking.cli import entry, main
    from agentic_chunking.mutations import CERTAIN_OPERATORS, OPERATORS, apply_to_propositions
    from agentic_chunking.testing import FakeMessagesServer, ScriptedPipeline

    assert callable(entry) and callable(main) and callable(apply_to_propositions)
    assert CERTAIN_OPERATORS and OPERATORS and FakeMessagesServer and ScriptedPipeline
    text = (REPO / "pyproject.toml").read_text("utf-8")
    assert 'agentic-chunking = "agentic_chunking.cli:entry"' in text
    assert 'pytest_plugins = ["agentic_chunking.suite.plugin"' in (REPO / "conftest.py").read_text(
        "utf-8"
    )


@pytest.mark.parametrize("module", ["agentic_chunking", "agentic_chunking.suite"])
def test_python_dash_m_still_answers_help(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "usage" in done.stdout.lower()


def test_every_package_says_what_it_is_and_what_it_may_import() -> None:
    for package in ("pipeline", "client", "cli", "mutations"):
        doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text("utf-8")))
        assert doc and ("import" in doc.lower()), package


def test_the_command_line_parser_loads_no_language_model_library() -> None:
    """Building every subcommand's parser (what ``--help`` does) imports neither spaCy
    nor lemminflect (which imports spaCy: about 2 s): the checks load them on first use."""
    probe = (
        "import sys\n"
        "from agentic_chunking.cli._main import build_parser\n"
        "build_parser()\n"
        "import agentic_chunking.checks, agentic_chunking.judge, agentic_chunking.mutations\n"
        "print(sorted(m for m in ('spacy', 'lemminflect') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"
