"""A grid of plans over the sample data: every metric, grouping, interval, order and filter.

Between them the plans use every filter node of ``elastic.query.spec`` (equality, membership,
ranges, substring, negation, conjunction), top N groups, and trends whose asked range holds
empty buckets.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from itertools import product

from elastic.model.plan import (
    Direction,
    GroupBy,
    Intent,
    IntentPlan,
    Interval,
    Metric,
    PaymentKind,
    SortOrder,
)

RANGES = [
    (None, None),
    (date(2024, 1, 1), date(2024, 12, 31)),
    (date(2025, 3, 1), date(2025, 3, 31)),
    (date(2024, 6, 15), date(2024, 9, 10)),
]
FILTERS: list[dict[str, object]] = [
    {},
    {"categories": ["Groceries"]},
    {"categories": ["Dining", "Travel"]},
    {"accounts": ["Platinum Card"]},
    {"merchants": ["Starbucks"]},
    {"min_amount": Decimal("100.00")},
    {"max_amount": Decimal("20.00")},
    {"text": "atm"},
    {"categories": ["Transfers"]},
    {"currency": "USD", "merchants": ["Starbucks", "Amazon"]},
    {"payment_kinds": [PaymentKind.atm]},
    {"payment_kinds": [PaymentKind.atm, PaymentKind.transfer], "categories": ["Transfers"]},
]
# Sparse rows over a range wider than the data: the series has empty buckets inside it.
SPARSE: list[dict[str, object]] = [
    {"merchants": ["Starbucks"], "date_from": date(2023, 11, 20), "date_to": date(2024, 3, 10)},
    {"min_amount": Decimal("500.00"), "date_from": date(2024, 5, 1), "date_to": date(2024, 8, 31)},
]


def grid() -> list[IntentPlan]:
    plans: list[IntentPlan] = []
    for (start, end), metric, group in product(RANGES, Metric, [None, *GroupBy]):
        plans.append(
            IntentPlan(
                intent=Intent.aggregate,
                date_from=start,
                date_to=end,
                metric=metric,
                group_by=group,
            )
        )
    for filters, direction in product(FILTERS, [Direction.out, Direction.in_, Direction.net]):
        plans.append(IntentPlan(intent=Intent.aggregate, direction=direction, **filters))
    for (start, end), interval in product(RANGES, Interval):
        if interval is Interval.day and start is None:
            continue
        plans.append(
            IntentPlan(intent=Intent.trend, date_from=start, date_to=end, interval=interval)
        )
    for group, metric, top in product(
        [GroupBy.category, GroupBy.merchant], [Metric.sum, Metric.count, Metric.max], [1, 3]
    ):
        plans.append(IntentPlan(intent=Intent.aggregate, group_by=group, metric=metric, top=top))
    for sparse, interval in product(SPARSE, [Interval.day, Interval.week, Interval.month]):
        plans.append(IntentPlan(intent=Intent.trend, interval=interval, **sparse))
        plans.append(
            IntentPlan(intent=Intent.trend, interval=interval, split_by_category=True, **sparse)
        )
    for filters in FILTERS:
        plans.append(IntentPlan(intent=Intent.trend, split_by_category=True, **filters))
        plans.append(IntentPlan(intent=Intent.trend, metric=Metric.count, **filters))
    for (start, end), order, filters in product(RANGES[:3], SortOrder, FILTERS[:5]):
        plans.append(
            IntentPlan(
                intent=Intent.listing,
                date_from=start,
                date_to=end,
                sort=order,
                limit=7,
                direction=Direction.any,
                **filters,
            )
        )
    return plans
