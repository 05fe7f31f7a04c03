"""The embedded backend: one SQLite file (SQL for numbers, FTS5 for BM25) and numpy cosine.

Filters and sort orders are the Elasticsearch clauses of ``query_builders`` compiled to SQL, and
raw per-cell stats go through the shared shaping code, so both backends give the same answers.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from datetime import date
from itertools import groupby
from typing import Any

import numpy as np

from elastic.backend import CategoryMemory, PairRow, WriteCounts
from elastic.engines.documents import (
    CHUNKS_SIZE,
    DEFAULT_CURRENCY,
    NO_VECTOR_NOTE,
    STATEMENTS_SIZE,
    TOP_HITS,
    VECTOR_FAILED_NOTE,
    VOCABULARY_SIZE,
    fact_from_source,
    hit_from_source,
    in_listing_order,
    statement_info,
    transaction_from_source,
)
from elastic.engines.sqlite.sql import fold, fts_query, order_by, search_after, sort_values, where
from elastic.errors import BackendError, BackendUnavailable, EmbeddingMismatch, QueryRejected
from elastic.model.calendar import bucket_start
from elastic.model.plan import TRANSFERS_CATEGORY, Direction, GroupBy, IntentPlan, Interval
from elastic.model.records import Box, StatementChunk, StatementFact, Transaction
from elastic.model.results import (
    AccountInfo,
    AggregateResult,
    CellStats,
    ListingResult,
    StatementHit,
    StatementInfo,
    TextQAResult,
    TrendResult,
    Vocabulary,
)
from elastic.query.builders import (
    CANDIDATES,
    FACT_SORT,
    FACTS_SIZE,
    GROUP_FIELDS,
    LISTING_SORTS,
    MAX_GROUPS,
    TEXT_QA_FIELDS,
    fact_filters,
    statement_filters,
    transaction_filters,
)
from elastic.query.rrf import reciprocal_rank_fusion
from elastic.query.shaping import aggregate_result, currency_of, directed_stats, trend_result
from settings import Settings

log = logging.getLogger(__name__)

DB_FILE = "finsync.sqlite3"
# SQLite's page cache: inserts at random keys into big indexes need more than the 2 MiB default.
CACHE_KIB = 64 * 1024
# Primary result codes (``SQLITE_IOERR_WRITE`` → ``IOERR``) that mean the file cannot be used
# now; any other error is a query SQLite rejected.
_BUSY_CODES = frozenset({"BUSY", "LOCKED"})
_OUTAGE_CODES = frozenset(
    {"CANTOPEN", "IOERR", "FULL", "CORRUPT", "NOTADB", "READONLY", "PERM", "NOMEM", "PROTOCOL"}
)


def _fts_weights(fields: Sequence[str]) -> dict[str, float]:
    """The ``multi_match`` fields as FTS5 columns and ``bm25()`` weights.

    A sub-field ("summary_text.words": the same text split on punctuation) folds into its
    column, since unicode61 already splits on punctuation; best_fields scoring counts the best
    field, hence the highest boost.
    """
    weights: dict[str, float] = {}
    for field in fields:
        name, _, boost = field.partition("^")
        column = name.partition(".")[0]
        weights[column] = max(weights.get(column, 0.0), float(boost or 1))
    return weights


FTS_WEIGHTS = _fts_weights(TEXT_QA_FIELDS)
_FTS_COLUMNS = ", ".join(FTS_WEIGHTS)
_BM25 = f"bm25(chunks_fts, {', '.join(map(str, FTS_WEIGHTS.values()))})"

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

_PROVENANCE_COLUMNS = {
    "source_file": "TEXT NOT NULL DEFAULT ''",
    "location": "TEXT NOT NULL DEFAULT ''",
    "raw_description": "TEXT NOT NULL DEFAULT ''",
    "merchant_inferred": "INTEGER NOT NULL DEFAULT 0",
    "category_inferred": "INTEGER NOT NULL DEFAULT 0",
    "page": "INTEGER",
    "box": "TEXT",
}

_HIT_COLUMNS = (
    "id, statement_id, page, chunk, text, bank_name, account_name, account_no, "
    "statement_from, statement_to, source_file"
)
_STATS = "COUNT(*), COALESCE(SUM(amount_cents), 0), MIN(amount_cents), MAX(amount_cents)"

Raw = tuple[int, int, int, int]
"""count, sum, min, max of signed amounts in cents."""


def _json_box(box: Box | None) -> str | None:
    return None if box is None else json.dumps(list(box))


def _insert_sql(table: str, columns: Iterable[str]) -> str:
    """``INSERT OR IGNORE`` with named parameters: already stored rows are skipped."""
    names = sorted(columns)
    return (
        f"INSERT OR IGNORE INTO {table} ({', '.join(names)}) "
        f"VALUES ({', '.join(':' + n for n in names)})"
    )


def _bucket_cells(rows: Iterable[Sequence[Any]], interval: Interval) -> dict[date, Raw]:
    """Per-day ``(day, count, sum, min, max)`` rows merged into calendar buckets."""
    cells: dict[date, Raw] = {}
    for day, count, total, low, high in rows:
        start = bucket_start(date.fromisoformat(day), interval)
        seen = cells.get(start)
        cells[start] = (
            (count, total, low, high)
            if seen is None
            else (seen[0] + count, seen[1] + total, min(seen[2], low), max(seen[3], high))
        )
    return cells


def _directed(direction: Direction, cells: dict[date, Raw]) -> dict[date, CellStats]:
    return {start: directed_stats(direction, *raw) for start, raw in cells.items()}


@dataclass(frozen=True)
class _VectorIndex:
    """One user's chunk vectors, scaled to unit length so a dot product is the cosine."""

    ids: np.ndarray  # int64 statement_chunks.id
    unit: np.ndarray  # float32 (n, dims)


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


class EmbeddedBackend:
    name = "embedded"

    def __init__(self, settings: Settings) -> None:
        """Open (or create) the store. Opening an existing store writes nothing, so questions
        never wait for another process's import: WAL lets readers through while it writes."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = settings.data_dir / DB_FILE
        self._lock = threading.Lock()
        self._vectors: dict[str, _VectorIndex | None] = {}
        with self._store("opening the store"):
            # One connection shared by Streamlit's threads, serialised by the lock. The timeout
            # is how long a write waits for another process's write transaction.
            self._conn = sqlite3.connect(
                self.path, timeout=settings.store_lock_timeout_s, check_same_thread=False
            )
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
            self._conn.execute("PRAGMA temp_store=MEMORY")
            self._conn.executescript(SCHEMA)
            self._add_missing_columns()
            self._tx_columns = self._columns("transactions")
            self._chunk_columns = self._columns("statement_chunks")
            self._fact_columns = self._columns("statement_facts")
            self._insert_fact = _insert_sql("statement_facts", self._fact_columns)
            self._insert_tx = _insert_sql("transactions", self._tx_columns)
            self._insert_chunk = _insert_sql("statement_chunks", self._chunk_columns - {"id"})
            self._data_version = self._conn.execute("PRAGMA data_version").fetchone()[0]

    def _add_missing_columns(self) -> None:
        """Stores written before provenance was kept get its columns (with neutral values)."""
        present = self._columns("transactions")
        for name, definition in _PROVENANCE_COLUMNS.items():
            if name not in present:
                self._conn.execute(f"ALTER TABLE transactions ADD COLUMN {name} {definition}")

    def _columns(self, table: str) -> frozenset[str]:
        return frozenset(row["name"] for row in self._conn.execute(f"PRAGMA table_info({table})"))

    def _error(self, exc: sqlite3.Error, sql: str, params: object) -> BackendError:
        """SQLite's error as one of the two the callers handle (``elastic/backend.py``)."""
        name = getattr(exc, "sqlite_errorname", None) or ""
        code = name.split("_")[1] if name.count("_") else ""
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
                f"({dims} dimensions). Use another FINSYNC_DATA_DIR or delete {self.path} and "
                "ingest again."
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

    # -- writes ---------------------------------------------------------------------------
    def add_transactions(
        self, user_id: str, rows: Sequence[Transaction], visible: bool = True
    ) -> WriteCounts:
        # Each committed write is visible at once here; ``visible`` matters to Elasticsearch.
        docs = [
            {
                **row.as_document(user_id),
                "description_folded": fold(row.description),
                "box": _json_box(row.box),
            }
            for row in rows
        ]
        with self._transaction(self._insert_tx):
            indexed = self._conn.executemany(self._insert_tx, docs).rowcount
        return WriteCounts(indexed, len(docs) - indexed, {})

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
    ) -> WriteCounts:
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

    def add_facts(self, user_id: str, facts: Sequence[StatementFact]) -> WriteCounts:
        docs = [{**fact.as_document(user_id), "box": _json_box(fact.box)} for fact in facts]
        if not docs:
            return WriteCounts(0, 0, {})
        with self._transaction(self._insert_fact):
            indexed = self._conn.executemany(self._insert_fact, docs).rowcount
        return WriteCounts(indexed, len(docs) - indexed, {})

    def facts(self, user_id: str, plan: IntentPlan) -> list[StatementFact]:
        cond, params = where(fact_filters(plan, user_id), self._fact_columns)
        rows = self._rows(
            f"SELECT * FROM statement_facts WHERE {cond} "
            f"ORDER BY {order_by(FACT_SORT, self._fact_columns)} LIMIT {FACTS_SIZE}",
            params,
        )
        return [fact_from_source(dict(row)) for row in rows]

    # -- categories and transfers ---------------------------------------------------------
    def category_memory(self, user_id: str) -> CategoryMemory:
        rules = self._rows(
            "SELECT merchant, category FROM category_rules WHERE user_id = ?", (user_id,)
        )
        # Per merchant, the category its rows most often have where the file or the user said so.
        known = self._rows(
            "SELECT merchant, category, COUNT(*) FROM transactions "
            "WHERE user_id = ? AND category_inferred = 0 GROUP BY 1, 2",
            (user_id,),
        )
        return CategoryMemory.build(
            {row[0]: row[1] for row in rules}, [(r[0], r[1], r[2]) for r in known]
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

    def pair_candidates(self, user_id: str, date_from: date, date_to: date) -> list[PairRow]:
        rows = self._rows(
            "SELECT transaction_id, account_no, date, amount_cents, currency FROM transactions "
            "WHERE user_id = ? AND date BETWEEN ? AND ? AND category_inferred = 1",
            (user_id, date_from.isoformat(), date_to.isoformat()),
        )
        return [PairRow(r[0], r[1], date.fromisoformat(r[2]), r[3], r[4]) for r in rows]

    def mark_transfers(self, user_id: str, transaction_ids: Sequence[str]) -> int:
        with self._transaction("mark transfers"):
            return self._conn.execute(
                "UPDATE transactions SET category = ?, category_inferred = 1 "
                "WHERE user_id = ? AND transaction_id IN (SELECT value FROM json_each(?))",
                (TRANSFERS_CATEGORY, user_id, json.dumps(list(transaction_ids))),
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

    # -- the four intents -----------------------------------------------------------------
    def _tx_where(self, plan: IntentPlan, user_id: str) -> tuple[str, list[object]]:
        return where(transaction_filters(plan, user_id), self._tx_columns)

    def aggregate(self, user_id: str, plan: IntentPlan) -> AggregateResult:
        cond, params = self._tx_where(plan, user_id)
        [overall] = self._rows(
            f"SELECT {_STATS}, MIN(currency), MAX(currency) FROM transactions WHERE {cond}",
            params,
        )
        groups: dict[str, CellStats] = {}
        if plan.group_by is GroupBy.month:
            days = self._rows(
                f"SELECT date, {_STATS} FROM transactions WHERE {cond} GROUP BY date", params
            )
            months = _directed(plan.direction, _bucket_cells(days, Interval.month))
            groups = {start.isoformat(): stats for start, stats in months.items()}
        elif plan.group_by is not None:
            # Elasticsearch's terms aggregation keeps the MAX_GROUPS most frequent keys.
            rows = self._rows(
                f"SELECT {GROUP_FIELDS[plan.group_by]}, {_STATS} FROM transactions WHERE {cond} "
                f"GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT {MAX_GROUPS}",
                params,
            )
            groups = {row[0]: directed_stats(plan.direction, *row[1:]) for row in rows}
        currency = currency_of((c for c in overall[4:] if c is not None), DEFAULT_CURRENCY)
        return aggregate_result(
            plan, directed_stats(plan.direction, *overall[:4]), groups, currency
        )

    def trend(self, user_id: str, plan: IntentPlan) -> TrendResult:
        cond, params = self._tx_where(plan, user_id)
        split = "category" if plan.split_by_category else "''"
        # (category or '', day, count, sum, min, max, min currency, max currency)
        rows = self._rows(
            f"SELECT {split}, date, {_STATS}, MIN(currency), MAX(currency) "
            f"FROM transactions WHERE {cond} GROUP BY 1, 2 ORDER BY 1, 2",
            params,
        )
        found = _bucket_cells((row[1:6] for row in rows), plan.interval)
        splits: dict[str, dict[date, CellStats]] = {}
        if plan.split_by_category:
            by_category = {
                category: list(group) for category, group in groupby(rows, key=lambda r: r[0])
            }
            counts = {category: sum(r[2] for r in group) for category, group in by_category.items()}
            # Like Elasticsearch's terms aggregation: the MAX_GROUPS most frequent categories.
            kept = sorted(counts, key=lambda c: (-counts[c], c))[:MAX_GROUPS]
            splits = {
                c: _directed(
                    plan.direction, _bucket_cells((r[1:6] for r in by_category[c]), plan.interval)
                )
                for c in kept
            }
        currency = currency_of({c for row in rows for c in row[6:]}, DEFAULT_CURRENCY)
        return trend_result(plan, _directed(plan.direction, found), splits, currency)

    def listing(
        self, user_id: str, plan: IntentPlan, after: list[object] | None = None
    ) -> ListingResult:
        cond, params = self._tx_where(plan, user_id)
        sort = LISTING_SORTS[plan.sort]
        page_cond, page_params = cond, params
        if after:
            keyset, keyset_params = search_after(sort, after, self._tx_columns)
            page_cond, page_params = f"{cond} AND {keyset}", [*params, *keyset_params]
        with self._store(f"listing WHERE {page_cond}", page_params):
            rows = self._conn.execute(
                f"SELECT * FROM transactions WHERE {page_cond} "
                f"ORDER BY {order_by(sort, self._tx_columns)} LIMIT ?",
                [*page_params, plan.limit],
            ).fetchall()
            total = self._conn.execute(
                f"SELECT COUNT(*) FROM transactions WHERE {cond}", params
            ).fetchone()[0]
        next_after = sort_values(sort, rows[-1]) if rows and len(rows) == plan.limit else None
        return ListingResult(
            rows=[transaction_from_source(dict(row)) for row in rows],
            total=total,
            next_after=next_after,
        )

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

    def _knn(
        self, user_id: str, cond: str, params: Sequence[object], query_vector: np.ndarray
    ) -> list[int]:
        """Ids of the CANDIDATES chunks nearest by cosine among those the filters allow."""
        with self._store(f"SELECT id FROM statement_chunks WHERE {cond}", params):
            index = self._vector_index(user_id)
            allowed = self._conn.execute(
                f"SELECT id FROM statement_chunks WHERE {cond}", params
            ).fetchall()
        if index is None:
            return []
        query = np.asarray(query_vector, dtype=np.float32).ravel()
        dims = index.unit.shape[1]
        if query.shape[0] != dims:
            raise EmbeddingMismatch(f"the query vector has {query.shape[0]} dimensions, not {dims}")
        mask = np.isin(index.ids, [row[0] for row in allowed])
        ids, unit = index.ids[mask], index.unit[mask]
        scores = unit @ _unit_rows(query)
        best = np.argsort(-scores, kind="stable")[:CANDIDATES]
        return [int(i) for i in ids[best]]

    def _bm25(self, text: str, cond: str, params: Sequence[object]) -> list[int]:
        match = fts_query(text)
        if match is None:
            return []
        rows = self._rows(
            # "+rowid": filter the matches, rather than run one FTS lookup per allowed id.
            f"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
            f"AND +rowid IN (SELECT id FROM statement_chunks WHERE {cond}) "
            f"ORDER BY {_BM25}, rowid LIMIT {CANDIDATES}",
            [match, *params],
        )
        return [row[0] for row in rows]

    def text_qa(
        self, user_id: str, plan: IntentPlan, query_vector: np.ndarray | None
    ) -> TextQAResult:
        """BM25 and cosine fused by RRF; without a usable vector, keywords only and a note."""
        cond, params = where(
            {"bool": {"filter": statement_filters(plan, user_id)}}, self._chunk_columns
        )
        rankings = [self._bm25(plan.text or "", cond, params)]
        note = NO_VECTOR_NOTE if query_vector is None else None
        if query_vector is not None:
            try:
                rankings.append(self._knn(user_id, cond, params, query_vector))
            except EmbeddingMismatch as exc:
                log.warning("vector half of text search failed: %s", exc)
                note = VECTOR_FAILED_NOTE
        fused = reciprocal_rank_fusion(rankings, limit=TOP_HITS)
        ids = [doc_id for doc_id, _ in fused]
        rows = self._rows(
            f"SELECT {_HIT_COLUMNS} FROM statement_chunks "
            f"WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(ids)],
        )
        by_id = {row["id"]: dict(row) for row in rows}
        hits = [hit_from_source(by_id[doc_id], score) for doc_id, score in fused]
        return TextQAResult(hits=hits, keyword_only=len(rankings) < 2, note=note)

    # -- browsing -------------------------------------------------------------------------
    def vocabulary(self, user_id: str) -> Vocabulary:
        def distinct(column: str) -> list[str]:
            rows = self._rows(
                f"SELECT DISTINCT {column} FROM transactions WHERE user_id = ? "
                f"ORDER BY 1 LIMIT {VOCABULARY_SIZE}",
                (user_id,),
            )
            return [row[0] for row in rows]

        # Like the ES terms aggregations: per account number, its first name and bank.
        accounts = self._rows(
            "SELECT account_no, MIN(account_name), MIN(bank_name), MIN(currency) "
            "FROM transactions WHERE user_id = ? GROUP BY account_no ORDER BY account_no",
            (user_id,),
        )
        # Two scalar subqueries: each is one seek in the (user_id, date) key.
        [(first, last)] = self._rows(
            "SELECT (SELECT MIN(date) FROM transactions WHERE user_id = :user), "
            "(SELECT MAX(date) FROM transactions WHERE user_id = :user)",
            {"user": user_id},
        )
        return Vocabulary(
            merchants=distinct("merchant"),
            categories=distinct("category"),
            accounts=sorted(
                (
                    AccountInfo(name, bank, number[-4:])
                    for number, name, bank, _ in accounts[:VOCABULARY_SIZE]
                ),
                key=astuple,  # AccountInfo has no order of its own
            ),
            first_date=date.fromisoformat(first) if first else None,
            last_date=date.fromisoformat(last) if last else None,
            currency=min((row[3] for row in accounts), default=DEFAULT_CURRENCY),
        )

    def statements(self, user_id: str) -> list[StatementInfo]:
        # Ordered like Elasticsearch's terms buckets, so ties in the final sort agree too.
        rows = self._rows(
            "SELECT statement_id, MIN(bank_name) AS bank_name, MIN(account_name) AS account_name, "
            "MIN(account_no) AS account_no, MIN(statement_from) AS statement_from, "
            "MIN(statement_to) AS statement_to, COUNT(DISTINCT page) AS pages, "
            "MIN(source_file) AS source_file "
            "FROM statement_chunks WHERE user_id = ? GROUP BY statement_id "
            f"ORDER BY COUNT(*) DESC, statement_id LIMIT {STATEMENTS_SIZE}",
            (user_id,),
        )
        return in_listing_order([statement_info(row, row["pages"]) for row in rows])

    def statement_chunks(self, user_id: str, statement_id: str) -> list[StatementHit]:
        rows = self._rows(
            f"SELECT {_HIT_COLUMNS} FROM statement_chunks WHERE user_id = ? AND statement_id = ? "
            f"ORDER BY page, chunk LIMIT {CHUNKS_SIZE}",
            (user_id, statement_id),
        )
        return [hit_from_source(dict(row), 0.0) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
