"""OFX/QFX, CAMT.052/053/054, MT940/MT942 and QIF readers: what each file states, where, and
nothing invented."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from elastic.ingest import camt053, mt940, ofx, qif
from elastic.ingest.parsed import BalanceFact, ParsedFile, UnreadableFile

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
READERS = {"ofx": ofx, "camt": camt053, "mt940": mt940, "qif": qif}
REAL = Path(__file__).parent / "fixtures" / "real"


def fixture(name: str) -> Path:
    return FIXTURES / name


def locations(parsed: ParsedFile) -> tuple[list[str], list[str]]:
    return [r.location for r in parsed.rows], [p.location for p in parsed.problems]


@pytest.mark.parametrize(
    ("name", "format_name"),
    [
        ("ofx1_sgml_checking.ofx", "ofx"),
        ("ofx2_xml_creditcard.qfx", "ofx"),
        ("ofx_two_accounts.ofx", "ofx"),
        ("ofx_header_only.ofx", "ofx"),
        ("camt053_v02.xml", "camt"),
        ("camt053_v08_pending.xml", "camt"),
        ("mt940_german_structured.sta", "mt940"),
        ("mt940_two_statements.sta", "mt940"),
        ("mt940_bad_line.sta", "mt940"),
    ],
)
def test_each_format_is_recognised_only_by_its_own_reader(name: str, format_name: str):
    head = fixture(name).read_bytes()[:4096]
    assert {fmt for fmt, reader in READERS.items() if reader.sniff(head)} == {format_name}


@pytest.mark.parametrize(
    "head",
    [
        b"date,description,amount,currency\n2025-01-03,COFFEE,-4.50,USD\n",
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
        b'<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03">',
        b"{1:F01BANKBEBBAXXX0000000000}{2:I103BANKDEFFXXXXN}{4:\n:20:REF\n:32A:250103EUR10,\n",
    ],
    ids=["csv", "pdf", "pain.001", "mt103"],
)
def test_other_files_are_rejected_by_every_reader(head: bytes):
    assert not [fmt for fmt, reader in READERS.items() if reader.sniff(head)]


# OFX / QFX


def test_ofx1_sgml_checking_statement():
    parsed = ofx.read(fixture("ofx1_sgml_checking.ofx"))
    assert parsed.format == "ofx"
    assert locations(parsed) == (
        ["entry 1", "entry 2", "entry 3", "entry 4", "entry 6"],
        ["entry 5"],
    )
    assert "twelve" in parsed.problems[0].reason
    cafe, payroll, euroshop, check, water = parsed.rows
    assert (cafe.date, cafe.amount, cafe.transaction_id) == (
        date(2025, 1, 3),
        Decimal("-4.50"),
        "202501030001",
    )
    # Windows-1252 text, NAME with a MEMO that adds to it.
    assert cafe.description == "CAFÉ CRÈME #12 Débit card purchase"
    assert cafe.merchant is None  # no separate PAYEE in the file
    assert (payroll.amount, payroll.description) == (Decimal("2500.00"), "ACME PAYROLL")
    # Posted at midnight CET: still the 10th, as printed. Decimal comma; MEMO closed here only.
    assert (euroshop.date, euroshop.amount) == (date(2025, 1, 10), Decimal("-12.50"))
    assert euroshop.description == "EUROSHOP Card 1234"
    assert (check.description, check.amount) == ("CHECK 1043", Decimal("-150.00"))
    assert water.description == "CITY WATER Account 5566"
    for row in parsed.rows:
        assert (row.account_no, row.account_name, row.bank_name, row.currency) == (
            "1234567890",
            "Checking",
            "Maple Street Bank",
            "USD",
        )
        assert not row.pending and row.category is None and row.balance is None
    assert (parsed.account_no, parsed.account_name, parsed.bank_name, parsed.currency) == (
        "1234567890",
        "Checking",
        "Maple Street Bank",
        "USD",
    )
    assert parsed.period == (date(2025, 1, 1), date(2025, 1, 31))
    assert parsed.balances == [
        BalanceFact(
            "closing_balance",
            Decimal("3283.75"),
            "USD",
            date(2025, 1, 31),
            "STMTRS[1]/LEDGERBAL",
            "1234567890",
        ),
        BalanceFact(
            "available_balance",
            Decimal("3183.75"),
            "USD",
            date(2025, 1, 31),
            "STMTRS[1]/AVAILBAL",
            "1234567890",
        ),
    ]


def test_ofx2_xml_credit_card_statement():
    parsed = ofx.read(fixture("ofx2_xml_creditcard.qfx"))
    assert locations(parsed) == (["entry 1", "entry 2", "entry 3", "entry 4"], [])
    cafe, books, hotel, payment = parsed.rows
    assert (cafe.date, cafe.amount) == (date(2025, 2, 2), Decimal("-18.40"))
    assert cafe.merchant == "Café Zürich"  # the PAYEE aggregate
    assert cafe.description == "Café Zürich Lunch with team"
    assert (books.description, books.currency, books.merchant) == ("LONDON BOOKS LTD", "GBP", None)
    # ORIGCURRENCY only says what the amount was converted from: it stays in CURDEF.
    assert (hotel.description, hotel.currency) == ("HOTEL LISBOA 50.00 EUR", "USD")
    assert (payment.amount, payment.transaction_id) == (Decimal("200.00"), "CC-0004")
    assert (parsed.account_no, parsed.account_name, parsed.bank_name, parsed.currency) == (
        "4111222233334444",
        "Credit card",
        "Lakeside Card Services",
        "USD",
    )
    assert parsed.period == (date(2025, 2, 1), date(2025, 2, 28))
    assert [(b.name, b.amount, b.as_of) for b in parsed.balances] == [
        ("closing_balance", Decimal("-315.50"), date(2025, 2, 28))
    ]


def test_ofx_with_several_accounts_keeps_accounts_on_the_rows():
    parsed = ofx.read(fixture("ofx_two_accounts.ofx"))
    assert [(r.account_no, r.account_name, r.amount) for r in parsed.rows] == [
        ("555001", "Checking", Decimal("-100.00")),
        ("555002", "Savings", Decimal("100.00")),
        ("555002", "Savings", Decimal("0.42")),
    ]
    assert parsed.rows[2].description == "INT"  # no NAME or MEMO: the transaction type
    assert (parsed.account_no, parsed.account_name) == (None, None)
    assert (parsed.bank_name, parsed.currency) == ("Harbor Credit Union", "USD")
    # Each account keeps its own balances; only the period needs a single account.
    assert [(b.account_no, b.name, b.amount) for b in parsed.balances] == [
        ("555001", "closing_balance", Decimal("900.00")),
        ("555002", "closing_balance", Decimal("5100.42")),
    ]
    assert parsed.period is None


def test_ofx_without_a_statement_is_unreadable(tmp_path: Path):
    with pytest.raises(UnreadableFile, match="no <OFX> element"):
        ofx.read(fixture("ofx_header_only.ofx"))
    empty = tmp_path / "signon_only.ofx"
    empty.write_text("OFXHEADER:100\n\n<OFX><SIGNONMSGSRSV1><SONRS></SONRS></SIGNONMSGSRSV1></OFX>")
    with pytest.raises(UnreadableFile, match="STMTRS"):
        ofx.read(empty)


# CAMT.053


def test_camt053_v02_statement():
    parsed = camt053.read(fixture("camt053_v02.xml"))
    assert parsed.format == "camt.053"
    assert locations(parsed) == (["entry 1", "entry 2", "entry 3", "entry 4"], ["entry 5"])
    assert "12,50" in parsed.problems[0].reason
    card, salary, batch, direct_debit = parsed.rows
    assert (card.date, card.amount, card.transaction_id) == (
        date(2025, 1, 3),
        Decimal("-45.90"),
        "2025010300012345",
    )
    assert card.description == "Kartenzahlung REWE Markt Berlin Karte 1"
    assert card.merchant == "REWE Markt GmbH"  # the creditor of a debit
    assert (salary.amount, salary.merchant) == (Decimal("2500.00"), "Arbeitgeber AG")
    assert salary.description == "Gehalt Januar 2025"
    # Two transactions booked as one entry stay one row, with the entry amount.
    assert (batch.amount, batch.merchant, batch.transaction_id) == (
        Decimal("-300.00"),
        None,
        "BATCH-0110",
    )
    assert batch.description == "Sammelüberweisung Strom Januar Nebenkosten Q1"
    # No booking date: the value date; no reference but the EndToEndId; no text but the code.
    assert (direct_debit.date, direct_debit.transaction_id, direct_debit.description) == (
        date(2025, 1, 20),
        "E2E-77",
        "PMNT/IDDT/ESDD",
    )
    for row in parsed.rows:
        assert (row.account_no, row.bank_name, row.currency, row.pending) == (
            "DE02120300000000202051",
            "BYLADEM1001",
            "EUR",
            False,
        )
        assert row.category is None
    assert (parsed.account_no, parsed.bank_name, parsed.currency) == (
        "DE02120300000000202051",
        "BYLADEM1001",
        "EUR",
    )
    assert parsed.period == (date(2025, 1, 1), date(2025, 1, 31))
    assert parsed.balances == [
        BalanceFact(
            "opening_balance",
            Decimal("1000.00"),
            "EUR",
            date(2024, 12, 31),
            "Stmt[1]/Bal[1]",
            "DE02120300000000202051",
        ),
        BalanceFact(
            "closing_balance",
            Decimal("3129.10"),
            "EUR",
            date(2025, 1, 31),
            "Stmt[1]/Bal[3]",
            "DE02120300000000202051",
        ),
    ]


def test_camt053_v08_statements_with_pending_entry():
    parsed = camt053.read(fixture("camt053_v08_pending.xml"))
    assert locations(parsed) == (["entry 1", "entry 2", "entry 3"], [])
    credit, phone, card = parsed.rows
    # Booked 23:30 at UTC+1: the date printed, not its UTC date.
    assert (credit.date, credit.amount, credit.pending) == (
        date(2025, 3, 3),
        Decimal("119.50"),
        False,
    )
    assert credit.merchant == credit.description == "Muster & Söhne AG"
    assert credit.transaction_id == "NB-0303-1"
    assert (phone.amount, phone.merchant, phone.description) == (
        Decimal("-35.00"),
        "Swisscom",
        "Rechnung 2025-02",
    )
    assert (card.pending, card.amount, card.description) == (
        True,
        Decimal("-11.80"),
        "Kartenzahlung Migros Zürich",
    )
    assert (parsed.account_no, parsed.account_name, parsed.bank_name, parsed.currency) == (
        "0042-778899",
        "Privatkonto",
        "Nordbank AG",
        "CHF",
    )
    assert parsed.period == (date(2025, 3, 3), date(2025, 3, 4))
    assert [(b.name, b.amount, b.as_of, b.location) for b in parsed.balances] == [
        ("opening_balance", Decimal("-20.00"), date(2025, 3, 2), "Stmt[1]/Bal[1]"),
        ("closing_balance", Decimal("99.50"), date(2025, 3, 3), "Stmt[1]/Bal[2]"),
        ("opening_balance", Decimal("99.50"), date(2025, 3, 3), "Stmt[2]/Bal[1]"),
        ("closing_balance", Decimal("64.50"), date(2025, 3, 4), "Stmt[2]/Bal[2]"),
        ("available_balance", Decimal("52.70"), date(2025, 3, 4), "Stmt[2]/Bal[3]"),
    ]


def test_camt053_without_account_currency_takes_its_balances_currency(tmp_path: Path):
    path = tmp_path / "no_ccy.xml"
    path.write_text(
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04"><BkToCstmrStmt><Stmt>'
        "<Acct><Id><IBAN>CH9300762011623852957</IBAN></Id></Acct>"
        '<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="CHF">5.00</Amt>'
        "<CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2025-01-31</Dt></Dt></Bal>"
        '<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>'
        "<BookgDt><Dt>2025-01-30</Dt></BookgDt><AddtlNtryInf>Fee</AddtlNtryInf></Ntry>"
        "</Stmt></BkToCstmrStmt></Document>"
    )
    parsed = camt053.read(path)
    assert parsed.currency == "CHF"
    assert [(r.currency, r.amount, r.description) for r in parsed.rows] == [
        ("EUR", Decimal("-1.00"), "Fee")
    ]


def test_camt053_that_is_not_a_statement_is_unreadable(tmp_path: Path):
    truncated = tmp_path / "truncated.xml"
    truncated.write_bytes(fixture("camt053_v02.xml").read_bytes()[:900])
    with pytest.raises(UnreadableFile, match="not well-formed XML"):
        camt053.read(truncated)
    payment = tmp_path / "pain.xml"
    payment.write_text(
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn/>'
        "</Document>"
    )
    with pytest.raises(UnreadableFile, match=r"pain\.001\.001\.09"):
        camt053.read(payment)


# MT940


ACCOUNT = "10020030/0123456789"


def test_mt940_german_structured_details():
    parsed = mt940.read(fixture("mt940_german_structured.sta"))
    assert parsed.format == "mt940"
    assert locations(parsed) == (["line 5", "line 9", "line 12"], [])
    debit, salary, card = parsed.rows
    assert (debit.date, debit.amount, debit.transaction_id) == (
        date(2025, 1, 3),
        Decimal("-45.90"),
        None,
    )
    # ?00 posting text, then the ?20…?29 purpose with SEPA keywords (its SVWZ text); ?32/?33
    # the counterparty (cp1252).
    assert debit.description == "SEPA-LASTSCHRIFT Strom Januar Vertragsnummer 4711"
    assert debit.payment_kind == "direct_debit"
    assert debit.merchant == "Stadtwerke München GmbH"
    assert (salary.amount, salary.description, salary.merchant, salary.transaction_id) == (
        Decimal("2500.00"),
        "SEPA-GUTSCHRIFT Gehalt Januar 2025",
        "Arbeitgeber AG",
        "B2501060001",
    )
    assert (card.amount, card.merchant) == (Decimal("-12.50"), "Bäckerei Schmidt")
    for row in parsed.rows:
        assert (row.account_no, row.currency, row.pending) == (ACCOUNT, "EUR", False)
    assert (parsed.account_no, parsed.currency) == (ACCOUNT, "EUR")
    assert parsed.balances == [
        BalanceFact(
            "opening_balance", Decimal("1500.00"), "EUR", date(2025, 1, 2), "line 4", ACCOUNT
        ),
        BalanceFact(
            "closing_balance", Decimal("3941.60"), "EUR", date(2025, 1, 10), "line 15", ACCOUNT
        ),
        BalanceFact(
            "available_balance", Decimal("3900.00"), "EUR", date(2025, 1, 10), "line 16", ACCOUNT
        ),
    ]


def test_mt940_two_statements_in_swift_envelopes():
    parsed = mt940.read(fixture("mt940_two_statements.sta"))
    assert locations(parsed) == (["line 6", "line 10", "line 19", "line 21"], [])
    payment, reversed_fee, reversed_refund, transfer = parsed.rows
    assert (payment.amount, payment.transaction_id) == (Decimal("-99.99"), "BK0203XYZ")
    # Free-text :86: over two lines, whitespace collapsed.
    assert payment.description == (
        "Online payment to Greenfield Energy invoice INV-2025-001 contract 88"
    )
    assert payment.merchant is None
    # RD (reversal of a debit) puts money back; RC (reversal of a credit) takes it out.
    assert reversed_fee.amount == Decimal("12.50")
    assert reversed_refund.amount == Decimal("-20.00")
    assert (transfer.date, transfer.amount, transfer.transaction_id) == (
        date(2025, 2, 4),
        Decimal("150.00"),
        None,
    )
    assert transfer.description == "Transfer from J. de Vries"
    assert {r.account_no for r in parsed.rows} == {"NL91ABNA0417164300"}
    # Intermediate balances (:60M:, :62M:) between the two pages are not reported.
    assert [(b.name, b.amount, b.as_of, b.location) for b in parsed.balances] == [
        ("opening_balance", Decimal("820.15"), date(2025, 2, 2), "line 5"),
        ("closing_balance", Decimal("862.66"), date(2025, 2, 4), "line 23"),
        ("available_balance", Decimal("850.00"), date(2025, 2, 4), "line 24"),
    ]


def test_mt940_unreadable_line_is_a_problem_and_the_rest_lands():
    parsed = mt940.read(fixture("mt940_bad_line.sta"))
    assert locations(parsed) == (["line 5", "line 9"], ["line 7"])
    assert "25XX0303" in parsed.problems[0].reason
    assert [(r.description, r.amount) for r in parsed.rows] == [
        ("Bakery", Decimal("-10.00")),
        ("Refund", Decimal("7.00")),
    ]


def test_mt940_references_and_angle_bracket_subfields(tmp_path: Path):
    path = tmp_path / "refs.sta"
    path.write_text(
        ":20:REFS\n:25:NL00TRIO0123456789\n:28C:1\n:60F:C250301EUR100,00\n"
        ":61:2503020302D15,70N000EREF\n:86:000>100987654321\n"
        ">20ALGEMENE KOS>21TEN MAART>310390123456>32TRIODOS BANK\n"
        ":61:2503030303D1,00NMSC01916//NONREF\n:86:Fee one\n"
        ":61:2503040304D2,00NMSC01916//NONREF\n:86:Fee two\n"
        ":61:2503050305D3,00NMSC01651//NONREF\n:86:Fee three\n"
        ":62F:C250305EUR78,30\n"
    )
    parsed = mt940.read(path)
    costs, one, two, three = parsed.rows
    # ">" subfields read like "?" ones: purpose joined, ?32 the counterparty.
    assert (costs.description, costs.merchant) == ("ALGEMENE KOSTEN MAART", "TRIODOS BANK")
    # EREF points into :86:; 01916 is printed on two rows, so it identifies neither.
    assert [r.transaction_id for r in parsed.rows] == [None, None, None, "01651"]
    assert (one.description, two.description, three.description) == (
        "Fee one",
        "Fee two",
        "Fee three",
    )


def test_mt940_with_several_accounts_keeps_accounts_on_the_rows(tmp_path: Path):
    path = tmp_path / "two_accounts.sta"
    path.write_text(
        ":20:A\n:25:DE89370400440532013000\n:28C:1\n:60F:C250301EUR10,00\n"
        ":61:2503020302D1,00NTRFNONREF\n:86:One\n:62F:C250302EUR9,00\n"
        ":20:B\n:25:DE02120300000000202051\n:28C:1\n:60F:C250301EUR20,00\n"
        ":61:2503020302C2,00NTRFNONREF\n:86:Two\n:62F:C250302EUR22,00\n"
    )
    parsed = mt940.read(path)
    assert [(r.account_no, r.amount, r.location) for r in parsed.rows] == [
        ("DE89370400440532013000", Decimal("-1.00"), "line 5"),
        ("DE02120300000000202051", Decimal("2.00"), "line 12"),
    ]
    assert (parsed.account_no, parsed.currency) == (None, "EUR")
    assert [(b.account_no, b.name, b.amount) for b in parsed.balances] == [
        ("DE89370400440532013000", "opening_balance", Decimal("10.00")),
        ("DE89370400440532013000", "closing_balance", Decimal("9.00")),
        ("DE02120300000000202051", "opening_balance", Decimal("20.00")),
        ("DE02120300000000202051", "closing_balance", Decimal("22.00")),
    ]


def test_mt940_without_a_statement_is_unreadable(tmp_path: Path):
    path = tmp_path / "notes.sta"
    path.write_text(":25:DE89370400440532013000\nno statement reference here\n")
    with pytest.raises(UnreadableFile, match=":20:"):
        mt940.read(path)


# camt.052 and camt.054 through the one CAMT reader


@pytest.mark.parametrize(
    ("name", "message", "part"),
    [
        ("camt052/aaaa_banken_se.xml", "camt.052", "Rpt"),
        ("camt054/aaaa_banken_se.xml", "camt.054", "Ntfctn"),
    ],
)
def test_account_reports_and_notifications_are_read_like_statements(name, message, part):
    path = REAL / name
    assert camt053.sniff(path.read_bytes()[:4096])
    parsed = camt053.read(path)
    assert parsed.format == message
    assert [(r.date, r.amount, r.currency) for r in parsed.rows] == [
        (date(2007, 10, 18), Decimal("-200000.00"), "SEK")
    ]
    assert parsed.bank_name == "AAAA BANKEN"
    assert f"<{part}>" in path.read_text()


def test_a_camt_amount_no_account_holds_is_a_problem_for_its_entry(tmp_path: Path):
    text = fixture("camt053_v02.xml").read_text(encoding="utf-8")
    first = text.index("<Ntry>")
    amount_at = text.index("<Amt", first)
    close = text.index("</Amt>", amount_at)
    opened = text.index(">", amount_at) + 1
    whole = camt053.read(fixture("camt053_v02.xml"))
    for value in ("Infinity", "NaN", "1E+26", "99999999999999999999999999999"):
        broken = tmp_path / f"broken_{value[:3]}.xml"
        broken.write_text(text[:opened] + value + text[close:], encoding="utf-8")
        parsed = camt053.read(broken)
        problems = [p.location for p in parsed.problems]
        assert problems == ["entry 1", *(p.location for p in whole.problems)], value
        assert len(parsed.rows) == len(whole.rows) - 1


# MT942 interim reports and MT940 entries that do not read


def test_an_interim_report_lands_its_entries_and_says_what_it_is():
    parsed = mt940.read(REAL / "mt942" / "mbank_pl.sta")
    assert parsed.format == "mt942"
    assert [(r.location, r.amount, r.currency) for r in parsed.rows] == [
        (f"line {n}", Decimal("0.01"), "PLN") for n in (7, 13, 19)
    ]
    assert not parsed.balances
    assert any("interim" in note for note in parsed.notes)


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        (":61:2408010801D10,00", "no transaction type code"),
        (":61:2408020802D1234567890123456789,00NTRFNONREF", "longer than 15 characters"),
    ],
)
def test_an_unreadable_entry_line_is_its_own_problem_and_never_merges(tmp_path, entry, reason):
    path = tmp_path / "statement.sta"
    path.write_text(
        ":20:REF\n:25:12345678/0123456789\n:28C:1/1\n:60F:C240731EUR100,00\n"
        f"{entry}\n:86:the unreadable entry\n"
        ":61:2408030803D5,00NTRFNONREF\n:86:the next entry\n:62F:C240803EUR95,00\n-\n"
    )
    parsed = mt940.read(path)
    assert [(p.location, reason in p.reason) for p in parsed.problems] == [("line 5", True)]
    assert [(r.location, r.amount, r.description) for r in parsed.rows] == [
        ("line 7", Decimal("-5.00"), "the next entry")
    ]


def test_a_note_after_the_closing_balance_is_no_entry_detail():
    parsed = mt940.read(REAL / "mt940" / "raiffeisen_kaernten_at.sta")
    (row,) = parsed.rows
    assert row.description == "999foo Test Überweisung"


def test_control_bytes_and_an_old_code_page_around_a_statement(tmp_path):
    text = (
        "\x01:20:REF\r\n:25:12345678/0123456789\r\n:28C:1/1\r\n:60F:C240731EUR100,00\r\n"
        ":61:2408030803D5,00NTRFNONREF\r\n:86:166?00Überweisung?32Müller GmbH\r\n"
        ":62F:C240803EUR95,00\r\n-\x03"
    )
    path = tmp_path / "dos.sta"
    path.write_bytes(text.encode("cp850"))
    parsed = mt940.read(path)
    assert [(r.amount, r.merchant, r.payment_kind) for r in parsed.rows] == [
        (Decimal("-5.00"), "Müller GmbH", "transfer")
    ]


# QIF


def test_qif_splits_land_one_row_each_and_a_zero_split_none():
    parsed = qif.read(REAL / "qif" / "paypal_us_splits.qif")
    assert [(r.location, r.amount, r.category) for r in parsed.rows] == [
        ("entry 1", Decimal("-1000.00"), "Payment Sent"),
        ("entry 2 split 1", Decimal("19.95"), "Web Accept Payment Received"),
        ("entry 2 split 2", Decimal("-1.00"), "Fee"),
    ]
    assert parsed.rows[2].payment_kind == "fee"


def test_qif_accounts_opening_balances_and_transfers_between_them():
    parsed = qif.read(REAL / "qif" / "moneyguru_checkbook.qif")
    assert len(parsed.rows) == 6
    assert {r.account_name for r in parsed.rows} == {"Account 1", "Account 2"}
    opening = sorted(b.amount for b in parsed.balances if b.name == "opening_balance")
    assert opening == [Decimal("42.32"), Decimal("3000.00")]
    transfers = [r.amount for r in parsed.rows if r.category == "Transfers"]
    assert sorted(transfers) == [Decimal("-80.00"), Decimal("80.00")]
    assert [r.payment_kind for r in parsed.rows if r.merchant == "Hydro-Quebec"] == ["cheque"]


@pytest.mark.parametrize(
    ("dates", "expected"),
    [
        (["12/19/18", "01/02/18"], [date(2018, 12, 19), date(2018, 1, 2)]),
        (["19/12/18", "01/02/18"], [date(2018, 12, 19), date(2018, 2, 1)]),
        (["11/ 8'16", "1/2'05"], [date(2016, 11, 8), date(2005, 1, 2)]),
        (["2007/01/22", "2007-02-03"], [date(2007, 1, 22), date(2007, 2, 3)]),
        (["29.05.2008", "01.06.2008"], [date(2008, 5, 29), date(2008, 6, 1)]),
    ],
)
def test_qif_dates_are_read_in_one_order_decided_across_the_file(tmp_path, dates, expected):
    path = tmp_path / "dates.qif"
    records = "".join(f"D{d}\nT-1.00\nPShop\n^\n" for d in dates)
    path.write_text("!Type:Bank\n" + records)
    assert [r.date for r in qif.read(path).rows] == expected


def test_qif_values_no_account_holds_are_problems_for_their_records(tmp_path):
    path = tmp_path / "bad.qif"
    path.write_text(
        "!Type:CCard\nD01/02/2024\nTInfinity\nPA\n^\nD01/03/2024\nT1E+26\nPB\n^\n"
        "D01/04/2024\nTNaN\nPC\n^\nD01/05/2024\nT-1,234.50\nPD\n^\nD13/13/2024\nT-1\nPE\n^\n"
    )
    parsed = qif.read(path)
    assert [p.location for p in parsed.problems] == ["entry 1", "entry 2", "entry 3", "entry 5"]
    assert [r.amount for r in parsed.rows] == [Decimal("-1234.50")]
