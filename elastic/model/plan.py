"""IntentPlan: the typed plan a question becomes, shared by the routers and both backends."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Intent(StrEnum):
    text_qa = "text_qa"
    aggregate = "aggregate"
    trend = "trend"
    listing = "listing"
    clarify = "clarify"


class Direction(StrEnum):
    """``out`` is spend, ``in`` is income, both without transfers (docs/ARCHITECTURE.md)."""

    out = "out"
    in_ = "in"
    net = "net"
    any = "any"


class Metric(StrEnum):
    sum = "sum"
    avg = "avg"
    count = "count"
    min = "min"
    max = "max"
    median = "median"
    distinct = "distinct"  # how many different values of ``group_by`` the rows hold


class GroupBy(StrEnum):
    category = "category"
    merchant = "merchant"
    account = "account"
    month = "month"
    currency = "currency"
    weekday = "weekday"  # Monday to Sunday
    weekend = "weekend"  # weekdays against weekends


class ShareOf(StrEnum):
    """What a share is a share of: the same figure without the plan's subject (``total``: the
    share of spending on dining), or income (``income``: spending on rent as a share of income;
    of net cash flow, the savings rate)."""

    total = "total"
    income = "income"


class Peak(StrEnum):
    highest = "highest"
    lowest = "lowest"


class Change(StrEnum):
    """Which changes between two periods come first: the largest rises or the largest falls."""

    grew = "grew"
    shrank = "shrank"


class Anomaly(StrEnum):
    """Charges worth a second look: the same charge twice, far above a merchant's usual, or
    either."""

    double = "double"
    high = "high"
    any = "any"


class PaymentKind(StrEnum):
    """How money moved, as readers store it on each row (``elastic/ingest/payment_kinds``)."""

    cheque = "cheque"
    atm = "atm"
    direct_debit = "direct_debit"
    standing_order = "standing_order"
    card = "card"
    transfer = "transfer"
    fee = "fee"
    interest = "interest"


class Interval(StrEnum):
    day = "day"
    week = "week"
    month = "month"
    quarter = "quarter"
    year = "year"


class SortOrder(StrEnum):
    newest = "newest"
    oldest = "oldest"
    largest = "largest"
    smallest = "smallest"


TRANSFERS_CATEGORY = "Transfers"
MAX_LIMIT = 100
MAX_SIDES = 6
# The filters a follow-up can carry over from the question before ("and in March?" keeps the
# merchant); ``IntentPlan.inherited`` names those it kept.
INHERITABLE = (
    "accounts",
    "categories",
    "merchants",
    "payment_kinds",
    "currency",
    "date_from",
    "date_to",
    "min_amount",
    "max_amount",
    "text",
    "compare",
)

# The same filters as the slots a follow-up fills and a user can take away again: what it is
# about (categories, merchants, words of the descriptions), accounts, period, amounts, currency,
# the sides of a comparison.
SLOTS = {
    "subject": ("categories", "merchants", "payment_kinds", "text"),
    "accounts": ("accounts",),
    "period": ("date_from", "date_to"),
    "amount": ("min_amount", "max_amount"),
    "currency": ("currency",),
    "compare": ("compare",),
}


class Message(BaseModel):
    """A clarification or suggestion as data: the key of a sentence of the answer templates
    (``[messages]``) and the fields it is filled with, worded by the composer in the asker's
    language. A field is a name as written, a number, a day, a list of names or a message."""

    model_config = ConfigDict(extra="forbid")

    key: str
    fields: dict[str, date | int | str | list[str] | Message] = Field(default_factory=dict)


class CompareSide(BaseModel):
    """One side of a comparison: what it changes in the plan's shared filters. A period
    replaces the plan's dates; names replace the plan's names of the same kind."""

    model_config = ConfigDict(extra="forbid")

    date_from: date | None = None
    date_to: date | None = None
    accounts: list[str] = Field(default_factory=list, description="account names")
    categories: list[str] = Field(default_factory=list)
    merchants: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> CompareSide:
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise ValueError("a side's date_from is after its date_to")
        if not (self.has_period or self.accounts or self.categories or self.merchants):
            raise ValueError("a side must name a period, accounts, categories or merchants")
        return self

    @property
    def has_period(self) -> bool:
        return self.date_from is not None or self.date_to is not None


class IntentPlan(BaseModel):
    """What to compute or retrieve. Dates are inclusive; amounts bound the magnitude."""

    model_config = ConfigDict(extra="forbid", use_enum_values=False)

    intent: Intent
    date_from: date | None = None
    date_to: date | None = None
    accounts: list[str] = Field(default_factory=list, description="account names")
    categories: list[str] = Field(default_factory=list)
    merchants: list[str] = Field(default_factory=list)
    payment_kinds: list[PaymentKind] = Field(
        default_factory=list,
        description="only money moved these ways: by cheque, at an ATM or as cash, by direct "
        "debit, standing order, card, transfer, or as fees or interest",
    )
    currency: str | None = Field(
        default=None, description="only amounts in this ISO 4217 currency (never added across)"
    )
    direction: Direction = Direction.out
    min_amount: Decimal | None = Field(default=None, ge=0)
    max_amount: Decimal | None = Field(default=None, ge=0)
    text: str | None = Field(
        default=None,
        description="text_qa: the question; other intents: words the description must contain",
    )
    metric: Metric = Metric.sum
    per: Interval | None = Field(
        default=None,
        description="aggregate avg: the total divided by the calendar intervals of the period "
        "(average per month), not by the transactions",
    )
    group_by: GroupBy | None = None
    top: int | None = Field(
        default=None, ge=1, le=MAX_LIMIT, description="aggregate by group: only the N largest"
    )
    compare: list[CompareSide] = Field(
        default_factory=list,
        description="aggregate: the same figure for each side (2 to 6), each side changing the "
        "shared filters (Q1 vs Q2, Amazon vs Target, dining vs groceries, card vs checking)",
    )
    share_of: ShareOf | None = Field(
        default=None,
        description="aggregate: the figure as a percent of a whole, with both amounts: total = "
        "the same figure without the categories, merchants, words and payment kinds (the share "
        "of spending on dining); income = of income over the same filters (rent as a share of "
        "income; with direction net, the savings rate)",
    )
    peak: Peak | None = Field(
        default=None,
        description="trend: the highest or lowest interval of the series (the month, quarter or "
        "week with most or least spending)",
    )
    change: Change | None = Field(
        default=None,
        description="aggregate with group_by and two period sides: the groups that grew or "
        "shrank most from the first period to the second (all changes by size when null)",
    )
    balance: bool = Field(
        default=False,
        description="account balances at the end of each day instead of amounts: aggregate = "
        "the balance on date_to (the latest when open), metric min or max the lowest or highest "
        "over the period; trend = the balance at the end of each interval",
    )
    recurring: bool = Field(
        default=False,
        description="recurring charges and subscriptions (one merchant, a regular cadence, "
        "similar amounts): listing = the series; aggregate = what they cost per month",
    )
    anomaly: Anomaly | None = Field(
        default=None,
        description="listing: charges worth a second look: double = the same merchant and "
        "amount twice within a few days outside a recurring series; high = far above the "
        "merchant's usual amount; any = both",
    )
    interval: Interval = Interval.month
    split_by_category: bool = False
    sort: SortOrder = SortOrder.newest
    limit: int = Field(default=10, ge=1, le=MAX_LIMIT)
    facts: list[str] = Field(
        default_factory=list,
        description="text_qa: statement facts asked for (opening_balance, closing_balance, …)",
    )
    clarification: str | None = Field(default=None, description="clarify: what is unclear")
    suggestions: list[str] = Field(default_factory=list, description="clarify: questions to try")
    message: Message | None = Field(
        default=None, description="clarify: what is unclear, as a message for the composer"
    )
    suggested: list[Message] = Field(
        default_factory=list, description="clarify: questions to try, as messages"
    )
    inherited: list[str] = Field(
        default_factory=list,
        description="a follow-up: the filters carried over from the previous question "
        "(names of fields: accounts, categories, merchants, currency, date_from, date_to, "
        "min_amount, max_amount, text, compare)",
    )

    @model_validator(mode="after")
    def _check(self) -> IntentPlan:
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise ValueError("date_from is after date_to")
        if (
            self.min_amount is not None
            and self.max_amount is not None
            and self.min_amount > self.max_amount
        ):
            raise ValueError("min_amount is above max_amount")
        if self.intent is Intent.text_qa and not (self.text or "").strip():
            raise ValueError("a text_qa plan needs the question text")
        if unknown := set(self.inherited) - set(INHERITABLE):
            raise ValueError(f"inherited names fields a follow-up cannot carry: {sorted(unknown)}")
        self._check_shape()
        return self

    def _check_shape(self) -> None:
        """Comparisons, averages per interval, top groups, shares, medians and distinct counts
        are shapes of an aggregate; peaks of a trend; recurring series and anomalies of rows."""
        aggregate = self.intent is Intent.aggregate
        if self.compare and not (aggregate and 2 <= len(self.compare) <= MAX_SIDES):
            raise ValueError(f"a comparison is an aggregate of 2 to {MAX_SIDES} sides")
        if self.compare and self.group_by and not self.changes:
            raise ValueError("groups of a comparison need two sides that are periods")
        if self.change and not self.changes:
            raise ValueError("change needs group_by and two sides that are periods")
        if self.per and not (aggregate and self.metric is Metric.avg and not self.group_by):
            raise ValueError("per needs an ungrouped aggregate of metric avg")
        if self.top and not (aggregate and self.group_by):
            raise ValueError("top needs an aggregate with group_by")
        if self.metric is Metric.distinct and not (aggregate and self.group_by):
            raise ValueError("a distinct count needs an aggregate with group_by (what to count)")
        if self.metric is Metric.median and not (aggregate and not self.group_by):
            raise ValueError("a median is an aggregate of all the rows, not per group")
        self._check_kinds(aggregate)
        if self.compare and all(side.has_period for side in self.compare):
            # Periods in time order: the change is from the earliest to the latest.
            self.compare.sort(key=lambda s: (s.date_from or date.min, s.date_to or date.max))

    def _check_kinds(self, aggregate: bool) -> None:
        plain = not (self.group_by or self.compare or self.per)
        if self.share_of and not (aggregate and plain and self.metric is Metric.sum):
            raise ValueError("a share is an ungrouped sum, without comparison")
        if self.peak and not (self.intent is Intent.trend and not self.split_by_category):
            raise ValueError("a peak is the highest or lowest interval of one trend")
        if self.balance and not (
            (aggregate and plain and self.metric in (Metric.sum, Metric.min, Metric.max))
            or (self.intent is Intent.trend and not self.split_by_category)
        ):
            raise ValueError("balances are an ungrouped aggregate (sum, min, max) or a trend")
        if self.recurring and not (self.intent is Intent.listing or (aggregate and plain)):
            raise ValueError("recurring payments are listed, or their monthly cost summed")
        if self.anomaly and self.intent is not Intent.listing:
            raise ValueError("unusual charges are listed")
        kinds = [self.share_of, self.peak, self.balance, self.recurring, self.anomaly]
        if sum(bool(kind) for kind in kinds) > 1:
            raise ValueError("a plan asks for one of share_of, peak, balance, recurring, anomaly")

    @property
    def changes(self) -> bool:
        """Groups compared across two periods: which grew and which shrank most."""
        return (
            self.intent is Intent.aggregate
            and self.group_by is not None
            and len(self.compare) == 2
            and all(side.has_period for side in self.compare)
        )

    def side(self, side: CompareSide) -> IntentPlan:
        """The plan one side of the comparison runs: the shared filters with its changes."""
        update: dict[str, object] = {"compare": []}
        if side.has_period:
            update |= {"date_from": side.date_from, "date_to": side.date_to}
        for name in ("accounts", "categories", "merchants"):
            if values := getattr(side, name):
                update[name] = list(values)
        return self.model_copy(update=update)

    @property
    def excludes_transfers(self) -> bool:
        """Spend, income and net leave internal transfers out unless they were asked for (as a
        category, or as the way the money moved)."""
        return (
            self.direction is not Direction.any
            and TRANSFERS_CATEGORY not in self.categories
            and PaymentKind.transfer not in self.payment_kinds
        )
