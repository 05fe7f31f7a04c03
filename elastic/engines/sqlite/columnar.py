"""A columnar read cache of the embedded store: one user's transactions as numpy arrays.

Summing a year of a million rows through SQLite's row-at-a-time executor takes 0.4-1.7 s; the
same question over in-memory columns takes milliseconds. The cache holds, per user, the fields
the query spec filters, groups, sorts and sums on: dates as day ordinals, cents as int64 (sums
stay exact integers) and text as codes into a sorted dictionary, so comparing codes compares
the strings as SQLite's BINARY collation does. It is loaded in one read transaction, on a
thread of its own, and reused until the store changes: ``PRAGMA data_version`` moves when
another connection (another process's import) commits, ``total_changes`` when this
connection writes; both are read on every query.

Statistics become the very rows the SQL statement of ``compile.py`` returns, folded by the
same :func:`rollup`; calendar buckets come from ``elastic.model.calendar``. Listings pick their
page from the columns and read its rows from SQLite by key. A node or field the cache has no
rule for raises :class:`UnsupportedQuery`, and the caller runs the SQL path instead.
"""

from __future__ import annotations

import json
import logging
import math
import operator
import sqlite3
import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from elastic.engines.sqlite.compile import fold, rollup, stats_levels
from elastic.model.calendar import bucket_start
from elastic.model.plan import Interval
from elastic.query.spec import (
    And,
    Buckets,
    Collection,
    Contains,
    Eq,
    Filter,
    Found,
    Groups,
    In,
    Level,
    Not,
    Range,
    Search,
    SortKey,
    SortValue,
    StatsFound,
    StatsQuery,
    UnsupportedQuery,
    rule_for,
)

log = logging.getLogger(__name__)

TABLE = "transactions"
TEXT_FIELDS = (
    "category", "merchant", "account_name", "account_no", "bank_name", "currency",
    "description_folded", "payment_kind",
)  # fmt: skip
INT_FIELDS = ("amount_cents", "magnitude_cents")
USERS = 3
"""Users whose columns stay in memory (least recently asked dropped first)."""
DENSE_CELLS = 1 << 18
"""Up to this many possible cells, each has a bin; beyond it, only the cells seen do."""
MAX_CANDIDATES = 50_000
"""A listing whose page ties with more rows than this on its leading sort key runs in SQL."""
MAX_PAGE = 10_000
"""Longer pages run in SQL (their ids would be as many SQL parameters)."""
_EXACT_FLOAT = 2**53
_COMPARE: dict[str, Callable[[Any, Any], np.ndarray]] = {
    "=": operator.eq,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_RANGE_OPS = {"gte": ">=", "gt": ">", "lte": "<=", "lt": "<"}


def _unsupported(what: str) -> UnsupportedQuery:
    return UnsupportedQuery(f"the columnar cache has no rule for {what}")


class Column(Protocol):
    """One field of the cached rows; values go in and come out as SQLite stores them."""

    def compare(self, op: str, value: object) -> np.ndarray: ...

    def isin(self, values: Sequence[object]) -> np.ndarray: ...

    def factor(self, rows: np.ndarray) -> tuple[np.ndarray, list[object]]:
        """Codes of ``rows`` (0..len(labels)-1) and each code's stored value."""
        ...

    def order(self, rows: np.ndarray) -> np.ndarray:
        """Numbers of ``rows`` in the field's sort order."""
        ...

    def stored(self, rows: np.ndarray) -> list[object]:
        """The stored values of ``rows``."""
        ...


@dataclass(frozen=True)
class TextColumn:
    """Codes into ``values``, which are sorted by code point: the order of UTF-8 bytes, which
    is how SQLite's BINARY collation compares text."""

    codes: np.ndarray
    values: list[str]

    def compare(self, op: str, value: object) -> np.ndarray:
        if not isinstance(value, str):
            raise _unsupported(f"comparing text with {type(value).__name__}")
        left, right = bisect_left(self.values, value), bisect_right(self.values, value)
        if op == "=":
            return self.codes == left if left < right else np.zeros(len(self.codes), bool)
        bound = {"<": left, "<=": right, ">": right, ">=": left}[op]
        return self.codes < bound if op in ("<", "<=") else self.codes >= bound

    def code_of(self, value: object) -> int | None:
        if not isinstance(value, str):
            raise _unsupported(f"comparing text with {type(value).__name__}")
        at = bisect_left(self.values, value)
        return at if at < len(self.values) and self.values[at] == value else None

    def isin(self, values: Sequence[object]) -> np.ndarray:
        codes = [code for code in map(self.code_of, values) if code is not None]
        return np.isin(self.codes, codes)

    def factor(self, rows: np.ndarray) -> tuple[np.ndarray, list[object]]:
        return self.codes[rows], list(self.values)

    def order(self, rows: np.ndarray) -> np.ndarray:
        return self.codes[rows]

    def stored(self, rows: np.ndarray) -> list[object]:
        return [self.values[code] for code in self.codes[rows].tolist()]


@dataclass(frozen=True)
class IntColumn:
    values: np.ndarray

    def scalar(self, value: object) -> int:
        if isinstance(value, bool | int):
            return int(value)
        raise _unsupported(f"comparing integers with {type(value).__name__}")

    def compare(self, op: str, value: object) -> np.ndarray:
        return _COMPARE[op](self.values, self.scalar(value))

    def isin(self, values: Sequence[object]) -> np.ndarray:
        return np.isin(self.values, [self.scalar(v) for v in values])

    def label(self, number: int) -> object:
        return number

    def factor(self, rows: np.ndarray) -> tuple[np.ndarray, list[object]]:
        distinct, codes = np.unique(self.values[rows], return_inverse=True)
        return codes, [self.label(v) for v in distinct.tolist()]

    def order(self, rows: np.ndarray) -> np.ndarray:
        return self.values[rows]

    def stored(self, rows: np.ndarray) -> list[object]:
        return [self.label(v) for v in self.values[rows].tolist()]


@dataclass(frozen=True)
class DateColumn(IntColumn):
    """Day ordinals of ``YYYY-MM-DD`` text: for such text, ordinals compare as the text does."""

    def scalar(self, value: object) -> int:
        if type(value) is date:
            return value.toordinal()
        if isinstance(value, str):
            try:
                day = date.fromisoformat(value)
            except ValueError:
                day = None
            if day is not None and day.isoformat() == value:
                return day.toordinal()
        raise _unsupported(f"comparing dates with {value!r}")

    def label(self, number: int) -> object:
        return date.fromordinal(number).isoformat()


@dataclass(frozen=True)
class KeyColumn:
    """Transaction ids as UTF-8 bytes, which numpy compares as SQLite compares the text."""

    values: np.ndarray

    def _bytes(self, value: object) -> bytes:
        if not isinstance(value, str):
            raise _unsupported(f"comparing ids with {type(value).__name__}")
        return value.encode()

    def compare(self, op: str, value: object) -> np.ndarray:
        return _COMPARE[op](self.values, self._bytes(value))

    def isin(self, values: Sequence[object]) -> np.ndarray:
        return np.isin(self.values, [self._bytes(v) for v in values])

    def factor(self, rows: np.ndarray) -> tuple[np.ndarray, list[object]]:
        distinct, codes = np.unique(self.values[rows], return_inverse=True)
        return codes, [v.decode() for v in distinct.tolist()]

    def order(self, rows: np.ndarray) -> np.ndarray:
        raise _unsupported("sorting first by transaction id")

    def stored(self, rows: np.ndarray) -> list[object]:
        return [v.decode() for v in self.values[rows].tolist()]


@dataclass
class Columns:
    """One user's transactions, in the store's order (date, transaction id)."""

    user_id: str
    size: int
    fields: dict[str, Column]
    _buckets: dict[Interval, tuple[np.ndarray, list[object]]] = field(default_factory=dict)

    def column(self, name: str) -> Column:
        if name not in self.fields:
            raise _unsupported(f"the field {name!r}")
        return self.fields[name]

    def compare(self, name: str, op: str, value: object) -> np.ndarray:
        if name == "user_id":  # every row is the user's
            if op != "=" or not isinstance(value, str):
                raise _unsupported("this comparison of users")
            return np.full(self.size, value == self.user_id)
        return self.column(name).compare(op, value)

    def buckets(self, name: str, interval: Interval, rows: np.ndarray) -> tuple[np.ndarray, list]:
        """The calendar bucket of each row's date as a code, and each code's first day.

        ``bucket_start`` runs once per day of the data's span, not once per row.
        """
        days = self.column(name)
        if not isinstance(days, DateColumn) or name != "date":
            raise _unsupported(f"calendar buckets of {name!r}")
        interval = Interval(interval)
        if interval not in self._buckets:
            first = int(days.values.min())
            starts = [
                bucket_start(date.fromordinal(day), interval)
                for day in range(first, int(days.values.max()) + 1)
            ]
            labels = sorted(set(starts))
            number = {start: i for i, start in enumerate(labels)}
            index = np.array([number[start] for start in starts], dtype=np.int32)
            self._buckets[interval] = (index, [start.isoformat() for start in labels])
        index, labels = self._buckets[interval]
        return index[days.values[rows] - days.values.min()], labels


# -- filters → masks --------------------------------------------------------------------------
def _eq(node: Eq, columns: Columns) -> np.ndarray:
    return columns.compare(node.field, "=", node.value)


def _in(node: In, columns: Columns) -> np.ndarray:
    if node.field == "user_id":
        if not all(isinstance(value, str) for value in node.values):
            raise _unsupported("users that are not text")
        return np.full(columns.size, columns.user_id in node.values)
    return columns.column(node.field).isin(node.values)


def _range(node: Range, columns: Columns) -> np.ndarray:
    allowed = np.ones(columns.size, bool)
    for op, value in node.bounds().items():
        allowed &= columns.compare(node.field, _RANGE_OPS[op], value)
    return allowed


def _contains(node: Contains, columns: Columns) -> np.ndarray:
    """A substring of the folded twin column, tested once per distinct value."""
    folded = columns.column(node.field + "_folded")
    if not isinstance(folded, TextColumn):
        raise _unsupported(f"substrings of {node.field!r}")
    needle = fold(node.text)
    hits = np.fromiter((needle in value for value in folded.values), bool, len(folded.values))
    return hits[folded.codes]


def _not(node: Not, columns: Columns) -> np.ndarray:
    return ~mask(node.clause, columns)


def _and(node: And, columns: Columns) -> np.ndarray:
    allowed = np.ones(columns.size, bool)
    for clause in node.clauses:
        allowed &= mask(clause, columns)
    return allowed


MASKS: dict[type, Callable[[Any, Columns], np.ndarray]] = {
    Eq: _eq,
    In: _in,
    Range: _range,
    Contains: _contains,
    Not: _not,
    And: _and,
}


def mask(node: Filter, columns: Columns) -> np.ndarray:
    """A filter → which rows it allows."""
    return rule_for(MASKS, node, "columnar")(node, columns)


# -- statistics -------------------------------------------------------------------------------
def _level_codes(level: Level, columns: Columns, rows: np.ndarray) -> tuple[np.ndarray, list]:
    if isinstance(level, Buckets):
        return columns.buckets(level.field, level.interval, rows)
    if isinstance(level, Groups):
        return columns.column(level.field).factor(rows)
    raise _unsupported(type(level).__name__)


def _cells(
    cell: np.ndarray, values: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The cells with rows, and per cell: count, exact sum, smallest and largest value."""
    counts = np.bincount(cell, minlength=size)
    if int(np.abs(values).max()) * len(values) < _EXACT_FLOAT:
        # Float sums of integers stay exact while every partial sum is below 2**53.
        sums = np.bincount(cell, weights=values, minlength=size).astype(np.int64)
    else:
        sums = np.zeros(size, np.int64)
        np.add.at(sums, cell, values)
    lows = np.full(size, np.iinfo(np.int64).max)
    highs = np.full(size, np.iinfo(np.int64).min)
    np.minimum.at(lows, cell, values)
    np.maximum.at(highs, cell, values)
    seen = np.flatnonzero(counts)
    return seen, counts[seen], sums[seen], lows[seen], highs[seen]


def _span(columns: Columns, name: str | None, rows: np.ndarray) -> tuple[Any, Any]:
    if name is None or not rows.size:
        return None, None
    ordered = columns.column(name).order(rows)
    first, last = int(np.argmin(ordered)), int(np.argmax(ordered))
    [low, high] = columns.column(name).stored(rows[[first, last]])
    return low, high


def stats(columns: Columns, query: StatsQuery) -> StatsFound:
    """The rows the one-pass SQL statement would return, folded by the same ``rollup``."""
    amounts = columns.column(query.stats.field)
    if type(amounts) is not IntColumn:
        raise _unsupported(f"statistics of {query.stats.field!r}")
    levels = stats_levels(query)
    rows = np.flatnonzero(mask(query.where, columns))
    values = amounts.values[rows]
    span = _span(columns, query.span, rows)
    if not levels:
        if not rows.size:
            return rollup(query, [(0, 0, None, None, None, None)])
        total = (int(values.sum()), int(values.min()), int(values.max()))
        return rollup(query, [(len(rows), *total, *span)])
    if not rows.size:
        return rollup(query, [])
    # Each row's cell numbered in mixed radix over the levels' codes; when the possible cells
    # outgrow DENSE_CELLS, the ones seen are renumbered, ``prefix`` keeping their codes.
    cell = np.zeros(len(rows), np.int64)
    prefix = np.zeros((1, 0), np.int64)
    radix = [1]
    labels: list[list] = []
    for level in levels:
        codes, names = _level_codes(level, columns, rows)
        cell = cell * len(names) + codes
        radix.append(len(names))
        labels.append(names)
        if math.prod(radix) > DENSE_CELLS:
            seen, cell = np.unique(cell, return_inverse=True)
            digits = np.unravel_index(seen, radix)
            prefix = np.column_stack([prefix[digits[0]], *digits[1:]])
            radix = [len(seen)]
    found = _cells(cell, values, math.prod(radix))
    digits = np.unravel_index(found[0], radix)
    keys = np.column_stack([prefix[digits[0]], *digits[1:]]).tolist()
    figures = zip(*(part.tolist() for part in found[1:]), strict=True)
    return rollup(
        query,
        [
            (*(names[i] for names, i in zip(labels, key, strict=True)), *figure, *span)
            for key, figure in zip(keys, figures, strict=True)
        ],
    )


# -- listings ---------------------------------------------------------------------------------
def _after(columns: Columns, sort: Sequence[SortKey], after: Sequence[SortValue]) -> np.ndarray:
    """Rows strictly after the keyset ``after`` in ``sort`` order (``compile.keyset``)."""
    if len(after) != len(sort):
        raise UnsupportedQuery(f"after needs {len(sort)} values, got {len(after)}")
    allowed = np.zeros(columns.size, bool)
    equal = np.ones(columns.size, bool)
    for key, value in zip(sort, after, strict=True):
        allowed |= equal & columns.compare(key.field, "<" if key.descending else ">", value)
        equal &= columns.compare(key.field, "=", value)
    return allowed


def page_rows(columns: Columns, query: Search) -> tuple[list[bytes], int | None]:
    """The ids of the page's rows in order, and the number of all matching rows if asked."""
    if (
        query.collection is not Collection.transactions
        or not 0 < query.limit <= MAX_PAGE
        or not query.sort
    ):
        raise _unsupported(f"this listing of {query.collection}")
    allowed = mask(query.where, columns)
    total = int(np.count_nonzero(allowed)) if query.total else None
    if query.after is not None:
        allowed &= _after(columns, query.sort, query.after)
    rows = np.flatnonzero(allowed)
    lead = columns.column(query.sort[0].field).order(rows)
    if len(rows) > query.limit:
        # The page is within the ``limit`` best rows by the leading key, and its ties.
        if query.sort[0].descending:
            bound = np.partition(lead, len(rows) - query.limit)[len(rows) - query.limit]
            rows = rows[lead >= bound]
        else:
            bound = np.partition(lead, query.limit - 1)[query.limit - 1]
            rows = rows[lead <= bound]
    if len(rows) > MAX_CANDIDATES:
        raise _unsupported(f"a page tied with {len(rows)} rows")
    keyed = list(
        zip(
            *(columns.column(key.field).stored(rows) for key in query.sort),
            rows.tolist(),
            strict=True,
        )
    )
    for at in reversed(range(len(query.sort))):  # stable sorts, least significant key first
        keyed.sort(key=operator.itemgetter(at), reverse=query.sort[at].descending)
    chosen = np.array([row[-1] for row in keyed[: query.limit]], dtype=np.int64)
    ids = columns.fields["transaction_id"]
    assert isinstance(ids, KeyColumn)
    return ids.values[chosen].tolist(), total


# -- loading ----------------------------------------------------------------------------------
def _dictionary(chunks: list[tuple[np.ndarray, np.ndarray]]) -> TextColumn:
    """Per-chunk codes and distinct values → codes into the sorted distinct values of all."""
    merged = np.concatenate([np.array([], object), *(distinct for _, distinct in chunks)])
    renumber, values = pd.factorize(merged, sort=True)
    offsets = np.cumsum([0, *(len(distinct) for _, distinct in chunks)])
    codes = [renumber[offset + part] for offset, (part, _) in zip(offsets, chunks, strict=False)]
    return TextColumn(
        np.concatenate([np.array([], np.int32), *codes]).astype(np.int32), [str(v) for v in values]
    )


def load(conn: sqlite3.Connection, user_id: str) -> Columns:
    """The user's rows as columns, a calendar month at a time (little memory on the way), in
    one read transaction (one snapshot of the store). SQLite writes each field of a month as
    one JSON array, 2-3 times faster than stepping through the rows in Python; the arrays of
    one statement follow the same rows, so the columns line up."""
    names = ("date", *TEXT_FIELDS, *INT_FIELDS, "transaction_id")
    arrays = ", ".join(f"json_group_array({name})" for name in names)
    texts: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {n: [] for n in ("date", *TEXT_FIELDS)}
    numbers: dict[str, list[np.ndarray]] = {n: [np.array([], np.int64)] for n in INT_FIELDS}
    keys: list[np.ndarray] = [np.array([], np.bytes_)]
    conn.execute("BEGIN")
    try:
        first, last = conn.execute(
            f"SELECT MIN(date), MAX(date) FROM {TABLE} WHERE user_id = ?", (user_id,)
        ).fetchone()
        months = (
            range(int(first[:4]) * 12 + int(first[5:7]) - 1, int(last[:4]) * 12 + int(last[5:7]))
            if first is not None
            else range(0)
        )
        for month in months:  # as "YYYY-MM", the prefix of the dates of that month
            start, end = (f"{m // 12:04d}-{m % 12 + 1:02d}" for m in (month, month + 1))
            row = conn.execute(
                f"SELECT {arrays} FROM {TABLE} WHERE user_id = ? AND date >= ? AND date < ?",
                (user_id, start, end),
            ).fetchone()
            for name, text in zip(names, row, strict=True):
                values = json.loads(text)
                if name in numbers:
                    numbers[name].append(np.array(values, np.int64))
                elif name == "transaction_id":
                    keys.append(np.array([value.encode() for value in values], np.bytes_))
                else:
                    codes, distinct = pd.factorize(np.array(values, object))
                    texts[name].append((codes, distinct))
    finally:
        conn.rollback()
    fields: dict[str, Column] = {n: IntColumn(np.concatenate(numbers[n])) for n in INT_FIELDS}
    fields.update((name, _dictionary(chunks)) for name, chunks in texts.items())
    days = fields.pop("date")
    assert isinstance(days, TextColumn)
    ordinals = np.array([date.fromisoformat(v).toordinal() for v in days.values], np.int32)
    fields["date"] = DateColumn(ordinals[days.codes] if len(ordinals) else ordinals)
    fields["transaction_id"] = KeyColumn(np.concatenate(keys))
    return Columns(user_id, len(days.codes), fields)


def _version(conn: sqlite3.Connection) -> tuple[int, int]:
    """Moves whenever another connection commits or this one writes."""
    return conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes


class ColumnarCache:
    """Columns of the few users asked most recently, each valid while the store is unchanged.

    Stale or missing columns are loaded on a thread of its own, over its own read-only
    connection to ``path``, one load at a time; until they are ready, questions are refused
    here and answered in SQL, so no question waits for a load (a million rows take seconds)
    and a store another process keeps writing to is answered in SQL as before. The caller
    serialises use of its connection (the backend's lock).
    """

    def __init__(self, path: Path, users: int = USERS) -> None:
        self._path = path
        self.read_uri = f"{path.resolve().as_uri()}?mode=ro"  # ``immutable=1`` on a full disk
        self._users = users
        self._held: OrderedDict[str, tuple[tuple[int, int], Columns]] = OrderedDict()
        self._lock = threading.Lock()  # guards _held and _loader against the loading thread
        self._loader: threading.Thread | None = None

    def columns(self, conn: sqlite3.Connection, user_id: str) -> Columns:
        """The user's columns as ``conn`` sees the store now, or ``UnsupportedQuery`` while
        they load."""
        version = _version(conn)
        with self._lock:
            held = self._held.get(user_id)
            if held is not None and held[0] == version:
                self._held.move_to_end(user_id)
                return held[1]
            if self._loader is None or not self._loader.is_alive():
                # The version is read before the load's snapshot begins: a commit in between
                # makes the columns newer than their version says, and only costs a reload.
                self._loader = threading.Thread(
                    target=self._load, args=(user_id, version), daemon=True
                )
                self._loader.start()
        raise UnsupportedQuery(f"the columns of {user_id!r} are loading")

    def _load(self, user_id: str, version: tuple[int, int]) -> None:
        try:
            conn = sqlite3.connect(self.read_uri, uri=True)
            try:
                columns = load(conn, user_id)
            finally:
                conn.close()
        except sqlite3.Error as exc:  # the question is answered in SQL; the next one retries
            log.warning("Loading the columnar cache of %s failed: %s", self._path, exc)
            return
        with self._lock:
            self._held[user_id] = (version, columns)
            self._held.move_to_end(user_id)
            while len(self._held) > self._users:
                self._held.popitem(last=False)

    def wait(self) -> None:
        """Until the load under way, if any, has finished."""
        loader = self._loader
        if loader is not None:
            loader.join()

    def stats(self, conn: sqlite3.Connection, user_id: str, query: StatsQuery) -> StatsFound:
        return stats(self.columns(conn, user_id), query)

    def search(self, conn: sqlite3.Connection, user_id: str, query: Search) -> Found:
        """The page chosen from the columns, its rows read from the store by key."""
        version = _version(conn)
        ids, total = page_rows(self.columns(conn, user_id), query)
        cursor = conn.cursor()
        cursor.row_factory = sqlite3.Row
        # One seek per id in the (user_id, transaction_id) index: given an IN list of a dozen
        # ids, SQLite's planner scans all of the user's rows instead.
        sql = f"SELECT * FROM {TABLE} WHERE user_id = ? AND transaction_id = ?"
        found = [row for i in ids for row in cursor.execute(sql, (user_id, i.decode()))]
        if _version(conn) != version or len(found) != len(ids):
            raise UnsupportedQuery("the store changed while the page was read")
        return Found([dict(row) for row in found], total)

    def clear(self) -> None:
        with self._lock:
            self._held.clear()
