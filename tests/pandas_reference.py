"""An independent pandas implementation of the semantics (docs/ARCHITECTURE.md).

It reads the sample CSV directly and shares no code with the backends' query paths.
"""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise
from pathlib import Path

import pandas as pd

from elastic.ingest import payment_kinds
from elastic.model.plan import (
    Change,
    CompareSide,
    Direction,
    GroupBy,
    IntentPlan,
    Interval,
    Metric,
    Peak,
    ShareOf,
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
    if which in (Metric.count, Metric.distinct):
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


DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


def aggregate(frame: pd.DataFrame, plan: IntentPlan) -> dict:
    """The figure and its groups; days of the week (every one, also without rows) in their
    order; a distinct count is the number of groups with rows, each group with its sum."""
    rows = select(frame, plan)
    out = {"value": metric(rows, plan.metric), "count": len(rows), "groups": []}
    if plan.group_by is None:
        return out
    per_group = Metric.sum if plan.metric in (Metric.distinct, Metric.median) else plan.metric
    weekdays = pd.to_datetime(rows["day"]).dt.dayofweek
    if plan.group_by in (GroupBy.weekday, GroupBy.weekend):
        if plan.group_by is GroupBy.weekday:
            keys, column = DAYS, weekdays.map(lambda d: DAYS[d])
        else:
            keys, column = (
                ["weekday", "weekend"],
                weekdays.map(lambda d: "weekend" if d >= 5 else "weekday"),
            )
        out["groups"] = [
            (key, metric(rows[column == key], per_group), int((column == key).sum()))
            for key in keys
        ]
        if plan.metric is Metric.distinct:
            out["groups"] = [group for group in out["groups"] if group[2]]
            out["value"] = Decimal(len(out["groups"]))
        return out
    column = {
        GroupBy.category: rows["category"],
        GroupBy.merchant: rows["merchant"],
        GroupBy.account: rows["account_name"],
        GroupBy.month: rows["day"].map(_month_key),
        GroupBy.currency: rows["currency"],
    }[plan.group_by]
    groups = [(key, metric(part, per_group), len(part)) for key, part in rows.groupby(column)]
    groups.sort(key=lambda g: (-(g[1] if g[1] is not None else Decimal("-Infinity")), g[0]))
    out["groups"] = groups
    if plan.metric is Metric.distinct:
        out["value"] = Decimal(len(groups))
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


# --- the kinds of question beyond totals ---------------------------------------------------------


def _sum(rows: pd.DataFrame) -> Decimal:
    return (Decimal(int(rows["directed"].sum())) / 100).quantize(CENT)


def share(frame: pd.DataFrame, plan: IntentPlan) -> dict:
    """The plan's sum and its whole: without its subject, or income of the same accounts,
    period and currency; the share in percent to one decimal."""
    part = select(frame, plan)
    if plan.share_of is ShareOf.income:
        whole_plan = IntentPlan(
            intent="aggregate", direction=Direction.in_, accounts=plan.accounts,
            date_from=plan.date_from, date_to=plan.date_to, currency=plan.currency,
        )  # fmt: skip
    else:
        whole_plan = plan.model_copy(
            update={"categories": [], "merchants": [], "text": None, "payment_kinds": []}
        )
    whole = select(frame, whole_plan)
    part_value, whole_value = _sum(part), _sum(whole)
    pct = None
    if whole_value > 0:
        pct = (100 * part_value / whole_value).quantize(Decimal("0.1"), ROUND_HALF_UP)
    return {
        "part": (part_value, len(part)),
        "whole": (whole_value, len(whole)),
        "pct": pct,
    }


def peak(frame: pd.DataFrame, plan: IntentPlan) -> tuple[str, Decimal, int, int] | None:
    """The first interval with the highest (or lowest) value among those with rows, and how
    many others share its value."""
    series = [b for b in trend(frame, plan) if b[2] > 0]
    if not series:
        return None
    values = [b[1] for b in series]
    best = max(values) if plan.peak is Peak.highest else min(values)
    first = next(b for b in series if b[1] == best)
    return first[0], first[1], first[2], values.count(best) - 1


def changes(frame: pd.DataFrame, plan: IntentPlan) -> list[tuple]:
    """Per group, its figure in each of the two periods (0 without rows), ordered as the plan
    asks: biggest rises, biggest falls, or biggest changes either way; ties by name."""
    first_plan, last_plan = (side(plan, compared) for compared in plan.compare)
    first = {key: (value, count) for key, value, count in aggregate(frame, first_plan)["groups"]}
    last = {key: (value, count) for key, value, count in aggregate(frame, last_plan)["groups"]}
    zero = Decimal(0) if plan.metric is Metric.count else Decimal("0.00")
    rows = []
    for key in sorted(set(first) | set(last)):
        a, a_count = first.get(key, (zero, 0))
        b, b_count = last.get(key, (zero, 0))
        rows.append((key, a, b, a_count, b_count))
    if plan.change is Change.grew:
        order = lambda r: (-(r[2] - r[1]), r[0])  # noqa: E731
    elif plan.change is Change.shrank:
        order = lambda r: (r[2] - r[1], r[0])  # noqa: E731
    else:
        order = lambda r: (-abs(r[2] - r[1]), r[0])  # noqa: E731
    return sorted(rows, key=order)[: plan.top]


def balances(frame: pd.DataFrame, plan: IntentPlan) -> dict[str, list[tuple[date, Decimal]]]:
    """Per account, the balance at the end of each day of the plan's period, from the CSV's
    running balance: the balance after the day's last row in the file, carried over days
    without rows, and before the first row (from the end of the month before) the first
    balance less its amount."""
    found: dict[str, list[tuple[date, Decimal]]] = {}
    for account, rows in frame.groupby("account_name"):
        if plan.accounts and account not in plan.accounts:
            continue
        ordered = rows.sort_values("transaction_id", kind="mergesort")
        end_of_day = {
            day: Decimal(part["balance"].iloc[-1]) for day, part in ordered.groupby("day")
        }
        first_row = ordered.iloc[0]
        # The sample's statements are whole months: the first one's opening balance is the
        # balance at the end of the day before its month.
        start = first_row["day"].replace(day=1) - pd.Timedelta(days=1)
        balance = Decimal(first_row["balance"]) - Decimal(first_row["amount"])
        days = pd.date_range(start, max(end_of_day), freq="D").date
        series = []
        for day in days:
            balance = end_of_day.get(day, balance)
            if (plan.date_from is None or day >= plan.date_from) and (
                plan.date_to is None or day <= plan.date_to
            ):
                series.append((day, balance))
        found[str(account)] = series
    return found


def _charges(frame: pd.DataFrame, plan: IntentPlan) -> pd.DataFrame:
    """Money out (transfers left out) of the plan's filters over all dates: charges a
    merchant made, not cash taken out nor the bank's own fees and interest."""
    rows = select(
        frame,
        plan.model_copy(update={"date_from": None, "date_to": None, "direction": Direction.out}),
    )
    own = rows["merchant"] == rows["bank_name"]
    cash = rows["payment_kind"].isin(["atm", "fee", "interest"])
    return rows[~own & ~cash].sort_values(["day", "transaction_id"], kind="mergesort")


def _in_period(plan: IntentPlan, day: date) -> bool:
    return (plan.date_from is None or day >= plan.date_from) and (
        plan.date_to is None or day <= plan.date_to
    )


_CADENCES = [  # (name, every, days, tolerance, per month)
    ("week", 1, Decimal(7), 1, Decimal(52) / 12),
    ("week", 2, Decimal(14), 3, Decimal(26) / 12),
    ("month", 1, Decimal("30.44"), 4, Decimal(1)),
    ("quarter", 1, Decimal("91.31"), 10, Decimal(1) / 3),
    ("year", 1, Decimal("365.25"), 15, Decimal(1) / 12),
]


def recurring(frame: pd.DataFrame, plan: IntentPlan, data_end: date) -> list[dict]:
    """Each merchant's charges that keep a cadence (three at least, three quarters of the
    gaps within a few days of it) with similar amounts (a few runs of one price, or within a
    quarter of their median); active first, then by monthly cost."""
    found = []
    for merchant, rows in _charges(frame, plan).groupby("merchant"):
        if len(rows) < 3 or not any(_in_period(plan, d) for d in rows["day"]):
            continue
        days = pd.to_datetime(rows["day"])
        gaps = days.diff().dt.days.dropna().astype(int).tolist()
        typical = Decimal(str(pd.Series(gaps).median()))
        name, every, length, tolerance, per_month = min(
            _CADENCES, key=lambda c: abs(c[2] - typical)
        )
        kept = sum(1 for g in gaps if abs(g - length) <= tolerance)
        if kept < Decimal("0.75") * len(gaps):
            continue
        amounts = [abs(Decimal(a)) for a in rows["amount"]]
        runs = 1 + sum(1 for a, b in pairwise(amounts) if a != b)
        fixed = runs <= max(2, len(amounts) // 3)
        middle = Decimal(str(pd.Series([float(a) for a in amounts]).median()))
        if not fixed and any(abs(a - middle) > Decimal("0.25") * middle for a in amounts):
            continue
        changes_at = []
        if fixed:
            for i in range(1, len(amounts)):
                kept_after = i + 1 == len(amounts) or amounts[i + 1] == amounts[i]
                if amounts[i] != amounts[i - 1] and kept_after:
                    changes_at.append((rows["day"].iloc[i], amounts[i - 1], amounts[i]))
        last = rows["day"].iloc[-1]
        due = last + pd.Timedelta(days=int(length) + tolerance)
        found.append(
            {
                "merchant": merchant,
                "cadence": (name, every),
                "amount": amounts[-1],
                "monthly": (amounts[-1] * per_month).quantize(CENT, ROUND_HALF_UP),
                "first": rows["day"].iloc[0],
                "last": last,
                "count": len(rows),
                "active": data_end <= due,
                "price_changes": changes_at,
            }
        )
    return sorted(found, key=lambda s: (not s["active"], -s["monthly"], s["merchant"]))


def doubles(frame: pd.DataFrame, plan: IntentPlan) -> list[tuple[str, Decimal, list[str]]]:
    """The same merchant and amount again within three days (chained), in the period."""
    found = []
    rows = _charges(frame, plan)
    for _, same in rows.groupby(["merchant", "cents"]):
        cluster: list = []
        for _, row in same.iterrows():
            if cluster and (row["day"] - cluster[-1]["day"]).days > 3:
                found.append(cluster)
                cluster = []
            cluster.append(row)
        found.append(cluster)
    kept = [c for c in found if len(c) >= 2 and any(_in_period(plan, r["day"]) for r in c)]
    return sorted(
        (
            (c[0]["merchant"], abs(Decimal(c[0]["amount"])), [r["transaction_id"] for r in c])
            for c in kept
        ),
        key=lambda d: (
            -max(frame.loc[frame["transaction_id"].isin(d[2]), "day"]).toordinal(),
            d[0],
            d[1],
        ),
    )


def high_charges(frame: pd.DataFrame, plan: IntentPlan) -> list[tuple[str, Decimal]]:
    """Charges at least three times the median of the merchant's other charges (more than
    five of them), in the period: (transaction id, that median)."""
    found = []
    for _, rows in _charges(frame, plan).groupby("merchant"):
        if len(rows) <= 5:
            continue
        amounts = rows["cents"].abs().tolist()
        for i, (_, row) in enumerate(rows.iterrows()):
            others = amounts[:i] + amounts[i + 1 :]
            usual = (Decimal(str(pd.Series(others).median())) / 100).quantize(CENT, ROUND_HALF_UP)
            if _in_period(plan, row["day"]) and abs(Decimal(row["amount"])) >= 3 * usual:
                found.append((row["transaction_id"], usual))
    return found


def basis(frame: pd.DataFrame, plan: IntentPlan) -> dict:
    """What the plan counts, and what it leaves out: transfers, the other direction, other
    currencies."""
    relaxed = select(frame, plan.model_copy(update={"direction": Direction.any, "currency": None}))
    counted = select(frame, plan)
    transfer = relaxed["category"] == "Transfers"
    signs = {
        Direction.out: relaxed["cents"] < 0,
        Direction.in_: relaxed["cents"] > 0,
        Direction.net: relaxed["cents"] != 0,
        Direction.any: relaxed["cents"] != 0,
    }[plan.direction]
    asked_currency = relaxed["currency"] == plan.currency if plan.currency else True
    excluded = transfer & plan.excludes_transfers
    opposite = {
        Direction.out: relaxed["cents"] > 0,
        Direction.in_: relaxed["cents"] < 0,
    }.get(plan.direction, relaxed["cents"] != relaxed["cents"])
    other_currencies = (
        relaxed[signs & ~excluded & ~asked_currency] if plan.currency else relaxed[:0]
    )
    return {
        "counted": len(counted[counted["cents"] != 0]),
        "transfers": int((signs & excluded & asked_currency).sum()),
        "other_direction": int((opposite & ~transfer & asked_currency).sum()),
        "other_currencies": other_currencies["currency"].value_counts().to_dict(),
    }
