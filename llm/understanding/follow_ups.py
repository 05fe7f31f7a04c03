"""Follow-ups: a question that leans on the previous answer ("and in March?", "as a chart")
edits the previous plan; every other question starts fresh.

Whether a question leans on the previous one is decided by what it says, never by its being
asked next (``elliptical``). A follow-up replaces what it names in the same slot of the previous
plan and keeps the rest; the plan lists the filters it kept (``IntentPlan.inherited``), and the
chat shows them as chips the user can take away (``without``).
"""

from __future__ import annotations

from elastic.model.plan import (
    INHERITABLE,
    SLOTS,
    CompareSide,
    Direction,
    GroupBy,
    Intent,
    IntentPlan,
    Interval,
    Metric,
    Peak,
    SortOrder,
)
from llm.understanding import patterns as p
from llm.understanding.reading import SIDE_FIELD, Comparison, Reading

DEFAULT_LISTING_LIMIT = 20


def elliptical(r: Reading) -> bool:
    """Whether a question leans on the previous one rather than naming its own subject.

    A question that points back ("those", "the same", "it" without a subject of its own) leans
    on it. Otherwise a question is complete when it asks something (how much, list, which,
    what is ...), says what is measured (spending, income, rows, a name, a statement figure)
    and, when it opens as a follow-up does ("and", "what about", "only"), also what it is about
    (a period, a name, an amount). "What was my largest purchase in 2024?" and "And how much
    did I spend at Target in 2024?" are complete; "and in 2023?", "what about income?", "only
    the savings account", "as a chart", "top 3?" are not.
    """
    if r.has(p.POINTING):
        return True
    text = r.rest.strip()
    opener = p.FOLLOW_START.match(text)
    body = text[opener.end() :] if opener else text
    asks = _asks(r, body)
    if r.has(p.ANAPHORA) and not (asks and _about(r)):
        return True
    return not (asks and _measured(r) and (_about(r) or not opener))


def _asks(r: Reading, body: str) -> bool:
    """Whether the question asks something of its own, past any follow-up opener."""
    cues = (p.AGGREGATE, p.LIST_STRONG, p.TREND, p.SINGLE_EXTREME, p.COUNT_METRIC, p.AVERAGE)
    return bool(
        any(cue.search(body) for cue in cues)
        or p.QUESTION_FORM.search(body)
        or r.is_text_qa
        or r.is_listing
        or r.interval
        or r.group_by
        or _kind(r)
    )


def _kind(r: Reading) -> bool:
    """A kind of question beyond totals says what it asks and what it measures: "did anything
    charge me twice?", "list my recurring payments", "my savings rate"."""
    return bool(r.anomaly or r.recurring or r.first_or_last or r.share_of or r.peak or r.balance)


def _measured(r: Reading) -> bool:
    """Whether the question says what is measured: money in or out, rows, a name of the user's
    data, a kind of row, a statement figure."""
    return bool(
        r.direction or r.has(p.ROW_NOUN) or r.is_text_qa or _named(r) or r.unknown_name or _kind(r)
    )


def _about(r: Reading) -> bool:
    """Whether the question says what it is about: a period, amounts or names."""
    return bool(r.dates or r.amounts or _named(r) or r.unknown_name)


def _named(r: Reading) -> bool:
    return bool(r.accounts or r.categories or r.merchants or r.kind or r.fee_kind)


def follow_up(r: Reading, previous: IntentPlan) -> IntentPlan:
    """The previous plan with what the follow-up names put in the same slots: its period, its
    amounts, its accounts, its subject (categories and merchants together, unless "only" narrows
    them), its direction, its shape. ``inherited`` lists the filters kept."""
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
    if r.currency:
        plan.currency = r.currency
    if r.categories or r.merchants:
        narrow = r.has(p.NARROW)
        if r.categories or not narrow:
            plan.categories = r.categories
        if r.merchants or not narrow:
            plan.merchants = r.merchants
        if not narrow:
            plan.text = r.fee_kind  # the words of the previous subject go with it
    if r.direction:
        flips = {r.direction, plan.direction} == {Direction.in_, Direction.out}
        if flips and not r.categories and r.has(p.SUBJECT_IN):
            plan.categories = []  # "what about income?": not the spending categories
        plan.direction = r.direction
    if plan.intent is Intent.text_qa:
        return _kept(plan, previous)
    if r.metric:
        plan.metric = r.metric
    _reshape(r, plan)
    if comparison := r.comparison() or _against_previous(r, previous):
        plan.intent = Intent.aggregate
        compare_into(plan, comparison)
    elif _replaces_sides(r, plan):
        plan.compare = []
    _keep_shapes(plan)
    return _kept(plan, previous)


def _kept(plan: IntentPlan, previous: IntentPlan) -> IntentPlan:
    """``plan`` validated, with the filters it kept from ``previous`` listed."""
    checked = IntentPlan.model_validate(plan.model_dump() | {"inherited": []})
    checked.inherited = inherited(checked, previous)
    return checked


def _against_previous(r: Reading, previous: IntentPlan) -> Comparison | None:
    """A follow-up opening with a comparing word ("vs October?", "compared with Target?"):
    the previous question's period or names against the ones it names."""
    if not p.VERSUS_START.match(r.rest.strip()) or previous.compare:
        return None
    if r.dates and (previous.date_from or previous.date_to):
        sides = [
            CompareSide(date_from=previous.date_from, date_to=previous.date_to),
            CompareSide(date_from=r.dates.start, date_to=r.dates.end),
        ]
        return Comparison(sides, frozenset({"period"}))
    for kind in ("merchants", "categories", "accounts"):
        named, before = getattr(r, kind), getattr(previous, kind)
        if named and before:
            sides = [CompareSide(**{kind: before}), CompareSide(**{kind: named})]
            return Comparison(sides, frozenset({kind}))
    return None


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


def _peak_word(r: Reading) -> Metric | None:
    """The words "the lowest" and "the highest" as a peak names them."""
    if p.PEAK_LOWEST.search(r.rest):
        return Metric.min
    return Metric.max if p.PEAK_HIGHEST.search(r.rest) else None


def _keep_shapes(plan: IntentPlan) -> None:
    """Drop the shapes a reshaped follow-up no longer has: a comparison, an average per
    interval and top groups belong to aggregates, a peak to a trend, a share to an ungrouped
    sum, recurring payments and charges to check to their rows (IntentPlan's rules)."""
    aggregate = plan.intent is Intent.aggregate
    if not aggregate or (plan.group_by and not _periods_only(plan)):
        plan.compare = []
    if not plan.changes:
        plan.change = None
    plain = aggregate and not plan.group_by and not plan.compare
    if not (plain and plan.metric is Metric.sum):
        plan.share_of = None
    trend = plan.intent is Intent.trend and not plan.split_by_category
    if not trend:
        plan.peak = None
    if plan.intent is not Intent.listing:
        plan.anomaly = None
    if not (plan.intent is Intent.listing or plain):
        plan.recurring = False
    if not (trend or (plain and plan.metric in BALANCE_METRICS)):
        plan.balance = False
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
    elif plan.intent is Intent.listing and (r.metric or r.has(p.AGGREGATE)):
        plan.intent = Intent.aggregate  # "how many was that?", "and the total?" after rows
        plan.metric = r.metric or Metric.sum
    elif r.limit and plan.intent is Intent.aggregate and plan.group_by:
        plan.top = r.limit  # "top 3?" after spending by merchant
    elif plan.metric in (Metric.min, Metric.max) and (bare := r.superlative):
        plan.metric = bare  # "and the smallest?" after the largest purchase
    elif plan.peak and (bare := r.superlative or _peak_word(r)):
        plan.peak = Peak.lowest if bare is Metric.min else Peak.highest  # "and the lowest?"


BALANCE_METRICS = (Metric.sum, Metric.min, Metric.max)


def _periods_only(plan: IntentPlan) -> bool:
    """Two sides that are periods: groups compared across them are the biggest changes."""
    return len(plan.compare) == 2 and all(side.has_period for side in plan.compare)


def carried_slots(plan: IntentPlan) -> list[str]:
    """The slots (``SLOTS``) a follow-up's plan filled from the question before, in order."""
    return [slot for slot, fields in SLOTS.items() if set(fields) & set(plan.inherited)]


def without(plan: IntentPlan, slot: str) -> IntentPlan:
    """``plan`` with nothing in ``slot``: the question asked again without what it carried."""
    fields = IntentPlan.model_fields
    cleared = {name: fields[name].get_default(call_default_factory=True) for name in SLOTS[slot]}
    return IntentPlan.model_validate(plan.model_dump() | cleared)


def inherited(plan: IntentPlan, previous: IntentPlan) -> list[str]:
    """The filters ``plan`` kept from ``previous``: set in both, and the same."""
    return [
        name
        for name in INHERITABLE
        if getattr(previous, name) not in (None, [])
        and getattr(plan, name) == getattr(previous, name)
        and not (name == "text" and plan.intent is Intent.text_qa)
    ]
