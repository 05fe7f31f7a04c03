"""How the offline router understands a question: the rules that fire, follow-ups by
completeness, questions it cannot answer, which account, currencies, dates as people write them,
misspellings; and every message it gives worded in every language."""

from __future__ import annotations

import tomllib
from datetime import date

import pytest

from elastic.model.plan import INHERITABLE, SLOTS, Intent, IntentPlan
from elastic.model.results import Vocabulary
from llm.answering.answer import Suggestions
from llm.answering.composer import compose_clarify
from llm.answering.wording import TEMPLATES, wording
from llm.understanding.dates import find_date_range
from llm.understanding.follow_ups import carried_slots, without
from llm.understanding.offline_router import OfflineRouter
from llm.understanding.text_norm import normalize
from llm.understanding.typos import corrected
from tests.labeled import HOUSEHOLD, clarification, suggestions
from tests.test_router import vocabulary  # noqa: F401  (the sample data's vocabulary fixture)

AS_OF = date(2025, 7, 15)
LANGUAGES = ("en", "ar", "de", "fr", "es")


@pytest.fixture(scope="module")
def router(request: pytest.FixtureRequest) -> OfflineRouter:
    sample: Vocabulary = request.getfixturevalue("vocabulary")
    return OfflineRouter(sample)


@pytest.fixture(scope="module")
def household() -> OfflineRouter:
    return OfflineRouter(HOUSEHOLD)


# --- the rule table -----------------------------------------------------------------------------


def test_trace_lists_every_rule_that_fired_in_order(router: OfflineRouter) -> None:
    previous = router.route("How much did I spend on dining in 2024?", AS_OF)
    routed = router.trace("how much did i spnd on groceris in march 2025", AS_OF, previous)
    assert routed.rules == ("typo", "fresh_question", "amount_of_subject")
    assert routed.rule == "amount_of_subject"
    follow = router.trace("and in 2023?", AS_OF, routed.plan)
    assert follow.rules == ("follow_up", "outside_data") and follow.rule == "outside_data"


# --- follow-ups by completeness -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "inherits"),
    [
        ("and in Q2?", True),
        ("what about groceries?", True),
        ("only the savings account", True),
        ("as a chart", True),
        ("top 3?", True),
        ("how many was that?", True),
        ("what about income?", True),
        ("and how much went out?", True),
        ("What was my largest purchase in 2024?", False),
        ("And how much did I spend at Target in 2024?", False),
        ("Which accounts do I have?", False),
        ("Show my transactions at Whole Foods in May 2025", False),
        ("What's the overdraft fee?", False),
        ("How much did I spend?", False),
    ],
)
def test_only_elliptical_turns_inherit(
    router: OfflineRouter, question: str, inherits: bool
) -> None:
    previous = router.route("How much did I spend at restaurants in Q1 2025?", AS_OF)
    routed = router.trace(question, AS_OF, previous)
    assert (routed.rule == "follow_up" or "follow_up" in routed.rules) is inherits, routed


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("and the month before?", (date(2025, 5, 1), date(2025, 5, 31))),
        ("¿Y el mes anterior?", (date(2025, 5, 1), date(2025, 5, 31))),
        ("Et le mois précédent ?", (date(2025, 5, 1), date(2025, 5, 31))),
        ("and before that?", (None, date(2025, 5, 31))),
        ("the same period a year earlier", (date(2024, 6, 1), date(2024, 6, 30))),
    ],
)
def test_a_follow_up_names_a_period_from_the_one_before(
    router: OfflineRouter, question: str, expected: tuple[date | None, date | None]
) -> None:
    june = router.route("How much did I spend on dining in June 2025?", AS_OF)
    plan = router.route(question, AS_OF, june)
    assert (plan.date_from, plan.date_to) == expected and plan.categories == ["Dining"]


def test_a_period_after_the_last_one_that_has_not_come_is_said_so(router: OfflineRouter) -> None:
    since = router.route("How much have we spent on eating out since March?", AS_OF)
    routed = router.trace("what about the month after?", AS_OF, since)
    assert routed.rule == "unclear" and routed.plan.message is not None
    assert routed.plan.message.key == "date_future"


def test_what_a_follow_up_names_replaces_the_same_slot(household: OfflineRouter) -> None:
    sapphire = household.route("How much did I spend on my Sapphire card in May 2025?", AS_OF)
    amex = household.route("just the Amex", AS_OF, sapphire)
    assert amex.accounts == ["Amex Gold Card"] and amex.inherited == ["date_from", "date_to"]
    assert carried_slots(amex) == ["period"]


def test_a_slot_taken_away_leaves_the_rest(router: OfflineRouter) -> None:
    plan = router.route("How much did I spend at Target on the card over $20 in 2024?", AS_OF)
    assert set(SLOTS) >= {"subject", "accounts", "period", "amount"}
    assert {f for fields in SLOTS.values() for f in fields} == set(INHERITABLE)
    period_gone = without(plan, "period")
    assert (period_gone.date_from, period_gone.date_to) == (None, None)
    assert period_gone.merchants == ["Target"] and period_gone.min_amount == plan.min_amount
    assert without(plan, "subject").merchants == []


# --- what FinSync cannot answer -------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "rule"),
    [
        ("Who founded Costco?", "world_question"),
        ("Will it rain tomorrow?", "world_question"),
        ("Should I refinance my mortgage?", "advice"),
        ("What is my credit score?", "not_held"),
        ("Make me a budget for restaurants", "action_budget"),
        ("Move money from savings to checking", "action_transfer"),
    ],
)
def test_questions_finsync_cannot_answer_get_no_number(
    router: OfflineRouter, question: str, rule: str
) -> None:
    routed = router.trace(question, AS_OF)
    assert (routed.rule, routed.plan.intent) == (rule, Intent.clarify)
    assert suggestions(routed.plan), "says what FinSync can answer instead"
    for suggestion in suggestions(routed.plan):
        assert router.route(suggestion, AS_OF).intent is not Intent.clarify, suggestion


def test_paying_a_merchant_is_a_question_about_the_users_money(router: OfflineRouter) -> None:
    """ "What did I pay Costco?" is no question about Costco: it asks about a merchant the
    sample user has no rows for, and says so."""
    assert router.trace("What did I pay Costco in 2024?", AS_OF).rule == "unknown_name"


# --- which account, which currency -----------------------------------------------------------


def test_one_card_of_two_is_asked_which_with_a_button_each(household: OfflineRouter) -> None:
    question = "How much did I put on my card last month?"
    routed = household.trace(question, AS_OF)
    assert routed.rule == "ambiguous_account"
    said = clarification(routed.plan) or ""
    assert "“card” could be Amex Gold Card, Sapphire Preferred Card" in said
    parts, _ = compose_clarify(routed.plan, wording("en"))
    (buttons,) = [part for part in parts if isinstance(part, Suggestions)]
    assert buttons.questions == (
        "How much did I put on my Amex Gold Card last month?",
        "How much did I put on my Sapphire Preferred Card last month?",
    )
    accounts = ["Amex Gold Card", "Sapphire Preferred Card"]
    for button, account in zip(buttons.questions, accounts, strict=True):
        assert household.route(button, AS_OF).accounts == [account]


@pytest.mark.parametrize(
    ("question", "currency"),
    [
        ("How much did I spend in euros last month?", "EUR"),
        ("what did I spend in GBP in 2024", "GBP"),
        ("How much did I spend on groceries in pounds this year?", "GBP"),
        ("Combien ai-je dépensé en livres en 2024 ?", "GBP"),
    ],
)
def test_a_currency_named_filters_by_it(
    household: OfflineRouter, question: str, currency: str
) -> None:
    routed = household.trace(question, AS_OF)
    assert "currency_named" in routed.rules and routed.plan.currency == currency


def test_an_amount_in_dollars_or_an_account_named_by_its_currency_is_no_filter(
    household: OfflineRouter,
) -> None:
    assert household.route("Show purchases over 2000 dollars", AS_OF).currency is None
    euro = household.route("How much did I spend on my euro account last month?", AS_OF)
    assert (euro.currency, euro.accounts) == (None, ["Euro Current Account"])


# --- dates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "as_of", "expected"),
    [
        ("between june 2024 and the end of may 2025", AS_OF, ("2024-06-01", "2025-05-31")),
        ("since the start of 2024", AS_OF, ("2024-01-01", "2025-07-15")),
        ("until the end of march 2025", AS_OF, (None, "2025-03-31")),
        ("from the start of 2025 until the end of april", AS_OF, ("2025-01-01", "2025-04-30")),
        ("january, february and march 2025", AS_OF, ("2025-01-01", "2025-03-31")),
        ("q3 and q4 2024", AS_OF, ("2024-07-01", "2024-12-31")),
        ("2025 so far", AS_OF, ("2025-01-01", "2025-07-15")),
        ("year to date", AS_OF, ("2025-01-01", "2025-07-15")),
        ("the last 3 months", AS_OF, ("2025-04-01", "2025-06-30")),
        ("three months ago", AS_OF, ("2025-04-01", "2025-04-30")),
        ("two weeks ago", date(2025, 6, 18), ("2025-06-02", "2025-06-08")),
        ("last weekend", date(2025, 6, 18), ("2025-06-14", "2025-06-15")),
        ("since last summer", AS_OF, ("2024-06-01", "2025-07-15")),
        ("the 12 months to june 2025", AS_OF, ("2024-07-01", "2025-06-30")),
        ("monthly spending over 2024", AS_OF, ("2024-01-01", "2024-12-31")),
    ],
)
def test_dates_as_people_write_them(phrase: str, as_of: date, expected: tuple[str, str]) -> None:
    found = find_date_range(normalize(phrase), as_of)
    assert found is not None and not hasattr(found, "key"), (phrase, found)
    got = tuple(d.isoformat() if d else None for d in (found.start, found.end))
    assert got == expected, phrase


def test_an_amount_over_a_round_number_stays_an_amount(router: OfflineRouter) -> None:
    plan = router.route("Show purchases over 2000 in 2024", AS_OF)
    assert str(plan.min_amount) == "2000.01" and plan.date_from == date(2024, 1, 1)


def test_a_year_after_a_list_gives_each_item_its_year(router: OfflineRouter) -> None:
    plan = router.route("Compare dining in the first or second quarter of 2024", AS_OF)
    assert [(s.date_from, s.date_to) for s in plan.compare] == [
        (date(2024, 1, 1), date(2024, 3, 31)),
        (date(2024, 4, 1), date(2024, 6, 30)),
    ]


# --- misspellings and names ---------------------------------------------------------------------


def test_misspellings_are_put_right_but_names_are_not() -> None:
    text, fixed = corrected("hw much did i spnd on groceris at lyft", frozenset({"lyft"}))
    assert text == "how much did i spend on groceries at lyft"
    assert ("spnd", "spend") in fixed and all(typed != "lyft" for typed, _ in fixed)
    assert corrected("how many tims", frozenset())[0] == "how many times"


def test_a_proper_name_is_never_corrected(router: OfflineRouter) -> None:
    routed = router.trace("Show my Lyft rides", AS_OF)
    assert routed.rule == "unknown_name" and "“Lyft”" in (clarification(routed.plan) or "")


def test_merchants_are_named_by_their_descriptor(household: OfflineRouter) -> None:
    assert household.route("what did I spend at AMZN in 2024", AS_OF).merchants == ["Amazon"]


def test_a_question_word_never_picks_a_category_holding_it(household: OfflineRouter) -> None:
    plan = household.route("What charges did I pay in March 2025?", AS_OF)
    assert plan.categories == [] and plan.direction.value == "out"


# --- every message in every language ------------------------------------------------------------


def _keys(code: str, table: str) -> set[str]:
    tables = tomllib.loads((TEMPLATES / f"{code}.toml").read_text("utf-8"))
    return set(tables.get(table, {}))


@pytest.mark.parametrize("language", LANGUAGES[1:])
@pytest.mark.parametrize("table", ["messages", "chrome", "unit_plural"])
def test_every_language_words_every_message_and_the_apps_own_words(
    language: str, table: str
) -> None:
    missing = _keys("en", table) - _keys(language, table) - {"title", "step_line"}
    assert not missing, f"{language} [{table}] lacks {sorted(missing)}"


def test_a_message_is_never_english_text_read_back() -> None:
    """Clarifications are keys and fields: the plan holds no sentence to translate."""
    plan = IntentPlan(intent=Intent.clarify, message=None, clarification=None)
    router_plan = OfflineRouter(HOUSEHOLD).route("Who founded Costco?", AS_OF)
    assert router_plan.clarification is None and router_plan.message is not None
    assert plan.message is None
    for code in LANGUAGES:
        parts, _ = compose_clarify(router_plan, wording(code))
        assert parts[0].markdown() == wording(code).text("messages.world")
