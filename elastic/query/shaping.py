"""Raw per-cell numbers from either backend → the result shapes, so both agree to the cent."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from elastic.model.calendar import bucket_starts
from elastic.model.plan import Direction, GroupBy, IntentPlan, Metric
from elastic.model.results import (
    CENT,
    AggregateResult,
    Bucket,
    CellStats,
    Group,
    TrendResult,
    metric_value,
)

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKEND = ("weekday", "weekend")

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


def merged(a: CellStats, b: CellStats) -> CellStats:
    """Two cells as one: counts and totals added, the smaller smallest and larger largest."""
    lows = [v for v in (a.min_cents, b.min_cents) if v is not None]
    highs = [v for v in (a.max_cents, b.max_cents) if v is not None]
    return CellStats(
        a.count + b.count,
        a.total_cents + b.total_cents,
        min(lows) if lows else None,
        max(highs) if highs else None,
    )


def _weekday(day: date) -> str:
    return WEEKDAYS[day.weekday()]


def _weekend(day: date) -> str:
    return WEEKEND[day.weekday() >= 5]


# Day buckets folded into the groups people name: the day of the week, weekday or weekend.
DAY_GROUPS: dict[GroupBy, tuple[Callable[[date], str], tuple[str, ...]]] = {
    GroupBy.weekday: (_weekday, WEEKDAYS),
    GroupBy.weekend: (_weekend, WEEKEND),
}


def fold_days(group_by: GroupBy, days: Mapping[date, CellStats]) -> dict[str, CellStats]:
    """Cells of days folded into the groups of ``group_by``: every weekday (or both kinds of
    day) is a group, also without rows, so "no spending on Sundays" shows as 0."""
    key_of, keys = DAY_GROUPS[group_by]
    folded = dict.fromkeys(keys, CellStats(0, 0, None, None))
    for day, stats in days.items():
        key = key_of(day)
        folded[key] = merged(folded[key], stats)
    return folded


def median_cents(values: Mapping[int, int], direction: Direction, total: int) -> Decimal | None:
    """The median of directed amounts from each distinct amount in cents and its count;
    none without rows, or when ``values`` does not hold all ``total`` rows."""
    if not values or sum(values.values()) != total:
        return None
    sign = -1 if direction is Direction.out else 1
    ordered = sorted((sign * cents, count) for cents, count in values.items())
    middle = {(total - 1) // 2, total // 2}
    picked: list[int] = []
    seen = 0
    for cents, count in ordered:
        picked += [cents for at in middle if seen <= at < seen + count]
        seen += count
    return (Decimal(sum(picked)) / len(picked) / 100).quantize(CENT, ROUND_HALF_UP)


def aggregate_result(
    plan: IntentPlan, overall: CellStats, groups: Mapping[str, CellStats], currency: str
) -> AggregateResult:
    """A distinct count is how many groups there are (each group with its total); a median's
    value is set by the caller, from the distinct amounts."""
    per_group = Metric.sum if plan.metric in (Metric.distinct, Metric.median) else plan.metric
    shaped = [Group(key, metric_value(per_group, s), s.count) for key, s in groups.items()]
    value = None
    if plan.metric is Metric.distinct:
        value = Decimal(sum(1 for s in groups.values() if s.count))
    elif plan.metric is not Metric.median:
        value = metric_value(plan.metric, overall)
    ordered = sorted(shaped, key=_group_sort_key)
    if plan.group_by in DAY_GROUPS:
        order = DAY_GROUPS[plan.group_by][1]
        ordered = sorted(shaped, key=lambda g: order.index(g.key))
    return AggregateResult(
        metric=plan.metric,
        direction=plan.direction,
        value=value,
        count=overall.count,
        currency=currency,
        groups=[g for g in ordered if g.count] if plan.metric is Metric.distinct else ordered,
    )


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
