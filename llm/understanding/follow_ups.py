"""Follow-ups: a question that leans on the previous answer ("and in March?", "as a chart")
edits the previous plan; every other question starts fresh.

Whether a question leans on the previous one is decided by what it says, never by its being
asked next (``elliptical``). A follow-up replaces what it names in the same slot of the previous
plan and keeps the rest; the plan lists the filters it kept (``IntentPlan.inherited``), and the
chat shows them as chips the user can take away (``without``).
"""

from __future__ import annotations

from elastic.model.plan import INHERITABLE, GroupBy, Intent, IntentPlan, Interval, Metric, SortOrder
from llm.understanding import patterns as p
from llm.understanding.reading import SIDE_FIELD, Comparison, Reading

DEFAULT_LISTING_LIMIT = 20


def elliptical(r: Reading) -> bool:
    """Whether a question edits the previous plan: decided by what it says, so a question
    naming its own subject and period starts fresh even after "and"."""
    own_intent = (
        r.is_text_qa
        or r.has(p.AGGREGATE)
        or r.has(p.LIST_STRONG)
        or r.has(p.TREND)
        or r.interval is not None  # "monthly dining spending for 2025" is a question of its own
        or r.group_by is not None  # "spending by category in 2024" too
        or r.is_listing
    )
    named = r.accounts or r.categories or r.merchants or r.kind or r.fee_kind
    asks = own_intent or r.direction is not None  # "What did I spend on X in May?"
    if asks and named and r.dates and not r.has(p.POINTING):
        return False
    if p.FOLLOW_START.search(r.rest.strip()) or r.has(p.ANAPHORA):
        return True
    return not (own_intent and r.subject)


def follow_up(r: Reading, previous: IntentPlan) -> IntentPlan:
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
        narrow = r.has(p.NARROW)
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
        compare_into(plan, comparison)
    elif _replaces_sides(r, plan):
        plan.compare = []
    _keep_shapes(plan)
    return IntentPlan.model_validate(plan.model_dump())


def compare_into(plan: IntentPlan, comparison: Comparison) -> None:
    """Make ``plan`` the shared part of ``comparison``: the sides replace what they name."""
    plan.compare = comparison.sides
    plan.group_by, plan.top = None, None
    for kind in comparison.kinds:
        if kind == "period":
            plan.date_from = plan.date_to = None
        else:
            setattr(plan, kind, [])


def _replaces_sides(r: Reading, plan: IntentPlan) -> bool:
    """Whether a follow-up names what the sides of the previous comparison name ("and in
    March?" after "Q1 vs Q2"): it then asks about that alone."""
    named = {item.kind for item in r.items}
    return any(
        (side.has_period and "period" in named)
        or any(getattr(side, kind) and kind in named for kind in SIDE_FIELD.values())
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


def _reshape(r: Reading, plan: IntentPlan) -> None:
    """Turn the plan into the trend, listing or grouped aggregate a follow-up asks for."""
    interval, group_by = r.interval, r.group_by
    if r.per and plan.intent is Intent.aggregate:
        plan.per = r.per  # "and the average per month?"
    elif r.has(p.CHART_FOLLOW) or (interval and interval is not Interval.month):
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
    elif r.has(p.LIST_FOLLOW) and plan.intent is not Intent.listing:
        plan.intent = Intent.listing
        plan.sort = r.sort or SortOrder.newest
        plan.limit = r.limit or DEFAULT_LISTING_LIMIT
        plan.group_by, plan.metric, plan.split_by_category = None, Metric.sum, False
    elif plan.intent is Intent.listing and (r.sort or r.limit):
        plan.sort = r.sort or plan.sort
        plan.limit = r.limit or plan.limit
    elif r.metric and plan.intent is Intent.listing:
        plan.intent = Intent.aggregate
    elif r.limit and plan.intent is Intent.aggregate and plan.group_by:
        plan.top = r.limit  # "top 3?" after spending by merchant


def inherited(plan: IntentPlan, previous: IntentPlan) -> list[str]:
    """The filters ``plan`` kept from ``previous``: set in both, and the same."""
    return [
        name
        for name in INHERITABLE
        if getattr(previous, name) not in (None, [])
        and getattr(plan, name) == getattr(previous, name)
        and not (name == "text" and plan.intent is Intent.text_qa)
    ]
