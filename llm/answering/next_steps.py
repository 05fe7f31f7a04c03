"""What to ask next about an answer's numbers, and the rows behind one point of its chart.

Next steps are two to four buttons under an answer ("By month", "By merchant", "Compared with
last year", "Show the transactions"), chosen from what the answer is about and worded in its
language. Each is a ``PlannedQuestion``: the answer's filters in another shape, answered from that
plan, so a button never depends on how its words would be routed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from dateutil.relativedelta import relativedelta

from elastic.model.calendar import bucket_end, bucket_start
from elastic.model.plan import (
    CompareSide,
    Direction,
    GroupBy,
    Intent,
    IntentPlan,
    Interval,
    SortOrder,
)
from elastic.model.results import (
    AggregateResult,
    CompareResult,
    ListingResult,
    TextQAResult,
    TrendResult,
)
from llm.answering.answer import Answer, Citation
from llm.answering.composer import transactions_citation
from llm.answering.wording import wording
from llm.planned import PlannedQuestion, reshaped

MAX_STEPS = 4
ROWS_SHOWN = 25  # "Show the transactions": the newest rows, the whole list one click away
GROUPS_SHOWN = 10


def _spans_months(plan: IntentPlan) -> bool:
    """Whether the plan's period covers more than one calendar month (or is open)."""
    if plan.date_from is None or plan.date_to is None:
        return True
    return bucket_start(plan.date_from, Interval.month) != bucket_start(
        plan.date_to, Interval.month
    )


def _year_earlier(plan: IntentPlan, first_day: date | None) -> IntentPlan | None:
    """The plan's period against the same period a year earlier, when the data reaches back
    that far."""
    if plan.date_from is None or plan.date_to is None:
        return None
    year = relativedelta(years=1)
    earlier = CompareSide(date_from=plan.date_from - year, date_to=plan.date_to - year)
    if first_day is not None and earlier.date_to is not None and earlier.date_to < first_day:
        return None
    now = CompareSide(date_from=plan.date_from, date_to=plan.date_to)
    return reshaped(plan, Intent.aggregate, compare=[earlier, now], date_from=None, date_to=None)


def _by(plan: IntentPlan, group: GroupBy) -> IntentPlan:
    return reshaped(plan, Intent.aggregate, group_by=group, top=GROUPS_SHOWN)


def _trend(plan: IntentPlan) -> tuple[str, IntentPlan]:
    """By month, or by week when the period is one month."""
    interval = Interval.month if _spans_months(plan) else Interval.week
    return f"next_step.by_{interval.value}", reshaped(plan, Intent.trend, interval=interval)


def _rows(plan: IntentPlan) -> IntentPlan:
    return reshaped(plan, Intent.listing, sort=SortOrder.newest, limit=ROWS_SHOWN)


def _covering(plan: IntentPlan) -> IntentPlan:
    """A comparison's shared filters over the span of its sides."""
    starts = [s.date_from for s in plan.compare if s.date_from]
    ends = [s.date_to for s in plan.compare if s.date_to]
    update = {name: [] for name in ("accounts", "categories", "merchants")}
    for side in plan.compare:
        for name in update:
            update[name] += [v for v in getattr(side, name) if v not in update[name]]
    merged = {name: values or getattr(plan, name) for name, values in update.items()}
    return reshaped(
        plan,
        Intent.aggregate,
        date_from=min(starts) if starts else plan.date_from,
        date_to=max(ends) if ends else plan.date_to,
        **merged,
    )


def _statement_rows(answer: Answer) -> IntentPlan | None:
    """The transactions of the statement period a statement answer cites."""
    result = answer.result
    if not isinstance(result, TextQAResult):
        return None
    if result.facts:
        fact = result.facts[0]
        month = bucket_start(fact.as_of, Interval.month)
        account, start, end = fact.account_name, month, fact.as_of
    elif result.hits:
        hit = result.hits[0]
        account, start, end = hit.account_name, hit.statement_from, hit.statement_to
    else:
        return None
    return IntentPlan(
        intent=Intent.listing,
        accounts=[account],
        date_from=start,
        date_to=end,
        limit=ROWS_SHOWN,
        direction=Direction.any,
    )


def _candidates(answer: Answer, first_day: date | None) -> list[tuple[str, IntentPlan]]:
    plan, result = answer.plan, answer.result
    steps: list[tuple[str, IntentPlan | None]] = []
    if isinstance(result, CompareResult):
        covering = _covering(plan)
        steps += [_trend(covering), ("next_step.by_category", _by(covering, GroupBy.category))]
        steps.append(("next_step.transactions", _rows(covering)))
    elif isinstance(result, AggregateResult):
        if plan.group_by is not GroupBy.month:
            steps.append(_trend(plan))
        if plan.group_by is not GroupBy.merchant and len(plan.merchants) != 1:
            steps.append(("next_step.by_merchant", _by(plan, GroupBy.merchant)))
        if plan.group_by is not GroupBy.category and len(plan.categories) != 1:
            steps.append(("next_step.by_category", _by(plan, GroupBy.category)))
        steps.append(("next_step.vs_last_year", _year_earlier(plan, first_day)))
        steps.append(("next_step.transactions", _rows(plan)))
    elif isinstance(result, TrendResult):
        if len(plan.categories) != 1:
            steps.append(("next_step.by_category", _by(plan, GroupBy.category)))
        steps.append(("next_step.by_merchant", _by(plan, GroupBy.merchant)))
        steps.append(("next_step.vs_last_year", _year_earlier(plan, first_day)))
        steps.append(("next_step.transactions", _rows(plan)))
    elif isinstance(result, ListingResult):
        steps.append(("next_step.total", reshaped(plan, Intent.aggregate)))
        steps.append(("next_step.by_category", _by(plan, GroupBy.category)))
        steps.append(_trend(plan))
    elif isinstance(result, TextQAResult) and (rows := _statement_rows(answer)) is not None:
        steps.append(("next_step.transactions", rows))
        spend = rows.model_copy(update={"direction": Direction.out})
        steps.append(("next_step.by_category", _by(spend, GroupBy.category)))
    return [(key, step) for key, step in steps if step is not None]


def _found_anything(answer: Answer) -> bool:
    result = answer.result
    if isinstance(result, AggregateResult):
        return result.count > 0
    if isinstance(result, ListingResult):
        return result.total > 0
    if isinstance(result, TrendResult):
        return any(b.count for part in result.by_currency or [result] for b in part.series)
    if isinstance(result, CompareResult):
        parts = result.by_currency or [result]
        return any(side.result.count for part in parts for side in part.sides)
    if isinstance(result, TextQAResult):
        return bool(result.facts or result.hits)
    return False


def next_steps(answer: Answer, first_day: date | None = None) -> list[PlannedQuestion]:
    """Up to ``MAX_STEPS`` questions about the same numbers, in the answer's language; none
    for an answer that found nothing (a clarification offers its own suggestions)."""
    if not _found_anything(answer):
        return []
    w = wording(answer.language)
    return [
        PlannedQuestion(w.text(key), plan, w.code)
        for key, plan in _candidates(answer, first_day)[:MAX_STEPS]
    ]


@dataclass(frozen=True)
class Point:
    """One mark of an answer's chart: a group's key, a bucket's first day (``YYYY-MM-DD``) or a
    side's place, the line it is on (a category of a split trend), and its currency when the
    answer has a chart per currency."""

    key: str
    series: str | None = None
    currency: str | None = None


def _point_plan(answer: Answer, point: Point) -> tuple[IntentPlan, int] | None:
    """The listing of the rows behind ``point`` and how many they are."""
    plan, result = answer.plan, answer.result
    if point.currency:
        plan = plan.model_copy(update={"currency": point.currency})
        parts = getattr(result, "by_currency", None) or []
        result = next((p for p in parts if p.currency == point.currency), result)
    if isinstance(result, TrendResult):
        buckets = result.splits.get(point.series, []) if point.series else result.series
        bucket = next((b for b in buckets if b.period.isoformat() == point.key), None)
        if bucket is None:
            return None
        start = max(bucket.period, plan.date_from or bucket.period)
        end = bucket_end(bucket.period, result.interval)
        end = min(end, plan.date_to or end)
        changes: dict[str, object] = {"date_from": start, "date_to": end}
        if point.series:
            changes["categories"] = [point.series]
        return reshaped(plan, Intent.listing, **changes), bucket.count
    if isinstance(result, CompareResult):
        if not point.key.isdigit() or int(point.key) >= len(result.sides):
            return None
        side = result.sides[int(point.key)]
        return reshaped(side.plan.model_copy(update={"currency": plan.currency}), Intent.listing), (
            side.result.count
        )
    if isinstance(result, AggregateResult) and plan.group_by is not None:
        group = next((g for g in result.groups if g.key == point.key), None)
        if group is None:
            return None
        field = {
            GroupBy.category: "categories",
            GroupBy.merchant: "merchants",
            GroupBy.account: "accounts",
        }.get(plan.group_by)
        if field is not None:
            narrowed: dict[str, object] = {field: [group.key]}
        elif plan.group_by is GroupBy.month:
            first = date.fromisoformat(group.key)
            narrowed = {"date_from": first, "date_to": bucket_end(first, Interval.month)}
        else:
            narrowed = {"currency": group.key}
        return reshaped(plan, Intent.listing, **narrowed), group.count
    return None


def rows_behind_point(answer: Answer, point: Point) -> Citation | None:
    """A citation that opens the transactions behind one bar, point or slice of the answer's
    chart (None for a mark that stands for no rows)."""
    found = _point_plan(answer, point)
    if found is None:
        return None
    plan, count = found
    return transactions_citation(0, plan, count, wording(answer.language))
