"""Recurring series, double charges and charges far above usual, found in rows as any file may
hold them: cadences kept within a few days, prices that change, bills that vary a little,
series that stopped, and what is never a double or unusual charge (cash, the bank's own fees)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from elastic.model.plan import Anomaly, Intent, IntentPlan, Interval
from elastic.model.records import Transaction
from elastic.query.recurring import anomalies, recurring, series_of

PLAN = IntentPlan(intent=Intent.listing, recurring=True)
_ids = iter(range(10_000))


def _row(
    day: date, amount: str, merchant: str = "Gym", kind: str = "", bank: str = "Birch Bank"
) -> Transaction:
    return Transaction(
        transaction_id=f"r{next(_ids):05d}",
        date=day,
        description=merchant.upper(),
        amount=Decimal(amount),
        currency="EUR",
        category="",
        merchant=merchant,
        account_no="1",
        account_name="Giro",
        bank_name=bank,
        payment_kind=kind,
    )


def _monthly(start: date, amounts: list[str], merchant: str = "Gym", jitter: int = 0):
    return [
        _row(start + timedelta(days=30 * i + (jitter if i % 2 else 0)), amount, merchant)
        for i, amount in enumerate(amounts)
    ]


def test_a_monthly_charge_with_a_price_change() -> None:
    rows = _monthly(date(2024, 1, 3), ["-29.00"] * 5 + ["-34.50"] * 4, jitter=3)
    series = series_of(rows, date(2024, 9, 30))
    assert series is not None
    assert (series.cadence, series.every, series.amount, series.monthly) == (
        Interval.month, 1, Decimal("34.50"), Decimal("34.50"),
    )  # fmt: skip
    assert [(c.before, c.after) for c in series.price_changes] == [
        (Decimal("29.00"), Decimal("34.50"))
    ]
    assert series.price_changes[0].day == rows[5].date and series.active and series.fixed


def test_a_series_that_stopped_and_weekly_and_yearly_ones() -> None:
    rows = _monthly(date(2024, 1, 3), ["-9.99"] * 6)
    stopped = series_of(rows, date(2024, 12, 31))
    assert stopped is not None and not stopped.active
    weekly = [_row(date(2024, 1, 1) + timedelta(days=7 * i), "-5.00", "Box") for i in range(6)]
    found = series_of(weekly, date(2024, 2, 10))
    assert found is not None and found.cadence is Interval.week
    assert found.monthly == (Decimal("5.00") * 52 / 12).quantize(Decimal("0.01"))
    yearly = [_row(date(2021 + i, 3, 1), "-99.00", "Domain") for i in range(3)]
    assert series_of(yearly, date(2024, 1, 1)).cadence is Interval.year  # type: ignore[union-attr]


def test_a_bill_that_varies_a_little_is_a_series_and_a_lot_is_not() -> None:
    phone = _monthly(date(2024, 1, 18), ["-41.10", "-39.80", "-44.25", "-40.00", "-42.60"], "Tel")
    series = series_of(phone, date(2024, 6, 1))
    assert series is not None and not series.fixed and series.price_changes == []
    power = _monthly(date(2024, 1, 8), ["-55.00", "-160.00", "-70.00", "-150.00", "-60.00"])
    assert series_of(power, date(2024, 6, 1)) is None


def test_irregular_visits_are_no_series() -> None:
    days = [1, 3, 4, 9, 17, 18, 26, 40, 41]
    rows = [_row(date(2024, 1, 1) + timedelta(days=d), "-4.50", "Cafe") for d in days]
    assert series_of(rows, date(2024, 3, 1)) is None
    assert recurring(PLAN, rows, date(2024, 3, 1)).series == []


def test_double_charges_are_the_same_amount_again_within_days() -> None:
    day = date(2025, 6, 26)
    rows = [
        _row(day, "-64.37", "Target"),
        _row(day, "-64.37", "Target"),
        _row(day + timedelta(days=1), "-64.37", "Target"),  # a third, the next day
        _row(day + timedelta(days=9), "-64.37", "Target"),  # days later: another purchase
        _row(day, "-35.00", "Birch Bank"),  # the bank's own overdraft fees, by its tariff
        _row(day, "-35.00", "Birch Bank"),
        _row(day, "-60.00", "ATM Main St", kind="atm"),  # cash taken out twice
        _row(day, "-60.00", "ATM Main St", kind="atm"),
    ]
    result = anomalies(IntentPlan(intent=Intent.listing, anomaly=Anomaly.double), rows)
    (double,) = result.doubles
    assert (double.merchant, double.amount, len(double.rows)) == ("Target", Decimal("64.37"), 3)
    assert result.high == [] and result.rows == len(rows)
    later = IntentPlan(intent=Intent.listing, anomaly=Anomaly.double, date_from=date(2025, 7, 1))
    assert anomalies(later, rows).doubles == []  # none in the period asked


def test_a_charge_far_above_the_merchants_usual() -> None:
    rides = [
        _row(date(2025, 1, 1) + timedelta(days=5 * i), f"-{20 + i}.00", "Uber") for i in range(8)
    ]
    rides.append(_row(date(2025, 3, 1), "-184.50", "Uber"))
    result = anomalies(IntentPlan(intent=Intent.listing, anomaly=Anomaly.high), rides)
    (high,) = result.high
    assert high.row.amount == Decimal("-184.50") and high.usual == Decimal("23.50")
    assert high.times == Decimal("7.9") and high.charges == 8
    few = rides[:3] + rides[-1:]  # too few charges to know what is usual
    assert anomalies(IntentPlan(intent=Intent.listing, anomaly=Anomaly.high), few).high == []
