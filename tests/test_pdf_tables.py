"""Statement PDFs in several banks' layouts, made here with fpdf2: page words and boxes, OCR of a
scanned page, transaction tables read into signed, dated rows that reconcile (or say why not)."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from fpdf import FPDF
from PIL import Image

from elastic.ingest.parsed import ParsedRow, UnreadableFile
from elastic.ingest.pdf import page_reader
from elastic.ingest.pdf.facts import read_facts
from elastic.ingest.pdf.metadata import read_metadata
from elastic.ingest.pdf.page_reader import read_pages
from elastic.ingest.pdf.page_words import PageText, Word
from elastic.ingest.pdf.reader import PDFIUM_LOCK
from elastic.ingest.pdf.tables import TableResult, read_transactions
from elastic.model.records import OFF, UNCHECKED
from scripts.sample_data import SampleSet
from scripts.sample_statements import generate_statements

FEB_2022 = (date(2022, 2, 1), date(2022, 2, 28))


@dataclass(frozen=True)
class Cell:
    x: float  # left edge, or right edge when ``right``
    text: str
    right: bool = False
    bold: bool = False


Line = Sequence[Cell]


def left(x: float, text: str) -> Cell:
    return Cell(x, text)


def right(x: float, text: str) -> Cell:
    return Cell(x, text, right=True)


def header(*cells: Cell) -> list[Cell]:
    return [Cell(c.x, c.text, c.right, bold=True) for c in cells]


def write_pdf(path: Path, pages: Sequence[Sequence[Line | None]], leading: float = 14) -> Path:
    """One PDF page per list of lines, 9pt Helvetica from the top; ``None`` is a blank line."""
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_auto_page_break(False)
    for lines in pages:
        pdf.add_page()
        y = 60.0
        for line in lines:
            for cell in line or []:
                pdf.set_font("Helvetica", "B" if cell.bold else "", 9)
                width = pdf.get_string_width(cell.text)
                pdf.text(cell.x - width if cell.right else cell.x, y, cell.text)
            y += leading
    pdf.output(str(path))
    return path


def table(path: Path, *, opening: str | None = None, closing: str | None = None) -> TableResult:
    pages = read_pages(path)
    return read_transactions(
        pages,
        FEB_2022,
        "GBP",
        Decimal(opening) if opening else None,
        Decimal(closing) if closing else None,
    )


def summary(
    rows: Sequence[ParsedRow],
) -> list[tuple[date | None, str, str, str | None, int | None]]:
    return [
        (
            r.date,
            str(r.amount),
            r.description,
            None if r.balance is None else str(r.balance),
            r.page,
        )
        for r in rows
    ]


def inside(inner: tuple[float, ...], outer: tuple[float, ...]) -> bool:
    return (
        outer[0] - 0.01 <= inner[0]
        and outer[1] - 0.01 <= inner[1]
        and inner[2] <= outer[2] + 0.01
        and inner[3] <= outer[3] + 0.01
    )


def assert_boxes(
    pages: Sequence[PageText], rows: Sequence[ParsedRow], printed: Sequence[Sequence[str]]
):
    """Every word lies on its page, and each row's box lies on its page and covers the words
    printed for the row (its date and amount)."""
    for page in pages:
        for word in page.words:
            assert inside(word.box, (0, 0, page.width, page.height)), word
    for row, texts in zip(rows, printed, strict=True):
        page = pages[row.page - 1]
        assert row.box is not None and inside(row.box, (0, 0, page.width, page.height))
        covered = [w.text for w in page.words if inside(w.box, row.box)]
        for text in texts:
            assert text in covered, (text, row)


# --- UK current account ------------------------------------------------------------------------

UK_HEADER = header(
    left(40, "Date"),
    left(100, "Payment type and details"),
    right(400, "Paid out"),
    right(470, "Paid in"),
    right(550, "Balance"),
)


def uk_lines(tesco: str = "45.67") -> list[Line | None]:
    return [
        [left(40, "Northgate Bank plc")],
        [left(40, "Your current account statement")],
        [left(40, "Sort code 12-34-56   Account 12345678")],
        [left(40, "1 February to 28 February 2022")],
        None,
        UK_HEADER,
        [left(40, "01 Feb 22"), left(100, "BALANCE BROUGHT FORWARD"), right(550, "1,000.00")],
        [
            left(40, "03 Feb 22"),
            left(100, "DD COUNCIL TAX"),
            right(400, "120.00"),
            right(550, "880.00"),
        ],
        [
            left(40, "12 Feb 22"),
            left(100, "BP SALARY ACME LTD"),
            right(470, "2,500.00"),
            right(550, "3,380.00"),
        ],
        [
            left(40, "14 Feb 22"),
            left(100, "VIS TESCO STORES 2345"),
            right(400, tesco),
            right(550, "3,334.33"),
        ],
        [left(100, "))) COSTA COFFEE"), right(400, "3.20"), right(550, "3,331.13")],
        [left(40, "28 Feb 22"), left(100, "BALANCE CARRIED FORWARD"), right(550, "3,331.13")],
        None,
        None,
        None,
        [left(40, "Northgate Bank plc is authorised by the Prudential Regulation Authority.")],
    ]


UK_ROWS = [
    (date(2022, 2, 3), "-120.00", "DD COUNCIL TAX", "880.00", 1),
    (date(2022, 2, 12), "2500.00", "BP SALARY ACME LTD", "3380.00", 1),
    (date(2022, 2, 14), "-45.67", "VIS TESCO STORES 2345", "3334.33", 1),
    (date(2022, 2, 14), "-3.20", "))) COSTA COFFEE", "3331.13", 1),
]


def test_uk_current_account(tmp_path: Path):
    path = write_pdf(tmp_path / "uk.pdf", [uk_lines()])
    pages = read_pages(path)
    result = read_transactions(pages, FEB_2022, "GBP", None, None)
    assert result.reconciled, result.reason
    assert result.reason is None
    assert summary(result.rows) == UK_ROWS
    assert {r.currency for r in result.rows} == {"GBP"}
    assert [r.location for r in result.rows] == ["page 1"] * 4
    printed = [
        ("03", "Feb", "22", "120.00"),
        ("12", "Feb", "22", "2,500.00"),
        ("14", "Feb", "22", "45.67"),
        ("COSTA", "3.20"),
    ]
    assert_boxes(pages, result.rows, printed)
    costa, tesco = result.rows[3].box, result.rows[2].box
    assert costa and tesco and costa[1] >= tesco[3], "a row's box stays on its own line"


def test_a_long_description_reaching_under_an_empty_money_column(tmp_path: Path):
    lines = uk_lines()
    long = "BP SALARY ACME LTD FEBRUARY 2022 PAYROLL REF 12345 BACS"
    lines[8] = [
        left(40, "12 Feb 22"),
        left(100, long),
        right(470, "2,500.00"),
        right(550, "3,380.00"),
    ]
    pages = read_pages(write_pdf(tmp_path / "long.pdf", [lines]))
    reaching = next(w for w in pages[0].words if w.text == "BACS")
    assert 380 < reaching.box[2] < 400, "the description runs under the Paid out amounts"
    result = read_transactions(pages, FEB_2022, "GBP", None, None)
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        UK_ROWS[0],
        (*UK_ROWS[1][:2], long, *UK_ROWS[1][3:]),
        *UK_ROWS[2:],
    ]


def test_rows_that_do_not_reconcile_name_the_first_break(tmp_path: Path):
    path = write_pdf(tmp_path / "uk_bad.pdf", [uk_lines(tesco="54.67")])
    result = table(path)
    assert not result.reconciled
    assert result.reason == (
        'the row "14 Feb 22 VIS TESCO STORES 2345" on page 1 prints balance 3334.33, but the rows '
        "before it give 3325.33; the opening balance 1000.00 plus the rows' total 2322.13 is "
        "3322.13, not the closing balance 3331.13"
    )
    # Every row is kept, with how far the rows fall short of the closing balance.
    assert len(result.rows) == 4
    assert result.reconciliation.status == OFF
    assert result.reconciliation.gap == Decimal("9.00")


def test_caller_balances_are_checked_against_the_printed_ones(tmp_path: Path):
    path = write_pdf(tmp_path / "uk.pdf", [uk_lines()])
    assert table(path, opening="1000.00", closing="3331.13").reconciled
    # Printed balances that agree with each other, and rows that add up to the caller's balances,
    # reconcile although the caller's opening balance is not the one printed.
    assert table(path, opening="1100.00", closing="3431.13").reconciled
    # A caller's balance the rows do not reach gives way to the one the table prints, which they
    # do; the report says the statement prints two.
    other = table(path, opening="1100.00", closing="3331.13")
    assert other.reconciled
    assert other.reconciliation.opening == Decimal("1000.00")
    assert other.notes == [
        "the statement prints its opening balance as 1,100.00 and as 1,000.00; the rows "
        "reconcile with 1,000.00"
    ]


def test_the_sample_statements_read_back_exactly(sample_set: SampleSet):
    """The sample generator's statements (a Category column, signed amounts, ISO dates, the
    balances on a summary page) give back every transaction it wrote."""
    with sample_set.transactions_csv.open(newline="") as handle:
        truth = sorted(
            (r["date"], r["amount"], r["description"], r["category"], r["balance"])
            for r in csv.DictReader(handle)
        )
    read = []
    for pdf in sample_set.statement_pdfs:
        result = read_transactions(read_pages(pdf), None, "USD", None, None)
        assert result.reconciled, (pdf.name, result.reason)
        read += [
            (str(r.date), str(r.amount), r.description, r.category, str(r.balance))
            for r in result.rows
        ]
    assert sorted(read) == truth


def test_printed_balances_and_the_sum_must_both_agree(tmp_path: Path):
    """Rows whose total reaches the closing balance do not reconcile when a printed running
    balance disagrees with them, nor do rows that match every printed balance when the caller's
    closing balance is another."""
    lines = uk_lines()
    lines[9] = [*lines[9][:3], right(550, "3,334.34")]
    misprinted = table(write_pdf(tmp_path / "misprinted.pdf", [lines]))
    assert not misprinted.reconciled
    assert misprinted.reason == (
        'the row "14 Feb 22 VIS TESCO STORES 2345" on page 1 prints balance 3334.34, but the rows '
        "before it give 3334.33"
    )
    lines = uk_lines()
    lines[11] = [
        left(40, "28 Feb 22"),
        left(100, "BALANCE CARRIED FORWARD"),
        right(550, "3,331.14"),
    ]
    other_closing = table(write_pdf(tmp_path / "uk.pdf", [lines]), opening="1000.00")
    assert not other_closing.reconciled
    assert other_closing.reason == (
        "the opening balance 1000.00 plus the rows' total 2331.13 is 3331.13, not the closing "
        "balance 3331.14"
    )
    assert other_closing.reconciliation.gap == Decimal("0.01")


# --- rows of one day printed under one date -------------------------------------------------------


def test_rows_of_a_day_with_amounts_on_their_last_line(tmp_path: Path):
    """A line without a date that prints an amount where the row above already has one is the
    next row of that day; where the table prints each amount on a row's last line, the lines
    between two such rows start the second."""
    lines: list[Line | None] = [
        [left(40, "Northgate Bank plc")],
        None,
        UK_HEADER,
        [left(40, "01 Feb 22"), left(100, "BALANCE BROUGHT FORWARD"), right(550, "1,000.00")],
        [left(40, "13 Feb 22"), left(100, "CR J FAIRWEATHER")],
        [left(100, "CONCERT TICKETS"), right(470, "27.04")],
        [left(100, "))) PRET A MANGER KINGS X"), right(400, "9.84"), right(550, "1,017.20")],
        [left(40, "16 Feb 22"), left(100, "VIS INT'L 0066131860")],
        [left(100, "EUR 144.68 @ 1.1724"), right(400, "123.40")],
        [left(100, "DR NON-STERLING")],
        [left(100, "TRANSACTION FEE"), right(400, "3.39"), right(550, "890.41")],
        [left(40, "28 Feb 22"), left(100, "BALANCE CARRIED FORWARD"), right(550, "890.41")],
    ]
    pages = read_pages(write_pdf(tmp_path / "days.pdf", [lines]))
    result = read_transactions(pages, FEB_2022, "GBP", None, None)
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        (date(2022, 2, 13), "27.04", "CR J FAIRWEATHER CONCERT TICKETS", None, 1),
        (date(2022, 2, 13), "-9.84", "))) PRET A MANGER KINGS X", "1017.20", 1),
        (date(2022, 2, 16), "-123.40", "VIS INT'L 0066131860 EUR 144.68 @ 1.1724", None, 1),
        (date(2022, 2, 16), "-3.39", "DR NON-STERLING TRANSACTION FEE", "890.41", 1),
    ]
    assert_boxes(pages, result.rows, [("27.04",), ("PRET", "9.84"), ("123.40",), ("DR", "3.39")])


def test_rows_of_a_day_with_amounts_on_their_first_line(tmp_path: Path):
    """Where each amount is printed on a row's first line, the lines under it stay with it,
    also when a row of the same day follows."""
    lines: list[Line | None] = [
        [left(40, "Northgate Bank plc")],
        None,
        UK_HEADER,
        [left(40, "01 Feb 22"), left(100, "BALANCE BROUGHT FORWARD"), right(550, "1,000.00")],
        [left(40, "03 Feb 22"), left(100, "DD COUNCIL TAX"), right(400, "120.00")],
        [left(100, "REF 4471 FEB")],
        [left(100, "VIS TESCO STORES 2345"), right(400, "45.67"), right(550, "834.33")],
        [
            left(40, "05 Feb 22"),
            left(100, "SO R ASHCOMBE"),
            right(400, "500.00"),
            right(550, "334.33"),
        ],
        [left(100, "RENT FLAT 2")],
        [left(40, "28 Feb 22"), left(100, "BALANCE CARRIED FORWARD"), right(550, "334.33")],
    ]
    result = table(write_pdf(tmp_path / "days.pdf", [lines]))
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        (date(2022, 2, 3), "-120.00", "DD COUNCIL TAX REF 4471 FEB", None, 1),
        (date(2022, 2, 3), "-45.67", "VIS TESCO STORES 2345", "834.33", 1),
        (date(2022, 2, 5), "-500.00", "SO R ASHCOMBE RENT FLAT 2", "334.33", 1),
    ]


def test_a_row_under_a_dated_balance_line_takes_its_date(tmp_path: Path):
    lines: list[Line | None] = [
        UK_HEADER,
        [left(40, "12 Feb 22"), left(100, "BALANCE BROUGHT FORWARD"), right(550, "1,000.00")],
        [left(100, "))) PRET A MANGER KINGS X"), right(400, "7.96"), right(550, "992.04")],
        [
            left(40, "13 Feb 22"),
            left(100, "DD THAMES WATER"),
            right(400, "36.96"),
            right(550, "955.08"),
        ],
        [left(40, "28 Feb 22"), left(100, "BALANCE CARRIED FORWARD"), right(550, "955.08")],
    ]
    result = table(write_pdf(tmp_path / "forward.pdf", [lines]))
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        (date(2022, 2, 12), "-7.96", "))) PRET A MANGER KINGS X", "992.04", 1),
        (date(2022, 2, 13), "-36.96", "DD THAMES WATER", "955.08", 1),
    ]


# --- statements in banks' own layouts ------------------------------------------------------------

BALANCES = {"opening_balance", "closing_balance"}
CARD_TERMS = {"amount_due", "minimum_payment", "due_date", "credit_limit", "apr"}
# The figures each layout prints: a statement that prints no total of its fees, or only
# subtotals of what went out, states no such figure.
PRINTED_FIGURES = {
    "uk_current": BALANCES | {"money_in", "money_out"},
    "us_checking": BALANCES | {"money_in", "fees"},
    "de_kontoauszug": BALANCES | {"money_in", "money_out"},
    "credit_card": BALANCES | CARD_TERMS | {"money_in", "fees", "interest"},
    "eu_numbers": BALANCES | {"money_in", "money_out"},
    "scanned": BALANCES | {"money_in", "money_out"},
    "nz_everyday": BALANCES | {"money_in", "money_out", "fees"},
}


def test_statements_in_banks_layouts_read_back(tmp_path: Path):
    """Seven statements at unknown banks, one of them scanned: every row's date and signed
    amount (signs the rows do not print decided by the totals), every figure they print, their
    bank, account and period, and how they reconcile. Descriptions match as printed, but for
    the scan's OCR noise. A row whose amount is misprinted is named, not read."""
    generate_statements(tmp_path)
    for truth in json.loads((tmp_path / "truth.json").read_text(encoding="utf-8")):
        pages = read_pages(tmp_path / truth["file"])
        meta = read_metadata(pages)
        facts = {f.name: f.day or f.amount for f in read_facts(pages, meta.currency)}
        stated = [
            (name, abs(value), name, 1)
            for name, value in facts.items()
            if name in ("money_in", "money_out") and isinstance(value, Decimal)
        ]
        result = read_transactions(
            pages,
            meta.period,
            meta.currency,
            facts["opening_balance"],
            facts["closing_balance"],
            stated,
            owed=meta.is_card,
        )
        name = truth["file"]
        check = truth["reconciliation"]
        assert result.reconciliation.status == check["status"], (name, result.reason)
        if check["status"] == OFF:
            assert result.reconciliation.gap == Decimal(check["gap"]), name
        unread = {(u["date"], u["amount"]) for u in truth["unread"]}
        assert [(u.page, u.text.split(" ")[0]) for u in result.unread] == [
            (u["page"], u["date"].split(" ")[0]) for u in truth["unread"]
        ], name
        printed = [(day, amount, text) for day, amount, text in truth["rows"]]
        misread = {text for *_, text in printed if any(text in u.text for u in result.unread)}
        expected = [(day, amount) for day, amount, text in printed if text not in misread]
        assert len(misread) == len(unread), name
        rows = [(str(r.date), str(r.amount)) for r in result.rows]
        assert rows == expected, name
        if not pages[0].ocr:
            assert [r.description for r in result.rows] == [
                text for *_, text in printed if text not in misread
            ], name
        assert meta.bank_name == truth["bank"], name
        assert (meta.account_no or meta.iban or "").endswith(truth["account"].lstrip("*")), name
        assert meta.currency == truth["currency"], name
        # The card prints only its statement date, not the day its period starts.
        period = None if truth["layout"] == "credit_card" else tuple(truth["period"])
        assert (meta.period and tuple(map(str, meta.period))) == period, name
        assert set(facts) == PRINTED_FIGURES[truth["layout"]], name
        for fact, value in facts.items():
            # Statements print what leaves an account or is owed on a card without a minus.
            printed = str(value) if isinstance(value, date) else str(abs(value))
            assert printed == truth[fact].lstrip("-"), (name, fact)


# --- US checking: month-first dates, wrapped descriptions, two pages ----------------------------

US_HEADER = header(
    left(40, "Date"),
    left(90, "Description"),
    right(400, "Withdrawals"),
    right(475, "Deposits"),
    right(550, "Balance"),
)


def test_us_checking_two_pages(tmp_path: Path):
    page_one = [
        [left(40, "FIRST RIVER BANK")],
        [left(40, "Everyday Checking  Statement period 02/01/2022 - 02/28/2022")],
        [left(40, "Beginning balance on 02/01"), right(300, "$2,000.00")],
        [left(40, "Ending balance on 02/28"), right(300, "$2,151.23")],
        None,
        US_HEADER,
        [
            left(40, "02/03"),
            left(90, "CHECK CARD PURCHASE 02/02 AMAZON"),
            right(400, "45.99"),
            right(550, "1,954.01"),
        ],
        [left(90, "MKTPLACE PMTS SEATTLE WA")],
        [
            left(40, "02/07"),
            left(90, "PAYROLL DEPOSIT ACME CORP"),
            right(475, "1,250.00"),
            right(550, "3,204.01"),
        ],
        [
            left(40, "02/10"),
            left(90, "ONLINE TRANSFER TO SAVINGS"),
            right(400, "500.00"),
            right(550, "2,704.01"),
        ],
        [left(90, "REF 8812 CONFIRMATION 77")],
        None,
        None,
        [left(40, "Continued on next page"), right(550, "Page 1 of 2")],
    ]
    page_two = [
        [left(40, "FIRST RIVER BANK"), right(550, "Page 2 of 2")],
        None,
        US_HEADER,
        [left(40, "02/15"), left(90, "CHECK 1043"), right(400, "1,200.00"), right(550, "1,504.01")],
        [
            left(40, "02/28"),
            left(90, "ATM DEPOSIT 5TH AVE"),
            right(475, "647.22"),
            right(550, "2,151.23"),
        ],
    ]
    path = write_pdf(tmp_path / "us.pdf", [page_one, page_two])
    pages = read_pages(path)
    result = read_transactions(pages, FEB_2022, "USD", None, None)
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        (
            date(2022, 2, 3),
            "-45.99",
            "CHECK CARD PURCHASE 02/02 AMAZON MKTPLACE PMTS SEATTLE WA",
            "1954.01",
            1,
        ),
        (date(2022, 2, 7), "1250.00", "PAYROLL DEPOSIT ACME CORP", "3204.01", 1),
        (
            date(2022, 2, 10),
            "-500.00",
            "ONLINE TRANSFER TO SAVINGS REF 8812 CONFIRMATION 77",
            "2704.01",
            1,
        ),
        (date(2022, 2, 15), "-1200.00", "CHECK 1043", "1504.01", 2),
        (date(2022, 2, 28), "647.22", "ATM DEPOSIT 5TH AVE", "2151.23", 2),
    ]
    first = result.rows[0].box
    wrapped = next(w for w in pages[0].words if w.text == "MKTPLACE")
    assert first and inside(wrapped.box, first), "a wrapped description widens the row's box"
    assert_boxes(
        pages,
        result.rows,
        [
            ("02/03", "45.99"),
            ("02/07", "1,250.00"),
            ("02/10", "500.00"),
            ("02/15", "1,200.00"),
            ("02/28", "647.22"),
        ],
    )


def test_header_on_the_first_page_only(tmp_path: Path):
    """A table that runs on to a page without its header keeps the first page's columns."""
    lines = uk_lines()
    page_one, page_two = (
        lines[:9],
        [
            [left(40, "Northgate Bank plc"), right(550, "Page 2")],
            None,
            [
                left(40, "14 Feb 22"),
                left(100, "VIS TESCO STORES 2345"),
                right(400, "45.67"),
                right(550, "3,334.33"),
            ],
            [left(100, "))) COSTA COFFEE"), right(400, "3.20"), right(550, "3,331.13")],
            [left(40, "28 Feb 22"), left(100, "BALANCE CARRIED FORWARD"), right(550, "3,331.13")],
        ],
    )
    result = table(write_pdf(tmp_path / "two.pdf", [page_one, page_two]))
    assert result.reconciled, result.reason
    assert summary(result.rows) == [*UK_ROWS[:2], *((*r[:4], 2) for r in UK_ROWS[2:])]


US_AMOUNT_HEADER = header(left(40, "DATE"), left(90, "DESCRIPTION"), right(550, "AMOUNT"))


def sections_lines(fees_title: str = "FEES") -> list[Line | None]:
    return [
        [left(40, "TALLGRASS MERIDIAN BANK")],
        [left(40, "Beginning Balance"), right(300, "$1,000.00")],
        [left(40, "Ending Balance"), right(300, "$2,234.50")],
        None,
        [left(40, "DEPOSITS AND ADDITIONS")],
        US_AMOUNT_HEADER,
        [left(40, "02/03"), left(90, "Payroll Acme Corp"), right(550, "$1,500.00")],
        [left(40, "Total Deposits and Additions"), right(550, "$1,500.00")],
        None,
        [left(40, "ELECTRONIC WITHDRAWALS (continued)")],
        US_AMOUNT_HEADER,
        [left(40, "02/05"), left(90, "Card Purchase Safeway #1552"), right(550, "$250.50")],
        [left(40, "Total Electronic Withdrawals"), right(550, "$250.50")],
        None,
        [left(40, fees_title)],
        US_AMOUNT_HEADER,
        [left(40, "02/28"), left(90, "Monthly Service Fee"), right(550, "15.00")],
        None,
        [left(40, "DAILY ENDING BALANCE")],
        header(left(40, "DATE"), right(150, "AMOUNT"), left(200, "DATE"), right(310, "AMOUNT")),
        [left(40, "02/03"), right(150, "2,500.00"), left(200, "02/05"), right(310, "2,249.50")],
    ]


def test_section_titles_sign_bare_amounts(tmp_path: Path):
    """Deposits and withdrawals listed in sections of one Amount column, each under its own
    title; daily balances listed side by side are no transactions."""
    path = write_pdf(tmp_path / "sections.pdf", [sections_lines()])
    result = table(path, opening="1000.00", closing="2234.50")
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        (date(2022, 2, 3), "1500.00", "Payroll Acme Corp", None, 1),
        (date(2022, 2, 5), "-250.50", "Card Purchase Safeway #1552", None, 1),
        (date(2022, 2, 28), "-15.00", "Monthly Service Fee", None, 1),
    ]
    # Without its section's title, the fee's sign is the one that meets the balances.
    untitled = table(
        write_pdf(tmp_path / "untitled.pdf", [sections_lines("MORE ITEMS")]),
        opening="1000.00",
        closing="2234.50",
    )
    assert untitled.reconciled, untitled.reason
    assert [str(r.amount) for r in untitled.rows] == ["1500.00", "-250.50", "-15.00"]
    assert untitled.notes == [
        "1 row prints no sign; the statement's totals decided which way it goes"
    ]


# --- German Kontoauszug -------------------------------------------------------------------------


def test_german_kontoauszug(tmp_path: Path):
    lines: list[Line | None] = [
        [left(40, "Sparkasse Musterstadt")],
        [left(40, "Kontoauszug 2/2022   IBAN DE12 3456 7890 1234 5678 90")],
        None,
        header(
            left(40, "Buchungstag"),
            left(105, "Wert"),
            left(150, "Verwendungszweck"),
            right(470, "Soll"),
            right(550, "Haben"),
        ),
        [left(150, "Alter Kontostand vom 31.01.2022"), right(550, "1.234,56")],
        [
            left(40, "01.02."),
            left(105, "01.02."),
            left(150, "Lastschrift Stadtwerke Musterstadt"),
            right(470, "89,90"),
        ],
        [left(150, "Abschlag Strom Februar")],
        [
            left(40, "15.02."),
            left(105, "15.02."),
            left(150, "Gehalt Februar Muster GmbH"),
            right(550, "3.100,00"),
        ],
        [
            left(40, "28.02."),
            left(105, "01.03."),
            left(150, "Miete Wohnung Hauptstr. 5"),
            right(470, "1.250,00"),
        ],
        [left(150, "Neuer Kontostand vom 28.02.2022"), right(550, "2.994,66")],
    ]
    result = read_transactions(
        read_pages(write_pdf(tmp_path / "de.pdf", [lines])), FEB_2022, "EUR", None, None
    )
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        (
            date(2022, 2, 1),
            "-89.90",
            "Lastschrift Stadtwerke Musterstadt Abschlag Strom Februar",
            None,
            1,
        ),
        (date(2022, 2, 15), "3100.00", "Gehalt Februar Muster GmbH", None, 1),
        (date(2022, 2, 28), "-1250.00", "Miete Wohnung Hauptstr. 5", None, 1),
    ]
    assert {r.currency for r in result.rows} == {"EUR"}


LAYOUTS = {
    "french": [
        header(
            left(40, "Date opération"),
            left(120, "Libellé"),
            left(330, "Date valeur"),
            right(470, "Débit"),
            right(550, "Crédit"),
        ),
        [left(120, "Solde précédent au 31/01/2022"), right(550, "1 234,56")],
        [left(40, "02/02"), left(120, "PRLV SEPA EDF"), left(330, "02/02"), right(470, "85,40")],
        [
            left(40, "10/02"),
            left(120, "VIR SALAIRE ACME"),
            left(330, "11/02"),
            right(550, "2 100,00"),
        ],
        [
            left(40, "25/02"),
            left(120, "CB CARREFOUR 24/02"),
            left(330, "25/02"),
            right(470, "1 012,35"),
        ],
        [left(120, "Nouveau solde au 28/02/2022"), right(550, "2 236,81")],
    ],
    # Headers set flush left over amounts set flush right, amounts signed as printed.
    "spanish": [
        header(left(40, "Fecha"), left(110, "Concepto"), left(400, "Importe"), left(480, "Saldo")),
        [left(110, "Saldo anterior"), right(540, "2.000,00")],
        [
            left(40, "03/02/2022"),
            left(110, "RECIBO TELEFONICA"),
            right(460, "-45,20"),
            right(540, "1.954,80"),
        ],
        [
            left(40, "14/02/2022"),
            left(110, "NOMINA EMPRESA SA"),
            right(460, "1.500,00"),
            right(540, "3.454,80"),
        ],
        [
            left(40, "21/02/2022"),
            left(110, "TRANSFERENCIA A AHORRO"),
            right(460, "-300,00"),
            right(540, "3.154,80"),
        ],
    ],
    "dutch": [
        header(
            left(40, "Datum"),
            left(100, "Omschrijving"),
            right(400, "Af"),
            right(470, "Bij"),
            right(550, "Saldo"),
        ),
        [left(100, "Vorig saldo"), right(550, "500,00")],
        [
            left(40, "3 feb"),
            left(100, "Albert Heijn 1234 Utrecht"),
            right(400, "62,15"),
            right(550, "437,85"),
        ],
        [
            left(40, "14 feb"),
            left(100, "Salaris Voorbeeld BV"),
            right(470, "2.400,00"),
            right(550, "2.837,85"),
        ],
        [left(40, "28 feb"), left(100, "Huur maart"), right(400, "950,00"), right(550, "1.887,85")],
        [left(100, "Nieuw saldo"), right(550, "1.887,85")],
    ],
}
LAYOUT_ROWS = {
    "french": [
        (date(2022, 2, 2), "-85.40", "PRLV SEPA EDF", None, 1),
        (date(2022, 2, 10), "2100.00", "VIR SALAIRE ACME", None, 1),
        (date(2022, 2, 25), "-1012.35", "CB CARREFOUR 24/02", None, 1),
    ],
    "spanish": [
        (date(2022, 2, 3), "-45.20", "RECIBO TELEFONICA", "1954.80", 1),
        (date(2022, 2, 14), "1500.00", "NOMINA EMPRESA SA", "3454.80", 1),
        (date(2022, 2, 21), "-300.00", "TRANSFERENCIA A AHORRO", "3154.80", 1),
    ],
    "dutch": [
        (date(2022, 2, 3), "-62.15", "Albert Heijn 1234 Utrecht", "437.85", 1),
        (date(2022, 2, 14), "2400.00", "Salaris Voorbeeld BV", "2837.85", 1),
        (date(2022, 2, 28), "-950.00", "Huur maart", "1887.85", 1),
    ],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_french_spanish_and_dutch_layouts(tmp_path: Path, layout: str):
    result = read_transactions(
        read_pages(write_pdf(tmp_path / f"{layout}.pdf", [LAYOUTS[layout]])),
        FEB_2022,
        "EUR",
        None,
        None,
    )
    assert result.reconciled, result.reason
    assert summary(result.rows) == LAYOUT_ROWS[layout]


def test_amounts_signed_as_printed(tmp_path: Path):
    lines: list[Line | None] = [
        header(left(40, "Date"), left(110, "Details"), right(470, "Amount"), right(550, "Balance")),
        [left(110, "Balance brought forward"), right(550, "100.00")],
        [left(40, "01/02/2022"), left(110, "SHOP"), right(470, "45.00-"), right(550, "55.00")],
        [left(40, "02/02/2022"), left(110, "FEE"), right(470, "(3.20)"), right(550, "51.80")],
        [left(40, "03/02/2022"), left(110, "RENT"), right(470, "301.80-"), right(550, "250.00 DR")],
        [
            left(40, "04/02/2022"),
            left(110, "DEPOSIT"),
            right(470, "1,000.00"),
            right(550, "750.00"),
        ],
        [left(40, "05/02/2022"), left(110, "REFUND"), right(470, "+20.00"), right(550, "770.00")],
    ]
    result = table(write_pdf(tmp_path / "signed.pdf", [lines]))
    assert result.reconciled, result.reason
    assert [(str(r.amount), str(r.balance)) for r in result.rows] == [
        ("-45.00", "55.00"),
        ("-3.20", "51.80"),
        ("-301.80", "-250.00"),
        ("1000.00", "750.00"),
        ("20.00", "770.00"),
    ]
    assert [r.date for r in result.rows] == [date(2022, 2, day) for day in range(1, 6)]


def test_unsigned_amounts_take_the_balance_movement(tmp_path: Path):
    lines: list[Line | None] = [
        [left(40, "Opening balance 300.00   Closing balance 1,065.50")],
        header(
            left(40, "Date"), left(100, "Description"), right(470, "Amount"), right(550, "Balance")
        ),
        [left(40, "2022-02-04"), left(100, "GROCER"), right(470, "34.50"), right(550, "265.50")],
        [left(40, "2022-02-25"), left(100, "SALARY"), right(470, "800.00"), right(550, "1,065.50")],
    ]
    result = table(write_pdf(tmp_path / "plain.pdf", [lines]))
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        (date(2022, 2, 4), "-34.50", "GROCER", "265.50", 1),
        (date(2022, 2, 25), "800.00", "SALARY", "1065.50", 1),
    ]


def test_a_summary_box_is_not_a_table(tmp_path: Path):
    lines = uk_lines()
    lines[4] = header(
        left(40, "Date"),
        left(100, "Opening balance"),
        right(300, "Money in"),
        right(380, "Money out"),
        right(470, "Closing balance"),
    )
    lines.insert(
        5,
        [
            left(40, "01 Feb 22"),
            right(160, "1,000.00"),
            right(300, "2,500.00"),
            right(380, "168.87"),
            right(470, "3,331.13"),
        ],
    )
    result = table(write_pdf(tmp_path / "boxed.pdf", [lines]))
    assert result.reconciled, result.reason
    assert summary(result.rows) == UK_ROWS


# --- card statement: one Amount column, CR for credits ------------------------------------------


def card_lines(dates: Sequence[str]) -> list[Line | None]:
    return [
        [left(40, "Harbour Card Services")],
        [left(40, "Previous balance"), right(250, "1,200.00")],
        [left(40, "New balance"), right(250, "865.50")],
        None,
        header(left(40, "Trans. date"), left(110, "Details"), right(550, "Amount (GBP)")),
        [left(40, dates[0]), left(110, "CAFE NERO LONDON"), right(550, "45.00")],
        [left(40, dates[1]), left(110, "PAYMENT RECEIVED - THANK YOU"), right(550, "500.00 CR")],
        [left(40, dates[2]), left(110, "TRAINLINE.COM"), right(550, "120.50")],
    ]


def test_card_statement_with_cr_credits(tmp_path: Path):
    path = write_pdf(tmp_path / "card.pdf", [card_lines(["03 Feb", "10 Feb", "21 Feb"])])
    result = table(path)
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        (date(2022, 2, 3), "-45.00", "CAFE NERO LONDON", None, 1),
        (date(2022, 2, 10), "500.00", "PAYMENT RECEIVED - THANK YOU", None, 1),
        (date(2022, 2, 21), "-120.50", "TRAINLINE.COM", None, 1),
    ]


def test_unsigned_amounts_take_the_signs_that_meet_the_balances(tmp_path: Path):
    """A card statement without markers: the one assignment of signs that takes the previous
    balance to the new one decides them."""
    lines = card_lines(["03 Feb", "10 Feb", "21 Feb"])
    lines[6] = [left(40, "10 Feb"), left(110, "PAYMENT RECEIVED - THANK YOU"), right(550, "500.00")]
    pages = read_pages(write_pdf(tmp_path / "card.pdf", [lines]))
    result = read_transactions(pages, FEB_2022, "GBP", None, None, owed=True)
    assert result.reconciled, result.reason
    assert [str(r.amount) for r in result.rows] == ["-45.00", "500.00", "-120.50"]
    assert result.notes == [
        "3 rows print no sign; the statement's totals decided which way they go"
    ]


def test_unsigned_card_amounts_are_charges_unless_they_pay_off(tmp_path: Path):
    """Without balances to decide, a card's bare amounts are charges, and a row that says it is
    a payment pays the balance off."""
    lines = card_lines(["03 Feb", "10 Feb", "21 Feb"])
    lines[6] = [left(40, "10 Feb"), left(110, "PAYMENT RECEIVED - THANK YOU"), right(550, "500.00")]
    del lines[1:3]  # no previous or new balance
    pages = read_pages(write_pdf(tmp_path / "card.pdf", [lines]))
    result = read_transactions(pages, FEB_2022, "GBP", None, None, owed=True)
    assert result.reconciliation.status == UNCHECKED
    assert [str(r.amount) for r in result.rows] == ["-45.00", "500.00", "-120.50"]


# --- year boundary ------------------------------------------------------------------------------


def test_dates_without_a_year_take_it_from_the_period(tmp_path: Path):
    path = write_pdf(tmp_path / "card.pdf", [card_lines(["20 Dec", "03 Jan", "Jan 10"])])
    december = read_transactions(
        read_pages(path), (date(2021, 12, 15), date(2022, 1, 14)), "GBP", None, None
    )
    assert december.reconciled, december.reason
    assert [r.date for r in december.rows] == [
        date(2021, 12, 20),
        date(2022, 1, 3),
        date(2022, 1, 10),
    ]
    # A December row in a January statement belongs to the year before.
    january = read_transactions(
        read_pages(path), (date(2022, 1, 1), date(2022, 1, 31)), "GBP", None, None
    )
    assert [r.date for r in january.rows] == [
        date(2021, 12, 20),
        date(2022, 1, 3),
        date(2022, 1, 10),
    ]


def test_without_a_period_years_come_from_the_dates_the_statement_prints(tmp_path: Path):
    lines = [
        [left(40, "Statement date 18 Oct 2023")],
        [left(40, "Payment due date 13 Nov 2023")],
        *card_lines(["21 Sep", "03 Oct", "18 Oct"]),
    ]
    result = read_transactions(
        read_pages(write_pdf(tmp_path / "card.pdf", [lines])), None, "SGD", None, None
    )
    assert result.reconciled, result.reason
    assert [r.date for r in result.rows] == [
        date(2023, 9, 21),
        date(2023, 10, 3),
        date(2023, 10, 18),
    ]


# --- no table -----------------------------------------------------------------------------------


def test_a_page_without_a_table(tmp_path: Path):
    path = write_pdf(
        tmp_path / "letter.pdf", [[[left(40, "Dear customer, your new card is on its way.")]]]
    )
    result = table(path)
    assert result.rows == [] and result.reconciliation.status == UNCHECKED
    assert result.reason and result.reason.startswith("no transaction table")


# --- the page reader ----------------------------------------------------------------------------


def test_words_lines_and_boxes(tmp_path: Path):
    path = write_pdf(tmp_path / "uk.pdf", [uk_lines()])
    (page,) = read_pages(path)
    assert (page.number, page.ocr, page.problem) == (1, False, None)
    assert (page.width, page.height) == (595.28, 841.89)
    lines = page.text.splitlines()
    assert lines[4] == "Date Payment type and details Paid out Paid in Balance"
    assert lines[6] == "03 Feb 22 DD COUNCIL TAX 120.00 880.00"
    assert [w.text for w in page.words] == page.text.split()
    amount = next(w for w in page.words if w.text == "2,500.00")
    assert amount.box[2] == pytest.approx(470, abs=0.5), "a right-aligned amount ends at its column"


def test_pages_read_from_several_threads_at_once(tmp_path: Path):
    """Sessions read PDFs side by side; pdfium is only ever entered under its lock."""
    path = write_pdf(tmp_path / "us.pdf", [uk_lines(), uk_lines()])
    expected = read_pages(path)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: read_pages(path), range(8)))
    assert all(result == expected for result in results)


def test_rotated_page_reads_upright(tmp_path: Path):
    """A landscape page stored as portrait text turned a quarter and a /Rotate of 90."""
    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    with pdf.rotation(90, 100, 700):
        pdf.text(100, 700, "Opening balance 1,000.00")
    with pdf.rotation(45, 300, 400):
        pdf.text(300, 400, "SPECIMEN")  # a diagonal watermark is no part of the text
    pdf.output(str(tmp_path / "turned.pdf"))
    with PDFIUM_LOCK:
        document = pdfium.PdfDocument(tmp_path / "turned.pdf")
        document[0].set_rotation(90)
        document.save(tmp_path / "rotated.pdf")
        document.close()
    (page,) = read_pages(tmp_path / "rotated.pdf")
    assert (page.width, page.height) == (841.89, 595.28)
    assert page.text == "Opening balance 1,000.00"
    for word in page.words:
        x0, top, x1, bottom = word.box
        assert 0 <= x0 < x1 <= page.width and 0 <= top < bottom <= page.height
        assert bottom - top == pytest.approx(12, abs=0.5)


def scan_of(source: Path, target: Path, skew: float = 0.0) -> Path:
    """An image-only PDF of the source's first page, as a scanner would make it, turned
    ``skew`` degrees anticlockwise."""
    with PDFIUM_LOCK:
        document = pdfium.PdfDocument(source)
        bitmap = document[0].render(scale=300 / 72, grayscale=True)
        image = bitmap.to_pil().copy()
        bitmap.close()
        document.close()
    if skew:
        image = image.rotate(skew, resample=Image.Resampling.BICUBIC, fillcolor=255)
    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.image(image, x=0, y=0, w=pdf.w, h=pdf.h)
    pdf.output(str(target))
    return target


def test_scanned_page_is_read_by_ocr(tmp_path: Path):
    path = scan_of(write_pdf(tmp_path / "uk.pdf", [uk_lines()]), tmp_path / "scan.pdf")
    (page,) = read_pages(path)
    assert page.ocr and page.problem is None
    assert "BALANCE BROUGHT FORWARD" in page.text
    assert "12 Feb 22 BP SALARY ACME LTD 2,500.00 3,380.00" in page.text.splitlines()
    for word in page.words:
        assert inside(word.box, (0, 0, page.width, page.height))
    salary = next(w for w in page.words if w.text == "2,500.00")
    assert salary.box[2] == pytest.approx(470, abs=2), (
        "OCR boxes are in points, like the text layer's"
    )
    result = read_transactions([page], FEB_2022, "GBP", None, None)
    assert result.reconciled, result.reason
    assert summary(result.rows) == UK_ROWS


def test_skewed_scan_with_a_narrow_column_is_read_line_by_line(tmp_path: Path):
    """A page scanned half a degree askew, whose payment types stand in a narrow column of
    their own beside the details."""
    lines: list[Line | None] = [
        [left(40, "Northgate Bank plc")],
        None,
        UK_HEADER,
        [left(40, "01 Feb 22"), left(130, "BALANCE BROUGHT FORWARD"), right(550, "1,000.00")],
        [left(40, "03 Feb 22"), left(100, "DD"), left(130, "COUNCIL TAX"), right(400, "120.00")],
        [
            left(100, "VIS"),
            left(130, "TESCO STORES 2345"),
            right(400, "45.67"),
            right(550, "834.33"),
        ],
        [left(40, "12 Feb 22"), left(100, "BP"), left(130, "SALARY ACME LTD")],
        [left(130, "FEBRUARY PAY"), right(470, "2,500.00"), right(550, "3,334.33")],
        [left(40, "28 Feb 22"), left(130, "BALANCE CARRIED FORWARD"), right(550, "3,334.33")],
    ]
    source = write_pdf(tmp_path / "uk.pdf", [lines], leading=16)
    (page,) = read_pages(scan_of(source, tmp_path / "scan.pdf", skew=0.5))
    assert page.ocr and page.problem is None
    assert "VIS TESCO STORES 2345 45.67 834.33" in page.text.splitlines()
    result = read_transactions([page], FEB_2022, "GBP", None, None)
    assert result.reconciled, result.reason
    assert summary(result.rows) == [
        (date(2022, 2, 3), "-120.00", "DD COUNCIL TAX", None, 1),
        (date(2022, 2, 3), "-45.67", "VIS TESCO STORES 2345", "834.33", 1),
        (date(2022, 2, 12), "2500.00", "BP SALARY ACME LTD FEBRUARY PAY", "3334.33", 1),
    ]


def test_words_of_a_turned_page_are_straightened_into_lines():
    """Word boxes of five lines recognised on a page turned by 0.6 degrees: each line drifts
    five points across the page, more than a word's height allows, until the page is turned
    back."""
    slope = math.tan(math.radians(0.6))
    words = [
        Word(f"w{line}{n}", (x, top + x * slope, x + 30, top + 7 + x * slope))
        for line, top in enumerate(range(100, 165, 13))
        for n, x in enumerate(range(60, 540, 60))
    ]
    assert len(page_reader.group_lines(words, ocr=True)) > 5
    straight = page_reader._straightened(words, 595, 842)
    lines = page_reader.group_lines(straight, ocr=True)
    assert [[w.text for w in line] for line in lines] == [
        [f"w{line}{n}" for n in range(8)] for line in range(5)
    ]
    for before, after in zip(words, straight, strict=True):
        assert math.dist(before.box[:2], after.box[:2]) < 5, "a box moves by a few points at most"


def test_ocr_words_with_and_without_descenders_share_a_line():
    """OCR boxes end at the ink: "Page" reaches lower than "in" on the same line."""
    words = [Word("in", (100, 810.0, 106, 813.5)), Word("Page", (120, 808.5, 140, 815.5))]
    assert len(page_reader.group_lines(words)) == 2, "text-layer boxes on two baselines"
    lines = page_reader.group_lines(words, ocr=True)
    assert [[w.text for w in line] for line in lines] == [["in", "Page"]]


def test_scanned_page_without_ocr_says_so(tmp_path: Path):
    path = scan_of(write_pdf(tmp_path / "uk.pdf", [uk_lines()]), tmp_path / "scan.pdf")
    (page,) = read_pages(path, ocr=False)
    assert (page.words, page.text, page.ocr) == ([], "", False)
    assert page.problem == "page 1 has no text; it needs OCR"


def test_scan_without_tesseract_or_with_a_failing_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = scan_of(write_pdf(tmp_path / "uk.pdf", [uk_lines()]), tmp_path / "scan.pdf")
    monkeypatch.setattr(page_reader, "_tesseract", lambda: None)
    (page,) = read_pages(path)
    assert (page.words, page.problem) == ([], "page 1 has no text; it needs OCR")
    monkeypatch.setattr(page_reader, "_tesseract", lambda: "/bin/false")
    (page,) = read_pages(path)
    assert page.words == []
    assert (
        page.problem
        == "page 1 has no text; it needs OCR (Tesseract failed: exit status 1: no output)"
    )


def test_page_too_large_to_render_is_not_recognised(tmp_path: Path):
    pdf = FPDF(unit="pt", format=(60 * 72, 60 * 72))
    pdf.add_page()
    pdf.output(str(tmp_path / "poster.pdf"))
    (page,) = read_pages(tmp_path / "poster.pdf")
    assert page.words == []
    assert page.problem == (
        "page 1 has no text; it needs OCR, but rendering it at 300 dpi would take 324 megapixels "
        "(at most 50)"
    )


def test_only_the_first_pages_of_a_long_pdf_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(page_reader, "MAX_PAGES", 3)
    path = write_pdf(tmp_path / "long.pdf", [[[left(40, f"Page {n}")]] for n in range(1, 6)])
    pages = read_pages(path)
    assert [p.text for p in pages[:3]] == ["Page 1", "Page 2", "Page 3"]
    assert (pages[3].number, pages[3].words) == (4, [])
    assert pages[3].problem == "the PDF has 5 pages; only the first 3 were read"


def test_encrypted_pdf_is_unreadable(tmp_path: Path):
    pdf = FPDF()
    pdf.set_encryption(owner_password="owner-secret", user_password="user-secret")
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    pdf.text(20, 20, "Statement")
    pdf.output(str(tmp_path / "locked.pdf"))
    with pytest.raises(UnreadableFile, match=r"^the PDF is encrypted"):
        read_pages(tmp_path / "locked.pdf")


def test_corrupt_pdf_is_unreadable(tmp_path: Path):
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\n%%garbage")
    with pytest.raises(UnreadableFile, match=r"^not a readable PDF: "):
        read_pages(tmp_path / "broken.pdf")


def _iso_days() -> list[str]:
    """Every day of a leap year, days of a common year, the first and last years read without
    dateparser, and months and days written with one digit."""
    days = [date(2000, 1, 1) + timedelta(n) for n in range(366)]
    days += [date(2023, 1, 1) + timedelta(n) for n in range(0, 365, 3)]
    days += [date(1900, 2, 28), date(1900, 3, 1), date(2100, 2, 28), date(2100, 12, 31)]
    short = [f"{d.year}-{d.month}-{d.day}" for d in days if d.day < 10 or d.month < 10]
    return [d.isoformat() for d in days] + short[::10]


def test_year_month_day_dates_read_as_dateparser_reads_them():
    from elastic.ingest.pdf.facts import dateparser_full_date
    from elastic.ingest.pdf.tables import dateparser_date, iso_day

    for text in _iso_days():
        day = iso_day(text)
        assert day is not None, text
        for order in ("DMY", "MDY"):
            parsed = dateparser_date(text, order)
            assert parsed is not None and parsed.date() == day, (text, order)
            assert dateparser_full_date(text, order) == day, (text, order)
    # Anything else is left to dateparser.
    for text in ("2023-02-29", "2024-13-01", "2024-00-10", "1899-12-31", "2101-01-01", "3 Feb"):
        assert iso_day(text) is None, text


def test_a_charge_named_like_a_balance_is_a_row_and_margin_notes_are_no_part_of_it(
    tmp_path: Path,
):
    """A guide's notes printed in the margin on the rows' lines stay out of the rows; "Interest
    Brought Forward" is a charge, not the balance brought forward."""
    lines: list[Line | None] = [
        header(left(200, "Date"), left(260, "Details"), right(550, "Amount")),
        [
            left(20, "These are the"),
            left(200, "03 Feb"),
            left(260, "Interest Brought Forward"),
            right(550, "23.40"),
        ],
        [
            left(20, "details of all"),
            left(200, "05 Feb"),
            left(260, "PAK N SAVE WAIRAU"),
            right(550, "123.40"),
        ],
    ]
    result = read_transactions(
        read_pages(write_pdf(tmp_path / "guide.pdf", [lines])),
        FEB_2022,
        "NZD",
        None,
        None,
        owed=True,
    )
    assert summary(result.rows) == [
        (date(2022, 2, 3), "-23.40", "Interest Brought Forward", None, 1),
        (date(2022, 2, 5), "-123.40", "PAK N SAVE WAIRAU", None, 1),
    ]
