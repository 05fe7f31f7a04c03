"""Transaction tables of statement pages: columns named by a header row, a row per dated line
(and per line of the same day that prints an amount of its own), amounts signed by the evidence
the statement gives, and a check that the rows add up to the balances it prints.

Every readable row is kept, whether or not the rows reconcile; the result says how they
reconcile (``Reconciliation``) and names the rows it could not read. A sign the row does not
print is decided from the evidence in order: its column, marker or table section, the way the
column signs its other rows, the step of a printed running balance, the statement's own totals
(the one assignment of signs that meets them), and for a card or loan statement its wording
("PAYMENT - THANK YOU" pays the balance off) or else that it is a charge.

The header row (labels in ``table_labels.toml``) names the columns. Where each column lies comes
from the rows themselves: the x-ranges covered by the words of the dated lines, merged where they
touch, each given to the header label it lies under or nearest to. That places a right-aligned
amount under a left-aligned header and a description running past its header, which header
ranges alone would not.
"""

from __future__ import annotations

import calendar
import itertools
import math
import re
import threading
import tomllib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import MAXYEAR, MINYEAR, date, datetime, timedelta
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path
from typing import TypeGuard

from dateparser.date import DateDataParser

from elastic.ingest.parsed import Box, ParsedRow
from elastic.ingest.pdf.page_reader import group_lines
from elastic.ingest.pdf.page_words import PageText, Word
from elastic.model.records import OFF, RECONCILED, UNCHECKED, Reconciliation, SectionCheck

LABELS_FILE = Path(__file__).with_name("table_labels.toml")
MONEY = ("debit", "credit", "amount", "balance")
TRANSACTION_MONEY = ("debit", "credit", "amount")
DATES = ("date", "posted")  # a row is dated by its "date" column, else by its "posted" one
# A header printed over two lines ("Post" over "Date"): words of the line above or below
# within this many line heights join the labels they stand over or under.
STACKED_GAP = 0.9
# Unsure signs decided by the statement's totals: the assignment must be the only one, among
# at most this many rows and this many partial sums.
MAX_UNSURE_ROWS = 60
MAX_PARTIAL_SUMS = 200_000
# Words closer than this share of their height form one header label or one column span (a
# word's box is its glyphs', so a space is about half its height in small print).
TIGHT_GAP = 0.8
MARGIN_GAP = 3.0  # words further than this many heights beside a table's columns are not its
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


def _amount_pattern(whole: str, decimals: str) -> re.Pattern[str]:
    return re.compile(
        rf"""(?P<open>\()?\s*(?P<lead>[-+])?\s*(?P<int>{whole}){decimals}
        \s*(?P<trail>[-+])?\s*(?P<close>\))?\s*(?P<suffix>[^\W\d_]+\.?)?""",
        re.X,
    )


_SEP = r"(?P<sep>[.,'\u00a0\u202f ])"
_GROUPS_OF_THREE = rf"\d{{1,3}}(?:{_SEP}\d{{3}})?(?:(?P=sep)\d{{3}})*|\d+"
_CENTS = r"(?P<dec>[.,])(?P<frac>\d{2})"
_AMOUNT = _amount_pattern(_GROUPS_OF_THREE, _CENTS)
# What a cell of a money column may print besides: whole units ("445", "-171") and one decimal
# ("10311.2"), then digit groups of two as well, with two decimals ("1,00,000.00", "2,42.48").
_CELL_AMOUNTS = (
    _amount_pattern(_GROUPS_OF_THREE, r"(?:(?P<dec>[.,])(?P<frac>\d{1,2}))?"),
    _amount_pattern(rf"\d{{1,3}}(?:{_SEP}\d{{2,3}})(?:(?P=sep)\d{{2,3}})*", _CENTS),
)


@dataclass(frozen=True)
class Unread:
    """A printed row that could not be read whole: where it is, as printed, and why."""

    page: int
    text: str
    reason: str


@dataclass
class TableResult:
    """Every row read, in statement order, and how they reconcile with the balances printed;
    ``unread`` are dated rows that could not be read whole, ``notes`` what the reader decided
    that the statement does not print (a sign, a date kept at the nearest real day)."""

    rows: list[ParsedRow]
    reconciliation: Reconciliation
    unread: list[Unread] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def reconciled(self) -> bool:
        return self.reconciliation.status == RECONCILED

    @property
    def reason(self) -> str | None:
        return self.reconciliation.reason


@dataclass(frozen=True)
class _Labels:
    columns: dict[tuple[str, ...], str]  # a header label's words -> column kind
    balances: dict[str, list[tuple[tuple[str, ...], str]]]  # first word -> (phrase, kind)
    totals: tuple[tuple[str, ...], ...]
    sections: dict[tuple[str, ...], str]  # a section title's words -> "credit" or "debit"
    continued: frozenset[str]  # words after a section title repeated on the next page
    markers: dict[str, str]  # "cr" -> "credit", "dr" -> "debit", …
    languages: tuple[str, ...]
    payments: tuple[tuple[str, ...], ...]  # words of a row that pays a card or loan off


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
    payments = tuple(map(_key, data["owed"]["payments"]))
    balances: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for kind in ("opening", "closing"):
        for phrase in lines[kind]:
            balances.setdefault(phrase[0], []).append((phrase, kind))
    return _Labels(
        columns, balances, lines["totals"], sections, continued, markers, languages, payments
    )


# --- amounts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Money:
    value: Decimal  # as printed, without its sign
    sign: int | None  # -1 or +1 when printed with a sign or a marker, None when bare
    marker: str | None = None  # "credit" or "debit" when a CR/DR-like word gave the sign


def _money(text: str, in_cell: bool = False) -> _Money | None:
    """An amount as statements print it: "1,234.56", "1.234,56", "1 234,56", "-12.50",
    "12.50-", "(12.50)", "12.50 CR", "£12.50", "12,50 EUR". Two decimals are required, so
    dates, references and counts are not taken for amounts, unless the text is ``in_cell`` of a
    money column, whose position already says it is an amount ("445", "10311.2")."""
    markers = _labels().markers
    words = [w for w in text.split() if not (len(w) == 3 and w.isalpha() and w.isupper())]
    marker = markers.get(_norm(words[-1])) if len(words) > 1 else None
    if marker:
        words = words[:-1]
    cleaned = "".join(c for c in " ".join(words) if unicodedata.category(c) != "Sc")
    cleaned = cleaned.replace("\u2212", "-").strip()
    patterns = (_AMOUNT, *_CELL_AMOUNTS) if in_cell else (_AMOUNT,)
    match = next((m for pattern in patterns if (m := pattern.fullmatch(cleaned))), None)
    if not match or bool(match["open"]) != bool(match["close"]):
        return None
    if match["dec"] and match["sep"] == match["dec"]:
        return None
    if match["suffix"]:
        if marker or _norm(match["suffix"]) not in markers:
            return None
        marker = markers[_norm(match["suffix"])]
    whole = re.sub(r"\D", "", match["int"])
    value = Decimal(f"{whole}.{(match['frac'] or '').ljust(2, '0')}")
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
    ``order`` ("DMY" or "MDY"). A day the month lacks ("29 Feb 2023", "31/04/2024") is read
    as printed; ``_dated`` keeps it at the month's last day."""
    if not _date_shape(text):
        return None
    parsed = _read_day(text, order)
    if parsed is not None:
        return parsed
    for match in re.finditer(r"(?<!\d)(?:29|30|31)(?!\d)", text):
        possible = _read_day(text[: match.start()] + "28" + text[match.end() :], order)
        if possible is not None and possible[2] == 28:
            return (possible[0], possible[1], int(match[0]))
    return None


def _read_day(text: str, order: str) -> tuple[int | None, int, int] | None:
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


def _real_day(year: int, month: int, day: int) -> tuple[date, bool]:
    """The day, or the month's last day when the month has no such day (a bank printed 29
    February in a year without one), and whether it was moved."""
    last = calendar.monthrange(year, month)[1]
    return date(year, month, min(day, last)), day > last


def _dated(
    parsed: tuple[int | None, int, int], period: tuple[date, date]
) -> tuple[date, bool] | None:
    """The date, with a year that is not printed taken from the statement period: the year that
    puts the day in the period or nearest to it (a December row of a January statement belongs
    to the year before). A day the month lacks is kept at the month's last day (the flag says
    so); of two years as near, one in which the day exists is preferred."""
    year, month, day = parsed
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    years = [year] if year else range(period[0].year - 1, period[1].year + 2)
    options: list[tuple[bool, int, date]] = []
    for candidate in years:
        if not MINYEAR <= candidate <= MAXYEAR:
            continue
        real, moved = _real_day(candidate, month, day)
        options.append((moved, _distance(real, period), real))
    if not options:
        return None
    _, moved, chosen = min((distance, moved, day) for moved, distance, day in options)
    return chosen, moved


def _dates(
    texts: Sequence[str], period: tuple[date, date], currency: str | None
) -> list[tuple[date, bool] | None]:
    """Every row's date (and whether the month lacked the printed day). Numeric dates are read
    day first or month first, whichever reads all of them and puts most inside the period
    (month first on a tie for US dollars)."""

    def score(order: str) -> tuple[int, int, bool]:
        parsed = [_parse_date(t, order) for t in texts]
        readable = sum(p is not None for p in parsed)
        days = [_dated(p, period) for p in parsed if p]
        inside = sum(1 for d in days if d and not _distance(d[0], period))
        return readable, inside, order == ("MDY" if currency == "USD" else "DMY")

    order = max(("DMY", "MDY"), key=score)
    return [(p := _parse_date(t, order)) and _dated(p, period) for t in texts]


def printed_period(pages: Sequence[PageText]) -> tuple[date, date] | None:
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
                    if parsed and parsed[0] is not None and MINYEAR <= parsed[0] <= MAXYEAR:
                        days.append(_real_day(*parsed)[0])
                        break
    return (min(days), max(days)) if days else None


# --- layout ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Column:
    # date, posted, description, debit, credit, amount, balance, category, detail, or other
    # (an unknown label)
    kind: str
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
    return _header_read(line)[0]


def _header_read(line: Sequence[Word]) -> tuple[list[_Column] | None, int, int]:
    """``_header``, with how many labels the line holds and how many words are no label."""
    labels = _labels().columns
    longest = max(map(len, labels))
    words = [w for w in line if _norm(w.text)]
    keys = [_norm(w.text) for w in words]
    position = {id(w): i for i, w in enumerate(line)}
    columns: list[_Column] = []
    unknown: list[Word] = []
    index = 0
    while index < len(words):
        for size in range(min(longest, len(words) - index), 0, -1):
            group = words[index : index + size]
            kind = labels.get(tuple(keys[index : index + size]))
            # Tight with the punctuation between them: "Withdrawals / Deposits" is one label.
            printed = line[position[id(group[0])] : position[id(group[-1])] + 1]
            if kind and _tight(printed):
                columns.append(_Column(kind, group[0].box[0], group[-1].box[2]))
                index += size
                break
        else:
            unknown.append(words[index])
            index += 1
    kinds = {c.kind for c in columns}
    counts = len(columns), len(unknown)
    if not kinds & set(DATES) or not kinds & set(MONEY) or len(columns) < 3:
        return None, *counts
    # A summary box's "Opening balance | Money in | Money out | Closing balance" is no table.
    if len(unknown) > len(columns) or _stated_kind(line):
        return None, *counts
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
    columns.sort(key=lambda c: c.x0)
    kinds = [c.kind for c in columns]
    if {"debit", "credit", "amount"} <= set(kinds) and "balance" not in kinds:
        # Beside money in and out columns, an "Amount" column can only be the running balance.
        at = kinds.index("amount")
        columns[at] = _Column("balance", columns[at].x0, columns[at].x1)
    return columns, *counts


def _header_of(lines: Sequence[Sequence[Word]], index: int) -> tuple[list[_Column] | None, bool]:
    """The columns the line at ``index`` names, read with the lines just above and below it
    when that names more labels and leaves no more words unexplained (a header printed over two
    lines), else alone; and whether the line below is part of it."""
    plain, labelled, unknown = _header_read(lines[index])
    stacked = _stacked(lines, index)
    if stacked is None:
        return plain, False
    columns, more, other = _header_read(stacked[0])
    better = other < unknown or (other == unknown and more > labelled)
    if columns is not None and (plain is None or better):
        return columns, stacked[1]
    return plain, False


def _stacked(lines: Sequence[Sequence[Word]], index: int) -> tuple[list[Word], bool] | None:
    """The line with the words of the lines just above and below it that belong to its labels:
    a header printed over two lines ("Post" over "Date", "Transaction" over "Date"), or with a
    label a little below the others. Words over or under a word of the line go before or after
    it; a word beside them all goes where it stands. None when no neighbouring line is close
    enough to be part of it (a title, a row of the table and text of another size are not),
    or when the line itself prints an amount or a date. The flag says whether the line below
    took part."""
    line = lines[index]
    if any(_money(w.text) or _is_date(w.text) for w in line):
        return None
    height = max(map(_height, line))
    top, bottom = min(w.box[1] for w in line), max(w.box[3] for w in line)

    def part(neighbour: Sequence[Word], gap: float) -> list[Word]:
        if gap > STACKED_GAP * height:
            return []
        if any(_money(w.text) or _is_date(w.text) for w in neighbour):
            return []
        return [w for w in neighbour if 0.7 * height <= _height(w) <= height / 0.7]

    above = part(lines[index - 1], top - max(w.box[3] for w in lines[index - 1])) if index else []
    below = (
        part(lines[index + 1], min(w.box[1] for w in lines[index + 1]) - bottom)
        if index + 1 < len(lines)
        else []
    )
    if not above and not below:
        return None

    def over(word: Word, other: Word) -> bool:
        return _overlap(word.box[0], word.box[2], other.box[0], other.box[2]) > 0

    # A word over several labels titles a group of columns ("Amount" over "Credits Debits").
    above = [w for w in above if sum(over(w, word) for word in line) < 2]
    below = [w for w in below if sum(over(w, word) for word in line) < 2]
    stacked: list[Word] = []
    for word in line:
        stacked += [w for w in above if over(w, word)]
        stacked.append(word)
        stacked += [w for w in below if over(w, word)]
    beside = [
        w
        for w in (*above, *below)
        if not any(over(w, word) for word in line) and w.box[1] < bottom and w.box[3] > top
    ]
    for word in beside:
        at = next((i for i, w in enumerate(stacked) if w.box[0] > word.box[0]), len(stacked))
        stacked.insert(at, word)
    return stacked, bool(below)


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


def _in_table(columns: Sequence[_Column], word: Word) -> bool:
    """Whether a word is printed within the table's width, not in a margin beside it (a note
    or a callout set on the rows' lines): at most ``MARGIN_GAP`` heights left of its first
    column, twice that right of its last (amounts reach right of a title set to their left)."""
    gap = MARGIN_GAP * _height(word)
    left = min(c.x0 for c in columns)
    right = max(c.x1 for c in columns)
    return word.box[2] >= left - gap and word.box[0] <= right + 2 * gap


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
        words = [w for line in rows for w in line if _in_table(columns, w)]
        kinds = [c.kind for c in columns]
        return cls(
            columns,
            _spans(columns, [w for w in words if _money(w.text)], (*MONEY, "detail")),
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


def _dating(columns: Sequence[_Column]) -> int:
    """The column that dates a row: the first ``date`` one, else the first ``posted`` one."""
    kinds = [c.kind for c in columns]
    return kinds.index("date") if "date" in kinds else kinds.index("posted")


def _leading_date(columns: Sequence[_Column], line: Sequence[Word]) -> list[Word]:
    """The words of the line's dating cell when they form a date, else none."""
    first = _dating(columns)
    left = columns[first - 1].x1 if first else -math.inf
    right = columns[first + 1].x0 if first + 1 < len(columns) else math.inf
    inside = [w for w in line if left <= w.box[0] < right and _in_table(columns, w)][:3]
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
    unreadable: str | None = None  # what a transaction money column prints that is no amount

    @property
    def has_amount(self) -> bool:
        return any(kind in self.money for kind in TRANSACTION_MONEY)


def _cells(line: Sequence[Word], table: _Table) -> _Cells:
    dated = _leading_date(table.columns, line)
    skip = {id(w) for w in dated}
    by_column: dict[int, list[Word]] = {}
    for word in line:
        if id(word) not in skip and _in_table(table.columns, word):
            by_column.setdefault(table.column_of(word), []).append(word)
    cells = _Cells(dated, [], [], {}, [], False)
    for index, words in sorted(by_column.items()):
        kind = table.columns[index].kind
        printed = " ".join(w.text for w in words)
        if kind in MONEY:
            money = _money(printed, in_cell=True)
            if money and kind not in cells.money:
                cells.money[kind] = money
                cells.money_words += words
                continue
            cells.stray = True
            if kind in TRANSACTION_MONEY and any(ch.isdigit() for ch in printed):
                cells.unreadable = printed
        elif kind in DATES:
            if _is_date(printed):  # a value date
                continue
            cells.stray = True
        elif kind == "category":
            cells.category += words
            continue
        elif kind == "detail":
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
    def unreadable(self) -> str | None:
        """What the row prints under a money column that is no amount ("2.4x.00")."""
        return next((c.unreadable for c in self.parts if c.unreadable), None)

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


def _stated_kind(words: Sequence[Word], anywhere: bool = True) -> str | None:
    """ "opening" or "closing" when the words name a balance; a row's description must start
    with it (unless ``anywhere``): "Interest Brought Forward" is a charge, not a balance."""
    keys = [_norm(w.text) for w in words]
    starts = range(len(keys)) if anywhere else range(min(len(keys), 1))
    return next((hit[1] for i in starts if (hit := _phrase_at(keys, i))), None)


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


@dataclass(frozen=True)
class _Total:
    """A table's totals line: per money column, the total it prints for the rows above it (up
    to the section's title or the header)."""

    name: str  # the section's title, or the totals line's label, as printed
    totals: dict[str, Decimal]  # by column kind, as magnitudes
    page: int
    rows: list[_Row]


@dataclass
class _Reader:
    """Walks the pages' lines, keeping the last header's columns (and the section a title above
    it names) across pages."""

    columns: list[_Column] | None = None
    section: str | None = None
    headers: int = 0  # header rows seen, lists in several columns included
    entries: list[_Row | _Stated] = field(default_factory=list)
    totals: list[_Total] = field(default_factory=list)
    section_name: str = ""  # the title over the rows since ``section_start``, as printed
    section_start: int = 0  # where in ``entries`` the current section's rows begin

    def read(self, page: PageText) -> None:
        segment: list[list[Word]] = []
        headed = False
        lines = group_lines(page.words, page.ocr)
        skip = -1  # a line below a header that is part of it
        for index, line in enumerate(lines):
            if index == skip:
                continue
            columns, below = _header_of(lines, index)
            if below:
                skip = index + 1
            if columns is None:
                segment.append(line)
                continue
            self._segment(page.number, segment, headed)
            self.section = _section(segment[-1]) if segment else None
            self._start_section(" ".join(w.text for w in segment[-1]) if self.section else "")
            # Side-by-side lists ("Date Amount Date Amount": daily balances) hold no rows.
            self.columns = None if _side_by_side(columns) else columns
            self.headers += 1
            segment, headed = [], True
        self._segment(page.number, segment, headed)

    def _start_section(self, name: str) -> None:
        self.section_name, self.section_start = name, len(self.entries)

    def _total(self, page: int, cells: _Cells, line: Sequence[Word]) -> None:
        """A totals line: what it prints under each money column, for the section's rows."""
        rows = [e for e in self.entries[self.section_start :] if isinstance(e, _Row)]
        totals = {kind: money.value for kind, money in cells.money.items() if kind != "balance"}
        if rows and totals:
            name = self.section_name or " ".join(w.text for w in cells.text)
            self.totals.append(_Total(name, totals, page, rows))
        self._start_section("")

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
            stated = _stated_kind(cells.text, anywhere=False)
            printed = " ".join(w.text for w in cells.date) or None
            if stated:
                value = _stated_value(cells, line)
                # A balance line in the table, or a summary figure under it after a gap.
                in_table = near or (headed and last_bottom == -math.inf)
                if value is not None:
                    self.entries.append(_Stated(stated, value, page, in_table=in_table))
                row, day = None, printed or day
            elif not cells.date and (title := _section(line)):
                self.section, row, day = title, None, None
                self._start_section(" ".join(w.text for w in line))
            elif not cells.date and _is_total(cells.text):
                if row and near:  # under the rows it sums, not a figure further down
                    self._total(page, cells, line)
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


def _listed_rows(pages: Sequence[PageText]) -> list[_Row | _Stated]:
    """Rows of a statement that prints no table header: lines that start with a date and end
    with an amount ("03 Feb 2022 KIWI CORNER STORE 12.40"), with what they print between as
    the description, and the balances its lines state."""
    entries: list[_Row | _Stated] = []
    for page in pages:
        for line in group_lines(page.words, page.ocr):
            entries += _stated_in(line, page.number)
            row = _listed_row(line, page.number)
            if row is not None:
                entries.append(row)
    return entries


def _listed_row(line: Sequence[Word], page: int) -> _Row | None:
    dated = next((size for size in (3, 2, 1) if _is_date(" ".join(w.text for w in line[:size]))), 0)
    if not dated or len(line) < dated + 2:
        return None
    for size in (2, 1):  # "12.40 CR", "12.40"
        money = _money(" ".join(w.text for w in line[-size:]))
        if money is not None:
            break
    else:
        return None
    text = list(line[dated:-size])
    if not text or not any(_LETTERS.search(w.text) for w in text) or _stated_kind(text):
        return None
    cells = _Cells(list(line[:dated]), text, [], {"amount": money}, list(line[-size:]), False)
    row = _Row(page, " ".join(w.text for w in line[:dated]))
    row.add(cells)
    return row


_LETTERS = re.compile(r"[^\W\d_]{2,}")


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

Stated = tuple[str, Decimal, str, int]
"""A total the statement prints for its rows: ("money_in" or "money_out", the magnitude, its
label as printed, its page)."""


Balances = Decimal | Sequence[Decimal] | None
"""A balance the caller knows, or every value printed for it (the first is the summary's)."""
MAX_BALANCES = 3  # values of one balance tried against the rows


def read_transactions(
    pages: list[PageText],
    period: tuple[date, date] | None,
    currency: str | None,
    opening: Balances,
    closing: Balances,
    stated: Sequence[Stated] = (),
    owed: bool = False,
    given: frozenset[str] = frozenset(),
) -> TableResult:
    """Every row of a statement's tables, and how they reconcile.

    ``opening`` and ``closing`` are the statement's balances when the caller knows them, then
    the tables' own "brought forward" and "carried forward" lines, or the first and last running
    balance. Where a balance is printed with different values (OCR misreading one of them), the
    first that reconciles with the rows is taken. ``stated`` are the money in and out the
    statement prints, which decide
    signs the rows do not print and are checked against the rows. ``owed``: the statement is a
    card's or a loan's, whose balances are what the holder owes and whose bare amounts are
    charges; when its balances tell the other way (only the other reading reconciles), they
    win. A statement without a period dates rows printed without a year by the full dates it
    prints elsewhere. A balance named in ``given`` ("opening", "closing") is the person's
    word: the rows are checked against it alone.
    """
    reader = _Reader()
    for page in pages:
        reader.read(page)
    if not reader.headers:
        reader.entries = _listed_rows(pages)
    if not any(isinstance(e, _Row) for e in reader.entries):
        reason = "no transaction table: no header row names a date column and an amount column"
        return TableResult([], Reconciliation(UNCHECKED, reason=reason))
    lines = [e for e in reader.entries if isinstance(e, _Stated)]
    unread = [
        Unread(e.page, _printed(e), f"its amount ({e.unreadable}) cannot be read")
        for e in reader.entries
        if isinstance(e, _Row) and not e.has_amount and e.unreadable
    ]
    entries = [
        e for e in reader.entries if (e.in_table if isinstance(e, _Stated) else e.has_amount)
    ]
    _regroup(entries)
    printed = {
        kind: [] if kind in given else [s.value for s in lines if s.kind == kind]
        for kind in ("opening", "closing")
    }
    openings = _balances(opening, printed["opening"])
    closings = _balances(closing, printed["closing"][::-1])
    today = date.today()
    period = period or printed_period(pages) or (today - timedelta(days=365), today)
    rows = [e for e in entries if isinstance(e, _Row)]
    days = _dates([r.date_text for r in rows], period, currency)
    newest_first = _newest_first([d[0] for d in days if d])
    if newest_first:
        entries = entries[::-1]
    chosen: tuple[bool, Reconciliation, list[str]] | None = None
    for first, last in itertools.product(openings, closings):
        reading = _Signs(entries, first, last, stated)
        found = reading.best(owed)
        if chosen is None or found[1].status == RECONCILED:
            chosen = found
        if found[1].status == RECONCILED:
            break
    assert chosen is not None
    if chosen[1].status != RECONCILED:  # the first reading's signs
        chosen = _Signs(entries, openings[0], closings[0], stated).best(owed)
    owed, reconciliation, notes = chosen
    for name, first, used in (
        ("opening", openings[0], reconciliation.opening),
        ("closing", closings[0], reconciliation.closing),
    ):
        if first is not None and used is not None and used != first:
            notes.append(
                f"the statement prints its {name} balance as {first:,.2f} and as {used:,.2f}; "
                f"the rows reconcile with {used:,.2f}"
            )
    parsed: list[ParsedRow] = []
    for row, day in zip(rows, days, strict=True):
        if day is None:
            unread.append(Unread(row.page, _printed(row), "its date cannot be read"))
            continue
        if day[1]:
            notes.append(
                f'page {row.page}: the row "{_printed(row)}" prints a day its month does not '
                f"have; it is kept at {day[0].isoformat()}"
            )
        parsed.append(
            ParsedRow(
                location=f"page {row.page}",
                date=day[0],
                amount=row.amount or Decimal(0),
                description=row.description,
                currency=currency,
                category=row.category,
                balance=row.balance,
                page=row.page,
                box=_union([w.box for w in row.words]),
            )
        )
    sections = (*_stated_checks(stated, rows), *_section_checks(reader.totals))
    reconciliation = replace(reconciliation, sections=sections)
    return TableResult(parsed, reconciliation, sorted(unread, key=lambda u: u.page), notes)


def _balances(given: Balances, printed: Sequence[Decimal]) -> list[Decimal | None]:
    """The values of a balance to try, in order: the caller's, then those the tables print."""
    values = [given] if isinstance(given, Decimal) else list(given or [])
    values = list(dict.fromkeys([*values, *printed]))[:MAX_BALANCES]
    return values or [None]


def _union(boxes: Sequence[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _printed(row: _Row) -> str:
    """The row as printed, shortened: its date and the start of its description."""
    description = row.description if len(row.description) <= 40 else row.description[:39] + "…"
    return f"{row.date_text} {description}".strip()


def _name(row: _Row) -> str:
    return f'the row "{_printed(row)}" on page {row.page}'


def _newest_first(days: Sequence[date]) -> bool:
    """Whether the rows run newest first: more of their dates fall than rise."""
    falls = sum(1 for a, b in itertools.pairwise(days) if b < a)
    rises = sum(1 for a, b in itertools.pairwise(days) if b > a)
    return falls > rises


def _explicit(row: _Row, owed: bool) -> Decimal | None:
    """The row's amount signed by what the row itself shows: its debit or credit column, its
    CR/DR marker, its sign (a minus on a card or loan statement pays the balance off), or the
    title of its table section; None for a bare amount outside a section."""
    money = row.money
    if "debit" in money or "credit" in money:
        paid_in = money["credit"].value if "credit" in money else Decimal(0)
        return paid_in - (money["debit"].value if "debit" in money else Decimal(0))
    cell = money["amount"]
    if cell.marker:
        return cell.value if cell.marker == "credit" else -cell.value
    if cell.sign:
        return -cell.sign * cell.value if owed else cell.sign * cell.value
    return {"debit": -cell.value, "credit": cell.value}.get(row.section or "")


def _bare_convention(rows: Sequence[_Row], owed: bool) -> int | None:
    """How the amount column signs a bare amount, judged on the whole table: a charge (-1) when
    others carry CR markers, or on a card or loan statement when others carry a sign; money in
    (+1) when others carry DR markers or minus signs on a bank statement; None when nothing
    in the column tells."""
    cells = [row.money["amount"] for row in rows if "amount" in row.money]
    if any(m.marker == "credit" for m in cells):
        return -1
    if any(m.marker == "debit" for m in cells):
        return 1
    if any(m.sign for m in cells):
        return -1 if owed else 1
    return None


def _pays_off(row: _Row) -> bool:
    """Whether a row's description says it pays a card or loan off or gives money back."""
    keys = _key(row.description)
    return any(
        keys[i : i + len(phrase)] == phrase
        for phrase in _labels().payments
        for i in range(len(keys) - len(phrase) + 1)
    )


@dataclass
class _Signs:
    """Deciding the signs of a table's rows, and checking them against its balances, under
    each reading of its balances (what the holder has, or what the holder owes).

    ``entries`` are in date order, oldest first."""

    entries: Sequence[_Row | _Stated]
    opening: Decimal | None
    closing: Decimal | None
    stated: Sequence[Stated]

    @property
    def rows(self) -> list[_Row]:
        return [e for e in self.entries if isinstance(e, _Row)]

    def best(self, owed: bool) -> tuple[bool, Reconciliation, list[str]]:
        """The reading the statement bears out, ``owed`` (the caller's guess) on a tie: the one
        that reconciles, then the one whose money in and out meet the totals it prints, then
        the one whose closing balance is no debt owed the other way. Flipping every sign and
        the way balances move reconciles as well as the right reading; the totals and the
        balance's sign tell them apart. The rows keep the signs of the reading chosen."""
        readings = []
        for candidate in (owed, not owed):
            notes = self.sign(candidate)
            check = self.reconcile(candidate)
            score = (
                check.status == RECONCILED,
                self._totals_met(),
                not (candidate and check.closing is not None and check.closing < 0),
                candidate == owed,
            )
            readings.append((score, candidate, check, notes, self._amounts()))
        score, chosen, check, notes, amounts = max(readings, key=lambda r: r[0])
        for row, amount in zip(self.rows, amounts, strict=True):
            row.amount = amount
        return chosen, check, notes

    def _totals_met(self) -> int:
        """How many of the money in and out totals the statement prints the rows meet."""
        return sum(1 for check in _stated_checks(self.stated, self.rows) if not check.gap)

    def _amounts(self) -> list[Decimal | None]:
        return [row.amount for row in self.rows]

    def sign(self, owed: bool) -> list[str]:
        """Signs every row, from the evidence in order; what was decided without the statement
        printing it is noted."""
        rows = self.rows
        for row in rows:
            row.amount = _explicit(row, owed)
        convention = _bare_convention(rows, owed)
        if convention is not None:
            for row in self._unsure():
                row.amount = convention * row.money["amount"].value
        self._by_balance_steps(owed)
        notes: list[str] = []
        decided = self._by_totals(owed)
        if decided:
            notes.append(
                f"{_rows_phrase(decided)} no sign; the statement's totals decided which way "
                f"{'it goes' if decided == 1 else 'they go'}"
            )
        unsure = self._unsure()
        if owed:
            for row in unsure:
                value = row.money["amount"].value
                row.amount = value if _pays_off(row) else -value
        elif unsure:
            for row in unsure:
                row.amount = -row.money["amount"].value
            notes.append(
                f"{_rows_phrase(len(unsure))} no sign and nothing on the statement tells which "
                f"way {'it goes; it is' if len(unsure) == 1 else 'they go; they are'} taken as "
                f"money out (the first: {_name(unsure[0])})"
            )
        return notes

    def _unsure(self) -> list[_Row]:
        return [row for row in self.rows if row.amount is None]

    def _by_balance_steps(self, owed: bool) -> None:
        """A bare amount takes the direction in which the printed balance moved, when it moved
        by exactly that amount."""
        step = -1 if owed else 1
        previous = self.opening
        for entry in self.entries:
            if isinstance(entry, _Stated):
                previous = entry.value
                continue
            balance = entry.balance
            if entry.amount is None and balance is not None and previous is not None:
                moved = balance - previous
                if abs(moved) == entry.money["amount"].value:
                    entry.amount = step * moved
            if balance is not None:
                previous = balance
            elif previous is not None and entry.amount is not None:
                previous += step * entry.amount
            else:
                previous = None

    def _by_totals(self, owed: bool) -> int:
        """Signs the rows still unsure the one way that meets the statement's totals: its money
        in or out, else the move from its opening to its closing balance. Nothing is decided
        when no way, or more than one, meets them; the number of rows decided."""
        unsure = self._unsure()
        if not unsure or len(unsure) > MAX_UNSURE_ROWS:
            return 0
        known = [row.amount for row in self.rows if row.amount is not None]
        values = [_cents(row.money["amount"].value) for row in unsure]
        totals = {name: value for name, value, _, _ in self.stated}
        if "money_in" in totals:
            target = _cents(totals["money_in"]) - sum(_cents(a) for a in known if a > 0)
        elif "money_out" in totals:
            out = _cents(totals["money_out"]) - sum(_cents(-a) for a in known if a < 0)
            target = sum(values) - out
        elif self.opening is not None and self.closing is not None:
            moved = self.closing - self.opening
            net = _cents(-moved if owed else moved) - sum(_cents(a) for a in known)
            if (net + sum(values)) % 2:
                return 0
            target = (net + sum(values)) // 2
        else:
            return 0
        chosen = _only_subset(values, target)
        if chosen is None:
            return 0
        for index, row in enumerate(unsure):
            value = row.money["amount"].value
            row.amount = value if index in chosen else -value
        return len(unsure)

    def reconcile(self, owed: bool) -> Reconciliation:
        """How the rows as signed reconcile: opening + rows = closing (for a statement of what
        is owed, opening - rows = closing), and every printed running balance the one before it
        plus the rows since. Missing ends come from the first and last running balance."""
        step = -1 if owed else 1
        rows = self.rows
        total = sum((row.amount or Decimal(0) for row in rows), Decimal(0))
        money_in = sum((a for r in rows if (a := r.amount or 0) > 0), Decimal(0))
        money_out = -sum((a for r in rows if (a := r.amount or 0) < 0), Decimal(0))
        checked = {"money_in": money_in, "money_out": money_out, "rows": len(rows)}
        opening, closing = self.opening, self.closing
        printed = [
            (i, e)
            for i, e in enumerate(self.entries)
            if isinstance(e, _Stated) or e.balance is not None
        ]
        if printed and opening is None:
            index, first = printed[0]
            before = self._sum(self.entries[: index + (isinstance(first, _Row))])
            opening = _value(first) - step * before
        if printed and closing is None:
            index, last = printed[-1]
            closing = _value(last) + step * self._sum(self.entries[index + 1 :])
        if opening is None or closing is None:
            reason = (
                "the statement prints no balance to check its rows against"
                if opening is None and closing is None
                else f"the statement prints only its {'opening' if closing is None else 'closing'}"
                " balance, and no running balance"
            )
            return Reconciliation(UNCHECKED, None, opening, closing, reason=reason, **checked)
        reached = opening + step * total
        gap = closing - reached
        adds_up = gap == 0
        broken = self._first_break(None if adds_up else opening, step)
        if adds_up and broken is None:
            return Reconciliation(RECONCILED, Decimal(0), opening, closing, **checked)
        if not adds_up:
            reason = (
                f"the opening balance {opening} {'minus' if owed else 'plus'} the rows' total "
                f"{total} is {reached}, not the closing balance {closing}"
            )
            if broken:
                reason = f"{broken[0]}; {reason}"
            return Reconciliation(OFF, abs(gap), opening, closing, reason=reason, **checked)
        assert broken is not None
        return Reconciliation(OFF, broken[1], opening, closing, reason=broken[0], **checked)

    @staticmethod
    def _sum(entries: Sequence[_Row | _Stated]) -> Decimal:
        return sum((e.amount or 0 for e in entries if isinstance(e, _Row)), Decimal(0))

    def _first_break(self, start: Decimal | None, step: int) -> tuple[str, Decimal] | None:
        """The first printed balance (from ``start``, else from the first printed one) that is
        not the one before it plus the rows since: what it says, and by how much it is off."""
        previous, pending = start, Decimal(0)
        last_row = max((i for i, e in enumerate(self.entries) if isinstance(e, _Row)), default=-1)
        for index, entry in enumerate(self.entries):
            if isinstance(entry, _Stated) and entry.kind == "closing" and index > last_row:
                continue  # the closing balance itself: one of the values ``closing`` tries
            if isinstance(entry, _Row):
                pending += entry.amount or 0
            printed = _value(entry)
            if printed is None:
                continue
            if previous is not None and previous + step * pending != printed:
                expected = previous + step * pending
                if isinstance(entry, _Stated):
                    where = f"the {entry.kind} balance printed on page {entry.page} is {printed}"
                else:
                    where = f"{_name(entry)} prints balance {printed}"
                return f"{where}, but the rows before it give {expected}", abs(printed - expected)
            previous, pending = printed, Decimal(0)
        return None


def _value(entry: _Row | _Stated) -> Decimal | None:
    """The balance an entry prints."""
    return entry.value if isinstance(entry, _Stated) else entry.balance


def _cents(value: Decimal) -> int:
    return int(value * 100)


def _only_subset(values: Sequence[int], target: int) -> set[int] | None:
    """The indexes of the one subset of ``values`` that adds up to ``target``; None when none
    does, when several do, or when the search grows past ``MAX_PARTIAL_SUMS``."""
    # Partial sums: how many subsets reach each (at most 2 counted) and, for one, the last index.
    reach: dict[int, tuple[int, tuple[int, ...]]] = {0: (1, ())}
    for index, value in enumerate(values):
        grown = dict(reach)
        for total, (ways, chosen) in reach.items():
            new = total + value
            before = grown.get(new)
            grown[new] = (min(2, ways + (before[0] if before else 0)), (*chosen, index))
        reach = grown
        if len(reach) > MAX_PARTIAL_SUMS:
            return None
    found = reach.get(target)
    if found is None or found[0] != 1:
        return None
    return set(found[1])


def _stated_checks(stated: Sequence[Stated], rows: Sequence[_Row]) -> list[SectionCheck]:
    """The money in and out the statement prints against what the rows put in and took out."""
    checks = []
    for name, value, label, page in stated:
        sign = 1 if name == "money_in" else -1
        moved = [r.amount for r in rows if r.amount and r.amount * sign > 0]
        total = abs(sum(moved, Decimal(0)))
        checks.append(SectionCheck(label, abs(value), total, len(moved), page))
    return checks


def _section_checks(totals: Sequence[_Total]) -> list[SectionCheck]:
    """Each totals line of a table against the rows of its section, per money column."""
    checks = []
    for found in totals:
        for kind, value in found.totals.items():
            if kind == "amount":
                amounts = [r.amount or Decimal(0) for r in found.rows]
                rows = abs(sum(amounts, Decimal(0)))
                count = len(amounts)
            else:
                cells = [r.money[kind].value for r in found.rows if kind in r.money]
                rows, count = sum(cells, Decimal(0)), len(cells)
            checks.append(SectionCheck(found.name, value, rows, count, found.page))
    return checks


def _rows_phrase(count: int) -> str:
    """How many rows print: "1 row prints", "3 rows print"."""
    return "1 row prints" if count == 1 else f"{count} rows print"
