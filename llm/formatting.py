"""How money and days read in answers, charts and tables: one definition for every surface."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from llm.intent_plan import Direction, Interval, Metric

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
