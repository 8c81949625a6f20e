"""The scripts under ``scripts/`` loaded as modules, for the tests that check them and the
tests that share their code (``tests/test_layout.py`` reads the import graph with
``scripts/code_figures.py``'s, so the layout test and the figures count one graph)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` as the module ``NAME``, loaded once per process (registered in
    ``sys.modules``: dataclasses look their module up by name)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
