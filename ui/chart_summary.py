"""A chart's content in one sentence, shown under the chart: a screen reader cannot read a
plotly chart, and a reader in a hurry need not hover over it.

"Monthly spending, January 2025 to June 2025: highest March 2025 ($1,234.00), lowest
February 2025 ($12.00); total $4,321.00."
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import streamlit as st

from elastic.model.plan import IntentPlan, Metric
from elastic.model.results import (
    AccountBalance,
    AggregateResult,
    BalanceResult,
    Bucket,
    ChangesResult,
    CompareResult,
    DayBalance,
    GroupChange,
    PeakResult,
    TrendResult,
    series_total,
)
from llm.answering.answer import Answer
from llm.answering.wording import Wording, wording
from ui.answer_text import plain_markdown

MAX_SERIES = 5  # a trend split into more lines names the first ones and counts the rest


def _amount(words: Wording, value: Decimal, metric: Metric, currency: str) -> str:
    return words.number(value) if metric is Metric.count else words.money(value, currency)


def _named(words: Wording, noun: str, plan: IntentPlan) -> str:
    """``noun`` with the categories or merchants the plan is about: "Monthly spending
    (Groceries)"."""
    names = plan.categories or plan.merchants
    return words.text("summary.named", noun=noun, names=", ".join(names)) if names else noun


def _series_summary(
    words: Wording, buckets: Sequence[Bucket], plan: IntentPlan, result: TrendResult
) -> str:
    shown = [(b, v) for b in buckets if (v := b.shown(plan.metric)) is not None]
    if not shown:
        return words.text("chart.no_data")
    high = max(shown, key=lambda pair: pair[1])
    low = min(shown, key=lambda pair: pair[1])

    def at(pair: tuple[Bucket, Decimal]) -> str:
        period = words.bucket_label(pair[0].period, result.interval.value)
        amount = _amount(words, pair[1], plan.metric, result.currency)
        return words.text("summary.at", period=period, amount=amount)

    text = words.text("summary.extremes", high=at(high), low=at(low))
    if plan.metric in (Metric.sum, Metric.count):
        total, _ = series_total(buckets)
        text += words.text(
            "summary.total", total=_amount(words, total, plan.metric, result.currency)
        )
    return text


def trend_summary(words: Wording, plan: IntentPlan, result: TrendResult) -> str:
    """The periods a trend spans, and its highest and lowest (per line when split)."""
    buckets = result.series
    noun = _named(
        words,
        words.text(
            "summary.trend_noun",
            adverb=words.interval_adverb(result.interval),
            noun=words.direction_noun(result.direction),
        ),
        plan,
    )
    if not buckets:
        return words.text("summary.trend_empty", noun=noun)
    span = words.text(
        "summary.span",
        first=words.bucket_label(buckets[0].period, result.interval.value),
        last=words.bucket_label(buckets[-1].period, result.interval.value),
    )
    if not result.splits:
        summary = _series_summary(words, result.series, plan, result)
        return words.text("summary.trend", noun=noun, span=span, summary=summary)
    lines = [
        words.text("summary.line", name=name, summary=_series_summary(words, series, plan, result))
        for name, series in sorted(result.splits.items())[:MAX_SERIES]
    ]
    more = len(result.splits) - MAX_SERIES
    return words.text(
        "summary.trend_lines",
        noun=noun,
        span=span,
        lines=words.number(len(result.splits)),
        summaries=". ".join(lines),
        rest=words.text("summary.more", more=words.number(more)) if more > 0 else "",
    )


def groups_summary(words: Wording, plan: IntentPlan, result: AggregateResult) -> str:
    """How many groups, the largest and the smallest."""
    noun = _named(words, words.figure_noun(result.metric, result.direction), plan)
    by = words.text(f"group.{plan.group_by.value if plan.group_by else 'group'}")
    period = words.period_range(plan.date_from, plan.date_to)
    valued = [g for g in result.groups if g.value is not None]
    if not valued:
        return words.text("summary.groups_empty", noun=noun, by=by, period=period)
    top = max(valued, key=lambda g: g.value or 0)
    bottom = min(valued, key=lambda g: g.value or 0)

    def named(group_key: str, value: Decimal | None) -> str:
        amount = _amount(words, value or Decimal(0), result.metric, result.currency)
        return words.text("summary.at", period=group_key, amount=amount)

    return words.text(
        "summary.groups",
        noun=noun,
        by=by,
        period=period,
        groups=words.number(len(result.groups)),
        top=named(top.key, top.value),
        bottom=named(bottom.key, bottom.value),
    )


def compare_summary(words: Wording, result: CompareResult) -> str:
    """Each side's figure, and the change from the first to the last."""
    noun = words.figure_noun(result.metric, result.direction)
    sides = ", ".join(
        words.text(
            "summary.side",
            label=words.side_label(side.side),
            value=words.text("chart.no_data")
            if side.result.value is None
            else _amount(words, side.result.value, result.metric, result.currency),
        )
        for side in result.sides
    )
    difference = result.difference
    if difference is None:
        return words.text("summary.compare", noun=noun, sides=sides)
    change = _amount(words, abs(difference), result.metric, result.currency)
    sign = "+" if difference >= 0 else "-"
    pct = f" ({result.change_pct:+}%)" if result.change_pct is not None else ""
    return words.text(
        "summary.compare_change", noun=noun, sides=sides, change=sign + change, pct=pct
    )


def balance_summary(words: Wording, plan: IntentPlan, account: AccountBalance) -> str:
    """One account's balance line: its span, lowest, highest and last balance."""
    low, high, last = account.lowest(), account.highest(), account.daily[-1]
    assert low is not None and high is not None

    def at(day: DayBalance) -> str:
        amount = words.money(day.amount, account.currency)
        return words.text("summary.at", period=words.day_label(day.day), amount=amount)

    span = words.text(
        "summary.span",
        first=words.day_label(account.daily[0].day),
        last=words.day_label(last.day),
    )
    return words.text(
        "summary.balance",
        account=account.account_name,
        span=span,
        low=at(low),
        high=at(high),
        last=at(last),
    )


def changes_summary(words: Wording, result: ChangesResult) -> str:
    """How many groups changed, and the biggest rise and fall."""
    group = result.group_by.value
    moved = [r for r in result.rows if r.difference]

    def named(row: GroupChange | None) -> str:
        if row is None or row.difference is None:
            return words.text("summary.none")
        amount = _amount(words, abs(row.difference), result.metric, result.currency)
        return words.text("summary.at", period=words.group_key(group, row.key), amount=amount)

    rises = [r for r in moved if (r.difference or 0) > 0]
    falls = [r for r in moved if (r.difference or 0) < 0]
    first, last = (words.side_label(side.side) for side in result.sides)
    return words.text(
        "summary.changes",
        noun=words.figure_noun(result.metric, result.direction),
        by=words.group_word(group),
        first=first,
        last=last,
        groups=words.number(len(result.rows)),
        up=named(max(rises, key=lambda r: r.difference or 0, default=None)),
        down=named(min(falls, key=lambda r: r.difference or 0, default=None)),
    )


def chart_summaries(answer: Answer) -> list[str]:
    """One sentence per chart ``answer`` gets, in the order they are drawn (one chart per
    currency, named, when amounts are in several)."""
    result, plan, words = answer.result, answer.plan, wording(answer.language)
    texts: list[tuple[str, str]] = []
    if isinstance(result, PeakResult):
        for peak in result.by_currency or [result]:
            if peak.trend.series:
                texts.append((peak.currency, trend_summary(words, plan, peak.trend)))
    elif isinstance(result, BalanceResult):
        for account in result.accounts:
            if len(account.daily) > 1:
                texts.append((account.currency, balance_summary(words, plan, account)))
    elif isinstance(result, ChangesResult):
        for part in result.by_currency or [result]:
            if part.rows:
                texts.append((part.currency, changes_summary(words, part)))
    elif isinstance(result, TrendResult):
        for part in result.by_currency or [result]:
            if part.series:
                texts.append((part.currency, trend_summary(words, plan, part)))
    elif isinstance(result, CompareResult):
        parts = result.by_currency or [result]
        texts = [(part.currency, compare_summary(words, part)) for part in parts]
    elif isinstance(result, AggregateResult):
        for part in result.by_currency or [result]:
            if len(part.groups) >= 2:
                texts.append((part.currency, groups_summary(words, plan, part)))
    several = bool(getattr(result, "by_currency", None))
    return [
        words.text("summary.in_currency", currency=currency, text=text) if several else text
        for currency, text in texts
    ]


def show_chart_summaries(answer: Answer, key: str) -> None:
    """The sentences as captions under the charts (names from files shown as text)."""
    summaries = chart_summaries(answer)
    if not summaries:
        return
    with st.container(key=f"{key}-chart-summary"):
        for summary in summaries:
            st.caption(plain_markdown(summary))
