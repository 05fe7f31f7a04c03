"""A grid of plans over the sample data: every metric, grouping, interval, order and filter,
and every kind of question beyond totals.

Between them the plans use every filter node of ``elastic.query.spec`` (equality, membership,
ranges, substring, negation, conjunction), top N groups, and trends whose asked range holds
empty buckets.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from itertools import product

from elastic.model.plan import (
    Anomaly,
    Change,
    CompareSide,
    Direction,
    GroupBy,
    Intent,
    IntentPlan,
    Interval,
    Metric,
    PaymentKind,
    Peak,
    ShareOf,
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


def _valid(metric: Metric, group: GroupBy | None) -> bool:
    """A distinct count counts groups; a median is of all the rows."""
    return (metric is not Metric.distinct or group is not None) and (
        metric is not Metric.median or group is None
    )


def grid() -> list[IntentPlan]:
    plans: list[IntentPlan] = []
    for (start, end), metric, group in product(RANGES, Metric, [None, *GroupBy]):
        if not _valid(metric, group):
            continue
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
    return plans + kinds()


# Periods inside the data: a balance on their days is known from the rows alone.
INSIDE = [
    (date(2024, 2, 1), date(2024, 12, 31)),
    (date(2025, 3, 1), date(2025, 3, 31)),
    (date(2024, 6, 15), date(2024, 6, 15)),
    (date(2025, 6, 30), date(2025, 6, 30)),
]
SUBJECTS: list[dict[str, object]] = [*FILTERS[1:5], {"text": "atm"}]
TWO_PERIODS = [
    [CompareSide(date_from=date(2025, 1, 1), date_to=date(2025, 3, 31)),
     CompareSide(date_from=date(2025, 4, 1), date_to=date(2025, 6, 30))],
    [CompareSide(date_from=date(2024, 1, 1), date_to=date(2024, 12, 31)),
     CompareSide(date_from=date(2025, 1, 1), date_to=date(2025, 12, 31))],
]  # fmt: skip


def kinds() -> list[IntentPlan]:
    """Shares, peaks, the biggest changes, balances, recurring payments, charges to check and
    first and last payments, over the filters and periods above."""
    plans: list[IntentPlan] = []
    for (start, end), subject in product(RANGES, SUBJECTS):
        dates = {"date_from": start, "date_to": end}
        plans.append(
            IntentPlan(intent=Intent.aggregate, share_of=ShareOf.total, **dates, **subject)
        )
        plans.append(
            IntentPlan(intent=Intent.aggregate, share_of=ShareOf.income, **dates, **subject)
        )
    for start, end in RANGES:
        plans.append(
            IntentPlan(
                intent=Intent.aggregate,
                share_of=ShareOf.income,
                direction=Direction.net,
                date_from=start,
                date_to=end,
            )
        )
    for (start, end), interval, peak, filters in product(
        RANGES, [Interval.week, Interval.month, Interval.quarter], Peak, FILTERS[:5]
    ):
        plans.append(
            IntentPlan(
                intent=Intent.trend,
                peak=peak,
                interval=interval,
                date_from=start,
                date_to=end,
                **filters,
            )
        )
    for sides, group, change, metric in product(
        TWO_PERIODS,
        [GroupBy.category, GroupBy.merchant],
        [None, *Change],
        [Metric.sum, Metric.count],
    ):
        plans.append(
            IntentPlan(
                intent=Intent.aggregate,
                compare=sides,
                group_by=group,
                change=change,
                metric=metric,
                top=5 if change else None,
            )
        )
    for (start, end), accounts, metric in product(
        INSIDE, [[], ["Everyday Checking"], ["Platinum Card"]], [Metric.sum, Metric.min, Metric.max]
    ):
        plans.append(
            IntentPlan(
                intent=Intent.aggregate,
                balance=True,
                metric=metric,
                accounts=accounts,
                date_from=start,
                date_to=end,
            )
        )
    for (start, end), interval in product(INSIDE[:2], [Interval.day, Interval.month]):
        plans.append(
            IntentPlan(
                intent=Intent.trend, balance=True, interval=interval, date_from=start, date_to=end
            )
        )
    for (start, end), filters in product(RANGES, [{}, {"categories": ["Subscriptions"]},
                                                  {"accounts": ["Platinum Card"]}]):  # fmt: skip
        for intent in (Intent.listing, Intent.aggregate):
            plans.append(
                IntentPlan(intent=intent, recurring=True, date_from=start, date_to=end, **filters)
            )
    for (start, end), anomaly, filters in product(RANGES, Anomaly, [{}, {"merchants": ["Target"]}]):
        plans.append(
            IntentPlan(
                intent=Intent.listing, anomaly=anomaly, date_from=start, date_to=end, **filters
            )
        )
    for order, filters in product(
        [SortOrder.oldest, SortOrder.newest],
        [{"merchants": ["Netflix"]}, {"categories": ["Housing"]}, {}],
    ):
        plans.append(IntentPlan(intent=Intent.listing, sort=order, limit=1, **filters))
    return plans
