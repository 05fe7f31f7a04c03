"""Plans of every shape written by Gemini (the real SDK against the loopback Vertex server) are
validated, conformed to the user's spelling and answered from the backend: comparisons,
extremes, averages per month, count trends, top groups, listings by size, and clarifications
for requests to act or for dates with no loaded data."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from typing import Any

import pandas as pd
import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.model.plan import Intent, Metric
from elastic.model.results import AggregateResult, CompareResult, ListingResult, TrendResult
from llm.answering.answer import Answer
from llm.pipeline import ChatPipeline
from llm.prompts import ROUTER_EXAMPLES, ROUTER_INSTRUCTION
from llm.understanding.gemini_router import GeminiRouter
from llm.understanding.language import question_language
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from tests import pandas_reference as ref
from tests.conftest import SAMPLE_USER, transactions_store
from tests.gemini_setup import ZeroEmbedder, gemini_routers, loopback_vertex
from tests.vertex_loopback import Reply, VertexLoopback

AS_OF = date(2025, 7, 15)


@pytest.fixture(scope="module")
def backend(
    sample_set: SampleSet, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EmbeddedBackend]:
    """The sample transactions in a real SQLite store."""
    store = transactions_store(sample_set, tmp_path_factory.mktemp("gemini-plans"))
    yield store
    store.close()


@pytest.fixture(scope="module")
def frame(sample_set: SampleSet) -> pd.DataFrame:
    return ref.load(sample_set.transactions_csv)


@pytest.fixture
def pipeline(backend: EmbeddedBackend, server: VertexLoopback) -> ChatPipeline:
    # These questions are answered from transactions; no vector is searched.
    return ChatPipeline(
        backend, ZeroEmbedder(), gemini_routers(*loopback_vertex(server, vertex_retries=0))
    )


def _ask(pipeline: ChatPipeline, server: VertexLoopback, reply: dict[str, Any]) -> Answer:
    """Script Gemini's plan, ask, and check that Gemini's plan (not the fallback's) was used."""
    server.script(Reply.plan(reply))
    answer = pipeline.ask("a question Gemini routes", SAMPLE_USER, AS_OF, rewrite=False)
    router = pipeline.router_for(SAMPLE_USER)
    assert isinstance(router, GeminiRouter) and router.last_source == "gemini"
    assert len(server.calls("generateContent")) == 1
    return answer


def test_a_comparison_from_gemini_is_answered_side_by_side(
    pipeline: ChatPipeline, server: VertexLoopback, frame: pd.DataFrame
) -> None:
    answer = _ask(
        pipeline,
        server,
        {
            "intent": "aggregate",
            "categories": ["dining"],  # spelled as Gemini may; conformed to "Dining"
            "compare": [
                {"date_from": "2025-01-01", "date_to": "2025-03-31"},
                {"date_from": "2025-04-01", "date_to": "2025-06-30"},
            ],
        },
    )
    plan = answer.plan
    result = answer.result
    assert plan.categories == ["Dining"] and isinstance(result, CompareResult)
    want = ref.compare(frame, plan)
    assert [s.result.value for s in result.sides] == [s["value"] for s in want["sides"]]
    assert result.difference == want["difference"] and want["difference"] is not None


_Y2024, _Y2025 = (
    {"date_from": "2024-01-01", "date_to": "2024-12-31"},
    {"date_from": "2025-01-01", "date_to": "2025-12-31"},
)
_Q1, _Q2 = (
    {"date_from": "2025-01-01", "date_to": "2025-03-31"},
    {"date_from": "2025-04-01", "date_to": "2025-06-30"},
)


@pytest.mark.parametrize(
    ("question", "plan"),
    [
        (
            "قارن إنفاقي على المطاعم بين ٢٠٢٤ و ٢٠٢٥",
            {"intent": "aggregate", "categories": ["Dining"], "compare": [_Y2024, _Y2025]},
        ),
        (
            "Habe ich im ersten oder zweiten Quartal mehr für Restaurants ausgegeben?",
            {"intent": "aggregate", "categories": ["Dining"], "compare": [_Q1, _Q2]},
        ),
    ],
)
def test_a_comparison_asked_in_arabic_or_german_from_gemini(
    pipeline: ChatPipeline,
    server: VertexLoopback,
    backend: EmbeddedBackend,
    frame: pd.DataFrame,
    question: str,
    plan: dict[str, Any],
) -> None:
    """Gemini is told the question's languages and gets the question as asked; its plan is
    the one the offline router gives the same question, answered side by side."""
    server.script(Reply.plan(plan))
    answer = pipeline.ask(question, SAMPLE_USER, AS_OF, rewrite=False)
    router = pipeline.router_for(SAMPLE_USER)
    assert isinstance(router, GeminiRouter) and router.last_source == "gemini"
    (seen,) = server.calls("generateContent")
    assert question in seen.user_text
    system = seen.body["systemInstruction"]["parts"][0]["text"]
    assert "English, Arabic, German, French or Spanish" in system
    assert answer.plan == OfflineRouter(backend.vocabulary(SAMPLE_USER)).route(question, AS_OF)
    result = answer.result
    assert isinstance(result, CompareResult) and len(result.sides) == 2
    want = ref.compare(frame, answer.plan)
    assert [s.result.value for s in result.sides] == [s["value"] for s in want["sides"]]
    assert result.difference == want["difference"] and want["difference"] is not None


@pytest.mark.parametrize("metric", [Metric.min, Metric.max])
def test_a_single_extreme_from_gemini_is_the_transaction_itself(
    pipeline: ChatPipeline, server: VertexLoopback, frame: pd.DataFrame, metric: Metric
) -> None:
    answer = _ask(
        pipeline, server, {"intent": "aggregate", "merchants": ["starbucks"], "metric": metric}
    )
    result = answer.result
    want = ref.figure(frame, answer.plan)
    assert isinstance(result, AggregateResult) and result.extreme is not None
    assert (result.value, result.extreme.transaction_id) == (want["value"], want["extreme"])


def test_an_average_per_month_from_gemini(
    pipeline: ChatPipeline, server: VertexLoopback, frame: pd.DataFrame
) -> None:
    answer = _ask(
        pipeline,
        server,
        {
            "intent": "aggregate",
            "categories": ["Groceries"],
            "date_from": "2024-01-01",
            "date_to": "2024-12-31",
            "metric": "avg",
            "per": "month",
        },
    )
    plan = answer.plan
    result = answer.result
    want = ref.figure(frame, plan)
    assert isinstance(result, AggregateResult) and result.periods == want["periods"] == 12
    assert result.value == want["value"] and result.value > Decimal(0)


def test_a_count_trend_from_gemini(
    pipeline: ChatPipeline, server: VertexLoopback, frame: pd.DataFrame
) -> None:
    answer = _ask(
        pipeline,
        server,
        {
            "intent": "trend",
            "merchants": ["Starbucks"],
            "date_from": "2024-01-01",
            "date_to": "2024-12-31",
            "metric": "count",
            "interval": "month",
        },
    )
    plan = answer.plan
    result = answer.result
    assert isinstance(result, TrendResult) and len(result.series) == 12
    counts = [(bucket.period.isoformat(), bucket.count) for bucket in result.series]
    assert counts == [(period, count) for period, _, count in ref.trend(frame, plan)]
    assert sum(count for _, count in counts) > 0


def test_top_groups_from_gemini(
    pipeline: ChatPipeline, server: VertexLoopback, frame: pd.DataFrame
) -> None:
    answer = _ask(
        pipeline,
        server,
        {
            "intent": "aggregate",
            "date_from": "2024-01-01",
            "date_to": "2024-12-31",
            "group_by": "merchant",
            "top": 3,
        },
    )
    plan = answer.plan
    result = answer.result
    want = ref.figure(frame, plan)["groups"]
    assert isinstance(result, AggregateResult) and len(result.groups) == 3
    assert [(g.key, g.value, g.count) for g in result.groups] == want


def test_the_largest_purchases_from_gemini_are_a_listing_by_size(
    pipeline: ChatPipeline, server: VertexLoopback, frame: pd.DataFrame
) -> None:
    answer = _ask(
        pipeline,
        server,
        {
            "intent": "listing",
            "date_from": "2024-07-01",
            "date_to": "2024-07-31",
            "direction": "out",
            "sort": "largest",
            "limit": 3,
        },
    )
    plan = answer.plan
    result = answer.result
    ids, total = ref.listing(frame, plan)
    assert isinstance(result, ListingResult) and len(result.rows) == 3
    assert ([row.transaction_id for row in result.rows], result.total) == (ids, total)


def test_a_request_to_act_is_clarified_without_a_query(
    pipeline: ChatPipeline, server: VertexLoopback
) -> None:
    clarification = "FinSync only reads your transactions and statements; it can't move money."
    answer = _ask(
        pipeline,
        server,
        {
            "intent": "clarify",
            "clarification": clarification,
            "suggestions": ["How much did I transfer to savings this year?"],
        },
    )
    plan = answer.plan
    assert plan.intent is Intent.clarify and answer.result is None
    assert clarification in answer.text and "transfer to savings this year" in answer.text


def test_a_gemini_plan_for_dates_not_loaded_says_what_is(
    pipeline: ChatPipeline, server: VertexLoopback
) -> None:
    answer = _ask(
        pipeline,
        server,
        {"intent": "aggregate", "date_from": "2019-01-01", "date_to": "2019-12-31"},
    )
    plan = answer.plan
    assert plan.intent is Intent.clarify and answer.result is None
    assert "1 January 2024 to 30 June 2025" in answer.text


def test_the_router_prompt_shows_every_plan_shape() -> None:
    plans = [plan for _, plan, _ in ROUTER_EXAMPLES]
    assert any(len(plan.compare) >= 2 for plan in plans)
    assert {Metric.min, Metric.max} <= {plan.metric for plan in plans}
    assert any(plan.per for plan in plans)
    assert any(plan.intent is Intent.trend and plan.metric is Metric.count for plan in plans)
    assert any(plan.top for plan in plans)
    actions = [q for q, plan, _ in ROUTER_EXAMPLES if plan.intent is Intent.clarify]
    assert any(q.lower().startswith("transfer") for q in actions)
    assert "FinSync only reads data" in ROUTER_INSTRUCTION and "each month" in ROUTER_INSTRUCTION
    compared = {question_language(q) for q, plan, _ in ROUTER_EXAMPLES if plan.compare}
    assert compared >= {"en", "ar", "de"}
    assert "English, Arabic, German, French or Spanish" in ROUTER_INSTRUCTION
