"""settings.py is the bottom layer; import-linter checks the packages above it (make test runs
``lint-imports``), but settings.py is a module, which import-linter cannot take as a layer."""

from __future__ import annotations

import ast
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
HIGHER = {"app", "ui", "api", "llm", "elastic", "scripts"}


def _imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_settings_imports_no_layer_above_it():
    imported = _imported(PROJECT / "settings.py")
    assert "pydantic_settings" in imported  # the check reads real imports
    assert not imported & HIGHER
