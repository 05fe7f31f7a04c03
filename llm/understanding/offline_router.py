"""Offline intent router: a question becomes an IntentPlan by rules, with no model and no network.

A question is read once (``reading.Reader``): dates, amounts and account numbers are found and
blanked out, the rest is matched against the indexed vocabulary and scanned for cue words. Then
an ordered table of named rules (``RULES``: a name, a condition on the reading, an action) is
tried in turn; a rule whose condition holds fires, and its action either decides the plan or
lets the next rules go on. A plan decided is then checked against what the user has loaded
(``CHECKS``). ``OfflineRouter.trace`` gives the plan with every rule that fired, the deciding one
last among those that decide.

Every word the rules match is data, in the lexicons (``llm/understanding/lexicon/*.toml``), one
file per language; clarifications are messages (a key and its fields) the composer words in the
asker's language.

Choices worth knowing (docs/ARCHITECTURE.md semantics otherwise):

- A request to act ("transfer $500 to savings", "cancel my subscription") is answered as a
  clarification: FinSync only reads data, and suggests what it can tell instead. A question
  naming nothing about money or the user's data is answered the same way.
- A follow-up is decided by what the question says (``follow_ups.elliptical``).
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
- A name after "at/from/with/to/on/about" or "pay" ("How much did I pay KPN?") that matches
  nothing indexed is looked up as the start of a merchant's name, then in the descriptions,
  then, when it is everyday English and not a proper name, by meaning (``meaning``); two
  meanings too close to tell apart are asked about; found nowhere, it makes the question a
  clarification, with the nearest merchants as suggestions. Everyday words elsewhere ("my
  dog", "car repairs cost") are placed by meaning too, and left alone when nothing fits.
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
- Arabic, German, French and Spanish question shapes are read as their English twins through
  the lexicons' rewrites; merchants, accounts and banks written in Arabic script are matched by
  sound (``arabic_names``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from elastic.model.plan import (
    TRANSFERS_CATEGORY,
    Anomaly,
    Direction,
    GroupBy,
    Intent,
    IntentPlan,
    Interval,
    Message,
    Metric,
    ShareOf,
    SortOrder,
)
from elastic.model.results import Vocabulary
from llm.understanding import lexicon
from llm.understanding import patterns as p
from llm.understanding.coverage import (
    accounts_loaded,
    clarify,
    outside_currency,
    outside_period,
    unknown_account,
)
from llm.understanding.dates import warm_up
from llm.understanding.follow_ups import DEFAULT_LISTING_LIMIT, compare_into, follow_up, inherited
from llm.understanding.follow_ups import elliptical as is_elliptical
from llm.understanding.meaning import Meaning
from llm.understanding.reading import (
    Comparison,
    Item,
    Reader,
    Reading,
    RowKind,
    as_written,
    everyday,
    name_at,
    overlaps_none,
)
from llm.understanding.text_norm import normalize, strip_accents
from llm.understanding.vocabulary import Tier, VocabMatcher

INCOME_CATEGORY = "Income"
MIN_DESCRIBED = 3  # shorter words match too many descriptions by chance


@dataclass(frozen=True)
class Action:
    """A kind of request to do something with money (``[action.<kind>]`` of the lexicons): how
    it is asked and the questions suggested instead (message keys, with the account or
    category that fills their name)."""

    kind: str
    pattern: re.Pattern[str]
    suggest: tuple[dict[str, str], ...]


def _actions() -> tuple[Action, ...]:
    lead = lexicon.alternation("action.lead")
    compound = lexicon.alternation("action.not_before")
    kinds = [k for k, v in lexicon.text("action").items() if isinstance(v, dict)]
    return tuple(
        Action(
            kind,
            re.compile(
                rf"^(?:{lead}\s+)*(?:{lexicon.cue_pattern(f'action.{kind}.verbs')})"
                rf"(?!\w)(?!\s+{compound}\b)"
            ),
            tuple(lexicon.text(f"action.{kind}.suggest") or ()),
        )
        for kind in kinds
    )


ACTIONS = _actions()


def asks_to_act(question: str) -> bool:
    """Whether a question asks FinSync to do something with money ("transfer $500 to
    savings"), which it refuses, rather than asking about something."""
    text = normalize(question)
    return any(action.pattern.search(text) for action in ACTIONS)


def asks_how_it_works(question: str) -> bool:
    """Whether a question asks how a figure works ("How is interest calculated?"), not what
    it is."""
    return bool(p.HOW_IT_WORKS.search(normalize(question)))


@dataclass
class Turn:
    """One question being routed: its reading, the conversation so far, and what the rules
    have found and fired."""

    router: OfflineRouter
    reading: Reading
    previous: IntentPlan | None
    fired: list[str] = field(default_factory=list)
    decided: str = ""
    plan: IntentPlan = field(default_factory=lambda: IntentPlan(intent=Intent.clarify))

    def fire(self, name: str, decides: bool = False) -> None:
        self.fired.append(name)
        if decides:
            self.decided = name


Condition = Callable[[Turn], bool]
Act = Callable[[Turn], IntentPlan | None]


@dataclass(frozen=True)
class Rule:
    """A rule of the router: when ``when`` holds for a turn, the rule fires and ``then`` runs;
    a plan it returns decides the question (no action: the rule only says it fired)."""

    name: str
    when: Condition
    then: Act | None = None


@dataclass(frozen=True)
class _Named:
    """What a name the user's data does not hold stands for."""

    merchants: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    text: str | None = None  # words the descriptions hold


@dataclass(frozen=True)
class Routing:
    """A routed plan, the rule that decided it and every rule that fired, in order: a question
    routed wrongly says which rules to look at."""

    plan: IntentPlan
    rule: str
    rules: tuple[str, ...] = ()


# --- conditions ---------------------------------------------------------------------------------


def _action_of(kind: str) -> Condition:
    action = next(a for a in ACTIONS if a.kind == kind)
    # "transfer $500" is a request; "transfers in May" is not
    return lambda t: bool(action.pattern.search(t.reading.text)) and not t.reading.dates


def _answered_before(t: Turn) -> bool:
    """Whether the question comes after an answer (not after a clarification)."""
    return t.previous is not None and t.previous.intent is not Intent.clarify


def _follows(t: Turn) -> bool:
    return _answered_before(t) and is_elliptical(t.reading)


def _extreme_with_subject(t: Turn) -> bool:
    r = t.reading
    return r.has(p.SINGLE_EXTREME) and bool(r.direction or r.merchants or r.categories)


def _interval_asked(t: Turn) -> bool:
    r = t.reading
    interval, counted = r.interval, r.metric is Metric.count
    # "how many ... each month" is a count per month; "how much per month" a grouped total
    return bool(interval and (interval is not Interval.month or not r.has(p.AGGREGATE) or counted))


def _amount_of_subject(t: Turn) -> bool:
    r = t.reading
    return r.subject and bool(r.has(p.AGGREGATE) or r.direction or r.categories or r.merchants)


def _top_groups(t: Turn) -> bool:
    r = t.reading
    return bool((r.subject or r.has(p.TOP_GROUPS)) and r.group_by)


def _account_terms(t: Turn) -> bool:
    r = t.reading
    return bool(r.accounts and p.QUESTION_FORM.search(r.rest.strip()))


# --- actions ------------------------------------------------------------------------------------


def _refuse_as(kind: str) -> Act:
    action = next(a for a in ACTIONS if a.kind == kind)
    return lambda t: t.router.refuse(action, t.reading)


def _ask(intent: Intent) -> Act:
    return lambda t: t.router.standalone(t, intent)


def _unclear(t: Turn) -> IntentPlan:
    """A clarification quoting the date or amount that cannot be used as the user wrote it,
    with the question corrected when that is obvious."""
    r = t.reading
    problem = r.problem
    assert problem is not None
    written = as_written(r.text[problem.span[0] : problem.span[1]], r.question)
    suggestion = problem.suggestion(r.question, written)
    return clarify(problem.message(written), [suggestion] if suggestion else [])


def _always(t: Turn) -> bool:
    return True


def _said(pattern: re.Pattern[str], unless_personal: bool = False) -> Condition:
    """The question holds ``pattern`` (and, if asked, says nothing of the user's own
    activity: "Who founded Costco?" but not "What did I pay Costco?")."""

    def holds(t: Turn) -> bool:
        text = t.reading.text
        return bool(pattern.search(text)) and not (unless_personal and p.PERSONAL.search(text))

    return holds


def _beyond(key: str) -> Act:
    """A question FinSync cannot answer from the user's data: it says so, and what it can."""
    return lambda t: t.router.off_topic(Message(key=key))


# --- kinds of question beyond totals ------------------------------------------------------------


def _kind(intent: Intent, **fields: object) -> Act:
    """The question asked as ``intent``, reshaped into a kind (a share, recurring payments
    ...) by the fields ``fields`` names as functions of the reading."""

    def act(t: Turn) -> IntentPlan:
        plan = t.router.standalone(t, intent)
        if plan.intent is Intent.clarify:
            return plan
        update = {
            name: value(t.reading) if callable(value) else value for name, value in fields.items()
        }
        return IntentPlan.model_validate(plan.model_dump() | KIND_RESET | update)

    return act


# Shapes of other questions a kind does not have.
KIND_RESET: dict[str, object] = {
    "group_by": None,
    "top": None,
    "per": None,
    "compare": [],
    "metric": Metric.sum,
    "split_by_category": False,
}


def _paid(r: Reading) -> Direction:
    """Payments, unless money in is asked."""
    return Direction.in_ if r.direction is Direction.in_ else Direction.out


def _share_direction(r: Reading) -> Direction:
    if r.savings_rate:
        return Direction.net
    if r.share_of is ShareOf.income:  # "% of my income goes to rent": spending, of income
        return Direction.out
    return r.direction if r.direction in (Direction.out, Direction.in_) else Direction.out


def _peak(t: Turn) -> IntentPlan:
    r = t.reading
    assert r.peak is not None
    peak, unit = r.peak
    plan = t.router.standalone(t, Intent.trend)
    if plan.intent is Intent.clarify:
        return plan
    metric = Metric.count if r.metric is Metric.count else Metric.sum
    update = KIND_RESET | {"intent": Intent.trend, "peak": peak, "interval": unit, "metric": metric}
    return IntentPlan.model_validate(plan.model_dump() | update)


def _changes(t: Turn) -> IntentPlan:
    """The groups of a comparison of two periods, biggest changes first."""
    r = t.reading
    plan = t.router.standalone(t, Intent.aggregate)
    if not plan.compare:
        return plan
    merchants = r.group_by is GroupBy.merchant or p.GROUP_MERCHANT.search(r.rest)
    group = r.group_by or (GroupBy.merchant if merchants else GroupBy.category)
    update = {"group_by": group, "change": r.change, "top": r.limit}
    return IntentPlan.model_validate(plan.model_dump() | update)


def _balance(t: Turn) -> IntentPlan:
    """Balances built from the rows: on a day, the lowest or highest, or over time."""
    r = t.reading
    kind = r.balance
    metric = {"min": Metric.min, "max": Metric.max}.get(kind or "", Metric.sum)
    return IntentPlan(
        intent=Intent.trend if kind == "trend" else Intent.aggregate,
        balance=True,
        metric=metric,
        interval=r.interval or Interval.month,
        accounts=r.accounts,
        currency=r.currency,
        date_from=r.dates.start if r.dates else None,
        date_to=r.dates.end if r.dates else None,
        direction=Direction.any,
    )


def _first_or_last(t: Turn) -> IntentPlan:
    r = t.reading
    plan = t.router.standalone(t, Intent.listing)
    if plan.intent is Intent.clarify:
        return plan
    update = KIND_RESET | {"sort": r.first_or_last, "limit": 1}
    return IntentPlan.model_validate(plan.model_dump() | update)


def _which_account(t: Turn) -> IntentPlan:
    """One account asked for by a name several answer to: which one, each as a question."""
    r = t.reading
    assert r.ambiguous is not None
    phrase, accounts = r.ambiguous
    before, _, after = r.question.partition(phrase)
    suggested = [
        Message(key="ask_corrected", fields={"before": before, "fix": name, "after": after})
        for name in accounts
    ]
    message = Message(
        key="ambiguous_account", fields={"phrase": phrase, "accounts": list(accounts)}
    )
    return clarify(message, suggested)


RULES: tuple[Rule, ...] = (
    # What FinSync does not do or know, whatever came before.
    *(Rule(f"action_{a.kind}", _action_of(a.kind), _refuse_as(a.kind)) for a in ACTIONS),
    Rule("advice", _said(p.ADVICE), _beyond("advice")),
    Rule("world_question", _said(p.WORLD, unless_personal=True), _beyond("world")),
    Rule("not_held", _said(p.NOT_HELD, unless_personal=True), _beyond("not_held")),
    Rule(
        "accounts_held",
        _said(p.ACCOUNTS_HELD),
        lambda t: accounts_loaded(t.router.vocabulary),
    ),
    # What the question names that cannot be used as it is.
    Rule("unclear", lambda t: t.reading.problem is not None, _unclear),
    Rule(
        "no_account",
        lambda t: t.reading.foreign_account is not None,
        lambda t: unknown_account(t.reading.foreign_account or "", t.router.vocabulary),
    ),
    Rule("ambiguous_account", lambda t: t.reading.ambiguous is not None, _which_account),
    Rule("currency_named", lambda t: t.reading.currency is not None),
    # How the question's words were read: misspellings put right, everyday words for categories.
    Rule("typo", lambda t: bool(t.reading.corrected) or Tier.typo in t.reading.tiers),
    Rule("synonym", lambda t: Tier.synonym in t.reading.tiers),
    # Shapes a question asks for that the rules below keep: said only.
    Rule("weekday_split", lambda t: t.reading.group_by in (GroupBy.weekday, GroupBy.weekend)),
    Rule("median", lambda t: t.reading.metric is Metric.median),
    Rule("distinct_count", lambda t: t.reading.metric is Metric.distinct),
    Rule("follow_up", _follows, lambda t: t.router.follow_up(t)),
    # A complete question after an answer starts fresh: nothing is carried over.
    Rule("fresh_question", _answered_before),
    # Kinds of question beyond totals, before the words of a total ("how much") decide.
    Rule(
        "double_charges",
        lambda t: t.reading.anomaly is Anomaly.double,
        _kind(Intent.listing, anomaly=Anomaly.double, direction=Direction.out),
    ),
    Rule(
        "unusual_charges",
        lambda t: t.reading.anomaly is not None,
        _kind(Intent.listing, anomaly=lambda r: r.anomaly, direction=Direction.out),
    ),
    Rule(
        "recurring_payments",
        lambda t: t.reading.recurring,
        lambda t: _kind(
            Intent.aggregate if t.reading.recurring_cost else Intent.listing,
            recurring=True,
            direction=_paid,
        )(t),
    ),
    Rule("first_or_last_payment", lambda t: t.reading.first_or_last is not None, _first_or_last),
    Rule("balance_over_time", lambda t: t.reading.balance is not None, _balance),
    Rule(
        "savings_rate",
        lambda t: t.reading.savings_rate,
        _kind(Intent.aggregate, share_of=ShareOf.income, direction=Direction.net),
    ),
    Rule(
        "share_of_whole",
        lambda t: t.reading.share_of is not None,
        _kind(Intent.aggregate, share_of=lambda r: r.share_of, direction=_share_direction),
    ),
    Rule("peak_period", lambda t: t.reading.peak is not None, _peak),
    Rule("biggest_changes", lambda t: t.reading.asks_changes, _changes),
    # What the question asks for, first match wins.
    Rule("how_much_word", lambda t: t.reading.has(p.HOW_MUCH), _ask(Intent.aggregate)),
    Rule("statement_text", lambda t: t.reading.is_text_qa, _ask(Intent.text_qa)),
    Rule(
        "trend_words",
        lambda t: t.reading.has(p.TREND) and t.reading.subject,
        _ask(Intent.trend),
    ),
    Rule("single_extreme", _extreme_with_subject, _ask(Intent.aggregate)),
    Rule("rows_asked", lambda t: t.reading.is_listing, _ask(Intent.listing)),
    Rule("average_per_interval", lambda t: t.reading.per is not None, _ask(Intent.aggregate)),
    Rule("interval_words", _interval_asked, _ask(Intent.trend)),
    Rule("amount_of_subject", _amount_of_subject, _ask(Intent.aggregate)),
    Rule("top_groups", _top_groups, _ask(Intent.aggregate)),
    Rule("account_terms", _account_terms, _ask(Intent.text_qa)),
    Rule("extreme_row", lambda t: t.reading.has(p.SINGLE_EXTREME), _ask(Intent.listing)),
    Rule("no_subject", _always, _ask(Intent.clarify)),
)

# Checks of a decided plan against what the user has loaded, in order.
CHECKS: tuple[Rule, ...] = (
    Rule(
        "outside_data",
        lambda t: outside_period(t.plan, t.router.vocabulary) is not None,
        lambda t: outside_period(t.plan, t.router.vocabulary),
    ),
    Rule(
        "no_currency",
        lambda t: outside_currency(t.plan, t.router.vocabulary) is not None,
        lambda t: outside_currency(t.plan, t.router.vocabulary),
    ),
)


class OfflineRouter:
    """Routes questions to IntentPlans with rules and the indexed vocabulary; deterministic."""

    def __init__(
        self,
        vocabulary: Vocabulary,
        describes: Callable[[str], bool] | None = None,
        meaning: Meaning | None = None,
    ) -> None:
        self.vocabulary = vocabulary
        # Places words no name or lexicon knows by what they mean (the local embedder).
        self.meaning = meaning
        # Whether any transaction mentions some words: a name no merchant carries (a payer,
        # a counterparty, a brand inside a bank's descriptor) then filters the descriptions.
        self._describes = describes
        self.matcher = VocabMatcher(vocabulary)
        self.reader = Reader(vocabulary, self.matcher)
        warm_up()

    def route(self, question: str, as_of: date, previous: IntentPlan | None = None) -> IntentPlan:
        return self.trace(question, as_of, previous).plan

    def trace(self, question: str, as_of: date, previous: IntentPlan | None = None) -> Routing:
        """The plan, the rule that decided it, and every rule that fired."""
        turn = Turn(self, self.reader.read(question, as_of, previous), previous)
        for table in (RULES, CHECKS):
            for rule in table:
                if not rule.when(turn):
                    continue
                turn.fire(rule.name, decides=rule.then is not None)
                plan = rule.then(turn) if rule.then else None
                if plan is not None:
                    turn.plan = plan
                    break
        return Routing(turn.plan, turn.decided, tuple(turn.fired))

    def follow_up(self, t: Turn) -> IntentPlan:
        """The previous plan edited by what the follow-up names; a name the data does not
        have is placed or asked about, as in any question."""
        r = t.reading
        assert t.previous is not None
        plan = follow_up(r, t.previous)
        if r.merchants or r.categories:
            return plan
        named = self._placed(t)
        if isinstance(named, IntentPlan):
            return named
        if named is None:
            return plan
        update = {"merchants": named.merchants, "categories": named.categories, "text": named.text}
        placed = plan.model_copy(update=update)
        return placed.model_copy(update={"inherited": inherited(placed, t.previous)})

    def standalone(self, t: Turn, intent: Intent) -> IntentPlan:
        """The plan of a question asking for ``intent`` on its own; a comparison, a name the
        data does not have or a question outside finance may turn it into something else."""
        r = t.reading
        comparison = None
        if intent in (Intent.aggregate, Intent.trend, Intent.clarify):
            comparison, unknown = self._comparison(r)
            if unknown:
                t.fire("unknown_compared_name", decides=True)
                return self.unknown(unknown)
            if comparison:
                t.fire("comparison", decides=True)
                intent = Intent.aggregate
        if intent is Intent.clarify:
            off_topic = not (r.has(p.FINANCE) or r.subject or r.group_by or r.has(p.TREND))
            if off_topic:
                t.fire("off_topic", decides=True)
                return self.off_topic(Message(key="off_topic"))
            return self.off_topic(Message(key="unclear"))
        if intent is Intent.text_qa:
            return IntentPlan(
                intent=intent,
                text=r.question,
                facts=r.facts(),
                accounts=r.accounts,
                date_from=r.dates.start if r.dates else None,
                date_to=r.dates.end if r.dates else None,
            )
        named = None if r.merchants else self._placed(t)
        if isinstance(named, IntentPlan):
            return named
        plan = _filters(r, intent)
        if named is not None:
            plan.merchants = plan.merchants or named.merchants
            plan.categories = plan.categories or named.categories
        if named is not None and named.text:
            plan.text = named.text
        elif r.kind:
            plan.text = self._kind_text(r.kind)
        if intent is Intent.listing:
            singular = p.SINGLE_EXTREME.search(r.rest) is not None
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
                compare_into(plan, comparison)
            elif plan.metric is Metric.distinct:
                plan.group_by = r.distinct_of
            elif not plan.per:
                month = r.interval is Interval.month
                plan.group_by = r.group_by or (GroupBy.month if month else None)
                plan.top = r.limit if plan.group_by else None
        return IntentPlan.model_validate(plan.model_dump())

    def _comparison(self, r: Reading) -> tuple[Comparison | None, str | None]:
        """The sides the question compares, or a compared name the data does not have (as
        written), which the question is then about."""
        found = r.comparison()
        if found or not p.VERSUS.search(r.rest):
            return found, None
        for match in p.COMPARED_NAME.finditer(r.rest):
            start = match.start("name")
            name = name_at(r.rest, start)
            if all(word in p.NOT_NAMES | p.NOT_COMPARED_NAMES for word in name.split()):
                continue  # also when there is no name: "than last year" (dates are blanked)
            if not overlaps_none([item.span for item in r.items], start, start + len(name)):
                continue
            written = as_written(name, r.question)
            merchants = self.matcher.merchants_starting(written)
            if not merchants:
                return None, written
            item = Item("merchants", (start, start + len(name)), tuple(merchants))
            return r.comparison((item,)), None
        return None, None

    def _placed(self, t: Turn) -> _Named | IntentPlan | None:
        """What a name none of the user's names or lexicon words know stands for: the
        merchants whose names begin with it, the words of the descriptions that hold it, or
        the category or merchant it means; else a clarification (two meanings too close to
        tell apart, or nothing that fits). None when the question has no such name."""
        r = t.reading
        if not r.unknown_name:
            return self._everyday(t)
        name = as_written(r.unknown_name, r.question)
        if merchants := self.matcher.merchants_starting(name):
            return _Named(merchants=merchants)
        if (described := self._described(name)) is not None:
            return _Named(text=described)
        meant = self.meaning and everyday(name, r.question)
        placed = self.meaning.place(name) if self.meaning and meant else None
        if placed and (sense := placed.found):
            t.fire("meaning")
            if sense.kind == "category":
                return _Named(categories=[sense.value])
            return _Named(merchants=[sense.value])
        if placed and placed.senses:
            t.fire("meaning_close", decides=True)
            return self.two_meanings(r.question, name, [s.value for s in placed.senses])
        t.fire("unknown_name", decides=True)
        return self.unknown(name)

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

    def _kind_text(self, kind: RowKind) -> str:
        """The first spelling of a kind of row that the user's descriptions contain; the first
        spelling when none does (then nothing matches, which is the answer)."""
        describes = self._describes
        found = (s for s in kind.spellings if describes is not None and describes(s))
        return next(found, kind.spellings[0])

    # --- clarifications -------------------------------------------------------------------------

    def _spend_categories(self) -> list[str]:
        excluded = (INCOME_CATEGORY, TRANSFERS_CATEGORY)
        return [c for c in self.vocabulary.categories if c not in excluded]

    def _everyday_category(self) -> str | None:
        """A spend category to suggest questions about: Groceries when the user has it."""
        spend = self._spend_categories()
        return "Groceries" if "Groceries" in spend else next(iter(spend), None)

    def refuse(self, action: Action, r: Reading) -> IntentPlan:
        """An answer to a request to do something: FinSync only reads data, so it says so and
        suggests what it can tell instead, about what the request names."""
        vocab = self.vocabulary
        spend = self._spend_categories()
        # Any account named, also a transfer's destination ("to savings").
        named = [v for m in self.matcher.find(r.rest) if m.kind == "account" for v in m.values]
        fill = {
            "account": next(iter(r.accounts + named), None)
            or next((a.account_name for a in vocab.accounts), None),
            "category": next(
                (c for c in r.categories if c in spend),
                "Subscriptions" if "Subscriptions" in spend else next(iter(spend), None),
            ),
        }
        suggested = []
        for suggestion in action.suggest:
            filler = suggestion.get("name")
            if filler and not fill[filler]:
                continue
            fields = {"name": fill[filler]} if filler and fill[filler] else {}
            suggested.append(Message(key=suggestion["key"], fields=fields))
        doing = Message(key=f"doing_{action.kind}")
        return clarify(Message(key="refuse", fields={"doing": doing}), suggested[:4])

    def _everyday(self, t: Turn) -> _Named | IntentPlan | None:
        """Everyday words for where money went in a question naming nothing else ("my dog"),
        placed by meaning; nothing when they mean nothing of the user's data."""
        r = t.reading
        names = r.accounts or r.categories or r.merchants or r.kind or r.fee_kind
        if self.meaning is None or r.everyday is None or names:
            return None
        placed = self.meaning.place(r.everyday)
        if sense := placed.found:
            t.fire("meaning")
            if sense.kind == "category":
                return _Named(categories=[sense.value])
            return _Named(merchants=[sense.value])
        if placed.senses:
            t.fire("meaning_close", decides=True)
            return self.two_meanings(r.question, r.everyday, [s.value for s in placed.senses])
        return None

    def two_meanings(self, question: str, name: str, values: list[str]) -> IntentPlan:
        """A word that may mean either of two of the user's names: which, each as the
        question asked with it."""
        before, _, after = question.partition(name)
        suggested = [
            Message(key="ask_corrected", fields={"before": before, "fix": value, "after": after})
            for value in values
        ]
        message = Message(
            key="meaning_close", fields={"word": name, "first": values[0], "second": values[1]}
        )
        return clarify(message, suggested)

    def unknown(self, name: str) -> IntentPlan:
        """A name none of the user's merchants, categories or descriptions knows, with the
        nearest merchants as suggestions."""
        nearest = self.matcher.closest_merchants(name)
        suggested = [Message(key="ask_at_last_month", fields={"name": m}) for m in nearest]
        suggested.append(Message(key="ask_by_merchant"))
        if not nearest:
            suggested.append(Message(key="ask_recent"))
        if category := self._everyday_category():
            suggested.append(Message(key="ask_on_this_year", fields={"name": category}))
        message = Message(key="unknown_name", fields={"name": name})
        return clarify(message, suggested[:4])

    def off_topic(self, message: Message) -> IntentPlan:
        """A question FinSync cannot place, with questions it can answer."""
        suggested = []
        category = self._everyday_category()
        if category:
            suggested.append(Message(key="ask_on_last_month", fields={"name": category}))
        suggested.append(Message(key="ask_trend"))
        if self.vocabulary.accounts:
            name = self.vocabulary.accounts[0].account_name
            suggested.append(Message(key="ask_largest_on", fields={"name": name}))
        suggested.append(Message(key="ask_overdraft"))
        return clarify(message, suggested[:4])


def _filters(r: Reading, intent: Intent) -> IntentPlan:
    """The plan's filters; direction falls back on what the question names."""
    direction = r.direction
    signed = next((sign for pattern, sign in p.SIGNED_ROWS if r.has(pattern)), None)
    if direction is None:
        kind = r.kind or r.named_kind
        if kind and kind.direction:
            direction = kind.direction
        elif r.categories and set(r.categories) <= {INCOME_CATEGORY}:
            direction = Direction.in_
        elif r.categories == [TRANSFERS_CATEGORY] and r.metric is Metric.count:
            direction = Direction.any  # both legs of every transfer
        elif signed:
            direction = signed
        elif intent is Intent.listing or r.has(p.NEUTRAL_ROWS):
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
        payment_kinds=list(r.payment_kinds),
        direction=direction,
        min_amount=r.amounts.min_amount if r.amounts else None,
        max_amount=r.amounts.max_amount if r.amounts else None,
        currency=r.currency,
        text=r.fee_kind,
    )
