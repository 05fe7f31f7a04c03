"""Which reader a file needs, decided from its first bytes, never from its name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from elastic.ingest import bank_csv, camt053, mt940, ofx, qif, sheets
from elastic.ingest.parsed import ParsedFile, UnreadableFile

HEAD_BYTES = 4096


@dataclass(frozen=True)
class Format:
    name: str
    sniff: Callable[[bytes], bool]
    read: Callable[[Path], ParsedFile]


# Most specific first: a CSV sniffer accepts almost any text.
EXPORT_FORMATS = (
    Format("ofx", ofx.sniff, ofx.read),
    Format("camt", camt053.sniff, camt053.read),
    Format("mt940", mt940.sniff, mt940.read),
    Format("qif", qif.sniff, qif.read),
    Format("spreadsheet", sheets.sniff, sheets.read),
    Format("csv", bank_csv.sniff, bank_csv.stream),  # rows read as they are landed
)


def is_pdf(head: bytes) -> bool:
    # The header may follow a few bytes of junk; readers accept it within the first KiB.
    return b"%PDF-" in head[:1024]


def detect(path: Path) -> Format | None:
    """The export format of ``path``, or None for a PDF; UnreadableFile when it is neither."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError as exc:
        raise UnreadableFile(f"cannot open ({exc.strerror})") from exc
    if not head.strip():
        raise UnreadableFile("the file is empty")
    if is_pdf(head):
        return None
    for fmt in EXPORT_FORMATS:
        if fmt.sniff(head):
            return fmt
    raise UnreadableFile(
        "not a format FinSync reads: expected a bank export (CSV, XLS, XLSX or ODS), OFX/QFX, "
        "QIF, CAMT.052/053/054, MT940/MT942 or a statement PDF"
    )
