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


class GroupBy(StrEnum):
    category = "category"
    merchant = "merchant"
    account = "account"
    month = "month"
    currency = "currency"


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
        """Comparisons, averages per interval and top groups are shapes of an aggregate."""
        aggregate = self.intent is Intent.aggregate
        if self.compare and not (aggregate and 2 <= len(self.compare) <= MAX_SIDES):
            raise ValueError(f"a comparison is an aggregate of 2 to {MAX_SIDES} sides")
        if self.compare and self.group_by:
            raise ValueError("a comparison has one figure per side, not groups")
        if self.per and not (aggregate and self.metric is Metric.avg and not self.group_by):
            raise ValueError("per needs an ungrouped aggregate of metric avg")
        if self.top and not (aggregate and self.group_by):
            raise ValueError("top needs an aggregate with group_by")
        if self.compare and all(side.has_period for side in self.compare):
            # Periods in time order: the change is from the earliest to the latest.
            self.compare.sort(key=lambda s: (s.date_from or date.min, s.date_to or date.max))

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
