"""Route a validated plan to the backend calls for its intent. Routing only: no query logic."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np

from elastic.backend import SearchBackend
from elastic.model.plan import Direction, GroupBy, Intent, IntentPlan, Metric, SortOrder
from elastic.model.results import (
    AggregateResult,
    AnomalyResult,
    BalanceResult,
    Basis,
    ChangesResult,
    CompareResult,
    ListingResult,
    PeakResult,
    RecurringResult,
    ShareResult,
    SideResult,
    TextQAResult,
    TrendResult,
    average_per_interval,
)
from elastic.query.recurring import reading_plan
from elastic.query.shaping import MIXED_CURRENCY
from llm.answering.answer import Result

Numbers = TypeVar("Numbers", AggregateResult, TrendResult)
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
        result = replace(result, facts=backend.facts(user_id, plan))
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
