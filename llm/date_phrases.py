"""Find the date range a question asks about, resolved against an ``as_of`` date.

Conventions (all ranges inclusive):

- Calendar units: weeks run Monday to Sunday, quarters are calendar quarters.
- "this week/month/quarter/year" (and "year to date") run from the unit's start to ``as_of``.
- "last/previous/past week/month/quarter/year" is the whole previous calendar unit.
- "last N days" is a rolling window of N days ending on ``as_of``.
- "last N weeks/months/quarters/years" are the N *whole* calendar units before the current one:
  with ``as_of`` 2025-07-15, "last 3 months" is 2025-04-01..2025-06-30. The current, partial
  unit is left out so every unit in the range is complete and comparable.
- A named period without a year ("in March", "between January and April") is the most recent
  one starting on or before ``as_of``; named periods are whole ("in July" is all of July).
- "Q1".."Q4" and "first/second half" without a year belong to ``as_of``'s year.
- "since X" runs from the start of X to ``as_of`` ("after X" from the day after X ends);
  "before X" ends the day before X starts, "until X" on X's last day.

Single dates and months ("April 1", "2024-03-01", "March 2025") are read by ``dateparser``
relative to ``as_of``; unit arithmetic uses ``dateutil.relativedelta``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

from dateparser.date import DateDataParser
from dateutil.relativedelta import relativedelta

from elastic.shaping import bucket_start, shift
from llm.intent_plan import Interval
from llm.text_norm import COUNT, parse_count

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_YEAR = r"(?:19|20)\d{2}"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?(?!\d)"
# A bare year, unless it is an amount: "over 2000", "2000 dollars".
_BARE_YEAR = (
    r"(?<!over )(?<!under )(?<!above )(?<!below )(?<!than )(?<!least )(?<!most )"
    rf"{_YEAR}(?!\s*(?:dollars?|usd|bucks)\b)"
)
# One point in time: a day, a month or a year. Order matters: the longest forms come first.
_POINT = (
    r"(?<![\w$.,])(?:"
    r"\d{4}-\d{1,2}-\d{1,2}"
    r"|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    rf"|{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?"
    rf"|{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?"
    rf"|{_MONTH}(?:,?\s+(?:of\s+)?{_YEAR})?"
    r"|\d{4}-\d{2}"
    rf"|{_BARE_YEAR}"
    r")(?![\w$])"
)
_EXPLICIT_YEAR = re.compile(rf"{_YEAR}|\d{{4}}-\d|\d/\d{{1,2}}/\d")
# Bare "may" or a bare abbreviation ("apr" is also APR) is a month only after a preposition
# ("in may", "since apr"); with a day or a year ("may 2025", "apr 3") it always is.
_AMBIGUOUS_MONTHS = frozenset({"may", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep"})
_AMBIGUOUS_MONTHS |= {"sept", "oct", "nov", "dec"}
_MONTH_CONTEXT = re.compile(
    r"(?:\b(?:in|during|of|since|from|for|between|until|through|to|and|before|after|early|late|"
    r"mid|last|this)\s+)$"
)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_ORDINALS |= {"1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


@dataclass(frozen=True)
class DateRange:
    start: date | None
    end: date | None
    span: tuple[int, int]  # where the phrase sits in the normalised question


@dataclass(frozen=True)
class _Point:
    start: date
    end: date
    has_year: bool


_Bounds = tuple[date | None, date | None]
_Resolver = Callable[[re.Match[str], date], _Bounds | None]


def _unit_start(day: date, unit: str) -> date:
    """The first day of the calendar day/week/month/quarter/year holding ``day``."""
    return bucket_start(day, Interval(unit))


def _shift(start: date, unit: str, n: int) -> date:
    return shift(start, Interval(unit), n)


def _unit_end(start: date, unit: str) -> date:
    return _shift(start, unit, 1) - timedelta(days=1)


@lru_cache(maxsize=8)
def _parser(as_of: date) -> DateDataParser:
    settings = {
        "RELATIVE_BASE": datetime(as_of.year, as_of.month, as_of.day),
        "PREFER_DATES_FROM": "past",
        "PREFER_DAY_OF_MONTH": "first",
        "DATE_ORDER": "MDY",
        "PARSERS": ["absolute-time"],  # relative phrases never reach dateparser
    }
    return DateDataParser(languages=["en"], settings=settings)


@lru_cache(maxsize=1024)
def _read_point(token: str, as_of: date) -> _Point | None:
    """One day, month or year phrase as the whole period it names."""
    data = _parser(as_of).get_date_data(token)
    if data.date_obj is None:
        return None
    found = data.date_obj.date()
    has_year = bool(_EXPLICIT_YEAR.search(token))
    if data.period == "year":
        return _Point(date(found.year, 1, 1), date(found.year, 12, 31), has_year)
    if data.period == "month":
        start = found.replace(day=1)
        return _Point(start, _unit_end(start, "month"), has_year)
    return _Point(found, found, has_year)


def _with_year(point: _Point, year: int) -> _Point:
    """The same day or month in another year (Feb 29 falls back to Feb 28)."""
    start = point.start + relativedelta(year=year)
    end = start if point.start == point.end else _unit_end(start, "month")
    return _Point(start, end, True)


def _year_of(match: re.Match[str], as_of: date) -> int:
    if match.group("year"):
        return int(match.group("year"))
    return as_of.year + {"last": -1, "next": 1}.get(match.group("rel") or "", 0)


def _range(match: re.Match[str], as_of: date) -> _Bounds | None:
    """Two points; a missing year comes from the other end ("between January and April 2024")."""
    first = _read_point(match.group("a"), as_of)
    if first is None:
        return None
    if match.group("b") in ("now", "today"):
        return first.start, as_of
    second = _read_point(match.group("b"), as_of)
    if second is None:
        return None
    if second.has_year and not first.has_year:
        first = _with_year(first, second.start.year - (first.start.month > second.start.month))
    elif not second.has_year:
        second = _with_year(second, first.start.year + (second.start.month < first.start.month))
    return None if second.end < first.start else (first.start, second.end)


def _quarter(match: re.Match[str], as_of: date) -> _Bounds:
    number = match.group("q") or match.group("ord")
    quarter = int(number) if number.isdigit() else _ORDINALS[number]
    start = date(_year_of(match, as_of), 3 * quarter - 2, 1)
    return start, _unit_end(start, "quarter")


def _year_quarter(match: re.Match[str], _: date) -> _Bounds:
    start = date(int(match.group("year")), 3 * int(match.group("q")) - 2, 1)
    return start, _unit_end(start, "quarter")


def _half(match: re.Match[str], as_of: date) -> _Bounds:
    number = match.group("h") or match.group("ord")
    half = int(number) if number.isdigit() else _ORDINALS[number]
    start = date(_year_of(match, as_of), 6 * half - 5, 1)
    return start, _shift(start, "quarter", 2) - timedelta(days=1)


def _current(match: re.Match[str], as_of: date) -> _Bounds:
    unit = match.group("a") or match.group("b") or match.group("c")
    unit = unit or {"y": "year", "q": "quarter", "m": "month"}[match.group("d")]
    return _unit_start(as_of, unit), as_of


def _previous(match: re.Match[str], as_of: date) -> _Bounds:
    unit = match.group("unit")
    start = _shift(_unit_start(as_of, unit), unit, -1)
    return start, _unit_end(start, unit)


def _last_n(match: re.Match[str], as_of: date) -> _Bounds | None:
    n = parse_count(match.group("n"))
    if not n:
        return None
    unit = match.group("unit")
    if unit == "day":
        return as_of - timedelta(days=n - 1), as_of
    current = _unit_start(as_of, unit)
    return _shift(current, unit, -n), current - timedelta(days=1)


def _day(offset: int) -> _Resolver:
    def resolve(_: re.Match[str], as_of: date) -> _Bounds:
        day = as_of + timedelta(days=offset)
        return day, day

    return resolve


def _point(match: re.Match[str], as_of: date) -> _Bounds | None:
    token = match.group("a")
    ambiguous = token.rstrip(".") in _AMBIGUOUS_MONTHS
    if ambiguous and not _MONTH_CONTEXT.search(match.string[: match.start()]):
        return None
    point = _read_point(token, as_of)
    return None if point is None else (point.start, point.end)


_YEAR_REF = rf"(?:\s+(?:of\s+)?(?:the\s+)?(?:(?P<year>{_YEAR})|(?P<rel>this|last|next)\s+year))?"
_UNIT = r"(?P<unit>day|week|month|quarter|year)"

# A whole range: two points joined by "to", "and", "-", "through"...
_RANGE = re.compile(
    rf"(?:\b(?:from|between)\s+)?(?P<a>{_POINT})\s*(?:to|and|until|till|through|thru|-|–)\s*"
    rf"(?P<b>{_POINT}|now|today\b)"
)
# "since X" / "before X": X is any simple phrase below.
_PREFIX = re.compile(
    r"\b(?P<kw>since|starting(?:\s+(?:from|on|in))?|after|before|prior to|until|till|up to)"
    r"\s+(?:the\s+)?"
)
# Simple phrases, tried in order; the first family with a usable match wins.
_SIMPLE: list[tuple[re.Pattern[str], _Resolver]] = [
    (re.compile(rf"\b(?P<year>{_YEAR})\s*-?\s*q(?P<q>[1-4])\b"), _year_quarter),
    (
        re.compile(
            r"\b(?:q(?P<q>[1-4])|(?P<ord>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter)"
            rf"{_YEAR_REF}\b"
        ),
        _quarter,
    ),
    (re.compile(rf"\b(?:h(?P<h>[12])|(?P<ord>first|second|1st|2nd)\s+half){_YEAR_REF}\b"), _half),
    (
        re.compile(
            r"\b(?:(?:so far\s+)?(?:this|current)\s+(?P<a>week|month|quarter|year)"
            r"|(?:start|beginning)\s+of\s+(?:the|this)\s+(?P<b>week|month|quarter|year)"
            r"|(?P<c>week|month|quarter|year)[\s-]to[\s-]date|(?P<d>[ymq])td)\b"
        ),
        _current,
    ),
    (re.compile(rf"\b(?:last|past|previous|prior)\s+(?P<n>{COUNT})\s+{_UNIT}s?\b"), _last_n),
    (re.compile(rf"\b(?:last|past|previous|prior)\s+{_UNIT}\b"), _previous),
    (re.compile(r"\btoday\b"), _day(0)),
    (re.compile(r"\byesterday\b"), _day(-1)),
    (re.compile(rf"(?P<a>{_POINT})"), _point),
]


def _simple_at(text: str, pos: int, as_of: date) -> tuple[_Bounds, int] | None:
    """A simple phrase starting exactly at ``pos``, with where it ends."""
    for pattern, resolve in _SIMPLE:
        match = pattern.match(text, pos)
        if match and (bounds := resolve(match, as_of)) is not None:
            return bounds, match.end()
    return None


def _prefixed(text: str, as_of: date) -> DateRange | None:
    for match in _PREFIX.finditer(text):
        found = _simple_at(text, match.end(), as_of)
        if found is None:
            continue
        (start, end), stop = found
        keyword = match.group("kw")
        if keyword in ("before", "prior to"):
            bounds: _Bounds = (None, start - timedelta(days=1) if start else None)
        elif keyword in ("until", "till", "up to"):
            bounds = (None, end)
        elif start is None or start > as_of:
            continue
        else:
            bounds = ((end + timedelta(days=1)) if keyword == "after" and end else start, as_of)
        return DateRange(bounds[0], bounds[1], (match.start(), stop))
    return None


def find_date_range(text: str, as_of: date) -> DateRange | None:
    """The date range named in a normalised question, or None when it names none."""
    for match in _RANGE.finditer(text):
        if (bounds := _range(match, as_of)) is not None:
            return DateRange(bounds[0], bounds[1], match.span())
    if (found := _prefixed(text, as_of)) is not None:
        return found
    for pattern, resolve in _SIMPLE:
        for match in pattern.finditer(text):
            if (bounds := resolve(match, as_of)) is not None:
                return DateRange(bounds[0], bounds[1], match.span())
    return None


def warm_up() -> None:
    """dateparser loads its language data on first use (~150 ms); pay that once, up front."""
    _read_point("march 1", date(2000, 1, 1))
