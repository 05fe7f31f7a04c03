"""Comparisons, extremes, averages per interval and top groups, on both backends: every number
against the pandas reference, the answer's wording and citations, and the JSON contract."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from itertools import product
from pathlib import Path

import pandas as pd
import pytest

from elastic.backend import SearchBackend
from elastic.engines.elasticsearch.backend import ElasticsearchBackend
from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest import Importer
from elastic.model.plan import (
    CompareSide,
    Direction,
    GroupBy,
    Intent,
    IntentPlan,
    Interval,
    Metric,
)
from elastic.model.results import AggregateResult, CompareResult
from llm.answering.answer import Answer
from llm.answering.composer import compose
from llm.answering.wording import money
from llm.embeddings import LocalEmbedder
from llm.executor import execute
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from settings import Settings
from tests import pandas_reference as ref
from tests.conftest import SAMPLE_USER, es_settings
from tests.labeled import load_cases, route_case

AS_OF = date(2025, 7, 15)
Q1, Q2 = (
    CompareSide(date_from=date(2025, 1, 1), date_to=date(2025, 3, 31)),
    CompareSide(date_from=date(2025, 4, 1), date_to=date(2025, 6, 30)),
)
YEARS = [
    CompareSide(date_from=date(2024, 1, 1), date_to=date(2024, 12, 31)),
    CompareSide(date_from=date(2025, 1, 1), date_to=date(2025, 12, 31)),
]
SIDES: list[tuple[dict[str, object], list[CompareSide]]] = [
    ({"categories": ["Dining"]}, [Q1, Q2]),
    ({"categories": ["Groceries"]}, YEARS),
    (
        {"date_from": date(2024, 1, 1), "date_to": date(2024, 12, 31)},
        [CompareSide(merchants=["Amazon"]), CompareSide(merchants=["Target"])],
    ),
    (
        {},
        [
            CompareSide(categories=["Dining"]),
            CompareSide(categories=["Groceries", "Travel"]),
            CompareSide(categories=["Shopping"]),
        ],
    ),
    ({}, [CompareSide(accounts=["Platinum Card"]), CompareSide(accounts=["Everyday Checking"])]),
    (  # a side with no rows at all: 2023 is before the data
        {"merchants": ["Best Buy"]},
        [CompareSide(date_from=date(2023, 1, 1), date_to=date(2023, 12, 31)), YEARS[0]],
    ),
]
FILTERS: list[dict[str, object]] = [
    {},
    {"categories": ["Groceries"]},
    {"merchants": ["Best Buy"], "date_from": date(2024, 1, 1), "date_to": date(2024, 12, 31)},
    {"accounts": ["Platinum Card"], "date_from": date(2025, 3, 5)},
    {"date_to": date(2024, 6, 30)},
]


def plans() -> list[IntentPlan]:
    """Comparisons by period, merchant, category and account with every metric; averages
    per every interval; smallest and largest in every direction; top groups."""
    found = []
    figures = [metric for metric in Metric if metric is not Metric.distinct]  # needs groups
    for (shared, sides), metric in product(SIDES, figures):
        found.append(IntentPlan(intent=Intent.aggregate, metric=metric, compare=sides, **shared))
    found.append(
        IntentPlan(
            intent=Intent.aggregate,
            categories=["Groceries"],
            metric=Metric.avg,
            per=Interval.month,
            compare=YEARS,
        )
    )
    for filters, interval in product(FILTERS, Interval):
        if interval is Interval.day and "date_from" not in filters:
            continue
        found.append(
            IntentPlan(intent=Intent.aggregate, metric=Metric.avg, per=interval, **filters)
        )
    for filters, metric, direction in product(FILTERS, (Metric.min, Metric.max), Direction):
        found.append(
            IntentPlan(intent=Intent.aggregate, metric=metric, direction=direction, **filters)
        )
    for group_by, top in product((GroupBy.merchant, GroupBy.category), (1, 3, 50)):
        found.append(IntentPlan(intent=Intent.aggregate, group_by=group_by, top=top))
    return found


PLANS = plans()


@pytest.fixture(scope="module")
def frame(sample_set: SampleSet) -> pd.DataFrame:
    return ref.load(sample_set.transactions_csv)


def check_figure(got: AggregateResult, want: dict) -> None:
    assert (got.value, got.count) == (want["value"], want["count"])
    assert got.periods == want.get("periods")
    assert (got.extreme and got.extreme.transaction_id) == want["extreme"]
    if "groups" in want:
        assert [(g.key, g.value, g.count) for g in got.groups] == want["groups"]


def check(backend: SearchBackend, frame: pd.DataFrame, plan: IntentPlan, user: str) -> None:
    """``plan`` executed on ``backend`` for ``user`` equals the pandas reference on ``frame``."""
    got = execute(backend, user, plan)
    if isinstance(got, CompareResult):
        want = ref.compare(frame, plan)
        assert len(got.sides) == len(want["sides"])
        for side, expected in zip(got.sides, want["sides"], strict=True):
            check_figure(side.result, expected)
        assert (got.difference, got.change_pct) == (want["difference"], want["change_pct"])
    else:
        assert isinstance(got, AggregateResult)
        check_figure(got, ref.figure(frame, plan))


@pytest.mark.parametrize("index", range(len(PLANS)))
def test_plan_matches_pandas(sample_backend: SearchBackend, frame: pd.DataFrame, index: int):
    check(sample_backend, frame, PLANS[index], SAMPLE_USER)


def _new_shape(plan: IntentPlan) -> bool:
    extreme = plan.metric in (Metric.min, Metric.max) and plan.intent is Intent.aggregate
    # Shares, peaks, changes, balances, recurring and unusual charges are kinds of their own,
    # held against pandas in test_answers_vs_pandas.py.
    other_kind = plan.changes or plan.balance or plan.recurring or plan.peak
    if other_kind or plan.share_of is not None or plan.anomaly is not None:
        return False
    return bool(plan.compare or plan.per or plan.top or extreme)


def test_labeled_comparisons_and_extremes_match_pandas(
    sample_backend: SearchBackend, frame: pd.DataFrame
):
    router = OfflineRouter(sample_backend.vocabulary(SAMPLE_USER))
    checked = 0
    for case in load_cases():
        plan = route_case(router, case)
        if _new_shape(plan):
            check(sample_backend, frame, plan, SAMPLE_USER)
            checked += 1
    assert checked >= 80


# --- answers -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pipeline(embedded_sample: EmbeddedBackend, embedder: LocalEmbedder) -> ChatPipeline:
    return ChatPipeline(embedded_sample, embedder, OfflineRouter)


def test_a_comparison_answers_each_side_the_difference_and_the_change(
    pipeline: ChatPipeline, frame: pd.DataFrame
):
    answer = pipeline.ask("Did we spend more on dining in Q1 or Q2?", SAMPLE_USER, AS_OF)
    want = ref.compare(frame, answer.plan)
    values = [side["value"] for side in want["sides"]]
    assert answer.intent is Intent.aggregate and len(answer.plan.compare) == 2
    for label, value in zip(("Q1 2025", "Q2 2025"), values, strict=True):
        assert f"{label} **{money(value)}**" in answer.text
    assert money(abs(want["difference"])) in answer.text
    assert f"{want['change_pct']:+}%" in answer.text
    higher = "Q1 2025" if values[0] > values[1] else "Q2 2025"
    assert f"{higher} is higher" in answer.text
    # one citation per side, opening exactly that side's rows
    assert [c.n for c in answer.citations] == [1, 2]
    for citation, side in zip(answer.citations, want["sides"], strict=True):
        rows = pipeline.rows_behind(SAMPLE_USER, citation)
        assert rows.total == side["count"]
        assert -sum(row.amount for row in rows.rows) == side["value"]
        assert f"[{citation.n}]" in answer.text


def test_a_comparison_in_the_json_contract(pipeline: ChatPipeline, frame: pd.DataFrame):
    answer = pipeline.ask("amazon vs target in 2024", SAMPLE_USER, AS_OF)
    data = answer.as_json()["data"]
    want = ref.compare(frame, answer.plan)
    compared = data["compare"]
    assert compared["metric"] == "sum" and compared["currency"] == "USD"
    assert [s["label"] for s in compared["sides"]] == ["Amazon", "Target"]
    for side, expected in zip(compared["sides"], want["sides"], strict=True):
        assert Decimal(str(side["value"])) == expected["value"]
        assert side["count"] == expected["count"]
        assert (side["date_from"], side["date_to"]) == ("2024-01-01", "2024-12-31")
    assert Decimal(str(compared["difference"])) == want["difference"]
    assert Decimal(str(compared["change_pct"])) == want["change_pct"]
    values = [side["value"] for side in want["sides"]]
    assert compared["largest"] == ["Amazon", "Target"][values.index(max(values))]
    # the aggregate's own fields stay: no overall value, the sides as groups
    assert data["value"] is None and data["metric"] == "sum"
    assert [g["key"] for g in data["groups"]] == ["Amazon", "Target"]
    assert data["count"] == sum(side["count"] for side in want["sides"])


def test_a_side_without_rows_has_no_average_and_no_difference(
    pipeline: ChatPipeline, frame: pd.DataFrame
):
    plan = IntentPlan(
        intent=Intent.aggregate, merchants=["Best Buy"], metric=Metric.avg, compare=SIDES[-1][1]
    )
    result = execute(pipeline.backend, SAMPLE_USER, plan)
    text, citations = compose(plan, result)
    assert "2023 no data" in text and "$0.00" not in text
    assert result.difference is None and len(citations) == 2
    data = Answer(plan.intent, text, plan, result, citations).data()["compare"]
    assert data["sides"][0]["value"] is None and data["difference"] is None
    assert Decimal(str(data["sides"][1]["value"])) == ref.compare(frame, plan)["sides"][1]["value"]


def test_the_largest_purchase_is_the_transaction_with_its_citation(
    pipeline: ChatPipeline, frame: pd.DataFrame
):
    answer = pipeline.ask("What was my biggest single purchase at Amazon?", SAMPLE_USER, AS_OF)
    want = ref.figure(frame, answer.plan)
    row = answer.result.extreme
    assert row is not None and row.transaction_id == want["extreme"]
    assert -row.amount == want["value"] == answer.result.value
    assert f"**{money(want['value'])}**" in answer.text and "[1]" in answer.text
    exact, chosen_from = answer.citations
    shown = pipeline.rows_behind(SAMPLE_USER, exact).rows
    assert row.transaction_id in {r.transaction_id for r in shown}
    assert {(r.date, r.amount) for r in shown} == {(row.date, row.amount)}
    assert pipeline.rows_behind(SAMPLE_USER, chosen_from).total == want["count"]
    data = answer.as_json()["data"]
    assert data["transaction"]["transaction_id"] == want["extreme"]
    assert Decimal(str(data["value"])) == want["value"]


def test_an_average_per_month_says_over_how_many_months(
    pipeline: ChatPipeline, frame: pd.DataFrame
):
    answer = pipeline.ask("average monthly grocery spend in 2024", SAMPLE_USER, AS_OF)
    want = ref.figure(frame, answer.plan)
    assert answer.plan.per is Interval.month and want["periods"] == 12
    assert f"**{money(want['value'])}** per month, over 12 months" in answer.text
    data = answer.as_json()["data"]
    assert data["periods"] == 12 and Decimal(str(data["value"])) == want["value"]


def test_top_groups_honour_n(pipeline: ChatPipeline, frame: pd.DataFrame):
    answer = pipeline.ask("top 5 merchants last year", SAMPLE_USER, AS_OF)
    want = ref.figure(frame, answer.plan)
    assert answer.plan.top == 5 and len(want["groups"]) == 5
    assert [g["key"] for g in answer.as_json()["data"]["groups"]] == [g[0] for g in want["groups"]]
    assert answer.text.count("\n| ") == 1 + 5  # header and five rows


def test_empty_buckets_of_an_average_have_no_value(pipeline: ChatPipeline, frame: pd.DataFrame):
    plan = IntentPlan(
        intent=Intent.trend,
        merchants=["Best Buy"],
        metric=Metric.avg,
        date_from=date(2024, 1, 1),
        date_to=date(2024, 12, 31),
    )
    result = execute(pipeline.backend, SAMPLE_USER, plan)
    text, citations = compose(plan, result)
    series = Answer(plan.intent, text, plan, result, citations).data()["series"]
    want = ref.trend(frame, plan)
    empty = [period for period, _, count in want if count == 0]
    assert empty and len(empty) < len(want)
    assert [s["period"] for s in series if s["value"] is None] == empty
    lowest = min(value for _, value, count in want if count)
    assert f"({money(lowest)})" in text and "$0.00" not in text
    assert f"no data for {len(empty)} month" in text


# --- several currencies -----------------------------------------------------------------------

MULTI_USER = "multi-currency"
MULTI_COLUMNS = [
    "date",
    "description",
    "amount",
    "currency",
    "category",
    "merchant",
    "account_no",
    "account_name",
    "bank_name",
    "transaction_id",
]
MULTI_ROWS = [
    # date, description, amount, currency, category, merchant, account_no, account_name
    ("2024-01-31", "SALARY", "500.00", "EUR", "Income", "Employer", "DE00001111", "Euro Card"),
    ("2024-02-10", "AMAZON EU", "-20.00", "EUR", "Shopping", "Amazon", "DE00001111", "Euro Card"),
    ("2024-03-01", "TARGET", "-12.25", "EUR", "Shopping", "Target", "DE00001111", "Euro Card"),
    ("2024-08-05", "AMAZON EU", "-35.50", "EUR", "Shopping", "Amazon", "DE00001111", "Euro Card"),
    ("2024-09-09", "TARGET", "-40.00", "EUR", "Shopping", "Target", "DE00001111", "Euro Card"),
    ("2024-02-11", "AMAZON US", "-100.00", "USD", "Shopping", "Amazon", "US00002222", "Checking"),
    ("2024-04-04", "TARGET", "-15.00", "USD", "Shopping", "Target", "US00002222", "Checking"),
    ("2024-10-01", "AMAZON US", "-60.00", "USD", "Shopping", "Amazon", "US00002222", "Checking"),
    ("2024-11-11", "TARGET", "-25.00", "USD", "Shopping", "Target", "US00002222", "Checking"),
]
HALVES = [
    CompareSide(date_from=date(2024, 1, 1), date_to=date(2024, 6, 30)),
    CompareSide(date_from=date(2024, 7, 1), date_to=date(2024, 12, 31)),
]
ACCOUNTS = [CompareSide(accounts=["Euro Card"]), CompareSide(accounts=["Checking"])]


@pytest.fixture(scope="module")
def multi_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("multi") / "multi.csv"
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(MULTI_COLUMNS)
        for n, row in enumerate(MULTI_ROWS):
            writer.writerow([*row, "Some Bank", f"multi-{n}"])
    return path


@pytest.fixture(scope="module")
def multi_frame(multi_csv: Path) -> pd.DataFrame:
    return ref.load(multi_csv)


@pytest.fixture(scope="module", params=["embedded", "elasticsearch"])
def multi_backend(
    request: pytest.FixtureRequest,
    multi_csv: Path,
    embedder: LocalEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SearchBackend]:
    data_dir = tmp_path_factory.mktemp(f"multi-{request.param}")
    backend: SearchBackend
    if request.param == "elasticsearch":
        backend = ElasticsearchBackend(es_settings(request.getfixturevalue("es_url"), data_dir))
    else:
        backend = EmbeddedBackend(Settings(data_dir=data_dir))
    backend.prepare(embedder.dims, embedder.model_name)
    report = Importer(backend, MULTI_USER).land(multi_csv)
    assert report.indexed == len(MULTI_ROWS) and not report.problems
    yield backend
    if isinstance(backend, ElasticsearchBackend):
        backend.es.indices.delete(index=backend.indices, ignore_unavailable=True)
    backend.close()


MULTI_PLANS = [
    IntentPlan(intent=Intent.aggregate, merchants=["Amazon"], compare=HALVES),
    IntentPlan(intent=Intent.aggregate, compare=ACCOUNTS),
    IntentPlan(intent=Intent.aggregate, metric=Metric.max, compare=HALVES),
    IntentPlan(intent=Intent.aggregate, merchants=["Target"], metric=Metric.max),
    IntentPlan(intent=Intent.aggregate, metric=Metric.avg, per=Interval.quarter),
]


@pytest.mark.parametrize("index", range(len(MULTI_PLANS)))
def test_several_currencies_are_compared_per_currency(
    multi_backend: SearchBackend, multi_frame: pd.DataFrame, index: int
):
    plan = MULTI_PLANS[index]
    result = execute(multi_backend, MULTI_USER, plan)
    assert result.currency == "mixed" and [p.currency for p in result.by_currency]
    assert sorted(p.currency for p in result.by_currency) == ["EUR", "USD"]
    if isinstance(result, CompareResult):
        assert result.sides == [] and result.difference is None
    else:
        assert result.value is None and result.extreme is None
    for part in result.by_currency:
        part_plan = plan.model_copy(update={"currency": part.currency})
        check(multi_backend, multi_frame, part_plan, MULTI_USER)
    text, citations = compose(plan, result)
    assert "never added together" in text
    assert [c.n for c in citations] == list(range(1, len(citations) + 1))
    data = Answer(plan.intent, text, plan, result, citations).data()
    assert data["currency"] == "mixed"
    assert [part["currency"] for part in data["by_currency"]] == [
        p.currency for p in result.by_currency
    ]


def test_counts_are_compared_across_currencies(
    multi_backend: SearchBackend, multi_frame: pd.DataFrame
):
    plan = IntentPlan(
        intent=Intent.aggregate,
        metric=Metric.count,
        compare=[CompareSide(merchants=["Amazon"]), CompareSide(merchants=["Target"])],
    )
    result = execute(multi_backend, MULTI_USER, plan)
    assert result.currency == "mixed" and not result.by_currency
    want = ref.compare(multi_frame, plan)
    assert [s.result.value for s in result.sides] == [s["value"] for s in want["sides"]]
