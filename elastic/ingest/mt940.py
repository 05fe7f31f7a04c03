"""SWIFT MT940 statements, read with the ``mt-940`` package.

The package reads tags, amounts, dates and German ``?``-structured ``:86:`` details. This module
decides the text encoding, removes the SWIFT message envelope, splits the file into statements
and keeps physical line numbers so each row and balance says where it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import mt940

from elastic.ingest.parsed import (
    BalanceFact,
    ParsedFile,
    ParsedRow,
    UnreadableFile,
    collapse,
    drop_shared_ids,
    exact_cents,
    shared_value,
)
from elastic.model.records import IngestProblem

FORMAT = "mt940"

# The library's fixes, all on: RC signed as money out, ?31 (IBAN) kept out of the name,
# the :61: customer reference kept when :86: has none, details of any length, BOM dropped.
_OPTIONS = mt940.Options.all()
_TAG_LINE = re.compile(r"^:(\d{2}[A-Z]?|NS):")
# The SWIFT envelope: "{1:F01BANK…}{2:…}{4:" opens a message (its text may follow on the same
# line), "-}" and "{5:…}" close it. No line of the statement itself starts with "{".
_ENVELOPE_OPEN = re.compile(r"^(?:\{.*)?\{4:")
_ENVELOPE_LINE = re.compile(r"^(?:-\}|\{).*$")
# "No reference"; Rabobank writes EREF, PREF or MARF to say the reference is in :86: instead.
_NOT_REFERENCES = frozenset({"NONREF", "EREF", "PREF", "MARF"})
# German-style :86: details that separate their subfields with ">" instead of "?" (Triodos).
_ANGLE_SUBFIELDS = re.compile(r"^\d{3}>\d{2}")
_ANGLE_MARK = re.compile(r">(?=\d{2})")
_BALANCES = {
    "60F": ("final_opening_balance", "opening_balance"),
    "60": ("opening_balance", "opening_balance"),
    "62F": ("final_closing_balance", "closing_balance"),
    "62": ("closing_balance", "closing_balance"),
    "64": ("available_balance", "available_balance"),
}


class _Statement(mt940.tags.Statement):
    """The package's ``:61:`` reader, except that a line it cannot read becomes a problem for
    that row instead of an error for the whole file.

    Its name must read ``Statement``: the package finds a tag's processors by its class name.
    """

    def parse(self, transactions: mt940.models.Transactions, value: str) -> dict[str, Any]:
        # Checked first because the package logs a rejected line as an error before raising.
        if self.re.match(value) is None:
            # ``month`` lets the package's February date pre-processor pass over the line.
            return {"unreadable": f"cannot read :61:{value}", "month": None}
        return super().parse(transactions, value)

    def __call__(
        self, transactions: mt940.models.Transactions, value: dict[str, Any]
    ) -> dict[str, Any]:
        reason = value.get("unreadable")
        if reason is None:
            try:
                return super().__call__(transactions, value)
            except (ArithmeticError, ValueError) as exc:
                reason = f"cannot read :61: ({exc})"
        # The package starts a new transaction at the next :61: only when this one has an id.
        return {"unreadable": collapse(reason), "id": "?"}


def _angle_subfields(
    transactions: mt940.models.Transactions, tag: mt940.tags.Tag, tag_dict: dict[str, Any]
) -> dict[str, Any]:
    """Rewrite ``>20`` subfield marks as ``?20`` so the package's :86: processor reads them."""
    details = tag_dict["transaction_details"]
    if _ANGLE_SUBFIELDS.match(details):
        tag_dict["transaction_details"] = _ANGLE_MARK.sub("?", details)
    return tag_dict


_TAGS: dict[int | str, mt940.tags.Tag] = {61: _Statement()}
_PROCESSORS = {"pre_transaction_details": [_angle_subfields]}


@dataclass(frozen=True)
class _Block:
    """One statement: its text and the physical line number of each of its lines."""

    lines: list[str]
    numbers: list[int]

    def tag_lines(self, tag: str) -> list[int]:
        return [n for line, n in zip(self.lines, self.numbers, strict=True) if _is_tag(line, tag)]


def sniff(head: bytes) -> bool:
    """A statement's reference (:20:), account (:25:) and opening balance (:60F:/:60M:)."""
    text = head.decode("latin-1")
    return all(
        re.search(pattern, text, re.MULTILINE)
        for pattern in (r"^:20:", r"^:25[A-Z]?:", r"^:60[FM]?:")
    )


def read(path: Path) -> ParsedFile:
    """Every statement in the file; rows are located by the line of their :61: tag."""
    blocks = _blocks(path)
    parsed = ParsedFile(format=FORMAT)
    accounts: list[str | None] = []
    currencies: list[str | None] = []
    balances: list[BalanceFact] = []
    entries = 0
    for block in blocks:
        try:
            transactions = mt940.parse(
                "\n".join(block.lines), options=_OPTIONS, tags=_TAGS, processors=_PROCESSORS
            )
        except (RuntimeError, ArithmeticError, ValueError, LookupError) as exc:
            reason = f"cannot read the statement ({collapse(str(exc))})"
            parsed.problems.append(IngestProblem(path.name, f"line {block.numbers[0]}", reason))
            entries += len(block.tag_lines("61"))
            continue
        account = collapse(transactions.data.get("account_identification")) or None
        currency = (transactions.currency or "").upper() or None
        accounts.append(account)
        currencies.append(currency)
        balances.extend(_balances(transactions, block, account, path.name, parsed.problems))
        lines = block.tag_lines("61")
        # Line numbers only when every :61: became one transaction, else entry numbers.
        locations = (
            [f"line {n}" for n in lines]
            if len(lines) == len(transactions)
            else [f"entry {entries + i}" for i in range(1, len(transactions) + 1)]
        )
        for transaction, location in zip(transactions, locations, strict=True):
            try:
                parsed.rows.append(_row(transaction.data, account, currency, location))
            except (ArithmeticError, ValueError) as exc:
                parsed.problems.append(IngestProblem(path.name, location, str(exc)))
        entries += len(transactions)
    if not accounts:
        raise UnreadableFile(f"no statement could be read: {parsed.problems[0].reason}")
    parsed.rows = drop_shared_ids(parsed.rows)
    parsed.account_no = shared_value(accounts)
    parsed.currency = shared_value(currencies)
    parsed.balances = balances
    return parsed


def _blocks(path: Path) -> list[_Block]:
    """The file split at each :20: (one statement each), envelope lines blanked."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"cannot open ({exc.strerror})") from exc
    blocks: list[_Block] = []
    for number, line in enumerate(_decode(raw).splitlines(), start=1):
        line = _ENVELOPE_LINE.sub("", _ENVELOPE_OPEN.sub("", line.lstrip("\ufeff")))
        if _is_tag(line, "20"):
            blocks.append(_Block([], []))
        if blocks:
            blocks[-1].lines.append(line)
            blocks[-1].numbers.append(number)
    if not blocks:
        raise UnreadableFile("no MT940 statement: no line starts with the :20: tag")
    return blocks


def _decode(raw: bytes) -> str:
    """UTF-8 when valid, else Windows-1252 (the usual charset of European bank exports).

    The package's own fallback, code page 852, turns German umlauts into box-drawing
    characters.
    """
    for encoding in ("utf-8", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")


def _row(
    data: dict[str, Any], account: str | None, currency: str | None, location: str
) -> ParsedRow:
    if "unreadable" in data:
        raise ValueError(data["unreadable"])
    # :86: text first; then the :61: supplementary details, then its transaction type code.
    texts = ("purpose", "transaction_details", "posting_text", "extra_details", "id")
    booked = data.get("entry_date") or data["date"]
    return ParsedRow(
        location=location,
        date=date(booked.year, booked.month, booked.day),
        amount=exact_cents(data["amount"].amount),
        description=next(filter(None, (collapse(data.get(key)) for key in texts)), ""),
        currency=currency,
        merchant=collapse(data.get("applicant_name")) or None,
        account_no=account,
        transaction_id=_reference(data),
    )


def _reference(data: dict[str, Any]) -> str | None:
    """The bank's reference, else the customer's."""
    for key in ("bank_reference", "customer_reference"):
        value = collapse(data.get(key))
        if value and value.upper() not in _NOT_REFERENCES:
            return value
    return None


def _balances(
    transactions: mt940.models.Transactions,
    block: _Block,
    account: str | None,
    source: str,
    problems: list[IngestProblem],
) -> list[BalanceFact]:
    facts: list[BalanceFact] = []
    for tag, (key, name) in _BALANCES.items():
        balance = transactions.data.get(key)
        lines = block.tag_lines(tag)
        if balance is None or not lines:
            continue
        location = f"line {lines[0]}"
        if not isinstance(balance.amount, mt940.models.Amount) or balance.date is None:
            problems.append(IngestProblem(source, location, "the balance has no amount"))
            continue
        try:
            amount = exact_cents(balance.amount.amount)
        except ValueError as exc:
            problems.append(IngestProblem(source, location, f"cannot read the balance ({exc})"))
            continue
        as_of = date(balance.date.year, balance.date.month, balance.date.day)
        currency = (balance.amount.currency or "").upper() or None
        facts.append(BalanceFact(name, amount, currency, as_of, location, account))
    return facts


def _is_tag(line: str, tag: str) -> bool:
    match = _TAG_LINE.match(line)
    return match is not None and match.group(1) == tag
