"""The embedded SQLite backend on a real database file: writes, the four intents, browsing."""

from __future__ import annotations

import threading
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.errors import EmbeddingMismatch
from elastic.model.plan import Direction, GroupBy, Intent, IntentPlan, Interval, Metric, SortOrder
from elastic.model.records import StatementChunk, Transaction
from elastic.model.results import AccountInfo
from elastic.query import cursor
from elastic.query.flows import NO_VECTOR_NOTE, VECTOR_FAILED_NOTE
from settings import Settings
from tests import pandas_reference as ref

ALICE, BOB = "alice", "bob"
DIMS = 8
CHECKING = ("Everyday Checking", "First Bank", "000123456789")
CARD = ("Platinum Card", "Amex Bank", "3700-1111-2222-4321")


def txn(
    tid: str,
    day: str,
    description: str,
    amount: str,
    category: str,
    merchant: str,
    account: tuple[str, str, str] = CHECKING,
) -> Transaction:
    name, bank, number = account
    return Transaction(
        transaction_id=tid,
        date=date.fromisoformat(day),
        description=description,
        amount=Decimal(amount),
        currency="USD",
        category=category,
        merchant=merchant,
        account_no=number,
        account_name=name,
        bank_name=bank,
    )


HANDMADE = [
    txn("t01", "2024-01-02", "Whole Foods Market #12", "-54.37", "Groceries", "Whole Foods"),
    txn("t02", "2024-01-03", "STARBUCKS 100%_COFFEE*", "-4.75", "Dining", "Starbucks", CARD),
    txn("t03", "2024-01-05", "Payroll ACME Corp", "2500.00", "Income", "ACME"),
    txn("t04", "2024-01-10", "Transfer to savings", "-500.00", "Transfers", "Transfer"),
    txn("t05", "2024-01-15", "Café CRÈME Paris", "-12.40", "Dining", "Café Crème", CARD),
    txn("t06", "2024-01-20", "Whole Foods Market #12", "-120.00", "Groceries", "Whole Foods"),
    txn("t07", "2024-02-01", "Card payment thank you", "300.00", "Transfers", "Transfer", CARD),
    txn("t08", "2024-02-03", "Starbucks", "-4.75", "Dining", "Starbucks", CARD),
    txn("t09", "2024-02-03", "Blue Bottle", "-9.50", "Dining", "Blue Bottle", CARD),
    txn("t10", "2024-03-01", "Payroll ACME Corp", "2500.00", "Income", "ACME"),
    txn("t11", "2024-03-05", "Refund Whole Foods", "20.00", "Groceries", "Whole Foods"),
    txn("t12", "2024-03-05", "Netflix", "-15.99", "Entertainment", "Netflix", CARD),
    txn("t13", "2024-03-20", "Rent March", "-1500.00", "Housing", "Landlord"),
    txn("t14", "2024-03-20", "Tiny fee", "-0.01", "Fees", "First Bank"),
]


def generated(count: int) -> list[Transaction]:
    """Deterministic filler with repeated dates and amounts, so sort tiebreaks matter."""
    rng = np.random.default_rng(7)
    merchants = [("Starbucks", "Dining"), ("Shell", "Travel"), ("Whole Foods", "Groceries")]
    rows = []
    for i in range(count):
        merchant, category = merchants[int(rng.integers(len(merchants)))]
        day = date(2024, 1, 1) + timedelta(days=int(rng.integers(0, 90)))
        cents = int(rng.choice([-475, -2000, -2000, -333, 1500, -12345]))
        account = CHECKING if rng.random() < 0.5 else CARD
        rows.append(
            txn(
                f"g{i:03d}",
                day.isoformat(),
                f"{merchant} purchase {i}",
                str(Decimal(cents) / 100),
                category,
                merchant,
                account,
            )
        )
    return rows


ROWS = HANDMADE + generated(40)
BOB_ROWS = [
    txn("t01", "2024-01-02", "Bob's bakery", "-7.00", "Dining", "Bakery"),
    txn("b02", "2024-02-02", "Bob's salary", "900.00", "Income", "Bobcorp"),
]


def frame_of(rows: list[Transaction]) -> pd.DataFrame:
    """The same rows in the shape ``tests.pandas_reference`` reads from a CSV."""
    docs = [row.as_document("x") for row in rows]
    frame = pd.DataFrame(docs)
    frame["day"] = [row.date for row in rows]
    frame["cents"] = frame["amount_cents"]
    return frame


FRAME = frame_of(ROWS)


def vector(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=DIMS).astype(np.float32)
    return v / np.linalg.norm(v)


def chunk(
    statement_id: str,
    account: tuple[str, str, str],
    start: str,
    end: str,
    page: int,
    text: str,
    summary: str,
) -> StatementChunk:
    name, bank, number = account
    return StatementChunk(
        statement_id=statement_id,
        account_no=number,
        account_name=name,
        bank_name=bank,
        statement_from=date.fromisoformat(start),
        statement_to=date.fromisoformat(end),
        page=page,
        chunk=0,
        text=text,
        summary_text=summary,
        source_file=f"{statement_id}.pdf",
    )


CHUNKS = [
    chunk(
        "chk-2024-01",
        CHECKING,
        "2024-01-01",
        "2024-01-31",
        1,
        "Opening balance 1,000.00. Overdraft fee: $35.00 per item.",
        "Overdraft fee terms",
    ),
    chunk(
        "chk-2024-01",
        CHECKING,
        "2024-01-01",
        "2024-01-31",
        2,
        "Interest paid 0.12. Monthly maintenance fee waived.",
        "Interest and fees",
    ),
    chunk(
        "chk-2024-02",
        CHECKING,
        "2024-02-01",
        "2024-02-29",
        1,
        "Opening balance 800.00. Wire transfer received.",
        "Wire transfers",
    ),
    chunk(
        "card-2024-01",
        CARD,
        "2024-01-01",
        "2024-01-31",
        1,
        "Minimum payment due 25.00. Late payment fee up to $40.",
        "Late payment fee",
    ),
    chunk(
        "card-2024-01",
        CARD,
        "2024-01-01",
        "2024-01-31",
        2,
        "Rewards points earned: 1,250. Annual fee $95.",
        "Rewards and annual fee",
    ),
]
VECTORS = np.stack([vector(i) for i in range(len(CHUNKS))])
BOB_CHUNK = chunk(
    "bob-stmt",
    CHECKING,
    "2024-01-01",
    "2024-01-31",
    1,
    "Bob's overdraft fee is $10.",
    "Bob overdraft fee",
)


@pytest.fixture
def backend(tmp_path: Path):
    store = EmbeddedBackend(Settings(data_dir=tmp_path))
    store.prepare(DIMS, "fake-8")
    store.add_transactions(ALICE, ROWS)
    store.add_transactions(BOB, BOB_ROWS)
    store.add_statement_chunks(ALICE, CHUNKS, VECTORS, "fake-8")
    store.add_statement_chunks(BOB, [BOB_CHUNK], vector(99)[None, :], "fake-8")
    yield store
    store.close()


def plan(intent: Intent = Intent.aggregate, **fields) -> IntentPlan:
    return IntentPlan(intent=intent, **fields)


# -- writes -----------------------------------------------------------------------------------
def test_adds_are_idempotent(tmp_path: Path):
    store = EmbeddedBackend(Settings(data_dir=tmp_path))
    first = store.add_transactions(ALICE, ROWS)
    assert (first.indexed, first.skipped, first.failed) == (len(ROWS), 0, {})
    again = store.add_transactions(ALICE, [*ROWS[:3], ROWS[0]])
    assert (again.indexed, again.skipped) == (0, 4)
    assert store.add_transactions(BOB, BOB_ROWS[:1]).indexed == 1  # same id, other user

    ids = [c.doc_id for c in CHUNKS]
    assert store.missing_chunks(ALICE, ids) == set(ids)
    written = store.add_statement_chunks(ALICE, CHUNKS[:2], VECTORS[:2], "fake-8")
    assert (written.indexed, written.skipped) == (2, 0)
    assert store.missing_chunks(ALICE, ids) == set(ids[2:])
    rewritten = store.add_statement_chunks(ALICE, CHUNKS, VECTORS, "fake-8")
    assert (rewritten.indexed, rewritten.skipped) == (3, 2)
    assert store.missing_chunks(BOB, ids) == set(ids)
    store.close()


# -- aggregate ------------------------------------------------------------------------------
FILTER_CASES = [
    {},
    {"date_from": date(2024, 1, 3), "date_to": date(2024, 2, 3)},
    {"date_from": date(2024, 3, 5)},
    {"accounts": ["Platinum Card"]},
    {"categories": ["Dining", "Groceries"]},
    {"merchants": ["Whole Foods"]},
    {"min_amount": Decimal("20.00")},
    {"max_amount": Decimal("4.75")},
    {"min_amount": Decimal("4.75"), "max_amount": Decimal("20.00")},
    {"text": "whole foods"},
    {"text": "100%_coffee*"},  # SQL LIKE and ES wildcard characters are literal
    {"text": "crème"},  # case-insensitive beyond ASCII
    {"categories": ["Transfers"]},
]


@pytest.mark.parametrize("filters", FILTER_CASES)
@pytest.mark.parametrize("direction", list(Direction))
@pytest.mark.parametrize("metric", list(Metric))
def test_aggregate_matches_pandas(backend, filters, direction, metric):
    # A median is of all the rows only: never per group.
    group_by = None if metric is Metric.median else GroupBy.merchant
    asked = plan(direction=direction, metric=metric, group_by=group_by, **filters)
    got = backend.aggregate(ALICE, asked)
    want = ref.aggregate(FRAME, asked)
    assert (got.value, got.count) == (want["value"], want["count"])
    assert [(g.key, g.value, g.count) for g in got.groups] == want["groups"]


@pytest.mark.parametrize("group_by", list(GroupBy))
def test_grouped_aggregate_matches_pandas(backend, group_by):
    asked = plan(group_by=group_by, metric=Metric.avg)
    want = ref.aggregate(FRAME, asked)
    assert [(g.key, g.value, g.count) for g in backend.aggregate(ALICE, asked).groups] == (
        want["groups"]
    )


def test_direction_semantics(backend):
    def value(**fields) -> Decimal | None:
        return backend.aggregate(ALICE, plan(**fields)).value

    income = sum(r.amount for r in ROWS if r.amount > 0 and r.category != "Transfers")
    spend = -sum(r.amount for r in ROWS if r.amount < 0 and r.category != "Transfers")
    assert value(direction=Direction.in_) == income  # the 300.00 transfer in is left out
    assert value() == spend  # spend is positive and leaves the 500.00 transfer out
    assert value(categories=["Transfers"]) == Decimal("500.00")
    assert value(categories=["Transfers"], direction=Direction.in_) == Decimal("300.00")
    assert value(direction=Direction.net) == income - spend
    assert value(direction=Direction.any) == sum(r.amount for r in ROWS)


@pytest.mark.parametrize("metric", [Metric.sum, Metric.avg, Metric.min, Metric.max])
def test_spend_metrics_to_the_cent(backend, metric):
    asked = plan(metric=metric, categories=["Dining"], accounts=["Platinum Card"])
    card_dining = FRAME[
        (FRAME["category"] == "Dining") & (FRAME["account_name"] == "Platinum Card")
    ]
    spends = [Decimal(-int(c)) / 100 for c in card_dining["amount_cents"]]
    want = {
        Metric.sum: sum(spends),
        Metric.avg: ref.metric(ref.select(FRAME, asked), Metric.avg),
        Metric.min: min(spends),  # the smallest spend, as a positive amount
        Metric.max: max(spends),
    }[metric]
    assert backend.aggregate(ALICE, asked).value == want


def test_avg_rounds_half_up(tmp_path: Path):
    store = EmbeddedBackend(Settings(data_dir=tmp_path))
    store.add_transactions(
        ALICE,
        [
            txn("a", "2024-01-01", "x", "-0.01", "Fees", "Bank"),
            txn("b", "2024-01-02", "y", "-0.02", "Fees", "Bank"),
        ],
    )
    assert store.aggregate(ALICE, plan(metric=Metric.avg)).value == Decimal("0.02")  # 0.015
    assert store.aggregate(ALICE, plan(metric=Metric.min)).value == Decimal("0.01")
    assert store.aggregate(ALICE, plan(metric=Metric.max)).value == Decimal("0.02")
    store.close()


def test_month_groups_are_months_with_data(backend):
    months = backend.aggregate(ALICE, plan(group_by=GroupBy.month, metric=Metric.count))
    assert sorted(g.key for g in months.groups) == ["2024-01-01", "2024-02-01", "2024-03-01"]


def test_ties_in_value_sort_by_key(tmp_path: Path):
    store = EmbeddedBackend(Settings(data_dir=tmp_path))
    store.add_transactions(
        ALICE,
        [
            txn("1", "2024-01-01", "z", "-5.00", "Dining", "Zeta"),
            txn("2", "2024-01-01", "a", "-5.00", "Dining", "Alpha"),
            txn("3", "2024-01-01", "m", "-9.00", "Dining", "Mid"),
        ],
    )
    groups = store.aggregate(ALICE, plan(group_by=GroupBy.merchant)).groups
    assert [g.key for g in groups] == ["Mid", "Alpha", "Zeta"]
    store.close()


# -- trend ----------------------------------------------------------------------------------
def test_trend_zero_fills_months(backend):
    asked = plan(Intent.trend, date_from=date(2023, 12, 1), date_to=date(2024, 4, 30))
    series = [(b.period.isoformat(), b.value, b.count) for b in backend.trend(ALICE, asked).series]
    assert [s[0] for s in series] == [
        "2023-12-01",
        "2024-01-01",
        "2024-02-01",
        "2024-03-01",
        "2024-04-01",
    ]
    assert series[0][1:] == (Decimal("0.00"), 0) and series[-1][1:] == (Decimal("0.00"), 0)
    assert series == ref.trend(FRAME, asked)


@pytest.mark.parametrize("interval", list(Interval))
def test_trend_matches_pandas(backend, interval):
    asked = plan(
        Intent.trend,
        interval=interval,
        date_from=date(2024, 1, 1),
        date_to=date(2024, 2, 29),
        split_by_category=True,
    )
    got = backend.trend(ALICE, asked)
    assert [(b.period.isoformat(), b.value, b.count) for b in got.series] == ref.trend(FRAME, asked)
    assert sorted(got.splits) == sorted(set(ref.select(FRAME, asked)["category"]))
    for category, buckets in got.splits.items():
        split = [(b.period.isoformat(), b.value, b.count) for b in buckets]
        assert split == ref.trend(FRAME, asked, category)


def test_trend_zero_fills_weeks_starting_monday(tmp_path: Path):
    store = EmbeddedBackend(Settings(data_dir=tmp_path))
    store.add_transactions(
        ALICE,
        [
            txn("a", "2024-01-07", "sun", "-1.00", "Dining", "X"),  # Sunday: week of Jan 1
            txn("b", "2024-01-08", "mon", "-2.00", "Dining", "X"),
            txn("c", "2024-01-24", "wed", "-4.00", "Dining", "X"),
        ],
    )
    asked = plan(
        Intent.trend, interval=Interval.week, date_from=date(2024, 1, 3), date_to=date(2024, 1, 31)
    )
    series = [(b.period.isoformat(), b.value, b.count) for b in store.trend(ALICE, asked).series]
    assert series == [
        ("2024-01-01", Decimal("1.00"), 1),
        ("2024-01-08", Decimal("2.00"), 1),
        ("2024-01-15", Decimal("0.00"), 0),
        ("2024-01-22", Decimal("4.00"), 1),
        ("2024-01-29", Decimal("0.00"), 0),
    ]
    quarters = store.trend(ALICE, plan(Intent.trend, interval=Interval.quarter))
    assert [b.period for b in quarters.series] == [date(2024, 1, 1)]
    store.close()


# -- listing --------------------------------------------------------------------------------
@pytest.mark.parametrize("order", list(SortOrder))
@pytest.mark.parametrize("filters", [{}, {"accounts": ["Platinum Card"]}, {"text": "starbucks"}])
def test_listing_pages_cover_every_row_once(backend, order, filters):
    everything = plan(Intent.listing, sort=order, limit=100, direction=Direction.any, **filters)
    want_ids, want_total = ref.listing(FRAME, everything)
    paged = everything.model_copy(update={"limit": 4})
    seen: list[str] = []
    after = None
    while True:
        page = backend.listing(ALICE, paged, after)
        assert page.total == want_total
        seen.extend(r.transaction_id for r in page.rows)
        if page.next_after is None:
            break
        after = page.next_after
    assert seen == want_ids
    assert len(set(seen)) == len(seen) == want_total


def test_listing_rows_and_cursor(backend):
    page = backend.listing(
        ALICE,
        plan(
            Intent.listing,
            limit=2,
            merchants=["Whole Foods"],
            direction=Direction.any,
            date_to=date(2024, 1, 31),
        ),
    )
    first = page.rows[0]
    original = next(r for r in ROWS if r.transaction_id == first.transaction_id)
    assert first == original
    # The cursor holds the last row's sort values as stored: its date, then its id.
    last = page.rows[-1]
    assert page.next_after is not None
    assert cursor.decode(page.next_after, 2) == (last.date.isoformat(), last.transaction_id)
    short = backend.listing(ALICE, plan(Intent.listing, limit=100))
    assert short.next_after is None and short.total == len(short.rows)


# -- ownership ------------------------------------------------------------------------------
def test_users_never_see_each_other(backend):
    bob_total = backend.aggregate(BOB, plan(direction=Direction.any, metric=Metric.count))
    assert bob_total.value == Decimal(2)
    rows = backend.listing(BOB, plan(Intent.listing, direction=Direction.any, limit=100)).rows
    assert [r.description for r in rows] == ["Bob's salary", "Bob's bakery"]
    assert backend.vocabulary(BOB).merchants == ["Bakery", "Bobcorp"]
    assert [s.statement_id for s in backend.statements(BOB)] == ["bob-stmt"]
    assert backend.statement_chunks(BOB, "chk-2024-01") == []
    hits = backend.text_qa(BOB, plan(Intent.text_qa, text="overdraft fee"), VECTORS[0]).hits
    assert [h.statement_id for h in hits] == ["bob-stmt"]
    alice_hits = backend.text_qa(ALICE, plan(Intent.text_qa, text="Bob overdraft"), vector(99))
    assert "bob-stmt" not in {h.statement_id for h in alice_hits.hits}
    assert backend.aggregate("carol", plan()).count == 0


# -- text questions -------------------------------------------------------------------------
def test_text_qa_puts_the_nearest_vector_first(backend):
    for i, expected in enumerate(CHUNKS):
        result = backend.text_qa(ALICE, plan(Intent.text_qa, text="zzzz"), VECTORS[i])
        assert result.hits[0].doc_id == expected.doc_id
        assert (result.keyword_only, result.note) == (False, None)
        assert len(result.hits) == 5


def test_text_qa_without_a_vector_is_keyword_only(backend):
    result = backend.text_qa(ALICE, plan(Intent.text_qa, text="rewards points?"), None)
    assert result.keyword_only and result.note == NO_VECTOR_NOTE
    assert [h.doc_id for h in result.hits] == [CHUNKS[4].doc_id]
    assert result.hits[0].text == CHUNKS[4].text and result.hits[0].score > 0


def test_text_qa_with_a_wrong_sized_vector_falls_back(backend):
    result = backend.text_qa(ALICE, plan(Intent.text_qa, text="overdraft"), np.ones(DIMS + 1))
    assert result.keyword_only and result.note == VECTOR_FAILED_NOTE
    assert result.hits[0].doc_id == CHUNKS[0].doc_id


def test_text_qa_filters_by_account_and_period(backend):
    card = backend.text_qa(
        ALICE, plan(Intent.text_qa, text="fee", accounts=["Platinum Card"]), VECTORS[0]
    )
    assert {h.account_name for h in card.hits} == {"Platinum Card"}
    february = plan(
        Intent.text_qa, text="fee balance", date_from=date(2024, 2, 10), date_to=date(2024, 2, 20)
    )
    assert {h.statement_id for h in backend.text_qa(ALICE, february, VECTORS[0]).hits} == {
        "chk-2024-02"
    }


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('fee" OR "x', ["fee"]),
        ('NEAR(fee balance, 2) AND -x * ^y: "', ["fee", "balance"]),
        ("fee's (annual)", ["fee", "annual"]),
        ('"overdraft" AND (wire*', ["overdraft", "wire"]),
        ("{rewards}: -points", ["rewards", "points"]),
        ("?!", []),
        ("\"'\\%_*", []),
    ],
)
def test_fts_syntax_in_questions_is_harmless(backend, text, words):
    """FTS5 operators, quotes, columns and wildcards in a question are plain characters: every
    chunk holding the real words around them is found, and punctuation alone finds nothing."""
    result = backend.text_qa(ALICE, plan(Intent.text_qa, text=text), None)
    assert result.keyword_only
    found = {(hit.statement_id, hit.page) for hit in result.hits}
    holding = {
        (c.statement_id, c.page)
        for c in CHUNKS
        if any(word in f"{c.text} {c.summary_text}".lower() for word in words)
    }
    assert holding <= found
    assert bool(found) == bool(words)
    assert not words or any(word in result.hits[0].text.lower() for word in words)


def test_new_chunks_are_searchable_at_once(backend, tmp_path: Path):
    backend.text_qa(ALICE, plan(Intent.text_qa, text="x"), VECTORS[0])  # loads the vectors
    extra = chunk("chk-2024-03", CHECKING, "2024-03-01", "2024-03-31", 1, "March", "March")
    backend.add_statement_chunks(ALICE, [extra], vector(50)[None, :], "fake-8")
    assert backend.text_qa(ALICE, plan(Intent.text_qa, text="x"), vector(50)).hits[0].doc_id == (
        extra.doc_id
    )
    # Another process writing the same file is noticed too.
    other = EmbeddedBackend(Settings(data_dir=tmp_path))
    later = chunk("chk-2024-04", CHECKING, "2024-04-01", "2024-04-30", 1, "April", "April")
    other.add_statement_chunks(ALICE, [later], vector(60)[None, :], "fake-8")
    other.close()
    assert backend.text_qa(ALICE, plan(Intent.text_qa, text="x"), vector(60)).hits[0].doc_id == (
        later.doc_id
    )


def test_other_vector_dimensions_are_refused(backend, tmp_path: Path):
    backend.prepare(DIMS, "fake-8")  # same shape again is fine
    with pytest.raises(EmbeddingMismatch, match="8-dimensional"):
        backend.prepare(16, "bigger")
    with pytest.raises(EmbeddingMismatch):
        EmbeddedBackend(Settings(data_dir=tmp_path)).prepare(16, "bigger")
    with pytest.raises(EmbeddingMismatch):
        backend.add_statement_chunks(ALICE, [CHUNKS[0]], np.ones((1, 16)), "bigger")


# -- browsing -------------------------------------------------------------------------------
def test_vocabulary(backend):
    vocabulary = backend.vocabulary(ALICE)
    assert vocabulary.merchants == sorted({r.merchant for r in ROWS})
    assert vocabulary.categories == sorted({r.category for r in ROWS})
    assert vocabulary.accounts == [
        AccountInfo("Everyday Checking", "First Bank", "6789"),
        AccountInfo("Platinum Card", "Amex Bank", "4321"),
    ]
    assert vocabulary.first_date == min(r.date for r in ROWS)
    assert vocabulary.last_date == max(r.date for r in ROWS)
    assert vocabulary.currency == "USD"
    empty = backend.vocabulary("carol")
    assert (empty.merchants, empty.accounts, empty.first_date) == ([], [], None)


def test_statements_and_their_chunks(backend):
    infos = backend.statements(ALICE)
    assert [(s.statement_id, s.pages) for s in infos] == [
        ("chk-2024-01", 2),
        ("chk-2024-02", 1),
        ("card-2024-01", 2),
    ]
    assert infos[0].statement_to == date(2024, 1, 31) and infos[0].source_file == "chk-2024-01.pdf"
    pages = backend.statement_chunks(ALICE, "card-2024-01")
    assert [(h.page, h.text) for h in pages] == [(1, CHUNKS[3].text), (2, CHUNKS[4].text)]


def test_threads_share_one_backend(backend):
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for _ in range(20):
                backend.aggregate(ALICE, plan(group_by=GroupBy.category))
                backend.add_transactions(
                    ALICE, [txn(f"thread-{n}", "2024-01-01", "x", "-1.00", "Dining", "X")]
                )
                backend.text_qa(ALICE, plan(Intent.text_qa, text="fee"), VECTORS[n % 5])
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert backend.aggregate(ALICE, plan(merchants=["X"])).count == 6
