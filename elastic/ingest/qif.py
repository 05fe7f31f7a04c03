"""Quicken Interchange Format (QIF): bank, cash, card and other asset or liability accounts.

A QIF file is a list of records of one-letter fields, each record ended by ``^``. ``!Type:``
lines name the kind of account the records below belong to, ``!Account`` blocks name the
account itself (and may state its balance). Investment records are reported, not read.

Dates are written in many ways (``12/19/18``, ``8/28/2008``, ``11/ 8'16``, ``2007/01/22``,
``29.05.2008``); whether the day or the month comes first is decided across the whole file, like
a CSV column. Amounts may group thousands with either mark, decided likewise. A record with
splits (``S``/``E``/``$``) whose splits add up to its amount lands one row per split that moves
money, so a fee inside a payment can be asked about.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path

from elastic.ingest import payment_kinds
from elastic.ingest.parsed import (
    BalanceFact,
    ParsedFile,
    ParsedRow,
    UnreadableFile,
    collapse,
    exact_cents,
    shared_value,
)
from elastic.model.plan import TRANSFERS_CATEGORY
from elastic.model.records import IngestProblem

FORMAT = "qif"

_HEADER = re.compile(rb"^\s*!(?:Type|Account|Option|Clear)", re.IGNORECASE | re.MULTILINE)
_DATE = re.compile(r"^\s*(\d{1,4})\s*[/.\-]\s*(\d{1,2})\s*(?:[/.\-]|')\s*(\d{1,4})\s*$")
_TRANSFER = re.compile(r"^\[(.+)\]$")
_TYPES_READ = {"bank", "cash", "ccard", "oth a", "oth l"}
_CARD_TYPES = {"ccard"}
NO_TEXT = "(no description in the file)"


@dataclass
class _Record:
    """One ``^``-ended record, as its fields were written."""

    line: int
    fields: list[tuple[str, str]] = field(default_factory=list)

    def first(self, code: str) -> str:
        return next((value for key, value in self.fields if key == code), "")


@dataclass
class _Account:
    name: str | None = None
    kind: str = "bank"
    balance: str = ""
    rows: list[ParsedRow] = field(default_factory=list)


def sniff(head: bytes) -> bool:
    """A ``!Type:``, ``!Account`` or ``!Option`` header line and a ``^`` record end."""
    text = head.removeprefix(b"\xef\xbb\xbf")
    return bool(_HEADER.search(text[:512])) and b"^" in text


def read(path: Path) -> ParsedFile:
    """Every record of every account in the file; an unreadable record is a problem."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"cannot open ({exc.strerror})") from exc
    text = _decode(raw)
    parsed = ParsedFile(format=FORMAT)
    accounts = _records(text, path.name, parsed)
    dates = [v for acc in accounts for rec in acc[1] for k, v in rec.fields if k == "D"]
    day_first = _day_first(dates)
    decimal = _decimal_mark(
        [v for acc in accounts for rec in acc[1] for k, v in rec.fields if k in "TU$"]
    )
    parsed.notes.append(
        f"dates read {'day' if day_first else 'month'} first, decided across the file; "
        f"amounts with a decimal {'comma' if decimal == ',' else 'point'}"
    )
    entry = 0
    kept: list[_Account] = []
    names = {a.name.casefold() for a, _ in accounts if a.name}
    for account, records in accounts:
        for record in records:
            entry += 1
            where = f"entry {entry}"
            try:
                items = _read_record(record, account, names, where, day_first, decimal)
            except ValueError as exc:
                parsed.problems.append(IngestProblem(path.name, where, str(exc)))
                continue
            for item in items:
                if isinstance(item, BalanceFact):
                    parsed.balances.append(item)
                else:
                    account.rows.append(item)
        kept.append(account)
        parsed.rows.extend(account.rows)
        _closing_balance(account, decimal, parsed, path.name)
    if not parsed.rows and not parsed.problems and not parsed.balances:
        raise UnreadableFile("a QIF file without bank, cash or card transactions")
    parsed.account_name = shared_value(a.name for a in kept)
    return parsed


def _decode(raw: bytes) -> str:
    """UTF-8 when valid, else Windows-1252 (what Quicken and Money wrote on Windows)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _records(text: str, source: str, parsed: ParsedFile) -> list[tuple[_Account, list[_Record]]]:
    """Records grouped by the account they belong to, in file order; other sections
    (categories, classes, memorised payees, investments) are noted, not read."""
    groups: list[tuple[_Account, list[_Record]]] = []
    account = _Account()
    section = "bank"
    in_account_block = False
    current: _Record | None = None
    skipped: Counter[str] = Counter()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("!"):
            header = stripped[1:].casefold()
            if header == "account":
                in_account_block = True
                account = _Account()
            elif header.startswith("type:"):
                section = header.removeprefix("type:").strip()
                in_account_block = False
                if section in _TYPES_READ:
                    account.kind = section
                    groups.append((account, []))
            continue
        code, value = stripped[0], stripped[1:].strip()
        if in_account_block:
            if code == "N":
                account.name = value or None
            elif code == "T":
                account.kind = value.casefold()
            elif code == "B":
                account.balance = value
            elif code == "^":
                in_account_block = False
            continue
        if section not in _TYPES_READ:
            if code == "^":
                skipped[section] += 1
            continue
        if not groups:  # records before any !Type line are read as bank records
            groups.append((account, []))
        if current is None:
            current = _Record(number)
        if code == "^":
            groups[-1][1].append(current)
            current = None
        else:
            current.fields.append((code, value))
    if current is not None and current.fields:
        groups[-1][1].append(current)  # a last record without its "^"
    for section, count in skipped.items():
        parsed.notes.append(f"{count} {section} record(s) not read: not bank or card transactions")
    # Records under the same !Account and !Type belong together.
    merged: dict[int, tuple[_Account, list[_Record]]] = {}
    for acc, records in groups:
        merged.setdefault(id(acc), (acc, []))[1].extend(records)
    return list(merged.values())


def _day_first(values: list[str]) -> bool:
    """Day before month when any date's first number is above 12; month first otherwise,
    as Quicken writes dates, unless a second number above 12 says so too."""
    votes: Counter[bool] = Counter()
    for value in values:
        match = _DATE.match(value)
        if not match or len(match[1]) == 4:
            continue
        first, second = int(match[1]), int(match[2])
        if first > 12 >= second:
            votes[True] += 1
        elif second > 12 >= first:
            votes[False] += 1
    return votes[True] > votes[False]


def _decimal_mark(values: list[str]) -> str:
    votes: Counter[str] = Counter()
    for value in values:
        text = value.replace(" ", "")
        for mark in ",.":
            _, found, fraction = text.rpartition(mark)
            if found and len(fraction) in (1, 2) and fraction.isdigit():
                votes[mark] += 1
                break
    return "," if votes[","] > votes["."] else "."


def _date(raw: str, day_first: bool) -> date:
    match = _DATE.match(raw)
    if not match:
        raise ValueError(f"date {raw!r} is not a date")
    a, b, c = match[1], match[2], match[3]
    if len(a) == 4:
        year, month, day = int(a), int(b), int(c)
    else:
        first, second = int(a), int(b)
        day, month = (first, second) if day_first else (second, first)
        year = int(c)
        if len(c) <= 2:
            # Quicken's apostrophe marks 2000s; two digits otherwise pivot on 1970.
            year += 2000 if "'" in raw or year < 70 else 1900
    try:
        return date(year, month, day)
    except ValueError as exc:
        raise ValueError(f"date {raw!r} is not a date ({exc})") from exc


def _amount(raw: str, decimal: str) -> Decimal:
    text = raw.replace(" ", "").replace("\u00a0", "")
    thousands = "." if decimal == "," else ","
    text = text.replace(thousands, "").replace(decimal, ".")
    try:
        value = Decimal(text)
    except InvalidOperation as exc:
        raise ValueError(f"amount {raw!r} is not a number") from exc
    return exact_cents(value) or Decimal("0.00")


def _read_record(
    record: _Record,
    account: _Account,
    accounts: set[str],
    where: str,
    day_first: bool,
    decimal: str,
) -> list[ParsedRow | BalanceFact]:
    """One record's row (or one per split), or the opening balance it states. ``accounts``
    are the names of the file's accounts: a payee naming one of them is a transfer."""
    raw_date = record.first("D")
    if not raw_date:
        raise ValueError("no date (D line)")
    when = _date(raw_date, day_first)
    raw_amount = record.first("T") or record.first("U")
    if not raw_amount:
        raise ValueError("no amount (T line)")
    amount = _amount(raw_amount, decimal)
    payee, memo = collapse(record.first("P")), collapse(record.first("M"))
    category, number = record.first("L"), collapse(record.first("N"))
    if "opening_balance" in {payment_kinds.balance_text(payee), payment_kinds.balance_text(memo)}:
        return [BalanceFact("opening_balance", amount, None, when, where)]
    kind = _payment_kind(number) or payment_kinds.from_text(payee or memo)
    description = " ".join(dict.fromkeys(p for p in (payee, memo) if p)) or (
        f"{category} {number}".strip() or NO_TEXT
    )
    own = payee.casefold() in accounts and payee.casefold() != (account.name or "").casefold()
    row = ParsedRow(
        location=where,
        date=when,
        amount=amount,
        description=description,
        category=TRANSFERS_CATEGORY if own else _category(category),
        merchant=payee or None,
        account_name=account.name,
        payment_kind=kind,
    )
    splits = _splits(record, decimal)
    moving = [s for s in splits if s[2]]
    if len(moving) < 2 or sum(s[2] for s in moving) != amount:
        return [row]
    rows: list[ParsedRow | BalanceFact] = []
    for number_of, (split_category, split_memo, split_amount) in enumerate(splits, start=1):
        if not split_amount:
            continue
        text = " ".join(dict.fromkeys(p for p in (payee, split_memo or split_category) if p))
        rows.append(
            ParsedRow(
                location=f"{where} split {number_of}",
                date=when,
                amount=split_amount,
                description=text or description,
                category=_category(split_category),
                merchant=payee or None,
                account_name=account.name,
                payment_kind=payment_kinds.from_word(split_category) or kind,
            )
        )
    return rows


def _splits(record: _Record, decimal: str) -> list[tuple[str, str, Decimal]]:
    """(category, memo, amount) of each split, in order."""
    splits: list[list[str]] = []
    for code, value in record.fields:
        if code == "S":
            splits.append([value, "", ""])
        elif code == "E" and splits:
            splits[-1][1] = value
        elif code == "$" and splits:
            splits[-1][2] = value
    return [(c, collapse(m), _amount(a, decimal)) for c, m, a in splits if a]


def _category(raw: str) -> str | None:
    """The file's category; ``[Account]`` is a transfer to the user's own account."""
    text = raw.split("/", 1)[0].strip()  # "Category/Class"
    if _TRANSFER.match(text):
        return TRANSFERS_CATEGORY
    return text or None


def _payment_kind(number: str) -> str | None:
    """A cheque number makes a cheque; other words in the number field ("ATM", "EFT") name
    their kind."""
    return "cheque" if number.isdigit() else payment_kinds.from_word(number)


def _closing_balance(account: _Account, decimal: str, parsed: ParsedFile, source: str) -> None:
    """An ``!Account`` block's ``B`` line: the account's balance as of its last entry."""
    if not account.balance or not account.rows:
        return
    try:
        amount = _amount(account.balance, decimal)
    except ValueError as exc:
        parsed.problems.append(IngestProblem(source, "account", f"balance: {exc}"))
        return
    as_of = max(r.date for r in account.rows if r.date)
    parsed.balances.append(BalanceFact("closing_balance", amount, None, as_of, "account"))
