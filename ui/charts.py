"""The chart, metric or table an answer gets, chosen from its plan and result. Every chart opens
its numbers: a table and a CSV download beside it, another chart type, and a click on a bar,
point or slice opens the transactions behind it (``llm.answering.next_steps.rows_behind_point``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from elastic.model.plan import IntentPlan, Metric
from elastic.model.results import (
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    ChangesResult,
    CompareResult,
    ListingResult,
    PeakResult,
    RecurringResult,
    ShareResult,
    TextQAResult,
    TrendResult,
)
from llm.answering.answer import Answer, Citation
from llm.answering.insights import RECURRING_COLUMNS
from llm.answering.next_steps import Point, rows_behind_point
from llm.answering.wording import Wording, wording
from ui.chart_summary import show_chart_summaries
from ui.figures import (
    TREND_KINDS,
    balance_figure,
    changes_figure,
    compare_figure,
    default_trend_kind,
    groups_figure,
    metric_label,
    peak_figure,
    share_figure,
    trend_figure,
    trend_title,
)
from ui.frames import csv_bytes
from ui.tables import money_column, transactions_table

OpenRows = Callable[[Citation, str], None]
"""Opens the transactions behind a citation in a dialog (``source_viewer.transactions_dialog``),
with the widget key of its table."""


@dataclass(frozen=True)
class Canvas:
    """What the charts of one answer are drawn with: its language, how a clicked mark opens
    the rows behind it, and the names files are shown by."""

    answer: Answer
    w: Wording
    open_rows: OpenRows | None = None
    names: Mapping[str, str] | None = None


def _aggregate_value(result: AggregateResult, w: Wording) -> str:
    if result.metric is Metric.count:
        return w.number(result.count)
    if result.metric is Metric.distinct:
        return w.number(int(result.value or 0))
    return w.money(result.value, result.currency)


def _value_column(label: str, metric: Metric, currency: str) -> object:
    if metric is Metric.count:
        return st.column_config.NumberColumn(label, format="localized")
    return money_column(label, currency)


def _download(frame: pd.DataFrame, file_name: str, key: str, w: Wording) -> None:
    st.download_button(
        w.text("chart.download"),
        data=csv_bytes(frame),
        file_name=file_name,
        mime="text/csv",
        icon=":material/download:",
        key=f"{key}-csv",
        on_click="ignore",
    )


def _groups_table(plan: IntentPlan, result: AggregateResult, key: str, w: Wording) -> None:
    group = plan.group_by.value if plan.group_by else None
    header = w.text(f"column.{group or 'group'}")
    per_group = Metric.sum if result.metric is Metric.distinct else result.metric
    value_label = w.text(f"column.{per_group.value}")
    frame = pd.DataFrame(
        {
            header: [w.group_key(group, g.key) for g in result.groups],
            value_label: [None if g.value is None else float(g.value) for g in result.groups],
            w.text("column.transactions"): [g.count for g in result.groups],
        }
    )
    value_column = _value_column(value_label, per_group, result.currency)
    _frame_with_csv(frame, {value_label: value_column}, key, "breakdown.csv", w)


def _frame_with_csv(
    frame: pd.DataFrame, config: dict[str, Any], key: str, file_name: str, w: Wording
) -> None:
    """A sortable table and a CSV download of exactly its rows."""
    st.dataframe(frame, hide_index=True, column_config=config, key=key)
    _download(frame, file_name, key, w)


def _trend_table(plan: IntentPlan, result: TrendResult, key: str, w: Wording) -> None:
    """The trend's buckets as rows (one per bucket and line when split), as the chart draws
    them, with a CSV download."""
    period, value_label = w.text("chart_tools.period"), w.text(f"column.{plan.metric.value}")
    lines = sorted(result.splits.items()) if result.splits else [("", result.series)]
    rows: dict[str, list[Any]] = {period: [], value_label: [], w.text("column.transactions"): []}
    if result.splits:
        rows = {w.text("column.category"): [], **rows}
    for name, buckets in lines:
        for bucket in buckets:
            if result.splits:
                rows[w.text("column.category")].append(name)
            rows[period].append(w.bucket_label(bucket.period, result.interval.value))
            value = bucket.shown(plan.metric)
            rows[value_label].append(None if value is None else float(value))
            rows[w.text("column.transactions")].append(bucket.count)
    frame = pd.DataFrame(rows)
    value_column = _value_column(value_label, plan.metric, result.currency)
    _frame_with_csv(frame, {value_label: value_column}, key, "trend.csv", w)


def mark_point(data: object, currency: str | None) -> Point | None:
    """The point a mark's ``customdata`` (``figures.point_data``) stands for; a pie slice's
    comes wrapped in a list of its own."""
    if isinstance(data, list | tuple) and len(data) == 1 and isinstance(data[0], list | tuple):
        data = data[0]
    if not isinstance(data, list | tuple) or len(data) < 2:
        return None
    series = str(data[2]) if len(data) > 2 and data[2] else None
    return Point(str(data[1]), series, currency)


def _clicked(key: str, answer: Answer, currency: str | None) -> None:
    """A bar or point was selected: remember the rows behind it, for ``_chart`` to open once."""
    points = st.session_state[key].selection.points
    point = mark_point(points[0].get("customdata"), currency) if points else None
    citation = rows_behind_point(answer, point) if point is not None else None
    if citation is not None:
        st.session_state[f"{key}-rows"] = citation


_SLICE_CLICKS_JS = """
// Plotly selects bars and points, which st.plotly_chart reports (on_select), but not the
// slices of a pie: this hears a click on a slice of any chart of the page and sends the chart's
// key and the slice's customdata, for the page to open the rows behind it.
export default function (component) {
    const { parentElement, setTriggerValue } = component;
    const page = parentElement.ownerDocument || document;
    const hook = () => {
        for (const chart of page.querySelectorAll(".js-plotly-plot")) {
            if (chart.fsSlices || typeof chart.on !== "function") continue;
            chart.fsSlices = true;
            chart.on("plotly_click", (event) => {
                const point = event && event.points && event.points[0];
                if (!point || point.data.type !== "pie") return;
                const holder = chart.closest("[class*='st-key-']");
                const key = holder && [...holder.classList].find((c) => c.startsWith("st-key-"));
                if (!key) return;
                setTriggerValue("slice", JSON.stringify({
                    chart: key.slice("st-key-".length), data: point.customdata,
                }));
            });
        }
    };
    hook();
    const watcher = new MutationObserver(hook);
    watcher.observe(page.body, { childList: true, subtree: true });
    return () => watcher.disconnect();
}
"""

_slice_catcher = st.components.v2.component("finsync.slice_clicks", js=_SLICE_CLICKS_JS)


def slice_click() -> tuple[str, object] | None:
    """The chart key and the customdata of the pie slice clicked this run, if one was. Mounts
    the (invisible) catcher: call it once per page run."""
    with st.container(key="slice-click-catcher"):
        clicks = _slice_catcher(key="slice-clicks", on_slice_change=lambda: None)
    raw = clicks.get("slice")
    try:
        found = json.loads(raw) if raw else None
    except ValueError:
        return None
    if not isinstance(found, dict) or not isinstance(found.get("chart"), str):
        return None
    return found["chart"], found.get("data")


def _chart(
    figure: go.Figure,
    key: str,
    answer: Answer,
    currency: str | None,
    alt: str,
    open_rows: OpenRows | None,
) -> None:
    """``figure``, whose marks open their rows when selected (when ``open_rows`` can)."""
    if open_rows is None:
        st.plotly_chart(figure, theme="streamlit", key=key, alt=alt)
        return
    st.caption(wording(answer.language).text("chart_tools.click_hint"))
    st.plotly_chart(
        figure,
        theme="streamlit",
        key=key,
        alt=alt,
        on_select=partial(_clicked, key, answer, currency),
        selection_mode="points",
    )
    citation = st.session_state.pop(f"{key}-rows", None)
    if citation is not None:
        open_rows(citation, f"{key}-rows")


def _aggregate(c: Canvas, plan: IntentPlan, result: AggregateResult, key: str) -> None:
    answer, w, open_rows = c.answer, c.w, c.open_rows
    label = metric_label(plan, result, w.code)
    if result.metric is Metric.count:
        st.metric(label, _aggregate_value(result, w), border=True)
    else:
        value, count = st.columns([2, 1])
        value.metric(label, _aggregate_value(result, w), border=True)
        count.metric(w.text("chart.transactions"), w.number(result.count), border=True)
    if len(result.groups) < 2:
        return
    as_pie = st.toggle(w.text("chart.pie"), key=f"{key}-pie")
    chart_tab, table_tab = st.tabs([w.text("chart.chart_tab"), w.text("chart.table_tab")])
    with chart_tab:
        figure = groups_figure(plan, result, as_pie, w.code)
        currency = plan.currency if result is not answer.result else None
        alt = figure.layout.title.text or ""
        _chart(figure, f"{key}-chart", answer, currency, alt, open_rows)
    with table_tab:
        _groups_table(plan, result, f"{key}-groups", w)


def _trend(c: Canvas, plan: IntentPlan, result: TrendResult, key: str) -> None:
    answer, w, open_rows = c.answer, c.w, c.open_rows
    kind = st.segmented_control(
        w.text("chart_tools.chart_type"),
        TREND_KINDS,
        default=default_trend_kind(result),
        format_func=lambda option: w.text(f"chart_tools.{option}"),
        key=f"{key}-kind",
        label_visibility="collapsed",
    )
    chart_tab, table_tab = st.tabs([w.text("chart.chart_tab"), w.text("chart.table_tab")])
    with chart_tab:
        figure = trend_figure(plan, result, w.code, kind or default_trend_kind(result))
        currency = plan.currency if result is not answer.result else None
        alt = trend_title(plan, result, w.code)
        _chart(figure, f"{key}-chart", answer, currency, alt, open_rows)
    with table_tab:
        _trend_table(plan, result, f"{key}-table", w)


def _compare(c: Canvas, plan: IntentPlan, result: CompareResult, key: str) -> None:
    answer, w, open_rows = c.answer, c.w, c.open_rows
    figure = compare_figure(plan, result, w.code)
    currency = plan.currency if result is not answer.result else None
    alt = figure.layout.title.text or ""
    _chart(figure, f"{key}-chart", answer, currency, alt, open_rows)


Draw = Callable[[Canvas, IntentPlan, Any, str], None]


def _per_currency(c: Canvas, parts: Sequence[Any], key: str, draw: Draw) -> None:
    """One metric or chart per currency, labelled: amounts in different currencies are never
    drawn on one axis."""
    for part in parts:
        st.caption(c.w.text("chart.in_currency", currency=part.currency))
        part_plan = c.answer.plan.model_copy(update={"currency": part.currency})
        draw(c, part_plan, part, f"{key}-{part.currency}")


def _share(c: Canvas, plan: IntentPlan, result: ShareResult, key: str) -> None:
    w = c.w
    value, part, whole = st.columns([1, 1, 1])
    label = w.text("chart.share_label", noun=w.direction_noun(plan.direction))
    shown = w.percent(result.pct) if result.pct is not None else w.text("chart.no_data")
    value.metric(label, shown, border=True)
    part.metric(w.text("column.amount"), w.money(result.part.value, result.currency), border=True)
    whole.metric(w.text("chart.whole"), w.money(result.whole.value, result.currency), border=True)
    if result.pct is not None:
        st.plotly_chart(share_figure(plan, result, w.code), theme="streamlit", key=f"{key}-chart")


def _peak(c: Canvas, plan: IntentPlan, result: PeakResult, key: str) -> None:
    w = c.w
    if result.trend.series:
        figure = peak_figure(plan, result, w.code)
        st.plotly_chart(figure, theme="streamlit", key=f"{key}-chart")


def _changes(c: Canvas, plan: IntentPlan, result: ChangesResult, key: str) -> None:
    w = c.w
    if result.rows:
        figure = changes_figure(plan, result, w.code)
        st.plotly_chart(figure, theme="streamlit", key=f"{key}-chart")


def _balances(c: Canvas, plan: IntentPlan, result: BalanceResult, key: str) -> None:
    """A line per account over the period, one chart per currency; a balance on one day is
    said in the text, so only periods are drawn."""
    w = c.w
    known = [a for a in result.accounts if len(a.daily) > 1]
    for currency in sorted({a.currency for a in known}):
        accounts = [a for a in known if a.currency == currency]
        figure = balance_figure(plan, accounts, w.code)
        st.plotly_chart(figure, theme="streamlit", key=f"{key}-{currency}-chart")


def recurring_frame(result: RecurringResult, w: Wording) -> pd.DataFrame:
    """The series as a table: merchant, cadence, current amount, monthly cost, since, last
    charge, status and price changes (headed in the answer's language)."""
    columns = [w.text(f"column.{c}") for c in RECURRING_COLUMNS]
    return pd.DataFrame(
        [
            (
                s.merchant,
                w.cadence(s.cadence, s.every),
                float(s.amount),
                float(s.monthly),
                s.first,
                s.last,
                w.text("recurring.active" if s.active else "recurring.stopped"),
                "; ".join(f"{c.day.isoformat()}: {c.before} → {c.after}" for c in s.price_changes),
            )
            for s in result.series
        ],
        columns=columns,
    )


def _recurring(c: Canvas, plan: IntentPlan, result: RecurringResult, key: str) -> None:
    w = c.w
    if not result.series:
        return
    frame = recurring_frame(result, w)
    currency = result.series[0].currency
    amount, monthly = frame.columns[2], frame.columns[3]
    config = {
        amount: money_column(amount, currency),
        monthly: money_column(monthly, currency),
    }
    _frame_with_csv(frame, config, f"{key}-recurring", "recurring.csv", w)


def _anomalies(c: Canvas, plan: IntentPlan, result: AnomalyResult, key: str) -> None:
    w = c.w
    rows = [row for double in result.doubles for row in double.rows]
    rows += [high.row for high in result.high]
    if rows:
        transactions_table(rows, key=key, file_name="to-check.csv", language=w.code, names=c.names)


def _listing(c: Canvas, plan: IntentPlan, result: ListingResult, key: str) -> None:
    w = c.w
    if result.rows:
        transactions_table(
            result.rows, key=key, file_name="transactions.csv", language=w.code, names=c.names
        )


def _nothing(c: Canvas, plan: IntentPlan, result: object, key: str) -> None:
    """Statement text is quoted in the answer; there is nothing to draw."""


CHARTS: dict[type, Draw] = {
    AggregateResult: _aggregate,
    CompareResult: _compare,
    TrendResult: lambda c, plan, result, key: (
        _trend(c, plan, result, key) if result.series else None
    ),
    ListingResult: _listing,
    TextQAResult: _nothing,
    ShareResult: _share,
    PeakResult: _peak,
    ChangesResult: _changes,
    BalanceResult: _balances,
    RecurringResult: _recurring,
    AnomalyResult: _anomalies,
}


@st.fragment
def answer_numbers(
    answer: Answer,
    key: str,
    names: Mapping[str, str] | None = None,
    open_rows: OpenRows | None = None,
) -> None:
    """The numbers behind ``answer`` as metrics, a chart or a table of its rows (the answer's
    tables, drawn from the result). A fragment: a toggle in it (a pie instead of bars, bars
    instead of a line) or a click on a mark redraws this answer's numbers only, not the page.
    ``names`` shows files by name in the rows' Source column; ``open_rows`` opens the rows
    behind a clicked mark."""
    result = answer.result
    canvas = Canvas(answer, wording(answer.language), open_rows, names)
    if result is not None:
        draw = CHARTS[type(result)]
        if parts := getattr(result, "by_currency", None):
            _per_currency(canvas, parts, key, draw)
        else:
            draw(canvas, answer.plan, result, key)
    show_chart_summaries(answer, key)
