"""Tests for the deterministic sample data generator (scripts/sample_data.py)."""

from __future__ import annotations

import calendar
import csv
import re
from collections import defaultdict
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from scripts import sample_data
from scripts.sample_data import CSV_COLUMNS, SampleSet, generate_sample
from tests.conftest import SAMPLE_END

Row = dict[str, str]
ACCOUNT_NOS = {"4402718831", "4402719045", "5412750093614321"}
MONTHS = [f"{year}-{month:02d}" for year in (2024, 2025) for month in range(1, 13)][:18]
TABLE_ROW = re.compile(r"^(\d{4}-\d{2}-\d{2}) (.+) (-?[\d,]+\.\d{2}) (-?[\d,]+\.\d{2})$")
OVERDRAFT_TERMS = {
    "Everyday Checking": "Overdraft fee: $35.00 per item that overdraws the account, with a "
    "maximum of 3 overdraft fees per day.",
    "High-Yield Savings": "Overdraft fee: not applicable; this account cannot be overdrawn, and "
    "withdrawals that exceed the available balance are declined.",
    "Platinum Card": "Overdraft fee: not applicable; transactions that would exceed the credit "
    "limit of $15,000.00 are declined.",
}


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> SampleSet:
    return generate_sample(tmp_path_factory.mktemp("seed7"), seed=7, end=SAMPLE_END)


@pytest.fixture(scope="module")
def rows(sample: SampleSet) -> list[Row]:
    with sample.transactions_csv.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def by_account_month(rows: list[Row]) -> dict[tuple[str, str], list[Row]]:
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        groups[row["account_no"], row["date"][:7]].append(row)
    return groups


@pytest.fixture(scope="module")
def pdf_text(sample: SampleSet) -> dict[str, list[str]]:
    """Extracted text of every statement page, keyed by file name."""
    return {path.name: _page_texts(path) for path in sample.statement_pdfs}


def _page_texts(path: Path) -> list[str]:
    doc = pdfium.PdfDocument(path)
    try:
        return [page.get_textpage().get_text_range(force_this=True) for page in doc]
    finally:
        doc.close()


def _money(text: str) -> Decimal:
    return Decimal(text.replace("$", "").replace(",", ""))


def _summary_value(page: str, label: str) -> Decimal:
    """A ``<label>: $1,234.56`` line of the Account Summary."""
    for line in page.splitlines():
        if match := re.fullmatch(rf"{label}: (-?\$[\d,]+\.\d{{2}})", line):
            return _money(match[1])
    raise AssertionError(f"no {label!r} line")


def _normalised(text: str) -> str:
    return " ".join(text.split())


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower())


def _pdf_name(row: Row, month: str) -> str:
    return f"{_slug(row['bank_name'])}_{_slug(row['account_name'])}_{month}.pdf"


def test_same_seed_is_byte_identical(sample: SampleSet, tmp_path: Path) -> None:
    again = generate_sample(tmp_path, seed=7, end=SAMPLE_END)
    assert again.transactions_csv.read_bytes() == sample.transactions_csv.read_bytes()
    assert [p.name for p in again.statement_pdfs] == [p.name for p in sample.statement_pdfs]
    for first, second in zip(sample.statement_pdfs, again.statement_pdfs, strict=True):
        assert first.read_bytes() == second.read_bytes(), first.name


def test_different_seed_changes_csv(sample: SampleSet, tmp_path: Path) -> None:
    other = generate_sample(tmp_path, seed=8, end=SAMPLE_END)
    assert other.transactions_csv.read_bytes() != sample.transactions_csv.read_bytes()


def test_csv_format(sample: SampleSet, rows: list[Row]) -> None:
    header = sample.transactions_csv.read_text(encoding="utf-8").splitlines()[0]
    assert header == ",".join(CSV_COLUMNS)
    money = re.compile(r"^-?\d+\.\d{2}$")
    for row in rows:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["date"])
        assert money.match(row["amount"])
        assert money.match(row["balance"])
        assert row["currency"] == "USD"
        assert row["transaction_id"].startswith(row["account_no"][-4:] + "-")
        assert row["description"].isascii()
        assert row["merchant"].isascii()
    keys = [(r["date"], r["account_no"], r["transaction_id"]) for r in rows]
    assert keys == sorted(keys)
    assert len({r["transaction_id"] for r in rows}) == len(rows)


def test_running_balances(rows: list[Row]) -> None:
    previous: dict[str, Decimal] = {}
    for row in rows:
        balance = Decimal(row["balance"])
        if row["account_no"] in previous:
            assert previous[row["account_no"]] + Decimal(row["amount"]) == balance, row
        previous[row["account_no"]] = balance


def test_accounts_and_period(rows: list[Row]) -> None:
    assert len({r["bank_name"] for r in rows}) >= 2
    assert {r["account_no"] for r in rows} == ACCOUNT_NOS
    assert sorted({r["date"][:7] for r in rows}) == MONTHS
    assert len({r["category"] for r in rows}) >= 10
    per_month = defaultdict(int)
    for row in rows:
        per_month[row["date"][:7]] += 1
    assert all(40 <= count <= 120 for count in per_month.values()), per_month


def test_realistic_activity(rows: list[Row]) -> None:
    def matching(description: str) -> list[Row]:
        return [r for r in rows if description in r["description"]]

    salary_months = {r["date"][:7] for r in matching("ACME ROBOTICS PAYROLL")}
    assert salary_months == set(MONTHS)
    assert len({r["date"] for r in matching("OVERDRAFT FEE")}) >= 2
    for fee in ("NON-NETWORK ATM FEE", "FOREIGN TRANSACTION FEE", "MONTHLY SERVICE FEE"):
        assert matching(fee), fee
        assert {r["category"] for r in matching(fee)} == {"Fees"}
    interest = {r["account_name"] for r in rows if r["category"] == "Interest"}
    assert interest == {"High-Yield Savings", "Platinum Card"}
    transfers = {r["account_name"] for r in rows if r["category"] == "Transfers"}
    assert len(transfers) == 3
    checking = [r for r in rows if r["account_name"] == "Everyday Checking"]
    assert min(Decimal(r["balance"]) for r in checking) < 0
    refunds = [r for r in matching("REFUND") if Decimal(r["amount"]) > 0]
    assert len(refunds) >= 2
    assert {r["category"] for r in refunds} == {"Shopping"}


def test_foreign_fees_follow_foreign_purchases(rows: list[Row]) -> None:
    for i, row in enumerate(rows):
        if row["description"] == "FOREIGN TRANSACTION FEE":
            purchase = rows[i - 1]
            assert purchase["date"] == row["date"]
            expected = (-Decimal(purchase["amount"]) * Decimal("0.03")).quantize(Decimal("0.01"))
            assert -Decimal(row["amount"]) == expected


def test_every_account_month_has_a_statement(
    sample: SampleSet, by_account_month: dict[tuple[str, str], list[Row]]
) -> None:
    expected = {_pdf_name(rows[0], month) for (_, month), rows in by_account_month.items()}
    assert len(expected) == 3 * 18
    assert {p.name for p in sample.statement_pdfs} == expected
    assert sample.statement_pdfs == sorted(sample.statement_pdfs)


def test_every_page_starts_with_the_header_block(
    by_account_month: dict[tuple[str, str], list[Row]], pdf_text: dict[str, list[str]]
) -> None:
    for (_, month), month_rows in by_account_month.items():
        row = month_rows[0]
        pages = pdf_text[_pdf_name(row, month)]
        last = calendar.monthrange(*map(int, month.split("-")))[1]
        for n, text in enumerate(pages, start=1):
            assert text.splitlines()[:6] == [
                row["bank_name"],
                "Account Statement",
                f"Account name: {row['account_name']}",
                f"Account number: {row['account_no']}",
                f"Statement period: {month}-01 to {month}-{last:02d}",
                f"Page {n} of {len(pages)}",
            ]


def test_statement_transactions_match_csv(
    by_account_month: dict[tuple[str, str], list[Row]], pdf_text: dict[str, list[str]]
) -> None:
    previous_closing: dict[str, Decimal] = {}
    for (account_no, month), month_rows in sorted(by_account_month.items()):
        pages = pdf_text[_pdf_name(month_rows[0], month)]
        listed = [
            match
            for page in pages[1:-1]
            for line in page.splitlines()
            if (match := TABLE_ROW.match(line))
        ]
        assert len(listed) == len(month_rows)
        assert sum(_money(m[3]) for m in listed) == sum(Decimal(r["amount"]) for r in month_rows)
        assert _money(listed[-1][4]) == Decimal(month_rows[-1]["balance"])
        closing = _summary_value(pages[0], "Closing balance")
        assert closing == Decimal(month_rows[-1]["balance"])
        opening = _summary_value(pages[0], "Opening balance")
        money_in = _summary_value(pages[0], "Total money in")
        money_out = _summary_value(pages[0], "Total money out")
        assert opening + money_in - money_out == closing
        if account_no in previous_closing:
            assert opening == previous_closing[account_no]
        previous_closing[account_no] = closing


def test_terms_page_states_the_account_facts(
    by_account_month: dict[tuple[str, str], list[Row]], pdf_text: dict[str, list[str]]
) -> None:
    for (_, month), month_rows in by_account_month.items():
        account_name = month_rows[0]["account_name"]
        terms = pdf_text[_pdf_name(month_rows[0], month)][-1]
        assert terms.splitlines()[6] == "Terms and Fees"
        assert OVERDRAFT_TERMS[account_name] in _normalised(terms)
    checking_terms = _normalised(pdf_text["cedar-valley-bank_everyday-checking_2024-03.pdf"][-1])
    assert "waived for any month in which the daily balance stays at or above $1,500.00" in (
        checking_terms
    )
    savings_terms = _normalised(pdf_text["cedar-valley-bank_high-yield-savings_2024-03.pdf"][-1])
    assert "the annual percentage yield (APY) is 4.10%." in savings_terms


def test_empty_month_gets_a_transactions_page(tmp_path: Path) -> None:
    statement = sample_data._Statement(
        account=sample_data.SAVINGS,
        start=date(2024, 2, 1),
        end=date(2024, 2, 29),
        opening=Decimal("100.00"),
        rows=[],
        lowest_checking=Decimal("0.00"),
    )
    printed = datetime(2024, 3, 1, 9, tzinfo=UTC)
    pages = _page_texts(sample_data._write_statement(tmp_path, statement, printed))
    assert len(pages) == 3
    assert pages[1].splitlines()[5:8] == [
        "Page 2 of 3",
        "Transactions",
        "No transactions this period.",
    ]
    assert _summary_value(pages[0], "Closing balance") == Decimal("100.00")


@pytest.mark.parametrize("end", [date(2026, 2, 1), date(2028, 2, 1)])
def test_the_sample_ends_with_the_month_it_is_given(tmp_path: Path, end: date) -> None:
    """Any end month gives the same story: 18 months, a statement per account and month, pay
    every month, a trip abroad, an overdraft; and the same end gives the same bytes."""
    sample = generate_sample(tmp_path / "one", seed=7, end=end)
    with sample.transactions_csv.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    months = [f"{m:%Y-%m}" for m in sample_data.sample_months(end)]
    assert months[-1] == f"{end:%Y-%m}" and len(months) == 18
    assert sorted({r["date"][:7] for r in rows}) == months
    last = calendar.monthrange(end.year, end.month)[1]
    assert max(r["date"] for r in rows) == f"{end:%Y-%m}-{last:02d}"
    payroll = {r["date"][:7] for r in rows if r["description"] == "ACME ROBOTICS PAYROLL"}
    assert payroll == set(months)
    assert any(r["description"] == "FOREIGN TRANSACTION FEE" for r in rows)
    assert any(r["description"] == "OVERDRAFT FEE" for r in rows)
    assert len(sample.statement_pdfs) == 3 * 18
    assert sample.statement_pdfs[-1].name.endswith(f"_{end:%Y-%m}.pdf")
    again = generate_sample(tmp_path / "again", seed=7, end=end)
    assert again.transactions_csv.read_bytes() == sample.transactions_csv.read_bytes()
    for first, second in zip(sample.statement_pdfs, again.statement_pdfs, strict=True):
        assert first.read_bytes() == second.read_bytes(), first.name


def test_by_default_the_sample_ends_with_last_month(tmp_path: Path) -> None:
    today = date.today()
    sample = generate_sample(tmp_path, seed=7)
    with sample.transactions_csv.open(encoding="utf-8", newline="") as fh:
        newest = max(row["date"] for row in csv.DictReader(fh))
    expected = sample_data.last_full_month(today)
    assert newest[:7] == f"{expected:%Y-%m}"
    assert date.fromisoformat(newest) < today.replace(day=1)


def test_last_full_month_crosses_years() -> None:
    assert sample_data.last_full_month(date(2026, 1, 1)) == date(2025, 12, 1)
    assert sample_data.last_full_month(date(2026, 3, 31)) == date(2026, 2, 1)
