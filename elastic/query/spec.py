"""The neutral query spec: small frozen nodes every engine compiles with its own table of rules.

Fields are named as the stored documents name them (``transactions_mapping`` and the SQLite
schema hold the same names); each engine maps a name to its own field or column. A compiler
that meets a node it has no rule for raises :class:`UnsupportedQuery`, so no part of a query
is ever silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any, TypeVar

from elastic.model.plan import Interval

Scalar = str | int | bool | date
SortValue = str | int
"""A sort value as the stored document holds it (dates as ``YYYY-MM-DD``)."""


class UnsupportedQuery(ValueError):
    """A query node an engine's compiler has no rule for: a bug, never a user's question."""


R = TypeVar("R")


def rule_for(rules: Mapping[type, Callable[..., R]], node: object, engine: str) -> Callable[..., R]:
    """The rule of a compiler's table for ``node``; raises instead of dropping an unknown node."""
    rule = rules.get(type(node))
    if rule is None:
        raise UnsupportedQuery(f"the {engine} compiler has no rule for {type(node).__name__}")
    return rule


# -- filters ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Eq:
    field: str
    value: Scalar


@dataclass(frozen=True)
class In:
    field: str
    values: tuple[Scalar, ...]


@dataclass(frozen=True)
class Range:
    """Bounds of a field; ``None`` leaves that side open."""

    field: str
    gte: Scalar | None = None
    gt: Scalar | None = None
    lte: Scalar | None = None
    lt: Scalar | None = None

    def bounds(self) -> dict[str, Scalar]:
        pairs = (("gte", self.gte), ("gt", self.gt), ("lte", self.lte), ("lt", self.lt))
        return {op: value for op, value in pairs if value is not None}


@dataclass(frozen=True)
class Contains:
    """The field holds ``text`` as a substring, ignoring case."""

    field: str
    text: str


@dataclass(frozen=True)
class Not:
    clause: Filter


@dataclass(frozen=True)
class And:
    clauses: tuple[Filter, ...]


Filter = Eq | In | Range | Contains | Not | And


# -- query parts ------------------------------------------------------------------------------
@dataclass(frozen=True)
class SortKey:
    field: str
    descending: bool = False


@dataclass(frozen=True)
class Stats:
    """Count, sum, smallest and largest of a numeric field."""

    field: str


@dataclass(frozen=True)
class Buckets:
    """Calendar buckets of a date field (``elastic.model.calendar``), only those with data."""

    field: str
    interval: Interval


@dataclass(frozen=True)
class Groups:
    """The ``size`` most frequent values of a field (ties: smaller value first)."""

    field: str
    size: int


@dataclass(frozen=True)
class Distinct:
    """A field's distinct values in ascending order (at most ``size``), each with the smallest
    value of every field of ``firsts`` among its documents."""

    field: str
    size: int
    firsts: tuple[str, ...] = ()


Level = Groups | Buckets
Breakdown = tuple[Level, ...]
"""Nested levels, outermost first: ``()`` is one cell of everything, ``(Groups, Buckets)``
is per group, per bucket."""


class Collection(StrEnum):
    transactions = "transactions"
    statements = "statements"
    facts = "facts"


# -- queries ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class StatsQuery:
    """Stats of the transactions ``where`` allows, per cell of each named breakdown."""

    where: Filter
    stats: Stats
    breakdowns: tuple[tuple[str, Breakdown], ...]
    span: str | None = None
    """A field whose smallest and largest value to report as well: one currency or several."""


@dataclass(frozen=True)
class Search:
    """Documents of a collection in ``sort`` order, after the keyset ``after`` (one value per
    sort key); ``total`` asks for the number of all matching documents too."""

    collection: Collection
    where: Filter
    sort: tuple[SortKey, ...]
    limit: int
    after: tuple[SortValue, ...] | None = None
    total: bool = False


@dataclass(frozen=True)
class FacetsQuery:
    """What the transactions ``where`` allows hold: distinct values, and the span of a field."""

    where: Filter
    distinct: tuple[Distinct, ...]
    span: str


@dataclass(frozen=True)
class StatementsQuery:
    """One entry per statement: any of its page chunks and its number of distinct pages, the
    statements with most chunks first (ties by id), at most ``size``."""

    where: Filter
    size: int


@dataclass(frozen=True)
class TextRanking:
    """Statement chunks ranked by BM25 over ``fields`` (``name^boost``; ``name.sub`` is a
    sub-field of ``name``), best first."""

    where: Filter
    text: str
    fields: tuple[str, ...]
    size: int


@dataclass(frozen=True)
class VectorRanking:
    """Statement chunks nearest to ``vector`` by cosine, best first."""

    where: Filter
    vector: tuple[float, ...]
    size: int


# -- what engines answer ----------------------------------------------------------------------
Raw = tuple[int, int, int | None, int | None]
"""count, sum, min, max of a cell (min and max are ``None`` for an empty cell)."""
CellKey = tuple[str | date, ...]
Document = Mapping[str, Any]
"""A stored document: fields as ``records`` write them (dates as ``YYYY-MM-DD``)."""


@dataclass(frozen=True)
class Found:
    documents: list[Document]
    total: int | None


@dataclass(frozen=True)
class StatsFound:
    """Cells of each named breakdown, and the smallest and largest value of the span field
    (``(None, None)`` when no rows match or no span was asked)."""

    cells: dict[str, dict[CellKey, Raw]]
    span: tuple[str | None, str | None]


@dataclass(frozen=True)
class Facets:
    values: dict[str, list[tuple[Any, ...]]]  # field → (value, *firsts) rows
    span: tuple[str | None, str | None]
