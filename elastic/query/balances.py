"""Balances over time, per account, from every balance a file states and the rows between them.

A balance is known where a file states one: a row's running balance (the balance after the row,
as bank exports print it), and the opening and closing balances of statements and structured
exports (OFX, CAMT, MT940, statement PDFs). Between stated balances the account's rows carry it
day by day; before the first, the rows carry it back. Where the rows since the last known
balance do not reach the next stated one, that is a gap, kept with where the balance is stated,
and the stated balance is taken from there on. An account no file states any balance of has
no known balance: it is said so, never guessed from zero.

Written once above both engines: the rows come from the query spec's paged search and the
stated balances from the facts collection, so Elasticsearch, SQLite and the columnar cache give
the same balances.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from elastic.model.plan import Direction, Intent, IntentPlan, Metric
from elastic.model.records import StatementFact, Transaction
from elastic.model.results import (
    AccountBalance,
    BalanceGap,
    BalanceResult,
    DayBalance,
    StatementInfo,
    cents_to_amount,
)

ONE_DAY = timedelta(days=1)


@dataclass(frozen=True)
class Stated:
    """A balance a file states at the end of ``day``, and where."""

    day: date
    cents: int
    source: str
    from_rows: bool  # a running balance (checked before the statement balances of its day)


def rows_plan(plan: IntentPlan) -> IntentPlan:
    """Every row of the plan's accounts and currency, transfers included: a balance moves
    with all of them, whatever the question's period (balances before it carry into it)."""
    return IntentPlan(
        intent=Intent.listing,
        accounts=plan.accounts,
        currency=plan.currency,
        direction=Direction.any,
    )


def end_of_day(rows: Sequence[Transaction]) -> int | None:
    """The balance at the end of a day from its rows' running balances, whatever order the
    file listed them in: each row's balance before it is its balance after it less its
    amount, so the balances after every row, less those before every row, leave the day's
    last. None unless every row states a balance and they chain into one day."""
    if not rows or any(row.balance is None for row in rows):
        return None
    after = Counter(int(row.balance * 100) for row in rows if row.balance is not None)
    before = Counter(
        int(row.balance * 100) - row.amount_cents for row in rows if row.balance is not None
    )
    last = after - before
    if sum(last.values()) != 1 or sum((before - after).values()) != 1:
        return None
    return next(iter(last))


def _source(fact: StatementFact) -> str:
    where = f"page {fact.page}" if fact.page else fact.location
    return f"{fact.source_file}, {where}" if where else fact.source_file


def stated_by_facts(
    facts: Iterable[StatementFact], periods: Mapping[str, tuple[date, date]]
) -> list[tuple[StatementFact, Stated]]:
    """Each opening or closing balance as the balance at the end of a day. A closing balance
    is the balance at the end of its day; an opening balance that of the day before the
    statement's first day (a statement PDF dates its facts by the period's end, so its period
    is looked up), or before its own day."""
    stated = []
    for fact in facts:
        if fact.amount is None:
            continue
        cents = int(fact.amount * 100)
        if fact.name == "closing_balance":
            stated.append((fact, Stated(fact.as_of, cents, _source(fact), False)))
        elif fact.name == "opening_balance":
            first = periods.get(fact.statement_id, (fact.as_of, fact.as_of))[0]
            stated.append((fact, Stated(first - ONE_DAY, cents, _source(fact), False)))
    return stated


def _stated_by_rows(by_day: Mapping[date, list[Transaction]]) -> list[Stated]:
    found = []
    for day, rows in by_day.items():
        cents = end_of_day(rows)
        if cents is not None:
            last = max(rows, key=lambda r: (r.source_file, r.location))
            where = f"{last.source_file}, {last.location}".strip(", ")
            found.append(Stated(day, cents, where, True))
    return found


@dataclass(frozen=True)
class Carried:
    """One account's balances: within the asked period, the gaps in it, the balance of the
    last known day up to the period's end, and the days a balance is known at all."""

    daily: list[DayBalance]
    gaps: list[BalanceGap]
    latest: DayBalance | None
    first: date | None
    last: date | None


def account_balance(
    rows: Sequence[Transaction],
    stated: Sequence[Stated],
    date_from: date | None,
    date_to: date | None,
) -> Carried:
    """One account's end-of-day balances (``Carried``), from its rows and stated balances:
    known from the day before its first row (or its first stated balance) to its last row
    (or its last stated balance)."""
    by_day: dict[date, list[Transaction]] = defaultdict(list)
    for row in rows:
        by_day[row.date].append(row)
    anchors = sorted(
        [*_stated_by_rows(by_day), *stated], key=lambda s: (s.day, not s.from_rows, s.source)
    )
    if not anchors:
        return Carried([], [], None, None, None)
    totals = {day: sum(r.amount_cents for r in day_rows) for day, day_rows in by_day.items()}
    first = min([anchors[0].day, *(day - ONE_DAY for day in totals)])
    last = max([anchors[-1].day, *totals])
    # Carry the first stated balance back to the first day, then forward through the rest.
    start = anchors[0]
    balance = start.cents - sum(cents for day, cents in totals.items() if first < day <= start.day)
    daily: list[DayBalance] = []
    gaps: list[BalanceGap] = []
    latest = None
    pending = iter(anchors)
    anchor = next(pending, None)
    day = first
    while day <= last:
        if day > first:
            balance += totals.get(day, 0)
        while anchor is not None and anchor.day == day:
            if anchor.cents != balance:
                gaps.append(
                    BalanceGap(
                        day,
                        cents_to_amount(anchor.cents),
                        cents_to_amount(balance),
                        anchor.source,
                    )
                )
                balance = anchor.cents
            anchor = next(pending, None)
        if date_to is None or day <= date_to:
            latest = DayBalance(day, balance)
            if date_from is None or day >= date_from:
                daily.append(latest)
        day += ONE_DAY
    asked = [g for g in gaps if (date_from is None or g.day >= date_from)]
    asked = [g for g in asked if date_to is None or g.day <= date_to]
    return Carried(daily, asked, latest, first, last)


def balances(
    plan: IntentPlan,
    rows: Sequence[Transaction],
    facts: Sequence[StatementFact],
    statements: Sequence[StatementInfo],
) -> BalanceResult:
    """Every account's balances over the plan's period (or all its days), accounts by name.

    Rows belong to an account by number (by name when a fact names no number); one account
    in two currencies is two balances."""
    periods = {s.statement_id: (s.statement_from, s.statement_to) for s in statements}
    accounts: dict[tuple[str, str], list[Transaction]] = defaultdict(list)
    names: dict[tuple[str, str], tuple[str, str]] = {}
    running: set[tuple[tuple[str, str], str]] = set()  # (account, file) with a balance column
    for row in rows:
        key = (row.account_no or row.account_name, row.currency)
        accounts[key].append(row)
        names[key] = (row.account_name, row.bank_name)
        if row.balance is not None:
            running.add((key, row.source_file))
    by_account: dict[tuple[str, str], list[Stated]] = defaultdict(list)
    for fact, stated in stated_by_facts(facts, periods):
        if not (fact.account_no or fact.account_name):
            continue  # a balance no account is named for cannot be placed
        key = (fact.account_no or fact.account_name, fact.currency)
        if (key, fact.source_file) in running:
            continue  # read off the same file's running balance: its rows state it already
        by_account[key].append(stated)
        names.setdefault(key, (fact.account_name, fact.bank_name))
    found = []
    for key in sorted(set(accounts) | set(by_account), key=lambda k: (names[k][0], k)):
        account_rows = accounts.get(key, [])
        carried = account_balance(
            account_rows, by_account.get(key, []), plan.date_from, plan.date_to
        )
        stated_rows = sum(1 for row in account_rows if row.balance is not None)
        found.append(
            AccountBalance(
                account_name=names[key][0],
                account_no=key[0],
                bank_name=names[key][1],
                currency=key[1],
                daily=carried.daily,
                stated=stated_rows + len(by_account.get(key, [])),
                rows=len(account_rows),
                gaps=carried.gaps,
                latest=carried.latest,
                known_from=carried.first,
                known_to=carried.last,
            )
        )
    metric = plan.metric if plan.metric in (Metric.min, Metric.max) else Metric.sum
    interval = plan.interval if plan.intent is Intent.trend else None
    return BalanceResult(metric, interval, found)
