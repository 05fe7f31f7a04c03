"""How money and days read in answers, charts and tables: one definition for every surface."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from elastic.model.plan import CompareSide, Direction, Interval, Metric

CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}
DIRECTION_NOUN = {
    Direction.out: "spending",
    Direction.in_: "income",
    Direction.net: "net cash flow",
    Direction.any: "transactions",
}
INTERVAL_ADVERB = {
    Interval.day: "Daily",
    Interval.week: "Weekly",
    Interval.month: "Monthly",
    Interval.quarter: "Quarterly",
    Interval.year: "Yearly",
}
FACT_LABELS = {
    "opening_balance": "opening balance",
    "closing_balance": "closing balance",
    "available_balance": "available balance",
    "money_in": "money in",
    "money_out": "money out",
    "fees": "fees charged",
    "interest": "interest charged",
    "amount_due": "amount due",
    "minimum_payment": "minimum payment",
    "due_date": "payment due date",
    "credit_limit": "credit limit",
    "apr": "APR",
}
METRIC_WORD = {Metric.avg: "average", Metric.min: "smallest", Metric.max: "largest"}


def figure_noun(metric: Metric, direction: Direction, per: Interval | None = None) -> str:
    """What one figure is: ``Spending``, ``Average income per month``, ``Number of
    transactions``, ``Largest spending transaction``."""
    noun = DIRECTION_NOUN[direction]
    if metric is Metric.count:
        return "Number of transactions"
    if per:
        return f"Average {noun} per {per.value}"
    if metric is Metric.sum:
        return noun.capitalize()
    return f"{METRIC_WORD[metric].capitalize()} {noun} transaction"


def currency_symbol(currency: str) -> str:
    """The symbol put before amounts; the ISO code and a space when there is none."""
    return CURRENCY_SYMBOLS.get(currency, f"{currency} ")


def money(value: Decimal | None, currency: str = "USD") -> str:
    if value is None:
        return "n/a"
    sign = "-" if value < 0 else ""
    return f"{sign}{currency_symbol(currency)}{abs(value):,.2f}"


def day_label(day: date) -> str:
    return day.strftime("%b %-d, %Y")


def bucket_label(start: date, interval: str) -> str:
    """How a trend bucket reads: ``November 2024``, ``Q4 2024``, ``week of Mar 3, 2025``."""
    if interval == "month":
        return start.strftime("%B %Y")
    if interval == "quarter":
        return f"Q{(start.month - 1) // 3 + 1} {start.year}"
    if interval == "year":
        return str(start.year)
    if interval == "week":
        return f"week of {day_label(start)}"
    return day_label(start)


def plural(count: int, noun: str) -> str:
    """``1 transaction``, ``12 transactions``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def period_name(date_from: date | None, date_to: date | None) -> str:
    """A period as people name it: ``2024``, ``Q1 2025``, ``H2 2024``, ``March 2025``, ``week
    of Mar 3, 2025``, ``Mar 3, 2025``; otherwise its first and last day."""
    if date_from is None or date_to is None:
        if date_from:
            return f"since {day_label(date_from)}"
        return f"until {day_label(date_to)}" if date_to else "all dates"
    if date_from == date_to:
        return day_label(date_from)
    after = date_to + timedelta(days=1)
    months = (after.year - date_from.year) * 12 + after.month - date_from.month
    if date_from.day == 1 and after.day == 1:
        start_month = date_from.month - 1
        if months == 12 and start_month == 0:
            return str(date_from.year)
        if months == 6 and start_month % 6 == 0:
            return f"H{start_month // 6 + 1} {date_from.year}"
        if months == 3 and start_month % 3 == 0:
            return bucket_label(date_from, "quarter")
        if months == 1:
            return bucket_label(date_from, "month")
    if date_from.weekday() == 0 and (date_to - date_from).days == 6:
        return bucket_label(date_from, "week")
    return f"{day_label(date_from)} – {day_label(date_to)}"


def side_label(side: CompareSide) -> str:
    """What one side of a comparison names: ``Q1 2025``, ``Amazon``, ``Dining, Groceries``."""
    names = ", ".join([*side.categories, *side.merchants, *side.accounts])
    period = period_name(side.date_from, side.date_to) if side.has_period else ""
    return " · ".join(part for part in (names, period) if part)
