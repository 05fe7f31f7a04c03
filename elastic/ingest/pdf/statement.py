"""A statement PDF read whole: searchable pages, metadata, stated facts and, where they
reconcile, its transactions. Nothing about an unfamiliar layout rejects a page."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

from elastic.ingest.parsed import ParsedFile, assume_account_name, assume_bank
from elastic.ingest.pdf.facts import PdfFact, read_facts
from elastic.ingest.pdf.metadata import read_metadata
from elastic.ingest.pdf.page_reader import MAX_PAGES, read_pages
from elastic.ingest.pdf.page_words import PageText
from elastic.ingest.pdf.reader import body_text, page_texts, split_chunks
from elastic.ingest.pdf.tables import read_transactions
from elastic.masking import mask_account
from elastic.model.records import IngestProblem, StatementChunk

PDF_FORMAT = "statement PDF"
OCR_MARK = "[Text recognised by OCR]"


@dataclass(frozen=True)
class StatementValues:
    """What the person importing says about a statement: it wins over what is read."""

    bank_name: str | None = None
    account_name: str | None = None
    account_no: str | None = None
    currency: str | None = None


@dataclass
class PdfStatement:
    statement_id: str
    bank_name: str
    account_name: str
    account_no: str
    period: tuple[date, date]
    currency: str
    chunks: list[StatementChunk] = field(default_factory=list)
    facts: list[PdfFact] = field(default_factory=list)
    transactions: ParsedFile | None = None  # None when the rows did not reconcile
    problems: list[IngestProblem] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)


def _statement_id(account: str, period: tuple[date, date], source_file: str) -> str:
    """Stable per account and period, so the same statement ingested twice is one statement;
    without an account number, per stored file (its name is a hash of the content)."""
    key = f"{account}|{period[0]}|{period[1]}" if account else source_file
    return "st-" + hashlib.sha1(key.encode()).hexdigest()[:16]


def _fact(facts: list[PdfFact], name: str) -> Decimal | None:
    return next((f.amount for f in facts if f.name == name and f.amount is not None), None)


def _page_text(page: PageText, layer: dict[int, str | None]) -> str | None:
    """The text chunks keep: the text layer as pdfium extracts it, or the OCR text."""
    if page.ocr:
        return page.text or None
    return layer.get(page.number) or page.text or None


def read_statement(
    path: Path, source_file: str, given: StatementValues, default_currency: str
) -> PdfStatement:
    """Everything a statement PDF holds; raises ``UnreadableFile`` for a corrupt or locked
    file."""
    source = path.name
    pages = read_pages(path)
    problems = [IngestProblem(source, f"page {p.number}", p.problem) for p in pages if p.problem]
    meta = read_metadata(pages)
    currency = (given.currency or meta.currency or "").upper()
    assumed: list[str] = []
    if not currency:
        currency = default_currency
        assumed.append(f"currency {currency} (the statement names none; give --currency)")
    facts = read_facts(pages, currency)
    period = meta.period
    bank = given.bank_name or meta.bank_name
    name = given.account_name or meta.account_name
    # Digits and letters only, as exports store them, so rows of both match.
    number = re.sub(r"[\s-]", "", given.account_no or meta.account_no or meta.iban or "")
    if not bank:
        bank = assume_bank(assumed)
    if not name:
        name = assume_account_name(source, assumed)
    table = read_transactions(
        pages, period, currency, _fact(facts, "opening_balance"), _fact(facts, "closing_balance")
    )
    if period is None and table.rows:
        days = [r.date for r in table.rows if r.date]
        period = (min(days), max(days))
    if period is None:
        today = date.today()
        period = (today, today)
        assumed.append("statement period unknown: dated by the day of the import")
    statement = PdfStatement(
        statement_id=_statement_id(number, period, source_file),
        bank_name=bank,
        account_name=name,
        account_no=number,
        period=period,
        currency=currency,
        facts=facts,
        problems=problems,
        assumed=assumed,
    )
    # The text layer of the pages read (not OCR'd), never of pages beyond MAX_PAGES.
    layered = [p.number for p in pages if not p.ocr and p.number <= MAX_PAGES]
    layer = {n: text for n, text, _ in page_texts(path, layered)} if layered else {}
    for page in pages:
        text = _page_text(page, layer)
        if text and body_text(text, bank):
            for index, piece in enumerate(split_chunks(text.strip())):
                # Every chunk of an OCR'd page says so, for whoever quotes it.
                marked = f"{OCR_MARK}\n{piece}" if page.ocr else piece
                statement.chunks.append(_chunk(statement, page.number, index, marked, source_file))
    if table.rows and table.reconciled:
        statement.transactions = ParsedFile(
            format=PDF_FORMAT,
            rows=table.rows,
            account_no=number or None,
            account_name=name,
            bank_name=bank,
            currency=currency,
            period=period,
        )
    elif (table.rows or table.reason) and statement.chunks:
        # A statement without any text has its pages' problems to say why; nothing to add.
        reason = table.reason or "the table rows do not reconcile with the stated balances"
        statement.problems.append(
            IngestProblem(
                source,
                "file",
                f"transactions not landed: {reason}; the pages are searchable",
            )
        )
    return statement


def _chunk(
    statement: PdfStatement, page: int, index: int, text: str, source_file: str
) -> StatementChunk:
    """``text`` is the raw page text; the summary that is embedded and ranked first leaves out
    the header every page repeats and names the statement once instead."""
    start, end = statement.period
    summary = (
        f"{statement.bank_name} {statement.account_name} {mask_account(statement.account_no)} "
        f"statement {start.isoformat()} to {end.isoformat()}, page {page}.\n"
        f"{body_text(text, statement.bank_name)}"
    )
    return StatementChunk(
        statement_id=statement.statement_id,
        account_no=statement.account_no,
        account_name=statement.account_name,
        bank_name=statement.bank_name,
        statement_from=start,
        statement_to=end,
        page=page,
        chunk=index,
        text=text,
        summary_text=summary,
        source_file=source_file,
    )
