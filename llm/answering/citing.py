"""What every composed answer shares: citations of the rows behind a figure, the words of a
plan's filters and period, document text made inert, and one answer per currency."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from elastic.masking import mask_account_numbers
from elastic.model.plan import Intent, IntentPlan, SortOrder
from elastic.model.records import Transaction
from llm.answering.answer import Citation, Part, Prose
from llm.answering.wording import Wording, wording

Composed = tuple[list[Part], list[Citation]]
# What a plan asks beyond its rows: the rows behind a figure are listed without it.
NOT_ROWS = {
    "share_of": None,
    "peak": None,
    "change": None,
    "balance": False,
    "recurring": False,
    "anomaly": None,
}

_MARKUP = str.maketrans({"[": "(", "]": ")", "`": "'", "<": "‹", ">": "›", "|": "/"})


def plain(text: str, account_no: str = "") -> str:
    """Document text as it may appear in an answer: account numbers masked, and no links,
    images, HTML or ``[N]`` that could pass for a citation."""
    return mask_account_numbers(text, [account_no]).translate(_MARKUP)


def transactions_citation(
    n: int, plan: IntentPlan, count: int, w: Wording | None = None
) -> Citation:
    """A citation that opens exactly the rows behind a number."""
    w = w or wording()
    rows_plan = plan.model_copy(
        update={
            "intent": Intent.listing,
            "sort": SortOrder.newest,
            "limit": 100,
            "per": None,
            "top": None,
            "compare": [],
            **NOT_ROWS,
        }
    )
    source = w.text(
        "citation.transactions", transactions=w.plural(count, "transaction"), scope=scope(plan, w)
    )
    return Citation(n=n, kind="transactions", source=source.strip(), rows_plan=rows_plan)


def row_citation(n: int, plan: IntentPlan, row: Transaction, w: Wording | None = None) -> Citation:
    """A citation that opens one transaction: the plan's rows of its day and amount."""
    w = w or wording()
    exact = plan.model_copy(
        update={
            "date_from": row.date,
            "date_to": row.date,
            "min_amount": abs(row.amount),
            "max_amount": abs(row.amount),
        }
    )
    citation = transactions_citation(n, exact, 1, w)
    source = w.text(
        "citation.row",
        name=plain(row.merchant or row.description),
        day=w.day_label(row.date),
        amount=w.money(row.amount, row.currency),
    )
    return replace(citation, source=source)


def scope(plan: IntentPlan, w: Wording) -> str:
    """The plan's filters and period as words, as a sentence ends."""
    return " ".join(x for x in (w.describe_filters(plan), w.describe_period(plan)) if x)


def per_currency(
    plan: IntentPlan,
    parts: Sequence[Any],
    compose_one: Callable[[IntentPlan, Any, int, Wording], Composed],
    w: Wording,
) -> Composed:
    """One answer per currency, each with its own citation: amounts are never added across."""
    codes = [part.currency for part in parts]
    composed: list[Part] = [
        Prose(w.text("aggregate.currencies", count=len(codes), codes=", ".join(codes)))
    ]
    citations: list[Citation] = []
    for part in parts:
        part_plan = plan.model_copy(update={"currency": part.currency})
        (lead, *rest), cited = compose_one(part_plan, part, len(citations) + 1, w)
        in_currency = w.text("aggregate.in_currency", currency=part.currency, text=lead.markdown())
        composed += [Prose(in_currency), *rest]
        citations.extend(cited)
    return composed, citations
