"""An independent pandas implementation of the semantics (docs/ARCHITECTURE.md).

It reads the sample CSV directly and shares no code with the backends' query paths.
"""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pandas as pd

from elastic.ingest import payment_kinds
from elastic.model.plan import (
    CompareSide,
    Direction,
    GroupBy,
    IntentPlan,
    Interval,
    Metric,
    SortOrder,
)

CENT = Decimal("0.01")


def load(csv_path: Path) -> pd.DataFrame:
    frame = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    frame["day"] = pd.to_datetime(frame["date"]).dt.date
    frame["cents"] = frame["amount"].map(lambda a: int(Decimal(a) * 100))
    # How the money moved, as the descriptor names it: the reference checks the engines'
    # filtering on it, not the reading of descriptors (tests/test_bank_csv.py does that).
    frame["payment_kind"] = frame["description"].map(lambda d: payment_kinds.from_text(d) or "")
    return frame


def select(frame: pd.DataFrame, plan: IntentPlan) -> pd.DataFrame:
    keep = pd.Series(True, index=frame.index)
    if plan.date_from:
        keep &= frame["day"] >= plan.date_from
    if plan.date_to:
        keep &= frame["day"] <= plan.date_to
    if plan.accounts:
        keep &= frame["account_name"].isin(plan.accounts)
    if plan.categories:
        keep &= frame["category"].isin(plan.categories)
    if plan.merchants:
        keep &= frame["merchant"].isin(plan.merchants)
    if plan.currency:
        keep &= frame["currency"] == plan.currency
    if plan.payment_kinds:
        keep &= frame["payment_kind"].isin([kind.value for kind in plan.payment_kinds])
    if plan.direction is Direction.out:
        keep &= frame["cents"] < 0
    elif plan.direction is Direction.in_:
        keep &= frame["cents"] > 0
    asked_for_transfers = "Transfers" in plan.categories or "transfer" in plan.payment_kinds
    if plan.direction is not Direction.any and not asked_for_transfers:
        keep &= frame["category"] != "Transfers"
    magnitude = frame["cents"].abs()
    if plan.min_amount is not None:
        keep &= magnitude >= int(plan.min_amount * 100)
    if plan.max_amount is not None:
        keep &= magnitude <= int(plan.max_amount * 100)
    if plan.text:
        keep &= frame["description"].str.lower().str.contains(plan.text.lower(), regex=False)
    chosen = frame[keep].copy()
    chosen["directed"] = -chosen["cents"] if plan.direction is Direction.out else chosen["cents"]
    return chosen


def metric(rows: pd.DataFrame, which: Metric) -> Decimal | None:
    if which is Metric.count:
        return Decimal(len(rows))
    if rows.empty:
        return Decimal("0.00") if which is Metric.sum else None
    values = [int(v) for v in rows["directed"]]
    if which is Metric.sum:
        return (Decimal(sum(values)) / 100).quantize(CENT)
    if which is Metric.avg:
        return (Decimal(sum(values)) / len(values) / 100).quantize(CENT, ROUND_HALF_UP)
    if which is Metric.median:
        # pandas' median of the directed cents, rounded half up to a cent
        middle = Decimal(str(rows["directed"].astype("int64").median()))
        return (middle / 100).quantize(CENT, ROUND_HALF_UP)
    chosen = min(values) if which is Metric.min else max(values)
    return (Decimal(chosen) / 100).quantize(CENT)


def _month_key(day: date) -> str:
    return day.replace(day=1).isoformat()


def aggregate(frame: pd.DataFrame, plan: IntentPlan) -> dict:
    rows = select(frame, plan)
    out = {"value": metric(rows, plan.metric), "count": len(rows), "groups": []}
    if plan.group_by is not None:
        column = {
            GroupBy.category: rows["category"],
            GroupBy.merchant: rows["merchant"],
            GroupBy.account: rows["account_name"],
            GroupBy.month: rows["day"].map(_month_key),
            GroupBy.currency: rows["currency"],
        }[plan.group_by]
        groups = [(key, metric(part, plan.metric), len(part)) for key, part in rows.groupby(column)]
        groups.sort(key=lambda g: (-(g[1] if g[1] is not None else Decimal("-Infinity")), g[0]))
        out["groups"] = groups
    return out


_FREQ = {
    Interval.day: "D",
    Interval.week: "W-MON",
    Interval.month: "MS",
    Interval.quarter: "QS-JAN",
    Interval.year: "YS",
}


def _start(day: date, interval: Interval) -> date:
    """The first day of the calendar bucket holding ``day`` (weeks start on Monday)."""
    stamp = pd.Timestamp(day)
    if interval is Interval.day:
        return day
    if interval is Interval.week:
        return (stamp - pd.Timedelta(days=stamp.weekday())).date()
    if interval is Interval.month:
        return date(day.year, day.month, 1)
    if interval is Interval.quarter:
        return date(day.year, (day.month - 1) // 3 * 3 + 1, 1)
    return date(day.year, 1, 1)


def trend(
    frame: pd.DataFrame, plan: IntentPlan, category: str | None = None
) -> list[tuple[str, Decimal, int]]:
    """Zero-filled buckets over the asked range (or the data's); ``category`` picks one split."""
    rows = select(frame, plan)
    first = plan.date_from or (rows["day"].min() if not rows.empty else None)
    last = plan.date_to or (rows["day"].max() if not rows.empty else None)
    if first is None or last is None:
        return []
    if category is not None:
        rows = rows[rows["category"] == category]
    keys = rows["day"].map(lambda d: _start(d, plan.interval))
    periods = pd.date_range(
        _start(first, plan.interval), _start(last, plan.interval), freq=_FREQ[plan.interval]
    )
    series = []
    for period in periods:
        part = rows[keys == period.date()]
        value = metric(part, plan.metric)
        series.append(
            (period.date().isoformat(), value if value is not None else Decimal("0.00"), len(part))
        )
    return series


def listing(frame: pd.DataFrame, plan: IntentPlan) -> tuple[list[str], int]:
    rows = select(frame, plan)
    rows["magnitude"] = rows["cents"].abs()
    by, ascending = {
        SortOrder.newest: (["day", "transaction_id"], [False, False]),
        SortOrder.oldest: (["day", "transaction_id"], [True, True]),
        SortOrder.largest: (["magnitude", "day", "transaction_id"], [False, False, False]),
        SortOrder.smallest: (["magnitude", "day", "transaction_id"], [True, False, False]),
    }[plan.sort]
    ordered = rows.sort_values(by=by, ascending=ascending, kind="mergesort")
    return list(ordered["transaction_id"][: plan.limit]), len(rows)


_PERIODS = {
    Interval.day: "D",
    Interval.week: "W-SUN",  # periods ending on Sunday start on Monday
    Interval.month: "M",
    Interval.quarter: "Q",
    Interval.year: "Y",
}


def figure(frame: pd.DataFrame, plan: IntentPlan) -> dict:
    """One aggregate as the answer states it: the average per interval when ``plan.per`` asks
    for one, only the ``top`` groups, and the id of the smallest or largest spend or income."""
    rows = select(frame, plan)
    if plan.per is not None:
        first = plan.date_from or (rows["day"].min() if not rows.empty else None)
        last = plan.date_to or (rows["day"].max() if not rows.empty else None)
        periods = 0
        if first is not None and last is not None:
            periods = len(pd.period_range(first, last, freq=_PERIODS[plan.per]))
        total = Decimal(int(rows["directed"].sum())) / 100
        value = (total / periods).quantize(CENT, ROUND_HALF_UP) if periods else None
        return {"value": value, "count": len(rows), "periods": periods, "extreme": None}
    out = aggregate(frame, plan)
    out["groups"] = out["groups"][: plan.top]
    out["extreme"] = None
    extreme = plan.metric in (Metric.min, Metric.max) and plan.group_by is None
    if extreme and plan.direction in (Direction.out, Direction.in_) and not rows.empty:
        # the smallest or largest directed amount; the newest such row on a tie
        ordered = rows.sort_values(
            ["directed", "day", "transaction_id"],
            ascending=[plan.metric is Metric.min, False, False],
            kind="mergesort",
        )
        out["extreme"] = ordered["transaction_id"].iloc[0]
    return out


def side(plan: IntentPlan, compared: CompareSide) -> IntentPlan:
    """The plan of one side: what the side names replaces the plan's own filter of that kind."""
    update: dict[str, object] = {"compare": []}
    if compared.date_from is not None or compared.date_to is not None:
        update["date_from"], update["date_to"] = compared.date_from, compared.date_to
    for name in ("accounts", "categories", "merchants"):
        if getattr(compared, name):
            update[name] = getattr(compared, name)
    return plan.model_copy(update=update)


def compare(frame: pd.DataFrame, plan: IntentPlan) -> dict:
    """Each side's figure, the last minus the first, and that change in percent of the first."""
    sides = [figure(frame, side(plan, compared)) for compared in plan.compare]
    first, last = sides[0]["value"], sides[-1]["value"]
    difference = None if first is None or last is None else last - first
    change_pct = None
    if difference is not None and first:
        change_pct = (100 * difference / abs(first)).quantize(Decimal("0.1"), ROUND_HALF_UP)
    return {"sides": sides, "difference": difference, "change_pct": change_pct}
