"""A statement PDF read whole: searchable pages, metadata, stated facts and every readable row
of its transactions, with how they reconcile with its balances. Nothing about an unfamiliar
layout rejects a page, and no row is held back because another could not be read."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from elastic.ingest.parsed import ParsedFile, ParsedRow, assume_bank
from elastic.ingest.pdf.facts import PdfFact, fact_candidates
from elastic.ingest.pdf.metadata import read_metadata
from elastic.ingest.pdf.page_reader import MAX_PAGES, read_pages
from elastic.ingest.pdf.page_words import PageText
from elastic.ingest.pdf.reader import body_text, page_texts, split_chunks
from elastic.ingest.pdf.tables import Stated, printed_period, read_transactions
from elastic.masking import mask_account
from elastic.model.records import (
    RECONCILED,
    UNCHECKED,
    IngestProblem,
    Reconciliation,
    StatementChunk,
)

PDF_FORMAT = "statement PDF"
OCR_MARK = "[Text recognised by OCR]"
OCR_LOCATION = "read by OCR"  # a row's location says so: "page 1 (read by OCR)"


@dataclass(frozen=True)
class StatementValues:
    """What the person importing says about a statement: it wins over what is read."""

    bank_name: str | None = None
    account_name: str | None = None
    account_no: str | None = None
    currency: str | None = None
    period: tuple[date, date] | None = None
    opening_balance: Decimal | None = None
    closing_balance: Decimal | None = None


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
    transactions: ParsedFile | None = None  # None when no row was read
    reconciliation: Reconciliation = field(default_factory=lambda: Reconciliation(UNCHECKED))
    problems: list[IngestProblem] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was decided or checked, for the report


def _statement_id(account: str, period: tuple[date, date], source_file: str) -> str:
    """Stable per account and period, so the same statement ingested twice is one statement;
    without an account number, per stored file (its name is a hash of the content)."""
    key = f"{account}|{period[0]}|{period[1]}" if account else source_file
    return "st-" + hashlib.sha1(key.encode()).hexdigest()[:16]


def _kind_name(bank: str | None, card: bool, loan: bool) -> str:
    """What a statement that names no product is for: "SBI Card credit card", "Loan"."""
    kind = "credit card" if card else "loan" if loan else "account"
    return f"{bank} {kind}" if bank else kind.capitalize()


def _given_balances(
    candidates: dict[str, list[PdfFact]], given: StatementValues
) -> dict[str, list[PdfFact]]:
    """The balances the person importing gives replace those read (kept at the spot the
    statement prints them, when it does)."""
    for name, value in (
        ("opening_balance", given.opening_balance),
        ("closing_balance", given.closing_balance),
    ):
        if value is None:
            continue
        printed = candidates.get(name)
        page, box = (printed[0].page, printed[0].box) if printed else (1, (0.0, 0.0, 0.0, 0.0))
        candidates[name] = [PdfFact(name, value, None, page, box, "as given at import")]
    return candidates


def _values(candidates: dict[str, list[PdfFact]], name: str) -> list[Decimal]:
    """Every value printed for a balance, first printed first."""
    return [f.amount for f in candidates.get(name, []) if f.amount is not None]


def _as_reconciled(
    candidates: dict[str, list[PdfFact]], reconciliation: Reconciliation
) -> list[PdfFact]:
    """One fact per figure: the first printed, except for a balance printed with several values
    where the rows reconcile with another one (OCR misread the first)."""
    chosen = {"opening_balance": reconciliation.opening, "closing_balance": reconciliation.closing}
    facts = []
    for name, found in candidates.items():
        wanted = chosen.get(name) if reconciliation.status == RECONCILED else None
        facts.append(next((f for f in found if f.amount == wanted), found[0]))
    return facts


def _stated(facts: list[PdfFact]) -> list[Stated]:
    """The money in and out the statement prints, as magnitudes, for its rows to meet."""
    return [
        (f.name, abs(f.amount), f.label, f.page)
        for f in facts
        if f.name in ("money_in", "money_out") and f.amount is not None
    ]


def _page_text(page: PageText, layer: dict[int, str | None]) -> str | None:
    """The text chunks keep: the text layer as pdfium extracts it, or the OCR text."""
    if page.ocr:
        return page.text or None
    return layer.get(page.number) or page.text or None


def read_statement(
    path: Path,
    source_file: str,
    given: StatementValues,
    default_currency: str,
    pages: list[PageText] | None = None,
) -> PdfStatement:
    """Everything a statement PDF holds; raises ``UnreadableFile`` for a corrupt or locked
    file. ``pages``: the file's pages when they were read already (a preview edited)."""
    source = path.name
    pages = read_pages(path) if pages is None else pages
    problems = [IngestProblem(source, f"page {p.number}", p.problem) for p in pages if p.problem]
    meta = read_metadata(pages)
    currency = (given.currency or meta.currency or "").upper()
    assumed: list[str] = []
    if not currency:
        currency = default_currency
        assumed.append(f"currency {currency} (the statement names none; give --currency)")
    candidates = _given_balances(fact_candidates(pages, currency), given)
    facts = [found[0] for found in candidates.values()]
    period = given.period or meta.period
    bank = given.bank_name or meta.bank_name
    name = given.account_name or meta.account_name
    # Digits and letters only, as exports store them, so rows of both match.
    number = re.sub(r"[\s-]", "", given.account_no or meta.account_no or meta.iban or "")
    if not name:
        name = _kind_name(bank, meta.is_card, meta.is_loan)
        assumed.append(
            f'account name "{name}" (the statement names no product; give --account-name)'
        )
    if not bank:
        bank = assume_bank(assumed)
    if period is None and meta.statement_date is not None:
        # A statement that prints only the day it was made covers the month before it.
        period = (meta.statement_date - timedelta(days=30), meta.statement_date)
    table = read_transactions(
        pages,
        period,
        currency,
        _values(candidates, "opening_balance"),
        _values(candidates, "closing_balance"),
        _stated(facts),
        owed=meta.is_card or meta.is_loan,
        given=frozenset(
            kind
            for kind, value in (
                ("opening", given.opening_balance),
                ("closing", given.closing_balance),
            )
            if value is not None
        ),
    )
    if period is not None and meta.period is None and not given.period and table.rows:
        days = [r.date for r in table.rows if r.date]
        period = (min(days), period[1])
    if period is None and table.rows:
        days = [r.date for r in table.rows if r.date]
        period = (min(days), max(days))
    if period is None and (printed := printed_period(pages)):
        period = printed
        assumed.append(
            f"statement period {printed[0]} to {printed[1]}: the first and last dates it prints"
        )
    if period is None:
        today = date.today()
        period = (today, today)
        assumed.append("statement period unknown: dated by the day of the import")
    ocr_rows = {p.number for p in pages if p.ocr} & {r.page for r in table.rows}
    statement = PdfStatement(
        statement_id=_statement_id(number, period, source_file),
        bank_name=bank,
        account_name=name,
        account_no=number,
        period=period,
        currency=currency,
        facts=_as_reconciled(candidates, table.reconciliation),
        reconciliation=replace(table.reconciliation, ocr=bool(ocr_rows), currency=currency),
        problems=problems,
        assumed=assumed,
        notes=table.notes,
    )
    statement.problems += [
        IngestProblem(source, f"page {u.page}", f'the row "{u.text}" was not read: {u.reason}')
        for u in table.unread
    ]
    if not table.rows and table.reason and any(p.words for p in pages):
        # A statement without any text has its pages' problems to say why; nothing to add.
        statement.problems.append(
            IngestProblem(
                source, "file", f"transactions not landed: {table.reason}; the pages are searchable"
            )
        )
    if table.rows:
        statement.transactions = ParsedFile(
            format=PDF_FORMAT,
            rows=[_marked(row, ocr_rows) for row in table.rows],
            account_no=number or None,
            account_name=name,
            bank_name=bank,
            currency=currency,
            period=period,
            reconciliation=statement.reconciliation.status,
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
    return statement


def _marked(row: ParsedRow, ocr_pages: set[int]) -> ParsedRow:
    """A row read from a page without a text layer says so where it is cited."""
    if row.page in ocr_pages:
        return replace(row, location=f"{row.location} ({OCR_LOCATION})")
    return row


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
        reconciliation=statement.reconciliation.as_json() if statement.transactions else "",
    )
