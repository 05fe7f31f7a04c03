"""What the user has loaded: questions about data they do not have are told so, not given 0.

A plan whose period lies entirely outside the loaded transactions (``Vocabulary.first_date`` to
``last_date``), or with a side of a comparison that does, becomes a clarification giving the
loaded range and questions that can be answered; a period partly inside still answers. An
account or bank the user has not loaded is answered likewise, listing the loaded accounts, and
so is a currency none of the user's transactions are in.

Clarifications are messages (a key of the answer templates and its fields), worded by the
composer in the asker's language.
"""

from __future__ import annotations

from datetime import date

from elastic.model.plan import Intent, IntentPlan, Message
from elastic.model.results import AccountInfo, Vocabulary

_OVER_TRANSACTIONS = (Intent.aggregate, Intent.trend, Intent.listing)


def clarify(message: Message, suggested: list[Message] | None = None) -> IntentPlan:
    """A clarification plan: ``message`` and the questions suggested instead."""
    return IntentPlan(intent=Intent.clarify, message=message, suggested=suggested or [])


def _period(start: date | None, end: date | None) -> Message:
    if start and end:
        if start == end:
            return Message(key="period_on", fields={"day": start})
        return Message(key="period_between", fields={"start": start, "end": end})
    if start:
        return Message(key="period_after", fields={"day": start})
    if end:
        return Message(key="period_before", fields={"day": end})
    return Message(key="period_that")


def _disjoint(start: date | None, end: date | None, first: date, last: date) -> bool:
    return (start is not None and start > last) or (end is not None and end < first)


def outside_data(plan: IntentPlan, vocabulary: Vocabulary) -> IntentPlan | None:
    """A clarification when ``plan`` asks about a period with none of the user's transactions,
    or about a currency none of them are in; None when the plan can be answered from what is
    loaded."""
    return outside_period(plan, vocabulary) or outside_currency(plan, vocabulary)


def outside_period(plan: IntentPlan, vocabulary: Vocabulary) -> IntentPlan | None:
    first, last = vocabulary.first_date, vocabulary.last_date
    if plan.intent not in _OVER_TRANSACTIONS or first is None or last is None:
        return None
    periods = [(s.date_from, s.date_to) for s in plan.compare if s.has_period]
    periods = periods or [(plan.date_from, plan.date_to)]
    outside = [(a, b) for a, b in periods if _disjoint(a, b, first, last)]
    if not outside:
        return None
    message = Message(
        key="not_loaded_period",
        fields={"first": first, "last": last, "period": _period(*outside[0])},
    )
    return clarify(message, _suggestions(plan, first, last))


def outside_currency(plan: IntentPlan, vocabulary: Vocabulary) -> IntentPlan | None:
    loaded = vocabulary.currencies or [vocabulary.currency]
    if plan.intent not in _OVER_TRANSACTIONS or not plan.currency or plan.currency in loaded:
        return None
    message = Message(key="no_currency", fields={"currency": plan.currency, "loaded": loaded})
    suggested = [Message(key="ask_in_currency", fields={"currency": code}) for code in loaded]
    return clarify(message, suggested)


def _suggestions(plan: IntentPlan, first: date, last: date) -> list[Message]:
    """The question's subject asked over the loaded dates."""
    subject: str | Message = ""
    if plan.merchants:
        subject = Message(key="subject_at", fields={"name": plan.merchants[0]})
    elif plan.categories:
        subject = Message(key="subject_on", fields={"name": plan.categories[0]})
    return [
        Message(key="ask_spent_in", fields={"subject": subject, "month": last}),
        Message(key="ask_monthly_from", fields={"subject": subject, "first": first, "last": last}),
        Message(key="ask_recent"),
    ]


def account_label(account: AccountInfo) -> str:
    """A loaded account as clarifications list it: ``Platinum Card (Harbor National Bank
    ***4321)``."""
    return f"{account.account_name} ({account.bank_name} ***{account.last4})"


def unknown_account(name: str, vocabulary: Vocabulary) -> IntentPlan:
    """A clarification for an account or bank (``name`` as written) the user has not loaded."""
    accounts = vocabulary.accounts
    loaded = [account_label(a) for a in accounts]
    if accounts:
        message = Message(key="no_account_listed", fields={"name": name, "loaded": loaded})
    else:
        message = Message(key="no_account", fields={"name": name})
    suggested = [
        Message(key="ask_on_last_month", fields={"name": a.account_name}) for a in accounts[:3]
    ]
    suggested.append(Message(key="ask_by_account"))
    return clarify(message, suggested)


def accounts_loaded(vocabulary: Vocabulary) -> IntentPlan:
    """What "which accounts do I have?" is told: the loaded accounts, and what to ask next."""
    accounts = vocabulary.accounts
    if not accounts:
        return clarify(Message(key="no_accounts"))
    loaded = [account_label(a) for a in accounts]
    suggested = [Message(key="ask_by_account")]
    suggested += [
        Message(key="ask_largest_on", fields={"name": a.account_name}) for a in accounts[:2]
    ]
    return clarify(Message(key="accounts_loaded", fields={"loaded": loaded}), suggested)
