"""The offline router read through its lexicons: named rules, vocabulary order, dates, requests
to act, and follow-ups decided by what a question says."""

from __future__ import annotations

import itertools
import re
from datetime import date

import pytest

from elastic.model.plan import (
    Direction,
    GroupBy,
    Intent,
    IntentPlan,
    Interval,
    Metric,
    PaymentKind,
    ShareOf,
)
from elastic.model.results import AccountInfo, Vocabulary
from llm.understanding import lexicon
from llm.understanding.dates import find_date_range
from llm.understanding.language import question_language
from llm.understanding.offline_router import OfflineRouter
from llm.understanding.text_norm import normalize
from tests.labeled import (
    clarification,
    load_cases,
    suggestions,
)
from tests.test_router import vocabulary  # noqa: F401  (the sample data's vocabulary fixture)

AS_OF = date(2025, 7, 15)  # a Tuesday


@pytest.fixture(scope="module")
def router(request: pytest.FixtureRequest) -> OfflineRouter:
    """The router over the sample data's vocabulary (the fixture of ``tests.test_router``)."""
    return OfflineRouter(request.getfixturevalue("vocabulary"))


def own_router(
    merchants: list[str], categories: list[str], accounts: list[str] | None = None
) -> OfflineRouter:
    """A router over a user's own merchants, categories and accounts (at one bank)."""
    own = Vocabulary(
        merchants=merchants,
        categories=categories,
        accounts=[
            AccountInfo(name, "Cedar Valley Bank", f"88{n:02d}")
            for n, name in enumerate(accounts or ["Everyday Checking"])
        ],
        first_date=date(2024, 1, 1),
        last_date=date(2025, 7, 15),
        currency="USD",
    )
    return OfflineRouter(own)


def _prev(case: dict[str, object]) -> IntentPlan | None:
    previous = case["previous"]
    return IntentPlan.model_validate(previous) if previous else None


# --- lexicons -------------------------------------------------------------------------------


def test_every_language_file_is_read_english_first() -> None:
    codes = [language.code for language in lexicon.languages()]
    assert codes[0] == "en" and "ar" in codes
    # lists of one key are merged across languages
    assert {"spend", "أنفقت"} <= set(lexicon.words("direction.out"))
    assert lexicon.table("months")["1"][:2] == ["january", "jan"]
    assert "كانون الثاني" in lexicon.table("months")["1"]


def test_cues_match_whole_words_only_where_the_language_has_them() -> None:
    aggregate = lexicon.cue("intent.aggregate")
    assert aggregate.search("total for june") and not aggregate.search("summer")
    assert aggregate.search("وكم")  # Arabic words take prefixes


@pytest.mark.parametrize(
    ("question", "rule"),
    [
        ("How much did I spend on groceries last month?", "amount_of_subject"),
        ("Show my monthly spending trend this year", "trend_words"),
        ("What is the overdraft fee?", "statement_text"),
        ("list my Amazon purchases", "rows_asked"),
        ("my priciest order at Amazon", "single_extreme"),
        ("Amazon vs Target in 2024", "comparison"),
        ("average spend per month this year", "average_per_interval"),
        ("transfer $500 to savings", "action_transfer"),
        ("hello", "off_topic"),
        ("How much did I spend in Q5 2024?", "unclear"),
    ],
)
def test_each_plan_names_the_rule_that_decided_it(
    router: OfflineRouter, question: str, rule: str
) -> None:
    routed = router.trace(question, AS_OF)
    assert routed.rule == rule, routed
    assert routed.plan == router.route(question, AS_OF)


# --- vocabulary matching order --------------------------------------------------------------


def test_and_and_ampersand_read_alike() -> None:
    router = own_router(["PG&E", "Barnes & Noble"], ["Utilities"])
    assert router.route("How much did I pay PG and E last month?", AS_OF).merchants == ["PG&E"]
    assert router.route("spending at barnes and noble in 2024", AS_OF).merchants == [
        "Barnes & Noble"
    ]


def test_a_category_of_the_user_wins_over_a_synonym() -> None:
    own = own_router([], ["Gas & Fuel", "Transportation"])
    assert own.route("How much did I spend on gas last month?", AS_OF).categories == ["Gas & Fuel"]
    synonym = own_router([], ["Transportation"])
    assert synonym.route("How much did I spend on gas last month?", AS_OF).categories == [
        "Transportation"
    ]


def test_a_merchant_named_like_a_month_keeps_its_name() -> None:
    router = own_router(["Augusta"], ["Dining"])
    plan = router.route("How much did I spend at Augusta in March 2025?", AS_OF)
    assert plan.merchants == ["Augusta"]
    assert (plan.date_from, plan.date_to) == (date(2025, 3, 1), date(2025, 3, 31))
    # a misspelt month the vocabulary does not know is still corrected
    assert normalize("spending in agust") == "spending in august"
    assert normalize("spending at augusta", {"augusta"}) == "spending at augusta"


# --- dates ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("last yr", ("2024-01-01", "2024-12-31")),
        ("this yr", ("2025-01-01", "2025-07-15")),
        ("last 2 yrs", ("2023-01-01", "2024-12-31")),
        ("q4 of last yr", ("2024-10-01", "2024-12-31")),
        ("last qtr", ("2025-04-01", "2025-06-30")),
        ("since last wk", ("2025-07-07", "2025-07-15")),
        ("in '24", ("2024-01-01", "2024-12-31")),
        ("march '24", ("2024-03-01", "2024-03-31")),
        ("H1 2024", ("2024-01-01", "2024-06-30")),
        ("H2 2024", ("2024-07-01", "2024-12-31")),
        # weeks run Monday to Sunday; 2025-07-14 is the Monday of as_of's week
        ("the week before last", ("2025-06-30", "2025-07-06")),
        ("the month before last", ("2025-05-01", "2025-05-31")),
        ("last fortnight", ("2025-06-30", "2025-07-13")),
        ("في يناير ٢٠٢٤", ("2024-01-01", "2024-01-31")),
        ("في كانون الثاني ٢٠٢٤", ("2024-01-01", "2024-01-31")),
        ("في تشرين الأول ٢٠٢٤", ("2024-10-01", "2024-10-31")),
        ("في مايو", ("2025-05-01", "2025-05-31")),
        ("في آب", ("2024-08-01", "2024-08-31")),
        # a day written with a dot before its month, as German and other languages write it
        ("am 3. märz 2025", ("2025-03-03", "2025-03-03")),
        ("am 15.mai", ("2025-05-15", "2025-05-15")),
    ],
)
def test_date_phrases(phrase: str, expected: tuple[str, str]) -> None:
    found = find_date_range(normalize(phrase), AS_OF)
    assert found is not None and not hasattr(found, "message"), phrase
    assert (found.start.isoformat(), found.end.isoformat()) == expected


def test_a_phrase_of_what_is_asked_outweighs_a_name_inside_it() -> None:
    """ "savings rate" names no savings account, and "withdraw cash" asks for cash withdrawals,
    not the Cash category."""
    router = own_router(["Cafe Nero"], ["Cash", "Dining"], ["High-Yield Savings", "Checking"])
    rate = router.route("savings rate on my checking account in 2025", AS_OF)
    assert (rate.share_of, rate.accounts) == (ShareOf.income, ["Checking"])
    cash = router.route("When did I last withdraw cash?", AS_OF)
    assert (cash.categories, cash.payment_kinds, cash.direction) == (
        [],
        [PaymentKind.atm],
        Direction.out,
    )
    assert router.route("How much did I spend on cash last year?", AS_OF).categories == ["Cash"]


def test_a_half_year_is_a_period_not_a_name() -> None:
    router = own_router(["H2O Spa", "Amazon"], ["Shopping"])
    plan = router.route("How much did I spend at Amazon in H2 2024?", AS_OF)
    assert (plan.merchants, plan.date_from, plan.date_to) == (
        ["Amazon"],
        date(2024, 7, 1),
        date(2024, 12, 31),
    )


def test_arabic_question_with_a_levantine_month(router: OfflineRouter) -> None:
    plan = router.route("كم أنفقت على البقالة في آذار ٢٠٢٥؟", AS_OF)
    assert (plan.intent, plan.direction, plan.categories) == (
        Intent.aggregate,
        Direction.out,
        ["Groceries"],
    )
    assert (plan.date_from, plan.date_to) == (date(2025, 3, 1), date(2025, 3, 31))


# --- honest limits --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "doing"),
    [
        ("transfer $500 to savings", "move money"),
        ("Can you send $50 to my savings account?", "move money"),
        ("pay my card", "pay bills or cards"),
        ("Please pay my Verizon bill", "pay bills or cards"),
        ("cancel the subscription", "change accounts, cards or subscriptions"),
        ("freeze my platinum card", "change accounts, cards or subscriptions"),
        ("ألغِ الاشتراك", "change accounts, cards or subscriptions"),
        ("حوّل ٥٠٠ إلى حساب التوفير", "move money"),
    ],
)
def test_requests_to_act_are_answered_with_what_finsync_can_read(
    router: OfflineRouter, question: str, doing: str
) -> None:
    plan = router.route(question, AS_OF)
    assert plan.intent is Intent.clarify
    said = clarification(plan) or ""
    assert "only reads" in said and f"can't {doing}" in said
    assert suggestions(plan)
    for suggestion in suggestions(plan):
        assert "{" not in suggestion
        assert router.route(suggestion, AS_OF).intent is not Intent.clarify, suggestion


def test_a_transfer_request_suggests_its_destination(router: OfflineRouter) -> None:
    plan = router.route("transfer $500 to savings", AS_OF)
    assert suggestions(plan)[0] == "How much did I transfer to High-Yield Savings this year?"


@pytest.mark.parametrize(
    "question",
    [
        "How much did I transfer to savings in 2024?",
        "wire transfer fees?",
        "What is the wire transfer fee?",
        "Transfers to savings in 2024",
        "Show my payments last month",
        "pay period deposits in 2024",
    ],
)
def test_questions_about_money_moved_are_not_requests(router: OfflineRouter, question: str) -> None:
    assert not router.trace(question, AS_OF).rule.startswith("action_")


@pytest.mark.parametrize(
    ("question", "rule"),
    [("what's the capital of France?", "world_question"), ("tell me a joke", "off_topic")],
)
def test_questions_outside_finance_say_so(router: OfflineRouter, question: str, rule: str) -> None:
    routed = router.trace(question, AS_OF)
    assert (routed.rule, routed.plan.intent) == (rule, Intent.clarify)
    assert "transactions and statements" in (clarification(routed.plan) or "")
    assert 2 <= len(suggestions(routed.plan)) <= 4


# --- conversations --------------------------------------------------------------------------


def _converse(router: OfflineRouter, questions: list[str]) -> list[tuple[IntentPlan, str]]:
    """Each question routed after the previous answer's plan, as the chat does."""
    previous: IntentPlan | None = None
    routed = []
    for question in questions:
        step = router.trace(question, AS_OF, previous)
        routed.append((step.plan, step.rule))
        previous = step.plan
    return routed


def test_a_conversation_of_edits(router: OfflineRouter) -> None:
    (first, _), (year, r1), (monthly, r2), (card, r3) = _converse(
        router,
        [
            "How much did I spend on dining last month?",
            "and in 2025?",
            "show it by month",
            "only the card",
        ],
    )
    assert (first.categories, first.date_from) == (["Dining"], date(2025, 6, 1))
    assert (r1, r2, r3) == ("follow_up", "follow_up", "follow_up")
    assert (year.categories, year.date_from, year.date_to) == (
        ["Dining"],
        date(2025, 1, 1),
        date(2025, 12, 31),
    )
    assert (monthly.intent, monthly.group_by, monthly.date_from) == (
        Intent.aggregate,
        GroupBy.month,
        date(2025, 1, 1),
    )
    assert (card.accounts, card.categories, card.group_by) == (
        ["Platinum Card"],
        ["Dining"],
        GroupBy.month,
    )


def test_a_text_question_after_a_trend_starts_fresh(router: OfflineRouter) -> None:
    _, (fee, rule) = _converse(
        router, ["Show my monthly spending trend this year", "what is the wire transfer fee?"]
    )
    assert rule != "follow_up"
    assert (fee.intent, fee.text, fee.interval) == (
        Intent.text_qa,
        "what is the wire transfer fee?",
        Interval.month,
    )
    assert (fee.date_from, fee.date_to) == (None, None)


def test_a_question_naming_its_subject_and_period_starts_fresh(router: OfflineRouter) -> None:
    _, (fresh, rule), (again, rule_again) = _converse(
        router,
        [
            "list my Amazon purchases",
            "What did I spend on groceries in March 2025?",
            "And how much did I spend at Target in 2024?",
        ],
    )
    assert (rule, rule_again) == ("amount_of_subject", "amount_of_subject")
    assert (fresh.intent, fresh.merchants, fresh.categories) == (
        Intent.aggregate,
        [],
        ["Groceries"],
    )
    assert (again.merchants, again.categories, again.date_from) == (
        ["Target"],
        [],
        date(2024, 1, 1),
    )


def test_words_pointing_back_keep_a_named_question_a_follow_up(router: OfflineRouter) -> None:
    _, (count, rule) = _converse(
        router, ["list my dining purchases", "how many of those were at Chipotle in 2024?"]
    )
    assert rule == "follow_up"
    assert (count.metric, count.merchants) == (Metric.count, ["Chipotle"])


def test_a_request_after_a_question_is_still_a_request(router: OfflineRouter) -> None:
    _, (plan, rule) = _converse(router, ["How much did I spend on Netflix in 2024?", "cancel it"])
    assert (plan.intent, rule) == (Intent.clarify, "action_cancel")


def test_lexicon_files_hold_no_duplicate_entries() -> None:
    for language in lexicon.languages():
        for section, entries in _lists(language.tables):
            assert len(entries) == len(set(entries)), f"{language.code}: {section}"
            for entry in entries:
                re.compile(entry)  # every entry is a valid pattern


def _lists(tables: dict[str, object], prefix: str = "") -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for key, value in tables.items():
        if isinstance(value, dict):
            found += _lists(value, f"{prefix}{key}.")
        elif isinstance(value, list) and key not in ("suggest",) and prefix != "categories.":
            found.append((f"{prefix}{key}", value))
    return found


# --- Arabic script names, and data the user has not loaded -----------------------------------


@pytest.mark.parametrize(
    ("written", "merchant"),
    [
        ("ستاربكس", "Starbucks"),
        ("أمازون", "Amazon"),
        ("امازون", "Amazon"),
        ("أوبر", "Uber"),
        ("لأوبر", "Uber"),
        ("هول فودز", "Whole Foods Market"),
        ("تريدر جوز", "Trader Joe's"),
        ("تشيبوتلي", "Chipotle"),
        ("شيفرون", "Chevron"),
    ],
)
def test_a_merchant_written_in_arabic_script(
    router: OfflineRouter, written: str, merchant: str
) -> None:
    assert [m.values for m in router.matcher.find(written)] == [(merchant,)]


_ORDINARY_ARABIC = [
    "كم",
    "أنفقت",
    "صرفت",
    "على",
    "المطاعم",
    "البقالة",
    "في",
    "الشهر",
    "الماضي",
    "مشتريات",
    "عملية",
    "شراء",
    "الإنفاق",
    "الربع",
    "الأول",
    "والثاني",
    "الثاني",
    "مرة",
    "كل",
    "شهر",
    "متوسط",
    "المعاملات",
    "حساب",
    "بطاقة",
    "رصيد",
    "دخلي",
    "راتب",
    "عبر",
    "أين",
    "ماذا",
    "لماذا",
    "متى",
    "هل",
    "اشتريت",
    "دفعت",
    "فاتورة",
    "الكهرباء",
    "السفر",
    "الفندق",
    "السنة",
    "هذا",
    "العام",
    "إيداع",
    "سحب",
    "نقدي",
    "التوفير",
    "الائتمان",
    "رسوم",
    "فائدة",
    "اشتراك",
    "مصاريف",
    "نفقات",
    "دخل",
    "استلمت",
    "المواصلات",
    "الوقود",
    "التأمين",
    "الإيجار",
    "تحويل",
    "أرسل",
    "ادفع",
    "سدد",
    "أوقف",
    "أكثر",
    "أقل",
    "الأسبوع",
    "فبراير",
    "مقهى",
    "القهوة",
    "البنزين",
    "محل",
    "متجر",
    "عدد",
    "مجموع",
    "إجمالي",
    "المبلغ",
    "اعرض",
    "أرني",
    "آخر",
    "معاملة",
    "دفعة",
    "منذ",
    "حتى",
    "قبل",
    "بعد",
    "خلال",
    "ريال",
    "دولار",
    "درهم",
    "جنيه",
]


def test_a_two_word_arabic_name_is_not_read_as_a_shorter_merchant(router: OfflineRouter) -> None:
    """ "وول مارت" (Walmart) is not Marriott ("ماريوت") for a user without Walmart."""
    assert router.matcher.find("وول مارت") == []
    assert [m.values for m in router.matcher.find("ماريوت")] == [("Marriott",)]
    own = own_router(["Walmart", "Marriott"], ["Groceries"])
    plan = own.route("كم أنفقت في وول مارت في ٢٠٢٤؟", AS_OF)
    assert (plan.merchants, plan.date_from) == (["Walmart"], date(2024, 1, 1))


def test_ordinary_arabic_words_name_no_merchant(router: OfflineRouter) -> None:
    phrases = [*_ORDINARY_ARABIC, *map(" ".join, itertools.pairwise(_ORDINARY_ARABIC))]
    found = {p: m.values for p in phrases for m in router.matcher.find(p) if m.kind == "merchant"}
    assert found == {}


def test_an_arabic_merchant_question_is_its_english_twin(router: OfflineRouter) -> None:
    arabic = router.route("كم أنفقت في ستاربكس في ٢٠٢٤؟", AS_OF)
    assert arabic == router.route("How much did I spend at Starbucks in 2024?", AS_OF)
    assert arabic.merchants == ["Starbucks"]


@pytest.mark.parametrize(
    "question",
    ["How much did I spend in 2019?", "compare 2023 vs 2024", "list my purchases in 2022"],
)
def test_a_period_outside_the_data_says_what_is_loaded(
    router: OfflineRouter, question: str
) -> None:
    routed = router.trace(question, AS_OF)
    assert (routed.plan.intent, routed.rule) == (Intent.clarify, "outside_data")
    assert "1 January 2024 to 30 June 2025" in (clarification(routed.plan) or "")
    assert suggestions(routed.plan)


@pytest.mark.parametrize(
    "question",
    [
        "How much did I spend since December 2023?",  # partly inside the data
        "How much did I spend in 2023 and 2024?",
        "compare 2024 vs 2025",
    ],
)
def test_a_period_partly_inside_the_data_is_answered(router: OfflineRouter, question: str) -> None:
    assert router.route(question, AS_OF).intent is Intent.aggregate


def test_a_follow_up_outside_the_data_says_so(router: OfflineRouter) -> None:
    first = router.route("How much did I spend on dining in 2024?", AS_OF)
    routed = router.trace("and in 2022?", AS_OF, first)
    assert routed.rule == "outside_data"
    assert suggestions(routed.plan)[0] == "How much did I spend on Dining in June 2025?"


@pytest.mark.parametrize(
    ("question", "bank"),
    [
        ("How much did I spend on my Chase card?", "Chase"),
        ("What did I spend on my Wells Fargo account last month?", "Wells Fargo"),
        ("list transactions at Chase bank in 2024", "Chase"),
        ("كم أنفقت ببطاقة تشيس الشهر الماضي؟", "تشيس"),  # Chase card
        ("كم أنفقت من حسابي في بنك الراجحي؟", "الراجحي"),  # my account at Al Rajhi bank
        ("اعرض معاملات حساب سيتي بنك", "سيتي"),  # my Citibank account's transactions
    ],
)
def test_an_account_not_loaded_lists_the_loaded_ones(
    router: OfflineRouter, question: str, bank: str
) -> None:
    routed = router.trace(question, AS_OF)
    assert (routed.plan.intent, routed.rule) == (Intent.clarify, "no_account")
    said = clarification(routed.plan) or ""
    assert f"“{bank}”" in said and "Platinum Card (Harbor National Bank ***4321)" in said


@pytest.mark.parametrize(
    ("question", "account"),
    [
        ("How much did I spend on my credit card in 2024?", "Platinum Card"),
        ("list transactions on my savings account", "High-Yield Savings"),
        ("How much did I spend on my Harbor National card in 2024?", "Platinum Card"),
        ("كم أنفقت ببطاقة هاربر ناشونال في ٢٠٢٤؟", "Platinum Card"),
        ("كم أنفقت ببطاقة هاربر في ٢٠٢٤؟", "Platinum Card"),  # the start of the bank's name
        ("كم أنفقت من حساب التوفير الشهر الماضي؟", "High-Yield Savings"),
        ("كم أنفقت من الحساب الجاري في ٢٠٢٤؟", "Everyday Checking"),
        ("كم أنفقت بالبطاقة في ٢٠٢٤؟", "Platinum Card"),
        ("Wie viel habe ich 2024 mit der Kreditkarte ausgegeben?", "Platinum Card"),
        ("Wie viel habe ich 2024 vom Girokonto ausgegeben?", "Everyday Checking"),
    ],
)
def test_a_loaded_account_is_still_answered(
    router: OfflineRouter, question: str, account: str
) -> None:
    plan = router.route(question, AS_OF)
    assert plan.intent is not Intent.clarify and plan.accounts == [account]


@pytest.mark.parametrize(
    "question",
    [
        "How much came in as bank credit?",
        "What did I pay for a card fee in 2024?",
        "كيف يتم حساب رسوم السحب؟",  # "حساب" is also "calculating"
        "كم دفعت رسوم بطاقة الائتمان في ٢٠٢٤؟",
    ],
)
def test_bank_and_card_words_after_function_words_name_no_account(
    router: OfflineRouter, question: str
) -> None:
    routed = router.trace(question, AS_OF)
    assert routed.rule != "no_account", clarification(routed.plan)


def test_a_bank_in_arabic_script_is_matched_by_sound(router: OfflineRouter) -> None:
    """Banks and accounts written in Arabic script are found like merchants: by the sounds
    they spell ("سيدار فالي" is Cedar Valley, "فالي" is no article)."""
    plan = router.route("كم أنفقت من بنك سيدار فالي في ٢٠٢٤؟", AS_OF)
    assert plan.accounts == ["Everyday Checking", "High-Yield Savings"]
    assert plan == router.route("How much did I spend at Cedar Valley Bank in 2024?", AS_OF)
    assert not router.matcher.spells_loaded_bank("تشيس")
    assert router.matcher.spells_loaded_bank("هاربر")


# --- German ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("german", "english"),
    [
        (
            "Wie viel habe ich 2024 für Lebensmittel ausgegeben?",
            "How much did I spend on groceries in 2024?",
        ),
        ("Zeige meine monatlichen Ausgaben 2024", "Show my monthly spending in 2024"),
        ("Meine 5 größten Einkäufe im März 2025", "My 5 largest purchases in March 2025"),
        (
            "Habe ich im ersten oder zweiten Quartal mehr für Restaurants ausgegeben?",
            "Did I spend more on restaurants in Q1 or Q2?",
        ),
        ("Überweise 500 € auf mein Sparkonto", "Transfer €500 to my savings account"),
        (
            "Wie viel habe ich in den letzten 3 Monaten ausgegeben?",
            "How much did I spend in the last 3 months?",
        ),
        (
            "Wie oft habe ich letztes Jahr bei Starbucks gekauft?",
            "How many times did I buy at Starbucks last year?",
        ),
        ("Wie viel habe ich bei Costco ausgegeben?", "How much did I spend at Costco?"),
    ],
)
def test_a_german_question_is_its_english_twin(
    router: OfflineRouter, german: str, english: str
) -> None:
    assert router.route(german, AS_OF) == router.route(english, AS_OF)


def test_a_german_question_about_terms_is_a_text_question(router: OfflineRouter) -> None:
    plan = router.route("Wie hoch ist die Überziehungsgebühr?", AS_OF)
    assert (plan.intent, plan.text) == (Intent.text_qa, "Wie hoch ist die Überziehungsgebühr?")


def _entries(tables: dict[str, object], prefix: str = "") -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for key, value in tables.items():
        if isinstance(value, dict):
            found += _entries(value, f"{prefix}{key}.")
        elif isinstance(value, list):
            found += [(f"{prefix}{key}", entry) for entry in value if isinstance(entry, str)]
    return found


def test_german_words_are_not_found_in_english_questions() -> None:
    """No German cue, rewritten phrase or category word (other than words English shares,
    such as "april") occurs in an English question of the labeled set: "im", "was" and "die"
    are cues only inside longer German phrases."""
    by_code = {language.code: language for language in lexicon.languages()}
    english, german = by_code["en"], by_code["de"]
    shared = {entry for _, entry in _entries(english.tables)} | set(english.tables["categories"])
    cues = [
        entry
        for key, entry in _entries(german.tables)
        if entry not in shared and not key.startswith(("language.", "names.", "action.lead"))
    ]
    words = (*german.tables["rewrite"], *german.tables["categories"])
    cues += [re.escape(word) for word in words if word not in shared]
    found = re.compile(r"\b(?:" + "|".join(cues) + r")\b")
    questions = [
        case["question"]
        for case in load_cases(every_vocabulary=True)
        if not case["id"].startswith("de-")
        and "language" not in case
        and question_language(case["question"]) == "en"
    ]
    assert len(questions) > 500
    assert {q: m.group() for q in questions if (m := found.search(q.casefold()))} == {}
