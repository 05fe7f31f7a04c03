"""Elasticsearch filter and sort clauses from ``query_builders`` → SQLite ``WHERE``/``ORDER BY``.

The embedded backend compiles the very clauses the Elasticsearch backend sends, so the filter
semantics have one definition and the two backends cannot drift apart. A clause this compiler
does not know raises instead of being silently dropped.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from datetime import date, timedelta
from typing import Any

Where = tuple[str, list[object]]

_RANGE_OPS = {"gte": ">=", "gt": ">", "lte": "<=", "lt": "<"}
_DIRECTIONS = {"asc": ("ASC", ">"), "desc": ("DESC", "<")}
_EPOCH = date(1970, 1, 1)
_MS_PER_DAY = 86_400_000
_FTS_TOKEN = re.compile(r"\w+")


def fold(text: str) -> str:
    """Case folding for case-insensitive matching, applied to stored text and to needles alike."""
    return text.lower()


def _column(field: str, columns: Collection[str]) -> str:
    name = field.removesuffix(".keyword")
    if name not in columns:
        raise ValueError(f"no column for field {field!r}")
    return name


def _literal_substring(pattern: str) -> str:
    """The text inside ``*text*``, unescaped; any other wildcard pattern is unsupported."""
    if len(pattern) < 2 or not pattern.startswith("*") or not pattern.endswith("*"):
        raise ValueError(f"unsupported wildcard pattern {pattern!r}")
    chars: list[str] = []
    escaped = False
    for ch in pattern[1:-1]:
        if escaped:
            chars.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in "*?":
            raise ValueError(f"unsupported wildcard pattern {pattern!r}")
        else:
            chars.append(ch)
    if escaped:
        raise ValueError(f"unsupported wildcard pattern {pattern!r}")
    return "".join(chars)


def _clause(clause: Mapping[str, Any], columns: Collection[str]) -> Where:
    [(kind, body)] = clause.items()
    if kind == "bool":
        return _bool(body.get("filter", []), body.get("must_not", []), columns)
    [(field, spec)] = body.items()
    if kind == "term":
        return f"{_column(field, columns)} = ?", [spec]
    if kind == "terms":
        marks = ", ".join("?" * len(spec))
        return f"{_column(field, columns)} IN ({marks})", list(spec)
    if kind == "range":
        column = _column(field, columns)
        parts = [f"{column} {_RANGE_OPS[op]} ?" for op in spec]
        return " AND ".join(parts), list(spec.values())
    if kind == "wildcard":
        column = _column(field, columns)
        needle = _literal_substring(spec["value"])
        if spec.get("case_insensitive"):
            column, needle = _column(f"{column}_folded", columns), fold(needle)
        return f"instr({column}, ?) > 0", [needle]
    raise ValueError(f"unsupported filter clause {kind!r}")


def _bool(
    filters: Sequence[Mapping[str, Any]],
    must_not: Sequence[Mapping[str, Any]],
    columns: Collection[str],
) -> Where:
    parts: list[str] = []
    params: list[object] = []
    for clause, negate in [(c, False) for c in filters] + [(c, True) for c in must_not]:
        sql, values = _clause(clause, columns)
        parts.append(f"NOT ({sql})" if negate else f"({sql})")
        params.extend(values)
    return " AND ".join(parts) or "1", params


def where(query: Mapping[str, Any], columns: Collection[str]) -> Where:
    """One query clause (usually a ``bool``) → SQL condition and its positional parameters."""
    return _clause(query, columns)


def _sort_pairs(sort: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    return [next(iter(item.items())) for item in sort]


def order_by(sort: Sequence[Mapping[str, str]], columns: Collection[str]) -> str:
    return ", ".join(
        f"{_column(field, columns)} {_DIRECTIONS[order][0]}" for field, order in _sort_pairs(sort)
    )


def _sort_value(field: str, value: Any) -> Any:
    if field == "date":
        return (date.fromisoformat(value) - _EPOCH).days * _MS_PER_DAY
    return value


def sort_values(sort: Sequence[Mapping[str, str]], row: Mapping[str, Any]) -> list[Any]:
    """A row's ``sort`` values as Elasticsearch reports them (dates in epoch milliseconds), so
    a listing cursor means the same on both backends."""
    return [_sort_value(field, row[field]) for field, _ in _sort_pairs(sort)]


def _column_value(field: str, value: Any) -> Any:
    if field == "date":
        return (_EPOCH + timedelta(milliseconds=int(value))).isoformat()
    return value


def search_after(
    sort: Sequence[Mapping[str, str]], after: Sequence[Any], columns: Collection[str]
) -> Where:
    """Rows strictly after ``after`` in ``sort`` order (keyset pagination, like ``search_after``).

    The leading column also gets a plain range so SQLite can seek in its index instead of
    filtering every earlier row.
    """
    pairs = _sort_pairs(sort)
    if len(after) != len(pairs):
        raise ValueError(f"after needs {len(pairs)} values, got {len(after)}")
    values = [_column_value(field, v) for (field, _), v in zip(pairs, after, strict=True)]
    names = [_column(field, columns) for field, _ in pairs]
    ops = [_DIRECTIONS[order][1] for _, order in pairs]
    branches = []
    params: list[object] = [values[0]]
    for i in range(len(pairs)):
        equal = [f"{name} = ?" for name in names[:i]]
        branches.append(" AND ".join([*equal, f"{names[i]} {ops[i]} ?"]))
        params.extend(values[: i + 1])
    lead = f"{names[0]} {ops[0]}= ?"
    return f"{lead} AND (({') OR ('.join(branches)}))", params


def fts_query(text: str) -> str | None:
    """Free text → an FTS5 query of quoted tokens OR-ed together (like ``multi_match``).

    Every token is a quoted string of word characters, so no user text becomes FTS syntax.
    """
    tokens = _FTS_TOKEN.findall(text)
    return " OR ".join(f'"{token}"' for token in tokens) if tokens else None
