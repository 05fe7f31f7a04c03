"""The phrase patterns the offline router reads questions with, compiled once from the lexicons.

Every word is data in ``lexicon/<language>.toml``; this module only puts the lists together into
the shapes questions take ("the five largest purchases", "spending by merchant", "Amazon vs
Target"). Each pattern is named after what it finds.
"""

from __future__ import annotations

import re

from elastic.model.plan import Direction, Interval
from llm.understanding import lexicon
from llm.understanding.text_norm import COUNT, NUMBER_WORDS

Pattern = re.Pattern[str]

_WORD = r"[\w'-]+"
_NAME = r"[^\W\d_][\w'&.-]*"


def _any(*paths: str) -> str:
    """The entries of every list at ``paths`` as one group."""
    return "(?:" + "|".join(entry for path in paths for entry in lexicon.words(path)) + ")"


def _words(path: str) -> frozenset[str]:
    return frozenset(lexicon.words(path))


# --- rows and their sizes ---------------------------------------------------------------------
ONE_ROW = _any("rows.one")
MANY_ROWS = _any("rows.many")
LARGEST_WORD = _any("metric.largest")
SMALLEST_WORD = _any("metric.smallest")
ROW_NOUN = re.compile(rf"\b(?:{MANY_ROWS}|{ONE_ROW})\b")
ROWS = re.compile(rf"\b{MANY_ROWS}\b")
NEUTRAL_ROWS = lexicon.cue("rows.neutral")
AMOUNT_TALK = lexicon.cue("rows.amounts")
SINGLE_EXTREME = re.compile(
    rf"\b(?P<sup>{LARGEST_WORD}|{SMALLEST_WORD})\s+(?:{_any('extreme.single')}\s+)?"
    rf"(?:{_WORD}\s+)?(?:{ONE_ROW}|{_any('extreme.things')})\b"
    rf"(?!\s+{_any('extreme.not_after')})|\b{_any('extreme.phrases')}\b"
)
# An average of transactions, not of a period's total: "average purchase per month".
_AVERAGED = _any("rows.averaged")
AVERAGE_ROW = re.compile(
    rf"\b{_any('metric.average')}\s+(?:{_WORD}\s+)?{_AVERAGED}s?\b|"
    rf"\b{_any('rows.per')}\s+(?:{_WORD}\s+)?{_AVERAGED}\b"
)
ROW_CATEGORIES = tuple(
    (lexicon.cue(f"rows.categories.{category}"), category)
    for category in lexicon.table("rows.categories")
)
SIGNED_ROWS = (
    (lexicon.cue("rows.signed.out"), Direction.out),
    (lexicon.cue("rows.signed.in"), Direction.in_),
)

# --- what is asked ----------------------------------------------------------------------------
AGGREGATE = lexicon.cue("intent.aggregate")
HOW_MUCH = lexicon.cue("intent.how_much")
TREND = lexicon.cue("intent.trend")
LIST_STRONG = lexicon.cue("intent.list_strong")
LIST_VERB = lexicon.cue("intent.list_verb")
COUNT_METRIC = lexicon.cue("metric.count")
MEDIAN = lexicon.cue("metric.median")
AVERAGE = lexicon.cue("metric.average")
INTERVALS = [
    (Interval(unit), lexicon.cue(f"interval.{unit}")) for unit in lexicon.table("interval")
]
NET = lexicon.cue("direction.net")
MONEY_IN = lexicon.cue("direction.in")
MONEY_OUT = lexicon.cue("direction.out")

# --- groupings, order, how many -----------------------------------------------------------------
_TOP = rf"{_any('groups.top')}(?:\s+{COUNT})?"
_BY = _any("groups.by")
_WHICH = rf"(?:{_any('groups.which')}|{_TOP})"
_PLACES = _any("groups.places")
GROUP_CATEGORY = re.compile(
    rf"\b(?:{_BY}\s+{_any('groups.category')}|{_WHICH}\s+{_any('groups.category')}|"
    rf"{_any('groups.category_phrases')})\b"
)
GROUP_MERCHANT = re.compile(
    rf"\b(?:{_BY}\s+(?:{_WORD}\s+){{0,2}}?{_PLACES}|{_WHICH}\s+(?:{_WORD}\s+){{0,2}}?{_PLACES}|"
    rf"{_any('groups.merchant_phrases')})\b"
)
GROUP_ACCOUNT = re.compile(
    rf"\b(?:{_BY}\s+{_any('groups.account')}|{_any('groups.account_phrases')})\b"
)
TOP_GROUPS = re.compile(rf"\b{_TOP}\b")
BREAKDOWN = lexicon.cue("groups.breakdown")
GROUP_WEEKDAY = lexicon.cue("groups.weekday_phrases")
GROUP_WEEKEND = lexicon.cue("groups.weekend_phrases")
DISTINCT = lexicon.cue("groups.distinct")
DISTINCT_CATEGORY = lexicon.cue("groups.distinct_category")
DISTINCT_ACCOUNT = lexicon.cue("groups.distinct_account")
LARGEST = re.compile(rf"\b(?:{LARGEST_WORD}|{_any('sort.largest')})\b")
SMALLEST = re.compile(rf"\b{SMALLEST_WORD}\b")
OLDEST = lexicon.cue("sort.oldest")
LIMITS = (
    re.compile(rf"\b{_any('groups.top')}\s+(?P<n>{COUNT})\b"),
    re.compile(
        rf"\b(?P<n>{COUNT})\s+(?:{_any('limits.after_count')}|{LARGEST_WORD}|{SMALLEST_WORD})\b"
    ),
    re.compile(rf"\b{_any('limits.before_count')}\s+(?P<n>{COUNT})\b"),
    re.compile(rf"\b(?P<n>{COUNT})\s+(?:{_WORD}\s+){{0,2}}?{MANY_ROWS}\b"),
)

# --- kinds of question beyond totals ----------------------------------------------------------
SHARE = lexicon.cue("kinds.share")
OF_INCOME = lexicon.cue("kinds.of_income")
SAVINGS_RATE = lexicon.cue("kinds.savings_rate")
UNITS = {word: Interval(unit) for unit, words in lexicon.table("unit").items() for word in words}
_UNIT = "(?:" + "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True)) + ")"
_HIGHEST = _any("kinds.peak_highest")
_LOWEST = _any("kinds.peak_lowest")
PEAK_HIGHEST = re.compile(rf"\b{_HIGHEST}\b")
PEAK_LOWEST = re.compile(rf"\b{_LOWEST}\b")
# "which month", "in what quarter": a period asked for by its rank.
PEAK_WHICH = re.compile(rf"\b{_any('kinds.peak_which')}\s+(?P<unit>{_UNIT})\b")
# "my cheapest month", "the highest-spending quarter", "best month for income".
PEAK_NAMED = re.compile(
    rf"\b(?P<sup>{_HIGHEST}|{_LOWEST})(?:[- ](?:spending|earning|income|paying))?[- ]"
    rf"(?P<unit>{_UNIT})\b"
)
CHANGES = {
    "grew": lexicon.cue("kinds.changes_grew"),
    "shrank": lexicon.cue("kinds.changes_shrank"),
    "either": lexicon.cue("kinds.changes_either"),
}
CHANGES_GROUPS = lexicon.cue("kinds.changes_groups")
# "from A to B", "between A and B" in a question about changes: the two periods compared.
CHANGES_JOINED = tuple(re.compile(rf"\b{entry}") for entry in lexicon.words("kinds.changes_joined"))
BALANCE_LOWEST = lexicon.cue("kinds.balance_lowest")
BALANCE_HIGHEST = lexicon.cue("kinds.balance_highest")
BALANCE_OVER_TIME = lexicon.cue("kinds.balance_over_time")
BALANCE_STATED = lexicon.cue("kinds.balance_stated")
RECURRING = lexicon.cue("kinds.recurring")
RECURRING_COST = lexicon.cue("kinds.recurring_cost")
DOUBLE = lexicon.cue("kinds.double")
HIGH = lexicon.cue("kinds.high")
UNUSUAL = lexicon.cue("kinds.unusual")
FIRST = lexicon.cue("kinds.first")
LAST = lexicon.cue("kinds.last")
# Words of these kinds are what is asked, never a name of the user's data ("duplicate charges").
KIND_CUES = (
    DOUBLE, HIGH, UNUSUAL, RECURRING, DISTINCT, MEDIAN, GROUP_WEEKDAY, GROUP_WEEKEND, SHARE,
    SAVINGS_RATE, FIRST, LAST,
)  # fmt: skip

# --- statements -------------------------------------------------------------------------------
PERSONAL = lexicon.cue("statement.personal")
POLICY = lexicon.cue("statement.policy")
QUESTION_FORM = re.compile(rf"^{_any('statement.question_form')}\b")
BALANCE = lexicon.cue("statement.balance")
HOW_IT_WORKS = lexicon.cue("statement.how_it_works")
FACTS = tuple(
    (name, lexicon.cue(f"statement.facts.{name}")) for name in lexicon.table("statement.facts")
)
FEE_TERMS = lexicon.cue("fees.terms")
FEE_KINDS: dict[str, str] = lexicon.table("fees.kinds")
FEE_KIND = re.compile(
    rf"\b(?P<kind>{'|'.join(sorted(map(re.escape, FEE_KINDS), key=len, reverse=True))})"
    rf"\s+{_any('fees.noun')}\b"
)
WITHOUT_TRANSFERS = re.compile(_any("transfers.excluded"))

# --- accounts and names -----------------------------------------------------------------------
LAST4 = re.compile(
    rf"\b{_any('account_words.last4')}\s*(?:x+|\*+)?\s*(?P<last4>\d{{4}})\b|"
    r"(?:x{2,}|\*{2,})(?P<masked>\d{4})\b"
)
ACCOUNT_DESTINATION = re.compile(rf"\b{_any('account_words.destination')}$")
ACCOUNT_NAMED = re.compile(
    rf"\b{_any('account_words.named_before')} (?P<name>{_NAME}(?: {_NAME})?) "
    rf"{_any('account_words.named_nouns')}\b"
)
_DETERMINER = rf"(?:{_any('names.determiners')}\s+)?"
NAME_AFTER = re.compile(rf"\b{_any('names.after')}\s+{_DETERMINER}(?P<name>{_NAME})")
PAYEE = re.compile(rf"\b{_any('names.payee')}\s+{_DETERMINER}(?P<name>{_NAME})")
NAME_BEFORE_ROWS = re.compile(rf"\b{_any('names.before_rows')}\s+(?P<name>{_NAME})\s+{MANY_ROWS}\b")
NAME_END = _words("names.end")
_WORDS_3 = r"[^\W\d_]+(?: [^\W\d_]+){0,2}"
MEANING_AFTER = re.compile(rf"\b{_any('names.meaning_after')}\s+(?P<name>{_WORDS_3})")
MEANING_BEFORE = re.compile(rf"(?P<name>{_WORDS_3})\s+{_any('names.meaning_before')}\b")
NOT_NAMES = _words("names.not_names")
ACCOUNT_ADJECTIVES = (
    _words("account_words.adjectives") | NOT_NAMES | NAME_END | frozenset(NUMBER_WORDS)
)

# --- follow-ups -------------------------------------------------------------------------------
FOLLOW_START = re.compile(rf"^{_any('intent.follow_start')}\b")
ANAPHORA = lexicon.cue("intent.anaphora")
POINTING = lexicon.cue("intent.pointing")
NARROW = lexicon.cue("intent.narrow")
LIST_FOLLOW = lexicon.cue("intent.list_follow")
CHART_FOLLOW = lexicon.cue("intent.chart_follow")
SUBJECT_IN = lexicon.cue("intent.subject_in")

# --- comparisons ------------------------------------------------------------------------------
_VERSUS = _any("compare.versus")
_OR = _any("compare.or")
VERSUS = re.compile(rf"\b{_VERSUS}\b")
VERSUS_START = re.compile(rf"^{_VERSUS}\b")
OR = re.compile(rf"\b{_OR}\b")
COMPARING = re.compile(rf"\b(?:{_VERSUS}|{_OR}|{_any('compare.words')})\b")
JOINED = tuple(re.compile(rf"\b{entry}") for entry in lexicon.words("compare.joined"))
COMPARATIVE = lexicon.cue("compare.comparative")
RELATIVE = re.compile(
    rf"\b(?:{_VERSUS}|{_OR})\s+(?:{_any('compare.relative_lead')}\s+)?"
    rf"(?P<rel>{_any('compare.relative')})\b"
)
COMPARED_NAME = re.compile(
    rf"\b(?:{_VERSUS}|{_OR})\s+(?:{_any('compare.name_lead')}\s+)?{_DETERMINER}(?P<name>{_NAME})"
)
NOT_COMPARED_NAMES = _words("compare.not_names")

# --- money or not -----------------------------------------------------------------------------
FINANCE = lexicon.cue("topic.finance")
ADVICE = lexicon.cue("scope.advice")
WORLD = lexicon.cue("scope.world")
NOT_HELD = lexicon.cue("scope.not_held")
ACCOUNTS_HELD = lexicon.cue("scope.accounts_held")
_NOT_BEFORE_CURRENCY = rf"(?!\s+{_any('currencies.not_before')}\b)"
CURRENCIES = tuple(
    (code, re.compile(rf"(?<!\w)(?:{'|'.join(words)})(?!\w){_NOT_BEFORE_CURRENCY}"))
    for code, words in lexicon.table("currencies").items()
    if code != "not_before"
)
SINGULAR_ACCOUNT = lexicon.cue("account_words.singular")
