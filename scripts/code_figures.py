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

- **One validator per saved format**: what a validator is cannot be read from the AST
  without naming it, so ``SAVED_FORMATS`` declares, for each format a file holds, its one
  validator (``module:qualified name``), the readers of files of it and the record's own
  keys; what is *checked* is read from the AST. A format has one validator when: the
  validator is defined; every reader reaches it (a reference graph: each definition to the
  definitions its body names, through imports, ``cls.x``/``self.x`` and ``Class.method``;
  a class's fields included, so a pydantic model reaches the models of its fields); and
  outside the validator's module no pydantic model (``BaseModel`` among its bases, through
  the tree's classes too) declares every key as a field (a copy of the record's schema)
  and no function reads every key (``data["k"]``, ``data.get("k")``) without reaching the
  validator (a reader validating on its own). Each failure is listed. Left out: the
  corpus ledger (SQLite rows checked by hand in ``corpus/_ledger``'s one reader; its
  chunk records are not validated through the chunk reading on resume) and the judge's
  calibration file (checked by hand in its one reader, ``load_calibration``).
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
class SavedFormat:
    """A format files hold: its one validator, its readers (``module:qualified name``
    each, modules named from the root package) and the keys only its records have."""

    validator: str
    readers: tuple[str, ...]
    keys: frozenset[str]


SAVED_FORMATS: dict[str, SavedFormat] = {
    "chunk record (a corpus output's line or row; a response's Chunks)": SavedFormat(
        "agentic_chunking._schema:ChunkRecord",
        (
            "agentic_chunking._models:AgenticChunk.from_dict",
            "agentic_chunking.adapters._loading:read_chunks",
            "agentic_chunking.findings._input:validate_record",
        ),
        frozenset({"ChunkId", "DocumentId", "ThematicCategory", "Propositions"}),
    ),
    "response (what chunk writes; kept in a results file)": SavedFormat(
        "agentic_chunking._schema:ResponseRecord",
        (
            "agentic_chunking._models:AgenticResponse.from_dict",
            "agentic_chunking.findings._input:validate_input",
            "agentic_chunking.report._schema:validate_results",
        ),
        frozenset({"Chunks", "IsSuccess", "ErrorDetail"}),
    ),
    "results file (reports/results-<model>.json)": SavedFormat(
        "agentic_chunking.report._schema:validate_results",
        (
            "agentic_chunking.report._results:RunResults.from_dict",
            "agentic_chunking.report._results:load_results",
        ),
        frozenset({"cases", "cassette_set", "prompt_versions"}),
    ),
    "case file (cases/TC-0NN.yaml)": SavedFormat(
        "agentic_chunking.suite._cases:Case",
        ("agentic_chunking.suite._cases:load_case",),
        frozenset({"document_id", "max_tokens_per_batch", "expect", "inputs"}),
    ),
    "reference replies (cases/reference_replies/TC-0NN.yaml)": SavedFormat(
        "agentic_chunking.suite._replies:ReferenceReplies",
        ("agentic_chunking.suite._replies:load_replies",),
        frozenset({"input_sha256", "extraction", "grouping", "grouping_raw"}),
    ),
    "cassette (cassettes/<model>/TC-0NN.yaml)": SavedFormat(
        "agentic_chunking.suite._cassette_check:check_cassette",
        (
            "agentic_chunking.suite.plugin:pytest_runtest_setup",
            "agentic_chunking.cli._calibrate:_recorder",
        ),
        frozenset({"interactions", "version"}),
    ),
    "reply cache entry (chunk --resume)": SavedFormat(
        "agentic_chunking.pipeline._cache:_entry_problem",
        ("agentic_chunking.pipeline._cache:ReplyCache.get",),
        frozenset({"request_sha256", "reply_sha256", "text", "stop_reason"}),
    ),
}
"""Every saved format and its one validator (``python scripts/code_figures.py`` checks
each entry against the AST: the rule of the module's docstring)."""


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
    saved_formats: dict[str, list[str]] = field(default_factory=dict)
    """Each declared saved format: what stops it having one validator (empty: it has)."""

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
            "saved_formats": len(self.saved_formats),
            "saved_formats_with_one_validator": sum(
                not problems for problems in self.saved_formats.values()
            ),
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
            "saved_formats_problems": self.saved_formats,
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


def _definitions(module: Module) -> dict[str, ast.AST]:
    """``module``'s top-level functions, classes and assigned names, and its classes'
    methods (``Class.method``), by qualified name."""
    found: dict[str, ast.AST] = {}
    for node in module.tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        if isinstance(node, ast.ClassDef):
            for child in node.body:
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{node.name}.{child.name}"] = child
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update({t.id: node for t in targets if isinstance(t, ast.Name)})
    return found


class _References:
    """The reference graph of a tree: each definition (``module:qualified name``) to the
    definitions its body names (the rule of the module's docstring)."""

    def __init__(self, modules: Mapping[str, Module]) -> None:
        self.modules = modules
        self.definitions = {name: _definitions(module) for name, module in modules.items()}

    def resolve(self, module: str, name: str) -> str | None:
        """The definition ``name`` (``X`` or ``X.attr``) means in ``module``, or None."""
        head, _, attribute = name.partition(".")
        origin = _origin(self.modules, module, head)
        where, _, defined = origin.partition(":")
        qualified = f"{defined}.{attribute}" if attribute else defined
        if defined and qualified in self.definitions.get(where, {}):
            return f"{where}:{qualified}"
        return None

    def named(self, module: str, node: ast.AST, owner: str | None) -> set[str]:
        """The definitions ``node`` names (a class: its fields, bases and other statements
        but not its methods; ``owner``: the class of a method, for ``cls.x``/``self.x``)."""
        if isinstance(node, ast.ClassDef):
            parts: list[ast.AST] = [*node.bases, *node.decorator_list]
            parts += [n for n in node.body if not isinstance(n, ast.FunctionDef)]
        else:
            parts = [node]
        found: set[str] = set()
        for part in parts:
            for child in ast.walk(part):
                name = None
                if isinstance(child, ast.Name):
                    name = child.id
                elif isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
                    base = child.value.id
                    if base in ("cls", "self") and owner is not None:
                        base = owner
                    name = f"{base}.{child.attr}"
                target = self.resolve(module, name) if name else None
                if target is not None:
                    found.add(target)
        return found

    def reaches(self, module: str, node: ast.AST, owner: str | None, goal: str) -> bool:
        """Whether ``node`` of ``module`` reaches the definition ``goal``."""
        seen: set[str] = set()
        todo = sorted(self.named(module, node, owner))
        while todo:
            current = todo.pop()
            if current == goal:
                return True
            if current in seen:
                continue
            seen.add(current)
            where, _, qualified = current.partition(":")
            owner_name = qualified.split(".")[0] if "." in qualified else None
            target = self.definitions[where][qualified]
            todo += self.named(where, target, owner_name) - seen
        return False


def _read_keys(node: ast.AST) -> set[str]:
    """The string keys ``node`` reads: ``data["k"]``, ``data.get("k")``, ``data.pop("k")``."""
    keys: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Subscript) and isinstance(child.slice, ast.Constant):
            if isinstance(child.slice.value, str):
                keys.add(child.slice.value)
        elif (
            isinstance(child, ast.Call)
            and isinstance(child.func, ast.Attribute)
            and child.func.attr in ("get", "pop")
            and child.args
            and isinstance(child.args[0], ast.Constant)
            and isinstance(child.args[0].value, str)
        ):
            keys.add(child.args[0].value)
    return keys


def _is_model(graph: _References, module: str, node: ast.ClassDef, depth: int = 0) -> bool:
    """Whether ``node`` is a pydantic model: ``BaseModel`` among its bases, directly or
    through classes of the tree."""
    for base in node.bases:
        name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
        if name == "BaseModel":
            return True
        target = graph.resolve(module, name) if isinstance(base, ast.Name) else None
        if target is not None and depth < 20:
            where, _, qualified = target.partition(":")
            parent = graph.definitions[where][qualified]
            if isinstance(parent, ast.ClassDef) and _is_model(graph, where, parent, depth + 1):
                return True
    return False


def _fields(node: ast.ClassDef) -> set[str]:
    return {
        n.target.id
        for n in node.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }


def format_problems(
    modules: Mapping[str, Module], formats: Mapping[str, SavedFormat]
) -> dict[str, list[str]]:
    """For each saved format, what stops it having one validator (the rule of the module's
    docstring); an empty list when it has one."""
    graph = _References(modules)
    found: dict[str, list[str]] = {}
    for title, saved in formats.items():
        home, _, validator = saved.validator.partition(":")
        problems = []
        if validator not in graph.definitions.get(home, {}):
            problems.append(f"the validator {saved.validator} is not defined")
        for reader in saved.readers:
            where, _, qualified = reader.partition(":")
            node = graph.definitions.get(where, {}).get(qualified)
            owner = qualified.split(".")[0] if "." in qualified else None
            if node is None:
                problems.append(f"the reader {reader} is not defined")
            elif not graph.reaches(where, node, owner, saved.validator):
                problems.append(f"the reader {reader} does not reach {saved.validator}")
        for name, module in modules.items():
            if name == home:
                continue
            for node in ast.walk(module.tree):
                if (
                    isinstance(node, ast.ClassDef)
                    and saved.keys <= _fields(node)
                    and _is_model(graph, name, node)
                ):
                    problems.append(f"{name}:{node.name} declares the record's schema again")
            for qualified, node in _functions(module.tree):
                owner = qualified.split(".")[0] if "." in qualified else None
                if saved.keys <= _read_keys(node) and not graph.reaches(
                    name, node, owner, saved.validator
                ):
                    problems.append(
                        f"{name}:{qualified} reads the record without {saved.validator}"
                    )
        found[title] = problems
    return found


def measure(root: Path, formats: Mapping[str, SavedFormat] | None = None) -> Figures:
    """Every figure of the package folder ``root`` (``formats``: the saved formats it has,
    ``SAVED_FORMATS`` by default)."""
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
    figures.saved_formats = format_problems(modules, SAVED_FORMATS if formats is None else formats)
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
    lines += ["", "saved formats (one validator each):"]
    for title, problems in figures.saved_formats.items():
        lines.append(f"  {title}: {'one validator' if not problems else 'NOT ONE'}")
        lines += [f"    {problem}" for problem in problems]
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
