"""Landing, shared by both backends: any file in, clean transactions and statement pages stored.

A reader translates a file's syntax into ``ParsedRow``s; everything else happens here, once for
every format: values the file lacks, merchant and category, ids, transfers, facts, the report.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from elastic.backend import CategoryMemory, SearchBackend, WriteCounts
from elastic.ingest import bank_csv
from elastic.ingest.cleaning import (
    Categoriser,
    PairCandidate,
    canonical_category,
    find_transfer_pairs,
    normalise_merchant,
)
from elastic.ingest.formats import detect
from elastic.ingest.parsed import (
    BalanceFact,
    ParsedFile,
    ParsedRow,
    UnreadableFile,
    assume_account_name,
    assume_bank,
)
from elastic.ingest.pdf.statement import PDF_FORMAT, PdfStatement, StatementValues, read_statement
from elastic.model.embedder import Embedder
from elastic.model.plan import TRANSFERS_CATEGORY
from elastic.model.records import (
    IngestProblem,
    IngestReport,
    StatementChunk,
    StatementFact,
    Transaction,
)
from elastic.model.results import cents_to_amount
from elastic.statement_store import StatementStore

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
"""``progress(done, total, label)``: the CLI draws a bar, the UI a progress widget."""
CategoryFallback = Callable[[str, str], str | None]
"""``fallback(merchant, descriptor)``: a category when no rule or history knows (Gemini)."""

WRITE_BATCH = 2000
EMBED_BATCH = 64
TRANSFER_WINDOW_DAYS = 3
PROJECT_CSV = bank_csv.PROJECT_PROFILE  # the format name of the project's own CSV schema
# Bounds no real row exceeds; they keep any stored value from breaking a later sum (a million
# rows of a billion each still fit in 64-bit cents) or a calendar bucket.
MAX_ROW_AMOUNT = Decimal("1000000000")
EARLIEST_DAY, LATEST_DAY = date(1900, 1, 1), date(2100, 12, 31)


def _no_progress(done: int, total: int, label: str) -> None:
    return None


@dataclass(frozen=True)
class FileDefaults:
    """What the person importing says about a file (CLI flags, Ingest form): it fills what the
    file does not state."""

    account_name: str | None = None
    account_no: str | None = None
    bank_name: str | None = None
    currency: str | None = None


@dataclass(frozen=True)
class _Account:
    account_no: str
    account_name: str
    bank_name: str
    currency: str


def _resolve_account(
    parsed: ParsedFile, defaults: FileDefaults, source: str, default_currency: str
) -> tuple[_Account, list[str]]:
    """The file's own values, else the flags, else an honest default that says where it came
    from; the second value lists each assumption so the report can show it. A default is only
    assumed when some row does not state the value itself."""
    assumed: list[str] = []

    def lacking(field: str) -> bool:
        return any(not getattr(row, field) for row in parsed.rows)

    name = defaults.account_name or parsed.account_name or ""
    if not name and lacking("account_name"):
        name = assume_account_name(source, assumed)
    bank = defaults.bank_name or parsed.bank_name or ""
    if not bank and lacking("bank_name"):
        bank = assume_bank(assumed)
    currency = (defaults.currency or parsed.currency or "").upper()
    if not currency and lacking("currency"):
        currency = default_currency
        assumed.append(f"currency {currency} (the file names none; give --currency)")
    account_no = defaults.account_no or parsed.account_no or ""
    return _Account(account_no, name, bank, currency or default_currency), assumed


def content_id(*parts: object) -> str:
    """A stable id from normalised content, so a re-export with other number formatting or
    the same transaction from another format of the same account lands once."""
    key = "|".join(str(p).strip() for p in parts)
    return "tx-" + hashlib.sha1(key.encode()).hexdigest()[:16]


class _Cleaner:
    """ParsedRow → Transaction for one file: merchant, category, id, provenance."""

    def __init__(
        self,
        parsed: ParsedFile,
        account: _Account,
        defaults: FileDefaults,
        memory: CategoryMemory,
        source: str,
        fallback: CategoryFallback | None = None,
    ) -> None:
        self._parsed = parsed
        self._account = account
        self._defaults = defaults
        self._memory = memory
        self._source = source
        self._categoriser = Categoriser(fallback)
        self._occurrences: Counter[tuple[object, ...]] = Counter()
        self._given_ids: dict[str, str] = {}  # a file's own transaction_id → where it is first

    def _merchant(self, row: ParsedRow, description: str) -> tuple[str, bool]:
        """The merchant, and whether it was inferred from the descriptor."""
        if row.merchant and self._parsed.format == PROJECT_CSV:
            return row.merchant.strip(), False
        if row.merchant and row.merchant.strip():
            return normalise_merchant(row.merchant) or row.merchant.strip(), False
        return normalise_merchant(description) or description, True

    def _category(self, row: ParsedRow, merchant: str, description: str) -> tuple[str, bool]:
        """The category, and whether it was inferred. FinSync's own CSV names categories in
        the user's own vocabulary: kept as written, except that transfer synonyms are
        Transfers; other files' labels are mapped onto the vocabulary."""
        given = (row.category or "").strip()
        if given and self._parsed.format == PROJECT_CSV:
            transfer = canonical_category(given) == TRANSFERS_CATEGORY
            return (TRANSFERS_CATEGORY if transfer else given), False
        return self._categoriser.categorise(
            merchant, description, row.category, self._memory.history, self._memory.overrides
        )

    def transaction(self, row: ParsedRow) -> Transaction:
        description = " ".join(row.description.split())
        if not description:
            raise ValueError("missing value for description")
        _check_bounds(row)
        currency = (self._defaults.currency or row.currency or self._account.currency).upper()
        if len(currency) != 3 or not currency.isalpha():
            raise ValueError(f"currency {currency!r} is not an ISO 4217 code")
        # The importer's flags win: they are said about this file on purpose.
        flags = self._defaults
        account_no = flags.account_no or row.account_no or self._account.account_no
        account_name = flags.account_name or row.account_name or self._account.account_name
        tx_id = row.transaction_id if self._parsed.format == PROJECT_CSV else None
        if tx_id is not None:
            # Stored as given, a second row with the id would pass for already present.
            first = self._given_ids.setdefault(tx_id, row.location)
            if first != row.location:
                raise ValueError(f"transaction_id {tx_id!r} is already used on {first}")
        merchant, merchant_inferred = self._merchant(row, description)
        category, category_inferred = self._category(row, merchant, description)
        cents = int(row.amount * 100)
        key = (account_no or account_name, row.date.isoformat(), cents, currency)
        self._occurrences[key] += 1
        return Transaction(
            transaction_id=tx_id or content_id(*key, self._occurrences[key]),
            date=row.date,
            description=description,
            amount=row.amount,
            currency=currency,
            category=category,
            merchant=merchant,
            account_no=account_no,
            account_name=account_name,
            bank_name=flags.bank_name or row.bank_name or self._account.bank_name,
            balance=row.balance,
            source_file=self._source,
            location=row.location,
            raw_description=row.description,
            merchant_inferred=merchant_inferred,
            category_inferred=category_inferred,
            page=row.page,
            box=row.box,
        )


def _check_bounds(row: ParsedRow) -> None:
    """Values outside what any account holds are a misread file, reported for the row."""
    for name, value in (("amount", row.amount), ("balance", row.balance)):
        if value is not None and abs(value) > MAX_ROW_AMOUNT:
            raise ValueError(f"{name} {value} is beyond {MAX_ROW_AMOUNT:,}; not a real amount")
    if row.date is not None and not EARLIEST_DAY <= row.date <= LATEST_DAY:
        raise ValueError(
            f"date {row.date.isoformat()} is outside {EARLIEST_DAY.year}–{LATEST_DAY.year}"
        )


def _count_writes(report: IngestReport, counts: WriteCounts, where: dict[str, str]) -> None:
    report.indexed += counts.indexed
    report.skipped += counts.skipped
    for doc_id, reason in counts.failed.items():
        report.problems.append(IngestProblem(report.source, where.get(doc_id, doc_id), reason))


def _running_balances(parsed: ParsedFile) -> list[BalanceFact]:
    """Opening and closing balances from a running balance column, for files that state none:
    the balance after the newest row, and before the oldest. Rows of one day keep file order
    read in the file's direction (exports list newest first or oldest first)."""
    rows = [(i, r) for i, r in enumerate(parsed.rows) if r.date and not r.pending]
    if not rows or all(r.balance is None for _, r in rows):
        return []
    newest_first = rows[0][1].date > rows[-1][1].date
    ordered = sorted(rows, key=lambda pair: (pair[1].date, -pair[0] if newest_first else pair[0]))
    with_balance = [r for _, r in ordered if r.balance is not None]
    first, last = with_balance[0], with_balance[-1]
    currency = last.currency or parsed.currency
    return [
        BalanceFact(
            "opening_balance", first.balance - first.amount, currency, first.date, first.location
        ),
        BalanceFact("closing_balance", last.balance, currency, last.date, last.location),
    ]


def _statement_facts(
    parsed: ParsedFile, account: _Account, defaults: FileDefaults, source: str
) -> list[StatementFact]:
    """The balances a file states (else those its running balance shows), per account."""
    stated = parsed.balances or _running_balances(parsed)
    names = {r.account_no: r.account_name for r in parsed.rows if r.account_no and r.account_name}
    facts = []
    for fact in stated:
        account_no = defaults.account_no or fact.account_no or account.account_no
        name = defaults.account_name or names.get(account_no) or account.account_name
        key = account_no or account.account_name
        facts.append(
            StatementFact(
                statement_id=content_id(source, key, "facts"),
                name=fact.name,
                amount=fact.amount,
                currency=(fact.currency or account.currency).upper(),
                as_of=fact.as_of,
                account_no=account_no,
                account_name=name,
                bank_name=account.bank_name,
                source_file=source,
                location=fact.location,
            )
        )
    return facts


def _pair_transfers(backend: SearchBackend, user_id: str, rows: Sequence[Transaction]) -> int:
    """Opposite amounts between the user's own accounts within a few days are transfers.

    Only rows whose category was inferred are considered: a category the file or the user gave
    is kept.
    """
    inferred = [r for r in rows if r.category_inferred]
    if not inferred:
        return 0
    window = timedelta(days=TRANSFER_WINDOW_DAYS)
    first, last = min(r.date for r in inferred) - window, max(r.date for r in inferred) + window
    candidates = [
        PairCandidate(
            r.transaction_id, r.account_no, r.date, cents_to_amount(r.amount_cents), r.currency
        )
        for r in backend.pair_candidates(user_id, first, last)
    ]
    paired = find_transfer_pairs(candidates, window_days=TRANSFER_WINDOW_DAYS)
    return backend.mark_transfers(user_id, sorted(paired)) if paired else 0


def land_parsed(
    backend: SearchBackend,
    parsed: ParsedFile,
    user_id: str,
    report: IngestReport,
    defaults: FileDefaults,
    default_currency: str = "USD",
    progress: Progress = _no_progress,
    fallback: CategoryFallback | None = None,
    source_file: str | None = None,
) -> None:
    """Clean and store the rows and facts of one read file, counting everything in ``report``.

    Rows record ``source_file`` as where they came from (default: the file's name)."""
    source = report.source
    account, report.assumed = _resolve_account(parsed, defaults, source, default_currency)
    report.problems.extend(parsed.problems)
    memory = backend.category_memory(user_id)
    cleaner = _Cleaner(parsed, account, defaults, memory, source_file or source, fallback)
    good: list[Transaction] = []
    where: dict[str, str] = {}
    for row in parsed.rows:
        if row.pending:
            report.pending += 1
            continue
        try:
            tx = cleaner.transaction(row)
        except ValueError as exc:
            report.problems.append(IngestProblem(source, row.location, str(exc)))
            continue
        good.append(tx)
        where[tx.transaction_id] = row.location
    for start in range(0, len(good), WRITE_BATCH):
        batch = good[start : start + WRITE_BATCH]
        last = start + WRITE_BATCH >= len(good)  # searchable once, with the last batch
        _count_writes(report, backend.add_transactions(user_id, batch, visible=last), where)
        progress(start + len(batch), len(good), source)
    facts = _statement_facts(parsed, account, defaults, source)
    if facts:
        backend.add_facts(user_id, facts)
    if good:
        _pair_transfers(backend, user_id, good)
    if report.landed_nothing and not report.problems:
        report.problems.append(IngestProblem(source, "file", "no transactions found in the file"))


def read_export(path: Path, mapping: bank_csv.ColumnMapping | None = None) -> ParsedFile | None:
    """``path`` read by the reader its content calls for; None for a statement PDF.

    Raises UnreadableFile with a message for the person importing.
    """
    fmt = detect(path)
    if fmt is None:
        return None
    return bank_csv.read(path, mapping) if mapping is not None else fmt.read(path)


@dataclass(frozen=True)
class FilePreview:
    """The first rows of a file exactly as they would land, before anything is written."""

    format: str
    rows: list[Transaction]
    row_count: int
    pending: int
    assumed: list[str]
    problems: list[IngestProblem]


def preview_export(
    backend: SearchBackend,
    parsed: ParsedFile,
    user_id: str,
    source: str,
    defaults: FileDefaults,
    default_currency: str = "USD",
    limit: int = 20,
) -> FilePreview:
    account, assumed = _resolve_account(parsed, defaults, source, default_currency)
    cleaner = _Cleaner(parsed, account, defaults, backend.category_memory(user_id), source)
    rows: list[Transaction] = []
    problems = list(parsed.problems)
    for row in (r for r in parsed.rows if not r.pending):
        if len(rows) >= limit:
            break
        try:
            rows.append(cleaner.transaction(row))
        except ValueError as exc:
            problems.append(IngestProblem(source, row.location, str(exc)))
    pending = sum(r.pending for r in parsed.rows)
    return FilePreview(parsed.format, rows, len(parsed.rows) - pending, pending, assumed, problems)


def ingest_file(
    backend: SearchBackend,
    path: Path,
    user_id: str,
    embedder: Embedder | None = None,
    store: StatementStore | None = None,
    defaults: FileDefaults | None = None,
    default_currency: str = "USD",
    progress: Progress = _no_progress,
    mapping: bank_csv.ColumnMapping | None = None,
    fallback: CategoryFallback | None = None,
) -> IngestReport:
    """Detect the format of ``path`` from its content and land it; never raises for bad input.

    Statement PDFs need the embedder and the statement store; bank exports do not.
    """
    report = IngestReport(source=path.name)
    try:
        parsed = read_export(path, mapping)
        if parsed is None and (embedder is None or store is None):
            raise UnreadableFile("this is a PDF; ingest it as a statement")
    except UnreadableFile as exc:
        report.problems.append(IngestProblem(path.name, "file", str(exc)))
        return report
    if parsed is None:
        return land_statement(
            backend,
            path,
            user_id,
            embedder,
            store,
            defaults or FileDefaults(),
            default_currency,
            progress,
            fallback,
        )
    report.format = parsed.format
    land_parsed(
        backend,
        parsed,
        user_id,
        report,
        defaults or FileDefaults(),
        default_currency,
        progress,
        fallback,
    )
    report.problems.sort(key=lambda p: _line_number(p.location))
    log.info("ingested %s (%s): %s", path.name, report.format, report.summary())
    return report


def ingest_transactions(
    backend: SearchBackend, path: Path, user_id: str, progress: Progress = _no_progress
) -> IngestReport:
    """Land one bank export of any format (the ``ingest transactions`` alias)."""
    return ingest_file(backend, path, user_id, progress=progress)


def _line_number(location: str) -> int:
    digits = "".join(ch for ch in location if ch.isdigit())
    return int(digits) if digits else 0


def _write_chunks(
    backend: SearchBackend,
    embedder: Embedder,
    user_id: str,
    chunks: Sequence[StatementChunk],
    report: IngestReport,
) -> None:
    missing = backend.missing_chunks(user_id, [c.doc_id for c in chunks])
    report.skipped += len(chunks) - len(missing)
    fresh = [c for c in chunks if c.doc_id in missing]
    pages = {c.doc_id: f"page {c.page}" for c in fresh}
    for start in range(0, len(fresh), EMBED_BATCH):
        batch = fresh[start : start + EMBED_BATCH]
        vectors = embedder.embed([c.summary_text for c in batch])
        counts = backend.add_statement_chunks(user_id, batch, vectors, embedder.model_name)
        _count_writes(report, counts, pages)


def _new_rows(
    backend: SearchBackend, user_id: str, statement: PdfStatement, report: IngestReport
) -> ParsedFile | None:
    """The statement's rows not already stored from another file of the account (a CSV or
    OFX export of the same month): matched by day and amount, each stored row once."""
    parsed = statement.transactions
    if parsed is None:
        return None
    last4 = statement.account_no[-4:]
    if not last4:
        return parsed
    start, end = statement.period
    stored = Counter(backend.amounts_on_account(user_id, last4, start, end))
    fresh = []
    for row in parsed.rows:
        key = (row.date, int(row.amount * 100))
        if stored[key]:
            stored[key] -= 1
            report.skipped += 1
        else:
            fresh.append(row)
    return replace(parsed, rows=fresh)


def _pdf_facts(statement: PdfStatement, source_file: str) -> list[StatementFact]:
    return [
        StatementFact(
            statement_id=statement.statement_id,
            name=fact.name,
            amount=fact.amount,
            currency=statement.currency,
            as_of=statement.period[1],
            account_no=statement.account_no,
            account_name=statement.account_name,
            bank_name=statement.bank_name,
            source_file=source_file,
            location=f"page {fact.page}",
            page=fact.page,
            box=fact.box,
            day=fact.day,
        )
        for fact in statement.facts
    ]


def land_statement(
    backend: SearchBackend,
    path: Path,
    user_id: str,
    embedder: Embedder,
    store: StatementStore,
    defaults: FileDefaults,
    default_currency: str = "USD",
    progress: Progress = _no_progress,
    fallback: CategoryFallback | None = None,
) -> IngestReport:
    """Pages searchable, facts stored, and the transactions when they reconcile."""
    report = IngestReport(source=path.name, format=PDF_FORMAT)
    try:
        source_file = store.name_for(path, user_id)
        given = StatementValues(
            defaults.bank_name, defaults.account_name, defaults.account_no, defaults.currency
        )
        statement = read_statement(path, source_file, given, default_currency)
    except (OSError, UnreadableFile) as exc:
        report.problems.append(IngestProblem(path.name, "file", str(exc)))
        return report
    report.problems.extend(statement.problems)
    report.assumed = statement.assumed
    if statement.chunks:  # only statements that can be cited are kept
        store.keep(path, source_file)
        _write_chunks(backend, embedder, user_id, statement.chunks, report)
    if statement.facts:
        backend.add_facts(user_id, _pdf_facts(statement, source_file))
    rows = _new_rows(backend, user_id, statement, report)
    if rows is not None and rows.rows:
        rows_report = IngestReport(source=path.name)
        # The rows name the stored PDF, as its pages and facts do: one file to cite or forget.
        land_parsed(
            backend,
            rows,
            user_id,
            rows_report,
            FileDefaults(),
            default_currency,
            progress,
            fallback,
            source_file,
        )
        report.merge(rows_report)
    if report.landed_nothing and not report.problems:
        report.problems.append(IngestProblem(path.name, "file", "no text on any page"))
    return report


def ingest_statements(
    backend: SearchBackend,
    pdfs: Sequence[Path],
    user_id: str,
    embedder: Embedder,
    store: StatementStore,
    progress: Progress = _no_progress,
) -> IngestReport:
    """Every statement PDF landed (the ``ingest statements`` alias); one report for all."""
    report = IngestReport()
    for done, pdf in enumerate(pdfs, start=1):
        report.merge(land_statement(backend, pdf, user_id, embedder, store, FileDefaults()))
        progress(done, len(pdfs), pdf.name)
    log.info("ingested %d statement file(s): %s", len(pdfs), report.summary())
    return report


def forget(
    backend: SearchBackend,
    store: StatementStore,
    user_id: str,
    source_files: list[str] | None = None,
) -> int:
    """Delete what came from ``source_files`` (all of the user's data when None): rows, pages,
    facts and kept PDFs; the number of stored documents deleted."""
    deleted = backend.forget(user_id, source_files)
    store.remove(source_files, user_id)
    log.info("forgot %d document(s) of %d file(s)", deleted, len(source_files or []))
    return deleted
