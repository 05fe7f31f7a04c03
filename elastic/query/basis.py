"""What an answer's figure counted and what it left out, with counts (``Basis``).

The plan's rows are counted again with the filters that leave rows out relaxed: without the
direction, the transfer exclusion and the currency. Each row is then one of: counted; a
transfer between the user's own accounts or a card payment left out (spend, income and net
never count them); money of the other direction left out (refunds and income are not
spending); or a row in a currency the question did not ask for. Two statistics queries of the
spec (money out, money in) per currency and category do it, on either engine and the columnar
cache. Pending rows are never stored, so they are never counted.
"""

from __future__ import annotations

from collections.abc import Mapping

from elastic.model.plan import TRANSFERS_CATEGORY, Direction, IntentPlan
from elastic.model.results import Basis
from elastic.query.build import AMOUNT, MAX_GROUPS, transaction_filters
from elastic.query.spec import And, Groups, Range, Raw, StatsQuery

LEVELS = (Groups("currency", MAX_GROUPS), Groups("category", MAX_GROUPS))
# Which signs of amount each direction counts.
SIGNS = {
    Direction.out: ("out",),
    Direction.in_: ("in",),
    Direction.net: ("out", "in"),
    Direction.any: ("out", "in"),
}
OPPOSITE = {Direction.out: ("in",), Direction.in_: ("out",)}


def relaxed(plan: IntentPlan) -> IntentPlan:
    """The plan's rows of every direction and currency, transfers included."""
    return plan.model_copy(update={"direction": Direction.any, "currency": None})


def queries(plan: IntentPlan, user_id: str) -> dict[str, StatsQuery]:
    """Counts per currency and category of the relaxed plan's money out and money in."""
    where = transaction_filters(relaxed(plan), user_id)
    return {
        "out": StatsQuery(And((where, Range("amount_cents", lt=0))), AMOUNT, (("cells", LEVELS),)),
        "in": StatsQuery(And((where, Range("amount_cents", gt=0))), AMOUNT, (("cells", LEVELS),)),
    }


def basis(plan: IntentPlan, cells: Mapping[str, Mapping[tuple, Raw]]) -> Basis:
    """Each counted cell as counted or left out, and why (``cells``: per sign, the cells of
    ``queries``)."""
    counted = transfers = other = 0
    currencies: dict[str, int] = {}
    asked = SIGNS[plan.direction]
    for sign, found in cells.items():
        for (currency, category), raw in found.items():
            rows = raw[0]
            foreign = bool(plan.currency) and currency != plan.currency
            if sign not in asked:
                opposite = sign in OPPOSITE.get(plan.direction, ())
                if opposite and not foreign and category != TRANSFERS_CATEGORY:
                    other += rows
                continue
            if foreign:
                if not (plan.excludes_transfers and category == TRANSFERS_CATEGORY):
                    currencies[str(currency)] = currencies.get(str(currency), 0) + rows
            elif plan.excludes_transfers and category == TRANSFERS_CATEGORY:
                transfers += rows
            else:
                counted += rows
    return Basis(
        kind="rows",
        counted=counted,
        direction=plan.direction,
        currency=plan.currency,
        transfers=transfers,
        other_direction=other,
        other_currencies=dict(sorted(currencies.items())),
    )
