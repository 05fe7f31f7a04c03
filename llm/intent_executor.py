"""Route a validated plan to the backend call for its intent. Routing only: no query logic."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

import numpy as np

from elastic.backend import SearchBackend
from elastic.results import AggregateResult, TrendResult
from elastic.shaping import MIXED_CURRENCY
from llm.answer import Result
from llm.intent_plan import GroupBy, Intent, IntentPlan, Metric

Numbers = TypeVar("Numbers", AggregateResult, TrendResult)


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
        return replace(result, value=None, groups=[], by_currency=parts)
    return replace(result, series=[], splits={}, by_currency=parts)


def execute(
    backend: SearchBackend,
    user_id: str,
    plan: IntentPlan,
    query_vector: np.ndarray | None = None,
) -> Result | None:
    """Run ``plan`` for ``user_id``; the backend applies the user filter to every query."""
    match plan.intent:
        case Intent.aggregate:
            return _per_currency(backend, user_id, plan, backend.aggregate)
        case Intent.trend:
            return _per_currency(backend, user_id, plan, backend.trend)
        case Intent.listing:
            return backend.listing(user_id, plan)
        case Intent.text_qa:
            result = backend.text_qa(user_id, plan, query_vector)
            if plan.facts:
                result = replace(result, facts=backend.facts(user_id, plan))
            return result
    return None
