"""What every format reader yields: rows as the file states them, before cleaning and landing.

Readers (the project CSV, bank CSV exports, OFX/QFX, CAMT.053, MT940, statement PDFs) only
translate a file's syntax. Filling values the file lacks, normalising merchants, categorising,
recognising transfers and building stored transactions happen once, in ``landing``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from elastic.records import Box, IngestProblem


@dataclass(frozen=True)
class ParsedRow:
    """One transaction as the file has it. ``None`` means the file does not say."""

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
    """One file read: its rows, what it says about its account, and what could not be read."""

    format: str  # e.g. "finsync-csv", "bank-csv (ING-DiBa)", "ofx", "camt.053", "mt940"
    rows: list[ParsedRow] = field(default_factory=list)
    problems: list[IngestProblem] = field(default_factory=list)
    # Values that hold for every row unless the row says otherwise (OFX ACCTID, CAMT IBAN, …).
    account_no: str | None = None
    account_name: str | None = None
    bank_name: str | None = None
    currency: str | None = None
    balances: list[BalanceFact] = field(default_factory=list)
    period: tuple[date, date] | None = None  # statement period, when the file states one


class UnreadableFile(ValueError):
    """The file as a whole is not in the format its reader handles (message names what it saw)."""
