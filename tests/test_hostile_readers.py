"""Every reader against values no account holds and bytes no export should hold: each costs
its own row, reported with where it is, never a traceback, and the rest of the file lands.

Files are written here: UTF-16 CSVs, a NUL byte near the start, NaN, Infinity and 1E+26 as
amounts in a CSV, OFX, CAMT, MT940, QIF and a spreadsheet, and MT940 entry lines without a
type code or with an over-long amount.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import openpyxl
import pytest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.ingest.landing import ingest_file
from elastic.model.records import IngestReport
from settings import Settings
from tests.reliability import record

FORMATS = Path(__file__).parent / "fixtures" / "formats"
HUGE = ("NaN", "Infinity", "-Infinity", "1E+26", "99999999999999999999.00")
CSV_HEAD = "Date;Description;Amount\n"


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[EmbeddedBackend]:
    store = EmbeddedBackend(Settings(data_dir=tmp_path / "data"))
    store.prepare(4, "test")
    yield store
    store.close()


def check(
    backend: EmbeddedBackend, path: Path, case: str, rows: int, land: int, reported: list[str]
) -> IngestReport:
    report = ingest_file(backend, path, re.sub(r"\W", "-", case), defaults=None)
    locations = [p.location for p in report.problems]
    assert all("Traceback" not in p.reason for p in report.problems)
    assert report.indexed == land, report.problems
    assert locations == reported, report.problems
    record(
        "malformed files",
        case,
        "; ".join(str(p) for p in report.problems) or "all rows landed",
        backend=backend.name,
        rows_in=rows,
        rows_stored=report.indexed,
        rows_reported=len(report.problems),
    )
    return report


@pytest.mark.reliability
@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-16-le", True), ("utf-16-be", True), ("utf-16-le", False), ("utf-16-be", False)],
)
def test_utf16_csv_lands(backend, tmp_path, encoding, bom):
    text = CSV_HEAD + "03.01.2025;Café Größe;-4,50\n04.01.2025;Salaire Février;1 200,00\n"
    data = text.encode(encoding)
    path = tmp_path / "utf16.csv"
    path.write_bytes(("\ufeff".encode(encoding) if bom else b"") + data)
    case = f"UTF-16 CSV ({encoding}{', BOM' if bom else ', no BOM'})"
    check(backend, path, case, rows=2, land=2, reported=[])


@pytest.mark.reliability
def test_a_nul_byte_near_the_start_costs_its_row(backend, tmp_path):
    path = tmp_path / "nul.csv"
    path.write_bytes(
        b"Date;Description;Amount\n03.01.2025;COF\x00FEE;-4,50\n"
        b"04.01.2025;TEA;-2,00\n05.01.2025;BREAD;-3,10\n"
    )
    report = check(backend, path, "NUL byte in the first row", 3, land=2, reported=["line 2"])
    assert "NUL" in report.problems[0].reason


def _csv(tmp_path: Path, value: str) -> Path:
    path = tmp_path / "huge.csv"
    path.write_text(CSV_HEAD + f"03.01.2025;BIG;{value}\n04.01.2025;TEA;-2,00\n")
    return path


def _ofx(tmp_path: Path, value: str) -> Path:
    text = (FORMATS / "ofx1_sgml_checking.ofx").read_text(encoding="latin-1")
    path = tmp_path / "huge.ofx"
    path.write_text(re.sub(r"<TRNAMT>[^<\r\n]*", f"<TRNAMT>{value}", text, count=1), "latin-1")
    return path


def _camt(tmp_path: Path, value: str) -> Path:
    text = (FORMATS / "camt053_v02.xml").read_text(encoding="utf-8")
    entry = text.index("<Ntry>")
    opened = text.index(">", text.index("<Amt", entry)) + 1
    path = tmp_path / "huge.xml"
    path.write_text(text[:opened] + value + text[text.index("</Amt>", opened) :], "utf-8")
    return path


def _qif(tmp_path: Path, value: str) -> Path:
    path = tmp_path / "huge.qif"
    path.write_text(f"!Type:Bank\nD01/03/2025\nT{value}\nPBIG\n^\nD01/04/2025\nT-2.00\nPTEA\n^\n")
    return path


def _xlsx(tmp_path: Path, value: str) -> Path:
    book = openpyxl.Workbook()
    book.active.append(["Date", "Description", "Amount"])
    number = float(value.replace("99999999999999999999.00", "1e20"))
    book.active.append(["2025-01-03", "BIG", number])
    book.active.append(["2025-01-04", "TEA", -2.0])
    path = tmp_path / "huge.xlsx"
    book.save(path)
    return path


WRITERS: dict[str, tuple[Callable[[Path, str], Path], int, str]] = {
    # reader: (writer, rows in the file, where the big value is reported)
    "CSV": (_csv, 2, "line 2"),
    "OFX": (_ofx, 6, "entry 1"),
    "CAMT": (_camt, 0, "entry 1"),
    "QIF": (_qif, 2, "entry 1"),
    "XLSX": (_xlsx, 2, "line 2"),
}


@pytest.mark.reliability
@pytest.mark.parametrize("value", HUGE)
@pytest.mark.parametrize("reader", sorted(WRITERS))
def test_a_value_no_account_holds_is_a_problem_for_its_row(backend, tmp_path, reader, value):
    write, rows, where = WRITERS[reader]
    path = write(tmp_path, value)
    report = ingest_file(backend, path, f"huge-{reader}", defaults=None)
    problems = [p for p in report.problems if p.location == where]
    assert problems, report.problems
    assert all("Traceback" not in p.reason for p in report.problems)
    assert report.indexed >= 1  # the other rows land
    record(
        "malformed files",
        f"{reader} amount {value}",
        str(problems[0]),
        backend=backend.name,
        rows_in=rows or report.indexed + len(report.problems),
        rows_stored=report.indexed,
        rows_reported=len(report.problems),
    )


@pytest.mark.reliability
@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (":61:2408010801D10,00", "no transaction type code"),
        (":61:2408020802D99999999999999999,00NTRFNONREF", "longer than 15 characters"),
    ],
)
def test_an_mt940_entry_that_does_not_read_never_joins_the_next(backend, tmp_path, line, reason):
    path = tmp_path / "statement.sta"
    path.write_text(
        ":20:REF\n:25:12345678/0123456789\n:28C:1/1\n:60F:C240731EUR100,00\n"
        f"{line}\n:86:the entry that does not read\n"
        ":61:2408030803D5,00NTRFNONREF\n:86:the next entry\n:62F:C240803EUR95,00\n-\n"
    )
    report = check(backend, path, f"MT940 {reason}", rows=2, land=1, reported=["line 5"])
    assert reason in report.problems[0].reason
