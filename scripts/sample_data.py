"""Deterministic sample data for FinSync Chat: a transactions CSV plus monthly statement PDFs.

The data covers the 18 months up to its end month (by default the last full month before today,
so a demo run on any day has data for "last month" and "last quarter") for three accounts at two
banks. Everything is driven by one ``random.Random(seed)`` and the month list, money is
``Decimal`` throughout, and the PDFs carry a creation date from the end month, so the same seed
and end month always yield byte-identical files.

Usage: ``finsync sample [--out DIR] [--seed N] [--end YYYY-MM] [--ingest]``.
"""

from __future__ import annotations

import calendar
import csv
import random
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from pathlib import Path

from fpdf import FPDF, XPos, YPos

from elastic.ingest.bank_csv import project_columns
from scripts.sample_exports import generate_exports
from scripts.sample_statements import generate_statements

__all__ = [
    "CSV_COLUMNS",
    "TERMS",
    "SampleSet",
    "generate_sample",
    "header_lines",
    "last_full_month",
    "sample_months",
]

PERIOD_MONTHS = 18
CURRENCY = "USD"
# The ingestion contract's columns, with the optional id first and the balance last.
CSV_COLUMNS = ("transaction_id", *project_columns(), "balance")
ROWS_PER_PAGE = 30

ZERO = Decimal("0.00")
CENT = Decimal("0.01")
OVERDRAFT_FEE = Decimal("35.00")
MAX_OVERDRAFT_FEES_PER_DAY = 3
SERVICE_FEE = Decimal("12.00")
SERVICE_FEE_WAIVER_BALANCE = Decimal("1500.00")
ATM_FEE = Decimal("3.00")
FOREIGN_FEE_RATE = Decimal("0.03")
SAVINGS_APY = Decimal("0.0410")
# Daily rate that compounds to the APY over a 365-day year.
SAVINGS_DAILY_RATE = (1 + SAVINGS_APY) ** (Decimal(1) / Decimal(365)) - 1
CARD_APR = Decimal("0.2499")
CARD_CREDIT_LIMIT = Decimal("15000.00")
CARD_MIN_PAYMENT = Decimal("35.00")
CARD_DUE_DAY = 25
AUTO_SAVE_DAY = 16
CHECKING_COMFORT_BALANCE = Decimal("4500.00")
EXCESS_SWEEP_THRESHOLD = Decimal("1000.00")


class AccountKind(StrEnum):
    CHECKING = "checking"
    SAVINGS = "savings"
    CREDIT_CARD = "credit card"


@dataclass(frozen=True)
class Account:
    bank_name: str
    account_name: str
    account_no: str
    kind: AccountKind
    opening_balance: Decimal

    @property
    def file_stem(self) -> str:
        return f"{_slug(self.bank_name)}_{_slug(self.account_name)}"

    @property
    def masked_no(self) -> str:
        return "X" * 6 + self.account_no[-4:]


CHECKING = Account(
    "Cedar Valley Bank", "Everyday Checking", "4402718831", AccountKind.CHECKING, Decimal("3150.00")
)
SAVINGS = Account(
    "Cedar Valley Bank", "High-Yield Savings", "4402719045", AccountKind.SAVINGS, Decimal("8420.15")
)
CARD = Account(
    "Harbor National Bank",
    "Platinum Card",
    "5412750093614321",
    AccountKind.CREDIT_CARD,
    Decimal("-1284.37"),
)
ACCOUNTS = (CHECKING, SAVINGS, CARD)


@dataclass(frozen=True)
class SampleSet:
    transactions_csv: Path
    statement_pdfs: list[Path]  # sorted
    exports: list[Path]  # other accounts in banks' own formats (``exports/truth.json``)
    statement_layouts: list[Path] = field(default_factory=list)  # banks' own PDF layouts


@dataclass(frozen=True)
class Txn:
    transaction_id: str
    day: date
    description: str
    amount: Decimal
    category: str
    merchant: str
    account: Account
    balance: Decimal


@dataclass(frozen=True)
class _Event:
    """A transaction before posting, i.e. without its id and running balance."""

    day: date
    account: Account
    description: str
    amount: Decimal
    category: str
    merchant: str


@dataclass(frozen=True)
class _Merchant:
    name: str
    description: str
    category: str
    low: int  # whole dollars
    high: int


GROCERS = (
    _Merchant("Whole Foods Market", "WHOLE FOODS MARKET #10234 OAKLAND CA", "Groceries", 35, 190),
    _Merchant("Trader Joe's", "TRADER JOE'S #187 OAKLAND CA", "Groceries", 25, 120),
    _Merchant("Safeway", "SAFEWAY #1552 OAKLAND CA", "Groceries", 20, 140),
)
FUEL = (
    _Merchant("Shell", "SHELL OIL 57442131 OAKLAND CA", "Transportation", 32, 72),
    _Merchant("Chevron", "CHEVRON 0203317 BERKELEY CA", "Transportation", 30, 70),
)
DINING = (
    _Merchant("Chipotle", "CHIPOTLE 1874 OAKLAND CA", "Dining", 11, 19),
    _Merchant("Starbucks", "STARBUCKS STORE 05521 OAKLAND CA", "Dining", 4, 11),
)
FINE_DINING = _Merchant(
    "The Capital Grille", "THE CAPITAL GRILLE SAN FRANCISCO CA", "Dining", 140, 290
)
SHOPPING = (
    _Merchant("Amazon", "AMZN MKTP US SEATTLE WA", "Shopping", 12, 160),
    _Merchant("Target", "TARGET 00027551 EMERYVILLE CA", "Shopping", 18, 140),
)
BIG_SHOPPING = _Merchant("Best Buy", "BEST BUY #00142 EMERYVILLE CA", "Shopping", 80, 650)
ENTERTAINMENT = (
    _Merchant("AMC Theatres", "AMC BAY STREET 16 EMERYVILLE CA", "Entertainment", 14, 42),
    _Merchant("Ticketmaster", "TICKETMASTER.COM 800-653-8000 CA", "Entertainment", 65, 260),
)
PHARMACY = _Merchant("CVS Pharmacy", "CVS/PHARMACY #09721 OAKLAND CA", "Health", 8, 55)
COURSERA = _Merchant("Coursera", "COURSERA.ORG MOUNTAIN VIEW CA", "Education", 49, 49)
RIDES = _Merchant("Uber", "UBER *TRIP HELP.UBER.COM CA", "Transportation", 11, 48)
AIRLINES = (
    _Merchant("Delta Air Lines", "DELTA AIR LINES ATLANTA GA", "Travel", 190, 720),
    _Merchant("United Airlines", "UNITED AIRLINES HOUSTON TX", "Travel", 170, 680),
)
HOTELS = (
    _Merchant("Marriott", "MARRIOTT DOWNTOWN CHICAGO IL", "Travel", 180, 560),
    _Merchant("Hilton", "HILTON SEATTLE DOWNTOWN WA", "Travel", 160, 520),
)


@dataclass(frozen=True)
class _Trip:
    hotel: _Merchant  # charged once, at checkout, for the whole stay
    spots: tuple[_Merchant, ...]


# Week-long trips abroad, keyed by the month of the period they fall in (0: its first month).
# Names stay ASCII so the CSV matches the core-font PDFs.
FOREIGN_TRIPS = {
    8: _Trip(
        _Merchant("Hotel Le Marais Paris", "HOTEL LE MARAIS PARIS FR", "Travel", 1350, 2100),
        (
            _Merchant("Cafe de Flore Paris", "CAFE DE FLORE PARIS FR", "Dining", 28, 75),
            _Merchant("Musee du Louvre Paris", "MUSEE DU LOUVRE PARIS FR", "Entertainment", 22, 48),
            _Merchant("RATP Metro Paris", "RATP METRO PARIS FR", "Transportation", 9, 30),
        ),
    ),
    15: _Trip(
        _Merchant("Park Hotel Tokyo", "PARK HOTEL TOKYO MINATO JP", "Travel", 1500, 2300),
        (
            _Merchant("Tokyo Ramen Ichiran", "ICHIRAN RAMEN SHIBUYA TOKYO JP", "Dining", 12, 30),
            _Merchant("Uniqlo Ginza Tokyo", "UNIQLO GINZA TOKYO JP", "Shopping", 35, 140),
            _Merchant("JR East Tokyo", "JR EAST TOKYO STATION JP", "Transportation", 8, 45),
        ),
    ),
}
# One-off expenses that land right before a payday and overdraw checking.
SHOCKS = (
    _Merchant("Midas", "MIDAS AUTO SERVICE #412 OAKLAND CA", "Transportation", 380, 900),
    _Merchant("Bay Area Dental Group", "BAY AREA DENTAL GROUP OAKLAND", "Health", 350, 850),
    _Merchant("IKEA", "IKEA EAST PALO ALTO CA", "Shopping", 300, 800),
    _Merchant("VCA Animal Hospital", "VCA ANIMAL HOSPITAL OAKLAND CA", "Pets", 400, 950),
)
# Charges worth a second look, in the last month after its card payment: a purchase charged twice
# the same day, and a ride far above what Uber usually charges.
DOUBLE_CHARGE = (26, SHOPPING[1], Decimal("64.37"))
HIGH_CHARGE = (27, RIDES, Decimal("184.50"))
# (description, merchant, outside the Cedar Valley network)
ATMS = (
    ("ATM WITHDRAWAL CEDAR VALLEY BANK OAKLAND CA", "Cedar Valley Bank ATM", False),
    ("ATM WITHDRAWAL 7-ELEVEN #3321 OAKLAND CA", "7-Eleven ATM", True),
    ("ATM WITHDRAWAL CARDTRONICS SAN FRANCISCO CA", "Cardtronics ATM", True),
)


def last_full_month(today: date) -> date:
    """The first day of the month before ``today``'s: where the sample ends by default."""
    return (today.replace(day=1) - timedelta(days=1)).replace(day=1)


def sample_months(end: date) -> list[date]:
    """The first days of the ``PERIOD_MONTHS`` months ending with ``end``'s month."""
    months = [end.replace(day=1)]
    while len(months) < PERIOD_MONTHS:
        months.insert(0, (months[0] - timedelta(days=1)).replace(day=1))
    return months


def generate_sample(out_dir: Path, seed: int = 7, end: date | None = None) -> SampleSet:
    """Write ``transactions.csv``, ``statements/*.pdf``, ``exports/`` and
    ``statement_layouts/`` under ``out_dir``; the transactions and statements end with the month
    of ``end`` (default: the last full month before today)."""
    months = sample_months(end or last_full_month(date.today()))
    ledger = _Simulation(random.Random(seed), months).run()
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / "transactions.csv"
    _write_csv(csv_path, ledger.rows)
    statements_dir = out_dir / "statements"
    statements_dir.mkdir(exist_ok=True)
    # Printed the morning after the period: a fixed date, so the files are reproducible.
    printed = datetime.combine(_next_month(months[-1]), time(9), tzinfo=UTC)
    pdfs = [
        _write_statement(statements_dir, statement, printed)
        for statement in _statements(ledger, months)
    ]
    exports = generate_exports(out_dir / "exports", seed)
    layouts = generate_statements(out_dir / "statement_layouts", seed)
    return SampleSet(csv_path, sorted(pdfs), exports, layouts)


# --- simulation -------------------------------------------------------------------------------


class _Ledger:
    """Posts transactions, keeps running balances and hands out per-day transaction ids."""

    def __init__(self) -> None:
        self.balances = {acct.account_no: acct.opening_balance for acct in ACCOUNTS}
        self.rows: list[Txn] = []
        # Lowest end-of-day checking balance per month, keyed by the month's first day.
        self.lowest_checking: dict[date, Decimal] = {}
        self._seq: dict[tuple[str, date], int] = defaultdict(int)

    def post(self, event: _Event) -> Txn:
        acct = event.account
        self._seq[acct.account_no, event.day] += 1
        n = self._seq[acct.account_no, event.day]
        balance = self.balances[acct.account_no] + event.amount
        self.balances[acct.account_no] = balance
        txn = Txn(
            transaction_id=f"{acct.account_no[-4:]}-{event.day:%Y%m%d}-{n:04d}",
            day=event.day,
            description=event.description,
            amount=event.amount,
            category=event.category,
            merchant=event.merchant,
            account=acct,
            balance=balance,
        )
        self.rows.append(txn)
        return txn


@dataclass(frozen=True)
class _MonthPlan:
    events: list[_Event]
    card_payment_day: date
    partial_card_payment: bool
    shock: tuple[date, _Merchant] | None


class _Simulation:
    """Walks the period day by day; fees, sweeps, card payments and interest react to balances."""

    def __init__(self, rng: random.Random, months: list[date]) -> None:
        self.rng = rng
        self.months = months
        self.ledger = _Ledger()
        # Life changes at fixed months of the period: a raise (pay and auto-save) after a year,
        # a new rent in the ninth month, Netflix's new price in the fourteenth.
        self.raise_from, self.new_rent_from, self.new_netflix_from = (
            months[12],
            months[8],
            months[13],
        )
        self.trips = {months[index]: trip for index, trip in FOREIGN_TRIPS.items()}
        self.partial_payment_months = set(rng.sample(months[2:16], 3))
        self.refund_months = set(rng.sample(months[1:17], 3))
        self.freelance_months = set(rng.sample(months[1:17], 4))
        shock_months = rng.sample(months[2:17], 3)
        self.shocks = dict(zip(shock_months, rng.sample(SHOCKS, 3), strict=True))
        self.card_statement_owed = -CARD.opening_balance
        self.savings_accrued = Decimal(0)

    def run(self) -> _Ledger:
        for first in self.months:
            self._run_month(first)
        return self.ledger

    def _run_month(self, first: date) -> None:
        plan = self._plan_month(first)
        by_day: dict[date, list[_Event]] = defaultdict(list)
        # Credits post before debits on the same day, as most banks do.
        for event in sorted(plan.events, key=lambda e: (e.day, e.amount < 0)):
            by_day[event.day].append(event)
        checking_eod: list[Decimal] = []
        card_owed_eod: list[Decimal] = []
        for day in _days_of(first):
            if self.ledger.balances[CHECKING.account_no] < 0:  # overdrawn overnight
                self._cover_overdraft(day)
            items = sum(self._post_counting_overdraft(event) for event in by_day[day])
            if plan.shock and plan.shock[0] == day:
                items += self._post_shock(day, plan.shock[1])
            if day.day == AUTO_SAVE_DAY:
                items += self._save(day)
            if day == plan.card_payment_day:
                items += self._pay_card(day, plan.partial_card_payment)
            for _ in range(min(items, MAX_OVERDRAFT_FEES_PER_DAY)):
                self._post(
                    day, CHECKING, "OVERDRAFT FEE", -OVERDRAFT_FEE, "Fees", CHECKING.bank_name
                )
            checking_eod.append(self.ledger.balances[CHECKING.account_no])
            card_owed_eod.append(max(-self.ledger.balances[CARD.account_no], ZERO))
            savings = self.ledger.balances[SAVINGS.account_no]
            self.savings_accrued += (savings + self.savings_accrued) * SAVINGS_DAILY_RATE
        average_owed = sum(card_owed_eod, Decimal(0)) / len(card_owed_eod)
        self._close_month(
            _last_day(first), min(checking_eod), average_owed, plan.partial_card_payment
        )

    def _close_month(
        self, last_day: date, lowest: Decimal, card_average_owed: Decimal, carried: bool
    ) -> None:
        self.ledger.lowest_checking[last_day.replace(day=1)] = lowest
        if lowest < SERVICE_FEE_WAIVER_BALANCE:
            self._post(
                last_day, CHECKING, "MONTHLY SERVICE FEE", -SERVICE_FEE, "Fees", CHECKING.bank_name
            )
        interest = _cents(self.savings_accrued)
        self.savings_accrued = Decimal(0)
        self._post(last_day, SAVINGS, "INTEREST PAYMENT", interest, "Interest", SAVINGS.bank_name)
        if carried:
            charge = _cents(card_average_owed * CARD_APR / 365 * last_day.day)
            self._post(
                last_day, CARD, "INTEREST CHARGE ON PURCHASES", -charge, "Interest", CARD.bank_name
            )
        self.card_statement_owed = max(-self.ledger.balances[CARD.account_no], ZERO)

    def _post(
        self,
        day: date,
        account: Account,
        description: str,
        amount: Decimal,
        category: str,
        merchant: str,
    ) -> None:
        self.ledger.post(_Event(day, account, description, amount, category, merchant))

    def _post_counting_overdraft(self, event: _Event) -> int:
        """Post ``event``; return 1 if it is a checking debit that leaves the account overdrawn."""
        txn = self.ledger.post(event)
        is_item = txn.account is CHECKING and txn.amount < 0 and txn.category != "Fees"
        return int(is_item and txn.balance < 0)

    def _post_shock(self, day: date, merchant: _Merchant) -> int:
        # Sized from the current balance so the account reliably dips below zero.
        balance = self.ledger.balances[CHECKING.account_no]
        amount = max(self._amount(merchant), balance + _amount(self.rng, 20, 240))
        return self._post_counting_overdraft(
            _Event(day, CHECKING, merchant.description, -amount, merchant.category, merchant.name)
        )

    def _pay_card(self, day: date, partial: bool) -> int:
        owed = self.card_statement_owed
        if owed <= 0:
            return 0
        amount = owed
        if partial:
            share = Decimal(self.rng.randint(35, 60)) / 100
            amount = max(_minimum_payment(owed), _cents(owed * share))
        self._post(
            day, CARD, "PAYMENT RECEIVED - THANK YOU", amount, "Transfers", CHECKING.bank_name
        )
        return self._post_counting_overdraft(
            _Event(
                day,
                CHECKING,
                "PAYMENT TO HARBOR NATIONAL PLATINUM CARD",
                -amount,
                "Transfers",
                CARD.bank_name,
            )
        )

    def _transfer(
        self, day: date, source: Account, target: Account, amount: Decimal, label: str
    ) -> int:
        """Move money between the two Cedar Valley accounts; return overdraft items caused."""
        self._post(
            day,
            target,
            f"{label} FROM {source.kind.upper()} {source.masked_no}",
            amount,
            "Transfers",
            target.bank_name,
        )
        return self._post_counting_overdraft(
            _Event(
                day,
                source,
                f"{label} TO {target.kind.upper()} {target.masked_no}",
                -amount,
                "Transfers",
                source.bank_name,
            )
        )

    def _save(self, day: date) -> int:
        """The fixed monthly auto-save, plus parking cash above the comfort level in savings."""
        auto_save = Decimal("400.00") if day < self.raise_from else Decimal("500.00")
        items = self._transfer(day, CHECKING, SAVINGS, auto_save, "AUTOMATIC TRANSFER")
        excess = self.ledger.balances[CHECKING.account_no] - CHECKING_COMFORT_BALANCE
        if excess >= EXCESS_SWEEP_THRESHOLD:
            amount = Decimal(int(excess) // 100 * 100).quantize(CENT)
            items += self._transfer(day, CHECKING, SAVINGS, amount, "ONLINE TRANSFER")
        return items

    def _cover_overdraft(self, day: date) -> None:
        """Move the shortfall plus a cushion, in whole hundreds, from savings back to checking."""
        shortfall = -self.ledger.balances[CHECKING.account_no]
        amount = Decimal((int(shortfall) // 100 + 6) * 100).quantize(CENT)
        self._transfer(day, SAVINGS, CHECKING, amount, "ONLINE TRANSFER")

    # --- monthly plan -----------------------------------------------------------------------

    def _plan_month(self, first: date) -> _MonthPlan:
        trip = self.trips.get(first)
        away: list[date] = []
        if trip:
            start = first.replace(day=self.rng.randint(5, 18))
            away = [start + timedelta(days=n) for n in range(7)]
        events = [
            *self._income(first),
            *self._bills(first),
            *self._everyday_spending(first, away),
            *self._card_spending(first, away),
        ]
        if trip:
            events += self._foreign_trip(away, trip)
        if first == self.months[-1]:
            events += _charges_to_check(first)
        shock = None
        if first in self.shocks:
            payday = _weekday_on_or_before(_last_day(first))
            shock = (payday - timedelta(days=1), self.shocks[first])
        return _MonthPlan(
            events=events,
            card_payment_day=first.replace(day=self.rng.randint(18, 24)),
            partial_card_payment=first in self.partial_payment_months,
            shock=shock,
        )

    def _income(self, first: date) -> list[_Event]:
        salary = Decimal("2650.00") if first < self.raise_from else Decimal("2780.00")
        events = [
            _Event(
                _weekday_on_or_before(day),
                CHECKING,
                "ACME ROBOTICS PAYROLL",
                salary,
                "Income",
                "Acme Robotics",
            )
            for day in (first.replace(day=15), _last_day(first))
        ]
        if first.month == 4:
            day = first.replace(day=self.rng.randint(8, 26))
            refund = _amount(self.rng, 600, 1900)
            events.append(_Event(day, CHECKING, "IRS TREAS 310 TAX REF", refund, "Income", "IRS"))
        if first in self.freelance_months:
            day = first.replace(day=self.rng.randint(2, 27))
            pay = _amount(self.rng, 450, 1600)
            events.append(
                _Event(day, CHECKING, "UPWORK ESCROW FREELANCE PAYMENT", pay, "Income", "Upwork")
            )
        return events

    def _bills(self, first: date) -> list[_Event]:
        rent = Decimal("1950.00") if first < self.new_rent_from else Decimal("2025.00")
        peak_season = first.month in (1, 2, 7, 8, 12)
        power = _amount(self.rng, 95, 165) if peak_season else _amount(self.rng, 55, 95)
        netflix = Decimal("15.49") if first < self.new_netflix_from else Decimal("17.99")
        bills = (
            (1, "MAPLE STREET APARTMENTS RENT", rent, "Housing", "Maple Street Apartments"),
            (3, "IRON WORKS GYM MEMBERSHIP", Decimal("49.00"), "Health", "Iron Works Gym"),
            (8, "CITY POWER & LIGHT AUTOPAY", power, "Utilities", "City Power & Light"),
            (9, "NETFLIX.COM LOS GATOS CA", netflix, "Subscriptions", "Netflix"),
            (12, "LUMEN FIBER INTERNET", Decimal("75.00"), "Utilities", "Lumen Fiber"),
            (18, "VERIZON WIRELESS PAYMENT", Decimal("86.42"), "Utilities", "Verizon"),
            (22, "GEICO AUTO INSURANCE", Decimal("142.60"), "Insurance", "Geico"),
            (27, "SPOTIFY USA NEW YORK NY", Decimal("11.99"), "Subscriptions", "Spotify"),
        )
        return [
            _Event(first.replace(day=day), CHECKING, text, -amount, category, merchant)
            for day, text, amount, category, merchant in bills
        ]

    def _everyday_spending(self, first: date, away: list[date]) -> list[_Event]:
        rng = self.rng
        events = [
            self._purchase(day, CHECKING, rng.choice(GROCERS))
            for day in self._random_days(first, rng.randint(6, 9), away)
        ]
        events += [
            self._purchase(day, CHECKING, rng.choice(FUEL))
            for day in self._random_days(first, rng.randint(2, 4), away)
        ]
        for day in self._random_days(first, rng.randint(1, 3), away):
            description, merchant, non_network = rng.choice(ATMS)
            cash = Decimal(rng.choice((40, 60, 80, 100, 200))).quantize(CENT)
            events.append(_Event(day, CHECKING, description, -cash, "Cash", merchant))
            if non_network:
                events.append(
                    _Event(
                        day, CHECKING, "NON-NETWORK ATM FEE", -ATM_FEE, "Fees", CHECKING.bank_name
                    )
                )
        return events

    def _card_spending(self, first: date, away: list[date]) -> list[_Event]:
        rng = self.rng
        picks = [(first.replace(day=5), COURSERA)]
        draws = (
            (DINING, rng.randint(8, 14)),
            (SHOPPING, rng.randint(2, 5)),
            (ENTERTAINMENT, rng.randint(0, 2)),
            ((PHARMACY,), rng.randint(0, 2)),
            ((RIDES,), rng.randint(2, 5)),
            ((FINE_DINING,), int(rng.random() < 0.3)),
            ((BIG_SHOPPING,), int(rng.random() < 0.25)),
        )
        for merchants, count in draws:
            picks += [(day, rng.choice(merchants)) for day in self._random_days(first, count, away)]
        trip_next_month = _next_month(first) in self.trips
        if trip_next_month or rng.random() < 0.35:
            flight_day, hotel_day = self._random_days(first, 2, away)
            picks.append((flight_day, rng.choice(AIRLINES)))
            if not trip_next_month:
                picks.append((hotel_day, rng.choice(HOTELS)))
        events = [self._purchase(day, CARD, merchant) for day, merchant in picks]
        if first in self.refund_months:
            events.append(self._refund(events))
        return events

    def _foreign_trip(self, away: list[date], trip: _Trip) -> list[_Event]:
        """A week abroad; each purchase gets a same-day foreign transaction fee."""
        picks = [
            (day, merchant)
            for day in away
            for merchant in self.rng.sample(trip.spots, self.rng.randint(1, 2))
        ]
        picks.append((away[-1], trip.hotel))
        events: list[_Event] = []
        for day, merchant in picks:
            purchase = self._purchase(day, CARD, merchant)
            fee = _cents(-purchase.amount * FOREIGN_FEE_RATE)
            events += [
                purchase,
                _Event(day, CARD, "FOREIGN TRANSACTION FEE", -fee, "Fees", CARD.bank_name),
            ]
        return events

    def _refund(self, events: list[_Event]) -> _Event:
        """Refund one earlier shopping purchase of the month (a returned item)."""
        last = _last_day(events[0].day)
        returnable = [e for e in events if e.category == "Shopping" and e.day < last]
        original = self.rng.choice(returnable)
        wait = self.rng.randint(1, min(9, (last - original.day).days))
        return _Event(
            original.day + timedelta(days=wait),
            CARD,
            f"REFUND {original.description}",
            -original.amount,
            original.category,
            original.merchant,
        )

    def _purchase(self, day: date, account: Account, merchant: _Merchant) -> _Event:
        amount = self._amount(merchant)
        return _Event(day, account, merchant.description, -amount, merchant.category, merchant.name)

    def _amount(self, merchant: _Merchant) -> Decimal:
        return _amount(self.rng, merchant.low, merchant.high)

    def _random_days(self, first: date, count: int, away: list[date]) -> list[date]:
        """Distinct, sorted days of the month on which we are at home."""
        home = [day for day in _days_of(first) if day not in away]
        return sorted(self.rng.sample(home, count))


def _charges_to_check(first: date) -> list[_Event]:
    """The double charge and the unusually high charge, on the card, with fixed amounts: no
    draw of the simulation changes, so every other row stays as it was."""
    double, high = (
        _Event(first.replace(day=day), CARD, m.description, -amount, m.category, m.name)
        for day, m, amount in (DOUBLE_CHARGE, HIGH_CHARGE)
    )
    return [double, double, high]


def _minimum_payment(owed: Decimal) -> Decimal:
    """Card minimum payment: the greater of $35.00 and 2% of the balance, capped at the balance."""
    if owed <= 0:
        return ZERO
    return min(owed, max(CARD_MIN_PAYMENT, _cents(owed * Decimal("0.02"))))


# --- output: CSV ------------------------------------------------------------------------------


def _write_csv(path: Path, rows: list[Txn]) -> None:
    ordered = sorted(rows, key=lambda t: (t.day, t.account.account_no, t.transaction_id))
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for t in ordered:
            writer.writerow(
                (
                    t.transaction_id,
                    t.day.isoformat(),
                    t.description,
                    f"{t.amount:.2f}",
                    CURRENCY,
                    t.category,
                    t.merchant,
                    t.account.account_no,
                    t.account.account_name,
                    t.account.bank_name,
                    f"{t.balance:.2f}",
                )
            )


# --- output: statement PDFs -------------------------------------------------------------------

TERMS: dict[AccountKind, tuple[str, ...]] = {
    AccountKind.CHECKING: (
        "Overdraft fee: $35.00 per item that overdraws the account, with a maximum of 3 overdraft "
        "fees per day.",
        "Monthly service fee: $12.00, waived for any month in which the daily balance stays at or "
        "above $1,500.00.",
        "ATM fee: $3.00 for each withdrawal at a non-network ATM; Cedar Valley Bank ATMs are free.",
        "Foreign transaction fee: 3% of each transaction made in a foreign currency.",
        "Interest: no interest is paid on this account.",
    ),
    AccountKind.SAVINGS: (
        "Overdraft fee: not applicable; this account cannot be overdrawn, and withdrawals that "
        "exceed the available balance are declined.",
        "Excess withdrawal fee: $10.00 for each withdrawal after six withdrawals per month.",
        "Monthly service fee: $5.00, waived for any month with a minimum daily balance of $300.00 "
        "or more.",
        "Interest: interest is calculated daily on the collected balance, compounded daily and "
        "credited monthly; the annual percentage yield (APY) is 4.10%.",
        "Foreign transaction fee: not applicable to this account.",
    ),
    AccountKind.CREDIT_CARD: (
        "Purchase APR: 24.99% variable.",
        "Interest calculation: interest is calculated using the average daily balance method "
        "(including new purchases).",
        "Grace period: at least 25 days after the close of each billing cycle; no interest is "
        "charged on purchases when the full balance is paid by the due date.",
        "Foreign transaction fee: 3% of each transaction made outside the United States or in a "
        "foreign currency.",
        "Late payment fee: up to $40.00.",
        "Overdraft fee: not applicable; transactions that would exceed the credit limit of "
        "$15,000.00 are declined.",
        "Cash advance fee: 5% of each cash advance, with a minimum of $10.00.",
    ),
}

PAGE_MARGIN = 18.0
BRAND_COLOURS = {"Cedar Valley Bank": (27, 94, 32), "Harbor National Bank": (21, 58, 110)}
TABLE_COLUMNS = (
    ("Date", 22.0, "L"),
    ("Description", 88.0, "L"),
    ("Category", 28.0, "L"),
    ("Amount", 21.0, "R"),
    ("Balance", 21.0, "R"),
)
ROW_HEIGHT = 6.0


@dataclass(frozen=True)
class _Statement:
    account: Account
    start: date
    end: date
    opening: Decimal
    rows: list[Txn]
    lowest_checking: Decimal

    @property
    def closing(self) -> Decimal:
        return self.rows[-1].balance if self.rows else self.opening

    def total(self, *, positive: bool) -> Decimal:
        return sum((t.amount for t in self.rows if (t.amount > 0) == positive), ZERO)

    def category_total(self, category: str) -> Decimal:
        return abs(sum((t.amount for t in self.rows if t.category == category), ZERO))


def header_lines(
    account: Account, start: date, end: date, page: int, pages: int | str
) -> list[str]:
    """The block that opens every statement page, one item per text line."""
    return [
        account.bank_name,
        "Account Statement",
        f"Account name: {account.account_name}",
        f"Account number: {account.account_no}",
        f"Statement period: {start.isoformat()} to {end.isoformat()}",
        f"Page {page} of {pages}",
    ]


def _statements(ledger: _Ledger, months: list[date]) -> Iterator[_Statement]:
    by_month: dict[tuple[str, date], list[Txn]] = defaultdict(list)
    for txn in ledger.rows:  # posting order is (day, transaction_id) order within an account
        by_month[txn.account.account_no, txn.day.replace(day=1)].append(txn)
    for account in ACCOUNTS:
        opening = account.opening_balance
        for first in months:
            statement = _Statement(
                account=account,
                start=first,
                end=_last_day(first),
                opening=opening,
                rows=by_month[account.account_no, first],
                lowest_checking=ledger.lowest_checking[first],
            )
            yield statement
            opening = statement.closing


class _StatementPdf(FPDF):
    def __init__(self, statement: _Statement, printed: datetime) -> None:
        super().__init__(orientation="portrait", unit="mm", format="letter")
        self.statement = statement
        account = statement.account
        self.set_creation_date(printed)
        self.set_title(f"{account.account_name} statement {statement.start:%Y-%m}")
        self.set_author(account.bank_name)
        self.set_creator("FinSync Chat sample data")
        self.set_margins(PAGE_MARGIN, 12, PAGE_MARGIN)
        self.set_auto_page_break(auto=True, margin=16)

    def header(self) -> None:
        s = self.statement
        bank, *lines = header_lines(
            s.account, s.start, s.end, self.page_no(), self.str_alias_nb_pages
        )
        self.set_fill_color(*BRAND_COLOURS[bank])
        self.rect(0, 0, self.w, 20, style="F")
        self.set_xy(self.l_margin, 5)
        self.set_font("Helvetica", "B", 16)
        self.set_text_color(255, 255, 255)
        self._line(bank, 10)
        self.set_text_color(0, 0, 0)
        self.set_y(24)
        self.set_font("Helvetica", "B", 12)
        self._line(lines[0], 7)
        self.set_font("Helvetica", "", 9.5)
        for text in lines[1:]:
            self._line(text, 5)
        self.set_draw_color(190, 190, 190)
        self.line(self.l_margin, self.get_y() + 2, self.w - self.r_margin, self.get_y() + 2)
        self.set_y(self.get_y() + 6)

    def _line(self, text: str, height: float) -> None:
        self.cell(0, height, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)

    def _heading(self, text: str) -> None:
        self.set_font("Helvetica", "B", 13)
        self._line(text, 9)

    def summary_page(self) -> None:
        s = self.statement
        self.add_page()
        self._heading("Account Summary")
        figures = (
            ("Opening balance", s.opening),
            ("Total money in", s.total(positive=True)),
            ("Total money out", -s.total(positive=False)),
            ("Fees charged this period", s.category_total("Fees")),
            ("Interest this period", s.category_total("Interest")),
            ("Closing balance", s.closing),
        )
        self.set_font("Helvetica", "", 10.5)
        for label, value in figures:
            self.cell(70, 7, f"{label}:", border="B")
            self.cell(
                40, 7, _usd(value), border="B", align="R", new_x=XPos.LMARGIN, new_y=YPos.NEXT
            )
        self.ln(6)
        self.set_font("Helvetica", "", 10)
        self.multi_cell(0, 5.5, _account_note(s), align="L")

    def transaction_pages(self) -> None:
        rows = self.statement.rows
        chunks = [rows[i : i + ROWS_PER_PAGE] for i in range(0, len(rows), ROWS_PER_PAGE)]
        for chunk in chunks or [[]]:
            self.add_page()
            self._heading("Transactions")
            if not chunk:
                self.set_font("Helvetica", "", 10)
                self._line("No transactions this period.", 7)
                continue
            self.set_draw_color(205, 205, 205)
            self.set_fill_color(232, 236, 240)
            self.set_font("Helvetica", "B", 8.5)
            for title, width, align in TABLE_COLUMNS:
                self.cell(width, ROW_HEIGHT + 1, title, border=1, align=align, fill=True)
            self.ln()
            self.set_font("Helvetica", "", 8.5)
            for txn in chunk:
                cells = (
                    txn.day.isoformat(),
                    txn.description,
                    txn.category,
                    f"{txn.amount:,.2f}",
                    f"{txn.balance:,.2f}",
                )
                for text, (_, width, align) in zip(cells, TABLE_COLUMNS, strict=True):
                    self.cell(width, ROW_HEIGHT, text, border=1, align=align)
                self.ln()

    def terms_page(self) -> None:
        self.add_page()
        self._heading("Terms and Fees")
        self.set_font("Helvetica", "", 10)
        for sentence in TERMS[self.statement.account.kind]:
            self.multi_cell(0, 5.5, sentence, align="L")
            self.ln(2.5)


def _account_note(s: _Statement) -> str:
    account = s.account
    if account.kind is AccountKind.CHECKING:
        return (
            f"{account.account_name} is a checking account and does not earn interest. "
            f"Lowest daily balance this period: {_usd(s.lowest_checking)}. The $12.00 monthly "
            "service fee is waived when the daily balance stays at or above $1,500.00."
        )
    if account.kind is AccountKind.SAVINGS:
        withdrawals = sum(1 for t in s.rows if t.amount < 0)
        return (
            f"{account.account_name} is a savings account earning 4.10% APY; interest is credited "
            f"on the last day of each month. Withdrawals this period: {withdrawals} (six per month "
            "are allowed without an excess withdrawal fee)."
        )
    owed = max(-s.closing, ZERO)
    due = _next_month(s.start).replace(day=CARD_DUE_DAY)
    return (
        f"{account.account_name} is a credit card account; a negative balance is the amount you "
        f"owe. Credit limit: {_usd(CARD_CREDIT_LIMIT)}. Available credit: "
        f"{_usd(CARD_CREDIT_LIMIT - owed)}. Minimum payment due: {_usd(_minimum_payment(owed))}. "
        f"Payment due date: {due.isoformat()}."
    )


def _write_statement(directory: Path, statement: _Statement, printed: datetime) -> Path:
    pdf = _StatementPdf(statement, printed)
    pdf.summary_page()
    pdf.transaction_pages()
    pdf.terms_page()
    path = directory / f"{statement.account.file_stem}_{statement.start:%Y-%m}.pdf"
    pdf.output(str(path))
    return path


# --- helpers ----------------------------------------------------------------------------------


def _cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _amount(rng: random.Random, low: int, high: int) -> Decimal:
    """A random amount between two whole-dollar bounds, drawn in cents."""
    return Decimal(rng.randint(low * 100, high * 100)).scaleb(-2)


def _usd(value: Decimal) -> str:
    return f"-${-value:,.2f}" if value < 0 else f"${value:,.2f}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _next_month(first: date) -> date:
    return (first.replace(day=28) + timedelta(days=4)).replace(day=1)


def _last_day(day: date) -> date:
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


def _days_of(first: date) -> Iterator[date]:
    for n in range(_last_day(first).day):
        yield first + timedelta(days=n)


def _weekday_on_or_before(day: date) -> date:
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day
