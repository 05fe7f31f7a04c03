"""What the user has loaded: questions about data they do not have are told so, not given 0.

A plan whose period lies entirely outside the loaded transactions (``Vocabulary.first_date`` to
``last_date``), or with a side of a comparison that does, becomes a clarification giving the
loaded range and questions that can be answered; a period partly inside still answers. An
account or bank the user has not loaded is answered likewise, listing the loaded accounts.
"""

from __future__ import annotations

from datetime import date

from elastic.model.plan import Intent, IntentPlan
from elastic.model.results import Vocabulary

_OVER_TRANSACTIONS = (Intent.aggregate, Intent.trend, Intent.listing)


def _day(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def _period(start: date | None, end: date | None) -> str:
    if start and end:
        return f"on {_day(start)}" if start == end else f"from {_day(start)} to {_day(end)}"
    return f"after {_day(start)}" if start else f"before {_day(end)}" if end else "that period"


def _disjoint(start: date | None, end: date | None, first: date, last: date) -> bool:
    return (start is not None and start > last) or (end is not None and end < first)


def outside_data(plan: IntentPlan, vocabulary: Vocabulary) -> IntentPlan | None:
    """A clarification when ``plan`` asks about a period with none of the user's transactions;
    None when the plan can be answered from what is loaded."""
    first, last = vocabulary.first_date, vocabulary.last_date
    if plan.intent not in _OVER_TRANSACTIONS or first is None or last is None:
        return None
    periods = [(s.date_from, s.date_to) for s in plan.compare if s.has_period]
    periods = periods or [(plan.date_from, plan.date_to)]
    outside = [(a, b) for a, b in periods if _disjoint(a, b, first, last)]
    if not outside:
        return None
    clarification = (
        f"Your loaded transactions run from {_day(first)} to {_day(last)}, so there is nothing "
        f"{_period(*outside[0])}. Load statements or transactions for that period, or ask "
        "about the dates you have."
    )
    return IntentPlan(
        intent=Intent.clarify,
        clarification=clarification,
        suggestions=_suggestions(plan, first, last),
    )


def _suggestions(plan: IntentPlan, first: date, last: date) -> list[str]:
    """The question's subject asked over the loaded dates."""
    subject = (
        f" at {plan.merchants[0]}"
        if plan.merchants
        else f" on {plan.categories[0]}"
        if plan.categories
        else ""
    )
    return [
        f"How much did I spend{subject} in {last:%B %Y}?",
        f"Show my monthly spending{subject} from {first:%B %Y} to {last:%B %Y}",
        "List my 10 most recent transactions",
    ]


def unknown_account(name: str, vocabulary: Vocabulary) -> IntentPlan:
    """A clarification for an account or bank (``name`` as written) the user has not loaded."""
    accounts = vocabulary.accounts
    loaded = ", ".join(f"{a.account_name} ({a.bank_name} ***{a.last4})" for a in accounts)
    clarification = f"You have no account at “{name}” loaded. " + (
        f"Your loaded accounts are {loaded}." if accounts else "No accounts are loaded yet."
    )
    suggestions = [f"How much did I spend on {a.account_name} last month?" for a in accounts[:3]]
    suggestions.append("Show my spending by account this year")
    return IntentPlan(intent=Intent.clarify, clarification=clarification, suggestions=suggestions)
