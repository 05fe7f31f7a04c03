"""The chart, metric or table an answer gets, chosen from its plan and result."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from elastic.model.plan import IntentPlan, Metric
from elastic.model.results import AggregateResult, CompareResult, ListingResult, TrendResult
from llm.answering.answer import Answer
from llm.answering.wording import Wording, wording
from ui.chart_summary import show_chart_summaries
from ui.figures import compare_figure, groups_figure, metric_label, trend_figure
from ui.frames import csv_bytes
from ui.tables import money_column, transactions_table


def _aggregate_value(result: AggregateResult, w: Wording) -> str:
    if result.metric is Metric.count:
        return w.number(result.count)
    return w.money(result.value, result.currency)


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
    value_column = (
        st.column_config.NumberColumn(value_label, format="localized")
        if result.metric is Metric.count
        else money_column(value_label, result.currency)
    )
    st.dataframe(frame, hide_index=True, column_config={value_label: value_column}, key=key)
    st.download_button(
        w.text("chart.download"),
        data=csv_bytes(frame),
        file_name="breakdown.csv",
        mime="text/csv",
        icon=":material/download:",
        key=f"{key}-csv",
        on_click="ignore",
    )


def _aggregate(plan: IntentPlan, result: AggregateResult, key: str, w: Wording) -> None:
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
        st.plotly_chart(figure, theme="streamlit", key=f"{key}-chart")
    with table_tab:
        _groups_table(plan, result, f"{key}-groups", w)


def _trend(plan: IntentPlan, result: TrendResult, key: str, w: Wording) -> None:
    st.plotly_chart(trend_figure(plan, result, w.code), theme="streamlit", key=f"{key}-chart")


def _compare(plan: IntentPlan, result: CompareResult, key: str, w: Wording) -> None:
    st.plotly_chart(compare_figure(plan, result, w.code), theme="streamlit", key=f"{key}-chart")


def _per_currency(
    plan: IntentPlan,
    parts: Sequence[AggregateResult] | Sequence[TrendResult] | Sequence[CompareResult],
    key: str,
    draw: Callable[[IntentPlan, Any, str, Wording], None],
    w: Wording,
) -> None:
    """One metric or chart per currency, labelled: amounts in different currencies are never
    drawn on one axis."""
    for part in parts:
        st.caption(w.text("chart.in_currency", currency=part.currency))
        part_plan = plan.model_copy(update={"currency": part.currency})
        draw(part_plan, part, f"{key}-{part.currency}", w)


@st.fragment
def answer_numbers(answer: Answer, key: str) -> None:
    """The numbers behind ``answer`` as metrics, a chart or a table of its rows (the answer's
    tables, drawn from the result). A fragment: a toggle in it (a pie instead of bars) redraws
    this answer's numbers only, not the page."""
    result, w = answer.result, wording(answer.language)
    if isinstance(result, AggregateResult):
        if result.by_currency:
            _per_currency(answer.plan, result.by_currency, key, _aggregate, w)
        else:
            _aggregate(answer.plan, result, key, w)
    elif isinstance(result, CompareResult):
        if result.by_currency:
            _per_currency(answer.plan, result.by_currency, key, _compare, w)
        else:
            _compare(answer.plan, result, key, w)
    elif isinstance(result, TrendResult):
        if result.by_currency:
            _per_currency(answer.plan, result.by_currency, key, _trend, w)
        elif result.series:
            _trend(answer.plan, result, key, w)
    elif isinstance(result, ListingResult) and result.rows:
        transactions_table(result.rows, key=key, file_name="transactions.csv", language=w.code)
    show_chart_summaries(answer, key)
