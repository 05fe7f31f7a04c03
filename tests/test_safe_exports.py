"""CSV downloads open safely in a spreadsheet, and tables and downloads mask account numbers."""

from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

import pandas as pd

from elastic.model.records import Transaction
from ui.frames import csv_bytes, transactions_frame

ACCOUNT_NO = "4402718831"
HOSTILE = [
    '=HYPERLINK("http://x","y")',
    "+cmd|' /C calc'!A0",
    "@SUM(1,1)",
    "-2+3",
    "\tSALARY",
    "\rREFUND",
]


def transaction(description: str, amount: str, **fields: str) -> Transaction:
    return Transaction(
        transaction_id=f"t-{description}",
        date=date(2024, 3, 15),
        description=description,
        amount=Decimal(amount),
        currency="USD",
        category=fields.get("category", "Shopping"),
        merchant=fields.get("merchant", "Store"),
        account_no=ACCOUNT_NO,
        account_name=fields.get("account_name", "Everyday Checking"),
        bank_name="First Bank",
    )


def read_back(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), keep_default_na=False)


def test_formula_cells_are_written_as_text_in_every_column() -> None:
    rows = [
        transaction(cell, "-12.50", merchant=cell, category=cell, account_name=cell)
        for cell in HOSTILE
    ]
    exported = read_back(csv_bytes(transactions_frame(rows)))

    assert list(exported["Description"]) == [f"'{cell}" for cell in HOSTILE]
    assert list(exported["Merchant"]) == [f"'{cell}" for cell in HOSTILE]
    assert list(exported["Category"]) == [f"'{cell}" for cell in HOSTILE]
    formula_starts = ("=", "+", "-", "@", "\t", "\r")
    text_cells = exported.drop(columns="Amount").astype(str).to_numpy().ravel()
    assert not [cell for cell in text_cells if cell.startswith(formula_starts)]
    assert exported["Account"][0] == '\'=HYPERLINK("http://x","y") ***8831'


def test_amounts_stay_numbers() -> None:
    rows = [transaction("=1+1", "-12.50"), transaction("PAYROLL", "2500.00")]
    data = csv_bytes(transactions_frame(rows))
    exported = read_back(data)

    assert exported["Amount"].dtype == float
    assert list(exported["Amount"]) == [-12.5, 2500.0]
    assert b",-12.5," in data and b"'-12.5" not in data


def test_plain_numbers_in_text_columns_are_not_quoted() -> None:
    frame = pd.DataFrame({"Group": ["-12.50", "+3", "-2+3"], "Total": [-1.5, 2.0, 3.0]})
    exported = read_back(csv_bytes(frame))

    assert list(exported["Group"]) == ["-12.50", "+3", "'-2+3"]
    assert list(exported["Total"]) == [-1.5, 2.0, 3.0]


def test_breakdown_groups_are_neutralised_too() -> None:
    frame = pd.DataFrame({"Merchant": ["@SUM(1,1)", "Grocer"], "Spend": [10.0, 20.0]})
    assert csv_bytes(frame).decode() == ('Merchant,Spend\r\n"\'@SUM(1,1)",10.0\r\nGrocer,20.0\r\n')


def test_account_numbers_in_descriptions_are_masked_in_the_table_and_the_csv() -> None:
    rows = [
        transaction(f"TRANSFER TO ACCT {ACCOUNT_NO}", "-100.00"),
        transaction("ONLINE PAYMENT 4402 7188 31", "-5.00"),  # the account's own number
        transaction("KTO 9876543210 SAVINGS", "-7.00"),
    ]
    frame = transactions_frame(rows)
    masked = ["TRANSFER TO ACCT ***8831", "ONLINE PAYMENT ***8831", "KTO ***3210 SAVINGS"]

    assert list(frame["Description"]) == masked
    assert list(read_back(csv_bytes(frame))["Description"]) == masked
    assert ACCOUNT_NO.encode() not in csv_bytes(frame)


def test_a_date_in_a_description_is_not_masked() -> None:
    rows = [transaction("STARBUCKS 20240315", "-4.50"), transaction("REF 20240315", "-1.00")]
    frame = transactions_frame(rows)

    assert list(frame["Description"]) == ["STARBUCKS 20240315", "REF 20240315"]
    assert b"STARBUCKS 20240315" in csv_bytes(frame)


def test_a_card_number_is_masked() -> None:
    rows = [transaction("POS PURCHASE 5412 7500 9361 4321 GROCER", "-30.00")]
    frame = transactions_frame(rows)

    assert list(frame["Description"]) == ["POS PURCHASE ***4321 GROCER"]
    assert b"5412" not in csv_bytes(frame)
