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


class IntentPlan(BaseModel):
    """What to compute or retrieve. Dates are inclusive; amounts bound the magnitude."""

    model_config = ConfigDict(extra="forbid", use_enum_values=False)

    intent: Intent
    date_from: date | None = None
    date_to: date | None = None
    accounts: list[str] = Field(default_factory=list, description="account names")
    categories: list[str] = Field(default_factory=list)
    merchants: list[str] = Field(default_factory=list)
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
    group_by: GroupBy | None = None
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
        return self

    @property
    def excludes_transfers(self) -> bool:
        """Spend, income and net leave internal transfers out unless they were asked for."""
        return self.direction is not Direction.any and TRANSFERS_CATEGORY not in self.categories
