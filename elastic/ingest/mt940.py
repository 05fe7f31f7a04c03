"""SWIFT MT940 statements and MT942 interim reports, read with the ``mt-940`` package.

The package reads tags, amounts, dates and German ``?``-structured ``:86:`` details. This module
decides the text encoding (``encodings``: old code pages included), removes the SWIFT message
envelope and control bytes, splits the file into statements and keeps physical line numbers so
each row and balance says where it is. A ``:61:`` line that does not read (no transaction type
code, an amount over SWIFT's 15 characters) is a problem for its own line and takes its ``:86:``
with it; it never merges into the next entry. An ``:86:`` after a statement's closing balance is
the bank's note on the statement, not an entry's details.

MT942 interim reports (``:34F:`` floor limit, ``:13D:`` time, no opening balance) list entries
booked during the day: they land like statement entries, and the statement that books them
later adds nothing again (ids are the entry's content).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import mt940

from elastic.ingest import encodings, payment_kinds
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
INTERIM_FORMAT = "mt942"

# The library's fixes, all on: RC signed as money out, ?31 (IBAN) kept out of the name,
# the :61: customer reference kept when :86: has none, details of any length, BOM dropped.
_OPTIONS = mt940.Options.all()
_TAG_LINE = re.compile(r"^:(\d{2}[A-Z]?|NS):")
# A :61: line SWIFT allows: value date, entry date, mark (C, D, RC, RD), a funds code, an amount
# of at most 15 characters with its comma, and a transaction type (N/F/S and three characters).
_ENTRY_LINE = re.compile(
    r"^(\d{6})(\d{4})?(R?[CD])([A-Z])?([\d,]{1,15})(?<=[\d,])([NFS][A-Z0-9]{3})"
)
_ENTRY_AMOUNT = re.compile(r"^\d{6}(?:\d{4})?R?[CD][A-Z]?([\d,]+)")
# Dialects: blanks where the entry date goes (":61:240312    DD212,39"), a space before the
# type code ("D12,35 NRTI"). Read as the standard line they stand for.
_BLANK_ENTRY_DATE = re.compile(r"^(\d{6}) {4}(?=R?[CD])")
_SPACED_TYPE = re.compile(r"^(\d{6}(?:\d{4})?R?[CD][A-Z]?[\d,]{1,15}) +(?=[NFS][A-Z0-9]{3})")
# An interim report's time (:13D:2408210442+0200); some banks write a letter before it.
_REPORT_TIME = re.compile(r"^\d{10}(?:[+-]\d{4})?\s*$")
_ZERO = re.compile(r"^\d{6}(?:\d{4})?R?[CD][A-Z]?0+(?:,0*)?[NFS]")
_CLOSING_TAGS = ("62F", "62M", "62", "64", "65")
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

    @property
    def interim(self) -> bool:
        """An MT942 interim report: a floor limit or a time indication, no opening balance."""
        tags = {m.group(1) for m in map(_TAG_LINE.match, self.lines) if m}
        return bool(tags & {"34F", "13D", "13"}) and not tags & {"60F", "60M", "60"}

    def checked(self, source: str, problems: list[IngestProblem], notes: list[int]) -> _Block:
        """The block without the :61: entries that cannot be read (each a problem at its
        line, its :86: dropped with it), without entries of 0.00 (balance notes some banks
        print as entries; their lines go to ``notes``) and without statement notes after the
        closing balance, so none is taken into the details of another entry."""
        lines: list[str] = []
        numbers: list[int] = []
        dropping = False
        after_closing = False
        for line, number in zip(self.lines, self.numbers, strict=True):
            tag = _TAG_LINE.match(line)
            if tag:
                code = tag.group(1)
                if code == "61":
                    after_closing = False
                    value = _SPACED_TYPE.sub(r"\1", _BLANK_ENTRY_DATE.sub(r"\1", line[4:]))
                    line = ":61:" + value
                    reason = _unreadable_entry(value)
                    if reason:
                        problems.append(IngestProblem(source, f"line {number}", reason))
                    elif _ZERO.match(value):
                        notes.append(number)  # a 0.00 entry: the bank's note, not a payment
                    dropping = reason is not None or _ZERO.match(value) is not None
                elif code == "86":
                    dropping = dropping or after_closing  # its entry's, or the bank's note
                elif code in ("13", "13D") and not _REPORT_TIME.match(line[len(code) + 2 :]):
                    dropping = True  # a report time written another way: only a time
                else:
                    dropping = False
                    after_closing = code in _CLOSING_TAGS
            if not dropping:
                lines.append(line)
                numbers.append(number)
        return _Block(lines, numbers)


def sniff(head: bytes) -> bool:
    """A statement's reference (:20:), account (:25:) and opening balance (:60F:/:60M:), or
    an interim report's floor limit (:34F:)."""
    text = encodings.without_controls(encodings.text_head(head).decode("latin-1"))
    return all(
        re.search(pattern, text, re.MULTILINE)
        for pattern in (r"^:20:", r"^:25[A-Z]?:", r"^:(?:60[FM]?|34F):")
    )


def _unreadable_entry(value: str) -> str | None:
    """Why a :61: value cannot be read, or None."""
    if _ENTRY_LINE.match(value):
        return None
    amount = _ENTRY_AMOUNT.match(value)
    if amount and len(amount.group(1)) > 15:
        return f"cannot read :61:{value.strip()} (the amount is longer than 15 characters)"
    if amount:
        return f"cannot read :61:{value.strip()} (no transaction type code after the amount)"
    return f"cannot read :61:{value.strip()}"


def read(path: Path) -> ParsedFile:
    """Every statement in the file; rows are located by the line of their :61: tag."""
    parsed = ParsedFile(format=FORMAT)
    zero: list[int] = []
    blocks = [block.checked(path.name, parsed.problems, zero) for block in _blocks(path, parsed)]
    if zero:
        where = ", ".join(f"line {n}" for n in zero)
        parsed.notes.append(f"entries of 0.00 read as the bank's notes, not payments ({where})")
    if blocks and all(block.interim for block in blocks):
        parsed.format = INTERIM_FORMAT
        parsed.notes.append(
            "interim report (MT942): its entries land now; the statement that books them "
            "later adds nothing again"
        )
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
        # Line numbers only when every :61: read became one transaction, else entry numbers.
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


def _blocks(path: Path, parsed: ParsedFile) -> list[_Block]:
    """The file split at each :20: (one statement each), envelope lines blanked."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"cannot open ({exc.strerror})") from exc
    text, encoding = encodings.decode(raw, _reads_as_swift)
    if encoding not in ("utf-8", "utf-8-sig") and not raw.isascii():
        parsed.notes.append(f"text read as {encodings.name(encoding)}")
    blocks: list[_Block] = []
    for number, line in enumerate(encodings.without_controls(text).splitlines(), start=1):
        line = _ENVELOPE_LINE.sub("", _ENVELOPE_OPEN.sub("", line.lstrip("\ufeff")))
        if _is_tag(line, "20"):
            blocks.append(_Block([], []))
        if blocks:
            blocks[-1].lines.append(line)
            blocks[-1].numbers.append(number)
    if not blocks:
        raise UnreadableFile("no MT940 statement: no line starts with the :20: tag")
    return blocks


def _reads_as_swift(text: str) -> bool:
    """A decoding that leaves the text free of box-drawing and other symbols no bank prints
    (the package's own fallback, code page 852, turns German umlauts into them)."""
    return not any("\u2500" <= c <= "\u25ff" or c == "\ufffd" for c in text)


def _row(
    data: dict[str, Any], account: str | None, currency: str | None, location: str
) -> ParsedRow:
    if "unreadable" in data:
        raise ValueError(data["unreadable"])
    # :86: posting text and purpose first; then the :61: supplementary details, then its
    # transaction type code.
    posting, purpose = collapse(data.get("posting_text")), collapse(data.get("purpose"))
    texts = [" ".join(dict.fromkeys(p for p in (posting, purpose) if p))]
    texts += [collapse(data.get(key)) for key in ("transaction_details", "extra_details", "id")]
    description = next(filter(None, texts), "")
    booked = data.get("entry_date") or data["date"]
    kind = (
        payment_kinds.from_gvc(data.get("transaction_code"))
        or payment_kinds.from_text(posting)
        or payment_kinds.from_swift(data.get("id"))
        or payment_kinds.from_text(description)
    )
    return ParsedRow(
        location=location,
        date=date(booked.year, booked.month, booked.day),
        amount=exact_cents(data["amount"].amount),
        description=description,
        currency=currency,
        merchant=collapse(data.get("applicant_name")) or None,
        account_no=account,
        transaction_id=_reference(data),
        payment_kind=kind,
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
