"""The transactions CSV contract: good rows parsed, each bad row reported by line, none lost."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from elastic.csv_reader import CsvFormatError, read_transactions_csv

HEADER = "date,description,amount,currency,category,merchant,account_no,account_name,bank_name\n"
ROW = "2025-01-03,COFFEE,{amount},USD,Dining,Blue Bottle,111122223333,Checking,Test Bank\n"


def rows(tmp_path: Path, body: str | bytes):
    path = tmp_path / "t.csv"
    data = body if isinstance(body, bytes) else (HEADER + body).encode()
    path.write_bytes(data)
    return list(read_transactions_csv(path))


@pytest.mark.parametrize(
    ("amount", "parsed"), [("-4.50", "-4.50"), ('"-1,234.50"', "-1234.50"), ("12", "12.00")]
)
def test_amounts(tmp_path: Path, amount: str, parsed: str):
    (row,) = rows(tmp_path, ROW.format(amount=amount))
    assert row.transaction.amount == Decimal(parsed)


@pytest.mark.parametrize("amount", ['"-12,34"', "1.234", "NaN", "4.5.6", ""])
def test_bad_amounts_are_reported_by_line(tmp_path: Path, amount: str):
    (row,) = rows(tmp_path, ROW.format(amount=amount))
    assert row.transaction is None and row.problem.location == "line 2"


def test_identical_rows_stay_distinct_and_stable(tmp_path: Path):
    body = ROW.format(amount="-3.00") + ROW.format(amount="-3.00").replace("COFFEE", " COFFEE ")
    first, second = rows(tmp_path, body)
    assert first.transaction.transaction_id != second.transaction.transaction_id
    again = rows(tmp_path, body)
    assert [r.transaction.transaction_id for r in again] == [
        first.transaction.transaction_id,
        second.transaction.transaction_id,
    ]


def test_bad_bytes_and_extra_values_lose_only_their_row(tmp_path: Path):
    good = ROW.format(amount="-1.00").encode()
    body = (
        HEADER.encode()
        + good
        + b"2025-01-04,CAF\xe9,-2.00,USD,Dining,Cafe,111122223333,Checking,Test Bank\n"
        + ROW.format(amount="-3.00,extra").encode()
        + good.replace(b"2025-01-03", b"2025-01-05")
    )
    parsed = rows(tmp_path, body)
    assert [r.problem.location if r.problem else "ok" for r in parsed] == [
        "ok",
        "line 3",
        "line 4",
        "ok",
    ]


def test_missing_columns_reject_the_file(tmp_path: Path):
    path = tmp_path / "t.csv"
    path.write_text("date,amount\n2025-01-01,1.00\n")
    with pytest.raises(CsvFormatError, match="missing column"):
        list(read_transactions_csv(path))
