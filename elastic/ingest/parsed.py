"""What every format reader yields: rows as the file states them, before cleaning and landing.

Readers (the project CSV, bank CSV exports, OFX/QFX, CAMT.053, MT940, statement PDFs) only
translate a file's syntax. Filling values the file lacks, normalising merchants, categorising,
recognising transfers and building stored transactions happen once, in ``landing``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal

from elastic.errors import IngestError
from elastic.model.records import Box, IngestProblem


@dataclass(slots=True)
class ParsedRow:
    """One transaction as the file has it. ``None`` means the file does not say.

    Not frozen: a frozen dataclass pays for every field it sets, and a large file makes
    millions of these. Readers build rows and landing only reads them."""

    location: str  # "line 12" (physical line, 1-based, header included) or "entry 3"
    date: date | None  # None only for a pending row the bank has not dated yet
    amount: Decimal  # signed, two decimals: negative is money out of the account
    description: str  # the raw descriptor, as printed (never normalised here)
    currency: str | None = None  # ISO 4217, upper case
    category: str | None = None  # the file's own category, in whatever language it uses
    merchant: str | None = None  # the file's own payee/counterparty name, when it has a column
    account_no: str | None = None
    account_name: str | None = None
    bank_name: str | None = None
    balance: Decimal | None = None  # running balance after this row, when printed
    transaction_id: str | None = None  # the file's own stable id (FITID, AcctSvcrRef, …)
    pending: bool = False  # not yet booked; landing skips it and says so
    payment_kind: str | None = None  # how the money moved: a key of payment_kinds.toml
    page: int | None = None  # statement PDFs: the page the row is printed on
    box: Box | None = None  # statement PDFs: where on that page


@dataclass(frozen=True)
class BalanceFact:
    """A balance the file states, e.g. an OFX LEDGERBAL or a CAMT.053 OPBD/CLBD."""

    name: str  # "opening_balance" | "closing_balance" | "available_balance"
    amount: Decimal
    currency: str | None
    as_of: date
    location: str  # where in the file, e.g. "line 14" or "Bal[2]"
    account_no: str | None = None  # set in files that hold several accounts


@dataclass
class ParsedFile:
    """One file read: its rows, what it says about its account, and what could not be read.

    Most readers hold ``rows`` in a list. A streamed CSV gives an iterator that reads the file
    once; its ``problems`` and ``balances`` are complete only after the last row.
    """

    format: str  # e.g. "finsync-csv", "bank-csv (ING-DiBa)", "ofx", "camt.053", "mt940"
    rows: Iterable[ParsedRow] = field(default_factory=list)
    problems: list[IngestProblem] = field(default_factory=list)
    # Values that hold for every row unless the row says otherwise (OFX ACCTID, CAMT IBAN, …).
    account_no: str | None = None
    account_name: str | None = None
    bank_name: str | None = None
    currency: str | None = None
    balances: list[BalanceFact] = field(default_factory=list)
    period: tuple[date, date] | None = None  # statement period, when the file states one
    expected_rows: int | None = None  # a streamed file's estimate, for progress; else len(rows)
    # How the file was read, for the person importing: conventions decided (signs, dates,
    # encoding), each column's reading with its evidence, parts of the file not read.
    notes: list[str] = field(default_factory=list)
    # A statement PDF's: how its rows reconcile with its balances ("" for other files).
    reconciliation: str = ""


CENT = Decimal("0.01")
# Larger than any amount a statement holds, and small enough to quantize to cents exactly.
LARGEST_AMOUNT = Decimal("1e15")


class UnreadableFile(IngestError):
    """The file as a whole is not in the format its reader handles (message names what it saw).

    Readers raise it for the file; a row they cannot read is an ``IngestProblem`` instead, so
    the rest of the file still lands."""


@dataclass(frozen=True)
class AccountValues:
    """What a reader knows of one account in a file."""

    account_no: str | None
    account_name: str | None
    bank_name: str | None
    currency: str | None


UNKNOWN_BANK = "unknown bank"


def assume_account_name(source: str, assumed: list[str]) -> str:
    """The honest default for an account a file does not name; ``assumed`` says so."""
    name = f"account from file {source}"
    assumed.append(f'account name "{name}" (give --account-name)')
    return name


def assume_bank(assumed: list[str]) -> str:
    """The default for a bank a file does not name; ``assumed`` says so."""
    assumed.append(f"bank {UNKNOWN_BANK!r} (give --bank)")
    return UNKNOWN_BANK


def shared_value(values: Iterable[str | None]) -> str | None:
    """The one value all of ``values`` agree on, else None."""
    distinct = set(values)
    return distinct.pop() if len(distinct) == 1 else None


def set_file_level(
    parsed: ParsedFile,
    accounts: Sequence[AccountValues],
    balances: list[BalanceFact],
    periods: Sequence[tuple[date, date] | None],
) -> None:
    """Account values every statement of a file shares; the period only for a single account
    (each balance names its own account)."""
    parsed.account_no = shared_value(a.account_no for a in accounts)
    parsed.account_name = shared_value(a.account_name for a in accounts)
    parsed.bank_name = shared_value(a.bank_name for a in accounts)
    parsed.currency = shared_value(a.currency for a in accounts)
    parsed.balances = balances
    known = [p for p in periods if p]
    if len({a.account_no for a in accounts}) == 1 and known and len(known) == len(periods):
        parsed.period = (min(p[0] for p in known), max(p[1] for p in known))


def drop_shared_ids(rows: list[ParsedRow]) -> list[ParsedRow]:
    """A reference printed on more than one row of an account does not identify a transaction."""
    counts = Counter((r.account_no, r.transaction_id) for r in rows if r.transaction_id)
    return [
        replace(r, transaction_id=None) if counts[(r.account_no, r.transaction_id)] > 1 else r
        for r in rows
    ]


def exact_cents(value: Decimal) -> Decimal:
    """Exactly two decimals; an amount with more is refused rather than rounded, and a value
    no account can hold (NaN, Infinity, 1E+26) is refused with the reason (ValueError)."""
    if not value.is_finite():
        raise ValueError(f"amount {value} is not a number")
    if abs(value) >= LARGEST_AMOUNT:
        raise ValueError(f"amount {value} is beyond what any account holds")
    cents = value.quantize(CENT)
    if cents != value:
        raise ValueError(f"amount {value} has more than two decimals")
    return cents


def collapse(text: str | None) -> str:
    """Whitespace runs as single spaces, ends trimmed."""
    return " ".join((text or "").split())
