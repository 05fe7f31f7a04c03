"""Turn a statement PDF into page chunks with bank, account and period read from the page text."""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pypdfium2 as pdfium

from elastic.masking import mask_account
from elastic.records import IngestProblem, StatementChunk

CHUNK_CHARS = 900
# pdfium is not thread-safe, and Streamlit serves sessions from several threads at once.
PDFIUM_LOCK = threading.Lock()

_ACCOUNT_NAME = re.compile(r"^\s*Account name:\s*(?P<v>.+?)\s*$", re.M | re.I)
_ACCOUNT_NO = re.compile(r"^\s*Account number:\s*(?P<v>[\d\s-]+?)\s*$", re.M | re.I)
_PERIOD = re.compile(
    r"Statement period:\s*(?P<a>\d{4}-\d{2}-\d{2})\s*(?:to|-|–)\s*(?P<b>\d{4}-\d{2}-\d{2})", re.I
)
_TITLE = re.compile(r"^\s*(?P<v>\S.*?)\s*\n\s*Account Statement\s*$", re.M | re.I)
_HEADER_LINE = re.compile(
    r"^\s*(Account Statement|Account name:.*|Account number:.*|Statement period:.*|"
    r"Page \d+ of \d+)\s*$",
    re.I,
)


@dataclass(frozen=True)
class StatementMeta:
    bank_name: str
    account_name: str
    account_no: str
    statement_from: date
    statement_to: date

    @property
    def statement_id(self) -> str:
        key = f"{self.account_no}|{self.statement_from}|{self.statement_to}"
        return "st-" + hashlib.sha1(key.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class PdfPages:
    chunks: list[StatementChunk]
    problems: list[IngestProblem]


def read_meta(text: str) -> StatementMeta | None:
    """Bank, account and period from a page's header block, or None if any is missing."""
    name, number, period = (
        _ACCOUNT_NAME.search(text),
        _ACCOUNT_NO.search(text),
        _PERIOD.search(text),
    )
    title = _TITLE.search(text)
    if not (name and number and period and title):
        return None
    try:
        start, end = date.fromisoformat(period["a"]), date.fromisoformat(period["b"])
    except ValueError:
        return None
    account_no = re.sub(r"[\s-]", "", number["v"])
    return StatementMeta(title["v"], name["v"], account_no, start, end)


def body_text(text: str, bank_name: str) -> str:
    """Page text without the header block every page of a statement repeats."""
    lines = [ln for ln in text.splitlines() if not _HEADER_LINE.match(ln)]
    if lines and lines[0].strip() == bank_name:
        lines = lines[1:]
    return "\n".join(ln.rstrip() for ln in lines).strip()


def split_chunks(body: str, limit: int = CHUNK_CHARS) -> list[str]:
    """Split page text on line boundaries into chunks of at most ``limit`` characters."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for line in body.splitlines():
        if current and size + len(line) + 1 > limit:
            chunks.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current and "".join(current).strip():
        chunks.append("\n".join(current))
    return chunks


def page_texts(path: Path) -> list[tuple[int, str | None, str | None]]:
    """Yield ``(page_number, text, error)`` for every page; an unreadable page has an error."""
    pages: list[tuple[int, str | None, str | None]] = []
    with PDFIUM_LOCK:
        document = pdfium.PdfDocument(path)
        try:
            for index in range(len(document)):
                try:
                    text = document[index].get_textpage().get_text_bounded()
                except pdfium.PdfiumError as exc:
                    pages.append((index + 1, None, f"text could not be extracted ({exc})"))
                    continue
                pages.append((index + 1, text.replace("\r\n", "\n").replace("\r", "\n"), None))
        finally:
            document.close()
    return pages


def read_statement_pdf(path: Path, source_file: str) -> PdfPages:
    """Chunks of every readable page; problems name the page that failed and why."""
    source = path.name
    try:
        pages = list(page_texts(path))
    except pdfium.PdfiumError as exc:
        return PdfPages([], [IngestProblem(source, "file", f"not a readable PDF ({exc})")])
    meta = next((m for _, text, _ in pages if text and (m := read_meta(text))), None)
    if meta is None:
        reason = "no statement header (bank, account name, account number, statement period)"
        return PdfPages([], [IngestProblem(source, "file", reason)])
    chunks: list[StatementChunk] = []
    problems: list[IngestProblem] = []
    for number, text, error in pages:
        if error or text is None:
            problems.append(IngestProblem(source, f"page {number}", error or "no text"))
            continue
        if not body_text(text, meta.bank_name):
            problems.append(IngestProblem(source, f"page {number}", "page has no text"))
            continue
        for index, piece in enumerate(split_chunks(text.strip())):
            chunks.append(_chunk(meta, number, index, piece, source_file))
    return PdfPages(chunks, problems)


def _chunk(
    meta: StatementMeta, page: int, index: int, text: str, source_file: str
) -> StatementChunk:
    """``text`` is the raw page text; the summary that is embedded and ranked first leaves out
    the header every page repeats and names the statement once instead."""
    period = f"{meta.statement_from.isoformat()} to {meta.statement_to.isoformat()}"
    summary = (
        f"{meta.bank_name} {meta.account_name} {mask_account(meta.account_no)} statement "
        f"{period}, page {page}.\n{body_text(text, meta.bank_name)}"
    )
    return StatementChunk(
        statement_id=meta.statement_id,
        account_no=meta.account_no,
        account_name=meta.account_name,
        bank_name=meta.bank_name,
        statement_from=meta.statement_from,
        statement_to=meta.statement_to,
        page=page,
        chunk=index,
        text=text,
        summary_text=summary,
        source_file=source_file,
    )
