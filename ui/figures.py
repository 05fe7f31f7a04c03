"""Plotly figures for results: titled, money on the axes and in hover labels (no Streamlit).

Names from files (categories, merchants, accounts) go through ``plain_figure_text`` before they
reach a figure: plotly reads a subset of HTML in its text. Every mark carries, in its
``customdata``, its count of transactions and what it stands for (a group's key, a bucket's
first day and its line, a side's place), so a click on it can open the rows behind it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from decimal import Decimal

import plotly.graph_objects as go

from elastic.model.plan import Direction, GroupBy, IntentPlan, Interval, Metric
from elastic.model.results import (
    AccountBalance,
    AggregateResult,
    Bucket,
    ChangesResult,
    CompareResult,
    PeakResult,
    ShareResult,
    TrendResult,
)
from llm.answering.wording import ENGLISH, Wording, wording
from ui.answer_text import plain_figure_text, plain_markdown

CHART_HEIGHT = 380
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TREND_KINDS = ("line", "bars", "area")  # the chart types a trend can be drawn as


def _scope(plan: IntentPlan, plain: Callable[[str], str], w: Wording) -> str:
    """The plan's categories or merchants (made ``plain`` for where they are shown) and period."""
    names = plan.categories or plan.merchants
    parts = [plain(", ".join(names))] if names else []
    parts.append(w.period_range(plan.date_from, plan.date_to))
    return w.text("chart.scope_separator").join(parts)


def trend_title(plan: IntentPlan, result: TrendResult, language: str = ENGLISH) -> str:
    w = wording(language)
    return w.text(
        "chart.trend_title",
        adverb=w.interval_adverb(result.interval),
        noun=w.direction_noun(result.direction),
        scope=_scope(plan, plain_figure_text, w),
    )


def groups_title(plan: IntentPlan, result: AggregateResult, language: str = ENGLISH) -> str:
    w = wording(language)
    noun = w.direction_title(result.direction)
    if result.metric is not Metric.sum:
        metric = w.metric_label(result.metric)
        noun = w.text("chart.groups_metric", metric=metric, noun=w.direction_noun(result.direction))
    by = w.group_word(plan.group_by.value if plan.group_by else None)
    return w.text("chart.groups_title", noun=noun, by=by, scope=_scope(plan, plain_figure_text, w))


def metric_label(plan: IntentPlan, result: AggregateResult, language: str = ENGLISH) -> str:
    """The label of an ``st.metric``: Streamlit reads markdown there."""
    w = wording(language)
    scope = _scope(plan, plain_markdown, w)
    noun = w.direction_title(result.direction)
    lower = w.direction_noun(result.direction)
    if result.metric in (Metric.count, Metric.distinct):
        return w.text("chart.metric_count", scope=scope)
    if plan.per is not None:
        noun = w.text("chart.metric_per", per=w.unit(plan.per), noun=lower)
    elif result.metric is not Metric.sum:
        noun = w.text("chart.metric_extreme", metric=w.metric_label(result.metric), noun=lower)
    return w.text("chart.metric", noun=noun, scope=scope)


def _hover(currency: str, with_name: bool, w: Wording, is_money: bool = True) -> str:
    """Hover text of a bucket: its period as answers name it (the trace's ``hovertext``)."""
    name = "%{fullData.name}: " if with_name else ""
    period = "%{hovertext}"
    amount = f"{w.currency_symbol(currency)}%{{y:,.2f}}" if is_money else "%{y:,.0f}"
    count = w.text("chart.hover_transactions")
    return f"{period}<br>{name}<b>{amount}</b> · %{{customdata[0]}} {count}<extra></extra>"


def point_data(count: int, key: str, series: str = "") -> list[object]:
    """A mark's ``customdata``: its count (shown on hover), and what a click on it opens."""
    return [count, key, series]


def _values(buckets: Sequence[Bucket], metric: Metric) -> list[float | None]:
    """Bucket values for plotly; a bucket without a value (``Bucket.shown``) is a gap."""
    return [None if (v := b.shown(metric)) is None else float(v) for b in buckets]


def _periods(buckets: Sequence[Bucket], interval: Interval, w: Wording) -> list[str]:
    return [w.bucket_label(b.period, interval.value) for b in buckets]


def _series(
    name: str,
    buckets: Sequence[Bucket],
    interval: Interval,
    currency: str,
    metric: Metric,
    w: Wording,
    kind: str = "line",
    split: str = "",
) -> go.Scatter | go.Bar:
    """One line of a trend (or its bars): ``split`` is the category a split trend's line is."""
    is_money = metric is not Metric.count
    marks = {
        "x": [b.period for b in buckets],
        "y": _values(buckets, metric),
        "customdata": [point_data(b.count, b.period.isoformat(), split) for b in buckets],
        "hovertext": _periods(buckets, interval, w),
        "name": name,
        "hovertemplate": _hover(currency, with_name=True, w=w, is_money=is_money),
    }
    if kind == "bars":
        return go.Bar(**marks)
    if kind == "area":
        return go.Scatter(**marks, mode="lines+markers", fill="tozeroy")
    return go.Scatter(**marks, mode="lines+markers")


def _layout(
    figure: go.Figure,
    title: str,
    currency: str,
    money_axis: str,
    w: Wording,
    height: int = CHART_HEIGHT,
) -> go.Figure:
    """Title, size and legend; the money axis with the currency's symbol; numbers separated as
    the language separates them."""
    figure.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        height=height,
        margin={"l": 8, "r": 8, "t": 56, "b": 8},
        legend={"orientation": "h", "yanchor": "bottom", "y": -0.25, "x": 0},
        hovermode="closest",
    )
    if w.code != ENGLISH:
        figure.update_layout(separators=w.separators())
    money = {"tickprefix": w.currency_symbol(currency), "tickformat": ",.0f"}
    if money_axis == "y":
        figure.update_yaxes(**money, rangemode="tozero")
    elif money_axis == "x":
        figure.update_xaxes(**money, rangemode="tozero")
    return figure


MAX_TICKS = 12


def _period_axis(
    figure: go.Figure, periods: Sequence[date], interval: Interval, w: Wording
) -> None:
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
        ticktext=[w.bucket_label(day, interval.value) for day in shown],
        range=[periods[0] - half, periods[-1] + half],
    )


def default_trend_kind(result: TrendResult) -> str:
    """How a trend is first drawn: bars for a net cash flow (above and below zero), else a line
    (an area for a single series)."""
    if result.direction is Direction.net:
        return "bars"
    return "line" if result.splits else "area"


def trend_figure(
    plan: IntentPlan, result: TrendResult, language: str = ENGLISH, kind: str | None = None
) -> go.Figure:
    """One line (or bars, or an area) for the series, or one per category when the trend is
    split; ``kind`` is one of ``TREND_KINDS`` (default: ``default_trend_kind``)."""
    w = wording(language)
    kind = kind or default_trend_kind(result)
    figure = go.Figure()
    is_money = plan.metric is not Metric.count
    noun = w.direction_title(result.direction)
    if result.splits:
        for category, buckets in sorted(result.splits.items()):
            name = plain_figure_text(category)
            figure.add_trace(
                _series(
                    name, buckets, result.interval, result.currency, plan.metric, w, kind, category
                )
            )
    else:
        trace = _series(noun, result.series, result.interval, result.currency, plan.metric, w, kind)
        trace.update(hovertemplate=_hover(result.currency, False, w, is_money))
        figure.add_trace(trace)
    figure.update_layout(showlegend=bool(result.splits))
    _period_axis(figure, [b.period for b in result.series], result.interval, w)
    axis = "y" if is_money else ""
    title = trend_title(plan, result, language)
    return _layout(figure, title, result.currency, money_axis=axis, w=w)


def _figure_text(w: Wording, value: float, currency: str, is_money: bool, decimals: int) -> str:
    """A bar's label: money rounded to ``decimals``, or a count."""
    if is_money:
        return w.money(Decimal(str(value)), currency, decimals)
    return w.number(round(value))


def groups_figure(
    plan: IntentPlan, result: AggregateResult, as_pie: bool, language: str = ENGLISH
) -> go.Figure:
    """Bars (months in order, other groups largest on top), or a pie of the same groups."""
    w = wording(language)
    groups = [g for g in result.groups if g.value is not None]
    by_month = plan.group_by is GroupBy.month
    if by_month:
        groups.sort(key=lambda g: g.key)
    keys = [g.key for g in groups]
    group = plan.group_by.value if plan.group_by else None
    # Days of the week keep their order (the result's), Monday on top.
    names = [plain_figure_text(w.group_key(group, k)) for k in keys]
    values = [float(g.value or 0) for g in groups]
    counts = [point_data(g.count, g.key) for g in groups]
    is_money = result.metric is not Metric.count
    symbol = w.currency_symbol(result.currency) if is_money else ""
    labels = [_figure_text(w, v, result.currency, is_money, 0) for v in values]
    title = groups_title(plan, result, language)
    count = w.text("chart.hover_transactions")
    if as_pie:
        shown = f"{symbol}%{{value:,.2f}}" if is_money else "%{value:,.0f}"
        figure = go.Figure(
            go.Pie(
                labels=names,
                values=[abs(v) for v in values],
                customdata=counts,
                # A pie's hover reads a slice's customdata whole: its count comes from text,
                # which the slices do not print (textinfo).
                text=[g.count for g in groups],
                hole=0.45,
                sort=not by_month,
                textinfo="percent",
                hovertemplate=(
                    f"%{{label}}<br><b>{shown}</b> (%{{percent}}) · "
                    f"%{{text}} {count}<extra></extra>"
                ),
            )
        )
        return _layout(figure, title, result.currency, money_axis="", w=w)
    if by_month:
        months = [date.fromisoformat(k) if _ISO_DAY.match(k) else k for k in keys]
        figure = go.Figure(
            go.Bar(
                x=months,
                y=values,
                customdata=counts,
                hovertext=[
                    w.bucket_label(m, Interval.month.value)
                    if isinstance(m, date)
                    else plain_figure_text(m)
                    for m in months
                ],
                text=labels,
                textposition="outside",
                hovertemplate=_hover(result.currency, with_name=False, w=w),
            )
        )
        figure.update_xaxes(dtick="M1", tickformat="%b %Y")
        if w.code != ENGLISH:  # plotly names months in English only
            days = [m for m in months if isinstance(m, date)]
            figure.update_xaxes(
                tickmode="array", tickvals=days, ticktext=[w.month_label(m) for m in days]
            )
        return _layout(figure, title, result.currency, "y" if is_money else "", w)
    shown = f"{symbol}%{{x:,.2f}}" if is_money else "%{x:,.0f}"
    figure = go.Figure(
        go.Bar(
            x=values[::-1],
            y=names[::-1],
            customdata=counts[::-1],
            orientation="h",
            text=labels[::-1],
            textposition="auto",
            hovertemplate=f"%{{y}}<br><b>{shown}</b> · %{{customdata[0]}} {count}<extra></extra>",
        )
    )
    height = max(CHART_HEIGHT, 90 + 30 * len(keys))
    return _layout(figure, title, result.currency, "x" if is_money else "", w, height)


def compare_figure(plan: IntentPlan, result: CompareResult, language: str = ENGLISH) -> go.Figure:
    """Side-by-side bars, one per side of a comparison (periods in time order); a side with
    no value (an average of no rows) has no bar and says so."""
    w = wording(language)
    labels = [plain_figure_text(w.side_label(side.side)) for side in result.sides]
    values = [None if s.result.value is None else float(s.result.value) for s in result.sides]
    is_money = result.metric is not Metric.count
    symbol = w.currency_symbol(result.currency) if is_money else ""
    shared = plain_figure_text(", ".join([*plan.categories, *plan.merchants, *plan.accounts]))
    noun = w.figure_noun(result.metric, result.direction, plan.per)
    shown = f"{symbol}%{{y:,.2f}}" if is_money else "%{y:,.0f}"
    count = w.text("chart.hover_transactions")
    figure = go.Figure(
        go.Bar(
            x=labels,
            y=values,
            customdata=[
                point_data(side.result.count, str(place)) for place, side in enumerate(result.sides)
            ],
            text=[
                w.text("chart.no_data")
                if v is None
                else _figure_text(w, v, result.currency, is_money, 2)
                for v in values
            ],
            textposition="outside",
            hovertemplate=f"%{{x}}<br><b>{shown}</b> · %{{customdata[0]}} {count}<extra></extra>",
        )
    )
    figure.update_xaxes(type="category")
    title = f"{noun} — {shared}" if shared else noun
    return _layout(figure, title, result.currency, "y" if is_money else "", w)


def peak_figure(plan: IntentPlan, result: PeakResult, language: str = ENGLISH) -> go.Figure:
    """The trend the peak was found in, with the highest or lowest interval marked."""
    w = wording(language)
    figure = trend_figure(plan, result.trend, language)
    bucket = result.bucket
    if bucket is not None:
        label = w.text(
            "chart.peak_marker",
            which=w.text(f"peak.{result.peak.value}"),
            period=w.bucket_label(bucket.period, result.trend.interval.value),
        )
        figure.add_annotation(
            x=bucket.period, y=float(bucket.value), text=plain_figure_text(label), showarrow=True
        )
    return figure


def share_figure(plan: IntentPlan, result: ShareResult, language: str = ENGLISH) -> go.Figure:
    """A ring of the part and the rest of its whole."""
    w = wording(language)
    part = float(result.part.value or 0)
    whole = float(result.whole.value or 0)
    names = [
        plain_figure_text(", ".join([*plan.categories, *plan.merchants]) or w.text("share.these")),
        w.text("chart.rest"),
    ]
    symbol = w.currency_symbol(result.currency)
    figure = go.Figure(
        go.Pie(
            labels=names,
            values=[max(part, 0), max(whole - part, 0)],
            hole=0.55,
            sort=False,
            textinfo="percent",
            hovertemplate=f"%{{label}}<br><b>{symbol}%{{value:,.2f}}</b><extra></extra>",
        )
    )
    title = w.text("chart.share_title", noun=w.direction_title(plan.direction))
    return _layout(figure, title, result.currency, money_axis="", w=w)


def changes_figure(plan: IntentPlan, result: ChangesResult, language: str = ENGLISH) -> go.Figure:
    """One bar per group: its change from the first period to the second, rises to the right."""
    w = wording(language)
    rows = [r for r in result.rows if r.difference is not None][:MAX_CHANGE_BARS]
    group = result.group_by.value
    names = [plain_figure_text(w.group_key(group, r.key)) for r in rows][::-1]
    values = [float(r.difference or 0) for r in rows][::-1]
    is_money = result.metric is not Metric.count
    labels = [_figure_text(w, v, result.currency, is_money, 0) for v in values]
    first, last = (plain_figure_text(w.side_label(side.side)) for side in result.sides)
    figure = go.Figure(
        go.Bar(
            x=values,
            y=names,
            orientation="h",
            text=labels,
            textposition="auto",
            marker_color=["#2e7d32" if v >= 0 else "#c62828" for v in values],
        )
    )
    title = w.text(
        "chart.changes_title",
        noun=w.direction_title(result.direction),
        by=w.group_word(group),
        first=first,
        last=last,
    )
    height = max(CHART_HEIGHT, 90 + 30 * len(rows))
    return _layout(figure, title, result.currency, "x" if is_money else "", w, height)


MAX_CHANGE_BARS = 15


def balance_figure(
    plan: IntentPlan, accounts: Sequence[AccountBalance], language: str = ENGLISH
) -> go.Figure:
    """The end-of-day balance of each account (of one currency), a line each, with the gaps
    between a stated balance and the rows marked."""
    w = wording(language)
    figure = go.Figure()
    for account in accounts:
        name = plain_figure_text(account.account_name)
        figure.add_trace(
            go.Scatter(
                x=[d.day for d in account.daily],
                y=[float(d.amount) for d in account.daily],
                name=name,
                mode="lines",
                line_shape="hv",
                hovertemplate=f"{name}<br>%{{x}}<br><b>%{{y:,.2f}}</b><extra></extra>",
            )
        )
        if account.gaps:
            figure.add_trace(
                go.Scatter(
                    x=[g.day for g in account.gaps],
                    y=[float(g.stated) for g in account.gaps],
                    name=w.text("chart.gap"),
                    mode="markers",
                    marker={"symbol": "x", "size": 10},
                )
            )
    figure.update_layout(showlegend=len(accounts) > 1)
    currency = accounts[0].currency if accounts else "USD"
    title = w.text("chart.balance_title", scope=w.period_range(plan.date_from, plan.date_to))
    laid = _layout(figure, title, currency, money_axis="y", w=w)
    laid.update_yaxes(rangemode="normal")
    return laid
