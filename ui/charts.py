"""The chart, metric or table an answer gets, chosen from its plan and result. Every chart opens
its numbers: a table and a CSV download beside it, another chart type, and a click on a bar,
point or slice opens the transactions behind it (``llm.answering.next_steps.rows_behind_point``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from elastic.model.plan import IntentPlan, Metric
from elastic.model.results import AggregateResult, CompareResult, ListingResult, TrendResult
from llm.answering.answer import Answer, Citation
from llm.answering.next_steps import Point, rows_behind_point
from llm.answering.wording import Wording, wording
from ui.chart_summary import show_chart_summaries
from ui.figures import (
    TREND_KINDS,
    compare_figure,
    default_trend_kind,
    groups_figure,
    metric_label,
    trend_figure,
    trend_title,
)
from ui.frames import csv_bytes
from ui.tables import money_column, transactions_table

OpenRows = Callable[[Citation, str], None]
"""Opens the transactions behind a citation in a dialog (``source_viewer.transactions_dialog``),
with the widget key of its table."""


def _aggregate_value(result: AggregateResult, w: Wording) -> str:
    if result.metric is Metric.count:
        return w.number(result.count)
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
    header = w.text(f"column.{plan.group_by.value if plan.group_by else 'group'}")
    value_label = w.text(f"column.{result.metric.value}")
    frame = pd.DataFrame(
        {
            header: [g.key for g in result.groups],
            value_label: [None if g.value is None else float(g.value) for g in result.groups],
            w.text("column.transactions"): [g.count for g in result.groups],
        }
    )
    value_column = _value_column(value_label, result.metric, result.currency)
    st.dataframe(frame, hide_index=True, column_config={value_label: value_column}, key=key)
    _download(frame, "breakdown.csv", key, w)


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
    st.dataframe(frame, hide_index=True, column_config={value_label: value_column}, key=key)
    _download(frame, "trend.csv", key, w)


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


def _aggregate(
    answer: Answer,
    plan: IntentPlan,
    result: AggregateResult,
    key: str,
    w: Wording,
    open_rows: OpenRows | None,
) -> None:
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


def _trend(
    answer: Answer,
    plan: IntentPlan,
    result: TrendResult,
    key: str,
    w: Wording,
    open_rows: OpenRows | None,
) -> None:
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


def _compare(
    answer: Answer,
    plan: IntentPlan,
    result: CompareResult,
    key: str,
    w: Wording,
    open_rows: OpenRows | None,
) -> None:
    figure = compare_figure(plan, result, w.code)
    currency = plan.currency if result is not answer.result else None
    alt = figure.layout.title.text or ""
    _chart(figure, f"{key}-chart", answer, currency, alt, open_rows)


Draw = Callable[[Answer, IntentPlan, Any, str, Wording, "OpenRows | None"], None]


def _per_currency(
    answer: Answer,
    parts: Sequence[AggregateResult] | Sequence[TrendResult] | Sequence[CompareResult],
    key: str,
    draw: Draw,
    w: Wording,
    open_rows: OpenRows | None,
) -> None:
    """One metric or chart per currency, labelled: amounts in different currencies are never
    drawn on one axis."""
    for part in parts:
        st.caption(w.text("chart.in_currency", currency=part.currency))
        part_plan = answer.plan.model_copy(update={"currency": part.currency})
        draw(answer, part_plan, part, f"{key}-{part.currency}", w, open_rows)


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
    result, w = answer.result, wording(answer.language)
    if isinstance(result, AggregateResult):
        if result.by_currency:
            _per_currency(answer, result.by_currency, key, _aggregate, w, open_rows)
        else:
            _aggregate(answer, answer.plan, result, key, w, open_rows)
    elif isinstance(result, CompareResult):
        if result.by_currency:
            _per_currency(answer, result.by_currency, key, _compare, w, open_rows)
        else:
            _compare(answer, answer.plan, result, key, w, open_rows)
    elif isinstance(result, TrendResult):
        if result.by_currency:
            _per_currency(answer, result.by_currency, key, _trend, w, open_rows)
        elif result.series:
            _trend(answer, answer.plan, result, key, w, open_rows)
    elif isinstance(result, ListingResult) and result.rows:
        transactions_table(
            result.rows, key=key, file_name="transactions.csv", language=w.code, names=names
        )
    show_chart_summaries(answer, key)
