"""The figures a statement PDF states about itself (balances, totals, card terms), each with the
page and box it is printed in.

A figure is found by its label (``statement_labels.toml``) and paired with its value: the nearest
amount to the right of the label on its line, else the value in the cell directly below the label
(summary boxes print a row of labels over a row of values). A totals line under a table's debit
and credit columns gives money out and in. The reading of lines, cells, labels, amounts and dates
defined here is shared with ``metadata``.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from functools import cache, lru_cache
from itertools import accumulate, chain
from pathlib import Path
from typing import Any, Generic, TypeVar

import dateparser

from elastic.ingest.parsed import Box
from elastic.ingest.pdf.page_words import PageText, Word
from elastic.ingest.pdf.tables import iso_day, money_columns

LABELS_PATH = Path(__file__).with_name("statement_labels.toml")
with LABELS_PATH.open("rb") as _handle:
    DATA: dict[str, Any] = tomllib.load(_handle)

CELL_GAP = 0.8  # a gap this many word heights wide separates two cells (columns) of a line
BELOW_GAP = 2.0  # a value below its label starts within this many label heights under it
# ... and within this many under a summary table's header, whose rows are padded like a table's
HEADER_GAP = 3.0
FILLER_WORDS = 6  # words allowed between a figure's label and its amount ("from 11th Feb ...")
FIRST_PAGES = 2  # the pages that hold a statement's header and summary
CENT = Decimal("0.01")

T = TypeVar("T")
Finder = Callable[[str], Iterator[tuple[int, int, T]]]
"""Every value of one kind in a piece of line text: ``(start, end, value)`` in reading order."""


# --- text ----------------------------------------------------------------------------------------


@cache
def _fold_char(char: str) -> str:
    return unicodedata.normalize("NFKD", char.casefold())[0]


def fold(text: str) -> str:
    """Lower case without accents, one character per character of ``text``, so an offset in the
    folded text is the same offset in the printed one (``ß`` folds to ``s``)."""
    return "".join(_fold_char(char) for char in text)


def phrase_pattern(phrases: Iterable[str]) -> re.Pattern[str]:
    """Any of ``phrases`` (each starting with a letter or digit) as whole words in folded text;
    the longest wins where several match at one place."""
    folded = sorted({fold(p) for p in phrases}, key=len, reverse=True)
    if any(not p[:1].isalnum() for p in folded):
        raise ValueError(f"{LABELS_PATH.name}: a phrase must start with a letter or digit")
    # One lookbehind for all alternatives: checking it first keeps matching fast.
    ends = (re.escape(p) + (r"(?!\w)" if p[-1].isalnum() else "") for p in folded)
    return re.compile(r"(?<!\w)(?:" + "|".join(ends) + ")")


def union(*boxes: Box) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _height(word: Word) -> float:
    return word.box[3] - word.box[1]


# --- lines and cells -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One printed line: its words, their text joined by single spaces, and its cells (runs of
    words with no column gap between them)."""

    page: int
    order: int  # position among the page's lines, top to bottom
    words: tuple[Word, ...]
    text: str
    folded: str
    starts: tuple[int, ...]  # offset of each word in ``text``
    cells: tuple[tuple[int, int], ...]  # offsets in ``text`` of each cell
    joined: bool = False  # a label's cell read with the one under it (``_continued_labels``)

    @property
    def top(self) -> float:
        return min(w.box[1] for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.box[3] for w in self.words)

    def word_at(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def box(self, start: int, end: int) -> Box:
        """The union of the boxes of the words that text from ``start`` to ``end`` touches."""
        first, last = self.word_at(start), self.word_at(max(start, end - 1))
        return union(*(w.box for w in self.words[first : last + 1]))

    def starts_cell(self, offset: int) -> bool:
        """Whether ``offset`` starts a cell, or only marks stand before it there ("**Minimum
        amount due", "• Opening balance")."""
        return any(
            start <= offset < end and not _WORD.search(self.text[start:offset])
            for start, end in self.cells
        )


def page_lines(page: PageText) -> list[Line]:
    """The page's lines as its text groups its words. The text and the words come from one
    extraction and spell each other; reading stops at a line where they do not."""
    lines: list[Line] = []
    at = 0
    for text in page.text.split("\n"):
        if not text.strip():
            continue
        words = tuple(page.words[at : at + len(text.split(" "))])
        if " ".join(w.text for w in words) != text:
            break
        at += len(words)
        lines.append(make_line(page.number, len(lines), words))
    return lines


def make_line(page: int, order: int, words: tuple[Word, ...], joined: bool = False) -> Line:
    text = " ".join(w.text for w in words)
    starts = tuple(accumulate((len(w.text) + 1 for w in words[:-1]), initial=0))
    return Line(page, order, words, text, fold(text), starts, _cells(words), joined)


_DIGIT = re.compile(r"\d")
_CONTINUED = re.compile(r"(?:[&,+]|\b(?:and|und|et|y|en))\s*$", re.IGNORECASE)


def _continued_labels(lines: list[Line]) -> Iterator[Line]:
    """A summary box's label printed over two lines ("Fee, Taxes &" over "Interest Charges";
    "Closing" over "balance" in a summary table's header): a cell that ends in "&", "," or
    "and", or a cell no label starts on a line of figure labels, read with the cell under it,
    as one line in the place of the lower one."""
    for line in lines:
        labels = labels_on(line)
        figures = sum(1 for label in labels if label.kind == "facts")
        for start, end in line.cells:
            header = figures > 1 and not any(start <= label.start < end for label in labels)
            if not (header or _CONTINUED.search(line.text[start:end])):
                continue
            stacked = with_cell_below(lines, line, start, end)
            if stacked is None:
                continue
            lower, words = stacked
            # A header's labels go on in a line of words; a line with figures is its values.
            if header and any(_DIGIT.search(word.text) for word in lower.words):
                continue
            yield make_line(lower.page, lower.order, words, joined=True)


def with_cell_below(
    lines: list[Line], line: Line, start: int, end: int
) -> tuple[Line, tuple[Word, ...]] | None:
    """The words of ``line``'s cell from ``start`` to ``end`` followed by those of the cell right
    under it, with the line under it; None when no cell is there."""
    x0, top, x1, bottom = line.box(start, end)
    below = cell_below(lines, line, (x0, x1), bottom, bottom - top)
    if below is None:
        return None
    lower, lower_start, lower_end = below
    upper = line.words[line.word_at(start) : line.word_at(end - 1) + 1]
    under = lower.words[lower.word_at(lower_start) : lower.word_at(lower_end - 1) + 1]
    return lower, (*upper, *under)


def _cells(words: tuple[Word, ...]) -> tuple[tuple[int, int], ...]:
    cells: list[tuple[int, int]] = []
    start = offset = 0
    for index, word in enumerate(words):
        if index:
            before = words[index - 1]
            gap = word.box[0] - before.box[2]
            if gap >= CELL_GAP * max(_height(word), _height(before)):
                cells.append((start, offset - 1))
                start = offset
        offset += len(word.text) + 1
    if words:
        cells.append((start, offset - 1))
    return tuple(cells)


# --- labels --------------------------------------------------------------------------------------


def _label_index(labels: dict[str, dict[str, list[str]]]) -> dict[str, tuple[str, str]]:
    index: dict[str, tuple[str, str]] = {}
    for kind, names in labels.items():
        for name, phrases in names.items():
            for phrase in phrases:
                if index.setdefault(fold(phrase), (kind, name)) != (kind, name):
                    raise ValueError(f"{LABELS_PATH.name}: {phrase!r} names two things")
    return index


_LABEL_INDEX = _label_index(DATA["labels"])
_LABELS = phrase_pattern(_LABEL_INDEX)
_TABLE_HEADER = phrase_pattern(DATA["table"]["header_words"])
_COLUMN_TOTALS = phrase_pattern(DATA["table"]["column_totals"])
# Words after a figure's label that say a date follows ("Closing balance at 31 March 2026").
_DATED_BY = re.compile(r"[\s:]*(?:" + "|".join(map(re.escape, DATA["dated_by"]["words"])) + r")\b")
_FORM_BLANK = re.compile(r"_{3,}")
_DATED_BALANCE = re.compile(
    r"(?:" + "|".join(map(re.escape, map(fold, DATA["dated_balance"]["labels"]))) + r")"
    r"(?=[\s:]*(?:" + "|".join(map(re.escape, DATA["dated_by"]["words"])) + r")\b)"
)


@dataclass(frozen=True)
class Label:
    """A label found on a line; ``kind`` is "metadata", "facts" or "other" (see the TOML)."""

    line: Line
    start: int
    end: int
    kind: str
    name: str

    @property
    def printed(self) -> str:
        return self.line.text[self.start : self.end]

    @property
    def box(self) -> Box:
        return self.line.box(self.start, self.end)


def figures_named(text: str) -> list[str]:
    """The statement figures a text names with the words statements print for them ("previous
    balance", "Neuer Kontostand", "total deposits", "amount due"), in the order it names them."""
    names: list[str] = []
    for match in _LABELS.finditer(fold(text)):
        kind, name = _LABEL_INDEX[match.group()]
        if kind == "facts" and name not in names:
            names.append(name)
    return names


def labels_on(line: Line) -> list[Label]:
    """The labels on a line, left to right."""
    return [
        Label(line, m.start(), m.end(), *_LABEL_INDEX[m.group()])
        for m in _LABELS.finditer(line.folded)
    ]


def label_regions(line: Line) -> list[tuple[Label, int]]:
    """Each label on a line with the end of the text that can hold its value: the next label."""
    labels = labels_on(line)
    ends = [label.start for label in labels[1:]] + [len(line.text)]
    return list(zip(labels, ends, strict=False))  # no labels: no regions


# --- values --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found(Generic[T]):
    """A label's value and where it is printed: on the label's line or on a line below it."""

    label: Label
    line: Line
    start: int
    end: int
    value: T

    @property
    def box(self) -> Box:
        return union(self.label.box, self.line.box(self.start, self.end))


_WORD = re.compile(r"\w+")
_LETTER = re.compile(r"[^\W\d_]")
_LEAD = " :#.-–|="  # what stands between a label and its value


def is_form(label: Label, region_end: int) -> bool:
    """A form line: blanks to fill in after the label ("Ending balance ________")."""
    return bool(_FORM_BLANK.search(label.line.text, label.end, region_end))


def value_beside(
    label: Label, region_end: int, find: Finder[T], max_words: int, one_cell: bool
) -> Found[T] | None:
    """The first value after ``label`` and before ``region_end`` on the label's line, with at
    most ``max_words`` words between. ``one_cell``: only in the cell where the text after the
    label begins (a name or number beside its label, not whatever the next column holds)."""
    line = label.line
    region = line.text[label.end : region_end]
    if one_cell:
        start = label.end + len(region) - len(region.lstrip(_LEAD))
        region_end = min([region_end, *(end for _, end in line.cells if end > start)])
        region = line.text[label.end : region_end]
    for value_start, value_end, value in find(region):
        if len(_WORD.findall(region[:value_start])) > max_words:
            return None
        return Found(label, line, label.end + value_start, label.end + value_end, value)
    return None


def value_across(label: Label, lines: list[Line], find: Finder[T]) -> Found[T] | None:
    """The value at the start of the cell right of ``label`` on the line above or below it that
    shares its height: one printed line that the grouping split in two (OCR boxes of a label
    and its value a little apart in height)."""
    _, top, x1, bottom = label.box
    cells = []
    for line in lines[max(label.line.order - 1, 0) : label.line.order + 2]:
        if line is label.line:
            continue
        for start, end in line.cells:
            box = line.box(start, end)
            shared = min(bottom, box[3]) - max(top, box[1])
            if box[0] >= x1 and shared >= (bottom - top) / 2:
                cells.append((box[0], line, start, end))
    for _, line, start, end in sorted(cells, key=lambda cell: cell[0])[:1]:
        return _cell_value(label, line, start, end, find)
    return None


def value_below(
    label: Label,
    lines: list[Line],
    find: Finder[T],
    first_of_column: bool = False,
    lead: Finder[Any] | None = None,
    header_bottom: float | None = None,
) -> Found[T] | None:
    """The value at the start of the cell directly below ``label`` (after what ``lead`` finds,
    such as the date a "Closing balance at" label goes on with). Not under the column titles
    of a table, and, unless ``first_of_column``, not when the cell under that value holds
    another one: a column of values is a table, not a summary. ``header_bottom``: where the
    header the label is part of ends (another of its labels printed over two lines)."""
    if _TABLE_HEADER.search(label.line.folded):
        return None
    x0, top, x1, bottom = label.box
    height = bottom - top
    # A label over two lines ("Fees and" over "charges") has its value under its lower line.
    low = label.line.bottom if label.line.joined else bottom
    low = max(low, header_bottom or low)
    gap = BELOW_GAP if header_bottom is None else HEADER_GAP
    cell = cell_below(lines, label.line, (x0, x1), low, height, gap)
    if cell is None:
        return None
    found = _cell_value(label, *cell, find, lead)
    if found is None or first_of_column:
        return found
    value_box = found.line.box(found.start, found.end)
    under = cell_below(lines, found.line, (value_box[0], value_box[2]), value_box[3], height)
    if under is not None and _cell_value(label, *under, find) is not None:
        return None
    return found


def cell_below(
    lines: list[Line],
    above: Line,
    span: tuple[float, float],
    bottom: float,
    height: float,
    gap: float = BELOW_GAP,
) -> tuple[Line, int, int] | None:
    """The cell on the nearest line below ``bottom`` that overlaps ``span`` horizontally. A cell
    of marks only (a unit such as "( $ )" printed under a label) is looked past."""
    for line in lines[above.order + 1 :]:
        if line.top - bottom > gap * height:
            return None
        if line.top < bottom - height / 2:
            continue  # beside the line above rather than under it
        overlaps = [
            (min(span[1], box[2]) - max(span[0], box[0]), start, end)
            for start, end in line.cells
            if min(span[1], (box := line.box(start, end))[2]) > max(span[0], box[0])
        ]
        if overlaps:
            _, start, end = max(overlaps)
            if _WORD.search(line.text[start:end]):
                return line, start, end
            bottom = line.bottom
    return None


def _cell_value(
    label: Label, line: Line, start: int, end: int, find: Finder[T], lead: Finder[Any] | None = None
) -> Found[T] | None:
    """The value a cell starts with ("24.99%(v)(d)" starts with a rate), or that follows what
    ``lead`` finds at its start."""
    text = line.text[start:end]
    first = next(iter(find(text)), None)
    if first is not None and not _WORD.search(text[: first[0]]):
        return Found(label, line, start + first[0], start + first[1], first[2])
    skipped = 0
    for lead_start, lead_end, _ in lead(text) if lead else ():
        if _WORD.search(text[skipped:lead_start]):
            break
        skipped = lead_end
    if skipped and not _WORD.search(text[skipped:]):
        # Only the date in this cell: the value is in the line's next one.
        following = next(((s, e) for s, e in line.cells if s >= end), None)
        if following is None:
            return None
        start, end = following
        text, skipped = line.text[start:end], 0
    for value_start, value_end, value in find(text):
        if value_start < skipped or _WORD.search(text[skipped:value_start]):
            return None
        return Found(label, line, start + value_start, start + value_end, value)
    return None


# --- amounts -------------------------------------------------------------------------------------

CURRENCY_CODES = frozenset(DATA["currency"]["codes"])
CURRENCY_SYMBOLS: dict[str, str] = DATA["currency"]["symbols"]
_NUMBER = (
    r"\d{1,3}(?:[,.'’\u00a0\u202f]\d{3})+(?:[.,]\d{1,2})?"  # 1,234.56  1.234,56  1'234
    r"|\d{1,3}(?: \d{3})+,\d{2}"  # 1 234,56
    r"|\d+(?:[.,]\d{1,2})?"
)
_MONEY = re.compile(
    r"(?<![\w.,/-])(?P<open>\()?(?P<sign>[-−+])?"
    r"(?:(?P<pre>[A-Z]{0,3}\$|[£€¥]|[A-Z]{3}) ?)?(?P<sign2>[-−])?"
    rf"(?P<number>{_NUMBER})(?![\d%]|[.,]\d| %)"
    r"(?: ?(?P<post>[£€¥]|[A-Z]{3}(?![A-Za-z])))?"  # a "$" after a number starts the next one
    r"(?:(?P<trail>-)(?!\d)| ?(?P<mark>CR|DR|Cr|Dr)(?![A-Za-z]))?"
    r"(?P<close>\))?(?!\w)"
)
_DECIMALS = re.compile(r"(?P<whole>.+?)(?:[.,](?P<cents>\d{1,2}))?")
_PERCENT = re.compile(r"(?<![\w.,])(?P<number>\d{1,3}(?:[.,]\d{1,4})?) ?%")


@dataclass(frozen=True)
class Money:
    amount: Decimal  # negative when printed with a minus, in parentheses or marked DR
    currency: str | None  # the symbol or ISO code printed with it: "$", "S$", "EUR"


def currency_marker(marker: str | None) -> str | None:
    """``marker`` when it is a currency symbol or code the data knows, else None."""
    if marker and (marker in CURRENCY_SYMBOLS or marker == "$" or marker in CURRENCY_CODES):
        return marker
    return None


def find_money(text: str) -> Iterator[tuple[int, int, Money]]:
    """Amounts as statements print them: a decimal point or comma, thousands separators, a
    currency symbol or code before or after, a minus before or after, parentheses, CR or DR. A
    bare integer with neither decimals, separators nor currency is a count or a reference, not
    an amount."""
    for match in _MONEY.finditer(text):
        number = match["number"]
        parts = _DECIMALS.fullmatch(number)
        assert parts is not None  # the pattern matches any non-empty text
        currency = currency_marker(match["pre"]) or currency_marker(match["post"])
        if parts["cents"] is None and number.isdigit() and currency is None:
            continue
        digits = re.sub(r"\D", "", parts["whole"])
        amount = Decimal(f"{digits}.{parts['cents'] or 0}").quantize(CENT)
        negative = (
            bool(match["open"] and match["close"])
            or match["sign"] in ("-", "−")
            or bool(match["sign2"] or match["trail"])
            or (match["mark"] or "").upper() == "DR"
        )
        start = match.start() if match["open"] is None or match["close"] else match.start() + 1
        yield start, match.end(), Money(-amount if negative else amount, currency)


# An amount with a character OCR or print got wrong ("4O.00", "1,2l5.50"): digits, letters that
# stand for them, separators, and two places after the last separator.
_MISREAD_AMOUNT = re.compile(r"[-(]?\D{0,3}?(?=\S*\d)[\dOoIlSB][\dOoIlSB,.']*[.,][\dOoIlSB]{2}\)?")


def amount_at_end(line: str) -> Money | None:
    """The amount a printed line ends in ("… 143.00", "… 12.50 CR"), None when it ends in
    something else."""
    amounts = list(find_money(line))
    if not amounts or line[amounts[-1][1] :].strip(" CRDcrd"):
        return None
    return amounts[-1][2]


def misread_amount_at_end(line: str) -> str | None:
    """What a line prints at its end where an amount stands but cannot be read ("4O.00"), as
    printed; None when its end is no amount or reads as one."""
    if amount_at_end(line) is not None:
        return None
    last = line.split()[-1] if line.split() else ""
    return last if _MISREAD_AMOUNT.fullmatch(last) else None


def find_percents(text: str) -> Iterator[tuple[int, int, Decimal]]:
    for match in _PERCENT.finditer(text):
        yield match.start(), match.end(), Decimal(match["number"].replace(",", "."))


# --- dates ---------------------------------------------------------------------------------------

LANGUAGES: list[str] = DATA["languages"]
_END = r"(?![\w/-]|[.,]\d)"
_ISO_DATE = re.compile(rf"(?<![\w.,/-])\d{{4}}-\d{{1,2}}-\d{{1,2}}{_END}")
_NUMERIC_DATE = re.compile(
    rf"(?<![\w.,/-])(?P<a>\d{{1,2}})(?P<sep>[./-])(?P<b>\d{{1,2}})(?P=sep)(?:\d{{4}}|\d{{2}}){_END}"
)
_DAY_MONTH = re.compile(
    r"(?<![\w.,])\d{1,2}(?:st|nd|rd|th|er|\.|º)?[ .-](?:de )?[^\W\d_]{3,10}\.?,?[ .-](?:de )?"
    rf"(?:\d{{4}}|\d{{2}}){_END}"
)
_MONTH_DAY = re.compile(rf"(?<!\w)[^\W\d_]{{3,10}}\.? \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}{_END}")


@lru_cache(maxsize=4096)
def _read_date(text: str, order: str) -> date | None:
    return iso_day(text) or dateparser_full_date(text, order)


def dateparser_full_date(text: str, order: str) -> date | None:
    """What dateparser reads in ``text`` as a full date (day, month and year required)."""
    parsed = dateparser.parse(
        text,
        languages=LANGUAGES,
        settings={
            "DATE_ORDER": order,
            "REQUIRE_PARTS": ["day", "month", "year"],
            "STRICT_PARSING": True,
        },
    )
    return parsed.date() if parsed else None


@dataclass(frozen=True)
class DateReader:
    """Finds full dates (day, month and year) in line text and reads them with dateparser in
    the statement's languages. Numeric dates are day first unless the statement writes months
    first; dotted ones (01.03.2021) are always day first."""

    month_first: bool

    @classmethod
    def for_lines(cls, lines: Iterable[Line], currency: str | None) -> DateReader:
        """Month first when most dates that show their order do (07/31/2022, July 1, 2022), day
        first when most do the opposite, else month first only for a statement in US dollars."""
        votes: Counter[bool] = Counter()
        for line in lines:
            for match in _NUMERIC_DATE.finditer(line.text):
                a, b = int(match["a"]), int(match["b"])
                if match["sep"] != "." and (a > 12) != (b > 12):
                    votes[b > 12] += 1
            votes[True] += sum(1 for m in _MONTH_DAY.finditer(line.text) if cls._valid(m[0]))
            votes[False] += sum(1 for m in _DAY_MONTH.finditer(line.text) if cls._valid(m[0]))
        if votes[True] != votes[False]:
            return cls(votes[True] > votes[False])
        return cls(currency == "USD")

    @staticmethod
    def _valid(text: str) -> bool:
        return _read_date(text, "DMY") is not None

    def find(self, text: str) -> Iterator[tuple[int, int, date]]:
        """The dates in ``text``, left to right, none overlapping another."""
        order = "MDY" if self.month_first else "DMY"
        found: list[tuple[int, int, date]] = []
        for pattern in (_ISO_DATE, _NUMERIC_DATE, _DAY_MONTH, _MONTH_DAY):
            for match in pattern.finditer(text):
                dotted = pattern is _NUMERIC_DATE and match["sep"] == "."
                day = _read_date(match[0], "DMY" if dotted else order)
                if day is not None:
                    found.append((match.start(), match.end(), day))
        found.sort(key=lambda f: (f[0], f[0] - f[1]))
        end = 0
        for start, stop, day in found:
            if start >= end:
                yield start, stop, day
                end = stop


def money_finder(dates: DateReader) -> Finder[Money]:
    """Amounts that are not part of a date (``31.03.2021`` is not 31.03)."""

    def find(text: str) -> Iterator[tuple[int, int, Money]]:
        taken = [(start, end) for start, end, _ in dates.find(text)]
        for start, end, money in find_money(text):
            if not any(start < t_end and t_start < end for t_start, t_end in taken):
                yield start, end, money

    return find


# --- facts ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PdfFact:
    """A figure a statement states. Money has ``amount`` as printed (negative when printed with a
    minus, in parentheses or marked DR); ``due_date`` has ``day`` and no amount; ``apr`` has the
    percentage as ``amount``. ``box`` covers the label and the value."""

    name: str
    amount: Decimal | None
    day: date | None
    page: int
    box: Box
    label: str  # as printed


def read_facts(pages: list[PageText], currency: str | None) -> list[PdfFact]:
    """Every figure the statement states, once each, in reading order (the first of
    ``fact_candidates``)."""
    return [found[0] for found in fact_candidates(pages, currency).values()]


def fact_candidates(pages: list[PageText], currency: str | None) -> dict[str, list[PdfFact]]:
    """Every figure the statement states, each with every value printed for it, in reading
    order; the first is the statement's own unless its rows tell otherwise (a balance misread
    by OCR in one place and read right in another).

    A label can be printed several times: in the summary, in a "balancing your checkbook"
    worksheet with blanks to fill, in the terms ("if you pay only the minimum payment ...").
    Only a label that starts a line or a column, with its value beside it or in the cell below,
    counts; a line of underscores is a form to fill in and gives nothing. Of what remains the
    first in reading order wins, earliest page first: statements open with their summary, and
    when one states a figure twice with different values (a payment slip further down, a
    second account's box), the summary's is the statement's own.

    ``currency`` is the statement's: numeric dates are read month first for US dollars unless
    the first pages show their order.
    """
    all_lines = [page_lines(page) for page in pages]
    dates = DateReader.for_lines(chain(*all_lines[:FIRST_PAGES]), currency)
    finders: dict[str, Finder[Any]] = {"due_date": dates.find, "apr": find_percents}
    money = money_finder(dates)
    facts: dict[str, list[PdfFact]] = {}
    totals: dict[str, PdfFact] = {}
    for lines in all_lines:
        joined = list(_continued_labels(lines))
        # A summary table's header names figures side by side; the row under it is the
        # account's (a total row may follow).
        headers = {line.order: line.bottom for line in lines if _figure_labels(line) > 1}
        for lower in joined:
            if lower.order - 1 in headers:
                headers[lower.order - 1] = max(headers[lower.order - 1], lower.bottom)
        for line in [*lines, *joined]:
            if line.order < len(lines) and line is lines[line.order]:
                totals = _column_totals(line, lines, money) or totals
            for label, region_end in label_regions(line):
                if label.kind != "facts":
                    continue
                if not line.starts_cell(label.start):
                    continue  # a sentence that mentions the label
                if is_form(label, region_end):
                    continue
                find = finders.get(label.name, money)
                found = value_beside(label, region_end, find, FILLER_WORDS, one_cell=False)
                if found and not _dated_enough(label, found, dates):
                    found = None  # "Closing balance at" + a figure from another column
                # Rates under an APR title list purchases first, the rate people ask for.
                header = headers.get(line.order - line.joined)
                found = found or value_below(
                    label,
                    lines,
                    find,
                    label.name == "apr" or header is not None,
                    lead=dates.find,
                    header_bottom=header,
                )
                if found is not None:
                    facts.setdefault(label.name, []).append(_fact(found))
    for name, fact in totals.items():
        facts.setdefault(name, []).append(fact)
    dated = [
        found for lines in all_lines for line in lines if (found := _dated(line, dates, money))
    ]
    if len({day for day, _ in dated}) > 1:
        # After the balances a label names: "Opening balance" says more than a date does.
        first, last = (pick(dated, key=lambda found: found[0])[1] for pick in (min, max))
        for name, fact in (("opening_balance", first), ("closing_balance", last)):
            facts.setdefault(name, []).append(replace(fact, name=name))
    return facts


def _dated(line: Line, dates: DateReader, money: Finder[Money]) -> tuple[date, PdfFact] | None:
    """A balance a line dates ("Balance at 1 March 2024 £1,000.00"): the day and the figure."""
    label = _DATED_BALANCE.match(line.folded)
    if label is None or not line.starts_cell(0):
        return None
    found_dates = list(dates.find(line.text[label.end() :]))
    if not found_dates:
        return None
    _, after, day = found_dates[0]
    rest = line.text[label.end() + after :]
    amounts = list(money(rest))
    if len(amounts) != 1 or _LETTER.search(rest[: amounts[0][0]]):
        return None
    start, end, value = amounts[0]
    offset = label.end() + after
    box = union(line.box(0, label.end()), line.box(offset + start, offset + end))
    return day, PdfFact("balance", value.amount, None, line.page, box, line.text[:offset].strip())


def _figure_labels(line: Line) -> int:
    return sum(1 for label in labels_on(line) if label.kind == "facts")


def _dated_enough(label: Label, found: Found[Any], dates: DateReader) -> bool:
    """A label that goes on with a date ("Balance at", "as of") has its value after the date:
    a figure beside it with no date between is another column's."""
    if found.line is not label.line:
        return True
    between = label.line.folded[label.end : found.start]
    if not _DATED_BY.match(between):
        return True
    return any(True for _ in dates.find(label.line.text[label.end : found.start]))


def _column_totals(line: Line, lines: list[Line], find: Finder[Money]) -> dict[str, PdfFact]:
    """Money out and in from a line that starts with a totals label and holds nothing but
    amounts after it, under a table with debit and credit columns ("Summe der Umsätze 1.660,36
    3.322,94" under "Soll" and "Haben"): each amount is the total of the column whose title it
    lies under, or is nearest to."""
    label = _COLUMN_TOTALS.match(line.folded)
    if label is None:
        return {}
    columns = next(
        (found for above in reversed(lines[: line.order]) if (found := money_columns(above.words))),
        [],
    )
    region = line.text[label.end() :]
    amounts = list(find(region))
    if not columns or not amounts or _LETTER.search(region[: amounts[0][0]]):
        return {}
    totals: dict[str, PdfFact] = {}
    for start, end, value in amounts:
        x0, _, x1, _ = box = line.box(label.end() + start, label.end() + end)
        kind, *_ = max(columns, key=lambda c: min(x1, c[2]) - max(x0, c[1]))
        name = "money_out" if kind == "debit" else "money_in"
        if name in totals:
            return {}  # two amounts under one column: not the totals of this table
        box = union(line.box(0, label.end()), box)
        totals[name] = PdfFact(name, value.amount, None, line.page, box, line.text[: label.end()])
    return totals


def _fact(found: Found[Any]) -> PdfFact:
    value = found.value
    if isinstance(value, Money):
        amount, day = value.amount, None
    elif isinstance(value, date):
        amount, day = None, value
    else:  # a percentage
        amount, day = value, None
    return PdfFact(found.label.name, amount, day, found.line.page, found.box, found.label.printed)
