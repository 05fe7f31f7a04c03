"""Statement PDFs in banks' own layouts (scripts/sample_statements.py) and the truth beside them.

What each PDF must print is written down here by hand, per layout: its labels, how it formats
money, how its merchants and fees read. The truth is checked against the PDFs' text layers and
against itself.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from scripts.sample_statements import UK_BALANCE, generate_statements

Truth = dict[str, object]
MM = 72 / 25.4  # PDF points per millimetre


def _en(value: Decimal) -> str:
    return f"{value:,.2f}"


def _eu(value: Decimal) -> str:
    return _en(value).translate(str.maketrans(",.", ".,"))


PAGES = {
    "uk_current": 2,
    "us_checking": 3,
    "de_kontoauszug": 2,
    "credit_card": 2,
    "eu_numbers": 1,
    "scanned": 2,
    "nz_everyday": 1,
}
LABELS = {
    "uk_current": (
        "Your account summary",
        "Balance brought forward",
        "Total money in",
        "Total money out",
        "Balance carried forward",
        "Date Payment type and details Paid out Paid in Balance",
        "Sort Code 20-44-18",
        "Account Number 71934528",
        "12th Feb 2022 to 11th Mar 2022",
        "BALANCE BROUGHT FORWARD",
        "BALANCE CARRIED FORWARD",
    ),
    "us_checking": (
        "July 1, 2022 through July 31, 2022",
        "CHECKING SUMMARY",
        "Beginning Balance",
        "Deposits and Additions",
        "Electronic Withdrawals",
        "Ending Balance",
        "DEPOSITS AND ADDITIONS",
        "ELECTRONIC WITHDRAWALS (continued)",
        "FEES",
        "DATE DESCRIPTION AMOUNT",
        "DAILY ENDING BALANCE",
        "BALANCING YOUR CHECKBOOK",
        "Ending Balance $ ____",
    ),
    "de_kontoauszug": (
        "Kontoauszug vom 01.03.2024 bis 31.03.2024",
        "IBAN DE",
        "Alter Kontostand vom 29.02.2024",
        "Neuer Kontostand vom 31.03.2024",
        "Buchungstag Wert Verwendungszweck Soll Haben",
        "Blatt 2 von 2",
    ),
    "credit_card": (
        "Statement date 18 Oct 2023",
        "Payment due date 13 Nov 2023",
        "Credit limit S$12,000.00",
        "Minimum payment",
        "Total amount due",
        "Purchase APR 24.99%",
        "ending in 4821",
        "Previous balance",
        "Payments and credits",
        "Purchases",
        "Fees",
        "Interest charged",
        "CR",
    ),
    "eu_numbers": ("Statement of account", "Beginsaldo", "Eindsaldo", "Debit Credit", "EUR"),
    "nz_everyday": (
        "Everyday Account statement",
        "From 1 February 2023 to 28 February 2023",
        "Your account summary",
        "Fees and",
        "charges",  # a label over two lines, its value under both
        "Opening balance",
        "Money in",
        "Date Details Amount",
        "29 Feb MONTHLY ACCOUNT FEE 5.00",  # a day February 2023 does not have
        "4O.00",  # an amount misprinted: the row the extractor cannot read
        "kauricoastbank.co.nz",
    ),
}
# Balances as each layout prints them; a card prints what is owed, which the truth holds negative.
BALANCE_TEXT: dict[str, Callable[[Decimal], str]] = {
    "uk_current": lambda v: f"£{_en(v)}",
    "us_checking": lambda v: f"${_en(v)}",
    "de_kontoauszug": lambda v: f"{_eu(v)} EUR",
    "credit_card": lambda v: f"S${_en(-v)}",
    "eu_numbers": _eu,
    "nz_everyday": _en,
}
AMOUNT_TEXT: dict[str, Callable[[Decimal], str]] = {
    "uk_current": _en,
    "us_checking": _en,
    "de_kontoauszug": _eu,
    "credit_card": _en,
    "eu_numbers": _eu,
    "nz_everyday": _en,
}
# How the regular merchant and the fees read in each layout's descriptions.
MERCHANT = {
    "uk_current": ("Tesco", r"\bTESCO\b"),
    "scanned": ("Tesco", r"\bTESCO\b"),
    "us_checking": ("Safeway", r"\bSafeway\b"),
    "de_kontoauszug": ("REWE", r"\bREWE\b"),
    "credit_card": ("Grab", r"^GRAB"),
    "eu_numbers": ("Albert Heijn", r"\bAlbert Heijn\b|\bAH to go\b"),
    "nz_everyday": ("Four Square", r"\bFOUR SQUARE\b"),
}
FEES = {
    "uk_current": r"NON-STERLING TRANSACTION FEE",
    "scanned": r"NON-STERLING TRANSACTION FEE",
    "us_checking": r"\bFee\b",
    "de_kontoauszug": r"^Entgelt\b",
    "credit_card": r"\bFEE\b",
    "eu_numbers": r"^Costs\b",
    "nz_everyday": r"ACCOUNT FEE",
}
MONEY = re.compile(r"\d{1,3}(?:,\d{3})*\.\d{2}")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return generate_statements(tmp_path_factory.mktemp("statements"), seed=7)


@pytest.fixture(scope="module")
def truths(generated: list[Path]) -> dict[str, Truth]:
    loaded = json.loads((generated[0].parent / "truth.json").read_text(encoding="utf-8"))
    return {truth["layout"]: truth for truth in loaded}


def _pages(path: Path) -> list[str]:
    document = pdfium.PdfDocument(path)
    try:
        return [page.get_textpage().get_text_bounded() for page in document]
    finally:
        document.close()


def _flat(text: str) -> str:
    return " ".join(text.split())


def _rows(truth: Truth) -> list[tuple[date, Decimal, str]]:
    return [(date.fromisoformat(d), Decimal(a), text) for d, a, text in truth["rows"]]


def test_same_seed_same_bytes(generated: list[Path], tmp_path: Path) -> None:
    again = generate_statements(tmp_path, seed=7)
    assert [p.name for p in again] == [p.name for p in generated]
    for first, second in zip(
        [*generated, generated[0].parent / "truth.json"],
        [*again, tmp_path / "truth.json"],
        strict=True,
    ):
        assert first.read_bytes() == second.read_bytes(), first.name


def test_other_seed_other_numbers(generated: list[Path], tmp_path: Path) -> None:
    generate_statements(tmp_path, seed=8)
    truth = (generated[0].parent / "truth.json").read_text(encoding="utf-8")
    assert (tmp_path / "truth.json").read_text(encoding="utf-8") != truth


def test_one_file_per_layout_with_its_pages(
    generated: list[Path], truths: dict[str, Truth]
) -> None:
    assert sorted(truths) == sorted(PAGES)
    assert [p.name for p in generated] == [t["file"] for t in truths.values()]
    for layout, truth in truths.items():
        document = pdfium.PdfDocument(generated[0].parent / truth["file"])
        try:
            assert len(document) == PAGES[layout] == truth["pages"], layout
        finally:
            document.close()


@pytest.mark.parametrize("layout", list(LABELS))
def test_text_layer_states_labels_and_balances(
    layout: str, generated: list[Path], truths: dict[str, Truth]
) -> None:
    truth = truths[layout]
    text = _flat(" ".join(_pages(generated[0].parent / truth["file"])))
    for label in LABELS[layout]:
        assert label in text, label
    for key in ("opening_balance", "closing_balance"):
        printed = BALANCE_TEXT[layout](Decimal(truth[key]))
        assert printed in text, (key, printed)


@pytest.mark.parametrize("layout", list(LABELS))
def test_every_row_is_printed(layout: str, generated: list[Path], truths: dict[str, Truth]) -> None:
    """Each row's amount and every word of its description stand in the text layer."""
    truth = truths[layout]
    words = Counter(
        word.removeprefix("S$").removeprefix("$").removeprefix("£")
        for word in " ".join(_pages(generated[0].parent / truth["file"])).split()
    )
    needed: Counter[str] = Counter()
    misprinted = len(truth["unread"])  # the amounts misprinted are money out of the last rows
    for _, amount, description in _rows(truth):
        needed[AMOUNT_TEXT[layout](abs(amount))] += 1
        needed.update(description.split())
    missing = needed - words
    assert sum(missing.values()) == misprinted, missing
    assert all(MONEY.fullmatch(text) for text in missing), missing


def test_nz_amounts_print_no_signs_and_dates_stand_on_a_days_first_row(
    generated: list[Path], truths: dict[str, Truth]
) -> None:
    """Only the summary's money in and out tell which way a row goes: the Amount column prints
    neither signs nor markers, and a day's date stands on its first row only, without a year."""
    truth = truths["nz_everyday"]
    (page,) = _pages(generated[0].parent / truth["file"])
    table = page.split("Date Details Amount")[1]
    lines = [line for line in table.splitlines() if re.search(r"\d\.\d\d$|4O\.00$", line)]
    assert len(lines) == truth["transactions"]
    assert not any(re.search(r"-|\bCR\b|\bDR\b|\(", line) for line in lines)
    dated = [line for line in lines if re.match(r"\d\d [A-Z][a-z]{2} ", line)]
    days = {day for day, _, _ in _rows(truth)}
    assert len(dated) == len(days) < len(lines)
    assert not any(re.search(r"\b20\d\d\b", line) for line in lines)
    assert truth["reconciliation"] == {"status": "off", "gap": "40.00"}
    assert truth["unread"] == [{"page": 1, "date": "22 Feb", "amount": "4O.00"}]


def test_scan_has_no_text_layer(generated: list[Path], truths: dict[str, Truth]) -> None:
    document = pdfium.PdfDocument(generated[0].parent / truths["scanned"]["file"])
    try:
        for page in document:
            kinds = [obj.type for obj in page.get_objects()]
            assert page.get_textpage().get_text_bounded().strip() == ""
            assert pdfium_c.FPDF_PAGEOBJ_TEXT not in kinds
            assert kinds == [pdfium_c.FPDF_PAGEOBJ_IMAGE]
    finally:
        document.close()


def test_scan_continues_the_printed_month(truths: dict[str, Truth]) -> None:
    printed, scanned = truths["uk_current"], truths["scanned"]
    assert scanned["opening_balance"] == printed["closing_balance"]
    assert scanned["account"] == printed["account"] == "***4528"
    assert date.fromisoformat(scanned["period"][0]) == date.fromisoformat(
        printed["period"][1]
    ) + timedelta(days=1)


@pytest.mark.parametrize("layout", list(PAGES))
def test_truth_reconciles(layout: str, truths: dict[str, Truth]) -> None:
    truth = truths[layout]
    rows = _rows(truth)
    amounts = [amount for _, amount, _ in rows]
    start, end = (date.fromisoformat(d) for d in truth["period"])
    assert 15 <= truth["transactions"] == len(rows) <= 40
    assert all(start <= day <= end for day, _, _ in rows)
    assert Decimal(truth["opening_balance"]) + sum(amounts) == Decimal(truth["closing_balance"])
    assert Decimal(truth["money_in"]) == sum(a for a in amounts if a > 0)
    assert Decimal(truth["money_out"]) == -sum(a for a in amounts if a < 0)
    fees = [-a for _, a, text in rows if re.search(FEES[layout], text)]
    assert Decimal(truth["fees"]) == sum(fees) > 0
    for value in (
        truth["opening_balance"],
        truth["closing_balance"],
        *(r[1] for r in truth["rows"]),
    ):
        assert re.fullmatch(r"-?\d+\.\d{2}", value)


@pytest.mark.parametrize("layout", list(PAGES))
def test_checks_answer_from_the_rows(layout: str, truths: dict[str, Truth]) -> None:
    truth = truths[layout]
    rows = _rows(truth)
    checks = {check["kind"]: check for check in truth["checks"]}
    assert 3 <= len(truth["checks"]) <= 5
    merchant, pattern = MERCHANT[layout]
    spent = sum(-a for _, a, text in rows if a < 0 and re.search(pattern, text))
    assert checks["spend_at"]["merchant"] == merchant
    assert Decimal(checks["spend_at"]["answer"]) == spent > 0
    assert checks["fees"]["answer"] == truth["fees"]
    largest = checks["largest_purchase"]
    assert (date.fromisoformat(largest["date"]), -Decimal(largest["answer"])) in {
        (day, amount) for day, amount, _ in rows
    }
    if layout == "credit_card":
        interest = [-a for _, a, text in rows if text == "INTEREST CHARGED"]
        assert checks["interest"]["answer"] == truth["interest"] == f"{sum(interest):.2f}"
    else:
        assert checks["money_in"]["answer"] == truth["money_in"]


def test_card_terms(truths: dict[str, Truth]) -> None:
    card = truths["credit_card"]
    due, minimum = Decimal(card["amount_due"]), Decimal(card["minimum_payment"])
    assert due == -Decimal(card["closing_balance"]) > 0
    assert minimum == min(
        due, max(Decimal("50.00"), (due * Decimal("0.03")).quantize(Decimal("0.01")))
    )
    assert card["due_date"] == "2023-11-13"
    assert (card["credit_limit"], card["apr"], card["currency"]) == ("12000.00", "24.99", "SGD")
    payments = [a for _, a, text in _rows(card) if text.startswith("FAST PAYMENT")]
    assert len(payments) == 1 and payments[0] > 0


def test_uk_running_balances(generated: list[Path], truths: dict[str, Truth]) -> None:
    """Every balance the Balance column prints is the running balance after some row, in order."""
    truth = truths["uk_current"]
    document = pdfium.PdfDocument(generated[0].parent / truth["file"])
    try:
        printed = []
        x, w = UK_BALANCE
        for page in document:
            column = page.get_textpage().get_text_bounded(
                left=x * MM, bottom=0, right=(x + w) * MM, top=page.get_height()
            )
            printed += [
                Decimal(line.replace(",", "")) for line in column.split() if MONEY.fullmatch(line)
            ]
    finally:
        document.close()
    running = [Decimal(truth["opening_balance"])]
    for _, amount, _ in _rows(truth):
        running.append(running[-1] + amount)
    assert printed[0] == running[0] and printed[-1] == running[-1]
    position = 0
    for balance in printed:
        while running[position] != balance:
            position += 1
            assert position < len(running), f"{balance} is no running balance after {printed}"
    days = {day for day, _, _ in _rows(truth)}
    assert len(printed) >= len(days) + 2


def test_us_daily_ending_balances(generated: list[Path], truths: dict[str, Truth]) -> None:
    truth = truths["us_checking"]
    text = " ".join(_pages(generated[0].parent / truth["file"]))
    table = text.split("DAILY ENDING BALANCE")[1].split("BALANCING YOUR CHECKBOOK")[0]
    printed = {
        day: Decimal(amount.replace(",", ""))
        for day, amount in re.findall(r"(\d\d/\d\d) \$?(\d{1,3}(?:,\d{3})*\.\d{2})", table)
    }
    expected: dict[str, Decimal] = {}
    balance = Decimal(truth["opening_balance"])
    for day, amount, _ in sorted(_rows(truth), key=lambda row: row[0]):
        balance += amount
        expected[f"{day:%m/%d}"] = balance
    assert printed == expected
    assert list(expected.values())[-1] == Decimal(truth["closing_balance"])
