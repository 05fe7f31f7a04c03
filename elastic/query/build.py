"""IntentPlan → the neutral query spec. Pure functions; every query starts with the user filter,
so nothing in a plan can widen whose documents a query reads."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from elastic.model.plan import (
    TRANSFERS_CATEGORY,
    Direction,
    GroupBy,
    IntentPlan,
    Interval,
    Metric,
    SortOrder,
)
from elastic.model.records import OFF, RECONCILED, UNCHECKED
from elastic.query.spec import (
    And,
    Breakdown,
    Buckets,
    Collection,
    Contains,
    Distinct,
    Eq,
    FacetsQuery,
    Filter,
    Groups,
    In,
    Not,
    Range,
    Search,
    SortKey,
    SortValue,
    StatementsQuery,
    Stats,
    StatsQuery,
    TextRanking,
    VectorRanking,
)

GROUP_FIELDS = {
    GroupBy.category: "category",
    GroupBy.merchant: "merchant",
    GroupBy.account: "account_name",
    GroupBy.currency: "currency",
}
MAX_GROUPS = 1000
DISTINCT_SIZE = 10_000  # values a distinct count counts (merchants, categories, ...)
# Distinct amounts a median is read from; more make the median unknown rather than wrong
# (Elasticsearch answers at most 65,536 buckets to one request).
MEDIAN_VALUES = 60_000
ROWS_PAGE = 5000  # rows a flow that reads every row reads at a time
BALANCE_FACTS = ("opening_balance", "closing_balance")
BALANCE_FACTS_SIZE = 10_000
TEXT_QA_FIELDS = ("summary_text^2", "summary_text.words", "text", "account_name", "bank_name")
CANDIDATES = 20
FACTS_SIZE = 50
VOCABULARY_SIZE = 2000
STATEMENTS_SIZE = 10_000  # statements listed on the Sources page
CHUNKS_SIZE = 1000  # chunks of one statement
MERCHANT_MEMORY = 10_000  # merchants whose categories an import remembers
CATEGORIES_PER_MERCHANT = 20
PAIR_PAGE = 5000  # rows an import reads at a time when it pairs transfers

AMOUNT = Stats("amount_cents")


def _newest(*fields: str) -> tuple[SortKey, ...]:
    return tuple(SortKey(f, descending=True) for f in fields)


LISTING_SORTS: dict[SortOrder, tuple[SortKey, ...]] = {
    SortOrder.newest: _newest("date", "transaction_id"),
    SortOrder.oldest: (SortKey("date"), SortKey("transaction_id")),
    SortOrder.largest: _newest("magnitude_cents", "date", "transaction_id"),
    SortOrder.smallest: (SortKey("magnitude_cents"), *_newest("date", "transaction_id")),
}
FACT_SORT = (SortKey("as_of", descending=True), SortKey("fact_id"))
CHUNK_SORT = (SortKey("page"), SortKey("chunk"))
PAIR_SORT = (SortKey("date"), SortKey("transaction_id"))


def _user(user_id: str) -> Eq:
    return Eq("user_id", user_id)


def _cents(value: object) -> int:
    return round(value * 100)  # type: ignore[operator]


def _period(field: str, plan: IntentPlan) -> list[Filter]:
    """The plan's inclusive date range on ``field``, or nothing when it has none."""
    if plan.date_from is None and plan.date_to is None:
        return []
    return [Range(field, gte=plan.date_from, lte=plan.date_to)]


def _names(field: str, values: Sequence[str]) -> list[Filter]:
    return [In(field, tuple(values))] if values else []


def transaction_filters(plan: IntentPlan, user_id: str) -> And:
    """The filter every transaction intent shares; the user filter is always first."""
    clauses: list[Filter] = [_user(user_id), *_period("date", plan)]
    clauses += _names("account_name", plan.accounts)
    clauses += _names("category", plan.categories)
    clauses += _names("merchant", plan.merchants)
    clauses += _names("payment_kind", [kind.value for kind in plan.payment_kinds])
    if plan.currency:
        clauses.append(Eq("currency", plan.currency))
    if plan.direction is Direction.out:
        clauses.append(Range("amount_cents", lt=0))
    elif plan.direction is Direction.in_:
        clauses.append(Range("amount_cents", gt=0))
    if plan.min_amount is not None or plan.max_amount is not None:
        low, high = plan.min_amount, plan.max_amount
        clauses.append(
            Range(
                "magnitude_cents",
                gte=None if low is None else _cents(low),
                lte=None if high is None else _cents(high),
            )
        )
    if plan.text and plan.text.strip():
        clauses.append(Contains("description", plan.text.strip()))
    if plan.excludes_transfers:
        clauses.append(Not(Eq("category", TRANSFERS_CATEGORY)))
    return And(tuple(clauses))


def transactions_by_id(user_id: str, ids: Sequence[str]) -> Search:
    """The user's stored transactions that carry one of ``ids``."""
    where = And((_user(user_id), In("transaction_id", tuple(ids))))
    return Search(Collection.transactions, where, (SortKey("transaction_id"),), max(len(ids), 1))


def statement_filters(plan: IntentPlan, user_id: str) -> And:
    """User, account and statement-period filters for text questions: a statement counts when
    its period overlaps the asked one."""
    clauses: list[Filter] = [_user(user_id), *_names("account_name", plan.accounts)]
    if plan.date_from:
        clauses.append(Range("statement_to", gte=plan.date_from))
    if plan.date_to:
        clauses.append(Range("statement_from", lte=plan.date_to))
    return And(tuple(clauses))


def fact_filters(plan: IntentPlan, user_id: str) -> And:
    """The statement facts a question names, for its accounts, currency and period."""
    clauses: list[Filter] = [_user(user_id), In("name", tuple(plan.facts))]
    clauses += _names("account_name", plan.accounts)
    if plan.currency:
        clauses.append(Eq("currency", plan.currency))
    return And((*clauses, *_period("as_of", plan)))


# -- one query per need -----------------------------------------------------------------------
def _series(interval: Interval) -> Buckets:
    return Buckets("date", interval)


# Groupings read from calendar buckets: months, and days folded into weekdays above the engines.
GROUP_BUCKETS = {
    GroupBy.month: Interval.month,
    GroupBy.weekday: Interval.day,
    GroupBy.weekend: Interval.day,
}


def aggregation(plan: IntentPlan, user_id: str) -> StatsQuery:
    """Breakdowns ``all``; for a grouped aggregate ``groups`` (days, for weekdays); for a
    median ``values`` (each distinct amount and how often); the span of currencies."""
    breakdowns: list[tuple[str, Breakdown]] = [("all", ())]
    if plan.group_by in GROUP_BUCKETS:
        breakdowns.append(("groups", (_series(GROUP_BUCKETS[plan.group_by]),)))
    elif plan.group_by is not None:
        size = DISTINCT_SIZE if plan.metric is Metric.distinct else MAX_GROUPS
        breakdowns.append(("groups", (Groups(GROUP_FIELDS[plan.group_by], size),)))
    if plan.metric is Metric.median:
        breakdowns.append(("values", (Groups("amount_cents", MEDIAN_VALUES),)))
    return StatsQuery(transaction_filters(plan, user_id), AMOUNT, tuple(breakdowns), "currency")


def statement_rows(plan: IntentPlan, user_id: str) -> StatsQuery:
    """Breakdown ``files``: how many of the plan's rows each statement PDF gave (rows of other
    files have no reconciliation)."""
    where = transaction_filters(plan, user_id)
    statuses = In("reconciliation", (RECONCILED, OFF, UNCHECKED))
    files: Breakdown = (Groups("source_file", MAX_GROUPS),)
    return StatsQuery(And((*where.clauses, statuses)), AMOUNT, (("files", files),))


def trend(plan: IntentPlan, user_id: str) -> StatsQuery:
    """Breakdowns ``series`` (buckets with data; the shared trend code fills empty buckets)
    and, split by category, ``split``; the span of currencies."""
    breakdowns: list[tuple[str, Breakdown]] = [("series", (_series(plan.interval),))]
    if plan.split_by_category:
        breakdowns.append(("split", (Groups("category", MAX_GROUPS), _series(plan.interval))))
    return StatsQuery(transaction_filters(plan, user_id), AMOUNT, tuple(breakdowns), "currency")


def listing(plan: IntentPlan, user_id: str, after: tuple[SortValue, ...] | None = None) -> Search:
    return Search(
        Collection.transactions,
        transaction_filters(plan, user_id),
        LISTING_SORTS[plan.sort],
        plan.limit,
        after,
        total=True,
    )


def rows_page(plan: IntentPlan, user_id: str, after: tuple[SortValue, ...] | None) -> Search:
    """A page of the rows ``plan`` selects, oldest first: for flows that read every row
    (balances, recurring series, unusual charges)."""
    return Search(
        Collection.transactions, transaction_filters(plan, user_id), PAIR_SORT, ROWS_PAGE, after
    )


def balance_facts(plan: IntentPlan, user_id: str) -> Search:
    """The opening and closing balances files state for the plan's accounts and currency."""
    clauses: list[Filter] = [_user(user_id), In("name", BALANCE_FACTS)]
    clauses += _names("account_name", plan.accounts)
    if plan.currency:
        clauses.append(Eq("currency", plan.currency))
    return Search(Collection.facts, And(tuple(clauses)), FACT_SORT, BALANCE_FACTS_SIZE)


def data_span(user_id: str) -> FacetsQuery:
    """The first and last day of the user's rows."""
    return FacetsQuery(And((_user(user_id),)), (), span="date")


def known_categories(user_id: str) -> StatsQuery:
    """Per merchant and category, the user's rows whose category a file or the user gave:
    what an import remembers of the user's categories (breakdown ``known``)."""
    where = And((_user(user_id), Eq("category_inferred", False)))
    levels = (Groups("merchant", MERCHANT_MEMORY), Groups("category", CATEGORIES_PER_MERCHANT))
    return StatsQuery(where, AMOUNT, (("known", levels),))


def pair_candidates(
    user_id: str, date_from: date, date_to: date, after: tuple[SortValue, ...] | None = None
) -> Search:
    """The user's rows between two days whose category was inferred: the rows an import may
    pair as transfers between the user's own accounts, oldest first, a page at a time."""
    where = And(
        (
            _user(user_id),
            Range("date", gte=date_from, lte=date_to),
            Eq("category_inferred", True),
        )
    )
    return Search(Collection.transactions, where, PAIR_SORT, PAIR_PAGE, after)


def facts(plan: IntentPlan, user_id: str) -> Search:
    """Newest first."""
    return Search(Collection.facts, fact_filters(plan, user_id), FACT_SORT, FACTS_SIZE)


def statement_chunks(user_id: str, statement_id: str) -> Search:
    where = And((_user(user_id), Eq("statement_id", statement_id)))
    return Search(Collection.statements, where, CHUNK_SORT, CHUNKS_SIZE)


def statements(user_id: str) -> StatementsQuery:
    return StatementsQuery(And((_user(user_id),)), STATEMENTS_SIZE)


def file_stats(user_id: str) -> StatsQuery:
    """Per file the user's transactions came from: its rows per month (their sum: its rows)."""
    months = (Groups("source_file", STATEMENTS_SIZE), Buckets("date", Interval.month))
    return StatsQuery(And((_user(user_id),)), AMOUNT, (("months", months),))


def vocabulary(user_id: str) -> FacetsQuery:
    return FacetsQuery(
        And((_user(user_id),)),
        (
            Distinct("merchant", VOCABULARY_SIZE, ("description",)),
            Distinct("category", VOCABULARY_SIZE),
            Distinct("currency", VOCABULARY_SIZE),
            Distinct("account_no", VOCABULARY_SIZE, ("account_name", "bank_name")),
        ),
        span="date",
    )


def keyword_ranking(plan: IntentPlan, user_id: str) -> TextRanking:
    return TextRanking(
        statement_filters(plan, user_id), plan.text or "", TEXT_QA_FIELDS, CANDIDATES
    )


def vector_ranking(plan: IntentPlan, user_id: str, vector: Sequence[float]) -> VectorRanking:
    return VectorRanking(
        statement_filters(plan, user_id), tuple(float(x) for x in vector), CANDIDATES
    )
