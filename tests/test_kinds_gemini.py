"""The kinds of question beyond totals through Gemini: plans written by the real SDK against
the loopback Vertex server are validated and answered exactly (checked against pandas), and
Gemini's wording of each answer is kept when its numbers are the computed ones and replaced by
the deterministic answer when one is not."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from typing import Any

import pandas as pd
import pytest
from google.genai import Client

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.model.plan import GroupBy, IntentPlan, ShareOf, SortOrder
from elastic.model.results import (
    AnomalyResult,
    BalanceResult,
    ChangesResult,
    ListingResult,
    PeakResult,
    RecurringResult,
    ShareResult,
)
from llm.answering.answer import Answer
from llm.answering.gemini_composer import GeminiComposer
from llm.pipeline import ChatPipeline
from llm.prompts import ROUTER_EXAMPLES, ROUTER_INSTRUCTION
from llm.understanding.gemini_router import GeminiRouter, plan_schema
from scripts.sample_data import SampleSet
from settings import Settings
from tests import pandas_reference as ref
from tests.conftest import SAMPLE_USER, transactions_store
from tests.gemini_setup import ZeroEmbedder, gemini_routers, loopback_vertex
from tests.vertex_loopback import Reply, VertexLoopback

AS_OF = date(2025, 7, 15)
DATA_END = date(2025, 6, 30)
Y2024 = {"date_from": "2024-01-01", "date_to": "2024-12-31"}


@pytest.fixture(scope="module")
def backend(
    sample_set: SampleSet, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EmbeddedBackend]:
    store = transactions_store(sample_set, tmp_path_factory.mktemp("gemini-kinds"))
    yield store
    store.close()


@pytest.fixture(scope="module")
def frame(sample_set: SampleSet) -> pd.DataFrame:
    return ref.load(sample_set.transactions_csv)


@pytest.fixture
def vertex(server: VertexLoopback) -> tuple[Settings, Client]:
    return loopback_vertex(server, vertex_retries=0)


@pytest.fixture
def settings(vertex: tuple[Settings, Client]) -> Settings:
    return vertex[0]


@pytest.fixture
def client(vertex: tuple[Settings, Client]) -> Client:
    return vertex[1]


@pytest.fixture
def pipeline(backend: EmbeddedBackend, settings: Settings, client: Client) -> ChatPipeline:
    composer = GeminiComposer(settings, client, backoff_s=0.01)
    return ChatPipeline(backend, ZeroEmbedder(), gemini_routers(settings, client), composer)


def _routed(pipeline: ChatPipeline, server: VertexLoopback, plan: dict[str, Any]) -> Answer:
    """Gemini's plan, answered without rewording; the plan was Gemini's, not the fallback's."""
    server.script(Reply.plan(plan))
    answer = pipeline.ask("a question Gemini routes", SAMPLE_USER, AS_OF, rewrite=False)
    router = pipeline.router_for(SAMPLE_USER)
    assert isinstance(router, GeminiRouter) and router.last_source == "gemini"
    return answer


def test_a_share_from_gemini(pipeline: ChatPipeline, server, frame) -> None:
    answer = _routed(
        pipeline,
        server,
        {"intent": "aggregate", "categories": ["dining"], "share_of": "total", **Y2024},
    )
    result = answer.result
    assert isinstance(result, ShareResult) and answer.plan.categories == ["Dining"]
    want = ref.share(frame, answer.plan)
    assert (result.part.value, result.whole.value, result.pct) == (
        want["part"][0], want["whole"][0], want["pct"],
    )  # fmt: skip
    assert answer.as_json()["data"]["share"]["pct"] == float(want["pct"])


def test_a_savings_rate_from_gemini(pipeline: ChatPipeline, server, frame) -> None:
    answer = _routed(
        pipeline,
        server,
        {"intent": "aggregate", "direction": "net", "share_of": "income", **Y2024},
    )
    result = answer.result
    assert isinstance(result, ShareResult)
    assert result.pct == ref.share(frame, answer.plan)["pct"] and result.pct is not None
    assert "of your income" in answer.text


def test_a_peak_from_gemini(pipeline: ChatPipeline, server, frame) -> None:
    answer = _routed(
        pipeline,
        server,
        {"intent": "trend", "categories": ["Utilities"], "interval": "quarter", "peak": "highest"},
    )
    result = answer.result
    assert isinstance(result, PeakResult) and result.bucket is not None
    period, value, _, _ = ref.peak(frame, answer.plan)
    assert (result.bucket.period.isoformat(), result.bucket.value) == (period, value)


def test_the_biggest_changes_from_gemini(pipeline: ChatPipeline, server, frame) -> None:
    answer = _routed(
        pipeline,
        server,
        {
            "intent": "aggregate",
            "group_by": "category",
            "change": "grew",
            "compare": [
                {"date_from": "2025-01-01", "date_to": "2025-03-31"},
                {"date_from": "2025-04-01", "date_to": "2025-06-30"},
            ],
        },
    )
    result = answer.result
    assert isinstance(result, ChangesResult)
    got = [(r.key, r.first, r.last, r.first_count, r.last_count) for r in result.rows]
    assert got == ref.changes(frame, answer.plan) and got


def test_a_balance_on_a_day_from_gemini(pipeline: ChatPipeline, server, frame) -> None:
    answer = _routed(
        pipeline,
        server,
        {
            "intent": "aggregate",
            "balance": True,
            "accounts": ["everyday checking"],
            "date_from": "2025-03-03",
            "date_to": "2025-03-03",
        },
    )
    result = answer.result
    assert isinstance(result, BalanceResult)
    (account,) = result.accounts
    want = ref.balances(frame, answer.plan)["Everyday Checking"]
    assert [(d.day, d.amount) for d in account.daily] == want and len(want) == 1


def test_recurring_payments_from_gemini(pipeline: ChatPipeline, server, frame) -> None:
    answer = _routed(
        pipeline,
        server,
        {"intent": "aggregate", "recurring": True, "categories": ["Subscriptions"]},
    )
    result = answer.result
    assert isinstance(result, RecurringResult)
    want = ref.recurring(frame, answer.plan, DATA_END)
    assert [(s.merchant, s.monthly) for s in result.series] == [
        (s["merchant"], s["monthly"]) for s in want
    ]
    assert result.monthly == {"USD": sum(s["monthly"] for s in want if s["active"])}


def test_double_charges_from_gemini(pipeline: ChatPipeline, server, frame) -> None:
    answer = _routed(pipeline, server, {"intent": "listing", "anomaly": "double"})
    result = answer.result
    assert isinstance(result, AnomalyResult) and result.doubles
    got = [(d.merchant, d.amount, [r.transaction_id for r in d.rows]) for d in result.doubles]
    assert got == ref.doubles(frame, answer.plan)


def test_the_last_payment_from_gemini(pipeline: ChatPipeline, server, frame) -> None:
    answer = _routed(
        pipeline,
        server,
        {"intent": "listing", "merchants": ["netflix"], "sort": "newest", "limit": 1},
    )
    result = answer.result
    assert isinstance(result, ListingResult)
    ids, _ = ref.listing(frame, answer.plan)
    assert [r.transaction_id for r in result.rows] == ids and len(ids) == 1
    assert "Your last payment" in answer.text or "last" in answer.text.lower()


def test_an_invalid_kind_from_gemini_falls_back_to_the_rules(
    pipeline: ChatPipeline, server: VertexLoopback
) -> None:
    """A peak of an aggregate is no plan: the offline router answers the question instead."""
    server.script(Reply.plan({"intent": "aggregate", "peak": "highest"}))
    answer = pipeline.ask(
        "Which month did I spend the most in 2024?", SAMPLE_USER, AS_OF, rewrite=False
    )
    router = pipeline.router_for(SAMPLE_USER)
    assert isinstance(router, GeminiRouter) and router.last_source == "offline"
    assert isinstance(answer.result, PeakResult)


# --- Gemini's wording, checked ------------------------------------------------------------------

KIND_PLANS: dict[str, IntentPlan] = {
    "share": IntentPlan(intent="aggregate", categories=["Dining"], share_of="total", **Y2024),
    "peak": IntentPlan(intent="trend", categories=["Utilities"], interval="quarter", peak="lowest"),
    "balance": IntentPlan(
        intent="aggregate", balance=True, metric="min", accounts=["Everyday Checking"], **Y2024
    ),
    "recurring": IntentPlan(intent="listing", recurring=True, merchants=["Netflix"]),
    "anomaly": IntentPlan(intent="listing", anomaly="high"),
}


def _lead_numbers(answer: Answer) -> str:
    """The deterministic lead, as Gemini might reword it: the same sentence."""
    return re.sub(r"(?<!\*)\*\*(?![\d*])", "", answer.text.partition("\n\n")[0])


@pytest.mark.parametrize("kind", sorted(KIND_PLANS))
def test_geminis_wording_of_each_kind_is_checked(
    pipeline: ChatPipeline, server: VertexLoopback, kind: str
) -> None:
    plan = KIND_PLANS[kind]
    server.script(Reply.plan(plan.model_dump(mode="json", exclude_defaults=True)))
    answer = pipeline.ask("a question", SAMPLE_USER, AS_OF, rewrite=False)
    assert answer.basis is not None and "How this was" in answer.text
    good = "In short: " + _lead_numbers(answer)
    server.script(Reply(text=good))
    kept = pipeline.write("a question", answer)
    assert kept.text.startswith(good), kind
    assert kept.text.endswith(answer.text.rpartition("\n\n")[2])  # the basis line stays
    wrong = good.replace(good.split("[")[0], "It was 987,654.32 in all ", 1)
    server.script(Reply(text=wrong))
    replaced = pipeline.write("a question", answer)
    assert replaced.text == answer.text, kind


def test_the_router_prompt_shows_every_kind() -> None:
    plans = [plan for _, plan, _ in ROUTER_EXAMPLES]
    assert any(plan.share_of is ShareOf.total for plan in plans)
    assert any(plan.share_of is ShareOf.income and plan.direction.value == "net" for plan in plans)
    assert any(plan.peak for plan in plans) and any(plan.changes for plan in plans)
    assert any(plan.balance for plan in plans) and any(plan.recurring for plan in plans)
    assert any(plan.anomaly for plan in plans)
    assert any(plan.limit == 1 and plan.sort is SortOrder.newest for plan in plans)
    assert any(plan.group_by is GroupBy.weekend for plan in plans)
    for field in ("share_of", "peak", "change", "balance", "recurring", "anomaly", "median"):
        assert f"- {field}:" in ROUTER_INSTRUCTION or f" {field} (" in ROUTER_INSTRUCTION, field
    schema = plan_schema().properties
    assert schema is not None
    assert {"share_of", "peak", "change", "balance", "recurring", "anomaly"} <= set(schema)
