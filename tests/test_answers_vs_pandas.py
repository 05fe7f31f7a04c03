"""Every aggregate, trend and listing on the sample data equals pandas on the sample CSV."""

from __future__ import annotations

import pandas as pd
import pytest

from elastic.backend import SearchBackend
from elastic.model.plan import Intent, IntentPlan
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from tests import pandas_reference as ref
from tests.conftest import SAMPLE_USER
from tests.labeled import load_cases, route_case
from tests.plan_grid import grid

PLANS = grid()


@pytest.fixture(scope="module")
def frame(sample_set: SampleSet) -> pd.DataFrame:
    return ref.load(sample_set.transactions_csv)


def check(backend: SearchBackend, frame: pd.DataFrame, plan: IntentPlan) -> None:
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


def test_grid_covers_every_intent():
    assert {p.intent for p in PLANS} == {Intent.aggregate, Intent.trend, Intent.listing}
