"""Spreadsheet exports (XLSX, XLS, ODS), written here in the layouts banks export them, read
through the same tabular path as a CSV and landed end to end."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
import xlwt
from typer.testing import CliRunner

from elastic.ingest import formats, sheets
from elastic.ingest.parsed import UnreadableFile
from scripts.cli import app


def money(parsed) -> list[tuple[str, str, str]]:
    return [(r.location, r.date.isoformat(), str(r.amount)) for r in parsed.rows]


def german_xlsx(path: Path) -> Path:
    """An online-banking download: account lines above the header, real date cells, a second
    sheet of notes."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Umsätze"
    sheet.append(["Kontonummer", "DE02 1203 0000 0000 2020 51"])
    sheet.append(["Zeitraum", "01.03.2024 - 31.03.2024"])
    sheet.append([])
    sheet.append(["Buchungstag", "Valuta", "Auftraggeber/Empfänger", "Verwendungszweck",
                  "Betrag", "Währung"])  # fmt: skip
    sheet.append([datetime(2024, 3, 28), datetime(2024, 3, 28), "REWE Markt GmbH",
                  "Kartenzahlung girocard", -54.2, "EUR"])  # fmt: skip
    sheet.append([datetime(2024, 3, 27), datetime(2024, 3, 27), "Stadtwerke München",
                  "Lastschrift Strom März", -71.0, "EUR"])  # fmt: skip
    sheet.append([datetime(2024, 3, 25), datetime(2024, 3, 25), "Arbeitgeber AG",
                  "Gehalt März", 2850.55, "EUR"])  # fmt: skip
    notes = book.create_sheet("Hinweise")
    notes.append(["Alle Angaben ohne Gewähr."])
    book.save(path)
    return path


def test_an_xlsx_download_lands_its_first_sheet_with_transactions(tmp_path: Path):
    path = german_xlsx(tmp_path / "umsaetze.xlsx")
    assert formats.detect(path).name == "spreadsheet"
    parsed = sheets.read(path)
    assert parsed.format.startswith("xlsx (sheet 'Umsätze')")
    assert money(parsed) == [
        ("line 5", "2024-03-28", "-54.20"),
        ("line 6", "2024-03-27", "-71.00"),
        ("line 7", "2024-03-25", "2850.55"),
    ]
    assert next(r.merchant for r in parsed.rows) == "REWE Markt GmbH"
    assert parsed.account_no == "DE02 1203 0000 0000 2020 51"
    assert any("'Hinweise' not read" in note for note in parsed.notes)


def test_an_xls_workbook_skips_a_summary_sheet_and_reads_excel_dates(tmp_path: Path):
    """A Swedish bank's .xls: a summary sheet first, then the transactions with date cells."""
    book = xlwt.Workbook()
    summary = book.add_sheet("Översikt")
    summary.write(0, 0, "Kontoutdrag")
    summary.write(1, 0, "Saldo")
    summary.write(1, 1, 1520.5)
    rows = book.add_sheet("Transaktioner")
    day = xlwt.easyxf(num_format_str="YYYY-MM-DD")
    for c, name in enumerate(["Bokföringsdag", "Text", "Belopp", "Saldo"]):
        rows.write(0, c, name)
    data = [
        (date(2024, 5, 2), "ICA Kvantum Malmö", -412.35, 1520.5),
        (date(2024, 5, 3), "Lön maj", 25000.0, 26520.5),
        (date(2024, 5, 6), "Uttag Bankomat", -500.0, 26020.5),
    ]
    for r, (when, text, amount, balance) in enumerate(data, start=1):
        rows.write(r, 0, when, day)
        rows.write(r, 1, text)
        rows.write(r, 2, amount)
        rows.write(r, 3, balance)
    path = tmp_path / "transaktioner.xls"
    book.save(str(path))
    parsed = sheets.read(path)
    assert parsed.format.startswith("xls (sheet 'Transaktioner')")
    assert money(parsed) == [
        ("line 2", "2024-05-02", "-412.35"),
        ("line 3", "2024-05-03", "25000.00"),
        ("line 4", "2024-05-06", "-500.00"),
    ]
    assert [r.balance for r in parsed.rows][-1] == Decimal("26020.50")


def test_an_ods_sheet_with_debit_and_credit_columns(tmp_path: Path):
    frame = pd.DataFrame(
        [
            ["2024-02-01", "PRLV SEPA EDF", "82,40", ""],
            ["2024-02-03", "VIR SEPA SALAIRE", "", "2 450,00"],
            ["2024-02-05", "CARTE 03/02 CARREFOUR", "63,15", ""],
        ],
        columns=["Date opération", "Libellé", "Débit", "Crédit"],
    )
    path = tmp_path / "releve.ods"
    frame.to_excel(path, engine="odf", index=False, sheet_name="Relevé")
    parsed = sheets.read(path)
    assert parsed.format.startswith("ods (sheet 'Relevé')")
    assert money(parsed) == [
        ("line 2", "2024-02-01", "-82.40"),
        ("line 3", "2024-02-03", "2450.00"),
        ("line 4", "2024-02-05", "-63.15"),
    ]


def test_merged_header_cells_and_day_serials_without_a_date_format(tmp_path: Path):
    """A two-row header: "Date" and "Details" merged down over both rows, "Amount" merged
    across "Paid out" and "Paid in"; dates stored as plain Excel day numbers."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Statement"
    sheet.append(["Date", "Details", "Amount", None])
    sheet.append([None, None, "Paid out", "Paid in"])
    sheet.merge_cells("A1:A2")
    sheet.merge_cells("B1:B2")
    sheet.merge_cells("C1:D1")
    sheet.append([45292, "TESCO STORES 2041", 23.5, None])  # 2024-01-01
    sheet.append([45293, "SALARY ACME LTD", None, 1800])
    sheet.append([45295, "CASH WITHDRAWAL ATM", 40, None])
    path = tmp_path / "statement.xlsx"
    book.save(path)
    parsed = sheets.read(path)
    assert money(parsed) == [
        ("line 3", "2024-01-01", "-23.50"),
        ("line 4", "2024-01-02", "1800.00"),
        ("line 5", "2024-01-04", "-40.00"),
    ]


def test_a_workbook_without_transactions_says_so(tmp_path: Path):
    book = openpyxl.Workbook()
    book.active.append(["Name", "Note"])
    book.active.append(["Budget", "Plan for the year"])
    path = tmp_path / "budget.xlsx"
    book.save(path)
    with pytest.raises(UnreadableFile, match="no sheet holds transactions"):
        sheets.read(path)
    notzip = tmp_path / "broken.xlsx"
    notzip.write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    with pytest.raises(UnreadableFile):
        sheets.read(notzip)


def test_a_spreadsheet_lands_and_answers_through_the_command(tmp_path: Path):
    path = german_xlsx(tmp_path / "umsaetze.xlsx")
    env = {"FINSYNC_DATA_DIR": str(tmp_path / "data"), "FINSYNC_EMBEDDER": "local"}
    runner = CliRunner()
    landed = runner.invoke(
        app, ["ingest", str(path), "--user", "sheets", "--bank", "Test Bank"], env=env
    )
    assert landed.exit_code == 0, landed.output
    assert "3 indexed" in landed.output
    asked = runner.invoke(
        app,
        [
            "ask",
            "How much did I pay by direct debit?",
            "--user",
            "sheets",
            "--json",
            "--as-of",
            "2024-04-30",
        ],
        env=env,
    )
    answer = json.loads(asked.output.splitlines()[-1])
    assert Decimal(str(answer["data"]["value"])) == Decimal("71.00"), answer["answer"]
