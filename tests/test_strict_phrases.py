"""Dates and amounts that cannot be used as written become clarifications that say why."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from elastic.model.plan import Intent, IntentPlan
from llm.understanding.amounts import MAX_AMOUNT
from llm.understanding.dates import DateProblem, find_date_range
from llm.understanding.offline_router import OfflineRouter
from llm.understanding.text_norm import normalize
from tests.labeled import clarification as said
from tests.labeled import suggestions as suggested
from tests.test_router import vocabulary  # noqa: F401  (the sample data's vocabulary fixture)

AS_OF = date(2025, 7, 15)
FUTURE = "That period is in the future (after 15 Jul 2025); I only have past transactions."
TOO_LARGE = "amounts go up to 1,000,000,000,000."


@pytest.fixture(scope="module")
def router(request: pytest.FixtureRequest) -> OfflineRouter:
    """The router over the sample data's vocabulary (the fixture of ``tests.test_router``)."""
    return OfflineRouter(request.getfixturevalue("vocabulary"))


@pytest.mark.parametrize(
    ("question", "clarification", "suggestions"),
    [
        (
            "How much did I spend on 2024-13-01?",
            "“2024-13-01” is not a date: there is no month 13.",
            ["How much did I spend on January 13, 2024?"],
        ),
        (
            "Show my transactions on 31/02/2024",
            "“31/02/2024” is not a date: there is no day 31 in February 2024.",
            ["Show my transactions on February 29, 2024"],
        ),
        (
            "What did I spend on February 30?",
            "“February 30” is not a date: there is no day 30 in February.",
            ["What did I spend on February 28?"],
        ),
        (
            "Spending on Feb 29 2023",
            "“Feb 29 2023” is not a date: there is no day 29 in February 2023.",
            ["Spending on February 28, 2023"],
        ),
        (
            "List purchases on 13/13/2024",
            "“13/13/2024” is not a date: there is no month 13.",
            [],
        ),
        ("How much did I spend in Q5 2024?", "Q5 is not a quarter (Q1–Q4).", []),
        (
            "How much did I spend in the year 99999?",
            "99999 is not a year I can have transactions for (1900–2099).",
            [],
        ),
        (
            "Spending in 1850",
            "1850 is not a year I can have transactions for (1900–2099).",
            [],
        ),
        (
            "How much did I spend in the last 99999999999999 days?",
            "“last 99999999999999 days” is not a period I can read: count 1 to 999 days, or "
            "give the dates.",
            [],
        ),
        (
            "Dining in the past 0 months",
            "“past 0 months” is not a period I can read: count 1 to 999 months, or give the dates.",
            [],
        ),
        (
            "List purchases under -1e309 dollars",
            "I couldn't understand the amount “-1e309”: write it as a plain number without a "
            "sign, like $300.",
            [],
        ),
        (
            "List purchases over 1e6",
            "I couldn't understand the amount “1e6”: write it as a plain number without a "
            "sign, like $300.",
            [],
        ),
        ("Dining in the 2024 Q0", "Q0 is not a quarter (Q1–Q4).", []),
        ("Spending in H3 of last year", "H3 is not a half-year (H1–H2).", []),
        ("Spending in week 54 2024", "Week 54 is not a week of 2024 (weeks 1–52).", []),
        ("How many purchases in week 54?", "Week 54 is not a week of 2025 (weeks 1–52).", []),
        ("Groceries in week 53 of 2024", "Week 53 is not a week of 2024 (weeks 1–52).", []),
        (
            "How much did I spend from March 31 to March 1 2025?",
            "“March 31 to March 1 2025” ends before it starts.",
            ["How much did I spend from March 1, 2025 to March 31, 2025?"],
        ),
        (
            "Spending between 2025 and 2024",
            "“2025 and 2024” ends before it starts.",
            ["Spending between 2024 and 2025"],
        ),
        ("How much will I spend next month?", FUTURE, []),
        ("How much did I spend on groceries in 2031?", FUTURE, []),
        ("Show my purchases in the next 3 weeks", FUTURE, []),
        ("What did I spend tomorrow?", FUTURE, []),
        ("Spending since December 2025", FUTURE, []),
        ("Dining in Q4 2025", FUTURE, []),
        (
            "Show purchases over 99999999999999999999 dollars",
            f"I couldn't understand the amount “99999999999999999999 dollars”: {TOO_LARGE}",
            [],
        ),
        (
            "Show purchases between $5 and $2,000,000,000,000",
            f"I couldn't understand the amount “$2,000,000,000,000”: {TOO_LARGE}",
            [],
        ),
        (
            "Show purchases over $1,000,000,000,000.01",
            f"I couldn't understand the amount “$1,000,000,000,000.01”: {TOO_LARGE}",
            [],
        ),
        (
            "List purchases over $12.345",
            "I couldn't understand the amount “$12.345”: amounts have at most 2 decimals.",
            ["List purchases over $12.35"],
        ),
    ],
)
def test_unusable_phrases_are_clarified(
    router: OfflineRouter, question: str, clarification: str, suggestions: list[str]
) -> None:
    plan = router.route(question, AS_OF)
    assert (plan.intent, said(plan), suggested(plan)) == (
        Intent.clarify,
        clarification,
        suggestions,
    )


@pytest.mark.parametrize(
    ("question", "date_from", "date_to"),
    [
        ("How much did I spend on 2024-13-01?", date(2024, 1, 13), date(2024, 1, 13)),
        ("What did I spend on February 30?", date(2025, 2, 28), date(2025, 2, 28)),
        ("Spending from March 31 to March 1 2025", date(2025, 3, 1), date(2025, 3, 31)),
        ("Spending between 2025 and 2024", date(2024, 1, 1), date(2025, 7, 15)),
    ],
)
def test_suggested_questions_route_to_the_corrected_period(
    router: OfflineRouter, question: str, date_from: date, date_to: date
) -> None:
    (suggestion,) = suggested(router.route(question, AS_OF))
    plan = router.route(suggestion, AS_OF)
    assert (plan.intent, plan.date_from, plan.date_to) == (Intent.aggregate, date_from, date_to)


def test_a_follow_up_with_an_unusable_period_is_clarified(router: OfflineRouter) -> None:
    previous = IntentPlan(intent=Intent.aggregate, categories=["Groceries"])
    plan = router.route("and in Q5 2024?", AS_OF, previous)
    assert (plan.intent, said(plan)) == (Intent.clarify, "Q5 is not a quarter (Q1–Q4).")


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        ("from June 1 to August 31 2025", date(2025, 6, 1), date(2025, 7, 15)),
        ("between May and September 2025", date(2025, 5, 1), date(2025, 7, 15)),
        ("until December 2025", None, date(2025, 7, 15)),
        ("before 2031", None, date(2025, 7, 15)),
        ("from July 2025 to now", date(2025, 7, 1), date(2025, 7, 15)),
    ],
)
def test_ranges_reaching_past_as_of_stop_at_it(phrase: str, start: date | None, end: date) -> None:
    found = find_date_range(normalize(phrase), AS_OF)
    assert found is not None and not isinstance(found, DateProblem)
    assert (found.start, found.end) == (start, end)


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        ("week 12 of 2024", date(2024, 3, 18), date(2024, 3, 24)),
        ("2024-W12", date(2024, 3, 18), date(2024, 3, 24)),
        ("week 53 2020", date(2020, 12, 28), date(2021, 1, 3)),
        ("week 1", date(2024, 12, 30), date(2025, 1, 5)),
        ("Feb 29 2024", date(2024, 2, 29), date(2024, 2, 29)),
        ("February 29", date(2024, 2, 29), date(2024, 2, 29)),
        ("31/01/2024", date(2024, 1, 31), date(2024, 1, 31)),
        ("2024-02-29", date(2024, 2, 29), date(2024, 2, 29)),
        ("Q4 2024", date(2024, 10, 1), date(2024, 12, 31)),
        ("H2 2024", date(2024, 7, 1), date(2024, 12, 31)),
        ("in July", date(2025, 7, 1), date(2025, 7, 31)),
        ("Q3 2025", date(2025, 7, 1), date(2025, 9, 30)),
        ("since yesterday", date(2025, 7, 14), date(2025, 7, 15)),
    ],
)
def test_real_periods_read_as_before(phrase: str, start: date, end: date) -> None:
    found = find_date_range(normalize(phrase), AS_OF)
    assert found is not None and not isinstance(found, DateProblem)
    assert (found.start, found.end) == (start, end)


@pytest.mark.parametrize("text", ["spending at Q8", "a 50/50 split", "every week 50 dollars"])
def test_numbers_that_are_not_periods_stay_unread(text: str) -> None:
    assert find_date_range(normalize(text), AS_OF) is None


@pytest.mark.parametrize(
    ("question", "low", "high"),
    [
        ("Show purchases over $1,000,000,000,000", "1000000000000.01", None),
        ("Show purchases between $0.5 and $12.30", "0.5", "12.30"),
        ("Show purchases over 1.2345k", "1234.51", None),
    ],
)
def test_amounts_up_to_the_bound_are_used(
    router: OfflineRouter, question: str, low: str | None, high: str | None
) -> None:
    plan = router.route(question, AS_OF)
    assert plan.min_amount == (Decimal(low) if low else None)
    assert plan.max_amount == (Decimal(high) if high else None)


def test_the_bound_itself_is_an_amount(router: OfflineRouter) -> None:
    plan = router.route(f"Show purchases of at most {MAX_AMOUNT} dollars", AS_OF)
    assert (plan.intent, plan.max_amount) == (Intent.listing, MAX_AMOUNT)
