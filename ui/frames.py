"""Transactions as data frames and CSV downloads (no Streamlit); wording comes from
``llm/answering/wording.py``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal

import pandas as pd
from pandas.api.types import is_numeric_dtype

from elastic.masking import mask_account_numbers
from elastic.model.records import OFF, RECONCILED, Reconciliation, Transaction
from llm.answering.wording import account_label, money, wording

TRANSACTION_COLUMNS = (
    "date",
    "merchant",
    "amount",
    "description",
    "category",
    "account",
    "currency",
    "source",
)
"""Every transaction column in the order shown (in tables and CSV downloads): what a question
about transactions asks for comes first."""


def reconciliation_mark(check: Reconciliation | None) -> str:
    """Whether a statement's rows reconcile with its balances: "✓ Reconciled", "✗ Off by
    $12.00", "– Unchecked" (it prints no balances), or "No rows" read from it."""
    if check is None:
        return "No rows"
    if check.status == RECONCILED:
        return "✓ Reconciled"
    if check.status == OFF:
        return f"✗ Off by {money(check.gap or Decimal(0), check.currency or 'USD')}"
    return "– Unchecked"


def transaction_labels(language: str = "en") -> dict[str, str]:
    """Each column's header in ``language`` (the templates' ``column.<key>``)."""
    words = wording(language)
    return {key: words.text(f"column.{key}") for key in TRANSACTION_COLUMNS}


def provenance_label(row: Transaction, names: Mapping[str, str] | None = None) -> str:
    """Where a row came from and what FinSync inferred about it: ``chase.csv, line 12 ·
    category inferred``. ``names`` shows a file by its name (``llm.sources.source_labels``):
    a statement PDF's stored name is a path nobody knows."""
    shown = (names or {}).get(row.source_file, row.source_file)
    where = ", ".join(x for x in (shown, row.location) if x)
    inferred = [
        name
        for name, flag in (("merchant", row.merchant_inferred), ("category", row.category_inferred))
        if flag
    ]
    return " · ".join(
        x for x in (where, f"{' and '.join(inferred)} inferred" if inferred else "") if x
    )


def transactions_frame(
    rows: Sequence[Transaction], language: str = "en", names: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Transactions as a table with typed columns, headed in ``language``: dates and signed
    amounts; account numbers in descriptions and merchants keep only their last four digits;
    stored files shown by ``names``."""
    columns = {
        "date": [row.date for row in rows],
        "merchant": [mask_account_numbers(row.merchant, [row.account_no]) for row in rows],
        "amount": [float(row.amount) for row in rows],
        "description": [mask_account_numbers(row.description, [row.account_no]) for row in rows],
        "category": [row.category for row in rows],
        "account": [account_label(row.account_name, row.account_no) for row in rows],
        "currency": [row.currency for row in rows],
        "source": [provenance_label(row, names) for row in rows],
    }
    labels = transaction_labels(language)
    return pd.DataFrame(
        {label: columns[key] for key, label in labels.items()}, columns=list(labels.values())
    )


def frame_currency(rows: Sequence[Transaction], default: str = "USD") -> str:
    """The one currency of ``rows`` (the default when empty or mixed: the table says so)."""
    currencies = {row.currency for row in rows}
    return currencies.pop() if len(currencies) == 1 else default


# A spreadsheet reads a cell starting with one of these as a formula (CSV injection).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


def spreadsheet_text(value: object) -> object:
    """``value`` as a spreadsheet shows it literally: text that would start a formula gets a
    leading single quote; plain numbers ("-12.50") and non-text values are kept."""
    if (
        isinstance(value, str)
        and value.startswith(_FORMULA_STARTS)
        and not _PLAIN_NUMBER.fullmatch(value)
    ):
        return f"'{value}"
    return value


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as UTF-8 CSV for a download: every text cell is safe to open in a spreadsheet,
    numeric columns stay numbers. Lines end in CRLF (RFC 4180), so a cell holding a line break
    is quoted and stays one cell."""
    safe = frame.apply(
        lambda column: column if is_numeric_dtype(column) else column.map(spreadsheet_text)
    )
    return safe.to_csv(index=False, lineterminator="\r\n").encode("utf-8")
