"""How money, days, periods, metrics, accounts and filters read in answers, charts, tables and
pages: one definition for every surface (the composer, the CLI and the UI), in every language.

The words and sentence patterns are data, ``templates/<code>.toml`` per language; a language
that lacks a key reads it from English. ``wording(code)`` is the accessor; money, days and
numbers of languages other than English are written by babel for the language's locale, with
Latin digits so figures stay readable and checkable. The module-level functions are English.
"""

from __future__ import annotations

import tomllib
from datetime import date, timedelta
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.dates import format_date
from babel.numbers import (
    format_currency,
    format_decimal,
    get_currency_symbol,
    get_decimal_symbol,
    get_group_symbol,
)

from elastic.masking import mask_account
from elastic.model.plan import CompareSide, Direction, Intent, IntentPlan, Interval, Metric

TEMPLATES = Path(__file__).with_name("templates")
ENGLISH = "en"
DIGITS = "latn"  # Latin digits in every language: "1,234.50", never "١٬٢٣٤٫٥٠"
CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}
TABLE_COLUMNS = ("date", "description", "merchant", "category", "account", "amount")


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            flat |= _flatten(value, f"{prefix}{key}.")
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _read(folder: Path, code: str) -> dict[str, Any]:
    path = folder / f"{code}.toml"
    return _flatten(tomllib.loads(path.read_text("utf-8"))) if path.is_file() else {}


class Wording:
    """The words of one language: ``text(key, **fields)`` fills a sentence pattern; the other
    methods word money, days, periods, filters and figures."""

    def __init__(self, code: str, folder: Path = TEMPLATES) -> None:
        own = _read(folder, code) if code != ENGLISH else {}
        self.code = code if own else ENGLISH
        self._strings = {**_read(folder, ENGLISH), **own}
        self.locale = Locale.parse(self._strings["format.locale"])
        self._babel = bool(self._strings["format.babel"])

    # --- sentence patterns -------------------------------------------------------------------

    def text(self, key: str, **fields: object) -> str:
        """The language's pattern ``key`` (English when the language lacks it), filled."""
        return str(self._strings[key]).format(**fields)

    def has(self, key: str) -> bool:
        return key in self._strings

    def text_pattern(self, key: str) -> str:
        """Pattern ``key`` unfilled, fields in braces."""
        return str(self._strings[key])

    def words(self, key: str) -> frozenset[str]:
        """A list of words ``key`` names, in lower case (English's when the language has none)."""
        return frozenset(str(word).casefold() for word in self._strings.get(key, ()))

    def keys(self, prefix: str) -> list[str]:
        """The keys starting with ``prefix``, in the order the templates list them."""
        return [key for key in self._strings if key.startswith(prefix)]

    @property
    def direction(self) -> str:
        """How the language runs on a page: ``ltr`` or ``rtl`` (an HTML ``dir``)."""
        return str(self._strings["format.direction"])

    def table_columns(self) -> dict[str, str]:
        """Column labels of transaction tables: date, description, merchant, category,
        account and amount."""
        return {name: self.text(f"column.{name}") for name in TABLE_COLUMNS}

    # --- numbers, money, days ----------------------------------------------------------------

    def number(self, value: int | Decimal) -> str:
        """A count or figure with the language's grouping and its decimals as computed:
        ``1,234`` / ``1.234``, ``19.0`` / ``19,0``."""
        if not self._babel:
            return f"{value:,}"
        places = -value.as_tuple().exponent if isinstance(value, Decimal) else 0
        pattern = "#,##0" + ("." + "0" * places if places > 0 else "")
        return format_decimal(value, format=pattern, locale=self.locale, numbering_system=DIGITS)

    def percent(self, value: Decimal | str) -> str:
        """``12.5%``: a rate as stated (an APR), in the language's decimals."""
        shown = value if isinstance(value, str) or not self._babel else self.number(value)
        return self.text("format.percent", value=shown)

    def change(self, pct: Decimal) -> str:
        """A signed change in percent: ``+12.5%``, ``-3%``."""
        sign = "+" if pct >= 0 else "-"
        shown = f"{pct:+}" if not self._babel else sign + self.number(abs(pct))
        return self.text("format.change", value=shown)

    def currency_symbol(self, currency: str) -> str:
        """The symbol put before amounts; the ISO code and a space when there is none."""
        if self._babel:
            return get_currency_symbol(currency, self.locale)
        return CURRENCY_SYMBOLS.get(currency, f"{currency} ")

    def separators(self) -> str:
        """The decimal then the group separator of the language's numbers (plotly's
        ``separators``)."""
        decimal = get_decimal_symbol(self.locale, numbering_system=DIGITS)
        return decimal + get_group_symbol(self.locale, numbering_system=DIGITS)

    def money(self, value: Decimal | None, currency: str = "USD", decimals: int = 2) -> str:
        """An amount with its currency: ``-$1,234.50``, ``-1.234,50 $``, ``‏-1,234.50 US$``;
        ``decimals=0`` rounds it to whole units (chart labels)."""
        if value is None:
            return self.text("format.money_missing")
        if self._babel:
            pattern = self.locale.currency_formats["standard"].pattern
            if not decimals:
                pattern = pattern.replace(".00", "")
            return format_currency(
                value,
                currency,
                format=pattern,
                locale=self.locale,
                currency_digits=False,
                numbering_system=DIGITS,
            )
        sign = "-" if value < 0 else ""
        return f"{sign}{self.currency_symbol(currency)}{abs(value):,.{decimals}f}"

    def day_label(self, day: date) -> str:
        return format_date(day, self._strings["format.day"], locale=self.locale)

    def month_label(self, day: date) -> str:
        return format_date(day, self._strings["format.month"], locale=self.locale)

    def plural(self, count: int, noun: str) -> str:
        """``1 transaction``, ``12 transactions``: ``noun`` is a key of ``plural`` (the
        English singular, spaces as ``_``), worded by the language's plural rules."""
        form = self.locale.plural_form(count)
        key = f"plural.{noun.replace(' ', '_')}"
        pattern = self._strings.get(f"{key}.{form}", self._strings[f"{key}.other"])
        return str(pattern).format(count=self.number(count))

    # --- metrics and directions --------------------------------------------------------------

    def direction_noun(self, direction: Direction) -> str:
        return self.text(f"direction.{direction.value}")

    def direction_title(self, direction: Direction) -> str:
        return self.text(f"direction_title.{direction.value}")

    def interval_adverb(self, interval: Interval) -> str:
        return self.text(f"interval_adverb.{interval.value}")

    def unit(self, interval: Interval) -> str:
        return self.text(f"unit.{interval.value}")

    def metric_label(self, metric: Metric) -> str:
        return self.text(f"metric_label.{metric.value}")

    def metric_word(self, metric: Metric) -> str:
        return self.text(f"metric_word.{metric.value}")

    def group_word(self, group: str | None) -> str:
        return self.text(f"group.{group or 'group'}")

    def group_plural(self, group: str) -> str:
        """What groups of a kind are called, counted: ``merchants``, ``categories``."""
        key = f"group_plural.{group}"
        return self.text(key) if self.has(key) else self.group_word(group)

    def group_key(self, group: str | None, key: str) -> str:
        """A group's key as answers name it: days of the week and weekday or weekend in the
        language; names from the data as they are."""
        worded = f"group_key.{key}"
        return self.text(worded) if group in ("weekday", "weekend") and self.has(worded) else key

    def cadence(self, interval: Interval, every: int = 1) -> str:
        """How often a recurring charge comes: ``monthly``, ``every two weeks``."""
        key = f"cadence.{interval.value}" + (f"_{every}" if every > 1 else "")
        return self.text(key) if self.has(key) else self.text(f"cadence.{interval.value}")

    def fact_label(self, name: str) -> str:
        key = f"fact.{name}"
        return self.text(key) if self.has(key) else name.replace("_", " ")

    def figure_noun(self, metric: Metric, direction: Direction, per: Interval | None = None) -> str:
        """What one figure is: ``Spending``, ``Average income per month``, ``Number of
        transactions``, ``Largest spending transaction``."""
        noun = self.direction_noun(direction)
        if metric is Metric.count:
            return self.text("figure.count")
        if per:
            return self.text("figure.per", noun=noun, per=self.unit(per))
        if metric is Metric.sum:
            return self.text("figure.sum", noun_title=self.direction_title(direction))
        return self.text("figure.extreme", metric_title=self.metric_label(metric), noun=noun)

    # --- periods -----------------------------------------------------------------------------

    def bucket_label(self, start: date, interval: str) -> str:
        """How a trend bucket reads: ``November 2024``, ``Q4 2024``, ``week of Mar 3, 2025``."""
        if interval == "month":
            return self.month_label(start)
        if interval == "quarter":
            return self.text("period.quarter", quarter=(start.month - 1) // 3 + 1, year=start.year)
        if interval == "year":
            return str(start.year)
        if interval == "week":
            return self.text("period.week_of", day=self.day_label(start))
        return self.day_label(start)

    def period_range(self, date_from: date | None, date_to: date | None) -> str:
        """``Jan 1, 2024 – Mar 31, 2024``; open ends read "since" / "until"; neither: all
        dates."""
        if date_from and date_to:
            return self.text(
                "period.range", start=self.day_label(date_from), end=self.day_label(date_to)
            )
        if date_from:
            return self.text("period.since", day=self.day_label(date_from))
        if date_to:
            return self.text("period.until", day=self.day_label(date_to))
        return self.text("period.all")

    def period_name(self, date_from: date | None, date_to: date | None) -> str:
        """A period as people name it: ``2024``, ``Q1 2025``, ``H2 2024``, ``March 2025``,
        ``week of Mar 3, 2025``, ``Mar 3, 2025``; otherwise its first and last day."""
        if date_from is None or date_to is None:
            return self.period_range(date_from, date_to)
        if date_from == date_to:
            return self.day_label(date_from)
        after = date_to + timedelta(days=1)
        months = (after.year - date_from.year) * 12 + after.month - date_from.month
        if date_from.day == 1 and after.day == 1:
            start_month = date_from.month - 1
            if months == 12 and start_month == 0:
                return str(date_from.year)
            if months == 6 and start_month % 6 == 0:
                return self.text("period.half", half=start_month // 6 + 1, year=date_from.year)
            if months == 3 and start_month % 3 == 0:
                return self.bucket_label(date_from, "quarter")
            if months == 1:
                return self.bucket_label(date_from, "month")
        if date_from.weekday() == 0 and (date_to - date_from).days == 6:
            return self.bucket_label(date_from, "week")
        return self.period_range(date_from, date_to)

    def describe_period(self, plan: IntentPlan) -> str:
        """The plan's dates as a sentence ends: ``from Jan 1, 2024 to Mar 31, 2024``."""
        if plan.date_from and plan.date_from == plan.date_to:
            return self.text("period.on", day=self.day_label(plan.date_from))
        if plan.date_from and plan.date_to:
            return self.text(
                "period.between",
                start=self.day_label(plan.date_from),
                end=self.day_label(plan.date_to),
            )
        if plan.date_from:
            return self.text("period.since", day=self.day_label(plan.date_from))
        if plan.date_to:
            return self.text("period.until", day=self.day_label(plan.date_to))
        return self.text("period.everything")

    def names(self, names: list[str]) -> str:
        return self.text("filter.list_separator").join(names)

    def describe_filters(self, plan: IntentPlan) -> str:
        """The plan's filters as words: ``on Dining at Starbucks in Checking of at least
        $100.00``."""
        parts = []
        for field in ("categories", "merchants", "accounts"):
            if values := getattr(plan, field):
                parts.append(self.text(f"filter.{field}", names=self.names(values)))
        if plan.currency:
            parts.append(self.text("filter.currency", currency=plan.currency))
        if plan.min_amount is not None and plan.min_amount == plan.max_amount:
            parts.append(self.text("filter.exactly", amount=self.money(plan.min_amount)))
        else:
            if plan.min_amount is not None:
                parts.append(self.text("filter.at_least", amount=self.money(plan.min_amount)))
            if plan.max_amount is not None:
                parts.append(self.text("filter.at_most", amount=self.money(plan.max_amount)))
        if plan.text and plan.intent is not Intent.text_qa:
            parts.append(self.text("filter.text", text=plan.text))
        return " ".join(parts)

    def carried(self, plan: IntentPlan, slots: list[str]) -> list[tuple[str, str]]:
        """Each of ``slots`` of ``plan`` (``SLOTS``) as a chip reads it: ``("subject",
        "Dining")``, ``("period", "Q1 2025")``, ``("amount", "of at least $100.00")``."""
        labels = []
        for slot in slots:
            label = ""
            if slot == "subject":
                names = [*plan.categories, *plan.merchants]
                label = self.names(names) if names else f"“{plan.text}”" if plan.text else ""
            elif slot == "accounts":
                label = self.names(plan.accounts)
            elif slot == "period":
                label = self.period_name(plan.date_from, plan.date_to)
            elif slot == "amount":
                amounts = plan.model_copy(
                    update={"categories": [], "merchants": [], "accounts": []}
                )
                label = self.describe_filters(
                    amounts.model_copy(update={"text": None, "currency": None})
                )
            elif slot == "currency":
                label = plan.currency or ""
            elif slot == "compare":
                label = self.text("compare.versus_all").join(
                    self.side_label(s) for s in plan.compare
                )
            if label:
                labels.append((slot, label))
        return labels

    def side_label(self, side: CompareSide) -> str:
        """What one side of a comparison names: ``Q1 2025``, ``Amazon``, ``Dining,
        Groceries``."""
        names = ", ".join([*side.categories, *side.merchants, *side.accounts])
        period = self.period_name(side.date_from, side.date_to) if side.has_period else ""
        return " · ".join(part for part in (names, period) if part)


def plan_kind(plan: IntentPlan) -> str:
    """What a plan asks for, as the chat's "Understood as" names it (``chat_tools.kind_<kind>``):
    a kind beyond totals, a comparison, else its intent."""
    kinds = (
        ("share", plan.share_of),
        ("peak", plan.peak),
        ("changes", plan.changes),
        ("balance", plan.balance),
        ("recurring", plan.recurring),
        ("anomaly", plan.anomaly),
        ("compare", plan.compare),
    )
    return next((kind for kind, asked in kinds if asked), plan.intent.value)


@cache
def wording(code: str = ENGLISH) -> Wording:
    """The wording of language ``code`` ("en", "ar", "de"); English for a language without
    templates."""
    return Wording(code)


_EN = wording(ENGLISH)
currency_symbol = _EN.currency_symbol
money = _EN.money
day_label = _EN.day_label
bucket_label = _EN.bucket_label
period_range = _EN.period_range
period_name = _EN.period_name
side_label = _EN.side_label


def account_label(name: str, account_no: str) -> str:
    """An account as answers and tables show it: the number is always masked."""
    return f"{name} {mask_account(account_no)}".strip()


def account_option_label(name: str, bank_name: str, account_no: str) -> str:
    """An account in a selection list: ``Checking · Chase ***1234`` (the number masked)."""
    return f"{name} · {bank_name} {mask_account(account_no)}".strip()
