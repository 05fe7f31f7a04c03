"""The shapes of comparisons, averages per interval and top groups in a plan: what is valid,
how sides and periods read, and Gemini's comparison plans checked like the offline ones."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from google.oauth2.credentials import Credentials
from pydantic import ValidationError

from elastic.model.plan import CompareSide, Direction, Intent, IntentPlan, Interval, Metric
from elastic.model.records import Transaction
from elastic.model.results import (
    AccountInfo,
    AggregateResult,
    CompareResult,
    SideResult,
    Vocabulary,
)
from llm.answering.answer import Answer
from llm.answering.composer import compose
from llm.answering.gemini_composer import GeminiComposer
from llm.answering.wording import period_name, side_label
from llm.understanding.gemini_router import GeminiRouter, conform, plan_schema
from llm.vertex_client import make_client
from settings import Settings
from tests.vertex_loopback import Reply, VertexLoopback
from ui.figures import compare_figure

AS_OF = date(2024, 6, 15)
VOCABULARY = Vocabulary(
    merchants=["Amazon", "Target"],
    categories=["Dining", "Groceries"],
    accounts=[AccountInfo("Everyday Checking", "First Bank", "3210")],
    first_date=date(2024, 1, 1),
    last_date=date(2024, 6, 14),
)
MAY = CompareSide(date_from=date(2024, 5, 1), date_to=date(2024, 5, 31))
APRIL = CompareSide(date_from=date(2024, 4, 1), date_to=date(2024, 4, 30))


# --- the plan ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"intent": "listing", "compare": [MAY, APRIL]},  # a comparison is an aggregate
        {"intent": "aggregate", "compare": [MAY]},  # of two sides at least
        {"intent": "aggregate", "compare": [MAY] * 7},  # and six at most
        # groups compared across sides are the changes between two periods, not between names
        {
            "intent": "aggregate",
            "compare": [{"merchants": ["Amazon"]}, {"merchants": ["Target"]}],
            "group_by": "category",
        },
        {"intent": "aggregate", "compare": [MAY, APRIL, MAY], "group_by": "category"},
        {"intent": "aggregate", "compare": [{}, {"merchants": ["Amazon"]}]},  # empty side
        {
            "intent": "aggregate",
            "compare": [MAY, {"date_from": "2024-05-02", "date_to": "2024-05-01"}],
        },
        {"intent": "aggregate", "per": "month"},  # an average per month is an average
        {"intent": "trend", "metric": "avg", "per": "month"},
        {"intent": "aggregate", "metric": "avg", "per": "month", "group_by": "category"},
        {"intent": "aggregate", "top": 5},  # top groups need groups
        {"intent": "aggregate", "group_by": "merchant", "top": 0},
    ],
)
def test_invalid_shapes_are_refused(fields: dict) -> None:
    with pytest.raises(ValidationError):
        IntentPlan.model_validate(fields)


def test_period_sides_are_in_time_order_and_names_as_asked() -> None:
    periods = IntentPlan(intent=Intent.aggregate, compare=[MAY, APRIL])
    assert periods.compare == [APRIL, MAY]
    names = [CompareSide(merchants=["Target"]), CompareSide(merchants=["Amazon"])]
    assert IntentPlan(intent=Intent.aggregate, compare=names).compare == names


def test_a_side_replaces_what_it_names_and_keeps_the_rest() -> None:
    plan = IntentPlan(
        intent=Intent.aggregate,
        categories=["Dining"],
        merchants=["Amazon"],
        date_from=date(2024, 1, 1),
        direction=Direction.in_,
        compare=[MAY, CompareSide(merchants=["Target"])],
    )
    may, target = (plan.side(side) for side in plan.compare)
    assert (may.date_from, may.date_to, may.merchants) == (MAY.date_from, MAY.date_to, ["Amazon"])
    assert (target.date_from, target.date_to, target.merchants) == (
        date(2024, 1, 1),
        None,
        ["Target"],
    )
    for side in (may, target):
        assert (side.categories, side.direction, side.compare) == (["Dining"], Direction.in_, [])


@pytest.mark.parametrize(
    ("start", "end", "name"),
    [
        (date(2024, 1, 1), date(2024, 12, 31), "2024"),
        (date(2024, 7, 1), date(2024, 12, 31), "H2 2024"),
        (date(2025, 4, 1), date(2025, 6, 30), "Q2 2025"),
        (date(2024, 2, 1), date(2024, 2, 29), "February 2024"),
        (date(2025, 3, 3), date(2025, 3, 9), "week of Mar 3, 2025"),
        (date(2025, 3, 3), date(2025, 3, 3), "Mar 3, 2025"),
        (date(2025, 7, 1), date(2025, 7, 15), "Jul 1, 2025 – Jul 15, 2025"),
        (date(2025, 2, 1), date(2025, 4, 30), "Feb 1, 2025 – Apr 30, 2025"),
        (date(2025, 2, 1), None, "since Feb 1, 2025"),
    ],
)
def test_periods_read_as_people_name_them(start: date, end: date | None, name: str) -> None:
    assert period_name(start, end) == name


def test_side_labels() -> None:
    assert side_label(CompareSide(categories=["Dining", "Groceries"])) == "Dining, Groceries"
    assert side_label(CompareSide(merchants=["Amazon"], date_from=date(2024, 1, 1))) == (
        "Amazon · since Jan 1, 2024"
    )


def _side(side: CompareSide, value: str, count: int, currency: str = "USD") -> SideResult:
    result = AggregateResult(Metric.sum, Direction.out, Decimal(value), count, currency)
    return SideResult(side, IntentPlan(intent=Intent.aggregate).side(side), result)


def test_difference_change_and_largest() -> None:
    result = CompareResult(
        Metric.sum, Direction.out, "USD", [_side(APRIL, "80.00", 2), _side(MAY, "100.00", 3)]
    )
    assert (result.difference, result.change_pct) == (Decimal("20.00"), Decimal("25.0"))
    assert result.largest is result.sides[1]
    from_nothing = CompareResult(
        Metric.sum, Direction.out, "USD", [_side(APRIL, "0.00", 0), _side(MAY, "10.00", 1)]
    )
    assert from_nothing.difference == Decimal("10.00") and from_nothing.change_pct is None
    tied = CompareResult(
        Metric.sum, Direction.out, "USD", [_side(APRIL, "5.00", 1), _side(MAY, "5.00", 1)]
    )
    assert tied.largest is None and tied.difference == 0
    plan = IntentPlan(intent=Intent.aggregate, compare=[APRIL, MAY])
    text, _ = compose(plan, tied)
    assert "They are the same." in text and "%" not in text


# --- Gemini -----------------------------------------------------------------------------------


def test_the_response_schema_describes_sides_averages_and_top_groups() -> None:
    properties = plan_schema().model_dump(exclude_none=True)["properties"]
    side = properties["compare"]["items"]["properties"]
    assert set(side) == {"date_from", "date_to", "accounts", "categories", "merchants"}
    assert properties["per"]["enum"] == [i.value for i in Interval]
    assert properties["top"]["type"] == "INTEGER"


def test_sides_are_spelled_as_indexed_and_unknown_names_refused() -> None:
    plan = IntentPlan(
        intent=Intent.aggregate,
        compare=[CompareSide(merchants=["amazon"]), CompareSide(categories=["DINING"])],
    )
    spelled = conform(plan, VOCABULARY)
    assert [s.merchants or s.categories for s in spelled.compare] == [["Amazon"], ["Dining"]]
    walmart = plan.model_copy(
        update={"compare": [CompareSide(merchants=["Amazon"]), CompareSide(merchants=["Walmart"])]}
    )
    with pytest.raises(ValueError, match="Walmart"):
        conform(walmart, VOCABULARY)


class StubRouter:
    def route(self, question: str, as_of: date, previous: IntentPlan | None = None) -> IntentPlan:
        return IntentPlan(intent=Intent.clarify, clarification="offline")


@pytest.fixture
def settings(server: VertexLoopback) -> Settings:
    return Settings(
        gcp_project="test-project",
        gemini_model="gemini-2.5-flash",
        vertex_base_url=server.url,
        vertex_timeout_s=0.5,
        vertex_retries=0,
    )


@pytest.fixture
def router(settings: Settings) -> GeminiRouter:
    client = make_client(settings, credentials=Credentials(token="test-token"))
    return GeminiRouter(settings, StubRouter(), VOCABULARY, client, backoff_s=0.01)


def test_gemini_comparison_plans_are_validated_and_used(
    router: GeminiRouter, server: VertexLoopback
) -> None:
    asked = {
        "intent": "aggregate",
        "categories": ["dining"],
        "compare": [
            {"date_from": "2024-04-01", "date_to": "2024-06-30"},
            {"date_from": "2024-01-01", "date_to": "2024-03-31"},
        ],
    }
    server.script(Reply.plan(asked))
    plan = router.route("Did we spend more on dining in Q1 or Q2?", AS_OF)
    assert router.last_source == "gemini" and plan.categories == ["Dining"]
    assert [s.date_from for s in plan.compare] == [date(2024, 1, 1), date(2024, 4, 1)]
    sent = json.dumps(server.requests[0].body)
    assert "compare" in sent and "Did we spend more on dining in Q1 or Q2?" in sent


@pytest.mark.parametrize(
    "bad",
    [
        {"intent": "aggregate", "compare": [{"merchants": ["Amazon"]}]},
        {"intent": "trend", "compare": [{"merchants": ["Amazon"]}, {"merchants": ["Target"]}]},
        {"intent": "aggregate", "compare": [{"merchants": ["Amazon"]}, {"merchants": ["Costco"]}]},
        {"intent": "aggregate", "metric": "sum", "per": "month"},
    ],
    ids=["one-side", "not-aggregate", "unknown-side-name", "per-without-avg"],
)
def test_invalid_gemini_shapes_fall_back(
    router: GeminiRouter, server: VertexLoopback, bad: dict
) -> None:
    server.script(Reply(text=json.dumps(bad)))
    assert router.route("question", AS_OF).clarification == "offline"
    assert router.last_source == "offline"


def _compared_answer() -> Answer:
    plan = IntentPlan(intent=Intent.aggregate, compare=[APRIL, MAY])
    result = CompareResult(
        Metric.sum, Direction.out, "USD", [_side(APRIL, "80.00", 2), _side(MAY, "100.00", 3)]
    )
    text, citations = compose(plan, result)
    return Answer(plan.intent, text, plan, result, citations)


@pytest.mark.parametrize(
    ("written", "kept"),
    [
        ("May 2024 was higher: $100.00 [2] against $80.00 [1], up 25% [2].", True),
        ("May 2024 was higher by $20.00 [2].", True),
        ("May 2024 was higher: $100.00 [2], up 40% [2].", False),  # no such change
        ("May 2024 was higher by $25.00 [2].", False),  # no such difference
    ],
)
def test_gemini_wording_of_a_comparison_is_checked(
    settings: Settings, server: VertexLoopback, written: str, kept: bool
) -> None:
    answer = _compared_answer()
    server.script(Reply(text=written))
    client = make_client(settings, credentials=Credentials(token="test-token"))
    worded = GeminiComposer(settings, client, backoff_s=0.01).compose("Q?", answer)
    assert (worded.text == written) is kept
    assert kept or worded.text == answer.text


def test_extreme_rows_are_masked_in_json() -> None:
    row = Transaction(
        transaction_id="t1",
        date=date(2024, 5, 3),
        description="PAYMENT TO 12345678901234",
        amount=Decimal("-9.50"),
        currency="USD",
        category="Shopping",
        merchant="Target",
        account_no="12345678901234",
        account_name="Everyday Checking",
        bank_name="First Bank",
    )
    result = AggregateResult(Metric.max, Direction.out, Decimal("9.50"), 4, "USD", extreme=row)
    plan = IntentPlan(intent=Intent.aggregate, metric=Metric.max)
    text, citations = compose(plan, result)
    data = Answer(plan.intent, text, plan, result, citations).data()
    assert data["transaction"]["account_no"] == "***1234"
    assert "12345678901234" not in json.dumps(data) and "12345678901234" not in text
    assert [c.n for c in citations] == [1, 2] and citations[0].rows_plan is not None
    rows_plan = citations[0].rows_plan
    assert (rows_plan.date_from, rows_plan.min_amount, rows_plan.max_amount) == (
        row.date,
        Decimal("9.50"),
        Decimal("9.50"),
    )


def test_the_comparison_chart_has_a_bar_per_side_and_says_no_data() -> None:
    plan = IntentPlan(intent=Intent.aggregate, metric=Metric.avg, compare=[APRIL, MAY])
    empty = AggregateResult(Metric.avg, Direction.out, None, 0, "USD")
    april = SideResult(APRIL, plan.side(APRIL), empty)
    result = CompareResult(Metric.avg, Direction.out, "USD", [april, _side(MAY, "12.50", 2)])
    (bars,) = compare_figure(plan, result).data
    assert list(bars.x) == ["April 2024", "May 2024"] and list(bars.y) == [None, 12.5]
    assert list(bars.text) == ["no data", "$12.50"]
