"""The embedded backend: one SQLite file (SQL for numbers, FTS5 for BM25) and numpy cosine.

It runs the neutral query spec compiled by ``compile.py``; the read flows above it
(``elastic.query.flows``) are the ones the Elasticsearch backend runs too, so both backends
give the same answers.
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date

import numpy as np

from elastic.backend import CategoryMemory, WriteCounts
from elastic.engines.sqlite.columnar import ColumnarCache
from elastic.engines.sqlite.compile import (
    BUCKET_FUNCTION,
    Schema,
    Sql,
    Table,
    compile_query,
    fold,
    fts_weights,
    rollup,
    sql_bucket_start,
)
from elastic.errors import BackendError, BackendUnavailable, EmbeddingMismatch, QueryRejected
from elastic.model.plan import TRANSFERS_CATEGORY
from elastic.model.records import Box, StatementChunk, StatementFact, Transaction
from elastic.query.build import TEXT_QA_FIELDS
from elastic.query.flows import Engine, Ranked, VectorSearchFailed
from elastic.query.spec import (
    And,
    Collection,
    Document,
    Eq,
    Facets,
    FacetsQuery,
    Filter,
    Found,
    Search,
    StatementsQuery,
    StatsFound,
    StatsQuery,
    TextRanking,
    UnsupportedQuery,
    VectorRanking,
)
from settings import Settings

log = logging.getLogger(__name__)

DB_FILE = "finsync.sqlite3"
# Pages embedded per call when a store is re-embedded with another model.
REEMBED_BATCH = 64
# SQLite's page cache: inserts at random keys into big indexes need more than the 2 MiB default.
CACHE_KIB = 64 * 1024
# Primary result codes (``SQLITE_IOERR_WRITE`` → ``IOERR``) that mean the file cannot be used
# now; any other error is a query SQLite rejected.
_BUSY_CODES = frozenset({"BUSY", "LOCKED"})
# Less free space than this, and SQLite's write and I/O errors are a full disk.
DISK_FULL_BYTES = 1 << 20
_OUTAGE_CODES = frozenset(
    {"CANTOPEN", "IOERR", "FULL", "CORRUPT", "NOTADB", "READONLY", "PERM", "NOMEM", "PROTOCOL"}
)


FTS_WEIGHTS = fts_weights(TEXT_QA_FIELDS)
_FTS_COLUMNS = ", ".join(FTS_WEIGHTS)

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- Clustered by (user, date): every query is per user and most are date ranges or newest first.
-- A transaction's identity, for idempotent re-ingest, is (user_id, transaction_id).
CREATE TABLE IF NOT EXISTS transactions (
    user_id TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    date TEXT NOT NULL,
    description TEXT NOT NULL,
    description_folded TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    magnitude_cents INTEGER NOT NULL,
    currency TEXT NOT NULL,
    category TEXT NOT NULL,
    merchant TEXT NOT NULL,
    account_no TEXT NOT NULL,
    account_name TEXT NOT NULL,
    bank_name TEXT NOT NULL,
    balance_cents INTEGER,
    source_file TEXT NOT NULL DEFAULT '',
    location TEXT NOT NULL DEFAULT '',
    raw_description TEXT NOT NULL DEFAULT '',
    merchant_inferred INTEGER NOT NULL DEFAULT 0,
    category_inferred INTEGER NOT NULL DEFAULT 0,
    page INTEGER,
    box TEXT,
    payment_kind TEXT NOT NULL DEFAULT '',
    reconciliation TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (user_id, date, transaction_id),
    UNIQUE (user_id, transaction_id)
) WITHOUT ROWID;
-- Secondary indexes of a WITHOUT ROWID table end with its key (date, transaction_id). The
-- grouping columns carry amount and currency, so grouped sums read the index alone, in order.
CREATE INDEX IF NOT EXISTS tx_category
    ON transactions (user_id, category, date, amount_cents, currency);
CREATE INDEX IF NOT EXISTS tx_merchant
    ON transactions (user_id, merchant, date, amount_cents, currency);
CREATE INDEX IF NOT EXISTS tx_account
    ON transactions (user_id, account_name, date, amount_cents, currency);
CREATE INDEX IF NOT EXISTS tx_magnitude ON transactions (user_id, magnitude_cents);

CREATE TABLE IF NOT EXISTS statement_facts (
    user_id TEXT NOT NULL,
    fact_id TEXT NOT NULL,
    statement_id TEXT NOT NULL,
    name TEXT NOT NULL,
    amount_cents INTEGER,
    currency TEXT NOT NULL,
    as_of TEXT NOT NULL,
    day TEXT,
    box TEXT,
    account_no TEXT NOT NULL,
    account_name TEXT NOT NULL,
    bank_name TEXT NOT NULL,
    source_file TEXT NOT NULL,
    location TEXT NOT NULL,
    page INTEGER,
    file_name TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (user_id, fact_id)
) WITHOUT ROWID;

-- A user's corrections: every row of the merchant, now and in later imports, is this category.
CREATE TABLE IF NOT EXISTS category_rules (
    user_id TEXT NOT NULL,
    merchant TEXT NOT NULL,
    category TEXT NOT NULL,
    PRIMARY KEY (user_id, merchant)
) WITHOUT ROWID;

-- id is the stable rowid the external-content FTS index points at.
CREATE TABLE IF NOT EXISTS statement_chunks (
    id INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    statement_id TEXT NOT NULL,
    account_no TEXT NOT NULL,
    account_name TEXT NOT NULL,
    bank_name TEXT NOT NULL,
    statement_from TEXT NOT NULL,
    statement_to TEXT NOT NULL,
    page INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    text TEXT NOT NULL,
    summary_text TEXT NOT NULL,
    summary_vector BLOB NOT NULL,
    embedding_model TEXT NOT NULL,
    source_file TEXT NOT NULL,
    reconciliation TEXT NOT NULL DEFAULT '',
    file_name TEXT NOT NULL DEFAULT '',
    UNIQUE (user_id, doc_id)
);
CREATE INDEX IF NOT EXISTS chunks_statement
    ON statement_chunks (user_id, statement_id, page, chunk);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    {_FTS_COLUMNS},
    content='statement_chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 0'
);
CREATE TRIGGER IF NOT EXISTS chunks_fts_insert AFTER INSERT ON statement_chunks BEGIN
    INSERT INTO chunks_fts (rowid, {_FTS_COLUMNS})
    VALUES (new.id, {", ".join(f"new.{name}" for name in FTS_WEIGHTS)});
END;
"""

# Columns added since the first stores were written: a store that lacks one gets it, with a
# neutral value, when it is opened.
_ADDED_COLUMNS = {
    "transactions": {
        "source_file": "TEXT NOT NULL DEFAULT ''",
        "location": "TEXT NOT NULL DEFAULT ''",
        "raw_description": "TEXT NOT NULL DEFAULT ''",
        "merchant_inferred": "INTEGER NOT NULL DEFAULT 0",
        "category_inferred": "INTEGER NOT NULL DEFAULT 0",
        "page": "INTEGER",
        "box": "TEXT",
        "payment_kind": "TEXT NOT NULL DEFAULT ''",
        "reconciliation": "TEXT NOT NULL DEFAULT ''",
    },
    "statement_chunks": {
        "reconciliation": "TEXT NOT NULL DEFAULT ''",
        "file_name": "TEXT NOT NULL DEFAULT ''",
    },
    "statement_facts": {"file_name": "TEXT NOT NULL DEFAULT ''"},
}

_HIT_COLUMNS = (
    "id, statement_id, page, chunk, text, bank_name, account_name, account_no, "
    "statement_from, statement_to, source_file"
)


def _hit_columns(present: frozenset[str]) -> str:
    """What a statement search selects; a store opened read-only as it lies may predate
    ``file_name``."""
    return _HIT_COLUMNS + (", file_name" if "file_name" in present else "")


def _json_box(box: Box | None) -> str | None:
    return None if box is None else json.dumps(list(box))


# A transaction's row as ``transaction_values`` gives it: a tuple binds faster than a mapping,
# which matters for imports of a million rows.
TX_INSERT_COLUMNS = (
    "user_id",
    "transaction_id",
    "date",
    "description",
    "description_folded",
    "amount_cents",
    "magnitude_cents",
    "currency",
    "category",
    "merchant",
    "account_no",
    "account_name",
    "bank_name",
    "balance_cents",
    "source_file",
    "location",
    "raw_description",
    "merchant_inferred",
    "category_inferred",
    "page",
    "box",
    "payment_kind",
    "reconciliation",
)
_INSERT_TX = (
    f"INSERT OR IGNORE INTO transactions ({', '.join(TX_INSERT_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(TX_INSERT_COLUMNS))})"
)


def transaction_values(user_id: str, row: Transaction) -> tuple[object, ...]:
    """``row.as_document(user_id)`` as stored here, in ``TX_INSERT_COLUMNS`` order, without
    building the mapping."""
    cents = row.amount_cents
    balance = row.balance
    return (
        user_id,
        row.transaction_id,
        row.date.isoformat(),
        row.description,
        fold(row.description),
        cents,
        abs(cents),
        row.currency,
        row.category,
        row.merchant,
        row.account_no,
        row.account_name,
        row.bank_name,
        None if balance is None else int(balance * 100),
        row.source_file,
        row.location,
        row.raw_description,
        row.merchant_inferred,
        row.category_inferred,
        row.page,
        _json_box(row.box),
        row.payment_kind,
        row.reconciliation,
    )


def _insert_sql(table: str, columns: Iterable[str]) -> str:
    """``INSERT OR IGNORE`` with named parameters: already stored rows are skipped."""
    names = sorted(columns)
    return (
        f"INSERT OR IGNORE INTO {table} ({', '.join(names)}) "
        f"VALUES ({', '.join(':' + n for n in names)})"
    )


def _user_of(where: Filter) -> str:
    """The user a query is for: every query starts with its user filter."""
    clauses = where.clauses if isinstance(where, And) else (where,)
    for clause in clauses:
        if isinstance(clause, Eq) and clause.field == "user_id":
            return str(clause.value)
    raise UnsupportedQuery("a vector ranking needs the user filter")


@dataclass(frozen=True)
class _VectorIndex:
    """One user's chunk vectors, scaled to unit length so a dot product is the cosine."""

    ids: np.ndarray  # int64 statement_chunks.id
    unit: np.ndarray  # float32 (n, dims)


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


class EmbeddedBackend(Engine):
    name = "embedded"
    background_writes = False
    # Set while an import into an empty store runs without the secondary indexes.
    _indexes_deferred = False

    def __init__(self, settings: Settings) -> None:
        """Open (or create) the store. Opening an existing store writes nothing, so questions
        never wait for another process's import: WAL lets readers through while it writes.

        On a full disk SQLite cannot even make the shared-memory file a WAL reader needs: the
        store is then opened read-only as it lies (``immutable``), questions are answered from
        it, and every write says the disk is full (``read_only``)."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = settings.data_dir / DB_FILE
        self._lock = threading.Lock()
        self._vectors: dict[str, _VectorIndex | None] = {}
        self._columnar = ColumnarCache(self.path)
        self.read_only: str | None = None  # why nothing can be written, when so
        try:
            self._open(settings.store_lock_timeout_s)
        except BackendUnavailable:
            if not self._disk_full():
                raise
            self.read_only = (
                f"The disk holding the local store {self.path} is full: questions are answered "
                "from what it holds, but nothing can be stored until space is freed."
            )
            log.warning("%s", self.read_only)
            self._open(settings.store_lock_timeout_s, immutable=True)
        self._schema = Schema(
            {
                Collection.transactions: Table("transactions", self._tx_columns),
                Collection.statements: Table(
                    "statement_chunks", self._chunk_columns, _hit_columns(self._chunk_columns)
                ),
                Collection.facts: Table("statement_facts", self._fact_columns),
            },
            fts_table="chunks_fts",
            fts_weights=FTS_WEIGHTS,
        )

    def _open(self, lock_timeout_s: float, immutable: bool = False) -> None:
        with self._store("opening the store"):
            # One connection shared by Streamlit's threads, serialised by the lock. The timeout
            # is how long a write waits for another process's write transaction.
            if immutable:
                uri = f"{self.path.resolve().as_uri()}?immutable=1"
                self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
                self._columnar.read_uri = uri
            else:
                self._conn = sqlite3.connect(
                    self.path, timeout=lock_timeout_s, check_same_thread=False
                )
            self._conn.row_factory = sqlite3.Row
            self._conn.create_function(BUCKET_FUNCTION, 2, sql_bucket_start, deterministic=True)
            if not immutable:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
            self._conn.execute("PRAGMA temp_store=MEMORY")
            self._conn.executescript(SCHEMA)
            if not immutable:
                self._add_missing_columns()
            self._tx_columns = self._columns("transactions")
            self._chunk_columns = self._columns("statement_chunks")
            self._fact_columns = self._columns("statement_facts")
            self._insert_fact = _insert_sql("statement_facts", self._fact_columns)
            self._insert_chunk = _insert_sql("statement_chunks", self._chunk_columns - {"id"})
            self._data_version = self._conn.execute("PRAGMA data_version").fetchone()[0]

    def _disk_full(self) -> bool:
        return shutil.disk_usage(self.path.parent).free < DISK_FULL_BYTES

    def _add_missing_columns(self) -> None:
        """Stores written before provenance, payment kinds, reconciliations and file
        names were kept get their columns (with
        neutral values). A store opened read-only on a full disk is read as it lies."""
        for table, added in _ADDED_COLUMNS.items():
            present = self._columns(table)
            for name, definition in added.items():
                if name not in present:
                    self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {definition}")

    def _columns(self, table: str) -> frozenset[str]:
        return frozenset(row["name"] for row in self._conn.execute(f"PRAGMA table_info({table})"))

    def _error(self, exc: sqlite3.Error, sql: str, params: object) -> BackendError:
        """SQLite's error as one of the two the callers handle (``elastic/backend.py``)."""
        name = getattr(exc, "sqlite_errorname", None) or ""
        code = name.split("_")[1] if name.count("_") else ""
        if self.read_only and code in _OUTAGE_CODES:
            return BackendUnavailable(self.read_only)
        if code == "FULL" or (code == "IOERR" and self._disk_full()):
            return BackendUnavailable(
                f"The disk holding the local store {self.path} is full; free some space, then "
                "try again. What is stored is intact."
            )
        if code in _BUSY_CODES:
            return BackendUnavailable(
                f"The local store {self.path} is busy with another import; try again when it "
                "has finished."
            )
        if code in _OUTAGE_CODES:
            return BackendUnavailable(
                f"The search backend is not answering; check the local store {self.path} "
                f"(FINSYNC_DATA_DIR): {exc}."
            )
        log.error(
            "SQLite rejected a query: %s (%s); SQL: %s; parameters: %s",
            exc,
            name or type(exc).__name__,
            " ".join(sql.split()),
            params,
        )
        return QueryRejected(
            f"Internal error: the local store rejected FinSync's query ({exc}). This is a bug "
            "in FinSync, not your question; it is logged with the query."
        )

    @contextmanager
    def _store(self, sql: str, params: object = None) -> Iterator[None]:
        """The connection under the lock, with SQLite's errors translated; ``sql`` and
        ``params`` are logged if SQLite rejects them."""
        with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                raise self._error(exc, sql, params) from exc

    @contextmanager
    def _transaction(self, sql: str) -> Iterator[None]:
        """One write transaction: all of it lands or none of it does. ``BEGIN IMMEDIATE`` takes
        the write lock first (waiting ``store_lock_timeout_s`` for another process), so what
        the transaction reads cannot go stale before it writes."""
        with self._store(sql):
            self._conn.execute("BEGIN IMMEDIATE")
            with self._conn:
                yield

    def _rows(
        self, sql: str, params: Sequence[object] | dict[str, object] = ()
    ) -> list[sqlite3.Row]:
        with self._store(sql, params):
            return self._conn.execute(sql, params).fetchall()

    # -- set-up ---------------------------------------------------------------------------
    def _check_dims(self, dims: int, embedding_model: str) -> bool:
        """Refuse another model or shape than the recorded one (caller holds the lock): vectors
        of two models cannot be compared. Whether one is recorded."""
        stored = dict(self._conn.execute("SELECT key, value FROM meta").fetchall())
        same_model = stored.get("embedding_model", embedding_model) == embedding_model
        if "dims" in stored and (int(stored["dims"]) != dims or not same_model):
            raise EmbeddingMismatch(
                f"{self.path} holds {stored['dims']}-dimensional vectors "
                f"from {stored.get('embedding_model')}, but the embedder is {embedding_model} "
                f"({dims} dimensions). Run `finsync reembed` to embed the stored pages again "
                "with it (nothing else changes)."
            )
        return "dims" in stored

    def _record_dims(self, dims: int, embedding_model: str) -> None:
        """Check, and record the embedder on first use (caller holds a write transaction)."""
        if not self._check_dims(dims, embedding_model):
            self._conn.executemany(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                [("dims", str(dims)), ("embedding_model", embedding_model)],
            )

    def prepare(self, dims: int, embedding_model: str) -> None:
        """Writes only on a store's first use: afterwards it only reads, so opening the store
        for a question never waits for another process's import."""
        with self._store("SELECT key, value FROM meta"):
            recorded = self._check_dims(dims, embedding_model)
        if not recorded:
            with self._transaction("INSERT INTO meta"):
                self._record_dims(dims, embedding_model)

    def reembed(
        self,
        embed: Callable[[list[str]], np.ndarray],
        dims: int,
        embedding_model: str,
        progress: Callable[[int, int], None],
    ) -> int:
        """Replace every stored page vector with ``embed``'s and record ``embedding_model``;
        the number of pages. Vectors are computed first and written in one transaction, so a
        store never holds vectors of two models, and an interruption changes nothing."""
        sql = "SELECT id, summary_text FROM statement_chunks WHERE id > ? ORDER BY id"
        with self._store(sql):
            pages = self._conn.execute(sql, (0,)).fetchall()
        ids, matrix = self._page_vectors(pages, embed, dims, progress)
        update = "UPDATE statement_chunks SET summary_vector = ?, embedding_model = ? WHERE id = ?"
        with self._transaction(update):
            # Pages an import added meanwhile (under the old model) are embedded here too.
            late = self._conn.execute(sql, (max(ids, default=0),)).fetchall()
            late_ids, late_matrix = self._page_vectors(late, embed, dims, progress)
            self._conn.executemany(
                update,
                (
                    (vector.tobytes(), embedding_model, page_id)
                    for page_id, vector in zip(
                        ids + late_ids, np.concatenate([matrix, late_matrix]), strict=True
                    )
                ),
            )
            self._conn.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [("dims", str(dims)), ("embedding_model", embedding_model)],
            )
            self._vectors.clear()
        return len(ids) + len(late_ids)

    @staticmethod
    def _page_vectors(
        pages: Sequence[sqlite3.Row],
        embed: Callable[[list[str]], np.ndarray],
        dims: int,
        progress: Callable[[int, int], None],
    ) -> tuple[list[int], np.ndarray]:
        vectors = [np.zeros((0, dims), dtype="<f4")]
        for start in range(0, len(pages), REEMBED_BATCH):
            batch = pages[start : start + REEMBED_BATCH]
            vectors.append(np.ascontiguousarray(embed([row[1] for row in batch]), dtype="<f4"))
            progress(start + len(batch), len(pages))
        return [row[0] for row in pages], np.concatenate(vectors)

    # -- writes ---------------------------------------------------------------------------
    def add_transactions(
        self, user_id: str, rows: Sequence[Transaction], visible: bool = True
    ) -> WriteCounts:
        """Each committed write is searchable at once. The first batch of a long import
        (``visible=False`` until its last write) into an empty store drops the secondary
        indexes, and the last write builds them again: building an index once at the end takes
        a third of the time of keeping it up to date row by row. Readers meanwhile get the same
        answers, more slowly; a store left without them gets them back when next opened."""
        values = [transaction_values(user_id, row) for row in rows]
        indexed = 0
        if values:
            with self._transaction(_INSERT_TX):
                if not visible and not self._indexes_deferred:
                    self._defer_indexes()
                indexed = self._conn.executemany(_INSERT_TX, values).rowcount
        if visible and self._indexes_deferred:
            with self._store("building the transaction indexes"):
                self._conn.executescript(SCHEMA)  # creates only what is missing
            self._indexes_deferred = False
        return WriteCounts(indexed, len(values) - indexed, {})

    def _defer_indexes(self) -> None:
        """Drop the transactions' secondary indexes when the table is empty (caller holds a
        write transaction)."""
        if self._conn.execute("SELECT 1 FROM transactions LIMIT 1").fetchone():
            return
        names = self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' "
            "AND sql IS NOT NULL"
        ).fetchall()
        for (name,) in names:
            self._conn.execute(f"DROP INDEX {name}")
        self._indexes_deferred = True

    def missing_chunks(self, user_id: str, doc_ids: Sequence[str]) -> set[str]:
        found = self._rows(
            "SELECT doc_id FROM statement_chunks "
            "WHERE user_id = ? AND doc_id IN (SELECT value FROM json_each(?))",
            (user_id, json.dumps(list(doc_ids))),
        )
        return set(doc_ids) - {row["doc_id"] for row in found}

    def add_statement_chunks(
        self,
        user_id: str,
        chunks: Sequence[StatementChunk],
        vectors: np.ndarray,
        embedding_model: str,
        visible: bool = True,
    ) -> WriteCounts:
        """Each committed write is searchable at once, whatever ``visible`` says."""
        if not chunks:
            return WriteCounts(0, 0, {})
        matrix = np.ascontiguousarray(vectors, dtype="<f4")
        if matrix.ndim != 2:
            raise ValueError(f"vectors must be a 2-D array, got shape {matrix.shape}")
        docs = [
            {
                **chunk.as_document(user_id, None, embedding_model),
                "doc_id": chunk.doc_id,
                "summary_vector": vector.tobytes(),
            }
            for chunk, vector in zip(chunks, matrix, strict=True)
        ]
        with self._transaction(self._insert_chunk):
            self._record_dims(matrix.shape[1], embedding_model)
            indexed = self._conn.executemany(self._insert_chunk, docs).rowcount
            if indexed:
                self._vectors.pop(user_id, None)
        return WriteCounts(indexed, len(docs) - indexed, {})

    def add_facts(
        self, user_id: str, facts: Sequence[StatementFact], visible: bool = True
    ) -> WriteCounts:
        """Each committed write is searchable at once, whatever ``visible`` says."""
        docs = [{**fact.as_document(user_id), "box": _json_box(fact.box)} for fact in facts]
        if not docs:
            return WriteCounts(0, 0, {})
        with self._transaction(self._insert_fact):
            indexed = self._conn.executemany(self._insert_fact, docs).rowcount
        return WriteCounts(indexed, len(docs) - indexed, {})

    # -- categories and transfers ---------------------------------------------------------
    def category_memory(self, user_id: str) -> CategoryMemory:
        rules = self._rows(
            "SELECT merchant, category FROM category_rules WHERE user_id = ?", (user_id,)
        )
        # Per merchant, the category its rows most often have where the file or the user said
        # so: a query of the spec, as every read of transactions.
        return CategoryMemory.build(
            {row[0]: row[1] for row in rules}, self.known_categories(user_id)
        )

    def set_merchant_category(self, user_id: str, merchant: str, category: str) -> int:
        with self._transaction("set merchant category"):
            self._conn.execute(
                "INSERT OR REPLACE INTO category_rules (user_id, merchant, category) "
                "VALUES (?, ?, ?)",
                (user_id, merchant, category),
            )
            return self._conn.execute(
                "UPDATE transactions SET category = ?, category_inferred = 0 "
                "WHERE user_id = ? AND merchant = ?",
                (category, user_id, merchant),
            ).rowcount

    def mark_transfers(self, user_id: str, transaction_ids: Sequence[str]) -> int:
        with self._transaction("mark transfers"):
            return self._conn.execute(
                "UPDATE transactions SET category = ?, category_inferred = 1 "
                "WHERE user_id = ? AND transaction_id IN (SELECT value FROM json_each(?))",
                (TRANSFERS_CATEGORY, user_id, json.dumps(list(transaction_ids))),
            ).rowcount

    def set_payment_kinds(self, user_id: str, kinds: Mapping[str, str]) -> int:
        with self._transaction("set payment kinds"):
            return self._conn.executemany(
                "UPDATE transactions SET payment_kind = ? "
                "WHERE user_id = ? AND transaction_id = ? AND payment_kind = ''",
                [(kind, user_id, tx_id) for tx_id, kind in kinds.items()],
            ).rowcount

    def amounts_on_account(
        self, user_id: str, last4: str, date_from: date, date_to: date
    ) -> list[tuple[date, int]]:
        rows = self._rows(
            "SELECT date, amount_cents FROM transactions WHERE user_id = ? "
            "AND date BETWEEN ? AND ? AND substr(account_no, -4) = ?",
            (user_id, date_from.isoformat(), date_to.isoformat(), last4),
        )
        return [(date.fromisoformat(r[0]), r[1]) for r in rows]

    def source_files(self, user_id: str) -> list[str]:
        rows = self._rows(
            "SELECT DISTINCT source_file FROM transactions WHERE user_id = ? AND source_file != '' "
            "ORDER BY 1",
            (user_id,),
        )
        return [row[0] for row in rows]

    def forget(self, user_id: str, source_files: Sequence[str] | None = None) -> int:
        tables = ("transactions", "statement_chunks", "statement_facts")
        chosen = (
            "" if source_files is None else " AND source_file IN (SELECT value FROM json_each(?))"
        )
        params: list[object] = [user_id] + (
            [] if source_files is None else [json.dumps(list(source_files))]
        )
        deleted = 0
        with self._transaction(f"forget {source_files}"):
            for table in tables:
                deleted += self._conn.execute(
                    f"DELETE FROM {table} WHERE user_id = ?{chosen}", params
                ).rowcount
            if source_files is None:
                self._conn.execute("DELETE FROM category_rules WHERE user_id = ?", (user_id,))
            # The FTS index is external content: drop what it held of the deleted chunks.
            self._conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
            self._vectors.pop(user_id, None)
        return deleted

    # -- the engine under the shared flows -------------------------------------------------
    def _compiled(self, query: object) -> dict[str, Sql]:
        return compile_query(query, self._schema)

    def run_stats(self, query: StatsQuery) -> StatsFound:
        """From the user's columns held in memory; in SQL what they have no rule for."""
        with self._store("statistics from the columnar cache"):
            try:
                return self._columnar.stats(self._conn, _user_of(query.where), query)
            except UnsupportedQuery:
                pass
        [(sql, params)] = self._compiled(query).values()
        return rollup(query, self._rows(sql, params))

    def load_columns(self, user_id: str, attempts: int = 3) -> bool:
        """Load the user's columns now and wait for them (questions meanwhile are answered in
        SQL), as the benchmark does after an import before it times steady answers; whether
        they are ready."""
        for _ in range(attempts):
            with self._store("loading the columnar cache"):
                try:
                    self._columnar.columns(self._conn, user_id)
                    return True
                except UnsupportedQuery:
                    pass
            self._columnar.wait()
        return False

    def run_search(self, query: Search) -> Found:
        """A transactions page chosen from the columns held in memory, read by key; in SQL
        what they have no rule for."""
        if query.collection is Collection.transactions:
            with self._store("a listing from the columnar cache"):
                try:
                    return self._columnar.search(self._conn, _user_of(query.where), query)
                except UnsupportedQuery:
                    pass
        statements = self._compiled(query)
        page_sql, page_params = statements["page"]
        with self._store(page_sql, page_params):
            documents = [dict(row) for row in self._conn.execute(page_sql, page_params)]
            total = None
            if "total" in statements:
                total_sql, total_params = statements["total"]
                total = self._conn.execute(total_sql, total_params).fetchone()[0]
        return Found(documents, total)

    def run_facets(self, query: FacetsQuery) -> Facets:
        statements = self._compiled(query)
        span_sql, span_params = statements.pop("span")
        values = {
            field: [tuple(row) for row in self._rows(sql, params)]
            for field, (sql, params) in statements.items()
        }
        [(first, last)] = self._rows(span_sql, span_params)
        return Facets(values, (first, last))

    def run_statements(self, query: StatementsQuery) -> list[tuple[Document, int]]:
        [(sql, params)] = self._compiled(query).values()
        return [(dict(row), row["pages"]) for row in self._rows(sql, params)]

    def rank_keywords(self, query: TextRanking) -> list[Ranked]:
        statements = self._compiled(query)
        if "ranking" not in statements:
            return []
        sql, params = statements["ranking"]
        return [(row[0], None) for row in self._rows(sql, params)]

    def _vector_index(self, user_id: str) -> _VectorIndex | None:
        """The user's vectors, loaded once and kept until a write (ours or another process's)."""
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._vectors.clear()
            self._data_version = version
        if user_id not in self._vectors:
            rows = self._conn.execute(
                "SELECT id, summary_vector FROM statement_chunks WHERE user_id = ? ORDER BY id",
                (user_id,),
            ).fetchall()
            index = None
            if rows:
                matrix = np.frombuffer(b"".join(r["summary_vector"] for r in rows), dtype="<f4")
                index = _VectorIndex(
                    ids=np.array([r["id"] for r in rows], dtype=np.int64),
                    unit=_unit_rows(matrix.reshape(len(rows), -1)),
                )
            self._vectors[user_id] = index
        return self._vectors[user_id]

    def rank_vectors(self, query: VectorRanking) -> list[Ranked]:
        """The chunks nearest by cosine among those the filters allow, from the user's vectors
        held in memory."""
        user = _user_of(query.where)
        # The user filter alone allows every vector of the index: no need to list the ids.
        everything = query.where in (Eq("user_id", user), And((Eq("user_id", user),)))
        sql, params = self._compiled(query)["allowed"]
        with self._store(sql, params):
            index = self._vector_index(user)
            allowed = None if everything else [row[0] for row in self._conn.execute(sql, params)]
        if index is None:
            return []
        vector = np.asarray(query.vector, dtype=np.float32)
        dims = index.unit.shape[1]
        if vector.shape[0] != dims:
            raise VectorSearchFailed(
                f"the query vector has {vector.shape[0]} dimensions, not {dims}"
            )
        ids, unit = index.ids, index.unit
        if allowed is not None:
            mask = np.isin(ids, allowed)
            ids, unit = ids[mask], unit[mask]
        best = np.argsort(-(unit @ _unit_rows(vector)), kind="stable")[: query.size]
        return [(int(i), None) for i in ids[best]]

    def fetch_chunks(self, ids: Sequence[Hashable]) -> dict[Hashable, Document]:
        rows = self._rows(
            f"SELECT {_hit_columns(self._chunk_columns)} FROM statement_chunks "
            f"WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(list(ids))],
        )
        return {row["id"]: dict(row) for row in rows}

    def close(self) -> None:
        with self._lock:
            self._columnar.clear()
            self._conn.close()
