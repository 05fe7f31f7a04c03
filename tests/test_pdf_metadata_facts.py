"""Statement metadata and stated figures read from page words laid out where real statements
print them: a US checking statement with its checkbook worksheet, a UK current account, a German
Kontoauszug and card statement, a Singapore and a US credit card, an Australian home loan, labels
in five languages and a page that is no statement."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from itertools import pairwise

import pytest

from elastic.ingest.parsed import Box
from elastic.ingest.pdf.facts import (
    PdfFact,
    amount_at_end,
    find_money,
    misread_amount_at_end,
    read_facts,
)
from elastic.ingest.pdf.metadata import StatementMetadata, read_metadata
from elastic.ingest.pdf.page_words import PageText, Word

LETTER = (612.0, 792.0)
A4 = (595.0, 842.0)
SIZE = 9.0  # font size in points: a character is half as wide, a space 0.28 of it


def row(top: float, *cells: tuple[float, str], size: float = SIZE) -> list[Word]:
    """One printed line: each cell's words set from its x position, single-spaced."""
    words = []
    for x, text in cells:
        for part in text.split(" "):
            width = len(part) * size * 0.5
            words.append(Word(part, (x, top, x + width, top + size)))
            x += width + size * 0.28
    for before, after in pairwise(words):
        assert before.box[2] < after.box[0], f"cells overlap at {after.text!r}"
    return words


def page(number: int, rows: list[list[Word]], size: tuple[float, float] = LETTER) -> PageText:
    """A page whose text groups its words line by line, top to bottom, as the page reader does."""
    rows = sorted(rows, key=lambda r: r[0].box[1])
    words = [word for r in rows for word in r]
    text = "\n".join(" ".join(word.text for word in r) for r in rows)
    return PageText(number, size[0], size[1], words, text)


def covers(box: Box, *parts: str, page_: PageText) -> bool:
    """``box`` holds every word of one place where the page prints each part."""

    def inside(word: Word) -> bool:
        x0, top, x1, bottom = word.box
        return box[0] <= x0 and box[1] <= top and x1 <= box[2] and bottom <= box[3]

    def held(part: str) -> bool:
        texts = part.split(" ")
        return any(
            [w.text for w in page_.words[i : i + len(texts)]] == texts
            and all(inside(w) for w in page_.words[i : i + len(texts)])
            for i in range(len(page_.words))
        )

    return all(held(part) for part in parts)


def by_name(facts: list[PdfFact]) -> dict[str, PdfFact]:
    names = [f.name for f in facts]
    assert len(names) == len(set(names)), names
    return {f.name: f for f in facts}


# --- a US checking statement ---------------------------------------------------------------------

CHASE_1 = page(
    1,
    [
        row(36, (36, "JPMorgan Chase Bank, N.A.")),
        row(47, (36, "P O Box 182051")),
        row(58, (36, "Columbus, OH 43218 - 2051"), (370, "July 1, 2022 through July 31, 2022")),
        row(72, (370, "Account Number: 000000123456789")),
        row(130, (36, "JOHN DOE")),
        row(141, (36, "123 MAIN ST")),
        row(152, (36, "ANYTOWN NY 10001-1234")),
        row(240, (36, "CHECKING SUMMARY"), (430, "Chase Total Checking")),
        row(254, (300, "INSTANCES"), (420, "AMOUNT")),
        row(266, (36, "Beginning Balance"), (420, "$1,234.56")),
        row(278, (36, "Deposits and Additions"), (320, "3"), (430, "2,000.00")),
        row(290, (36, "ATM & Debit Card Withdrawals"), (320, "4"), (432, "-500.00")),
        row(302, (36, "Ending Balance"), (320, "7"), (420, "$2,734.56")),
        row(340, (36, "TRANSACTION DETAIL")),
        row(354, (36, "DATE"), (80, "DESCRIPTION"), (420, "AMOUNT"), (500, "BALANCE")),
        row(366, (80, "Beginning Balance"), (500, "$1,234.56")),
        row(
            378,
            (36, "07/05"),
            (80, "Payroll Deposit ACME CORP"),
            (430, "2,000.00"),
            (500, "3,234.56"),
        ),
        row(
            390,
            (36, "07/12"),
            (80, "Card Purchase 07/11 Whole Foods"),
            (432, "-500.00"),
            (500, "2,734.56"),
        ),
        row(402, (80, "Ending Balance"), (500, "$2,734.56")),
        row(760, (36, "Page 1 of 2")),
    ],
)
CHASE_WORKSHEET = page(
    2,
    [
        row(60, (200, "BALANCING YOUR CHECKBOOK")),
        row(
            80,
            (
                36,
                "Note: Ensure your checkbook register is up to date with all transactions to date.",
            ),
        ),
        row(100, (36, "Ending balance"), (120, "______________")),
        row(112, (36, "$ 150.00")),
        row(124, (36, "Add deposits not shown on this statement:")),
        row(136, (36, "Date"), (120, "Amount")),
        row(148, (36, "________"), (120, "$ __________")),
        row(
            160,
            (36, "Ending Balance ________ minus outstanding checks ________ equals your balance"),
        ),
        row(760, (36, "Page 2 of 2")),
    ],
)


def test_us_checking_metadata() -> None:
    assert read_metadata([CHASE_1, CHASE_WORKSHEET]) == StatementMetadata(
        bank_name="Chase",
        account_no="000000123456789",
        period=(date(2022, 7, 1), date(2022, 7, 31)),
        currency="USD",
        is_card=False,
    )


def test_us_checking_summary() -> None:
    facts = by_name(read_facts([CHASE_1, CHASE_WORKSHEET], "USD"))
    # No single total of money out is printed: a kind of withdrawal is not one.
    assert set(facts) == {"opening_balance", "money_in", "closing_balance"}
    assert facts["opening_balance"].amount == Decimal("1234.56")
    assert facts["money_in"].amount == Decimal("2000.00")  # not the 3 instances
    assert facts["closing_balance"].amount == Decimal("2734.56")
    for fact in facts.values():
        assert fact.page == 1 and fact.day is None
    opening, closing = facts["opening_balance"], facts["closing_balance"]
    assert opening.label == "Beginning Balance" and closing.label == "Ending Balance"
    assert covers(opening.box, "Beginning Balance", "$1,234.56", page_=CHASE_1)
    assert covers(closing.box, "Ending Balance", "$2,734.56", page_=CHASE_1)
    assert closing.box[1] == 302 and closing.box[2] == 420 + 9 * 4.5  # the summary's line


def test_checkbook_worksheet_gives_nothing() -> None:
    assert read_facts([CHASE_WORKSHEET], "USD") == []


# --- a UK current account ------------------------------------------------------------------------

SANTANDER = page(
    1,
    [
        row(40, (380, "Statement number: 03")),
        row(60, (40, "MR JOHN SMITH")),
        row(71, (40, "1 HIGH STREET")),
        row(82, (40, "LONDON SW1A 1AA")),
        row(120, (300, "Sort code 09-01-28 Account number 12345678")),
        row(160, (40, "Your account summary for 12th Feb 2022 to 11th Mar 2022")),
        row(180, (40, "Balance brought forward from 11th Feb Statement"), (450, "£1,000.00")),
        row(192, (40, "Total money in:"), (450, "£2,000.00")),
        row(204, (40, "Total money out:"), (450, "£1,500.00")),
        row(216, (40, "Your balance at close of business 11th Mar 2022"), (450, "£1,500.00")),
        row(
            250,
            (40, "Date"),
            (90, "Description"),
            (330, "Money in"),
            (410, "Money out"),
            (490, "Balance"),
        ),
        row(262, (40, "12th Feb"), (90, "BALANCE BROUGHT FORWARD"), (490, "1,000.00")),
        row(
            274,
            (40, "15th Feb"),
            (90, "CARD PAYMENT TO TESCO STORES"),
            (410, "1,500.00"),
            (490, "-500.00"),
        ),
        row(
            286,
            (40, "28th Feb"),
            (90, "BANK GIRO CREDIT REF ACME LTD"),
            (330, "2,000.00"),
            (490, "1,500.00"),
        ),
        row(
            800,
            (
                40,
                "Santander UK plc. Registered Office: 2 Triton Square, Regent's Place, "
                "London NW1 3AN.",
            ),
            size=6,
        ),
    ],
    A4,
)


def test_uk_current_account_metadata() -> None:
    assert read_metadata([SANTANDER]) == StatementMetadata(
        bank_name="Santander",
        account_no="12345678",
        sort_code="09-01-28",
        period=(date(2022, 2, 12), date(2022, 3, 11)),
        currency="GBP",
    )


def test_uk_current_account_summary() -> None:
    facts = by_name(read_facts([SANTANDER], "GBP"))
    assert {name: f.amount for name, f in facts.items()} == {
        "opening_balance": Decimal("1000.00"),
        "money_in": Decimal("2000.00"),
        "money_out": Decimal("1500.00"),
        "closing_balance": Decimal("1500.00"),
    }
    closing = facts["closing_balance"]
    assert closing.label == "Your balance at close of business"
    assert covers(closing.box, "Your balance at close of business", "£1,500.00", page_=SANTANDER)
    assert closing.box[1] == 216  # the summary line, not the table
    assert covers(facts["money_in"].box, "Total money in:", "£2,000.00", page_=SANTANDER)


def test_table_column_titles_are_not_figures() -> None:
    table = page(1, [r for r in _rows(SANTANDER) if r[0].box[1] >= 250], A4)
    assert read_facts([table], "GBP") == [
        PdfFact(
            "opening_balance",
            Decimal("1000.00"),
            None,
            1,
            (90.0, 262.0, 490 + 8 * 4.5, 271.0),
            "BALANCE BROUGHT FORWARD",
        )
    ]


def _rows(p: PageText) -> list[list[Word]]:
    rows: dict[float, list[Word]] = {}
    for word in p.words:
        rows.setdefault(word.box[1], []).append(word)
    return list(rows.values())


# --- a German Kontoauszug ------------------------------------------------------------------------

POSTBANK = page(
    1,
    [
        row(30, (40, "Postbank Giro plus")),
        row(
            50,
            (40, "Kontoauszug: Postbank Giro plus vom 01.01.2020 bis 02.02.2020"),
            (470, "Seite 1 von 1"),
        ),
        row(90, (40, "Herrn")),
        row(101, (40, "Max Mustermann")),
        row(112, (40, "Musterstraße 1")),
        row(123, (40, "12345 Musterstadt")),
        row(150, (40, "Kontoinhaber: Max Mustermann")),
        row(162, (40, "IBAN DE89 3704 0044 0532 0130 00 BIC PBNKDEFF")),
        row(
            200,
            (40, "Buchung/Wert"),
            (120, "Vorgang/Buchungsinformation"),
            (420, "Soll"),
            (490, "Haben"),
        ),
        row(212, (40, "Alter Kontostand vom 31.12.2019"), (480, "1.234,56 EUR")),
        row(
            224,
            (40, "02.01./02.01."),
            (120, "Lastschrift Stadtwerke Musterstadt"),
            (420, "-246,91"),
        ),
        row(236, (40, "Neuer Kontostand vom 02.02.2020"), (480, "987,65 EUR")),
    ],
    A4,
)


def test_german_statement_metadata() -> None:
    assert read_metadata([POSTBANK]) == StatementMetadata(
        bank_name="Postbank",
        holder="Max Mustermann",
        iban="DE89370400440532013000",
        period=(date(2020, 1, 1), date(2020, 2, 2)),
        currency="EUR",
    )


def test_german_statement_balances() -> None:
    facts = by_name(read_facts([POSTBANK], "EUR"))
    assert set(facts) == {"opening_balance", "closing_balance"}
    opening, closing = facts["opening_balance"], facts["closing_balance"]
    assert (opening.amount, closing.amount) == (Decimal("1234.56"), Decimal("987.65"))
    assert (opening.label, closing.label) == ("Alter Kontostand", "Neuer Kontostand")
    assert covers(opening.box, "Alter Kontostand", "1.234,56 EUR", page_=POSTBANK)
    assert covers(closing.box, "Neuer Kontostand", "987,65 EUR", page_=POSTBANK)


# --- a Singapore credit card ---------------------------------------------------------------------

DBS_1 = page(
    1,
    [
        row(40, (40, "DBS Bank Ltd")),
        row(60, (40, "Credit Card Statement"), (330, "Card Number: 4119 XXXX XXXX 1234")),
        row(90, (40, "MS TAN MEI LING")),
        row(
            120,
            (40, "If you make only the minimum payment each month, you will pay more in interest."),
        ),
        row(
            160,
            (40, "Statement Date"),
            (140, "Credit Limit"),
            (240, "Minimum Payment"),
            (350, "Payment Due Date"),
            (470, "Total Amount Due"),
        ),
        row(
            174,
            (40, "15 Mar 2024"),
            (140, "S$10,000.00"),
            (240, "S$50.00"),
            (350, "08 Apr 2024"),
            (470, "S$1,234.56"),
        ),
        row(220, (40, "Date"), (100, "Description"), (480, "Amount (S$)")),
        row(232, (40, "16 Feb"), (100, "PREVIOUS BALANCE"), (480, "2,000.00")),
        row(244, (40, "20 Feb"), (100, "GRAB *TAXI SINGAPORE"), (480, "234.56")),
        row(256, (40, "01 Mar"), (100, "PAYMENT - DBS INTERNET/WIRELESS"), (480, "1,000.00 CR")),
        row(268, (100, "NEW BALANCE"), (480, "1,234.56")),
    ],
    A4,
)
DBS_2 = page(2, [row(60, (40, "Minimum Payment"), (300, "S$60.00"))], A4)


def test_singapore_card_metadata() -> None:
    assert read_metadata([DBS_1, DBS_2]) == StatementMetadata(
        bank_name="DBS",
        account_no="4119 XXXX XXXX 1234",
        currency="SGD",
        is_card=True,
        statement_date=date(2024, 3, 15),  # no period: the day it was made
    )


def test_singapore_card_summary_box() -> None:
    facts = by_name(read_facts([DBS_1, DBS_2], "SGD"))
    assert {name: (f.amount, f.day, f.page) for name, f in facts.items()} == {
        "credit_limit": (Decimal("10000.00"), None, 1),
        "minimum_payment": (Decimal("50.00"), None, 1),  # not page 2's, nor the sentence's
        "due_date": (None, date(2024, 4, 8), 1),
        "amount_due": (Decimal("1234.56"), None, 1),
        "opening_balance": (Decimal("2000.00"), None, 1),
        "closing_balance": (Decimal("1234.56"), None, 1),
    }
    assert covers(facts["credit_limit"].box, "Credit Limit", "S$10,000.00", page_=DBS_1)
    assert covers(facts["due_date"].box, "Payment Due Date", "08 Apr 2024", page_=DBS_1)
    assert facts["amount_due"].label == "Total Amount Due"
    label_width = 2 * 7 * 4.5 + 9 * 0.28  # "Minimum Payment", wider than "S$50.00" below it
    assert facts["minimum_payment"].box == pytest.approx((240, 160, 240 + label_width, 183))


# --- a US credit card ----------------------------------------------------------------------------

US_CARD = page(
    1,
    [
        row(40, (40, "Chase Freedom"), (330, "Manage your account online: www.chase.com/cardhelp")),
        row(100, (40, "ACCOUNT SUMMARY"), (330, "PAYMENT INFORMATION")),
        row(
            112, (40, "Account Number: XXXX XXXX XXXX 1234"), (330, "New Balance"), (480, "$123.45")
        ),
        row(
            124,
            (40, "Previous Balance"),
            (250, "$500.00"),
            (330, "Payment Due Date"),
            (480, "08/25/22"),
        ),
        row(
            136,
            (40, "Payment, Credits"),
            (250, "-$500.00"),
            (330, "Minimum Payment Due"),
            (480, "$25.00"),
        ),
        row(148, (40, "Purchases"), (250, "+$123.45")),
        row(160, (40, "Fees Charged"), (250, "$0.00")),
        row(172, (40, "Interest Charged"), (250, "$0.00")),
        row(184, (40, "New Balance"), (250, "$123.45")),
        row(196, (40, "Opening/Closing Date"), (200, "07/01/22 - 07/31/22")),
        row(208, (40, "Credit Access Line"), (250, "$5,000")),
        row(220, (40, "Available Credit"), (250, "$4,876")),
        row(
            260,
            (40, "Minimum Payment Warning: If you make only the minimum payment each period, you"),
        ),
        row(
            271,
            (40, "will pay more in interest and it will take you longer to pay off your balance."),
        ),
        row(300, (40, "INTEREST CHARGES")),
        row(
            312,
            (40, "Balance Type"),
            (140, "Annual Percentage Rate (APR)"),
            (300, "Balance Subject To Interest Rate"),
            (480, "Interest Charges"),
        ),
        row(324, (40, "Purchases"), (140, "24.99%(v)(d)"), (300, "$0.00"), (480, "$0.00")),
        row(336, (40, "Cash Advances"), (140, "29.99%(v)(d)"), (300, "$0.00"), (480, "$0.00")),
    ],
)


def test_us_card() -> None:
    meta = read_metadata([US_CARD])
    assert meta == StatementMetadata(
        bank_name="Chase",
        account_no="XXXX XXXX XXXX 1234",
        period=(date(2022, 7, 1), date(2022, 7, 31)),
        currency="USD",
        is_card=True,
    )
    facts = by_name(read_facts([US_CARD], meta.currency))
    assert {name: f.amount if f.day is None else f.day for name, f in facts.items()} == {
        "closing_balance": Decimal("123.45"),
        "opening_balance": Decimal("500.00"),
        "due_date": date(2022, 8, 25),  # month first: the statement writes 07/31/22
        "minimum_payment": Decimal("25.00"),
        "fees": Decimal("0.00"),
        "interest": Decimal("0.00"),
        "credit_limit": Decimal("5000.00"),
        "apr": Decimal("24.99"),
    }
    assert facts["closing_balance"].box == (330.0, 112.0, 480 + 7 * 4.5, 121.0)
    assert covers(facts["apr"].box, "Annual Percentage Rate (APR)", "24.99%(v)(d)", page_=US_CARD)


# --- an Australian home loan ---------------------------------------------------------------------

ANZ_LOAN = page(
    1,
    [
        row(30, (40, "ANZ")),
        row(60, (40, "Home Loan Statement")),
        row(80, (40, "Statement period 01/07/2023 to 31/12/2023")),
        row(100, (40, "Account name"), (160, "JOHN CITIZEN & JANE CITIZEN")),
        row(112, (40, "BSB"), (160, "012-345")),
        row(124, (40, "Account number"), (160, "5678-12345")),
        row(136, (40, "Interest rate"), (160, "6.49% p.a. variable")),
        row(160, (40, "Opening balance"), (450, "$350,123.45 DR")),
        row(172, (40, "Total credits"), (450, "$12,000.00")),
        row(184, (40, "Total debits"), (450, "$11,400.00")),
        row(196, (40, "Closing balance"), (450, "$349,523.45 DR")),
        row(220, (40, "Interest charged"), (450, "$11,390.00")),
        row(232, (40, "Fees"), (450, "$10.00")),
        row(
            800,
            (40, "Australia and New Zealand Banking Group Limited ABN 11 005 357 522"),
            size=6,
        ),
    ],
    A4,
)


def test_home_loan() -> None:
    assert read_metadata([ANZ_LOAN]) == StatementMetadata(
        bank_name="ANZ",
        account_name="Home Loan",  # the product, from "Home Loan Statement"
        holder="JOHN CITIZEN & JANE CITIZEN",
        account_no="5678-12345",
        sort_code="012-345",
        period=(date(2023, 7, 1), date(2023, 12, 31)),
        currency="AUD",  # "$" from an Australian bank
        is_loan=True,
    )
    facts = by_name(read_facts([ANZ_LOAN], "AUD"))
    assert {name: f.amount for name, f in facts.items()} == {
        "opening_balance": Decimal("-350123.45"),
        "money_in": Decimal("12000.00"),
        "money_out": Decimal("11400.00"),
        "closing_balance": Decimal("-349523.45"),
        "interest": Decimal("11390.00"),  # not the 6.49% rate
        "fees": Decimal("10.00"),
    }
    assert covers(facts["opening_balance"].box, "Opening balance", "$350,123.45 DR", page_=ANZ_LOAN)


# --- no statement --------------------------------------------------------------------------------

NOT_A_STATEMENT = page(
    1,
    [
        row(72, (72, "Meeting notes, 14 March 2024")),
        row(90, (72, "Attendees: Alice, Bob, Carol")),
        row(108, (72, "We agreed to move the launch to next quarter and review the budget.")),
        row(126, (72, "Action items are listed below.")),
    ],
)


@pytest.mark.parametrize(
    "pages",
    [
        [NOT_A_STATEMENT],
        [],
        [PageText(1, 612, 792, [], "", problem="page 1 has no text; it needs OCR")],
    ],
)
def test_nothing_recognisable(pages: list[PageText]) -> None:
    assert read_metadata(pages) == StatementMetadata()
    assert read_facts(pages, None) == []


def test_first_line_names_an_unknown_bank() -> None:
    letterhead = page(1, [row(30, (40, "Ozark Valley Savings")), *_rows(SANTANDER)[1:-1]], A4)
    assert read_metadata([letterhead]).bank_name == "Ozark Valley Savings"


@pytest.mark.parametrize(
    ("lines", "bank"),
    [
        ([[(40, "Harbour & Crane Bank Your Statement")]], "Harbour & Crane Bank"),
        ([[(40, "HARBOUR & CRANE BANK PLC")]], "HARBOUR & CRANE BANK"),
        (
            [[(40, "July 1, 2022 through July 31, 2022")], [(40, "Tallgrass Meridian Bank")]],
            "Tallgrass Meridian Bank",
        ),
        ([[(40, "Merlion Quay Bank Credit Card Statement")]], "Merlion Quay Bank"),
        ([[(40, "Polderhaven Bank Statement of account")]], "Polderhaven Bank"),
        ([[(40, "Tallgrass Meridian Bank, N.A.")]], "Tallgrass Meridian Bank"),
        ([[(40, "Kontoauszug 3/2024")], [(40, "Nordlicht Sparkasse")]], "Nordlicht Sparkasse"),
        ([[(40, "Kontoauszug Nordlicht Volksbank eG")]], "Nordlicht Volksbank"),
        ([[(40, "Riverside Federal Credit Union")]], "Riverside Federal Credit Union"),
        ([[(40, "Banco Rivera S.A. Extracto de cuenta")]], "Banco Rivera"),
        ([[(40, "Bank of Avalon Statement")]], "Bank of Avalon"),
        # A known bank's name with banking words only is the known bank.
        ([[(40, "Lloyds Bank plc")], [(40, "Your statement")]], "Lloyds"),
        ([[(40, "JPMorgan Chase Bank, N.A.")]], "Chase"),
        # Titles and account names that end in "Bank" name no bank.
        ([[(40, "Your Bank Account details")], [(40, "Bank Current Account")]], None),
        ([[(40, "Your Credit Card Bank Statement")]], None),
    ],
)
def test_bank_named_on_the_first_lines(
    lines: list[list[tuple[float, str]]], bank: str | None
) -> None:
    header = page(1, [row(30 + 12 * i, *cells) for i, cells in enumerate(lines)], A4)
    assert read_metadata([header]).bank_name == bank


def test_a_known_bank_inside_a_longer_name_keeps_its_country() -> None:
    header = page(1, [row(30, (40, "Harbourside Commonwealth Bank")), row(60, (40, "$10.00"))])
    meta = read_metadata([header])
    assert (meta.bank_name, meta.currency) == ("Harbourside Commonwealth Bank", "AUD")


# --- labels in other languages and layouts -------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (
            [[(40, "Rekeningnummer NL91 ABNA 0417 1643 00")]],
            {"account_no": "NL91 ABNA 0417 1643 00"},
        ),
        # The holder's name is the holder's, never the account's.
        ([[(40, "Titulaire du compte : M. JEAN DUPONT")]], {"holder": "M. JEAN DUPONT"}),
        (
            [[(40, "N.º de cuenta: 0049 1234 56 1234567890"), (330, "Titular: ANA GARCÍA LÓPEZ")]],
            {"account_no": "0049 1234 56 1234567890", "holder": "ANA GARCÍA LÓPEZ"},
        ),
        ([[(40, "Card number ending in ****1234")]], {"account_no": "****1234"}),
        ([[(40, "Konto-Nr. 1234567890"), (300, "BLZ 100 100 10")]], {"account_no": "1234567890"}),
        (
            [[(40, "Sortcode 40-12-34 Account Number 12345678")]],
            {"sort_code": "40-12-34", "account_no": "12345678"},
        ),
        # The value under its label, as a header box prints it.
        ([[(40, "Account Number")], [(40, "000000123456789")]], {"account_no": "000000123456789"}),
        ([[(40, "Account name:"), (160, "MR JOHN SMITH")]], {"holder": "MR JOHN SMITH"}),
        # An account name that names a product, or a product's label, names the account.
        (
            [[(40, "Account name:"), (160, "Everyday Checking")]],
            {"account_name": "Everyday Checking"},
        ),
        ([[(40, "Kontoart"), (160, "Girokonto Plus")]], {"account_name": "Girokonto Plus"}),
        (
            [
                [(40, "Product"), (300, "Opening balance")],
                [(40, "Account (Current Account)"), (300, "€0.01")],
            ],
            {"account_name": "Account (Current Account)"},
        ),
        # "Account" alone labels an IBAN, and nothing else.
        (
            [[(40, "S. van Dijkhorst"), (300, "Account NL91 PLDH 0417 2839 56")]],
            {"iban": "NL91PLDH0417283956"},
        ),
        ([[(40, "Account 12345678")]], {}),
        # A masked IBAN is kept as printed; a number that fails the check is no IBAN.
        ([[(40, "IBAN: DE89 **** **** **** 3000 00")]], {"iban": "DE89************300000"}),
        ([[(40, "IBAN: DE00 3704 0044 0532 0130 00")]], {}),
        # A label whose value is a blank to fill in, or text, has no value.
        ([[(40, "Account number ____________")]], {}),
        ([[(40, "Please quote your account number when you call us.")]], {}),
    ],
)
def test_labelled_details(rows: list[list[tuple[float, str]]], expected: dict[str, str]) -> None:
    header = page(1, [row(100 + 12 * i, *cells) for i, cells in enumerate(rows)])
    meta = read_metadata([header])
    fields = ("account_no", "account_name", "holder", "sort_code", "iban")
    assert {f: getattr(meta, f) for f in fields if getattr(meta, f)} == expected


KREDITKARTE = page(
    1,
    [
        row(40, (40, "Commerzbank AG")),
        row(60, (40, "Kreditkartenabrechnung"), (330, "Kartennummer 5232 XXXX XXXX 9876")),
        row(72, (40, "Abrechnungszeitraum 16.02.2024 - 15.03.2024")),
        row(100, (40, "Anfangssaldo"), (250, "120,00 EUR")),
        row(112, (40, "Summe Soll"), (250, "345,67 EUR")),
        row(124, (40, "Summe Haben"), (250, "120,00 EUR")),
        row(136, (40, "Entgelte"), (250, "1,50 EUR")),
        row(148, (40, "Zinsen"), (250, "0,00 EUR")),
        row(160, (40, "Endsaldo"), (250, "347,17 EUR")),
        row(184, (40, "Kreditrahmen"), (250, "2.500,00 EUR")),
        row(196, (40, "Mindestbetrag"), (250, "34,72 EUR")),
        row(208, (40, "Fällig am 05.04.2024")),
    ],
    A4,
)


def test_german_card_statement() -> None:
    assert read_metadata([KREDITKARTE]) == StatementMetadata(
        bank_name="Commerzbank",
        account_no="5232 XXXX XXXX 9876",
        period=(date(2024, 2, 16), date(2024, 3, 15)),
        currency="EUR",
        is_card=True,
    )
    facts = by_name(read_facts([KREDITKARTE], "EUR"))
    assert {name: f.amount if f.day is None else f.day for name, f in facts.items()} == {
        "opening_balance": Decimal("120.00"),
        "money_out": Decimal("345.67"),
        "money_in": Decimal("120.00"),
        "fees": Decimal("1.50"),
        "interest": Decimal("0.00"),
        "closing_balance": Decimal("347.17"),
        "credit_limit": Decimal("2500.00"),
        "minimum_payment": Decimal("34.72"),
        "due_date": date(2024, 4, 5),
    }
    assert covers(facts["due_date"].box, "Fällig am", "05.04.2024", page_=KREDITKARTE)


@pytest.mark.parametrize(
    ("cells", "name", "amount"),
    [
        ([(40, "Solde précédent"), (400, "1 234,56 €")], "opening_balance", Decimal("1234.56")),
        (
            [(40, "Nouveau solde au 31/01/2021"), (400, "2 345,67 €")],
            "closing_balance",
            Decimal("2345.67"),
        ),
        ([(40, "Saldo anterior"), (400, "1.000,00")], "opening_balance", Decimal("1000.00")),
        ([(40, "Saldo final"), (400, "-900,00")], "closing_balance", Decimal("-900.00")),
        ([(40, "Beginsaldo"), (400, "€ 100,00")], "opening_balance", Decimal("100.00")),
        ([(40, "Eindsaldo"), (400, "€ 50,00-")], "closing_balance", Decimal("-50.00")),
        ([(40, "Frais"), (400, "(12,00)")], "fees", Decimal("-12.00")),
        ([(40, "Service charge"), (400, "$12.00")], "fees", Decimal("12.00")),
        ([(40, "Purchase APR"), (400, "19.99% (v)")], "apr", Decimal("19.99")),
        # "Account" labels only an IBAN after it; it does not cut a figure's label short.
        ([(40, "Interest paid to your account"), (400, "£1.23")], "interest", Decimal("1.23")),
    ],
)
def test_figure_labels(cells: list[tuple[float, str]], name: str, amount: Decimal) -> None:
    assert [(f.name, f.amount) for f in read_facts([one_line(*cells)], None)] == [(name, amount)]


def test_payments_and_credits_are_money_in() -> None:
    summary = page(
        1,
        [
            row(
                60,
                (40, "Previous balance"),
                (130, "Payments and credits"),
                (240, "Purchases"),
                (320, "Total amount due"),
            ),
            row(
                72, (40, "S$1,492.75"), (130, "S$819.40 CR"), (240, "S$684.01"), (320, "S$1,577.36")
            ),
        ],
    )
    facts = by_name(read_facts([summary], "SGD"))
    assert {name: f.amount for name, f in facts.items()} == {
        "opening_balance": Decimal("1492.75"),
        "money_in": Decimal("819.40"),
        "amount_due": Decimal("1577.36"),
    }
    assert covers(facts["money_in"].box, "Payments and credits", "S$819.40 CR", page_=summary)


def kontoauszug_page(number: int, debit: str, credit: str) -> PageText:
    return page(
        number,
        [
            row(100, (40, "Buchungstag"), (100, "Verwendungszweck"), (420, "Soll"), (490, "Haben")),
            row(112, (40, "01.03."), (100, "Lastschrift Stadtwerke"), (410, debit)),
            row(124, (40, "28.03."), (100, "Gutschrift Lohn"), (480, credit)),
            row(136, (100, "Summe der Umsätze"), (410, debit), (480, credit)),
        ],
        A4,
    )


def test_column_totals_under_debit_and_credit_titles() -> None:
    """A totals line gives money out and in by the column each amount is printed under; where
    every page prints its totals, the last page's are the statement's."""
    first, last = kontoauszug_page(1, "12,00", "0,00"), kontoauszug_page(2, "84,00", "3.147,38")
    facts = by_name(read_facts([first, last], "EUR"))
    assert {name: (f.amount, f.page) for name, f in facts.items()} == {
        "money_out": (Decimal("84.00"), 2),
        "money_in": (Decimal("3147.38"), 2),
    }
    assert covers(facts["money_out"].box, "Summe der Umsätze", "84,00", page_=last)
    assert facts["money_in"].label == "Summe der Umsätze"


@pytest.mark.parametrize(
    "rows",
    [
        # One Amount column: a total says nothing of which way the money went.
        [
            [(40, "DATE"), (90, "DESCRIPTION"), (480, "AMOUNT")],
            [(40, "07/03"), (90, "Remote Online Deposit"), (480, "$337.41")],
            [(40, "Total"), (480, "$337.41")],
        ],
        # Words before the amounts: not a line of column totals.
        [
            [(40, "Date"), (90, "Details"), (410, "Paid out"), (480, "Paid in")],
            [(40, "03 Feb"), (90, "CAFE NERO"), (410, "45.00")],
            [(40, "Total of 1 item"), (410, "45.00")],
        ],
        # No table above the line.
        [[(40, "Total"), (410, "45.00"), (480, "12.00")]],
    ],
)
def test_totals_that_are_not_column_totals(rows: list[list[tuple[float, str]]]) -> None:
    lines = page(1, [row(100 + 12 * i, *cells) for i, cells in enumerate(rows)])
    assert read_facts([lines], "USD") == []


def test_text_that_does_not_spell_the_words_is_not_read() -> None:
    broken = PageText(1, 612, 792, CHASE_1.words[:5], "Ending Balance $9.99")
    assert read_facts([broken], "USD") == []


# --- periods, currencies, amounts ----------------------------------------------------------------


def one_line(*cells: tuple[float, str]) -> PageText:
    return page(1, [row(100, *cells)])


@pytest.mark.parametrize(
    ("cells", "period"),
    [
        (
            [(40, "Statement period: 2024-01-01 to 2024-01-31")],
            (date(2024, 1, 1), date(2024, 1, 31)),
        ),
        ([(40, "July 1, 2022 through July 31, 2022")], (date(2022, 7, 1), date(2022, 7, 31))),
        ([(40, "12th Feb 2022 to 11th Mar 2022")], (date(2022, 2, 12), date(2022, 3, 11))),
        ([(40, "01/01/2020 - 31/01/2020")], (date(2020, 1, 1), date(2020, 1, 31))),
        ([(40, "Kontoauszug vom 01.01.2020 bis 02.02.2020")], (date(2020, 1, 1), date(2020, 2, 2))),
        (
            [(40, "Kontoauszug Nr. 3"), (200, "01.03.2021 - 31.03.2021")],
            (date(2021, 3, 1), date(2021, 3, 31)),
        ),
        ([(40, "du 1er janvier 2021 au 31 janvier 2021")], (date(2021, 1, 1), date(2021, 1, 31))),
        (
            [(40, "Extracto del 1 de enero de 2021 al 31 de enero de 2021")],
            (date(2021, 1, 1), date(2021, 1, 31)),
        ),
        (
            [(40, "Periode 1 januari 2021 tot en met 31 januari 2021")],
            (date(2021, 1, 1), date(2021, 1, 31)),
        ),
        ([(40, "Opening/Closing Date 07/01/22 - 07/31/22")], (date(2022, 7, 1), date(2022, 7, 31))),
        ([(40, "Summary"), (300, "Balance")], None),
    ],
)
def test_period_phrasings(cells: list[tuple[float, str]], period: tuple[date, date] | None) -> None:
    assert read_metadata([one_line(*cells)]).period == period


def test_period_from_opening_and_statement_dates() -> None:
    labelled = page(
        1,
        [
            row(60, (40, "Opening date"), (160, "16 February 2024")),
            row(72, (40, "Statement date"), (160, "15 March 2024")),
        ],
    )
    assert read_metadata([labelled]).period == (date(2024, 2, 16), date(2024, 3, 15))


def test_period_from_the_previous_statement_date() -> None:
    labelled = page(
        1,
        [
            row(60, (40, "Statement date"), (160, "18 Oct 2023")),
            row(72, (40, "Previous statement date"), (160, "18 Sep 2023")),
        ],
    )
    assert read_metadata([labelled]).period == (date(2023, 9, 19), date(2023, 10, 18))


def test_a_statement_date_alone_is_no_period() -> None:
    dated = page(1, [row(60, (340, "Statement date 18 Oct 2023"))])
    assert read_metadata([dated]).period is None


@pytest.mark.parametrize(
    ("cells", "period"),
    [
        # Nothing shows the order: month first for a US bank's dollars, else day first.
        (
            [(40, "Wells Fargo"), (200, "03/01/2022 - 04/01/2022"), (400, "$10.00")],
            (date(2022, 3, 1), date(2022, 4, 1)),
        ),
        (
            [(40, "Barclays"), (200, "03/01/2022 - 04/01/2022"), (400, "£10.00")],
            (date(2022, 1, 3), date(2022, 1, 4)),
        ),
    ],
)
def test_numeric_date_order(cells: list[tuple[float, str]], period: tuple[date, date]) -> None:
    assert read_metadata([one_line(*cells)]).period == period


@pytest.mark.parametrize(
    ("cells", "currency"),
    [
        ([(40, "Balance"), (200, "S$ 1,234.56")], "SGD"),
        ([(40, "Commonwealth Bank"), (200, "$1,234.56")], "AUD"),
        ([(40, "Balance"), (200, "$1,234.56")], "USD"),
        ([(40, "Saldo"), (200, "1.234,56 €")], "EUR"),
        ([(40, "Währung: CHF"), (200, "1'234.56 EUR")], "CHF"),
        ([(40, "Balance"), (200, "1,234.56")], None),
    ],
)
def test_currency(cells: list[tuple[float, str]], currency: str | None) -> None:
    assert read_metadata([one_line(*cells)]).currency == currency


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("$1,234.56", Decimal("1234.56")),
        ("1.234,56 EUR", Decimal("1234.56")),
        ("-500.00", Decimal("-500.00")),
        ("500,00-", Decimal("-500.00")),
        ("(1,234.56)", Decimal("-1234.56")),
        ("1,234.56 CR", Decimal("1234.56")),
        ("1,234.56 DR", Decimal("-1234.56")),
        ("-$45.00", Decimal("-45.00")),
        ("$-45.00", Decimal("-45.00")),
        ("S$ 10,000", Decimal("10000.00")),
        ("1 234,56 €", Decimal("1234.56")),
        ("1'234.50", Decimal("1234.50")),
        ("12,5", Decimal("12.50")),
        ("7", None),
        ("24.99%", None),
        ("31.03.2021", None),
        ("11th", None),
    ],
)
def test_amounts(text: str, amount: Decimal | None) -> None:
    found = [money.amount for _, _, money in find_money(text)]
    assert found == ([amount] if amount is not None else [])


@pytest.mark.parametrize(
    ("line", "read", "misread"),
    [
        ("DD BRACKENFORD BC CTAX 143.00", Decimal("143.00"), None),
        ("12 Mar REFUND 12.50 CR", Decimal("12.50"), None),
        ("22 Feb SPARK NZ 4O.00", None, "4O.00"),
        ("03 Mar KITE SHOP 1,2l5.50", None, "1,2l5.50"),
        ("Page 2 of 3", None, None),
        ("Invoice 2024", None, None),
        ("SPARK NZ", None, None),
    ],
)
def test_the_amount_a_printed_line_ends_in(
    line: str, read: Decimal | None, misread: str | None
) -> None:
    found = amount_at_end(line)
    assert (found.amount if found else None) == read
    assert misread_amount_at_end(line) == misread


DATED_BALANCES = page(
    1,
    [
        row(60, (40, "Your statement 1 March to 31 March 2024")),
        row(100, (40, "Balance at 1 March 2024"), (450, "£1,000.00")),
        row(112, (40, "Money in"), (450, "£2,000.00")),
        row(124, (40, "Money out"), (450, "£1,500.00")),
        row(136, (40, "Balance at 31 March 2024"), (450, "£1,500.00")),
    ],
    A4,
)


def test_balances_named_by_their_dates_are_the_opening_and_closing_ones() -> None:
    facts = by_name(read_facts([DATED_BALANCES], "GBP"))
    opening, closing = facts["opening_balance"], facts["closing_balance"]
    assert (opening.amount, closing.amount) == (Decimal("1000.00"), Decimal("1500.00"))
    assert opening.label == "Balance at 1 March 2024"
    assert covers(closing.box, "Balance at 31 March 2024", "£1,500.00", page_=DATED_BALANCES)
    german = page(
        1,
        [
            row(100, (40, "Kontostand am 31.03.2024"), (450, "1.500,00 EUR")),
            row(136, (40, "Kontostand am 01.03.2024"), (450, "1.000,00 EUR")),
        ],
    )
    amounts = {f.name: f.amount for f in read_facts([german], "EUR")}
    assert amounts == {"opening_balance": Decimal("1000.00"), "closing_balance": Decimal("1500.00")}
    # One dated balance says nothing of which it is.
    alone = page(1, [row(100, (40, "Balance at 31 March 2024"), (450, "£1,500.00"))])
    assert read_facts([alone], "GBP") == []


@pytest.mark.parametrize(
    ("printed", "period"),
    [
        ("Your statement 1 March to 31 March 2024", ("2024-03-01", "2024-03-31")),
        ("From 1 Mar to 31 Mar 2024", ("2024-03-01", "2024-03-31")),
        ("March 1 - 31, 2024", ("2024-03-01", "2024-03-31")),
        ("March 1 through March 31, 2024", ("2024-03-01", "2024-03-31")),
        ("1 - 31 March 2024", ("2024-03-01", "2024-03-31")),
        ("15 December to 14 January 2024", ("2023-12-15", "2024-01-14")),
        ("Statement period 12th Feb to 11th Mar 2022", ("2022-02-12", "2022-03-11")),
        ("Vom 1. März bis 31. März 2024", ("2024-03-01", "2024-03-31")),
        ("Du 1er mars au 31 mars 2024", ("2024-03-01", "2024-03-31")),
        ("Page 1 to 3 March 2024", None),
        ("Printed on 3 March 2024", None),
    ],
)
def test_a_period_whose_first_date_leaves_out_what_the_last_says(
    printed: str, period: tuple[str, str] | None
) -> None:
    found = read_metadata([page(1, [row(60, (40, printed))], A4)]).period
    assert found == (tuple(date.fromisoformat(d) for d in period) if period else None)


def test_a_summary_table_gives_its_first_row_under_labels_printed_over_two_lines() -> None:
    summary_table = page(
        1,
        [
            row(100, (40, "Balance summary")),
            row(
                130,
                (40, "Product"),
                (235, "Opening balance"),
                (330, "Money out"),
                (400, "Money in"),
                (480, "Closing"),
            ),
            row(139, (480, "balance")),
            row(
                160,
                (40, "Account (Current Account)"),
                (235, "€0.01"),
                (330, "€20.00"),
                (400, "€19.99"),
                (480, "€0.00"),
            ),
            row(
                174,
                (40, "Total"),
                (235, "€20.00"),
                (330, "€20.00"),
                (400, "€19.99"),
                (480, "€0.00"),
            ),
        ],
        A4,
    )
    amounts = {f.name: f.amount for f in read_facts([summary_table], "EUR")}
    assert amounts == {
        "opening_balance": Decimal("0.01"),
        "money_out": Decimal("20.00"),
        "money_in": Decimal("19.99"),
        "closing_balance": Decimal("0.00"),
    }
