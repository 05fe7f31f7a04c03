"""Plotly figures for results: titled, money on the axes and in hover labels (no Streamlit).

Names from files (categories, merchants, accounts) go through ``plain_figure_text`` before they
reach a figure: plotly reads a subset of HTML in its text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta

import plotly.graph_objects as go

from elastic.model.plan import Direction, GroupBy, IntentPlan, Interval, Metric
from elastic.model.results import AggregateResult, Bucket, CompareResult, TrendResult
from llm.answering.wording import (
    DIRECTION_NOUN,
    INTERVAL_ADVERB,
    METRIC_LABEL,
    bucket_label,
    currency_symbol,
    figure_noun,
    period_range,
    side_label,
)
from ui.answer_text import plain_figure_text, plain_markdown

CHART_HEIGHT = 380
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _scope(plan: IntentPlan, plain: Callable[[str], str]) -> str:
    """The plan's categories or merchants (made ``plain`` for where they are shown) and period."""
    names = plan.categories or plan.merchants
    parts = [plain(", ".join(names))] if names else []
    parts.append(period_range(plan.date_from, plan.date_to))
    return " · ".join(parts)


def trend_title(plan: IntentPlan, result: TrendResult) -> str:
    noun = DIRECTION_NOUN[result.direction]
    return f"{INTERVAL_ADVERB[result.interval]} {noun} — {_scope(plan, plain_figure_text)}"


def groups_title(plan: IntentPlan, result: AggregateResult) -> str:
    noun = DIRECTION_NOUN[result.direction].capitalize()
    if result.metric is not Metric.sum:
        noun = f"{METRIC_LABEL[result.metric]} {noun.lower()}"
    by = plan.group_by.value if plan.group_by else "group"
    return f"{noun} by {by} — {_scope(plan, plain_figure_text)}"


def metric_label(plan: IntentPlan, result: AggregateResult) -> str:
    """The label of an ``st.metric``: Streamlit reads markdown there."""
    noun = DIRECTION_NOUN[result.direction].capitalize()
    if result.metric is Metric.count:
        return f"Number of transactions · {_scope(plan, plain_markdown)}"
    if plan.per is not None:
        noun = f"Average per {plan.per.value} ({noun.lower()})"
    elif result.metric is not Metric.sum:
        noun = f"{METRIC_LABEL[result.metric]} transaction ({noun.lower()})"
    return f"{noun} · {_scope(plan, plain_markdown)}"


def _hover(currency: str, with_name: bool, is_money: bool = True) -> str:
    """Hover text of a bucket: its period as answers name it (the trace's ``hovertext``)."""
    name = "%{fullData.name}: " if with_name else ""
    period = "%{hovertext}"
    amount = f"{currency_symbol(currency)}%{{y:,.2f}}" if is_money else "%{y:,.0f}"
    return f"{period}<br>{name}<b>{amount}</b> · %{{customdata}} transactions<extra></extra>"


def _values(buckets: Sequence[Bucket], metric: Metric) -> list[float | None]:
    """Bucket values for plotly; a bucket without a value (``Bucket.shown``) is a gap."""
    return [None if (v := b.shown(metric)) is None else float(v) for b in buckets]


def _periods(buckets: Sequence[Bucket], interval: Interval) -> list[str]:
    return [bucket_label(b.period, interval.value) for b in buckets]


def _series(
    name: str, buckets: Sequence[Bucket], interval: Interval, currency: str, metric: Metric
) -> go.Scatter:
    is_money = metric is not Metric.count
    return go.Scatter(
        x=[b.period for b in buckets],
        y=_values(buckets, metric),
        customdata=[b.count for b in buckets],
        hovertext=_periods(buckets, interval),
        name=name,
        mode="lines+markers",
        hovertemplate=_hover(currency, with_name=True, is_money=is_money),
    )


def _layout(
    figure: go.Figure, title: str, currency: str, money_axis: str, height: int = CHART_HEIGHT
) -> go.Figure:
    figure.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        height=height,
        margin={"l": 8, "r": 8, "t": 56, "b": 8},
        legend={"orientation": "h", "yanchor": "bottom", "y": -0.25, "x": 0},
        hovermode="closest",
    )
    money = {"tickprefix": currency_symbol(currency), "tickformat": ",.0f"}
    if money_axis == "y":
        figure.update_yaxes(**money, rangemode="tozero")
    elif money_axis == "x":
        figure.update_xaxes(**money, rangemode="tozero")
    return figure


MAX_TICKS = 12


def _period_axis(figure: go.Figure, periods: Sequence[date], interval: Interval) -> None:
    """Ticks on the buckets themselves, labelled as the answer names them ("Jan 2025" points get
    "January 2025", never two-week ticks), at most ``MAX_TICKS`` of them, with half a bucket
    of room at each end so no point or bar is cut at the edge."""
    if not periods:
        return
    shown = periods[:: math.ceil(len(periods) / MAX_TICKS)]
    half = (periods[1] - periods[0]) / 2 if len(periods) > 1 else timedelta(days=1)
    figure.update_xaxes(
        tickmode="array",
        tickvals=list(shown),
        ticktext=[bucket_label(day, interval.value) for day in shown],
        range=[periods[0] - half, periods[-1] + half],
    )


def trend_figure(plan: IntentPlan, result: TrendResult) -> go.Figure:
    """One line for the series, or one line per category when the trend is split."""
    figure = go.Figure()
    is_money = plan.metric is not Metric.count
    if result.splits:
        for category, buckets in sorted(result.splits.items()):
            name = plain_figure_text(category)
            figure.add_trace(_series(name, buckets, result.interval, result.currency, plan.metric))
    elif result.direction is Direction.net:
        figure.add_trace(
            go.Bar(
                x=[b.period for b in result.series],
                y=_values(result.series, plan.metric),
                customdata=[b.count for b in result.series],
                hovertext=_periods(result.series, result.interval),
                name=DIRECTION_NOUN[result.direction].capitalize(),
                hovertemplate=_hover(result.currency, False, is_money),
            )
        )
    else:
        trace = _series(
            DIRECTION_NOUN[result.direction].capitalize(),
            result.series,
            result.interval,
            result.currency,
            plan.metric,
        )
        trace.update(
            hovertemplate=_hover(result.currency, False, is_money),
            fill="tozeroy",
        )
        figure.add_trace(trace)
    figure.update_layout(showlegend=bool(result.splits))
    _period_axis(figure, [b.period for b in result.series], result.interval)
    axis = "y" if is_money else ""
    return _layout(figure, trend_title(plan, result), result.currency, money_axis=axis)


def groups_figure(plan: IntentPlan, result: AggregateResult, as_pie: bool) -> go.Figure:
    """Bars (months in order, other groups largest on top), or a pie of the same groups."""
    groups = [g for g in result.groups if g.value is not None]
    by_month = plan.group_by is GroupBy.month
    if by_month:
        groups.sort(key=lambda g: g.key)
    keys = [g.key for g in groups]
    names = [plain_figure_text(k) for k in keys]
    values = [float(g.value or 0) for g in groups]
    counts = [g.count for g in groups]
    is_money = result.metric is not Metric.count
    symbol = currency_symbol(result.currency) if is_money else ""
    labels = [f"{symbol}{v:,.0f}" if is_money else f"{v:,.0f}" for v in values]
    title = groups_title(plan, result)
    if as_pie:
        shown = f"{symbol}%{{value:,.2f}}" if is_money else "%{value:,.0f}"
        figure = go.Figure(
            go.Pie(
                labels=names,
                values=[abs(v) for v in values],
                customdata=counts,
                hole=0.45,
                sort=not by_month,
                textinfo="percent",
                hovertemplate=(
                    f"%{{label}}<br><b>{shown}</b> (%{{percent}}) · "
                    "%{customdata} transactions<extra></extra>"
                ),
            )
        )
        return _layout(figure, title, result.currency, money_axis="")
    if by_month:
        months = [date.fromisoformat(k) if _ISO_DAY.match(k) else k for k in keys]
        figure = go.Figure(
            go.Bar(
                x=months,
                y=values,
                customdata=counts,
                hovertext=[
                    bucket_label(m, Interval.month.value)
                    if isinstance(m, date)
                    else plain_figure_text(m)
                    for m in months
                ],
                text=labels,
                textposition="outside",
                hovertemplate=_hover(result.currency, with_name=False),
            )
        )
        figure.update_xaxes(dtick="M1", tickformat="%b %Y")
        return _layout(figure, title, result.currency, "y" if is_money else "")
    shown = f"{symbol}%{{x:,.2f}}" if is_money else "%{x:,.0f}"
    figure = go.Figure(
        go.Bar(
            x=values[::-1],
            y=names[::-1],
            customdata=counts[::-1],
            orientation="h",
            text=labels[::-1],
            textposition="auto",
            hovertemplate=f"%{{y}}<br><b>{shown}</b> · %{{customdata}} transactions<extra></extra>",
        )
    )
    height = max(CHART_HEIGHT, 90 + 30 * len(keys))
    return _layout(figure, title, result.currency, "x" if is_money else "", height)


def compare_figure(plan: IntentPlan, result: CompareResult) -> go.Figure:
    """Side-by-side bars, one per side of a comparison (periods in time order); a side with
    no value (an average of no rows) has no bar and says so."""
    labels = [plain_figure_text(side_label(side.side)) for side in result.sides]
    values = [None if s.result.value is None else float(s.result.value) for s in result.sides]
    is_money = result.metric is not Metric.count
    symbol = currency_symbol(result.currency) if is_money else ""
    shared = plain_figure_text(", ".join([*plan.categories, *plan.merchants, *plan.accounts]))
    noun = figure_noun(result.metric, result.direction, plan.per)
    shown = f"{symbol}%{{y:,.2f}}" if is_money else "%{y:,.0f}"
    figure = go.Figure(
        go.Bar(
            x=labels,
            y=values,
            customdata=[side.result.count for side in result.sides],
            text=[
                "no data" if v is None else (f"{symbol}{v:,.2f}" if is_money else f"{v:,.0f}")
                for v in values
            ],
            textposition="outside",
            hovertemplate=f"%{{x}}<br><b>{shown}</b> · %{{customdata}} transactions<extra></extra>",
        )
    )
    figure.update_xaxes(type="category")
    title = f"{noun} — {shared}" if shared else noun
    return _layout(figure, title, result.currency, "y" if is_money else "")
