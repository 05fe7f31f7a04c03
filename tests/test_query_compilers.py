"""The query spec's two compilers: every node type compiles, an unknown node raises, and the
same spec gives the same documents and cells on SQLite and on Elasticsearch."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pytest

from elastic.engines.elasticsearch import compile as es
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.elasticsearch.mappings import transactions_mapping
from elastic.engines.sqlite import compile as lite
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.model.plan import Intent, IntentPlan, Interval
from elastic.query import cursor
from elastic.query.spec import (
    And,
    Buckets,
    Collection,
    Contains,
    Eq,
    FacetsQuery,
    Filter,
    Groups,
    In,
    Not,
    Range,
    Search,
    SortKey,
    Stats,
    StatsQuery,
    UnsupportedQuery,
)
from tests.conftest import SAMPLE_USER

INDEX = es.Index("tx", transactions_mapping()["properties"])
TABLE = lite.Table(
    "transactions",
    {"user_id", "date", "category", "amount_cents", "description", "description_folded"},
)
SCHEMA = lite.Schema({Collection.transactions: TABLE}, fts_table="fts", fts_weights={})


@dataclass(frozen=True)
class Or:
    """A node neither compiler has a rule for."""

    clauses: tuple[Filter, ...]


# -- each node type compiles ------------------------------------------------------------------
NODES: list[tuple[Filter, dict[str, object], tuple[str, list[object]]]] = [
    (Eq("user_id", "u1"), {"term": {"user_id": "u1"}}, ("user_id = ?", ["u1"])),
    (
        In("category", ("Dining", "Travel")),
        {"terms": {"category": ["Dining", "Travel"]}},
        ("category IN (?, ?)", ["Dining", "Travel"]),
    ),
    (
        Range("date", gte=date(2024, 1, 1), lt=date(2024, 2, 1)),
        {"range": {"date": {"gte": "2024-01-01", "lt": "2024-02-01"}}},
        ("date >= ? AND date < ?", ["2024-01-01", "2024-02-01"]),
    ),
    (
        Contains("description", "50*? Off"),
        {"wildcard": {"description.keyword": {"value": r"*50\*\? Off*", "case_insensitive": True}}},
        ("instr(description_folded, ?) > 0", ["50*? off"]),
    ),
    (
        Not(Eq("category", "Transfers")),
        {"bool": {"must_not": [{"term": {"category": "Transfers"}}]}},
        ("NOT (category = ?)", ["Transfers"]),
    ),
    (
        And((Eq("user_id", "u1"), Not(Eq("category", "Transfers")), Range("amount_cents", lt=0))),
        {
            "bool": {
                "filter": [{"term": {"user_id": "u1"}}, {"range": {"amount_cents": {"lt": 0}}}],
                "must_not": [{"term": {"category": "Transfers"}}],
            }
        },
        ("(user_id = ?) AND (NOT (category = ?)) AND (amount_cents < ?)", ["u1", "Transfers", 0]),
    ),
]


@pytest.mark.parametrize(("node", "on_es", "on_sqlite"), NODES)
def test_each_filter_node_compiles(
    node: Filter, on_es: dict[str, object], on_sqlite: tuple[str, list[object]]
):
    assert es.where(node, INDEX) == on_es
    assert lite.where(node, TABLE) == on_sqlite


def test_nested_not_and_compiles_with_its_grouping_kept():
    node = Not(And((Eq("category", "Dining"), Not(Range("amount_cents", gte=-500)))))
    assert lite.where(node, TABLE) == (
        "NOT ((category = ?) AND (NOT (amount_cents >= ?)))",
        ["Dining", -500],
    )
    assert es.where(node, INDEX) == {
        "bool": {
            "must_not": [
                {
                    "bool": {
                        "filter": [{"term": {"category": "Dining"}}],
                        "must_not": [{"range": {"amount_cents": {"gte": -500}}}],
                    }
                }
            ]
        }
    }


def test_levels_and_keysets_compile():
    query = StatsQuery(
        Eq("user_id", "u1"),
        Stats("amount_cents"),
        (("split", (Groups("category", 3), Buckets("date", Interval.week))),),
    )
    [body] = es.compile_query(query, {Collection.transactions: INDEX}).values()
    split = body["aggs"]["split"]
    assert split["terms"] == {"field": "category", "size": 3}
    assert split["aggs"]["cells"]["date_histogram"]["calendar_interval"] == "week"
    assert split["aggs"]["cells"]["aggs"]["stats"] == {"stats": {"field": "amount_cents"}}
    [(sql, params)] = lite.compile_query(query, SCHEMA).values()
    assert "bucket_start(date, 'week')" in sql and "GROUP BY category, date" in sql
    assert params == ["u1"]  # one scan of the rows for every breakdown

    # The cut to the 3 most frequent categories (ties by name) happens in the roll-up.
    rows = [
        ("Dining", "2024-01-01", 5, -500, -200, -50, None, None),
        ("Dining", "2024-01-08", 1, -100, -100, -100, None, None),
        ("Groceries", "2024-01-01", 6, -600, -300, -10, None, None),
        ("Travel", "2024-01-01", 2, -200, -150, -50, None, None),
        ("Bills", "2024-01-01", 2, -900, -800, -100, None, None),
        ("Fees", "2024-01-01", 1, -5, -5, -5, None, None),
    ]
    found = lite.rollup(query, rows)
    cells = found.cells["split"]
    assert {category for category, _ in cells} == {"Dining", "Groceries", "Bills"}
    assert cells[("Dining", date(2024, 1, 8))] == (1, -100, -100, -100)
    assert found.span == (None, None)  # no span asked

    search = Search(
        Collection.transactions,
        Eq("user_id", "u1"),
        (SortKey("date", descending=True), SortKey("amount_cents")),
        5,
        after=("1970-01-02", -300),
    )
    [body] = es.compile_query(search, {Collection.transactions: INDEX}).values()
    assert body["search_after"] == [86_400_000, -300]  # dates as Elasticsearch sorts them
    sql, params = lite.compile_query(search, SCHEMA)["page"]
    assert "date <= ? AND ((date < ?) OR (date = ? AND amount_cents > ?))" in sql
    assert params == ["u1", "1970-01-02", "1970-01-02", "1970-01-02", -300, 5]


def test_sqlite_bucket_function_is_the_shared_calendar():
    assert lite.sql_bucket_start("2024-03-14", "week") == "2024-03-11"  # a Monday
    assert lite.sql_bucket_start("2024-11-30", "quarter") == "2024-10-01"


# -- unknown nodes raise ----------------------------------------------------------------------
def test_unknown_nodes_raise_instead_of_being_dropped():
    unknown = Or((Eq("user_id", "u1"),))
    for compile_filter, target in ((es.where, INDEX), (lite.where, TABLE)):
        with pytest.raises(UnsupportedQuery, match="no rule for Or"):
            compile_filter(And((Eq("user_id", "u1"), unknown)), target)  # type: ignore[arg-type]
        with pytest.raises(UnsupportedQuery, match="no rule for Or"):
            compile_filter(Not(unknown), target)  # type: ignore[arg-type]
    with pytest.raises(UnsupportedQuery, match="no rule for Or"):
        es.compile_query(unknown, {Collection.transactions: INDEX})
    with pytest.raises(UnsupportedQuery, match="no rule for Or"):
        lite.compile_query(unknown, SCHEMA)
    with pytest.raises(UnsupportedQuery, match="no field"):
        es.where(Eq("merchant; DROP TABLE x", "y"), INDEX)
    with pytest.raises(UnsupportedQuery, match="no column"):
        lite.where(Eq("merchant; DROP TABLE x", "y"), TABLE)


# -- cursors ----------------------------------------------------------------------------------
def test_cursors_round_trip_and_malformed_ones_raise(embedded_sample: EmbeddedBackend):
    token = cursor.encode(["2024-05-01", 1250, "tx-ä"])
    assert token.isascii() and "/" not in token and "+" not in token
    assert cursor.decode(token, 3) == ("2024-05-01", 1250, "tx-ä")
    for bad in ("not a cursor!", cursor.encode(["2024-05-01"]), cursor.encode([{"a": 1}])):
        with pytest.raises(cursor.InvalidCursor):
            cursor.decode(bad, 3)
    plan = IntentPlan(intent=Intent.listing, limit=3)
    with pytest.raises(cursor.InvalidCursor):
        embedded_sample.listing(SAMPLE_USER, plan, "%%%")


# -- the same spec on both engines ------------------------------------------------------------
NESTED = And(
    (
        Eq("user_id", SAMPLE_USER),
        Range("date", gte=date(2024, 1, 1), lte=date(2024, 12, 31)),
        Not(And((In("category", ("Dining", "Groceries")), Not(Range("amount_cents", lt=-2000))))),
        Not(Not(Eq("currency", "USD"))),
        Not(Contains("description", "atm")),
    )
)


@pytest.mark.elasticsearch
def test_nested_filters_give_the_same_rows_on_both_engines(
    es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend
):
    sort = (SortKey("amount_cents"), SortKey("transaction_id"))
    query = Search(Collection.transactions, NESTED, sort, 10_000, total=True)
    on_es, on_sqlite = es_sample.run_search(query), embedded_sample.run_search(query)
    ids = [d["transaction_id"] for d in on_es.documents]
    assert ids == [d["transaction_id"] for d in on_sqlite.documents]
    everything = Search(Collection.transactions, Eq("user_id", SAMPLE_USER), sort, 1, total=True)
    assert (
        0
        < on_es.total
        == on_sqlite.total
        == len(ids)
        < (es_sample.run_search(everything).total or 0)
    )
    kept = on_sqlite.documents
    assert not any(
        d["category"] in ("Dining", "Groceries") and d["amount_cents"] >= -2000 for d in kept
    )
    assert not any("atm" in d["description"].lower() for d in kept)


@pytest.mark.elasticsearch
def test_top_groups_buckets_and_facets_agree_on_both_engines(
    es_sample: ElasticsearchBackend, embedded_sample: EmbeddedBackend
):
    query = StatsQuery(
        NESTED,
        Stats("amount_cents"),
        (
            ("all", ()),
            ("top", (Groups("merchant", 3),)),
            ("split", (Groups("category", 2), Buckets("date", Interval.quarter))),
            ("days", (Buckets("date", Interval.day),)),
            # Groups inside groups and buckets keep the top values within each outer cell.
            ("pairs", (Groups("category", 4), Groups("merchant", 2))),
            ("monthly", (Buckets("date", Interval.month), Groups("category", 3))),
        ),
        span="account_name",
    )
    found = es_sample.run_stats(query)
    assert found == embedded_sample.run_stats(query)
    on_es = found.cells
    assert len(on_es["top"]) == 3 and len({key[0] for key in on_es["split"]}) == 2
    per_category: dict[object, int] = {}
    for category, _ in on_es["pairs"]:
        per_category[category] = per_category.get(category, 0) + 1
    assert len(per_category) == 4 and max(per_category.values()) == 2
    assert sum(raw[0] for raw in on_es["days"].values()) == on_es["all"][()][0]
    low, high = found.span
    assert low is not None and high is not None and low < high  # two accounts match
    facets = FacetsQuery(NESTED, (), span="date")
    assert es_sample.run_facets(facets) == embedded_sample.run_facets(facets)
