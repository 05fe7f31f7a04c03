"""The words the offline router reads questions with, kept as data: one TOML file per language.

Every ``*.toml`` file in this folder is a language (``en.toml`` first, then by name). Lists of
the same key are merged across languages, so a new phrase or a new language is an edit of data;
single values (texts, flags) come from the first language that has them. An entry is a phrase,
possibly with regular-expression syntax for inflections ("trend\\w*").

``cue`` compiles a list into one pattern, each language's entries matched as whole words or not
as its ``word_boundaries`` flag says; ``alternation`` gives the entries as a group to embed in a
larger pattern.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).parent
FIRST = "en"


@dataclass(frozen=True)
class Language:
    code: str
    word_boundaries: bool
    tables: dict[str, Any]

    def get(self, path: str) -> Any:
        """The value at a dotted ``path`` ("direction.in"), or None."""
        node: Any = self.tables
        for key in path.split("."):
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return node


def _order(path: Path) -> tuple[bool, str]:
    return (path.stem != FIRST, path.stem)


@cache
def languages() -> tuple[Language, ...]:
    """Every language file in this folder, English first."""
    found = []
    for path in sorted(FOLDER.glob("*.toml"), key=_order):
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
        bounded = tables.get("language", {}).get("word_boundaries", True)
        found.append(Language(path.stem, bool(bounded), tables))
    return tuple(found)


def language(code: str) -> Language | None:
    """The language file of ``code``; None for a language FinSync has none for."""
    return next((found for found in languages() if found.code == code), None)


def words(path: str) -> list[str]:
    """The entries of the list at ``path`` in every language, in file order."""
    return [entry for language in languages() for entry in language.get(path) or []]


def text(path: str) -> Any:
    """A single value at ``path``: from the first language that has it."""
    return next((v for lang in languages() if (v := lang.get(path)) is not None), None)


def table(path: str) -> dict[str, Any]:
    """The table at ``path`` merged across languages; lists under one key are joined."""
    merged: dict[str, Any] = {}
    for language in languages():
        for key, value in (language.get(path) or {}).items():
            if isinstance(value, list) and isinstance(merged.get(key), list):
                merged[key] = merged[key] + value
            else:
                merged.setdefault(key, value)
    return merged


def alternation(path: str) -> str:
    """The entries at ``path`` as one non-capturing group, for a larger pattern."""
    return "(?:" + "|".join(words(path)) + ")"


def cue_pattern(path: str) -> str:
    """The entries at ``path`` as a pattern: whole words in languages that have word
    boundaries, anywhere in those (such as Arabic) whose words take prefixes."""
    parts = []
    for language in languages():
        entries = language.get(path)
        if entries:
            group = "(?:" + "|".join(entries) + ")"
            parts.append(rf"\b{group}\b" if language.word_boundaries else group)
    return "|".join(parts) or r"(?!)"


def cue(path: str) -> re.Pattern[str]:
    """The compiled ``cue_pattern``."""
    return re.compile(cue_pattern(path))
