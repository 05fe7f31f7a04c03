"""IntentPlan → Elasticsearch request bodies. Pure functions: no client, no I/O."""

from __future__ import annotations

from typing import Any

from elastic.model.plan import (
    TRANSFERS_CATEGORY,
    Direction,
    GroupBy,
    IntentPlan,
    Interval,
    SortOrder,
)

GROUP_FIELDS = {
    GroupBy.category: "category",
    GroupBy.merchant: "merchant",
    GroupBy.account: "account_name",
    GroupBy.currency: "currency",
}
MAX_GROUPS = 1000
TEXT_QA_FIELDS = ["summary_text^2", "summary_text.words", "text", "account_name", "bank_name"]
CANDIDATES = 20


def escape_wildcard(text: str) -> str:
    return "".join("\\" + ch if ch in "*?\\" else ch for ch in text)


def _cents(value: Any) -> int:
    return round(value * 100)


def _date_range(field: str, plan: IntentPlan) -> list[dict[str, Any]]:
    """The plan's inclusive date range on ``field``, or nothing when it has none."""
    bounds = {}
    if plan.date_from:
        bounds["gte"] = plan.date_from.isoformat()
    if plan.date_to:
        bounds["lte"] = plan.date_to.isoformat()
    return [{"range": {field: bounds}}] if bounds else []


def transaction_filters(plan: IntentPlan, user_id: str) -> dict[str, Any]:
    """The bool query every transaction intent shares; the user filter is always first."""
    filters: list[dict[str, Any]] = [{"term": {"user_id": user_id}}]
    must_not: list[dict[str, Any]] = []
    filters.extend(_date_range("date", plan))
    if plan.accounts:
        filters.append({"terms": {"account_name": plan.accounts}})
    if plan.categories:
        filters.append({"terms": {"category": plan.categories}})
    if plan.merchants:
        filters.append({"terms": {"merchant": plan.merchants}})
    if plan.currency:
        filters.append({"term": {"currency": plan.currency}})
    if plan.direction is Direction.out:
        filters.append({"range": {"amount_cents": {"lt": 0}}})
    elif plan.direction is Direction.in_:
        filters.append({"range": {"amount_cents": {"gt": 0}}})
    if plan.excludes_transfers:
        must_not.append({"term": {"category": TRANSFERS_CATEGORY}})
    if plan.min_amount is not None or plan.max_amount is not None:
        bounds = {}
        if plan.min_amount is not None:
            bounds["gte"] = _cents(plan.min_amount)
        if plan.max_amount is not None:
            bounds["lte"] = _cents(plan.max_amount)
        filters.append({"range": {"magnitude_cents": bounds}})
    if plan.text and plan.text.strip():
        pattern = f"*{escape_wildcard(plan.text.strip())}*"
        filters.append(
            {"wildcard": {"description.keyword": {"value": pattern, "case_insensitive": True}}}
        )
    return {"bool": {"filter": filters, "must_not": must_not}}


STATS = {"stats": {"field": "amount_cents"}}


def q_aggregate(plan: IntentPlan, user_id: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "size": 0,
        "track_total_hits": True,
        "query": transaction_filters(plan, user_id),
        "aggs": {"all": STATS, "currencies": {"terms": {"field": "currency", "size": 10}}},
    }
    if plan.group_by is GroupBy.month:
        body["aggs"]["groups"] = {
            "date_histogram": {
                "field": "date",
                "calendar_interval": "month",
                "format": "yyyy-MM-dd",
                "min_doc_count": 1,
            },
            "aggs": {"stats": STATS},
        }
    elif plan.group_by is not None:
        body["aggs"]["groups"] = {
            "terms": {"field": GROUP_FIELDS[plan.group_by], "size": MAX_GROUPS},
            "aggs": {"stats": STATS},
        }
    return body


def _histogram(interval: Interval) -> dict[str, Any]:
    return {
        "date_histogram": {
            "field": "date",
            "calendar_interval": interval.value,
            "format": "yyyy-MM-dd",
            "min_doc_count": 1,
        },
        "aggs": {"stats": STATS},
    }


def q_trend(plan: IntentPlan, user_id: str) -> dict[str, Any]:
    """Buckets with data; the shared trend code fills empty buckets across the asked range."""
    aggs: dict[str, Any] = {
        "buckets": _histogram(plan.interval),
        "currencies": {"terms": {"field": "currency", "size": 10}},
    }
    if plan.split_by_category:
        aggs["split"] = {
            "terms": {"field": "category", "size": MAX_GROUPS},
            "aggs": {"buckets": _histogram(plan.interval)},
        }
    return {"size": 0, "query": transaction_filters(plan, user_id), "aggs": aggs}


LISTING_SORTS: dict[SortOrder, list[dict[str, str]]] = {
    SortOrder.newest: [{"date": "desc"}, {"transaction_id": "desc"}],
    SortOrder.oldest: [{"date": "asc"}, {"transaction_id": "asc"}],
    SortOrder.largest: [{"magnitude_cents": "desc"}, {"date": "desc"}, {"transaction_id": "desc"}],
    SortOrder.smallest: [{"magnitude_cents": "asc"}, {"date": "desc"}, {"transaction_id": "desc"}],
}


def q_listing(
    plan: IntentPlan, user_id: str, search_after: list[Any] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "size": plan.limit,
        "track_total_hits": True,
        "query": transaction_filters(plan, user_id),
        "sort": LISTING_SORTS[plan.sort],
    }
    if search_after:
        body["search_after"] = search_after
    return body


def statement_filters(plan: IntentPlan, user_id: str) -> list[dict[str, Any]]:
    """User, account and statement-period filters for text questions."""
    filters: list[dict[str, Any]] = [{"term": {"user_id": user_id}}]
    if plan.accounts:
        filters.append({"terms": {"account_name.keyword": plan.accounts}})
    if plan.date_from:
        filters.append({"range": {"statement_to": {"gte": plan.date_from.isoformat()}}})
    if plan.date_to:
        filters.append({"range": {"statement_from": {"lte": plan.date_to.isoformat()}}})
    return filters


FACTS_SIZE = 50
FACT_SORT: list[dict[str, str]] = [{"as_of": "desc"}, {"fact_id": "asc"}]


def fact_filters(plan: IntentPlan, user_id: str) -> dict[str, Any]:
    """The statement facts a question names, for its accounts and period (newest first)."""
    filters: list[dict[str, Any]] = [
        {"term": {"user_id": user_id}},
        {"terms": {"name": plan.facts}},
    ]
    if plan.accounts:
        filters.append({"terms": {"account_name": plan.accounts}})
    if plan.currency:
        filters.append({"term": {"currency": plan.currency}})
    filters.extend(_date_range("as_of", plan))
    return {"bool": {"filter": filters, "must_not": []}}


def q_facts(plan: IntentPlan, user_id: str) -> dict[str, Any]:
    return {"size": FACTS_SIZE, "query": fact_filters(plan, user_id), "sort": FACT_SORT}


def q_text_qa(
    plan: IntentPlan, user_id: str, query_vector: list[float] | None, size: int = CANDIDATES
) -> dict[str, dict[str, Any]]:
    """Two requests, fused later by reciprocal rank fusion: BM25 and (when a vector exists) kNN."""
    filters = statement_filters(plan, user_id)
    source = {"excludes": ["summary_vector"]}
    requests: dict[str, dict[str, Any]] = {
        "bm25": {
            "size": size,
            "_source": source,
            "query": {
                "bool": {
                    "must": [{"multi_match": {"query": plan.text or "", "fields": TEXT_QA_FIELDS}}],
                    "filter": filters,
                }
            },
        }
    }
    if query_vector is not None:
        requests["knn"] = {
            "size": size,
            "_source": source,
            "knn": {
                "field": "summary_vector",
                "query_vector": query_vector,
                "k": size,
                "num_candidates": max(100, size * 5),
                "filter": filters,
            },
        }
    return requests
