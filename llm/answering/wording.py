"""How money, days, periods, metrics, accounts and filters read in answers, charts, tables and
pages: one definition for every surface (the composer, the CLI and the UI)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from elastic.masking import mask_account
from elastic.model.plan import CompareSide, Direction, Intent, IntentPlan, Interval, Metric

CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}
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
METRIC_LABEL = {
    Metric.sum: "Total",
    Metric.avg: "Average",
    Metric.count: "Count",
    Metric.min: "Smallest",
    Metric.max: "Largest",
}
METRIC_WORD = {m: METRIC_LABEL[m].lower() for m in (Metric.avg, Metric.min, Metric.max)}


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


def period_range(date_from: date | None, date_to: date | None) -> str:
    """``Jan 1, 2024 – Mar 31, 2024``; open ends read "since" / "until"; neither: all dates."""
    if date_from and date_to:
        return f"{day_label(date_from)} – {day_label(date_to)}"
    if date_from:
        return f"since {day_label(date_from)}"
    return f"until {day_label(date_to)}" if date_to else "all dates"


def period_name(date_from: date | None, date_to: date | None) -> str:
    """A period as people name it: ``2024``, ``Q1 2025``, ``H2 2024``, ``March 2025``, ``week
    of Mar 3, 2025``, ``Mar 3, 2025``; otherwise its first and last day (``period_range``)."""
    if date_from is None or date_to is None:
        return period_range(date_from, date_to)
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
    return period_range(date_from, date_to)


def describe_period(plan: IntentPlan) -> str:
    """The plan's dates as a sentence ends: ``from Jan 1, 2024 to Mar 31, 2024``."""
    if plan.date_from and plan.date_from == plan.date_to:
        return f"on {day_label(plan.date_from)}"
    if plan.date_from and plan.date_to:
        return f"from {day_label(plan.date_from)} to {day_label(plan.date_to)}"
    if plan.date_from:
        return f"since {day_label(plan.date_from)}"
    if plan.date_to:
        return f"until {day_label(plan.date_to)}"
    return "across all your transactions"


def describe_filters(plan: IntentPlan) -> str:
    """The plan's filters as words: ``on Dining at Starbucks in Checking of at least $100.00``."""
    parts = []
    if plan.categories:
        parts.append("on " + ", ".join(plan.categories))
    if plan.merchants:
        parts.append("at " + ", ".join(plan.merchants))
    if plan.accounts:
        parts.append("in " + ", ".join(plan.accounts))
    if plan.currency:
        parts.append(f"in {plan.currency}")
    if plan.min_amount is not None and plan.min_amount == plan.max_amount:
        parts.append(f"of {money(plan.min_amount)}")
    else:
        if plan.min_amount is not None:
            parts.append(f"of at least {money(plan.min_amount)}")
        if plan.max_amount is not None:
            parts.append(f"of at most {money(plan.max_amount)}")
    if plan.text and plan.intent is not Intent.text_qa:
        parts.append(f'matching "{plan.text}"')
    return " ".join(parts)


def account_label(name: str, account_no: str) -> str:
    """An account as answers and tables show it: the number is always masked."""
    return f"{name} {mask_account(account_no)}".strip()


def account_option_label(name: str, bank_name: str, account_no: str) -> str:
    """An account in a selection list: ``Checking · Chase ***1234`` (the number masked)."""
    return f"{name} · {bank_name} {mask_account(account_no)}".strip()


def side_label(side: CompareSide) -> str:
    """What one side of a comparison names: ``Q1 2025``, ``Amazon``, ``Dining, Groceries``."""
    names = ", ".join([*side.categories, *side.merchants, *side.accounts])
    period = period_name(side.date_from, side.date_to) if side.has_period else ""
    return " · ".join(part for part in (names, period) if part)
