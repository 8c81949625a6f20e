"""scripts/code_figures.py counts what its docstring says, on a small package made here.

Each figure of the fake tree below is known by construction, one case on each side of
every rule (a function of 61 lines and one of 60; a module of 601 lines and one of 600;
private imports of another package, of the importer's own package, of the root's shared
records; a re-export that is the same object and a name defined twice), so a rule that
stops firing, or fires where it must not, fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from script_loading import load_script

ROOT = Path(__file__).resolve().parent.parent


code_figures = load_script("code_figures")


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function whose ``def`` line through its last line spans ``lines`` lines."""
    body = [f"{indent}    x = {i}" for i in range(lines - 2)]
    return "\n".join([f"{indent}def {name}() -> int:", *body, f"{indent}    return 0"]) + "\n"


BLANK_600 = "\n" * 600


def _tree(tmp_path: Path) -> Path:
    files = {
        "__init__.py": 'from .a import f\nfrom .a._impl import g as _g\n__all__ = ["f"]\n',
        "_models.py": "X = 1\n",
        "a/__init__.py": (
            "from ._impl import VERDICTS, f\n"
            "from ._impl import g as g\n"  # for the layers: beside __all__
            "from os import path\n"  # not from the tree: no re-export
            'from ._impl import K as _K\n__all__ = ["VERDICTS", "f"]\n'
        ),
        "a/_impl.py": (
            "from .._models import X\n"  # the root's shared records: aside
            "from . import _other\n"  # its own package's private module: fine
            "VERDICTS = ('a',)\n"
            + _function("f", 61)
            + _function("g", 60)
            + "class K:\n"
            + _function("m", 70, indent="    ")
        ),
        "a/_other.py": "\n" * 600,  # 600 lines: not over
        "b/__init__.py": (
            "import os\nCONST = 1\n\ndef public() -> None: ...\n\ndef _private() -> None: ...\n"
        ),
        "b/_impl.py": (
            "from ..a._impl import f\n"  # counted
            "from ..a import _impl\n"  # counted: a private module, named
            "from pkg.a import f as public_f\n"  # public: not counted
            "def late() -> None:\n"
            "    import pkg.a._impl\n"  # counted: inside a function too
            + BLANK_600  # 605 lines in all: over
        ),
        "c/__init__.py": 'from ._v import VERDICTS\n__all__ = ["VERDICTS"]\n',
        "c/_v.py": "VERDICTS = ('c',)\n",
        "d/__init__.py": "",
        "d/_x.py": "from . import _y\n",
        "d/_y.py": "from ._x import thing\n",
    }
    package = tmp_path / "pkg"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_each_figure_of_a_known_tree(tmp_path: Path) -> None:
    figures = code_figures.measure(_tree(tmp_path), formats={})
    assert figures.long_functions == ["pkg/a/_impl.py:K.m (70)", "pkg/a/_impl.py:f (61)"]
    assert figures.long_modules == ["pkg/b/_impl.py (605)"]
    assert figures.private_imports == [
        "pkg/__init__.py:2 -> pkg.a._impl",
        "pkg/b/_impl.py:1 -> pkg.a._impl",
        "pkg/b/_impl.py:2 -> pkg.a._impl",
        "pkg/b/_impl.py:5 -> pkg.a._impl",
    ]
    assert figures.public_names == {
        "pkg": ["f"],
        "pkg.a": ["VERDICTS", "f"],
        "pkg.b": ["CONST", "public"],
        "pkg.c": ["VERDICTS"],
        "pkg.d": [],
    }
    assert figures.beside_all == {"pkg": [], "pkg.a": ["g"], "pkg.c": []}
    # f is one object re-exported twice; VERDICTS two objects of one name.
    assert figures.collisions == {"VERDICTS": ["pkg.a._impl:VERDICTS", "pkg.c._v:VERDICTS"]}
    assert figures.circles == ["pkg.d._x -> pkg.d._y -> pkg.d._x"]
    assert figures.counts() == {
        "functions_over_60_lines": 2,
        "modules_over_600_lines": 1,
        "imports_of_another_packages_private_modules": 4,
        "public_names": 6,
        "public_names_distinct": 4,
        "names_beside_all": 1,
        "public_name_collisions": 1,
        "import_circles": 1,
        "saved_formats": 0,
        "saved_formats_with_one_validator": 0,
    }


def test_the_command_prints_the_table_and_writes_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out" / "figures.json"
    target.parent.mkdir()
    assert code_figures.main(["--root", str(_tree(tmp_path)), "--json", str(target)]) == 0
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written["figures"]["imports_of_another_packages_private_modules"] == 4
    assert written["import_circles"] == ["pkg.d._x -> pkg.d._y -> pkg.d._x"]
    assert written["public_names_per_module"]["pkg.b"] == 2
    printed = capsys.readouterr().out
    assert "imports_of_another_packages_private_modules      4" in printed
    assert "  pkg/b/_impl.py (605)" in printed


def test_a_folder_that_is_no_package_is_one_plain_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        code_figures.main(["--root", str(tmp_path), "--json", str(tmp_path / "x.json")])
    assert stopped.value.code == 2
    assert "is not a package folder" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


RECORD_TREE = {
    "__init__.py": "",
    "_schema.py": (
        "from pydantic import BaseModel\n"
        "class Record(BaseModel):\n    Alpha: str\n    Beta: int\n"
        "def problem(data):\n    Record.model_validate(data)\n"
    ),
    "_models.py": (
        "from ._schema import problem\n"
        "class Thing:\n"
        "    @classmethod\n"
        "    def from_dict(cls, data):\n"
        "        cls._check(data)\n"  # reaches the validator through a method of its own
        "        return cls(data['Alpha'], data.get('Beta'))\n"
        "    @classmethod\n"
        "    def _check(cls, data):\n        problem(data)\n"
    ),
    "io/__init__.py": "",
    "io/_read.py": (
        "def read(path):\n"
        "    from .._models import Thing\n"  # a lazy import is followed too
        "    return Thing.from_dict({})\n"
    ),
    "io/_plain.py": (  # the typed record a reader builds: no schema, no reading
        "from dataclasses import dataclass\n"
        "@dataclass\nclass Plain:\n    Alpha: str\n    Beta: int\n"
    ),
}
RECORD = code_figures.SavedFormat(
    "rec._schema:Record",
    ("rec._models:Thing.from_dict", "rec.io._read:read"),
    frozenset({"Alpha", "Beta"}),
)


def _record_tree(tmp_path: Path, extra: dict[str, str]) -> Path:
    package = tmp_path / "rec"
    for name, text in {**RECORD_TREE, **extra}.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_a_format_read_through_its_one_validator_has_one(tmp_path: Path) -> None:
    figures = code_figures.measure(_record_tree(tmp_path, {}), formats={"record": RECORD})
    assert figures.saved_formats == {"record": []}
    assert figures.counts()["saved_formats_with_one_validator"] == 1


def test_a_second_validator_or_a_reader_on_its_own_is_named(tmp_path: Path) -> None:
    extra = {
        "io/_own.py": "def load(data):\n    return data['Alpha'], data.get('Beta')\n",
        "io/_copy.py": (
            "from pydantic import BaseModel\n"
            "class _Base(BaseModel):\n    pass\n"
            "class Again(_Base):\n    Alpha: str\n    Beta: int\n    Gamma: str = ''\n"
        ),
    }
    formats = {
        "record": code_figures.SavedFormat(
            RECORD.validator,
            (*RECORD.readers, "rec.io._own:load", "rec.io._read:gone"),
            RECORD.keys,
        ),
        "other": code_figures.SavedFormat("rec._schema:Missing", (), frozenset({"Zeta"})),
    }
    figures = code_figures.measure(_record_tree(tmp_path, extra), formats=formats)
    assert figures.saved_formats == {
        "record": [
            "the reader rec.io._own:load does not reach rec._schema:Record",
            "the reader rec.io._read:gone is not defined",
            "rec.io._copy:Again declares the record's schema again",
            "rec.io._own:load reads the record without rec._schema:Record",
        ],
        "other": ["the validator rec._schema:Missing is not defined"],
    }
    assert figures.counts()["saved_formats"] == 2
    assert figures.counts()["saved_formats_with_one_validator"] == 0


def test_every_saved_format_of_the_package_has_one_validator() -> None:
    figures = code_figures.measure(ROOT / "agentic_chunking")
    assert figures.saved_formats
    assert {title: p for title, p in figures.saved_formats.items() if p} == {}
