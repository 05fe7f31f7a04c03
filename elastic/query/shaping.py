"""Raw per-cell numbers from either backend → the result shapes, so both agree to the cent."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from decimal import Decimal

from elastic.model.calendar import bucket_starts
from elastic.model.plan import Direction, IntentPlan
from elastic.model.results import (
    AggregateResult,
    Bucket,
    CellStats,
    Group,
    TrendResult,
    metric_value,
)

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
