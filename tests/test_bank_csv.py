"""Bank CSV exports: each profile's layout read by header names, generic layouts through
synonyms, the project's own schema with its strict values, every bad row reported by line."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from elastic.ingest import bank_csv, payment_kinds
from elastic.ingest.bank_csv import ColumnMapping
from elastic.ingest.parsed import ParsedFile, UnreadableFile

FIXTURES = Path(__file__).parent / "fixtures" / "bank_csv"


def read(name: str) -> ParsedFile:
    return bank_csv.read(FIXTURES / name)


def money(parsed: ParsedFile) -> list[tuple[str, str, str]]:
    """(location, ISO date, amount) for every row."""
    return [(r.location, r.date.isoformat(), str(r.amount)) for r in parsed.rows]


def write(tmp_path: Path, text: str | bytes, name: str = "export.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.csv")), ids=lambda p: p.name)
def test_every_export_sniffs_as_csv(path: Path):
    assert bank_csv.sniff(path.read_bytes()[:4096])


@pytest.mark.parametrize(
    "head",
    [
        b"OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\n\r\n<OFX><SIGNONMSGSRSV1>",
        b'<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053">',
        b"{1:F01BANKDEFFXXXX0000000000}{4:\r\n:20:STARTUMS\r\n:25:10020030/1234567\r\n",
        b":20:STARTUMSE\r\n:25:10020030/1234567\r\n:28C:00001/001\r\n:60F:C240101EUR1000,00\r\n",
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj",
        b"PK\x03\x04\x14\x00\x06\x00",
        b"",
        b"just one line of prose without any columns\n",
    ],
    ids=["ofx", "camt", "mt940-swift", "mt940", "pdf", "xlsx", "empty", "prose"],
)
def test_other_formats_are_not_csv(head: bytes):
    assert not bank_csv.sniff(head)


def test_chase_checking():
    parsed = read("chase_checking.csv")
    assert parsed.format == "bank-csv (Chase checking (US))"
    assert (parsed.bank_name, parsed.currency) == ("Chase", "USD")
    # Each row carries one more, empty value than the header: not a problem.
    assert parsed.problems == []
    assert money(parsed) == [
        ("line 2", "2024-01-15", "-84.12"),
        ("line 3", "2024-01-14", "2400.00"),
        ("line 4", "2024-01-16", "-150.00"),
        ("line 5", "2024-01-18", "-45.10"),
    ]
    first, *_, last = parsed.rows
    assert first.description == "WHOLEFDS MKT 10234 AUSTIN TX"
    assert (first.balance, last.balance) == (Decimal("2315.88"), None)


def test_chase_credit_card():
    parsed = read("chase_card.csv")
    assert parsed.format == "bank-csv (Chase credit card (US))"
    assert money(parsed) == [
        ("line 2", "2024-01-03", "-56.78"),
        ("line 3", "2024-01-05", "500.00"),
        ("line 4", "2024-01-17", "19.99"),
    ]
    assert [r.category for r in parsed.rows] == ["Groceries", None, "Shopping"]


def test_ing_diba_latin1_with_preamble():
    parsed = read("ing_diba.csv")
    assert parsed.format == "bank-csv (ING-DiBa (DE))"
    assert parsed.problems == []
    assert parsed.account_no == "DE89 3704 0044 0532 0130 00"
    assert (parsed.account_name, parsed.bank_name, parsed.currency) == ("Girokonto", "ING", "EUR")
    assert parsed.period == (date(2024, 1, 1), date(2024, 1, 31))
    assert money(parsed) == [
        ("line 15", "2024-01-31", "-23.45"),
        ("line 16", "2024-01-30", "-1150.00"),
        ("line 17", "2024-01-29", "3200.00"),
        ("line 18", "2024-01-02", "-4.90"),
    ]
    rent = parsed.rows[1]
    assert rent.description == "Dauerauftrag Miete Januar Wohnung 3"
    assert rent.merchant == "Müller Immobilien GmbH"
    assert (rent.balance, rent.currency) == (Decimal("342.57"), "EUR")
    closing = parsed.rows[3]  # no counterparty, no purpose: the booking text alone
    assert (closing.description, closing.merchant) == ("Abschluss", None)
    assert closing.balance == Decimal("-1707.43")


def test_ing_diba_inspect_shows_the_layout():
    layout = bank_csv.inspect(FIXTURES / "ing_diba.csv")
    assert (layout.encoding, layout.delimiter, layout.header_line) == ("latin-1", ";", 14)
    assert layout.preamble[0].startswith("Umsatzanzeige;")
    assert layout.preamble[6] == "Zeitraum;01.01.2024 - 31.01.2024"
    assert layout.headers[-3:] == ("Währung", "Betrag", "Währung (2)")
    assert layout.rows[0][:3] == ("31.01.2024", "31.01.2024", "REWE Markt GmbH")
    assert layout.profile == "ING-DiBa (DE)"
    assert layout.mapping is not None
    assert layout.mapping.description == ("Buchungstext", "Verwendungszweck")
    assert (layout.mapping.decimal, layout.mapping.date_formats) == (",", ("%d.%m.%Y",))


def test_ing_diba_newer_export_with_categories():
    parsed = read("ing_diba_kategorie.csv")
    assert parsed.format == "bank-csv (ING-DiBa (DE))"
    assert parsed.period == (date(2024, 2, 1), date(2024, 2, 29))
    assert [(r.category, r.amount, r.balance) for r in parsed.rows] == [
        ("Sparen & Anlegen", Decimal("12.00"), Decimal("10512.00")),
        ("Umbuchung", Decimal("500.00"), Decimal("10500.00")),
    ]


def test_ing_nl_direction_column():
    parsed = read("ing_nl.csv")
    assert parsed.format == "bank-csv (ING (NL))"
    assert parsed.currency == "EUR"
    assert money(parsed) == [
        ("line 2", "2024-01-05", "-23.45"),
        ("line 3", "2024-01-25", "2850.00"),
    ]
    assert parsed.rows[0].merchant == "Albert Heijn 1234"
    assert parsed.rows[0].account_no == "NL91ABNA0417164300"


def test_lloyds_debit_and_credit_columns():
    parsed = read("lloyds.csv")
    assert parsed.format == "bank-csv (Lloyds (UK))"
    assert (parsed.currency, parsed.bank_name) == ("GBP", None)  # Halifax exports it too
    assert money(parsed) == [
        ("line 2", "2024-01-02", "-24.60"),
        ("line 3", "2024-01-03", "450.00"),
        ("line 4", "2024-01-15", "-38.00"),
    ]
    assert {r.account_no for r in parsed.rows} == {"12345678"}
    assert parsed.rows[2].balance == Decimal("1587.40")


def test_halifax_card_purchases_are_positive_in_the_file():
    parsed = read("halifax_card.csv")
    assert money(parsed) == [("line 2", "2024-01-14", "-32.15"), ("line 3", "2024-01-20", "250.00")]
    assert parsed.rows[0].transaction_id == "99021433"
    assert (parsed.bank_name, parsed.currency) == ("Halifax", "GBP")


def test_monzo_with_bom():
    assert bank_csv.inspect(FIXTURES / "monzo.csv").encoding == "utf-8-sig"
    parsed = read("monzo.csv")
    assert parsed.format == "bank-csv (Monzo)"
    assert [(r.merchant, r.category, r.currency, r.transaction_id) for r in parsed.rows] == [
        ("Pret A Manger", "Eating out", "GBP", "tx_0000AbC1"),
        ("Alex Example", "Transfers", "GBP", "tx_0000AbC2"),
        ("Café Lumière", "Eating out", "GBP", "tx_0000AbC3"),
    ]
    assert [r.description for r in parsed.rows] == [
        "PRET A MANGER LONDON GBR",
        "Alex Example",  # no description: the payee names the row
        "CAFE LUMIERE PARIS FRA",
    ]
    assert money(parsed)[2] == ("line 4", "2024-02-17", "-3.42")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "n26.csv",
            [
                ("2024-02-01", "-18.40", "Edeka Center", "Edeka Center", None),
                ("2024-02-02", "50.00", "Birthday gift", "Jane Doe", None),
                ("2024-02-03", "-5.25", "Starbucks NYC", "Starbucks NYC", None),
            ],
        ),
        (
            "n26_2023.csv",
            [
                ("2024-03-01", "-12.99", "Lidl", "Lidl", "Main Account"),
                (
                    "2024-03-02",
                    "-62.00",
                    "Abschlag Strom 03/2024",
                    "Stadtwerke Berlin",
                    "Main Account",
                ),
            ],
        ),
    ],
)
def test_n26_both_layouts(name: str, expected: list[tuple]):
    parsed = read(name)
    assert parsed.format == "bank-csv (N26)"
    assert parsed.currency == "EUR"  # from the header "Amount (EUR)"
    rows = [
        (r.date.isoformat(), str(r.amount), r.description, r.merchant, r.account_name)
        for r in parsed.rows
    ]
    assert rows == expected
    assert not any(r.account_no for r in parsed.rows)  # "Account number" is the counterparty's


def test_revolut_fees_and_pending_rows():
    parsed = read("revolut.csv")
    assert parsed.format == "bank-csv (Revolut)"
    assert [
        (r.location, str(r.amount), r.description, r.balance, r.pending) for r in parsed.rows
    ] == [
        ("line 2", "-12.30", "Tesco", Decimal("987.70"), False),
        ("line 3", "500.00", "Top-Up by *1234", Decimal("1000.00"), False),
        ("line 4", "-100.00", "Exchanged to EUR", None, False),
        ("line 4 (fee)", "-0.50", "Fee: Exchanged to EUR", Decimal("887.20"), False),
        ("line 5", "-8.40", "Uber", None, True),
        ("line 6", "-25.00", "Amazon", None, True),
    ]
    fee = parsed.rows[3]
    assert (fee.date, fee.currency, fee.account_name) == (date(2024, 2, 12), "GBP", "Current")


def test_swedbank_windows_1252_with_period_line():
    parsed = read("swedbank.csv")
    assert parsed.format == "bank-csv (Swedbank (SE))"
    assert parsed.period == (date(2024, 1, 1), date(2024, 1, 31))
    assert money(parsed) == [
        ("line 3", "2024-01-30", "-245.50"),
        ("line 4", "2024-01-25", "25000.00"),
    ]
    first = parsed.rows[0]
    assert (first.description, first.currency) == ("ICA NÄRA STOCKHOLM", "SEK")  # Valuta: currency
    assert (first.account_no, first.account_name) == ("9141234567", "Privatkonto")
    assert first.balance == Decimal("12754.50")


def test_layouts_without_a_header_row_are_recognised_by_their_rows():
    nordea = read("nordea_dk_no_header.csv")
    assert (nordea.format, nordea.currency, nordea.problems) == (
        "bank-csv (Nordea (DK))",
        "DKK",
        [],
    )
    assert money(nordea) == [
        ("line 1", "2024-04-03", "-87.25"),
        ("line 2", "2024-03-28", "24100.00"),
    ]
    assert [r.description for r in nordea.rows] == ["Dankort-nota Netto Aarhus 40213", "Løn marts"]
    assert nordea.rows[1].balance == Decimal("12500.00")
    layout = bank_csv.inspect(FIXTURES / "nordea_dk_no_header.csv")
    assert (layout.header_line, layout.preamble, layout.profile) == (None, (), "Nordea (DK)")
    assert layout.headers == ("Bogført", "Tekst", "Rentedato", "Beløb", "Saldo")


def test_asn_quotes_its_text_with_apostrophes():
    parsed = read("asn_no_header.csv")
    assert parsed.format == "bank-csv (ASN Bank (NL))"
    assert parsed.problems == []
    assert [(str(r.amount), r.description, r.merchant, r.account_no) for r in parsed.rows] == [
        ("-950.00", "Huur mei, appartement 2B", "Verhuur BV", "NL12ASNB0123456789"),
        ("-3.15", "Kosten betaalrekening", None, "NL12ASNB0123456789"),
    ]


def test_balance_and_total_lines_are_not_transactions():
    parsed = read("swedbank_lt.csv")
    assert parsed.format == "bank-csv (Swedbank (LT))"
    assert parsed.problems == []
    assert money(parsed) == [
        ("line 3", "2024-03-04", "-23.40"),
        ("line 4", "2024-03-10", "1500.00"),
    ]
    assert [(r.merchant, r.transaction_id) for r in parsed.rows] == [
        ("Maxima", "2024030400001"),
        ("Darbdavys UAB", "2024031000002"),
    ]
    assert [(b.name, b.amount, b.currency, b.as_of, b.location) for b in parsed.balances] == [
        ("opening_balance", Decimal("1000.00"), "EUR", date(2024, 3, 1), "line 2"),
        ("closing_balance", Decimal("2476.60"), "EUR", date(2024, 3, 31), "line 6"),
    ]


def test_unnamed_direction_column_and_undated_pending_rows():
    parsed = read("john_lewis_card.csv")
    assert parsed.format == "bank-csv (John Lewis Partnership Card (UK))"
    booked = [r for r in parsed.rows if not r.pending]
    assert [(r.location, r.date.isoformat(), str(r.amount)) for r in booked] == [
        ("line 3", "2024-03-18", "-7.99"),
        ("line 4", "2024-03-15", "1250.00"),
    ]
    # A pending row has no date yet: it is counted as pending, not lost and not a problem.
    assert [(r.location, r.date) for r in parsed.rows if r.pending] == [("line 2", None)]
    assert not parsed.problems
    assert bank_csv.inspect(FIXTURES / "john_lewis_card.csv").headers[-1] == "column 4"


@pytest.mark.parametrize(
    ("name", "fmt", "rows"),
    [
        (
            "generic_de.csv",
            "bank-csv (generic: Buchungstag, Betrag, Verwendungszweck)",
            [
                ("2024-03-02", "-3.80", "Kartenzahlung", "Bäckerei Süß", "EUR", None, False),
                (
                    "2024-03-13",
                    "-1234.50",
                    "Abschlag Strom März",
                    "Stadtwerke München",
                    "EUR",
                    None,
                    False,
                ),
                (
                    "2024-03-28",
                    "-12.50",
                    "Kartenzahlung",
                    "Buchhandlung am Markt",
                    "EUR",
                    None,
                    True,
                ),
            ],
        ),
        (
            "generic_sv.csv",
            "bank-csv (generic: Bokföringsdatum, Belopp, Text)",
            [
                ("2024-01-15", "-312.40", "ICA Kvantum Malmö", None, "SEK", "4687.60", False),
                ("2024-01-25", "28500.00", "Lön januari", None, "SEK", "33187.60", False),
            ],
        ),
        (
            "generic_fr.csv",
            "bank-csv (generic: Date opération, Débit, Crédit, Libellé)",
            [
                ("2024-02-05", "-45.90", "CB CARREFOUR CITY PARIS 04/02", None, "EUR", None, False),
                ("2024-02-14", "2100.00", "VIR SEPA SALAIRE FÉVRIER", None, "EUR", None, False),
            ],
        ),
        (
            "generic_es.csv",
            "bank-csv (generic: Fecha, Importe, Concepto)",
            [
                ("2024-04-03", "-58.20", "Recibo luz abril", "Iberdrola", None, "1441.80", False),
                (
                    "2024-04-12",
                    "250.00",
                    "Transferencia recibida",
                    "Ana García",
                    None,
                    "1691.80",
                    False,
                ),
            ],
        ),
        (
            "generic_nl.csv",
            "bank-csv (generic: Datum, Bedrag, Omschrijving-1, Omschrijving-2)",
            [
                (
                    "2024-05-02",
                    "-19.95",
                    "Betaalautomaat Pas 012",
                    "Jumbo Utrecht",
                    "EUR",
                    "980.05",
                    False,
                ),
                ("2024-05-24", "2400.00", "Salaris mei", "Werkgever BV", "EUR", "3380.05", False),
            ],
        ),
    ],
)
def test_layouts_without_a_profile_read_through_synonyms(name: str, fmt: str, rows: list[tuple]):
    parsed = read(name)
    assert parsed.format == fmt
    assert parsed.problems == []
    assert [
        (
            r.date.isoformat(),
            str(r.amount),
            r.description,
            r.merchant,
            r.currency,
            r.balance and str(r.balance),
            r.pending,
        )
        for r in parsed.rows
    ] == rows


def test_windows_1252_euro_sign_is_detected():
    layout = bank_csv.inspect(FIXTURES / "generic_fr.csv")
    assert (layout.encoding, layout.delimiter, layout.profile) == ("cp1252", ";", None)
    assert layout.rows[0][3] == "-45,90 €"
    assert layout.mapping is not None
    assert (layout.mapping.sign, layout.mapping.decimal, layout.mapping.day_first) == (
        "debit_credit",
        ",",
        True,
    )


def test_an_unknown_layout_is_read_by_what_its_columns_hold(tmp_path: Path):
    path = FIXTURES / "unknown_layout.csv"
    parsed = bank_csv.read(path)
    assert parsed.format == "bank-csv (content: When, How much, What)"
    assert money(parsed) == [("line 2", "2024-06-01", "-3.50"), ("line 3", "2024-06-02", "20.00")]
    assert parsed.rows[1].balance == Decimal("116.50")
    balance = "column 4 (Left) read as balance: each value is the one before plus or minus "
    assert balance in "\n".join(parsed.notes)
    layout = bank_csv.inspect(path)
    assert [(r.name, r.role, r.sure) for r in layout.readings] == [
        ("When", "date", True),
        ("What", "description", True),
        ("How much", "amount", True),
        ("Left", "balance", True),
    ]
    # A mapping given by hand still decides.
    mapping = ColumnMapping(date="When", description=("What",), amount="How much", balance="Left")
    assert bank_csv.read(path, mapping).format == "bank-csv (mapped: When, How much, What)"
    # Columns no content reading can place (no date) are named for a mapping by hand.
    undated = tmp_path / "undated.csv"
    undated.write_text("Ref,What,How much\nA1,Coffee,-3.50\nA2,Pocket money,20.00\n")
    with pytest.raises(UnreadableFile) as raised:
        bank_csv.read(undated)
    assert "found columns: Ref, What, How much" in str(raised.value)
    assert "need a date, an amount (or debit and credit)" in str(raised.value)


def test_bracketed_sides_currency_names_trailing_delimiters_and_currency_totals(tmp_path: Path):
    """An export no profile knows, written as banks write them: money headers qualified by
    their side in brackets (money in on the left), an unused pair of columns of dashes,
    currencies named in words, every row ending in a delimiter the header lacks, and a total
    line of one currency whose words stand in the date's column."""
    path = write(
        tmp_path,
        "Date,Details,Amount (paid in),Amount (paid out),Value (paid in),Value (paid out),"
        "Currency\n"
        "2024-03-04,Market hall,-,-,,12.50,Euro,\n"
        "2024-03-06,Salary March,-,-,2100.00,,Euro,\n"
        "2024-03-09,Bakery,-,-,,3.20,Euro,\n"
        "2024-03-11,Refund Market hall,-,-,4.00,,Euro,\n"
        "EUR total,,,,2104.00,15.70,,\n",
    )
    parsed = bank_csv.read(path)
    assert money(parsed) == [
        ("line 2", "2024-03-04", "-12.50"),
        ("line 3", "2024-03-06", "2100.00"),
        ("line 4", "2024-03-09", "-3.20"),
        ("line 5", "2024-03-11", "4.00"),
    ]
    assert {row.currency for row in parsed.rows} == {"EUR"}
    assert not parsed.problems
    assert payment_kinds.is_summary("人民币合计") and payment_kinds.is_summary("Summe EUR")
    assert not payment_kinds.is_summary("Euro Shop")


def test_a_guided_mapping_from_roles():
    path = FIXTURES / "unknown_layout.csv"
    roles = {"date": "When", "description": "What", "amount": "How much"}
    assert money(bank_csv.read(path, ColumnMapping.from_roles(roles))) == [
        ("line 2", "2024-06-01", "-3.50"),
        ("line 3", "2024-06-02", "20.00"),
    ]
    two_columns = ColumnMapping.from_roles({"date": "D", "debit": "Out", "credit": "In"})
    assert (two_columns.sign, two_columns.description) == ("debit_credit", ())
    with pytest.raises(ValueError, match="unknown role"):
        ColumnMapping.from_roles({"date": "D", "amount": "A", "colour": "C"})


def test_a_mapping_naming_absent_columns_is_refused():
    mapping = ColumnMapping(date="When", description=("What", "Memo"), amount="How much")
    with pytest.raises(UnreadableFile, match=r"column\(s\) Memo not found; found columns: When"):
        bank_csv.read(FIXTURES / "unknown_layout.csv", mapping)
    with pytest.raises(UnreadableFile, match="Datum not found"):
        bank_csv.read(FIXTURES / "unknown_layout.csv", ColumnMapping(date="Datum", amount="Left"))


def test_a_mapping_needs_its_money_columns():
    with pytest.raises(ValueError, match="debit and a credit"):
        ColumnMapping(date="Date", debit="Out", sign="debit_credit")
    with pytest.raises(ValueError, match="direction column"):
        ColumnMapping(date="Date", amount="Amount", sign="direction_column")


def test_bad_row_in_the_middle_is_reported_and_the_rest_lands(tmp_path: Path):
    lines = (FIXTURES / "lloyds.csv").read_text().splitlines(keepends=True)
    bad = "04/01/2024,DEB,'30-94-57,12345678,BROKEN ROW,twelve,,1163.40\n"
    parsed = bank_csv.read(write(tmp_path, "".join([*lines[:2], bad, *lines[2:]])))
    assert [(p.location, p.reason) for p in parsed.problems] == [
        ("line 3", "Debit Amount 'twelve' is not a number")
    ]
    assert [r.location for r in parsed.rows] == ["line 2", "line 4", "line 5"]


def test_line_numbers_are_physical_across_blank_lines_and_multiline_values(tmp_path: Path):
    text = (
        "Date,Description,Amount\n"
        "2024-01-02,one,-1.00\n"
        "\n"
        '2024-01-03,"two\nlines",-2.00\n'
        "2024-01-04,three,oops\n"
        "2024-01-05,four,-4.00\n"
    )
    parsed = bank_csv.read(write(tmp_path, text))
    assert [r.location for r in parsed.rows] == ["line 2", "line 4", "line 7"]
    assert parsed.rows[1].description == "two\nlines"
    assert [p.location for p in parsed.problems] == ["line 6"]


@pytest.mark.parametrize(
    ("delimiter", "raw", "amount"),
    [
        (",", '"£1,234.56"', "1234.56"),
        (",", '"-£1,234.56"', "-1234.56"),
        (",", "(5.00)", "-5.00"),
        (",", "+3", "3.00"),
        (",", "USD -12.5", "-12.50"),
        (",", "1'234.50 CHF", "1234.50"),
        (";", "-12,50 €", "-12.50"),
        (";", "12,50-", "-12.50"),
        (";", "1.234.567,89", "1234567.89"),
        (";", "1\u00a0234,5", "1234.50"),
        (";", "−7,00", "-7.00"),
        (";", "SEK 1 000,00", "1000.00"),
        (";", "-,01", "-0.01"),  # no digit before the decimal mark
        (",", ".5", "0.50"),
        (",", "26851.95|", "26851.95"),  # a table border the printed layout left
    ],
)
def test_amounts_as_banks_print_them(tmp_path: Path, delimiter: str, raw: str, amount: str):
    text = f"Date{delimiter}Description{delimiter}Amount\n2024-01-02{delimiter}x{delimiter}{raw}\n"
    parsed = bank_csv.read(write(tmp_path, text))
    assert parsed.problems == []
    assert [str(r.amount) for r in parsed.rows] == [amount]


@pytest.mark.parametrize(
    ("delimiter", "dates", "expected"),
    [
        (",", ["03/04/2024", "25/04/2024"], ["2024-04-03", "2024-04-25"]),  # 25 decides: day first
        (",", ["03/04/2024", "04/25/2024"], ["2024-03-04", "2024-04-25"]),  # 25 decides: month
        (",", ["03/04/2024"], ["2024-03-04"]),  # undecided: a comma file is month-first
        (";", ["03.04.2024"], ["2024-04-03"]),  # undecided: a semicolon file is day-first
        (",", ["2024-04-03 10:11:12"], ["2024-04-03"]),
        (",", ["3 Apr 2024", "Apr 25, 2024"], ["2024-04-03", "2024-04-25"]),
    ],
)
def test_generic_dates_follow_the_whole_column(
    tmp_path: Path, delimiter: str, dates: list[str], expected: list[str]
):
    body = "".join(f'"{d}"{delimiter}x{delimiter}1.00\n' for d in dates)
    parsed = bank_csv.read(write(tmp_path, f"Date{delimiter}Description{delimiter}Amount\n{body}"))
    assert [r.date.isoformat() for r in parsed.rows] == expected


def test_utf8_with_a_few_bad_bytes_stays_utf8(tmp_path: Path):
    text = "Datum;Verwendungszweck;Betrag\n02.01.2024;Bäckerei;-1,00\n".encode()
    text += b"03.01.2024;Caf\xe9;-2,00\n" + "04.01.2024;Müller;-3,00\n".encode()
    parsed = bank_csv.read(write(tmp_path, text))
    assert [r.description for r in parsed.rows] == ["Bäckerei", "Müller"]
    assert [(p.location, p.reason) for p in parsed.problems] == [
        ("line 3", "text is not valid UTF-8")
    ]


# The project's own schema: the "FinSync CSV" profile, strict about its values.
HEADER = "date,description,amount,currency,category,merchant,account_no,account_name,bank_name\n"
ROW = "2025-01-03,COFFEE,{amount},USD,Dining,Blue Bottle,111122223333,Checking,Test Bank\n"


def finsync(tmp_path: Path, body: str | bytes) -> ParsedFile:
    data = body if isinstance(body, bytes) else (HEADER + body).encode()
    return bank_csv.read(write(tmp_path, data))


def test_finsync_profile():
    parsed = read("finsync.csv")
    assert parsed.format == bank_csv.PROJECT_PROFILE == "finsync-csv"
    assert parsed.problems == []
    first, second, third = parsed.rows
    assert (first.amount, first.balance, first.transaction_id) == (
        Decimal("-4.50"),
        Decimal("1995.50"),
        "t-001",
    )
    assert (first.merchant, first.category, first.account_no) == (
        "Blue Bottle",
        "Dining",
        "111122223333",
    )
    assert (second.amount, second.merchant, second.transaction_id) == (
        Decimal("2500.00"),
        None,
        None,
    )
    # A blank category or merchant is for landing to infer; the currency is upper-cased.
    assert (third.category, third.merchant, third.currency) == (None, None, "USD")


@pytest.mark.parametrize(
    ("amount", "parsed"), [("-4.50", "-4.50"), ('"-1,234.50"', "-1234.50"), ("12", "12.00")]
)
def test_finsync_amounts(tmp_path: Path, amount: str, parsed: str):
    (row,) = finsync(tmp_path, ROW.format(amount=amount)).rows
    assert row.amount == Decimal(parsed)


@pytest.mark.parametrize(
    ("amount", "reason"),
    [
        ('"-12,34"', "amount '-12,34': a comma may only separate thousands"),
        ("1.234", "amount '1.234' has more than two decimal places"),
        ("NaN", "amount 'NaN' is not a number"),
        ("4.5.6", "amount '4.5.6' is not a number"),
        ("", "missing value for amount"),
    ],
)
def test_finsync_bad_amounts_are_reported_by_line(tmp_path: Path, amount: str, reason: str):
    parsed = finsync(tmp_path, ROW.format(amount=amount))
    assert parsed.rows == []
    assert [(p.location, p.reason) for p in parsed.problems] == [("line 2", reason)]


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        (ROW.replace("2025-01-03", "03.01.2025"), "date '03.01.2025' is not a date in the form"),
        (ROW.replace("USD", "US$"), "currency 'US$' is not an ISO 4217 code"),
        (ROW.replace("COFFEE", ""), "missing value for description"),
        (ROW.replace("2025-01-03", ""), "missing value for date"),
    ],
)
def test_finsync_bad_values_are_reported_by_line(tmp_path: Path, row: str, reason: str):
    parsed = finsync(tmp_path, row.format(amount="-1.00"))
    assert parsed.rows == []
    (problem,) = parsed.problems
    assert problem.location == "line 2" and problem.reason.startswith(reason)


def test_finsync_identical_rows_stay_distinct(tmp_path: Path):
    body = ROW.format(amount="-3.00") * 2
    first, second = finsync(tmp_path, body).rows
    assert (first.location, second.location) == ("line 2", "line 3")
    assert first != second and first.amount == second.amount


def test_finsync_bad_bytes_and_extra_values_lose_only_their_row(tmp_path: Path):
    good = ROW.format(amount="-1.00").encode()
    body = (
        HEADER.encode()
        + good
        + b"2025-01-04,CAF\xe9,-2.00,USD,Dining,Cafe,111122223333,Checking,Test Bank\n"
        + ROW.format(amount="-3.00,extra").encode()
        + good.replace(b"2025-01-03", b"2025-01-05")
    )
    parsed = finsync(tmp_path, body)
    assert [r.location for r in parsed.rows] == ["line 2", "line 5"]
    assert [(p.location, p.reason) for p in parsed.problems] == [
        ("line 3", "text is not valid UTF-8"),
        ("line 4", "more values than columns"),
    ]


def test_missing_columns_reject_the_file(tmp_path: Path):
    with pytest.raises(UnreadableFile, match="found columns: date, amount; need a date"):
        bank_csv.read(write(tmp_path, "date,amount\n2025-01-01,1.00\n"))


def test_a_short_row_of_an_inferred_layout_is_read_with_its_trailing_columns_empty(
    tmp_path: Path,
):
    text = (
        "交易日期,交易摘要,交易金额,本次余额,对手信息,交易渠道,交易附言\n"
        "20240102,财付通,-10.00,990.00,微信支付,电子商务,北京一卡通\n"
        "20240103,正常还款,-345.89,644.11,12341234\n"  # the bank left its two last fields out
        "20240104,结息\n"  # no amount: a row that lost its values
    )
    parsed = bank_csv.read(write(tmp_path, text))
    assert money(parsed) == [
        ("line 2", "2024-01-02", "-10.00"),
        ("line 3", "2024-01-03", "-345.89"),
    ]
    assert parsed.rows[1].description == "正常还款"
    assert [(p.location, p.reason) for p in parsed.problems] == [
        ("line 4", "fewer values than columns (2 of 7)")
    ]


def test_a_preamble_table_of_names_over_values_states_currency_and_balance(tmp_path: Path):
    text = (
        "Начало периода;2019-07-07\n"
        "\n"
        "Валюта;Баланс на конец периода;Поступления;Списания\n"
        "RUR;82 604,01;0,00;-17 351,00\n"
        "\n"
        "Дата операции;Сумма;Основание\n"
        "2019-07-06;-336,15;Карта *1234 payee1\n"
    ).encode("cp1251")
    parsed = bank_csv.read(write(tmp_path, text))
    assert parsed.currency == "RUR"
    assert [(b.name, b.amount, b.currency) for b in parsed.balances] == [
        ("closing_balance", Decimal("82604.01"), "RUR")
    ]
    assert money(parsed) == [("line 7", "2019-07-06", "-336.15")]


def test_of_two_currency_columns_the_one_after_the_amount_read_is_its_currency(tmp_path: Path):
    text = (
        "Booked;Paid;Paid in;Booked amount;Account currency;Text\n"
        "06.07.2019;-4,50;EUR;-336,15;RUB;payee one\n"
        "05.07.2019;-300,00;RUB;-300,00;RUB;payee two\n"
        "04.07.2019;-2,00;USD;-130,55;RUB;payee three\n"
    )
    parsed = bank_csv.read(write(tmp_path, text))
    # No header names a role: the first money column is the amount, its currency follows it.
    assert [(str(r.amount), r.currency) for r in parsed.rows] == [
        ("-4.50", "EUR"),
        ("-300.00", "RUB"),
        ("-2.00", "USD"),
    ]
    named = write(tmp_path, text.replace("Booked amount", "Amount"), "named.csv")
    # A header naming the amount wins, and the currency is the one after it.
    assert [(str(r.amount), r.currency) for r in bank_csv.read(named).rows] == [
        ("-336.15", "RUB"),
        ("-300.00", "RUB"),
        ("-130.55", "RUB"),
    ]


def test_balance_rows_framed_by_borders_are_balances(tmp_path: Path):
    text = (
        "Data,Valuta,Addebiti,Accrediti,Descrizione operazioni\n"
        "31/12/17,,,26851.95|,SALDO INIZIALE\n"
        "03/01/18,03/01/18,2.90,,IMPOSTA DI BOLLO\n"
        "31/08/18,,,28359.05,|SALDO FINALE"
    )
    parsed = bank_csv.read(write(tmp_path, text))
    assert money(parsed) == [("line 3", "2018-01-03", "-2.90")]
    assert [(b.name, str(b.amount)) for b in parsed.balances] == [
        ("opening_balance", "26851.95"),
        ("closing_balance", "28359.05"),
    ]


@pytest.mark.parametrize(
    ("descriptor", "kind"),
    [
        ("银联ATM取款 银联 ATM 取款，中国银行", "atm"),  # no spaces: its first characters
        ("银联消费", "card"),
        ("结息 个人活期结息", "interest"),
        ("跨行汇款", "transfer"),
        ("代发住房公积金", None),
        ("Карта *1234 payee1", "card"),
        ("SBOL перевод 4276****1234", "transfer"),
        ("PRELIEVO POSTAMAT NOSTRO SPORTELLO AUTOMATICO", "atm"),
        ("ADDEBITO DIRETTO SDD Postepay", "direct_debit"),
    ],
)
def test_payment_kinds_are_read_from_descriptors_in_any_script(descriptor: str, kind: str | None):
    assert payment_kinds.from_text(descriptor) == kind


def test_a_profile_whose_values_do_not_read_gives_way_to_synonyms(tmp_path: Path):
    # The names of Chase's 2009 layout, the values of another bank: its dates are not Chase's.
    text = (
        "Date,Type,Description,Amount,Balance\n"
        "2025-03-01,ATM,HIGH STREET 12,-60.00,940.00\n"
        "2025-03-02,Direct Debit,CITY POWER LTD,-45.10,894.90\n"
    )
    parsed = bank_csv.read(write(tmp_path, text))
    assert parsed.format == "bank-csv (generic: Date, Amount, Description)"
    assert (parsed.problems, money(parsed)) == (
        [],
        [("line 2", "2025-03-01", "-60.00"), ("line 3", "2025-03-02", "-45.10")],
    )
    assert [r.payment_kind for r in parsed.rows] == ["atm", "direct_debit"]


# --- signs the running balance decides -----------------------------------------------------------


def test_unsigned_amounts_a_balance_steps_down_by_are_money_out(tmp_path: Path):
    # A savings account's export in German: every amount printed without a sign, and only the
    # balance, stepping down by each, says the money went out.
    text = (
        "Buchungstag;Verwendungszweck;Betrag;Saldo\n"
        "02.01.2024;Miete Januar;850,00;4.150,00\n"
        "15.01.2024;Stadtwerke Strom;64,20;4.085,80\n"
        "31.01.2024;Versicherung;120,00;3.965,80\n"
    )
    parsed = bank_csv.read(write(tmp_path, text))
    assert [str(r.amount) for r in parsed.rows] == ["-850.00", "-64.20", "-120.00"]
    assert (
        "amounts read as money out when positive: the balance steps down by each positive amount"
        in parsed.notes
    )


@pytest.mark.parametrize("newest_first", [False, True], ids=["oldest first", "newest first"])
def test_unsigned_amounts_both_ways_take_each_row_s_direction_from_its_balance(
    tmp_path: Path, newest_first: bool
):
    # A headerless export (date; text; amount; balance) whose amounts carry no sign: money in
    # and out only show in how the balance moves.
    rows = [
        "27.08.2012;Løn;20.000,00;26.550,33",
        "28.08.2012;Netto;455,20;26.095,13",
        "01.09.2012;H&M retur;497,90;26.593,03",
        "03.09.2012;Husleje;7.500,00;19.093,03",
        "05.09.2012;Matas;655,00;18.438,03",
    ]
    if newest_first:
        rows.reverse()
    parsed = bank_csv.read(write(tmp_path, "\n".join(rows) + "\n"))
    by_text = {r.description: str(r.amount) for r in parsed.rows}
    # The oldest row has no balance before it in the file: it takes the direction most rows
    # take, and the notes say so.
    assert by_text == {
        "Løn": "-20000.00",
        "Netto": "-455.20",
        "H&M retur": "497.90",
        "Husleje": "-7500.00",
        "Matas": "-655.00",
    }
    assert bank_csv.inspect(write(tmp_path, "\n".join(rows) + "\n", "again.csv")).mapping.sign == (
        "balance_steps"
    )
    assert any("each row's direction is read from its balance's step" in n for n in parsed.notes)
    guessed = "1 row(s) whose balance does not step by their amount read as money out, as most"
    assert any(note.startswith(guessed) for note in parsed.notes)


def test_a_stated_opening_balance_signs_the_first_row(tmp_path: Path):
    text = (
        "Date,Details,Amount,Balance\n"
        "01/03/2024,Opening balance,,1000.00\n"
        "02/03/2024,SALARY ACME LTD,2500.00,3500.00\n"
        "05/03/2024,RENT,1200.00,2300.00\n"
        "09/03/2024,REFUND SHOP,30.00,2330.00\n"
    )
    parsed = bank_csv.read(write(tmp_path, text))
    assert [str(r.amount) for r in parsed.rows] == ["2500.00", "-1200.00", "30.00"]
    assert not any("read as money" in n for n in parsed.notes)  # every row decided


def test_signed_amounts_printing_money_out_positive_are_read_by_the_balance(tmp_path: Path):
    # Withdrawals printed positive, deposits negative: the balance steps down by the positive.
    text = (
        "Date,Details,Amount,Balance\n"
        "2024-03-01,ATM HIGH ST,100.00,900.00\n"
        "2024-03-02,SALARY,-2000.00,2900.00\n"
        "2024-03-03,GROCER,45.50,2854.50\n"
    )
    parsed = bank_csv.read(write(tmp_path, text))
    assert [str(r.amount) for r in parsed.rows] == ["-100.00", "2000.00", "-45.50"]


def test_a_card_s_balance_is_no_evidence_of_its_sign(tmp_path: Path):
    # A card's balance is what is owed: it steps up with the spend. The wording decides.
    text = (
        "Date,Card Number,Description,Amount,Balance\n"
        "2024-03-01,****1234,CORNER CAFE,4.50,104.50\n"
        "2024-03-02,****1234,BOOK SHOP,20.00,124.50\n"
        "2024-03-05,****1234,PAYMENT - THANK YOU,-100.00,24.50\n"
        "2024-03-06,****1234,PETROL,40.00,64.50\n"
    )
    parsed = bank_csv.read(write(tmp_path, text))
    assert [str(r.amount) for r in parsed.rows] == ["-4.50", "-20.00", "100.00", "-40.00"]


# --- several header sections in one file ---------------------------------------------------------

TWO_ACCOUNTS = (
    "Konto;DE11 1111 1111 1111 1111 11\n"
    "Kontoname;Girokonto\n"
    "Währung;EUR\n"
    "\n"
    "Buchungstag;Verwendungszweck;Betrag;Saldo\n"
    "02.01.2024;Miete Januar;-850,00;1.150,00\n"
    "05.01.2024;Gehalt;2.000,00;3.150,00\n"
    "\n"
    "Konto;DE22 2222 2222 2222 2222 22\n"
    "Kontoname;Tagesgeld\n"
    "\n"
    "Buchungstag;Verwendungszweck;Betrag;Saldo\n"
    "03.01.2024;Zinsen;1,20;5.001,20\n"
    "10.01.2024;Übertrag;-500,00;4.501,20\n"
)


def test_each_section_of_a_file_lands_with_the_account_its_lines_name(tmp_path: Path):
    parsed = bank_csv.read(write(tmp_path, TWO_ACCOUNTS))
    assert parsed.problems == []
    assert (parsed.account_no, parsed.account_name, parsed.currency) == (
        "DE11 1111 1111 1111 1111 11",
        "Girokonto",
        "EUR",
    )
    assert [(r.location, str(r.amount), r.account_no, r.account_name) for r in parsed.rows] == [
        ("line 6", "-850.00", None, None),  # the file's own account, stated above the first
        ("line 7", "2000.00", None, None),
        ("line 13", "1.20", "DE22 2222 2222 2222 2222 22", "Tagesgeld"),
        ("line 14", "-500.00", "DE22 2222 2222 2222 2222 22", "Tagesgeld"),
    ]


def test_month_sections_read_by_content_leave_no_line_unread(tmp_path: Path):
    # No header name is a synonym: the columns are read by what they hold, the repeated header
    # and the month above each section are no rows and no problems.
    text = (
        "January 2024\n"
        "When,What,How much,Left\n"
        "2024-01-03,Corner cafe,-3.50,996.50\n"
        "2024-01-09,Salary,2000.00,2996.50\n"
        "\n"
        "February 2024\n"
        "When,What,How much,Left\n"
        "2024-02-03,Corner cafe,-3.80,2992.70\n"
        "2024-02-11,Bookshop,-12.00,2980.70\n"
        "Account: 9999\n"  # a trailer line after the last row is still reported
    )
    parsed = bank_csv.read(write(tmp_path, text))
    assert money(parsed) == [
        ("line 3", "2024-01-03", "-3.50"),
        ("line 4", "2024-01-09", "2000.00"),
        ("line 8", "2024-02-03", "-3.80"),
        ("line 9", "2024-02-11", "-12.00"),
    ]
    assert {r.account_no for r in parsed.rows} == {None}
    assert [p.location for p in parsed.problems] == ["line 10"]
