"""Run IntentPlans on Elasticsearch: query builders in, result shapes out."""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

import numpy as np
from elasticsearch import ApiError, Elasticsearch, TransportError

from elastic.engines.documents import (
    DEFAULT_CURRENCY,
    NO_VECTOR_NOTE,
    TOP_HITS,
    VECTOR_FAILED_NOTE,
    hit_from_source,
    transaction_from_source,
)
from elastic.model.plan import Direction, GroupBy, IntentPlan
from elastic.model.results import (
    AggregateResult,
    CellStats,
    ListingResult,
    TextQAResult,
    TrendResult,
)
from elastic.query.builders import q_aggregate, q_listing, q_text_qa, q_trend
from elastic.query.rrf import reciprocal_rank_fusion
from elastic.query.shaping import aggregate_result, currency_of, directed_stats, trend_result

log = logging.getLogger(__name__)


def _stats(direction: Direction, raw: dict[str, Any]) -> CellStats:
    count = int(raw.get("count") or 0)
    if count == 0:
        return CellStats(0, 0, None, None)
    return directed_stats(direction, count, round(raw["sum"]), int(raw["min"]), int(raw["max"]))


def _currencies(aggs: dict[str, Any]) -> str:
    return currency_of((b["key"] for b in aggs["currencies"]["buckets"]), DEFAULT_CURRENCY)


def run_aggregate(es: Elasticsearch, index: str, user_id: str, plan: IntentPlan) -> AggregateResult:
    aggs = es.search(index=index, body=q_aggregate(plan, user_id))["aggregations"]
    groups: dict[str, CellStats] = {}
    if plan.group_by is not None:
        key_name = "key_as_string" if plan.group_by is GroupBy.month else "key"
        for bucket in aggs["groups"]["buckets"]:
            groups[str(bucket[key_name])] = _stats(plan.direction, bucket["stats"])
    return aggregate_result(plan, _stats(plan.direction, aggs["all"]), groups, _currencies(aggs))


def _histogram_cells(direction: Direction, agg: dict[str, Any]) -> dict[date, CellStats]:
    return {
        date.fromisoformat(b["key_as_string"]): _stats(direction, b["stats"])
        for b in agg["buckets"]
    }


def run_trend(es: Elasticsearch, index: str, user_id: str, plan: IntentPlan) -> TrendResult:
    aggs = es.search(index=index, body=q_trend(plan, user_id))["aggregations"]
    splits = {}
    if plan.split_by_category:
        splits = {
            b["key"]: _histogram_cells(plan.direction, b["buckets"])
            for b in aggs["split"]["buckets"]
        }
    found = _histogram_cells(plan.direction, aggs["buckets"])
    return trend_result(plan, found, splits, _currencies(aggs))


def run_listing(
    es: Elasticsearch,
    index: str,
    user_id: str,
    plan: IntentPlan,
    after: list[object] | None = None,
) -> ListingResult:
    response = es.search(index=index, body=q_listing(plan, user_id, after))
    hits = response["hits"]["hits"]
    rows = [transaction_from_source(h["_source"]) for h in hits]
    total = int(response["hits"]["total"]["value"])
    next_after = hits[-1]["sort"] if hits and len(hits) == plan.limit else None
    return ListingResult(rows=rows, total=total, next_after=next_after)


def run_text_qa(
    es: Elasticsearch,
    index: str,
    user_id: str,
    plan: IntentPlan,
    query_vector: np.ndarray | None,
) -> TextQAResult:
    """BM25 and kNN fused by RRF; if the vector half fails, answer from keywords and say so."""
    vector = None if query_vector is None else [float(x) for x in query_vector]
    requests = q_text_qa(plan, user_id, vector)
    sources: dict[str, dict[str, Any]] = {}
    rankings: list[list[str]] = []
    note = None if vector is not None else NO_VECTOR_NOTE
    for name, body in requests.items():
        try:
            hits = es.search(index=index, body=body)["hits"]["hits"]
        except (ApiError, TransportError) as exc:
            if name == "bm25":
                raise
            log.warning("kNN half of text search failed: %s", exc)
            note = VECTOR_FAILED_NOTE
            continue
        rankings.append([h["_id"] for h in hits])
        for h in hits:
            sources.setdefault(h["_id"], h["_source"])
    fused = reciprocal_rank_fusion(rankings, limit=TOP_HITS)
    hits = [hit_from_source(sources[doc_id], score) for doc_id, score in fused]
    return TextQAResult(hits=hits, keyword_only=len(rankings) < 2, note=note)
