"""Pure presentation helpers: money, periods, accounts and transaction tables (no Streamlit)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

import pandas as pd

from elastic.masking import mask_account
from elastic.records import Transaction
from elastic.results import AccountInfo
from llm.formatting import day_label

TRANSACTION_COLUMNS = [
    "Date",
    "Description",
    "Merchant",
    "Category",
    "Account",
    "Amount",
    "Currency",
    "Source",
]


def provenance_label(row: Transaction) -> str:
    """Where a row came from and what FinSync inferred about it: ``chase.csv, line 12 ·
    category inferred``."""
    where = ", ".join(x for x in (row.source_file, row.location) if x)
    inferred = [
        name
        for name, flag in (("merchant", row.merchant_inferred), ("category", row.category_inferred))
        if flag
    ]
    return " · ".join(
        x for x in (where, f"{' and '.join(inferred)} inferred" if inferred else "") if x
    )


def period_label(date_from: date | None, date_to: date | None) -> str:
    """``Jan 1, 2024 – Mar 31, 2024``; open ends read "since" / "until"; neither: all dates."""
    if date_from and date_to:
        return f"{day_label(date_from)} – {day_label(date_to)}"
    if date_from:
        return f"since {day_label(date_from)}"
    if date_to:
        return f"until {day_label(date_to)}"
    return "all dates"


def account_label(name: str, account_no: str) -> str:
    """An account as the UI shows it: the number is always masked."""
    return f"{name} {mask_account(account_no)}".strip()


def account_option_label(account: AccountInfo) -> str:
    return f"{account.account_name} · {account.bank_name} ***{account.last4}"


def transactions_frame(rows: Sequence[Transaction]) -> pd.DataFrame:
    """Transactions as a table with typed columns: sortable dates and signed amounts."""
    return pd.DataFrame(
        {
            "Date": [row.date for row in rows],
            "Description": [row.description for row in rows],
            "Merchant": [row.merchant for row in rows],
            "Category": [row.category for row in rows],
            "Account": [account_label(row.account_name, row.account_no) for row in rows],
            "Amount": [float(row.amount) for row in rows],
            "Currency": [row.currency for row in rows],
            "Source": [provenance_label(row) for row in rows],
        },
        columns=TRANSACTION_COLUMNS,
    )


def frame_currency(rows: Sequence[Transaction], default: str = "USD") -> str:
    """The one currency of ``rows`` (the default when empty or mixed: the table says so)."""
    currencies = {row.currency for row in rows}
    return currencies.pop() if len(currencies) == 1 else default


def csv_bytes(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode("utf-8")


_UNSAFE_FILE_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_file_name(name: str, fallback: str = "upload") -> str:
    """An uploaded file's name reduced to a plain file name (no directories, no odd characters)."""
    base = _UNSAFE_FILE_CHARS.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip("._")
    return base or fallback
