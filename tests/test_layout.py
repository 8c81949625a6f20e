"""The package's layout: its public names, its layers, and no import circle.

Read from the source with ``ast`` (imports inside functions included), so a new import that
runs back up a layer, or closes a circle, fails here before anyone meets it at run time.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from script_loading import load_script

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
    frozenset({"suite", "evaluate", "findings"}),  # findings: check's layer (judge below it)
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
    "PipelineOptions",
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


code_figures = load_script("code_figures")


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``from x import y`` counts as x, or x.y
    when x.y is a module; imports inside functions too): the graph scripts/code_figures.py
    counts its import circles on, so the figures and this test read one graph."""
    return code_figures.import_graph(code_figures.read_modules(PACKAGE))


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


import_circles = code_figures.import_circles


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


def _layers_of(page: str) -> list[frozenset[str]]:
    """The layers ``page`` lists, lower first: each numbered line's backticked names before
    its first parenthesis (``1. the root's shared modules: `_entry`, ...``)."""
    return [
        frozenset(re.findall(r"`([^`]+)`", line.split("(", 1)[0]))
        for line in re.findall(r"^\d+\. (.+)$", page, flags=re.MULTILINE)
    ]


def _named_in_tree(page: str) -> dict[str, set[str]]:
    """Module files the page's tree names, by section: ``""`` for the package's root (its
    first lines and a file entry such as ``testing.py``), else the package (``client``) of
    an entry ``  client/`` and the lines under it; the tree ends at its first entry outside
    the package (``cases/``)."""
    block = page.split("```", 2)[1]
    named: dict[str, set[str]] = {"": set()}
    section = ""
    for line in block.splitlines()[2:]:
        entry = re.match(r"^  (\S+)", line)
        if entry:
            section = entry.group(1).rstrip("/") if entry.group(1).endswith("/") else ""
            named.setdefault(section, set())
        elif re.match(r"^\S", line):  # back at the repository's top level: the tree ends
            break
        named[section] |= set(re.findall(r"\b(\w+)\.py\b", line))
    return named


def layout_page_problems(page: str, package: Path, layers: tuple[frozenset[str], ...]) -> list[str]:
    """What docs/layout.md (``page``) says that the package folder ``package`` and the
    enforced ``layers`` contradict, or leaves out: its layer list differs from ``layers``;
    a layer misses a package or root module; its tree leaves out a package or a root module,
    or names a module its package does not have."""
    problems = []
    if _layers_of(page) != list(layers):
        stated = [sorted(layer) for layer in _layers_of(page)]
        problems.append(f"the page's layers {stated} are not the enforced LAYERS")
    packages = {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    roots = {p.stem for p in package.glob("*.py")} - {"__init__", "__main__"}
    layered = set().union(*layers)
    problems += [f"{name} is in no layer" for name in sorted((packages | roots) - layered)]
    named = _named_in_tree(page)
    problems += [f"the tree has no entry {name}/" for name in sorted(packages - set(named))]
    problems += [f"the tree does not name {name}.py" for name in sorted(roots - named[""])]
    for section, modules in sorted(named.items()):
        folder = package / section
        absent = sorted(m for m in modules if not (folder / f"{m}.py").is_file())
        problems += [f"the tree names {section or '.'}/{m}.py, which is not there" for m in absent]
    return problems


def test_the_layout_page_lists_every_layer_package_and_module_there_is() -> None:
    page = (REPO / "docs" / "layout.md").read_text("utf-8")
    assert layout_page_problems(page, PACKAGE, LAYERS) == []


def test_the_layout_page_check_fires_on_a_stale_page(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    for path in ("__init__.py", "_models.py", "testing.py", "a/__init__.py", "a/_x.py"):
        (package / path).parent.mkdir(parents=True, exist_ok=True)
        (package / path).write_text("", "utf-8")
    layers = (frozenset({"_models"}), frozenset({"a", "testing"}))
    good = (
        "1. the root's: `_models`\n2. `a`, `testing` (`testing` re-exports)\n\n"
        "```\npkg/   the package\n  _models.py   records\n  a/   a layer\n    _x.py   x\n"
        "  testing.py   re-exports\ncases/   not the package: _gone.py\n```\n"
    )
    assert layout_page_problems(good, package, layers) == []
    stale = good.replace("`a`, `testing`", "`a`").replace("_x.py", "_y.py")
    stale = stale.replace("  testing.py   re-exports\n", "")
    (package / "b").mkdir()
    (package / "b" / "__init__.py").write_text("", "utf-8")
    assert layout_page_problems(stale, package, layers) == [
        "the page's layers [['_models'], ['a']] are not the enforced LAYERS",
        "b is in no layer",
        "the tree has no entry b/",
        "the tree does not name testing.py",
        "the tree names a/_y.py, which is not there",
    ]


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
