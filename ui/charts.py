"""The chart, metric or table an answer gets, chosen from its plan and result."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from elastic.model.plan import IntentPlan, Metric
from elastic.model.results import AggregateResult, CompareResult, ListingResult, TrendResult
from llm.answering.answer import Answer
from llm.answering.wording import money
from ui.figures import compare_figure, groups_figure, metric_label, trend_figure
from ui.frames import csv_bytes
from ui.tables import money_column, transactions_table


def _aggregate_value(result: AggregateResult) -> str:
    if result.metric is Metric.count:
        return f"{result.count:,}"
    return money(result.value, result.currency)


def _groups_table(plan: IntentPlan, result: AggregateResult, key: str) -> None:
    header = plan.group_by.value.capitalize() if plan.group_by else "Group"
    value_label = result.metric.value.capitalize()
    frame = pd.DataFrame(
        {
            header: [g.key for g in result.groups],
            value_label: [None if g.value is None else float(g.value) for g in result.groups],
            "Transactions": [g.count for g in result.groups],
        }
    )
    value_column = (
        st.column_config.NumberColumn(value_label, format="localized")
        if result.metric is Metric.count
        else money_column(value_label, result.currency)
    )
    st.dataframe(frame, hide_index=True, column_config={value_label: value_column}, key=key)
    st.download_button(
        "Download CSV",
        data=csv_bytes(frame),
        file_name="breakdown.csv",
        mime="text/csv",
        icon=":material/download:",
        key=f"{key}-csv",
        on_click="ignore",
    )


def _aggregate(plan: IntentPlan, result: AggregateResult, key: str) -> None:
    if result.metric is Metric.count:
        st.metric(metric_label(plan, result), _aggregate_value(result), border=True)
    else:
        value, count = st.columns([2, 1])
        value.metric(metric_label(plan, result), _aggregate_value(result), border=True)
        count.metric("Transactions", f"{result.count:,}", border=True)
    if len(result.groups) < 2:
        return
    as_pie = st.toggle("Show as pie chart", key=f"{key}-pie")
    chart_tab, table_tab = st.tabs(["Chart", "Table"])
    with chart_tab:
        st.plotly_chart(groups_figure(plan, result, as_pie), theme="streamlit", key=f"{key}-chart")
    with table_tab:
        _groups_table(plan, result, f"{key}-groups")


def _trend(plan: IntentPlan, result: TrendResult, key: str) -> None:
    st.plotly_chart(trend_figure(plan, result), theme="streamlit", key=f"{key}-chart")


def _compare(plan: IntentPlan, result: CompareResult, key: str) -> None:
    st.plotly_chart(compare_figure(plan, result), theme="streamlit", key=f"{key}-chart")


def _per_currency(
    plan: IntentPlan,
    parts: Sequence[AggregateResult] | Sequence[TrendResult] | Sequence[CompareResult],
    key: str,
    draw: Callable[[IntentPlan, Any, str], None],
) -> None:
    """One metric or chart per currency, labelled: amounts in different currencies are never
    drawn on one axis."""
    for part in parts:
        st.caption(f"In {part.currency}")
        draw(plan.model_copy(update={"currency": part.currency}), part, f"{key}-{part.currency}")


@st.fragment
def answer_numbers(answer: Answer, key: str) -> None:
    """The numbers behind ``answer`` as metrics, a chart or a table of its rows (the answer's
    tables, drawn from the result). A fragment: a toggle in it (a pie instead of bars) redraws
    this answer's numbers only, not the page."""
    result = answer.result
    if isinstance(result, AggregateResult):
        if result.by_currency:
            _per_currency(answer.plan, result.by_currency, key, _aggregate)
        else:
            _aggregate(answer.plan, result, key)
    elif isinstance(result, CompareResult):
        if result.by_currency:
            _per_currency(answer.plan, result.by_currency, key, _compare)
        else:
            _compare(answer.plan, result, key)
    elif isinstance(result, TrendResult):
        if result.by_currency:
            _per_currency(answer.plan, result.by_currency, key, _trend)
        elif result.series:
            _trend(answer.plan, result, key)
    elif isinstance(result, ListingResult) and result.rows:
        transactions_table(result.rows, key=key, file_name="transactions.csv")
