"""The first screen of the chat: a picture of the money loaded and questions to start with.

Everything is built from what the user has loaded, never from fixed dates or names: the
overview tiles (per account its latest stated balance, the latest month's spending against the
month before, its top categories and its largest payments) and the example questions (its last
full quarter, the categories and merchants it holds). Each tile and example is a
``PlannedQuestion``: its figures are computed from the very plan the chat answers when it is
clicked, and an example is only offered when its answer has rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from elastic.backend import SearchBackend
from elastic.model.calendar import bucket_end, bucket_start, shift
from elastic.model.plan import Direction, GroupBy, Intent, IntentPlan, Interval, Metric, SortOrder
from elastic.model.results import (
    AggregateResult,
    CompareResult,
    ListingResult,
    TextQAResult,
    Vocabulary,
)
from llm.answering.wording import account_label, wording
from llm.executor import execute
from llm.planned import PlannedQuestion

TOP_CATEGORIES = 3
LARGEST_PAYMENTS = 3
LARGEST_LISTED = 5
TREND_MONTHS = 12
Scoping = Callable[[IntentPlan], IntentPlan]
"""The sidebar's filters applied to a plan (``ChatPipeline._scoped``): a tile counts what the
chat would answer."""


@dataclass(frozen=True)
class Tile:
    """One overview tile: a title, its figure, what the figure is, and the question it asks."""

    key: str
    title: str
    value: str
    detail: str
    question: PlannedQuestion
    lines: tuple[tuple[str, str], ...] = ()  # a list tile's names and amounts
    delta: str | None = None  # a change against the period before ("+12.5%")


@dataclass(frozen=True)
class FirstScreen:
    period: str  # the dates the data spans, worded
    tiles: list[Tile] = field(default_factory=list)
    examples: list[PlannedQuestion] = field(default_factory=list)


def latest_full_month(last_day: date) -> date:
    """The newest month the data may be taken to cover whole: the month of ``last_day`` when
    that is one of its last four days (a month's statement closes on the 28th or later), else
    the month before."""
    month = bucket_start(last_day, Interval.month)
    if (last_day + timedelta(days=4)).month != last_day.month:
        return month
    return shift(month, Interval.month, -1)


def last_full_quarter(first_day: date, last_day: date) -> date | None:
    """The first day of the newest calendar quarter the data covers from start to end."""
    start = bucket_start(last_day + timedelta(days=1), Interval.quarter)
    quarter = shift(start, Interval.quarter, -1)
    return quarter if quarter >= bucket_start(first_day, Interval.month) else None


def _spend(**fields: object) -> IntentPlan:
    return IntentPlan.model_validate(
        {"intent": Intent.aggregate, "direction": Direction.out} | fields
    )


class _Builder:
    """What one first screen needs: the user's data, the wording, the day it is asked."""

    def __init__(
        self,
        backend: SearchBackend,
        user_id: str,
        vocabulary: Vocabulary,
        as_of: date,
        language: str,
        scoped: Scoping,
    ) -> None:
        self.backend, self.user_id, self.vocabulary = backend, user_id, vocabulary
        self.as_of, self.w, self.scoped = as_of, wording(language), scoped
        assert vocabulary.last_date is not None
        self.month = bucket_start(vocabulary.last_date, Interval.month)

    def run(self, plan: IntentPlan) -> object:
        scoped = self.scoped(plan)
        if scoped.intent is Intent.clarify:
            return None
        return execute(self.backend, self.user_id, scoped)

    def question(self, key: str, plan: IntentPlan, **fields: object) -> PlannedQuestion:
        return PlannedQuestion(self.w.text(key, **fields), plan, self.w.code)

    def money(self, value: Decimal | None, currency: str) -> str:
        return self.w.money(value, currency)

    # --- tiles -------------------------------------------------------------------------------

    def balances(self) -> list[Tile]:
        """Per account, its newest closing balance as a file states it."""
        tiles = []
        for account in self.vocabulary.accounts:
            name = account.account_name
            ask = self.w.text("overview.balance_question", account=name)
            plan = IntentPlan(
                intent=Intent.text_qa, accounts=[name], text=ask, facts=["closing_balance"]
            )
            result = self.run(plan)
            if not isinstance(result, TextQAResult) or not result.facts:
                continue
            fact = result.facts[0]  # newest first
            tiles.append(
                Tile(
                    key=f"balance-{name}",
                    title=account_label(name, fact.account_no) or name,
                    value=self.money(fact.amount, fact.currency),
                    detail=self.w.text("overview.balance_detail", day=self.w.day_label(fact.as_of)),
                    question=PlannedQuestion(ask, plan, self.w.code),
                )
            )
        return tiles

    def month_against_last(self) -> Tile | None:
        previous = shift(self.month, Interval.month, -1)
        sides = [
            {"date_from": first, "date_to": bucket_end(first, Interval.month)}
            for first in (previous, self.month)
        ]
        plan = _spend(compare=sides)
        result = self.run(plan)
        if not isinstance(result, CompareResult):
            return None
        part = (result.by_currency or [result])[0]
        latest = part.sides[-1].result
        if not latest.count and not part.sides[0].result.count:
            return None
        month, before = self.w.month_label(self.month), self.w.month_label(previous)
        delta = self.w.change(part.change_pct) if part.change_pct is not None else None
        return Tile(
            key="month",
            title=self.w.text("overview.month_title", month=month),
            value=self.money(latest.value, part.currency),
            detail=self.w.text(
                "overview.month_detail",
                previous=before,
                amount=self.money(part.sides[0].result.value, part.currency),
            ),
            question=self.question("overview.month_question", plan, month=month, previous=before),
            delta=delta,
        )

    def top_categories(self) -> Tile | None:
        month = self.w.month_label(self.month)
        plan = _spend(
            date_from=self.month,
            date_to=bucket_end(self.month, Interval.month),
            group_by=GroupBy.category,
            top=TOP_CATEGORIES,
        )
        result = self.run(plan)
        if not isinstance(result, AggregateResult):
            return None
        part = (result.by_currency or [result])[0]
        if not part.groups:
            return None
        return Tile(
            key="categories",
            title=self.w.text("overview.categories_title", month=month),
            value=self.money(part.value, part.currency) if part.value is not None else "",
            detail=self.w.text(
                "overview.categories_detail", amount=self.money(part.value, part.currency)
            ),
            question=self.question(
                "overview.categories_question", plan, month=month, top=TOP_CATEGORIES
            ),
            lines=tuple((g.key, self.money(g.value, part.currency)) for g in part.groups),
        )

    def largest_payments(self) -> Tile | None:
        month = self.w.month_label(self.month)
        plan = IntentPlan(
            intent=Intent.listing,
            direction=Direction.out,
            date_from=self.month,
            date_to=bucket_end(self.month, Interval.month),
            sort=SortOrder.largest,
            limit=LARGEST_PAYMENTS,
        )
        result = self.run(plan)
        if not isinstance(result, ListingResult) or not result.rows:
            return None
        return Tile(
            key="payments",
            title=self.w.text("overview.payments_title", month=month),
            value=self.money(-result.rows[0].amount, result.rows[0].currency),
            detail=self.w.text("overview.payments_detail", count=self.w.number(result.total)),
            question=self.question(
                "overview.payments_question", plan, month=month, top=LARGEST_PAYMENTS
            ),
            lines=tuple(
                (row.merchant or row.description, self.money(-row.amount, row.currency))
                for row in result.rows
            ),
        )

    # --- examples ----------------------------------------------------------------------------

    def _top(
        self, plan: IntentPlan, leave_out: tuple[str, ...] = (), more_than: int = 0
    ) -> str | None:
        """The first group of ``plan``'s answer that is not left out and has more than
        ``more_than`` rows."""
        result = self.run(plan)
        if not isinstance(result, AggregateResult):
            return None
        groups = [g for part in result.by_currency or [result] for g in part.groups]
        return next((g.key for g in groups if g.count > more_than and g.key not in leave_out), None)

    def _period(self, first: date, interval: Interval) -> tuple[str, dict[str, date]]:
        """A calendar period as a question names it, and its dates as the router reads those
        words: ``in Q2 2025``; ``last quarter``; ``this quarter``, up to the day asked."""
        current = bucket_start(self.as_of, interval)
        end = bucket_end(first, interval)
        if first == current:
            words, end = self.w.text(f"starter.this_{interval.value}"), self.as_of
        elif first == shift(current, interval, -1):
            words = self.w.text(f"starter.last_{interval.value}")
        else:
            name = self.w.bucket_label(first, interval.value)
            words = self.w.text(f"starter.in_{interval.value}", name=name)
        return words, {"date_from": first, "date_to": end}

    def _category(self, first_day: date, last_day: date, month: date) -> PlannedQuestion | None:
        """Spending on the category spent on most in the newest full quarter (or month)."""
        quarter = last_full_quarter(first_day, last_day)
        words, dates = (
            self._period(quarter, Interval.quarter)
            if quarter
            else self._period(month, Interval.month)
        )
        by_spend = _spend(group_by=GroupBy.category, **dates)
        # Everyday spending rather than a bill paid once a month (rent): more rows than months.
        months = 3 if quarter else 1
        category = self._top(by_spend, more_than=months) or self._top(by_spend)
        if category is None:
            return None
        plan = _spend(categories=[category], **dates)
        return self.question("starter.category", plan, category=category, period=words)

    def _monthly(
        self, first_day: date, month: date, leave_out: str | None
    ) -> PlannedQuestion | None:
        """The monthly trend of the category with most rows over the last twelve months."""
        start = max(
            shift(month, Interval.month, 1 - TREND_MONTHS), bucket_start(first_day, Interval.month)
        )
        dates = {"date_from": start, "date_to": bucket_end(month, Interval.month)}
        often = _spend(group_by=GroupBy.category, metric=Metric.count, **dates)
        category = self._top(often, leave_out=(leave_out,) if leave_out else ())
        if category is None:
            return None
        plan = IntentPlan(
            intent=Intent.trend, direction=Direction.out, categories=[category], **dates
        )
        first, last = self.w.month_label(start), self.w.month_label(month)
        return self.question("starter.monthly", plan, category=category, first=first, last=last)

    def _largest(self, month: date) -> PlannedQuestion | None:
        """The largest purchases of the newest full month."""
        words, dates = self._period(month, Interval.month)
        plan = IntentPlan(
            intent=Intent.listing,
            direction=Direction.out,
            sort=SortOrder.largest,
            limit=LARGEST_LISTED,
            **dates,
        )
        listed = self.run(plan)
        if not isinstance(listed, ListingResult) or not listed.rows:
            return None
        return self.question("starter.largest", plan, count=LARGEST_LISTED, period=words)

    def _merchant(self, month: date) -> PlannedQuestion | None:
        """Spending at the merchant with most rows in the newest month's year."""
        words, dates = self._period(date(month.year, 1, 1), Interval.year)
        merchant = self._top(_spend(group_by=GroupBy.merchant, metric=Metric.count, **dates))
        if merchant is None:
            return None
        plan = _spend(merchants=[merchant], **dates)
        return self.question("starter.merchant", plan, merchant=merchant, period=words)

    def examples(self) -> list[PlannedQuestion]:
        """Questions about the user's own newest data, each with rows to answer from."""
        first_day, last_day = self.vocabulary.first_date, self.vocabulary.last_date
        assert first_day is not None and last_day is not None
        month = max(latest_full_month(last_day), bucket_start(first_day, Interval.month))
        category = self._category(first_day, last_day, month)
        named = category.plan.categories[0] if category else None
        found = [category, self._monthly(first_day, month, named)]
        found += [self._largest(month), self._merchant(month)]
        return [question for question in found if question is not None]


def first_screen(
    backend: SearchBackend,
    user_id: str,
    vocabulary: Vocabulary,
    as_of: date,
    language: str,
    scoped: Scoping,
) -> FirstScreen:
    """The overview tiles and example questions of the user's data (none without data)."""
    w = wording(language)
    if vocabulary.first_date is None or vocabulary.last_date is None:
        return FirstScreen(period="")
    built = _Builder(backend, user_id, vocabulary, as_of, language, scoped)
    tiles = built.balances()
    tiles += [
        tile
        for tile in (built.month_against_last(), built.top_categories(), built.largest_payments())
        if tile is not None
    ]
    return FirstScreen(
        period=w.period_range(vocabulary.first_date, vocabulary.last_date),
        tiles=tiles,
        examples=built.examples(),
    )
