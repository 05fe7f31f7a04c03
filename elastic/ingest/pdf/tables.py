"""Transaction tables of statement pages: columns named by a header row, a row per dated line
(and per line of the same day that prints an amount of its own), amounts signed by their column,
marker or table section, and a check that the rows add up to the balances the statement prints.

The header row (labels in ``table_labels.toml``) names the columns. Where each column lies comes
from the rows themselves: the x-ranges covered by the words of the dated lines, merged where they
touch, each given to the header label it lies under or nearest to. That places a right-aligned
amount under a left-aligned header and a description running past its header, which header
ranges alone would not.
"""

from __future__ import annotations

import itertools
import math
import re
import threading
import tomllib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path
from typing import TypeGuard

from dateparser.date import DateDataParser

from elastic.ingest.parsed import Box, ParsedRow
from elastic.ingest.pdf.page_reader import group_lines
from elastic.ingest.pdf.page_words import PageText, Word

LABELS_FILE = Path(__file__).with_name("table_labels.toml")
MONEY = ("debit", "credit", "amount", "balance")
TRANSACTION_MONEY = ("debit", "credit", "amount")
# Words closer than this share of their height form one header label or one column span.
TIGHT_GAP = 0.6
# dateparser shares state between calls and has raced across threads; dates are cached, so the
# lock is rarely taken.
_DATES_LOCK = threading.Lock()
# An undated line continues the row above it when the gap between them is at most this share of
# the line's height; anything further away is past the end of the table.
CONTINUATION_GAP = 1.5

_ISO_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")
_NUMERIC_DATE = re.compile(r"\d{1,2}([./-])\d{1,2}(?:\1(?:\d{4}|\d{2}))?\.?")
_WORD_DATE = re.compile(
    r"\d{1,2}\.?[ -]?[^\W\d_]{3,}\.?(?:[ -]?(?:\d{4}|\d{2}))?"  # 12 Feb, 12-Feb-22, 3. März
    r"|[^\W\d_]{3,}\.? ?\d{1,2}(?:,? ?\d{4})?"  # Feb 12, Feb 12, 2022
)
_AMOUNT = re.compile(
    r"""(?P<open>\()?\s*(?P<lead>[-+])?\s*
    (?P<int>\d{1,3}(?:(?P<sep>[.,'\u00a0\u202f ])\d{3})?(?:(?P=sep)\d{3})*|\d+)
    (?P<dec>[.,])(?P<frac>\d{2})
    \s*(?P<trail>[-+])?\s*(?P<close>\))?\s*(?P<suffix>[^\W\d_]+\.?)?""",
    re.X,
)


@dataclass
class TableResult:
    """The rows as read, in statement order. Land them only when ``reconciled``: ``reason`` says
    why they do not reconcile, or why no table was found."""

    rows: list[ParsedRow]
    reconciled: bool
    reason: str | None


@dataclass(frozen=True)
class _Labels:
    columns: dict[tuple[str, ...], str]  # a header label's words -> column kind
    balances: dict[str, list[tuple[tuple[str, ...], str]]]  # first word -> (phrase, kind)
    totals: tuple[tuple[str, ...], ...]
    sections: dict[tuple[str, ...], str]  # a section title's words -> "credit" or "debit"
    continued: frozenset[str]  # words after a section title repeated on the next page
    markers: dict[str, str]  # "cr" -> "credit", "dr" -> "debit", …
    languages: tuple[str, ...]


def _norm(text: str) -> str:
    """A word as labels are matched: lower case, letters and digits only."""
    return re.sub(r"[\W_]+", "", text.casefold())


def _key(text: str) -> tuple[str, ...]:
    return tuple(word for word in map(_norm, text.split()) if word)


@cache
def _labels() -> _Labels:
    data = tomllib.loads(LABELS_FILE.read_text(encoding="utf-8"))
    columns = {_key(label): kind for kind, labels in data["columns"].items() for label in labels}
    lines = {name: tuple(map(_key, labels)) for name, labels in data["lines"].items()}
    markers = {_norm(word): kind for kind, words in data["markers"].items() for word in words}
    sections = {
        _key(title): kind for kind in ("credit", "debit") for title in data["sections"][kind]
    }
    continued = frozenset(map(_norm, data["sections"]["continued"]))
    languages = tuple(data["dates"]["languages"])
    balances: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for kind in ("opening", "closing"):
        for phrase in lines[kind]:
            balances.setdefault(phrase[0], []).append((phrase, kind))
    return _Labels(columns, balances, lines["totals"], sections, continued, markers, languages)


# --- amounts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Money:
    value: Decimal  # as printed, without its sign
    sign: int | None  # -1 or +1 when printed with a sign or a marker, None when bare
    marker: str | None = None  # "credit" or "debit" when a CR/DR-like word gave the sign


def _money(text: str) -> _Money | None:
    """An amount as statements print it: "1,234.56", "1.234,56", "1 234,56", "-12.50",
    "12.50-", "(12.50)", "12.50 CR", "£12.50", "12,50 EUR". Two decimals are required, so
    dates, references and counts are not taken for amounts."""
    markers = _labels().markers
    words = [w for w in text.split() if not (len(w) == 3 and w.isalpha() and w.isupper())]
    marker = markers.get(_norm(words[-1])) if len(words) > 1 else None
    if marker:
        words = words[:-1]
    cleaned = "".join(c for c in " ".join(words) if unicodedata.category(c) != "Sc")
    match = _AMOUNT.fullmatch(cleaned.replace("\u2212", "-").strip())
    if not match or bool(match["open"]) != bool(match["close"]) or match["sep"] == match["dec"]:
        return None
    if match["suffix"]:
        if marker or _norm(match["suffix"]) not in markers:
            return None
        marker = markers[_norm(match["suffix"])]
    whole = re.sub(r"\D", "", match["int"])
    value = Decimal(f"{whole}.{match['frac']}")
    if marker:
        return _Money(value, -1 if marker == "debit" else 1, marker)
    if match["open"] or "-" in (match["lead"], match["trail"]):
        return _Money(value, -1)
    return _Money(value, 1 if "+" in (match["lead"], match["trail"]) else None)


# --- dates -----------------------------------------------------------------------------------


@cache
def _date_parser(order: str) -> DateDataParser:
    settings = {
        "DATE_ORDER": order,
        "REQUIRE_PARTS": ["day", "month"],
        "PARSERS": ["absolute-time"],
        # A leap year, so "29 Feb" without a year parses; the year is settled later.
        "RELATIVE_BASE": datetime(2000, 6, 15),
    }
    return DateDataParser(languages=list(_labels().languages), settings=settings)


def _date_shape(text: str) -> bool:
    return any(p.fullmatch(text) for p in (_ISO_DATE, _NUMERIC_DATE, _WORD_DATE))


def iso_day(text: str) -> date | None:
    """``text`` when it is a valid year-month-day date of the years 1900 to 2100 (2024-03-05,
    2024-3-5), which dateparser reads the same in either order; None for any other text.
    Statements print thousands of these, and dateparser takes a millisecond or more for each."""
    if not _ISO_DATE.fullmatch(text):
        return None
    year, month, day = (int(n) for n in text.split("-"))
    if not 1900 <= year <= 2100:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def dateparser_date(text: str, order: str) -> datetime | None:
    """What dateparser reads in ``text`` for a table (day and month required)."""
    with _DATES_LOCK:
        return _date_parser(order).get_date_data(text).date_obj


@lru_cache(maxsize=4096)
def _parse_date(text: str, order: str) -> tuple[int | None, int, int] | None:
    """(year or None when not printed, month, day) of a printed date, reading numeric dates in
    ``order`` ("DMY" or "MDY")."""
    if not _date_shape(text):
        return None
    iso = iso_day(text)
    if iso is not None:
        return (iso.year, iso.month, iso.day)
    numeric = _NUMERIC_DATE.fullmatch(text)
    source = re.sub(r"[./-]", "/", text.rstrip(".")) if numeric else text
    parsed = dateparser_date(source, order)
    if parsed is None:
        return None
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    # dateparser falls back to the other order when a number cannot be a month; here it may not.
    in_order = [parsed.day, parsed.month] if order == "DMY" else [parsed.month, parsed.day]
    if numeric and numbers[:2] != in_order:
        return None
    has_year = len(numbers) >= 3 if numeric or _ISO_DATE.fullmatch(text) else len(numbers) >= 2
    return (parsed.year if has_year else None, parsed.month, parsed.day)


def _is_date(text: str) -> bool:
    return any(_parse_date(text, order) for order in ("DMY", "MDY"))


def _distance(day: date, period: tuple[date, date]) -> int:
    start, end = period
    return (start - day).days if day < start else max((day - end).days, 0)


def _dated(parsed: tuple[int | None, int, int], period: tuple[date, date]) -> date | None:
    """The date, with a year that is not printed taken from the statement period: the year that
    puts the day in the period or nearest to it (a December row of a January statement belongs
    to the year before)."""
    year, month, day = parsed
    years = [year] if year else range(period[0].year - 1, period[1].year + 2)
    options: list[tuple[int, date]] = []
    for candidate in years:
        try:
            day_in_year = date(candidate, month, day)
        except ValueError:
            continue
        options.append((_distance(day_in_year, period), day_in_year))
    return min(options)[1] if options else None


def _dates(
    texts: Sequence[str], period: tuple[date, date], currency: str | None
) -> list[date | None]:
    """Every row's date. Numeric dates are read day first or month first, whichever reads all
    of them and puts most inside the period (month first on a tie for US dollars)."""

    def score(order: str) -> tuple[int, int, bool]:
        parsed = [_parse_date(t, order) for t in texts]
        readable = sum(p is not None for p in parsed)
        days = [_dated(p, period) for p in parsed if p]
        inside = sum(1 for d in days if d and not _distance(d, period))
        return readable, inside, order == ("MDY" if currency == "USD" else "DMY")

    order = max(("DMY", "MDY"), key=score)
    return [(p := _parse_date(t, order)) and _dated(p, period) for t in texts]


def _printed_period(pages: Sequence[PageText]) -> tuple[date, date] | None:
    """The first and last full dates printed anywhere on the pages (a statement date, a due
    date, a row's own date): what a statement without a stated period dates its rows by."""
    days: list[date] = []
    for page in pages:
        for line in group_lines(page.words, page.ocr):
            texts = [w.text for w in line]
            for start in range(len(texts)):
                for size in (3, 1):
                    text = " ".join(texts[start : start + size])
                    parsed = _parse_date(text, "DMY") or _parse_date(text, "MDY")
                    if parsed and parsed[0] is not None:
                        days.append(date(parsed[0], parsed[1], parsed[2]))
                        break
    return (min(days), max(days)) if days else None


# --- layout ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Column:
    kind: str  # date, description, debit, credit, amount, balance, or other (unknown label)
    x0: float
    x1: float


def _height(word: Word) -> float:
    return word.box[3] - word.box[1]


def _tight(words: Sequence[Word]) -> bool:
    return all(
        b.box[0] - a.box[2] <= TIGHT_GAP * max(_height(a), _height(b))
        for a, b in itertools.pairwise(words)
    )


def _header(line: Sequence[Word]) -> list[_Column] | None:
    """The columns a header row names, left to right, or None when the line is not one: it
    needs a date label, a money label, three labels at least, and few words besides."""
    labels = _labels().columns
    longest = max(map(len, labels))
    words = [w for w in line if _norm(w.text)]
    keys = [_norm(w.text) for w in words]
    columns: list[_Column] = []
    unknown: list[Word] = []
    index = 0
    while index < len(words):
        for size in range(min(longest, len(words) - index), 0, -1):
            group = words[index : index + size]
            kind = labels.get(tuple(keys[index : index + size]))
            if kind and _tight(group):
                columns.append(_Column(kind, group[0].box[0], group[-1].box[2]))
                index += size
                break
        else:
            unknown.append(words[index])
            index += 1
    kinds = {c.kind for c in columns}
    if "date" not in kinds or not kinds & set(MONEY) or len(columns) < 3:
        return None
    # A summary box's "Opening balance | Money in | Money out | Closing balance" is no table.
    if len(unknown) > len(columns) or _stated_kind(line):
        return None
    # A word beside a label ("(£)", "in EUR") widens it; one standing alone is an unknown column.
    for word in sorted([*unknown, *(w for w in line if not _norm(w.text))], key=lambda w: w.box[0]):
        gap = TIGHT_GAP * _height(word)
        near = next(
            (
                i
                for i, c in enumerate(columns)
                if c.x0 - gap <= word.box[2] and word.box[0] <= c.x1 + gap
            ),
            None,
        )
        if near is None:
            columns.append(_Column("other", word.box[0], word.box[2]))
        else:
            column = columns[near]
            columns[near] = _Column(
                column.kind, min(column.x0, word.box[0]), max(column.x1, word.box[2])
            )
    return sorted(columns, key=lambda c: c.x0)


def money_columns(line: Sequence[Word]) -> list[tuple[str, float, float]]:
    """The debit and credit columns a header row names, each with its title's x-range; none
    when the line is no header row."""
    return [(c.kind, c.x0, c.x1) for c in _header(line) or [] if c.kind in ("debit", "credit")]


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return min(a1, b1) - max(a0, b0)


def _nearest(columns: Sequence[_Column], x0: float, x1: float, kinds: Sequence[str]) -> int:
    """The column of one of ``kinds`` a range lies under most, or the nearest one when it lies
    under none."""
    candidates = [i for i, c in enumerate(columns) if c.kind in kinds] or range(len(columns))
    return max(candidates, key=lambda i: _overlap(x0, x1, columns[i].x0, columns[i].x1))


Span = tuple[float, float, int]  # an x-range the rows' words cover, and its column's index


@dataclass(frozen=True)
class _Table:
    """The header's columns and where on the page the rows put them.

    Amounts and text make separate spans: a long description reaching under an empty money
    column on one row must not join that column's amounts on the others into one span.
    """

    columns: list[_Column]
    amounts: list[Span]
    texts: list[Span]

    @classmethod
    def of(cls, columns: list[_Column], rows: Sequence[Sequence[Word]]) -> _Table:
        words = [w for line in rows for w in line]
        kinds = [c.kind for c in columns]
        return cls(
            columns,
            _spans(columns, [w for w in words if _money(w.text)], MONEY),
            _spans(columns, [w for w in words if not _money(w.text)], kinds),
        )

    def column_of(self, word: Word) -> int:
        x0, x1 = word.box[0], word.box[2]
        own, other = (self.amounts, self.texts) if _money(word.text) else (self.texts, self.amounts)
        for spans in (own, other):
            span = max(spans, key=lambda s: _overlap(x0, x1, s[0], s[1]), default=None)
            if span and _overlap(x0, x1, span[0], span[1]) > 0:
                return span[2]
        return _nearest(self.columns, x0, x1, [c.kind for c in self.columns])


def _spans(columns: Sequence[_Column], words: Sequence[Word], kinds: Sequence[str]) -> list[Span]:
    """The x-ranges the words cover, merged where they touch, each under one of ``kinds``."""
    merged: list[list[float]] = []
    for word in sorted(words, key=lambda w: w.box[0]):
        if merged and word.box[0] <= merged[-1][1] + TIGHT_GAP * _height(word):
            merged[-1][1] = max(merged[-1][1], word.box[2])
        else:
            merged.append([word.box[0], word.box[2]])
    return [(x0, x1, _nearest(columns, x0, x1, kinds)) for x0, x1 in merged]


def _leading_date(columns: Sequence[_Column], line: Sequence[Word]) -> list[Word]:
    """The words of the line's first date cell when they form a date, else none."""
    first = next(i for i, c in enumerate(columns) if c.kind == "date")
    left = columns[first - 1].x1 if first else -math.inf
    right = columns[first + 1].x0 if first + 1 < len(columns) else math.inf
    inside = [w for w in line if left <= w.box[0] < right][:3]
    for size in range(len(inside), 0, -1):
        if _is_date(" ".join(w.text for w in inside[:size])):
            return inside[:size]
    return []


@dataclass
class _Cells:
    """One line read against the table's columns."""

    date: list[Word]
    text: list[Word]  # description and unknown columns, and anything unreadable, left to right
    category: list[Word]
    money: dict[str, _Money]  # by column kind, left to right
    money_words: list[Word]
    stray: bool  # words under a date or money column that are neither

    @property
    def has_amount(self) -> bool:
        return any(kind in self.money for kind in TRANSACTION_MONEY)


def _cells(line: Sequence[Word], table: _Table) -> _Cells:
    dated = _leading_date(table.columns, line)
    skip = {id(w) for w in dated}
    by_column: dict[int, list[Word]] = {}
    for word in line:
        if id(word) not in skip:
            by_column.setdefault(table.column_of(word), []).append(word)
    cells = _Cells(dated, [], [], {}, [], False)
    for index, words in sorted(by_column.items()):
        kind = table.columns[index].kind
        printed = " ".join(w.text for w in words)
        if kind in MONEY:
            money = _money(printed)
            if money and kind not in cells.money:
                cells.money[kind] = money
                cells.money_words += words
                continue
            cells.stray = True
        elif kind == "date":
            if _is_date(printed):  # a value date
                continue
            cells.stray = True
        elif kind == "category":
            cells.category += words
            continue
        cells.text += words
    cells.text.sort(key=lambda w: w.box[0])
    return cells


# --- reading ---------------------------------------------------------------------------------


@dataclass
class _Row:
    page: int
    date_text: str
    section: str | None = None  # "credit" or "debit" when its table section signs bare amounts
    same_day: bool = False  # printed without a date, under a row or balance of the same day
    parts: list[_Cells] = field(default_factory=list)  # its lines, top to bottom
    amount: Decimal | None = None  # signed, once the whole table has been read

    def add(self, cells: _Cells) -> None:
        """Takes in a line of the row: the first, or one continuing it."""
        self.parts.append(cells)

    @property
    def words(self) -> list[Word]:
        return [w for c in self.parts for w in (*c.date, *c.text, *c.category, *c.money_words)]

    @property
    def money(self) -> dict[str, _Money]:
        money: dict[str, _Money] = {}
        for cells in self.parts:
            money.update(cells.money)
        return money

    @property
    def amount_line(self) -> int | None:
        """The index of the line that prints the row's amount."""
        return next((i for i, cells in enumerate(self.parts) if cells.has_amount), None)

    def trailing(self) -> int:
        """How many lines without money end the row after the line with its amount."""
        line = self.amount_line
        if line is None:
            return 0
        after = self.parts[line + 1 :]
        return next((i for i, c in enumerate(reversed(after)) if c.money), len(after))

    @property
    def has_amount(self) -> bool:
        return self.amount_line is not None

    @property
    def balance(self) -> Decimal | None:
        money = self.money.get("balance")
        return None if money is None else (money.sign or 1) * money.value

    @property
    def description(self) -> str:
        return " ".join(text for c in self.parts if (text := " ".join(w.text for w in c.text)))

    @property
    def category(self) -> str | None:
        texts = (" ".join(w.text for w in c.category) for c in self.parts)
        return " ".join(text for text in texts if text) or None


@dataclass(frozen=True)
class _Stated:
    """A line stating a balance ("Balance brought forward", "Neuer Kontostand")."""

    kind: str  # opening | closing
    value: Decimal
    page: int
    in_table: bool  # a running balance to check against, not a summary box's figure


def _phrase_at(keys: Sequence[str], position: int) -> tuple[int, str] | None:
    """(length, "opening" or "closing") of a balance phrase starting at ``position``."""
    for phrase, kind in _labels().balances.get(keys[position], ()):
        if tuple(keys[position : position + len(phrase)]) == phrase:
            return len(phrase), kind
    return None


def _stated_in(words: Sequence[Word], page: int) -> list[_Stated]:
    """Balances a line states in running text ("Opening balance 1,000.00 Closing balance …")."""
    keys = [_norm(w.text) for w in words]
    found: list[tuple[int, int, str]] = []
    position = 0
    while position < len(keys):
        hit = _phrase_at(keys, position)
        if hit:
            found.append((position, *hit))
        position += hit[0] if hit else 1
    stated: list[_Stated] = []
    for index, (start, size, kind) in enumerate(found):
        end = found[index + 1][0] if index + 1 < len(found) else len(words)
        value = _first_amount(words[start + size : end])
        if value is not None:
            stated.append(_Stated(kind, value, page, in_table=False))
    return stated


def _first_amount(words: Sequence[Word]) -> Decimal | None:
    for start in range(len(words)):
        for size in (3, 2, 1):
            if start + size <= len(words) and _tight(words[start : start + size]):
                money = _money(" ".join(w.text for w in words[start : start + size]))
                if money:
                    return (money.sign or 1) * money.value
    return None


def _stated_kind(words: Sequence[Word]) -> str | None:
    keys = [_norm(w.text) for w in words]
    return next((hit[1] for i in range(len(keys)) if (hit := _phrase_at(keys, i))), None)


def _stated_value(cells: _Cells, line: Sequence[Word]) -> Decimal | None:
    """A stated balance: its balance cell, else its rightmost amount, else any amount in it."""
    if "balance" in cells.money:
        money = cells.money["balance"]
        return (money.sign or 1) * money.value
    if cells.money:
        kind, money = list(cells.money.items())[-1]
        return (money.sign or (-1 if kind == "debit" else 1)) * money.value
    return _first_amount(line)


def _is_total(words: Sequence[Word]) -> bool:
    keys = [_norm(w.text) for w in words]
    return any(tuple(keys[: len(p)]) == p for p in _labels().totals)


@dataclass
class _Reader:
    """Walks the pages' lines, keeping the last header's columns (and the section a title above
    it names) across pages."""

    columns: list[_Column] | None = None
    section: str | None = None
    headers: int = 0  # header rows seen, lists in several columns included
    entries: list[_Row | _Stated] = field(default_factory=list)

    def read(self, page: PageText) -> None:
        segment: list[list[Word]] = []
        headed = False
        for line in group_lines(page.words, page.ocr):
            columns = _header(line)
            if columns is None:
                segment.append(line)
                continue
            self._segment(page.number, segment, headed)
            self.section = _section(segment[-1]) if segment else None
            # Side-by-side lists ("Date Amount Date Amount": daily balances) hold no rows.
            self.columns = None if _side_by_side(columns) else columns
            self.headers += 1
            segment, headed = [], True
        self._segment(page.number, segment, headed)

    def _segment(self, page: int, lines: list[list[Word]], headed: bool) -> None:
        """The lines under one header, or a page's lines before its first header. Without a
        header of its own, a row must print an amount on its dated line to start the table.

        A line without a date continues the row above it, unless it prints an amount of its own
        where that row already has one: then it is the next row of the same day. The day of a
        dated balance line ("12 Feb BALANCE BROUGHT FORWARD") dates such rows below it too."""
        if self.columns is None:
            for line in lines:
                self.entries += _stated_in(line, page)
            return
        table = _Table.of(self.columns, [ln for ln in lines if _leading_date(self.columns, ln)])
        row: _Row | None = None
        day: str | None = None  # the date printed last, for rows printed without one
        open_table = headed
        last_bottom = -math.inf
        for line in lines:
            cells = _cells(line, table)
            top, bottom = min(w.box[1] for w in line), max(w.box[3] for w in line)
            near = top - last_bottom <= CONTINUATION_GAP * max(map(_height, line))
            stated = _stated_kind(cells.text)
            printed = " ".join(w.text for w in cells.date) or None
            if stated:
                value = _stated_value(cells, line)
                if value is not None:
                    self.entries.append(_Stated(stated, value, page, in_table=True))
                row, day = None, printed or day
            elif not cells.date and (title := _section(line)):
                self.section, row, day = title, None, None
            elif not cells.date and _is_total(cells.text):
                row, day = None, None
            elif printed and (open_table or cells.has_amount):
                row, day = self._row(page, printed, cells), printed
                open_table = True
            elif day and cells.has_amount and near and (row is None or row.has_amount):
                row = self._row(page, day, cells, same_day=True)
            elif row and cells.money and near:
                if cells.money.keys() & row.money.keys():
                    if not cells.has_amount:
                        continue
                    row = self._row(page, row.date_text, cells)
                else:
                    row.add(cells)
            elif row and not cells.money and not cells.stray and near:
                row.add(cells)
            else:
                if row:
                    row, day, open_table = None, None, False
                continue
            last_bottom = bottom

    def _row(self, page: int, date_text: str, cells: _Cells, same_day: bool = False) -> _Row:
        row = _Row(page, date_text, self.section, same_day)
        row.add(cells)
        self.entries.append(row)
        return row


def _side_by_side(columns: Sequence[_Column]) -> bool:
    """Whether a header repeats one group of columns across the page ("Date Amount Date
    Amount"), as lists printed in several columns do."""
    kinds = [c.kind for c in columns if c.kind != "other"]
    return any(
        len(kinds) % size == 0 and kinds == kinds[:size] * (len(kinds) // size)
        for size in range(2, len(kinds) // 2 + 1)
    )


def _section(line: Sequence[Word]) -> str | None:
    """The way bare amounts go ("credit" or "debit") in the table section the line is the title
    of ("DEPOSITS AND ADDITIONS", "Fees (continued)"); None when it is no section title."""
    keys = tuple(k for k in (_norm(w.text) for w in line) if k)
    while keys and keys[-1] in _labels().continued:
        keys = keys[:-1]
    return _labels().sections.get(keys)


def _regroup(entries: Sequence[_Row | _Stated]) -> None:
    """Gives the lines printed between two rows of the same day to the right one.

    A row printed without a date may have its description above its amount, like the dated
    rows of a table that prints each amount on a row's last line ("CR J SMITH" over "RENT
    450.00"); lines between a row's amount and such a row then start the next row. Tables
    that print amounts on a row's first line keep them with the row above.
    """
    last = above = 0
    for entry, after in itertools.pairwise([*entries, None]):
        if not isinstance(entry, _Row) or entry.amount_line is None:
            continue
        last += entry.amount_line > 0
        above += entry.amount_line == 0 and entry.trailing() > 0 and not _same_day(after)
    if last <= above:
        return
    for before, entry in itertools.pairwise(entries):
        if isinstance(before, _Row) and _same_day(entry) and (count := before.trailing()):
            entry.parts[:0] = before.parts[-count:]
            del before.parts[-count:]


def _same_day(entry: _Row | _Stated | None) -> TypeGuard[_Row]:
    return isinstance(entry, _Row) and entry.same_day


# --- signs and reconciliation ----------------------------------------------------------------


def read_transactions(
    pages: list[PageText],
    period: tuple[date, date] | None,
    currency: str | None,
    opening: Decimal | None,
    closing: Decimal | None,
) -> TableResult:
    """The transactions of a statement's tables, and whether they reconcile.

    ``opening`` and ``closing`` are the statement's balances when the caller knows them; else the
    tables' own "brought forward" and "carried forward" lines give them. Rows reconcile when the
    opening balance plus their amounts is the closing balance and every printed running balance
    is the one before it plus the amounts since (see ``_reconcile``). A statement without a
    period dates rows printed without a year by the full dates it prints elsewhere.
    """
    reader = _Reader()
    for page in pages:
        reader.read(page)
    if not reader.headers:
        reason = "no transaction table: no header row names a date column and an amount column"
        return TableResult([], False, reason)
    stated = [e for e in reader.entries if isinstance(e, _Stated)]
    entries = [
        e for e in reader.entries if (e.in_table if isinstance(e, _Stated) else e.has_amount)
    ]
    rows = [e for e in entries if isinstance(e, _Row)]
    _regroup(entries)
    if opening is None:
        opening = next((s.value for s in stated if s.kind == "opening"), None)
    if closing is None:
        closing = next((s.value for s in reversed(stated) if s.kind == "closing"), None)
    policy = _amount_policy(rows)
    _sign(entries, policy, opening)
    today = date.today()
    period = period or _printed_period(pages) or (today - timedelta(days=365), today)
    days = _dates([r.date_text for r in rows], period, currency)
    parsed = [
        ParsedRow(
            location=f"page {row.page}",
            date=day,
            # A row no sign was found for keeps its bare amount; the result says why.
            amount=row.money["amount"].value if row.amount is None else row.amount,
            description=row.description,
            currency=currency,
            category=row.category,
            balance=row.balance,
            page=row.page,
            box=_union([w.box for w in row.words]),
        )
        for row, day in zip(rows, days, strict=True)
        if day is not None
    ]
    unread = next((r for r, d in zip(rows, days, strict=True) if d is None), None)
    if unread:
        return TableResult(parsed, False, f"the date of {_name(unread)} cannot be read")
    unsigned = next((r for r in rows if r.amount is None), None)
    if unsigned:
        reason = (
            f"cannot tell whether {_name(unsigned)} is money in or out: the amount column prints "
            "no signs or CR/DR markers, and no running balance decides it"
        )
        return TableResult(parsed, False, reason)
    reason = _reconcile(entries, opening, closing, owed=policy == "debit")
    return TableResult(parsed, reason is None, reason)


def _union(boxes: Sequence[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _name(row: _Row) -> str:
    description = row.description if len(row.description) <= 40 else row.description[:39] + "…"
    return f'the row "{row.date_text} {description}" on page {row.page}'


def _amount_policy(rows: Sequence[_Row]) -> str:
    """How a bare amount in an amount column is signed, judged on the whole table: "debit"
    when others carry CR markers (a card statement: bare amounts are charges), "credit" when
    others carry DR markers or minus signs, "balance" when only the running balance can tell."""
    cells = [row.money["amount"] for row in rows if "amount" in row.money]
    if any(m.marker == "credit" for m in cells):
        return "debit"
    if any(m.sign for m in cells):
        return "credit"
    return "balance"


def _signed(row: _Row, policy: str) -> Decimal | None:
    """The row's amount signed by its columns, its sign or marker, its table section, or the
    table's policy."""
    money = row.money
    if "debit" in money or "credit" in money:
        paid_in = money["credit"].value if "credit" in money else Decimal(0)
        return paid_in - (money["debit"].value if "debit" in money else Decimal(0))
    cell = money["amount"]
    if cell.sign:
        return cell.sign * cell.value
    return {"debit": -cell.value, "credit": cell.value}.get(row.section or policy)


def _sign(entries: Sequence[_Row | _Stated], policy: str, opening: Decimal | None) -> None:
    """Sets each row's signed amount; a bare amount the policy cannot sign takes the direction
    in which the printed balance moved, when it moved by exactly that amount."""
    previous = opening
    for entry in entries:
        if isinstance(entry, _Stated):
            previous = entry.value
            continue
        entry.amount = _signed(entry, policy)
        balance = entry.balance
        moved = None if balance is None or previous is None else balance - previous
        if entry.amount is None and moved is not None and abs(moved) == entry.money["amount"].value:
            entry.amount = moved
        if balance is not None:
            previous = balance
        elif previous is not None and entry.amount is not None:
            previous += entry.amount
        else:
            previous = None


def _reconcile(
    entries: Sequence[_Row | _Stated],
    opening: Decimal | None,
    closing: Decimal | None,
    owed: bool,
) -> str | None:
    """None when the rows reconcile, else why not. Where running balances are printed (on rows,
    or as carried and brought forward lines), each must be the one before it plus the amounts
    since, from the opening balance on; and where the opening and closing balances are known,
    the opening balance plus all the amounts must be the closing one. Printed balances that
    agree with each other but not with the caller's opening balance pass when the sum does.
    ``owed``: balances may be stated as the amount owed (a card statement), which charges
    raise."""
    reasons: list[str] = []
    printed = any(isinstance(e, _Row) and e.balance is not None for e in entries)
    total = sum((e.amount or 0 for e in entries if isinstance(e, _Row)), Decimal(0))
    adds_up = False
    if opening is not None and closing is not None:
        adds_up = opening + total == closing or (owed and opening - total == closing)
        if not adds_up:
            reasons.append(
                f"the opening balance {opening} plus the rows' total {total} is "
                f"{opening + total}, not the closing balance {closing}"
            )
    elif not printed:
        reasons.append("no opening and closing balance and no running balance to check them")
    running = _running(entries, opening, closing) if printed else None
    if running and not (adds_up and _consistent(entries)):
        reasons.insert(0, running)
    return "; ".join(reasons) or None


def _consistent(entries: Sequence[_Row | _Stated]) -> bool:
    """Whether every printed balance after the first is the one before it plus the amounts
    since."""
    previous, pending = None, Decimal(0)
    for entry in entries:
        if isinstance(entry, _Row):
            pending += entry.amount or 0
        printed = entry.value if isinstance(entry, _Stated) else entry.balance
        if printed is None:
            continue
        if previous is not None and previous + pending != printed:
            return False
        previous, pending = printed, Decimal(0)
    return True


def _running(
    entries: Sequence[_Row | _Stated],
    opening: Decimal | None,
    closing: Decimal | None,
) -> str | None:
    """None when every printed balance (and stated carried/brought forward balance) is the one
    before it plus the amounts since, from the opening balance to the closing one."""
    previous, pending = opening, Decimal(0)
    for entry in entries:
        if isinstance(entry, _Row):
            pending += entry.amount or 0
        printed = entry.value if isinstance(entry, _Stated) else entry.balance
        if printed is None:
            continue
        if previous is None:
            return "no opening balance to check the first row against"
        if previous + pending != printed:
            expected = previous + pending
            if isinstance(entry, _Stated):
                where = f"the {entry.kind} balance printed on page {entry.page} is {printed}"
            else:
                where = f"{_name(entry)} prints balance {printed}"
            return f"{where}, but the rows before it give {expected}"
        previous, pending = printed, Decimal(0)
    if pending and (closing is None or previous is None or previous + pending != closing):
        return "the rows after the last printed balance do not reach the closing balance"
    return None
