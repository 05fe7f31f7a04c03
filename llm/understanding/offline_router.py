"""Offline intent router: a question becomes an IntentPlan by rules, with no model and no network.

A question is read once (``_read``): dates, amounts and account numbers are found and blanked
out, the rest is matched against the indexed vocabulary and scanned for cue words. The reading
then becomes a plan, either on its own or, for a follow-up ("and in March?", "as a chart"), as
an edit of the previous plan.

Cue words (intents, metrics, directions, intervals, requests to act) come from the lexicons
(``llm/understanding/lexicon/*.toml``), one file per language. ``OfflineRouter.trace`` gives the
plan with the name of the rule that decided it.

Choices worth knowing (docs/ARCHITECTURE.md semantics otherwise):

- A request to act ("transfer $500 to savings", "cancel my subscription") is answered as a
  clarification: FinSync only reads data, and suggests what it can tell instead. A question
  naming nothing about money or the user's data is answered the same way.
- A question that asks something, names its own subject and gives its period starts fresh,
  even after "and"; otherwise opening words ("and", "only") and words pointing back ("it",
  "those") make it an edit of the previous plan.

- Listings without a number return ``DEFAULT_LISTING_LIMIT`` rows, newest first.
- "largest/smallest <single thing>" ("my largest purchase", "the priciest order at Amazon") is
  an aggregate ``max``/``min`` (the executor finds the transaction itself); plural or counted
  superlatives ("five largest payments") are listings sorted by amount, and so is a single
  one naming neither direction nor names ("my largest transaction"). Rides, taxis and cabs
  are the Transportation category when nothing else is named ("my cheapest ride").
- "per month" with how much / total is an aggregate grouped by month; any other time-bucket
  wording ("monthly", "by week", "as a chart") is a trend, and so is "how many ... each month".
- "average per month / monthly average" is the total divided by the months of the period
  (``per``); "average purchase per month" is the average transaction, month by month.
- "top N merchants/categories" keeps the N largest groups (``top``).
- A comparison ("Q1 or Q2", "2024 vs 2025", "Amazon versus Target", "more in June than May",
  "compare dining and groceries", "difference between X and Y") is an aggregate with one
  side per period or name; the kind named on every side of the comparing word is compared,
  anything named on one side only is shared. "or" compares periods, and names only with a
  comparative ("more", "which"); otherwise names joined by "or" are all included.
- "salary / paycheck / payroll / wages" mean money in from the Income category; "income"
  alone means all money in (no category).
- An account named after "to"/"into" in a transfer question is the destination, not a filter.
- A name after "at/from/with/to/on" or "pay" ("How much did I pay KPN?") that matches nothing
  indexed is looked up as the start of a merchant's name, then in the descriptions; found
  nowhere, it makes the question a clarification, with the nearest merchants as suggestions.
- "debit"/"credit" as a row ("the largest single debit") means money out/in.
- Counting transfers counts both legs: direction any.
- Words naming a kind of row that only descriptions carry ("cheques", "top-ups") filter the
  descriptions by the first spelling the user's rows contain.
- A date or amount that cannot be used as written ("2024-13-01", "Q5 2024", "next month",
  "over $12.345") makes the question a clarification that quotes it, with the corrected
  question as the suggestion when the correction is obvious; a follow-up too.
- Data the user has not loaded gets a clarification naming what is loaded, never a zero
  (``coverage``): a period entirely outside the loaded transactions, or an account named by a
  bank or brand the user has no account with ("my Chase card", "بطاقة تشيس"). A period partly
  inside is answered.
- Arabic and German question shapes ("أكبر 3 مشتريات", "الربع الأول أم الثاني", "Meine 5
  größten Einkäufe") are read as their English twins through the lexicons' rewrites;
  merchants, accounts and banks written in Arabic script are matched by sound
  (``arabic_names``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date

from elastic.model.plan import (
    MAX_LIMIT,
    MAX_SIDES,
    TRANSFERS_CATEGORY,
    CompareSide,
    Direction,
    GroupBy,
    Intent,
    IntentPlan,
    Interval,
    Metric,
    SortOrder,
)
from elastic.model.results import Vocabulary
from llm.understanding import lexicon
from llm.understanding.amounts import AmountBounds, AmountProblem, find_amount_bounds
from llm.understanding.arabic_names import ARABIC_LETTERS, arabic_skeletons
from llm.understanding.coverage import outside_data, unknown_account
from llm.understanding.dates import (
    DateProblem,
    DateRange,
    find_date_range,
    unit_before,
    warm_up,
    year_earlier,
)
from llm.understanding.text_norm import (
    COUNT,
    NUMBER_WORDS,
    blank,
    normalize,
    parse_count,
    strip_accents,
)
from llm.understanding.vocabulary import Kind, VocabMatcher

DEFAULT_LISTING_LIMIT = 20
INCOME_CATEGORY = "Income"
_PROBLEMS = (DateProblem, AmountProblem)


_TXN_ONE = (
    r"(?:purchase|transaction|payment|charge|expense|order|deposit|bill|withdrawal|ride|refund|"
    r"debit(?!\s+cards?)|credit(?!\s+(?:cards?|limits?|scores?|unions?)))"
)
_TXN_MANY = (
    r"(?:transactions|purchases|payments|charges|expenses|orders|deposits|withdrawals|rides|"
    r"trips|transfers|items|debits|credits|refunds|paychecks|bills|visits|ones)"
)
_SUPER_MAX = lexicon.alternation("metric.largest")
_SUPER_MIN = lexicon.alternation("metric.smallest")

_AGGREGATE = lexicon.cue("intent.aggregate")
_COUNT = lexicon.cue("metric.count")
_AVG = lexicon.alternation("metric.average")
_AVERAGE = re.compile(rf"\b(?:{_AVG})\b")
# An average of transactions, not of a period's total: "average purchase per month".
_ROW_WORDS = r"transaction|purchase|payment|charge|order|visit|ride|ticket|amount|size"
_AVERAGE_ROW = re.compile(
    rf"\b(?:{_AVG})\s+(?:[\w'-]+\s+)?(?:{_ROW_WORDS})s?\b|"
    rf"\bper\s+(?:[\w'-]+\s+)?(?:{_ROW_WORDS})\b"
)
_SINGLE_EXTREME = re.compile(
    rf"\b(?P<sup>{_SUPER_MAX}|{_SUPER_MIN})\s+(?:single\s+)?(?:[\w'-]+\s+)?"
    rf"(?:{_TXN_ONE}|one|thing|item)\b"
    r"(?!\s+categor)|\b(?:the most i(?:'ve| have)? (?:ever )?(?:spent|paid)|"
    r"in (?:one|a single) (?:go|purchase|transaction))\b"
)
FEES_CATEGORY = "Fees"
_FEE_KIND = re.compile(
    r"\b(?P<kind>overdraft|non-network atm|atm|foreign transaction|monthly service|service|"
    r"late payment|late)\s+fees?\b"
)
_FEE_TEXT = {"monthly service": "service", "non-network atm": "atm", "late payment": "late"}
_TREND = lexicon.cue("intent.trend")
_INTERVALS = [
    (Interval(unit), lexicon.cue(f"interval.{unit}")) for unit in lexicon.table("interval")
]
_TOP = rf"top(?:\s+{COUNT})?"
# Where money is spent: "each grocery store", "every supermarket" are merchants.
_PLACES = r"(?:merchant|store|shop|vendor|payee|supermarket|restaurant)s?"
_GROUP_WORDS = r"(?:by|per|each|every|across|for each|split by|broken down by|grouped by)"
_GROUPS = [
    (
        GroupBy.category,
        re.compile(
            rf"\b(?:{_GROUP_WORDS}\s+categor(?:y|ies)|(?:which|what|{_TOP})\s+categor(?:y|ies)|"
            r"(?:expense|spending)\s+categor(?:y|ies)|spen[dt] the most on)\b"
        ),
    ),
    (
        GroupBy.merchant,
        re.compile(
            rf"\b(?:{_GROUP_WORDS}\s+(?:[\w'-]+\s+){{0,2}}?{_PLACES}|"
            rf"(?:which|what|{_TOP})\s+(?:[\w'-]+\s+){{0,2}}?{_PLACES}|"
            r"where (?:did|do) i spend)\b"
        ),
    ),
    (GroupBy.account, re.compile(rf"\b(?:{_GROUP_WORDS}\s+accounts?|which accounts?)\b")),
]
_TOP_GROUPS = re.compile(rf"\b{_TOP}\b")
_BREAKDOWN = re.compile(r"\b(?:breakdown|break (?:it |this |that |them )?down)\b")
_LIST_STRONG = lexicon.cue("intent.list_strong")
_LIST_VERB = lexicon.cue("intent.list_verb")
_TXN_NOUN = re.compile(rf"\b(?:{_TXN_MANY}|{_TXN_ONE})\b")
_TXN_ROWS = re.compile(rf"\b{_TXN_MANY}\b")
_TRANSACTIONS = re.compile(r"\btransactions?\b")
_AMOUNT_TALK = re.compile(r"\b(?:spend|spent|spending|spends|earn|earned|income|net|cost|costs)\b")
_LARGEST = re.compile(rf"\b(?:{_SUPER_MAX}|top|by (?:amount|size|value))\b")
_SMALLEST = re.compile(rf"\b(?:{_SUPER_MIN})\b")
_OLDEST = re.compile(r"\b(?:oldest|earliest|first)\b")
_LIMITS = [
    re.compile(rf"\btop\s+(?P<n>{COUNT})\b"),
    re.compile(
        rf"\b(?P<n>{COUNT})\s+(?:most\s+recent|latest|newest|recent|last|first|oldest|earliest|"
        rf"{_SUPER_MAX}|{_SUPER_MIN})\b"
    ),
    re.compile(rf"\b(?:last|latest|first|recent)\s+(?P<n>{COUNT})\b"),
    re.compile(rf"\b(?P<n>{COUNT})\s+(?:[\w'-]+\s+){{0,2}}?{_TXN_MANY}\b"),
]
_NET = lexicon.cue("direction.net")
_IN = lexicon.cue("direction.in")
_OUT = lexicon.cue("direction.out")
_PERSONAL = re.compile(
    r"\b(?:(?<!how )(?:did|do|have|had) i|i(?:'ve| have)? (?:ever |also |just )?"
    r"(?:spent|spend|paid|pay|earned|earn|received|receive|bought|buy|made|make|got|get|"
    r"transferred|withdrew|deposited)|i've|cost me|"
    r"my (?:spending|expenses|income|purchases|transactions|payments|deposits|earnings))\b"
)
_POLICY = re.compile(
    r"\b(?:apr|apy|interest rates?|rates?|grace period|polic(?:y|ies)|terms|fine print|"
    r"minimum payment|minimum balance|minimum due|due date|due|credit limit|limits?|balances?|"
    r"statements?|routing number|account number|overdraft protection|waived?|waiver|avoid|"
    r"penalt(?:y|ies)|dispute|calculated|calculate|computed|compounded|cash advance|"
    r"available credit|allowed|eligible|requirements?|explain)\b"
)
_QUESTION_FORM = re.compile(
    r"^(?:what(?:'s| is| are| was| were| does| do)?|whats|how (?:is|are|does|do|can)|"
    r"how (?:much|many)(?: [\w'-]+){0,3} (?:is|are|does|can|could|will|would)|when|why|does|do|"
    r"is|are|(?:can|could|will)(?! you)|explain|tell me about)\b"
)
# Balances live in statement text, not in transaction sums.
_BALANCE = re.compile(
    r"\b(?:balances?|how much (?:money )?(?:is|do i have|have i got) (?:left )?in)\b"
)
# Which statement fact a balance question asks for; a bare "balance" is the latest closing one.
_FACTS = (
    ("opening_balance", re.compile(r"\b(?:opening|starting|beginning|initial)\s+balance")),
    ("available_balance", re.compile(r"\bavailable\s+balance")),
    ("minimum_payment", re.compile(r"\bminimum\s+(?:payment|amount)")),
    ("due_date", re.compile(r"\bwhen\b.*\bdue\b|\bdue\s+date\b")),
    (
        "amount_due",
        re.compile(r"\b(?:amount|balance|payment)\s+due\b|\bstatement balance\b|\bdo i owe\b"),
    ),
    ("credit_limit", re.compile(r"\bcredit\s+(?:limit|line)\b")),
    (
        "closing_balance",
        re.compile(
            r"\b(?:closing|ending|end|final|new|current|latest)\s+balance\b|"
            r"\bwhat(?:'s| is| was) (?:my|the|our) (?:account )?balance\b|"
            r"\bhow much (?:money )?(?:is|do i have|have i got) (?:left )?in\b"
        ),
    ),
)
# How a figure works, not what it is: "How is the minimum payment calculated?"
_NOT_A_FIGURE = re.compile(r"\b(?:how (?:is|are|do|does)|calculat\w*|why|waive\w*|avoid\w*)\b")
# Rows named as debits or credits: money out or in.
_SIGNED_ROWS = (
    (re.compile(r"\bdebits?\b(?!\s+cards?)"), Direction.out),
    (re.compile(r"\bcredits?\b(?!\s+(?:cards?|limits?|scores?|unions?))"), Direction.in_),
)


@dataclass(frozen=True)
class _RowKind:
    """A kind of row that only descriptions name: the spellings tried in the user's
    descriptions (the first found wins) and the direction it implies, if any."""

    pattern: re.Pattern[str]
    spellings: tuple[str, ...]
    direction: Direction | None = None


# Top-ups move money between the user's own card, wallet and account: both sides count.
_DESCRIBED_KINDS = (
    _RowKind(re.compile(r"\b(?:cheques?|checks)\b"), ("cheque", "chèque", "check")),
    _RowKind(
        re.compile(r"\btop(?:ped|ping)?[- ]?ups?\b"), ("top-up", "top up", "topup"), Direction.any
    ),
)
# "(excluding transfers between my own accounts)" restates what spend and income mean.
_WITHOUT_TRANSFERS = re.compile(
    r"\(?\b(?:excluding|excl\.?|without|not counting|except(?: for)?|apart from|other than|"
    r"leaving out)\s+(?:the\s+|any\s+)?(?:internal\s+|own[- ]account\s+)?transfers?"
    r"(?:\s+(?:between|among)\s+(?:my\s+)?(?:own\s+)?accounts)?\b\)?"
)
MIN_DESCRIBED = 3  # shorter words match too many descriptions by chance
_FEE_TERMS = re.compile(r"\b(?:fees?|charges?|interest|penalt(?:y|ies)|overdra\w*|wire|atm)\b")
_LAST4 = re.compile(
    r"\b(?:ending(?: in)?|ends? in|last (?:4|four)(?: digits)?|account|card|no\.?|number|#)"
    r"\s*(?:x+|\*+)?\s*(?P<last4>\d{4})\b|(?:x{2,}|\*{2,})(?P<masked>\d{4})\b"
)
_ACCOUNT_DESTINATION = re.compile(r"\b(?:to|into)\s+(?:my\s+|the\s+)?$")
_NAME_AFTER = re.compile(r"\b(?:at|from|with|to|on)\s+(?:the\s+|my\s+)?(?P<name>[^\W\d_][\w'&.-]*)")
_PAYEE = re.compile(r"\b(?:pay|paid|paying)\s+(?:the\s+)?(?P<name>[^\W\d_][\w'&.-]*)")
_NAME_BEFORE_ROWS = re.compile(
    rf"\b(?:my|the|all|any)\s+(?P<name>[^\W\d_][\w'&.-]*)\s+{_TXN_MANY}\b"
)
_NAME_END_WORDS = (
    "in on at of during for since between over under above below from to with and or by per "
    "each vs versus compared last this that so did do i was were is are how what when my"
)
_NAME_END = frozenset(_NAME_END_WORDS.split()) | frozenset(lexicon.words("names.end"))
_NOT_NAME_WORDS = (
    "least most all home work it them that those this these average end start beginning same "
    "time times once online weekends weekend night different other each every any one top a "
    "an me us you what which where date stores store places merchants shops everything "
    "anything something things stuff purchases transactions payments spending expenses money "
    "account accounts total recent latest newest oldest biggest largest smallest last first big "
    "small large foreign international pending recurring automatic debit credit cash atm fee "
    "income outgoing incoming own new old monthly weekly daily yearly annual regular off back "
    "out bill bills tax taxes overall altogether extra more less twice again upfront early"
)
_NOT_NAMES = frozenset(_NOT_NAME_WORDS.split())
_FOLLOW_START = re.compile(rf"^(?:{lexicon.alternation('intent.follow_start')})\b")
_ANAPHORA = lexicon.cue("intent.anaphora")
_POINTING = lexicon.cue("intent.pointing")
_NARROW = lexicon.cue("intent.narrow")
_LIST_FOLLOW = lexicon.cue("intent.list_follow")
_CHART_FOLLOW = lexicon.cue("intent.chart_follow")
# Comparing words: the sides of a comparison are what they separate.
_VERSUS = r"vs|versus|compared (?:with|to)|as opposed to|than"
_CUE = re.compile(rf"\b(?:{_VERSUS})\b")
_OR = re.compile(r"\bor\b")
_COMPARING = re.compile(rf"\b(?:{_VERSUS}|or|compar\w*|differ\w*)\b")
# "compare X and Y", "difference between X and Y", "How does June compare to May?": the
# joining word separates the sides ("between 2024 and 2025" is then not one range).
_JOINED = (
    re.compile(r"\bcompar(?:e|es|ing)\s+(?P<join>to|with|against)\b"),
    re.compile(
        r"\b(?:compare|comparing|comparison (?:of|between)|"
        r"differ(?:ence|ences|s|ed)?(?:\s+[\w'-]+){0,4}?\s+between)"
        r"\s+.+?\s(?P<join>and|with|to|against)\s"
    ),
)
_COMPARATIVE = re.compile(
    r"\b(?:more|less|fewer|higher|lower|bigger|larger|smaller|greater|most|least|cheaper|"
    r"pricier|which)\b"
)
# A side named from the other one: "than the month before", "vs the same period last year".
_RELATIVE = re.compile(
    rf"\b(?:{_VERSUS}|or)\s+(?:with\s+|to\s+|in\s+|during\s+)?(?P<rel>(?:the\s+)?(?:"
    r"(?P<before>week|month|quarter|year)\s+before|"
    r"(?:previous|prior|preceding)\s+(?P<previous>week|month|quarter|year)|"
    r"(?P<year_ago>same\s+(?:period|time|dates?|days?|weeks?|months?|quarters?)\s+"
    r"(?:last|a|the\s+(?:previous|prior))\s+year|(?:a\s+)?year\s+(?:before|earlier))))\b"
)
# After a comparing word, a name the data may not have: "Amazon vs Walmart".
_COMPARED_NAME = re.compile(
    rf"\b(?:{_VERSUS}|or)\s+(?:at\s+|on\s+|in\s+|with\s+)?(?:the\s+|my\s+)?"
    r"(?P<name>[^\W\d_][\w'&.-]*)"
)
_NOT_COMPARED_WORDS = (
    "before usual normal expected ever average budget planned typical previous others other "
    "anyone everyone last this next not"
)
_NOT_COMPARED_NAMES = frozenset(_NOT_COMPARED_WORDS.split())
# An account named by its bank or brand: "my Chase card", "at Wells Fargo bank".
_ACCOUNT_NAMED = re.compile(
    r"\b(?:my|the|at|from|with|on|in|of) (?P<name>[^\W\d_][\w'&.-]*(?: [^\W\d_][\w'&.-]*)?)"
    r" (?:bank|card|credit card|debit card|account|checking|savings)\b"
)
_ACCOUNT_ADJECTIVE_WORDS = (
    "my the our credit debit savings saving checking chequing current joint main primary "
    "secondary business personal visa mastercard travel rewards everyday prepaid gift bank "
    "card account high-yield high yield which what this that"
    # Function words are never a bank's name: "came in as bank credit".
    " as a an to for by per each all any some every its their your his her"
)
_ACCOUNT_ADJECTIVES = (
    frozenset(_ACCOUNT_ADJECTIVE_WORDS.split()) | _NOT_NAMES | _NAME_END | frozenset(NUMBER_WORDS)
)
# The same in Arabic script, where the name follows: "بنك تشيس", "ببطاقة أمريكان إكسبريس".
_ARABIC_WORD = rf"{ARABIC_LETTERS}+"
_BANK_NAMED_ARABIC = re.compile(
    rf"(?<!\w)[وفبلك]{{0,2}}(?:(?P<bank>{lexicon.alternation('banks.bank')})|"
    rf"{lexicon.alternation('banks.held')})\s+(?:(?:{lexicon.alternation('banks.at')})\s+)?"
    rf"(?=(?P<name>{_ARABIC_WORD}(?:\s+{_ARABIC_WORD})?))"
)
_NOT_BANK_NAMES = frozenset(
    lexicon.words("banks.not_names")
    + lexicon.words("names.edge")
    + lexicon.words("banks.bank")
    + lexicon.words("banks.held")
)
_ARABIC_ARTICLE = re.compile(r"^(?:ال|لل)")
# Row nouns that name a category: "my cheapest ride".
_ROW_CATEGORIES = ((re.compile(r"\b(?:rides?|rideshares?|taxis?|cabs?)\b"), "Transportation"),)
_SIDE_FIELD = {Kind.account: "accounts", Kind.category: "categories", Kind.merchant: "merchants"}
# Words tying a question to money: without them and without a name from the user's data, a
# question is outside what FinSync answers.
_FINANCE = lexicon.cue("topic.finance")


@dataclass(frozen=True)
class _Action:
    """A kind of request to do something with money (``[action.<kind>]`` of the lexicons):
    what it would do, the questions suggested instead, and how it is asked."""

    kind: str
    doing: str
    suggest: tuple[str, ...]
    pattern: re.Pattern[str]


def _actions() -> tuple[_Action, ...]:
    lead = lexicon.alternation("action.lead")
    compound = lexicon.alternation("action.not_before")
    kinds = [k for k, v in lexicon.text("action").items() if isinstance(v, dict)]
    return tuple(
        _Action(
            kind,
            lexicon.text(f"action.{kind}.doing"),
            tuple(lexicon.words(f"action.{kind}.suggest")),
            re.compile(
                rf"^(?:{lead}\s+)*(?:{lexicon.cue_pattern(f'action.{kind}.verbs')})"
                rf"(?!\w)(?!\s+{compound}\b)"
            ),
        )
        for kind in kinds
    )


_ACTIONS = _actions()


@dataclass(frozen=True)
class _Item:
    """What a side of a comparison can name: a period (``kind`` "period") or names of one
    kind (a field of ``CompareSide``), where it sits in the question."""

    kind: str
    span: tuple[int, int]
    values: tuple[str, ...] = ()
    period: DateRange | None = None


@dataclass(frozen=True)
class _Comparison:
    sides: list[CompareSide]
    kinds: frozenset[str]  # what the sides replace in the shared filters


@dataclass(frozen=True)
class _Reading:
    """What one question says, before it is shaped into a plan."""

    question: str
    text: str  # normalised
    rest: str  # normalised, with dates, amounts and account numbers blanked
    dates: DateRange | None
    amounts: AmountBounds | None
    problem: DateProblem | AmountProblem | None  # a date or amount that cannot be used
    accounts: list[str]
    categories: list[str]
    merchants: list[str]
    unknown_name: str | None
    kind: _RowKind | None
    direction: Direction | None
    fee_kind: str | None  # "overdraft fee": narrows Fees to the rows whose description says so
    unnamed: str  # ``rest`` without merchant names ("Website-Balance" asks for no balance)
    items: tuple[_Item, ...] = ()  # periods and names, for a comparison
    foreign_account: str | None = None  # an account or bank the user has not loaded

    def has(self, pattern: re.Pattern[str]) -> bool:
        return pattern.search(self.rest) is not None

    @property
    def interval(self) -> Interval | None:
        return next((iv for iv, pattern in _INTERVALS if self.has(pattern)), None)

    @property
    def group_by(self) -> GroupBy | None:
        found = next((group for group, pattern in _GROUPS if self.has(pattern)), None)
        # "break it down" is by category unless it names an interval ("by month")
        breakdown = self.has(_BREAKDOWN) and self.interval is None
        return found or (GroupBy.category if breakdown else None)

    @property
    def limit(self) -> int | None:
        for pattern in _LIMITS:
            for match in pattern.finditer(self.rest):
                n = parse_count(match.group("n"))
                if n:
                    return min(n, MAX_LIMIT)
        return None

    @property
    def sort(self) -> SortOrder | None:
        if self.has(_LARGEST):
            return SortOrder.largest
        if self.has(_SMALLEST):
            return SortOrder.smallest
        if self.has(_OLDEST):
            return SortOrder.oldest
        return None

    @property
    def metric(self) -> Metric | None:
        if self.has(_COUNT):
            return Metric.count
        if self.has(_AVERAGE):
            return Metric.avg
        extreme = _SINGLE_EXTREME.search(self.rest)
        if extreme is None:
            return None
        sup = extreme.group("sup")
        return Metric.min if sup and re.fullmatch(_SUPER_MIN, sup) else Metric.max

    @property
    def per(self) -> Interval | None:
        """The interval a total is averaged over ("average per month"), if that is asked."""
        if self.metric is not Metric.avg or self.group_by or self.has(_AVERAGE_ROW):
            return None
        return self.interval

    @property
    def cues(self) -> list[list[tuple[int, int]]]:
        """Where the sides of a comparison may split, tried in turn: at comparing words and
        the commas of a list ("Q1, Q2 or Q3"), at comparing words alone, then the same with
        "or" as the comparing word."""
        commas = [m.span() for m in re.finditer(",", self.rest)]
        tried = []
        for cue in (_CUE, _OR):
            found = [m.span() for m in cue.finditer(self.rest)]
            if found:
                tried += [sorted(found + commas), found] if commas else [found]
        return tried

    def comparison(self, extra: tuple[_Item, ...] = ()) -> _Comparison | None:
        """The sides the question compares: the kinds of item named between every pair of
        comparing words; "or" separates names only when the question asks which is more."""
        items = (*self.items, *extra)
        for cues in self.cues:
            found = _sides(items, cues)
            loose = all(self.rest[a:b] == "or" for a, b in cues)
            if found and loose and "period" not in found.kinds and not self.has(_COMPARATIVE):
                continue  # "at Starbucks or Chipotle": both, not a comparison
            if found:
                return found
        return None

    @property
    def subject(self) -> bool:
        """Names something to compute over: a value, a direction, dates, amounts or rows."""
        return bool(
            self.accounts
            or self.categories
            or self.merchants
            or self.direction
            or self.dates
            or self.amounts
            or self.kind
            or self.has(_TXN_NOUN)
        )

    @property
    def is_text_qa(self) -> bool:
        """About statement text or terms ("What is the overdraft fee?"), not own activity."""
        if _BALANCE.search(self.unnamed):
            return True
        if self.has(_PERSONAL):
            return False
        if self.has(_POLICY):
            return True
        if self.is_listing:
            return False
        if self.has(_SINGLE_EXTREME):  # "What is the largest single charge?" is a row
            return False
        return bool(_QUESTION_FORM.search(self.rest.strip())) and self.has(_FEE_TERMS)

    @property
    def is_listing(self) -> bool:
        if self.has(_AGGREGATE) or self.has(_TREND) or self.group_by or self.interval:
            return False
        if self.has(_LIST_STRONG):
            return True
        if self.has(_TXN_ROWS) and not self.has(_AMOUNT_TALK):  # "Purchases at Target in May"
            return True
        # One row named with a list verb or a count: "every Uber ride", "the 3 smallest".
        return self.has(_TXN_NOUN) and (self.has(_LIST_VERB) or self.limit is not None)


@dataclass(frozen=True)
class Routing:
    """A routed plan and the rule that decided it ("aggregate_subject", "follow_up",
    "action_transfer", ...): a question routed wrongly says which rule to look at."""

    plan: IntentPlan
    rule: str


class OfflineRouter:
    """Routes questions to IntentPlans with rules and the indexed vocabulary; deterministic."""

    def __init__(
        self, vocabulary: Vocabulary, describes: Callable[[str], bool] | None = None
    ) -> None:
        self.vocabulary = vocabulary
        # Whether any transaction mentions some words: a name no merchant carries (a payer,
        # a counterparty, a brand inside a bank's descriptor) then filters the descriptions.
        self._describes = describes
        self.matcher = VocabMatcher(vocabulary)
        warm_up()

    def route(self, question: str, as_of: date, previous: IntentPlan | None = None) -> IntentPlan:
        return self.trace(question, as_of, previous).plan

    def trace(self, question: str, as_of: date, previous: IntentPlan | None = None) -> Routing:
        """The plan, with the name of the rule that decided it."""
        reading = self._read(question, as_of)
        action = next((a for a in _ACTIONS if a.pattern.search(reading.text)), None)
        if action and not reading.dates:  # "transfer $500", not "transfers in May"
            return Routing(self._refuse(action, reading), f"action_{action.kind}")
        if reading.problem:
            return Routing(_unclear(reading.problem, reading.question, reading.text), "unclear")
        if reading.foreign_account:
            return Routing(unknown_account(reading.foreign_account, self.vocabulary), "no_account")
        if previous and previous.intent is not Intent.clarify and _is_follow_up(reading):
            routing = Routing(_follow_up(reading, previous), "follow_up")
        else:
            routing = self._standalone(reading)
        if gap := outside_data(routing.plan, self.vocabulary):
            return Routing(gap, "outside_data")
        return routing

    def _read(self, question: str, as_of: date) -> _Reading:
        text = normalize(question, self.matcher.known_words)
        accounts: list[str] = []
        spans: list[tuple[int, int]] = []
        for match in _LAST4.finditer(text):
            account = self.matcher.account_by_last4(match.group("last4") or match.group("masked"))
            if account:
                accounts.append(account)
                spans.append(match.span())
        rest = blank(text, spans)
        items = [
            _Item("accounts", span, (name,)) for span, name in zip(spans, accounts, strict=True)
        ]
        if _COMPARING.search(rest) and not _CUE.search(rest):
            rest = _joined_as_versus(rest)
        relative = _RELATIVE.search(rest)
        if relative:  # "the previous month" here is not last month
            rest = blank(rest, [relative.span("rel")])
        dates = find_date_range(rest, as_of)
        found, more = dates, MAX_SIDES
        while found:  # one period per side of a comparison; otherwise the first is the range
            rest = blank(rest, [found.span])
            if isinstance(found, DateRange):
                items.append(_Item("period", found.span, period=found))
            more -= 1
            if not (more and _COMPARING.search(rest)):
                break
            found = find_date_range(rest, as_of)
            if isinstance(found, DateProblem):
                dates = found
        periods = [item.period for item in items if item.period]
        if relative and len(periods) == 1 and (first := periods[0].start):
            side = _relative(relative, first, periods[0].end or first)
            items.append(_Item("period", side.span, period=side))
        amounts = find_amount_bounds(rest)
        if isinstance(amounts, AmountBounds):
            rest = blank(rest, amounts.spans)
        problem = next((f for f in (dates, amounts) if isinstance(f, _PROBLEMS)), None)
        rest = blank(rest, [m.span() for m in _WITHOUT_TRANSFERS.finditer(rest)])
        # "cash flow" is a direction, not the Cash category.
        matches = self.matcher.find(blank(rest, [m.span() for m in _NET.finditer(rest)]))
        # Words inside a merchant's name say nothing about direction ("Best Buy").
        names = [m.span for m in matches if m.kind is Kind.merchant]
        direction = _direction(blank(rest, names))
        fee = _FEE_KIND.search(rest)
        fee_spans = [fee.span()] if fee else []
        if fee:  # "ATM fees" are Fees rows, not spending at an ATM merchant
            matches = [m for m in matches if m.span[1] <= fee.start() or m.span[0] >= fee.end()]
        categories = _values(m.values for m in matches if m.kind is Kind.category)
        merchants = _values(m.values for m in matches if m.kind is Kind.merchant)
        if fee and FEES_CATEGORY in self.vocabulary.categories and FEES_CATEGORY not in categories:
            categories.append(FEES_CATEGORY)
        if not (categories or merchants):
            categories = [
                category
                for pattern, category in _ROW_CATEGORIES
                if pattern.search(rest) and category in self.vocabulary.categories
            ][:1]
        for match in matches:
            if match.kind is Kind.account:
                destination = _ACCOUNT_DESTINATION.search(rest[: match.span[0]])
                if destination and TRANSFERS_CATEGORY in categories:
                    continue
                accounts.extend(match.values)
            items.append(_Item(_SIDE_FIELD[match.kind], match.span, match.values))
        known = [m.span for m in matches] + fee_spans
        unmatched = blank(rest, [m.span for m in matches])
        return _Reading(
            question=question.strip(),
            text=text,
            rest=rest,
            dates=dates if isinstance(dates, DateRange) else None,
            amounts=amounts if isinstance(amounts, AmountBounds) else None,
            problem=problem,
            accounts=_values([accounts]),
            categories=categories,
            merchants=merchants,
            unknown_name=_unknown_name(rest, known),
            kind=next((k for k in _DESCRIBED_KINDS if k.pattern.search(unmatched)), None),
            direction=direction,
            fee_kind=f"{_FEE_TEXT.get(fee.group('kind'), fee.group('kind'))} fee" if fee else None,
            unnamed=blank(rest, names),
            items=tuple(items),
            foreign_account=self._foreign_account(rest, known, question),
        )

    def _foreign_account(
        self, rest: str, known: list[tuple[int, int]], question: str
    ) -> str | None:
        """An account named by a bank or brand the user has no account with, as written."""
        for match in _ACCOUNT_NAMED.finditer(rest):
            start, end = match.span("name")
            words = [w for w in match.group("name").split() if w not in _ACCOUNT_ADJECTIVES]
            if not words or not _unknown(known, start, end):
                continue
            if not any(word in self.matcher.known_words for word in words):
                return _as_written(" ".join(words), question)
        return self._foreign_bank_arabic(rest, known, question)

    def _foreign_bank_arabic(
        self, rest: str, known: list[tuple[int, int]], question: str
    ) -> str | None:
        """A bank or brand named in Arabic script that spells none of the user's banks or
        accounts, as written: any name after "بنك", one spelled from Latin letters after
        "بطاقة" or "حساب"."""
        for match in _BANK_NAMED_ARABIC.finditer(rest):
            start = match.start("name")
            words: list[str] = []
            for word in match.group("name").split():
                if word in _NOT_BANK_NAMES:
                    break
                if not match.group("bank") and (
                    _ARABIC_ARTICLE.match(word) or not arabic_skeletons(word)
                ):
                    break
                words.append(word)
            name = " ".join(words)
            if not name or not _unknown(known, start, start + len(name)):
                continue
            if not self.matcher.spells_loaded_bank(_ARABIC_ARTICLE.sub("", name)):
                return _as_written(name, question)
        return None

    def _standalone(self, r: _Reading) -> Routing:
        intent, rule = _intent(r)
        comparison = None
        if intent in (Intent.aggregate, Intent.trend, Intent.clarify):
            comparison, unknown = self._comparison(r)
            if unknown:
                return Routing(self._clarify(unknown), "unknown_compared_name")
            if comparison:
                intent, rule = Intent.aggregate, "comparison"
        if intent is Intent.clarify:
            off_topic = not (_FINANCE.search(r.rest) or r.subject or r.group_by or r.has(_TREND))
            return Routing(self._clarify(None, off_topic), "off_topic" if off_topic else rule)
        if intent is Intent.text_qa:
            plan = IntentPlan(
                intent=intent,
                text=r.question,
                facts=_facts_asked(r.text),
                accounts=r.accounts,
                date_from=r.dates.start if r.dates else None,
                date_to=r.dates.end if r.dates else None,
            )
            return Routing(plan, rule)
        merchants: list[str] = []
        described = None
        if r.unknown_name and not r.merchants:
            name = _as_written(r.unknown_name, r.question)
            merchants, described = self._resolve(name)
            if not merchants and described is None:
                return Routing(self._clarify(name), "unknown_name")
        plan = _filters(r, intent)
        plan.merchants = plan.merchants or merchants
        if described:
            plan.text = described
        elif r.kind:
            plan.text = self._kind_text(r.kind)
        if intent is Intent.listing:
            singular = _SINGLE_EXTREME.search(r.rest) is not None
            plan.sort = r.sort or SortOrder.newest
            plan.limit = r.limit or (1 if singular else DEFAULT_LISTING_LIMIT)
        elif intent is Intent.trend:
            plan.interval = r.interval or Interval.month
            plan.split_by_category = r.group_by is GroupBy.category
            plan.metric = r.metric if r.metric in (Metric.count, Metric.avg) else Metric.sum
        else:
            plan.metric = r.metric or Metric.sum
            plan.per = r.per
            if comparison:
                _compare_into(plan, comparison)
            elif not plan.per:
                month = r.interval is Interval.month
                plan.group_by = r.group_by or (GroupBy.month if month else None)
                plan.top = r.limit if plan.group_by else None
        return Routing(IntentPlan.model_validate(plan.model_dump()), rule)

    def _comparison(self, r: _Reading) -> tuple[_Comparison | None, str | None]:
        """The sides the question compares, or a compared name the data does not have (as
        written), which the question is then about."""
        found = r.comparison()
        if found or not _CUE.search(r.rest):
            return found, None
        for match in _COMPARED_NAME.finditer(r.rest):
            start = match.start("name")
            name = _name_at(r.rest, start)
            if all(word in _NOT_NAMES | _NOT_COMPARED_NAMES for word in name.split()):
                continue  # also when there is no name: "than last year" (dates are blanked)
            if not _unknown([item.span for item in r.items], start, start + len(name)):
                continue
            written = _as_written(name, r.question)
            merchants = self.matcher.merchants_starting(written)
            if not merchants:
                return None, written
            item = _Item("merchants", (start, start + len(name)), tuple(merchants))
            return r.comparison((item,)), None
        return None, None

    def _resolve(self, name: str) -> tuple[list[str], str | None]:
        """The merchants whose names begin with ``name``, else the words of ``name`` the user's
        descriptions contain; ``([], None)`` when neither knows it."""
        merchants = self.matcher.merchants_starting(name)
        if merchants:
            return merchants, None
        return [], self._described(name)

    def _described(self, name: str) -> str | None:
        """The longest leading part of ``name`` that the user's descriptions contain, as
        written or else without accents ("Madrileña" is found as "MADRILENA")."""
        if self._describes is None:
            return None
        words = name.split()
        for end in range(len(words), 0, -1):
            candidate = " ".join(words[:end]).strip(" .'()")
            if len(candidate) < MIN_DESCRIBED:
                continue
            for spelling in dict.fromkeys((candidate, strip_accents(candidate))):
                if self._describes(spelling):
                    return spelling
        return None

    def _kind_text(self, kind: _RowKind) -> str:
        """The first spelling of a kind of row that the user's descriptions contain; the first
        spelling when none does (then nothing matches, which is the answer)."""
        describes = self._describes
        found = (s for s in kind.spellings if describes is not None and describes(s))
        return next(found, kind.spellings[0])

    def _refuse(self, action: _Action, r: _Reading) -> IntentPlan:
        """An answer to a request to do something: FinSync only reads data, so it says so and
        suggests what it can tell instead, about what the request names."""
        vocab = self.vocabulary
        spend = [c for c in vocab.categories if c not in (INCOME_CATEGORY, TRANSFERS_CATEGORY)]
        # Any account named, also a transfer's destination ("to savings").
        named = [v for m in self.matcher.find(r.rest) if m.kind is Kind.account for v in m.values]
        fill = {
            "account": next(iter(r.accounts + named), None)
            or next((a.account_name for a in vocab.accounts), None),
            "category": next(
                (c for c in r.categories if c in spend),
                "Subscriptions" if "Subscriptions" in spend else next(iter(spend), None),
            ),
        }
        suggestions = [
            template.format_map(fill)
            for template in action.suggest
            if all(fill[name] for name in re.findall(r"\{(\w+)\}", template))
        ]
        clarification = (
            f"FinSync only reads your transactions and statements; it can't {action.doing}. "
            "It can tell you what already happened."
        )
        return IntentPlan(
            intent=Intent.clarify, clarification=clarification, suggestions=suggestions[:4]
        )

    def _clarify(self, unknown_name: str | None, off_topic: bool = False) -> IntentPlan:
        vocab = self.vocabulary
        # Suggest an everyday spend category: Groceries when the user has it.
        spend = [c for c in vocab.categories if c not in (INCOME_CATEGORY, TRANSFERS_CATEGORY)]
        category = "Groceries" if "Groceries" in spend else (spend[0] if spend else None)
        suggestions: list[str] = []
        if unknown_name:
            clarification = f"I couldn't find “{unknown_name}” among your merchants or categories."
            nearest = self.matcher.closest_merchants(unknown_name)
            suggestions += [f"How much did I spend at {m} last month?" for m in nearest]
            suggestions.append("Show my spending by merchant this year")
            if not nearest:
                suggestions.append("List my 10 most recent transactions")
        else:
            clarification = (
                "FinSync answers questions about your own transactions and statements only."
                if off_topic
                else "I couldn't tell what you'd like to know about your accounts."
            )
            if category:
                suggestions.append(f"How much did I spend on {category} last month?")
            suggestions.append("Show my monthly spending trend this year")
            if vocab.accounts:
                suggestions.append(
                    f"List the 10 largest transactions on {vocab.accounts[0].account_name}"
                )
            suggestions.append("What is the overdraft fee?")
        if category and len(suggestions) < 4:
            suggestions.append(f"How much did I spend on {category} this year?")
        return IntentPlan(
            intent=Intent.clarify, clarification=clarification, suggestions=suggestions[:4]
        )


def _joined_as_versus(rest: str) -> str:
    """``rest`` with the word joining compared things ("compare X and Y") read as "vs",
    same length so every span stays where it was."""
    for pattern in _JOINED:
        if match := pattern.search(rest):
            start, end = match.span("join")
            return rest[:start] + "vs".ljust(end - start) + rest[end:]
    return rest


def _relative(match: re.Match[str], first: date, last: date) -> DateRange:
    """The period a side names from the other side's (``first`` to ``last``): the unit
    before, or the same days a year earlier."""
    unit = match.group("before") or match.group("previous")
    start, end = unit_before(first, Interval(unit)) if unit else year_earlier(first, last)
    return DateRange(start, end, match.span("rel"))


def _sides(items: Iterable[_Item], cues: list[tuple[int, int]]) -> _Comparison | None:
    """One side per stretch between comparing words, naming what every stretch names."""
    if len(cues) >= MAX_SIDES:
        return None
    stretches: list[dict[str, list[_Item]]] = [{} for _ in range(len(cues) + 1)]
    for item in items:
        index = sum(1 for start, _ in cues if start < item.span[0])
        stretches[index].setdefault(item.kind, []).append(item)
    kinds = frozenset.intersection(*(frozenset(stretch) for stretch in stretches))
    if not kinds:
        return None
    sides = []
    for stretch in stretches:
        fields: dict[str, object] = {
            kind: _values(item.values for item in stretch[kind]) for kind in kinds - {"period"}
        }
        if "period" in kinds and (period := stretch["period"][0].period):
            fields |= {"date_from": period.start, "date_to": period.end}
        sides.append(CompareSide.model_validate(fields))
    return _Comparison(sides, kinds)


def _unclear(problem: DateProblem | AmountProblem, question: str, text: str) -> IntentPlan:
    """A clarification quoting the date or amount that cannot be used as the user wrote it in
    ``question`` (``text`` normalised), with the question corrected when that is obvious."""
    written = _as_written(text[problem.span[0] : problem.span[1]], question)
    fix = problem.fix
    suggestions = [question.replace(written, fix, 1)] if fix and written in question else []
    return IntentPlan(
        intent=Intent.clarify, clarification=problem.explain(written), suggestions=suggestions
    )


def _values(groups: Iterable[Iterable[str]]) -> list[str]:
    """Flatten groups of values, keeping first-seen order and dropping repeats."""
    return list(dict.fromkeys(value for values in groups for value in values))


def _direction(rest: str) -> Direction | None:
    if _NET.search(rest):
        return Direction.net
    money_in, money_out = _IN.search(rest), _OUT.search(rest)
    if money_in and money_out:
        return Direction.net
    if money_in:
        return Direction.in_
    return Direction.out if money_out else None


def _as_written(name: str, question: str) -> str:
    """``name`` as the user wrote it in ``question``, not in its normalised form."""
    written = re.search(re.escape(name), question, re.IGNORECASE)
    return written.group() if written else name


def _unknown_name(rest: str, known: list[tuple[int, int]]) -> str | None:
    """A name that overlaps no vocabulary match: after "at/from/with/to/on", before "payments"
    or after "pay" ("pay John Doe")."""
    for match in _NAME_BEFORE_ROWS.finditer(rest):
        if match.group("name") not in _NOT_NAMES and _unknown(known, *match.span("name")):
            return match.group("name")
    return _name_after(_NAME_AFTER, rest, known) or _name_after(_PAYEE, rest, known)


def _unknown(known: list[tuple[int, int]], start: int, end: int) -> bool:
    return not any(s < end and start < e for s, e in known)


def _name_after(pattern: re.Pattern[str], rest: str, known: list[tuple[int, int]]) -> str | None:
    """The first name introduced by ``pattern`` that overlaps no vocabulary match."""
    for match in pattern.finditer(rest):
        start = match.start("name")
        name = _name_at(rest, start)
        words = name.split()
        if not all(w in _NOT_NAMES for w in words) and _unknown(known, start, start + len(name)):
            return name
    return None


def _name_at(rest: str, start: int) -> str:
    """The name starting at ``start``: it ends at punctuation, at an aside in brackets, at a
    blanked-out date or amount, or at a linking word."""
    segment = re.split(r"[?!,;:(]|\s{2,}|\.(?:\s|$)", rest[start:], maxsplit=1)[0]
    words: list[str] = []
    for word in segment.split()[:5]:
        if word in _NAME_END:
            break
        words.append(word)
    return " ".join(words)


def _compare_into(plan: IntentPlan, comparison: _Comparison) -> None:
    """Make ``plan`` the shared part of ``comparison``: the sides replace what they name."""
    plan.compare = comparison.sides
    plan.group_by, plan.top = None, None
    for kind in comparison.kinds:
        if kind == "period":
            plan.date_from = plan.date_to = None
        else:
            setattr(plan, kind, [])


def asks_to_act(question: str) -> bool:
    """Whether a question asks FinSync to do something with money ("transfer $500 to
    savings"), which it refuses, rather than asking about something."""
    text = normalize(question)
    return any(action.pattern.search(text) for action in _ACTIONS)


def asks_how_it_works(text: str) -> bool:
    """Whether a question asks how a figure works ("How is interest calculated?"), not what
    it is."""
    return bool(_NOT_A_FIGURE.search(text))


def _facts_asked(text: str) -> list[str]:
    """The statement fact a question asks the value of ("closing balance"), at most one."""
    if asks_how_it_works(text):
        return []
    return next(([name] for name, pattern in _FACTS if pattern.search(text)), [])


def _intent(r: _Reading) -> tuple[Intent, str]:
    """The intent a question asks for on its own, and the name of the rule that decided it."""
    if "كم" in r.text:
        return Intent.aggregate, "arabic_how_much"
    if r.is_text_qa:
        return Intent.text_qa, "statement_text"
    if r.has(_TREND) and r.subject:
        return Intent.trend, "trend_words"
    if r.has(_SINGLE_EXTREME) and (r.direction or r.merchants or r.categories):
        return Intent.aggregate, "single_extreme"  # "the priciest order at Amazon"
    if r.is_listing:
        return Intent.listing, "rows_asked"
    interval = r.interval
    if r.per:
        return Intent.aggregate, "average_per_interval"  # "average per week": one figure
    counted = r.metric is Metric.count  # "how many ... each month": a count per month
    if interval and (interval is not Interval.month or not r.has(_AGGREGATE) or counted):
        return Intent.trend, "interval_words"
    if r.subject and (r.has(_AGGREGATE) or r.direction or r.categories or r.merchants):
        return Intent.aggregate, "amount_of_subject"
    if (r.subject or r.has(_TOP_GROUPS)) and r.group_by:
        return Intent.aggregate, "top_groups"  # "top 5 merchants": spending by merchant
    if r.accounts and _QUESTION_FORM.search(r.rest.strip()):
        return Intent.text_qa, "account_terms"  # about an account but not its money
    if r.has(_SINGLE_EXTREME):
        return Intent.listing, "extreme_row"  # "my largest transaction": the row itself
    return Intent.clarify, "no_subject"


def _filters(r: _Reading, intent: Intent) -> IntentPlan:
    """The plan's filters; direction falls back on what the question names."""
    direction = r.direction
    signed = next((sign for pattern, sign in _SIGNED_ROWS if r.has(pattern)), None)
    if direction is None:
        if r.kind and r.kind.direction:
            direction = r.kind.direction
        elif r.categories and set(r.categories) <= {INCOME_CATEGORY}:
            direction = Direction.in_
        elif r.categories == [TRANSFERS_CATEGORY] and r.metric is Metric.count:
            direction = Direction.any  # both legs of every transfer
        elif signed:
            direction = signed
        elif intent is Intent.listing or r.has(_TRANSACTIONS):
            direction = Direction.any
        else:
            direction = Direction.out
    return IntentPlan(
        intent=intent,
        date_from=r.dates.start if r.dates else None,
        date_to=r.dates.end if r.dates else None,
        accounts=r.accounts,
        categories=r.categories,
        merchants=r.merchants,
        direction=direction,
        min_amount=r.amounts.min_amount if r.amounts else None,
        max_amount=r.amounts.max_amount if r.amounts else None,
        text=r.fee_kind,
    )


def _is_follow_up(r: _Reading) -> bool:
    """Whether a question edits the previous plan: decided by what it says, so a question
    naming its own subject and period starts fresh even after "and"."""
    own_intent = (
        r.is_text_qa
        or r.has(_AGGREGATE)
        or r.has(_LIST_STRONG)
        or r.has(_TREND)
        or r.interval is not None  # "monthly dining spending for 2025" is a question of its own
        or r.group_by is not None  # "spending by category in 2024" too
        or r.is_listing
    )
    named = r.accounts or r.categories or r.merchants or r.kind or r.fee_kind
    asks = own_intent or r.direction is not None  # "What did I spend on X in May?"
    if asks and named and r.dates and not r.has(_POINTING):
        return False
    if _FOLLOW_START.search(r.rest.strip()) or r.has(_ANAPHORA):
        return True
    return not (own_intent and r.subject)


def _follow_up(r: _Reading, previous: IntentPlan) -> IntentPlan:
    """The previous plan with what the follow-up changes: dates, filters, shape."""
    plan = previous.model_copy(deep=True)
    if r.dates:
        plan.date_from, plan.date_to = r.dates.start, r.dates.end
    if r.amounts:
        low, high = r.amounts.min_amount, r.amounts.max_amount
        if low is not None:
            plan.min_amount = low
            if high is None and plan.max_amount is not None and plan.max_amount < low:
                plan.max_amount = None
        if high is not None:
            plan.max_amount = high
            if low is None and plan.min_amount is not None and plan.min_amount > high:
                plan.min_amount = None
    if r.accounts:
        plan.accounts = r.accounts
    if r.categories or r.merchants:
        narrow = r.has(_NARROW)
        if r.categories or not narrow:
            plan.categories = r.categories
        if r.merchants or not narrow:
            plan.merchants = r.merchants
    if r.direction:
        plan.direction = r.direction
    if plan.intent is Intent.text_qa:
        return IntentPlan.model_validate(plan.model_dump())
    if r.metric:
        plan.metric = r.metric
    _reshape(r, plan)
    if comparison := r.comparison():
        plan.intent = Intent.aggregate
        _compare_into(plan, comparison)
    elif _replaces_sides(r, plan):
        plan.compare = []
    _keep_shapes(plan)
    return IntentPlan.model_validate(plan.model_dump())


def _replaces_sides(r: _Reading, plan: IntentPlan) -> bool:
    """Whether a follow-up names what the sides of the previous comparison name ("and in
    March?" after "Q1 vs Q2"): it then asks about that alone."""
    named = {item.kind for item in r.items}
    return any(
        (side.has_period and "period" in named)
        or any(getattr(side, kind) and kind in named for kind in _SIDE_FIELD.values())
        for side in plan.compare
    )


def _keep_shapes(plan: IntentPlan) -> None:
    """Drop the shapes a reshaped follow-up no longer has: a comparison, an average per
    interval and top groups belong to aggregates (IntentPlan's rules)."""
    aggregate = plan.intent is Intent.aggregate
    if not aggregate or plan.group_by:
        plan.compare = []
    if not (aggregate and plan.metric is Metric.avg and not plan.group_by):
        plan.per = None
    if not (aggregate and plan.group_by):
        plan.top = None


def _reshape(r: _Reading, plan: IntentPlan) -> None:
    """Turn the plan into the trend, listing or grouped aggregate a follow-up asks for."""
    interval, group_by = r.interval, r.group_by
    if r.per and plan.intent is Intent.aggregate:
        plan.per = r.per  # "and the average per month?"
    elif r.has(_CHART_FOLLOW) or (interval and interval is not Interval.month):
        kept = plan.interval if plan.intent is Intent.trend else Interval.month
        plan.intent, plan.interval = Intent.trend, interval or kept
        plan.split_by_category = plan.split_by_category or group_by is GroupBy.category
        plan.group_by = None
    elif interval is Interval.month and plan.intent is Intent.trend:
        plan.interval = interval
    elif group_by or interval:
        if plan.intent is Intent.trend and group_by is GroupBy.category:
            plan.split_by_category = True
        else:
            plan.intent = Intent.aggregate
            plan.group_by = group_by or GroupBy.month
    elif r.has(_LIST_FOLLOW) and plan.intent is not Intent.listing:
        plan.intent = Intent.listing
        plan.sort = r.sort or SortOrder.newest
        plan.limit = r.limit or DEFAULT_LISTING_LIMIT
        plan.group_by, plan.metric, plan.split_by_category = None, Metric.sum, False
    elif plan.intent is Intent.listing and (r.sort or r.limit):
        plan.sort = r.sort or plan.sort
        plan.limit = r.limit or plan.limit
    elif r.metric and plan.intent is Intent.listing:
        plan.intent = Intent.aggregate
