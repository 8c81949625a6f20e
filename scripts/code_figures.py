"""The code's shape in figures, read from the AST of a package (issue 42, item 9).

    python scripts/code_figures.py                  # agentic_chunking/: table, and the JSON
    python scripts/code_figures.py --root DIR --json PATH

Nothing is imported or run: every figure is read from the source with ``ast``, so the
script measures a tree that does not import (and a fake one in a test) as well. The rules:

- **Functions over 60 lines**: every ``def`` (methods and nested functions included) whose
  span, from its ``def`` line to its last line (decorators left out, docstring in), is over
  ``LONGEST_FUNCTION`` lines. Each is listed as ``path:qualified name (lines)``.
- **Modules over 600 lines**: every ``.py`` file with more than ``LONGEST_MODULE`` lines.
- **Imports of another package's private modules**: an ``import`` or ``from ... import``
  statement (inside functions and ``TYPE_CHECKING`` blocks too; relative ones resolved)
  that names a module ``ROOT.x._y...`` (a segment after the package ``x`` starts with one
  underscore, e.g. ``from ..client._config import ...`` or ``from ..checks import
  _english``) where ``x`` is not the importer's own package (``ROOT.x`` and what is under
  it). The root's shared records, the modules directly under the root (``_models``,
  ``_schema``, ``_files``, ``_errors``, ...), are aside: every layer may import them. The
  root's ``__init__`` is an importer like any other (its package is the root itself).
  Counted once per statement.
- **Public names**: for each public module (no path segment after the root starting with
  ``_``, a package's ``__init__`` included), the names in its ``__all__`` when it has one,
  else its top-level public names (functions, classes and assignments not starting with
  ``_``; imports left out). ``public_names`` is the sum over modules; ``distinct`` counts
  each name once. ``names_beside_all`` counts what a module with ``__all__`` also imports
  under a public name (``X as X``, for the layers above): importable, not declared. A
  **collision** is one name exported by two public modules whose
  definitions (followed through ``from ... import`` re-exports) are different objects.
- **Import circles**: the module graph of ``tests/test_layout.py`` (``from x import y``
  counts as an import of ``x``, or of ``x.y`` when that is a module; a module never
  imports itself), and each circle in it as ``a -> b -> a``.

Not measured: the number of validators per saved format. What a validator is (a pydantic
model, a ``from_dict`` with its own checks, a JSON Schema, a reader's hand-written tests)
and which format it validates cannot be read from the AST without naming each one, so the
figure would be a list typed by hand; it is left out.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agentic_chunking._files import write_text_atomic  # noqa: E402

LONGEST_FUNCTION = 60
LONGEST_MODULE = 600
DEFAULT_ROOT = REPO / "agentic_chunking"
DEFAULT_JSON = REPO / "benchmarks" / "results" / "code_figures.json"


@dataclass(frozen=True, slots=True)
class Module:
    """One source file: its dotted name, path relative to the root's parent, and tree."""

    name: str
    path: str
    is_package: bool
    lines: int
    tree: ast.Module

    @property
    def package(self) -> str:
        """The package the module's relative imports start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]


@dataclass
class Figures:
    """What ``measure`` found; ``as_json`` is what the results file holds."""

    long_functions: list[str] = field(default_factory=list)
    long_modules: list[str] = field(default_factory=list)
    private_imports: list[str] = field(default_factory=list)
    public_names: dict[str, list[str]] = field(default_factory=dict)
    beside_all: dict[str, list[str]] = field(default_factory=dict)
    collisions: dict[str, list[str]] = field(default_factory=dict)
    circles: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """The headline figures."""
        distinct = {name for names in self.public_names.values() for name in names}
        return {
            "functions_over_60_lines": len(self.long_functions),
            "modules_over_600_lines": len(self.long_modules),
            "imports_of_another_packages_private_modules": len(self.private_imports),
            "public_names": sum(len(names) for names in self.public_names.values()),
            "public_names_distinct": len(distinct),
            "names_beside_all": sum(len(names) for names in self.beside_all.values()),
            "public_name_collisions": len(self.collisions),
            "import_circles": len(self.circles),
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "figures": self.counts(),
            "functions_over_60_lines": self.long_functions,
            "modules_over_600_lines": self.long_modules,
            "imports_of_another_packages_private_modules": self.private_imports,
            "public_names_per_module": {m: len(n) for m, n in self.public_names.items()},
            "names_beside_all_per_module": {m: len(n) for m, n in self.beside_all.items()},
            "public_name_collisions": self.collisions,
            "import_circles": self.circles,
        }


def read_modules(root: Path) -> dict[str, Module]:
    """Every ``.py`` file under ``root`` (a package folder), by dotted name."""
    modules: dict[str, Module] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        text = path.read_text(encoding="utf-8")
        modules[name] = Module(
            name=name,
            path=path.relative_to(root.parent).as_posix(),
            is_package=is_package,
            lines=len(text.splitlines()),
            tree=ast.parse(text, filename=str(path)),
        )
    return modules


def _functions(node: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.AST]]:
    """Every function under ``node`` with its qualified name."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = f"{prefix}{child.name}"
            if not isinstance(child, ast.ClassDef):
                yield name, child
            yield from _functions(child, f"{name}.")
        else:
            yield from _functions(child, prefix)


def _span(node: ast.AST) -> int:
    return int(getattr(node, "end_lineno", 0)) - int(getattr(node, "lineno", 0)) + 1


def _imports(module: Module, modules: Mapping[str, Module]) -> Iterator[tuple[int, list[str]]]:
    """Each import statement of ``module``: its line and the dotted modules it names (a
    ``from x import y`` names ``x.y`` when that is a module, else ``x``)."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            named = [
                f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target
                for alias in node.names
            ]
            yield node.lineno, list(dict.fromkeys(named))
        elif isinstance(node, ast.Import):
            yield node.lineno, [alias.name for alias in node.names]


def _is_private(segment: str) -> bool:
    return segment.startswith("_") and not segment.startswith("__")


def private_import(importer: Module, target: str, root: str) -> bool:
    """Whether ``importer`` importing ``target`` reaches into another package's private
    module (the rule of the module's docstring)."""
    parts = target.split(".")
    if parts[0] != root or len(parts) < 3:  # outside, the root itself, or a root module
        return False
    package = ".".join(parts[:2])
    if importer.name == package or importer.name.startswith(package + "."):
        return False
    return any(_is_private(segment) for segment in parts[2:])


def import_graph(modules: Mapping[str, Module]) -> dict[str, set[str]]:
    """Module -> the modules of the tree it imports (tests/test_layout.py checks its layers
    and circles on this graph)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for name, module in modules.items():
        for _, targets in _imports(module, modules):
            for target in targets:
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def import_circles(graph: Mapping[str, set[str]]) -> list[str]:
    """Each circle of ``graph`` found by a depth-first walk, as ``a -> b -> a``."""
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


def _declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        named = any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
        if named and isinstance(value, ast.List | ast.Tuple):
            return [
                e.value
                for e in value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            ]
    return None


def _defined(tree: ast.Module) -> set[str]:
    """The names a module defines at its top level (no imports)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def public_names(modules: Mapping[str, Module], root: str) -> dict[str, list[str]]:
    """Each public module's public names (the rule of the module's docstring)."""
    found: dict[str, list[str]] = {}
    for name, module in modules.items():
        if any(_is_private(segment) for segment in name.split(".")[1:]):
            continue
        if name.split(".")[-1] == "__main__":
            continue
        declared = _declared_all(module.tree)
        found[name] = (
            declared
            if declared is not None
            else sorted(n for n in _defined(module.tree) if not n.startswith("_"))
        )
    return found


def beside_all(
    modules: Mapping[str, Module], names: Mapping[str, list[str]]
) -> dict[str, list[str]]:
    """For each public module with ``__all__``, the public names its top-level imports from
    the tree bind that ``__all__`` leaves out."""
    found: dict[str, list[str]] = {}
    for name in names:
        tree = modules[name].tree
        declared = _declared_all(tree)
        if declared is None:
            continue
        bound = {  # from the tree itself: a module's own stdlib imports are no re-export
            alias.asname or alias.name
            for node in tree.body
            if isinstance(node, ast.ImportFrom)
            and (node.level or (node.module or "").split(".")[0] == name.split(".")[0])
            for alias in node.names
        }
        found[name] = sorted(n for n in bound - set(declared) if not n.startswith("_"))
    return found


def _origin(modules: Mapping[str, Module], module: str, name: str, depth: int = 0) -> str:
    """Where ``name`` as seen in ``module`` is defined, followed through ``from ... import``
    (including imports under ``if TYPE_CHECKING:``), as ``module:name``."""
    source = modules.get(module)
    if source is None or depth > 20:
        return f"{module}:{name}"
    if name in _defined(source.tree):
        return f"{module}:{name}"
    if f"{module}.{name}" in modules:
        return f"{module}.{name}"
    for node in ast.walk(source.tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) != name:
                    continue
                if node.level:
                    base = source.package.split(".")
                    base = base[: len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                return _origin(modules, target, alias.name, depth + 1)
    # A name a lazy ``__getattr__`` serves from a table of strings: read as defined here.
    return f"{module}:{name}"


def collisions(
    modules: Mapping[str, Module], names: Mapping[str, list[str]]
) -> dict[str, list[str]]:
    """Each name exported by public modules with different definitions: the definitions."""
    origins: dict[str, set[str]] = defaultdict(set)
    for module, exported in names.items():
        for name in exported:
            origins[name].add(_origin(modules, module, name))
    return {name: sorted(found) for name, found in sorted(origins.items()) if len(found) > 1}


def measure(root: Path) -> Figures:
    """Every figure of the package folder ``root``."""
    modules = read_modules(root)
    top = root.name
    figures = Figures()
    for module in modules.values():
        for qualified, node in _functions(module.tree):
            if _span(node) > LONGEST_FUNCTION:
                figures.long_functions.append(f"{module.path}:{qualified} ({_span(node)})")
        if module.lines > LONGEST_MODULE:
            figures.long_modules.append(f"{module.path} ({module.lines})")
        for line, targets in _imports(module, modules):
            reached = [t for t in targets if private_import(module, t, top)]
            if reached:
                figures.private_imports.append(f"{module.path}:{line} -> {', '.join(reached)}")
    figures.long_functions.sort(key=lambda entry: -int(entry.rsplit("(", 1)[1][:-1]))
    figures.long_modules.sort(key=lambda entry: -int(entry.rsplit("(", 1)[1][:-1]))
    figures.public_names = public_names(modules, top)
    figures.beside_all = beside_all(modules, figures.public_names)
    figures.collisions = collisions(modules, figures.public_names)
    figures.circles = import_circles(import_graph(modules))
    return figures


def table(figures: Figures) -> str:
    """The figures as a plain-text table, then the lists behind them."""
    counts = figures.counts()
    width = max(map(len, counts))
    lines = [f"{label:<{width}}  {value:>5}" for label, value in counts.items()]
    for title, entries in (
        ("functions over 60 lines", figures.long_functions),
        ("modules over 600 lines", figures.long_modules),
        ("imports of another package's private modules", figures.private_imports),
        ("import circles", figures.circles),
    ):
        lines += ["", f"{title}:", *(f"  {entry}" for entry in entries)]
    lines += ["", "public names per module:"]
    lines += [f"  {module}: {len(names)}" for module, names in figures.public_names.items()]
    lines += ["", "public name collisions:"]
    lines += [f"  {name}: {', '.join(where)}" for name, where in figures.collisions.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="the package folder")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write")
    args = parser.parse_args(argv)
    if not (args.root / "__init__.py").is_file():
        parser.error(f"{args.root} is not a package folder (no __init__.py): give --root DIR")
    figures = measure(args.root)
    print(table(figures))
    text = json.dumps(figures.as_json(), indent=2, ensure_ascii=False) + "\n"
    write_text_atomic(args.json, text)
    print(f"\nfigures written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
