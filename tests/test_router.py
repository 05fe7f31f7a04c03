"""The offline router against a labeled question set, plus focused tests of its parts."""

from __future__ import annotations

import csv
import time
from datetime import date
from decimal import Decimal

import pytest

from elastic.model.plan import (
    Direction,
    GroupBy,
    Intent,
    IntentPlan,
    Interval,
    Metric,
    PaymentKind,
    SortOrder,
)
from elastic.model.results import AccountInfo, Vocabulary
from llm.understanding.dates import find_date_range
from llm.understanding.offline_router import OfflineRouter
from llm.understanding.text_norm import normalize
from scripts.sample_data import SampleSet
from tests.conftest import SAMPLE_USER, transactions_store
from tests.labeled import clarification, load_cases, misses, route_case, suggestions

AS_OF = date(2025, 7, 15)
MIN_ACCURACY = 0.95


@pytest.fixture(scope="module")
def vocabulary(sample_set: SampleSet, tmp_path_factory: pytest.TempPathFactory) -> Vocabulary:
    """The vocabulary of the sample data as the app reads it: the sample transactions landed by
    the real import into a throwaway SQLite store (about a second; no model, no statements)."""
    backend = transactions_store(sample_set, tmp_path_factory.mktemp("router-vocabulary"))
    try:
        return backend.vocabulary(SAMPLE_USER)
    finally:
        backend.close()


def test_the_vocabulary_is_the_sample_data(vocabulary: Vocabulary, sample_set: SampleSet) -> None:
    """What the tests below match words against: every merchant, category and account of the
    sample transactions, as generated."""
    with sample_set.transactions_csv.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert set(vocabulary.merchants) == {row["merchant"] for row in rows}
    assert set(vocabulary.categories) == {row["category"] for row in rows}
    assert {a.account_name for a in vocabulary.accounts} == {row["account_name"] for row in rows}
    assert (vocabulary.first_date, vocabulary.last_date) == (
        date.fromisoformat(min(row["date"] for row in rows)),
        date.fromisoformat(max(row["date"] for row in rows)),
    )


@pytest.fixture(scope="module")
def router(vocabulary: Vocabulary) -> OfflineRouter:
    return OfflineRouter(vocabulary)


def test_labeled_questions_accuracy(router: OfflineRouter) -> None:
    cases = load_cases()
    assert len(cases) >= 130
    assert {case["expect"]["intent"] for case in cases} == {i.value for i in Intent}
    assert any(case["previous"] for case in cases)
    wrong = []
    for case in cases:
        if missed := misses(route_case(router, case), case["expect"]):
            wrong.append(f"{case['id']}: {case['question']!r} (expected, got): {missed}")
    accuracy = 1 - len(wrong) / len(cases)
    print(f"\nrouter accuracy {accuracy:.3f} ({len(cases) - len(wrong)}/{len(cases)})")
    print("\n".join(wrong))
    assert accuracy >= MIN_ACCURACY, "\n".join(wrong)


def test_every_intent_is_reached(router: OfflineRouter) -> None:
    intents = {route_case(router, case).intent for case in load_cases()}
    assert intents == set(Intent)


def test_routing_is_fast_and_deterministic(router: OfflineRouter) -> None:
    cases = load_cases()
    first = [route_case(router, case) for case in cases]
    start = time.perf_counter()
    again = [route_case(router, case) for case in cases]
    per_question_ms = (time.perf_counter() - start) * 1000 / len(cases)
    assert again == first
    assert per_question_ms < 5, f"{per_question_ms:.2f} ms per question"


# --- dates ----------------------------------------------------------------------------------


def _dates(phrase: str, as_of: date = AS_OF) -> tuple[str | None, str | None]:
    found = find_date_range(normalize(phrase), as_of)
    assert found is not None, phrase
    return (
        found.start.isoformat() if found.start else None,
        found.end.isoformat() if found.end else None,
    )


@pytest.mark.parametrize(
    ("phrase", "as_of", "expected"),
    [
        ("last month", date(2025, 1, 10), ("2024-12-01", "2024-12-31")),
        ("last month", AS_OF, ("2025-06-01", "2025-06-30")),
        ("last month", date(2024, 3, 31), ("2024-02-01", "2024-02-29")),
        ("this month", AS_OF, ("2025-07-01", "2025-07-15")),
        ("last quarter", date(2025, 2, 1), ("2024-10-01", "2024-12-31")),
        ("last quarter", AS_OF, ("2025-04-01", "2025-06-30")),
        ("this quarter", AS_OF, ("2025-07-01", "2025-07-15")),
        ("Q1", AS_OF, ("2025-01-01", "2025-03-31")),
        ("Q1 2024", AS_OF, ("2024-01-01", "2024-03-31")),
        ("q4 of last year", AS_OF, ("2024-10-01", "2024-12-31")),
        ("the 3rd quarter of 2024", AS_OF, ("2024-07-01", "2024-09-30")),
        ("first half of 2025", AS_OF, ("2025-01-01", "2025-06-30")),
        ("second half of 2024", AS_OF, ("2024-07-01", "2024-12-31")),
        ("March 2025", AS_OF, ("2025-03-01", "2025-03-31")),
        ("in March", AS_OF, ("2025-03-01", "2025-03-31")),
        ("in March", date(2025, 2, 10), ("2024-03-01", "2024-03-31")),
        ("in August", AS_OF, ("2024-08-01", "2024-08-31")),
        ("since April 1", AS_OF, ("2025-04-01", "2025-07-15")),
        ("since last month", AS_OF, ("2025-06-01", "2025-07-15")),
        ("between January and April", AS_OF, ("2025-01-01", "2025-04-30")),
        ("between November and February", date(2025, 3, 5), ("2024-11-01", "2025-02-28")),
        ("from 2024-03-01 to 2024-05-15", AS_OF, ("2024-03-01", "2024-05-15")),
        ("Jan-Mar 2024", AS_OF, ("2024-01-01", "2024-03-31")),
        ("this year", AS_OF, ("2025-01-01", "2025-07-15")),
        ("year to date", AS_OF, ("2025-01-01", "2025-07-15")),
        ("last year", date(2025, 1, 1), ("2024-01-01", "2024-12-31")),
        ("in 2024", AS_OF, ("2024-01-01", "2024-12-31")),
        ("last 30 days", AS_OF, ("2025-06-16", "2025-07-15")),
        ("last 3 months", AS_OF, ("2025-04-01", "2025-06-30")),
        ("past three months", date(2025, 1, 20), ("2024-10-01", "2024-12-31")),
        ("yesterday", date(2025, 1, 1), ("2024-12-31", "2024-12-31")),
        ("last week", AS_OF, ("2025-07-07", "2025-07-13")),
        ("last week", date(2025, 1, 2), ("2024-12-23", "2024-12-29")),
        ("before March 2025", AS_OF, (None, "2025-02-28")),
        ("on March 3rd, 2025", AS_OF, ("2025-03-03", "2025-03-03")),
    ],
)
def test_date_phrases(phrase: str, as_of: date, expected: tuple[str | None, str | None]) -> None:
    assert _dates(phrase, as_of) == expected


@pytest.mark.parametrize(
    "text", ["may I see my spending", "show my last 10 transactions", "over $2025", "top 5"]
)
def test_no_date_is_invented(text: str) -> None:
    assert find_date_range(normalize(text), AS_OF) is None


# --- digits, amounts, limits -------------------------------------------------------------


def test_arabic_indic_digits_are_normalised() -> None:
    assert normalize("في ٢٠٢٤ و ۲۰۲۵") == "في 2024 and 2025"  # "و" is read as "and"


def test_arabic_questions(router: OfflineRouter) -> None:
    plan = router.route("كم أنفقت على البقالة في ٢٠٢٤؟", AS_OF)
    assert plan.intent is Intent.aggregate
    assert plan.direction is Direction.out
    assert plan.categories == ["Groceries"]
    assert (plan.date_from, plan.date_to) == (date(2024, 1, 1), date(2024, 12, 31))
    plan = router.route("كم عدد المعاملات في الشهر الماضي؟", AS_OF)
    assert plan.metric is Metric.count
    assert (plan.date_from, plan.date_to) == (date(2025, 6, 1), date(2025, 6, 30))
    plan = router.route("show my top ۵ purchases in ٢٠٢٤", AS_OF)
    assert (plan.intent, plan.limit, plan.date_from) == (Intent.listing, 5, date(2024, 1, 1))


@pytest.mark.parametrize(
    ("question", "low", "high"),
    [
        ("purchases over $300", "300.01", None),
        ("purchases of at least $300", "300", None),
        ("purchases under $50", None, "49.99"),
        ("purchases between $20 and $100", "20", "100"),
        ("purchases of $1,250 or more", "1250", None),
        ("purchases no more than 40 dollars", None, "40"),
    ],
)
def test_amount_bounds(router: OfflineRouter, question: str, low: str, high: str) -> None:
    plan = router.route(f"Show {question} in 2024", AS_OF)
    assert plan.min_amount == (Decimal(low) if low else None)
    assert plan.max_amount == (Decimal(high) if high else None)


def test_counts_are_not_amounts(router: OfflineRouter) -> None:
    plan = router.route("Which merchants had more than 5 transactions in 2024?", AS_OF)
    assert plan.min_amount is None


@pytest.mark.parametrize(
    ("question", "limit", "sort"),
    [
        ("Show the five largest card payments in March", 5, SortOrder.largest),
        ("last 10 transactions", 10, SortOrder.newest),
        ("top twenty purchases this year", 20, SortOrder.largest),
        ("the 3 smallest Starbucks charges", 3, SortOrder.smallest),
        ("list my transactions", 20, SortOrder.newest),
    ],
)
def test_listing_limits(router: OfflineRouter, question: str, limit: int, sort: SortOrder) -> None:
    plan = router.route(question, AS_OF)
    assert (plan.intent, plan.limit, plan.sort) == (Intent.listing, limit, sort)


# --- vocabulary matching --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "field", "value"),
    [
        ("Starbuks", "merchants", "Starbucks"),
        ("wholefoods", "merchants", "Whole Foods Market"),
        ("whole foods", "merchants", "Whole Foods Market"),
        ("trader joes", "merchants", "Trader Joe's"),
        ("TRADER JOE'S", "merchants", "Trader Joe's"),
        ("Chipolte", "merchants", "Chipotle"),
        ("capital grille", "merchants", "The Capital Grille"),
        ("groceries", "categories", "Groceries"),
        ("grocery", "categories", "Groceries"),
        ("restaurants", "categories", "Dining"),
        ("eating out", "categories", "Dining"),
        ("travel", "categories", "Travel"),
        ("my platinum card", "accounts", "Platinum Card"),
        ("Platinum", "accounts", "Platinum Card"),
        ("my credit card", "accounts", "Platinum Card"),
        ("checking", "accounts", "Everyday Checking"),
        ("savings", "accounts", "High-Yield Savings"),
        ("the card ending in 4321", "accounts", "Platinum Card"),
    ],
)
def test_fuzzy_vocabulary(router: OfflineRouter, words: str, field: str, value: str) -> None:
    plan = router.route(f"How much did I spend on {words} last month?", AS_OF)
    assert getattr(plan, field) == [value]


def test_numbers_and_dates_never_match_merchants(router: OfflineRouter) -> None:
    plan = router.route("How much did I spend in March 2025 on 3 purchases over $20?", AS_OF)
    assert (plan.merchants, plan.categories, plan.accounts) == ([], [], [])


def test_transfer_destination_is_not_an_account_filter(router: OfflineRouter) -> None:
    plan = router.route("How much did I transfer to savings in 2024?", AS_OF)
    assert (plan.categories, plan.accounts) == (["Transfers"], [])
    assert not plan.excludes_transfers


# --- names only the user's rows know -------------------------------------------------------


def bank_export_router(merchants: list[str], descriptions: list[str]) -> OfflineRouter:
    """A router over a bank export's merchants that can ask whether descriptions mention words."""
    vocabulary = Vocabulary(
        merchants=merchants,
        categories=["Uncategorized", "Transfers"],
        accounts=[AccountInfo("Current", "Some Bank", "0001")],
        first_date=date(2025, 1, 1),
        last_date=date(2025, 6, 30),
        currency="EUR",
    )
    folded = [d.casefold() for d in descriptions]
    return OfflineRouter(vocabulary, lambda text: any(text.casefold() in d for d in folded))


def test_a_payee_found_in_descriptions_filters_them() -> None:
    router = bank_export_router(["Benm"], ["/BENM//NAME/JOHN DOE/REMI/Reference 201301234"])
    plan = router.route("How much did I pay John Doe?", AS_OF)
    assert (plan.intent, plan.direction, plan.text) == (Intent.aggregate, Direction.out, "John Doe")


def test_an_accented_name_is_found_in_unaccented_descriptions() -> None:
    router = bank_export_router([], ["Recibo MUTUA MADRILENA AUTOMOVILISTA"])
    plan = router.route("How much did I pay Mutua Madrileña?", AS_OF)
    assert plan.text == "Mutua Madrilena"


def test_a_name_that_begins_a_merchant_name_is_that_merchant() -> None:
    router = bank_export_router(["Infopay Fiscal Services", "Hotel XY"], [])
    plan = router.route("How much did I spend at INFOPAY (OnlineTicket)?", AS_OF)
    assert (plan.merchants, plan.text) == (["Infopay Fiscal Services"], None)


def test_a_word_inside_a_merchant_name_is_not_a_cue() -> None:
    router = bank_export_router(["Website-Balance", "Best Buy"], [])
    spend = router.route("How much did I spend on WEBSITE-BALANCE?", AS_OF)
    assert (spend.intent, spend.merchants) == (Intent.aggregate, ["Website-Balance"])
    refund = router.route("How much did I get back from Best Buy?", AS_OF)
    assert (refund.direction, refund.merchants) == (Direction.in_, ["Best Buy"])


@pytest.mark.parametrize(
    ("question", "descriptions", "text", "direction"),
    [
        ("How much did I top up?", ["Top-Up by *1234"], "top-up", Direction.any),
    ],
)
def test_kinds_of_rows_are_found_by_their_spelling_in_descriptions(
    question: str, descriptions: list[str], text: str, direction: Direction
) -> None:
    plan = bank_export_router([], descriptions).route(question, AS_OF)
    assert (plan.intent, plan.text, plan.direction) == (Intent.aggregate, text, direction)


@pytest.mark.parametrize(
    ("question", "kinds", "intent"),
    [
        ("How many cheques were cashed?", [PaymentKind.cheque], Intent.aggregate),
        ("How much did I pay by check in May?", [PaymentKind.cheque], Intent.aggregate),
        ("How much did I withdraw at ATMs?", [PaymentKind.atm], Intent.aggregate),
        ("Show my ATM withdrawals", [PaymentKind.atm], Intent.listing),
        ("How much went out by direct debit?", [PaymentKind.direct_debit], Intent.aggregate),
        (
            "Wie viel habe ich per Lastschrift bezahlt?",
            [PaymentKind.direct_debit],
            Intent.aggregate,
        ),
        ("How much did I pay by card last month?", [PaymentKind.card], Intent.aggregate),
        ("List my standing orders", [PaymentKind.standing_order], Intent.listing),
    ],
)
def test_ways_of_paying_filter_the_rows_stored_with_that_kind(
    question: str, kinds: list[PaymentKind], intent: Intent
) -> None:
    plan = bank_export_router([], ["CHECK 1043", "ATM CASH"]).route(question, AS_OF)
    assert (plan.intent, plan.payment_kinds, plan.text) == (intent, kinds, None)
    assert not plan.categories


def test_atm_fees_are_fees_not_atm_withdrawals(router: OfflineRouter) -> None:
    plan = router.route("How much did I pay in ATM fees?", AS_OF)
    assert plan.payment_kinds == []


# --- clarify ------------------------------------------------------------------------------


def test_unknown_merchant_is_clarified_with_nearest_merchants(router: OfflineRouter) -> None:
    plan = router.route("How much did I spend at Starbux Coffee Roasters Inc", AS_OF)
    assert plan.intent is Intent.clarify
    assert "starbux coffee roasters inc" in (clarification(plan) or "").casefold()
    assert 2 <= len(suggestions(plan)) <= 4
    assert "Starbucks" in suggestions(plan)[0]


@pytest.mark.parametrize("question", ["hello", "what's the weather", "Costco spending at Costco"])
def test_suggestions_are_questions_that_route(router: OfflineRouter, question: str) -> None:
    plan = router.route(question, AS_OF)
    assert plan.intent is Intent.clarify
    assert 2 <= len(suggestions(plan)) <= 4
    for suggestion in suggestions(plan):
        assert router.route(suggestion, AS_OF).intent is not Intent.clarify, suggestion


# --- follow-ups ---------------------------------------------------------------------------


@pytest.fixture()
def groceries_june() -> IntentPlan:
    return IntentPlan(
        intent=Intent.aggregate,
        categories=["Groceries"],
        date_from=date(2025, 6, 1),
        date_to=date(2025, 6, 30),
    )


def test_follow_up_replaces_dates(router: OfflineRouter, groceries_june: IntentPlan) -> None:
    plan = router.route("and in March?", AS_OF, groceries_june)
    assert plan == groceries_june.model_copy(
        update={
            "date_from": date(2025, 3, 1),
            "date_to": date(2025, 3, 31),
            "inherited": ["categories"],
        }
    )


def test_follow_up_shapes(router: OfflineRouter, groceries_june: IntentPlan) -> None:
    chart = router.route("as a chart", AS_OF, groceries_june)
    assert (chart.intent, chart.interval, chart.categories) == (
        Intent.trend,
        Interval.month,
        ["Groceries"],
    )
    rows = router.route("list them", AS_OF, chart)
    assert (rows.intent, rows.sort, rows.limit) == (Intent.listing, SortOrder.newest, 20)
    assert (rows.date_from, rows.categories) == (date(2025, 6, 1), ["Groceries"])
    grouped = router.route("by merchant", AS_OF, groceries_june)
    assert (grouped.intent, grouped.group_by) == (Intent.aggregate, GroupBy.merchant)


def test_standalone_question_ignores_previous(
    router: OfflineRouter, groceries_june: IntentPlan
) -> None:
    plan = router.route("How much did I spend at Target in 2024?", AS_OF, groceries_june)
    assert (plan.merchants, plan.categories) == (["Target"], [])
    assert plan.date_from == date(2024, 1, 1)


# --- comparisons --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "How much did I spend at Starbucks or Chipotle in 2024?",
        "Did I make purchases of more than $100 at Amazon or Target?",
    ],
)
def test_names_joined_by_or_without_a_comparative_are_all_included(
    router: OfflineRouter, question: str
) -> None:
    plan = router.route(question, AS_OF)
    assert plan.compare == [] and len(plan.merchants) == 2


def test_periods_joined_by_or_are_always_compared(router: OfflineRouter) -> None:
    plan = router.route("groceries in May or June", AS_OF)
    assert [(s.date_from, s.date_to) for s in plan.compare] == [
        (date(2025, 5, 1), date(2025, 5, 31)),
        (date(2025, 6, 1), date(2025, 6, 30)),
    ]
    assert (plan.categories, plan.date_from, plan.date_to) == (["Groceries"], None, None)


def test_the_previous_month_is_relative_only_in_a_comparison(router: OfflineRouter) -> None:
    alone = router.route("How much did I spend the previous month?", AS_OF)
    assert (alone.date_from, alone.date_to, alone.compare) == (
        date(2025, 6, 1),
        date(2025, 6, 30),
        [],
    )
    compared = router.route("Q1 spending vs the quarter before", AS_OF)
    assert [s.date_from for s in compared.compare] == [date(2024, 10, 1), date(2025, 1, 1)]


def test_a_compared_name_the_data_lacks_is_clarified(router: OfflineRouter) -> None:
    plan = router.route("Did I spend more at Amazon than at Walmart?", AS_OF)
    assert plan.intent is Intent.clarify
    assert "Walmart" in (clarification(plan) or "")


def test_a_compared_name_that_begins_a_merchant_name_is_that_merchant() -> None:
    router = bank_export_router(["Amazon", "Infopay Fiscal Services"], [])
    plan = router.route("amazon vs infopay", AS_OF)
    assert [s.merchants for s in plan.compare] == [["Amazon"], ["Infopay Fiscal Services"]]


def test_follow_ups_of_a_comparison(router: OfflineRouter) -> None:
    dining = router.route("dining Q1 vs Q2", AS_OF)
    listed = router.route("list them", AS_OF, dining)
    assert (listed.intent, listed.compare) == (Intent.listing, [])
    in_2024 = router.route("what about Amazon vs Target in 2024?", AS_OF, dining)
    assert [s.merchants for s in in_2024.compare] == [["Amazon"], ["Target"]]
    # names replace the previous plan's names, as in any follow-up
    assert (in_2024.date_from, in_2024.categories) == (date(2024, 1, 1), [])
