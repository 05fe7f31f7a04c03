"""Every aggregate, trend and listing on the sample data equals pandas on the sample CSV."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from elastic.backend import SearchBackend
from elastic.model.plan import Anomaly, Intent, IntentPlan, Metric
from elastic.model.results import (
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    ChangesResult,
    ListingResult,
    PeakResult,
    RecurringResult,
    ShareResult,
    TrendResult,
)
from llm.executor import account_for, execute
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from tests import pandas_reference as ref
from tests.conftest import SAMPLE_USER
from tests.labeled import load_cases, route_case
from tests.plan_grid import grid

PLANS = grid()
DATA_END = date(2025, 6, 30)  # the sample's last day: what "stopped" is judged at


@pytest.fixture(scope="module")
def frame(sample_set: SampleSet) -> pd.DataFrame:
    return ref.load(sample_set.transactions_csv)


def is_kind(plan: IntentPlan) -> bool:
    """A kind of question beyond totals (a share, peak, changes, balances, recurring
    payments, charges to check)."""
    return bool(
        plan.share_of or plan.peak or plan.changes or plan.balance or plan.recurring
        or plan.anomaly
    )  # fmt: skip


def check_kind(backend: SearchBackend, frame: pd.DataFrame, plan: IntentPlan) -> None:
    """A kind of question beyond totals, against pandas."""
    result = execute(backend, SAMPLE_USER, plan)
    if isinstance(result, ShareResult):
        want = ref.share(frame, plan)
        got = {
            "part": (result.part.value, result.part.count),
            "whole": (result.whole.value, result.whole.count),
            "pct": result.pct,
        }
        assert got == want, plan
    elif isinstance(result, PeakResult):
        bucket = result.bucket
        got_peak = bucket and (bucket.period.isoformat(), bucket.value, bucket.count, result.ties)
        assert got_peak == ref.peak(frame, plan), plan
        series = [(b.period.isoformat(), b.value, b.count) for b in result.trend.series]
        assert series == ref.trend(frame, plan), plan
    elif isinstance(result, ChangesResult):
        got_rows = [(r.key, r.first, r.last, r.first_count, r.last_count) for r in result.rows]
        assert got_rows == ref.changes(frame, plan), plan
    elif isinstance(result, BalanceResult):
        want = ref.balances(frame, plan)
        got = {a.account_name: [(d.day, d.amount) for d in a.daily] for a in result.accounts}
        assert got == want, plan
        assert all(not a.gaps for a in result.accounts), plan  # the sample's balances agree
        for account in result.accounts:
            if plan.metric is Metric.min and want[account.account_name]:
                low = min(want[account.account_name], key=lambda d: (d[1], d[0]))
                assert account.lowest() and (account.lowest().day, account.lowest().amount) == low
    elif isinstance(result, RecurringResult):
        want = ref.recurring(frame, plan, DATA_END)
        got = [
            {
                "merchant": s.merchant,
                "cadence": (s.cadence.value, s.every),
                "amount": s.amount,
                "monthly": s.monthly,
                "first": s.first,
                "last": s.last,
                "count": s.count,
                "active": s.active,
                "price_changes": [(c.day, c.before, c.after) for c in s.price_changes],
            }
            for s in result.series
        ]
        assert got == want, plan
    elif isinstance(result, AnomalyResult):
        if plan.anomaly in (Anomaly.double, Anomaly.any):
            got_doubles = [
                (d.merchant, d.amount, [r.transaction_id for r in d.rows]) for d in result.doubles
            ]
            assert got_doubles == ref.doubles(frame, plan), plan
        if plan.anomaly in (Anomaly.high, Anomaly.any):
            got_high = sorted((h.row.transaction_id, h.usual) for h in result.high)
            assert got_high == sorted(ref.high_charges(frame, plan)), plan
    else:
        raise AssertionError(f"not a kind of question: {plan}")


def check_basis(backend: SearchBackend, frame: pd.DataFrame, plan: IntentPlan) -> None:
    """What the figure counted and left out, as pandas counts it."""
    result = execute(backend, SAMPLE_USER, plan)
    if not isinstance(result, AggregateResult | TrendResult | ListingResult):
        return
    basis = account_for(backend, SAMPLE_USER, plan, result)
    assert basis is not None
    got = {
        "counted": basis.counted,
        "transfers": basis.transfers,
        "other_direction": basis.other_direction,
        "other_currencies": basis.other_currencies,
    }
    assert got == ref.basis(frame, plan), plan


def check(backend: SearchBackend, frame: pd.DataFrame, plan: IntentPlan) -> None:
    if is_kind(plan):
        check_kind(backend, frame, plan)
        return
    check_basis(backend, frame, plan)
    if plan.intent is Intent.aggregate:
        got = backend.aggregate(SAMPLE_USER, plan)
        want = ref.aggregate(frame, plan)
        assert (got.value, got.count) == (want["value"], want["count"]), plan
        assert [(g.key, g.value, g.count) for g in got.groups] == want["groups"], plan
    elif plan.intent is Intent.trend:
        got = backend.trend(SAMPLE_USER, plan)
        series = [(b.period.isoformat(), b.value, b.count) for b in got.series]
        assert series == ref.trend(frame, plan), plan
        if plan.split_by_category:
            want_keys = sorted(set(ref.select(frame, plan)["category"]))
            assert sorted(got.splits) == want_keys, plan
        for category, buckets in got.splits.items():
            split = [(b.period.isoformat(), b.value, b.count) for b in buckets]
            assert split == ref.trend(frame, plan, category), (plan, category)
    elif plan.intent is Intent.listing:
        got = backend.listing(SAMPLE_USER, plan)
        ids, total = ref.listing(frame, plan)
        assert [r.transaction_id for r in got.rows] == ids, plan
        assert got.total == total, plan


@pytest.mark.parametrize("index", range(len(PLANS)))
def test_grid_plan(sample_backend: SearchBackend, frame: pd.DataFrame, index: int):
    check(sample_backend, frame, PLANS[index])


def test_labeled_questions_match_pandas(
    sample_backend: SearchBackend, frame: pd.DataFrame, sample_set: SampleSet
):
    """Every aggregate, trend and listing question of the labeled set, answered exactly."""
    router = OfflineRouter(sample_backend.vocabulary(SAMPLE_USER))
    checked = 0
    for case in load_cases():
        plan = route_case(router, case)
        if plan.intent in (Intent.aggregate, Intent.trend, Intent.listing):
            check(sample_backend, frame, plan)
            checked += 1
    assert checked >= 250


def test_grid_covers_every_intent_and_kind():
    assert {p.intent for p in PLANS} == {Intent.aggregate, Intent.trend, Intent.listing}
    assert all(
        any(predicate(p) for p in PLANS)
        for predicate in (
            lambda p: p.share_of,
            lambda p: p.peak,
            lambda p: p.changes,
            lambda p: p.balance,
            lambda p: p.recurring,
            lambda p: p.anomaly,
            lambda p: p.metric is Metric.median,
            lambda p: p.metric is Metric.distinct,
        )
    )
