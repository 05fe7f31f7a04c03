"""Recurring charges, double charges and charges far above a merchant's usual, found in rows.

Written once above both engines: the rows come from the query spec's paged search (the same on
Elasticsearch, SQLite and the columnar cache), and everything here is plain arithmetic on them.

- A recurring series is one merchant's charges in one currency at a regular cadence (weekly,
  every two weeks, monthly, quarterly, yearly: most gaps between charges within a few days of
  it) with similar amounts: the same amount in a few runs (a price that changes now and then),
  or amounts within a quarter of their median (a bill with taxes). It needs three charges. It
  is active when its next charge is not yet overdue at the end of the user's data.
- A double charge is the same merchant and amount charged again within ``DOUBLE_DAYS`` days.
  Weekly and slower series never repeat that fast, so a double charge is never a series' next
  charge; a series charged twice the same week is one.
- A charge is far above the merchant's usual when it is at least ``HIGH_TIMES`` the median of
  the merchant's other charges, of which there are at least ``HIGH_HISTORY``.

Cash taken out and the bank's own charges (fees and interest the bank books on its own
account, by its tariff, item by item) are never double or unusual charges.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise
from statistics import median

from elastic.model.plan import Anomaly, Direction, IntentPlan, Interval, PaymentKind
from elastic.model.records import Transaction
from elastic.model.results import (
    CENT,
    AnomalyResult,
    DoubleCharge,
    HighCharge,
    PriceChange,
    RecurringResult,
    RecurringSeries,
)

MIN_CHARGES = 3
REGULAR_SHARE = Decimal("0.75")  # of the gaps within the cadence's tolerance
SIMILAR = Decimal("0.25")  # amounts within this share of their median: similar
DOUBLE_DAYS = 3
HIGH_TIMES = 3
HIGH_HISTORY = 5
NOT_CHARGES = frozenset({PaymentKind.atm.value, PaymentKind.fee.value, PaymentKind.interest.value})


@dataclass(frozen=True)
class Cadence:
    interval: Interval
    every: int
    days: Decimal  # the gap between charges
    tolerance: int  # days either side
    per_month: Decimal  # charges per month


CADENCES = (
    Cadence(Interval.week, 1, Decimal(7), 1, Decimal(52) / 12),
    Cadence(Interval.week, 2, Decimal(14), 3, Decimal(26) / 12),
    Cadence(Interval.month, 1, Decimal("30.44"), 4, Decimal(1)),
    Cadence(Interval.quarter, 1, Decimal("91.31"), 10, Decimal(1) / 3),
    Cadence(Interval.year, 1, Decimal("365.25"), 15, Decimal(1) / 12),
)


def _merchant(row: Transaction) -> str:
    return row.merchant or row.description


def is_charge(row: Transaction) -> bool:
    """A charge a merchant made: not cash taken out, not the bank's own fees and interest."""
    own = bool(row.merchant) and row.merchant == row.bank_name
    return not own and row.payment_kind not in NOT_CHARGES


def _cadence(gaps: Sequence[int]) -> Cadence | None:
    """The cadence most gaps keep to, within its tolerance; None when they keep to none."""
    typical = Decimal(median(gaps))
    cadence = min(CADENCES, key=lambda c: abs(c.days - typical))
    kept = sum(1 for gap in gaps if abs(gap - cadence.days) <= cadence.tolerance)
    return cadence if kept >= REGULAR_SHARE * len(gaps) else None


def _price_changes(rows: Sequence[Transaction]) -> list[PriceChange] | None:
    """The changes of a fixed price (a new amount that the next charge keeps), or None when
    the amounts are not a few runs of one amount each."""
    amounts = [abs(row.amount) for row in rows]
    runs = 1 + sum(1 for a, b in pairwise(amounts) if a != b)
    if runs > max(2, len(rows) // 3):
        return None
    changes = []
    for at in range(1, len(rows)):
        before, after = amounts[at - 1], amounts[at]
        kept = at + 1 == len(rows) or amounts[at + 1] == after
        if before != after and kept:
            changes.append(PriceChange(rows[at].date, before, after))
    return changes


def _similar(rows: Sequence[Transaction]) -> bool:
    amounts = [abs(row.amount) for row in rows]
    middle = Decimal(median(amounts))
    return all(abs(a - middle) <= SIMILAR * middle for a in amounts)


def series_of(rows: Sequence[Transaction], data_end: date | None) -> RecurringSeries | None:
    """The recurring series one merchant's charges in one currency form, oldest first."""
    if len(rows) < MIN_CHARGES:
        return None
    gaps = [(b.date - a.date).days for a, b in pairwise(rows)]
    cadence = _cadence(gaps)
    if cadence is None:
        return None
    changes = _price_changes(rows)
    if changes is None and not _similar(rows):
        return None
    last = rows[-1]
    amount = abs(last.amount)
    due = last.date + timedelta(days=int(cadence.days) + cadence.tolerance)
    return RecurringSeries(
        merchant=_merchant(last),
        currency=last.currency,
        cadence=cadence.interval,
        every=cadence.every,
        amount=amount,
        monthly=(amount * cadence.per_month).quantize(CENT, ROUND_HALF_UP),
        first=rows[0].date,
        last=last.date,
        count=len(rows),
        active=data_end is None or data_end <= due,
        fixed=changes is not None,
        price_changes=changes or [],
        accounts=sorted({row.account_name for row in rows}),
        transaction_ids=[row.transaction_id for row in rows],
    )


def _by_merchant(rows: Iterable[Transaction]) -> dict[tuple[str, str], list[Transaction]]:
    groups: dict[tuple[str, str], list[Transaction]] = defaultdict(list)
    for row in rows:
        groups[(_merchant(row), row.currency)].append(row)
    for group in groups.values():
        group.sort(key=lambda r: (r.date, r.transaction_id))
    return groups


def in_period(plan: IntentPlan, day: date) -> bool:
    return (plan.date_from is None or day >= plan.date_from) and (
        plan.date_to is None or day <= plan.date_to
    )


def recurring(
    plan: IntentPlan, rows: Sequence[Transaction], data_end: date | None
) -> RecurringResult:
    """The recurring series among ``rows`` (read without the plan's period) that have a
    charge in the period; active first, then by what they cost per month."""
    found = []
    for group in _by_merchant(r for r in rows if is_charge(r)).values():
        series = series_of(group, data_end)
        if series is None:
            continue
        if any(in_period(plan, row.date) for row in group):
            found.append(series)
    found.sort(key=lambda s: (not s.active, -s.monthly, s.merchant, s.currency))
    monthly: dict[str, Decimal] = {}
    for series in found:
        if series.active:
            monthly[series.currency] = monthly.get(series.currency, Decimal(0)) + series.monthly
    return RecurringResult(
        direction=plan.direction,
        series=found,
        monthly=dict(sorted(monthly.items())),
        data_end=data_end,
        rows=len(rows),
    )


def doubles(plan: IntentPlan, rows: Sequence[Transaction]) -> list[DoubleCharge]:
    """The same merchant and amount charged again within ``DOUBLE_DAYS`` days, in the
    plan's period, newest first."""
    found = []
    for (merchant, currency), group in _by_merchant(r for r in rows if is_charge(r)).items():
        by_amount: dict[int, list[Transaction]] = defaultdict(list)
        for row in group:
            by_amount[row.amount_cents].append(row)
        for cents, same in by_amount.items():
            cluster: list[Transaction] = []
            for row in same:  # oldest first
                if cluster and (row.date - cluster[-1].date).days > DOUBLE_DAYS:
                    _keep(found, plan, merchant, currency, cents, cluster)
                    cluster = []
                cluster.append(row)
            _keep(found, plan, merchant, currency, cents, cluster)
    found.sort(key=lambda d: (-d.rows[-1].date.toordinal(), d.merchant, d.amount))
    return found


def _keep(
    found: list[DoubleCharge],
    plan: IntentPlan,
    merchant: str,
    currency: str,
    cents: int,
    cluster: list[Transaction],
) -> None:
    if len(cluster) >= 2 and any(in_period(plan, row.date) for row in cluster):
        amount = abs(Decimal(cents) / 100).quantize(CENT)
        found.append(DoubleCharge(merchant, amount, currency, list(cluster)))


def high_charges(plan: IntentPlan, rows: Sequence[Transaction]) -> list[HighCharge]:
    """Charges in the plan's period at least ``HIGH_TIMES`` the median of the merchant's
    other charges, largest first."""
    found = []
    for group in _by_merchant(r for r in rows if is_charge(r)).values():
        if len(group) <= HIGH_HISTORY:
            continue
        for at, row in enumerate(group):
            if not in_period(plan, row.date):
                continue
            others = [abs(r.amount) for i, r in enumerate(group) if i != at]
            usual = Decimal(median(others)).quantize(CENT, ROUND_HALF_UP)
            if usual > 0 and abs(row.amount) >= HIGH_TIMES * usual:
                found.append(HighCharge(row, usual, len(others)))
    found.sort(key=lambda h: (-abs(h.row.amount), h.row.date, h.row.transaction_id))
    return found


def anomalies(plan: IntentPlan, rows: Sequence[Transaction]) -> AnomalyResult:
    """Double charges, charges far above usual, or both, as ``plan.anomaly`` asks."""
    kind = plan.anomaly or Anomaly.any
    return AnomalyResult(
        doubles=doubles(plan, rows) if kind in (Anomaly.double, Anomaly.any) else [],
        high=high_charges(plan, rows) if kind in (Anomaly.high, Anomaly.any) else [],
        rows=len(rows),
    )


def reading_plan(plan: IntentPlan) -> IntentPlan:
    """The rows a search for series or unusual charges reads: the plan's filters without its
    period (a series or a merchant's usual amount is seen over all of its charges), money out
    unless money in is asked, and no more than the rows (no limit, no order)."""
    direction = Direction.in_ if plan.direction is Direction.in_ else Direction.out
    return plan.model_copy(
        update={
            "date_from": None,
            "date_to": None,
            "direction": direction,
            "recurring": False,
            "anomaly": None,
        }
    )
