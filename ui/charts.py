"""The chart, metric or table an answer gets, chosen from its plan and result."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
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
from llm.answering.answer import Answer
from llm.answering.insights import RECURRING_COLUMNS
from llm.answering.wording import Wording, wording
from ui.chart_summary import show_chart_summaries
from ui.figures import (
    balance_figure,
    changes_figure,
    compare_figure,
    groups_figure,
    metric_label,
    peak_figure,
    share_figure,
    trend_figure,
)
from ui.frames import csv_bytes
from ui.tables import money_column, transactions_table


def _aggregate_value(result: AggregateResult, w: Wording) -> str:
    if result.metric is Metric.count:
        return w.number(result.count)
    if result.metric is Metric.distinct:
        return w.number(int(result.value or 0))
    return w.money(result.value, result.currency)


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
    value_column = (
        st.column_config.NumberColumn(value_label, format="localized")
        if result.metric is Metric.count
        else money_column(value_label, result.currency)
    )
    _frame_with_csv(frame, {value_label: value_column}, key, "breakdown.csv", w)


def _frame_with_csv(
    frame: pd.DataFrame, config: dict[str, Any], key: str, file_name: str, w: Wording
) -> None:
    """A sortable table and a CSV download of exactly its rows."""
    st.dataframe(frame, hide_index=True, column_config=config, key=key)
    st.download_button(
        w.text("chart.download"),
        data=csv_bytes(frame),
        file_name=file_name,
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
    parts: Sequence[Any],
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


def _share(plan: IntentPlan, result: ShareResult, key: str, w: Wording) -> None:
    value, part, whole = st.columns([1, 1, 1])
    label = w.text("chart.share_label", noun=w.direction_noun(plan.direction))
    shown = w.percent(result.pct) if result.pct is not None else w.text("chart.no_data")
    value.metric(label, shown, border=True)
    part.metric(w.text("column.amount"), w.money(result.part.value, result.currency), border=True)
    whole.metric(w.text("chart.whole"), w.money(result.whole.value, result.currency), border=True)
    if result.pct is not None:
        st.plotly_chart(share_figure(plan, result, w.code), theme="streamlit", key=f"{key}-chart")


def _peak(plan: IntentPlan, result: PeakResult, key: str, w: Wording) -> None:
    if result.trend.series:
        figure = peak_figure(plan, result, w.code)
        st.plotly_chart(figure, theme="streamlit", key=f"{key}-chart")


def _changes(plan: IntentPlan, result: ChangesResult, key: str, w: Wording) -> None:
    if result.rows:
        figure = changes_figure(plan, result, w.code)
        st.plotly_chart(figure, theme="streamlit", key=f"{key}-chart")


def _balances(plan: IntentPlan, result: BalanceResult, key: str, w: Wording) -> None:
    """A line per account over the period, one chart per currency; a balance on one day is
    said in the text, so only periods are drawn."""
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


def _recurring(plan: IntentPlan, result: RecurringResult, key: str, w: Wording) -> None:
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


def _anomalies(plan: IntentPlan, result: AnomalyResult, key: str, w: Wording) -> None:
    rows = [row for double in result.doubles for row in double.rows]
    rows += [high.row for high in result.high]
    if rows:
        transactions_table(rows, key=key, file_name="to-check.csv", language=w.code)


def _listing(plan: IntentPlan, result: ListingResult, key: str, w: Wording) -> None:
    if result.rows:
        transactions_table(result.rows, key=key, file_name="transactions.csv", language=w.code)


def _nothing(plan: IntentPlan, result: object, key: str, w: Wording) -> None:
    """Statement text is quoted in the answer; there is nothing to draw."""


Draw = Callable[[IntentPlan, Any, str, Wording], None]
# How each result type is drawn: one rule per type (tests/test_result_rules.py).
CHARTS: dict[type, Draw] = {
    AggregateResult: _aggregate,
    CompareResult: _compare,
    TrendResult: lambda plan, result, key, w: (
        _trend(plan, result, key, w) if result.series else None
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
def answer_numbers(answer: Answer, key: str) -> None:
    """The numbers behind ``answer`` as metrics, a chart or a table of its rows (the answer's
    tables, drawn from the result). A fragment: a toggle in it (a pie instead of bars) redraws
    this answer's numbers only, not the page."""
    result, w = answer.result, wording(answer.language)
    if result is not None:
        draw = CHARTS[type(result)]
        if parts := getattr(result, "by_currency", None):
            _per_currency(answer.plan, parts, key, draw, w)
        else:
            draw(answer.plan, result, key, w)
    show_chart_summaries(answer, key)
