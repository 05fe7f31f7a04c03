"""The query spec → SQLite: ``WHERE`` conditions, ``ORDER BY``, keysets and whole statements.

Every node type has one rule in a table; a node without a rule raises ``UnsupportedQuery``
instead of being dropped. Calendar buckets call the SQL function ``bucket_start``, which the
backend registers from ``elastic.model.calendar``, so both engines share one calendar.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar

from elastic.model.calendar import bucket_start
from elastic.model.plan import Interval
from elastic.query.spec import (
    And,
    Buckets,
    CellKey,
    Contains,
    Eq,
    FacetsQuery,
    Filter,
    Groups,
    In,
    Level,
    Not,
    Range,
    Raw,
    Search,
    SortKey,
    SortValue,
    StatementsQuery,
    StatsFound,
    StatsQuery,
    TextRanking,
    UnsupportedQuery,
    VectorRanking,
    rule_for,
)
from elastic.query.spec import Collection as Kind

Sql = tuple[str, list[object]]
N = TypeVar("N")

_RANGE_OPS = {"gte": ">=", "gt": ">", "lte": "<=", "lt": "<"}
_FTS_TOKEN = re.compile(r"\w+")
BUCKET_FUNCTION = "bucket_start"
# What every chunk of a statement stores about the statement itself.
STATEMENT_FIELDS = (
    "bank_name", "account_name", "account_no", "statement_from", "statement_to", "source_file",
    "reconciliation",
    "file_name",
)  # fmt: skip


def fold(text: str) -> str:
    """Case folding for case-insensitive matching, applied to stored text and to needles alike."""
    return text.lower()


def sql_bucket_start(day: str, interval: str) -> str:
    """``bucket_start`` as the deterministic SQL function the backend registers."""
    return bucket_start(date.fromisoformat(day), Interval(interval)).isoformat()


def fts_weights(fields: Sequence[str]) -> dict[str, float]:
    """``name^boost`` fields as FTS5 columns and ``bm25()`` weights.

    A sub-field ("summary_text.words": the same text split on punctuation) folds into its
    column, since unicode61 already splits on punctuation; best_fields scoring counts the best
    field, hence the highest boost.
    """
    weights: dict[str, float] = {}
    for field in fields:
        name, _, boost = field.partition("^")
        column = name.partition(".")[0]
        weights[column] = max(weights.get(column, 0.0), float(boost or 1))
    return weights


def fts_query(text: str) -> str | None:
    """Free text → an FTS5 query of quoted tokens OR-ed together (like ``multi_match``).

    Every token is a quoted string of word characters, so no user text becomes FTS syntax.
    """
    tokens = _FTS_TOKEN.findall(text)
    return " OR ".join(f'"{token}"' for token in tokens) if tokens else None


@dataclass(frozen=True)
class Table:
    """A table a collection lives in: its columns, and what a search selects from it."""

    name: str
    columns: Collection[str]
    select: str = "*"

    def column(self, field: str) -> str:
        if field not in self.columns:
            raise UnsupportedQuery(f"{self.name} has no column for field {field!r}")
        return field


@dataclass(frozen=True)
class Schema:
    tables: Mapping[Kind, Table]
    fts_table: str
    fts_weights: Mapping[str, float]

    def __getitem__(self, kind: Kind) -> Table:
        return self.tables[kind]


def _rule(rules: Mapping[type, Callable[..., N]], node: object) -> Callable[..., N]:
    return rule_for(rules, node, "SQLite")


# -- filters ----------------------------------------------------------------------------------
def _value(value: object) -> object:
    if isinstance(value, date):
        return value.isoformat()
    return int(value) if isinstance(value, bool) else value


def _eq(node: Eq, table: Table) -> Sql:
    return f"{table.column(node.field)} = ?", [_value(node.value)]


def _in(node: In, table: Table) -> Sql:
    marks = ", ".join("?" * len(node.values))
    return f"{table.column(node.field)} IN ({marks})", [_value(v) for v in node.values]


def _range(node: Range, table: Table) -> Sql:
    column, bounds = table.column(node.field), node.bounds()
    if not bounds:
        return "1", []
    parts = [f"{column} {_RANGE_OPS[op]} ?" for op in bounds]
    return " AND ".join(parts), [_value(v) for v in bounds.values()]


def _contains(node: Contains, table: Table) -> Sql:
    """A substring of the field's folded twin column (``description_folded``)."""
    return f"instr({table.column(node.field + '_folded')}, ?) > 0", [fold(node.text)]


def _not(node: Not, table: Table) -> Sql:
    sql, params = where(node.clause, table)
    return f"NOT ({sql})", params


def _and(node: And, table: Table) -> Sql:
    parts: list[str] = []
    params: list[object] = []
    for clause in node.clauses:
        sql, values = where(clause, table)
        parts.append(f"({sql})")
        params.extend(values)
    return " AND ".join(parts) or "1", params


FILTERS: dict[type, Callable[[Any, Table], Sql]] = {
    Eq: _eq,
    In: _in,
    Range: _range,
    Contains: _contains,
    Not: _not,
    And: _and,
}


def where(node: Filter, table: Table) -> Sql:
    """A filter → an SQL condition and its positional parameters."""
    return _rule(FILTERS, node)(node, table)


# -- sorting and keysets ----------------------------------------------------------------------
def order_by(sort: Sequence[SortKey], table: Table) -> str:
    return ", ".join(
        f"{table.column(key.field)} {'DESC' if key.descending else 'ASC'}" for key in sort
    )


def keyset(sort: Sequence[SortKey], after: Sequence[SortValue], table: Table) -> Sql:
    """Rows strictly after ``after`` in ``sort`` order (like Elasticsearch's ``search_after``).

    The leading column also gets a plain range so SQLite can seek in its index instead of
    filtering every earlier row.
    """
    if len(after) != len(sort):
        raise UnsupportedQuery(f"after needs {len(sort)} values, got {len(after)}")
    names = [table.column(key.field) for key in sort]
    ops = ["<" if key.descending else ">" for key in sort]
    values = list(after)
    branches = []
    params: list[object] = [values[0]]
    for i in range(len(sort)):
        equal = [f"{name} = ?" for name in names[:i]]
        branches.append(" AND ".join([*equal, f"{names[i]} {ops[i]} ?"]))
        params.extend(values[: i + 1])
    lead = f"{names[0]} {ops[0]}= ?"
    return f"{lead} AND (({') OR ('.join(branches)}))", params


# -- statistics -------------------------------------------------------------------------------
def _stats_columns(column: str) -> str:
    return f"COUNT(*), COALESCE(SUM({column}), 0), MIN({column}), MAX({column})"


def _group_level(level: Groups, table: Table) -> str:
    return table.column(level.field)


def _bucket_level(level: Buckets, table: Table) -> str:
    return f"{BUCKET_FUNCTION}({table.column(level.field)}, '{Interval(level.interval).value}')"


LEVELS: dict[type, Callable[[Any, Table], str]] = {Groups: _group_level, Buckets: _bucket_level}


def stats_levels(query: StatsQuery) -> list[Level]:
    """Every level of every breakdown, once, in order of appearance."""
    levels: list[Level] = []
    for _, breakdown in query.breakdowns:
        levels.extend(level for level in breakdown if level not in levels)
    return levels


def _stats_query(query: StatsQuery, schema: Schema) -> dict[str, Sql]:
    """One pass over the rows for every breakdown: cells keyed by all levels at once, which
    :func:`rollup` sums into each breakdown.

    The inner query groups by the raw columns (a day, not its bucket), so ``bucket_start``
    runs once per day, not once per row: on 100k rows over 2,000 days, monthly buckets took
    44 ms this way and 260-390 ms calling it on every row. One scan for all breakdowns (the
    overall figure, its currencies, its groups) instead of one scan each.
    """
    table = schema[Kind.transactions]
    sql, params = where(query.where, table)
    column = table.column(query.stats.field)
    levels = stats_levels(query)
    # The span rides along in the same pass (NULL when no span is asked).
    span = table.column(query.span) if query.span is not None else "NULL"
    stats = (
        f"COUNT(*) AS n, COALESCE(SUM({column}), 0) AS s, MIN({column}) AS lo, "
        f"MAX({column}) AS hi, MIN({span}) AS first, MAX({span}) AS last"
    )
    if not levels:
        return {"cells": (f"SELECT {stats} FROM {table.name} WHERE {sql}", params)}
    keys = [_rule(LEVELS, level)(level, table) for level in levels]
    raw = ", ".join(sorted({table.column(level.field) for level in levels}))
    numbers = ", ".join(str(i) for i in range(1, len(keys) + 1))
    return {
        "cells": (
            f"SELECT {', '.join(keys)}, SUM(n), SUM(s), MIN(lo), MAX(hi), MIN(first), "
            f"MAX(last) FROM (SELECT {raw}, {stats} FROM {table.name} WHERE {sql} "
            f"GROUP BY {raw}) GROUP BY {numbers}",
            params,
        )
    }


def _merged(seen: Raw | None, cell: Raw) -> Raw:
    if seen is None:
        return cell
    lows = [v for v in (seen[2], cell[2]) if v is not None]
    highs = [v for v in (seen[3], cell[3]) if v is not None]
    return (
        seen[0] + cell[0],
        seen[1] + cell[1],
        min(lows) if lows else None,
        max(highs) if highs else None,
    )


def _top_groups(summed: dict[CellKey, Raw], depth: int, size: int) -> dict[CellKey, Raw]:
    """The cells whose value at ``depth`` is among the ``size`` most frequent within the
    cells they share the levels above with (ties by value)."""
    counts: dict[CellKey, dict[Any, int]] = {}
    for key, cell in summed.items():
        per = counts.setdefault(key[:depth], {})
        per[key[depth]] = per.get(key[depth], 0) + cell[0]
    kept = {
        outer: set(sorted(per, key=lambda v: (-per[v], v))[:size]) for outer, per in counts.items()
    }
    return {key: cell for key, cell in summed.items() if key[depth] in kept[key[:depth]]}


def rollup(query: StatsQuery, rows: Sequence[Sequence[Any]]) -> StatsFound:
    """The rows of the one-pass statement summed into each breakdown's non-empty cells, and
    the span over all of them.

    A ``Groups`` level keeps its ``size`` most frequent values within each cell of the levels
    above it, ties by value, as Elasticsearch's nested ``terms`` aggregations do; bucket keys
    become dates.
    """
    levels = stats_levels(query)
    width = len(levels)
    cells: dict[str, dict[CellKey, Raw]] = {}
    for name, breakdown in query.breakdowns:
        at = [levels.index(level) for level in breakdown]
        summed: dict[CellKey, Raw] = {}
        for row in rows:
            if not row[width]:
                continue  # an aggregate over no rows: its one row counts nothing
            key = tuple(
                date.fromisoformat(row[i]) if isinstance(levels[i], Buckets) else row[i] for i in at
            )
            summed[key] = _merged(summed.get(key), tuple(row[width : width + 4]))
        for depth, level in enumerate(breakdown):
            if isinstance(level, Groups):
                summed = _top_groups(summed, depth, level.size)
        cells[name] = summed
    firsts = [row[width + 4] for row in rows if row[width + 4] is not None]
    lasts = [row[width + 5] for row in rows if row[width + 5] is not None]
    return StatsFound(cells, (min(firsts, default=None), max(lasts, default=None)))


# -- documents --------------------------------------------------------------------------------
def _search(query: Search, schema: Schema) -> dict[str, Sql]:
    """``page``: the documents; ``total``, when asked: how many match in all."""
    table = schema[query.collection]
    cond, params = where(query.where, table)
    statements: dict[str, Sql] = {}
    if query.total:
        statements["total"] = (f"SELECT COUNT(*) FROM {table.name} WHERE {cond}", list(params))
    page_cond, page_params = cond, list(params)
    if query.after is not None:
        extra, extra_params = keyset(query.sort, query.after, table)
        page_cond, page_params = f"{cond} AND {extra}", [*params, *extra_params]
    statements["page"] = (
        f"SELECT {table.select} FROM {table.name} WHERE {page_cond} "
        f"ORDER BY {order_by(query.sort, table)} LIMIT ?",
        [*page_params, int(query.limit)],
    )
    return statements


def _facets(query: FacetsQuery, schema: Schema) -> dict[str, Sql]:
    """One statement per distinct field, and ``span``: two scalar subqueries, each one seek."""
    table = schema[Kind.transactions]
    cond, params = where(query.where, table)
    statements: dict[str, Sql] = {}
    for distinct in query.distinct:
        firsts = "".join(f", MIN({table.column(f)})" for f in distinct.firsts)
        statements[distinct.field] = (
            f"SELECT {table.column(distinct.field)}{firsts} FROM {table.name} WHERE {cond} "
            f"GROUP BY 1 ORDER BY 1 LIMIT {int(distinct.size)}",
            list(params),
        )
    span = table.column(query.span)
    statements["span"] = (
        f"SELECT (SELECT MIN({span}) FROM {table.name} WHERE {cond}), "
        f"(SELECT MAX({span}) FROM {table.name} WHERE {cond})",
        [*params, *params],
    )
    return statements


def _statements(query: StatementsQuery, schema: Schema) -> dict[str, Sql]:
    """Ordered like Elasticsearch's terms buckets (most chunks first, ties by id)."""
    table = schema[Kind.statements]
    cond, params = where(query.where, table)
    # A store opened read-only as it lies may predate a field (``file_name``): read it as "".
    firsts = ", ".join(
        f"MIN({f}) AS {f}" if f in table.columns else f"'' AS {f}" for f in STATEMENT_FIELDS
    )
    return {
        "statements": (
            f"SELECT statement_id, {firsts}, COUNT(DISTINCT page) AS pages "
            f"FROM {table.name} WHERE {cond} GROUP BY statement_id "
            f"ORDER BY COUNT(*) DESC, statement_id LIMIT {int(query.size)}",
            list(params),
        )
    }


def _text_ranking(query: TextRanking, schema: Schema) -> dict[str, Sql]:
    """``ranking``: chunk ids by BM25; nothing to run when the text has no word."""
    if fts_weights(query.fields) != dict(schema.fts_weights):
        raise UnsupportedQuery(f"the full-text index does not hold the fields {query.fields}")
    match = fts_query(query.text)
    if match is None:
        return {}
    table = schema[Kind.statements]
    cond, params = where(query.where, table)
    weights = ", ".join(str(w) for w in schema.fts_weights.values())
    fts = schema.fts_table
    return {
        "ranking": (
            # "+rowid": filter the matches, rather than run one FTS lookup per allowed id.
            f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? "
            f"AND +rowid IN (SELECT id FROM {table.name} WHERE {cond}) "
            f"ORDER BY bm25({fts}, {weights}), rowid LIMIT {int(query.size)}",
            [match, *params],
        )
    }


def _vector_ranking(query: VectorRanking, schema: Schema) -> dict[str, Sql]:
    """``allowed``: ids of the chunks the filter allows; cosine is ranked in numpy."""
    table = schema[Kind.statements]
    cond, params = where(query.where, table)
    return {"allowed": (f"SELECT id FROM {table.name} WHERE {cond}", list(params))}


QUERIES: dict[type, Callable[[Any, Schema], dict[str, Sql]]] = {
    StatsQuery: _stats_query,
    Search: _search,
    FacetsQuery: _facets,
    StatementsQuery: _statements,
    TextRanking: _text_ranking,
    VectorRanking: _vector_ranking,
}


def compile_query(query: object, schema: Schema) -> dict[str, Sql]:
    """A spec query → its named SQL statements."""
    return _rule(QUERIES, query)(query, schema)
