"""The declared public surface: each package's ``__all__`` is what users call.

Every package's ``__init__`` declares ``__all__``, sorted as ruff sorts it (constants,
classes, functions), each name in it importable; together they stay at most
``MOST_PUBLIC_NAMES``, and a name two packages declare is one object (``VERDICTS`` was once
the judge's four verdicts in one and the report's three in the other). The other names a
package ``__init__`` imports (``X as X``) serve the layers above and the tests, no promise.

The documentation imports only what is declared: every ``from agentic_chunking... import``
in docs/ and the README names a public module and names in its ``__all__``.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

import agentic_chunking

PACKAGE = Path(agentic_chunking.__file__).parent
REPO = PACKAGE.parent
MOST_PUBLIC_NAMES = 150

PACKAGES = [
    "agentic_chunking",
    *sorted(
        f"agentic_chunking.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()
    ),
]
# The public modules that are no package: each declares ``__all__`` too (the adapters need
# their extras, present in the standard set-up).
MODULES = ["agentic_chunking.adapters.langchain", "agentic_chunking.adapters.llamaindex"]

_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(agentic_chunking[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)"
    r"|import[ \t]+(agentic_chunking[\w.]*))",
    re.MULTILINE,
)


def isort_key(name: str) -> tuple[int, str]:
    """Ruff's order of ``__all__`` (RUF022): constants, then classes, then the rest."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def _module(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as missing:  # an adapter without its extra
        pytest.skip(f"{name}: {missing}")


def doc_imports(markdown: str) -> list[tuple[str, list[str]]]:
    """Each import of the package in ``markdown``: the module and the names it takes."""
    found: list[tuple[str, list[str]]] = []
    for match in _IMPORT.finditer(markdown):
        module, names, plain = match.groups()
        if plain:
            found.append((plain, []))
            continue
        taken = [n.split(" as ")[0].strip() for n in names.strip("()").split(",")]
        found.append((module, [n for n in taken if n]))
    return found


def private_parts(module: str, names: list[str]) -> list[str]:
    """The private module segments (one underscore) an import goes through or names."""
    segments = module.split(".")[1:] + names
    return [s for s in segments if s.startswith("_") and not s.startswith("__")]


@pytest.mark.parametrize("name", PACKAGES + MODULES)
def test_each_list_is_declared_sorted_and_importable(name: str) -> None:
    module = _module(name)
    declared = getattr(module, "__all__", None)
    assert declared is not None, f"{name} declares no __all__: list what users call"
    assert declared == sorted(declared, key=isort_key), f"{name}.__all__ is not sorted"
    assert len(set(declared)) == len(declared), f"{name}.__all__ names a name twice"
    missing = [n for n in declared if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names {missing}, which it lacks"


def test_the_surface_is_small_and_one_name_is_one_object() -> None:
    owners: dict[str, list[str]] = {}
    for name in PACKAGES + MODULES:
        module = _module(name)
        for public in module.__all__:
            owners.setdefault(public, []).append(name)
    total = sum(len(where) for where in owners.values())
    assert total <= MOST_PUBLIC_NAMES, f"{total} public names: at most {MOST_PUBLIC_NAMES}"
    # Between packages; the adapters' modules are one per library, and each may name its
    # own ``AgenticChunker`` or ``load_documents`` in that library's shapes.
    collisions = [
        f"{public}: {', '.join(where)}"
        for public, where in owners.items()
        if len({id(getattr(importlib.import_module(m), public)) for m in where if m in PACKAGES})
        > 1
    ]
    assert not collisions, collisions


def test_the_scanner_finds_private_imports_and_names() -> None:
    text = (
        "```python\n"
        "from agentic_chunking.adapters._chunkers import langchain_chunker\n"
        "from agentic_chunking.semantic import (\n    SemanticSplitter,\n    _segment,\n)\n"
        "import agentic_chunking.client._config\n"
        "from agentic_chunking import chunk_text_agentic as run  # ok\n"
        "```\n"
    )
    found = doc_imports(text)
    assert found == [
        ("agentic_chunking.adapters._chunkers", ["langchain_chunker"]),
        ("agentic_chunking.semantic", ["SemanticSplitter", "_segment"]),
        ("agentic_chunking.client._config", []),
        ("agentic_chunking", ["chunk_text_agentic"]),
    ]
    assert [private_parts(m, n) for m, n in found] == [["_chunkers"], ["_segment"], ["_config"], []]


def test_no_doc_imports_a_private_module_or_an_undeclared_name() -> None:
    wrong: list[str] = []
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    for page in pages:
        for module, names in doc_imports(page.read_text(encoding="utf-8")):
            where = f"{page.relative_to(REPO)}: from {module} import {', '.join(names)}"
            if private_parts(module, names):
                wrong.append(f"{where} (private)")
                continue
            declared = getattr(_module(module), "__all__", [])
            wrong += [f"{where} ({n} not in __all__)" for n in names if n not in declared]
    assert not wrong, wrong
