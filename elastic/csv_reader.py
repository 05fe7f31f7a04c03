"""Read a transactions CSV (DESIGN.md contract) into transactions and per-line problems."""

from __future__ import annotations

import csv
import hashlib
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path

from elastic.records import IngestProblem, Transaction

REQUIRED_COLUMNS = (
    "date",
    "description",
    "amount",
    "currency",
    "category",
    "merchant",
    "account_no",
    "account_name",
    "bank_name",
)
# A merchant may be blank (a fee, a transfer); the description stands in for it.
OPTIONAL_VALUES = {"merchant"}


class CsvFormatError(ValueError):
    """The file as a whole cannot be read as a transactions CSV."""


@dataclass(frozen=True)
class CsvRow:
    line: int
    transaction: Transaction | None
    problem: IngestProblem | None


_THOUSANDS = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?")


def _parse_amount(raw: str, column: str) -> Decimal:
    raw = raw.strip()
    if "," in raw and not _THOUSANDS.fullmatch(raw):
        raise ValueError(f"{column} {raw!r}: a comma may only separate thousands")
    try:
        value = Decimal(raw.replace(",", ""))
    except InvalidOperation as exc:
        raise ValueError(f"{column} {raw!r} is not a number") from exc
    if not value.is_finite():
        raise ValueError(f"{column} {raw!r} is not a number")
    if value != value.quantize(Decimal("0.01")):
        raise ValueError(f"{column} {raw!r} has more than two decimal places")
    return value.quantize(Decimal("0.01"))


def _parse_date(raw: str) -> date:
    try:
        return date.fromisoformat(raw.strip())
    except ValueError as exc:
        raise ValueError(f"date {raw!r} is not an ISO date (YYYY-MM-DD)") from exc


def _derived_id(values: dict[str, str], occurrence: int) -> str:
    """A stable id from the row's content; identical rows in one file stay distinct."""
    key = "|".join(values.get(c, "").strip() for c in REQUIRED_COLUMNS) + f"|{occurrence}"
    return "tx-" + hashlib.sha1(key.encode()).hexdigest()[:16]


def _row_to_transaction(values: dict[str, str], occurrence: int) -> Transaction:
    missing = [
        c
        for c in REQUIRED_COLUMNS
        if c not in OPTIONAL_VALUES and not (values.get(c) or "").strip()
    ]
    if missing:
        raise ValueError("missing value for " + ", ".join(missing))
    currency = values["currency"].strip().upper()
    if len(currency) != 3 or not currency.isalpha():
        raise ValueError(f"currency {values['currency']!r} is not an ISO 4217 code")
    balance_raw = (values.get("balance") or "").strip()
    tx_id = (values.get("transaction_id") or "").strip() or _derived_id(values, occurrence)
    description = values["description"].strip()
    return Transaction(
        transaction_id=tx_id,
        date=_parse_date(values["date"]),
        description=description,
        amount=_parse_amount(values["amount"], "amount"),
        currency=currency,
        category=values["category"].strip(),
        merchant=(values.get("merchant") or "").strip() or description,
        account_no=values["account_no"].strip(),
        account_name=values["account_name"].strip(),
        bank_name=values["bank_name"].strip(),
        balance=_parse_amount(balance_raw, "balance") if balance_raw else None,
    )


def _row_shape_problem(values: dict[str | None, object]) -> str | None:
    if None in values:
        return "more values than columns"
    if any("\ufffd" in str(v) for v in values.values() if v):
        return "text is not valid UTF-8"
    return None


def read_transactions_csv(path: Path) -> Iterator[CsvRow]:
    """Yield every data row with its physical line number, parsed or with the reason it failed."""
    source = path.name
    try:
        # Undecodable bytes become U+FFFD so one bad row cannot stop the rest of the file.
        handle = path.open(newline="", encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise CsvFormatError(f"{source}: cannot open ({exc.strerror})") from exc
    with handle:
        reader = csv.DictReader(handle)
        try:
            header = reader.fieldnames or []
        except csv.Error as exc:
            raise CsvFormatError(f"{source}: cannot read the header ({exc})") from exc
        absent = [c for c in REQUIRED_COLUMNS if c not in header]
        if absent:
            raise CsvFormatError(f"{source}: missing column(s) {', '.join(absent)}")
        seen: Counter[str] = Counter()
        while True:
            try:
                values = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                line = reader.line_num
                yield CsvRow(line, None, IngestProblem(source, f"line {line}", str(exc)))
                continue
            line = reader.line_num
            reason = _row_shape_problem(values)
            if reason:
                yield CsvRow(line, None, IngestProblem(source, f"line {line}", reason))
                continue
            content_key = "|".join((values.get(c) or "").strip() for c in REQUIRED_COLUMNS)
            seen[content_key] += 1
            try:
                yield CsvRow(line, _row_to_transaction(values, seen[content_key]), None)
            except ValueError as exc:
                yield CsvRow(line, None, IngestProblem(source, f"line {line}", str(exc)))
