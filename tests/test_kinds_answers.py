"""Answers of the kinds beyond totals on the sample data: each says what it was asked with its
numbers and citations, ends with the line of what was counted and left out (the same line in
every language, in the JSON as ``data.basis``), and is written wholly in the asker's language."""

from __future__ import annotations

from datetime import date

import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.model.plan import Intent, IntentPlan
from elastic.model.results import AnomalyResult, BalanceResult, RecurringResult
from llm.answering.answer import Note
from llm.answering.composer import compose_answer
from llm.embeddings import LocalEmbedder
from llm.executor import account_for, execute
from llm.pipeline import ChatPipeline
from llm.understanding.offline_router import OfflineRouter
from tests.conftest import SAMPLE_USER
from tests.test_answer_language import LANGUAGES, assert_in_language

AS_OF = date(2025, 7, 15)
Y2024 = {"date_from": date(2024, 1, 1), "date_to": date(2024, 12, 31)}
PLANS = {
    "share": IntentPlan(intent="aggregate", categories=["Dining"], share_of="total", **Y2024),
    "savings_rate": IntentPlan(intent="aggregate", direction="net", share_of="income", **Y2024),
    "peak": IntentPlan(
        intent="trend", categories=["Utilities"], interval="quarter", peak="highest"
    ),
    "weekdays": IntentPlan(intent="aggregate", group_by="weekday", **Y2024),
    "weekend": IntentPlan(intent="aggregate", group_by="weekend", categories=["Dining"]),
    "median": IntentPlan(intent="aggregate", metric="median", categories=["Groceries"]),
    "distinct": IntentPlan(
        intent="aggregate", metric="distinct", group_by="merchant", categories=["Dining"]
    ),
    "changes": IntentPlan(
        intent="aggregate",
        group_by="category",
        change="grew",
        compare=[
            {"date_from": date(2025, 1, 1), "date_to": date(2025, 3, 31)},
            {"date_from": date(2025, 4, 1), "date_to": date(2025, 6, 30)},
        ],
    ),
    "balance": IntentPlan(
        intent="aggregate", balance=True, date_from=date(2025, 3, 3), date_to=date(2025, 3, 3)
    ),
    "lowest_balance": IntentPlan(
        intent="aggregate", balance=True, metric="min", accounts=["Everyday Checking"], **Y2024
    ),
    "balance_trend": IntentPlan(intent="trend", balance=True, accounts=["High-Yield Savings"]),
    "recurring": IntentPlan(intent="listing", recurring=True),
    "one_series": IntentPlan(intent="listing", recurring=True, merchants=["Netflix"]),
    "monthly_cost": IntentPlan(intent="aggregate", recurring=True, categories=["Subscriptions"]),
    "to_check": IntentPlan(intent="listing", anomaly="any"),
    "first": IntentPlan(intent="listing", merchants=["Netflix"], sort="oldest", limit=1),
    "last": IntentPlan(
        intent="listing", categories=["Housing"], direction="out", sort="newest", limit=1
    ),
}


@pytest.fixture(scope="module")
def pipeline(embedded_sample: EmbeddedBackend, embedder: LocalEmbedder) -> ChatPipeline:
    return ChatPipeline(embedded_sample, embedder, OfflineRouter)


def _answer(backend: EmbeddedBackend, plan: IntentPlan, language: str):
    result = execute(backend, SAMPLE_USER, plan)
    basis = account_for(backend, SAMPLE_USER, plan, result)
    return compose_answer(plan, result, language=language, basis=basis)


@pytest.mark.parametrize("kind", sorted(PLANS))
def test_each_kind_is_answered_cited_and_accounted_for(
    embedded_sample: EmbeddedBackend, kind: str
) -> None:
    answer = _answer(embedded_sample, PLANS[kind], "en")
    assert answer.citations and "[1]" in answer.text, answer.text
    assert isinstance(answer.parts[-1], Note) and answer.text.endswith("._")
    basis = answer.as_json()["data"]["basis"]
    if isinstance(answer.result, BalanceResult):
        assert basis["kind"] == "balances" and basis["stated"] > 0
    else:
        assert basis["kind"] == "rows" and basis["counted"] > 0
        assert set(basis["left_out"]) == {
            "transfers", "other_direction", "other_currencies", "pending"
        }  # fmt: skip


@pytest.mark.parametrize("kind", sorted(PLANS))
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_kind_is_answered_in_every_language(
    pipeline: ChatPipeline, embedded_sample: EmbeddedBackend, kind: str, language: str
) -> None:
    english = _answer(embedded_sample, PLANS[kind], "en")
    answer = _answer(embedded_sample, PLANS[kind], language)
    assert_in_language(pipeline, answer, language)
    assert answer.data() == english.data()  # the same numbers, in the JSON the same keys
    assert [c.n for c in answer.citations] == [c.n for c in english.citations]
    assert len(answer.parts) == len(english.parts)


def test_the_sample_double_and_unusual_charges_are_found_and_cited(
    embedded_sample: EmbeddedBackend,
) -> None:
    answer = _answer(embedded_sample, PLANS["to_check"], "en")
    result = answer.result
    assert isinstance(result, AnomalyResult)
    (double,) = [d for d in result.doubles if d.merchant == "Target"]
    assert [str(r.amount) for r in double.rows] == ["-64.37", "-64.37"]
    assert any(h.row.merchant == "Uber" and str(h.row.amount) == "-184.50" for h in result.high)
    assert "Target charged **$64.37** 2 times on Jun 26, 2025" in answer.text
    cited = [c for c in answer.citations if c.rows_plan and c.rows_plan.merchants == ["Target"]]
    rows = embedded_sample.listing(SAMPLE_USER, cited[0].rows_plan)
    assert [r.transaction_id for r in rows.rows] == sorted(
        (r.transaction_id for r in double.rows), reverse=True
    )


def test_recurring_payments_say_cadence_cost_and_price_changes(
    embedded_sample: EmbeddedBackend,
) -> None:
    answer = _answer(embedded_sample, PLANS["recurring"], "en")
    result = answer.result
    assert isinstance(result, RecurringResult)
    netflix = next(s for s in result.series if s.merchant == "Netflix")
    assert (netflix.cadence.value, str(netflix.amount), netflix.active) == ("month", "17.99", True)
    assert [(c.day.isoformat(), str(c.before), str(c.after)) for c in netflix.price_changes] == [
        ("2025-02-09", "15.49", "17.99")
    ]
    assert "| Netflix | monthly | $17.99 | $17.99 | 2024-01-09 | 2025-06-09 | active |" in (
        answer.text
    )


@pytest.mark.parametrize(
    "question",
    [
        "What % of my spending went to dining in 2024?",
        "Wie viel Prozent meiner Ausgaben gingen 2024 an Restaurants?",
        "Quel pourcentage de mes dépenses est allé aux restaurants en 2024 ?",
        "¿Qué porcentaje de mis gastos fue a restaurantes en 2024?",
        "ما نسبة إنفاقي على المطاعم في 2024؟",
    ],
)
def test_a_share_asked_in_every_language_has_the_same_numbers(
    pipeline: ChatPipeline, question: str
) -> None:
    english = pipeline.ask("What % of my spending went to dining in 2024?", SAMPLE_USER, AS_OF)
    answer = pipeline.ask(question, SAMPLE_USER, AS_OF)
    assert answer.intent is Intent.aggregate and answer.plan == english.plan
    assert answer.data() == english.data() and answer.data()["share"]["pct"] > 0
