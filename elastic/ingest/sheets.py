"""Spreadsheet exports (XLSX, XLS, ODS) through the same tabular path as a CSV.

Each sheet's cells are read with a maintained reader (openpyxl, xlrd, odfpy through pandas) and
written as text: dates the spreadsheet knows as dates become ``YYYY-MM-DD``, a column of whole
numbers that can only be Excel day serials becomes dates too, numbers keep their exact digits,
and a merged header cell names every column it spans. The sheet then goes through the CSV
reader, so its columns are read by the same profiles, synonyms and content. The first sheet
that holds transactions lands; the report names the sheets that were not read and why.
"""

from __future__ import annotations

import csv
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path

from elastic.ingest import bank_csv
from elastic.ingest.parsed import ParsedFile, UnreadableFile

ZIP = b"PK\x03\x04"
OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"
# Excel's day serials of 1990-01-01 and 2099-12-31: whole numbers between them in a column
# with no other dates are days.
SERIALS = (32874, 73050)
EXCEL_EPOCH = date(1899, 12, 30)
MAX_ROWS = 1_000_000

Cell = str | int | float | Decimal | date | datetime | time | bool | None


def sniff(head: bytes) -> bool:
    """An Office Open XML or OpenDocument package (a ZIP) or a BIFF workbook (OLE2)."""
    return head.startswith(ZIP) or head.startswith(OLE2)


def read(path: Path) -> ParsedFile:
    """The first sheet whose rows read as transactions; UnreadableFile when none does."""
    kind, sheets = _sheets(path)
    notes: list[str] = []
    reasons: list[str] = []
    for name, rows in sheets:
        if not any(any(str(c).strip() for c in row) for row in rows):
            notes.append(f"sheet {name!r} not read: it is empty")
            continue
        try:
            parsed = _as_csv(path, rows)
        except UnreadableFile as exc:
            reasons.append(f"sheet {name!r}: {exc}")
            continue
        if not parsed.rows and not parsed.balances:
            reasons.append(f"sheet {name!r}: no transactions")
            continue
        parsed.format = f"{kind} (sheet {name!r}) · {parsed.format}"
        others = [n for n, _ in sheets if n != name]
        if others:
            notes.append(
                f"read sheet {name!r}; "
                + ", ".join(f"{n!r}" for n in others)
                + " not read (the first sheet with transactions lands)"
            )
        parsed.notes = [*notes, *parsed.notes]
        return parsed
    raise UnreadableFile("no sheet holds transactions: " + "; ".join(reasons or notes))


def _sheets(path: Path) -> tuple[str, list[tuple[str, list[list[str]]]]]:
    """The workbook's kind and each sheet's cells as text."""
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise UnreadableFile(f"cannot open ({exc.strerror})") from exc
    if head.startswith(OLE2):
        return "xls", _xls(path)
    try:
        with zipfile.ZipFile(path) as package:
            names = set(package.namelist())
            mimetype = package.read("mimetype") if "mimetype" in names else b""
    except zipfile.BadZipFile as exc:
        raise UnreadableFile(f"a damaged ZIP file ({exc})") from exc
    if "xl/workbook.xml" in names:
        return "xlsx", _xlsx(path)
    if mimetype.startswith(ODS_MIMETYPE):
        return "ods", _ods(path)
    raise UnreadableFile("a ZIP file that is not a spreadsheet (XLSX or ODS)")


def _xlsx(path: Path) -> list[tuple[str, list[list[str]]]]:
    import openpyxl

    try:
        book = openpyxl.load_workbook(path, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged package
        raise UnreadableFile(f"not a readable XLSX workbook ({exc})") from exc
    sheets = []
    for sheet in book.worksheets:
        last = min(sheet.max_row, MAX_ROWS)
        grid = [list(row) for row in sheet.iter_rows(values_only=True, max_row=last)]
        for merged in sheet.merged_cells.ranges:  # a merged header names every column it spans
            value = sheet.cell(merged.min_row, merged.min_col).value
            for r in range(merged.min_row - 1, min(merged.max_row, len(grid))):
                for c in range(merged.min_col - 1, merged.max_col):
                    if c < len(grid[r]) and grid[r][c] is None:
                        grid[r][c] = value
        sheets.append((sheet.title, _texts(grid)))
    return sheets


def _xls(path: Path) -> list[tuple[str, list[list[str]]]]:
    import xlrd

    try:
        book = xlrd.open_workbook(path, formatting_info=True)
    except Exception as exc:  # xlrd raises XLRDError and struct errors for damaged files
        raise UnreadableFile(f"not a readable XLS workbook ({exc})") from exc
    sheets = []
    for sheet in book.sheets():
        grid: list[list[Cell]] = []
        for r in range(min(sheet.nrows, MAX_ROWS)):
            row: list[Cell] = []
            for c in range(sheet.ncols):
                cell = sheet.cell(r, c)
                if cell.ctype == xlrd.XL_CELL_DATE:
                    row.append(xlrd.xldate_as_datetime(cell.value, book.datemode))
                elif cell.ctype in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
                    row.append(None)
                else:
                    row.append(cell.value)
            grid.append(row)
        for top, bottom, left, right in sheet.merged_cells:
            for r in range(top, min(bottom, len(grid))):
                for c in range(left, right):
                    if grid[r][c] is None:
                        grid[r][c] = grid[top][left]
        sheets.append((sheet.name, _texts(grid)))
    return sheets


def _ods(path: Path) -> list[tuple[str, list[list[str]]]]:
    import pandas as pd

    try:
        frames = pd.read_excel(path, engine="odf", sheet_name=None, header=None, dtype=object)
    except Exception as exc:  # odfpy and pandas raise many kinds for a damaged package
        raise UnreadableFile(f"not a readable ODS spreadsheet ({exc})") from exc
    sheets = []
    for name, frame in frames.items():
        grid = [
            [None if _missing(v) else v for v in row]
            for row in frame.itertuples(index=False, name=None)
        ]
        sheets.append((str(name), _texts(grid[:MAX_ROWS])))
    return sheets


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _texts(grid: Sequence[Sequence[Cell]]) -> list[list[str]]:
    """Cells as the text a CSV export would hold; day-serial columns as dates."""
    width = max((len(row) for row in grid), default=0)
    rows = [[*row, *([None] * (width - len(row)))] for row in grid]
    serial_columns = _serial_columns(rows, width)
    return [[_text(cell, serial=c in serial_columns) for c, cell in enumerate(row)] for row in rows]


def _serial_columns(rows: Sequence[Sequence[Cell]], width: int) -> set[int]:
    """Columns of whole numbers that are only Excel day serials, in a sheet with no dates."""
    if any(isinstance(cell, date | datetime) for row in rows for cell in row):
        return set()
    found = set()
    for c in range(width):
        numbers = [row[c] for row in rows if isinstance(row[c], int | float)]
        if len(numbers) >= 2 and all(
            float(n).is_integer() and SERIALS[0] <= n <= SERIALS[1] for n in numbers
        ):
            found.add(c)
    return found


def _text(cell: Cell, serial: bool = False) -> str:
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return str(cell)
    if isinstance(cell, datetime):
        return cell.date().isoformat() if cell.time() == time() else cell.isoformat(" ")
    if isinstance(cell, date):
        return cell.isoformat()
    if hasattr(cell, "to_pydatetime"):  # a pandas Timestamp
        return _text(cell.to_pydatetime())
    if isinstance(cell, int | float | Decimal):
        if serial:
            return (EXCEL_EPOCH + timedelta(days=int(cell))).isoformat()
        if isinstance(cell, float):
            if cell != cell or cell in (float("inf"), float("-inf")):
                return str(cell)  # read as "not a number" for its row
            if cell.is_integer():
                return str(int(cell))
            return format(Decimal(repr(cell)), "f")
        return str(cell)
    return " ".join(str(cell).split())


def _as_csv(path: Path, rows: Iterable[Sequence[str]]) -> ParsedFile:
    """The sheet read by the CSV reader: written as a CSV of the file's own name, so the
    report names the file and each row's line is its row in the sheet."""
    with tempfile.TemporaryDirectory(prefix="finsync-sheet-") as folder:
        copy = Path(folder) / path.name
        with copy.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            for row in rows:
                writer.writerow(row)
        return bank_csv.read(copy)
