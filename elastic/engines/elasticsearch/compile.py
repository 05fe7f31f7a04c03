"""The query spec → Elasticsearch request bodies.

Every node type has one rule in a table; a node without a rule raises ``UnsupportedQuery``
instead of being dropped. Field names are resolved against the index mapping: a text field
with a ``keyword`` sub-field is filtered and sorted on the sub-field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar

from elastic.query.spec import (
    And,
    Breakdown,
    Buckets,
    Contains,
    Eq,
    FacetsQuery,
    Filter,
    Groups,
    In,
    Level,
    Not,
    Range,
    Search,
    SortKey,
    SortValue,
    StatementsQuery,
    StatsQuery,
    TextRanking,
    UnsupportedQuery,
    VectorRanking,
    rule_for,
)
from elastic.query.spec import Collection as Kind

Body = dict[str, Any]
N = TypeVar("N")

CELLS = "cells"  # the name of a level's sub-aggregation and of a cell's stats
STATS = "stats"
_EPOCH = date(1970, 1, 1)
_MS_PER_DAY = 86_400_000
VECTOR_FIELD = "summary_vector"


def escape_wildcard(text: str) -> str:
    return "".join("\\" + ch if ch in "*?\\" else ch for ch in text)


@dataclass(frozen=True)
class Index:
    """An index a collection lives in: its mapped fields, and what a search leaves out."""

    name: str
    properties: Mapping[str, Any]
    excludes: tuple[str, ...] = ()

    def field(self, name: str) -> str:
        """The field that holds ``name`` as one exact term."""
        mapping = self.properties.get(name)
        if mapping is None:
            raise UnsupportedQuery(f"{self.name} has no field {name!r}")
        if mapping.get("type") == "text":
            if "keyword" not in mapping.get("fields", {}):
                raise UnsupportedQuery(f"{self.name} has no exact form of field {name!r}")
            return f"{name}.keyword"
        return name

    def is_date(self, name: str) -> bool:
        return self.properties.get(name, {}).get("type") == "date"

    @property
    def source(self) -> Body:
        return {"excludes": list(self.excludes)}


Indices = Mapping[Kind, Index]


def _rule(rules: Mapping[type, Callable[..., N]], node: object) -> Callable[..., N]:
    return rule_for(rules, node, "Elasticsearch")


# -- filters ----------------------------------------------------------------------------------
def _value(value: object) -> object:
    return value.isoformat() if isinstance(value, date) else value


def _eq(node: Eq, index: Index) -> Body:
    return {"term": {index.field(node.field): _value(node.value)}}


def _in(node: In, index: Index) -> Body:
    return {"terms": {index.field(node.field): [_value(v) for v in node.values]}}


def _range(node: Range, index: Index) -> Body:
    bounds = {op: _value(v) for op, v in node.bounds().items()}
    return {"range": {index.field(node.field): bounds}}


def _contains(node: Contains, index: Index) -> Body:
    pattern = f"*{escape_wildcard(node.text)}*"
    return {"wildcard": {index.field(node.field): {"value": pattern, "case_insensitive": True}}}


def _not(node: Not, index: Index) -> Body:
    return {"bool": {"must_not": [where(node.clause, index)]}}


def _and(node: And, index: Index) -> Body:
    """Negated clauses go to ``must_not``, the others to ``filter`` in their order."""
    kept = [where(c, index) for c in node.clauses if not isinstance(c, Not)]
    negated = [where(c.clause, index) for c in node.clauses if isinstance(c, Not)]
    return {"bool": {"filter": kept, "must_not": negated}}


FILTERS: dict[type, Callable[[Any, Index], Body]] = {
    Eq: _eq,
    In: _in,
    Range: _range,
    Contains: _contains,
    Not: _not,
    And: _and,
}


def where(node: Filter, index: Index) -> Body:
    """A filter → an Elasticsearch query clause."""
    return _rule(FILTERS, node)(node, index)


# -- statistics -------------------------------------------------------------------------------
def _groups(level: Groups, index: Index) -> Body:
    """Ordered like every terms aggregation: most documents first, ties by key."""
    return {"terms": {"field": index.field(level.field), "size": level.size}}


def _buckets(level: Buckets, index: Index) -> Body:
    return {
        "date_histogram": {
            "field": index.field(level.field),
            "calendar_interval": level.interval.value,
            "format": "yyyy-MM-dd",
            "min_doc_count": 1,
        }
    }


LEVELS: dict[type, Callable[[Any, Index], Body]] = {Groups: _groups, Buckets: _buckets}


def _breakdown(levels: Breakdown, stats: Body, index: Index) -> Body:
    """Levels nest as ``cells`` sub-aggregations; the innermost holds the ``stats``."""
    if not levels:
        return stats
    level: Level = levels[0]
    inner = _breakdown(levels[1:], stats, index)
    name = CELLS if levels[1:] else STATS
    return {**_rule(LEVELS, level)(level, index), "aggs": {name: inner}}


SPAN_AGGS = {"span_low": "asc", "span_high": "desc"}


def _stats_query(query: StatsQuery, indices: Indices) -> dict[str, Body]:
    index = indices[Kind.transactions]
    stats = {"stats": {"field": index.field(query.stats.field)}}
    aggs = {name: _breakdown(levels, stats, index) for name, levels in query.breakdowns}
    if query.span is not None:
        # min and max aggregations take numbers only: the first term in each order instead.
        field = index.field(query.span)
        for name, order in SPAN_AGGS.items():
            aggs[name] = {"terms": {"field": field, "size": 1, "order": {"_key": order}}}
    return {"search": {"size": 0, "query": where(query.where, index), "aggs": aggs}}


# -- documents --------------------------------------------------------------------------------
def _sort(sort: Sequence[SortKey], index: Index) -> list[Body]:
    return [{index.field(k.field): "desc" if k.descending else "asc"} for k in sort]


def _after(sort: Sequence[SortKey], after: Sequence[SortValue], index: Index) -> list[SortValue]:
    """Stored values → sort values as Elasticsearch reports them (dates in epoch ms)."""
    if len(after) != len(sort):
        raise UnsupportedQuery(f"after needs {len(sort)} values, got {len(after)}")
    return [
        (date.fromisoformat(str(value)) - _EPOCH).days * _MS_PER_DAY
        if index.is_date(key.field)
        else value
        for key, value in zip(sort, after, strict=True)
    ]


def _search(query: Search, indices: Indices) -> dict[str, Body]:
    index = indices[query.collection]
    body: Body = {
        "size": query.limit,
        "_source": index.source,
        "query": where(query.where, index),
        "sort": _sort(query.sort, index),
    }
    if query.total:
        body["track_total_hits"] = True
    if query.after is not None:
        body["search_after"] = _after(query.sort, query.after, index)
    return {"search": body}


def _first(field: str, index: Index) -> Body:
    return {"terms": {"field": index.field(field), "size": 1, "order": {"_key": "asc"}}}


def _facets(query: FacetsQuery, indices: Indices) -> dict[str, Body]:
    """A terms aggregation per distinct field (firsts as one-term sub-aggregations), and
    ``first``/``last``: the span of a field."""
    index = indices[Kind.transactions]
    aggs: Body = {}
    for distinct in query.distinct:
        aggs[distinct.field] = {
            "terms": {
                "field": index.field(distinct.field),
                "size": distinct.size,
                "order": {"_key": "asc"},
            },
            "aggs": {f: _first(f, index) for f in distinct.firsts},
        }
    span: Body = {"field": index.field(query.span)}
    if index.is_date(query.span):
        span["format"] = "yyyy-MM-dd"
    aggs["first"], aggs["last"] = {"min": span}, {"max": span}
    return {"search": {"size": 0, "query": where(query.where, index), "aggs": aggs}}


def _statements(query: StatementsQuery, indices: Indices) -> dict[str, Body]:
    index = indices[Kind.statements]
    return {
        "search": {
            "size": 0,
            "query": where(query.where, index),
            "aggs": {
                "statements": {
                    "terms": {"field": index.field("statement_id"), "size": query.size},
                    "aggs": {
                        "pages": {"cardinality": {"field": index.field("page")}},
                        "doc": {
                            "top_hits": {
                                "size": 1,
                                "_source": {"excludes": ["text", "summary_text", VECTOR_FIELD]},
                            }
                        },
                    },
                }
            },
        }
    }


def _text_ranking(query: TextRanking, indices: Indices) -> dict[str, Body]:
    index = indices[Kind.statements]
    match = {"multi_match": {"query": query.text, "fields": list(query.fields)}}
    return {
        "search": {
            "size": query.size,
            "_source": index.source,
            "query": {"bool": {"must": [match], "filter": [where(query.where, index)]}},
        }
    }


def _vector_ranking(query: VectorRanking, indices: Indices) -> dict[str, Body]:
    index = indices[Kind.statements]
    return {
        "search": {
            "size": query.size,
            "_source": index.source,
            "knn": {
                "field": VECTOR_FIELD,
                "query_vector": list(query.vector),
                "k": query.size,
                "num_candidates": max(100, query.size * 5),
                "filter": [where(query.where, index)],
            },
        }
    }


QUERIES: dict[type, Callable[[Any, Indices], dict[str, Body]]] = {
    StatsQuery: _stats_query,
    Search: _search,
    FacetsQuery: _facets,
    StatementsQuery: _statements,
    TextRanking: _text_ranking,
    VectorRanking: _vector_ranking,
}


def compile_query(query: object, indices: Indices) -> dict[str, Body]:
    """A spec query → its named request bodies."""
    return _rule(QUERIES, query)(query, indices)
