"""The columnar read cache against the SQL path on the same real SQLite file: identical cells,
spans, pages and totals for every plan of the grid and every filter node, and answers that
follow writes made by another connection."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from elastic.engines.sqlite import compile as lite
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.engines.sqlite.columnar import ColumnarCache
from elastic.model.plan import Intent, IntentPlan, Interval, SortOrder
from elastic.model.records import Transaction
from elastic.query import balances, basis, build, recurring
from elastic.query.spec import (
    And,
    Buckets,
    Collection,
    Contains,
    Eq,
    Filter,
    Found,
    Groups,
    In,
    Not,
    Range,
    Search,
    SortKey,
    Stats,
    StatsFound,
    StatsQuery,
    UnsupportedQuery,
)
from settings import Settings
from tests.conftest import SAMPLE_USER
from tests.plan_grid import grid


class SqlPath:
    """The SQL statements of ``compile.py`` run on their own connection to the store's file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = sqlite3.connect(path)
        self.conn.row_factory = sqlite3.Row
        self.conn.create_function(lite.BUCKET_FUNCTION, 2, lite.sql_bucket_start)
        columns = {row["name"] for row in self.conn.execute("PRAGMA table_info(transactions)")}
        table = lite.Table("transactions", columns)
        self.schema = lite.Schema({Collection.transactions: table}, "chunks_fts", {})

    def stats(self, query: StatsQuery) -> StatsFound:
        [(sql, params)] = lite.compile_query(query, self.schema).values()
        return lite.rollup(query, self.conn.execute(sql, params).fetchall())

    def search(self, query: Search) -> Found:
        statements = lite.compile_query(query, self.schema)
        documents = [dict(row) for row in self.conn.execute(*statements["page"])]
        total = None
        if "total" in statements:
            total = self.conn.execute(*statements["total"]).fetchone()[0]
        return Found(documents, total)


def warm(cache: ColumnarCache, conn: sqlite3.Connection, user_id: str) -> None:
    """Until the user's columns are loaded as ``conn`` sees the store."""
    try:
        cache.columns(conn, user_id)
    except UnsupportedQuery:
        cache.wait()
    cache.columns(conn, user_id)


@pytest.fixture(scope="module")
def paths(embedded_sample: EmbeddedBackend) -> Iterator[tuple[SqlPath, ColumnarCache]]:
    """Both paths over the sample set's SQLite file, each on a connection of its own."""
    sql = SqlPath(embedded_sample.path)
    cache = ColumnarCache(embedded_sample.path)
    warm(cache, sql.conn, SAMPLE_USER)
    yield sql, cache
    sql.conn.close()


def _stats_queries(plan: IntentPlan) -> StatsQuery:
    return (build.trend if plan.intent is Intent.trend else build.aggregation)(plan, SAMPLE_USER)


GRID = grid()
STATS_PLANS = [plan for plan in GRID if plan.intent is not Intent.listing]
LISTING_PLANS = [plan for plan in GRID if plan.intent is Intent.listing]


def test_every_grid_statistic_matches_sql(paths: tuple[SqlPath, ColumnarCache]):
    sql, cache = paths
    nonempty = 0
    for plan in STATS_PLANS:
        query = _stats_queries(plan)
        found = cache.stats(sql.conn, SAMPLE_USER, query)
        assert found == sql.stats(query), plan
        nonempty += any(found.cells.values())
    assert nonempty > len(STATS_PLANS) // 2  # most plans match rows: the cells are compared


def test_every_grid_listing_and_its_next_page_match_sql(paths: tuple[SqlPath, ColumnarCache]):
    sql, cache = paths
    for plan in LISTING_PLANS:
        query = build.listing(plan, SAMPLE_USER)
        first = cache.search(sql.conn, SAMPLE_USER, query)
        assert first == sql.search(query), plan
        if len(first.documents) == query.limit:
            last = first.documents[-1]
            after = tuple(last[key.field] for key in query.sort)
            second = replace(query, after=after)
            assert cache.search(sql.conn, SAMPLE_USER, second) == sql.search(second), plan


USER = Eq("user_id", SAMPLE_USER)
NODES: list[Filter] = [
    USER,
    In("user_id", (SAMPLE_USER, "someone else")),
    And((USER, Eq("user_id", "someone else"))),
    And((USER, In("category", ("Dining", "Travel", "No such category")))),
    And((USER, Range("date", gte=date(2024, 1, 1), lt=date(2024, 2, 1)))),
    And((USER, Range("date", gt="2024-03-01", lte="2024-06-30"))),
    And((USER, Range("merchant", gt="Amazon", lte="Starbucks"))),
    And((USER, Range("category", gte="D", lt="H"))),
    And((USER, Range("amount_cents", gte=-5000, lt=0), Range("magnitude_cents"))),
    And((USER, In("amount_cents", (-475, -1599, 250000)), Not(Eq("currency", "EUR")))),
    And((USER, Contains("description", "ATM"))),
    And((USER, Contains("description", ""))),
    And((USER, Not(And((In("category", ("Dining",)), Not(Range("amount_cents", lt=-2000))))))),
    And((USER, Not(Not(Eq("account_name", "Platinum Card"))), Eq("bank_name", "Amex Bank"))),
]


@pytest.mark.parametrize("where", NODES, ids=repr)
def test_each_filter_node_gives_the_sql_rows_and_cells(
    paths: tuple[SqlPath, ColumnarCache], where: Filter
):
    sql, cache = paths
    stats = StatsQuery(
        where,
        Stats("amount_cents"),
        (
            ("all", ()),
            ("top", (Groups("merchant", 3),)),
            ("split", (Groups("category", 2), Buckets("date", Interval.quarter))),
            ("weeks", (Buckets("date", Interval.week),)),
            ("amounts", (Groups("magnitude_cents", 5),)),
            ("days", (Groups("date", 4),)),
        ),
        span="account_name",
    )
    assert cache.stats(sql.conn, SAMPLE_USER, stats) == sql.stats(stats)
    for sort in (
        (SortKey("amount_cents"), SortKey("transaction_id")),
        (SortKey("merchant", descending=True), SortKey("date"), SortKey("transaction_id")),
        (SortKey("date", descending=True), SortKey("transaction_id", descending=True)),
    ):
        search = Search(Collection.transactions, where, sort, 25, total=True)
        found = cache.search(sql.conn, SAMPLE_USER, search)
        assert found == sql.search(search)
        if found.documents:
            after = tuple(found.documents[-1][key.field] for key in sort)
            later = replace(search, after=after, total=False)
            assert cache.search(sql.conn, SAMPLE_USER, later) == sql.search(later)


def test_spans_of_dates_and_amounts_match_sql(paths: tuple[SqlPath, ColumnarCache]):
    sql, cache = paths
    for span in ("date", "magnitude_cents", "currency"):
        query = StatsQuery(
            USER, Stats("magnitude_cents"), (("month", (Buckets("date", "month"),)),), span
        )
        found = cache.stats(sql.conn, SAMPLE_USER, query)
        assert found == sql.stats(query)
        assert found.span[0] is not None and found.span[0] <= found.span[1]


def test_what_the_columns_do_not_hold_is_refused_and_answered_in_sql(
    paths: tuple[SqlPath, ColumnarCache], embedded_sample: EmbeddedBackend
):
    sql, cache = paths
    by_file = And((USER, Not(Eq("source_file", "nothing.csv"))))
    query = StatsQuery(by_file, Stats("amount_cents"), (("all", ()),))
    with pytest.raises(UnsupportedQuery, match="source_file"):
        cache.stats(sql.conn, SAMPLE_USER, query)
    found = embedded_sample.run_stats(query)
    assert found == sql.stats(query) and found.cells["all"][()][0] > 0
    listing = Search(Collection.transactions, USER, (SortKey("transaction_id"),), 5, total=True)
    with pytest.raises(UnsupportedQuery, match="transaction id"):
        cache.search(sql.conn, SAMPLE_USER, listing)
    assert embedded_sample.run_search(listing) == sql.search(listing)


def test_cache_keeps_few_users_and_answers_each_their_own(
    paths: tuple[SqlPath, ColumnarCache],
):
    sql, _ = paths
    cache = ColumnarCache(sql.path, users=1)
    for user in (SAMPLE_USER, "nobody", SAMPLE_USER):
        query = build.aggregation(IntentPlan(intent=Intent.aggregate), user)
        warm(cache, sql.conn, user)
        assert cache.stats(sql.conn, user, query) == sql.stats(query)
    with pytest.raises(UnsupportedQuery, match="loading"):
        cache.columns(sql.conn, "nobody")  # one user held: the other was dropped
    warm(cache, sql.conn, "nobody")
    nobody = cache.stats(
        sql.conn, "nobody", build.aggregation(IntentPlan(intent=Intent.aggregate), "nobody")
    )
    assert nobody.cells["all"] == {} and nobody.span == (None, None)


# -- the store changing under the cache ---------------------------------------------------------
def _row(tid: str, day: str, amount: str, category: str = "Dining") -> Transaction:
    return Transaction(
        transaction_id=tid,
        date=date.fromisoformat(day),
        description=f"Coffee {tid}",
        amount=Decimal(amount),
        currency="USD",
        category=category,
        merchant="Blue Bottle",
        account_no="000123456789",
        account_name="Everyday Checking",
        bank_name="First Bank",
    )


INSERT_BIG = (
    "INSERT INTO transactions (user_id, transaction_id, date, description, description_folded, "
    "amount_cents, magnitude_cents, currency, category, merchant, account_no, account_name, "
    "bank_name) SELECT user_id, ?, '2024-02-01', description, description_folded, -90000, 90000, "
    "currency, category, merchant, account_no, account_name, bank_name FROM transactions "
    "WHERE transaction_id = 't0'"
)


def test_a_write_by_another_connection_is_in_the_next_answer(tmp_path: Path):
    backend = EmbeddedBackend(Settings(data_dir=tmp_path))
    reader = SqlPath(backend.path)
    cache = ColumnarCache(backend.path)
    try:
        rows = [_row(f"t{i}", f"2024-01-0{i + 1}", "-4.50") for i in range(5)]
        backend.add_transactions("u1", rows)
        spend = build.aggregation(IntentPlan(intent=Intent.aggregate), "u1")
        plan = IntentPlan(intent=Intent.listing, sort=SortOrder.largest, limit=3)
        largest = build.listing(plan, "u1")
        warm(cache, reader.conn, "u1")
        assert cache.stats(reader.conn, "u1", spend).cells["all"][()][:2] == (5, -2250)
        assert cache.search(reader.conn, "u1", largest).total == 5

        other = sqlite3.connect(backend.path)  # as another process's import would
        with other:
            other.execute(INSERT_BIG, ("big",))
        other.close()
        with pytest.raises(UnsupportedQuery, match="loading"):
            cache.stats(reader.conn, "u1", spend)  # stale: this question is answered in SQL
        for answer in (backend.run_stats(spend), reader.stats(spend)):
            assert answer.cells["all"][()][:2] == (6, -92250)
        assert backend.run_search(largest).documents[0]["transaction_id"] == "big"
        cache.wait()
        assert cache.stats(reader.conn, "u1", spend).cells["all"][()][:2] == (6, -92250)
        found = cache.search(reader.conn, "u1", largest)
        assert found.total == 6 and found.documents[0]["transaction_id"] == "big"

        with reader.conn:  # a write by the reading connection itself
            reader.conn.execute(INSERT_BIG, ("own",))
        with pytest.raises(UnsupportedQuery, match="loading"):
            cache.stats(reader.conn, "u1", spend)
        warm(cache, reader.conn, "u1")
        assert cache.stats(reader.conn, "u1", spend).cells["all"][()][0] == 7
    finally:
        cache.wait()
        reader.conn.close()
        backend.close()


def _kind_reads(plan: IntentPlan) -> list[StatsQuery | Search]:
    """The spec queries the flows of a plan run besides its aggregate or trend: the rows
    read for balances, recurring series and charges to check (a page, and the next), and the
    counts of what a figure left out."""
    reads: list[StatsQuery | Search] = list(basis.queries(plan, SAMPLE_USER).values())
    if plan.balance:
        reads.append(build.rows_page(balances.rows_plan(plan), SAMPLE_USER, None))
    if plan.recurring or plan.anomaly:
        reads.append(build.rows_page(recurring.reading_plan(plan), SAMPLE_USER, None))
    return reads


def test_the_reads_of_every_kind_match_sql(paths: tuple[SqlPath, ColumnarCache]):
    """Medians (each distinct amount), days folded into weekdays, the rows of balances,
    recurring series and charges to check, a page at a time, and what figures left out."""
    sql, cache = paths
    pages = 0
    for plan in GRID:
        for query in _kind_reads(plan):
            if isinstance(query, StatsQuery):
                assert cache.stats(sql.conn, SAMPLE_USER, query) == sql.stats(query), plan
                continue
            first = cache.search(sql.conn, SAMPLE_USER, query)
            assert first == sql.search(query), plan
            pages += 1
            after = tuple(first.documents[5][key.field] for key in query.sort)
            second = replace(query, after=after)
            assert cache.search(sql.conn, SAMPLE_USER, second) == sql.search(second), plan
    assert pages >= 50
