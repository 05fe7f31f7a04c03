"""Raw per-cell numbers from either backend → the result shapes, so both agree to the cent."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from decimal import Decimal

from dateutil.relativedelta import relativedelta

from elastic.results import (
    AggregateResult,
    Bucket,
    CellStats,
    Group,
    TrendResult,
    metric_value,
)
from llm.intent_plan import Direction, IntentPlan, Interval

MIXED_CURRENCY = "mixed"


def directed_stats(
    direction: Direction, count: int, sum_cents: int, min_cents: int | None, max_cents: int | None
) -> CellStats:
    """Stats of signed amounts → stats of the asked direction (spend is positive)."""
    if direction is Direction.out:
        return CellStats(
            count,
            -sum_cents,
            None if max_cents is None else -max_cents,
            None if min_cents is None else -min_cents,
        )
    return CellStats(count, sum_cents, min_cents, max_cents)


def currency_of(currencies: Iterable[str], default: str) -> str:
    found = sorted(set(currencies))
    if not found:
        return default
    return found[0] if len(found) == 1 else MIXED_CURRENCY


def _group_sort_key(group: Group) -> tuple[Decimal, str]:
    return (-(group.value if group.value is not None else Decimal("-Infinity")), group.key)


def aggregate_result(
    plan: IntentPlan, overall: CellStats, groups: Mapping[str, CellStats], currency: str
) -> AggregateResult:
    shaped = [Group(key, metric_value(plan.metric, s), s.count) for key, s in groups.items()]
    return AggregateResult(
        metric=plan.metric,
        direction=plan.direction,
        value=metric_value(plan.metric, overall),
        count=overall.count,
        currency=currency,
        groups=sorted(shaped, key=_group_sort_key),
    )


def bucket_start(day: date, interval: Interval) -> date:
    """The calendar bucket a day falls in, labelled by its first day (weeks start Monday)."""
    if interval is Interval.day:
        return day
    if interval is Interval.week:
        return day - timedelta(days=day.weekday())
    if interval is Interval.month:
        return day.replace(day=1)
    if interval is Interval.quarter:
        return date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    return date(day.year, 1, 1)


_STEP = {
    Interval.day: relativedelta(days=1),
    Interval.week: relativedelta(weeks=1),
    Interval.month: relativedelta(months=1),
    Interval.quarter: relativedelta(months=3),
    Interval.year: relativedelta(years=1),
}


def shift(start: date, interval: Interval, n: int) -> date:
    """``start`` moved by ``n`` calendar intervals (negative: back in time)."""
    return start + _STEP[interval] * n


def bucket_starts(first: date, last: date, interval: Interval) -> list[date]:
    current, end = bucket_start(first, interval), bucket_start(last, interval)
    starts = []
    while current <= end:
        starts.append(current)
        current = shift(current, interval, 1)
    return starts


def _series(plan: IntentPlan, starts: list[date], found: Mapping[date, CellStats]) -> list[Bucket]:
    empty = CellStats(0, 0, None, None)
    series = []
    for start in starts:
        stats = found.get(start, empty)
        value = metric_value(plan.metric, stats)
        series.append(Bucket(start, value if value is not None else Decimal("0.00"), stats.count))
    return series


def trend_result(
    plan: IntentPlan,
    found: Mapping[date, CellStats],
    splits: Mapping[str, Mapping[date, CellStats]],
    currency: str,
) -> TrendResult:
    """Zero-filled series across the asked range, or across the data when no range was asked."""
    first = plan.date_from or (min(found) if found else None)
    last = plan.date_to or (max(found) if found else None)
    starts = bucket_starts(first, last, plan.interval) if first and last else []
    return TrendResult(
        interval=plan.interval,
        direction=plan.direction,
        currency=currency,
        series=_series(plan, starts, found),
        splits={key: _series(plan, starts, cells) for key, cells in sorted(splits.items())},
    )
