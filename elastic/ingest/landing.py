"""Landing, shared by both backends: any file in, clean transactions and statement pages stored.

A reader translates a file's syntax into ``ParsedRow``s; everything else happens here, once for
every format: values the file lacks, merchant and category, ids, transfers, facts, the report.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import logging
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

import numpy as np

from elastic.backend import CategoryMemory, SearchBackend, WriteCounts
from elastic.errors import BackendError, FinSyncError
from elastic.ingest import bank_csv, payment_kinds
from elastic.ingest.cleaning import (
    Categoriser,
    PairCandidate,
    canonical_category,
    find_transfer_pairs,
    normalise_merchant,
)
from elastic.ingest.formats import HEAD_BYTES, detect, is_pdf
from elastic.ingest.parsed import (
    BalanceFact,
    ParsedFile,
    ParsedRow,
    UnreadableFile,
    assume_account_name,
    assume_bank,
)
from elastic.ingest.pdf.page_words import PageText
from elastic.ingest.pdf.statement import PDF_FORMAT, PdfStatement, StatementValues, read_statement
from elastic.model.embedder import Embedder
from elastic.model.plan import TRANSFERS_CATEGORY
from elastic.model.records import (
    OFF,
    IngestProblem,
    IngestReport,
    Reconciliation,
    StatementChunk,
    StatementFact,
    Transaction,
)
from elastic.model.results import cents_to_amount
from elastic.statement_store import StatementStore
from elastic.visible_text import visible

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
"""``progress(done, total, label)``: the CLI draws a bar, the UI a progress widget."""
CategoryFallback = Callable[[str, str], str | None]
"""``fallback(merchant, descriptor)``: a category when no rule or history knows (Gemini)."""

WRITE_BATCH = 5000
# Batches handed to a background writer and not yet counted. With two, the next batch is
# queued while one is written, so the node never waits for the cleaning between batches (a
# million rows into Elasticsearch: 21,200 against 19,400 rows/s with one).
WRITES_IN_FLIGHT = 2
EMBED_BATCH = 64
TRANSFER_WINDOW_DAYS = 3
PROJECT_CSV = bank_csv.PROJECT_PROFILE  # the format name of the project's own CSV schema
# Bounds no real row exceeds; they keep any stored value from breaking a later sum (a million
# rows of a billion each still fit in 64-bit cents) or a calendar bucket.
MAX_ROW_AMOUNT = Decimal("1000000000")
EARLIEST_DAY, LATEST_DAY = date(1900, 1, 1), date(2100, 12, 31)


def no_progress(done: int, total: int, label: str) -> None:
    return None


@dataclass(frozen=True)
class FileDefaults:
    """What the person importing says about a file (CLI flags, Ingest form): it fills what the
    file does not state."""

    account_name: str | None = None
    account_no: str | None = None
    bank_name: str | None = None
    currency: str | None = None
    # A statement PDF's, as its preview was edited: they win over what is read.
    period: tuple[date, date] | None = None
    opening_balance: Decimal | None = None
    closing_balance: Decimal | None = None

    def statement_values(self) -> StatementValues:
        return StatementValues(
            self.bank_name,
            self.account_name,
            self.account_no,
            self.currency,
            self.period,
            self.opening_balance,
            self.closing_balance,
        )


@dataclass(frozen=True)
class _Account:
    account_no: str
    account_name: str
    bank_name: str
    currency: str


_OPEN_FIELDS = ("account_name", "bank_name", "currency")


class _AccountValues:
    """The file's own account values, else the flags, else an honest default that says where
    it came from. A default is only assumed (and listed for the report) when some row does not
    state the value itself, which is known once every row has been seen."""

    def __init__(
        self, parsed: ParsedFile, defaults: FileDefaults, source: str, default_currency: str
    ) -> None:
        self._source = source
        self._default_currency = default_currency
        self._name = defaults.account_name or parsed.account_name or ""
        self._bank = defaults.bank_name or parsed.bank_name or ""
        self._currency = (defaults.currency or parsed.currency or "").upper()
        self._account_no = defaults.account_no or parsed.account_no or ""
        given = {"account_name": self._name, "bank_name": self._bank, "currency": self._currency}
        self._open = [field for field in _OPEN_FIELDS if not given[field]]
        self._lacking: set[str] = set()
        # What a row lacking a value gets while the file is read.
        self.for_rows = _Account(
            self._account_no,
            self._name or assume_account_name(source, []),
            self._bank or assume_bank([]),
            self._currency or default_currency,
        )

    def see(self, row: ParsedRow) -> None:
        for field in self._open:
            if not getattr(row, field):
                self._lacking.add(field)
        if self._lacking.issuperset(self._open):
            self._open = []

    def resolve(self) -> tuple[_Account, list[str]]:
        """The account as the rows seen need it, and each assumption made for them."""
        assumed: list[str] = []
        name, bank, currency = self._name, self._bank, self._currency
        if "account_name" in self._lacking:
            name = assume_account_name(self._source, assumed)
        if "bank_name" in self._lacking:
            bank = assume_bank(assumed)
        if "currency" in self._lacking:
            currency = self._default_currency
            assumed.append(f"currency {currency} (the file names none; give --currency)")
        return _Account(self._account_no, name, bank, currency or self._default_currency), assumed


def content_id(*parts: object) -> str:
    """A stable id from normalised content, so a re-export with other number formatting or
    the same transaction from another format of the same account lands once."""
    key = "|".join(str(p).strip() for p in parts)
    return "tx-" + hashlib.sha1(key.encode()).hexdigest()[:16]


LOOKUP_CACHE = 8192  # distinct descriptors and merchants remembered per file


class _Cleaner:
    """ParsedRow → Transaction for one file: merchant, category, id, provenance.

    Merchant and category depend only on a row's descriptor, payee and file category (the
    user's memory is fixed for the file), so they are looked up once per distinct value.
    """

    def __init__(
        self,
        file_format: str,
        account: _Account,
        defaults: FileDefaults,
        memory: CategoryMemory,
        source: str,
        fallback: CategoryFallback | None = None,
        reconciliation: str = "",
    ) -> None:
        self._project = file_format == PROJECT_CSV
        self._reconciliation = reconciliation
        self._account = account
        self._defaults = defaults
        self._memory = memory
        self._source = source
        self._categoriser = Categoriser(fallback)
        # Occurrences per id key (account, day, cents, currency): the same amount twice on a
        # day is two transactions. One small entry per distinct key, never the rows themselves;
        # kept as a tuple, its id text is only written for rows without an id of their own.
        self._occurrences: dict[tuple[str, date | None, int, str], int] = {}
        self._given_ids: set[str] = set()  # a file's own transaction_ids seen so far
        self._merchant = lru_cache(maxsize=LOOKUP_CACHE)(self._find_merchant)
        self._category = lru_cache(maxsize=LOOKUP_CACHE)(self._find_category)
        self._description = lru_cache(maxsize=LOOKUP_CACHE)(_described)

    def _find_merchant(self, given: str | None, description: str) -> tuple[str, bool]:
        """The merchant, and whether it was inferred from the descriptor."""
        given = given and visible(given).strip()
        if given and self._project:
            return given, False
        if given:
            return normalise_merchant(given) or given, False
        return normalise_merchant(description) or description, True

    def _find_category(
        self, given: str | None, merchant: str, description: str
    ) -> tuple[str, bool]:
        """The category, and whether it was inferred. FinSync's own CSV names categories in
        the user's own vocabulary: kept as written, except that transfer synonyms are
        Transfers; other files' labels are mapped onto the vocabulary."""
        label = visible(given or "").strip()
        if label and self._project:
            transfer = canonical_category(label) == TRANSFERS_CATEGORY
            return (TRANSFERS_CATEGORY if transfer else label), False
        return self._categoriser.categorise(
            merchant, description, given, self._memory.history, self._memory.overrides
        )

    def transaction(self, row: ParsedRow) -> Transaction:
        description, kind = self._description(row.description)
        if not description:
            raise ValueError("missing value for description")
        _check_bounds(row)
        flags = self._defaults
        currency = _currency(flags.currency or row.currency or self._account.currency)
        # The importer's flags win: they are said about this file on purpose.
        account_no = flags.account_no or row.account_no or self._account.account_no
        account_name = _visible_name(
            flags.account_name or row.account_name or self._account.account_name
        )
        tx_id = row.transaction_id if self._project else None
        if tx_id is not None:
            # Stored as given, a second row with the id would pass for already present.
            if tx_id in self._given_ids:
                raise ValueError(f"transaction_id {tx_id!r} is already used on an earlier line")
            self._given_ids.add(tx_id)
        merchant, merchant_inferred = self._merchant(row.merchant, description)
        category, category_inferred = self._category(row.category, merchant, description)
        key = ((account_no or account_name).strip(), row.date, int(row.amount * 100), currency)
        occurrence = self._occurrences.get(key, 0) + 1
        self._occurrences[key] = occurrence
        return Transaction(
            transaction_id=tx_id or content_id(*key, occurrence),
            date=row.date,
            description=description,
            amount=row.amount,
            currency=currency,
            category=category,
            merchant=merchant,
            account_no=account_no,
            account_name=account_name,
            bank_name=_visible_name(flags.bank_name or row.bank_name or self._account.bank_name),
            balance=row.balance,
            source_file=self._source,
            location=row.location,
            raw_description=row.description,
            merchant_inferred=merchant_inferred,
            category_inferred=category_inferred,
            page=row.page,
            box=row.box,
            payment_kind=row.payment_kind or kind,
            reconciliation=self._reconciliation,
        )


def _collapse(text: str) -> str:
    return " ".join(visible(text).split())


_visible_name = lru_cache(maxsize=LOOKUP_CACHE)(visible)


def _described(text: str) -> tuple[str, str]:
    """A descriptor collapsed, and the payment kind its first words name ("" when none)."""
    return _collapse(text), payment_kinds.from_text(text) or ""


@lru_cache(maxsize=256)
def _currency(code: str) -> str:
    currency = code.upper()
    if len(currency) != 3 or not currency.isalpha():
        raise ValueError(f"currency {currency!r} is not an ISO 4217 code")
    return currency


def _check_bounds(row: ParsedRow) -> None:
    """Values outside what any account holds are a misread file, reported for the row."""
    balance = row.balance
    day = row.date
    within = -MAX_ROW_AMOUNT <= row.amount <= MAX_ROW_AMOUNT and (
        balance is None or -MAX_ROW_AMOUNT <= balance <= MAX_ROW_AMOUNT
    )
    if within and (day is None or EARLIEST_DAY <= day <= LATEST_DAY):
        return  # the usual row, checked without building the reasons below
    for name, value in (("amount", row.amount), ("balance", row.balance)):
        if value is not None and abs(value) > MAX_ROW_AMOUNT:
            raise ValueError(f"{name} {value} is beyond {MAX_ROW_AMOUNT:,}; not a real amount")
    if row.date is not None and not EARLIEST_DAY <= row.date <= LATEST_DAY:
        raise ValueError(
            f"date {row.date.isoformat()} is outside {EARLIEST_DAY.year}–{LATEST_DAY.year}"
        )


def _count_writes(
    report: IngestReport,
    counts: WriteCounts,
    where: dict[str, str],
    problems: list[IngestProblem] | None = None,
) -> None:
    report.indexed += counts.indexed
    report.skipped += counts.skipped
    failed = report.problems if problems is None else problems
    for doc_id, reason in counts.failed.items():
        failed.append(IngestProblem(report.source, where.get(doc_id, doc_id), reason))


class _FileRows:
    """What the file's facts need from its rows, kept while they stream past: account names,
    and per account the rows at both ends of a running balance column (a file may hold
    several accounts, one after the other)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # account_no → account_name, one entry per account
        self._seen = 0
        self._accounts: dict[str, _AccountEnds] = {}

    def see(self, row: ParsedRow) -> None:
        if row.account_no and row.account_name:
            self.names[row.account_no] = row.account_name
        if not row.date or row.pending:
            return
        index, self._seen = self._seen, self._seen + 1
        key = row.account_no or row.account_name or ""
        ends = self._accounts.get(key)
        if ends is None:
            ends = self._accounts[key] = _AccountEnds()
        ends.see(row, index)

    def running_balances(self, currency: str | None) -> list[BalanceFact]:
        """Opening and closing balances from a running balance column, for files that state
        none: per account, the balance after its newest row and before its oldest."""
        return [fact for ends in self._accounts.values() for fact in ends.balances(currency)]


class _AccountEnds:
    """One account's first and last booked, dated rows, and its rows with a balance earliest
    and latest by (date, file order) and by (date, reverse file order): which of the two
    applies is known once the last row is seen."""

    def __init__(self) -> None:
        self._first: ParsedRow | None = None
        self._last: ParsedRow | None = None
        self._ends: dict[str, tuple[tuple[date, int], ParsedRow]] = {}

    def see(self, row: ParsedRow, index: int) -> None:
        assert row.date is not None
        self._first = self._first or row
        self._last = row
        if row.balance is None:
            return
        for name, key in (("up", (row.date, index)), ("down", (row.date, -index))):
            low, high = self._ends.get(f"{name}-low"), self._ends.get(f"{name}-high")
            if low is None or key < low[0]:
                self._ends[f"{name}-low"] = (key, row)
            if high is None or key > high[0]:
                self._ends[f"{name}-high"] = (key, row)

    def balances(self, currency: str | None) -> list[BalanceFact]:
        """The balance after the newest row, and before the oldest. Rows of one day keep file
        order read in the file's direction (exports list newest first or oldest first)."""
        if self._first is None or self._last is None or not self._ends:
            return []
        assert self._first.date is not None and self._last.date is not None
        way = "down" if self._first.date > self._last.date else "up"
        first, last = self._ends[f"{way}-low"][1], self._ends[f"{way}-high"][1]
        assert first.balance is not None and last.balance is not None
        assert first.date is not None and last.date is not None
        currency = last.currency or currency
        account = last.account_no
        return [
            BalanceFact(
                "opening_balance",
                first.balance - first.amount,
                currency,
                first.date,
                first.location,
                account,
            ),
            BalanceFact(
                "closing_balance", last.balance, currency, last.date, last.location, account
            ),
        ]


def _statement_facts(
    parsed: ParsedFile, rows: _FileRows, account: _Account, defaults: FileDefaults, source: str
) -> list[StatementFact]:
    """The balances a file states (else those its running balance shows), per account."""
    stated = parsed.balances or rows.running_balances(parsed.currency)
    facts = []
    for fact in stated:
        account_no = defaults.account_no or fact.account_no or account.account_no
        name = defaults.account_name or rows.names.get(account_no) or account.account_name
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


def _pair_transfers(backend: SearchBackend, user_id: str, days: tuple[date, date]) -> int:
    """Opposite amounts between the user's own accounts within a few days are transfers.

    ``days`` spans the landed rows whose category was inferred: a category the file or the user
    gave is kept, so only those rows can start a pair.
    """
    window = timedelta(days=TRANSFER_WINDOW_DAYS)
    candidates = [
        PairCandidate(
            r.transaction_id, r.account_no, r.date, cents_to_amount(r.amount_cents), r.currency
        )
        for r in backend.pair_candidates(user_id, days[0] - window, days[1] + window)
    ]
    paired = find_transfer_pairs(candidates, window_days=TRANSFER_WINDOW_DAYS)
    return backend.mark_transfers(user_id, sorted(paired)) if paired else 0


class _CollectorPause:
    """Python's cycle collector paused while files are cleaned, and resumed when the last
    import running in the process is done, as it was.

    Cleaning makes a few short-lived objects per row, and the batches and row ids it keeps
    make the collector walk everything alive again and again: a million rows spend a fifth of
    their cleaning time in it. The rows make no reference cycles, so reference counting frees
    them as before.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._imports = 0
        self._was_enabled = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if not self._imports:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._imports += 1
        try:
            yield
        finally:
            with self._lock:
                self._imports -= 1
                if not self._imports and self._was_enabled:
                    gc.enable()


_collector_paused = _CollectorPause()


class _GivenIds:
    """The ids a file gives its rows (FinSync's own CSV), checked against the user's stored rows
    before a batch is written, so no row is lost to an id another row already holds.

    A file's id numbers rows within its account: another account's row with the same id is a
    different transaction, kept under the id scoped by its account (``7@1f3a9c2e``), and an
    import that stored a row so keeps finding it there. The same account's row with the same
    id but other content (day, amount, currency, description) is reported on the row's line,
    never dropped without a word.
    """

    def __init__(self, backend: SearchBackend, user_id: str, source: str) -> None:
        self._backend = backend
        self._user_id = user_id
        self._source = source
        self.problems: list[IngestProblem] = []
        self.scoped: list[str] = []  # ids kept under their account's scope

    def settle(self, batch: list[Transaction]) -> list[Transaction]:
        scoped = {tx.transaction_id: _scoped_id(tx) for tx in batch}
        stored = self._backend.stored_transactions(self._user_id, [*scoped, *scoped.values()])
        kept = []
        for tx in batch:
            given = tx.transaction_id
            own = scoped[given]
            twin = stored.get(own) or stored.get(given)
            if twin is not None and _account_key(twin) != _account_key(tx):
                twin = None  # another account's row holds the id
            if own in stored or (given in stored and twin is None):
                tx.transaction_id = own
                self.scoped.append(given)
            if twin is not None and _content(twin) != _content(tx):
                self.problems.append(
                    IngestProblem(
                        self._source,
                        tx.location,
                        f"transaction_id {given!r} is already stored for this account with "
                        "other content; forget the earlier file to replace it",
                    )
                )
                continue
            kept.append(tx)
        return kept


def _scoped_note(ids: list[str]) -> str:
    shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5:,} more" if len(ids) > 5 else "")
    return (
        f"transaction_id {shown} also number another account's rows: kept as this "
        "account's own, each id followed by @ and its account's code"
    )


def _account_key(tx: Transaction) -> str:
    return (tx.account_no or tx.account_name).strip()


def _scoped_id(tx: Transaction) -> str:
    return f"{tx.transaction_id}@{hashlib.sha1(_account_key(tx).encode()).hexdigest()[:8]}"


def _content(tx: Transaction) -> tuple[object, ...]:
    return (tx.date, tx.amount_cents, tx.currency, tx.description)


class _Writer:
    """Transactions written WRITE_BATCH at a time, each batch counted in the report as it is
    stored. Full batches are written unsearchable; the last write (empty when the rows filled
    the batches exactly) makes the whole import searchable at once.

    On a backend with ``background_writes`` full batches are written in order on a thread of
    their own while the next ones are read and cleaned, ``WRITES_IN_FLIGHT`` at most. Their
    counts, failures and progress are taken on the importing thread, oldest first, so a
    failure surfaces a batch or two later; progress counts the rows known to be stored, which
    may trail the store by the batches in flight.
    """

    def __init__(
        self,
        backend: SearchBackend,
        user_id: str,
        report: IngestReport,
        progress: Progress,
        expected: int,
        given_ids: _GivenIds | None = None,
    ) -> None:
        self._backend = backend
        self._given_ids = given_ids
        self._user_id = user_id
        self._report = report
        self._progress = progress
        self.expected = expected
        self.failures: list[IngestProblem] = []
        self.kinds_given = 0  # rows stored before that this import gave a payment kind
        self._batch: list[Transaction] = []
        self._hidden = False  # whether batches were written that are not searchable yet
        self._sender = (
            ThreadPoolExecutor(1, thread_name_prefix="finsync-write")
            if backend.background_writes
            else None
        )
        self._in_flight: deque[tuple[list[Transaction], Future[WriteCounts]]] = deque()

    @property
    def stored(self) -> int:
        """Rows the backend holds now: written by this import, or already there."""
        return self._report.indexed + self._report.skipped

    def add(self, tx: Transaction) -> None:
        batch = self._batch
        batch.append(tx)
        if len(batch) >= WRITE_BATCH:
            self._hidden = True  # before writing: a failed write may have stored part of it
            self._batch = []
            if self._given_ids is not None:
                batch = self._given_ids.settle(batch)
            write = self._backend.add_transactions
            if self._sender is None:
                self._count(batch, write(self._user_id, batch, False))
                return
            if len(self._in_flight) == WRITES_IN_FLIGHT:
                self._settle_oldest()
            self._in_flight.append((batch, self._sender.submit(write, self._user_id, batch, False)))

    def finish(self) -> None:
        while self._in_flight:
            self._settle_oldest()
        if self._batch and self._given_ids is not None:
            self._batch = self._given_ids.settle(self._batch)
        if self._batch or self._hidden:
            counts = self._backend.add_transactions(self._user_id, self._batch, visible=True)
            self._count(self._batch, counts)
        self._batch, self._hidden = [], False
        if self._sender is not None:
            self._sender.shutdown()

    def abandon(self) -> None:
        """After a failure: what was written becomes searchable, the rest is dropped."""
        self._batch = []
        in_flight, self._in_flight = self._in_flight, deque()
        # Batches not yet sent are dropped; the one being written is waited for, not counted:
        # the failure that got here is the one to report.
        wait([written for _, written in in_flight if not written.cancel()])
        if self._sender is not None:
            self._sender.shutdown()
        if self._hidden:
            self._hidden = False
            try:
                self._backend.add_transactions(self._user_id, [], visible=True)
            except BackendError as exc:  # the failure that got here is the one to report
                log.warning("could not make the rows written so far searchable: %s", exc)

    def _settle_oldest(self) -> None:
        """Wait for the oldest batch in flight and count it; its failure is raised here."""
        batch, counts = self._in_flight.popleft()
        self._count(batch, counts.result())

    def _count(self, batch: list[Transaction], counts: WriteCounts) -> None:
        where = {tx.transaction_id: tx.location for tx in batch} if counts.failed else {}
        _count_writes(self._report, counts, where, self.failures)
        if counts.skipped:
            self.kinds_given += _give_kinds(self._backend, self._user_id, batch)
        self._progress(self.stored, max(self.expected, self.stored), self._report.source)


def _give_kinds(backend: SearchBackend, user_id: str, batch: Sequence[Transaction]) -> int:
    """Rows of ``batch`` already stored without a payment kind (stored before kinds were read)
    get the kind this import read; rows stored with one keep it. The rows read again name the
    kind from what the file says (OFX TRNTYPE, SWIFT and GVC codes, type columns, descriptors),
    which a stored row's descriptor alone may not."""
    kinds = {tx.transaction_id: tx.payment_kind for tx in batch if tx.payment_kind}
    if not kinds:
        return 0
    stored = backend.stored_transactions(user_id, list(kinds))
    lacking = {i: kind for i, kind in kinds.items() if i in stored and not stored[i].payment_kind}
    return backend.set_payment_kinds(user_id, lacking) if lacking else 0


def land_parsed(
    backend: SearchBackend,
    parsed: ParsedFile,
    user_id: str,
    report: IngestReport,
    defaults: FileDefaults,
    default_currency: str = "USD",
    progress: Progress = no_progress,
    fallback: CategoryFallback | None = None,
    source_file: str | None = None,
    facts_visible: bool = True,
) -> None:
    """Clean and store the rows and facts of one read file, counting everything in ``report``.

    The rows stream through: read, cleaned and written a batch at a time, so a file of any
    length lands in bounded memory; ``progress`` counts the rows stored. Rows record
    ``source_file`` as where they came from (default: the file's name). The facts are written
    as ``add_facts(visible=facts_visible)``."""
    source = report.source
    account = _AccountValues(parsed, defaults, source, default_currency)
    memory = backend.category_memory(user_id)
    cleaner = _Cleaner(
        parsed.format,
        account.for_rows,
        defaults,
        memory,
        source_file or source,
        fallback,
        parsed.reconciliation,
    )
    expected = parsed.expected_rows
    if expected is None and isinstance(parsed.rows, Sized):
        expected = len(parsed.rows)
    # Only ids a file gives can meet another row's; against an empty store there is none.
    given_ids = None
    if parsed.format == PROJECT_CSV and backend.source_files(user_id):
        given_ids = _GivenIds(backend, user_id, source)
    writer = _Writer(backend, user_id, report, progress, expected or 0, given_ids)
    file_rows = _FileRows()
    bad: list[IngestProblem] = []
    days: tuple[date, date] | None = None  # of rows with an inferred category
    seen = 0
    stopped: IngestProblem | None = None  # the reader's failure midway
    try:
        with _collector_paused():
            try:
                rows = _reader_rows(parsed.rows, source)
                for row in rows:
                    seen += 1
                    account.see(row)
                    file_rows.see(row)
                    if row.pending:
                        report.pending += 1
                        continue
                    try:
                        tx = cleaner.transaction(row)
                    except ValueError as exc:
                        bad.append(IngestProblem(source, row.location, str(exc)))
                        continue
                    if tx.category_inferred:
                        day = tx.date
                        days = (min(days[0], day), max(days[1], day)) if days else (day, day)
                    writer.add(tx)
            except UnreadableFile as exc:  # the rows read before it still land
                stopped = IngestProblem(source, "file", f"{exc} after {seen:,} rows")
    except BaseException:
        writer.abandon()
        raise
    writer.finish()
    resolved, report.assumed = account.resolve()
    report.notes = list(parsed.notes)
    if writer.kinds_given:
        report.notes.append(
            f"{writer.kinds_given:,} row(s) stored before now say how the money moved "
            "(payment kind)"
        )
    report.problems.extend([*parsed.problems, *bad, *writer.failures])
    if stopped is not None:
        report.problems.append(stopped)
    if given_ids is not None:
        report.problems.extend(given_ids.problems)
        if given_ids.scoped:
            report.assumed.append(_scoped_note(given_ids.scoped))
    if writer.stored or seen:
        # Every row is read: the total is what the file held, not what was estimated.
        progress(writer.stored, seen + len(parsed.problems), source)
    # A statement PDF's figures are stored as it prints them (``_pdf_facts``); balances its
    # running balance implies would disagree with them when its rows do not reconcile.
    facts = (
        []
        if parsed.reconciliation
        else _statement_facts(parsed, file_rows, resolved, defaults, source)
    )
    if facts:
        backend.add_facts(user_id, facts, facts_visible)
    if days:
        _pair_transfers(backend, user_id, days)
    if report.landed_nothing and not report.problems:
        report.problems.append(IngestProblem(source, "file", "no transactions found in the file"))


def read_export(path: Path, mapping: bank_csv.ColumnMapping | None = None) -> ParsedFile | None:
    """``path`` read by the reader its content calls for; None for a statement PDF. A CSV's
    rows are streamed: they can be iterated once.

    Raises UnreadableFile with a message for the person importing.
    """
    fmt = detect(path)
    if fmt is None:
        return None
    try:
        return bank_csv.stream(path, mapping) if mapping is not None else fmt.read(path)
    except (FinSyncError, OSError):
        raise
    except Exception as exc:
        raise _reader_failed(path.name, exc) from exc


def _reader_failed(name: str, exc: Exception) -> UnreadableFile:
    """A reader's failure where it should have reported (a bug on odd input), as the file's
    problem: the rows read before it land and the files after it go on. The traceback is
    logged at debug level, for the bug to be fixed."""
    reason = f"FinSync could not finish reading this file ({type(exc).__name__}: {exc})"
    log.error("reading %s failed: %s", name, reason)
    log.debug("reading %s failed", name, exc_info=True)
    return UnreadableFile(reason)


def _reader_rows(rows: Iterable[ParsedRow], name: str) -> Iterator[ParsedRow]:
    """The rows a reader yields; its failure midway is ``UnreadableFile`` (``_reader_failed``).
    Only the reader's own code runs inside: nothing the caller's loop raises passes through."""
    try:
        yield from rows
    except FinSyncError:
        raise
    except Exception as exc:
        raise _reader_failed(name, exc) from exc


@dataclass(frozen=True)
class FilePreview:
    """The first rows of a file exactly as they would land, before anything is written."""

    format: str
    rows: list[Transaction]
    row_count: int
    pending: int
    assumed: list[str]
    problems: list[IngestProblem]
    notes: list[str] = dataclasses.field(default_factory=list)  # how it is read: columns, signs


def preview_export(
    backend: SearchBackend,
    parsed: ParsedFile,
    user_id: str,
    source: str,
    defaults: FileDefaults,
    default_currency: str = "USD",
    limit: int = 20,
) -> FilePreview:
    """The first ``limit`` rows cleaned; the rest only counted (a streamed file is read once)."""
    account = _AccountValues(parsed, defaults, source, default_currency)
    memory = backend.category_memory(user_id)
    cleaner = _Cleaner(parsed.format, account.for_rows, defaults, memory, source)
    rows: list[Transaction] = []
    problems: list[IngestProblem] = []
    booked = pending = 0
    try:
        for row in _reader_rows(parsed.rows, source):
            account.see(row)
            if row.pending:
                pending += 1
                continue
            booked += 1
            if len(rows) < limit:
                try:
                    rows.append(cleaner.transaction(row))
                except ValueError as exc:
                    problems.append(IngestProblem(source, row.location, str(exc)))
    except UnreadableFile as exc:
        problems.append(IngestProblem(source, "file", f"{exc} after {booked + pending:,} rows"))
    _, assumed = account.resolve()
    return FilePreview(
        parsed.format, rows, booked, pending, assumed, [*parsed.problems, *problems], parsed.notes
    )


@dataclass(frozen=True)
class StatementPreview:
    """A statement PDF as it would land, before anything is written: what it says about
    itself, its first rows cleaned, how they reconcile, and what was assumed or not read."""

    bank_name: str
    account_name: str
    account_no: str
    currency: str
    period: tuple[date, date]
    opening_balance: Decimal | None
    closing_balance: Decimal | None
    rows: list[Transaction]
    row_count: int
    reconciliation: Reconciliation
    assumed: list[str]
    problems: list[IngestProblem]
    notes: list[str]


def preview_statement(
    backend: SearchBackend,
    path: Path,
    user_id: str,
    defaults: FileDefaults,
    default_currency: str = "USD",
    pages: list[PageText] | None = None,
    limit: int = 20,
) -> StatementPreview:
    """A statement PDF read as ``land_statement`` would read it (``pages`` when read already),
    with its first ``limit`` rows cleaned; raises ``UnreadableFile`` for a corrupt or locked
    file."""
    statement = read_statement(
        path, path.name, defaults.statement_values(), default_currency, pages
    )
    parsed = statement.transactions
    rows: list[Transaction] = []
    count, problems = 0, list(statement.problems)
    if parsed is not None:
        first = preview_export(
            backend, parsed, user_id, path.name, defaults, default_currency, limit
        )
        rows, count, problems = first.rows, first.row_count, [*problems, *first.problems]
    figures = {f.name: f.amount for f in statement.facts}
    return StatementPreview(
        bank_name=statement.bank_name,
        account_name=statement.account_name,
        account_no=statement.account_no,
        currency=statement.currency,
        period=statement.period,
        opening_balance=figures.get("opening_balance"),
        closing_balance=figures.get("closing_balance"),
        rows=rows,
        row_count=count,
        reconciliation=statement.reconciliation,
        assumed=statement.assumed,
        problems=problems,
        notes=statement.notes,
    )


def ingest_file(
    backend: SearchBackend,
    path: Path,
    user_id: str,
    embedder: Embedder | None = None,
    store: StatementStore | None = None,
    defaults: FileDefaults | None = None,
    default_currency: str = "USD",
    progress: Progress = no_progress,
    mapping: bank_csv.ColumnMapping | None = None,
    fallback: CategoryFallback | None = None,
) -> IngestReport:
    """Detect the format of ``path`` from its content and land it; never raises for bad input.

    Statement PDFs need the embedder and the statement store; bank exports do not.
    """
    given = defaults or FileDefaults()
    report = IngestReport(source=path.name)
    try:
        parsed = read_export(path, mapping)
        if parsed is None and (embedder is None or store is None):
            raise UnreadableFile("this is a PDF; ingest it as a statement")
    except UnreadableFile as exc:
        report.problems.append(IngestProblem(path.name, "file", str(exc)))
        return report
    if parsed is None:
        assert embedder is not None and store is not None
        return land_statement(
            backend, path, user_id, embedder, store, given, default_currency, progress, fallback
        )
    report.format = parsed.format
    land_parsed(backend, parsed, user_id, report, given, default_currency, progress, fallback)
    report.problems.sort(key=lambda p: _line_number(p.location))
    log.info("ingested %s (%s): %s", path.name, report.format, report.summary())
    return report


def _line_number(location: str) -> int:
    digits = "".join(ch for ch in location if ch.isdigit())
    return int(digits) if digits else 0


@dataclass(frozen=True)
class _NewPages:
    """A statement's page chunks the store lacks, with their vectors; ``stored`` were there."""

    chunks: list[StatementChunk]
    vectors: np.ndarray
    stored: int


def _embed_new_pages(
    backend: SearchBackend, embedder: Embedder, user_id: str, chunks: Sequence[StatementChunk]
) -> _NewPages:
    """Only the chunks not stored yet are embedded, so re-ingesting embeds nothing twice."""
    missing = backend.missing_chunks(user_id, [c.doc_id for c in chunks])
    fresh = [c for c in chunks if c.doc_id in missing]
    vectors = [
        embedder.embed([c.summary_text for c in fresh[start : start + EMBED_BATCH]])
        for start in range(0, len(fresh), EMBED_BATCH)
    ]
    empty = np.empty((0, embedder.dims), dtype=np.float32)
    return _NewPages(fresh, np.concatenate(vectors) if vectors else empty, len(chunks) - len(fresh))


def _write_pages(
    backend: SearchBackend,
    model_name: str,
    user_id: str,
    pages: _NewPages,
    report: IngestReport,
    visible: bool,
) -> None:
    report.skipped += pages.stored
    where = {c.doc_id: f"page {c.page}" for c in pages.chunks}
    for start in range(0, len(pages.chunks), EMBED_BATCH):
        end = start + EMBED_BATCH
        batch, vectors = pages.chunks[start:end], pages.vectors[start:end]
        counts = backend.add_statement_chunks(user_id, batch, vectors, model_name, visible)
        _count_writes(report, counts, where)


def _statements_searchable(backend: SearchBackend, embedder: Embedder, user_id: str) -> None:
    """The pages and facts written unsearchable so far made searchable (empty visible
    writes)."""
    empty = np.empty((0, embedder.dims), dtype=np.float32)
    backend.add_statement_chunks(user_id, [], empty, embedder.model_name, visible=True)
    backend.add_facts(user_id, [], visible=True)


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


def _pdf_facts(statement: PdfStatement, source_file: str, file_name: str) -> list[StatementFact]:
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
            file_name=file_name,
        )
        for fact in statement.facts
    ]


_StatementRead = tuple[str, PdfStatement] | IngestProblem
"""A statement PDF read: the name it is stored by and what it holds, or why it is unreadable."""


def _read_statement(
    path: Path, user_id: str, store: StatementStore, defaults: FileDefaults, default_currency: str
) -> _StatementRead:
    try:
        source_file = store.name_for(path, user_id)
        given = defaults.statement_values()
        statement = read_statement(path, source_file, given, default_currency)
    except (OSError, UnreadableFile) as exc:
        return IngestProblem(path.name, "file", str(exc))
    except FinSyncError:
        raise
    except Exception as exc:  # the reader's bug on an odd PDF: the other files go on
        return IngestProblem(path.name, "file", str(_reader_failed(path.name, exc)))
    # The kept copy is named by its content; its pages remember the name it came with.
    statement.chunks[:] = [replace(chunk, file_name=path.name) for chunk in statement.chunks]
    return source_file, statement


_Prepared = tuple[_StatementRead, _NewPages | None]
"""A statement PDF read, with its new pages embedded when it has any."""


def land_statement(
    backend: SearchBackend,
    path: Path,
    user_id: str,
    embedder: Embedder,
    store: StatementStore,
    defaults: FileDefaults,
    default_currency: str = "USD",
    progress: Progress = no_progress,
    fallback: CategoryFallback | None = None,
) -> IngestReport:
    """Pages searchable, facts stored, and the transactions when they reconcile."""
    read = _read_statement(path, user_id, store, defaults, default_currency)
    return _land_read(
        backend, path, read, user_id, embedder, store, default_currency, progress, fallback
    )


def _land_read(
    backend: SearchBackend,
    path: Path,
    read: _StatementRead,
    user_id: str,
    embedder: Embedder,
    store: StatementStore,
    default_currency: str,
    progress: Progress = no_progress,
    fallback: CategoryFallback | None = None,
    pages: _NewPages | None = None,
) -> IngestReport:
    """``land_statement`` of a file already read. With its new ``pages`` already embedded,
    they and the facts are written unsearchable, for the caller to make searchable."""
    report = IngestReport(source=path.name, format=PDF_FORMAT)
    if isinstance(read, IngestProblem):
        report.problems.append(read)
        return report
    source_file, statement = read
    report.problems.extend(statement.problems)
    report.assumed = statement.assumed
    report.notes.extend(statement.notes)
    if statement.transactions is not None:
        check = statement.reconciliation
        report.notes.append(f"{len(statement.transactions.rows)} rows read; {check.describe()}")
        if check.status == OFF:
            report.problems.append(
                IngestProblem(
                    path.name,
                    "file",
                    f"the rows read do not reconcile with the statement's balances (off by "
                    f"{check.gap or 0:,.2f}): rows may be missing or misread; every row read "
                    "has landed, marked as not reconciled",
                )
            )
    visible = pages is None
    if statement.chunks:  # only statements that can be cited are kept
        store.keep(path, source_file, user_id)
        if pages is None:
            pages = _embed_new_pages(backend, embedder, user_id, statement.chunks)
        _write_pages(backend, embedder.model_name, user_id, pages, report, visible)
    if statement.facts:
        backend.add_facts(user_id, _pdf_facts(statement, source_file, path.name), visible)
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
            facts_visible=visible,
        )
        report.merge(rows_report)
    if report.landed_nothing and not report.problems:
        report.problems.append(IngestProblem(path.name, "file", "no text on any page"))
    return report


def land_files(
    backend: SearchBackend,
    paths: Sequence[Path],
    user_id: str,
    embedder: Embedder | None = None,
    store: StatementStore | None = None,
    defaults: FileDefaults | None = None,
    default_currency: str = "USD",
    progress: Progress = no_progress,
    mapping_of: Callable[[Path], bank_csv.ColumnMapping | None] = lambda _: None,
    fallback: CategoryFallback | None = None,
) -> Iterator[IngestReport]:
    """Every file landed in turn (``ingest_file``), each report yielded once its file is done.

    The next statement PDF is read and its new pages embedded on a thread of its own while the
    file before it is stored (the model and the store's client release the GIL). Statement
    pages and facts become searchable together, once the last file has landed, one has failed
    or the caller stops asking for reports, so the store does not index each file's on its
    own; rows are searchable as each file lands, since the next file's rows are matched
    against them. ``mapping_of(path)`` is the column reading chosen for an export's layout.
    """
    given = defaults or FileDefaults()
    statements = [embedder is not None and store is not None and _is_pdf(p) for p in paths]

    def prepare(path: Path) -> _Prepared:
        assert embedder is not None and store is not None  # only PDFs are prepared
        read = _read_statement(path, user_id, store, given, default_currency)
        if isinstance(read, IngestProblem) or not read[1].chunks:
            return read, None
        return read, _embed_new_pages(backend, embedder, user_id, read[1].chunks)

    hidden = False  # statement pages and facts written unsearchable so far

    def landed(path: Path, prepared: Future[_Prepared], progress: Progress) -> IngestReport:
        """A statement PDF read ahead, landed."""
        nonlocal hidden
        assert embedder is not None and store is not None
        read, pages = prepared.result()
        hidden = hidden or pages is not None
        return _land_read(
            backend,
            path,
            read,
            user_id,
            embedder,
            store,
            default_currency,
            progress,
            fallback,
            pages,
        )

    with ThreadPoolExecutor(1, thread_name_prefix="finsync-read-pdf") as reader:
        ahead: dict[int, Future[_Prepared]] = {}

        def read_ahead(start: int) -> None:
            """The first statement PDF from ``start`` on, read and embedded meanwhile."""
            nxt = next((i for i in range(start, len(paths)) if statements[i]), None)
            if nxt is not None and nxt not in ahead:
                ahead[nxt] = reader.submit(prepare, paths[nxt])

        try:
            read_ahead(0)
            for index, path in enumerate(paths):
                if not statements[index]:
                    yield ingest_file(
                        backend,
                        path,
                        user_id,
                        embedder,
                        store,
                        given,
                        default_currency,
                        progress,
                        mapping_of(path),
                        fallback,
                    )
                    continue
                prepared = ahead.pop(index)
                read_ahead(index + 1)

                yield landed(path, prepared, progress)
        except BaseException:  # a failure, or the caller stopped asking (GeneratorExit)
            for waiting in ahead.values():
                waiting.cancel()
            if hidden and embedder is not None:
                try:
                    _statements_searchable(backend, embedder, user_id)
                except BackendError as exc:  # the failure that got here is the one to report
                    log.warning("could not make the statements landed so far searchable: %s", exc)
            raise
        if hidden and embedder is not None:
            _statements_searchable(backend, embedder, user_id)


def _is_pdf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return is_pdf(handle.read(HEAD_BYTES))
    except OSError:
        return False  # ingest_file reports why it cannot be opened


@dataclass(frozen=True)
class Forgotten:
    """What ``forget`` deleted of one user's data."""

    documents: int  # rows, pages and facts
    files: list[str]  # the user's files whose data went (``source_file`` names)
    pdfs: list[str]  # kept statement PDFs deleted
    unknown: list[str]  # named files the user has no data from


def forget(
    backend: SearchBackend,
    store: StatementStore,
    user_id: str,
    source_files: list[str] | None = None,
) -> Forgotten:
    """Delete what came from ``source_files`` (all of the user's data when None): rows, pages,
    facts and kept PDFs. Only the user's own files are touched; a name that is not one of them
    is listed as unknown, never looked for elsewhere."""
    owned = set(backend.source_files(user_id)) | {
        s.source_file for s in backend.statements(user_id)
    }
    if source_files is None:
        files, unknown = sorted(owned), []
    else:
        files = [f for f in dict.fromkeys(source_files) if f in owned]
        unknown = [f for f in dict.fromkeys(source_files) if f not in owned]
    deleted = 0
    if source_files is None or files:
        deleted = backend.forget(user_id, None if source_files is None else files)
    pdfs = store.remove(None if source_files is None else files, user_id)
    log.info("forgot %d document(s) of %d file(s)", deleted, len(files))
    return Forgotten(deleted, files, pdfs, unknown)
