"""Route a validated plan to the backend calls for its intent. Routing only: no query logic."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from itertools import chain
from typing import Any, TypeVar

import dateparser
import numpy as np

from elastic.backend import SearchBackend
from elastic.ingest.pdf.facts import (
    amount_at_end,
    figures_named,
    misread_amount_at_end,
)
from elastic.model.plan import Direction, GroupBy, Intent, IntentPlan, Metric, SortOrder
from elastic.model.records import RECONCILED
from elastic.model.results import (
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    Basis,
    ChangesResult,
    CompareResult,
    ListingResult,
    PayeeLines,
    PeakResult,
    RecurringResult,
    ShareResult,
    SideResult,
    StatementInfo,
    StatementRows,
    TextQAResult,
    TrendResult,
    average_per_interval,
)
from elastic.query.recurring import reading_plan
from elastic.query.shaping import MIXED_CURRENCY
from llm.answering.answer import Result
from llm.understanding.offline_router import asks_how_it_works, asks_to_act

Numbers = TypeVar("Numbers", AggregateResult, TrendResult)
# The category whose rows a statement figure sums: a question routed to those rows is kept.
FIGURE_CATEGORIES = {"fees": "Fees", "interest": "Interest"}
# The way money goes that a figure totals: a sum of rows of a category, or of the other way,
# is not asking for it ("rent paid in 2024", "what have I paid in total").
FIGURE_DIRECTIONS = {"money_in": Direction.in_, "money_out": Direction.out}
RATES = frozenset({"apr"})
# Spend and income are directed so that their smallest and largest values are the smallest
# and largest amounts: the transaction behind one is the listing's first row by amount.
_EXTREME_ORDER = {Metric.min: SortOrder.smallest, Metric.max: SortOrder.largest}


def currencies_of(backend: SearchBackend, user_id: str, plan: IntentPlan) -> list[str]:
    """The currencies of the rows ``plan`` selects, most rows first."""
    probe = plan.model_copy(
        update={"intent": Intent.aggregate, "group_by": GroupBy.currency, "metric": Metric.count}
    )
    return [group.key for group in backend.aggregate(user_id, probe).groups]


def _per_currency(
    backend: SearchBackend,
    user_id: str,
    plan: IntentPlan,
    run: Callable[[str, IntentPlan], Numbers],
) -> Numbers:
    """Amounts in different currencies are never added: a mixed result is run per currency."""
    result = run(user_id, plan)
    if result.currency != MIXED_CURRENCY or plan.metric is Metric.count:
        return result  # counts add up across currencies; money does not
    parts = [
        run(user_id, plan.model_copy(update={"currency": currency}))
        for currency in currencies_of(backend, user_id, plan)
    ]
    if isinstance(result, AggregateResult):
        return replace(result, value=None, groups=[], periods=None, by_currency=parts)
    return replace(result, series=[], splits={}, by_currency=parts)


def _figure(backend: SearchBackend, user_id: str, plan: IntentPlan) -> AggregateResult:
    """One aggregate: an average per interval from the trend of the period, or the backend's
    aggregate with its top groups and the transaction behind a smallest or largest amount."""

    def run(user: str, part: IntentPlan) -> AggregateResult:
        if part.per:
            totals = part.model_copy(
                update={"intent": Intent.trend, "interval": part.per, "metric": Metric.sum}
            )
            return average_per_interval(backend.trend(user, totals))
        result = backend.aggregate(user, part)
        if result.currency == MIXED_CURRENCY:
            return result
        result = replace(result, groups=result.groups[: part.top])
        order = _EXTREME_ORDER.get(part.metric)
        directed = part.direction in (Direction.out, Direction.in_)
        if order is None or not directed or part.group_by or not result.count:
            return result
        row = part.model_copy(update={"intent": Intent.listing, "sort": order, "limit": 1})
        return replace(result, extreme=backend.listing(user, row).rows[0])

    return _per_currency(backend, user_id, plan, run)


def _compare(backend: SearchBackend, user_id: str, plan: IntentPlan) -> CompareResult:
    """One aggregate per side; sides in several currencies are compared per currency."""
    sides = [
        SideResult(side, plan.side(side), _figure(backend, user_id, plan.side(side)))
        for side in plan.compare
    ]
    rows: Counter[str] = Counter()
    for side in sides:
        for part in side.result.by_currency or [side.result]:
            rows[part.currency] += part.count
    currencies = [currency for currency, count in rows.most_common() if count]
    if len(currencies) < 2 and MIXED_CURRENCY not in currencies:
        currency = currencies[0] if currencies else sides[0].result.currency
        return CompareResult(plan.metric, plan.direction, currency, sides)
    if plan.metric is Metric.count:  # counts add up across currencies; money does not
        return CompareResult(plan.metric, plan.direction, MIXED_CURRENCY, sides)
    parts = [
        _compare(backend, user_id, plan.model_copy(update={"currency": currency}))
        for currency in currencies
    ]
    return CompareResult(plan.metric, plan.direction, MIXED_CURRENCY, [], parts)


def stated_figure(
    backend: SearchBackend, user_id: str, question: str, plan: IntentPlan
) -> IntentPlan:
    """The plan for a question that names a figure in the words statements print for it
    ("previous balance", "fees charged", "total deposits", "Neuer Kontostand") when the user's
    statements state that figure for the question's accounts and period: the stated figure
    answers it, not a quoted passage nor a sum of rows the question did not ask for. A plan
    that sums the figure's own category ("fees" as the Fees rows), or money in or out of a
    category or the other way than the figure ("rent paid in 2024" as Housing) is kept, as is
    any other (a count, a merchant's rows, a comparison, a figure no statement states)."""
    if plan.intent not in (Intent.text_qa, Intent.clarify, Intent.aggregate) or plan.facts:
        return plan
    summed = plan.intent is Intent.aggregate
    if summed and (
        plan.metric is not Metric.sum or plan.merchants or plan.compare or plan.group_by
    ):
        return plan
    names = [] if asks_how_it_works(question) else figures_named(question)
    # A rate differs by kind of balance (purchases, cash): the terms say which, not one figure.
    names = [name for name in names if name not in RATES]
    if not names:
        return plan
    if summed and FIGURE_CATEGORIES.get(names[0]) in plan.categories:
        return plan
    direction = FIGURE_DIRECTIONS.get(names[0])
    if (
        summed
        and direction is not None
        and (plan.categories or plan.direction not in (direction, Direction.any))
    ):
        return plan
    figure = IntentPlan(
        intent=Intent.text_qa,
        text=question,
        facts=names[:1],
        accounts=plan.accounts,
        currency=plan.currency,
        date_from=plan.date_from,
        date_to=plan.date_to,
    )
    return figure if backend.facts(user_id, figure) else plan


def statements_behind(
    backend: SearchBackend, user_id: str, plan: IntentPlan
) -> list[StatementRows]:
    """The statement PDFs an answer's rows came from that do not reconcile with their
    balances, could not be checked, or were read by OCR: what the answer must say of them."""
    if plan.intent not in (Intent.aggregate, Intent.trend, Intent.listing):
        return []
    counts: Counter[str] = Counter()
    for part in [plan.side(side) for side in plan.compare] or [plan]:
        counts.update(backend.statement_rows(user_id, part))
    if not counts:
        return []
    infos = {info.source_file: info for info in backend.statements(user_id)}
    behind = []
    for source, rows in counts.most_common():
        info = infos.get(source)
        check = info.reconciliation if info else None
        if info and check and (check.status != RECONCILED or check.ocr):
            behind.append(StatementRows(info, rows))
    return behind


MAX_PAYEE_WORDS = 5  # a payee's name in a question
_QUESTION_WORD = re.compile(r"[\w&'’.-]+")


def statement_lines(
    backend: SearchBackend, user_id: str, question: str, question_words: frozenset[str]
) -> PayeeLines | None:
    """The lines of the user's statements that print a name the question asks about, with an
    amount at their end (a row the import could not read as a transaction): the longest run
    of the question's words, other than ``question_words`` and the names the user's data
    already knows (a category, merchant, account or bank: the router placed those), that such
    a line holds. A request to move money names no payee to look for."""
    if asks_to_act(question):
        return None
    vocabulary = backend.vocabulary(user_id)
    known = {
        name.casefold()
        for name in chain(
            vocabulary.merchants,
            vocabulary.categories,
            (a.account_name for a in vocabulary.accounts),
            (a.bank_name for a in vocabulary.accounts),
        )
    }
    words = _QUESTION_WORD.findall(question)
    runs: list[list[str]] = [[]]
    for word in words:
        if word.casefold().strip(".'’") in question_words:
            runs.append([])
        else:
            runs[-1].append(word.strip(".'’"))
    names = {
        " ".join(run[start : start + size])
        for run in runs
        for size in range(1, min(len(run), MAX_PAYEE_WORDS) + 1)
        for start in range(len(run) - size + 1)
    }
    for name in sorted(names, key=lambda n: (-len(n.split()), -len(n))):
        if len(name) < MIN_NAME_CHARS or not _LETTERS.search(name) or name.casefold() in known:
            continue
        if dateparser.parse(name) is not None:  # "March", "2024" name a time, not a payee
            continue
        plan = IntentPlan(intent=Intent.text_qa, text=name)
        pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)
        # In statement and page order, whichever the search ranked first.
        hits = sorted(
            backend.text_qa(user_id, plan, None).hits,
            key=lambda hit: (hit.statement_from, hit.statement_id, hit.page),
        )
        found = [
            (hit, line.strip())
            for hit in hits
            for line in hit.text.splitlines()
            if pattern.search(line) and (amount_at_end(line) or misread_amount_at_end(line))
        ]
        if found:
            return PayeeLines(name, found)
    return None


MIN_NAME_CHARS = 3
_LETTERS = re.compile(r"[^\W\d_]{2}")  # a name has a word, not a code ("Q5") or a number


def _statements_of(backend: SearchBackend, user_id: str, plan: IntentPlan) -> list[StatementInfo]:
    """The user's statements a question covers: of its accounts, overlapping its period."""
    return [
        s
        for s in backend.statements(user_id)
        if (not plan.accounts or s.account_name in plan.accounts)
        and (plan.date_from is None or s.statement_to >= plan.date_from)
        and (plan.date_to is None or s.statement_from <= plan.date_to)
    ]


def _changes(backend: SearchBackend, user_id: str, plan: IntentPlan) -> ChangesResult:
    """Each period's figure per group; groups in several currencies are compared per
    currency. ``top`` keeps the biggest changes, not the biggest groups of a side."""
    sides = []
    for side in plan.compare:
        side_plan = plan.side(side).model_copy(update={"change": None, "top": None})
        sides.append(SideResult(side, side_plan, _figure(backend, user_id, side_plan)))
    mixed = [s for s in sides if s.result.currency == MIXED_CURRENCY]
    if mixed:
        currencies = [p.currency for s in mixed for p in s.result.by_currency]
        parts = [
            _changes(backend, user_id, plan.model_copy(update={"currency": currency}))
            for currency in dict.fromkeys(currencies)
        ]
        changes = ChangesResult.of(plan, sides, MIXED_CURRENCY)
        return replace(changes, rows=[], by_currency=parts)
    counted = [s.result.currency for s in sides if s.result.count]
    changes = ChangesResult.of(plan, sides, counted[0] if counted else sides[0].result.currency)
    return replace(changes, rows=changes.rows[: plan.top])


def _trend(backend: SearchBackend, user_id: str, plan: IntentPlan) -> TrendResult | PeakResult:
    trend = _per_currency(backend, user_id, plan, backend.trend)
    return PeakResult.of(trend, plan.peak, plan.metric) if plan.peak else trend


def _text(
    backend: SearchBackend, user_id: str, plan: IntentPlan, query_vector: np.ndarray | None
) -> TextQAResult:
    result = backend.text_qa(user_id, plan, query_vector)
    if plan.facts:
        facts = backend.facts(user_id, plan)
        searched = [] if facts else _statements_of(backend, user_id, plan)
        result = replace(result, facts=facts, searched=searched)
    return result


Run = Callable[[SearchBackend, str, IntentPlan, "np.ndarray | None"], Result]
# Which flow answers a plan, first match wins: the kinds a plan field asks for, then intents.
RUNS: tuple[tuple[Callable[[IntentPlan], bool], Run], ...] = (
    (lambda plan: plan.balance, lambda b, u, p, v: b.balances(u, p)),
    (lambda plan: plan.share_of is not None, lambda b, u, p, v: b.share(u, p)),
    (lambda plan: plan.recurring, lambda b, u, p, v: b.recurring(u, p)),
    (lambda plan: plan.anomaly is not None, lambda b, u, p, v: b.anomalies(u, p)),
    (lambda plan: plan.changes, lambda b, u, p, v: _changes(b, u, p)),
    (lambda plan: plan.intent is Intent.aggregate and bool(plan.compare),
     lambda b, u, p, v: _compare(b, u, p)),
    (lambda plan: plan.intent is Intent.aggregate, lambda b, u, p, v: _figure(b, u, p)),
    (lambda plan: plan.intent is Intent.trend, lambda b, u, p, v: _trend(b, u, p)),
    (lambda plan: plan.intent is Intent.listing, lambda b, u, p, v: b.listing(u, p)),
    (lambda plan: plan.intent is Intent.text_qa, _text),
)  # fmt: skip


def execute(
    backend: SearchBackend,
    user_id: str,
    plan: IntentPlan,
    query_vector: np.ndarray | None = None,
) -> Result | None:
    """Run ``plan`` for ``user_id``; the backend applies the user filter to every query."""
    for applies, run in RUNS:
        if applies(plan):
            return run(backend, user_id, plan, query_vector)
    return None


# --- what each answer counted and left out -------------------------------------------------------


def _balances_basis(result: BalanceResult) -> Basis:
    accounts = result.accounts
    return Basis(
        kind="balances",
        counted=sum(a.rows for a in accounts),
        stated=sum(a.stated for a in accounts),
        gaps=sum(len(a.gaps) for a in accounts),
        unknown=sum(1 for a in accounts if a.known_from is None),
    )


def _sides_basis(backend: SearchBackend, user_id: str, sides: list[SideResult]) -> Basis:
    first, *rest = [backend.basis(user_id, side.plan) for side in sides]
    for more in rest:
        first += more
    return first


BasisOf = Callable[[SearchBackend, str, IntentPlan, Any], "Basis | None"]
# How each result type's basis is found: the rows its plan counts, again with the filters that
# leave rows out relaxed (``SearchBackend.basis``), or what the result itself says.
BASES: dict[type, BasisOf] = {
    AggregateResult: lambda b, u, p, r: b.basis(u, p),
    TrendResult: lambda b, u, p, r: b.basis(u, p),
    ListingResult: lambda b, u, p, r: b.basis(u, p),
    PeakResult: lambda b, u, p, r: b.basis(u, p),
    ShareResult: lambda b, u, p, r: b.basis(u, p.model_copy(update={"share_of": None})),
    CompareResult: lambda b, u, p, r: _sides_basis(b, u, _sides(r)),
    ChangesResult: lambda b, u, p, r: _sides_basis(b, u, _sides(r)),
    RecurringResult: lambda b, u, p, r: b.basis(u, reading_plan(p)),
    AnomalyResult: lambda b, u, p, r: b.basis(u, reading_plan(p)),
    BalanceResult: lambda b, u, p, r: _balances_basis(r),
    TextQAResult: lambda b, u, p, r: Basis("facts", len(r.facts)) if r.facts else None,
}


def _sides(result: CompareResult | ChangesResult) -> list[SideResult]:
    """The sides of a comparison, of every currency's comparison when split."""
    parts = result.by_currency or [result]
    return [side for part in parts for side in part.sides]


def account_for(
    backend: SearchBackend, user_id: str, plan: IntentPlan, result: Result | None
) -> Basis | None:
    """What ``result`` counted and left out, with counts (``BASES``); none without a result."""
    if result is None:
        return None
    return BASES[type(result)](backend, user_id, plan, result)
