"""What a backend returns for a plan: the same shapes from Elasticsearch and the embedded store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from elastic.model.calendar import bucket_start
from elastic.model.plan import (
    Change,
    CompareSide,
    Direction,
    GroupBy,
    IntentPlan,
    Interval,
    Metric,
    Peak,
    ShareOf,
)
from elastic.model.records import Reconciliation, StatementFact, Transaction

CENT = Decimal("0.01")
TENTH = Decimal("0.1")


def cents_to_amount(cents: int) -> Decimal:
    return (Decimal(cents) / 100).quantize(CENT)


@dataclass(frozen=True)
class Group:
    key: str
    value: Decimal | None
    count: int


@dataclass(frozen=True)
class AggregateResult:
    metric: Metric
    direction: Direction
    value: Decimal | None
    count: int
    currency: str
    groups: list[Group] = field(default_factory=list)
    # Set when the rows span several currencies: one result per currency, never added up.
    by_currency: list[AggregateResult] = field(default_factory=list)
    # The smallest or largest spend or income: the transaction with that amount.
    extreme: Transaction | None = None
    # An average per interval (``IntentPlan.per``): how many intervals the total was divided by.
    periods: int | None = None


@dataclass(frozen=True)
class Bucket:
    period: date
    value: Decimal
    count: int

    def shown(self, metric: Metric) -> Decimal | None:
        """The value to show: an empty bucket has no average, smallest or largest (``None``),
        while its sum and count are 0."""
        if self.count == 0 and metric in (Metric.avg, Metric.min, Metric.max):
            return None
        return self.value


@dataclass(frozen=True)
class TrendResult:
    interval: Interval
    direction: Direction
    currency: str
    series: list[Bucket]
    splits: dict[str, list[Bucket]] = field(default_factory=dict)
    by_currency: list[TrendResult] = field(default_factory=list)


def series_total(buckets: Sequence[Bucket]) -> tuple[Decimal, int]:
    """The total of a series' values (for a count trend, its counts) and its transactions."""
    return sum((bucket.value for bucket in buckets), Decimal(0)), sum(b.count for b in buckets)


def average_per_interval(trend: TrendResult) -> AggregateResult:
    """The average per calendar interval: the total of every bucket of the period, empty ones
    included, divided by the number of buckets; no value when the period has none."""
    total, count = series_total(trend.series)
    periods = len(trend.series)
    value = (total / periods).quantize(CENT, ROUND_HALF_UP) if periods else None
    return AggregateResult(
        Metric.avg, trend.direction, value, count, trend.currency, periods=periods
    )


@dataclass(frozen=True)
class SideResult:
    """One side of a comparison: what it changes, the plan it ran and its figure."""

    side: CompareSide
    plan: IntentPlan
    result: AggregateResult


@dataclass(frozen=True)
class CompareResult:
    """The same figure for each side of a comparison (periods in time order)."""

    metric: Metric
    direction: Direction
    currency: str
    sides: list[SideResult]
    # Set when the sides span several currencies: one comparison per currency.
    by_currency: list[CompareResult] = field(default_factory=list)

    @property
    def difference(self) -> Decimal | None:
        """The last side's value minus the first's."""
        if not self.sides:
            return None
        first, last = self.sides[0].result.value, self.sides[-1].result.value
        return None if first is None or last is None else last - first

    @property
    def change_pct(self) -> Decimal | None:
        """The difference in percent of the first side's value, to one decimal; none from 0."""
        first = self.sides[0].result.value if self.sides else None
        return percent(self.difference, None if first is None else abs(first))

    @property
    def largest(self) -> SideResult | None:
        """The side with the highest value; none on a tie for highest or without values."""
        valued = [s for s in self.sides if s.result.value is not None]
        if not valued:
            return None
        top = max(s.result.value for s in valued if s.result.value is not None)
        highest = [s for s in valued if s.result.value == top]
        return highest[0] if len(highest) == 1 else None


def percent(part: Decimal | None, whole: Decimal | None) -> Decimal | None:
    """``part`` in percent of ``whole``, to one decimal; none of a whole that is not above 0."""
    if part is None or whole is None or whole <= 0:
        return None
    return (100 * part / whole).quantize(TENTH, ROUND_HALF_UP)


@dataclass(frozen=True)
class ShareResult:
    """A figure and the whole it is a share of, in one currency: the share of spending on
    dining (``ShareOf.total``), or of income (``ShareOf.income``; of net cash flow, the
    savings rate)."""

    share_of: ShareOf
    direction: Direction
    currency: str
    part: AggregateResult
    whole: AggregateResult
    # Set when the rows span several currencies: one share per currency.
    by_currency: list[ShareResult] = field(default_factory=list)

    @property
    def pct(self) -> Decimal | None:
        return percent(self.part.value, self.whole.value)


@dataclass(frozen=True)
class PeakResult:
    """The highest or lowest interval of a trend, among those with rows, and the series it
    was found in; ``ties`` counts the other intervals with the same value."""

    peak: Peak
    trend: TrendResult
    bucket: Bucket | None
    ties: int = 0
    by_currency: list[PeakResult] = field(default_factory=list)

    @property
    def currency(self) -> str:
        return self.trend.currency

    @property
    def empty(self) -> int:
        """Intervals of the series without rows (never a peak)."""
        return sum(1 for bucket in self.trend.series if bucket.count == 0)

    @classmethod
    def of(cls, trend: TrendResult, peak: Peak, metric: Metric) -> PeakResult:
        if trend.by_currency:
            parts = [cls.of(part, peak, metric) for part in trend.by_currency]
            return cls(peak, trend, None, by_currency=parts)
        valued = [b for b in trend.series if b.count and b.shown(metric) is not None]
        if not valued:
            return cls(peak, trend, None)
        pick = max if peak is Peak.highest else min
        best = pick(valued, key=lambda b: b.value)  # the earliest of equal values
        ties = sum(1 for b in valued if b.value == best.value) - 1
        return cls(peak, trend, best, ties)


@dataclass(frozen=True)
class GroupChange:
    """One group's figure in each of two periods (0 for a sum or count without rows)."""

    key: str
    first: Decimal | None
    last: Decimal | None
    first_count: int
    last_count: int

    @property
    def difference(self) -> Decimal | None:
        if self.first is None or self.last is None:
            return None
        return self.last - self.first

    @property
    def change_pct(self) -> Decimal | None:
        """The change in percent of the first period's figure; none from 0."""
        return percent(self.difference, None if self.first is None else abs(self.first))


@dataclass(frozen=True)
class ChangesResult:
    """Groups compared across two periods, the biggest changes first: the largest rises
    (``Change.grew``), the largest falls (``Change.shrank``), or the largest either way."""

    metric: Metric
    direction: Direction
    currency: str
    group_by: GroupBy
    change: Change | None
    sides: list[SideResult]
    rows: list[GroupChange]
    by_currency: list[ChangesResult] = field(default_factory=list)

    @classmethod
    def of(cls, plan: IntentPlan, sides: list[SideResult], currency: str) -> ChangesResult:
        """The groups of both sides' figures, ordered as ``plan.change`` asks."""
        assert plan.group_by is not None and len(sides) == 2
        first, last = ({g.key: g for g in side.result.groups} for side in sides)
        empty = Decimal("0.00") if plan.metric is not Metric.count else Decimal(0)
        filled = empty if plan.metric in (Metric.sum, Metric.count) else None
        rows = []
        for key in sorted(set(first) | set(last)):
            before, after = first.get(key), last.get(key)
            rows.append(
                GroupChange(
                    key,
                    before.value if before else filled,
                    after.value if after else filled,
                    before.count if before else 0,
                    after.count if after else 0,
                )
            )
        known = [row for row in rows if row.difference is not None]
        unknown = [row for row in rows if row.difference is None]

        def size(row: GroupChange) -> Decimal:
            difference = row.difference or empty
            if plan.change is Change.grew:
                return -difference
            if plan.change is Change.shrank:
                return difference
            return -abs(difference)

        known.sort(key=lambda row: (size(row), row.key))
        return cls(
            plan.metric, plan.direction, currency, plan.group_by, plan.change, sides,
            known + unknown,
        )  # fmt: skip


@dataclass(frozen=True)
class DayBalance:
    """An account's balance at the end of a day, in cents."""

    day: date
    cents: int

    @property
    def amount(self) -> Decimal:
        return cents_to_amount(self.cents)


@dataclass(frozen=True)
class BalanceGap:
    """A balance a file states that the rows since the balance before it do not reach."""

    day: date
    stated: Decimal
    computed: Decimal
    source: str  # the file and where in it the balance is printed

    @property
    def difference(self) -> Decimal:
        return self.stated - self.computed


@dataclass(frozen=True)
class AccountBalance:
    """One account's end-of-day balances over the asked period, built from the balances its
    files state and the rows between them; ``daily`` is empty when no balance is known."""

    account_name: str
    account_no: str
    bank_name: str
    currency: str
    daily: list[DayBalance]
    stated: int  # balances stated in files (running balances of rows, statement balances)
    rows: int  # the account's rows the balances were carried over
    gaps: list[BalanceGap] = field(default_factory=list)
    # The balance at the end of the last day known on or before the period's end.
    latest: DayBalance | None = None
    known_from: date | None = None  # the days a balance is known, whatever the period
    known_to: date | None = None

    @property
    def known(self) -> bool:
        return bool(self.daily)

    def lowest(self) -> DayBalance | None:
        """The lowest end-of-day balance, the earliest on a tie."""
        return min(self.daily, key=lambda d: (d.cents, d.day)) if self.daily else None

    def highest(self) -> DayBalance | None:
        return min(self.daily, key=lambda d: (-d.cents, d.day)) if self.daily else None

    def at_ends(self, interval: Interval) -> list[DayBalance]:
        """The balance at the end of each calendar interval (its last known day)."""
        ends: dict[date, DayBalance] = {}
        for day in self.daily:
            ends[bucket_start(day.day, interval)] = day
        return list(ends.values())


@dataclass(frozen=True)
class BalanceResult:
    """Balances per account (never added across accounts or currencies). ``metric`` says
    what an aggregate asks: the balance on the last day (sum), the lowest (min) or the highest
    (max); a trend gives the balance at the end of each ``interval``."""

    metric: Metric
    interval: Interval | None
    accounts: list[AccountBalance]


@dataclass(frozen=True)
class PriceChange:
    day: date
    before: Decimal
    after: Decimal


@dataclass(frozen=True)
class RecurringSeries:
    """Charges of one merchant at a regular cadence with similar amounts."""

    merchant: str
    currency: str
    cadence: Interval  # week, month, quarter or year (two weeks: ``every`` 2)
    every: int  # the cadence's count: 2 for every two weeks
    amount: Decimal  # the latest charge
    monthly: Decimal  # what the series costs per month at the latest amount
    first: date
    last: date
    count: int
    active: bool  # the next charge is not yet overdue at the end of the user's data
    fixed: bool  # the same amount each time (else amounts vary a little)
    price_changes: list[PriceChange]
    accounts: list[str]
    transaction_ids: list[str]


@dataclass(frozen=True)
class RecurringResult:
    """Recurring series among the rows read, active ones first, then by monthly cost; what
    the active ones cost per month, per currency; the day "stopped" is judged at."""

    direction: Direction
    series: list[RecurringSeries]
    monthly: dict[str, Decimal]
    data_end: date | None
    rows: int


@dataclass(frozen=True)
class DoubleCharge:
    """The same merchant and amount charged two or more times within a few days."""

    merchant: str
    amount: Decimal
    currency: str
    rows: list[Transaction]


@dataclass(frozen=True)
class HighCharge:
    """A charge far above the merchant's usual amount (the median of its other charges)."""

    row: Transaction
    usual: Decimal
    charges: int  # the merchant's other charges the usual amount is the median of

    @property
    def times(self) -> Decimal:
        return (abs(self.row.amount) / self.usual).quantize(TENTH, ROUND_HALF_UP)


@dataclass(frozen=True)
class AnomalyResult:
    doubles: list[DoubleCharge]
    high: list[HighCharge]
    rows: int  # the charges examined


@dataclass(frozen=True)
class Basis:
    """How an answer's numbers were made: the rows counted and what was left out, with
    counts. ``kind`` is ``rows`` (transactions counted), ``balances`` (balances stated in
    files carried over the rows between them) or ``facts`` (figures a statement states)."""

    kind: str
    counted: int
    direction: Direction = Direction.any
    currency: str | None = None
    transfers: int = 0  # transfers between own accounts and card payments left out
    other_direction: int = 0  # money in left out of spending (refunds, income), or the reverse
    other_currencies: dict[str, int] = field(default_factory=dict)
    stated: int = 0  # balances: balances stated in files
    gaps: int = 0  # balances: stated balances the rows do not reach
    unknown: int = 0  # balances: accounts without any stated balance

    def __add__(self, other: Basis) -> Basis:
        currencies = dict(self.other_currencies)
        for code, count in other.other_currencies.items():
            currencies[code] = currencies.get(code, 0) + count
        return replace(
            self,
            counted=self.counted + other.counted,
            transfers=self.transfers + other.transfers,
            other_direction=self.other_direction + other.other_direction,
            other_currencies=currencies,
        )


@dataclass(frozen=True)
class ListingResult:
    rows: list[Transaction]
    total: int
    next_after: str | None = None  # an opaque cursor (elastic.query.cursor)


@dataclass(frozen=True)
class StatementHit:
    statement_id: str
    page: int
    chunk: int
    score: float
    text: str
    bank_name: str
    account_name: str
    account_no: str
    statement_from: date
    statement_to: date
    source_file: str
    file_name: str = ""  # the PDF's name when imported ("" in stores written before it was kept)

    @property
    def doc_id(self) -> str:
        return f"{self.statement_id}-p{self.page}-c{self.chunk}"


@dataclass(frozen=True)
class TextQAResult:
    hits: list[StatementHit]
    keyword_only: bool = False  # the vector half failed; hits come from BM25 alone
    note: str | None = None  # what the search could not cover: a message key of the answers
    facts: list[StatementFact] = field(default_factory=list)  # newest first
    # A figure asked for that no statement states: the statements that were searched for it.
    searched: list[StatementInfo] = field(default_factory=list)


@dataclass(frozen=True)
class CellStats:
    """Raw numbers for one cell (all rows, a group or a bucket) before the metric is applied.

    Amounts are the *directed* values in cents: positive for spend when direction is ``out``.
    """

    count: int
    total_cents: int
    min_cents: int | None
    max_cents: int | None


def metric_value(metric: Metric, stats: CellStats) -> Decimal | None:
    """The metric of one cell, computed the same way whichever backend produced the stats."""
    if metric is Metric.count:
        return Decimal(stats.count)
    if stats.count == 0:
        return Decimal("0.00") if metric is Metric.sum else None
    if metric is Metric.sum:
        return cents_to_amount(stats.total_cents)
    if metric is Metric.avg:
        return (Decimal(stats.total_cents) / stats.count / 100).quantize(CENT, ROUND_HALF_UP)
    chosen = stats.min_cents if metric is Metric.min else stats.max_cents
    return None if chosen is None else cents_to_amount(chosen)


@dataclass(frozen=True, order=True)
class AccountInfo:
    account_name: str
    bank_name: str
    last4: str


@dataclass(frozen=True)
class Vocabulary:
    """The values actually indexed for a user: what the router matches words against."""

    merchants: list[str]
    categories: list[str]
    accounts: list[AccountInfo]
    first_date: date | None
    last_date: date | None
    currency: str = "USD"
    currencies: list[str] = field(default_factory=list)  # every currency the rows are in
    # A description of each merchant's rows as the bank wrote it ("AMZN MKTP US*2K4LM0TZ1"):
    # the words users may name the merchant by.
    descriptors: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PayeeLines:
    """Lines of the user's statements that print a name a question asks about, each with the
    page it is on: what answers a question about a payee whose rows did not land."""

    name: str
    lines: list[tuple[StatementHit, str]]


@dataclass(frozen=True)
class StatementRows:
    """How many of an answer's rows came from one statement PDF, and that statement."""

    statement: StatementInfo
    rows: int


@dataclass(frozen=True)
class FileStats:
    """The transactions that came from one file: how many, and the months they fall in."""

    rows: int
    first_month: date
    last_month: date


@dataclass(frozen=True)
class StatementInfo:
    statement_id: str
    bank_name: str
    account_name: str
    account_no: str
    statement_from: date
    statement_to: date
    pages: int
    source_file: str
    reconciliation: Reconciliation | None = None  # None for a statement whose rows were none
    file_name: str = ""  # the PDF's name when imported ("" in stores written before it was kept)
