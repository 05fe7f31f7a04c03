"""What a backend returns for a plan: the same shapes from Elasticsearch and the embedded store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from elastic.model.plan import CompareSide, Direction, IntentPlan, Interval, Metric
from elastic.model.records import StatementFact, Transaction

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
        difference = self.difference
        first = self.sides[0].result.value if self.sides else None
        if difference is None or not first:
            return None
        return (100 * difference / abs(first)).quantize(TENTH, ROUND_HALF_UP)

    @property
    def largest(self) -> SideResult | None:
        """The side with the highest value; none on a tie for highest or without values."""
        valued = [s for s in self.sides if s.result.value is not None]
        if not valued:
            return None
        top = max(s.result.value for s in valued if s.result.value is not None)
        highest = [s for s in valued if s.result.value == top]
        return highest[0] if len(highest) == 1 else None


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
    note: str | None = None
    facts: list[StatementFact] = field(default_factory=list)  # newest first


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
    file_name: str = ""  # the PDF's name when imported ("" in stores written before it was kept)
