"""Bank CSV exports of any layout → ``ParsedFile``.

Layouts are data: ``csv_profiles.toml`` holds one profile per known export (the headers that
identify it, which header holds which value, how dates and amounts are written, the sign
convention) and per-language header synonyms. A profile is a shortcut, never a requirement: a
layout no profile or synonym set names is read by what its columns hold (``columns.py``), with
or without a header row, the names then only evidence. Column positions never matter to a
profile, so reordered or added columns do not break it. The encoding is found and checked
(``encodings.py``): UTF-8, UTF-16, the Windows, ISO and DOS code pages. Rows that continue the
one above (a second line of text), opening and closing balance rows and summary lines are read
as what they are. A file is read as a stream; only its rows are kept.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import re
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from dataclasses import fields as dataclass_fields
from datetime import date, datetime
from decimal import Decimal
from functools import cache, lru_cache, partial
from itertools import chain, islice, tee
from operator import itemgetter
from pathlib import Path
from typing import Literal, TypeVar

from dateutil import parser as dateutil_parser

from elastic.ingest import columns, encodings, payment_kinds
from elastic.ingest.currency_names import currency_named
from elastic.ingest.parsed import BalanceFact, ParsedFile, ParsedRow, UnreadableFile
from elastic.masking import mask_account
from elastic.model.records import IngestProblem

PROFILES_PATH = Path(__file__).with_name("csv_profiles.toml")
_MONEY_ROLES = frozenset({"amount", "debit", "credit"})
PROJECT_PROFILE = "finsync-csv"  # the format of the "finsync" profile: the project's own schema
DELIMITERS = (",", ";", "\t", "|")
HEAD_BYTES = 64 * 1024  # read to find the header; holds any preamble
HEADER_SEARCH = 40  # records above the header at most
SAMPLE_ROWS = 5  # rows shown by inspect(), and read to recognise a file without a header row
MAPPING_HINT = "map them on the Ingest page"

Sign = Literal["signed", "spend_positive", "debit_credit", "direction_column", "balance_steps"]
# Resolution order: earlier roles take a header first.
ROLES = (
    "date",
    "amount",
    "debit",
    "credit",
    "direction",
    "description",
    "merchant",
    "currency",
    "balance",
    "balance_before",
    "category",
    "account_no",
    "account_name",
    "bank_name",
    "transaction_id",
    "status",
    "fee",
    "record_type",
    "payment_type",
)
PREAMBLE_ROLES = (
    "account_no",
    "account_name",
    "bank_name",
    "currency",
    "period",
    "closing_balance",
    "available_balance",
)
CURRENCY_SYMBOLS = {"€": "EUR", "£": "GBP"}
SEPARATOR_NAMES = {",": "a comma", ".": "a point", "'": "an apostrophe", "’": "an apostrophe"}
THOUSANDS = ".,'’ "
CENT = Decimal("0.01")
ZERO = Decimal("0.00")

_NOT_CSV = (b"%PDF", b"<", b"OFXHEADER", b"{1:", b"PK\x03\x04", b"\xd0\xcf\x11\xe0")
_MT940_TAG = re.compile(rb"^:(?:20|25|28C|60[FM]|61):", re.MULTILINE)
_HEADER_CURRENCY = re.compile(r"\s*[(\[]\s*([A-Za-z]{3}|[€£])\s*[)\]]\s*$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LETTER = re.compile(r"[^\W\d_]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CONTROL_BYTES = (*range(0, 9), 11, 12, *range(14, 32), 127)
_C1 = re.compile(r"[\x80-\x9f]")  # control characters a wrong code page decodes to
_BAD_BYTE = re.compile(r"[\udc80-\udcff]")
_YEAR_FIRST = re.compile(r"\s*\d{4}")
_DATE_TOKEN = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}")
_DIGITS = re.compile(r"[0-9]+")
_DIGIT = re.compile(r"\d")
_NOT_DIGITS = re.compile(r"[^0-9]+")
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2212": "-"})
# A currency code or symbol stuck to a number ("£1,234.56", "-12,50 €", "SEK 100"); "CR"/"DR"
# are directions, not currencies, and are left to fail as not a number.
_CURRENCY_MARK = r"(?:(?![CcDd][Rr]\b)[^\W\d_]{1,3}\.?|[^\W\d_]{0,2}[$€£¥₹₽₩₺₪₴₱฿])"
_AMOUNT = re.compile(
    rf"(?P<lead>[-+])?\s*(?:{_CURRENCY_MARK}\s*)?(?P<lead2>[-+])?\s*"
    rf"(?P<number>\d[\d.,'’ ]*?|[.,]\d{{1,2}})\s*(?P<trail>-)?\s*(?:{_CURRENCY_MARK})?\s*"
    rf"(?P<trail2>-)?"
)
_CELL_CURRENCY = re.compile(r"[€£]|(?<![^\W\d_])[A-Z]{3}(?![^\W\d_])")
_CR_DR = re.compile(r"(?P<number>.*?\d.*?)\s*(?P<mark>CR|DR|Cr|Dr)\.?")
_NO_YEAR = datetime(1, 1, 1)  # dateutil's default: a value without a year keeps year 1
_FORMAT_HINTS = {
    "%Y": "YYYY",
    "%y": "YY",
    "%m": "MM",
    "%d": "DD",
    "%b": "Mon",
    "%B": "Month",
    "%H": "hh",
    "%I": "hh",
    "%M": "mm",
    "%S": "ss",
    "%f": "ffffff",
    "%p": "AM/PM",
    "%z": "+hhmm",
}


@dataclass(frozen=True)
class ColumnMapping:
    """Which header holds each value, and how the file writes its dates and amounts.

    Header names match case- and whitespace-insensitively; a column with an empty header is
    called "column N", counting from 1. ``description`` may name several columns, joined with
    a space. Conventions left unset (``decimal``, ``day_first`` without ``date_formats``) are
    inferred from the whole file; empty value lists mean the usual ones (``[values]`` in
    csv_profiles.toml).
    """

    date: str
    description: tuple[str, ...] = ()
    amount: str | None = None
    debit: str | None = None
    credit: str | None = None
    direction: str | None = None  # "Debit/Credit", "S/H", "Af Bij": which way an amount goes
    currency: str | None = None
    category: str | None = None
    merchant: str | None = None  # the payee or counterparty
    balance: str | None = None
    balance_before: str | None = None  # a balance printed before the row instead of after
    account_no: str | None = None
    account_name: str | None = None
    bank_name: str | None = None
    transaction_id: str | None = None
    status: str | None = None  # a row whose status is in pending_values is not booked
    fee: str | None = None
    record_type: str | None = None  # tells transactions from balance and total lines
    payment_type: str | None = None  # how the money moved ("Card payment", "ATM", "Lastschrift")
    sign: Sign = "signed"
    date_formats: tuple[str, ...] = ()  # strptime formats; empty: read by dateutil
    day_first: bool | None = None  # for dates read by dateutil
    decimal: str | None = None  # "." or ","
    thousands: str | None = None  # characters allowed between thousands
    pending_values: tuple[str, ...] = ()
    debit_values: tuple[str, ...] = ()  # may hold "": a blank direction is a debit
    credit_values: tuple[str, ...] = ()
    describe_by_merchant: bool = True  # a row with no description text is named by its payee
    cell_currency: str | None = None  # the currency every amount cell is marked with
    transaction_types: tuple[str, ...] = ()  # record types that are transactions; others skip
    opening_balance_types: tuple[str, ...] = ()  # record types stating an opening balance
    closing_balance_types: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.sign == "debit_credit":
            if not (self.debit and self.credit):
                raise ValueError("sign debit_credit needs a debit and a credit column")
        elif not self.amount:
            raise ValueError(f"sign {self.sign} needs an amount column")
        if self.sign == "direction_column" and not self.direction:
            raise ValueError("sign direction_column needs a direction column")
        if self.sign == "balance_steps" and not self.balance:
            raise ValueError("sign balance_steps needs a balance column")
        if self.decimal not in (None, ".", ","):
            raise ValueError(f"decimal separator {self.decimal!r} is not '.' or ','")

    @classmethod
    def from_roles(cls, roles: Mapping[str, str | Sequence[str]]) -> ColumnMapping:
        """A mapping from role → header name(s), as a guided mapping picks them. The sign
        convention follows from the columns: debit and credit without an amount are two
        columns, a direction column says which way; the rest is inferred from the file."""
        columns = dict(roles)
        if unknown := columns.keys() - set(ROLES):
            raise ValueError(f"unknown role(s): {', '.join(sorted(unknown))}")
        description = columns.pop("description", ())
        sign: Sign = "signed"
        if columns.get("direction"):
            sign = "direction_column"
        elif not columns.get("amount") and columns.get("debit") and columns.get("credit"):
            sign = "debit_credit"
        return cls(
            **columns,
            description=(description,) if isinstance(description, str) else tuple(description),
            sign=sign,
        )

    @property
    def money_columns(self) -> tuple[str, ...]:
        """The date and money headers: without them a file cannot be read at all."""
        money = (self.debit, self.credit) if self.sign == "debit_credit" else (self.amount,)
        return tuple(c for c in (self.date, *money, self.direction) if c)

    def columns(self) -> dict[str, str | tuple[str, ...]]:
        """Role → header name(s), for every role this mapping names."""
        named = {role: getattr(self, role) for role in ROLES}
        return {role: value for role, value in named.items() if value}


@dataclass(frozen=True)
class CsvLayout:
    """What a file looks like, for a guided mapping, and how ``read`` would take it."""

    encoding: str  # Python codec name: "utf-8", "utf-8-sig", "utf-16", "cp1252", "cp1251", …
    delimiter: str
    preamble: tuple[str, ...]  # the lines above the header, as text
    header_line: int | None  # None: the layout leaves the header row out
    headers: tuple[str, ...]  # repeated names get " (2)", " (3)", …; empty ones "column N"
    rows: tuple[tuple[str, ...], ...]  # the first data rows
    profile: str | None  # the name of the matching profile
    mapping: ColumnMapping | None  # None: no profile, synonyms or content fit; map it by hand
    readings: tuple[columns.ColumnReading, ...] = ()  # each column's reading, read by content
    notes: tuple[str, ...] = ()  # conventions decided (sign, encoding)


@dataclass(frozen=True)
class _Profile:
    key: str
    name: str
    format: str
    identify: tuple[str, ...]  # normalised header names
    header: tuple[str, ...]  # the header names of a layout that leaves its header row out
    quote: str  # the character the layout quotes values with
    mapping: ColumnMapping
    bank_name: str | None
    currency: str | None
    encoding: str | None
    preamble: Mapping[str, tuple[str, ...]]  # role → keys


@dataclass(frozen=True)
class _Config:
    profiles: tuple[_Profile, ...]
    synonyms: Mapping[str, Mapping[str, tuple[str, ...]]]  # language → role → normalised names
    name_roles: Mapping[str, str]  # normalised name → its role in any language
    preamble: Mapping[str, tuple[str, ...]]
    pending: tuple[str, ...]
    debit: tuple[str, ...]
    credit: tuple[str, ...]


@dataclass(frozen=True)
class _Header:
    """Where the rows start, what their columns are called, and how they will be read."""

    delimiter: str
    names: tuple[str, ...]
    skip: int  # records above the first row: the preamble (blank lines included), the header
    line: int | None  # physical line of the header row; None when the layout has none
    quote: str = '"'
    profile: _Profile | None = None
    mapping: ColumnMapping | None = None
    kind: Literal["profile", "mapped", "generic", "content", "guess"] = "guess"
    reading: columns.Reading | None = None  # how a layout read by content was read
    sign_note: str | None = None  # how the rows of a layout named by synonyms decided its sign


@dataclass(frozen=True)
class _Layout:
    encoding: str
    header: _Header
    preamble: tuple[list[str], ...]
    head: str  # the decoded start of the file


_Record = tuple[int, list[str] | csv.Error]  # (first physical line, cells or why not)
_T = TypeVar("_T")


# ---------------------------------------------------------------------------------------------
# Public API


def sniff(head: bytes) -> bool:
    """Whether ``head`` (the first bytes of a file) is delimited text with a header row, or in
    a known layout that leaves the header out."""
    head = encodings.text_head(head)
    body = head.removeprefix(codecs.BOM_UTF8).lstrip()
    if not body or _binary(head) or body.startswith(_NOT_CSV):
        return False
    if b"<OFX>" in head.upper() or _MT940_TAG.search(head):
        return False
    text = _decode_head(head).replace("\x00", "")
    return _find_header(text, None) is not None or _guess_header(text) is not None


def read(path: Path, mapping: ColumnMapping | None = None) -> ParsedFile:
    """Every row of a bank CSV export; each bad row becomes a problem and the file goes on.

    ``mapping`` reads a layout no profile knows. Raises UnreadableFile when the file is not
    delimited text or its columns cannot be told apart (the message names those it found).
    """
    parsed = stream(path, mapping)
    parsed.rows = list(parsed.rows)
    return parsed


def stream(path: Path, mapping: ColumnMapping | None = None) -> ParsedFile:
    """``read`` without holding the rows: ``rows`` is read from the file once, as it is
    iterated. The problems and balances of the rows join the file as they are read; those of
    the preamble once the last row is read. ``expected_rows`` counts the lines below the header.
    """
    layout = _layout(path, mapping)
    header = layout.header
    if header.mapping is None:
        raise UnreadableFile(_needs_mapping(header.names))
    chosen = _settle(path, layout, header.mapping)
    parsed = ParsedFile(format=_format_name(header, chosen))
    parsed.notes.extend(_notes(layout, chosen))
    dates = _DateReader(chosen.date, chosen.date_formats, chosen.day_first)
    _fill_file_values(parsed, layout, chosen, dates)
    parsed.expected_rows = max(_count_lines(path) - (header.line or 0), 0)
    parsed.rows = _stream_rows(path, parsed, layout, chosen, dates)
    if chosen.sign == "balance_steps":
        parsed.rows = _signed_by_balance(parsed.rows, parsed)
    return parsed


def _stream_rows(
    path: Path, parsed: ParsedFile, layout: _Layout, mapping: ColumnMapping, dates: _DateReader
) -> Iterator[ParsedRow]:
    """The rows below the header, read as they stream. Records that read as no row wait until
    the next record shows what they are: lines that continue the row above (its details,
    its kind), problems (when a row follows), or the preamble of a new section when the
    header is repeated (an account's or a month's section): that section's rows take the
    account its lines name."""
    rows = _RowReader(
        mapping,
        layout.header.names,
        layout.encoding,
        _config(),
        dates,
        short_rows=layout.header.profile is None,
    )
    header = _header_key(layout.header.names) if layout.header.line is not None else None
    keys = _preamble_keys_of(layout)
    newest: date | None = None
    section = _Section()  # the account the rows in hand belong to, when a section names one
    held: list[ParsedRow] = []  # the last record's rows, until the next shows it is whole
    # Records since the last row that read as no row, with why (a line continuing a row reads
    # as none: it has no date).
    between: list[tuple[int, list[str] | csv.Error, str]] = []

    def settle() -> None:
        """The records between rows continue the row above, or are problems."""
        continued = bool(held)
        for line, cells, reason in between:
            more = rows.continuation(cells) if isinstance(cells, list) else None
            if continued and more:
                for row in held:  # a second line of the row above: its details, its kind
                    row.description = f"{row.description} {more}"
                    row.payment_kind = row.payment_kind or payment_kinds.from_text(more)
                continue
            continued = False
            parsed.problems.append(IngestProblem(path.name, f"line {line}", reason))
        between.clear()

    for line, cells in _data_records(path, layout, rows.reads):
        try:
            if isinstance(cells, csv.Error):
                raise ValueError(str(cells))
            items = rows.read(line, cells)
        except ValueError as exc:
            if header is not None and isinstance(cells, list) and _header_key(cells) == header:
                # The header again: what stands between the rows and it is the next section's.
                section = _Section.of(
                    [c for _, c, _ in between if isinstance(c, list)], keys, section.number + 1
                )
                between.clear()
                yield from held
                held.clear()
                continue
            between.append((line, cells, str(exc)))
            continue
        if between:
            settle()
        yield from held
        held.clear()
        for item in items:
            if isinstance(item, BalanceFact):
                parsed.balances.append(section.balance(item))
                continue
            if item.date is not None and (newest is None or item.date > newest):
                newest = item.date
            held.append(section.row(item) if section.number > 1 else item)
    settle()
    yield from held
    _preamble_balances(parsed, layout, mapping, newest)


def _header_key(cells: Sequence[str]) -> tuple[str, ...]:
    """A header as compared with a repeated one: normalised names, trailing empty ones out."""
    names = [_norm(c) for c in cells]
    while names and not names[-1]:
        names.pop()
    return tuple(names)


def _preamble_keys_of(layout: _Layout) -> Mapping[str, tuple[str, ...]]:
    profile = layout.header.profile
    return profile.preamble if profile and profile.preamble else _config().preamble


@dataclass(frozen=True)
class _Section:
    """The account a section of a file names in the lines above its repeated header: its rows
    and stated balances are that account's (values a row states itself win)."""

    number: int = 1
    account_no: str | None = None
    account_name: str | None = None
    bank_name: str | None = None
    currency: str | None = None

    @classmethod
    def of(
        cls, preamble: Sequence[list[str]], keys: Mapping[str, tuple[str, ...]], number: int
    ) -> _Section:
        found: dict[str, str] = {}
        for _, filled in _preamble_entries(preamble):
            key, values = _norm(filled[0]).rstrip(":"), filled[1:]
            for role in ("account_no", "account_name", "bank_name"):
                if values and key in keys.get(role, ()):
                    found.setdefault(role, values[0])
            if key in keys.get("currency", ()):
                code = next(filter(None, map(_currency_code, values)), None)
                if code:
                    found.setdefault("currency", code)
        if "account_no" in found and "account_name" not in found:
            found["account_name"] = f"account {mask_account(found['account_no'])}"
        return cls(number, **found)

    def row(self, row: ParsedRow) -> ParsedRow:
        row.account_no = row.account_no or self.account_no
        row.account_name = row.account_name or self.account_name
        row.bank_name = row.bank_name or self.bank_name
        row.currency = row.currency or self.currency
        return row

    def balance(self, fact: BalanceFact) -> BalanceFact:
        if self.number > 1 and fact.account_no is None and self.account_no:
            return replace(fact, account_no=self.account_no)
        return fact


BALANCE_WINDOW = 50  # rows that show whether a file lists its oldest or its newest row first


def _signed_by_balance(rows: Iterator[ParsedRow], parsed: ParsedFile) -> Iterator[ParsedRow]:
    """Unsigned amounts signed by the step of the running balance across each row: down is
    money out. The first rows show the file's order (oldest or newest first); the balance
    before a row is the one of the row listed before it, or after it when the newest comes
    first, and a stated opening balance stands before the oldest. A row whose step does not
    match its amount (a missing row, a balance that does not chain) takes the direction most
    rows of the first ones take, and the notes say how many did."""
    window = list(islice(rows, BALANCE_WINDOW))
    booked = [r for r in window if not r.pending]
    steps = columns.balance_steps([r.amount for r in booked], [r.balance for r in booked])
    newest_first = steps is not None and steps.newest_first
    money_in = steps is not None and steps.follows > steps.opposes
    opening = next((b.amount for b in parsed.balances if b.name == "opening_balance"), None)
    guessed = 0

    def signed(row: ParsedRow, before: Decimal | None) -> ParsedRow:
        nonlocal guessed
        size = abs(row.amount)
        step = row.balance - before if row.balance is not None and before is not None else None
        if step is not None and size and abs(step) == size:
            row.amount = size if step > 0 else -size
        else:
            guessed += bool(size)
            row.amount = size if money_in else -size
        return row

    held: ParsedRow | None = None  # newest first: a row waits for the one before it in time
    before = opening  # oldest first: the balance before the row in hand
    for row in chain(window, rows):
        if row.pending:
            yield row
        elif newest_first:
            if held is not None:
                yield signed(held, row.balance)
            held = row
        else:
            yield signed(row, before)
            before = row.balance
    if held is not None:
        yield signed(held, opening)
    if guessed:
        way = "money in" if money_in else "money out"
        parsed.notes.append(
            f"{guessed} row(s) whose balance does not step by their amount read as {way}, as "
            "most rows are"
        )


def _notes(layout: _Layout, mapping: ColumnMapping) -> list[str]:
    """How the file was read, in sentences for the report: its encoding when not UTF-8, the
    reading of each column when read by content, the sign convention."""
    notes = []
    if layout.encoding not in ("utf-8", "utf-8-sig"):
        notes.append(f"text read as {encodings.name(layout.encoding)}")
    reading = layout.header.reading
    if reading is not None:
        if layout.header.line is None:
            notes.append("no header row: columns read by what they hold")
        notes.extend(r.sentence() for r in reading.readings)
        notes.extend(reading.notes)
    elif layout.header.sign_note:
        notes.append(layout.header.sign_note)
    elif mapping.sign == "spend_positive":
        notes.append("amounts read as card spend: positive = money out")
    elif mapping.sign == "balance_steps":
        notes.append(columns.BALANCE_STEPS_NOTE)
    elif mapping.sign == "debit_credit":
        notes.append("amounts read from a debit and a credit column: money out, money in")
    if not mapping.date_formats and mapping.day_first is not None and _decided_by_file(layout):
        notes.extend(_date_order_note(layout, mapping))
    return notes


def _date_order_note(layout: _Layout, mapping: ColumnMapping) -> list[str]:
    """How the day/month order was decided, from the dates at the start of the file."""
    header = layout.header
    at = _index(header.names).get(_norm(mapping.date))
    records = _head_records(layout.head, header.delimiter, header.quote)[header.skip :]
    cells = [c[at] for _, c in records if at is not None and at < len(c) and c[at].strip()]
    if not cells or all(_YEAR_FIRST.match(c) for c in cells):
        return []  # year first: no order to decide
    order = "day before month" if mapping.day_first else "month before day"
    if any(_day_first(c) is not None for c in cells):
        return [f"dates read {order}, decided across the column"]
    return [f"dates read {order}: no date shows the order, so the file's delimiter decides"]


def _decided_by_file(layout: _Layout) -> bool:
    """Whether the layout's conventions were decided from the file (not given by a profile)."""
    return layout.header.kind in ("generic", "content")


def _count_lines(path: Path) -> int:
    """Physical lines, counted in bytes without decoding: a cheap total for progress."""
    newlines = returns = 0
    last = b""
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            newlines += chunk.count(b"\n")
            returns += chunk.count(b"\r")
            last = chunk[-1:]
    breaks = newlines or returns  # a file may end its lines with a lone CR
    return breaks + (1 if last and last not in b"\r\n" else 0)


def _preamble_balances(
    parsed: ParsedFile, layout: _Layout, mapping: ColumnMapping, newest: date | None
) -> None:
    """Balances a preamble states ("Ledger Balance:,13532.14", "Saldo;150,00;EUR", or a row
    of names over a row of values), as of the end of the stated period, else of the newest
    row."""
    keys = _config().preamble
    numbers = _NumberReader(mapping.decimal or ".", mapping.thousands)
    as_of = parsed.period[1] if parsed.period else newest
    if as_of is None:
        return
    stated = {b.name for b in parsed.balances}
    for number, filled in _preamble_entries(layout.preamble):
        if len(filled) < 2:
            continue
        key = _norm(filled[0]).rstrip(":")
        for name in ("closing_balance", "available_balance"):
            if key not in keys.get(name, ()) or name in stated:
                continue
            try:
                amount = numbers.read(filled[1], filled[0])
            except ValueError:
                continue
            currency = next(filter(None, map(_currency_code, filled[2:])), parsed.currency)
            parsed.balances.append(BalanceFact(name, amount, currency, as_of, f"line {number}"))
            stated.add(name)


def _preamble_entries(preamble: Sequence[list[str]]) -> list[tuple[int, list[str]]]:
    """The preamble's statements, each a key and its values with the record it is on: a
    "key;value…" or "key: value" line, or each column of a row of three or more names over a
    row of the same width that holds figures ("Currency;Closing balance;…" over
    "RUR;82 604,01;…")."""
    records = [[c.strip() for c in cells] for cells in preamble]
    entries: list[tuple[int, list[str]]] = []
    number = 0
    while number < len(records):
        cells, below = records[number], records[number + 1] if number + 1 < len(records) else []
        number += 1
        filled = [c for c in cells if c]
        table = len(filled) >= 3 and _names_row(cells) and len(below) == len(cells)
        if table and any(map(_DIGIT.search, below)):
            pairs = zip(cells, below, strict=True)
            entries += [(number + 1, [key, value]) for key, value in pairs if key and value]
            number += 1
            continue
        if len(filled) == 1 and ":" in filled[0]:
            filled = [part.strip() for part in filled[0].split(":", 1)]
        if filled:
            entries.append((number, filled))
    return entries


def inspect(path: Path) -> CsvLayout:
    """How ``path`` is laid out and how ``read`` would take it (conventions a mapping leaves
    open are settled from the whole file; no row is kept)."""
    layout = _layout(path, None)
    header = layout.header
    mapping = header.mapping and _settle(path, layout, header.mapping)
    records = _records(io.StringIO(layout.head, newline=""), header.delimiter, header.quote)
    below = islice(records, header.skip, None)
    sample = (tuple(c.strip() for c in cells) for _, cells in below if isinstance(cells, list))
    return CsvLayout(
        encoding=layout.encoding,
        delimiter=header.delimiter,
        preamble=tuple(_LINE_BREAK.split(layout.head)[: (header.line or 1) - 1]),
        header_line=header.line,
        headers=header.names,
        rows=tuple(islice((row for row in sample if any(row)), SAMPLE_ROWS)),
        profile=header.profile.name if header.profile else None,
        mapping=mapping,
        readings=header.reading.readings if header.reading else (),
        notes=tuple(_notes(layout, mapping)) if mapping else (),
    )


# ---------------------------------------------------------------------------------------------
# Profiles and synonyms


def _norm(name: str) -> str:
    """A header or key as compared: no case, no whitespace, no currency suffix like "(EUR)"."""
    name = unicodedata.normalize("NFKC", name).replace("\ufeff", "")
    return "".join(_HEADER_CURRENCY.sub("", name).casefold().split())


_QUALIFIED = re.compile(r"^(?P<base>.+?)\s*\((?P<side>[^()]+)\)$")


def _header_role(name: str, config: _Config) -> str | None:
    """A header's role by its synonyms; a money header qualified in brackets by a direction
    ("记账金额(支出)", "Amount (paid in)") is the column of that side."""
    role = config.name_roles.get(_norm(name))
    if role is not None:
        return role
    found = _QUALIFIED.match(unicodedata.normalize("NFKC", name).strip())
    if found is None or config.name_roles.get(_norm(found["base"])) not in _MONEY_ROLES:
        return None
    side = found["side"].strip().casefold()
    for direction, words in (("debit", config.debit), ("credit", config.credit)):
        if side in words or config.name_roles.get(_norm(side)) == direction:
            return direction
    return None


def _names(values: str | list[str]) -> tuple[str, ...]:
    return (values,) if isinstance(values, str) else tuple(values)


@cache
def project_columns() -> tuple[str, ...]:
    """FinSync's own CSV schema: the columns its profile identifies, in order."""
    with PROFILES_PATH.open("rb") as handle:
        return tuple(tomllib.load(handle)["profiles"]["finsync"]["identify"])


@cache
def _config() -> _Config:
    with PROFILES_PATH.open("rb") as handle:
        data = tomllib.load(handle)
    synonyms = {
        language: {role: tuple(_norm(n) for n in names) for role, names in table.items()}
        for language, table in data["synonyms"].items()
    }
    values = data["values"]
    name_roles: dict[str, str] = {}
    for role in ROLES:
        for table in synonyms.values():
            for name in table.get(role, ()):
                name_roles.setdefault(name, role)
    return _Config(
        profiles=tuple(_profile(key, table) for key, table in data["profiles"].items()),
        synonyms=synonyms,
        name_roles=name_roles,
        preamble=_preamble_keys(data["preamble"]),
        pending=tuple(values["pending"]),
        debit=tuple(values["debit"]),
        credit=tuple(values["credit"]),
    )


def _preamble_keys(table: Mapping[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """Role → keys, normalised like headers; period keys stay words to find inside text."""
    return {
        role: tuple(k if role == "period" else _norm(k) for k in table.get(role, ()))
        for role in PREAMBLE_ROLES
    }


_MAPPING_LISTS = (
    "date_formats",
    "pending_values",
    "debit_values",
    "credit_values",
    "transaction_types",
    "opening_balance_types",
    "closing_balance_types",
)


def _profile(key: str, table: dict) -> _Profile:
    columns = dict(table["columns"])
    columns["description"] = _names(columns.get("description", ()))
    settings = {k: table[k] for k in ("sign", "day_first", "decimal", "thousands") if k in table}
    lists = {k: tuple(table[k]) for k in _MAPPING_LISTS if k in table}
    mapping = ColumnMapping(
        **columns,
        **settings,
        **lists,
        describe_by_merchant=table.get("describe_by_merchant", True),
    )
    return _Profile(
        key=key,
        name=table["name"],
        format=table.get("format", f"bank-csv ({table['name']})"),
        identify=tuple(_norm(n) for n in table["identify"]),
        header=tuple(table.get("header", ())),
        quote=table.get("quote", '"'),
        mapping=mapping,
        bank_name=table.get("bank"),
        currency=table.get("currency"),
        encoding=table.get("encoding"),
        preamble=_preamble_keys(table["preamble"]) if "preamble" in table else {},
    )


def _index(names: Iterable[str]) -> dict[str, int]:
    """Normalised header → position; a repeated name is found at its first position."""
    index: dict[str, int] = {}
    for position, name in enumerate(names):
        index.setdefault(_norm(name), position)
    return index


def _header_names(cells: list[str]) -> tuple[str, ...]:
    """Header cells, stripped; a repeated name gets " (2)", " (3)", …, an empty one "column N",
    so that every column can be mapped."""
    seen: Counter[str] = Counter()
    names = []
    for position, cell in enumerate(cells, start=1):
        name = cell.replace("\ufeff", "").strip() or f"column {position}"
        seen[_norm(name)] += 1
        count = seen[_norm(name)]
        names.append(f"{name} ({count})" if count > 1 else name)
    return tuple(names)


def _has_columns(mapping: ColumnMapping, index: Mapping[str, int]) -> bool:
    return all(_norm(c) in index for c in mapping.money_columns)


def _match_profile(
    names: tuple[str, ...], config: _Config, below: Sequence[list[str]] = ()
) -> _Profile | None:
    """The profile whose identifying headers ``names`` holds, the most of them winning. A bank's
    profile must also read a row of ``below`` (the first records under the header): a layout
    whose names it shares but whose values it cannot read is no export of that bank, and is
    read by synonyms or content instead. FinSync's own schema is a contract: its bad rows are
    reported."""
    index = _index(names)
    rows = [cells for cells in below if any(c.strip() for c in cells)][:SAMPLE_ROWS]
    matches = [
        p
        for p in config.profiles
        if all(n in index for n in p.identify)
        and _has_columns(p.mapping, index)
        and (
            not rows
            or p.format == PROJECT_PROFILE
            or any(_reader(p, names, config).reads(cells) for cells in rows)
        )
    ]
    return max(matches, key=lambda p: len(p.identify), default=None)


def _reader(profile: _Profile, names: tuple[str, ...], config: _Config) -> _RowReader:
    mapping = profile.mapping
    dates = _DateReader(mapping.date, mapping.date_formats, mapping.day_first)
    return _RowReader(mapping, names, "utf-8", config, dates)


def _generic_mapping(names: tuple[str, ...], config: _Config) -> ColumnMapping | None:
    """A mapping from header synonyms: those of the language naming most headers, then English."""
    normalised = [_norm(n) for n in names]

    def score(language: str) -> int:
        known = {s for synonyms in config.synonyms[language].values() for s in synonyms}
        return sum(n in known for n in normalised)

    best = max(config.synonyms, key=score)
    used: set[int] = set()
    found: dict[str, list[int]] = {}
    for role in ROLES:
        for language in dict.fromkeys((best, "en")):
            synonyms = config.synonyms[language].get(role, ())
            hits = [
                i for s in synonyms for i, n in enumerate(normalised) if n == s and i not in used
            ]
            if hits:
                hits = sorted(set(hits)) if role == "description" else hits[:1]
                found[role] = hits
                used.update(hits)
                break
    has_money = "amount" in found or ("debit" in found and "credit" in found)
    if "date" not in found or not has_money or not ({"description", "merchant"} & found.keys()):
        return None
    column = {role: names[hits[0]] for role, hits in found.items() if role != "description"}
    sign: Sign
    if "amount" in column:
        column.pop("debit", None)
        column.pop("credit", None)
        sign = "direction_column" if "direction" in column else "signed"
    else:
        column.pop("direction", None)
        sign = "debit_credit"
    description = tuple(names[i] for i in found.get("description", ()))
    return ColumnMapping(**column, description=description, sign=sign)


# ---------------------------------------------------------------------------------------------
# Encoding, delimiter and header


def _detect_encoding(path: Path) -> str:
    """UTF-8 (with or without BOM) or UTF-16 whenever the bytes say so; else the single-byte
    code page charset-normalizer finds likeliest whose text reads as a transaction list.

    A file that is UTF-8 apart from a few damaged bytes stays UTF-8: those rows are reported.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    valid = invalid = 0
    sample = bytearray()
    try:
        with path.open("rb") as handle:
            start = handle.read(512)
            if start.startswith(codecs.BOM_UTF8):
                return "utf-8-sig"
            if found := encodings.utf16(start):
                return found
            handle.seek(0)
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                text = decoder.decode(chunk)
                if chunk.isascii():
                    continue
                bad = len(_BAD_BYTE.findall(text))
                invalid += bad
                valid += len(_NON_ASCII.findall(text)) - bad
                for line in chunk.splitlines():
                    if len(sample) < encodings.SAMPLE_BYTES and not line.isascii():
                        sample += line + b"\n"
    except OSError as exc:
        raise UnreadableFile(f"cannot open ({exc.strerror})") from exc
    if invalid == 0 or valid > invalid:
        return "utf-8"
    head = _read_head(path)
    for encoding in encodings.candidates(bytes(sample)):
        try:
            text = head.decode(encoding)
        except UnicodeDecodeError:
            continue
        if _C1.search(text) is None and _find_header(text.replace("\x00", ""), None):
            return _plain(encoding, bytes(sample))
    return _plain("cp1252", bytes(sample))


def _binary(head: bytes) -> bool:
    """Control bytes (NUL and the like, not tabs or line ends) in more than 1 byte in 50: no
    text export, though one stray NUL is a damaged row."""
    controls = sum(head.count(bytes([b])) for b in _CONTROL_BYTES)
    return controls * 50 > len(head)


def _plain(encoding: str, sample: bytes) -> str:
    """Windows-1252 and Latin-1 decode bytes outside 0x80–0x9F alike; without such bytes the
    file is called Latin-1, as it always was."""
    if codecs.lookup(encoding).name == "cp1252" and not any(0x80 <= b <= 0x9F for b in sample):
        return "latin-1"
    return encoding


def _decode_head(head: bytes) -> str:
    """The first bytes as text, for sniffing: UTF-8 when they are (a cut last character aside)."""
    try:
        return head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3:
            return head[: exc.start].decode("utf-8-sig")
        return head.decode("cp1252", errors="replace")


def _records(
    lines: Iterable[str],
    delimiter: str,
    quote: str = '"',
    reads: Callable[[list[str]], bool] | None = None,
    checked_from: int = 0,
) -> Iterator[_Record]:
    """CSV records with the physical line each starts on; a malformed one yields its error.

    With ``reads`` (whether cells read as a row), from record ``checked_from`` on: a quoted value
    that runs over several lines is one value only when its record reads and none of the lines
    it took in reads by itself. Otherwise its quote was never closed: the line it opens on yields
    the error, and the lines it took in are read again on their own, so a stray quote costs one
    row instead of the rest of the file.
    """
    # The reader's ``line_num`` says how many lines a record took; a copy of the lines
    # (``tee``) follows a record behind, so those lines are at hand when a record is checked.
    feed, behind = tee(lines)
    reader = csv.reader(feed, delimiter=delimiter, quotechar=quote)
    start, number = 1, 0
    while True:
        before = reader.line_num
        try:
            record: list[str] | csv.Error = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            record = exc
        count = reader.line_num - before
        if reads is None or number < checked_from or count == 1:
            next(islice(behind, count - 1, None), None)  # its lines, passed by in C
        else:
            taken = list(islice(behind, count))
            if not _one_record(record, taken[1:], delimiter, quote, reads):
                end = start + count - 1
                record = csv.Error(
                    f"a quote opened on this line is never closed (it ran on to line {end}); "
                    f"lines {start + 1}–{end} were read again on their own"
                )
                # The lines it took in are read again, then the rest.
                feed, behind = tee(chain(taken[1:], behind))
                reader = csv.reader(feed, delimiter=delimiter, quotechar=quote)
                count = 1
        yield start, record
        start, number = start + count, number + 1


def _one_record(
    record: list[str] | csv.Error,
    continued: Sequence[str],
    delimiter: str,
    quote: str,
    reads: Callable[[list[str]], bool],
) -> bool:
    """Whether a record over several lines is one: it reads, and no line after its first does."""
    if isinstance(record, csv.Error) or not reads(record):
        return False
    for line in continued:
        try:
            cells = next(csv.reader([line], delimiter=delimiter, quotechar=quote), [])
        except csv.Error:
            continue
        if reads(cells):
            return False
    return True


def _head_records(text: str, delimiter: str, quote: str = '"') -> list[tuple[int, list[str]]]:
    records = _records(io.StringIO(text, newline=""), delimiter, quote)
    records = islice(records, HEADER_SEARCH + 20)
    return [(line, cells if isinstance(cells, list) else []) for line, cells in records]


def _find_header(text: str, mapping: ColumnMapping | None) -> _Header | None:
    """The header row: the line whose names fit ``mapping``, a profile, or enough synonyms;
    failing those, the first rows of a profile that leaves its header out.

    Every delimiter is tried; a profile beats synonyms, more identifying headers beat fewer,
    and an earlier line beats a later one.
    """
    config = _config()
    best: _Header | None = None
    best_rank: tuple[int, int, int] | None = None
    for delimiter in DELIMITERS:
        records = _head_records(text, delimiter)
        for record, (line, cells) in enumerate(records[:HEADER_SEARCH]):
            if sum(bool(c.strip()) for c in cells) < 2:
                continue
            names = _header_names(cells)
            index = _index(names)
            found = _Header(delimiter, names, record + 1, line)
            below = [c for _, c in records[record + 1 : record + 1 + 2 * SAMPLE_ROWS]]
            if mapping is not None:
                found = replace(found, mapping=mapping, kind="mapped")
                rank = (3, 0) if _has_columns(mapping, index) else None
            elif profile := _match_profile(names, config, below):
                found = replace(
                    found,
                    quote=profile.quote,
                    profile=profile,
                    mapping=profile.mapping,
                    kind="profile",
                )
                rank = (2, len(profile.identify))
            elif generic := _generic_mapping(names, config):
                found = replace(found, mapping=generic, kind="generic")
                rank = (1, len(generic.columns()))
            else:
                rank = None
            if rank and (best_rank is None or (*rank, -line) > best_rank):
                best, best_rank = found, (*rank, -line)
    if best or mapping is not None:
        return best
    return _match_headerless(text, config) or _content_header(text, config)


def _content_header(text: str, config: _Config) -> _Header | None:
    """A layout read by what its columns hold: the most common width among the first records
    is the data; a record of names just above it, when there is one, is the header.

    Every delimiter is tried; more rows read, then more columns, win.
    """
    best: _Header | None = None
    best_rank: tuple[int, int] | None = None
    for delimiter in DELIMITERS:
        records = _head_records(text, delimiter)
        filled = [
            (i, cells)
            for i, (_, cells) in enumerate(records)
            if sum(bool(c.strip()) for c in cells) >= 2
        ]
        if not filled:
            continue
        width, _ = Counter(len(cells) for _, cells in filled).most_common(1)[0]
        block = [(i, cells) for i, cells in filled if len(cells) == width]
        # A delimiter ending every row leaves an empty last column: a header written without
        # it heads the same columns.
        used = max(max((k + 1 for k, c in enumerate(r) if c.strip()), default=0) for _, r in block)
        if used < width:
            width = used
            block = [
                (i, cells[:width])
                for i, cells in filled
                if len(cells) >= width and not any(c.strip() for c in cells[width:])
            ]
        if width < 3:
            continue
        first, first_cells = block[0]
        named = _names_row(first_cells)
        # Below a header, its repeats (one per section of the file) are no data, nor are the
        # total lines under the rows.
        data = [
            cells
            for _, cells in (block[1:] if named else block)
            if (not named or _header_key(cells) != _header_key(first_cells))
            and not payment_kinds.is_summary(_first_text(cells))
        ]
        if not data:
            continue
        names = (
            _header_names(first_cells)
            if named
            else tuple(f"column {n}" for n in range(1, width + 1))
        )
        reading = columns.read(
            names,
            data,
            partial(_header_role, config=config),
            payment_kinds.from_word,
            frozenset(config.debit) | frozenset(config.credit),
            payment_kinds.is_card_credit,
            payment_kinds.names_a_card,
        )
        if reading is None:
            continue
        rank = (len(data), width)
        if best_rank is not None and rank <= best_rank:
            continue
        mapping = replace(ColumnMapping.from_roles(reading.roles), sign=reading.sign)  # type: ignore[arg-type]
        best_rank = rank
        best = _Header(
            delimiter,
            names,
            first + 1 if named else first,
            records[first][0] if named else None,
            mapping=mapping,
            kind="content",
            reading=reading,
        )
    return best


def _names_row(cells: Sequence[str]) -> bool:
    """Whether a record is a header: two or more names, none a date or an amount."""
    filled = [c.strip() for c in cells if c.strip()]
    return len(filled) >= 2 and all(
        _LETTER.search(c) and columns.read_as_value(c) is None for c in filled
    )


def _match_headerless(text: str, config: _Config) -> _Header | None:
    """A profile without a header row whose column count and values fit the first rows."""
    for delimiter in DELIMITERS:
        for profile in (p for p in config.profiles if p.header):
            records = _head_records(text, delimiter, profile.quote)
            first = [cells for _, cells in records if any(c.strip() for c in cells)][:SAMPLE_ROWS]
            width = len(profile.header)
            if first and all(
                len(c) >= width and not any(x.strip() for x in c[width:]) for c in first
            ):
                mapping = profile.mapping
                rows = _reader(profile, profile.header, config)
                try:
                    for cells in first:
                        rows.read(0, cells)
                except ValueError:
                    continue
                return _Header(
                    delimiter, profile.header, 0, None, profile.quote, profile, mapping, "profile"
                )
    return None


def _guess_header(text: str) -> _Header | None:
    """For layouts nothing recognises: the first all-text row whose width the rows below share."""
    best: _Header | None = None
    best_rank: tuple[int, int, int] | None = None
    for delimiter in DELIMITERS:
        records = _head_records(text, delimiter)
        for record, (line, cells) in enumerate(records[:HEADER_SEARCH]):
            filled = [c for c in cells if c.strip()]
            if len(filled) < 2 or not all(_LETTER.search(c) for c in filled):
                continue
            below = [c for _, c in records[record + 1 : record + 11] if any(x.strip() for x in c)]
            agree = sum(len(c) == len(cells) for c in below)
            if below and agree * 2 <= len(below):
                continue
            rank = (agree, len(cells), -line)
            if best_rank is None or rank > best_rank:
                best, best_rank = _Header(delimiter, _header_names(cells), record + 1, line), rank
            break
    return best


def _read_head(path: Path) -> bytes:
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
        if handle.read(1) and b"\n" in head:  # drop the cut last line
            head = head[: head.rfind(b"\n") + 1]
    return head


def _layout(path: Path, mapping: ColumnMapping | None) -> _Layout:
    encoding = _detect_encoding(path)
    raw = _read_head(path)
    if not raw.strip():
        raise UnreadableFile("the file is empty")
    head = raw.decode(encoding, errors="replace").lstrip("\ufeff")
    if not encoding.startswith("utf-16") and _binary(raw):
        raise UnreadableFile("not a text file (it holds control bytes and NULs)")
    head = head.replace("\x00", "")  # a NUL is reported for its row, not for the header
    header = _find_header(head, mapping) or _guess_header(head)
    if header is None:
        raise UnreadableFile("no header row with named columns found")
    if mapping is not None:
        index = _index(header.names)
        named = [n for value in mapping.columns().values() for n in _names(value)]
        if absent := [n for n in named if _norm(n) not in index]:
            raise UnreadableFile(
                f"column(s) {', '.join(absent)} not found; found columns: {', '.join(header.names)}"
            )
    promised = header.profile.encoding if header.profile else None
    if promised and encoding != "utf-8-sig" and _codec(promised) != _codec(encoding):
        encoding = promised
        head = raw.decode(encoding, errors="replace")
    if header.kind == "generic" and header.mapping is not None:
        header = _sign_from_rows(header, head)
    preamble_end = header.skip - 1 if header.line is not None else header.skip
    above = _head_records(head, header.delimiter, header.quote)[: max(preamble_end, 0)]
    return _Layout(encoding, header, tuple(cells for _, cells in above), head)


def _sign_from_rows(header: _Header, head: str) -> _Header:
    """A layout named by synonyms with one amount column reads its sign convention from its
    first rows as the content reading does (``columns.decide_sign``): their wording, the
    running balance of an account (down on money out: all of the amounts, or row by row when
    they are unsigned and go both ways), and columns that name a card."""
    mapping = header.mapping
    assert mapping is not None
    if mapping.sign != "signed":
        return header
    records = _head_records(head, header.delimiter, header.quote)[header.skip :]
    index = _index(header.names)

    def cells(name: str | None) -> list[str]:
        at = index.get(_norm(name)) if name else None
        return [c[at] if at is not None and at < len(c) else "" for _, c in records]

    def money(name: str | None) -> list[Decimal | None]:
        return [columns.amount_value(c) if c.strip() else None for c in cells(name)]

    sign, note, _ = columns.decide_sign(
        money(mapping.amount),
        cells(mapping.description[0] if mapping.description else mapping.merchant),
        money(mapping.balance) if mapping.balance else None,
        payment_kinds.is_card_credit,
        any(map(payment_kinds.names_a_card, header.names)),
    )
    if sign == "signed":
        return header
    return replace(header, mapping=replace(mapping, sign=sign), sign_note=note)  # type: ignore[arg-type]


def _codec(encoding: str) -> str:
    return codecs.lookup(encoding).name


def _needs_mapping(names: tuple[str, ...]) -> str:
    return (
        f"found columns: {', '.join(names)}; need a date, an amount (or debit and credit) and "
        f"a description column — {MAPPING_HINT}"
    )


def _format_name(header: _Header, mapping: ColumnMapping) -> str:
    if header.profile:
        return header.profile.format
    columns = [*mapping.money_columns, *mapping.description]
    return f"bank-csv ({header.kind}: {', '.join(columns)})"


def _fill_file_values(
    parsed: ParsedFile, layout: _Layout, mapping: ColumnMapping, dates: _DateReader
) -> None:
    """What the file states for all its rows: in "key;value" lines above the header or a row of
    names over a row of values (under the keys its profile names), in a money header such as
    "Amount (EUR)", or by its layout."""
    profile = layout.header.profile
    keys = _preamble_keys_of(layout)
    for _, filled in _preamble_entries(layout.preamble):
        key, values = _norm(filled[0]).rstrip(":"), filled[1:]
        for role in ("account_no", "account_name", "bank_name"):
            if values and key in keys.get(role, ()) and getattr(parsed, role) is None:
                setattr(parsed, role, values[0])
        if key in keys.get("currency", ()) and parsed.currency is None:
            parsed.currency = next(filter(None, map(_currency_code, values)), None)
        if parsed.period is None:
            parsed.period = _period(" ".join(filled), keys.get("period", ()), dates)
    names = layout.header.names
    index = _index(names)
    for column in (mapping.amount, mapping.debit, mapping.credit):
        found = _HEADER_CURRENCY.search(names[index[_norm(column)]]) if column else None
        if found and parsed.currency is None:
            parsed.currency = _currency_code(found[1])
    if profile:
        parsed.currency = parsed.currency or profile.currency
        parsed.bank_name = parsed.bank_name or profile.bank_name
    parsed.currency = parsed.currency or mapping.cell_currency


def _period(text: str, keys: Iterable[str], dates: _DateReader) -> tuple[date, date] | None:
    """The first two dates after a period key, which may stand inside a sentence."""
    for key in keys:
        found = re.search(rf"(?<!\w){re.escape(key)}(?!\w)", text, re.IGNORECASE)
        if found:
            return dates.find_period(text[found.end() :])
    return None


def _data_records(
    path: Path, layout: _Layout, reads: Callable[[list[str]], bool] | None = None
) -> Iterator[_Record]:
    """The records below the header, skipping blank ones, read lazily; ``reads`` as for
    ``_records``."""
    skip = layout.header.skip
    with path.open(encoding=layout.encoding, errors="replace", newline="") as handle:
        records = _records(handle, layout.header.delimiter, layout.header.quote, reads, skip)
        for line, cells in islice(records, skip, None):
            if isinstance(cells, csv.Error) or "".join(cells).strip():  # not a blank record
                yield line, cells


# ---------------------------------------------------------------------------------------------
# Conventions inferred from the file


def _settle(path: Path, layout: _Layout, mapping: ColumnMapping) -> ColumnMapping:
    """``mapping`` with the decimal separator and day/month order it leaves open decided.

    Read from every value in the file: an amount ending in a separator and one or two digits
    names the decimal separator; a date whose first number is above 12 is day-first, whose
    second is, month-first. Undecided files follow the usual convention of their delimiter.
    """
    needs_dates = not mapping.date_formats and mapping.day_first is None
    if mapping.decimal and not needs_dates:
        return mapping
    index = _index(layout.header.names)
    date_at = index[_norm(mapping.date)]
    money = (
        mapping.amount,
        mapping.debit,
        mapping.credit,
        mapping.balance,
        mapping.balance_before,
        mapping.fee,
    )
    money_at = [index[_norm(c)] for c in money if c and _norm(c) in index]
    orders: Counter[bool] = Counter()
    decimals: Counter[str] = Counter()
    marks: Counter[str | None] = Counter()  # the currency each amount is marked with
    for _, cells in _data_records(path, layout):
        if isinstance(cells, csv.Error):
            continue
        if needs_dates and date_at < len(cells):
            day_first = _day_first(cells[date_at])
            if day_first is not None:
                orders[day_first] += 1
        if not mapping.decimal:
            for at in money_at:
                if at < len(cells) and (mark := _decimal_mark(cells[at])):
                    decimals[mark] += 1
                    marks[_cell_currency(cells[at])] += 1
    comma_country = layout.header.delimiter != ","
    decimal = mapping.decimal or _majority(decimals, "," if comma_country else ".")
    # Amounts all marked with one currency ("-123,45 €") say the file's currency.
    marked = next(iter(marks)) if len(marks) == 1 and not mapping.currency else None
    mapping = replace(mapping, cell_currency=marked)
    if not needs_dates:
        return replace(mapping, decimal=decimal)
    day_first = _majority(orders, comma_country or decimal == ",")
    return replace(mapping, decimal=decimal, day_first=day_first)


def _cell_currency(raw: str) -> str | None:
    """The ISO code a money cell is marked with ("€", "EUR", "£"), if any ("$" is several)."""
    found = _CELL_CURRENCY.search(raw)
    return _currency_code(found[0]) if found else None


def _majority(votes: Counter[_T], default: _T) -> _T:
    ranked = votes.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return default
    return ranked[0][0]


def _day_first(raw: str) -> bool | None:
    """True or False when a date's numbers show its order, None when they could be either."""
    if _YEAR_FIRST.match(raw):
        return None
    numbers = [int(n) for n in _DIGITS.findall(raw)[:2]]
    if len(numbers) < 2:
        return None
    first, second = numbers
    if 12 < first <= 31 and second <= 12:
        return True
    if 12 < second <= 31 and first <= 12:
        return False
    return None


def _decimal_mark(raw: str) -> str | None:
    match = _AMOUNT.fullmatch(raw.strip().strip("()").translate(_SPACES))
    if not match:
        return None
    number = match["number"].rstrip(" ")
    for mark in ",.":
        _, found, fraction = number.rpartition(mark)
        if found and 1 <= len(fraction) <= 2 and fraction.isdigit():
            return mark
    return None


# ---------------------------------------------------------------------------------------------
# Values


def _format_hint(fmt: str) -> str:
    return re.sub(r"%[a-zA-Z]", lambda m: _FORMAT_HINTS.get(m[0], m[0]), fmt)


class _DateReader:
    """Dates by the layout's strptime formats, else by dateutil in the file's day/month order."""

    def __init__(self, column: str, formats: tuple[str, ...], day_first: bool | None) -> None:
        self._column = column
        self._formats = formats
        self._day_first = bool(day_first)
        self.read = lru_cache(maxsize=4096)(self._read)  # statements repeat their dates

    def _read(self, raw: str) -> date:
        if self._formats:
            for fmt in self._formats:
                try:
                    return datetime.strptime(raw, fmt).date()
                except ValueError:
                    continue
            forms = " or ".join(_format_hint(f) for f in self._formats)
            raise ValueError(f"{self._column} {raw!r} is not a date in the form {forms}")
        day_first = self._day_first and not _YEAR_FIRST.match(raw)
        try:
            parsed = dateutil_parser.parse(raw, dayfirst=day_first, default=_NO_YEAR)
        except (ValueError, OverflowError) as exc:
            raise ValueError(f"{self._column} {raw!r} is not a date") from exc
        if parsed.year == _NO_YEAR.year:
            raise ValueError(f"{self._column} {raw!r} is not a date (no year)")
        return parsed.date()

    def find_period(self, text: str) -> tuple[date, date] | None:
        """The first two dates in ``text`` that read as dates, in order."""
        found = []
        for token in _DATE_TOKEN.findall(text):
            try:
                found.append(self.read(token))
            except ValueError:
                continue
        return (min(found[:2]), max(found[:2])) if len(found) >= 2 else None


class _NumberReader:
    """Amounts as banks print them: either decimal mark, thousands groups, currency marks,
    leading or trailing minus, parentheses for negatives. Exactly to the cent."""

    def __init__(self, decimal: str, thousands: str | None) -> None:
        self._decimal = decimal
        self._thousands = (THOUSANDS if thousands is None else thousands).replace(decimal, "")
        self._groups = {
            mark: re.compile(rf"[0-9]{{1,3}}(?:{re.escape(mark)}[0-9]{{3}})+")
            for mark in self._thousands
        }
        self._plain = re.compile(rf"-?[0-9]+(?:{re.escape(decimal)}[0-9]{{1,2}})?")

    def read(self, raw: str, column: str) -> Decimal:
        text = raw.strip()
        if self._plain.fullmatch(text) and len(text) < 16:  # the common case, quickly
            value = Decimal(text.replace(self._decimal, ".")).quantize(CENT)
            return value or abs(value)
        text = columns.unframed(text).translate(_SPACES)
        marked = _CR_DR.fullmatch(text)
        if marked:  # "12.50 DR", "1,100.00 CR": the mark says which way
            value = abs(self._read(marked["number"], raw, column))
            return -value if marked["mark"].upper() == "DR" else value
        return self._read(text, raw, column)

    def _read(self, text: str, raw: str, column: str) -> Decimal:
        negative = text.startswith("(") and text.endswith(")")
        match = _AMOUNT.fullmatch(text[1:-1].strip() if negative else text)
        signs = (
            [match[g] for g in ("lead", "lead2", "trail", "trail2") if match[g]] if match else []
        )
        if not match or len(signs) > 1 or (negative and signs):
            raise ValueError(f"{column} {raw!r} is not a number")
        value = self._digits(match["number"].rstrip(" "), raw, column)
        if negative or signs == ["-"]:
            value = -value
        return value or abs(value)  # no "-0.00"

    def _digits(self, number: str, raw: str, column: str) -> Decimal:
        whole, _, fraction = number.partition(self._decimal)
        whole = whole or "0"  # ",01": no digit before the decimal mark
        if not _DIGITS.fullmatch(fraction or "0"):
            raise ValueError(f"{column} {raw!r} is not a number")
        if not _DIGITS.fullmatch(whole):
            marks = set(_NOT_DIGITS.findall(whole))
            mark = marks.pop() if len(marks) == 1 else None
            if mark not in self._groups:
                raise ValueError(f"{column} {raw!r} is not a number")
            if not self._groups[mark].fullmatch(whole):
                name = SEPARATOR_NAMES.get(mark, "a space")
                raise ValueError(f"{column} {raw!r}: {name} may only separate thousands")
        if len(fraction.rstrip("0")) > 2:
            raise ValueError(f"{column} {raw!r} has more than two decimal places")
        digits = _NOT_DIGITS.sub("", whole).lstrip("0")
        if len(digits) > 15:
            raise ValueError(f"{column} {raw.strip()} is beyond what any account holds")
        return Decimal(f"{digits or '0'}.{fraction or '0'}").quantize(CENT)


@lru_cache(maxsize=256)
def _currency_code(raw: str) -> str | None:
    """The ISO code a cell gives: a code, a symbol, or a currency's name ("人民币")."""
    code = CURRENCY_SYMBOLS.get(raw.strip(), raw.strip().upper())
    if len(code) == 3 and code.isascii() and code.isalpha():
        return code
    return currency_named(raw)


def _cell(cells: list[str], at: int | None) -> str:
    return cells[at].strip() if at is not None and at < len(cells) else ""


def _first_text(cells: list[str]) -> str:
    return next((c.strip() for c in cells if _LETTER.search(c)), "")


class _RowReader:
    """One record → its ParsedRow and, when it charges a fee, a second row "Fee: …"; or the
    balance it states, for layouts that mix balance lines in with the transactions."""

    def __init__(
        self,
        mapping: ColumnMapping,
        names: tuple[str, ...],
        encoding: str,
        config: _Config,
        dates: _DateReader,
        short_rows: bool = False,
    ) -> None:
        """``short_rows``: a row that leaves out trailing columns is read with them empty, as
        long as it reaches the date and money columns (a layout no profile promises: exports
        that drop trailing empty fields); otherwise such a row lost values or moved."""
        index = _index(names)

        def at(name: str | None) -> int | None:
            return index.get(_norm(name)) if name else None

        self._m = mapping
        self._width = len(names)
        self._encoding = encodings.name(encoding)
        self._at = {role: at(getattr(mapping, role)) for role in ROLES if role != "description"}
        self._present = [(role, i) for role, i in self._at.items() if i is not None]
        self._blank = dict.fromkeys(self._at, "")
        self._roles = [role for role, _ in self._present]
        # A mapping always reads a date and money column, so this picks a tuple of cells.
        self._take = itemgetter(*(i for _, i in self._present))
        self._description = [i for i in map(at, mapping.description) if i is not None]
        # A row must reach every column the mapping reads; a shorter one lost values or moved.
        self._reach = 1 + max([i for _, i in self._present] + self._description, default=0)
        landing = [mapping.date, mapping.amount, mapping.debit, mapping.credit, mapping.direction]
        needed = [i for i in map(at, landing) if i is not None]
        self._needed = 1 + max(needed, default=0) if short_rows else self._reach
        self._dates = dates
        self._numbers = _NumberReader(mapping.decimal or ".", mapping.thousands)
        self._pending = {v.casefold() for v in mapping.pending_values or config.pending}
        self._debit = {v.casefold() for v in mapping.debit_values or config.debit}
        self._credit = {v.casefold() for v in mapping.credit_values or config.credit}
        self._balance_types = {
            **dict.fromkeys(mapping.opening_balance_types, "opening_balance"),
            **dict.fromkeys(mapping.closing_balance_types, "closing_balance"),
        }
        self._reads_status = self._at["status"] is not None
        self._reads_type = self._at["payment_type"] is not None
        money = [mapping.debit, mapping.credit] if mapping.sign == "debit_credit" else []
        self._money_at = [i for i in map(at, [mapping.amount, *money]) if i is not None]
        self._date_at = at(mapping.date)

    def continuation(self, cells: list[str]) -> str | None:
        """The text of a record that continues the row above it (no date, no money, only
        text: a second line of details), else None."""
        if self._date_at is None or _cell(cells, self._date_at):
            return None
        if any(_cell(cells, at) for at in self._money_at):
            return None
        text = " ".join(c.strip() for c in cells if c.strip())
        if not text or payment_kinds.is_summary(text) or not _LETTER.search(text):
            return None
        return text

    def reads(self, cells: list[str]) -> bool:
        """Whether ``cells`` read as a row (or a balance or summary line)."""
        try:
            self.read(0, cells)
        except ValueError:
            return False
        return True

    def read(self, line: int, cells: list[str]) -> list[ParsedRow | BalanceFact]:
        """Raises ValueError with the reason when the record cannot be read."""
        if len(cells) > self._width and any(c.strip() for c in cells[self._width :]):
            raise ValueError("more values than columns")
        if len(cells) < self._reach:
            if len(cells) < self._needed:
                raise ValueError(f"fewer values than columns ({len(cells)} of {self._width})")
            cells = cells + [""] * (self._reach - len(cells))
        joined = "\t".join(cells)
        if "\ufffd" in joined:
            raise ValueError(f"text is not valid {self._encoding}")
        if "\x00" in joined:
            raise ValueError("the line holds a NUL byte (\\0), which no bank export writes")
        m = self._m
        values = self._blank.copy()  # every present column is within reach, checked above
        values.update(zip(self._roles, map(str.strip, self._take(cells)), strict=True))
        kind = values["record_type"]
        if kind in self._balance_types:
            return [self._balance_fact(self._balance_types[kind], values, line)]
        if m.transaction_types and kind not in m.transaction_types:
            return []  # a total or other summary line
        if len(self._description) == 1:  # the usual layout, without joining
            description = cells[self._description[0]].strip()
        else:
            description = " ".join(filter(None, (_cell(cells, at) for at in self._description)))
        text = description or (values["merchant"] if m.describe_by_merchant else "")
        summary = text or _first_text(cells)
        if values["date"] in ("", summary) and payment_kinds.is_summary(summary):
            return []  # a total line under the rows (its words may stand in the date's column)
        missing = self._missing(values)
        stated = payment_kinds.balance_text(text)
        if stated and values["date"] and values["balance"] and missing and m.date not in missing:
            # "Opening balance" with its figure in the balance column, none in the amount's
            return [
                BalanceFact(
                    stated,
                    self._numbers.read(values["balance"], str(m.balance)),
                    self._currency(values["currency"]),
                    self._dates.read(values["date"]),
                    f"line {line}",
                )
            ]
        if not text:
            missing.append(" + ".join(m.description) or "description")
        if missing:
            raise ValueError("missing value for " + ", ".join(missing))
        pending = self._reads_status and values["status"].casefold() in self._pending
        try:
            when: date | None = self._dates.read(values["date"])
        except ValueError:
            if not pending:
                raise
            when = None  # not booked yet: counted as pending, lands once booked
        amount = self._amount(values)
        if stated is not None and when is not None:  # "Saldo Anterior" printed as a row
            return [
                BalanceFact(
                    stated, amount, self._currency(values["currency"]), when, f"line {line}"
                )
            ]
        balance = self._optional(values["balance"], m.balance)
        before = self._optional(values["balance_before"], m.balance_before)
        if balance is None and before is not None:
            balance = before + amount  # rows carry the balance after them
        # A fee is always a charge, landed as a row of its own so it can be asked about; the
        # printed balance is after both, so it goes with the fee row.
        fee = abs(self._optional(values["fee"], m.fee) or ZERO)
        row = ParsedRow(
            location=f"line {line}",
            date=when,
            amount=amount,
            description=text,
            currency=self._currency(values["currency"]),
            category=values["category"] or None,
            merchant=values["merchant"] or None,
            account_no=values["account_no"] or None,
            account_name=values["account_name"] or None,
            bank_name=values["bank_name"] or None,
            balance=None if fee else balance,
            transaction_id=values["transaction_id"] or None,
            pending=pending,
            payment_kind=self._kind(values["payment_type"]),
        )
        if not fee:
            return [row]
        fee_row = replace(
            row,
            location=f"line {line} (fee)",
            amount=-fee,
            description=f"Fee: {text}",
            category=None,
            merchant=None,
            balance=balance,
            transaction_id=f"{row.transaction_id}-fee" if row.transaction_id else None,
        )
        return [row, fee_row]

    def _kind(self, raw: str) -> str | None:
        if not (self._reads_type and raw):
            return None
        return payment_kinds.from_word(raw) or payment_kinds.from_text(raw)

    def _balance_fact(self, name: str, values: Mapping[str, str], line: int) -> BalanceFact:
        if missing := self._missing(values):
            raise ValueError("missing value for " + ", ".join(missing))
        return BalanceFact(
            name=name,
            amount=self._amount(values),
            currency=self._currency(values["currency"]),
            as_of=self._dates.read(values["date"]),
            location=f"line {line}",
        )

    def _missing(self, values: Mapping[str, str]) -> list[str]:
        """The date and money columns this row leaves blank."""
        m = self._m
        missing = [] if values["date"] else [m.date]
        if m.sign == "debit_credit":
            if not (values["debit"] or values["credit"]):
                missing.append(f"{m.debit} or {m.credit}")
        elif not values["amount"]:
            missing.append(str(m.amount))
        if m.sign == "direction_column" and not values["direction"] and "" not in self._debit:
            missing.append(str(m.direction))
        return missing

    def _optional(self, raw: str, column: str | None) -> Decimal | None:
        return self._numbers.read(raw, str(column)) if raw else None

    def _currency(self, raw: str) -> str | None:
        code = _currency_code(raw) if raw else None
        if raw and code is None:
            raise ValueError(f"{self._m.currency} {raw!r} is not an ISO 4217 code")
        return code

    def _amount(self, values: Mapping[str, str]) -> Decimal:
        """Signed: negative is money out, whatever the file's convention."""
        m = self._m
        if m.sign == "debit_credit":
            out = self._optional(values["debit"], m.debit) or ZERO
            into = self._optional(values["credit"], m.credit) or ZERO
            return abs(into) - abs(out)
        amount = self._numbers.read(values["amount"], str(m.amount))
        if m.sign == "spend_positive":
            amount = -amount
        elif m.sign == "balance_steps":  # signed by the balance's step (_signed_by_balance)
            amount = abs(amount)
        elif m.sign == "direction_column":
            way = values["direction"].casefold()
            if way not in self._debit | self._credit:
                raise ValueError(
                    f"{m.direction} {values['direction']!r} is neither debit nor credit"
                )
            amount = -abs(amount) if way in self._debit else abs(amount)
        return amount or abs(amount)  # never "-0.00"


def layout_key(path: Path) -> str | None:
    """What identifies a file's layout for a reading chosen by hand: its delimiter and its
    column names (or, without a header, its column count); None when no columns are found."""
    try:
        encoding = _detect_encoding(path)
        head = _read_head(path).decode(encoding, errors="replace").replace("\x00", "")
    except (OSError, UnreadableFile):
        return None
    header = _find_header(head, None) or _guess_header(head)
    if header is None:
        return None
    shape = (
        "|".join(_norm(n) for n in header.names)
        if header.line is not None
        else f"{len(header.names)} columns without a header"
    )
    return hashlib.sha256(f"{header.delimiter}\n{shape}".encode()).hexdigest()[:24]


def mapping_as_data(mapping: ColumnMapping) -> dict[str, object]:
    """A mapping as JSON-ready data (lists for tuples), for a reading remembered by layout."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(mapping).items()}


def mapping_from_data(data: Mapping[str, object]) -> ColumnMapping:
    """The mapping ``mapping_as_data`` wrote; ValueError when it is not one."""
    fields = {f.name for f in dataclass_fields(ColumnMapping)}
    if not isinstance(data, Mapping) or set(data) - fields:
        raise ValueError("not a column mapping")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return ColumnMapping(**values)  # type: ignore[arg-type]
