"""Conversations through the pipeline the app and the CLI share, on the sample data in a real
SQLite store: what each answer counts is checked against pandas on the sample CSV, so a filter
carried into a question that did not ask for it shows as a wrong number."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pandas as pd
import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.model.plan import Intent, IntentPlan, Metric
from llm.answering.answer import Answer, Suggestions
from llm.embeddings import LocalEmbedder
from llm.pipeline import ChatPipeline
from llm.services import offline_routers
from llm.understanding.follow_ups import without
from scripts.sample_data import SampleSet
from tests import pandas_reference as ref
from tests.conftest import SAMPLE_USER

AS_OF = date(2025, 7, 15)


@pytest.fixture(scope="module")
def pipeline(embedded_sample: EmbeddedBackend, embedder: LocalEmbedder) -> ChatPipeline:
    """The app's offline pipeline: rules, words placed by meaning, the local embedder."""
    return ChatPipeline(embedded_sample, embedder, offline_routers(embedder))


@pytest.fixture(scope="module")
def frame(sample_set: SampleSet) -> pd.DataFrame:
    return ref.load(sample_set.transactions_csv)


def converse(pipeline: ChatPipeline, *questions: str) -> list[Answer]:
    """Each question asked after the previous answer, as the chat asks them."""
    answers: list[Answer] = []
    previous: IntentPlan | None = None
    for question in questions:
        answer = pipeline.ask(question, SAMPLE_USER, AS_OF, previous)
        answers.append(answer)
        previous = answer.follow_up_basis if answer.result is not None else previous
    return answers


def expected(frame: pd.DataFrame, **fields: object) -> dict[str, object]:
    """What pandas computes for an aggregate plan of ``fields``."""
    return ref.aggregate(frame, IntentPlan(intent=Intent.aggregate, **fields))


def test_an_elliptical_turn_inherits_and_says_what(
    pipeline: ChatPipeline, frame: pd.DataFrame
) -> None:
    dining, q2 = converse(pipeline, "How much did we spend eating out in Q1 2025?", "and in Q2?")
    q2_dates = {"date_from": date(2025, 4, 1), "date_to": date(2025, 6, 30)}
    want = expected(frame, categories=["Dining"], **q2_dates)
    assert q2.result is not None and q2.result.value == want["value"]
    assert q2.plan.inherited == ["categories"] and not dining.plan.inherited
    assert q2.as_json()["plan"]["inherited"] == ["categories"]


def test_a_complete_question_after_another_starts_fresh(
    pipeline: ChatPipeline, frame: pd.DataFrame
) -> None:
    """After a fees question, the largest purchase of 2024 is the largest of all purchases,
    not the largest fee."""
    _, largest = converse(
        pipeline, "What did I pay in bank fees last year?", "What was my largest purchase in 2024?"
    )
    year = {"date_from": date(2024, 1, 1), "date_to": date(2024, 12, 31)}
    want = expected(frame, metric=Metric.max, **year)
    assert largest.result is not None and largest.result.value == want["value"]
    assert largest.plan.categories == [] and largest.plan.inherited == []
    fees = expected(frame, metric=Metric.max, categories=["Fees"], **year)
    assert largest.result.value != fees["value"]


def test_a_question_outside_finsync_gets_no_number_after_a_money_question(
    pipeline: ChatPipeline,
) -> None:
    for question in (
        "What is my credit score and should I refinance my mortgage?",
        "Who founded Costco?",
        "Will it rain tomorrow?",
        "Make me a budget for restaurants",
    ):
        _, answer = converse(pipeline, "How much did I spend on groceries in 2024?", question)
        assert answer.intent is Intent.clarify and answer.result is None, question
        assert "$" not in answer.text, answer.text


def test_taking_away_what_was_carried_asks_again_without_it(
    pipeline: ChatPipeline, frame: pd.DataFrame
) -> None:
    first, follow = converse(
        pipeline, "How much did I spend on groceries in 2024?", "and at Target?"
    )
    assert follow.plan.inherited == ["date_from", "date_to"]
    again = pipeline.ask("and at Target?", SAMPLE_USER, AS_OF, without(first.plan, "period"))
    assert again.plan.inherited == [] and (again.plan.date_from, again.plan.date_to) == (None, None)
    assert again.result is not None
    assert again.result.value == expected(frame, merchants=["Target"])["value"]


def test_a_named_currency_filters_by_it(pipeline: ChatPipeline, frame: pd.DataFrame) -> None:
    dollars = pipeline.ask("How much did I spend in dollars last month?", SAMPLE_USER, AS_OF)
    june = {"date_from": date(2025, 6, 1), "date_to": date(2025, 6, 30)}
    assert dollars.plan.currency == "USD"
    assert dollars.result is not None
    assert dollars.result.value == expected(frame, currency="USD", **june)["value"]
    euros = pipeline.ask("How much did I spend in euros last month?", SAMPLE_USER, AS_OF)
    assert euros.intent is Intent.clarify and "EUR" in euros.text and "USD" in euros.text


def test_monthly_spending_over_a_year_is_that_year_not_an_amount(
    pipeline: ChatPipeline, frame: pd.DataFrame
) -> None:
    answer = pipeline.ask("Show my monthly spending over 2024", SAMPLE_USER, AS_OF)
    assert answer.intent is Intent.trend and answer.plan.min_amount is None
    assert answer.result is not None and len(answer.result.series) == 12
    total = sum((bucket.value for bucket in answer.result.series), Decimal(0))
    year = {"date_from": date(2024, 1, 1), "date_to": date(2024, 12, 31)}
    assert total == expected(frame, **year)["value"]


@pytest.mark.parametrize(
    ("question", "months"),
    [
        ("Did I spend more on dining in Q1 or Q2 2024?", ((1, 3), (4, 6))),
        (
            "¿Gasté más en restaurantes en el primer o en el segundo trimestre de 2024?",
            ((1, 3), (4, 6)),
        ),
    ],
)
def test_a_year_after_a_list_applies_to_every_item(
    pipeline: ChatPipeline, frame: pd.DataFrame, question: str, months: tuple[tuple[int, int], ...]
) -> None:
    answer = pipeline.ask(question, SAMPLE_USER, AS_OF)
    sides = answer.data()["compare"]["sides"]
    assert [(s["date_from"], s["date_to"]) for s in sides] == [
        ("2024-01-01", "2024-03-31"),
        ("2024-04-01", "2024-06-30"),
    ]
    for side, (first, last) in zip(sides, months, strict=True):
        end = pd.Timestamp(2024, last, 1) + pd.offsets.MonthEnd(0)
        span = {"date_from": date(2024, first, 1), "date_to": end.date()}
        assert (
            Decimal(str(side["value"])) == expected(frame, categories=["Dining"], **span)["value"]
        )


def test_a_range_to_the_end_of_a_month_is_counted_whole(
    pipeline: ChatPipeline, frame: pd.DataFrame
) -> None:
    answer = pipeline.ask(
        "How much did I spend on groceries between June 2024 and the end of May 2025?",
        SAMPLE_USER,
        AS_OF,
    )
    span = {"date_from": date(2024, 6, 1), "date_to": date(2025, 5, 31)}
    assert answer.result is not None
    assert answer.result.value == expected(frame, categories=["Groceries"], **span)["value"]


def test_an_everyday_word_finds_its_category_end_to_end(
    pipeline: ChatPipeline, frame: pd.DataFrame
) -> None:
    answer = pipeline.ask("How much did I spend at the chemist in 2024?", SAMPLE_USER, AS_OF)
    year = {"date_from": date(2024, 1, 1), "date_to": date(2024, 12, 31)}
    assert answer.plan.categories == ["Health"]
    assert answer.result is not None
    assert answer.result.value == expected(frame, categories=["Health"], **year)["value"]


def test_french_and_spanish_answers_count_what_english_counts(pipeline: ChatPipeline) -> None:
    english = pipeline.ask("How much did I spend at Amazon in 2024?", SAMPLE_USER, AS_OF)
    for question, language in (
        ("Combien ai-je dépensé chez Amazon en 2024 ?", "fr"),
        ("¿Cuánto gasté en Amazon en 2024?", "es"),
    ):
        answer = pipeline.ask(question, SAMPLE_USER, AS_OF)
        assert answer.language == language and answer.data() == english.data()


def test_a_clarification_offers_questions_that_are_answered(pipeline: ChatPipeline) -> None:
    answer = pipeline.ask("Transfer 500 to my savings account", SAMPLE_USER, AS_OF)
    (suggestions,) = [p for p in answer.parts if isinstance(p, Suggestions)]
    for question in suggestions.questions:
        assert pipeline.ask(question, SAMPLE_USER, AS_OF).intent is not Intent.clarify
